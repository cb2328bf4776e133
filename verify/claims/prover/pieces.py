"""The pieces of a claim's n range and index arithmetic on them, for the SMT encoding (verify.claims.prover.smt).

Index expressions collide at small n (z(n−1) is z(1) at n = 2), so the n range is cut into pieces:
each small n on its own (indices are integers there), and one generic piece n ≥ N0 where every
index the query reads is distinct and their order is fixed (a pair (n_coeff, const), ordered
lexicographically), and a claim's symbolic k + c is the key ("k", c).
"""
import math
from dataclasses import dataclass
from fractions import Fraction

from verify.claims.language.quantities import INDEXED, canonical
from verify.claims.language.syntax import And, ForAll, Index, Item, walk
from verify.claims.language.text import index_text, instantiate


MAX_PIECES = 40  # pieces of one claim's n range: each is a query to both solvers and an identity search


class NotEncodable(Exception):
    """The claim cannot be stated exactly in nonlinear real arithmetic (the reason is the message)."""


@dataclass(frozen=True)
class Piece:
    """A part of the n range: one n (`n` an int), or every n in lo..hi (hi may be math.inf) at once."""

    n: int = None
    lo: int = None
    hi: object = None

    @property
    def label(self):
        if self.n is not None:
            return f"n = {self.n}"
        return f"n ≥ {self.lo}" if self.hi == math.inf else f"{self.lo} ≤ n ≤ {self.hi}"

    def as_data(self):
        return {"n": self.n} if self.n is not None else {"n": [self.lo, None if self.hi == math.inf else self.hi]}


def pieces(tree, n_range):
    """The pieces of n_range: each n below the generic threshold alone, then the generic rest (alone too when it is
    one n). A claim for every k is a finite conjunction at each small n, and on the generic piece a statement about
    one symbolic k (see `Encoder.formula`)."""
    lo, hi = n_range
    threshold = generic_threshold(oriented(tree))
    count = max(0, int(min(hi, threshold - 1)) - lo + 1) + (hi >= threshold)
    if count > MAX_PIECES:
        raise NotEncodable(f"its n range cuts into {count} pieces (each n below {threshold} alone, where its indices "
                           f"collide), more than the {MAX_PIECES} a proof takes; narrow n or use indices nearer 1 and n")
    out = [Piece(n=n) for n in range(lo, int(min(hi, threshold - 1)) + 1)]
    if hi >= threshold:  # a rest of one n is that n alone: its indices are integers, and facts of that n apply
        out.append(Piece(n=int(hi)) if max(lo, threshold) == hi else Piece(lo=max(lo, threshold), hi=hi))
    return out


def generic_threshold(tree):
    """The least n from which every index the claim reads, and the facts add (one step of k + 1, and the
    extremes 1, 2, n − 1, n), keeps its order: each constant index at most each index n − c. Indices may
    coincide there (z(2) is z(n − 1) at n = 3): the generic piece then holds two unknowns for one value,
    and every fact it asserts about them is still true, so a proof there is still a proof. A claim's
    symbolic k + c counts by its extremes lo + c and hi + c."""
    constants, offsets = {1, 2}, {0, -1}

    def count(index):
        if index.n_coeff:
            offsets.add(index.const)
        else:
            constants.update({index.const, index.const + 1})

    bounds = (tree.lo, tree.hi) if isinstance(tree, ForAll) else ()
    for bound in bounds:
        count(bound)
    for node in walk(tree):
        node = canonical(node)
        if isinstance(node, Item) and node.index.k_coeff:
            for bound in bounds:
                count(Index(bound.const + node.index.const, bound.n_coeff))
        elif isinstance(node, Item):
            count(node.index)
    return order_threshold({(0, c) for c in constants} | {(1, c) for c in offsets})  # each constant before each n − c


