"""Exact algebraic numbers over Q(t), t = e^s for a non-zero rational s (or no t at all), with python-flint.

t is transcendental (Lindemann), so a polynomial P(t) with rational coefficients vanishes at t only when P is
the zero polynomial: an identity at t is a polynomial identity. A `Value` is num(α)/den(α) with num, den in
Z[t, x] and α a `Root`: one real root of a squarefree f(t, x), picked out by a ball function; a Value of
Q(t) has no root (num, den in Z[t]).

Zero test (`is_zero`): in Q(t), num == 0. With a root α of f, let h = gcd(f, num) over Z[t, x]: if h has no x,
f and num are coprime over Q(t), their resultant is a non-zero polynomial of t, so num(α) ≠ 0. Otherwise f = h·c
with h, c coprime (f is squarefree), α is a root of exactly one of them, and a ball of α that keeps c(t, α)
away from 0 proves h(α) = 0, hence num(α) = 0 (or the converse); the precision rises until one does.
Values with two different roots are joined through resultants (`combine`), whose annihilating polynomial
becomes the new root's f (made only when a comparison needs it); its ball is the operation on the two balls. A
product or quotient of c·α^k and d·β^m is (c op d)·(α^k op β^m), a product of the roots' powers made once
per field, so that the same monomial of the same roots (in any order, κ·λ_min = λ_max included) compares exactly
without a resultant. A sign is the ball's once it is not 0.
"""
import math
from fractions import Fraction

import flint

from verify.numerics.algebraic_roots import (CTX, CTX3, MAX_BITS, ONE, START_BITS, ZERO, Root, T, Undecidable, X,
                                             squarefree, t_degree, x_coefficients, x_degree)

SEPARATE_BITS = 1 << 12  # `compare` tries balls up to here before the annihilators' algebra (a tie needs it anyway)
MAX_RESULTANT_SIZE = 8_000  # a resultant's deg_x · deg_t (see _check_size; beyond: too slow, undecided): one of 17,280
# took 3 s (tr J = Σ j(k) at logits 0, −1, −2, −3, −4, which then stayed undecided after 7.5 s); the tests' largest is 54


class Value:
    """num(α)/den(α) for a Root α, or num/den in Q(t) when root is None (see the module docstring)."""

    __slots__ = ("field", "root", "num", "den")

    def __init__(self, field, num, den=ONE, root=None):
        if root is None and x_degree(num) == 0 and x_degree(den) == 0:
            g = num.gcd(den)
            if not g.is_one() and not g.is_zero():
                num, den = num / g, den / g
        self.field, self.root, self.num, self.den = field, root, num, den

    @classmethod
    def rational(cls, field, value):
        value = Fraction(value)
        return cls(field, CTX.constant(value.numerator), CTX.constant(value.denominator))

    @classmethod
    def of_root(cls, root):
        """α itself; a root of a linear f is the rational −f₀/f₁."""
        if x_degree(root.poly) == 1:
            c = x_coefficients(root.poly)
            return cls(root.field, -c.get(0, ZERO), c[1])
        return cls(root.field, X, ONE, root)

    # ------------------------------------------------ numbers
    def ball(self, bits):
        x = self.root.ball(bits) if self.root is not None else None
        with flint.ctx.workprec(bits):
            return self.field.evaluate(self.num, bits, x) / self.field.evaluate(self.den, bits, x)

    def is_zero(self):
        if self.root is None or x_degree(self.num) == 0:
            return self.num.is_zero()
        h = self.root.poly.gcd(self.num)
        return x_degree(h) > 0 and _root_of(h, self.root.poly, Value.of_root(self.root))

    def sign(self):
        if self.root is None and self.num.is_constant() and self.den.is_constant() and not self.den.is_zero():  # a rational
            return 0 if self.num.is_zero() else 1 if (self.num.coefficient(0) > 0) == (self.den.coefficient(0) > 0) else -1
        settled = ball_sign(self.ball, START_BITS)  # a ball that excludes 0 settles the sign without algebra
        if settled is not None:
            return settled
        return 0 if self.is_zero() else ball_sign(self.ball)

    # ------------------------------------------------ arithmetic
    def _common(self, other):
        """(self, other) over one root (or none), joining two roots through a resultant when they differ."""
        if self.root is None or other.root is None or self.root is other.root:
            return self, other
        return None, None

    def __neg__(self):
        return Value(self.field, -self.num, self.den, self.root)

    def __add__(self, other):
        return self._binary(other, "+")

    def __sub__(self, other):
        return self._binary(other, "-")

    def __mul__(self, other):
        return self._binary(other, "*")

    def __truediv__(self, other):
        """self / other; other must not be 0 (the caller has checked)."""
        return self._binary(other, "/")

    def _binary(self, other, op):
        a, b = self._common(other)
        if a is None:
            return _joined(self, other, op)
        root = a.root or b.root
        if op == "+":
            num, den = a.num * b.den + b.num * a.den, a.den * b.den
        elif op == "-":
            num, den = a.num * b.den - b.num * a.den, a.den * b.den
        elif op == "*":
            num, den = a.num * b.num, a.den * b.den
        else:
            num, den = a.num * b.den, a.den * b.num
        if root is not None:
            g = num.gcd(den)
            if not g.is_one() and not g.is_zero():
                num, den = num / g, den / g
        return Value(self.field, num, den, root)

    def power(self, k):
        """self ** k for an integer k (self ≠ 0 when k < 0)."""
        num, den = (self.num, self.den) if k >= 0 else (self.den, self.num)
        return Value(self.field, num ** abs(k), den ** abs(k), self.root)

    def sqrt(self):
        """The non-negative square root (self ≥ 0, checked by the caller)."""
        if self.root is None:
            try:
                s = (self.num * self.den).sqrt()
            except Exception:  # flint's DomainError: not a perfect square in Q(t)
                s = None
            if s is not None:
                out = Value(self.field, s, self.den)
                return -out if out.sign() < 0 else out
        if self.is_zero():
            return Value.rational(self.field, 0)
        p = annihilator(self)
        squared = p.compose(T, X * X, ctx=CTX)
        root = Root(self.field, squarefree(squared), lambda bits: _sqrt_ball(self.ball(bits)))
        return Value.of_root(root)


