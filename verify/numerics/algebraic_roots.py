"""The ground of verify.numerics.algebraic: Q(t) with t = e^s (Field), polynomials of Z[t, x] (flint's fmpz_mpoly,
x the algebraic number's variable) and the real roots of a squarefree one, isolated in disjoint balls and certified by
sign changes (RootSet, Root)."""
import functools
import math

import flint

CTX = flint.fmpz_mpoly_ctx.get(("t", "x"), "lex")
CTX3 = flint.fmpz_mpoly_ctx.get(("t", "x", "y"), "lex")
T, X = CTX.gens()
ONE, ZERO = CTX.constant(1), CTX.constant(0)
START_BITS = 128
MAX_BITS = 1 << 14  # a sign or an isolation still open here is left undecided


class Undecidable(Exception):
    """Exact arithmetic cannot decide this here (a size beyond the limits, a transcendental value)."""


class Field:
    """Where t lives: t = e^scale (scale a non-zero Fraction), or no t (scale None: every Value is rational)."""

    def __init__(self, scale=None):
        self.scale = scale
        self.joins = {}  # the products of roots' powers made in this field, by monomial (verify.numerics.algebraic)

    @functools.lru_cache(maxsize=64)
    def t(self, bits):
        with flint.ctx.workprec(bits + 20):
            if self.scale is None:
                return flint.arb(1)
            return (flint.arb(self.scale.numerator) / self.scale.denominator).exp()

    def evaluate(self, poly, bits, x=None):
        """poly(t, x) as an Arb ball at `bits` (x a ball, unused when poly has no x): each power of x's coefficient, a
        polynomial of t, by `_at` (term by term, or Horner's rule in C where it is dense)."""
        t = self.t(bits)
        with flint.ctx.workprec(bits):
            by_power = {}
            for (et, ex), c in zip(poly.monoms(), poly.coeffs()):
                by_power.setdefault(int(ex), {})[int(et)] = c
            total, power = flint.arb(0), flint.arb(1)  # x^k by products: arb's ** is NaN for a base that straddles 0
            for k in range(max(by_power, default=-1) + 1):
                if k:
                    power *= x
                if k in by_power:
                    total += _at(by_power[k], t) * power
            return total


def _at(terms, t):
    """Σ c·t^e over the {e: c} of one polynomial of t, as a ball at the context's precision: term by term where its
    terms are few for its degree (a power costs about 2·log2(e) products), else by Horner's rule over the dense
    coefficients in C (a λ polynomial's x-coefficients of 20,000 terms took 0.3 s term by term, milliseconds so)."""
    degree = max(terms)
    if len(terms) * 2 * max(degree, 2).bit_length() < degree:
        return sum((flint.arb(c) * t ** e if e else flint.arb(c) for e, c in terms.items()), flint.arb(0))
    dense = [0] * (degree + 1)
    for e, c in terms.items():
        dense[e] = c
    return flint.arb_poly(dense)(t)


def x_degree(poly):
    return max(0, poly.degrees()[1])  # the zero polynomial's degree is -1


def t_degree(poly):
    return max(0, poly.degrees()[0])


def x_coefficients(poly):
    """{k: the coefficient of x^k, a polynomial of t}: (∂ₓᵏ poly)(t, 0) / k!, each a C-level pass over the terms
    (adding them up term by term in Python took 64 ms for a secular polynomial of 15,000 terms, this 1.2 ms)."""
    out, k = {}, 0
    while not poly.is_zero():
        c = poly.subs({"x": 0})
        if not c.is_zero():
            out[k] = c / math.factorial(k)
        poly, k = poly.derivative("x"), k + 1
    return out


def squarefree(poly):
    """poly divided by gcd(poly, ∂poly/∂x): squarefree in x over Q(t), the same roots."""
    g = poly.gcd(poly.derivative("x"))
    return poly / g if x_degree(g) > 0 else poly


def real_roots(field, poly, bits, known=None):
    """(the precision used, the real roots of poly(t, ·)): the roots (squarefree, every root real), largest first, as
    disjoint balls at `bits` or more; raises Undecidable past MAX_BITS. The approximations are Newton steps from
    `known` (the roots isolated at a lower precision), else the roots of the midpoint polynomial (flint's
    complex_roots); each true root is then certified by a sign change around its approximation: deg(poly)
    disjoint intervals with a sign change hold one root each."""
    coefficients = x_coefficients(poly)
    degree = x_degree(poly)
    while bits <= MAX_BITS:
        with flint.ctx.workprec(bits):
            exact = flint.arb_poly([field.evaluate(coefficients.get(k, ZERO), bits) for k in range(degree + 1)])
            balls = (_refined(exact, degree, bits, known) if known else None) or _certified(exact, degree, bits)
        if balls is not None:
            return bits, balls
        bits *= 2
    raise Undecidable("roots not isolated within the precision limit")


