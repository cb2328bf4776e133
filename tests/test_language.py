"""The claim language: parsing (never evaluating), its own syntax tree, text and LaTeX printing,
margins in balls, undefined and giant values, strictness, and inert pickling."""
import pickle
import re
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import flint
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.claims.language.evaluate import decide_at
from verify.claims.language.latex import claim_latex
from verify.claims.language.parser import MAX_TEXT, parse_claim, parse_fact
from verify.claims.language.quantities import QUANTITIES
from verify.claims.language.syntax import And, Compare, ForAll, Item, Not, Num, Or, names
from verify.claims.language.text import to_text
from verify.claims.language.values import Point
from verify.base.errors import InputError

ROOT = Path(__file__).resolve().parent.parent


def at(text, n=3, **values):
    """The Outcome of a claim text at given exact values (balls of 200 bits)."""
    return decide_at(parse_claim(text, (n, n)), Point.of(n, **{k: _ball(v) for k, v in values.items()}))


def _ball(v):
    if isinstance(v, tuple):
        return tuple(_ball(x) for x in v)
    return v if isinstance(v, flint.arb) else flint.arb(flint.fmpq(Fraction(v).numerator, Fraction(v).denominator))


# ---------------------------------------------------------------- parsing and printing


@pytest.mark.parametrize("text", [
    "lambda_min >= mu_T * z_min**2",
    "kappa >= (L_T/mu_T) * R**-2",
    "(mu/L) * (z(2)/z(n-1))**2 <= kappa <= (L/mu) * (z(1)/z(n))**2",
    "sqrt(j_max) > log(2) - exp(-1) and abs(-R) < max(1, 2, pi, e) or not (kappa == 1)",
    "min(z_max, z_min, 0.5) < 1e-400 + 3.25 + 1_000",
    "-lambda_max < +lambda_min",
    "z(2*n - n) == z_max",
    "z(3) <= j(2) <= z(2) and lambda(2) <= lambda(1)",
    "n >= 2",
])
def test_every_feature_parses_prints_and_round_trips(text):
    tree = parse_claim(text, (3, 10))
    assert isinstance(tree, (Compare, And, Or, Not))
    assert parse_claim(to_text(tree), (3, 10)) == tree
    assert claim_latex(tree)


def test_latex_comes_from_the_printer_with_claim_names():
    tex = claim_latex(parse_claim("lambda_min <= mu_T * z(2)**2 and kappa >= (L_T/mu_T) * z(n-1) and j(2) < lambda(1)",
                                  (3, 10)))
    for piece in (r"\lambda_{\min}", r"\mu_T", "z_{(2)}", "z_{(n-1)}", r"\kappa", r"\le", r"\land", "j_{2}", r"\lambda_{1}",
                  r"\frac{L_T}{\mu_T}"):
        assert piece in tex
    assert claim_latex(parse_claim("1e-400 < z_min")) == r"10^{-400} < z_{\min}"
    assert claim_latex(parse_claim("(z(2)/z(3))**2 < 1", (3, 3))) == r"\left(\frac{z_{(2)}}{z_{(3)}}\right)^{2} < 1"


def test_chains_and_logic_build_the_tree():
    chain = parse_claim("1 <= kappa < 2")
    assert isinstance(chain, And) and [p.op for p in chain.parts] == ["<=", "<"]
    assert to_text(chain) == "1 <= kappa < 2"
    assert isinstance(parse_claim("not kappa > 1 or R < 2"), Or)
    assert names(parse_claim("kappa > z(1) * pi")) == {"kappa", "z", "pi"}


def test_numbers_are_exact_from_their_text():
    assert parse_claim("z_min > 0.1").right == Num(Fraction(1, 10))
    assert parse_claim("z_min > 1_000").right == Num(Fraction(1000))
    assert parse_claim("z_min > 1e-400").right == Num(Fraction(1), -400)  # the float literal is 0.0; this is not
    assert at("1e-400 > 0").holds and at("1e-400 == 10**-400").holds


