"""`python -m verify claims FILE.toml`: the built-in claims restated give theorem2's verdicts, planted
false claims are refuted with certificates that `check` confirms, true ones never are, and bad claim
files or edited certificates are one line with exit 2 and no file written."""
import json
from pathlib import Path

import pytest

from tests.conftest import ROOT, THEOREM2_RUN, run_cli, run_cli_process
from tests.test_cli import assert_one_line_error
from verify.claims.claimfile import load_claims, parse_claims_text
from verify.claims.verdicts.decide import run_claims

EXAMPLES = Path(ROOT) / "examples" / "claims.toml"
READING = {"tangent": "tangent-exact", "ambient": "ambient-bounds"}


def test_restated_theorem2_claims_get_theorem2s_verdicts(theorem2_run):
    restated = [c for c in load_claims(EXAMPLES) if c.id.startswith("T2.")]
    assert len(restated) == 10
    mine = run_claims(restated, **THEOREM2_RUN, workers=1)
    builtin, _ = theorem2_run
    verdicts = {(r.id, r.reading): r.verdict.text for r in builtin.claims}
    for result in mine.claims:
        claim_id, reading = result.id.rsplit(".", 1)
        assert result.verdict.text == verdicts[(claim_id, READING[reading])], result.id
    assert {r.verdict.text for r in mine.claims} == {"PROVED", "REFUTED"}


SUITE = Path(ROOT) / "examples" / "suite.toml"
PLANTED = ["false.near_uniform", "false.ties", "false.large_n", "false.huge_kappa", "true.J.bottom", "true.kappa.tower"]


def test_planted_claims_of_the_suite_get_their_verdicts_and_check_confirms_each(tmp_path):
    """The one planted-claims file (examples/suite.toml): false ones REFUTED with confirmed certificates,
    true ones PROVED (or HOLDS where no proof is attempted), through the command line."""
    ids = [arg for claim_id in PLANTED for arg in ("--claim", claim_id)]
    out = run_cli("claims", str(SUITE), *ids, "--json", "--samples", "80", "--workers", "1", "--out", str(tmp_path / "c"))
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    verdicts = {c["id"]: c["verdict"] for c in report["claims"]}
    assert verdicts == {"false.near_uniform": "REFUTED", "false.ties": "REFUTED", "false.large_n": "REFUTED",
                        "false.huge_kappa": "REFUTED", "true.J.bottom": "PROVED", "true.kappa.tower": "HOLDS"}
    found = {c["id"]: c["evidence"]["counterexample"] for c in report["claims"] if c["verdict"] == "REFUTED"}
    assert found["false.large_n"]["n"] >= 7
    for claim in report["claims"]:
        check = run_cli("check", claim["certificate"], "--claims", str(SUITE)) if claim["certificate"] else None
        assert check is None or (check.returncode == 0 and check.stdout.startswith("CONFIRMED")), check.stdout + check.stderr
    assert report["command"] == "claims" and "versions" in report and all(c["reading"] is None for c in report["claims"])


def test_edited_certificate_text_is_refused(tmp_path):
    claims = parse_claims_text('[[claim]]\nid = "c"\nholds = "z_max >= 1/6"\n')
    result = run_claims(claims, seed=1, samples=40, out_dir=str(tmp_path), workers=1).claims[0]
    assert result.verdict.text == "REFUTED"
    data = json.loads(Path(result.certificate).read_text())
    data["statement"] = "z_max >= 1/7"
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(data))
    out = run_cli("check", str(edited))
    assert (out.returncode, out.stderr) == (1, "") and len(out.stdout.splitlines()) == 1
    assert out.stdout.startswith(f"NOT CONFIRMED: {edited}: ") and "edited" in out.stdout


