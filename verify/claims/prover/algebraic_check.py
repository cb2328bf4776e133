"""Algebraic certificates: a proved piece of a claim as an identity a reader can check by hand, and its
exact check.

Over the setting of a piece (verify.claims.prover.algebraic): a *positivity lemma* proves one
polynomial p > 0 (a quantity, a denominator factor of the claim, or its square) by m·p = Σ terms,
lemmas coming in order, each using only earlier ones. Each goal N/D, its denominator's factors proved
positive (under an even power, their squares), holds where N ≥ 0 (N > 0 when strict); its *identity*
is m·N = Σ c·μ·Π s_i over terms (c, [hypotheses i], μ): c ≥ 0 rational, μ a monomial whose odd powers
are of quantities proved positive (its even powers are squares), the s_i cited slacks (at most one
equality, whose term may have any sign: c·μ is its polynomial multiplier). A term is strictly
positive when c > 0, its slacks are all strict and μ reads only positive quantities. The multiplier m
is a sum of such terms with a strictly positive one (for a strict goal, m ≥ 0 and m ≠ 0 is enough:
m·N > 0 then gives N > 0).

`check_algebra` re-derives the setting from the claim, the piece and the cited facts and expands both
sides exactly over QQ: no SMT solver is involved. `algebra_from_data` reads the stored form back.
"""
import re
from dataclasses import dataclass
from fractions import Fraction

from sympy import QQ

from verify.claims.prover.algebraic import setting
from verify.base.printable import shown

MAX_TERM_POWER = 64  # a stored monomial's powers (a certificate is data: it may not ask for x**10**9)
# A certificate is bounded before anything is expanded, so that checking it costs time about linear in its size (an
# identity repeating one slack 100,000 times in a term would otherwise be a polynomial of degree 100,000). The
# search writes terms of at most 2 cited slacks (PAIR_DEPTH) and at most MAX_COLUMNS terms per sum; these bounds
# leave room above that and no more.
MAX_FACTORS = 8  # cited slacks multiplied in one term
MAX_TERM_DEGREE = 48  # a term's total degree: its slacks' degrees plus its monomial's powers
MAX_TERMS = 5000  # terms of one sum (a multiplier or an identity)
MAX_ALGEBRA_TERMS = 50_000  # terms of a piece's whole algebraic certificate


# ---------------------------------------------------------------- identities: terms, data, exact check


@dataclass(frozen=True)
class Term:
    """coefficient · monomial · Π factors' slacks (factors: hypothesis labels; monomial: name -> power)."""

    coefficient: Fraction
    factors: tuple
    monomial: tuple  # ((name, power), ...)

    def as_data(self):
        return {"coefficient": str(self.coefficient), "factors": list(self.factors),
                "monomial": {name: power for name, power in self.monomial}}


@dataclass(frozen=True)
class Lemma:
    """polynomial > 0: multiplier · polynomial = Σ terms, the multiplier (terms too) and the sum each with a
    strictly positive term (a positivity lemma)."""

    polynomial: str
    multiplier: tuple
    terms: tuple


@dataclass(frozen=True)
class Identity:
    """One goal: the cleared denominators (factor text, power); the multiplier (terms with a strictly positive
    one, so it is > 0) by which the numerator is multiplied; the numerator's text, its relation, and the terms
    whose sum is multiplier · numerator."""

    denominators: tuple
    multiplier: tuple
    numerator: str
    relation: str
    terms: tuple


@dataclass(frozen=True)
class Algebra:
    """A piece's algebraic certificate: substitutions (labels), positivity lemmas, one identity per goal."""

    substitutions: tuple
    lemmas: tuple
    identities: tuple

    def as_data(self):
        return {"substitutions": list(self.substitutions),
                "positive": [{"polynomial": l.polynomial, "multiplier": [t.as_data() for t in l.multiplier],
                              "terms": [t.as_data() for t in l.terms]} for l in self.lemmas],
                "identities": [{"denominators": [[f, p] for f, p in i.denominators],
                                "multiplier": [t.as_data() for t in i.multiplier], "numerator": i.numerator,
                                "relation": i.relation, "terms": [t.as_data() for t in i.terms]} for i in self.identities]}


def term_polynomial(term, space, by_label, positive):
    """The term's polynomial and whether it is > 0 wherever the hypotheses hold; ValueError when it is not
    a valid term (an unknown hypothesis or quantity, a negative coefficient on inequalities, an odd power
    of a quantity not proved positive)."""
    poly = space.ring(QQ(term.coefficient.numerator, term.coefficient.denominator))
    strict = term.coefficient > 0
    equalities = 0
    degree = sum(power for _, power in term.monomial if isinstance(power, int))
    for label in term.factors:
        hypothesis = by_label.get(label)
        if hypothesis is None:
            raise ValueError(f"{shown(label, 200)} is not a hypothesis of this piece")
        degree += _degree(hypothesis.poly)
    if degree > MAX_TERM_DEGREE:
        raise ValueError(f"a term has degree {degree}, more than {MAX_TERM_DEGREE}")
    for label in term.factors:
        hypothesis = by_label[label]
        poly *= hypothesis.poly
        equalities += hypothesis.relation == "=="
        strict = strict and hypothesis.relation == ">"
    for name, power in term.monomial:
        if name not in space.gens or not isinstance(power, int) or not 1 <= power <= MAX_TERM_POWER:
            raise ValueError(f"the monomial reads {shown(name, 200)}**{shown(power, 200)}")
        if power % 2 and name not in positive:
            raise ValueError(f"{name} has an odd power but is not proved positive")
        strict = strict and name in positive
        poly *= space.gens[name] ** power
    if equalities > 1 or (not equalities and term.coefficient < 0):
        raise ValueError("a term's coefficient is negative, or it multiplies two equalities")
    return poly, strict and not equalities


