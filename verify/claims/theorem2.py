"""Theorem 2 / Eq. (47): search every claim for counterexamples and give verdicts (case mode: casemode).

The library API returns result objects and never prints; `progress(done, total, label)`
is an optional callback the CLI turns into a progress bar.
"""
import time
from dataclasses import dataclass

from verify.claims import certificates
from verify.claims.engine import (MultiUnit, Pool, collect, first_certified, run_multi_adversarial, run_multi_unit,
                                  search_outcome, single_tasks)
from verify.claims.executors import run_tasks
from verify.claims.record import evaluate
from verify.claims.registry import select
from verify.claims.results import ClaimResult, Counterexample, InterruptedEvidence, MultiEvidence, Report
from verify.numerics.curvature import curvature_precise
from verify.numerics.precision import CERTIFY_DPS, decimal


@dataclass(frozen=True)
class ClaimJob:
    """A built-in claim under one reading, as the search engine sees it."""

    claim: object
    reading: object
    pool: Pool = Pool()

    @property
    def label(self):
        return f"{self.claim.id} {self.reading or ''}".strip()

    @property
    def min_n(self):
        return self.claim.min_n

    @property
    def n_range(self):  # the adversarial search's token counts
        return (self.claim.min_n, max(self.claim.min_n, 5))

    def evaluate(self, q, case):
        return evaluate(self.claim, self.reading, q, case.L, case.mu)


def run_theorem2(seed=0, samples=300, dps=50, claim_ids=None, out_dir="certificates", progress=None, workers=None,
                 scheduler=None, example_db=None, executor=None):
    """Search every selected claim and reading; REFUTED only with a confirmed certificate.

    The work is cut into seeded units (engine) run by `executor` (default: in process for one
    worker, else a local Dask cluster of `workers` processes or the Dask `scheduler` at that
    address); the report is the same whatever runs it. `example_db` is a folder where Hypothesis
    keeps counterexamples, replayed first on the next run. Ctrl-C returns the report so far,
    with `interrupted` set."""
    started = time.perf_counter()
    claims = select("theorem2", claim_ids)
    jobs = [ClaimJob(c, r) for c in claims if not c.multi for r in c.readings]
    multi = [c for c in claims if c.multi]
    tasks = [(f"{job.label}: symbolic", _symbolic_evidence, (job.claim, job.reading)) for job in jobs]  # long ones first
    tasks += _multi_tasks(seed, samples, dps, example_db) if multi else []
    tasks += single_tasks(jobs, seed, samples, dps, example_db)
    results, interrupted = run_tasks(tasks, progress, executor, workers, scheduler)
    collected = collect(tasks, results)
    outcomes = [_single_result(job, i, collected, dps, samples, out_dir) for i, job in enumerate(jobs)]
    outcomes += [_multi_result(c, collected, dps, out_dir) for c in multi]
    order = {(c.id, r): k for k, (c, r) in enumerate((c, r) for c in claims for r in c.readings)}
    outcomes.sort(key=lambda result: order[(result.id, result.reading)])
    return Report(seed, dps, samples, tuple(outcomes), time.perf_counter() - started, interrupted=interrupted)


