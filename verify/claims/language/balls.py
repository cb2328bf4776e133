"""Arb-ball evaluation of the claim language: every operation a rigorous enclosure.

Values are flint.arb balls, `Huge` numbers (±exp(L) with L a ball, for magnitudes no ball can hold,
such as 10**10**10**10), or one of two values of definedness, each a value of its own that every
operation propagates (verify.claims.language.semantics):

- UNDEFINED where the one table of verify.claims.language.semantics says an operation is undefined (its
  condition fails on the whole ball): the claim fails there, decided;
- POSSIBLY_UNDEFINED where a ball does not settle the condition (it holds on part of the ball only): the
  claim is undecided there, whatever is done to the value afterwards (`x ** 0`, `exp(x) > 0`).

A NaN ball only ever stands for a *defined* value the balls could not compute (an overflow, a quantity not
enclosed), never for a doubt about definedness. The very same object stands for the very same value: two
sides that are the same leaf (z(1) < z(1); a tie aliased by the caller) are equal exactly, and `x - x` of
the same object is exactly 0 (so `1/(z(1) - z(1))` is undefined, not undecided).
"""
import functools
from fractions import Fraction

import flint

from verify.claims.language.outcome import Outcome, undefined_outcome
from verify.claims.language.semantics import NONNEG, NONZERO, item_index
from verify.numerics.precision import to_arb

LOG_LIMIT = 2**50  # |ln x| beyond which x is held as Huge(sign, ln|x|): arb exponents go far beyond it
UNDEFINED = "undefined"
POSSIBLY_UNDEFINED = "possibly undefined"
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


def _settled(x):
    """x is a number (no NaN in it): the same object then holds the same value."""
    return not (x.log if isinstance(x, Huge) else x).is_nan()


def _as_ball(value):
    return value if isinstance(value, flint.arb) else to_arb(value)


def _log_abs(x):
    return x.log if isinstance(x, Huge) else abs(x).log()


def _from_log(sign, log):
    """sign·exp(log) as a ball when it fits, else Huge."""
    if abs(log.mid()) < LOG_LIMIT:
        return sign * log.exp()
    return Huge(sign, log)


