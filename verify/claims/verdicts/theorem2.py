"""Theorem 2 / Eq. (47): decide every claim (the formula claims through verify.claims.verdicts.decide, T2.multi
through verify.claims.cases.multi_balls), with the symbolic evidence beside them (case mode: casemode).

The library API returns result objects and never prints; `progress(done, total, label)`
is an optional callback the CLI turns into a progress bar.
"""
import time

from verify.claims.certificates.files import check_targets
from verify.claims.verdicts import multi
from verify.claims.verdicts.decide import run_jobs
from verify.claims.jobs import Job
from verify.claims.builtin.registry import select
from verify.claims.results import Report


def run_theorem2(seed=0, samples=300, dps=50, claim_ids=None, out_dir=None, progress=None, workers=None,
                 scheduler=None, example_db=None, executor=None):
    """Search every selected claim and reading; REFUTED only with a confirmed certificate.

    The work is cut into seeded units (engine) run by `executor` (default: in process for one
    worker, else a local Dask cluster of `workers` processes or the Dask `scheduler` at that
    address); the report is the same whatever runs it. `example_db` is a folder where Hypothesis
    keeps counterexamples, replayed first on the next run. Certificates are written under `out_dir`
    when given. Ctrl-C returns the report so far, with `interrupted` set."""
    started = time.perf_counter()
    claims = select("theorem2", claim_ids)
    check_targets(out_dir, [(c.id, r) for c in claims for r in c.readings])
    jobs = [Job(c, r) for c in claims if not c.multi for r in c.readings]
    several = [c for c in claims if c.multi]
    extra = multi.multi_tasks(seed, samples, dps, example_db) if several else []
    outcomes, collected, interrupted = run_jobs(jobs, seed, samples, dps, out_dir, progress, workers, scheduler,
                                                example_db, executor, extra, after_proof=("symbolic", _symbolic_evidence))
    outcomes += [multi.multi_result(c, collected, dps, out_dir) for c in several]
    order = {(c.id, r): k for k, (c, r) in enumerate((c, r) for c in claims for r in c.readings)}
    outcomes.sort(key=lambda result: order[(result.id, result.reading)])
    return Report(seed, dps, samples, tuple(outcomes), time.perf_counter() - started, interrupted=interrupted)


def _symbolic_evidence(job):
    """The SymPy evidence fields (d/dR of the implied bound; the n = 2 proof), made where the results are collected
    as the job's proof arrives (run_jobs' after_proof), where SymPy is loaded for the identities too. SymPy is loaded
    here, on use, so that importing the search does not pay for it."""
    from verify.claims.builtin import two_tokens as proofs

    fields = {}
    if job.claim.id == "T2.eq47.kappa":
        fields["dependence_on_R"] = proofs.kappa_bound_monotonicity()
    two_tokens = proofs.prove_two_token(job)
    if two_tokens is not None:
        fields["two_tokens"] = ("PROVED " if two_tokens[0] else "REFUTED ") + two_tokens[1]
    return fields
