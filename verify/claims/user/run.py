"""Deciding the claims of a claim file: the same engine as `theorem2` (float64 sampling, re-decision
at `dps` and 2·dps digits, Hypothesis search with shrinking), a certificate for each refuted claim
that stores its `holds` text, and the independent ball-arithmetic check of such a certificate.
"""
import functools
import json
import time
from dataclasses import dataclass
from pathlib import Path

import flint
import mpmath as mp

from verify import atomic
from verify.claims.cases import parse_case
from verify.claims.engine import Pool, collect, first_certified, search_outcome, single_tasks
from verify.claims.executors import run_tasks
from verify.claims.results import CheckResult, ClaimResult, Counterexample, InterruptedEvidence, Report
from verify.claims.user.decide import certificate_fields, check_certificate_claim
from verify.claims.user.margins import claim_values, evaluate_arb, evaluate_float, evaluate_mp
from verify.errors import InputError
from verify.numerics.arb import arb_to_mpf
from verify.numerics.curvature import curvature_balls, curvature_precise, j_extremes_balls
from verify.numerics.precision import CERTIFY_DPS, bits_for, decimal, parse_number, to_mpf
from verify.numerics.secular import j_eigenvalues_mp

FLOAT_REL_ERR = 1e-13  # the float64 path's values (log-domain spectra, secular roots) carry at most this
MAX_BITS = 1 << 15


@dataclass(frozen=True)
class UserEvaluation:
    """A user claim at one case: its margin (≥ 0 holds) and whether the evaluation's error decides it."""

    label: str
    margin: object
    decided: bool
    holds: bool


@dataclass(frozen=True)
class UserClaimJob:
    """A user claim as the search engine sees it: its own token counts and family of H."""

    claim: object

    @property
    def label(self):
        return self.claim.id

    @property
    def min_n(self):
        return self.claim.n_range[0]

    @property
    def n_range(self):
        return self.claim.n_range

    @property
    def family(self):
        return self.claim.hessian

    @property
    def pool(self):
        return Pool(self.claim.n_range, self.claim.hessian)

    def evaluate(self, q, case):
        """float64 when q came from the fast path (q.dps is None), else mpmath at q's digits."""
        uses_j = bool(self.claim.names & {"j_max", "j_min"})
        extremes = j_extremes(case.logits, 20 if q.dps is None else q.dps + 10) if uses_j else (None, None)
        values = claim_values(q, *extremes)
        if q.dps is None:
            outcome = evaluate_float(self.claim.tree, values, max(q.rel_err, FLOAT_REL_ERR), self.claim.holds)
        else:
            outcome = evaluate_mp(self.claim.tree, values, q.dps + 10, max(q.rel_err, 10.0 ** -q.dps), self.claim.holds)
        return UserEvaluation(self.claim.holds, outcome.margin, outcome.decided, outcome.holds)


@functools.lru_cache(maxsize=4096)
def j_extremes(logits, dps):
    """(j_max, j_min) of J(σ(logits)) by the secular kernel at `dps` digits, computed once per case and
    precision however many claims of a file read them (the kernel returns them decreasing, 0 last)."""
    eigenvalues = j_eigenvalues_mp(list(logits), dps=dps)
    return eigenvalues[0], eigenvalues[-2]


def run_claims(claims, seed=0, samples=300, dps=50, claim_ids=None, out_dir="certificates", progress=None,
               workers=None, scheduler=None, example_db=None, executor=None):
    """Decide user claims (from `load_claims`) as `run_theorem2` decides the built-in ones; a Report
    whose results have reading None. `claim_ids` picks some of them."""
    started = time.perf_counter()
    chosen = _select(claims, claim_ids)
    jobs = [UserClaimJob(claim) for claim in chosen]
    tasks = single_tasks(jobs, seed, samples, dps, example_db)
    results, interrupted = run_tasks(tasks, progress, executor, workers, scheduler)
    collected = collect(tasks, results)
    outcomes = tuple(_result(job, i, collected, dps, samples, out_dir) for i, job in enumerate(jobs))
    return Report(seed, dps, samples, outcomes, time.perf_counter() - started, command="claims", interrupted=interrupted)


