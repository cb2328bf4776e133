"""Undefinedness in every backend (issue 40): a value of its own that every operation propagates; `x - x` of
one value is exactly 0; `and`, `or`, `forall` skip no part; a range of k empty at some n is a statement about
no k there; an undecided case has no margin, and a failure is named only once the balls certify it."""
import math

import flint
import pytest

from verify.api import decide_on_case, load_claims, make_case, run_claims
from verify.base.errors import InputError
from verify.claims.exact import decide_exactly
from verify.claims.results import VerdictKind
from verify.claims.language.balls import POSSIBLY_UNDEFINED, UNDEFINED, Balls
from verify.claims.language.evaluate import decide, decide_at, value
from verify.claims.language.latex import claim_latex
from verify.claims.language.outcome import FAILS, HOLDS, UNDECIDED
from verify.claims.language.parser import parse_claim
from verify.claims.language.values import Point
from verify.claims.prover.pieces import Piece
from verify.claims.prover.smt import Encoder

IDENTITY3 = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
UNIFORM = make_case(logits=[0, 0, 0], H=IDENTITY3)
APART = make_case(logits=[0, -1, -2], H=IDENTITY3)
# x is possibly undefined at NEAR (z_max − z_min is a ball around 0), certainly undefined when it reads z_max − z_max
WRAPPERS = ["({x})**0 == 1", "exp({x}) > 0", "abs({x}) >= 0", "0 * {x} == 0", "min({x}, 1) <= 1", "{x} - {x} == 0",
            "sqrt(({x})**2) >= 0", "-{x} == -{x}", "1 > 0 or {x} > 0", "not ({x} < 0 and 1 < 0)"]


def near_point():
    """n = 2 with z_max and z_min balls that overlap: their difference's ball contains 0 and more."""
    return Point.of(2, z_max=flint.arb("0.5 +/- 0.01"), z_min=flint.arb("0.5 +/- 0.01"))


@pytest.mark.parametrize("form", WRAPPERS)
def test_a_possibly_undefined_value_leaves_every_claim_built_on_it_undecided(form):
    tree = parse_claim(form.format(x="1/(z_max - z_min)"), (2, 2))
    outcome = decide_at(tree, near_point())
    assert not outcome.decided and not outcome.holds and outcome.status == UNDECIDED


@pytest.mark.parametrize("form", WRAPPERS)
def test_x_minus_x_of_one_value_is_exactly_zero_so_dividing_by_it_is_undefined(form):
    tree = parse_claim(form.format(x="1/(z_max - z_max)"), (2, 2))
    outcome = decide_at(tree, near_point())
    assert outcome.undefined and outcome.decided and outcome.status == FAILS


def test_the_undefined_values_are_values_and_never_nan():
    point = near_point()
    with flint.ctx.workprec(64):
        assert value(parse_claim("(1/(z_max - z_min))**0 > 0", (2, 2)).left, point, Balls()) is POSSIBLY_UNDEFINED
        assert value(parse_claim("exp(1/(z_max - z_max)) > 0", (2, 2)).left, point, Balls()) is UNDEFINED
        assert value(parse_claim("z_max - z_max > 0", (2, 2)).left, point, Balls()) == 0


def test_decide_on_case_of_a_division_by_an_exact_zero_does_not_hold():
    result = decide_on_case("(1/(z_max - z_max))**0 == 1", APART)
    assert (result.holds, result.decided, result.margin) == (False, True, "undefined")


def test_at_tied_coefficients_the_balls_see_the_exact_zero():
    """Uniform z: z_max and z_min are one ball (exactly tied), so z_max − z_min is exactly 0."""
    for text in ("exp(1/(z_max - z_min)) > 0", "(1/(z_max - z_min))**0 == 1"):
        result = decide_on_case(text, UNIFORM)
        assert (result.holds, result.decided, result.margin) == (False, True, "undefined")
        assert decide_on_case(text, APART).holds


