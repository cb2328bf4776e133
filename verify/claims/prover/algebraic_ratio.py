"""Claim-language expressions as rational functions over one piece's quantities, with their denominators
kept factored (a denominator's sign is argued factor by factor in an algebraic certificate).

`to_ratio` reads a tree through the language's one fold (verify.claims.language.semantics.interpret) in
the number system of `Ratio`s: quantities are the SMT query's unknowns (z_max is z_1, z(n−1) is
z_n_m1), a cited equality's quantity may be substituted by its other side, and what is not a rational
function of the quantities (roots, log, exp, min, max, abs, π, e, a non-constant exponent) is refused
with NotPolynomial.
"""
from dataclasses import dataclass
from fractions import Fraction

from sympy import QQ
from sympy.polys.rings import ring

from verify.claims.language.quantities import canonical
from verify.claims.language.semantics import NONNEG, interpret
from verify.claims.language.syntax import IndexValue, Item, Name
from verify.claims.prover.pieces import index_at, variable

MAX_POWER = 8  # x**k is expanded for |k| up to this
MAX_BITS = 256  # a constant's numerator and denominator in a certificate
MAX_SUBSTITUTION_DEPTH = 8


class NotPolynomial(Exception):
    """The tree is not a rational function of the piece's quantities (sqrt, log, min, π, …)."""


# ---------------------------------------------------------------- rational functions with factored denominators


@dataclass(frozen=True)
class Ratio:
    """num / Π factor**power, the factors kept apart (a denominator's sign is argued factor by factor)."""

    num: object
    den: tuple = ()  # ((factor polynomial, power), ...)

    def _over(self, den):
        """The numerator over a common denominator `den` (a dict factor -> power, containing self.den)."""
        num = self.num
        mine = dict(self.den)
        for factor, power in den.items():
            num = num * factor ** (power - mine.get(factor, 0))
        return num

    def __add__(self, other):
        den = dict(self.den)
        for factor, power in other.den:
            den[factor] = max(den.get(factor, 0), power)
        return Ratio(self._over(den) + other._over(den), _sorted(den))

    def __neg__(self):
        return Ratio(-self.num, self.den)

    def __mul__(self, other):
        den = dict(self.den)
        for factor, power in other.den:
            den[factor] = den.get(factor, 0) + power
        return Ratio(self.num * other.num, _sorted(den))

    def inverse(self):
        if not self.num:
            raise NotPolynomial("a division by zero")
        ring_ = self.num.ring
        num = ring_.one
        for factor, power in self.den:
            num = num * factor ** power
        constant, factors = _split(self.num)
        return Ratio(num * ring_(1 / constant), _sorted(factors))


def _sorted(den):
    return tuple(sorted(((f, p) for f, p in den.items() if p), key=lambda fp: str(fp[0])))


def _split(poly):
    """(constant, {factor: power}): a monomial's constant and its quantities; any other polynomial, whole,
    divided by its leading coefficient (which goes to the constant)."""
    if len(poly) == 1:
        (monom, coeff), = poly.items()
        factors = {}
        for gen, power in zip(poly.ring.gens, monom):
            if power:
                factors[gen] = power
        return coeff, factors
    lead = poly.LC
    return lead, {poly * poly.ring(1 / lead): 1}


# ---------------------------------------------------------------- the one conversion: claim-language tree -> Ratio


class Space:
    """The polynomial ring of one piece: its quantities (named as in the SMT query), the substitutions
    (quantity name -> tree), and the tree of each quantity (to print it)."""

    def __init__(self, piece, names, substitutions=None, trees=None):
        self.piece = piece
        self.names = tuple(sorted(names))
        self.trees = {name: (trees or {}).get(name, Name(name)) for name in self.names}
        self.ring, *gens = ring(self.names or ("n",), QQ)
        self.gens = dict(zip(self.names, gens))
        self.substitutions = dict(substitutions or {})

    def const(self, value):
        value = Fraction(value)
        return Ratio(self.ring(QQ(value.numerator, value.denominator)))

    def var(self, name):
        if name not in self.gens:
            raise NotPolynomial(f"{name} is not a quantity of this piece")
        return Ratio(self.gens[name])


