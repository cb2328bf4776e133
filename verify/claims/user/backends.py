"""Arithmetic backends of the margin tree walk: float64 and mpmath with a running error, arb balls.

A backend provides leaf/number/constant, add/mul/power_int/power/sqrt/log/exp/abs,
least/greatest (of values and of margins) and compare(lhs, rhs, op) -> Outcome.
"""
import math
from fractions import Fraction

import flint
import mpmath as mp

from verify.numerics.precision import to_arb
from verify.claims.user.outcome import Outcome, signed_outcome

TOO_BIG = 2**40  # |log2| of a value beyond which it is treated as an overflow (no giant integers)


class Float64:
    unit = 2.0**-53
    tiny = 5e-324
    inf = math.inf
    nan = math.nan

    def convert(self, x):
        """(float, exact?, representable?) of a number (mpf, int, Fraction, float)."""
        try:
            f = float(x)
        except OverflowError:
            return math.inf, False, False
        exact = f == x if not isinstance(x, Fraction) else Fraction(f) == x if math.isfinite(f) else False
        return f, exact, self.normal(f) or f == 0 == x

    def normal(self, f):
        return math.isfinite(f) and (f == 0 or abs(f) >= 2.2250738585072014e-308)

    def constant(self, name):
        return math.pi if name == "pi" else math.e

    def exp(self, x):
        try:
            return math.exp(x)
        except OverflowError:
            return math.inf

    def expm1(self, x):
        try:
            return math.expm1(x)
        except OverflowError:
            return math.inf

    def log(self, x):
        return math.log(x) if x > 0 else -math.inf if x == 0 else math.nan

    def sqrt(self, x):
        return math.sqrt(x) if x >= 0 else math.nan

    def power_int(self, x, k):
        try:
            return x**k if x != 0 or k > 0 else math.nan
        except OverflowError:
            return math.inf
        except ZeroDivisionError:
            return math.nan

    def log2_size(self, x):
        return math.log2(abs(x)) if x != 0 else 0.0


class MpMath(Float64):
    """The same primitives in mpmath, at the ambient (scoped) precision."""

    def __init__(self):
        self.unit = mp.mpf(2) ** (-mp.mp.prec)
        self.tiny = mp.mpf(2) ** (-(2**62))
        self.inf, self.nan = mp.inf, mp.nan

    def convert(self, x):
        if isinstance(x, Fraction):
            p, q = x.numerator, x.denominator
            exact = q & (q - 1) == 0 and abs(p).bit_length() <= mp.mp.prec  # a dyadic that fits
            return mp.mpf(p) / q, exact, True
        f = mp.mpf(x)
        return f, True, mp.isfinite(f)

    def normal(self, f):
        return mp.isfinite(f)

    def constant(self, name):
        return +mp.pi if name == "pi" else +mp.e

    def exp(self, x):
        if abs(x) > TOO_BIG:
            return mp.inf if x > 0 else mp.nan  # e^(−2^40): a point we do not build (undecided)
        return mp.exp(x)

    def expm1(self, x):
        return mp.expm1(x) if x <= TOO_BIG else mp.inf

    def log(self, x):
        return mp.log(x) if x > 0 else -mp.inf if x == 0 else mp.nan

    def sqrt(self, x):
        return mp.sqrt(x) if x >= 0 else mp.nan

    def power_int(self, x, k):
        if x == 0:
            return mp.mpf(0) if k > 0 else mp.nan
        if abs(k) * (abs(mp.mag(x)) + 1) > TOO_BIG:
            return mp.inf if (abs(x) > 1) == (k > 0) else mp.nan
        return x**k

    def log2_size(self, x):
        return float(mp.log(abs(x), 2)) if x != 0 and mp.isfinite(x) else 0.0


