"""The structured phase of the search (verify.claims.cases.structured): two-level and uniform z with isotropic and
two-level diagonal H at token counts up to 10⁶, each decided with balls of its exact quantities (exactly at a tie).
One task per job, beside the random units and the Hypothesis search (verify.claims.search.engine)."""
from verify.claims.cases.structured import FORALL_BUDGET, decidable, structured_cases, work
from verify.claims.exact import structured_outcome
from verify.claims.executors import check_stop
from verify.claims.language.outcome import FAILS
from verify.numerics.precision import bits_for

FAILURES_KEPT = 5  # the failing structured cases kept, the smallest n first


def run_structured(job, dps, extra=(), only=None):
    """The structured phase of one job (verify.claims.cases.structured): two-level and uniform z with isotropic
    and two-level diagonal H at token counts up to 10⁶, decided with balls of their exact quantities (exactly at a
    tie). `extra`: more token counts to try (those a model names, and their neighbours); `only`: try only those.
    (failing cases, the smallest n first, at most FAILURES_KEPT; cases decided)."""
    failing, decided, spent = [], 0, 0
    bits = bits_for(2 * dps)
    n_range = job.claim.n_range
    if only is not None:
        n_range = (max(n_range[0], min(only) - 1), min(n_range[1], max(only) + 1))
    for case in structured_cases(n_range, job.family, extra, only=only):
        check_stop()
        if not decidable(job.tree, case.n) or (work(job.tree, case.n) > 1 and spent > FORALL_BUDGET):
            continue
        spent += work(job.tree, case.n)
        decided += 1
        if structured_outcome(job.tree, case, bits).status == FAILS:
            failing.append(case)
            if len(failing) >= FAILURES_KEPT:
                break
    return tuple(failing), decided
