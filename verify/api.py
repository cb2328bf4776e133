"""The public library API (re-exported by `verify`): build a case, compute its curvature spectrum,
evaluate a claim, run the Theorem 2 search, check a certificate, run a derivation's checks.

Every function returns a result object and never prints; bad input raises
`verify.InputError` with a one-line message that names the value and the fix.
"""
from verify.claims.cases import Case, parse_case
from verify.claims.results import CheckResult
from verify.claims.certificates import check_certificate as _check_certificate
from verify.claims.record import READINGS, Evaluation, evaluate
from verify.claims.registry import get_claim
from verify.claims.results import ClaimResult, Report
from verify.claims.theorem2 import run_theorem2 as _run_theorem2
from verify.errors import InputError
from verify.numerics.curvature import CurvatureSpectrum, curvature_precise


def make_case(logits=None, H=None, z=None, L=None, mu=None):
    """A validated `Case` from attention logits (or coefficients `z`) and a symmetric positive definite H.

    Numbers may be ints, floats or decimal strings; strings are kept exactly (``"1e-400"`` is fine).

    >>> case = make_case(logits=["0", "-1"], H=[[2, 0], [0, 3]])
    >>> case.n
    2
    >>> make_case(logits=[0, 0], H=[[1, 2], [2, 1]])
    Traceback (most recent call last):
    ...
    verify.errors.InputError: case H is not positive definite; give a symmetric positive definite matrix
    """
    data = {"H": H}
    data.update({"z": z} if z is not None else {"logits": logits})
    for key, value in (("L", L), ("mu", mu)):
        if value is not None:
            data[key] = value
    return parse_case(data)


def curvature_spectrum(case, dps=30):
    """The extreme eigenvalues of J H J on T (λ_max, λ_min, κ), of H on T (L_T, μ_T) and on Rⁿ, and R,
    each to about `dps` significant digits (`rel_err` says how close).

    >>> q = curvature_spectrum(make_case(logits=[0, 0], H=[[2, 0], [0, 2]]), dps=30)
    >>> print(q.lambda_max)  # z = (½, ½): J H J = 2 J², whose eigenvalue on T is 2 · (½)²
    0.5
    """
    return curvature_precise(case.logits, case.H, dps)


def evaluate_claim(claim_id, case, reading=None, dps=50):
    """A built-in claim's binding inequality at one case: both sides, the ln-margin (≥ 0 holds), and
    whether this precision decides it. `reading` is "tangent-exact" or "ambient-bounds"
    (default: the claim's first reading).

    >>> case = make_case(logits=[0, -1], H=[[1, 0], [0, 1]])
    >>> e = evaluate_claim("T2.swapped", case, "tangent-exact")
    >>> e.holds, e.decided  # T2.swapped fails at z = σ(0, −1), H = I, and 50 digits decide it
    (False, True)
    """
    claim = get_claim(claim_id, "theorem2")
    if claim.multi:
        raise InputError(f"claim {claim_id} needs several examples; it is decided only by the search", "claim")
    reading = reading or claim.readings[0]
    if reading not in claim.readings:
        raise InputError(f"reading {reading!r} is not one of {', '.join(READINGS)}", "reading")
    return evaluate(claim, reading, curvature_spectrum(case, dps), case.L, case.mu)


def run_theorem2(seed=0, samples=300, dps=50, claim_ids=None, out_dir="certificates", progress=None, workers=None):
    """Search every selected Theorem 2 claim and reading (random, then Hypothesis-adversarial);
    returns a `Report` whose `claims` are `ClaimResult`s. REFUTED only with a certificate that
    `check_certificate` confirms, written under `out_dir`.

    >>> import tempfile
    >>> report = run_theorem2(samples=10, claim_ids=["T2.eq47.max"], out_dir=tempfile.mkdtemp(), workers=1)
    >>> [(r.reading, r.verdict) for r in report.claims]
    [('tangent-exact', 'HOLDS'), ('ambient-bounds', 'REFUTED')]
    """
    return _run_theorem2(seed, samples, dps, claim_ids, out_dir, progress, workers)


def check_certificate(path):
    """Re-verify a certificate file from scratch with ball arithmetic (≥ 50 digits): a `CheckResult`
    whose `confirmed` is True only when the recorded inequality fails rigorously.

    >>> import json, os, tempfile
    >>> report = run_theorem2(samples=10, claim_ids=["T2.swapped"], out_dir=tempfile.mkdtemp(), workers=1)
    >>> check_certificate(report.claims[0].certificate).confirmed
    True
    """
    return _check_certificate(path)


def run_derivation(derivation_id):
    """Run a derivation's symbolic and numeric checks (D1–D6, A2); a tuple of `Check`s.

    >>> [check.passed for check in run_derivation("D5")]
    [True, True]
    """
    from verify.derivations.registry import DERIVATION_REGISTRY, run_checks  # SymPy: loaded on use

    if derivation_id not in DERIVATION_REGISTRY:
        raise InputError(f"unknown derivation id {derivation_id!r}; choose from {', '.join(DERIVATION_REGISTRY)}", "id")
    return run_checks(DERIVATION_REGISTRY[derivation_id])


__all__ = ["Case", "CheckResult", "ClaimResult", "CurvatureSpectrum", "Evaluation", "InputError", "Report",
           "check_certificate", "curvature_spectrum", "evaluate_claim", "make_case", "run_derivation", "run_theorem2"]