def ball_sign(enclose, top=MAX_BITS):
    """The sign of a number known not to be 0, from its balls enclose(bits) at rising precision; below MAX_BITS,
    `top` asks only whether a ball up to `top` bits excludes 0: None if not (the number may be 0)."""
    bits = START_BITS
    while bits <= top:
        ball = enclose(bits)
        if ball > 0 or ball < 0:
            return 1 if ball > 0 else -1
        bits *= 2
    if top < MAX_BITS:
        return None
    raise Undecidable("a non-zero number too small for the precision limit")


def compare(a, b):
    """The sign of a − b, exactly. Two Values of different roots are equal only if their annihilators share a
    factor h and both are the same root of h, which an isolation of h's roots shows (`_same_root`); unequal
    numbers are told apart by their balls."""
    if a.root is None or b.root is None or a.root is b.root:
        return (a - b).sign()
    settled = ball_sign(lambda bits: a.ball(bits) - b.ball(bits), SEPARATE_BITS)  # no algebra if balls separate
    if settled is not None:
        return settled
    pa, pb = annihilator(a), annihilator(b)
    h = pa.gcd(pb)
    if x_degree(h) > 0 and _root_of(h, pa, a) and _root_of(h, pb, b) and _same_root(h, a, b):
        return 0
    return ball_sign(lambda bits: a.ball(bits) - b.ball(bits))


def _same_root(h, a, b):
    """Whether a and b, both roots of the squarefree h, are the same root: flint isolates h's complex roots in
    disjoint balls (one root each), and each of a, b is located in the one its ball meets."""
    if x_degree(h) == 1:
        return True
    coefficients = x_coefficients(h)
    bits = START_BITS
    while bits <= MAX_BITS:
        with flint.ctx.workprec(bits):
            arb_coeffs = [a.field.evaluate(coefficients.get(k, ZERO), bits) for k in range(x_degree(h) + 1)]
            try:
                roots = flint.acb_poly(arb_coeffs).roots()
            except ValueError:
                roots = None
            if roots is not None:
                where = [[i for i, r in enumerate(roots) if r.overlaps(flint.acb(v.ball(bits)))] for v in (a, b)]
                if all(len(w) == 1 for w in where):
                    return where[0] == where[1]
        bits *= 2
    raise Undecidable("roots of a common factor not isolated within the precision limit")


def _root_of(h, p, value):
    """Whether value, a root of the squarefree p, is a root of its factor h (p = h·c, h and c coprime)."""
    c = p / h
    bits = START_BITS
    while bits <= MAX_BITS:
        ball = value.ball(bits)
        if not value.field.evaluate(c, bits, ball).contains(0):
            return True
        if not value.field.evaluate(h, bits, ball).contains(0):
            return False
        bits *= 2
    raise Undecidable("a root not separated from its conjugates within the precision limit")


def _sqrt_ball(ball):
    if ball.lower() < 0:  # the number is ≥ 0 (checked): keep [0, upper]
        upper = ball.upper()
        ball = flint.arb(upper / 2, upper / 2)
    return ball.sqrt()


def annihilator(value):
    """A non-zero P(t, x), squarefree in x, with P(t, value) = 0."""
    if value.root is None:
        return value.den * X - value.num
    f, num, den = value.root.poly, value.num, value.den
    if x_degree(num) == 0 and x_degree(den) == 0:
        return den * X - num
    if num == X and den == ONE:
        return f
    _check_size(f, num, den)
    T3, X3, Y3 = CTX3.gens()
    lift = lambda p: p.compose(T3, X3, ctx=CTX3)
    p = lift(f).resultant(Y3 * lift(den) - lift(num), "x")
    if p.is_zero():
        raise Undecidable("a degenerate resultant")
    return squarefree(p.compose(T, ZERO, X, ctx=CTX))