def _degree(poly):
    return max((sum(monomial) for monomial in poly.itermonoms()), default=0)


def sums_to(terms, target, space, by_label, positive, strict):
    """None when Σ terms == target exactly (with a strict term when `strict`), else what is wrong."""
    total, any_strict = space.ring.zero, False
    for term in terms:
        try:
            poly, term_strict = term_polynomial(term, space, by_label, positive)
        except ValueError as problem:
            return str(problem)
        total += poly
        any_strict = any_strict or term_strict
    if total != target:
        return "the terms do not add up to it"
    if strict and not any_strict:
        return "no term is strictly positive"
    return None


def multiplier_polynomial(terms, space, by_label, positive, strict_goal=False):
    """The polynomial of a multiplier's terms; ValueError unless it is > 0 (a strict term, the rest ≥ 0) — or,
    for a strict goal, ≥ 0 and not 0: m ≥ 0 and m·p > 0 give p > 0."""
    total, strict = space.ring.zero, False
    for term in terms:
        poly, term_strict = term_polynomial(term, space, by_label, positive)
        if any(by_label[label].relation == "==" for label in term.factors):
            raise ValueError("a multiplier term multiplies an equality")
        total += poly
        strict = strict or term_strict
    if not strict and not (strict_goal and total):
        raise ValueError("no term of the multiplier is strictly positive")
    return total


def poly_text(poly):
    return str(poly.as_expr()) if poly.ring.ngens else str(poly)


def expected_denominators(ratio, positive_polys):
    """The goal's denominator factors as (text, power); ValueError when a factor is not proved positive (or,
    under an even power, its square)."""
    out = []
    for factor, power in ratio.den:
        text = poly_text(factor)
        if not factor.is_ground and text not in positive_polys and \
                not (power % 2 == 0 and poly_text(factor ** 2) in positive_polys):
            raise ValueError(f"the denominator {text} is not proved positive")
        out.append((text, power))
    return tuple(out)


def check_algebra(algebra, part, piece, facts):
    """None when `algebra` (an Algebra) proves the part at the piece from `facts`, else the reason."""
    found = setting(part, piece, facts, substitute=bool(algebra.substitutions))
    if found is None:
        return "the claim is not polynomial at this piece"
    lemma_polynomials = [lemma.polynomial for lemma in algebra.lemmas]
    if len(set(lemma_polynomials)) != len(lemma_polynomials):
        return "a positivity lemma is stated twice"
    if tuple(algebra.substitutions) != found.substitutions:
        return f"the substitutions are not {list(found.substitutions)}"
    space, by_label = found.space, {h.label: h for h in found.hypotheses}
    targets = lemma_targets(found)
    positive, positive_polys = set(), set()
    for lemma in algebra.lemmas:
        target = targets.get(lemma.polynomial)
        if target is None:
            return f"the positivity lemma's polynomial {shown(lemma.polynomial, 40)} is not one of the piece"
        try:
            multiplier = multiplier_polynomial(lemma.multiplier, space, by_label, positive, strict_goal=True)
        except ValueError as problem:
            return f"{lemma.polynomial} > 0: the multiplier: {problem}"
        problem = sums_to(lemma.terms, multiplier * target, space, by_label, positive, strict=True)
        if problem:
            return f"{lemma.polynomial} > 0: {problem}"
        positive_polys.add(lemma.polynomial)
        if lemma.polynomial in space.gens:
            positive.add(lemma.polynomial)
    if len(algebra.identities) != len(found.goals):
        return f"the claim has {len(found.goals)} comparison(s), not {len(algebra.identities)}"
    for number, (identity, (ratio, relation)) in enumerate(zip(algebra.identities, found.goals), 1):
        problem = _identity_problem(identity, ratio, relation, space, by_label, positive, positive_polys)
        if problem:
            return f"comparison {number}: {problem}"
    return None


def lemma_targets(found):
    """What a positivity lemma may speak of, by text: a quantity of the ring, a denominator factor of a goal, or
    the square of one under an even power."""
    out = dict(found.space.gens)
    for ratio, _ in found.goals:
        out.update({poly_text(factor): factor for factor, _ in ratio.den})
        out.update({poly_text(factor ** 2): factor ** 2 for factor, power in ratio.den if power % 2 == 0})
    return out


