"""User claims: the safe language, claim files, margins in three number systems, decisions."""
import math
import re
import time
from pathlib import Path

import flint
import mpmath as mp
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.claims.cases import Case
from verify.claims.record import READINGS, TANGENT, evaluate
from verify.claims.registry import claims_for
from verify.errors import InputError
from verify.numerics.arb import arb_to_mpf
from verify.numerics.curvature import curvature_precise
from verify.claims.user import (
    AllOf, AnyOf, Compare, Negate, certificate_fields, check_certificate_claim, claim_latex, decide_on_case,
    evaluate_arb, evaluate_float, evaluate_mp, load_claims, names_used, parse_claims_text, parse_holds,
)
from verify.claims.user.grammar import MAX_TEXT

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "claims.toml"


# ---------------------------------------------------------------- the language


@pytest.mark.parametrize("text", [
    "lambda_min >= mu_T * z_min**2",
    "kappa >= (L_T/mu_T) * R**-2",
    "(mu/L) * (z(2)/z(n-1))**2 <= kappa <= (L/mu) * (z(1)/z(n))**2",
    "sqrt(j_max) > log(2) - exp(-1) and abs(-R) < max(1, 2, pi, e) or not (kappa == 1)",
    "min(z_max, z_min, 0.5) < 1e-400 + 3.25 + 1_000",
    "-lambda_max < +lambda_min",
    "z(2*n - n) == z_max",
    "n >= 2",
])
def test_every_grammar_feature_parses(text):
    tree = parse_holds(text)
    assert isinstance(tree, (Compare, AllOf, AnyOf, Negate))
    assert claim_latex(tree)


def test_latex_comes_from_the_printer_with_claim_names():
    tex = claim_latex(parse_holds("lambda_min <= mu_T * z(2)**2 and kappa >= (L_T/mu_T) * z(n-1)"))
    for piece in (r"\lambda_{\min}", r"\mu_T", "z_{(2)}", "z_{(n - 1)}", r"\kappa", r"\le", r"\land"):
        assert piece in tex
    assert claim_latex(parse_holds("1e-400 < z_min")) == r"10^{-400} < z_{\min}"


def test_chains_and_logic_build_the_tree():
    chain = parse_holds("1 <= kappa < 2")
    assert isinstance(chain, AllOf) and [p.op for p in chain.parts] == ["<=", "<"]
    assert isinstance(parse_holds("not kappa > 1 or R < 2"), AnyOf)
    assert names_used(parse_holds("kappa > z(1) * pi")) == {"kappa", "z"}


def test_numbers_are_exact_from_their_text():
    assert parse_holds("z_min > 0.1").rhs == sympy.Rational(1, 10)
    assert parse_holds("z_min > 1_000").rhs == 1000
    assert parse_holds("z_min > 1e-400").rhs != 0  # the float literal is 0.0; the parsed number is not
    assert evaluate_mp(parse_holds("1e-400 > 0"), {"n": 2}, 30).holds
    assert evaluate_mp(parse_holds("1e-400 == 10**-400"), {"n": 2}, 30).holds


BAD = [
    ("lamda_min > 0", "lamda_min", "lambda_min"),
    ("kapa < 2", "kapa", "kappa"),
    ("kappa", "kappa", "comparison"),
    ("kappa + 1", "kappa + 1", "comparison"),
    ("z(0) < 1", "z(0)", "1 and n"),
    ("z(n+1) < 1", "z(n+1)", "1 and n"),
    ("z(1.5) < 1", "1.5", "integer"),
    ("z < 1", "z", "z(k)"),
    ("sqrt(1, 2) < 1", "sqrt(1, 2)", "argument"),
    ("kappa != 1", "kappa != 1", "not (a == b)"),
    ("kappa // 2 > 1", "kappa // 2", "+ - * /"),
    ("kappa >", "kappa >", "syntax"),
    ("True > 0", "True", "number"),
    ("0x10 > 1", "0x10", "decimal"),
    ("2j > 1", "2j", "number"),
    ("(kappa > 1) + 1 > 0", "kappa > 1", "comparison"),
]


@pytest.mark.parametrize("text, offending, fix", BAD)
def test_bad_expressions_name_the_text_and_the_fix(text, offending, fix):
    with pytest.raises(InputError) as info:
        parse_holds(text)
    message = str(info.value)
    assert "\n" not in message and offending in message and fix in message


