"""Counterexamples are simplified before they are certified: the smallest n and short numbers that still fail."""
from fractions import Fraction

import numpy as np

from verify.claims.cases.case import Case
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
