"""Every input bounded, every failure one line: Hypothesis writes case files, claim files and certificates
of random structure, sizes, number formats and nesting, and drives the CLI in this process.

For every example: the exit status is 0, 1 or 2; on 2, stderr is exactly one non-empty line
(`verify: error: …`) and no file was written; never a traceback; no temporary file is left behind.
Certificates start from real ones, written once per module by `theorem2` and `claims`, and are mutated
(keys dropped, added or retyped, numbers changed, deep nesting, truncation, bytes that are not UTF-8).
Each property has a `slow` variant on four to five times the examples. Hypothesis does not shrink here (a
failure is reported as drawn): shrinking whole command runs can take its full five minutes.
"""
import contextlib
import io
import json
import tempfile
from fractions import Fraction
from pathlib import Path

import mpmath as mp
import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from verify.claims.builtin.multi_balls import MultiCase
from verify.claims.builtin.multi import certificate_body as multi_certificate_body
from verify.claims.builtin.registry import get_claim
from verify.claims.cases.case import MAX_MATRIX_N
from verify.cli import main
from tests.robust_inputs import case_files, claim_files, mutated_certificates, valid_H

QUICK = settings(max_examples=80, deadline=None, derandomize=True, database=None,
                 suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate])
LONG = settings(QUICK, max_examples=400)
QUICK_SEARCH = settings(QUICK, max_examples=30)  # a valid claim file runs a search (a refuted claim: seconds)
LONG_SEARCH = settings(QUICK, max_examples=120)
SEARCH = ["--samples", "4", "--workers", "1", "--dps", "30"]  # the smallest search: the input paths are under test


# ---------------------------------------------------------------- running the CLI in this process


