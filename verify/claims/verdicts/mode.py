"""One case: every single-example claim at a case file's (z, H) (case mode), and one claim text decided
at a case (`decide_on_case`). Values to `dps` digits (mpmath), and what Arb balls alone decide.

Balls come from verify.numerics.enclosures for the extremes (every eigenvalue isolated by Arb up to
16 tokens, verified Kato–Temple enclosures beyond) and from verify.claims.language.values for the
series j(k), lambda(k) a claim may read.
"""
from dataclasses import dataclass, field

import flint
import mpmath as mp

from verify.claims.certificates.counterexample import NUMERIC_ERRORS, binding_at, decide_rigorously
from verify.claims.jobs import Job
from verify.claims.language.balls import Balls
from verify.claims.language.evaluate import decide
from verify.claims.language.outcome import FAILS, HOLDS, TIGHT
from verify.claims.language.parser import normalise, parse_claim
from verify.claims.language.quantities import CURVATURE, SERIES
from verify.claims.language.text import to_text
from verify.claims.language.values import LAM_PRECISE_N, ball_point, mp_point, mp_spectrum
from verify.claims.builtin.registry import select
from verify.claims.certificates.check import check_body, counterexample_body
from verify.claims.results import Verdict, VerdictKind
from verify.numerics.arb import arb_to_mpf
from verify.numerics.precision import CERTIFY_DPS, decimal, vouched_digits


def _verdict(outcome, certified=False):
    """The one rule (verify.claims.verdicts.decide.verdict_of), imported on first use: the search engine it sits
    beside (and Hypothesis) stays out of the commands that never make a verdict here (`spectrum`)."""
    from verify.claims.verdicts.decide import verdict_of as the_rule

    return the_rule(outcome, certified=certified)


@dataclass(frozen=True)
class Evaluation:
    """A claim at one case: the binding comparison (the one that sets the margin) with its two sides and the
    margin at `dps` digits (mpf; ≥ 0 holds; "undecided" when neither those digits nor the balls decide it), whether that precision decides it, and what the balls alone
    say ("holds", "fails", or "undecided" when the claim is tight at this case), and the Verdict at this case:
    CERTIFIED (the balls alone prove it holds here), REFUTED (they prove it fails here and `check` confirms the
    counterexample certificate built at the case), or INCONCLUSIVE."""

    claim: str
    reading: object
    label: str  # the binding comparison, in the claim language
    lhs: object
    rhs: object
    margin: object
    decided: bool
    holds: bool
    rigorous: str
    verdict: Verdict = field(default_factory=lambda: _verdict("undecided"))


@dataclass(frozen=True)
class CaseReport:
    """Case mode: the spectrum to `dps` digits, its rigorous enclosure (a CurvatureSpectrum of balls, None if
    it could not be obtained), one Evaluation per claim and reading, the balls' precision and method."""

    spectrum: object
    balls: object
    rows: tuple
    bits: int = 0
    method: str = ""

    @property
    def refuted(self):
        """The rows the balls prove fail at this case: what `--strict` exits 1 for, as in every other command."""
        return [row for row in self.rows if row.verdict.kind is VerdictKind.REFUTED]


def evaluate_case(case, dps=50, claim_ids=None):
    """Case mode: every single-example claim (and reading) at one case."""
    from verify.claims.cases.enclosures import case_balls, midpoints

    jobs = [Job(c, r) for c in select("theorem2", claim_ids) if not c.multi and c.min_n <= case.n for r in c.readings]
    needs = frozenset().union(*(job.needs for job in jobs)) if jobs else frozenset()
    balls, bits, method = case_balls(case, dps)
    q = (midpoints(balls, bits, dps) if not needs & SERIES else None) or mp_spectrum(case, dps, needs | CURVATURE)
    rows = tuple(evaluate_job(job, case, dps, q, balls, bits) for job in jobs)
    return CaseReport(q, balls, rows, bits, method)


def evaluate_job(job, case, dps, spectrum=None, balls=None, bits=None):
    """One claim under one reading at a case: an Evaluation (see its docstring)."""
    q = spectrum or mp_spectrum(case, dps, job.needs)
    point = mp_point(case, dps, job.needs, q)
    with flint.ctx.workprec(point.bits), mp.workdps(dps + 10):
        outcome = decide(job.tree, point, Balls())
        comparison, lhs, rhs, _ = binding_at(job.tree, point, Balls())
        lhs, rhs, margin = (_mid(x) for x in (lhs, rhs, outcome.margin))
    rigorous, tie = _rigorous(job, case, dps, balls, bits)
    if tie:  # exact arithmetic decided it: the sides are equal, whatever digits the estimate shows
        margin, outcome = mp.mpf(0), tie
    holds = rigorous == HOLDS if rigorous in (HOLDS, FAILS) else (outcome.holds or not outcome.decided)
    if rigorous not in (HOLDS, FAILS) and not outcome.decided:
        margin = "undecided"  # neither the digits nor the balls settle it: an undecided case has no margin
    verdict = _verdict_at(job, case, dps, rigorous)
    return Evaluation(job.claim.id, job.reading, to_text(comparison), lhs, rhs, margin, outcome.decided,
                      bool(holds), rigorous, verdict)


def _verdict_at(job, case, dps, rigorous):
    """CERTIFIED where the balls prove the claim holds at the case; REFUTED only where they prove it fails and the
    counterexample certificate built at the case is one `check` confirms (in memory); else INCONCLUSIVE."""
    if rigorous == HOLDS:
        return _verdict("certified")
    if rigorous != FAILS:
        return _verdict("undecided")
    body = counterexample_body(job, case, max(dps, CERTIFY_DPS))
    return _verdict("fails", certified=body is not None and check_body(body, "certificate (in memory)").confirmed)