def _select(claims, claim_ids):
    if not claim_ids:
        return tuple(claims)
    known = {c.id: c for c in claims}
    for claim_id in claim_ids:
        if claim_id not in known:
            raise InputError(f"claim id {claim_id!r} is not in the claim file; choose one of {', '.join(known)}", "claim")
    return tuple(known[c] for c in claim_ids)


def _result(job, index, collected, dps, samples, out_dir):
    claim = job.claim
    evidence, candidates = search_outcome(job, index, collected, samples)
    if isinstance(evidence, InterruptedEvidence):
        return ClaimResult(claim.id, None, claim.statement, claim.latex, "INTERRUPTED", evidence)
    if not candidates:
        return ClaimResult(claim.id, None, claim.statement, claim.latex, "HOLDS", evidence)
    return first_certified(candidates, lambda case: _refute(claim, case, max(dps, CERTIFY_DPS), evidence, out_dir))


def _refute(claim, case, dps, evidence, out_dir):
    evaluation = UserClaimJob(claim).evaluate(curvature_precise(case.logits, case.H, dps), case)
    with mp.workdps(dps):
        margin = decimal(evaluation.margin, dps)
    evidence = evidence.with_(counterexample=Counterexample(case.n, case.inputs(), claim.holds, None, None, margin))
    if evaluation.holds:
        evidence = evidence.with_(note=f"the float64 failure did not survive {dps}-digit re-evaluation")
        return ClaimResult(claim.id, None, claim.statement, claim.latex, "INCONCLUSIVE", evidence)
    path = write_user_certificate(out_dir, claim, case, margin, dps)
    check = check_user_certificate(json.loads(Path(path).read_text()), str(path))
    evidence = evidence.with_(certificate_check=check.summary)
    verdict = "REFUTED" if check.confirmed else "INCONCLUSIVE"
    return ClaimResult(claim.id, None, claim.statement, claim.latex, verdict, evidence, str(path))


def write_user_certificate(out_dir, claim, case, margin, dps):
    """A refuted user claim's certificate: the case, the claim's holds text (with its SHA-256), the margin."""
    body = {"claim": claim.id, "reading": None, "user_claim": certificate_fields(claim), "inputs": case.inputs(),
            "margin": margin, "dps": dps}
    atomic.check_out_dir(out_dir, "certificates")
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    return atomic.write_text(Path(out_dir) / f"{claim.id}.json", json.dumps(body, indent=2) + "\n")


def check_user_certificate(data, path, claims_file=None):
    """Re-parse the stored holds text (refusing an edited one), rebuild the case, and decide the claim
    with Arb balls alone, raising the precision until decided: CONFIRMED iff it fails rigorously and
    the recorded margin is the recomputed one."""
    where = f"certificate {path}"
    if not isinstance(data.get("dps"), int) or isinstance(data["dps"], bool) or not 1 <= data["dps"] <= 10_000:
        raise InputError(f"{where} has dps {data.get('dps')!r}; give a whole number of digits from 1 to 10000")
    claim = check_certificate_claim(data["user_claim"], claims_file, where)
    case = parse_case(data.get("inputs"), where=f"{where} inputs")
    recorded = parse_number(data.get("margin"), f"{where} margin")
    bits = bits_for(max(data["dps"], CERTIFY_DPS))
    while bits <= MAX_BITS:
        with flint.ctx.workprec(bits):
            outcome = _balls(claim, case)
            if outcome is not None and outcome.decided:
                return _judge(outcome, recorded, bits)
        bits *= 2
    return CheckResult(False, "the claim could not be decided with balls up to the precision limit", MAX_BITS)


def _balls(claim, case):
    q = curvature_balls(case.logits, case.H)
    extremes = j_extremes_balls(case.logits) if claim.names & {"j_max", "j_min"} else (None, None)
    if q is None or extremes is None:
        return None
    return evaluate_arb(claim.tree, claim_values(q, *extremes), claim.holds)


def _judge(outcome, recorded, bits):
    if outcome.holds:
        return CheckResult(False, "the claim holds rigorously at these inputs", bits)
    with mp.workdps(60):
        value = arb_to_mpf(outcome.margin)
        if abs(to_mpf(recorded) - value) > max(abs(value) * mp.mpf(10) ** -20, mp.mpf(10) ** -40):
            return CheckResult(False, "the claim fails, but not with the recorded margin", bits)
        return CheckResult(True, f"the claim fails rigorously: margin {mp.nstr(value, 12)}", bits)

