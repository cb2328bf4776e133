"""The differential soundness check shared by tests/test_soundness.py and benchmarks/soundness.py.

Claims come from the whole grammar (division, powers with expression exponents, roots, abs, min,
max, log, exp, sqrt, chains, and/or/not, forall, indexed quantities), leaning to boundaries:
subexpressions that fold to 0, exponents equal to 0, 1, 2, −1, −1/2, bases that vanish. A point
gives every quantity an exact rational (0, ±1, ties and small fractions first). At each point the
balls decide the claim (verify.claims.language.evaluate); the SMT query of the same claim, with its
quantities fixed to the point's values, must then allow what the balls decided:

- the claim fails there (undefined included)  ⇒  `not (defined and claim)` is satisfiable;
- the claim holds there                        ⇒  `defined and claim` is satisfiable;
- the claim is undefined there / holds there   ⇒  `not defined` / `defined` is satisfiable.

Some points hand the balls *wide* balls around their exact values (the undefined value under test: a
condition a ball does not settle makes the value POSSIBLY_UNDEFINED, and what the balls decide must then
hold at every value of the ball, the exact one the SMT query reads included); a quantity read twice is the
same ball (so `x - x` is exactly 0). Claims for every k take ranges that are empty at some n of their
domain (`forall k in 3..n-1` at n = 2, 3): a statement about no k, which holds in both backends.

Z3 answering unsat to any of these is a disagreement. Since the facts are true at every real case,
a claim the prover proves can then fail at no case, and a claim it disproves can hold at none.

The exact route that decides ties (verify.claims.exact) is judged the same way (`judge_exact`): at the same
point, its quantities exact rationals, it decides the claim in exact algebraic numbers, and SMT must allow what
it decided; where the balls decide too, the two must agree.
"""
import itertools
import math
import random
from fractions import Fraction

import flint
from hypothesis import strategies as st

from verify.claims.language.evaluate import decide
from verify.claims.language.balls import Balls
from verify.claims.language.parser import parse_claim
from verify.claims.language.syntax import ForAll
from verify.claims.prover.pieces import NotEncodable, Piece
from verify.claims.prover.smt import Encoder, literal
from verify.base.errors import InputError

PLAIN = ["z_max", "z_min", "j_max", "j_min", "lambda_max", "lambda_min", "kappa", "R", "L_T", "mu_T", "L", "mu", "n"]
ITEMS = ["z(1)", "z(2)", "z(n)", "z(n-1)", "j(1)", "lambda(1)", "lambda(n-1)"]
CONSTANTS = ["0", "1", "2", "-1", "0.5", "0.25", "3", "(2 - 2)", "(1 - 1)", "(1/3)", "pi", "e", "1e-3", "0.0"]
EXPONENTS = ["0", "(1 - 1)", "1", "2", "(2/1)", "-1", "(0 - 1)", "(-1/2)", "(1/2)", "0.5", "(3/2)", "-2", "(1/3)", "3",
             "(0 - 2)", "(4/2)", "(-3/2)",
             # beyond the expansion (verify.claims.prover.beyond): large integers, odd and even, and fine rationals
             "10**10", "(10**10 + 1)", "(-10**10)", "(1/1000)", "(-1/1000)", "(10**10/3)", "17", "(0 - 17)"]
RANGES = ["1..n-1", "1..n-1", "2..n-1", "3..n-1", "n-1..n-1", "2..n-2"]  # some empty at n = 2 or 3
DOMAIN = (2, 4)  # the n range judge's claims are parsed on (points have n in 2..4): a range of k may be empty at n
TRAPS = ["1/(z_max - z_max)", "1/(z(1) - z(2))", "(z_min - z(n))**(-1)", "log(z(2) - z_min)", "sqrt(z(2) - z(1))",
         "1/(j(1) - lambda(1))", "(1/(z(1) - z(2)))**0", "exp(1/(z_max - z_min))"]  # undefined where two values tie
VALUES = [Fraction(0), Fraction(1), Fraction(-1), Fraction(1, 2), Fraction(1, 4), Fraction(2), Fraction(-1, 2),
          Fraction(3817, 10000), Fraction(1, 3), Fraction(3)]


