"""Arb-ball evaluation of the claim language: every operation a rigorous enclosure.

Values are flint.arb balls, `Huge` numbers (±exp(L) with L a ball, for magnitudes no ball can hold,
such as 10**10**10**10), or UNDEFINED (log of a number ≤ 0, a division by exactly 0, the square root
of a negative number, 0 to a negative power): an undefined value makes the claim fail, decided.
A ball that merely contains 0 where 0 would be undefined gives NaN instead: undecided.
Two sides that are the very same leaf object (z(1) < z(1); a tie aliased by the caller) are equal
exactly: their margin is exactly 0.
"""
import functools

import flint

from verify.claims.language.outcome import Outcome, undefined_outcome
from verify.numerics.precision import to_arb

LOG_LIMIT = 2**50  # |ln x| beyond which x is held as Huge(sign, ln|x|): arb exponents go far beyond it
UNDEFINED = "undefined"
NAN = flint.arb("nan")


@functools.lru_cache(maxsize=4096)
def _exact_ball(fraction, prec):
    return to_arb(fraction)


class Huge:
    """sign·exp(log): a magnitude beyond a ball's reach (log a ball, |log| > LOG_LIMIT)."""

    __slots__ = ("sign", "log")

    def __init__(self, sign, log):
        self.sign, self.log = sign, log


def _known_sign(x):
    """+1, −1, 0 (exactly zero) or None (the ball contains 0 and more)."""
    if isinstance(x, Huge):
        return x.sign
    if x > 0:
        return 1
    if x < 0:
        return -1
    return 0 if x == 0 else None


def _log_abs(x):
    return x.log if isinstance(x, Huge) else abs(x).log()


def _from_log(sign, log):
    """sign·exp(log) as a ball when it fits, else Huge."""
    if abs(log.mid()) < LOG_LIMIT:
        return sign * log.exp()
    return Huge(sign, log)