def _multi_tasks(seed, samples, dps, example_db):
    count = max(samples // 10, 5)
    units = [MultiUnit(seed, start, min(start + 10, count), dps) for start in range(0, count, 10)]
    tasks = [("T2.multi: adversarial", run_multi_adversarial, (seed, dps, max(samples // 20, 10), example_db))]
    return tasks + [(f"T2.multi samples {u.start}–{u.stop - 1}", run_multi_unit, (u,)) for u in units]


def _single_result(job, index, collected, dps, samples, out_dir):
    evidence, candidates = search_outcome(job, index, collected, samples)
    if isinstance(evidence, InterruptedEvidence):
        return _result(job.claim, job.reading, "INTERRUPTED", evidence)
    evidence = evidence.with_(**(collected.other.get(f"{job.label}: symbolic") or {}))
    if not candidates:
        return _result(job.claim, job.reading, "HOLDS", evidence)
    return first_certified(candidates, lambda case: _refute(job.claim, job.reading, case, max(dps, CERTIFY_DPS),
                                                             evidence, out_dir))


def _symbolic_evidence(claim, reading):
    """The SymPy evidence fields (d/dR of the implied bound; the n = 2 proof). SymPy is loaded here,
    on use, so that importing the search does not pay for it."""
    from verify.claims import proofs

    fields = {}
    if claim.id == "T2.eq47.kappa":
        fields["dependence_on_R"] = proofs.kappa_bound_monotonicity()
    two_tokens = proofs.prove_two_token(claim, reading)
    if two_tokens is not None:
        fields["two_tokens"] = ("PROVED " if two_tokens[0] else "REFUTED ") + two_tokens[1]
    return fields


def _refute(claim, reading, case, dps, evidence, out_dir):
    evaluation = evaluate(claim, reading, curvature_precise(case.logits, case.H, dps), case.L, case.mu)
    evidence = evidence.with_(counterexample=Counterexample(
        case.n, case.inputs(), evaluation.label, decimal(evaluation.lhs), decimal(evaluation.rhs), decimal(evaluation.margin)))
    if evaluation.holds:
        evidence = evidence.with_(note=f"the float64 failure did not survive {dps}-digit re-evaluation")
        return _result(claim, reading, "INCONCLUSIVE", evidence)
    path = certificates.write_certificate(out_dir, claim, reading, case, evaluation, dps)
    check = certificates.check_certificate(path)
    evidence = evidence.with_(certificate_check=check.summary)
    verdict = "REFUTED" if check.confirmed else "INCONCLUSIVE"
    return _result(claim, reading, verdict, evidence, certificate=str(path))


def _multi_result(claim, collected, dps, out_dir):
    """T2.multi from its samples' balls: HOLDS when every pair overlaps with a radius below 10^(−dps/2);
    REFUTED only through a certificate that `check` confirms (disjoint balls)."""
    units = [result for label, result in collected.other.items() if label.startswith("T2.multi samples")]
    found = collected.other.get("T2.multi: adversarial")
    if None in units or found is None:
        return _result(claim, None, "INTERRUPTED", InterruptedEvidence("the run was interrupted before T2.multi was decided"))
    rows = sorted((row for unit in units for row in unit), key=lambda row: row[0])
    disjoint = [row[4] for row in rows if not row[3]]
    counterexample = found.case or (disjoint[0] if disjoint else None)
    largest_radius = max(row[2] for row in rows)
    evidence = MultiEvidence(
        samples=len(rows),
        adversarial_examples=found.examples,
        worst_relative_gap=f"{max(row[1] for row in rows):.1e}",
        largest_relative_radius=f"{largest_radius:.1e}",
        disagreements=len(disjoint) + (found.case is not None),
        method="both sides as Arb balls; K = rows of an exactly orthogonal rational matrix (Cayley), so K Kᵀ = I",
    )
    if counterexample is not None:
        path = certificates.write_multi_certificate(out_dir, claim, counterexample, max(dps, CERTIFY_DPS))
        check = certificates.check_certificate(path)
        evidence = evidence.with_(certificate_check=check.summary)
        return _result(claim, None, "REFUTED" if check.confirmed else "INCONCLUSIVE", evidence, certificate=str(path))
    if largest_radius >= 10 ** (-dps / 2):
        evidence = evidence.with_(note=f"some balls stayed wider than 10^(−{dps // 2}); raise the precision")
        return _result(claim, None, "INCONCLUSIVE", evidence)
    return _result(claim, None, "HOLDS", evidence)


def _result(claim, reading, verdict, evidence, certificate=None):
    return ClaimResult(claim.id, reading, claim.statement, claim.latex, verdict, evidence, certificate)