@pytest.mark.parametrize("text", [
    "__import__('os').system('ls')", "().__class__", "[x for x in y]", "lambda: 1", '"s"', "a[0]", "f(x=1)",
    "max(x=1, y=2) > 0", "max(*[1, 2]) > 0", "kappa.real > 0", "(1, 2) > (0, 1)", "{1: 2}", "kappa if R else 1",
    "(y := 2) > 1", "open('x') > 0", "sqrt(x=2) > 0", "__builtins__ > 0",
])
def test_forbidden_constructs_are_refused(text):
    with pytest.raises(InputError) as info:
        parse_holds(text)
    assert "\n" not in str(info.value)


def test_giant_numbers_cost_nothing():
    start = time.perf_counter()
    for text in ("10**10**10 > 1", "1e999999999 > 1", "10**10**10**10 > 1e-999999999", "2**-10**9 < 1"):
        tree = parse_holds(text)
        claim_latex(tree)
        evaluate_float(tree, {"n": 2})
        evaluate_mp(tree, {"n": 2}, 30)
        with flint.ctx.workprec(100):
            evaluate_arb(tree, {"n": 2})
    assert time.perf_counter() - start < 1.0
    assert evaluate_mp(parse_holds("1e999999999 > 1"), {"n": 2}, 30).holds


def test_length_and_size_bounds():
    with pytest.raises(InputError, match="characters"):
        parse_holds("kappa > " + "1 + " * MAX_TEXT + "1")
    with pytest.raises(InputError, match="nested|syntax nodes"):
        parse_holds("kappa > " + "(" * 60 + "1" + ")" * 60 + " + " + "sqrt(" * 45 + "1" + ")" * 45)


def test_package_never_evaluates_user_text():
    forbidden = re.compile(r"(?<![.\w])(eval|exec|compile|S)\(|sympify|parse_expr")
    sources = list((ROOT / "verify" / "claims" / "user").glob("*.py")) + [ROOT / "verify" / "strategies.py"]
    for path in sources:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            assert not forbidden.search(code), f"{path.name}:{number}: {line.strip()}"


# ---------------------------------------------------------------- claim files


def _claims(body):
    return parse_claims_text(body, where="test file")


def test_claim_file_fields_and_defaults():
    (claim,) = _claims('[[claim]]\nid = "mine.lower"\nholds = "lambda_min >= mu_T * z_min**2"\n')
    assert claim.n_range == (2, 10) and claim.hessian == "spd" and claim.statement == ""
    assert claim.names == {"lambda_min", "mu_T", "z_min"} and r"\lambda_{\min}" in claim.latex


@pytest.mark.parametrize("body, fragment", [
    ('[[claim]]\nid = "a"\nholds = "kappa > 1\n', "line 3"),
    ('[[claim]]\nholds = "kappa > 1"\n', "'id'"),
    ('[[claim]]\nid = "a"\n', "'holds'"),
    ('[[claim]]\nid = "a"\nholds = "kappa > 1"\n[[claim]]\nid = "a"\nholds = "R > 1"\n', "'a' twice"),
    ('[[claim]]\nid = "a"\nholds = "kappa > 1"\nreading = "x"\n', "'reading'"),
    ('title = "x"\n[[claim]]\nid = "a"\nholds = "kappa > 1"\n', "'title'"),
    ('[[claim]]\nid = "a b"\nholds = "kappa > 1"\n', "'a b'"),
    ('[[claim]]\nid = "a"\nholds = "kappa > 1"\nn = [1, 5]\n', "below 2"),
    ('[[claim]]\nid = "a"\nholds = "kappa > 1"\nn = [5, 3]\n', "empty"),
    ('[[claim]]\nid = "a"\nholds = "kappa > 1"\nn = [2, 3, 4]\n', "[2, 3, 4]"),
    ('[[claim]]\nid = "a"\nholds = "kappa > 1"\nn = [2.0, 3]\n', "[2.0, 3]"),
    ('[[claim]]\nid = "a"\nholds = "kappa > 1"\nhessian = "dense"\n', "'dense'"),
    ('[[claim]]\nid = "a"\nholds = "z(4) < 1"\nn = [3, 5]\n', "z(4)"),
    ('[[claim]]\nid = "a"\nholds = "lamda_min > 0"\n', "did you mean 'lambda_min'"),
    ('[[claim]]\nid = "a"\nholds = 3\n', "quoted string"),
])
def test_claim_file_errors(body, fragment):
    with pytest.raises(InputError) as info:
        _claims(body)
    assert fragment in str(info.value) and "\n" not in str(info.value)