def test_lambda_k_is_a_quantity_although_lambda_is_a_keyword():
    tree = parse_claim("lambda(1) >= lambda(n - 1)", (3, 5))
    assert tree.left == Item("lambda", tree.left.index) and "lambda" in names(tree)


BAD = [
    ("lamda_min > 0", "lamda_min", "lambda_min"),
    ("kapa < 2", "kapa", "kappa"),
    ("kappa", "kappa", "comparison"),
    ("kappa + 1", "kappa + 1", "comparison"),
    ("z(0) < 1", "z(0)", "1 and n"),
    ("z(n+1) < 1", "z(n+1)", "1 and n"),
    ("j(n) < 1", "j(n)", "1 and n - 1"),
    ("lambda > 1", "lambda", "lambda(1)"),
    ("z(1.5) < 1", "1.5", "integer"),
    ("z(0x1) < 1", "0x1", "decimal"),
    ("z(n*n) < 1", "n*n", "linear"),
    ("z < 1", "z", "z(1)"),
    ("sqrt(1, 2) < 1", "sqrt(1, 2)", "argument"),
    ("kappa != 1", "kappa != 1", "not (a == b)"),
    ("kappa // 2 > 1", "kappa // 2", "+ - * /"),
    ("kappa >", "kappa >", "syntax"),
    ("True > 0", "True", "number"),
    ("0x10 > 1", "0x10", "decimal"),
    ("2j > 1", "2j", "number"),
    ("(kappa > 1) + 1 > 0", "kappa > 1", "comparison"),
    ("z_min > -١", "١", "ASCII"),
]


@pytest.mark.parametrize("text, offending, fix", BAD)
def test_bad_expressions_name_the_text_and_the_fix(text, offending, fix):
    with pytest.raises(InputError) as info:
        parse_claim(text)
    message = str(info.value)
    assert "\n" not in message and offending in message and fix in message


@pytest.mark.parametrize("text", [
    "__import__('os').system('ls')", "().__class__", "[x for x in y]", "lambda: 1", '"s"', "a[0]", "f(x=1)",
    "max(x=1, y=2) > 0", "max(*[1, 2]) > 0", "kappa.real > 0", "(1, 2) > (0, 1)", "{1: 2}", "kappa if R else 1",
    "(y := 2) > 1", "open('x') > 0", "sqrt(x=2) > 0", "__builtins__ > 0", "kappa\n>",
])
def test_forbidden_constructs_are_refused_in_one_line(text):
    with pytest.raises(InputError) as info:
        parse_claim(text)
    assert "\n" not in str(info.value)


def test_length_and_size_bounds():
    with pytest.raises(InputError, match="characters"):
        parse_claim("kappa > " + "1 + " * MAX_TEXT + "1")
    with pytest.raises(InputError, match="nested|syntax nodes"):
        parse_claim("kappa > " + "(" * 60 + "1" + ")" * 60 + " + " + "sqrt(" * 45 + "1" + ")" * 45)


def test_package_never_evaluates_user_text():
    forbidden = re.compile(r"(?<![.\w])(eval|exec|compile|S)\(|sympify|parse_expr")
    sources = list((ROOT / "verify").rglob("*.py"))
    for path in sources:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            assert not forbidden.search(code), f"{path.name}:{number}: {line.strip()}"