def expressions():
    leaf = st.sampled_from(PLAIN + ITEMS + CONSTANTS + TRAPS)

    def grow(inner):
        pair = st.tuples(inner, inner)
        return st.one_of(
            pair.map(lambda p: f"({p[0]} + {p[1]})"), pair.map(lambda p: f"({p[0]} - {p[1]})"),
            pair.map(lambda p: f"({p[0]} * {p[1]})"), pair.map(lambda p: f"({p[0]} / {p[1]})"),
            st.tuples(inner, st.sampled_from(EXPONENTS)).map(lambda p: f"({p[0]})**{p[1]}"),
            st.tuples(st.sampled_from(["sqrt", "log", "exp", "abs"]), inner).map(lambda p: f"{p[0]}({p[1]})"),
            st.tuples(st.sampled_from(["min", "max"]), st.lists(inner, min_size=2, max_size=3)).map(
                lambda p: f"{p[0]}({', '.join(p[1])})"),
            inner.map(lambda e: f"-{e}"))
    return st.recursive(leaf, grow, max_leaves=5)


def claims():
    """Claim texts of the whole grammar."""
    op = st.sampled_from(["<", "<=", ">", ">=", "=="])
    comparison = st.tuples(expressions(), op, expressions()).map(lambda c: " ".join(c))
    chain = st.tuples(expressions(), op, expressions(), op, expressions()).map(lambda c: " ".join(c))
    indexed = st.sampled_from(["z(k)", "j(k)", "lambda(k)", "z(k+1)", "(z(k) - z(k+1))", "1/(j(k) - z(k+1))"])
    body = st.tuples(indexed, op, st.one_of(expressions(), indexed)).map(lambda c: " ".join(c))
    forall = st.tuples(st.sampled_from(RANGES), body, st.sampled_from(["", " and ", " or "]), body).map(
        lambda c: f"forall k in {c[0]}: {c[1]}" + (f"{c[2]}{c[3]}" if c[2] else ""))
    log_term = st.tuples(st.sampled_from(["", "2 * ", "-1 * ", "(1/2) * ", "3 * "]), expressions()).map(
        lambda p: f"{p[0]}log({p[1]})")
    log_side = st.lists(st.tuples(st.sampled_from([" + ", " - "]), log_term), min_size=1, max_size=3).map(
        lambda terms: "0" + "".join(sign + term for sign, term in terms))
    log_sums = st.tuples(log_side, op, log_side).map(lambda c: " ".join(c))  # stated as products (beyond.as_products)
    logic = st.recursive(st.one_of(comparison, comparison, chain, log_sums), lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["and", "or"]), inner).map(lambda c: f"({c[0]}) {c[1]} ({c[2]})"),
        inner.map(lambda c: f"not ({c})")), max_leaves=3)
    trapped = st.tuples(st.sampled_from(TRAPS), op, expressions()).map(lambda c: " ".join(c))  # the undefined value
    return st.one_of(logic, logic, logic, forall, trapped)  # forall stands only at the top of a claim


class ExactPoint:
    """Every quantity an exact rational drawn (and remembered) by key: balls of exact values, or (a wide
    point) of some of them, balls of radius 1/64 around the exact value; one ball per key."""

    bits = 128

    def __init__(self, n, seed, wide=False):
        self.n, self.random, self.values, self.balls, self.wide = n, random.Random(seed), {}, {}, wide

    def exact(self, name, k=None):
        key = (name, k)
        if key not in self.values:
            draw = self.random.random()
            if draw < 0.25 and self.values:  # a tie with a value already drawn: where the traps are undefined
                self.values[key] = self.random.choice(sorted(self.values.values()))
            else:
                self.values[key] = self.random.choice(VALUES) if draw < 0.8 else \
                    Fraction(self.random.randint(-40, 40), self.random.randint(1, 12))
        return self.values[key]

    def get(self, name, k=None):
        if (name, k) not in self.balls:
            value = self.exact(name, k)
            ball = flint.arb(flint.fmpq(value.numerator, value.denominator))
            if self.wide and self.random.random() < 0.5:
                ball += flint.arb(0, 1 / 64)
            self.balls[(name, k)] = ball
        return self.balls[(name, k)]


