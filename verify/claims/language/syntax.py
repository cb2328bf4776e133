"""The claim language's syntax tree: small frozen records, exact numbers, nothing evaluated.

A claim is a tree of comparisons joined by and/or/not; each side is an arithmetic expression over
numbers, quantity names (verify.claims.language.quantities), indexed quantities such as z(k), and
the functions sqrt, log, exp, abs, min, max. Trees are plain data: they pickle, hash and compare by
value, and building one computes nothing (`10**10**10` stays a tree). Facts may also quantify over
an index, `ForAll`, which user claims cannot.
"""
from dataclasses import dataclass, replace
from fractions import Fraction


def node(cls):
    """A frozen record whose hash is computed once (trees key the proof cache and the evaluator's memos, and a
    tree's hash is its children's, all the way down). The cached hash stays out of pickles: a string's hash
    differs from one process to the next."""
    cls = dataclass(frozen=True)(cls)
    computed = cls.__hash__

    def __hash__(self):
        cached = self.__dict__.get("_hash")
        if cached is None:
            cached = computed(self)
            object.__setattr__(self, "_hash", cached)
        return cached

    def __getstate__(self):
        return {key: value for key, value in self.__dict__.items() if key != "_hash"}

    cls.__hash__, cls.__getstate__ = __hash__, __getstate__
    return cls


@node
class Num:
    """The exact number mantissa·10^exp10 (the exponent kept apart, so 1e999999999 costs nothing)."""

    mantissa: Fraction
    exp10: int = 0

    def exact(self, max_exponent=4000):
        """The value as a Fraction, or None when |exp10| is beyond `max_exponent` (too big to build)."""
        if abs(self.exp10) > max_exponent:
            return None
        return self.mantissa * Fraction(10) ** self.exp10


@node
class Index:
    """An integer index const + n_coeff·n + k_coeff·k (k only inside a fact's ForAll)."""

    const: int
    n_coeff: int = 0
    k_coeff: int = 0

    def at(self, n, k=None):
        return self.const + self.n_coeff * n + (self.k_coeff * k if self.k_coeff else 0)

    def shifted(self, k_value):
        """The index with k replaced by an Index (instantiating a fact's schema); k_value may itself read a
        claim's k (a schema instantiated at a symbolic index k + c)."""
        return Index(self.const + self.k_coeff * k_value.const, self.n_coeff + self.k_coeff * k_value.n_coeff,
                     self.k_coeff * k_value.k_coeff)


@node
class Name:
    """A quantity name (n, z_max, kappa, …) or a constant (pi, e)."""

    id: str


@node
class Item:
    """An indexed quantity: z(k), j(k) or lambda(k)."""

    name: str
    index: Index


@node
class IndexValue:
    """An index used as a number (facts only: the k of `k*z(k)`), replaced when a schema is instantiated."""

    index: Index


@node
class Call:
    """sqrt, log, exp, abs (one argument) or min, max (two or more)."""

    name: str
    args: tuple


@node
class BinOp:
    """left op right, op one of + - * / **."""

    op: str
    left: object
    right: object


@node
class Neg:
    """−operand."""

    operand: object


@node
class Compare:
    """left op right, op one of < <= > >= ==."""

    left: object
    op: str
    right: object


@node
class And:
    parts: tuple


@node
class Or:
    parts: tuple


@node
class Not:
    part: object


@node
class ForAll:
    """The part holds for every integer k with lo ≤ k ≤ hi (facts only; lo, hi are Index values in n)."""

    lo: Index
    hi: Index
    part: object


def children(node):
    """The sub-trees of a node, in order."""
    if isinstance(node, (BinOp, Compare)):
        return (node.left, node.right)
    if isinstance(node, (Neg,)):
        return (node.operand,)
    if isinstance(node, (Call,)):
        return node.args
    if isinstance(node, (And, Or)):
        return node.parts
    if isinstance(node, (Not, ForAll)):
        return (node.part,)
    return ()


def walk(node):
    """Every node of the tree, parents first."""
    yield node
    for child in children(node):
        yield from walk(child)


def rebuild(node, new_children):
    """The node with its sub-trees replaced (same kind, same fields otherwise)."""
    if isinstance(node, (BinOp, Compare)):
        return replace(node, left=new_children[0], right=new_children[1])
    if isinstance(node, Neg):
        return Neg(new_children[0])
    if isinstance(node, Call):
        return Call(node.name, tuple(new_children))
    if isinstance(node, (And, Or)):
        return type(node)(tuple(new_children))
    if isinstance(node, Not):
        return Not(new_children[0])
    if isinstance(node, ForAll):
        return replace(node, part=new_children[0])
    return node


def transform(node, leaf):
    """The tree with every leaf (Num, Name, Item) mapped through `leaf`, bottom-up."""
    kids = children(node)
    if not kids:
        return leaf(node)
    return rebuild(node, [transform(child, leaf) for child in kids])


def rename(tree, mapping):
    """The tree with names renamed (a reading: L → L_T, mu → mu_T)."""
    return transform(tree, lambda leaf: Name(mapping[leaf.id]) if isinstance(leaf, Name) and leaf.id in mapping else leaf)


def names(tree):
    """Names and indexed-quantity names the tree reads ('z' for z(k)), constants included."""
    found = set()
    for node in walk(tree):
        if isinstance(node, Name):
            found.add(node.id)
        elif isinstance(node, Item):
            found.add(node.name)
    return frozenset(found)


def comparisons(tree):
    """Every Compare of the tree, in order."""
    return [node for node in walk(tree) if isinstance(node, Compare)]
