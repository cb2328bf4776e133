"""Deciding formula claims, built-in and user alike: the search (verify.claims.engine) on every job,
then a verdict per job — REFUTED only through a certificate that `check` confirms, INCONCLUSIVE when
a strict comparison stayed tight or a failure could not be certified, HOLDS only when every case
was decided to hold (a non-strict comparison whose sides agree to every digit computed holds, and
the evidence says so).
"""
from verify.claims import certificates
from verify.claims.certificate_files import write
from verify.claims.engine import collect, first_certified, search_outcome, single_tasks
from verify.claims.executors import run_tasks
from verify.claims.results import ClaimResult, Counterexample, InterruptedEvidence
from verify.numerics.precision import CERTIFY_DPS


def run_jobs(jobs, seed, samples, dps, out_dir=None, progress=None, workers=None, scheduler=None, example_db=None,
             executor=None, extra_tasks=()):
    """(results per job, collected task results, interrupted): the search on every job, then each verdict."""
    tasks = list(extra_tasks) + single_tasks(jobs, seed, samples, dps, example_db)
    results, interrupted = run_tasks(tasks, progress, executor, workers, scheduler)
    collected = collect(tasks, results)
    outcomes = [formula_result(job, i, collected, dps, samples, out_dir) for i, job in enumerate(jobs)]
    return outcomes, collected, interrupted


def formula_result(job, index, collected, dps, samples, out_dir):
    """One job's ClaimResult from the search's results (see the module docstring for the verdicts)."""
    evidence, candidates, tally = search_outcome(job, index, collected, samples, dps)
    if isinstance(evidence, InterruptedEvidence):
        return result(job, "INTERRUPTED", evidence)
    evidence = evidence.with_(**(collected.other.get(f"{job.label}: symbolic") or {}))
    if candidates:
        return first_certified(candidates, lambda case: refute(job, case, max(dps, CERTIFY_DPS), evidence, out_dir))
    if tally.strict_tight_count or tally.undecided_count:
        strict = tally.strict_tight_count
        note = (f"{strict} case(s) left a strict comparison tight (equal sides to every digit computed: it may fail "
                "there)" if strict else "") + ("; " if strict and tally.undecided_count else "") + \
               (f"{tally.undecided_count} case(s) stayed undecided" if tally.undecided_count else "")
        return result(job, "INCONCLUSIVE", evidence.with_(note=note))
    return result(job, "HOLDS", evidence)


def refute(job, case, dps, evidence, out_dir=None):
    """REFUTED with a certificate `check` confirms (written under out_dir when given), else INCONCLUSIVE."""
    body = certificates.counterexample_body(job, case, dps)
    if body is None:
        evidence = evidence.with_(note=f"a failure at n = {case.n} found by the search could not be certified with balls "
                                       "(it may be a tie the balls cannot separate)")
        return result(job, "INCONCLUSIVE", evidence)
    binding = body["binding"]
    evidence = evidence.with_(counterexample=Counterexample(case.n, case.inputs(), binding["comparison"], binding["lhs"],
                                                            binding["rhs"], body["margin"]))
    path = str(write(out_dir, body)) if out_dir is not None else None
    check = certificates.check_body(body, path or "certificate (in memory)")
    evidence = evidence.with_(certificate_check=check.summary)
    return result(job, "REFUTED" if check.confirmed else "INCONCLUSIVE", evidence, certificate=path, body=body)


def result(job, verdict, evidence, certificate=None, body=None):
    claim = job.claim
    return ClaimResult(claim.id, job.reading, claim.statement, claim.reading_latex(job.reading), verdict, evidence,
                       certificate, text=job.text, certificate_body=body)


def run_claims(claims, seed=0, samples=300, dps=50, claim_ids=None, out_dir=None, progress=None, workers=None,
               scheduler=None, example_db=None, executor=None):
    """Decide user claims (from `load_claims`) as `run_theorem2` decides the built-in ones; a Report whose
    results have reading None. `claim_ids` picks some of them; certificates are written under `out_dir`
    when it is given."""
    import time

    from verify.claims.jobs import Job
    from verify.claims.results import Report

    started = time.perf_counter()
    jobs = [Job(claim) for claim in _select(claims, claim_ids)]
    outcomes, _, interrupted = run_jobs(jobs, seed, samples, dps, out_dir, progress, workers, scheduler, example_db,
                                        executor)
    return Report(seed, dps, samples, tuple(outcomes), time.perf_counter() - started, command="claims",
                  interrupted=interrupted)


def _select(claims, claim_ids):
    from verify.errors import InputError

    if not claim_ids:
        return tuple(claims)
    known = {c.id: c for c in claims}
    for claim_id in claim_ids:
        if claim_id not in known:
            raise InputError(f"claim id {claim_id!r} is not in the claim file; choose one of {', '.join(known)}", "claim")
    return tuple(known[c] for c in claim_ids)