def test_reading_a_claim_does_not_import_sympy():
    code = ("import sys, verify; from verify.claims.claimfile import parse_claims_text; "
            "parse_claims_text('[[claim]]\\nid = \"a\"\\nholds = \"kappa >= R**2 and z(2) <= j(1)\"'); "
            "print('sympy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


def test_trees_pickle_inert_and_fast():
    """A claim crosses process boundaries as our own tree: unpickling a power tower computes nothing."""
    tree = parse_claim("kappa <= 10**10**10**10 and 9**9**9**9 > 1")
    start = time.perf_counter()
    assert pickle.loads(pickle.dumps(tree)) == tree
    assert time.perf_counter() - start < 0.5


def test_facts_quantify_over_an_index():
    fact = parse_fact("forall k in 1..n-1: z(k+1) <= j(k) <= z(k)")
    assert isinstance(fact, ForAll) and to_text(fact) == "forall k in 1..n - 1: z(k + 1) <= j(k) <= z(k)"
    point = dict(z=("0.5", "0.3", "0.2"), j=("0.4", "0.25"))
    assert decide_at(fact, Point.of(3, **{k: _ball(v) for k, v in point.items()})).holds
    bad = dict(z=("0.5", "0.3", "0.2"), j=("0.4", "0.35"))
    assert not decide_at(fact, Point.of(3, **{k: _ball(v) for k, v in bad.items()})).holds


# ---------------------------------------------------------------- margins and outcomes


def test_strict_and_non_strict_at_equality():
    for text, holds in (("kappa >= R", True), ("kappa <= R", True), ("kappa > R", False), ("kappa < R", False),
                        ("kappa == R", True), ("not (kappa == R)", False), ("not (kappa < R)", True),
                        ("not (kappa <= R)", False), ("1 < 1", False), ("1 <= 1", True)):
        outcome = at(text, kappa=2, R=2)
        assert outcome.decided and outcome.holds == holds, text


def test_the_same_quantity_is_exactly_equal_to_itself():
    for text in ("kappa > kappa", "z(1) < z(1)", "z_max < z(1)", "lambda_min < lambda(n-1)"):
        outcome = at(text, kappa=flint.arb(2, 1e-30), z=("0.5", "0.3", "0.2"), lambda_min=flint.arb(1, 1e-9))
        assert outcome.decided and not outcome.holds, text


def test_and_or_not_take_min_max_and_negation():
    values = dict(kappa=4, R=2, L=1)
    k_over_r, r_over_l = at("kappa >= R", **values).margin, at("R >= L", **values).margin
    both, either = at("kappa >= R and R >= L", **values), at("kappa <= R or R >= L", **values)
    negated = at("not kappa >= R", **values)
    assert both.margin.overlaps(k_over_r.min(r_over_l)) and both.holds
    assert either.margin.overlaps(r_over_l) and either.holds
    assert negated.margin.overlaps(-k_over_r) and not negated.holds


def test_margin_is_log_ratio_for_positive_sides_and_scaled_difference_otherwise():
    values = dict(kappa=4, R=2)
    assert at("kappa >= R", **values).margin.overlaps(flint.arb(2).log())
    assert at("kappa <= R", **values).margin.overlaps(-flint.arb(2).log())
    assert at("-kappa >= -R", **values).margin.overlaps(flint.arb("-0.5"))
    assert at("kappa - R == 0", **values).margin.overlaps(flint.arb(-1))


def test_equality_refuted_only_when_rigorously_apart():
    assert not at("kappa == R", kappa=1, R=Fraction(1) + Fraction(1, 10**40)).holds  # exact inputs: apart
    near = at("kappa == R", kappa=1, R=flint.arb(1, 1e-20))
    assert not near.decided and near.status == "tight"


@pytest.mark.parametrize("text", ["sqrt(-1) <= kappa", "log(0) <= kappa", "1/(n-n) <= kappa", "0**-1 < kappa",
                                  "(-2)**0.5 < kappa", "not (log(0) <= kappa)", "kappa < 1 or log(-R) > 0"])
def test_an_undefined_value_makes_the_claim_fail_decidedly(text):
    outcome = at(text, kappa=2, R=3)
    assert outcome.undefined and outcome.decided and not outcome.holds and outcome.status == "fails"


@pytest.mark.parametrize("text, holds", [("9**9**9**9 <= kappa", False), ("kappa <= 10**10**10**10", True),
                                         ("kappa >= 10**-10**10**10", True), ("1e999999999 > 1", True),
                                         ("kappa * 10**10**10 > 10**10**10", True), ("2**-10**9 < 1", True)])
def test_giant_numbers_are_decided_quickly_and_rightly(text, holds):
    start = time.perf_counter()
    outcome = at(text, kappa=flint.arb(10) ** 600)
    assert outcome.decided and outcome.holds == holds
    assert time.perf_counter() - start < 2.0


def test_a_quantity_the_balls_could_not_enclose_is_undecided_never_a_verdict():
    outcome = at("kappa > 1", kappa=flint.arb("nan"))
    assert not outcome.decided and outcome.status == "undecided"


LEAVES = st.sampled_from(["kappa", "R", "z_min", "n", "0", "2.5", "1e-400", "pi", "z(1)", "z(n)", "-1",
                          "10**10**10", "(2**-10**9)", "1e999999999", "10**10**10**10", "j(1)", "lambda(2)"])
EXPRESSIONS = st.recursive(LEAVES, lambda inner: st.one_of(
    st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "**"]), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
    st.tuples(st.sampled_from(["sqrt", "log", "exp", "abs"]), inner).map(lambda t: f"{t[0]}({t[1]})"),
    st.tuples(st.sampled_from(["min", "max"]), inner, inner).map(lambda t: f"{t[0]}({t[1]}, {t[2]})"),
), max_leaves=8)