BAD_FILES = {
    "syntax": ('[[claim]\nid = "x"\nholds = "n >= 2"\n', "line"),
    "missing_holds": ('[[claim]]\nid = "x"\n', "holds"),
    "duplicate": ('[[claim]]\nid = "x"\nholds = "n >= 2"\n[[claim]]\nid = "x"\nholds = "n >= 2"\n', "x"),
    "unknown_key": ('[[claim]]\nid = "x"\nholds = "n >= 2"\ncolour = "red"\n', "colour"),
    "unknown_name": ('[[claim]]\nid = "x"\nholds = "lamda_min >= 0"\n', "lambda_min"),
    "import": ('[[claim]]\nid = "x"\nholds = "__import__(\'os\').system(\'ls\') >= 0"\n', "__import__"),
    "dunder": ('[[claim]]\nid = "x"\nholds = "().__class__ >= 0"\n', "__class__"),
    "index": ('[[claim]]\nid = "x"\nholds = "z(n+1) >= 0"\n', "z("),
    "not_a_comparison": ('[[claim]]\nid = "x"\nholds = "kappa + 1"\n', "kappa"),
    "n_range": ('[[claim]]\nid = "x"\nholds = "n >= 2"\nn = [1, 5]\n', "n"),
    "hessian": ('[[claim]]\nid = "x"\nholds = "n >= 2"\nhessian = "dense"\n', "dense"),
    "too_long": ('[[claim]]\nid = "x"\nholds = "' + "+".join(["n"] * 1100) + ' >= 0"\n', "2000"),
    "tower": ('[[claim]]\nid = "x"\nholds = "10**10**10**10 > kappa"\n', ""),
    # 200,000 backslashes once exported a LaTeX line longer than pdflatex reads (an attack)
    "long_statement": ('[[claim]]\nid = "x"\nholds = "n >= 2"\nstatement = "' + "\\\\" * 10_001 + '"\n', "10,000"),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_claim_files_are_one_line_and_write_nothing(name, tmp_path):
    text, mentioned = BAD_FILES[name]
    path = tmp_path / "bad.toml"
    path.write_text(text)
    out_dir = tmp_path / "certificates"
    args = ("claims", str(path), "--samples", "5", "--workers", "1", "--out", str(out_dir))
    out = run_cli_process(*args, timeout=60) if name == "tower" else run_cli(*args)  # the tower's cost is bounded
    if name == "tower":  # a huge but legal number: decided (10^10^10^10 exceeds every κ), not refused
        assert out.returncode == 0 and "Traceback" not in out.stderr and "HOLDS" in out.stdout, out.stdout + out.stderr
        return
    assert_one_line_error(out)
    assert mentioned in out.stderr
    assert not out_dir.exists()


def test_export_latex_adds_the_claims_of_a_claim_file(tmp_path, capsys):
    """(tests/test_latex_proofs.py exports examples/claims.toml whole, and checks every verdict in it.)"""
    from verify.commandline.cli import main

    claim_file = tmp_path / "mine.toml"
    claim_file.write_text('[[claim]]\nid = "mine.bound"\nholds = "lambda_min <= mu_T * z_max**2"\n\n'
                          '[[claim]]\nid = "mine.second"\nholds = "z(2) <= 1/2"\n')
    assert main(["export-latex", "--out", str(tmp_path), "--claims", str(claim_file)]) == 0, \
        capsys.readouterr().err
    document = (tmp_path / "derivations.tex").read_text()
    section = (tmp_path / "user-claims.tex").read_text()
    assert section in document
    assert r"\lambda_{\min}" in section and r"\mu_T" in section and "z_{(2)}" in section


EXPECTING = """
[[claim]]
id = "expect.true.but.false"
holds = "lambda_min >= mu_T * z_max**2"
expect = "true"

[[claim]]
id = "expect.false.but.true"
holds = "lambda_min <= L_T * z_max**2"
expect = "false"

[[claim]]
id = "expect.true.and.true"
holds = "lambda_min <= L_T * z_max**2"
expect = "true"

[[claim]]
id = "no.expect"
holds = "lambda_min >= mu_T * z_max**2"
"""


def test_a_verdict_against_expect_is_flagged_in_the_table_and_the_json(tmp_path):
    claim_file = tmp_path / "mine.toml"
    claim_file.write_text(EXPECTING)
    out = run_cli("claims", str(claim_file), "--json", "--samples", "20", "--workers", "1", "--out", str(tmp_path / "c"))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    by_id = {c["id"]: c for c in data["claims"]}
    verdicts = {claim_id: c["verdict"] for claim_id, c in by_id.items()}
    expected = {"expect.true.but.false": "REFUTED", "no.expect": "REFUTED"}
    assert {k: verdicts[k] for k in expected} == expected
    assert verdicts["expect.false.but.true"] in ("PROVED", "HOLDS") and verdicts["expect.true.and.true"] in ("PROVED", "HOLDS")
    flagged = {claim_id for claim_id, c in by_id.items() if c.get("disagrees_with_expect")}
    assert flagged == {"expect.true.but.false", "expect.false.but.true"} == set(data["disagree_with_expect"])
    assert "expect" not in by_id["no.expect"] and by_id["expect.true.and.true"]["disagrees_with_expect"] is False
    table = run_cli("claims", str(claim_file), "--samples", "20", "--workers", "1", "--out", str(tmp_path / "c"))
    assert table.returncode == 0, table.stderr
    assert table.stdout.count("≠ expect") == 2
    assert ("2 verdict(s) disagree with the claim file's expect: expect.true.but.false, expect.false.but.true"
            in " ".join(table.stdout.split()))


def test_export_latex_of_a_claim_file_goes_to_a_folder_of_its_own(tmp_path, monkeypatch, capsys):
    """The committed derivations/ is the package's; a user's export never lands there unless asked."""
    from verify.commandline.cli import main

    claim_file = tmp_path / "mine.toml"
    claim_file.write_text('[[claim]]\nid = "mine.one"\nholds = "z_max >= 1/n"\n')
    monkeypatch.chdir(tmp_path)
    assert main(["export-latex", "--claims", str(claim_file)]) == 0
    assert not (tmp_path / "derivations").exists()
    written = tmp_path / "latex-mine"
    assert "mine.one" in (written / "user-claims.tex").read_text() and (written / "derivations.tex").is_file()
    assert "wrote" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["claims.tex", "derivations.tex", "user-claims.tex"])
def test_an_export_whose_file_is_a_folder_is_one_line_before_anything_is_written(tmp_path, capsys, name):
    """Once an IsADirectoryError traceback after the derivations' files were written (an attack)."""
    from verify.commandline.cli import main

    claim_file = tmp_path / "mine.toml"
    claim_file.write_text('[[claim]]\nid = "mine.one"\nholds = "z_max >= 1/n"\n')
    out = tmp_path / "out"
    (out / name).mkdir(parents=True)
    assert main(["export-latex", "--out", str(out), "--claims", str(claim_file), "--samples", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a folder" in err and name in err
    assert sorted(p.name for p in out.iterdir()) == [name]
