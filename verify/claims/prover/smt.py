"""A claim and cited facts as one SMT-LIB2 query over the reals, for one piece of the n range.

Quantities become real unknowns (an indexed quantity one unknown per index the query reads; extreme
names are items: z_max is z(1)), at one piece of the n range (verify.claims.prover.pieces).
Terms are the SMT algebra of the one semantics (verify.claims.language.semantics): each definedness
condition the fold asks for joins the claim's conditions and guards the definition of the operation's
fresh unknown, so a definition never constrains a point where its operation is undefined. A quotient
is a fresh q with q·divisor = dividend (where divisor ≠ 0); a rational power a fresh y ≥ 0 with a
polynomial identity; abs, min, max a fresh m bounded by each argument and equal to one; log and exp
uninterpreted functions constrained only by true statements (monotonicity, log x ≤ x − 1,
e^x ≥ 1 + x, log 1 = 0, e^0 = 1); π and e lie between rational bounds. What cannot be encoded
faithfully (a number beyond 10^±1000, a power tower, an exponent that is not a constant) raises
NotEncodable. The query asserts the facts and `not (defined and claim)`, "undefined or failing":
unsat means the facts imply the claim; asserting `defined and claim` instead, unsat disproves it.
"""
import math
from dataclasses import dataclass
from fractions import Fraction

from verify.claims.prover import beyond
from verify.claims.language.semantics import NONNEG, NONZERO, POSITIVE, interpret, judge
from verify.claims.language.syntax import And, Compare, ForAll, IndexValue, Item, Not, Or
from verify.claims.language.text import instantiate
from verify.claims.prover.pieces import (NotEncodable, check_order, index_at, index_node, k_extremes, literal, oriented,
                                         symbolic, valid, variable)

MAX_POWER = 16  # x**k is expanded into k products up to this |k|
MAX_EXPONENT = 1000  # numbers up to 10^±1000 are encoded exactly
BOUNDS = {"pi": (Fraction(314159265358979, 10**14), Fraction(314159265358980, 10**14)),
          "e": (Fraction(271828182845904, 10**14), Fraction(271828182845905, 10**14))}