NEWTON_STEPS = 64  # from a lower precision's root: each step doubles its correct digits once well inside its cluster


def _refined(exact, degree, bits, known):
    """The roots at `bits` by Newton steps on the midpoint polynomial from the isolated `known`, certified by sign
    changes, or None. A sign's precision rising from 1,024 to 4,096 bits for two roots 1e-300 apart took seconds
    per step through flint's exact roots of the midpoints, and milliseconds so."""
    if len(known) != degree:
        return None
    derivative, balls = exact.derivative(), []
    for ball in known:
        x = ball.mid()
        for _ in range(NEWTON_STEPS):
            slope = derivative(x)
            if slope.contains(0):
                return None
            step = (exact(x) / slope).mid()
            x = (x - step).mid()
            if abs(step) <= abs(x) * flint.arb(2) ** (32 - bits):
                break
        balls.append(_sign_change(exact, x, bits))
    if any(b is None for b in balls):
        return None
    balls.sort(key=lambda b: b.mid(), reverse=True)
    return balls if all(not a.overlaps(b) for a, b in zip(balls, balls[1:])) else None


def _certified(exact, degree, bits):
    midpoint = flint.fmpq_poly([_fmpq(c.mid()) for c in exact.coeffs()])
    approximations = midpoint.complex_roots()
    if len(approximations) != degree or any(m != 1 or not r.imag.contains(0) for r, m in approximations):
        return None
    balls = []
    for root, _ in approximations:
        ball = _sign_change(exact, root.real.mid(), bits)
        if ball is None:
            return None
        balls.append(ball)
    balls.sort(key=lambda b: b.mid(), reverse=True)
    return balls if all(not a.overlaps(b) for a, b in zip(balls, balls[1:])) else None


def _sign_change(exact, mid, bits):
    """A ball around `mid` holding a root of every polynomial in `exact` (its value changes sign across it), or None:
    the narrowest of relative radius 2^-(bits − 32), 2^-(3·bits/4), 2^-(bits/2) that shows it (a narrow one keeps
    two roots 1e-300 apart disjoint; where the polynomial's terms cancel, only a wider one shows a sign)."""
    for lost in sorted({32, bits // 4, bits // 2}):
        width = abs(mid) * flint.arb(2) ** (lost - bits) if mid != 0 else flint.arb(2) ** (2 * (lost - bits))
        if exact(mid - width) * exact(mid + width) < 0:
            return flint.arb(mid, width)
    return None


def _fmpq(ball):
    man, exp = ball.man_exp()
    return flint.fmpq(man * 2 ** int(exp)) if exp >= 0 else flint.fmpq(man, 2 ** int(-exp))


class RootSet:
    """The real roots of one squarefree poly(t, ·), isolated once and shared by its Roots: the narrowest balls so far,
    refined when a higher precision is asked for."""

    def __init__(self, field, poly):
        self.field, self.poly, self._best = field, poly, (0, None)  # (the precision of the balls, the balls)

    def at(self, bits):
        if self._best[0] < bits:  # refined from the best so far, not found afresh
            self._best = real_roots(self.field, self.poly, bits, self._best[1])
        return self._best[1]

    def enclosure(self, index):
        return lambda bits: self.at(bits)[index]

    def root(self, index):
        """The index-th largest real root."""
        return Root(self.field, self.poly, self.enclosure(index))


class Root:
    """One real root α of the squarefree f(t, x), given by a function bits → a ball containing it (and no other
    root of f once the precision is high enough)."""

    def __init__(self, field, poly, enclose, make=None):  # make: computes poly (None) on first use (combine's resultant)
        self.field, self._poly, self._make, self._enclose, self._balls = field, poly, make, enclose, {}
        self._powers = None  # a join's {root: exponent} (verify.numerics.algebraic); None: this root to the power 1

    @property
    def powers(self):
        """This number as a product of powers of roots: {root: exponent}."""
        return self._powers if self._powers is not None else {self: 1}

    @property
    def poly(self):  # a sign or a comparison that balls settle never needs the costly resultant
        if self._poly is None:
            self._poly = self._make()
        return self._poly

    def ball(self, bits):
        if bits not in self._balls:
            self._balls[bits] = self._enclose(bits)
        return self._balls[bits]
