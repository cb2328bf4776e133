"""A claim and cited facts as one SMT-LIB2 query over the reals, for one piece of the n range.

Quantities become real unknowns (an indexed quantity one unknown per index the query reads; extreme
names are items: z_max is z(1)). Index expressions collide at small n (z(n−1) is z(1) at n = 2), so
the n range is cut into pieces: each small n on its own (indices are integers there), and one
generic piece n ≥ N0 where every index the query reads is distinct and their order is fixed.
Encoding is exact: a quotient is a fresh unknown q with q·divisor = dividend, its divisor ≠ 0 among
the claim's definedness conditions; abs, min, max are if-then-else; sqrt and rational powers are fresh unknowns defined by
polynomial identities; log and exp are uninterpreted functions constrained only by true statements
(monotonicity, log x ≤ x − 1, e^x ≥ 1 + x, log 1 = 0, e^0 = 1); π and e lie between rational bounds.
What cannot be encoded faithfully (a number beyond 10^±1000, a power tower) raises NotEncodable.
The query asserts the facts and `not (defined and claim)`: unsat means the facts imply the claim.
"""
import math
from dataclasses import dataclass
from fractions import Fraction

from verify.claims.language.evaluate import constant, integer_literal
from verify.claims.language.quantities import canonical
from verify.claims.language.syntax import (And, BinOp, Call, Compare, ForAll, Index, IndexValue, Item, Name, Neg, Not,
                                           Num, Or, walk)
from verify.claims.language.text import instantiate

MAX_POWER = 16  # x**k is expanded into k products up to this |k|
MAX_FORALL_PIECES = 16  # a claim for every k is proved at each n of a range of at most this many values
MAX_EXPONENT = 1000  # numbers up to 10^±1000 are encoded exactly
BOUNDS = {"pi": (Fraction(314159265358979, 10**14), Fraction(314159265358980, 10**14)),
          "e": (Fraction(271828182845904, 10**14), Fraction(271828182845905, 10**14))}
