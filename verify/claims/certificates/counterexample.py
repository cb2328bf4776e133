"""Counterexamples of formula claims, decided and certified with Arb balls alone.

`certify(job, case, dps)` decides the claim at the case with balls, raising the precision until
decided, and returns what a certificate records: the binding comparison (the one whose margin is
the claim's: the least under `and`, the greatest under `or`), its two sides and the margin, at
`dps` digits. `recheck(tree, case, body)` is the independent half of `check`: it recomputes the
same from the inputs alone and compares with what was recorded.
"""
import re

import flint
import mpmath as mp

from verify.claims.language.balls import UNDEFINED, Balls, Huge
from verify.claims.language.evaluate import decide, value
from verify.claims.language.outcome import FAILS, TIGHT
from verify.claims.language.quantities import needs as needs_of
from verify.claims.language.syntax import And, Compare, Index, Not, Or, names
from verify.claims.language.text import instantiate, to_text
from verify.claims.language.values import ball_point, ball_spectrum
from verify.numerics.arb import arb_to_mpf
from verify.numerics.precision import bits_for, decimal

MAX_BITS = 1 << 15
FULL_PRECISION_N = 8  # up to this n the precision may rise to MAX_BITS; beyond, to MAX_BITS·(8/n)³ (dense balls ~ n³)
DECIMAL = re.compile(r"-?[0-9]{1,1100}(\.[0-9]{0,1100})?(e[+-]?[0-9]{1,20})?")  # a side as side_text writes it


def ball_outcome(tree, case, bits):
    """The claim's Outcome at the case with balls of `bits` precision."""
    with flint.ctx.workprec(bits):
        point = ball_point(case, ball_spectrum(case, needs_of(names(tree))), bits)
        return decide(tree, point, Balls()), point


def decide_rigorously(tree, case, dps, max_bits=None):
    """(outcome, point, bits): balls from `dps` digits, the precision doubled until the claim is decided or the
    precision would pass `max_bits` (default: `bits_limit` of the case's n, so a claim the balls never decide
    costs seconds, not hours); where the balls first leave the claim tight (finite sides that agree), an exact
    case is decided by exact arithmetic (verify.claims.exact: a tie)."""
    from verify.claims.exact import exact_outcome

    bits = bits_for(dps)
    max_bits = bits_limit(case.n, bits) if max_bits is None else max_bits
    while True:
        outcome, point = ball_outcome(tree, case, bits)
        if outcome.decided or bits * 2 > max_bits:
            return outcome, point, bits
        exact = exact_outcome(tree, case) if bits == bits_for(dps) and outcome.status == TIGHT else None
        if exact is not None:
            return exact, point, bits
        bits *= 2


def bits_limit(n, start):
    """The most precision a decision at n tokens may rise to: MAX_BITS up to FULL_PRECISION_N tokens, then less
    as n³ grows, and never below two steps from `start`."""
    if n <= FULL_PRECISION_N:
        return MAX_BITS
    return max(2 * start, int(MAX_BITS * (FULL_PRECISION_N / n) ** 3))


def certify(tree, case, dps):
    """What a certificate of the claim failing at `case` records, or None when the balls do not show it fails."""
    outcome, point, bits = decide_rigorously(tree, case, dps)
    if outcome.status != FAILS:
        return None
    with flint.ctx.workprec(bits):
        comparison, lhs, rhs, binding = binding_at(tree, point, Balls())
        with mp.workdps(dps + 10):
            return {"binding": {"comparison": to_text(comparison), "lhs": side_text(lhs, dps), "rhs": side_text(rhs, dps)},
                    "margin": side_text(outcome.margin if not outcome.undefined else UNDEFINED, dps), "bits": bits}