@settings(max_examples=60, deadline=5000)
@given(EXPRESSIONS, st.sampled_from(["<", "<=", ">", ">=", "=="]), EXPRESSIONS)
def test_random_claims_print_and_evaluate_quickly(lhs, op, rhs):
    """Giant powers, logs of 0 and values far outside float64's range: no hang, no stray exception."""
    tree = parse_claim(f"{lhs} {op} {rhs}", (3, 3))
    assert parse_claim(to_text(tree), (3, 3)) == tree
    claim_latex(tree)
    values = dict(kappa=flint.arb(10) ** 500, R=3, z=(flint.arb("0.5"), flint.arb("0.3"), flint.arb(10) ** -320),
                  j=("0.4", "0.2"), lam=("2", "1"), lambda_max=2, lambda_min=1)
    decide_at(tree, Point.of(3, **{k: _ball(v) for k, v in values.items()}))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="kapRz_min()[]{}+-*/<=>.,e0123456789 ntol'\"\\:@!lbdj", max_size=40))
def test_junk_text_is_refused_with_input_error_only(text):
    try:
        parse_claim(text)
    except InputError as error:
        assert "\n" not in str(error)


@pytest.mark.parametrize("text, where", [("kappa >=", "at its end"), ("kappa >= )1", "column 10")])
def test_a_syntax_error_says_where(text, where):
    with pytest.raises(InputError, match=where):
        parse_claim(text, (2, 10))


@pytest.mark.parametrize("text, wrong, suggestion", [
    ("ln(R) >= 0", "'ln(R)'", "did you mean 'log'?"),
    ("R^2 >= 1", "BitXor", "did you mean '**'?"),
    ("R = 2", "not valid syntax", "did you mean '=='?"),
    ("kappa <= 2 and R = 3", "not valid syntax", "did you mean '=='?"),
])
def test_other_languages_spellings_get_a_did_you_mean(text, wrong, suggestion):
    from verify.claims.language.parser import parse_claim

    with pytest.raises(InputError) as error:
        parse_claim(text)
    message = str(error.value)
    assert "\n" not in message and repr(text) in message and wrong in message and suggestion in message
    fixed = text.replace("ln(", "log(").replace("^", "**").replace(" = ", " == ")
    parse_claim(fixed)  # the suggestion, taken, parses


def test_no_did_you_mean_without_a_near_spelling():
    from verify.claims.language.parser import parse_claim

    for text in ("frobnicate(R) > 1", "R <= 2 <"):
        with pytest.raises(InputError) as error:
            parse_claim(text)
        assert "did you mean" not in str(error.value)


@pytest.mark.parametrize("text", [f"{q.name} > 0" if not q.series else f"forall k in 1..n-1: {q.name}(k) > 0"
                                  for q in QUANTITIES if q.name != "n"])
