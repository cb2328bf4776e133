"""Counterexamples of formula claims, decided and certified with Arb balls alone.

`certify(job, case, dps)` decides the claim at the case with balls, raising the precision until
decided, and returns what a certificate records: the binding comparison (the one whose margin is
the claim's: the least under `and`, the greatest under `or`), its two sides and the margin, at
`dps` digits. `recheck(tree, case, body)` is the independent half of `check`: it recomputes the
same from the inputs alone and compares with what was recorded.
"""
import math

import flint
import mpmath as mp

from verify.claims.cases.structured import MAX_FORALL_VALUES, StructuredCase, decidable
from verify.claims.exact import EXACT_MAX_N
from verify.claims.certificates.format import side_matches, side_text
from verify.claims.language.balls import POSSIBLY_UNDEFINED, UNDEFINED, Balls
from verify.claims.language.evaluate import decide, value
from verify.claims.language.outcome import FAILS, TIGHT, UNDECIDED, Outcome
from verify.claims.language.quantities import needs as needs_of
from verify.claims.language.semantics import judge
from verify.claims.language.syntax import names
from verify.claims.language.text import to_text
from verify.claims.language.values import ball_point, ball_spectrum
from verify.numerics.arb import arb_to_mpf
from verify.numerics.precision import bits_for
from verify.base.printable import shown

MAX_BITS = 1 << 15
FULL_PRECISION_N = 8  # up to this n the precision may rise to MAX_BITS; beyond, to MAX_BITS·(8/n)³ (dense balls ~ n³)


def ball_outcome(tree, case, bits):
    """The claim's Outcome at the case with balls of `bits` precision (a structured case: its exact quantities)."""
    with flint.ctx.workprec(bits):
        if isinstance(case, StructuredCase):
            point = case.point(bits)
        else:
            point = ball_point(case, ball_spectrum(case, needs_of(names(tree))), bits)
        return decide(tree, point, Balls()), point


def decide_rigorously(tree, case, dps, max_bits=None):
    """(outcome, point, bits): balls from `dps` digits, the precision doubled until the claim is decided or the
    precision would pass `max_bits` (default: `bits_limit` of the case's n, so a claim the balls never decide
    costs seconds, not hours). Exact arithmetic (verify.claims.exact) decides it where it can: when the balls first
    leave it open at an exact tie (tight: finite sides that agree; or a margin that is not finite, when every
    comparison read is a tie), when they give no enclosure at all (a degenerate spectrum), and at the precision
    limit; where they enclose no margin at two precisions in a row, the balls of its exact quantities decide it
    (`_on_exact_point`); point is None when no ball point exists. A structured case is decided by its closed-form spectrum."""
    from verify.claims.exact import exact_outcome as case_exact
    from verify.claims.exact import structured_exact_outcome as structured_exact

    structured = isinstance(case, StructuredCase)
    exact_outcome = structured_exact if structured else case_exact
    bits = bits_for(dps)
    if structured and not decidable(tree, case.n):  # a claim for every k over more values than the search decides
        return undecided_outcome(), None, bits  # there (one instance per k: 145 s of CPU at n = 10⁶)
    limit = MAX_BITS if structured else bits_limit(case.n, bits)  # a structured case's spectrum costs the same at any n
    max_bits = limit if max_bits is None else max_bits
    unenclosed = 0  # precisions in a row at which the balls enclosed no margin
    ties_checked = False
    while True:
        try:
            outcome, point = ball_outcome(tree, case, bits)
        except NUMERIC_ERRORS:  # no enclosure at this case (a degenerate spectrum): exact arithmetic or nothing
            exact = exact_outcome(tree, case)
            return (exact if exact is not None else undecided_outcome()), None, bits
        if outcome.decided:
            return outcome, point, bits
        if bits * 2 > max_bits:
            return exact_outcome(tree, case) or outcome, point, bits
        early = not ties_checked and case.n <= EXACT_MAX_N  # where the exact route is the alternative; beyond,
        # doubling as before; a tight reading only where an eigenvalue's ball still holds 0 (at a tie, the balls
        # resolve every eigenvalue: climbing first cost a tie at H = I and logits to −580 0.3 s)
        spread = _spread_bits(point, dps) if early and (outcome.status == UNDECIDED or _unresolved(point)) else 0
        if 2 * bits < spread <= max_bits:  # eigenvalues spread beyond the precision: first the precision that encloses
            bits = spread  # them all (logits to −700 and H to 1e22 at n = 8: 2,300 bits, 0.05 s; the exact route's
            continue  # λ polynomial, of degree 700 in e, took 12 s to build; a tight reading there was no tie)
        if early and outcome.status == UNDECIDED and not spread and bits == bits_for(dps):
            bits *= 2  # the extremes not enclosed yet (μ of H, λ_min): one more precision encloses them, and the spread
            continue  # with them, before the exact route (4 s at a cond(H) = 1e28 case cases() drew)
        exact = exact_outcome(tree, case, ties_only=outcome.status != TIGHT) if not ties_checked else None
        ties_checked = True
        if exact is not None:  # a tie (no precision separates its sides), or sides closer than the balls could tell
            return _with_its_margin(tree, case, exact, point, bits, max_bits)
        unenclosed = unenclosed + 1 if outcome.status == UNDECIDED else 0
        found = _on_exact_point(tree, case, bits, max_bits) if unenclosed == 2 and not structured else None
        if found is not None:
            return found
        bits *= 2