def test_claim_file_size_limits(tmp_path):
    too_long = '[[claim]]\nid = "a"\nholds = "kappa > ' + "1+" * MAX_TEXT + '1"\n'
    with pytest.raises(InputError, match="characters"):
        _claims(too_long)
    many = "".join(f'[[claim]]\nid = "c{i}"\nholds = "kappa > 1"\n' for i in range(1001))
    with pytest.raises(InputError, match="1001 claims"):
        _claims(many)
    big = tmp_path / "big.toml"
    big.write_text("# " + "x" * (1 << 20) + "\n")
    with pytest.raises(InputError, match="larger than"):
        load_claims(big)
    with pytest.raises(InputError, match="does not exist"):
        load_claims(tmp_path / "missing.toml")


def test_index_checked_at_evaluation_when_not_at_load():
    tree = parse_holds("z(n-2) > 0")
    with pytest.raises(InputError, match="outside 1..n"):
        evaluate_mp(tree, {"n": 2, "z": (0.6, 0.4)}, 20, text="z(n-2) > 0")


# ---------------------------------------------------------------- margins

POSITIVE = st.floats(1e-30, 1e30)
TEMPLATES = [
    "A >= B", "A <= B * C", "A * B > C + 1", "sqrt(A) < log(B + 2) * C", "A - B >= C - 1",
    "A == B", "not (A < B) or B > C", "A <= B and C > A / B", "min(A, B) < max(B, C)", "exp(-A/B) > C / (C + 1)",
    "abs(A - C) >= B ** 0.5", "A**3 / B**-2 > C**(1/3)",
]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(TEMPLATES), POSITIVE, POSITIVE, POSITIVE)
def test_three_backends_agree_in_sign_and_the_ball_holds_the_mpmath_value(template, a, b, c):
    text = template.replace("A", "lambda_max").replace("B", "mu_T").replace("C", "L")
    tree = parse_holds(text)
    values = {"n": 3, "lambda_max": a, "mu_T": b, "L": c}
    fast = evaluate_float(tree, values)
    precise = evaluate_mp(tree, values, 40)
    with flint.ctx.workprec(200):
        ball = evaluate_arb(tree, values)
    with mp.workdps(60):
        if ball.margin.is_finite() and mp.isfinite(precise.margin):
            distance = abs(arb_to_mpf(ball.margin) - precise.margin)
            assert distance <= mp.mpf(ball.margin.rad()) + mp.mpf(10) ** -30 * (1 + abs(precise.margin))
    if mp.isfinite(precise.margin) and abs(precise.margin) > 1e-6:
        assert precise.decided and ball.decided
        assert precise.holds == ball.holds
        if fast.decided:
            assert fast.holds == precise.holds


def test_strict_and_non_strict_at_equality():
    values = {"n": 3, "kappa": 2.0, "R": 2.0}
    for evaluate_with in (lambda t: evaluate_float(t, values), lambda t: evaluate_mp(t, values, 30)):
        assert evaluate_with(parse_holds("kappa >= R")).holds
        assert evaluate_with(parse_holds("kappa <= R")).holds
        assert not evaluate_with(parse_holds("kappa > R")).holds
        assert not evaluate_with(parse_holds("kappa < R")).holds
        assert evaluate_with(parse_holds("kappa == R")).holds
        assert not evaluate_with(parse_holds("not (kappa == R)")).holds
        assert evaluate_with(parse_holds("not (kappa < R)")).holds  # not flips strictness
        assert not evaluate_with(parse_holds("not (kappa <= R)")).holds
    with flint.ctx.workprec(100):
        assert not evaluate_arb(parse_holds("1 < 1"), {"n": 2}).holds
        assert evaluate_arb(parse_holds("1 <= 1"), {"n": 2}).holds


def test_and_or_not_take_min_max_and_negation():
    values = {"n": 3, "kappa": 4.0, "R": 2.0, "L": 1.0}
    with mp.workdps(30):
        k_over_r = evaluate_mp(parse_holds("kappa >= R"), values, 30).margin
        r_over_l = evaluate_mp(parse_holds("R >= L"), values, 30).margin
        both = evaluate_mp(parse_holds("kappa >= R and R >= L"), values, 30)
        either = evaluate_mp(parse_holds("kappa <= R or R >= L"), values, 30)
        negated = evaluate_mp(parse_holds("not kappa >= R"), values, 30)
        assert both.margin == min(k_over_r, r_over_l) and both.holds
        assert either.margin == r_over_l and either.holds
        assert negated.margin == -k_over_r and not negated.holds