def run(argv):
    """(exit status, stdout, stderr) of `verify ARGV`; an exception escaping main fails the test."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def leftovers(folder):
    """Temporary files (verify.atomic's `.NAME.*.tmp`) anywhere under `folder`."""
    return [p for p in Path(folder).rglob("*") if p.name.endswith(".tmp")]


def assert_one_line_or_done(code, out, err, folder, out_dir=None):
    assert "Traceback" not in out + err, err[-2000:]
    assert code in (0, 1, 2), (code, err[-2000:])
    if code == 2:
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("verify: error: ") and lines[0][15:].strip(), err[-2000:]
        assert err.endswith("\n")
        if out_dir is not None:  # bad input writes nothing
            assert not Path(out_dir).exists() or not any(Path(out_dir).iterdir())
    assert not leftovers(folder)


# ---------------------------------------------------------------- case files


def _check_case(text, as_json):
    """theorem2 --case and spectrum on one case file."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "case.json"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        json_flag = ["--json"] if as_json else []
        code, out, err = run(["theorem2", "--case", str(path), "--dps", "30", *json_flag])
        assert_one_line_or_done(code, out, err, folder)
        if code == 0 and as_json:
            kappa = mp.mpf(json.loads(out)["kappa"])  # κ may lie far beyond float64's range
            assert mp.isfinite(kappa) and kappa >= 1
        code, out, err = run(["spectrum", str(path), *json_flag])
        assert_one_line_or_done(code, out, err, folder)


@QUICK
@given(case_files(), st.booleans())
@example('\ufeff{"logits": [0, -1], "H": [[2, 1], [1, 2]]}', True)  # a byte-order mark is read past
@example('{"logits": "' + "x" * 100_000 + '"}', False)  # the message quotes 60 characters of it, not all
@example('{"logits": [' + ", ".join(["0"] * (MAX_MATRIX_N + 1)) + '], "H": [[1]]}', False)
def test_any_case_file_exits_0_or_one_line(text, as_json):
    _check_case(text, as_json)


@pytest.mark.slow
@LONG
@given(case_files(), st.booleans())
def test_any_case_file_exits_0_or_one_line_long(text, as_json):
    _check_case(text, as_json)


# ---------------------------------------------------------------- claim files


def _check_claims(data, as_json):
    """claims FILE with the smallest search; `check` on every certificate it wrote."""
    with tempfile.TemporaryDirectory() as folder:
        path, out_dir = Path(folder) / "claims.toml", Path(folder) / "out"
        path.write_bytes(data)
        code, out, err = run(["claims", str(path), *SEARCH, "--out", str(out_dir), *(["--json"] if as_json else [])])
        assert_one_line_or_done(code, out, err, folder, out_dir)
        for certificate in sorted(out_dir.glob("*.json")) if code == 0 else ():
            code, out, err = run(["check", str(certificate), "--claims", str(path)])
            assert_one_line_or_done(code, out, err, folder)
            assert code == 0, out  # what the search certified, check confirms


@QUICK_SEARCH
@given(claim_files(), st.booleans())
@example(b'[[claim]]\nid = "a"\nholds = "kappa >= 1"\nexpect = [1]\n', True)  # once a TypeError (unhashable)
@example(b'[[claim]]\nid = "a"\nholds = "kappa >= 1"\nhessian = {spd = 1}\n', False)
@example(b'[[claim]]\nid = "a"\nholds = "kappa >="\n', False)
def test_any_claim_file_exits_0_or_one_line(data, as_json):
    _check_claims(data, as_json)


@pytest.mark.slow
@LONG_SEARCH
@given(claim_files(), st.booleans())
def test_any_claim_file_exits_0_or_one_line_long(data, as_json):
    _check_claims(data, as_json)


# ---------------------------------------------------------------- certificates


CLAIM_FILE = """\
[[claim]]
id = "mine.false"
holds = "lambda_min >= mu_T * z_max**2"
n = [2, 4]

[[claim]]
id = "mine.true"
holds = "lambda_max <= L_T"
n = [2, inf]
hessian = "diagonal"
"""


@pytest.fixture(scope="module")
def real_certificates(tmp_path_factory):
    """Certificates as the commands write them: a built-in and a user claim's counterexample and proof,
    and T2.multi's several-examples certificate of a case (which the command writes only when refuted)."""
    folder = tmp_path_factory.mktemp("certificates")
    claims = folder / "claims.toml"
    claims.write_text(CLAIM_FILE)
    for argv in (["theorem2", "--claim", "T2.swapped", "--claim", "T2.eq47.max", "--out", str(folder / "t2")],
                 ["claims", str(claims), "--out", str(folder / "user")]):
        code, _, err = run([*argv, "--samples", "10", "--workers", "1", "--json"])
        assert code == 0, err
    bodies = {path.name: json.loads(path.read_text()) for path in sorted(folder.glob("*/*.json"))}
    kinds = {body["kind"] for body in bodies.values()}
    assert {"counterexample", "proof"} <= kinds, sorted(bodies)
    bodies["T2.multi.json"] = _multi_body()
    return bodies, str(claims)


def _multi_body():
    """T2.multi's certificate of two 2-token examples whose keys come from a 4 × 4 integer generator."""
    exact = lambda rows: tuple(tuple(Fraction(v) for v in row) for row in rows)
    generator = tuple(tuple((i * 3 + j) % 5 - 2 for j in range(4)) for i in range(4))
    case = MultiCase(exact([(0, -1), (0, -2)]), (exact(valid_H(2)), exact(valid_H(2))), generator, 4)
    return multi_certificate_body(get_claim("T2.multi"), case, 50)


def _check_certificate(real_certificates, draw_result):
    (data, user), (bodies, claims_file) = draw_result, real_certificates
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "certificate.json"
        path.write_bytes(data)
        for extra in ([], ["--claims", claims_file]) if user else ([],):
            code, out, err = run(["check", str(path), "--json", *extra])
            assert_one_line_or_done(code, out, err, folder)
            if code != 2:
                assert json.loads(out)["confirmed"] is (code == 0)


@QUICK
@given(data=st.data())
def test_any_certificate_is_checked_or_refused_in_one_line(real_certificates, data):
    _check_certificate(real_certificates, data.draw(mutated_certificates(real_certificates[0])))


@pytest.mark.slow
@LONG
@given(data=st.data())
def test_any_certificate_is_checked_or_refused_in_one_line_long(real_certificates, data):
    _check_certificate(real_certificates, data.draw(mutated_certificates(real_certificates[0])))


def test_the_real_certificates_are_confirmed(real_certificates):
    """The mutations start from certificates `check` confirms (T2.multi's holds, so it is not confirmed)."""
    bodies, claims_file = real_certificates
    with tempfile.TemporaryDirectory() as folder:
        for name, body in bodies.items():
            path = Path(folder) / name
            path.write_text(json.dumps(body))
            code, out, err = run(["check", str(path)])
            assert code == (1 if name == "T2.multi.json" else 0), (name, out, err)


@pytest.mark.parametrize("edit", [
    lambda body: body["lemmas"][0].update(id=["F1.positive"]),
    lambda body: body["pieces"][0].update(lemmas=[["F1.positive"]]),
], ids=["lemma-id", "piece-lemma-id"])
def test_a_proof_certificate_citing_a_list_is_not_confirmed(real_certificates, edit):
    """Once a TypeError (a list is not hashable): now NOT CONFIRMED, in one line."""
    body = json.loads(json.dumps(real_certificates[0]["mine.true.json"]))
    edit(body)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "certificate.json"
        path.write_text(json.dumps(body))
        code, out, err = run(["check", str(path)])
    assert (code, err) == (1, "") and out.startswith("NOT CONFIRMED") and len(out.splitlines()) == 1
