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

The trees become rational functions through verify.claims.prover.algebraic_ratio (the language's one
fold). The identities themselves and their exact check: verify.claims.prover.algebraic_check; the
search: verify.claims.prover.algebraic_search; LaTeX: verify.claims.prover.algebraic_latex.
"""
from dataclasses import dataclass
from fractions import Fraction

from verify.claims.language.quantities import canonical
from verify.claims.language.semantics import CALL_CONDITION, NONNEG, POSITIVE
from verify.claims.language.syntax import And, BinOp, Call, Compare, ForAll, Index, Item, Name, Neg, Num, walk
from verify.claims.language.text import instantiate
from verify.claims.prover.algebraic_ratio import (MAX_SUBSTITUTION_DEPTH, NotPolynomial, Space, index_ratio, quantity_name,
                                                  to_ratio, to_ratio_defined)
from verify.claims.prover.pieces import check_order, index_at
from verify.claims.prover.smt import instances


# ---------------------------------------------------------------- atoms, hypotheses, goals of a piece


def atoms(tree, piece):
    """The atomic comparisons of a claim part (its conjuncts; a forall at one n, each instance; on the generic
    piece, its body at the symbolic k); None when it has `or` or `not`."""
    if isinstance(tree, Compare):
        return _unfolded(tree)
    if isinstance(tree, And):
        parts = [atoms(p, piece) for p in tree.parts]
        return None if any(p is None for p in parts) else [a for p in parts for a in p]
    if isinstance(tree, ForAll) and piece.n is not None:
        parts = [atoms(instantiate(tree.part, Index(k)), piece) for k in range(tree.lo.at(piece.n), tree.hi.at(piece.n) + 1)]
        return None if any(p is None for p in parts) else [a for p in parts for a in p]
    if isinstance(tree, ForAll) and not isinstance(tree.part, ForAll):
        return atoms(tree.part, piece)
    return None


def k_range(part, piece):
    """The range (lo, hi) of a claim's symbolic k on the generic piece (index keys), else None."""
    if isinstance(part, ForAll) and piece.n is None:
        return index_at(part.lo, piece), index_at(part.hi, piece)
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
        return [Compare(a, op, b)] + _definedness(left.name, a)
    for side, other, is_left in ((left, right, True), (right, left, False)):
        if isinstance(side, Call) and side.name in ("exp", "log") and len(side.args) == 1:
            anchor = {"exp": (ONE_NUM, ZERO), "log": (ZERO, ONE_NUM)}[side.name]
            if other != anchor[0]:
                return None
            a = side.args[0]
            out = [Compare(a, op, anchor[1]) if is_left else Compare(anchor[1], op, a)]
            return out + _definedness(side.name, a)
    return None


def _definedness(name, argument):
    """The condition the one semantics puts on a call's argument (log: > 0), as comparisons; [] where none."""
    condition = CALL_CONDITION.get(name)
    return [] if condition is None else [Compare(argument, {POSITIVE: ">", NONNEG: ">="}[condition], ZERO)]


def _read(tree, piece, items):
    for node in walk(tree):
        node = canonical(node)
        if isinstance(node, Item):
            items.setdefault(node.name, set()).add(index_at(node.index, piece))


SCHEMA_ROUNDS = 4  # as the SMT query: schemas again at the indices other instances add


def fact_atoms(facts, piece, claim_atoms, k_span=None):
    """(label, Compare) of every cited fact's instance at the piece, as the SMT query takes them: plain facts,
    then schemas at every index read (closed under the indices their instances add), then order pairs."""
    items, out, done = {}, [], {f.id: [] for f in facts}
    for atom in claim_atoms:
        _read(atom, piece, items)
    schemas = [f for f in facts if not f.order and isinstance(f.tree, ForAll)]
    _add([f for f in facts if not f.order and not isinstance(f.tree, ForAll)], piece, items, done, out, k_span)
    for _ in range(SCHEMA_ROUNDS):
        if not _add(schemas, piece, items, done, out, k_span):
            break
    _add([f for f in facts if f.order], piece, items, done, out, k_span)
    check_order(items, piece, k_span, schemas)
    return out


def _add(facts, piece, items, done, out, k_span):
    """The facts' instances not yet taken, labelled `<fact id>.i<k>[.<atom>]`; whether there were any."""
    added = False
    for fact in facts:
        fresh = [i for i in instances(fact, items, piece, k_span) if i not in done[fact.id]]
        for instance in fresh:
            done[fact.id].append(instance)
            _read(instance, piece, items)
            parts = atoms(instance, piece) or []
            label = f"{fact.id}.i{len(done[fact.id])}"
            out += [(label + (f".{j}" if len(parts) > 1 else ""), part) for j, part in enumerate(parts, 1)]
            added = True
    return added


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
    claim_atoms, k_span = atoms(part, piece), k_range(part, piece)
    if claim_atoms is None or (k_span is None and piece.n is None and any(isinstance(x, ForAll) for x in walk(part))):
        return None  # a symbolic k only for a claim that is one `forall` on the generic piece
    labelled = fact_atoms(facts, piece, claim_atoms, k_span)
    trees = {}
    for tree in claim_atoms + [c for _, c in labelled]:
        for node in walk(tree):
            name = quantity_name(node, piece)
            if name and name not in trees:
                trees[name] = canonical(node)
    if piece.n is None:
        trees["n"] = Name("n")
    if k_span is not None:
        trees["k"] = Name("k")
    substitutions, used = _substitutions(labelled, piece) if substitute else ({}, [])
    space = Space(piece, set(trees), substitutions, trees)
    try:
        goals = tuple(goal for tree, relation in map(slack, claim_atoms) for goal in _goals(tree, relation, space))
    except NotPolynomial:
        return None
    hypotheses = [Hypothesis("domain", space.var("n").num - space.ring(piece.lo), ">=")] if piece.n is None else []
    if piece.n is None and piece.hi != float("inf"):
        hypotheses.append(Hypothesis("domain.upper", space.ring(int(piece.hi)) - space.var("n").num, ">="))
    if k_span is not None:  # lo ≤ k ≤ hi
        k, (lo, hi) = space.var("k"), (index_ratio(at, space) for at in k_span)
        hypotheses += [Hypothesis("k.lower", (k + -lo).num, ">="), Hypothesis("k.upper", (hi + -k).num, ">=")]
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


def _goals(tree, relation, space):
    """A comparison's slack as a goal, after the goals that make it defined (its definedness conditions)."""
    ratio, conditions = to_ratio_defined(tree, space)
    return [(condition, kind) for kind, condition in conditions] + [(ratio, relation)]


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