RELATIONS = {"<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "="}


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
        self.powers = {}  # exponent -> [(base, power)] of the powers beyond the expansion (verify.claims.prover.beyond)
        self.k_range = self.k_guard = None  # a claim for every k on the generic piece: its range, as keys and formula

    # ------------------------------------------------ formulas
    def formula(self, node):
        """The SMT-LIB formula of a claim tree: the one semantics' connectives (`judge`); at one n a forall is the
        conjunction over k, on the generic piece it is `every_k`."""
        if not isinstance(node, (Compare, Not, And, Or, ForAll)):
            raise NotEncodable(f"{type(node).__name__} is not a formula")
        return judge(node, self, self.piece.n)

    def compare(self, node):
        products = beyond.as_products(node, MAX_POWER)
        if products is not None:  # sums of logs: the equivalent comparison of products (where defined)
            return self.products(node.op, *products)
        return f"({RELATIONS[node.op]} {self.term(node.left)} {self.term(node.right)})"

    def negate(self, formula):
        return f"(not {formula})"

    def join(self, parts, every):
        parts, word = list(parts), "and" if every else "or"
        return parts[0] if len(parts) == 1 else f"({word} {' '.join(parts)})"

    def true(self):
        return "true"

    def products(self, op, exponents, arguments):
        """∏ x^e over e > 0 OP ∏ x^−e over e < 0 (see beyond.as_products): every log's argument is defined and
        positive (log's own condition, as the fold asks of each log it meets), and log itself is not needed."""
        terms = {}
        for argument in arguments:
            terms[argument] = self.term(argument)
            self.require(POSITIVE, terms[argument])
        sides = ([], [])
        for argument, e in exponents.items():
            sides[e < 0].extend([terms[argument]] * abs(e))
        left, right = (f"(* {' '.join(s)})" if len(s) > 1 else (s[0] if s else "1.0") for s in sides)
        return f"({RELATIONS[op]} {left} {right})"

    def every_k(self, node):
        """A claim for every k on the generic piece: its body at one symbolic k (an unknown, treated as real:
        a counterexample's integer k satisfies every assertion, so unsat still proves the claim), with
        lo ≤ k ≤ hi; `k_guard` is that range, under which the body and its definedness are claimed."""
        if self.k_range is not None:
            raise NotEncodable("a claim for every k inside another")
        self.k_range = (index_at(node.lo, self.piece), index_at(node.hi, self.piece))
        self.declare("k")
        self.k_guard = f"(and (<= {self.integer(self.k_range[0])} k) (<= k {self.integer(self.k_range[1])}))"
        return judge(node.part, self, self.piece.n)

    # ------------------------------------------------ terms: the algebra of verify.claims.language.semantics
    def term(self, node):
        return interpret(node, self)

    def exact(self, value):
        return literal(value)

    def number(self, num):
        raise NotEncodable(f"the number {num.mantissa}e{num.exp10} is beyond 10^±{MAX_EXPONENT}")

    def constant(self, name):
        low, high = BOUNDS[name]
        self.declare(name)
        self.axiom(f"(and (< {literal(low)} {name}) (< {name} {literal(high)}))")
        return name

    def leaf(self, node):
        if isinstance(node, Item):
            return self.item(node)
        if isinstance(node, IndexValue):
            return self.index_value(node.index)
        if node.id == "n":
            return self.integer((1, 0)) if self.piece.n is None else literal(Fraction(self.piece.n))
        self.declare(node.id)
        return node.id

    def index_value(self, index):
        """The value of an integer expression const + a·n + b·k (k: the claim's symbolic k on the generic piece)."""
        if self.piece.n is not None or not index.k_coeff:
            return self.integer(index_at(index, self.piece))
        if self.k_range is None:
            raise NotEncodable("k outside a claim for every k")
        self.declare("n")
        terms = [f"(* {literal(Fraction(c))} {v})" for c, v in ((index.n_coeff, "n"), (index.k_coeff, "k")) if c]
        return f"(+ {literal(Fraction(index.const))} {' '.join(terms)})"

    def integer(self, key):
        if isinstance(key, int):
            return literal(Fraction(key))
        if symbolic(key):
            return "k" if key[1] == 0 else f"(+ k {literal(Fraction(key[1]))})"
        n_coeff, const = key
        self.declare("n")
        term = "n" if n_coeff == 1 else f"(* {literal(Fraction(n_coeff))} n)"
        return term if const == 0 else f"(+ {term} {literal(Fraction(const))})"

    def item(self, node):
        key = index_at(node.index, self.piece)
        if symbolic(key) and self.k_range is None:
            raise NotEncodable(f"{node.name}(k + {key[1]}) outside a claim for every k")
        if not valid(node.name, key, self.piece, self.k_range):
            raise NotEncodable(f"{node.name}({key}) is out of range at {self.piece.label}")
        self.items.setdefault(node.name, set()).add(key)
        name = variable(node.name, key)
        self.declare(name)
        return name

    def require(self, kind, term):
        """The definedness condition as a formula, among the claim's conditions; it guards the operation's definition."""
        condition = {NONZERO: f"(not (= {term} 0.0))", NONNEG: f"(>= {term} 0.0)", POSITIVE: f"(> {term} 0.0)"}[kind]
        self.defined.append(condition)
        return condition

    def undefined(self):
        """An operation undefined on its exact operand: the claim is undefined everywhere."""
        self.defined.append("false")
        return self.fresh_name("undefined")

    def unknown(self):
        raise NotEncodable("a power whose exponent is not a constant")

    def is_undefined(self, term):
        return False

    def is_open(self, term):
        return False

    def exponent_class(self, term, integer_valued):
        raise NotEncodable("a power whose exponent is not a constant")

    def neg(self, a):
        return f"(- {a})"

    def arithmetic(self, op, a, b):
        return f"({op} {a} {b})"

    def divide(self, top, bottom, guard):
        """top/bottom as a fresh unknown q with q·bottom = top where the guard (bottom ≠ 0) holds: products, not
        divisions, are what nonlinear arithmetic solvers handle best. A nonzero literal divisor is linear."""
        if guard is True:
            return f"(/ {top} {bottom})"
        key = ("/", top, bottom)
        if key not in self.quotients:
            q = self.fresh_name("q")
            self.definitions.append((q, f"(=> {guard} (= (* {q} {bottom}) {top}))"))
            self.quotients[key] = q
        return self.quotients[key]

    def power(self, base, p, guard):
        """base ** p for an exact rational p: a product for an integer (its reciprocal for p < 0), else a root."""
        if abs(p.numerator) > MAX_POWER or p.denominator > 4:
            return beyond.power(self, base, p, guard)
        if p.denominator == 1:
            k = int(p)
            if k == 0:
                return "1.0"
            product = base if abs(k) == 1 else f"(* {' '.join([base] * abs(k))})"
            return product if k > 0 else self.divide("1.0", product, guard)
        return self.root(base, p, guard)

    def root(self, base, exponent, guard):
        """base^(p/q) as a fresh unknown y ≥ 0 with y^q = base^p (y^q·base^|p| = 1 for p < 0), defined where the
        guard holds (base ≥ 0; base > 0 for p < 0): nothing is asserted of y elsewhere."""
        p, q = exponent.numerator, exponent.denominator
        y = self.fresh_name("root")
        lhs = f"(* {' '.join([y] * q)})"
        rhs = f"(* {' '.join([base] * abs(p))})" if abs(p) > 1 else base
        equation = f"(= {lhs} {rhs})" if p > 0 else f"(= (* {lhs} {rhs}) 1.0)"
        body = f"(and (>= {y} 0.0) {equation})"
        self.definitions.append((y, body if guard is True else f"(=> {guard} {body})"))
        return y

    def call(self, name, args, guard):
        if name in ("abs", "min", "max"):
            return self.extreme(name, args)
        self.functions.setdefault(name, [])
        if args[0] not in self.functions[name]:
            self.functions[name].append(args[0])
        return f"({name}_ {args[0]})"

    def extreme(self, name, args):
        """abs, min, max as a fresh unknown m bounded by every argument and equal to one: linear in their number."""
        if name == "abs":
            args = [args[0], f"(- {args[0]})"]
        m = self.fresh_name(name)
        bound = "<=" if name == "min" else ">="
        limits = " ".join(f"({bound} {m} {a})" for a in args)
        choices = " ".join(f"(= {m} {a})" for a in args)
        self.definitions.append((m, f"(and {limits} (or {choices}))"))
        return m

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
        return out + beyond.log_axioms(self.functions.get("log", []))


def instances(fact, encoder_items, piece, k_range=None):
    """The fact's formulas at this piece: itself, or its schema at the indices read (a symbolic k + c where
    the schema's range holds all it takes), or its order pairs."""
    tree = fact.tree
    if fact.order:
        return _order_pairs(fact.order, encoder_items.get(fact.order, ()), k_range)
    if not isinstance(tree, ForAll):
        return [tree]
    low, high = index_at(tree.lo, piece), index_at(tree.hi, piece)
    read = encoder_items.get(fact.pivot, ())
    fixed = {low, high} | {key for key in read if not symbolic(key)}
    out = [instantiate(tree.part, index_node(k)) for k in sorted(fixed) if low <= k <= high]
    for key in sorted((key for key in read if symbolic(key)), key=lambda key: key[1]):
        least, greatest = k_extremes(key, k_range)
        if low <= least and greatest <= high:
            out.append(instantiate(tree.part, index_node(key)))
    return out


def _order_pairs(series, keys, k_range):
    """series(b) ≤ series(a) for each pair of indices a ≤ b the query reads: fixed indices in their order,
    k + c₁ before k + c₂ for c₁ < c₂, and a fixed index against k + c where every k of the range settles it."""
    fixed = sorted(key for key in keys if not symbolic(key))
    moving = sorted((key for key in keys if symbolic(key)), key=lambda key: key[1])
    pairs = list(zip(fixed, fixed[1:])) + list(zip(moving, moving[1:]))
    for key in moving:
        least, greatest = k_extremes(key, k_range)
        pairs += [(f, key) for f in fixed if f <= least] + [(key, f) for f in fixed if greatest <= f and f > least]
    return [Compare(Item(series, index_node(b)), "<=", Item(series, index_node(a))) for a, b in pairs]


SCHEMA_ROUNDS = 4  # schemas are instantiated again at the indices other facts add, up to this many rounds


def _close_schemas(encoder, schemas, piece, asserted, names):
    """Each schema at every index of its series the query reads, the indices other instances add included:
    rounds until no new index appears (at most SCHEMA_ROUNDS; the library's schemas close in two)."""
    done = {fact.id: set() for fact in schemas}
    for _ in range(SCHEMA_ROUNDS):
        added = False
        for fact in schemas:
            fresh = [i for i in instances(fact, encoder.items, piece, encoder.k_range) if i not in done[fact.id]]
            done[fact.id].update(fresh)
            added = added or bool(fresh)
            _assert_fact(encoder, fact, fresh, asserted, names)
        if not added:
            return


def _assert_fact(encoder, fact, trees, asserted, names):
    """The instances as named assertions `<fact id>.i<k>`, numbered on from the fact's earlier ones."""
    number = sum(1 for name in names if name.rsplit(".i", 1)[0] == fact.id)
    for offset, instance in enumerate(trees, 1):
        name = f"{fact.id}.i{number + offset}"
        asserted.append((name, encoder.formula(instance)))
        encoder.defined = []  # a fact's divisors (n − 1, z, λ_min) are positive wherever it speaks
        names[name] = fact.id


@dataclass(frozen=True)
class Query:
    """An SMT-LIB2 query and, for each named assertion, the fact it instantiates (None: the claim, a definition)."""

    text: str
    names: dict


def build_query(tree, piece, facts, negate=True):
    """The query of one piece: the facts (in library order, each instance named `<fact id>.i<k>`), the
    definitions of fresh unknowns, and the claim (negated: unsat proves it; not negated: unsat disproves it)."""
    encoder = Encoder(piece)
    claim = encoder.formula(oriented(tree))
    defined, encoder.defined = list(encoder.defined), []
    asserted, names = [], {}
    plain = [f for f in facts if not f.order and not isinstance(f.tree, ForAll)]
    schemas = [f for f in facts if not f.order and isinstance(f.tree, ForAll)]
    for fact in plain:
        _assert_fact(encoder, fact, [fact.tree], asserted, names)
    _close_schemas(encoder, schemas, piece, asserted, names)
    for fact in [f for f in facts if f.order]:
        _assert_fact(encoder, fact, instances(fact, encoder.items, piece, encoder.k_range), asserted, names)
    check_order(encoder.items, piece, encoder.k_range, schemas)
    statement = f"(and {' '.join(defined)} {claim})" if defined else claim
    if encoder.k_guard:
        statement = f"(=> {encoder.k_guard} {statement})"
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