def quantity_name(node, piece):
    """The SMT name of a leaf (z_max → z_1), None for anything that is not a quantity."""
    node = canonical(node)
    if isinstance(node, Item):
        return variable(node.name, index_at(node.index, piece))
    if isinstance(node, Name) and node.id not in ("pi", "e") and not (node.id == "n" and piece.n is not None):
        return node.id
    return None


def to_ratio(node, space, depth=0):
    """A claim-language expression as a Ratio over the piece's ring, substitutions made; NotPolynomial for
    anything else. Read through the language's one fold (verify.claims.language.semantics.interpret), so
    the identity speaks of the claim's own meaning: a division or a negative power becomes a denominator
    factor (which the certificate must prove positive, so the claim is defined); roots, log, exp, min, max,
    abs, π and e are refused."""
    return interpret(node, _RatioAlgebra(space, depth))


def to_ratio_defined(node, space):
    """(Ratio, conditions) of a claim's expression: the conditions are the definedness conditions of the one
    semantics, each (relation, Ratio) to prove ("> 0" for a divisor, a negative power's base or log's argument,
    ">= 0" for a root's): a divisor may cancel in the arithmetic (1/(1/x) is x), its condition may not."""
    algebra = _RatioAlgebra(space, 0)
    ratio = interpret(node, algebra)
    unique = {}
    for kind, value in algebra.conditions:
        unique.setdefault((kind, str(value.num), str(value.den)), (">=" if kind == NONNEG else ">", value))
    return ratio, list(unique.values())


class _RatioAlgebra:
    """The number system of rational functions with factored denominators, for `interpret`; the definedness
    conditions it is asked for are kept in `conditions` (kind, Ratio)."""

    def __init__(self, space, depth):
        self.space, self.depth, self.conditions = space, depth, []

    def exact(self, value):
        if max(value.numerator.bit_length(), value.denominator.bit_length()) > MAX_BITS:
            raise NotPolynomial("a number too large for a certificate")
        return self.space.const(value)

    def number(self, num):
        raise NotPolynomial(f"the number {num.mantissa}e{num.exp10} is beyond exact reach")

    def constant(self, name):
        raise NotPolynomial(f"{name} is not rational")

    def leaf(self, node):
        if isinstance(node, IndexValue):
            return index_ratio(index_at(node.index, self.space.piece), self.space)
        name = quantity_name(node, self.space.piece)
        if name is None:  # n at one n
            return self.space.const(self.space.piece.n)
        if name not in self.space.substitutions:
            return self.space.var(name)
        if self.depth >= MAX_SUBSTITUTION_DEPTH:
            raise NotPolynomial("substitutions nest too deeply")
        return to_ratio(self.space.substitutions[name], self.space, self.depth + 1)

    def neg(self, a):
        return -a

    def arithmetic(self, op, a, b):
        return a + b if op == "+" else a + -b if op == "-" else a * b

    def divide(self, a, b, guard):
        return a * b.inverse()

    def power(self, x, p, guard):
        if p.denominator != 1 or abs(p) > MAX_POWER:
            raise NotPolynomial("a power whose exponent is not a small integer")
        base, out = (x if p >= 0 else x.inverse()), self.space.const(1)
        for _ in range(abs(int(p))):
            out = out * base
        return out

    def exponent_class(self, value, integer_valued):
        return None  # an exponent that is not a constant: refused (unknown)

    def call(self, name, args, guard):
        raise NotPolynomial(f"{name} is not rational")

    def require(self, kind, x):
        self.conditions.append((kind, x))  # a certificate proves x > 0 (≥ 0 for NONNEG): stronger than x ≠ 0
        return True

    def undefined(self):
        raise NotPolynomial("undefined (a division by zero)")

    def unknown(self):
        raise NotPolynomial("not a rational function of the quantities")

    def is_undefined(self, value):
        return False

    def is_open(self, value):
        return False


def index_ratio(at, space):
    """An index key at the piece as a Ratio: an int; n_coeff·n + const; or the claim's symbolic k + const."""
    if isinstance(at, int):
        return space.const(at)
    stem, const = at
    if stem == "k":
        return space.var("k") + space.const(const)
    return space.var("n") * space.const(stem) + space.const(const)
