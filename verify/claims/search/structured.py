"""The structured phase of the search (verify.claims.cases.structured): two-level and uniform z with isotropic and
two-level diagonal H at token counts up to 10⁶, each decided with balls of its exact quantities (exactly at a tie).
One task per group of jobs that share a domain (`run_structured_jobs`: each case's spectrum and balls made once for
all of them), beside the random units and the Hypothesis search (verify.claims.search.engine)."""
from fractions import Fraction

from verify.claims.cases.structured import FORALL_BUDGET, StructuredCase, at_tokens, decidable, structured_cases, work
from verify.claims.exact import structured_outcome
from verify.claims.executors import check_stop
from verify.claims.language.outcome import FAILS
from verify.numerics.precision import bits_for

FAILURES_KEPT = 5  # the failing structured cases kept, the smallest n first
STEEP = Fraction(10**6)  # the top group's ratio a failing shape is tried at as well (`_lower`)


def run_structured(job, dps, extra=(), only=None, shared=None):
    """The structured phase of one job (verify.claims.cases.structured): two-level and uniform z with isotropic
    and two-level diagonal H at token counts up to 10⁶, decided with balls of their exact quantities (exactly at a
    tie). `extra`: more token counts to try (those a model names, and their neighbours); `only`: try only those;
    `shared`: a _SharedCases whose cases (spectra, balls) other jobs reuse.
    (failing cases, the smallest n first, at most FAILURES_KEPT; cases decided)."""
    failing, decided, spent, held = [], 0, 0, {job.claim.n_range[0] - 1}
    bits = bits_for(2 * dps)
    shared = shared if shared is not None else _SharedCases(bits)
    n_range = job.claim.n_range
    if only is not None:
        n_range = (max(n_range[0], min(only) - 1), min(n_range[1], max(only) + 1))
    fails = lambda case: structured_outcome(job.tree, shared.case(case), bits, shared.point(case)).status == FAILS
    for case in structured_cases(n_range, job.family, extra, only=only, reads_h=job.reads_h):
        check_stop()
        if not decidable(job.tree, case.n) or (work(job.tree, case.n) > 1 and spent > FORALL_BUDGET):
            continue
        spent += work(job.tree, case.n)
        decided += 1
        if fails(case):
            failing.append(case)
            if len(failing) >= FAILURES_KEPT:
                break
        elif not failing:
            held.add(case.n)
    lower, tried = _lower(job, failing, max(n for n in held if not failing or n < failing[0].n), fails)
    lower = sorted(dict.fromkeys(lower), key=lambda c: c.n)[:FAILURES_KEPT - 1]  # a grid case stays: the descent may
    kept = lower + [c for c in failing if c not in lower][:FAILURES_KEPT - len(lower)]  # end at a tie balls can't certify
    return tuple(sorted(kept, key=lambda c: c.n)), decided + tried


def _lower(job, failing, held, fails):
    """The failing cases of the least token count, each carried down to the least count of its shape below it where
    the claim fails, by bisection between `held` (the last count tried where every case decided held: the claim's n
    below its range when none) and its own: the least such count when the shape's failures in n are all the counts beyond one,
    as at a claim that fails from some n on. A shape with a top group is tried steeper too (ratio STEEP, from the
    bottom of the range: z_max near 1 fails `z_max <= 100/n` from n = 101, the ratio 1000 from 112).
    (cases found, cases decided)."""
    found, tried, bottom = [], 0, job.claim.n_range[0] - 1
    for case in (c for c in failing if c.n == failing[0].n):
        starts = [(case, held)]
        if 1 < case.ratio < STEEP and case.m < case.n:
            steeper = StructuredCase(case.n, case.m, STEEP, case.hessian)
            tried += 1
            starts += [(steeper, bottom)] if fails(steeper) else []
        for start, good in starts:
            bad, decided = _bisect(job, start, good, fails)
            tried += decided
            found += [bad] if bad is not case else []
    return found, tried


def _bisect(job, case, good, fails):
    """(the least count between `good`, where the shape holds, and the case's own, where the shape still fails, found
    by bisection; the cases decided)."""
    bad, tried = case, 0
    while bad.n - good > 1:
        check_stop()
        middle = at_tokens(case, (good + bad.n) // 2)
        if middle is None or not decidable(job.tree, middle.n):
            break
        tried += 1
        good, bad = (good, middle) if fails(middle) else (middle.n, bad)
    return bad, tried


def run_structured_jobs(jobs, dps):
    """run_structured for each job (of one domain), every case's exact spectrum and balls made once for all of
    them: {job label: (failing cases, cases decided)}."""
    shared = _SharedCases(bits_for(2 * dps))
    return {job.label: run_structured(job, dps, shared=shared) for job in jobs}


class _SharedCases:
    """The structured cases one task has decided, each kept once with its spectrum and its balls at `bits`."""

    def __init__(self, bits):
        self.bits, self._cases, self._points = bits, {}, {}

    def case(self, case):
        return self._cases.setdefault(case, case)  # equal cases: the first one, whose spectrum is already made

    def point(self, case):
        if case not in self._points:
            self._points[case] = self.case(case).point(self.bits)
        return self._points[case]