class Estimated:
    """Values are pairs (x, e): x in the number system of `f`, e a first-order bound on |x − exact|."""

    def __init__(self, f, rel_err):
        self.f = f
        self.rel_err = rel_err

    def _pair(self, x, e):
        if not self.f.normal(x) or e != e:
            return (x, self.f.inf)
        return (x, e + abs(x) * self.f.unit)

    def leaf(self, v):
        x, exact, ok = self.f.convert(v)
        return (x, abs(x) * (self.rel_err + (0 if exact else self.f.unit)) if ok else self.f.inf)

    def number(self, fraction):
        x, exact, ok = self.f.convert(fraction)
        return (x, 0 * x if exact else abs(x) * self.f.unit) if ok else (x, self.f.inf)

    def constant(self, name):
        x = self.f.constant(name)
        return (x, abs(x) * self.f.unit)

    def add(self, a, b):
        return self._pair(a[0] + b[0], a[1] + b[1])

    def mul(self, a, b):
        x = a[0] * b[0]
        if x == 0 and a[0] != 0 and b[0] != 0:
            return (x, self.f.inf)  # underflow
        return self._pair(x, abs(a[0]) * b[1] + abs(b[0]) * a[1] + a[1] * b[1])

    def power_int(self, a, k):
        x = self.f.power_int(a[0], k)
        if a[1] >= abs(a[0]) or (x == 0 and a[0] != 0):
            return (x, self.f.inf)
        if k == 1:
            return a
        # |(a+δ)^k − a^k| ≤ |a^k|·((1 + δ/|a|)^|k| − 1), and the same bound for 1/(·)^|k| when δ < |a|/2
        ratio = a[1] / abs(a[0])
        growth = self.f.expm1(abs(k) * ratio / (1 - ratio)) if ratio < 0.5 else self.f.inf
        return self._pair(x, abs(x) * growth)

    def power(self, a, b):
        if not a[0] > 0:
            return (self.f.nan, self.f.inf)
        return self.exp(self.mul(b, self.log(a)))

    def sqrt(self, a):
        x = self.f.sqrt(a[0])
        return self._pair(x, a[1] / (2 * x) if x > 0 else self.f.sqrt(a[1]))

    def log(self, a):
        x = self.f.log(a[0])
        return self._pair(x, a[1] / (a[0] - a[1]) if a[0] > a[1] else self.f.inf)

    def exp(self, a):
        x = self.f.exp(a[0])
        if x == 0 and a[0] > -math.inf:
            return (x, self.f.inf)
        return self._pair(x, abs(x) * self.f.expm1(a[1]))

    def abs(self, a):
        return (abs(a[0]), a[1])

    def least(self, items):
        return self._extreme(items, min)

    def greatest(self, items):
        return self._extreme(items, max)

    def _extreme(self, items, pick):
        if isinstance(items[0], tuple):  # values: |min(a) − min(a′)| ≤ max |a_i − a′_i|
            xs = [a[0] for a in items]
            if any(x != x for x in xs):
                return (self.f.nan, self.f.inf)
            return (pick(xs), max(a[1] for a in items))
        if any(m != m for m in items):  # margins and their bounds (NaN propagates: undecided)
            return self.f.nan
        return pick(items)

    def compare(self, lhs, rhs, op):
        (l, el), (r, er) = lhs, rhs
        if l > 0 and r > 0:
            d = self.f.log(l) - self.f.log(r)
            e = (el / (l - el) if l > el else self.f.inf) + (er / (r - er) if r > er else self.f.inf)
        else:
            scale = max(abs(l), abs(r), self.f.tiny)
            d = (l - r) / scale
            e = (el + er) / scale
        if d != d or abs(d) == self.f.inf:
            e = self.f.inf
        e = e + abs(d) * self.f.unit
        return signed_outcome(d, e, op)


class Balls:
    """python-flint arb balls; every operation is a rigorous enclosure."""

    def leaf(self, v):
        return v if isinstance(v, flint.arb) else to_arb(mp.mpf(v)) if not isinstance(v, int) else flint.arb(v)

    def number(self, fraction):
        return flint.arb(fraction.numerator) / flint.arb(fraction.denominator)

    def constant(self, name):
        return flint.arb.pi() if name == "pi" else flint.arb(1).exp()

    def add(self, a, b):
        return a + b

    def mul(self, a, b):
        return a * b

    def power_int(self, a, k):
        return a**k

    def power(self, a, b):
        return a**b

    def sqrt(self, a):
        return a.sqrt()

    def log(self, a):
        return a.log()

    def exp(self, a):
        return a.exp()

    def abs(self, a):
        return abs(a)

    def least(self, items):
        return _pairwise(lambda a, b: (a + b - abs(a - b)) / 2, items)

    def greatest(self, items):
        return _pairwise(lambda a, b: (a + b + abs(a - b)) / 2, items)

    def compare(self, lhs, rhs, op):
        if lhs > 0 and rhs > 0:
            d = lhs.log() - rhs.log()
        else:
            tiny = flint.arb(flint.arf((1, -(2**40))))
            d = (lhs - rhs) / self.greatest([abs(lhs), abs(rhs), tiny])
        if op in (">=", ">"):
            m, strict = d, op == ">"
        elif op in ("<=", "<"):
            m, strict = -d, op == "<"
        else:
            m, strict = -abs(d), False
        return Outcome(m, m.lower(), m.upper(), strict)


def _pairwise(operation, items):
    out = items[0]
    for item in items[1:]:
        out = operation(out, item)
    return out
