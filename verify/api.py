"""The public library API (re-exported by `verify`; `verify.__all__` lists it): build or read a case, compute
its curvature spectrum and J's spectrum, decide claims (built-in or your own) at a case or by search, check a
certificate, check Assumption 2, run a derivation's checks. The command line is a thin layer over these.

Every function checks its own arguments, returns a result object and never prints; bad input raises
`verify.InputError` with a one-line message that names the parameter, the value and the fix. Nothing
is written to disk unless asked (`out=`).
"""
from pathlib import Path

from verify.base import options
from verify.base.atomic import check_out_dir
from verify.claims.cases.case import Case, checked_case, parse_case
from verify.claims.cases.case import load_case as _load_case
from verify.claims.executors import forking_by_default  # noqa: F401 (the command line's default: a short search forks)
from verify.claims.verdicts.mode import DecisionResult, Evaluation, evaluate_job  # noqa: F401 (types verify re-exports)
from verify.claims.verdicts.mode import decide_on_case as _decide_on_case
from verify.claims.verdicts.mode import evaluate_case as _evaluate_case
from verify.claims.certificates.check import judge_certificate as _judge_certificate
from verify.claims.claimfile import load_claims as _load_claims
from verify.claims.claimfile import MAX_CLAIMS, parse_claims_text
from verify.claims.jobs import Job
from verify.claims.builtin.registry import get_claim
from verify.claims.record import FormulaClaim
from verify.claims.results import CheckResult, ClaimResult, Report, Verdict, VerdictKind  # noqa: F401 (re-exported)
from verify.base.errors import InputError
from verify.base.files import checked_path
from verify.numerics.curvature import CurvatureSpectrum, curvature_precise  # noqa: F401 (re-exported by verify)
from verify.numerics.jspectrum import j_spectrum_report
from verify.base.printable import shown


def make_case(logits=None, H=None, z=None, L=None, mu=None):
    """A validated `Case` from attention logits (or coefficients `z`) and a symmetric positive definite H.

    Numbers may be ints, floats or decimal strings; strings are kept exactly (``"1e-400"`` is fine).

    >>> case = make_case(logits=["0", "-1"], H=[[2, 0], [0, 3]])
    >>> case.n
    2
    >>> make_case(logits=[0, 0], H=[[1, 2], [2, 1]])
    Traceback (most recent call last):
    ...
    verify.base.errors.InputError: case H is not positive definite; give a symmetric positive definite matrix
    """
    if logits is not None and z is not None:
        raise InputError("make_case got both logits and z; give one of them (z are the coefficients softmax(logits))",
                         "z")
    data = {"H": H}
    data.update({"z": z} if z is not None else {"logits": logits})
    for key, value in (("L", L), ("mu", mu)):
        if value is not None:
            data[key] = value
    return parse_case(data)


def load_case(path, require_H=True):
    """A validated `Case` from a JSON case file: ``{"logits": [...]}`` or ``{"z": [...]}``, with "H" (optional
    when `require_H` is False) and optionally "L", "mu". Only a regular file of at most 64 MiB is read."""
    return _load_case(checked_path(path, "case file", "path"), require_H=bool(require_H))


def _case(case, require_H=True):
    """The case validated (a Case built directly is checked as a case file is: see checked_case)."""
    return checked_case(case, require_H)


def curvature_spectrum(case, dps=30):
    """The extreme eigenvalues of J H J on T (λ_max, λ_min, κ), of H on T (L_T, μ_T) and on Rⁿ, and R,
    each to about `dps` significant digits (`rel_err` says how close).

    >>> q = curvature_spectrum(make_case(logits=[0, 0], H=[[2, 0], [0, 2]]), dps=30)
    >>> print(q.lambda_max)  # z = (½, ½): J H J = 2 J², whose eigenvalue on T is 2 · (½)²
    0.5
    >>> curvature_spectrum(make_case(logits=[0, 0], H=[[2, 0], [0, 2]]), dps=-3)
    Traceback (most recent call last):
    ...
    verify.base.errors.InputError: dps = -3 is below 30, the least that can certify a margin; use dps = 50
    """
    case = _case(case)
    return curvature_precise(case.logits, case.H, options.dps(dps))


def evaluate_claim(claim_id, case, reading=None, dps=50):
    """A built-in claim at one case: its binding comparison with both sides, the margin (≥ 0 holds), whether
    `dps` digits decide it, and what Arb balls alone say. `reading` is "tangent-exact" or "ambient-bounds"
    (default: the claim's first reading).

    >>> case = make_case(logits=[0, -1], H=[[1, 0], [0, 1]])
    >>> e = evaluate_claim("T2.swapped", case, "tangent-exact")
    >>> e.holds, e.decided, e.rigorous  # T2.swapped fails at z = σ(0, −1), H = I, and 50 digits decide it
    (False, True, 'fails')
    """
    claim = get_claim(claim_id, "theorem2")
    if claim.multi:
        raise InputError(f"claim {claim_id} needs several examples; it is decided only by the search", "claim")
    reading = options.reading(claim.readings[0] if reading is None else reading, claim.readings)
    job, case = Job(claim, reading), _case(case)
    if not job.applies(case):
        raise InputError(f"claim {claim_id} is about n in {claim.domain()['n']}; this case has n = {case.n}", "case")
    return evaluate_job(job, case, options.dps(dps))