def binding_at(tree, point, backend):
    """(comparison, lhs, rhs, outcome) of the comparison that sets the claim's margin at the point."""
    if isinstance(tree, Compare):
        lhs, rhs = value(tree.left, point, backend), value(tree.right, point, backend)
        return tree, lhs, rhs, backend.compare(lhs, rhs, tree.op)
    if isinstance(tree, Not):
        return binding_at(tree.part, point, backend)
    parts = tree.parts if isinstance(tree, (And, Or)) else [
        instantiate(tree.part, Index(k)) for k in range(tree.lo.at(point.n), tree.hi.at(point.n) + 1)]
    found = [binding_at(part, point, backend) for part in parts]
    if not found:
        raise ValueError("a statement about no index cannot fail")
    undefined = [f for f in found if f[3].undefined]
    if undefined:
        return undefined[0]
    pick = max if isinstance(tree, Or) else min
    return pick(found, key=lambda f: _mid(f[3].margin))


def _mid(margin):
    return float(arb_to_mpf(margin)) if isinstance(margin, flint.arb) and margin.is_finite() else float("nan")


def side_text(x, dps):
    """A side or margin as a certificate writes it: a decimal, ±exp(L) for a Huge value, or "undefined"."""
    if x is UNDEFINED:
        return "undefined"
    if isinstance(x, Huge):
        return ("-" if x.sign < 0 else "") + f"exp({decimal(arb_to_mpf(x.log), dps)})"
    if not x.is_finite():
        return "nan"
    return decimal(arb_to_mpf(x), dps)


def matches(recorded, ball, dps, where):
    """Whether a recorded side (text) lies in the recomputed ball, up to the recorded digits."""
    if recorded == "undefined" or ball is UNDEFINED:
        return recorded == "undefined" and ball is UNDEFINED
    if isinstance(ball, Huge) or recorded.lstrip("-").startswith("exp("):
        if not isinstance(ball, Huge) or recorded.startswith("-") != (ball.sign < 0):
            return False
        return matches(recorded.lstrip("-")[4:-1], ball.log, dps, where)
    if not isinstance(ball, flint.arb) or not ball.is_finite() or not DECIMAL.fullmatch(recorded) or \
            significant_digits(recorded) < min(dps, 1000):
        return False  # a certificate's sides are decimals carrying the digits it says it has
    value = flint.arb(recorded)  # a ball around the decimal: its exponent may be beyond any user number's
    return bool(abs(value - ball.mid()) <= ball.rad() + value.rad() + half_ulp(recorded) * flint.arb("1.000001"))


def significant_digits(text):
    """Significant digits written in a decimal ("0.00120" has 3; zero counts as fully written)."""
    mantissa = text.lower().lstrip("+-").partition("e")[0].replace(".", "").lstrip("0")
    return len(mantissa) if mantissa else 10**6


def half_ulp(text):
    """Half a unit in the last written digit of a decimal ("1.250e-3" → 0.5e-6): the rounding a
    correctly rounded side may carry, and all the slack `check` allows beyond the ball's radius."""
    mantissa, _, exponent = text.lower().lstrip("+-").partition("e")
    decimals = len(mantissa.partition(".")[2])
    return flint.arb(10) ** (int(exponent or 0) - decimals) / 2


def recheck(tree, case, body, where):
    """(confirmed, reason, bits): the claim decided again from the inputs alone, with balls; confirmed only
    when it fails rigorously and the recorded binding comparison, sides and margin are what the balls give."""
    dps = body["dps"]
    outcome, point, bits = decide_rigorously(tree, case, dps)
    if outcome.status != FAILS:
        reason = "the claim holds rigorously at these inputs" if outcome.decided else \
            "the balls could not decide the claim at these inputs up to the precision limit"
        return False, reason, bits
    with flint.ctx.workprec(bits):
        comparison, lhs, rhs, _ = binding_at(tree, point, Balls())
        recorded = body["binding"]
        if recorded["comparison"] != to_text(comparison):
            return False, f"the claim fails, but its binding comparison is {to_text(comparison)!r}, not the recorded one", bits
        margin = UNDEFINED if outcome.undefined else outcome.margin
        for name, ball, text in (("lhs", lhs, recorded["lhs"]), ("rhs", rhs, recorded["rhs"]), ("margin", margin, body["margin"])):
            if not matches(text, ball, dps, f"{where} {name}"):
                return False, f"{to_text(comparison)} fails, but the recorded {name} differs from the recomputed one", bits
        with mp.workdps(20):
            shown = side_text(margin, 12)
    return True, f"{to_text(comparison)} fails rigorously (margin {shown})", bits