RELATIONS = {"<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "="}


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
    """The pieces of n_range: each n below the generic threshold alone, then the generic rest. A claim for
    every k is a finite conjunction at each n, and is proved one n at a time on a bounded range."""
    lo, hi = n_range
    if isinstance(tree, ForAll):
        if hi == math.inf or hi - lo + 1 > MAX_FORALL_PIECES:
            raise NotEncodable(f"a claim for every k is proved one n at a time, on at most {MAX_FORALL_PIECES} values "
                               f"of n; its range is {lo}..{'∞' if hi == math.inf else hi}")
        return [Piece(n=n) for n in range(lo, int(hi) + 1)]
    threshold = generic_threshold(tree)
    out = [Piece(n=n) for n in range(lo, int(min(hi, threshold - 1)) + 1)]
    if hi >= threshold:
        out.append(Piece(lo=max(lo, threshold), hi=hi))
    return out


def generic_threshold(tree):
    """The least n from which every index the claim reads, and the facts add (one step of k + 1, and the
    extremes 1, 2, n − 1, n), keeps its order: each constant index at most each index n − c. Indices may
    coincide there (z(2) is z(n − 1) at n = 3): the generic piece then holds two unknowns for one value,
    and every fact it asserts about them is still true, so a proof there is still a proof."""
    constants, offsets = {1, 2}, {0, -1}
    for node in walk(tree):
        node = canonical(node)
        if isinstance(node, Item):
            if node.index.n_coeff:
                offsets.add(node.index.const)
            else:
                constants |= {node.index.const, node.index.const + 1}
    return max(max(constants) - min(offsets), 2)


# ---------------------------------------------------------------- index arithmetic at a piece


def index_at(index, piece):
    """An index at a piece: an int at one n; a pair (n_coeff, const) on the generic piece (order: lexicographic)."""
    if piece.n is not None:
        return index.at(piece.n)
    return (index.n_coeff, index.const)


def last_index(series, piece):
    from verify.claims.language.quantities import INDEXED

    return index_at(INDEXED[series].last, piece)


def valid(series, key, piece):
    low = 1 if piece.n is not None else (0, 1)
    return low <= key <= last_index(series, piece)


def index_node(key):
    """An Index back from a key (to instantiate a schema at it)."""
    return Index(key) if isinstance(key, int) else Index(key[1], key[0])


def variable(series, key):
    """The SMT name of an indexed quantity's entry: z_1, z_n, z_n_m1, j_2, lam_n_m1."""
    prefix = {"lambda": "lam"}.get(series, series)
    if isinstance(key, int):
        return f"{prefix}_{key}"
    n_coeff, const = key
    if not n_coeff:
        return f"{prefix}_{const}"
    return f"{prefix}_n" + ("" if const == 0 else f"_m{-const}" if const < 0 else f"_p{const}")


# ---------------------------------------------------------------- terms


class Encoder:
    """Builds SMT terms of claim-language trees at one piece, collecting the unknowns, the definedness
    conditions, and the definitions of fresh unknowns (sqrt, rational powers) and function axioms."""

    def __init__(self, piece):
        self.piece = piece
        self.variables = {}  # SMT name -> None
        self.items = {}  # series -> set of keys read
        self.definitions = []  # (name, SMT formula) of fresh unknowns and function axioms
        self.functions = {}  # "log_"/"exp_" -> list of argument terms
        self.defined = []  # conditions under which the current formula is defined
        self.quotients = {}  # (top, bottom) -> its fresh unknown
        self.fresh = 0

    # ------------------------------------------------ formulas
    def formula(self, node):
        if isinstance(node, Compare):
            return f"({RELATIONS[node.op]} {self.term(node.left)} {self.term(node.right)})"
        if isinstance(node, Not):
            return f"(not {self.formula(node.part)})"
        if isinstance(node, (And, Or)):
            word = "and" if isinstance(node, And) else "or"
            return f"({word} {' '.join(self.formula(p) for p in node.parts)})"
        if isinstance(node, ForAll) and self.piece.n is not None:  # at one n: the conjunction over k
            low, high = node.lo.at(self.piece.n), node.hi.at(self.piece.n)
            parts = [self.formula(instantiate(node.part, Index(k))) for k in range(low, high + 1)]
            return f"(and {' '.join(parts)})" if len(parts) > 1 else (parts[0] if parts else "true")
        raise NotEncodable(f"{type(node).__name__} is not a formula")

    # ------------------------------------------------ terms
    def term(self, node):
        node = canonical(node)
        exact = constant(node) if isinstance(node, (Num, BinOp, Neg)) else None
        if exact is not None:
            return literal(exact)
        if isinstance(node, Num):
            raise NotEncodable(f"the number {node.mantissa}e{node.exp10} is beyond 10^±{MAX_EXPONENT}")
        if isinstance(node, Name):
            return self.name(node.id)
        if isinstance(node, Item):
            return self.item(node)
        if isinstance(node, IndexValue):
            return self.integer(index_at(node.index, self.piece))
        if isinstance(node, Neg):
            return f"(- {self.term(node.operand)})"
        if isinstance(node, BinOp):
            return self.binary(node)
        return self.call(node)

    def name(self, name):
        if name == "n":
            return self.integer((1, 0)) if self.piece.n is None else literal(Fraction(self.piece.n))
        if name in BOUNDS:
            low, high = BOUNDS[name]
            self.declare(name)
            self.axiom(f"(and (< {literal(low)} {name}) (< {name} {literal(high)}))")
        else:
            self.declare(name)
        return name

    def integer(self, key):
        if isinstance(key, int):
            return literal(Fraction(key))
        n_coeff, const = key
        self.declare("n")
        term = "n" if n_coeff == 1 else f"(* {literal(Fraction(n_coeff))} n)"
        return term if const == 0 else f"(+ {term} {literal(Fraction(const))})"

    def item(self, node):
        key = index_at(node.index, self.piece)
        if not valid(node.name, key, self.piece):
            raise NotEncodable(f"{node.name}({key}) is out of range at {self.piece.label}")
        self.items.setdefault(node.name, set()).add(key)
        name = variable(node.name, key)
        self.declare(name)
        return name

    def binary(self, node):
        left = self.term(node.left)
        if node.op == "**":
            return self.power(node, left)
        right = self.term(node.right)
        if node.op == "/":
            return self.quotient(left, right)
        return f"({node.op} {left} {right})"

    def quotient(self, top, bottom):
        """top/bottom as a fresh unknown q with q·bottom = top (where bottom ≠ 0, a definedness condition):
        products, not divisions, are what nonlinear arithmetic solvers handle best."""
        if bottom.replace(".", "", 1).isdigit():
            return f"(/ {top} {bottom})"  # a positive literal divisor: linear
        key = ("/", top, bottom)
        if key not in self.quotients:
            q = self.fresh_name("q")
            self.definitions.append((q, f"(=> (not (= {bottom} 0.0)) (= (* {q} {bottom}) {top}))"))
            self.quotients[key] = q
        self.defined.append(f"(not (= {bottom} 0.0))")
        return self.quotients[key]

    def power(self, node, base):
        k = integer_literal(node.right)
        if k is not None and abs(k) <= MAX_POWER:
            if k == 0:
                return "1.0"
            product = base if abs(k) == 1 else f"(* {' '.join([base] * abs(k))})"
            if k > 0:
                return product
            return self.quotient("1.0", product)
        exponent = constant(node.right)
        if exponent is None or exponent.denominator > 4 or abs(exponent.numerator) > MAX_POWER:
            raise NotEncodable("a power whose exponent is not a small rational number")
        return self.root(base, exponent)

    def root(self, base, exponent):
        """base^(p/q) as a fresh unknown y > 0 with y^q = base^p (base > 0; for p > 0, base = 0 gives 0)."""
        p, q = exponent.numerator, exponent.denominator
        y = self.fresh_name("root")
        self.defined.append(f"(> {base} 0.0)" if p < 0 else f"(>= {base} 0.0)")
        lhs = f"(* {' '.join([y] * q)})" if q > 1 else y
        rhs = f"(* {' '.join([base] * abs(p))})" if abs(p) > 1 else base
        equation = f"(= {lhs} {rhs})" if p > 0 else f"(= (* {lhs} {rhs}) 1.0)"
        self.definitions.append((y, f"(=> (>= {base} 0.0) (and (>= {y} 0.0) {equation}))"))
        return y

    def call(self, node):
        args = [self.term(a) for a in node.args]
        if node.name == "abs":
            return f"(ite (>= {args[0]} 0.0) {args[0]} (- {args[0]}))"
        if node.name in ("min", "max"):
            out = args[0]
            for arg in args[1:]:
                keep = "<=" if node.name == "min" else ">="
                out = f"(ite ({keep} {out} {arg}) {out} {arg})"
            return out
        if node.name == "sqrt":
            return self.root(args[0], Fraction(1, 2))
        if node.name == "log":
            self.defined.append(f"(> {args[0]} 0.0)")
        self.functions.setdefault(node.name, [])
        if args[0] not in self.functions[node.name]:
            self.functions[node.name].append(args[0])
        return f"({node.name}_ {args[0]})"

    # ------------------------------------------------ bookkeeping
    def declare(self, name):
        self.variables.setdefault(name, None)

    def fresh_name(self, stem):
        self.fresh += 1
        name = f"{stem}_{self.fresh}"
        self.declare(name)
        return name

    def axiom(self, formula):
        if formula not in [f for _, f in self.definitions]:
            self.definitions.append((None, formula))

    def function_axioms(self):
        """True statements about log and exp at the arguments the query reads (see the module docstring)."""
        out = []
        for x in self.functions.get("log", []):
            out.append(f"(=> (> {x} 0.0) (and (<= (log_ {x}) (- {x} 1.0)) (>= (* {x} (log_ {x})) (- {x} 1.0))))")
            out.append(f"(=> (= {x} 1.0) (= (log_ {x}) 0.0))")
        for x in self.functions.get("exp", []):
            out.append(f"(and (> (exp_ {x}) 0.0) (>= (exp_ {x}) (+ 1.0 {x})) (=> (= {x} 0.0) (= (exp_ {x}) 1.0)))")
        for name, strict in (("log", "(> {a} 0.0) (> {b} 0.0) "), ("exp", "")):
            args = self.functions.get(name, [])
            for i, a in enumerate(args):
                for b in args[i + 1:]:
                    guard = strict.format(a=a, b=b)
                    out.append(f"(=> (and {guard}(< {a} {b})) (< ({name}_ {a}) ({name}_ {b})))")
                    out.append(f"(=> (and {guard}(< {b} {a})) (< ({name}_ {b}) ({name}_ {a})))")
        return out


def literal(value):
    """An exact rational as an SMT-LIB real literal."""
    value = Fraction(value)
    magnitude = abs(value)
    body = f"{magnitude.numerator}.0" if magnitude.denominator == 1 else \
        f"(/ {magnitude.numerator}.0 {magnitude.denominator}.0)"
    return f"(- {body})" if value < 0 else body


def instances(fact, encoder_items, piece):
    """The fact's formulas at this piece: itself, or its schema at the indices read, or its order pairs."""
    tree = fact.tree
    if fact.order:
        keys = sorted(encoder_items.get(fact.order, ()))
        return [Compare(Item(fact.order, index_node(b)), "<=", Item(fact.order, index_node(a)))
                for a, b in zip(keys, keys[1:])]
    if not isinstance(tree, ForAll):
        return [tree]
    keys = {index_at(tree.lo, piece), index_at(tree.hi, piece)} | set(encoder_items.get(fact.pivot, ()))
    low, high = index_at(tree.lo, piece), index_at(tree.hi, piece)
    return [instantiate(tree.part, index_node(k)) for k in sorted(keys) if low <= k <= high]


@dataclass(frozen=True)
class Query:
    """An SMT-LIB2 query and, for each named assertion, the fact it instantiates (None: the claim, a definition)."""

    text: str
    names: dict


def build_query(tree, piece, facts, negate=True):
    """The query of one piece: the facts (in library order, each instance named `<fact id>.i<k>`), the
    definitions of fresh unknowns, and the claim (negated: unsat proves it; not negated: unsat disproves it)."""
    encoder = Encoder(piece)
    claim = encoder.formula(tree)
    defined, encoder.defined = list(encoder.defined), []
    asserted, names = [], {}
    ordered = [f for f in facts if not f.order and not isinstance(f.tree, ForAll)] + \
              [f for f in facts if not f.order and isinstance(f.tree, ForAll)] + [f for f in facts if f.order]
    for fact in ordered:
        for number, instance in enumerate(instances(fact, encoder.items, piece), 1):
            name = f"{fact.id}.i{number}"
            asserted.append((name, encoder.formula(instance)))
            encoder.defined = []  # a fact's divisors (n − 1, z, λ_min) are positive wherever it speaks
            names[name] = fact.id
    statement = f"(and {' '.join(defined)} {claim})" if defined else claim
    asserted.append(("claim", f"(not {statement})" if negate else statement))
    names["claim"] = None
    definitions = [f for _, f in encoder.definitions] + encoder.function_axioms()
    for number, formula in enumerate(definitions, 1):
        asserted.append((f"def.{number}", formula))
        names[f"def.{number}"] = None
    if piece.n is None:
        bound = f"(>= n {literal(Fraction(piece.lo))})" + ("" if piece.hi == math.inf else f" (<= n {literal(Fraction(piece.hi))})")
        encoder.declare("n")
        asserted.insert(0, ("domain", f"(and {bound})"))
        names["domain"] = None
    logic = "QF_UFNRA" if encoder.functions.get("log") or encoder.functions.get("exp") else "QF_NRA"
    lines = ["(set-option :produce-unsat-cores true)", f"(set-logic {logic})"]
    lines += [f"(declare-fun {name} () Real)" for name in encoder.variables]
    lines += [f"(declare-fun {f}_ (Real) Real)" for f in ("log", "exp") if encoder.functions.get(f)]
    lines += [f"(assert (! {formula} :named {name}))" for name, formula in asserted]
    lines += ["(check-sat)"]
    return Query("\n".join(lines) + "\n", names)