def _spread_bits(point, dps):
    """The bits that enclose every eigenvalue of J H J on T to `dps` digits: log2(λ_max/λ_min) beyond bits_for(dps),
    and a guard (the balls' error is about 2^-prec·λ_max, absolute); where λ_min is not enclosed, its bound
    (L/μ)·R² (F6: μ z_min² ≤ λ ≤ L z_max²); 0 when neither is at hand."""
    spectrum = point.spectrum
    for top, bottom in (("lambda_max", "lambda_min"), ("L_amb", "mu_amb")):
        high, low = getattr(spectrum, top, None), getattr(spectrum, bottom, None)
        if isinstance(high, flint.arb) and isinstance(low, flint.arb) and low > 0 and high.is_finite():
            ratio = high / low if top == "lambda_max" else high / low * getattr(spectrum, "R", flint.arb("nan")) ** 2
            if ratio.is_finite():
                return bits_for(dps) + GUARD_BITS + int(math.ceil(float(arb_to_mpf(ratio.log() / flint.arb(2).log()))))
    return 0


GUARD_BITS = 64


def _unresolved(point):
    """Whether an eigenvalue ball of the point (λ(k), λ_min) still holds 0: more precision can tell it."""
    spectrum = point.spectrum
    balls = [*(getattr(spectrum, "lam", None) or ()), getattr(spectrum, "lambda_min", None)]
    return any(isinstance(ball, flint.arb) and not ball > 0 for ball in balls)


def _with_its_margin(tree, case, exact, point, bits, max_bits):
    """(outcome, point, bits) of the exact route's decision, with the true margin where the sides are not a tie:
    the exact route's margin is 0, which at sides that differ (by 4e-86 at logits −135, 0, −38, H = diag(7, 15, 15))
    contradicted its verdict (`==` failing with margin 0); the balls of the exact quantities, at this precision and
    four times it, give the margin when they decide the claim the same way, else the exact outcome stands."""
    from verify.claims.exact import margin_is_zero

    if exact.undefined or isinstance(case, StructuredCase) or margin_is_zero(tree, case):  # (a structured case's exact
        return exact, point, bits  # outcome is its closed form's; at a tie the margin is 0, and the balls stay tight)
    for at in (bits, min(4 * bits, max_bits)):
        found = _on_exact_point(tree, case, at, at)
        if found is not None and found[0].holds == exact.holds and found[0].status != TIGHT:
            return found
    return exact, point, bits


def _on_exact_point(tree, case, bits, max_bits):
    """(outcome, point, bits) decided on the balls of the case's exact quantities (verify.claims.exact.exact_point), the
    precision doubled up to `max_bits`, or None: where the case's own balls enclosed no margin at two precisions in a
    row (after the rise to the spread's precision), and for the margin of the exact route's decision."""
    from verify.claims.exact import exact_point

    read = names(tree)
    while bits <= max_bits:
        point = exact_point(case, bits, read)
        if point is None:
            return None
        with flint.ctx.workprec(bits):
            outcome = decide(tree, point, Balls())
        if outcome.decided:
            return outcome, point, bits
        bits *= 2
    return None


NUMERIC_ERRORS = (ValueError, ArithmeticError)  # a ball or estimate stage that breaks down at a degenerate case


def undecided_outcome():
    """An Outcome that decides nothing (no enclosure of the margin)."""
    nan = float("nan")
    return Outcome(nan, nan, nan, False)


