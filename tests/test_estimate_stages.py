"""The estimate stages (float64, and mpmath at dps digits) decide a claim only where their value balls separate its
sides, so each ball they hand on must contain the true value (or be NaN: undecided). The cases below each broke
that once (a stress helper's finds): a near-tie at the top that Rayleigh-quotient iteration from a float64 start
settled below (precise L, μ, L_T, μ_T, λ_max), J H J formed in float64 with cancelling terms (float λ(k)), and a
float64 error estimate far above 1 used as a relative radius (float κ). The reference: mpmath's dense eigsy."""
from fractions import Fraction

import pytest

from verify.api import decide_on_case
from verify.claims.cases.case import Case
from verify.claims.language.values import float_point, mp_point
from tests.dense_reference import contains, dense_reference

E60, E52 = 1 + Fraction(1, 2**60), 1 + Fraction(1, 2**52)


def diagonal(*values):
    return [[Fraction(v) if i == j else Fraction(0) for j in range(len(values))] for i, v in enumerate(values)]


def rank_one(a, w):
    return [[(1 if i == j else 0) + a * w[i] * w[j] for j in range(len(w))] for i in range(len(w))]


CASES = {
    "near-tie at the top of H": ([0, 0, -1], diagonal(1, E60, 1)),
    "near-tie at the top of H^-1": ([0, 0, -1], diagonal(1, E52, 1)),
    "L and L_T both near-tied": ([0, 0, -1], diagonal(1, E60, 2 - E60)),
    "2^60 and 2^60 + 1": ([0, -1, -2], diagonal(2**60, 2**60 + 1, 1)),
    "three tied logits": ([0, 0, 0, -5], diagonal(1, E52, 1, 1)),
    "drawn by cases(hessian='spd')": ([0, -Fraction(1, 2**47), -Fraction(1, 2**47), 0],
                                      [[Fraction(v, 4) for v in row] for row in
                                       ([11, -5, -1, -1], [-5, 11, -1, -1], [-1, -1, 11, -5], [-1, -1, -5, 11])]),
    "H = I + 2^45 wwT": ([0, -1, -2, -3], rank_one(2**45, [E60 + Fraction(1, 2**20) - Fraction(1, 2**60), 1, 1, 1])),
    "H = I + 2^40 11T": ([0, -1, -2, -3], rank_one(2**40, [1, 1, 1, 1])),
    "cond(H) = 2^60": ([0, -31, -52], diagonal(2**60, 2**60, 1)),
    "H = 2^39 11T + diag(3, 3, 1, 3, 1), uniform z": ([0] * 5, [[2**39 * Fraction(1) + (d if i == j else 0)
                                                                for j, d in enumerate((3, 3, 1, 3, 1))] for i in range(5)]),
    "mu = mu_T = 1e-40, float64 sees H singular": ([0, -1, -2], [[Fraction(u * w + v * x, 3) + (Fraction(1, 10**40)
                                                                  if i == j else 0) for j, (w, x) in
                                                                  enumerate(zip((1, 1, 1), (2, -1, 0)))]
                                                                 for i, (u, v) in enumerate(zip((1, 1, 1), (2, -1, 0)))]),
    "n = 2, cond(H) = 2^53": ([0, -700], diagonal(2**54, 2)),
}
NAMES = ("lambda_max", "lambda_min", "kappa", "L_T", "mu_T", "L", "mu", "R")  # and z(k), j(k), λ(k)
REFERENCE_NAME = {"L": "L_amb", "mu": "mu_amb"}


def case_of(name):
    logits, H = CASES[name]
    return Case(tuple(Fraction(v) for v in logits), tuple(tuple(Fraction(v) for v in row) for row in H))


def reference_value(reference, name, k=None):
    if k is not None:
        return reference[{"lambda": "lam"}.get(name, name)][k - 1]
    return reference[REFERENCE_NAME.get(name, name)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_estimate_ball_contains_the_true_value_or_is_undecided(name):
    case = case_of(name)
    reference = dense_reference(case.logits, case.H, 160)
    needs = frozenset({"curvature", "j", "lam"})
    for stage, point in (("float", float_point(case, needs)), ("mp", mp_point(case, 50, needs))):
        quantities = [(q, None) for q in NAMES] + [(s, k) for s in ("z", "j", "lambda") for k in range(1, case.n)]
        for quantity, k in quantities:
            ball = point.get(quantity, k)
            truth = reference_value(reference, quantity, k)
            assert not ball.is_finite() or contains(ball, truth, 140), (stage, quantity, k, ball, truth)


@pytest.mark.parametrize("name, text", [
    ("near-tie at the top of H", "lambda(1) <= L_T * z(1)**2"),
    ("near-tie at the top of H", "lambda_max <= L_T*j_max**2"),
    ("near-tie at the top of H^-1", "kappa <= (L_T/mu_T)*(j_max/j_min)**2"),
    ("near-tie at the top of H^-1", "mu_T*j_min**2 <= lambda_min"),
    ("L and L_T both near-tied", "L_T <= L"),
    ("2^60 and 2^60 + 1", "L_T <= L"),
    ("n = 2, cond(H) = 2^53", "kappa >= 1"),
    ("mu = mu_T = 1e-40, float64 sees H singular", "mu <= mu_T")])
def test_true_claims_of_the_paper_hold_where_an_estimate_stage_once_refuted_them(name, text):
    result = decide_on_case(text, case_of(name))
    assert result.decided and result.holds, result
