"""Algebraic certificates: a proved piece of a claim as an identity a reader can check by hand.

At one piece of the n range, the cited facts' instances (the same instances the SMT query asserts) are
split into atomic comparisons. An equality whose one side is a bare quantity (κ = λ_max/λ_min, R =
z_max/z_min, L_T = μ_T, …) is a *substitution*: the quantity is replaced by the other side everywhere.
Every other comparison is a *hypothesis* with its slack s ≥ 0 (s > 0 when strict; s = 0 for an
equality), its denominators cleared when they are positive constants or positive in n on the piece.
On the generic piece n ≥ lo, n − lo ≥ 0 is a hypothesis too ("domain").

A *positivity lemma* proves one polynomial p > 0 (a quantity, or a denominator of the claim) by the
identity p = Σ terms with a strictly positive term; lemmas come in order, each using only earlier ones.
The claim's atomic comparisons (its conjuncts; a `forall` at one n, its instances) each become a goal:
its slack, with the substitutions made, is N/D with D a product of factors each proved positive by a
lemma, so the claim holds where N ≥ 0 (N > 0 when strict). The *identity* is N = Σ c·m·Π s_i over
terms (c, [hypotheses i], m): c ≥ 0 rational, m a monomial whose odd powers are of quantities proved
positive (its even powers are squares), and the s_i hypothesis slacks — an equality's term may have
any sign, c·m being its polynomial multiplier. A strict goal needs a term whose c > 0, whose
hypotheses are all strict and whose monomial reads only positive quantities.

`check_algebra` re-derives everything from the claim, the piece and the cited facts, and expands both
sides exactly over QQ: no SMT solver is involved (the search, in algebraic_search, uses an LP).
"""
import re
from dataclasses import dataclass
from fractions import Fraction

from sympy import QQ
from sympy.polys.rings import ring

from verify.claims.language.quantities import canonical
from verify.claims.language.syntax import And, BinOp, Call, Compare, ForAll, Index, IndexValue, Item, Name, Neg, Num, walk
from verify.claims.language.text import instantiate
from verify.claims.prover.smt import index_at, instances, variable