def smt_name(variable):
    """(name, k) of the point for an SMT variable of the piece n = const (None for fresh unknowns, n, π, e)."""
    for prefix, series in (("z_", "z"), ("j_", "j"), ("lam_", "lambda")):
        if variable.startswith(prefix) and variable[len(prefix):].isdigit():
            return series, int(variable[len(prefix):])
    return (variable, None) if variable in PLAIN and variable != "n" else None


def queries(tree, n):
    """The formulas of the claim at n: (declarations, definitions, defined, claim) as SMT text."""
    encoder = Encoder(Piece(n=n))
    claim = encoder.formula(tree)
    defined = f"(and true {' '.join(encoder.defined)})"
    definitions = [f for _, f in encoder.definitions] + encoder.function_axioms()
    return encoder, definitions, defined, claim


def satisfiable(encoder, definitions, goal, point):
    """Z3 on the definitions and the goal, each quantity fixed to the point's exact value: False only on unsat."""
    import z3

    lines = [f"(declare-fun {v} () Real)" for v in encoder.variables]
    lines += [f"(declare-fun {f}_ (Real) Real)" for f in ("log", "exp") if encoder.functions.get(f)]
    for variable in encoder.variables:
        key = smt_name(variable)
        if key is not None:
            lines.append(f"(assert (= {variable} {literal(point.exact(*key))}))")
    lines += [f"(assert {d})" for d in definitions] + [f"(assert {goal})"]
    solver = z3.Solver()
    solver.set("ctrl_c", False)
    solver.set("rlimit", 2_000_000)
    solver.from_string("\n".join(lines))
    return solver.check() != z3.unsat


def disagreements(text, n, seed, wide=False):
    """The disagreements of balls and SMT for one claim at one point of n tokens (empty: they agree)."""
    return judge(text, n, seed, wide)[1]


def judge(text, n, seed, wide=False):
    """(what was checked, disagreements): "not a claim" (the parser refuses it on DOMAIN), "undecided" (the balls
    leave it open at the point), "not encodable", or the balls' status (holds / fails / undefined, "vacuous"
    for a statement about no k). A wide point's balls hold the exact values the SMT query reads."""
    try:
        tree = parse_claim(text, DOMAIN)
    except InputError:
        return "not a claim", []
    point = ExactPoint(n, seed, wide)
    with flint.ctx.workprec(point.bits):
        try:
            outcome = decide(tree, point, Balls())
        except InputError:
            return "not a claim", []
    if not outcome.decided:
        return ("wide " if wide else "") + "undecided", []
    try:
        encoder, definitions, defined, claim = queries(tree, n)
    except NotEncodable:
        return "not encodable", []
    found = []
    statement = f"(and {defined} {claim})"
    checks = [(f"(not {statement})", "the claim fails (or is undefined) there, yet SMT says it cannot")
              if not outcome.holds else (statement, "the claim holds there, yet SMT says it cannot"),
              (f"(not {defined})", "the claim is undefined there, yet SMT says it is defined") if outcome.undefined
              else (defined, "the claim is defined there, yet SMT says it is undefined") if outcome.holds
              else None]  # a failing `and` may fail in a defined part while another is undefined
    checks = [check for check in checks if check is not None]
    for goal, problem in checks:
        if not satisfiable(encoder, definitions, goal, point):
            found.append(f"{text} at n = {n}, {dict(point.values)}: {problem}")
    kind = "undefined" if outcome.undefined else "holds" if outcome.holds else "fails"
    if isinstance(tree, ForAll) and tree.lo.at(n) > tree.hi.at(n):
        kind = "vacuous"
    return ("wide " if wide else "") + kind, found


class ExactAt:
    """An ExactPoint's values as exact algebraic numbers (verify.numerics.algebraic), for verify.claims.exact."""

    def __init__(self, point):
        from verify.numerics.algebraic_roots import Field

        self.point, self.n, self.field = point, point.n, Field()

    def rational(self, value):
        from verify.numerics.algebraic import Value

        return Value.rational(self.field, value)

    def item(self, series, k):
        return self.rational(self.point.exact(series, k))

    def name(self, name):
        return self.rational(self.n if name == "n" else self.point.exact(name))