def evaluate_case(case, dps=50, claim_ids=None):
    """Every single-example built-in claim (or those of `claim_ids`) under each reading at one case: a `CaseReport`
    with the spectrum to `dps` digits, its ball enclosure and one `Evaluation` per claim and reading (what
    `theorem2 --case` prints). A claim that needs several examples is refused: the search decides it.

    >>> report = evaluate_case(make_case(logits=[0, -1], H=[[1, 0], [0, 1]]), claim_ids=["T2.swapped"])
    >>> [(row.reading, row.holds) for row in report.rows]
    [('tangent-exact', False), ('ambient-bounds', False)]
    """
    chosen = options.claim_ids(claim_ids)
    for claim_id in chosen or ():
        if get_claim(claim_id, "theorem2").multi:
            raise InputError(f"claim {claim_id} needs several examples and a case holds one; the search decides it "
                             "(run it without a case), or choose another claim", "claim")
    return _evaluate_case(_case(case), options.dps(dps), chosen)


def j_spectrum(case, dps=30):
    """The eigenvalues of J(z) by the secular equation and κ of J and (with H) of J H J on T, to `dps` digits:
    a `JSpectrumReport` (what `spectrum` prints). The case may come without H (`load_case(…, require_H=False)`)."""
    case = _case(case, require_H=False)
    return j_spectrum_report(list(case.logits), case.H, options.dps(dps))


def decide_on_case(text, case, dps=50):
    """Decide a claim text (the claim language) at one case: mpmath at `dps` digits, then Arb balls when
    that is too close to call, and exact arithmetic at an exact tie of up to 8 tokens (`<=` holds, `<` fails:
    docs/spec.md, *Exact ties*). A claim reading an eigenvalue λ(k) beyond 48 tokens, where a dense precise path
    costs seconds to minutes, is decided as the search does there: a float64 estimate, decided only beyond its
    error (rigorous=False). A `DecisionResult` (margin, holds, decided, rigorous, values read), its numbers shown
    to the digits their enclosures vouch for (at most 20).

    >>> decide_on_case("z(3) <= j(2) <= z(2)", make_case(logits=[0, -1, -2], H=[[1, 0, 0], [0, 1, 0], [0, 0, 1]])).holds
    True
    """
    if not isinstance(text, str):
        raise InputError(f"text is a {type(text).__name__}; give the claim as a string", "text")
    return _decide_on_case(text, _case(case), options.dps(dps))


def load_claims(path_or_text):
    """The claims of a TOML claim file (a path), or of its text (a string with a line break or a `[` table header:
    no path has either)."""
    if isinstance(path_or_text, str) and ("\n" in path_or_text or path_or_text.lstrip().startswith("[")) and \
            not _is_file(path_or_text):
        return parse_claims_text(path_or_text)
    if not isinstance(path_or_text, (str, Path)):
        raise InputError(f"give a claim file's path or its TOML text, not a {type(path_or_text).__name__}", "claims")
    return _load_claims(path_or_text)


def _is_file(text):
    try:
        return len(text) < 4096 and Path(text).is_file()
    except (OSError, ValueError):
        return False


def _search_options(seed, samples, dps, claim_ids, out, progress, workers, scheduler, example_db):
    """Every search option checked (the folders before any work: a refused run writes nothing)."""
    chosen = dict(seed=options.seed(seed), samples=options.samples(samples), dps=options.dps(dps),
                  claim_ids=options.claim_ids(claim_ids), out_dir=options.out_dir(out),
                  progress=options.progress(progress), workers=options.workers(workers),
                  scheduler=options.scheduler(scheduler), example_db=options.example_db(example_db))
    for key, what in (("out_dir", "certificates"), ("example_db", "example database")):
        if chosen[key] is not None:
            check_out_dir(chosen[key], what, "out" if key == "out_dir" else key)
    return chosen