MAX_POWER = 8  # x**k is expanded for |k| up to this
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
    made monic up to sign by its leading coefficient."""
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
    """A claim-language expression as a Ratio over the piece's ring, substitutions made; NotPolynomial
    for anything else. (The one place the language's arithmetic meaning is read here.)"""
    node = canonical(node)
    if isinstance(node, Num):
        value = node.exact(40)
        if value is None:
            raise NotPolynomial("a number beyond 10^±40")
        return space.const(value)
    if isinstance(node, (Name, Item)):
        name = quantity_name(node, space.piece)
        if name is None:
            if isinstance(node, Name) and node.id == "n":
                return space.const(space.piece.n)
            raise NotPolynomial(f"{getattr(node, 'id', node)} is not a polynomial quantity")
        if name in space.substitutions:
            if depth >= MAX_SUBSTITUTION_DEPTH:
                raise NotPolynomial("substitutions nest too deeply")
            return to_ratio(space.substitutions[name], space, depth + 1)
        return space.var(name)
    if isinstance(node, IndexValue):
        at = index_at(node.index, space.piece)
        if isinstance(at, int):
            return space.const(at)
        return space.var("n") * space.const(at[0]) + space.const(at[1])
    if isinstance(node, Neg):
        return -to_ratio(node.operand, space, depth)
    if isinstance(node, BinOp):
        return _binary(node, space, depth)
    raise NotPolynomial(f"{type(node).__name__} is not polynomial")


def _binary(node, space, depth):
    left = to_ratio(node.left, space, depth)
    if node.op == "**":
        exponent = to_ratio(node.right, space, depth)
        if exponent.den or not exponent.num.is_ground or exponent.num.LC.denominator != 1 or \
                abs(int(exponent.num.LC)) > MAX_POWER:
            raise NotPolynomial("a power whose exponent is not a small integer")
        k = int(exponent.num.LC) if exponent.num else 0
        base = left if k >= 0 else left.inverse()
        out = space.const(1)
        for _ in range(abs(k)):
            out = out * base
        return out
    right = to_ratio(node.right, space, depth)
    if node.op == "+":
        return left + right
    if node.op == "-":
        return left + -right
    if node.op == "*":
        return left * right
    return left * right.inverse()


# ---------------------------------------------------------------- atoms, hypotheses, goals of a piece


def atoms(tree, piece):
    """The atomic comparisons of a claim part (its conjuncts; a forall at one n, each instance); None when
    it has `or` or `not`."""
    if isinstance(tree, Compare):
        return _unfolded(tree)
    if isinstance(tree, And):
        parts = [atoms(p, piece) for p in tree.parts]
        return None if any(p is None for p in parts) else [a for p in parts for a in p]
    if isinstance(tree, ForAll) and piece.n is not None:
        parts = [atoms(instantiate(tree.part, Index(k)), piece) for k in range(tree.lo.at(piece.n), tree.hi.at(piece.n) + 1)]
        return None if any(p is None for p in parts) else [a for p in parts for a in p]
    return None


def _unfolded(compare):
    """A comparison with max, min or abs on one side as the comparisons it means: max(a, b) <= c is a <= c and
    b <= c; min(a, b) >= c likewise; abs(x) <= c is x <= c and −x <= c; max(a, b) == a is b <= a, min(a, b) == a
    is a <= b. None for any other use of them (the rest of the tree is left to the conversion)."""
    left, op, right = compare.left, compare.op, compare.right
    if op in (">", ">="):
        left, op, right = right, {">": "<", ">=": "<="}[op], left
    calls = [s for s in (left, right) if isinstance(s, Call)]
    if not calls:
        return [compare]
    if op in ("<", "<=") and isinstance(left, Call) and not isinstance(right, Call):
        if left.name == "max":
            return [Compare(a, op, right) for a in left.args]
        if left.name == "abs":
            return [Compare(left.args[0], op, right), Compare(Neg(left.args[0]), op, right)]
    if op in ("<", "<=") and isinstance(right, Call) and not isinstance(left, Call) and right.name == "min":
        return [Compare(left, op, a) for a in right.args]
    if op == "==" and len(calls) == 1:
        call, other = (left, right) if isinstance(left, Call) else (right, left)
        if call.name in ("max", "min") and other in call.args:
            return [Compare(a, "<=", other) if call.name == "max" else Compare(other, "<=", a) for a in call.args
                    if a != other]
    return [compare]


def _read(tree, piece, items):
    for node in walk(tree):
        node = canonical(node)
        if isinstance(node, Item):
            items.setdefault(node.name, set()).add(index_at(node.index, piece))


def fact_atoms(facts, piece, claim_atoms):
    """(label, Compare) of every cited fact's instance at the piece, in the SMT query's order and naming."""
    items = {}
    for atom in claim_atoms:
        _read(atom, piece, items)
    ordered = [f for f in facts if not f.order and not isinstance(f.tree, ForAll)] + \
              [f for f in facts if not f.order and isinstance(f.tree, ForAll)] + [f for f in facts if f.order]
    out = []
    for fact in ordered:
        for number, instance in enumerate(instances(fact, items, piece), 1):
            _read(instance, piece, items)
            parts = atoms(instance, piece) or []
            for j, part in enumerate(parts, 1):
                out.append((f"{fact.id}.i{number}" + (f".{j}" if len(parts) > 1 else ""), part))
    return out


def slack(compare):
    """(left − right or right − left as a tree, relation): the side that must be ≥ 0, > 0 or = 0."""
    if compare.op in (">=", ">"):
        return BinOp("-", compare.left, compare.right), ">" if compare.op == ">" else ">="
    if compare.op in ("<=", "<"):
        return BinOp("-", compare.right, compare.left), ">" if compare.op == "<" else ">="
    return BinOp("-", compare.left, compare.right), "=="


@dataclass(frozen=True)
class Hypothesis:
    label: str
    poly: object
    relation: str  # ">=", ">" or "=="


@dataclass(frozen=True)
class Setting:
    """What a piece's identities may use: the ring, its substitutions (labels, in order), the hypotheses,
    and the goals (the claim's atoms, each a Ratio and its relation)."""

    space: Space
    substitutions: tuple
    hypotheses: tuple
    goals: tuple


def setting(part, piece, facts):
    """The Setting of one claim part at one piece from the cited facts, or None when it is not polynomial."""
    claim_atoms = atoms(part, piece)
    if claim_atoms is None:
        return None
    labelled = fact_atoms(facts, piece, claim_atoms)
    trees = {}
    for tree in claim_atoms + [c for _, c in labelled]:
        for node in walk(tree):
            name = quantity_name(node, piece)
            if name and name not in trees:
                trees[name] = canonical(node)
    if piece.n is None:
        trees["n"] = Name("n")
    substitutions, used = _substitutions(labelled, piece)
    space = Space(piece, set(trees), substitutions, trees)
    try:
        goals = tuple((to_ratio(tree, space), relation) for tree, relation in map(slack, claim_atoms))
    except NotPolynomial:
        return None
    hypotheses = [Hypothesis("domain", space.var("n").num - space.ring(piece.lo), ">=")] if piece.n is None else []
    if piece.n is None and piece.hi != float("inf"):
        hypotheses.append(Hypothesis("domain.upper", space.ring(int(piece.hi)) - space.var("n").num, ">="))
    for label, compare in labelled:
        if label not in used:
            hypothesis = _hypothesis(label, compare, space)
            if hypothesis is not None and hypothesis.poly:
                hypotheses.append(hypothesis)
    return Setting(space, tuple(used), tuple(hypotheses), goals)


def _substitutions(labelled, piece):
    """Equalities with a bare quantity on one side that the other side does not read (after the earlier
    substitutions): quantity -> tree, and the labels used, in order."""
    out, used = {}, []
    for label, compare in labelled:
        if compare.op != "==":
            continue
        for bare, other in ((compare.left, compare.right), (compare.right, compare.left)):
            name = quantity_name(bare, piece) if isinstance(canonical(bare), (Name, Item)) else None
            if name is None or name in out or name in _reads(other, piece, out):
                continue
            out[name] = other
            used.append(label)
            break
    return out, used


def _reads(tree, piece, substitutions, depth=0):
    found = set()
    for node in walk(tree):
        name = quantity_name(node, piece) if isinstance(canonical(node), (Name, Item)) else None
        if name is not None:
            found.add(name)
            if name in substitutions and depth < MAX_SUBSTITUTION_DEPTH:
                found |= _reads(substitutions[name], piece, substitutions, depth + 1)
    return found


def _hypothesis(label, compare, space):
    """A fact's atom as a Hypothesis: its slack's numerator when every denominator factor is positive on the
    piece without argument (a positive constant, or a n + b with a ≥ 0 and positive at the piece's least n)."""
    tree, relation = slack(compare)
    try:
        ratio = to_ratio(tree, space)
    except NotPolynomial:
        return None
    if relation != "==" and not all(_obviously_positive(f, space) for f, _ in ratio.den):
        return None
    return Hypothesis(label, ratio.num, relation)


def _obviously_positive(factor, space):
    if factor.is_ground:
        return factor.LC > 0
    piece = space.piece
    if piece.n is not None or "n" not in space.gens:
        return False
    n = space.gens["n"]
    a, b = factor.coeff(n), factor.coeff(1)
    return factor == n * a + b and a >= 0 and a * piece.lo + b > 0


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
    for label in term.factors:
        hypothesis = by_label.get(label)
        if hypothesis is None:
            raise ValueError(f"{label!r} is not a hypothesis of this piece")
        poly *= hypothesis.poly
        equalities += hypothesis.relation == "=="
        strict = strict and hypothesis.relation == ">"
    for name, power in term.monomial:
        if name not in space.gens or not isinstance(power, int) or power < 1:
            raise ValueError(f"the monomial reads {name!r}**{power!r}")
        if power % 2 and name not in positive:
            raise ValueError(f"{name} has an odd power but is not proved positive")
        strict = strict and name in positive
        poly *= space.gens[name] ** power
    if equalities > 1 or (not equalities and term.coefficient < 0):
        raise ValueError("a term's coefficient is negative, or it multiplies two equalities")
    return poly, strict and not equalities


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
    found = setting(part, piece, facts)
    if found is None:
        return "the claim is not polynomial at this piece"
    if tuple(algebra.substitutions) != found.substitutions:
        return f"the substitutions are not {list(found.substitutions)}"
    space, by_label = found.space, {h.label: h for h in found.hypotheses}
    targets = lemma_targets(found)
    positive, positive_polys = set(), set()
    for lemma in algebra.lemmas:
        target = targets.get(lemma.polynomial)
        if target is None:
            return f"the positivity lemma's polynomial {lemma.polynomial[:40]!r} is not one of the piece"
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
    if relation == "==":
        return None if not ratio.num else "the equality does not reduce to 0 = 0"
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
    lemmas = tuple(Lemma(_text(l.get("polynomial"), "a lemma's polynomial"), _terms(l.get("multiplier")),
                         _terms(l.get("terms"))) for l in _records(data["positive"], {"polynomial", "multiplier", "terms"}))
    identities = tuple(Identity(_denominators(i["denominators"]), _terms(i["multiplier"]), _text(i["numerator"], "a numerator"),
                                _text(i["relation"], "a relation"), _terms(i["terms"]))
                       for i in _records(data["identities"], {"denominators", "multiplier", "numerator", "relation", "terms"}))
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
    return tuple(_term(t) for t in _records(value, {"coefficient", "factors", "monomial"}))


def _term(record):
    coefficient = _text(record["coefficient"], "a coefficient")
    if not _RATIONAL.fullmatch(coefficient) or len(coefficient) > 200:
        raise ValueError(f"the coefficient {coefficient[:40]!r} is not a rational number p or p/q")
    monomial = record["monomial"]
    if not isinstance(monomial, dict) or not all(isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
                                                 for k, v in monomial.items()):
        raise ValueError("a monomial must be a table of quantity name -> integer power")
    return Term(Fraction(coefficient), _strings(record["factors"], "factors"), tuple(monomial.items()))


_RATIONAL = re.compile(r"-?\d+(/[1-9]\d*)?")


# ---------------------------------------------------------------- LaTeX, through the claim language's printer


def poly_tree(poly, space):
    """A polynomial of the piece's ring as a claim-language tree (Σ c·Π q**k, quantities as they are written)."""
    out = None
    for monom, coeff in sorted(poly.items(), reverse=True):
        value = Fraction(int(coeff.numerator), int(coeff.denominator))
        factors = [_power(space.trees[name], k) for name, k in zip(space.names, monom) if k]
        body = _product(([Num(abs(value))] if abs(value) != 1 or not factors else []) + factors)
        if out is None:
            out = Neg(body) if value < 0 else body
        else:
            out = BinOp("-" if value < 0 else "+", out, body)
    return out if out is not None else Num(Fraction(0))


def _power(tree, k):
    return tree if k == 1 else BinOp("**", tree, Num(Fraction(k)))


def _product(trees):
    out = trees[0]
    for tree in trees[1:]:
        out = BinOp("*", out, tree)
    return out


def term_latex(term, space, by_label):
    """One term: its coefficient and monomial, then each cited slack in parentheses, labelled with its fact."""
    from verify.claims.language.latex import claim_latex

    coefficient = term.coefficient
    parts = [] if coefficient == 1 else [_coefficient_latex(abs(coefficient))]
    parts += [claim_latex(_power(space.trees[name], k)) for name, k in term.monomial]
    for label in term.factors:
        slack_text = claim_latex(poly_tree(by_label[label].poly, space))
        parts.append(rf"\underbrace{{\left({slack_text}\right)}}_{{\text{{{_escaped(label)}}}}}")
    body = r" \, ".join(parts) or "1"
    return ("-" if coefficient < 0 else "") + body


def _coefficient_latex(value):
    return str(value.numerator) if value.denominator == 1 else rf"\frac{{{value.numerator}}}{{{value.denominator}}}"


def _escaped(label):
    return label.replace("_", r"\_")


def _sum_latex(terms, space, by_label):
    out = ""
    for term in terms:
        text = term_latex(term, space, by_label)
        out += text if not out else (f" - {text[1:]}" if text.startswith("-") else f" + {text}")
    return out or "0"


def algebra_latex(algebra, part, piece, facts):
    """The certificate as displayed LaTeX lines (no delimiters): the substitutions made, each positivity lemma
    (multiplier · p = Σ terms > 0) and each identity (multiplier · numerator = Σ terms); None when it does not
    check."""
    if check_algebra(algebra, part, piece, facts) is not None:
        return None
    found = setting(part, piece, facts)
    space, by_label = found.space, {h.label: h for h in found.hypotheses}
    from verify.claims.language.latex import claim_latex

    labelled = dict(fact_atoms(facts, piece, atoms(part, piece)))
    lines = [rf"{claim_latex(labelled[label])} \quad \text{{({_escaped(label)})}}" for label in algebra.substitutions]
    targets = lemma_targets(found)
    for lemma in algebra.lemmas:
        target = claim_latex(poly_tree(targets[lemma.polynomial], space))
        lines.append(rf"{_times(lemma.multiplier, space, by_label)}{target} = {_sum_latex(lemma.terms, space, by_label)} > 0")
    for identity, (ratio, relation) in zip(algebra.identities, found.goals):
        numerator = claim_latex(poly_tree(ratio.num, space))
        sign = {">": ">", ">=": r"\ge", "==": "="}[relation]
        lines.append(rf"{_times(identity.multiplier, space, by_label)}\left({numerator}\right) = "
                     rf"{_sum_latex(identity.terms, space, by_label)} {sign} 0")
    return lines


def _times(multiplier, space, by_label):
    """A multiplier as a left factor: nothing when it is 1."""
    if multiplier == (Term(Fraction(1), (), ()),):
        return ""
    return rf"\left({_sum_latex(multiplier, space, by_label)}\right) "