class Balls:
    """The tree walk's arithmetic on balls (see the module docstring)."""

    def leaf(self, value, rel_err=0):
        return value if isinstance(value, flint.arb) else to_arb(value)

    def number(self, num):
        value = to_arb(num.mantissa)
        if not num.exp10 or num.mantissa == 0:
            return value
        if abs(num.exp10) < 10**6:
            return value * flint.arb(10) ** num.exp10
        return self.mul(value, _from_log(1, flint.arb(num.exp10) * flint.arb(10).log()))

    def integer(self, value):
        return flint.arb(value)

    def exact(self, fraction):
        """An exact rational as a ball; equal rationals give the very same ball (so they compare equal exactly)."""
        return _exact_ball(fraction, flint.ctx.prec)

    def constant(self, name):
        return flint.arb.pi() if name == "pi" else flint.arb(1).exp()

    def neg(self, a):
        if a is UNDEFINED:
            return a
        return Huge(-a.sign, a.log) if isinstance(a, Huge) else -a

    def add(self, a, b):
        if a is UNDEFINED or b is UNDEFINED:
            return UNDEFINED
        if not isinstance(a, Huge) and not isinstance(b, Huge):
            return a + b
        if not isinstance(a, Huge):
            a, b = b, a
        if isinstance(b, Huge) or _known_sign(b) is None:
            return self._add_huge(a, b)
        if _known_sign(b) == 0:
            return a
        gap = _log_abs(b) - a.log  # |b|/|a| = e^gap, far below 1 when a is huge and b a ball
        if not gap < -60:
            return NAN
        slack = 2 * gap.exp()
        return Huge(a.sign, a.log + flint.arb(0, slack.upper()))

    def _add_huge(self, a, b):
        """Huge + Huge (or a ball of unknown sign): the larger magnitude wins when the logs are apart."""
        if not isinstance(b, Huge):
            return NAN
        big, small = (a, b) if a.log > b.log else (b, a) if b.log > a.log else (None, None)
        if big is None:
            return Huge(a.sign, a.log + flint.arb(2).log()) if a.sign == b.sign else NAN
        ratio = (small.log - big.log).exp()
        change = (1 + ratio).log() if big.sign == small.sign else (1 - ratio).log()
        return Huge(big.sign, big.log + change)

    def mul(self, a, b):
        if a is UNDEFINED or b is UNDEFINED:
            return UNDEFINED
        if not isinstance(a, Huge) and not isinstance(b, Huge):
            return a * b
        signs = (_known_sign(a), _known_sign(b))
        if 0 in signs:
            return flint.arb(0)
        if None in signs:
            return NAN
        return _from_log(signs[0] * signs[1], _log_abs(a) + _log_abs(b))

    def div(self, a, b):
        if a is UNDEFINED or b is UNDEFINED:
            return UNDEFINED
        sign = _known_sign(b)
        if sign == 0:
            return UNDEFINED
        if sign is None:
            return NAN
        if isinstance(b, Huge):
            return self.mul(a, Huge(b.sign, -b.log))
        if isinstance(a, Huge):
            return self.mul(a, 1 / b)
        return a / b

    def power_int(self, a, k):
        if a is UNDEFINED:
            return a
        sign = _known_sign(a)
        if sign == 0:
            return flint.arb(1) if k == 0 else flint.arb(0) if k > 0 else UNDEFINED
        if k == 0:
            return flint.arb(1) if sign is not None else NAN
        if sign is None:
            return a**k if abs(k) <= 64 and not isinstance(a, Huge) else NAN
        log = _log_abs(a) * k
        result_sign = sign if k % 2 else 1
        if not isinstance(a, Huge) and abs(log.mid()) < LOG_LIMIT:
            return a**k
        return _from_log(result_sign, log)

    def power(self, a, b):
        if a is UNDEFINED or b is UNDEFINED:
            return UNDEFINED
        if isinstance(b, flint.arb) and b.is_exact() and b.is_integer() and abs(b.mid()) < 2**62:
            return self.power_int(a, int(b.unique_fmpz()))
        sign = _known_sign(a)
        if sign == 0:
            b_sign = _known_sign(b)
            return flint.arb(0) if b_sign == 1 else UNDEFINED if b_sign in (0, -1) else NAN
        if sign == -1:
            return UNDEFINED
        if sign is None:
            return NAN
        log_b = b.log if isinstance(b, Huge) else None
        if log_b is not None:
            return NAN  # an exponent beyond any ball: a tower we do not build
        return _from_log(1, b * _log_abs(a))

    def sqrt(self, a):
        if a is UNDEFINED:
            return a
        sign = _known_sign(a)
        if sign == -1:
            return UNDEFINED
        if isinstance(a, Huge):
            return Huge(1, a.log / 2)
        return a.sqrt() if sign is not None else NAN

    def log(self, a):
        if a is UNDEFINED:
            return a
        sign = _known_sign(a)
        if sign in (0, -1):
            return UNDEFINED
        if sign is None:
            return NAN
        return _log_abs(a)

    def exp(self, a):
        if a is UNDEFINED:
            return a
        if isinstance(a, Huge):
            return NAN if a.sign > 0 else flint.arb(0, 2.0**-1000)  # e^(−huge): positive and below any ball
        return _from_log(1, a)

    def abs(self, a):
        if a is UNDEFINED:
            return a
        return Huge(1, a.log) if isinstance(a, Huge) else abs(a)

    def least(self, items):
        return self._extreme(items, -1)

    def greatest(self, items):
        return self._extreme(items, 1)

    def _extreme(self, items, direction):
        if any(item is UNDEFINED for item in items):
            return UNDEFINED
        if any(isinstance(item, Huge) for item in items):
            return NAN
        out = items[0]
        for item in items[1:]:
            out = out.max(item) if direction > 0 else out.min(item)
        return out

    def pick_margin(self, margins, pick):
        out = margins[0]
        for m in margins[1:]:
            out = out.min(m) if pick is min else out.max(m)
        return out

    def compare(self, lhs, rhs, op):
        if lhs is UNDEFINED or rhs is UNDEFINED:
            return undefined_outcome()
        if lhs is rhs:  # the same leaf: equal exactly
            zero = flint.arb(0)
            return Outcome(zero, zero, zero, op in ("<", ">"))
        signs = (_known_sign(lhs), _known_sign(rhs))
        if signs == (1, 1) and not isinstance(lhs, Huge) and not isinstance(rhs, Huge) and abs(lhs - rhs) < rhs / 2:
            d = ((lhs - rhs) / rhs).log1p()  # ln(lhs/rhs), exactly 0 when the sides are equal exact numbers
        elif signs == (1, 1):
            d = _log_abs(lhs) - _log_abs(rhs)
        elif isinstance(lhs, Huge) or isinstance(rhs, Huge):
            d = self._huge_difference(lhs, rhs, signs)
        else:
            d = (lhs - rhs) / abs(lhs).max(abs(rhs)).max(flint.arb(2) ** -(2**40))
        return _ball_outcome(d, op)

    def _huge_difference(self, lhs, rhs, signs):
        """The sign of lhs − rhs as ±1 (a scaled difference of ±1), or NaN when it is not known."""
        if None in signs:
            return NAN
        if signs[0] != signs[1]:
            return flint.arb(1 if signs[0] > signs[1] else -1)
        if signs == (-1, -1):
            return _log_abs(rhs) - _log_abs(lhs)
        return NAN


def _ball_outcome(d, op):
    """The Outcome of a margin ball d under op: its enclosure is the ball itself."""
    if op in (">=", ">"):
        m = d
    elif op in ("<=", "<"):
        m = -d
    else:
        m = -abs(d)
    return Outcome(m, m.lower(), m.upper(), op in ("<", ">"))