def judge_exact(text, n, seed):
    """(what was checked, disagreements) of the exact route at the point judge(text, n, seed) uses: "not a
    claim", "exact undecided" (log, exp, π, e, a size beyond the limits), or "exact holds" / "exact fails" /
    "exact undefined"; a disagreement with SMT, or with the balls where they decide, is listed."""
    from verify.claims.exact import Undefined, truth
    from verify.numerics.algebraic import Undecidable

    try:
        tree = parse_claim(text, (n, n))
    except InputError:
        return "not a claim", []
    point = ExactPoint(n, seed)
    try:
        holds, undefined = truth(tree, ExactAt(point), []), False
    except Undefined:
        holds, undefined = False, True
    except (Undecidable, InputError):
        return "exact undecided", []
    with flint.ctx.workprec(point.bits):
        outcome = decide(tree, point, Balls())
    found = []
    if outcome.decided and (outcome.holds != holds or (outcome.undefined and not undefined)):
        found.append(f"{text} at n = {n}, {dict(point.values)}: exact {holds} (undefined {undefined}), "
                     f"balls {outcome.status} (undefined {outcome.undefined})")
    try:
        encoder, definitions, defined, claim = queries(tree, n)
    except NotEncodable:
        return "exact not encodable", found
    statement = f"(and {defined} {claim})"
    goal, problem = (statement, "exact arithmetic says the claim holds there, yet SMT says it cannot") if holds else \
        (f"(not {statement})", "exact arithmetic says the claim fails there, yet SMT says it cannot")
    if not satisfiable(encoder, definitions, goal, point):
        found.append(f"{text} at n = {n}, {dict(point.values)}: {problem}")
    if undefined and not satisfiable(encoder, definitions, f"(not {defined})", point):
        found.append(f"{text} at n = {n}, {dict(point.values)}: exact arithmetic says the claim is undefined "
                     "there, yet SMT says it is defined")
    return ("exact undefined" if undefined else "exact holds" if holds else "exact fails"), found


# ---------------------------------------------------------------- the prover against real cases

SIDES = ["z(k)", "z(k+1)", "j(k)", "lambda(k)", "z_max", "z_min", "j_max", "j_min", "lambda_max", "lambda_min",
         "L_T * j(k)**2", "mu_T * j(k)**2", "L_T * z(k)**2", "mu_T * z(k+1)**2", "L_T * z_max**2", "1/n", "0",
         "j(k) * (1 - j(k))", "z(k) - z(k+1)", "sqrt(j(k))", "j(k)**(1 - 1)", "1/(z(k) - z(k+1))"]
FACTORS = ["", "2 * ", "0.5 * ", "(1 - 1) * ", "1.000001 * ", "n * "]


REFLECTED = {"z(k)": "z(n-k)", "z(k+1)": "z(n-k+1)", "j(k)": "j(n-k)", "lambda(k)": "lambda(n-k)"}


def _reflected(side):
    """A side with every k + c index read as n − k + c (the prover reads it by reflection, pieces.oriented)."""
    for plain, mirrored in REFLECTED.items():
        side = side.replace(plain, mirrored.upper())
    return side.replace("Z(", "z(").replace("J(", "j(").replace("LAMBDA(", "lambda(").replace("N-K", "n-k")


def forall_claims():
    """Claims for every k, near the facts (so that many are proved): the prover's every-n encoding under test,
    indexed by k + c or, reflected, by n − k + c."""
    side = st.tuples(st.sampled_from(FACTORS), st.sampled_from(SIDES)).map(lambda p: p[0] + p[1])
    body = st.tuples(side, st.sampled_from(["<", "<=", ">", ">=", "=="]), side).map(lambda c: " ".join(c))
    ranges = ["1..n-1", "2..n-1", "1..n-2", "3..n-1", "4..n-1"]  # 3..n-1 and 4..n-1 are empty at a domain's least n
    plain = st.tuples(st.sampled_from(ranges), body).map(lambda c: f"forall k in {c[0]}: {c[1]}")
    mirrored = st.tuples(st.sampled_from(["1..n-1", "2..n-1", "1..n-2"]), body).map(
        lambda c: f"forall k in {_mirror_range(c[0])}: {_reflected(c[1])}")
    return st.one_of(plain, mirrored)