def test_the_issue_examples_are_refuted_through_claims_with_a_certificate_check_confirms(tmp_path):
    claims = load_claims('[[claim]]\nid = "exp"\nholds = "exp(1/(z_max - z_min)) > 0"\nn = [2, 10]\n\n'
                         '[[claim]]\nid = "power0"\nholds = "(1/(z_max - z_min))**0 == 1"\nn = [2, 10]\n')
    report = run_claims(claims, seed=0, samples=20, out=str(tmp_path), workers=1)
    for result in report.claims:
        assert result.verdict.kind is VerdictKind.REFUTED, (result.id, result.evidence)
        assert result.evidence.counterexample.margin == "undefined"
        assert result.evidence.certificate_check.startswith("CONFIRMED")


@pytest.mark.parametrize("text", ["z_max > 0 or 1/(z_max - z_min) > 0", "not (z_max < 0 and 1/(z_max - z_min) > 0)",
                                  "1/(z_max - z_min) > 0 or z_max > 0"])
def test_exact_arithmetic_skips_no_part_of_and_or(text):
    """A true part beside an undefined one: the claim is undefined, so it fails, whichever part comes first."""
    tree = parse_claim(text, (3, 3))
    assert decide_exactly(tree, UNIFORM) is False
    assert decide_at(tree, _ball_point(UNIFORM, tree)).status == FAILS


def _ball_point(case, tree):
    from verify.claims.certificates.counterexample import ball_outcome

    return ball_outcome(tree, case, 128)[1]


# ---------------------------------------------------------------- a range of k empty at some n


def test_a_range_of_k_empty_at_some_n_is_accepted_and_vacuous_there():
    tree = parse_claim("forall k in 70..n: z(k) > 0", (2, 80))
    small = make_case(logits=[0, -1, -2], H=IDENTITY3)
    outcome = decide_at(tree, _ball_point(small, tree))
    assert outcome.holds and outcome.margin == math.inf
    assert decide_exactly(tree, UNIFORM) is True


def test_a_range_of_k_empty_at_some_n_has_one_meaning_in_every_backend():
    from verify.claims.prover.prove import prove

    false_from_5 = parse_claim("forall k in 5..n: z(k) > 1", (2, 6))  # false wherever it speaks of some k
    assert Encoder(Piece(n=3)).formula(false_from_5) == "true"
    assert decide_at(false_from_5, _ball_point(UNIFORM, false_from_5)).holds  # n = 3: no k
    assert prove(false_from_5, (2, 4)).status == "proved"  # vacuous at every n of 2..4
    assert prove(false_from_5, (2, 6)).status != "proved"
    assert r"5 \le k \le n" in claim_latex(false_from_5)


def test_a_range_of_k_empty_at_every_n_is_still_refused():
    with pytest.raises(InputError, match="for every n in 2..80"):
        parse_claim("forall k in 81..n: z(k) > 0", (2, 80))
    with pytest.raises(InputError, match="outside"):  # nonempty from n = 70 on, and there it reads z(n + 1)
        parse_claim("forall k in 70..n: z(k + 1) > 0", (2, 80))


# ---------------------------------------------------------------- evidence that does not mislead


def test_an_undecided_case_has_no_margin():
    """exp(z_max) > exp(z_min) at tied z: a strict comparison of equal sides the balls cannot separate, and exact
    arithmetic does not evaluate exp: undecided, so no margin is shown."""
    result = decide_on_case("exp(z_max) > exp(z_min)", UNIFORM)
    assert (result.decided, result.holds, result.margin) == (False, False, "undecided")


def test_a_failure_the_estimates_flag_but_the_balls_do_not_confirm_is_not_named(monkeypatch):
    """Every estimate says "fails" (a forced estimate error); the balls show the claim holds at every case
    flagged: no failure is named, no margin of those cases shown, and the claim is not refuted."""
    from verify.claims.language.outcome import Outcome
    from verify.claims.search import engine

    wrong = engine.Decision(Outcome(-1.07, -1.08, -1.06, False), "float")
    monkeypatch.setattr(engine.Decider, "decide", lambda self, job, case: wrong)
    claims = load_claims('[[claim]]\nid = "true"\nholds = "sqrt(z_max) + sqrt(z_min) <= 2"\nn = [2, 4]\n')
    result = run_claims(claims, seed=0, samples=10, workers=1).claims[0]
    assert not result.verdict.is_(VerdictKind.REFUTED) and result.evidence.counterexample is None
    assert result.evidence.worst_margin is None and not result.evidence.random_counterexamples
    assert "no failure is certain" in result.evidence.note and "hold there" in result.evidence.note