class Balls:
    """The ball algebra of verify.claims.language.semantics: the definedness conditions it is asked to
    `require` are decided on the balls' signs; an operation is only applied where its condition holds.
    `at(point)` binds the leaves (names, items) to one example."""

    def __init__(self, point=None):
        self.point = point

    def at(self, point):
        return Balls(point)

    # ------------------------------------------------ leaves
    def leaf(self, node):
        from verify.claims.language.syntax import IndexValue, Item

        point = self.point
        if isinstance(node, IndexValue):
            return flint.arb(node.index.at(point.n))
        if isinstance(node, Item):
            return _as_ball(point.get(node.name, item_index(node, point.n)))
        if node.id == "n":
            return flint.arb(point.n)
        return _as_ball(point.get(node.id))

    def number(self, num):
        value = to_arb(num.mantissa)
        if not num.exp10 or num.mantissa == 0:
            return value
        if abs(num.exp10) < 10**6:
            return value * flint.arb(10) ** num.exp10
        return self.arithmetic("*", value, _from_log(1, flint.arb(num.exp10) * flint.arb(10).log()))

    def exact(self, fraction):
        """An exact rational as a ball; equal rationals give the very same ball (so they compare equal exactly)."""
        return _exact_ball(fraction, flint.ctx.prec)

    def constant(self, name):
        return flint.arb.pi() if name == "pi" else flint.arb(1).exp()

    # ------------------------------------------------ definedness
    def require(self, kind, x):
        """True where the condition holds on the whole ball, False where it fails on all of it, else None."""
        if isinstance(x, Huge):
            return x.sign != 0 if kind == NONZERO else x.sign > 0
        if kind == NONZERO:
            return True if (x > 0 or x < 0) else False if x == 0 else None
        if kind == NONNEG:
            return True if x >= 0 else False if x < 0 else None
        return True if x > 0 else False if x <= 0 else None

    def undefined(self):
        return UNDEFINED

    def unknown(self):
        """A condition the ball does not settle: the value may be undefined."""
        return POSSIBLY_UNDEFINED

    def is_undefined(self, value):
        return value is UNDEFINED

    def is_open(self, value):
        return value is POSSIBLY_UNDEFINED

    # ------------------------------------------------ operations (each applied where it is defined)
    def neg(self, a):
        return Huge(-a.sign, a.log) if isinstance(a, Huge) else -a

    def arithmetic(self, op, a, b):
        if op == "-" and a is b and _settled(a):
            return flint.arb(0)  # the very same value: x − x is exactly 0
        if op == "-":
            return self._add(a, self.neg(b))
        return self._add(a, b) if op == "+" else self._mul(a, b)

    def _add(self, a, b):
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

    def _mul(self, a, b):
        if not isinstance(a, Huge) and not isinstance(b, Huge):
            return a * b
        signs = (_known_sign(a), _known_sign(b))
        if 0 in signs:
            return flint.arb(0)
        if None in signs:
            return NAN
        return _from_log(signs[0] * signs[1], _log_abs(a) + _log_abs(b))

    def divide(self, a, b, guard=True):
        if isinstance(b, Huge):
            return self._mul(a, Huge(b.sign, -b.log))
        if isinstance(a, Huge):
            return self._mul(a, 1 / b)
        return a / b

    def power(self, a, p, guard=True):
        """a ** p for an exact rational p, where the table says it is defined."""
        if p.denominator == 1:
            return self._power_int(a, int(p))
        if p == Fraction(1, 2):
            return Huge(1, a.log / 2) if isinstance(a, Huge) else a.sqrt()
        return self._power_real(a, to_arb(p))

    def _power_int(self, a, k):
        if k == 0:
            return flint.arb(1)
        sign = _known_sign(a)
        if sign == 0:
            return flint.arb(0)
        if sign is None:
            return a**k if abs(k) <= 64 and not isinstance(a, Huge) else NAN
        log = _log_abs(a) * k
        result_sign = sign if k % 2 else 1
        if not isinstance(a, Huge) and abs(log.mid()) < LOG_LIMIT:
            return a**k
        return _from_log(result_sign, log)

    def _power_real(self, a, b):
        """a ** b for a non-integer b, a ≥ 0 (a > 0 when b < 0)."""
        sign = _known_sign(a)
        if sign == 0:
            return flint.arb(0)
        if sign is None or isinstance(b, Huge):
            return NAN  # a base whose ball touches 0, or an exponent beyond any ball: not built
        return _from_log(1, b * _log_abs(a))

    def exponent_class(self, b, integer_valued=False):
        """(is_integer, negative) of an exponent's value, or None when the ball does not settle it."""
        if isinstance(b, Huge):
            return (True, b.sign < 0) if integer_valued else None
        if not b.is_finite():
            return None
        if integer_valued or (b.is_exact() and b.is_integer()):
            return (True, True) if b < 0 else (True, False) if b > -1 else None
        whole = b.floor()
        if whole.is_exact() and b > whole and b < whole + 1:
            return False, bool(b < 0)
        return None

    def power_of(self, a, b, is_integer, guard=True):
        if not is_integer:
            return self._power_real(a, b)
        k = None if isinstance(b, Huge) else b.unique_fmpz()
        if k is not None and abs(k) < 2**62:
            return self._power_int(a, int(k))
        sign = _known_sign(a)
        if isinstance(b, Huge) or sign is None or (sign < 0 and k is None):
            return NAN  # a tower, a base whose ball touches 0, or an unknown parity
        if sign == 0:
            return flint.arb(0)
        return _from_log(sign if sign > 0 or int(k) % 2 else 1, b * _log_abs(a))

    def call(self, name, args, guard=True):
        a = args[0]
        if name == "log":
            return _log_abs(a)
        if name == "exp":
            if isinstance(a, Huge):
                return NAN if a.sign > 0 else flint.arb(0, 2.0**-1000)  # e^(−huge): positive and below any ball
            return _from_log(1, a)
        if name == "abs":
            return Huge(1, a.log) if isinstance(a, Huge) else abs(a)
        return self._extreme(args, 1 if name == "max" else -1)

    def _extreme(self, items, direction):
        if any(isinstance(item, Huge) for item in items):
            return NAN
        out = items[0]
        for item in items[1:]:
            out = out.max(item) if direction > 0 else out.min(item)
        return out

    def bound(self, end, direction):
        """An end of an enclosure, or ∓∞ (direction −1 for a lower end, 1 for an upper) where it is not a number."""
        if isinstance(end, flint.arb) and not end.is_nan():
            return end
        return flint.arb("inf") * direction

    def open_outcome(self):
        """A comparison whose definedness the balls leave open: margin NaN, enclosure [−∞, ∞]."""
        return Outcome(NAN, flint.arb("-inf"), flint.arb("inf"), False, open=True)

    def unknown_outcome(self, op):
        """A defined comparison whose value the balls could not compute: margin NaN, enclosure [−∞, ∞]."""
        return Outcome(NAN, flint.arb("-inf"), flint.arb("inf"), op in ("<", ">"))

    def pick_margin(self, margins, pick):
        out = margins[0]
        for m in margins[1:]:
            out = out.min(m) if pick is min else out.max(m)
        return out

    def compare(self, lhs, rhs, op):
        if lhs is UNDEFINED or rhs is UNDEFINED:
            return undefined_outcome()
        if lhs is POSSIBLY_UNDEFINED or rhs is POSSIBLY_UNDEFINED:
            return self.open_outcome()
        if any(isinstance(side, flint.arb) and side.is_nan() for side in (lhs, rhs)):
            return self.unknown_outcome(op)  # a defined side not computed (NAN is one object: never "the same leaf")
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