def _joined(a, b, op):
    """a op b for two Values of different roots α, β. A product or quotient of c·α^k and d·β^m (c, d in Q(t)) is
    (c op d)·(α^k op β^m), a monomial in the roots (`_join_of`): the same monomial is one Root however it was reached,
    equal to itself by a polynomial identity (κ = λ₁/λ₂ = (a·j₁²)/(a·j₂²) = (j₁/j₂)² at H = aI + b11ᵀ, α·β = β·α),
    and a monomial of one root is that root's power (κ·λ_min = λ_max), where two resultants would be compared.
    Anything else is `combine`'s."""
    if op in "*/":
        ma, mb = _monomial(a), _monomial(b)
        if ma is not None and mb is not None:
            return ma[0]._binary(mb[0], op) * _join_of(a.root, ma[1], b.root, mb[1], op)
    return combine(a, b, op)


def _monomial(value):
    """(c, k) with value = c·α^k, c in Q(t) and k ≥ 1, α the value's root; None for any other Value."""
    if value.root is None or x_degree(value.den) > 0:
        return None
    powers = x_coefficients(value.num)
    if len(powers) != 1 or min(powers) < 1:
        return None
    ((k, c),) = powers.items()
    return Value(value.field, c, value.den), k


def _join_of(alpha, k, beta, m, op):
    """α^k op β^m (op * or /) as a Value: the product of the powers of the roots that α and β are. One root's power
    is that power, none is 1 (a root with a negative exponent is a divisor's, so not 0). Any other monomial is
    g-th power of a primitive one (g the gcd of its exponents, when g divides k and m), a Root made once per field
    (its annihilator a resultant, made only when a comparison needs it)."""
    sign = 1 if op == "*" else -1
    powers = {root: k * exponent for root, exponent in alpha.powers.items()}
    for root, exponent in beta.powers.items():
        powers[root] = powers.get(root, 0) + sign * m * exponent
    powers = {root: exponent for root, exponent in powers.items() if exponent}
    if len(powers) <= 1:
        ((root, exponent),) = powers.items() if powers else ((None, 0),)
        return Value.of_root(root).power(exponent) if root is not None else Value.rational(alpha.field, 1)
    g = math.gcd(*powers.values())
    g = g if k % g == 0 and m % g == 0 else 1
    key = frozenset((root, exponent // g) for root, exponent in powers.items())
    if key not in alpha.field.joins:
        joined = combine(Value(alpha.field, X ** (k // g), ONE, alpha), Value(beta.field, X ** (m // g), ONE, beta), op)
        joined.root._powers = dict(key)
        alpha.field.joins[key] = joined
    return alpha.field.joins[key].power(g)


def combine(a, b, op):
    """a op b for two Values of different roots: the resultant eliminating both."""
    apply = {"+": lambda u, v: u + v, "-": lambda u, v: u - v, "*": lambda u, v: u * v, "/": lambda u, v: u / v}[op]

    def annihilating():  # only when a comparison needs it (its size limit too): one of the same root never does
        pa, pb = annihilator(a), annihilator(b)
        _check_size(pa, pb)
        T3, U3, Y3 = CTX3.gens()
        A = pa.compose(T3, U3, ctx=CTX3)
        coefficients = x_coefficients(pb)
        d = max(coefficients)
        lift = lambda c: c.compose(T3, U3, ctx=CTX3)  # a coefficient, a polynomial of t
        if op in "+-":
            w = Y3 - U3 if op == "+" else U3 - Y3  # the value of b in terms of u = a and y = a op b
            B = sum((lift(c) * w ** k for k, c in coefficients.items()), CTX3.constant(0))
        elif op == "*":  # b = y/u: u^d · pb(y/u)
            B = sum((lift(c) * Y3 ** k * U3 ** (d - k) for k, c in coefficients.items()), CTX3.constant(0))
        else:  # b = u/y: y^d · pb(u/y)
            B = sum((lift(c) * U3 ** k * Y3 ** (d - k) for k, c in coefficients.items()), CTX3.constant(0))
        p = A.resultant(B, "x")
        if p.is_zero():
            raise Undecidable("a degenerate resultant")
        return squarefree(p.compose(T, ZERO, X, ctx=CTX))

    def enclose(bits):
        with flint.ctx.workprec(bits):
            return apply(a.ball(bits), b.ball(bits))

    return Value(a.field, X, ONE, Root(a.field, None, enclose, annihilating))


def _check_size(*polys):
    """Undecidable when the resultant of these polynomials would be too large to compute quickly: its degree in x
    times its degree in t, about Π deg_x · Σ deg_t · Π deg_x / deg_x."""
    degrees = [max(1, x_degree(p)) for p in polys]
    size = math.prod(degrees) * sum(max(1, t_degree(p)) * math.prod(degrees) // d for p, d in zip(polys, degrees))
    if size > MAX_RESULTANT_SIZE:
        raise Undecidable("a resultant beyond the size limit")
