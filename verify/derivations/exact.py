"""Exact zero tests for the explicit symbolic checks, and an exponential SymPy does not merge.

`sympy.cancel` decides `f ≡ 0` for a rational function but spends most of its time on
multivariate gcds and on rebuilding expressions.  The expressions of D1–D4 and D6 have few,
known denominators (a softmax sum Σ_r e^{s_r}, a logistic 1 + e^{−yŷ}), so `vanishes` reads
the expression once into a polynomial ring of `sympy.polys` with one extra generator per
denominator (standing for its reciprocal), clears the denominators there, and asks whether
one polynomial is zero: exact, with no gcd and no expression rebuilt.
"""
import operator
from functools import reduce

import sympy as sp
from sympy import QQ
from sympy.polys.rings import ring


class Exp(sp.Function):
    """exp(x), with d/dx Exp(x) = Exp(x), which SymPy never combines: Exp(a)·Exp(b) stays a product,
    so each Exp(s_r) of a softmax can be taken as a generator x_r (sp.exp would become exp(a + b))."""

    def fdiff(self, argindex=1):
        return self


class _NotPolynomial(Exception):
    """The expression has a part that is neither a generator nor built from them by + · and integer powers."""


def vanishes(expr):
    """expr ≡ 0 as a rational function of its symbols, each `Exp(·)` taken as an independent generator
    (zero there implies zero at the true exponentials; a false negative is possible, a false positive not).

    With D_1..D_r the bases of its negative powers and t_i standing for 1/D_i, expr = P(x, t) for a
    polynomial P; with m_i the largest power of t_i in P, expr ≡ 0 iff Σ_j P_j(x) Π_i D_i^{m_i − j_i} ≡ 0,
    where P = Σ_j P_j(x) t^j.  Anything else (a nested fraction, a root) falls back to `sympy.cancel`.
    """
    generators = sorted(expr.atoms(Exp) | expr.free_symbols, key=sp.default_sort_key)
    bases = sorted({p.base for p in expr.atoms(sp.Pow) if p.exp.is_Integer and p.exp < 0}, key=sp.default_sort_key)
    R, *gens = ring(generators + [sp.Dummy(f"t{k}") for k in range(len(bases))], QQ)
    reader = _Reader(R, dict(zip(generators, gens)), dict(zip(bases, gens[len(generators):])))
    try:
        polynomial = reader.read(expr)
        denominators = [reader.read(base, reciprocals=False) for base in bases]
    except _NotPolynomial:
        return sp.cancel(sp.together(expr)) == 0
    return not polynomial or not _cleared(R, polynomial, denominators, len(generators))


def _cleared(R, polynomial, denominators, first_reciprocal):
    """Σ_j P_j Π_i D_i^{m_i − j_i}: the polynomial times every denominator to its largest power."""
    parts = {}
    padding = (0,) * len(denominators)
    for monomial, coefficient in polynomial.terms():
        parts.setdefault(monomial[first_reciprocal:], {})[monomial[:first_reciprocal] + padding] = coefficient
    largest = [max(powers[i] for powers in parts) for i in range(len(denominators))]
    total = R.zero
    for powers, terms in parts.items():
        part = R(terms)
        for denominator, most, power in zip(denominators, largest, powers):
            part *= denominator ** (most - power)
        total += part
    return total


class _Reader:
    """An expression as an element of the ring, reading each shared subexpression once."""

    def __init__(self, R, generators, reciprocals):
        self.R, self.generators, self.reciprocals, self.memo = R, generators, reciprocals, {}

    def read(self, expr, reciprocals=True):
        if expr in self.generators:
            return self.generators[expr]
        if (expr, reciprocals) in self.memo:
            return self.memo[expr, reciprocals]
        if expr.is_Add or expr.is_Mul:
            value = reduce(operator.add if expr.is_Add else operator.mul, (self.read(a, reciprocals) for a in expr.args))
        elif expr.is_Pow and expr.exp.is_Integer and expr.exp >= 0:
            value = self.read(expr.base, reciprocals) ** int(expr.exp)
        elif expr.is_Pow and expr.exp.is_Integer and reciprocals:
            value = self.reciprocals[expr.base] ** int(-expr.exp)
        elif expr.is_Rational:
            value = self.R(QQ.convert(expr))
        else:
            raise _NotPolynomial(expr)
        self.memo[expr, reciprocals] = value
        return value