def _identity_problem(identity, ratio, relation, space, by_label, positive, positive_polys):
    try:
        denominators = expected_denominators(ratio, positive_polys)
    except ValueError as problem:
        return str(problem)
    if tuple(map(tuple, identity.denominators)) != denominators:
        return "the cleared denominators are not the claim's"
    if identity.relation != relation or identity.numerator != poly_text(ratio.num):
        return "the numerator or relation is not the claim's"
    if relation == "==":  # N = Σ multiplier · cited equality
        if any(sum(by_label.get(f) is not None and by_label[f].relation == "==" for f in t.factors) != 1
               for t in identity.terms) or identity.multiplier != (Term(Fraction(1), (), ()),):
            return "an equality's identity is a sum of multiples of cited equalities, its multiplier 1"
        return sums_to(identity.terms, ratio.num, space, by_label, positive, strict=False)
    try:
        multiplier = multiplier_polynomial(identity.multiplier, space, by_label, positive, relation == ">")
    except ValueError as problem:
        return f"the multiplier: {problem}"
    return sums_to(identity.terms, multiplier * ratio.num, space, by_label, positive, strict=relation == ">")


# ---------------------------------------------------------------- the certificate's data form, read back


ALGEBRA_KEYS = {"substitutions", "positive", "identities"}
MAX_TEXT = 2000


def algebra_from_data(data):
    """An Algebra from its stored form (Algebra.as_data); ValueError naming what is malformed."""
    if not isinstance(data, dict) or set(data) != ALGEBRA_KEYS:
        raise ValueError(f"an algebraic certificate is a table of {', '.join(sorted(ALGEBRA_KEYS))}")
    substitutions = _strings(data["substitutions"], "substitutions")
    for key in ("positive", "identities"):
        if isinstance(data[key], list) and len(data[key]) > MAX_TERMS:
            raise ValueError(f"{key} holds {len(data[key]):,} entries, more than {MAX_TERMS}")
    lemmas = tuple(Lemma(_text(l.get("polynomial"), "a lemma's polynomial"), _terms(l.get("multiplier")),
                         _terms(l.get("terms"))) for l in _records(data["positive"], {"polynomial", "multiplier", "terms"}))
    identities = tuple(Identity(_denominators(i["denominators"]), _terms(i["multiplier"]), _text(i["numerator"], "a numerator"),
                                _text(i["relation"], "a relation"), _terms(i["terms"]))
                       for i in _records(data["identities"], {"denominators", "multiplier", "numerator", "relation", "terms"}))
    count = sum(len(l.multiplier) + len(l.terms) for l in lemmas) + sum(len(i.multiplier) + len(i.terms) for i in identities)
    if count > MAX_ALGEBRA_TERMS:
        raise ValueError(f"the algebraic certificate has {count:,} terms, more than {MAX_ALGEBRA_TERMS:,}")
    return Algebra(substitutions, lemmas, identities)


def _records(value, keys):
    if not isinstance(value, list) or not all(isinstance(v, dict) and set(v) == keys for v in value):
        raise ValueError(f"expected a list of tables of {', '.join(sorted(keys))}")
    return value


def _text(value, what):
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise ValueError(f"{what} must be a string of at most {MAX_TEXT} characters")
    return value


def _strings(value, what):
    if not isinstance(value, list):
        raise ValueError(f"{what} must be a list of strings")
    return tuple(_text(v, what) for v in value)


def _denominators(value):
    if not isinstance(value, list) or not all(isinstance(d, list) and len(d) == 2 and isinstance(d[1], int)
                                              and not isinstance(d[1], bool) for d in value):
        raise ValueError("denominators must be a list of [factor, power]")
    return tuple((_text(f, "a denominator"), p) for f, p in value)


def _terms(value):
    if isinstance(value, list) and len(value) > MAX_TERMS:
        raise ValueError(f"a sum of {len(value):,} terms, more than {MAX_TERMS}")
    return tuple(_term(t) for t in _records(value, {"coefficient", "factors", "monomial"}))


def _term(record):
    coefficient = _text(record["coefficient"], "a coefficient")
    if not _RATIONAL.fullmatch(coefficient) or len(coefficient) > 200:
        raise ValueError(f"the coefficient {shown(coefficient, 40)} is not a rational number p or p/q")
    monomial = record["monomial"]
    if not isinstance(monomial, dict) or not all(isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
                                                 for k, v in monomial.items()):
        raise ValueError("a monomial must be a table of quantity name -> integer power")
    factors = record["factors"]
    if isinstance(factors, list) and len(factors) > MAX_FACTORS:
        raise ValueError(f"a term multiplies {len(factors):,} slacks, more than {MAX_FACTORS}")
    if len(monomial) > MAX_FACTORS * 4 or sum(abs(v) for v in monomial.values()) > MAX_TERM_DEGREE:
        raise ValueError(f"a term's monomial has degree above {MAX_TERM_DEGREE}")
    return Term(Fraction(coefficient), _strings(factors, "factors"), tuple(monomial.items()))


_RATIONAL = re.compile(r"-?\d+(/[1-9]\d*)?")