def bits_limit(n, start):
    """The most precision a decision at n tokens may rise to: MAX_BITS up to FULL_PRECISION_N tokens, then less
    as n³ grows, and never below two steps from `start`."""
    if n <= FULL_PRECISION_N:
        return MAX_BITS
    return max(2 * start, int(MAX_BITS * (FULL_PRECISION_N / n) ** 3))


def certify(tree, case, dps):
    """What a certificate of the claim failing at `case` records, or None when the balls do not show it fails."""
    return attempt(tree, case, dps)[0]


def attempt(tree, case, dps):
    """(what a certificate records or None, the balls' status at the case: holds, fails, tight or undecided)."""
    outcome, point, bits = decide_rigorously(tree, case, dps)
    if outcome.status != FAILS or point is None:  # no balls to record (exact arithmetic alone decided it)
        return None, outcome.status
    with flint.ctx.workprec(bits):
        comparison, lhs, rhs, binding = binding_at(tree, point, Balls())
        if any(side is POSSIBLY_UNDEFINED for side in (lhs, rhs)):  # the balls left the binding side's definedness
            return None, outcome.status  # open: exact arithmetic alone found it undefined; `check` could not confirm it
        with mp.workdps(dps + 10):
            return {"binding": {"comparison": to_text(comparison), "lhs": side_text(lhs, dps), "rhs": side_text(rhs, dps)},
                    "margin": side_text(outcome.margin if not outcome.undefined else UNDEFINED, dps), "bits": bits}, FAILS


def binding_at(tree, point, backend):
    """(comparison, lhs, rhs, outcome) of the comparison that sets the claim's margin at the point: the one
    semantics' connectives (`judge`), each part's binding comparison picked as `and` / `or` pick margins."""
    return judge(tree, _Binding(point, backend), point.n)


class _Binding:
    """The logic of binding comparisons: not keeps its part's; and / or the least / greatest margin's (an
    undefined part binds first)."""

    def __init__(self, point, backend):
        self.point, self.backend = point, backend

    def compare(self, node):
        lhs, rhs = value(node.left, self.point, self.backend), value(node.right, self.point, self.backend)
        return node, lhs, rhs, self.backend.compare(lhs, rhs, node.op)

    def negate(self, found):
        return found

    def join(self, parts, every):
        found = list(parts)
        undefined = [f for f in found if f[3].undefined]
        if undefined:
            return undefined[0]
        unknown = math.inf if every else -math.inf  # a part whose margin the balls left unknown never binds
        return (min if every else max)(found, key=lambda f: unknown if math.isnan(_mid(f[3].margin)) else
                                       _mid(f[3].margin))

    def true(self):
        raise ValueError("a statement about no index cannot fail")


def _mid(margin):
    return float(arb_to_mpf(margin)) if isinstance(margin, flint.arb) and margin.is_finite() else float("nan")


def recheck(tree, case, body):
    """(confirmed, reason, bits): the claim decided again from the inputs alone, with balls; confirmed only
    when it fails rigorously and the recorded binding comparison, sides and margin are what the balls give."""
    dps = body["dps"]
    if isinstance(case, StructuredCase) and not decidable(tree, case.n):
        return False, (f"a claim for every k takes more than {MAX_FORALL_VALUES} values of k at this structured case "
                       f"(n = {case.n}), beyond what the search and check decide there"), bits_for(dps)
    outcome, point, bits = decide_rigorously(tree, case, dps)
    if outcome.status != FAILS:
        reason = "the claim holds rigorously at these inputs" if outcome.decided else \
            "the balls could not decide the claim at these inputs up to the precision limit"
        return False, reason, bits
    if point is None:
        return False, "the balls could not enclose the claim's values at these inputs", bits
    with flint.ctx.workprec(bits):
        comparison, lhs, rhs, _ = binding_at(tree, point, Balls())
        recorded = body["binding"]
        if recorded["comparison"] != to_text(comparison):
            return False, f"the claim fails, but its binding comparison is {shown(to_text(comparison), 200)}, not the recorded one", bits
        margin = UNDEFINED if outcome.undefined else outcome.margin
        for name, ball, text in (("lhs", lhs, recorded["lhs"]), ("rhs", rhs, recorded["rhs"]), ("margin", margin, body["margin"])):
            if not side_matches(text, ball, dps):
                return False, f"{to_text(comparison)} fails, but the recorded {name} differs from the recomputed one", bits
        with mp.workdps(20):
            margin_text = side_text(margin, 12)
    return True, f"{to_text(comparison)} fails rigorously (margin {margin_text})", bits
