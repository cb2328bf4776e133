"""Counterexamples are simplified before they are certified: the smallest n and short numbers that still fail."""
import math
from fractions import Fraction

import numpy as np

from verify.claims.cases.case import Case, parse_case
from verify.claims.claimfile import parse_claims_text
from verify.claims.verdicts.decide import run_claims
from verify.claims.search.simplify import simplify


def _messy_case(n, seed=0):
    """50-digit-ish exact numbers, as the random phase and the prover's models produce them."""
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    H = (Q * 10 ** rng.uniform(-1, 1, n)) @ Q.T
    return Case.from_arrays(-rng.random(n) * 3, (H + H.T) / 2)


def test_a_predicate_on_n_alone_shrinks_to_its_least_n_and_the_simplest_numbers():
    found = simplify(_messy_case(6), lambda case: case.n >= 3)
    assert found.n == 3
    assert all(v == 0 for v in found.logits)
    assert found.H == tuple(tuple(Fraction(int(i == j)) for j in range(3)) for i in range(3))


def test_simplification_keeps_the_claim_failing_and_stays_in_the_family():
    def fails(case):  # needs a logit gap of at least 1 and H with unequal diagonal entries
        gap = max(case.logits) - min(case.logits)
        return gap >= 1 and len({row[i] for i, row in enumerate(case.H)}) > 1

    start = Case.from_arrays([0.0, -1.2345678901234, -2.718281828459045], np.diag([1.4142135623730951, 3.141592653589793, 2.0]))
    assert fails(start)
    found = simplify(start, fails, family="diagonal")
    assert fails(found)
    assert all(found.H[i][j] == 0 for i in range(found.n) for j in range(found.n) if i != j)
    assert found.n == 2
    assert all(v.denominator == 1 for v in found.logits)
    assert all(len(str(v)) <= 3 for row in found.H for v in row)


def test_a_deep_logit_comes_up_to_the_least_integer_that_still_fails():
    """The search's failures often sit at the floor (a logit of -700); the reader wants the least depth that fails:
    here a gap of at least 5, from -700 by the ladder -1, -2, -4, -8 and bisection."""
    fails = lambda case: max(case.logits) - min(case.logits) >= 5
    found = simplify(Case.from_arrays([0.0, -700.0], np.eye(2)), fails)
    assert found.logits == (Fraction(0), Fraction(-5))
    found = simplify(Case.from_arrays([0.0, -0.5, -700.0], np.eye(3)), fails)
    assert found.n == 2 and found.logits == (Fraction(0), Fraction(-5))


def test_the_logits_come_largest_first_with_h_permuted_alike():
    H = np.array([[3.0, 1.0], [1.0, 2.0]])
    fails = lambda case: max(case.logits) - min(case.logits) >= 2 and case.H[0][1] != 0
    found = simplify(Case.from_arrays([-3.0, 0.0], H), fails)
    assert found.logits == (Fraction(0), Fraction(-2))
    assert found.H == ((Fraction(2), Fraction(1)), (Fraction(1), Fraction(3)))


def test_every_logit_is_rounded_before_any_is_raised_toward_zero():
    """Raising a logit from -700 takes a dozen trials of the budget: the cheap rounding of every coordinate comes
    first, so the last logit is still rounded when six deep ones precede it."""
    logits = ["0", "-0.43"] + ["-700"] * 6 + ["-3.14159265358979323846264338327950288"]
    case = parse_case({"logits": logits, "H": [[str(int(i == j)) for j in range(9)] for i in range(9)]})
    fails = lambda c: c.n == 9 and c.logits[1] == Fraction(-43, 100) and sum(v <= -600 for v in c.logits) >= 6 and \
        -4 < c.logits[-1] < -2.5
    assert simplify(case, fails, (9, 10)).logits[-1] == -3


def test_a_fraction_of_a_unit_becomes_minus_one_where_that_still_fails():
    found = simplify(Case.from_arrays([0.0, -1e-13], np.eye(2)), lambda case: min(case.logits) < 0)
    assert found.logits == (Fraction(0), Fraction(-1))


def test_a_case_nothing_simpler_fails_at_is_returned_as_it_is():
    start = _messy_case(3, seed=1)
    assert simplify(start, lambda case: case == start) == start


def test_a_refuted_user_claim_reports_its_least_failing_n_with_short_numbers():
    # z_max ≥ 1/n, so z_max ≥ 1/4 fails exactly when n ≥ 5 (at z near uniform)
    claims = parse_claims_text('[[claim]]\nid = "zmax"\nholds = "z_max >= 1/4"\nn = [2, 8]\n')
    result = run_claims(claims, seed=0, samples=60).claims[0]
    assert result.verdict.text == "REFUTED"
    example = result.evidence.counterexample
    assert example.n == 5
    numbers = list(example.inputs["logits"]) + [v for row in example.inputs["H"] for v in row]
    assert all(len(v) <= 12 for v in numbers), numbers


def test_a_refuted_claim_reports_the_least_integer_depth_that_fails_and_says_it_was_shrunk():
    """R <= 10 fails from a logit gap of ln 10 = 2.3 on: the counterexample is (0, -3) with H = I, simplified from the
    search's failure (the search itself reports what it drew)."""
    result = run_claims(parse_claims_text('[[claim]]\nid = "c"\nholds = "R <= 10"\n'), seed=0, samples=40,
                        workers=1).claims[0]
    assert result.verdict.text == "REFUTED" and result.evidence.shrunk is True
    depth = math.ceil(math.log(10))  # the least integer gap with e^gap > 10
    assert result.evidence.counterexample.inputs == {"logits": ["0", str(-depth)], "H": [["1", "0"], ["0", "1"]]}
