"""The polynomial form of a proved piece: what its algebraic certificate may use and must prove.

At one piece of the n range, the cited facts' instances (the same instances the SMT query asserts) are
split into atomic comparisons. An equality whose one side is a bare quantity (κ = λ_max/λ_min, R =
z_max/z_min, L_T = μ_T, …) is a *substitution*: the quantity is replaced by the other side everywhere.
Every other comparison is a *hypothesis* with its slack s ≥ 0 (s > 0 when strict; s = 0 for an
equality), its denominators cleared when they are positive constants or positive in n on the piece.
On the generic piece n ≥ lo, n − lo ≥ 0 is a hypothesis too ("domain"). The claim's atomic
comparisons (its conjuncts; a `forall` at one n, its instances; max, min and abs on one side, exp and
log through their monotonicity, unfolded) are the goals, each a rational function N/D with its
denominator's factors kept apart.

`to_ratio` is the one place a claim-language tree is read as arithmetic here; anything that is not a
rational function of the quantities (sqrt, log, exp, π, a power with a non-integer exponent) is
refused. The identities themselves and their exact check: verify.claims.prover.algebraic_check; the
search: verify.claims.prover.algebraic_search; LaTeX: verify.claims.prover.algebraic_latex.
"""
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
    """A comparison with max, min, abs, exp or log on a side as the comparisons it means: max(a, b) <= c is
    a <= c and b <= c; min(a, b) >= c likewise; abs(x) <= c is x <= c and −x <= c; max(a, b) == a is b <= a,
    min(a, b) == a is a <= b; see `_monotone` for exp and log. Any other use is left as it is (the
    conversion then refuses it)."""
    left, op, right = compare.left, compare.op, compare.right
    if op in (">", ">="):
        left, op, right = right, {">": "<", ">=": "<="}[op], left
    calls = [s for s in (left, right) if isinstance(s, Call)]
    if not calls:
        return [compare]
    if op in ("<", "<="):
        monotone = _monotone(left, op, right)
        if monotone is not None:
            return monotone
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


ZERO, ONE_NUM = Num(Fraction(0)), Num(Fraction(1))


def _monotone(left, op, right):
    """left op right (op < or <=) through a strictly increasing function: exp(a) op exp(b) is a op b;
    log(a) op log(b) is a op b and a > 0 (log must be defined); log compared with 0 is its argument
    compared with 1 (and > 0); exp compared with 1 is its argument compared with 0. None otherwise."""
    unary = [isinstance(s, Call) and s.name in ("exp", "log") and len(s.args) == 1 for s in (left, right)]
    if all(unary) and left.name == right.name:
        a, b = left.args[0], right.args[0]
        return [Compare(a, op, b)] + ([Compare(a, ">", ZERO)] if left.name == "log" else [])
    for side, other, is_left in ((left, right, True), (right, left, False)):
        if isinstance(side, Call) and side.name in ("exp", "log") and len(side.args) == 1:
            anchor = {"exp": (ONE_NUM, ZERO), "log": (ZERO, ONE_NUM)}[side.name]
            if other != anchor[0]:
                return None
            a = side.args[0]
            out = [Compare(a, op, anchor[1]) if is_left else Compare(anchor[1], op, a)]
            return out + ([Compare(a, ">", ZERO)] if side.name == "log" else [])
    return None


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


def setting(part, piece, facts, substitute=True):
    """The Setting of one claim part at one piece from the cited facts, or None when it is not polynomial. With
    substitute=False every cited equality stays a hypothesis (its slack = 0), multiplied by any polynomial."""
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
    substitutions, used = _substitutions(labelled, piece) if substitute else ({}, [])
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