def _mirror_range(text):
    """The range of k' = n − k for k in the given range, so the reflected body reads the same indices."""
    return {"1..n-1": "1..n-1", "2..n-1": "1..n-2", "1..n-2": "2..n-1"}[text]


def real_cases():
    """Exact cases with ties, uniform z, a top group of three beside tiny rest, isotropic and anisotropic H, n from 2
    to 9."""
    from verify.claims.cases.case import Case

    logits = [[0, 0], [0, -1], [0, 0, 0], [0, -1, -2], [0, 0, -1], [1, 0, 0, 0], [0, -1, -1, -3], [3, 1, 0, 0, -2],
              [0, 0, 0, 0, 0, 0], [2, 1, 0, -1, -2, -3, -4, -5, -6],
              [0, 0, 0, -40], [0, 0, 0, -40, -40], [0, 0, 0, -40, -40, -40]]  # three near 1/3, the rest near 0
    out = []
    for row in logits:
        n = len(row)
        identity = [[int(i == j) for j in range(n)] for i in range(n)]
        ones_plus_diagonal = [[1 + 3 * (i + 1) * int(i == j) for j in range(n)] for i in range(n)]  # 11ᵀ + diag: SPD
        out += [Case.from_arrays(row, identity), Case.from_arrays(row, ones_plus_diagonal)]
    return out + structured_real_cases()


def structured_real_cases():
    """Structured cases (verify.claims.cases.structured) at small n and far beyond the dense ones: uniform and
    two-level z, isotropic and two-level diagonal H."""
    from verify.claims.cases.structured import StructuredCase

    one = Fraction(1)
    shapes = [(3, 1, Fraction(5), ("diagonal", one, Fraction(9))), (7, 3, Fraction(2), ("isotropic", one, Fraction(-1, 14))),
              (200, 200, one, ("isotropic", one, Fraction(0))), (201, 1, Fraction(1000), ("diagonal", Fraction(1000), one)),
              (1001, 500, Fraction(3, 2), ("isotropic", Fraction(2), one))]
    return [StructuredCase(*shape) for shape in shapes]


def prover_disagreements(text, n_range, cases, lemmas=()):
    """Cases at which the balls refute a claim the prover proved (or confirm one it disproved) on n_range;
    `lemmas`: (text, n range) of lemmas a claim file would put before it, each cited only once proved from the facts."""
    from verify.claims.certificates.counterexample import decide_rigorously
    from verify.claims.prover.prove import prove

    try:
        tree = parse_claim(text, n_range)
    except InputError:
        return "not a claim", []
    proof = prove(tree, n_range, "spd", proved_lemmas(lemmas))
    if proof.status not in ("proved", "disproved"):
        return proof.status, []
    found = []
    for case in cases:
        if not n_range[0] <= case.n <= n_range[1]:
            continue
        try:
            outcome, _, _ = decide_rigorously(tree, case, 20, max_bits=1024)
        except InputError:
            continue
        wrong = (not outcome.holds) if proof.status == "proved" else outcome.holds
        if outcome.decided and wrong:
            found.append(f"{text} on n = {n_range}: {proof.status}, yet at {case.inputs()} the balls say "
                         f"{'undefined' if outcome.undefined else outcome.status}")
    return proof.status, found


def proved_lemmas(lemmas):
    """The lemmas (text, n range) the prover proves from the facts, as the Facts a claim file's proved lemmas become."""
    from verify.claims.prover.facts import Fact
    from verify.claims.prover.prove import prove

    out = []
    for number, (text, n_range) in enumerate(lemmas):
        try:
            tree = parse_claim(text, n_range)
        except InputError:
            continue
        if prove(tree, n_range, "spd").status == "proved":
            out.append(Fact(f"lem.{number}", text, "a test", n_range, "spd", tree=tree))
    return tuple(out)