def order_threshold(keys):
    """The least n ≥ 2 from which the generic piece's keys (n_coeff, const), as `index_at` gives them, are in the
    order their pairs are compared in (lexicographic): a·n + c ≤ b·n + d for every key (a, c) before (b, d). The
    order facts and the schemas' ranges are read in that order, so a query is sound on n ≥ lo only when lo is
    at least this (z(3) comes before z(n − 1) only from n = 4: at n = 3, z(n − 1) is z(2))."""
    least = 2
    for (a, c) in keys:
        for (b, d) in keys:
            if a < b and c > d:  # a·n + c ≤ b·n + d needs n ≥ (c − d) / (b − a)
                least = max(least, -((d - c) // (b - a)))
    return least


def check_order(items, piece, k_range=None, schemas=()):
    """NotEncodable unless the indices a query reads on the generic piece ({series: keys}, a symbolic k + c by its
    extremes over `k_range`) and the range ends of the `schemas` (facts for every k) it instantiates keep their order
    on all of it (`order_threshold`): the prover and `check` build every query through this, so no fact is asserted in
    an order that is false at the piece's least n (a lemma on z(3) beside a claim on z(n − 1), from n = 3), and no
    schema at a k its range lacks there (a lemma for every k in 4..n, whose range is empty at n = 3)."""
    if piece.n is not None:
        return
    keys = set(k_range or ())
    keys.update(index_at(bound, piece) for fact in schemas for bound in (fact.tree.lo, fact.tree.hi))
    for key in (key for read in items.values() for key in read):
        keys.update(k_extremes(key, k_range) if symbolic(key) else (key,))
    least = order_threshold(keys)
    if piece.lo < least:
        raise NotEncodable(f"the indices its query reads (and the ranges of its facts for every k) keep their order "
                           f"only from n = {least}, not on all of {piece.label}")


# ---------------------------------------------------------------- index arithmetic at a piece


def index_at(index, piece):
    """An index at a piece: an int at one n; on the generic piece a pair (n_coeff, const) (order:
    lexicographic), or ("k", const) for a claim's symbolic k + const."""
    if piece.n is not None:
        return index.at(piece.n)
    if index.k_coeff:
        if index.k_coeff != 1 or index.n_coeff:
            raise NotEncodable(f"the index {index_text(index)} is not k plus a constant, as a claim for every n needs")
        return ("k", index.const)
    return (index.n_coeff, index.const)


def symbolic(key):
    return isinstance(key, tuple) and key[0] == "k"


def last_index(series, piece):
    return index_at(INDEXED[series].last, piece)


def k_extremes(key, k_range):
    """The least and greatest index k + c takes for k in the claim's range (pairs (n_coeff, const))."""
    (lo_n, lo_c), (hi_n, hi_c) = k_range
    return (lo_n, lo_c + key[1]), (hi_n, hi_c + key[1])


def valid(series, key, piece, k_range=None):
    low = 1 if piece.n is not None else (0, 1)
    if symbolic(key):
        least, greatest = k_extremes(key, k_range)
        return low <= least and greatest <= last_index(series, piece)
    return low <= key <= last_index(series, piece)


def index_node(key):
    """An Index back from a key (to instantiate a schema at it)."""
    if symbolic(key):
        return Index(key[1], 0, 1)
    return Index(key) if isinstance(key, int) else Index(key[1], key[0])


def variable(series, key):
    """The SMT name of an indexed quantity's entry: z_1, z_n, z_n_m1, j_2, lam_n_m1, z_k, z_k_p1."""
    prefix = {"lambda": "lam"}.get(series, series)
    if isinstance(key, int):
        return f"{prefix}_{key}"
    n_coeff, const = key
    if not n_coeff:
        return f"{prefix}_{const}"
    stem = "k" if n_coeff == "k" else "n"
    return f"{prefix}_{stem}" + ("" if const == 0 else f"_m{-const}" if const < 0 else f"_p{const}")


def oriented(tree):
    """A claim for every k whose body reads its series only at n − k + c, read at k' = n − k instead: the same
    statement (at each n, the same instances), now indexed by k' + c as the generic piece's encoding needs
    (forall k in A..B: z(n − k) is forall k in n − B..n − A: z(k)). Any other tree is returned as it is."""
    if not isinstance(tree, ForAll):
        return tree
    moving = [node.index for node in walk(tree.part) if isinstance(node, Item) and node.index.k_coeff]
    if not moving or any(index.k_coeff != -1 or index.n_coeff != 1 for index in moving):
        return tree
    if any(bound.n_coeff not in (0, 1) for bound in (tree.lo, tree.hi)):
        return tree
    lo = Index(-tree.hi.const, 1 - tree.hi.n_coeff)
    hi = Index(-tree.lo.const, 1 - tree.lo.n_coeff)
    return ForAll(lo, hi, instantiate(tree.part, Index(0, 1, -1)))


def literal(value):
    """An exact rational as an SMT-LIB real literal."""
    value = Fraction(value)
    magnitude = abs(value)
    body = f"{magnitude.numerator}.0" if magnitude.denominator == 1 else \
        f"(/ {magnitude.numerator}.0 {magnitude.denominator}.0)"
    return f"(- {body})" if value < 0 else body


def conjuncts(tree):
    """The parts of a claim joined by `and` (a chain a <= b <= c included): each is proved on its own; a claim
    for every k indexed by n − k is read by its reflection (`oriented`)."""
    tree = oriented(tree)
    if isinstance(tree, And):
        return [part for p in tree.parts for part in conjuncts(p)]
    return [tree]
