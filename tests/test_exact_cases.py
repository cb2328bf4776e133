"""Case mode on exact inputs: decimal strings are kept exactly, every λ matches an independent 100-digit
dense reference to 30 digits, the rigorous enclosures contain it, and no case file — however wrong —
ends in a traceback."""
import contextlib
import io
import json
import math
import tempfile
from pathlib import Path

import mpmath as mp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.claims.cases.case import parse_case
from verify.claims.verdicts.mode import evaluate_case
from verify.commandline.cli import main
from verify.numerics.arb import arb_to_mpf
from verify.numerics.precision import to_mpf

ISOTROPIC = {"logits": ["0", "-1", "-2"],
             "H": [["1.1", "0.7", "0.7"], ["0.7", "1.1", "0.7"], ["0.7", "0.7", "1.1"]]}  # 0.4 I + 0.7 11ᵀ
TIE = {"logits": ["0", "0"], "H": [["1.4", "0.1"], ["0.1", "1.4"]], "mu": "1.3"}
DIAGONAL = {"logits": ["0", "0", "0", "-500", "-500", "-500"],
            "H": [[f"1.00000000000000000000{k}" if i == j else "0" for j in range(6)] for i, k in
                  zip(range(6), range(1, 7))]}
TINY = {"z": ["1e-400", "0.5", "0.25", "0.25"], "H": [[2, 1, 0, 0], [1, 3, 0, 0], [0, 0, 4, 1], [0, 0, 1, 5]]}
FORTY = {"logits": [str(-575 * k // 39) for k in range(40)],
         "H": [[str(40 + (i == j) * 40 + (i * j) % 5) for j in range(40)] for i in range(40)]}  # κ ≈ 1e487
SPREAD = {"logits": [str(-575 * k // 11) for k in range(12)],
          "H": [[12 + (i == j) * 12 + (i * j) % 3 if i != j else 30 + i for j in range(12)] for i in range(12)]}


def _reference(case, digits=100):
    """Independent: z, J, H in mpmath, J H J and H projected on an orthonormal basis of T (Helmert), every
    eigenvalue by mp.eigsy — at `digits` plus what the coefficients' spread costs (κ up to e^(2·spread)),
    so that the reference itself has `digits` correct digits."""
    spread = float(max(to_mpf(v) for v in case.logits) - min(to_mpf(v) for v in case.logits))
    with mp.workdps(digits + int(2 * spread / math.log(10)) + 20):
        s = [to_mpf(v) for v in case.logits]
        top = max(s)
        e = [mp.exp(v - top) for v in s]
        z = [v / mp.fsum(e) for v in e]
        n = len(z)
        J = mp.matrix(n, n)
        for i in range(n):
            for j in range(n):
                J[i, j] = (z[i] if i == j else 0) - z[i] * z[j]
        H = mp.matrix([[to_mpf(v) for v in row] for row in case.H])
        basis = mp.matrix(n, n - 1)
        for k in range(1, n):  # Helmert: orthonormal, orthogonal to 1
            norm = mp.sqrt(k * (k + 1))
            for i in range(k):
                basis[i, k - 1] = 1 / norm
            basis[k, k - 1] = -k / norm
        curvature = sorted(mp.eigsy(basis.T * J * H * J * basis, eigvals_only=True))
        on_T = sorted(mp.eigsy(basis.T * H * basis, eigvals_only=True))
        return {"lambda_max": curvature[-1], "lambda_min": curvature[0], "kappa": curvature[-1] / curvature[0],
                "L_T": on_T[-1], "mu_T": on_T[0]}


@pytest.mark.parametrize("data", [ISOTROPIC, TIE, DIAGONAL, TINY, SPREAD, FORTY],
                         ids=["isotropic", "tie", "diagonal", "tiny", "spread", "forty-tokens"])
def test_every_value_matches_a_100_digit_reference_to_30_digits(data):
    case = parse_case(data)
    report = evaluate_case(case, dps=30)
    reference = _reference(case)
    with mp.workdps(40):
        for name, value in reference.items():
            assert abs(getattr(report.spectrum, name) / value - 1) < mp.mpf(10) ** -30, name
            if report.balls is not None:
                ball = getattr(report.balls, name)
                assert abs(arb_to_mpf(ball.mid()) - value) <= arb_to_mpf(ball.rad()) + abs(value) * mp.mpf(10) ** -35


def test_exact_decimals_print_exactly():
    iso = evaluate_case(parse_case(ISOTROPIC), dps=30).spectrum
    tie = evaluate_case(parse_case(TIE), dps=30).spectrum
    assert mp.nstr(iso.L_T, 30, strip_zeros=False) == "0.400000000000000000000000000000"
    assert mp.nstr(tie.L_T, 30, strip_zeros=False) == "1.30000000000000000000000000000"


def test_interlacing_holds_rigorously_on_the_diagonal_tie_case():
    """Its float64 entries are all 1: a float64 shortcut would call H isotropic; the reference margin is +2.48e-22."""
    report = evaluate_case(parse_case(DIAGONAL), dps=30)
    rows = {(r.claim, r.reading): r for r in report.rows}
    row = rows[("T2.interlace", "tangent-exact")]
    assert row.holds and row.rigorous == "holds"


def test_the_tie_case_decides_the_ambient_reading_against_the_users_exact_mu():
    report = evaluate_case(parse_case(TIE), dps=30)
    rows = {(r.claim, r.reading): r for r in report.rows}
    row = rows[("T2.eq47.min", "ambient-bounds")]  # λ_min = μ z_max² exactly: tight, not refuted
    assert row.holds and row.rigorous != "fails"


numbers = st.one_of(st.integers(-10**6, 10**6), st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from(["1e-400", "1e+308", "-301", "nan", "inf", "1e999999999", "0", "0x10", "", "1/3"]),
                    st.text(max_size=5), st.none(), st.booleans())
vectors = st.lists(numbers, max_size=4)
case_files = st.fixed_dictionaries({}, optional={"logits": vectors, "z": vectors, "H": st.lists(vectors, max_size=4),
                                                 "L": numbers, "mu": numbers})


@settings(max_examples=40, deadline=None)
@given(data=st.one_of(case_files, numbers, vectors))
def test_any_case_file_exits_0_or_2_without_a_traceback(data):
    out, err = io.StringIO(), io.StringIO()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "case.json"
        path.write_text(json.dumps(data, allow_nan=True))
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["theorem2", "--case", str(path), "--json"])  # an uncaught exception fails the test
    assert code in (0, 2)
    if code == 2:
        assert err.getvalue().count("\n") == 1 and err.getvalue().startswith("verify: error:")
    else:
        assert all(math.isfinite(float(json.loads(out.getvalue())[k])) for k in ("lambda_max", "lambda_min"))


claim_ids = st.sampled_from(["T2.eq47.max", "T2.swapped", "T2.multi", "A2.dim", "nope", ""])
readings = st.sampled_from(["tangent-exact", "ambient-bounds", None, 3])
domains = st.fixed_dictionaries({"n": st.one_of(vectors, numbers), "hessian": st.one_of(numbers, st.sampled_from(
    ["spd", "isotropic", "diagonal"])), "reading": readings})
certificates = st.fixed_dictionaries(
    {"format": st.one_of(st.just("verify-certificate/2"), numbers),
     "kind": st.sampled_from(["counterexample", "several-examples", "proof", "x"]),
     "claim": st.one_of(claim_ids, numbers), "reading": readings, "inputs": st.one_of(case_files, numbers),
     "statement": st.one_of(st.sampled_from(["z_max >= 1/6", "kappa > kappa", "lambda_max >= L * z_min**2"]), numbers),
     "domain": st.one_of(domains, numbers), "sha256": st.text(max_size=8),
     "binding": st.one_of(numbers, st.fixed_dictionaries({"comparison": st.text(max_size=10), "lhs": numbers,
                                                          "rhs": numbers})),
     "margin": numbers, "dps": st.one_of(st.integers(-5, 10**9), numbers), "bits": numbers},
    optional={"inequality": numbers, "lemmas": st.lists(numbers, max_size=3), "pieces": st.lists(numbers, max_size=2)})


@settings(max_examples=40, deadline=None)
@given(data=st.one_of(certificates, numbers))
def test_any_certificate_file_is_checked_or_refused_in_one_line(data):
    """check: 0 (confirmed), 1 (rejected: NOT CONFIRMED, one line) or 2 (not JSON, one line) — never a traceback."""
    out, err = io.StringIO(), io.StringIO()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "certificate.json"
        path.write_text(json.dumps(data, allow_nan=True))
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["check", str(path)])
    assert code in (0, 1, 2)
    if code == 2:
        assert err.getvalue().count("\n") == 1 and err.getvalue().startswith("verify: error:")


def test_a_case_hashes_alike_in_every_process():
    """A case made in another process (a Dask worker's, pickled with its hash) must hash as an equal case made
    here, or sets and dicts of cases tell equal cases apart: None's hash (no L or μ) is its address, which
    differs between processes; the case's hash must not read it."""
    import subprocess
    import sys

    cases = [{"logits": ["0", "-1"], "H": [["1", "0"], ["0", "2"]]}, TIE, ISOTROPIC]
    code = ("import json, sys; from verify.claims.cases.case import parse_case; "
            "print(json.dumps([hash(parse_case(c)) for c in json.loads(sys.argv[1])]))")
    there = subprocess.run([sys.executable, "-c", code, json.dumps(cases)], capture_output=True, text=True, check=True)
    assert json.loads(there.stdout) == [hash(parse_case(c)) for c in cases]