# Lemmas that read fixed indices the claims may not (instances of facts: true wherever their indices exist), and
# claims on other fixed indices and on n − d: the generic piece must keep all their indices in order (issue of a
# lemma on z(3) beside a claim on z(n − 1), from n = 3).
LEMMAS = ["z({a}) <= 1/{a}", "j({a}) <= z({a})", "z({a}) >= z_min", "z(n-{b}) <= 1/(n-{b})", "z({a}) <= z(2)",
          "j(n-{b}) >= z(n-{b}+1)"]
INDEXED_SIDES = ["z({a})", "z({c})", "z(n-{d})", "1/{a}", "j({c})", "z(n-{d}) + z({c})", "1/(n-{d})", "z_min",
                 "1/n", "{a} * z(n-{d})"]


# A bound on z(a) carried to z(n − d), and one on z(n − b) carried to z(c): true only where the generic piece's order of
# the two indices is the true one (z(n − d) after z(a) from n = a + d on), so a proof that misorders them proves a
# claim false at small n.
UPPER = ["z({i}) <= 1/{a}", "{a} * z({i}) <= 1", "j({i}) <= 1/{a}", "z({i}) + z(1) <= 1"]
LOWER = ["(n-{b}-1)*z(1) + ({b}+1)*z({i}) >= 1", "z({i}) >= z_min"]
# A lemma for every k in a range that is empty at small n (true there vacuously), and the bound it gives from n = a on
# claimed from the lemma's least n.
EMPTY = [("forall k in {a}..n: k * z(n) <= 1", "z(n) <= 1/{a}"), ("forall k in {a}..n-1: k >= {a}", "n >= {a} + 1"),
         ("forall k in {a}..n: z(k) <= 1/k", "z(n) <= 1/{a}")]


def carried_claims(a_values=(2, 3, 4, 5), offsets=(0, 1, 2, 3), later=(0, 1)):
    """Every (claim text, its n range, lemmas) that carries a lemma's bound to another index (UPPER: from z(a) to
    z(n − d), from n = a on; LOWER: from z(n − b) to z(c), from n = c on), or from where its range of k is not empty
    to where it is (EMPTY), at the given indices."""
    out = []
    for template, a, d, extra in itertools.product(UPPER, a_values, offsets, later):
        lemma = template.replace("{i}", str(a)).format(a=a)
        claim = template.replace("{i}", f"n-{d}").format(a=a)
        out.append((claim, (max(a, d + 1) + extra, math.inf), ((lemma, (a, math.inf)),)))
    for template, b, c, extra in itertools.product(LOWER, offsets[1:], a_values, later):
        lemma = template.replace("{i}", f"n-{b}").format(b=b)
        claim = template.replace("{i}", str(c)).format(b=b)
        out.append((claim, (max(c, b + 1) + extra, math.inf), ((lemma, (b + 1, math.inf)),)))
    for (lemma, claim), a, lo in itertools.product(EMPTY, a_values, (2, 3)):
        if lo < a:
            out.append((claim.format(a=a), (lo, math.inf), ((lemma.format(a=a), (lo, math.inf)),)))
    return out


def lemma_claims():
    """(claim text, its n range, lemmas (text, n range)): a lemma's bound carried to another index (`carried_claims`),
    or random sides beside random lemmas, with one draw of small constant indices a, c and offsets b, d serving the
    lemmas and the claim alike (a claim on z(n − d) beside a lemma on z(a) is what the generic piece must keep in
    order)."""
    index = st.fixed_dictionaries({"a": st.integers(2, 5), "b": st.integers(1, 3), "c": st.integers(1, 5),
                                   "d": st.integers(0, 3)})

    def drawn(values):
        at, lemmas, sides, op, lo = values
        claim = f"{sides[0].format(**at)} {op} {sides[1].format(**at)}"
        return claim, (lo, math.inf), tuple((text.format(**at), (least, math.inf)) for text, least in lemmas)

    lemma = st.tuples(st.sampled_from(LEMMAS), st.integers(2, 6))
    sides = st.tuples(st.sampled_from(INDEXED_SIDES), st.sampled_from(INDEXED_SIDES))
    random = st.tuples(index, st.lists(lemma, min_size=1, max_size=2), sides, st.sampled_from(["<", "<=", ">", ">="]),
                       st.integers(2, 5)).map(drawn)
    return st.one_of(st.sampled_from(carried_claims()), random)
