"""The CLI (in this process through main(argv), in a subprocess where the process matters): JSON shapes, exit
codes, and every bad input of the issues."""
import json

import pytest

from tests.conftest import run_cli, run_cli_process
from verify.base.errors import InputError
from verify.claims.verdicts.decide import verdict_of


def test_help_lists_commands():
    out = run_cli("--help")
    assert out.returncode == 0
    for command in ("theorem2", "check"):
        assert command in out.stdout


def test_theorem2_json_shape(tmp_path, capsys, theorem2_run):
    """The CLI's --json is the report's JSON (here for a proved and a refuted claim); every claim of the shared whole
    decision has the JSON fields, a verdict, and a certificate `check` confirms when refuted."""
    from verify.commandline.cli import main

    argv = ["--samples", "20", "--seed", "3", "--claim", "T2.eq47.max", "--claim", "T2.swapped", "--out", str(tmp_path)]
    assert main(["theorem2", "--json", *argv]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert {"command", "seed", "dps", "versions", "claims"} <= set(printed)
    assert printed["seed"] == 3 and printed["versions"]["numpy"]
    assert {c["verdict"] for c in printed["claims"]} >= {"PROVED", "REFUTED"}
    report, _ = theorem2_run
    for claim in printed["claims"] + json.loads(json.dumps(report.to_json()))["claims"]:
        assert {"id", "reading", "statement", "latex", "verdict", "evidence", "certificate"} <= set(claim)
        assert claim["verdict"] in {"PROVED", "CERTIFIED", "HOLDS", "REFUTED", "INCONCLUSIVE"}
        if claim["verdict"] == "REFUTED":
            assert main(["check", claim["certificate"]]) == 0 and capsys.readouterr().out.startswith("CONFIRMED")


def test_same_seed_same_verdicts(tmp_path):
    """Two processes (each its own hash seed, no shared proof memory) give the same report."""
    runs = [json.loads(run_cli_process("theorem2", "--json", "--samples", "15", "--claim", "T2.swapped",
                               "--out", str(tmp_path / str(i))).stdout) for i in range(2)]
    strip = lambda d: [(c["id"], c["reading"], c["verdict"], c["evidence"].get("counterexample")) for c in d["claims"]]
    assert strip(runs[0]) == strip(runs[1])


def test_strict_exits_1_when_refuted(tmp_path):
    out = run_cli("theorem2", "--samples", "10", "--claim", "T2.swapped", "--strict", "--out", str(tmp_path))
    assert out.returncode == 1
    assert "REFUTED" in out.stdout


def write(tmp_path, name, body):
    path = tmp_path / name
    path.write_text(body if isinstance(body, str) else json.dumps(body))
    return str(path)


def test_case_mode_json(tmp_path):
    case = write(tmp_path, "case.json", {"logits": ["0", "-700", "-2"], "H": [[2, 0, 0], [0, 3, 1], [0, 1, 4]]})
    out = run_cli("theorem2", "--case", case, "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["n"] == 3
    for key in ("lambda_max", "lambda_min", "kappa", "L_T", "mu_T", "R"):
        mantissa = data[key].split("e")[0].replace(".", "").replace("-", "").lstrip("0")
        assert len(mantissa) >= 30
    assert float(data["kappa"].split("e")[1]) > 300  # κ beyond float64's range, printed exactly
    assert {(c["id"], c["reading"]) for c in data["claims"]} >= {("T2.eq47.max", "tangent-exact")}


def test_certificate_is_a_case_file(tmp_path):
    run_cli("theorem2", "--samples", "10", "--claim", "T2.eq47.max", "--out", str(tmp_path))
    certificate = json.loads((tmp_path / "T2.eq47.max.ambient-bounds.json").read_text())
    case = write(tmp_path, "from-cert.json", certificate["inputs"])
    out = run_cli("theorem2", "--case", case, "--json")
    rows = {(c["id"], c["reading"]): c for c in json.loads(out.stdout)["claims"]}
    assert rows[("T2.eq47.max", "ambient-bounds")]["holds"] is False
    assert rows[("T2.eq47.max", "ambient-bounds")]["verdict"] == "REFUTED"


@pytest.mark.parametrize("inputs, claims", [
    ({"logits": ["0", "-700", "-2"], "H": [[2, 0, 0], [0, 3, 1], [0, 1, 4]]}, []),
    ({"z": ["0.5", "0.3", "0.2"], "H": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}, ["--claim", "T2.interlace"]),
    ({"z": ["0.7", "0.3"], "H": [[1, 0], [0, 100]]}, ["--claim", "T2.eq47.max", "--claim", "T2.eq47.kappa"])])
def test_strict_case_mode_exits_1_exactly_when_a_claim_is_refuted_there(tmp_path, inputs, claims):
    """--strict means one thing everywhere: exit 1 when a claim is REFUTED (here: the balls prove it fails)."""
    case = write(tmp_path, "case.json", inputs)
    verdicts = [c["verdict"] for c in json.loads(run_cli("theorem2", "--case", case, *claims, "--json").stdout)["claims"]]
    assert run_cli("theorem2", "--case", case, *claims, "--strict").returncode == (1 if "REFUTED" in verdicts else 0)


def test_strict_case_mode_ignores_a_row_that_fails_undecided(tmp_path, monkeypatch):
    """A row that does not hold at the working precision, which the balls leave undecided (INCONCLUSIVE), is not a
    refutation: --strict exits 0 (it once exited 1 for any row that did not hold)."""
    import dataclasses

    import verify.api

    evaluate = verify.api.evaluate_case

    def undecided(*args):
        report = evaluate(*args)
        rows = tuple(dataclasses.replace(r, holds=False, verdict=verdict_of("undecided")) if r.verdict.text == "REFUTED" else r
                     for r in report.rows)
        return dataclasses.replace(report, rows=rows)

    case = write(tmp_path, "case.json", {"z": ["0.7", "0.3"], "H": [[1, 0], [0, 100]]})
    assert run_cli("theorem2", "--case", case, "--strict").returncode == 1
    monkeypatch.setattr(verify.api, "evaluate_case", undecided)
    assert run_cli("theorem2", "--case", case, "--strict").returncode == 0


GOOD_H = [[1, 0], [0, 1]]
BAD_CASES = {
    "malformed": "{not json",
    "not simplex (negative)": {"z": [-0.5, 1.5], "H": GOOD_H},
    "not simplex (sum)": {"z": [0.5, 0.6], "H": GOOD_H},
    "H not square": {"z": [0.5, 0.5], "H": [[1, 0], [0]]},
    "H wrong size": {"z": [0.5, 0.5], "H": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]},
    "H not symmetric": {"z": [0.5, 0.5], "H": [[1, 0.5], [0, 1]]},
    "H not positive definite": {"z": [0.5, 0.5], "H": [[1, 2], [2, 1]]},
    "NaN": {"logits": ["nan", "0"], "H": GOOD_H},
    "infinite": {"logits": ["inf", "0"], "H": GOOD_H},
    "L below mu": {"z": [0.5, 0.5], "H": GOOD_H, "L": 1, "mu": 2},
    "no H": {"z": [0.5, 0.5]},
    "both z and logits": {"z": [0.5, 0.5], "logits": [0, 0], "H": GOOD_H},
}


@pytest.mark.parametrize("name", list(BAD_CASES))
def test_bad_case_one_line_exit_2(tmp_path, name):
    case = write(tmp_path, "case.json", BAD_CASES[name])
    out = run_cli("theorem2", "--case", case, "--out", str(tmp_path / "certs"))
    assert_one_line_error(out)
    assert not (tmp_path / "certs").exists()


@pytest.mark.parametrize("args", [
    ["theorem2", "--claim", "T9.nonsense"],
    ["theorem2", "--dps", "5"],
    ["theorem2", "--samples", "0"],
    ["theorem2", "--samples", "-3"],
    ["theorem2", "--case", "/nonexistent/case.json"],
    ["theorem2", "--case", "/"],  # a folder: exists but cannot be read as a file
    ["check", "/nonexistent/cert.json"],
    ["nonsense-command"],
])
def test_bad_arguments_one_line_exit_2(args):
    assert_one_line_error(run_cli(*args))


def test_a_file_that_is_no_certificate_is_bad_input(tmp_path):
    assert_one_line_error(run_cli("check", write(tmp_path, "cert.json", "[1, 2")))


def test_every_rejected_certificate_exits_1_with_one_not_confirmed_line(tmp_path):
    """One exit status for every certificate check rejects, whatever the reason (docs/certificates.md)."""
    for body in ({"claim": "T2.eq47.max"}, {"claim": "T9", "reading": None, "inputs": {}, "lhs": "1", "rhs": "1",
                                            "margin": "0", "dps": 50}, [1, 2]):
        path = write(tmp_path, "cert.json", body)
        out = run_cli("check", path)
        assert (out.returncode, out.stderr) == (1, ""), (out.returncode, out.stderr)
        assert len(out.stdout.splitlines()) == 1 and out.stdout.startswith(f"NOT CONFIRMED: {path}: ")
        data = json.loads(run_cli("check", path, "--json").stdout)
        assert data["confirmed"] is False and data["reason"]


def test_out_is_a_file(tmp_path):
    target = write(tmp_path, "file", "x")
    assert_one_line_error(run_cli("theorem2", "--samples", "5", "--out", target))


def assert_one_line_error(out):
    assert out.returncode == 2, (out.returncode, out.stdout, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert "Traceback" not in out.stderr and lines[0].startswith("verify: error:")


@pytest.mark.parametrize("args", [["theorem2", "--samples", "5", "--claim", "T2.swapped"], ["experiments", "losses"],
                                  ["export-latex"], ["theorem2", "--samples", "5", "--example-db"]])
def test_an_empty_folder_name_is_refused_and_nothing_is_written(tmp_path, args):
    flag = "--example-db" if args[-1] == "--example-db" else "--out"
    out = run_cli(*(args if flag == "--example-db" else args + ["--out"]), "", cwd=str(tmp_path))
    assert_one_line_error(out)
    assert flag in out.stderr and "''" in out.stderr
    assert list(tmp_path.iterdir()) == []


def test_case_mode_refuses_the_multi_example_claim(tmp_path):
    case = write(tmp_path, "case.json", {"logits": ["0", "-1"], "H": GOOD_H})
    out = run_cli("theorem2", "--case", case, "--claim", "T2.multi")
    assert_one_line_error(out)
    assert "T2.multi" in out.stderr and "--claim" in out.stderr


def test_check_json_records_command_versions_and_precision(tmp_path):
    run_cli("theorem2", "--samples", "10", "--claim", "T2.swapped", "--out", str(tmp_path))
    certificate = next(tmp_path.glob("T2.swapped.*.json"))
    out = run_cli("check", str(certificate), "--json")
    data = json.loads(out.stdout)
    assert out.returncode == 0 and data["confirmed"] is True
    assert data["command"] == "check" and data["versions"]["numpy"] and data["bits"] >= 166  # ≥ 50 digits
    assert "seed" in data


def test_every_option_has_help_and_the_top_help_names_no_outside_file():
    from verify.commandline.arguments import build_parser

    parser = build_parser()
    assert "SPEC" not in parser.description and "Softmax" in parser.description
    commands = next(a for a in parser._actions if a.dest == "command").choices
    for name, command in commands.items():
        for action in command._actions:
            assert action.help, f"{name} {action.option_strings or action.dest} has no help text"


def test_theorem2_help_explains_the_readings_and_every_verdict():
    out = run_cli("theorem2", "--help")
    assert out.returncode == 0
    text = " ".join(out.stdout.split())
    assert "tangent-exact L, μ are the extreme eigenvalues of H restricted to T = 1^⊥" in text
    assert "ambient-bounds any constants with μI ≼ H ≼ LI on Rⁿ" in text
    for verdict in ("PROVED", "CERTIFIED", "HOLDS", "REFUTED", "INCONCLUSIVE", "INTERRUPTED"):
        assert f" {verdict} " in text
    assert "Z3 and cvc5" in text and "algebraic identity" in text


def test_versions_record_this_distribution_under_its_own_name():
    """The import package is `verify`, but `verify` on the package index is another project: the distribution
    has its own name, and the JSON's versions record that one (None when run from a never-installed tree)."""
    import sys
    from importlib import metadata
    from pathlib import Path

    from tests.conftest import ROOT
    from verify.base.versions import DISTRIBUTION, package_versions

    toml = __import__("tomllib" if sys.version_info >= (3, 11) else "tomli")
    project = toml.loads((Path(ROOT) / "pyproject.toml").read_text())["project"]
    assert project["name"] == DISTRIBUTION != "verify"
    recorded = package_versions()
    assert "verify" not in recorded and DISTRIBUTION in recorded
    try:
        assert recorded[DISTRIBUTION] == metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        assert recorded[DISTRIBUTION] is None


def test_the_command_lines_digit_bounds_are_the_librarys():
    from verify.commandline import arguments
    from verify.base import options
    from verify.numerics import precision

    assert (arguments.MIN_DPS, arguments.MAX_DPS) == (precision.MIN_DPS, precision.MAX_DPS)
    out = run_cli("theorem2", "--dps", str(precision.MAX_DPS + 1), "--samples", "1")
    assert_one_line_error(out)
    with pytest.raises(InputError) as refused:
        options.dps(precision.MAX_DPS + 1)
    spelled = str(refused.value).replace("dps = ", "--dps ")  # the library's own message, once, as the flag
    assert out.stderr == f"verify: error: {spelled}\n"


def test_version_is_the_distributions():
    import sys
    from pathlib import Path

    from tests.conftest import ROOT

    toml = __import__("tomllib" if sys.version_info >= (3, 11) else "tomli")
    version = toml.loads((Path(ROOT) / "pyproject.toml").read_text())["project"]["version"]
    out = run_cli("--version")
    assert out.returncode == 0 and out.stdout.split() == ["verify", version]


def test_derive_help_lists_the_registrys_ids():
    from verify.commandline.arguments import DERIVATION_IDS
    from verify.derivations.registry import DERIVATION_REGISTRY

    assert DERIVATION_IDS == tuple(DERIVATION_REGISTRY)
    text = " ".join(run_cli("derive", "--help").stdout.split())
    assert ", ".join(DERIVATION_REGISTRY) in text


def test_certified_is_listed_only_where_case_mode_exists():
    from verify.commandline.arguments import build_parser

    commands = next(a for a in build_parser()._actions if a.dest == "command").choices
    for name, command in commands.items():
        has_case = any("--case" in action.option_strings for action in command._actions)
        assert ("CERTIFIED" in command.format_help()) == has_case, name
    assert "--case" in commands["theorem2"].format_help()


def test_the_transformer_install_hint_installs_this_folder(monkeypatch):
    """`verify` on the package index is another project: the hint installs the extra of this checkout."""
    import sys

    from verify.base.errors import InputError
    from verify.experiments.transformer.model import jax_modules

    monkeypatch.setitem(sys.modules, "jax", None)  # `import jax` now raises ImportError
    with pytest.raises(InputError) as error:
        jax_modules()
    assert "pip install '.[transformer]'" in str(error.value) and "verify[" not in str(error.value)


def test_a_long_run_piped_prints_progress_lines_to_stderr(capsys):
    """Not a terminal: no bar, but with lines=True (the transformer study) one plain line per stage."""
    from verify.commandline.cli import _LazyProgress

    calls = [(0, 10, "loading"), (1, 10, "sgd: step 1"), (2, 10, "sgd: step 2"), (6, 10, "adam: step 1")]
    with _LazyProgress("transformer", delay=0, lines=True, every=1e9) as progress:
        for call in calls:
            progress(*call)
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert captured.out == "" and len(lines) == 3
    assert all(line.startswith("verify: transformer: ") for line in lines)
    assert "loading (0 %" in lines[0] and "sgd: step 1 (10 %" in lines[1] and "adam: step 1 (60 %" in lines[2]
    with _LazyProgress("searching", delay=0) as progress:  # a short command stays quiet in a pipe
        for call in calls:
            progress(*call)
    assert capsys.readouterr().err == ""


def test_theorem2s_table_states_the_formula_beside_each_verdict_within_80_columns(theorem2_run):
    import io

    from rich.console import Console

    from verify.commandline.tables import formula_text, theorem2_table

    report, _ = theorem2_run
    out = io.StringIO()
    theorem2_table(report, Console(file=out, width=80))
    lines = out.getvalue().splitlines()
    rows = [line for line in lines if line[:1] in "┏┃┡│├└"]  # the table (the certificates' paths below it are as long as they are)
    assert rows and max(map(len, rows)) <= 80, [line for line in rows if len(line) > 80]
    table = out.getvalue()
    firsts = [line for line in rows if "⊢" in line]  # each row's first line: id, verdict, formula
    stated = [r for r in report.claims if r.text]
    assert len(firsts) == len(stated) and len(stated) >= 10
    for result, line in zip(stated, firsts):
        assert line.startswith(f"│ {result.id} ") and f"│ {result.verdict.text} " in line, line
        assert "⊢ " + formula_text(result.text)[:20].rsplit(" ", 1)[0] in line, line  # as much as fits the line
    assert "⊢ λ_max ≥ L_T · z_min²" in table or "⊢ λ_max ≥ L_T·z_min²" in table  # T2.eq47.max, tangent-exact
    assert formula_text("kappa <= (L_T/mu_T) * R**2") == "κ ≤ (L_T/μ_T) · R²"


@pytest.mark.parametrize("text, shown", [  # an attack's: each once printed as a different formula
    ("sqrt(lambda(n-1) - mu_T*z_min**2) * log(kappa - 1) >= 0", "√(λ(n-1) - μ_T·z_min²) · log(κ - 1) ≥ 0"),  # √( closed
    ("10**10**10 > z_max**(10**3)", "10^10¹⁰ > z_max^(10³)"),  # once 10¹⁰¹⁰ > z_max¹⁰³
    ("x >= (1e-9)**(-1e-9)", "x ≥ (1e-9)^(-1e-9)"),  # once (1e-9)⁻¹e-9)
    ("mu_T * z(2)**(-2) <= x**2.5", "μ_T · z(2)⁻² ≤ x^2.5"),
])
def test_a_formula_in_the_table_reads_as_the_claim_does(text, shown):
    from verify.commandline.tables import formula_text

    assert formula_text(text) == shown


def test_the_table_names_the_pieces_that_rest_on_the_solvers_alone():
    from verify.claims.results import ProofEvidence
    from verify.commandline.tables import _kind_text

    pieces = ({"piece": "n = 2", "kind": "Z3 and cvc5 agree"}, {"piece": "n ≥ 3", "kind": "algebraic identity"})
    mixed = ProofEvidence("proved", "every n ≥ 2", pieces=pieces, kind="Z3 and cvc5 agree")
    assert _kind_text(mixed) == "algebraic identity, except on n = 2: Z3 and cvc5 alone"
    whole = ProofEvidence("proved", "every n ≥ 2", pieces=pieces[1:], kind="algebraic identity")
    assert _kind_text(whole) == "algebraic identity"


EXIT_SCRIPT = """
import atexit, sys, threading, time
from verify.commandline.cli import _exit_without_teardown
atexit.register(lambda: print("the exit handler ran"))  # no flush of its own: the exit's flush writes it
if sys.argv[1] == "thread":
    threading.Thread(target=time.sleep, args=(0.2,)).start()
print("output before the exit", end="")
_exit_without_teardown(3)
print(" and after it: the interpreter's own ending")
"""


def _buffered_python(*args, **options):
    """`python args` with stdout block-buffered when it is a pipe, as on a user's machine (this sandbox sets
    PYTHONUNBUFFERED, under which no flush is ever missed)."""
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    environment = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    return subprocess.Popen([sys.executable, *args], cwd=ROOT, env=environment, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **options)


@pytest.mark.parametrize("threads", ["none", "thread"])
def test_the_program_ends_with_its_exit_handlers_run_and_its_output_flushed(threads):
    """The command line ends without the interpreter's teardown (os._exit), after the exit handlers and a flush of
    the output; where a thread is still alive it returns, and the interpreter ends as usual (waiting for it, then
    running the handlers)."""
    run = _buffered_python("-c", EXIT_SCRIPT, threads)
    out, err = run.communicate(timeout=60)
    if threads == "none":
        assert (run.returncode, out) == (3, "output before the exitthe exit handler ran\n"), (out, err)
    else:
        assert run.returncode == 0, err
        assert out == "output before the exit and after it: the interpreter's own ending\nthe exit handler ran\n"
    assert err == ""


@pytest.mark.parametrize("closed", [">&-", "2>&-"])
def test_a_program_started_with_a_stream_closed_ends_as_it_would_with_it_open(closed):
    """`verify ... >&-`: Python's stream is None, which the exit's flush skips (it raised AttributeError, exit 1)."""
    import shlex
    import subprocess
    import sys

    from tests.conftest import ROOT

    command = f"exec {shlex.quote(sys.executable)} -m verify check /nonexistent/certificate.json {closed}"
    done = subprocess.run(["sh", "-c", command], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) <= 1, done


def test_a_reader_that_leaves_before_the_table_ends_the_run_with_141_and_no_message():
    """`verify theorem2 | head -1`: the table (rich) meets a closed pipe; the run ends with 141, as a print to a closed
    pipe does, not rich's own exit status 1."""
    for output in ([], ["--json"]):  # the table, and a print that reaches the pipe only at the exit's flush
        run = _buffered_python("-m", "verify", "theorem2", "--samples", "5", "--claim", "T2.swapped", *output)
        run.stdout.close()  # before anything is written: the first write fails
        errors = run.stderr.read()
        assert (run.wait(timeout=300), errors) == (141, ""), output