def run_theorem2(seed=0, samples=300, dps=50, claim_ids=None, out=None, progress=None, workers=None, scheduler=None,
                 example_db=None):
    """Decide every selected Theorem 2 claim and reading (random, then Hypothesis-adversarial search);
    a `Report` whose `claims` are `ClaimResult` objects. REFUTED only with a certificate that `check_certificate`
    confirms (written under `out` when given; always in `ClaimResult.certificate_body`).

    >>> report = run_theorem2(samples=10, claim_ids=["T2.eq47.max"], workers=1)
    >>> [(r.reading, r.verdict.text) for r in report.claims]
    [('tangent-exact', 'PROVED'), ('ambient-bounds', 'REFUTED')]
    >>> all(fact["id"].startswith("F") and fact["source"] for fact in report.claims[0].evidence.proof.lemmas)
    True
    """
    from verify.claims.verdicts.theorem2 import run_theorem2 as _run_theorem2  # the search's weight, on use

    chosen = _search_options(seed, samples, dps, claim_ids, out, progress, workers, scheduler, example_db)
    return _run_theorem2(**chosen)


def run_claims(claims, seed=0, samples=300, dps=50, claim_ids=None, out=None, progress=None, workers=None,
               scheduler=None, example_db=None):
    """Decide your own claims (a claim file's path or text, or the claims `load_claims` returned) as
    `run_theorem2` decides the built-in ones.

    >>> report = run_claims('[[claim]]\\nid = "mine"\\nholds = "j(2) <= z(3)"\\nn = [3, 5]', samples=20, workers=1)
    >>> report.claims[0].verdict.kind is VerdictKind.REFUTED
    True
    """
    if isinstance(claims, (str, Path)):
        claims = load_claims(claims)
    if not isinstance(claims, (list, tuple)) or not all(isinstance(c, FormulaClaim) for c in claims[:MAX_CLAIMS + 1]):
        raise InputError(f"claims is a {type(claims).__name__}; give a claim file's path or text, or what "
                         "verify.load_claims returned", "claims")
    if len(claims) > MAX_CLAIMS:
        raise InputError(f"claims holds {len(claims):,} claims and lemmas; give at most {MAX_CLAIMS} (a claim file's "
                         "bound: each takes seconds to decide), or run them in parts", "claims")
    ids = [c.id for c in claims]
    if len(set(ids)) != len(ids):
        twice = next(i for i in ids if ids.count(i) > 1)
        raise InputError(f"claims has the id {shown(twice, 60)} twice; give each claim and lemma once", "claims")
    from verify.claims.verdicts.decide import run_claims as _run_claims  # the search's weight, on use

    chosen = _search_options(seed, samples, dps, claim_ids, out, progress, workers, scheduler, example_db)
    return _run_claims(claims, **chosen)


def check_certificate(path, claims_file=None):
    """Re-verify a certificate file from scratch: a `CheckResult` whose `confirmed` is True only when the
    certificate proves what it says (a counterexample: the recorded claim fails rigorously at its inputs, inside
    the claim's domain; a proof: its identities hold exactly or both solvers prove its rebuilt queries again).
    A user claim's certificate is compared with `claims_file` when given. Every certificate it rejects (edited,
    malformed, of another format, outside its domain) is a `CheckResult` with `confirmed` False and the reason;
    only a path that holds no certificate to judge (missing, unreadable, not JSON) or a bad claim file raises
    `InputError`.

    >>> import json, tempfile
    >>> report = run_theorem2(samples=10, claim_ids=["T2.swapped"], out=tempfile.mkdtemp(), workers=1)
    >>> check_certificate(report.claims[0].certificate).confirmed
    True
    """
    path = checked_path(path, "certificate", "path")
    if claims_file is not None:
        claims_file = checked_path(claims_file, "claim file", "claims_file")
    return _judge_certificate(path, claims_file)


def run_assumption2(seed=0, samples=40, claim_ids=None, progress=None, workers=None, scheduler=None):
    """Decide the Assumption 2 claims on the default sweep over the key dimension d: a `Report`."""
    from verify.claims.verdicts import assumption2

    chosen = options.claim_ids(claim_ids)
    return assumption2.run_assumption2(options.seed(seed), assumption2.Settings(samples=options.samples(samples)),
                                       chosen, options.progress(progress), options.workers(workers),
                                       options.scheduler(scheduler))


def assumption2_dimensions(n, N, d, seed=0):
    """One user's dimensions (n tokens, N sequences, key dimension d): which readings of Assumption 2 they allow and
    how far the decoupled formulas are off; a `DimensionsReport`."""
    from verify.claims.verdicts import assumption2

    return assumption2.check_dimensions(n, N, d, options.seed(seed))


def run_derivation(derivation_id):
    """Run a derivation's symbolic and numeric checks (D1–D6, A2); a tuple of `Check` objects.

    >>> [check.passed for check in run_derivation("D5")]
    [True, True]
    """
    from verify.derivations.registry import DERIVATION_REGISTRY, run_checks  # SymPy: loaded on use

    if not isinstance(derivation_id, str):
        raise InputError(f"derivation id {shown(derivation_id, 40)} is not a string; choose from "
                         f"{', '.join(DERIVATION_REGISTRY)}", "id")
    options.known([derivation_id], DERIVATION_REGISTRY, "derivation id")
    return run_checks(DERIVATION_REGISTRY[derivation_id])