def test_each_stage_computes_what_a_claim_reads_and_decides_it(text):
    """The precise and ball stages compute only what a claim's names need (z alone: no curvature); every quantity
    still gets a value there, so a claim reading it is decided, never left undecided by a value not computed."""
    from verify.api import make_case
    from verify.claims.language.balls import Balls
    from verify.claims.language.evaluate import decide
    from verify.claims.language.quantities import needs
    from verify.claims.language.values import ball_point, ball_spectrum, mp_point
    from verify.numerics.precision import bits_for

    tree = parse_claim(text, (4, 4))
    case = make_case(logits=[0, -1, -3, -7], H=[[4, 1, 0, 0], [1, 3, 1, 0], [0, 1, 5, 1], [0, 0, 1, 6]])
    wanted = needs(names(tree))
    bits = bits_for(60)
    with flint.ctx.workprec(bits):
        precise = decide(tree, mp_point(case, 50, wanted), Balls())
        balls = decide(tree, ball_point(case, ball_spectrum(case, wanted), bits), Balls())
    assert precise.decided and precise.holds and balls.decided and balls.holds


@pytest.mark.parametrize("bound", ["10**10", "n*n", "z_max"])
def test_a_bad_forall_bound_is_named_as_a_bound_of_k_with_its_claim(bound):
    """The bound's walker speaks of an item's index ("the index must be an integer expression in n") and echoed
    only the bound as the claim: the message names the bound, the whole claim, and a forall to write instead."""
    text = f"forall k in 1..{bound}: z_max > 0"
    with pytest.raises(InputError) as refused:
        parse_claim(text, (2, 10))
    message = str(refused.value)
    assert f"the bound {bound!r} of k" in message and repr(text) in message and "forall k in 1..n-1" in message


GRADED = (["-35", "0", "0", "-35", "-35"],  # H = I + a wwᵀ, a = 2^42 − 1/4, w = (0, 1, 1, 1, −1): λ(2) ≈ 4e-18 and
          [["1", "0", "0", "0", "0"]] + [["0"] + [("4398046511104.75" if i == j else "4398046511103.75") if (i < 3) == (j < 3)
                                                  else "-4398046511103.75" for j in range(4)] for i in range(4)])
# λ(3) ≈ 2e-31, merged in float64 below λ_max = 1/4; a Hypothesis search for the true λ(k) <= L_T z(k)² drew it


def test_the_precise_stage_never_vouches_for_an_eigenvalue_closer_than_its_enclosure():
    """The precise stage's λ(k) are the midpoints of an enclosure whose radii are the float64 start's residual
    (2.8e-18 here, far above λ_max·10^−50): each ball the stage hands on contains the true λ(k) (mpmath's dense
    eigsy at 120 digits), or is NaN (undecided). It once took the midpoints as exact to 10^−65·λ_max: λ(3) read
    1.5e-18, and `lambda(3) <= L_T*z(3)**2`, true (F6.loewner, F2), came back decided and failing."""
    from verify.api import decide_on_case, make_case
    from verify.claims.language.values import mp_point

    from tests.dense_reference import contains, dense_reference

    case = make_case(logits=GRADED[0], H=GRADED[1])
    reference = dense_reference(case.logits, case.H, 120)["lam"]
    point = mp_point(case, 50, frozenset({"curvature", "lam"}))
    for k in range(1, case.n):
        ball = point.get("lambda", k)
        assert not ball.is_finite() or contains(ball, reference[k - 1], 100), (k, ball, reference[k - 1])
    for k in range(1, case.n):
        result = decide_on_case(f"lambda({k}) <= L_T * z({k})**2", case)
        assert result.decided and result.holds, result


def test_an_or_with_a_part_not_computed_has_the_margin_of_the_part_that_decides_it():
    """`j_max == 2*z_max*z_min or n >= 3` at a point whose j was not computed: it holds by its second part, and its
    margin is that part's, not "undefined" (an attack saw "worst margin undefined" beside a PROVED verdict)."""
    from fractions import Fraction

    from verify.claims.language.evaluate import decide_at
    from verify.claims.language.parser import parse_claim
    from verify.claims.language.values import Point

    point = Point.of(4, z=(Fraction(4, 10), Fraction(3, 10), Fraction(2, 10), Fraction(1, 10)))
    either = decide_at(parse_claim("j_max == 2*z_max*z_min or n >= 3", (2, float("inf"))), point)
    alone = decide_at(parse_claim("n >= 3", (2, float("inf"))), point)
    assert either.holds and not either.margin.is_nan() and either.margin.overlaps(alone.margin)