def test_margin_is_log_ratio_for_positive_sides_and_scaled_difference_otherwise():
    values = {"n": 3, "kappa": 4.0, "R": 2.0}
    assert evaluate_float(parse_holds("kappa >= R"), values).margin == pytest.approx(math.log(2))
    assert evaluate_float(parse_holds("kappa <= R"), values).margin == pytest.approx(-math.log(2))
    assert evaluate_float(parse_holds("-kappa >= -R"), values).margin == pytest.approx(-0.5)
    assert evaluate_float(parse_holds("kappa - R == 0"), values).margin == pytest.approx(-1.0)


def test_equality_refuted_only_when_rigorously_apart():
    with mp.workdps(60):
        values = {"n": 3, "kappa": mp.mpf(1), "R": mp.mpf(1) + mp.mpf(10) ** -40}
    assert evaluate_mp(parse_holds("kappa == R"), values, 30, rel_err=1e-30).holds  # within the error
    assert not evaluate_mp(parse_holds("kappa == R"), values, 60).holds  # exact inputs at 60 digits: apart
    with flint.ctx.workprec(100):
        near = {"n": 3, "kappa": flint.arb(1), "R": flint.arb(1) + flint.arb(0, 1e-20)}
        assert not evaluate_arb(parse_holds("kappa == R"), near).decided


def test_float_undecided_when_values_leave_its_range():
    values = {"n": 3, "kappa": mp.mpf("1e500"), "z_min": mp.mpf("1e-200")}
    assert not evaluate_float(parse_holds("kappa <= 1e400"), values).decided
    assert not evaluate_float(parse_holds("z_min**2 > 0"), values).decided
    assert not evaluate_mp(parse_holds("kappa <= 1e400"), values, 30).holds
    assert not evaluate_float(parse_holds("kappa >= 1"), {"n": 3, "kappa": math.inf}).decided
    outcome = evaluate_mp(parse_holds("kappa >= 1"), {"n": 3, "kappa": mp.mpf(2)}, 30, rel_err=1e-20)
    assert 0 < outcome.error < 1e-19


# ---------------------------------------------------------------- examples and decisions

HAND_BUILT = [
    Case.from_arrays([0, -1, -3], [[2, 1, 0], [1, 3, 1], [0, 1, 4]]),
    Case.from_arrays([0, -40, -90, -2], [[5, 1, 0, 0], [1, 4, 0, 1], [0, 0, 3, 1], [0, 1, 1, 2]]),
    Case.from_arrays([0, -0.5], [[1, 0.5], [0.5, 3]]),
    Case.from_arrays([0, -300, -600, -5, -1], [[9, 0, 0, 0, 1], [0, 1, 0, 0, 0], [0, 0, 2, 0, 0], [0, 0, 0, 3, 0],
                                              [1, 0, 0, 0, 7]]),
]


def test_examples_file_loads():
    claims = load_claims(EXAMPLES)
    ids = {c.id for c in claims}
    assert {"T2.eq47.max.tangent", "T2.interlace.ambient", "mine.kappa.by_J", "planted.huge_kappa"} <= ids
    assert all(c.statement for c in claims)
    assert not any(c.id.startswith("T2.multi") for c in claims)


@pytest.mark.parametrize("case", HAND_BUILT, ids=lambda c: f"n{c.n}")
def test_decisions_match_the_built_in_claims(case):
    stated = {c.id: c for c in load_claims(EXAMPLES)}
    q = curvature_precise(case.logits, case.H, 50)
    for claim in claims_for("theorem2"):
        if claim.multi or case.n < claim.min_n:
            continue
        for reading in READINGS:
            mine = stated[f"{claim.id}.{'tangent' if reading == TANGENT else 'ambient'}"]
            builtin = evaluate(claim, reading, q)
            decision = decide_on_case(mine.holds, case, dps=50)
            assert decision.holds == builtin.holds, (mine.id, decision, builtin)
            if len(claim.sides(q, 1, 1)) == 1:  # one inequality: the margins are the same number
                with mp.workdps(40):
                    assert abs(mp.mpf(decision.margin) - builtin.margin) <= 1e-15 * (1 + abs(builtin.margin))