def _mid(x):
    """A ball's midpoint as an mpf (NaN for an undefined or unbounded value)."""
    return arb_to_mpf(x) if isinstance(x, flint.arb) and x.is_finite() else mp.nan


def _rigorous(job, case, dps, balls, bits):
    """(holds / fails / undecided, the exact Outcome at a tie or None) from balls alone: the enclosure's balls,
    the series added where the claim reads them, and exact arithmetic where they cannot separate the sides."""
    from verify.claims.exact import exact_outcome

    if balls is not None and not job.needs & SERIES:
        with flint.ctx.workprec(bits):
            outcome = decide(job.tree, ball_point(case, balls, bits), Balls())
        if not outcome.decided:
            outcome = (outcome.status == TIGHT and exact_outcome(job.tree, case)) or \
                decide_rigorously(job.tree, case, dps)[0]
    else:
        outcome = decide_rigorously(job.tree, case, dps)[0]
    tie = outcome if outcome.decided and not outcome.undefined and outcome.lower == outcome.upper == 0 else None
    return (outcome.status if outcome.status in (HOLDS, FAILS) else "undecided"), tie


@dataclass(frozen=True)
class DecisionResult:
    """A claim text decided on one case: margin (decimal), holds, decided, whether balls decided it, the values read."""

    claim: str  # the normalised text
    margin: str  # decimal string, ≥ 0 holds (see verify.claims.language.outcome); "undefined" where the claim is
    # undefined (it fails), "undecided" where neither the digits nor the balls settle it (an undecided case has no margin)
    holds: bool
    decided: bool  # settled: at `dps` digits, or by balls
    rigorous: bool  # decided with python-flint balls
    values: tuple  # (name, decimal string) of every quantity the claim read


def decide_on_case(holds_text, case, dps=50):
    """Decide a claim text on one Case: mpmath at `dps` digits, then Arb balls when the margin is inside its error.

    >>> from verify.api import make_case
    >>> decide_on_case("lambda_min <= mu_T * z_max**2", make_case(logits=[0, -2], H=[[2, 0], [0, 3]])).holds
    True"""
    from verify.claims.record import FormulaClaim

    tree = parse_claim(holds_text, (case.n, case.n))
    job = Job(FormulaClaim("claim", "", normalise(holds_text), n_range=(case.n, case.n), command="claims", tree=tree))
    if "lam" in job.needs and case.n > LAM_PRECISE_N:
        outcome, points, rigorous = _float_estimate(job, case, dps)
    else:
        outcome, points, rigorous = _precise(job, case, dps)
    with mp.workdps(dps + 10):
        digits = _vouched(_mid(outcome.margin), outcome.error) if rigorous is False and points[0] is not None else SHOWN
        shown = "undefined" if outcome.undefined else decimal(_mid(outcome.margin), digits) if outcome.decided \
            else "undecided"
        values = _values_shown(tree, points)
    return DecisionResult(normalise(holds_text), shown, outcome.holds, outcome.decided, rigorous, values)


def _precise(job, case, dps):
    """(Outcome, the points whose values to show, best first, rigorous): mpmath at `dps` digits, then balls (and
    exact arithmetic at a tie) where that is too close to call."""
    try:
        point = mp_point(case, dps, job.needs)
        with flint.ctx.workprec(point.bits):
            outcome = decide(job.tree, point, Balls())
    except NUMERIC_ERRORS:  # the estimate breaks down at a degenerate spectrum: the balls or exact arithmetic decide
        point = outcome = None
    if outcome is not None and outcome.decided:
        return outcome, (point,), False
    outcome, ball_point_, _ = decide_rigorously(job.tree, case, dps)
    return outcome, (point, ball_point_), True


def _values_shown(tree, points):
    """The values the claim reads, at the first point where they are all finite numbers (the digits' where they
    computed them; the deciding balls' where the digits broke down to NaN), else at the first point there is."""
    first = None
    for point in (p for p in points if p is not None):
        values = _values_read(tree, point)
        if all(value != "nan" and "inf" not in value for _, value in values):
            return values
        first = values if first is None else first
    return first or ()


def _float_estimate(job, case, dps):
    """(Outcome, (Point,), False) for a claim reading λ(k) beyond LAM_PRECISE_N tokens, where a dense precise
    eigenvalue path costs seconds to minutes (7 s at n = 100, over a minute at 300): the search's float64 stage,
    its margin decided only beyond the estimate's error, else undecided."""
    from verify.claims.search.engine import Decider

    decider = Decider(dps, job.needs)
    return decider.decide(job, case).outcome, (decider.point(case, "float"),), False


SHOWN = 20  # significant digits of a margin or a value, at most


def _vouched(mid, error):
    """The significant digits of `mid` its error vouches for, at most SHOWN: an estimate in float64 is not shown to 20."""
    return min(SHOWN, vouched_digits(mid, error) or SHOWN)


def _values_read(tree, point):
    from verify.claims.language.evaluate import value
    from verify.claims.language.syntax import Item, Name, walk

    shown, seen = [], set()
    with flint.ctx.workprec(point.bits):
        for node in walk(tree):
            if isinstance(node, Item) and node.index.k_coeff:
                continue  # z(k) under `forall k`: one value per k, shown through the binding comparison
            if isinstance(node, (Name, Item)) and node not in seen and getattr(node, "id", None) not in ("pi", "e"):
                seen.add(node)
                x = value(node, point, Balls())
                digits = _vouched(_mid(x), x.rad() if isinstance(x, flint.arb) else None)
                shown.append((to_text(node), str(point.n) if getattr(node, "id", None) == "n" else decimal(_mid(x), digits)))
    return tuple(shown)