def test_own_example_claims_on_hand_built_cases():
    stated = {c.id: c for c in load_claims(EXAMPLES)}
    for case in HAND_BUILT:
        for claim_id in ("mine.kappa.by_J", "mine.J.interlace", "mine.J.min_square", "mine.lambda.by_J"):
            assert decide_on_case(stated[claim_id].holds, case).holds, (claim_id, case)
    uniform = Case.from_arrays([0, 0, 0, 0, 0, 0, 0], [[2 if i == j else 0 for j in range(7)] for i in range(7)])
    for claim_id in ("planted.near_uniform", "planted.ties", "planted.large_n"):
        decision = decide_on_case(stated[claim_id].holds, uniform)
        assert not decision.holds and decision.decided, (claim_id, decision)
    assert not decide_on_case(stated["planted.huge_kappa"].holds, HAND_BUILT[3]).holds


def test_tight_margins_are_re_decided_with_balls():
    case = HAND_BUILT[0]
    decision = decide_on_case("z(1) == z(1) * (1 + 1e-70)", case, dps=30)
    assert decision.decided and decision.rigorous and not decision.holds
    tie = Case.from_arrays([0, 0, 0, -2], [[2 if i == j else 0 for j in range(4)] for i in range(4)])
    at_tie = decide_on_case("j_max >= z(2) * (1 + 1e-60)", tie, dps=30)  # j_max = z_(2) exactly at a tie
    assert at_tie.decided and at_tie.rigorous and not at_tie.holds
    same = decide_on_case("kappa == kappa", case, dps=30)
    assert same.holds and not same.decided
    assert dict(decide_on_case("j_max > z(2)", case).values).keys() == {"j_max", "z(2)"}


# ---------------------------------------------------------------- certificates


def test_certificate_records_round_trip_and_detect_edits(tmp_path):
    claims = load_claims(EXAMPLES)
    claim = next(c for c in claims if c.id == "planted.large_n")
    record = certificate_fields(claim)
    assert record["id"] == claim.id and record["holds"] == "z_max >= 1/6"
    again = check_certificate_claim(record, claims_file=EXAMPLES)
    assert again.tree == claim.tree and again.statement == claim.statement
    edited = dict(record, holds="z_max >= 1/7")
    with pytest.raises(InputError, match="edited"):
        check_certificate_claim(edited)
    other = tmp_path / "claims.toml"
    other.write_text('[[claim]]\nid = "planted.large_n"\nholds = "z_max >= 1/7"\n')
    with pytest.raises(InputError, match="differs from the claim file"):
        check_certificate_claim(record, claims_file=other)
    with pytest.raises(InputError, match="does not contain"):
        check_certificate_claim(record, claims_file=_file(tmp_path, '[[claim]]\nid = "y"\nholds = "R > 1"\n'))
    spaced = dict(record, holds="z_max  >=   1/6")
    assert check_certificate_claim(spaced).holds == "z_max  >=   1/6"  # whitespace is normalised before hashing


def _file(tmp_path, text):
    path = tmp_path / "one.toml"
    path.write_text(text)
    return path


# ---------------------------------------------------------------- robustness

LEAVES = st.sampled_from(["kappa", "R", "z_min", "n", "0", "2.5", "1e-400", "pi", "z(1)", "z(n)", "-1",
                          "10**10**10", "(2**-10**9)", "1e999999999", "10**10**10**10"])
EXPRESSIONS = st.recursive(LEAVES, lambda inner: st.one_of(
    st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "**"]), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
    st.tuples(st.sampled_from(["sqrt", "log", "exp", "abs"]), inner).map(lambda t: f"{t[0]}({t[1]})"),
    st.tuples(st.sampled_from(["min", "max"]), inner, inner).map(lambda t: f"{t[0]}({t[1]}, {t[2]})"),
), max_leaves=8)


@settings(max_examples=60, deadline=2000)
@given(EXPRESSIONS, st.sampled_from(["<", "<=", ">", ">=", "=="]), EXPRESSIONS)
def test_random_claims_print_and_evaluate_quickly_in_every_backend(lhs, op, rhs):
    """Giant powers, logs of 0 and values outside float64's range: no hang, no stray exception."""
    tree = parse_holds(f"{lhs} {op} {rhs}")
    claim_latex(tree)
    values = {"n": 3, "kappa": mp.mpf("1e500"), "R": 3.0, "z_min": mp.mpf("1e-320"), "z": (0.5, 0.3, mp.mpf("1e-320"))}
    evaluate_float(tree, values)
    evaluate_mp(tree, values, 30)
    with flint.ctx.workprec(100):
        evaluate_arb(tree, values)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="kapRz_min()[]{}+-*/<=>.,e0123456789 ntol'\"\\:@!", max_size=40))
def test_junk_text_is_refused_with_input_error_only(text):
    try:
        parse_holds(text)
    except InputError as error:
        assert "\n" not in str(error)
