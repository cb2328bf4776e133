"""The exact route's building blocks against independent computations: the λ polynomial of a diagonal H (its secular
form) against Berkowitz's characteristic polynomial of the dense J H J, and a polynomial of Q(t) evaluated in balls
(by Horner's rule in C where it is dense) against mpmath at 60 more digits."""
import math
import random
from fractions import Fraction

import flint
import mpmath as mp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify import decide_on_case, make_case
from verify.numerics import exact_spectrum
from verify.numerics.algebraic_roots import CTX, ZERO, X, Field, x_coefficients, x_degree


def berkowitz_lam_polynomial(case):
    """det(y − d S⁴ J H J)/y in x = y/(d S⁴), by Berkowitz on the dense matrix (the route of every non-diagonal H)."""
    n, w, S = case.n, case.w, case.S
    d = math.lcm(*(x.denominator for row in case.H for x in row))
    H = [[int(x * d) for x in row] for row in case.H]
    M = [[(S * w[i] if i == j else ZERO) - w[i] * w[j] for j in range(n)] for i in range(n)]
    MH = [[sum((M[i][k] * H[k][j] for k in range(n)), ZERO) for j in range(n)] for i in range(n)]
    N = [[sum((MH[i][k] * M[k][j] for k in range(n)), ZERO) for j in range(n)] for i in range(n)]
    scale = d * S ** 4
    return sum((c * scale ** k * X ** k for k, c in enumerate(reversed(exact_spectrum.berkowitz(N)[:-1]))), ZERO)


def leading(poly):
    return x_coefficients(poly)[x_degree(poly)]


@pytest.mark.parametrize("seed", range(4))
def test_a_diagonal_hs_lambda_polynomial_is_berkowitzs_up_to_a_factor_of_t(seed):
    """Ties of logits and of H's entries included (the tied pairs whose roots are divided out after)."""
    rng = random.Random(seed)
    for _ in range(30):
        n = rng.randint(2, 6)
        logits = [rng.choice([Fraction(0), Fraction(-1), Fraction(-rng.randint(1, 40)),
                              Fraction(-rng.randint(1, 9), rng.randint(1, 4))]) for _ in range(n)]
        entries = [Fraction(rng.randint(1, 5)), Fraction(rng.randint(1, 7), rng.randint(1, 3)), Fraction(2) ** rng.randint(-5, 30)]
        H = [[rng.choice(entries) if i == j else Fraction(0) for j in range(n)] for i in range(n)]
        case = exact_spectrum.ExactCase(logits, H)
        secular, dense = case._lam_polynomial(), berkowitz_lam_polynomial(case)
        assert x_degree(secular) == x_degree(dense) == n - 1
        assert secular * leading(dense) == dense * leading(secular), (logits, H)


@pytest.mark.parametrize("H", [[[2, 0, 0], [0, 3, 1], [0, 1, 3]], [[2, 1, 0], [1, 3, 0], [0, 0, 3]],
                               [[1, 0, 0, 0], [0, 2, 0, 1], [0, 0, 3, 0], [0, 1, 0, 4]]])
def test_an_h_coupled_anywhere_off_its_diagonal_gets_the_eigenvalues_of_j_h_j(H):
    """Only an H with every off-diagonal entry 0 takes the diagonal route: the others' λ are J H J's eigenvalues
    (against mpmath's at 60 digits; the first row alone being diagonal is not enough)."""
    n = len(H)
    logits = [Fraction(0)] + [Fraction(-1)] * (n - 1)
    case = exact_spectrum.ExactCase(logits, [[Fraction(x) for x in row] for row in H])
    with mp.workdps(60):
        z = [mp.exp(mp.mpf(v.numerator) / v.denominator) for v in logits]
        z = [v / sum(z) for v in z]
        J = mp.matrix([[(z[i] if i == j else 0) - z[i] * z[j] for j in range(n)] for i in range(n)])
        eigenvalues = sorted(mp.eigsy(J * mp.matrix(H) * J)[0], reverse=True)[:-1]  # the 0 of J H J 1 dropped
    with flint.ctx.workprec(300):
        for value, expected in zip(case.lam_desc, eigenvalues):
            assert abs(value.ball(256) - flint.arb(mp.nstr(expected, 60))) < flint.arb(10) ** -50, (H, expected)


def test_a_tie_at_logits_to_minus_700_with_a_diagonal_h_is_decided_exactly():
    """Eight tokens, a tied pair at e^-700 with equal entries of H: the claim on every λ(k) holds with equality at one
    k, which only the exact route decides (Berkowitz's polynomial took 6 s here)."""
    logits = ["0", "-12", "-426", "-700", "-118", "-700", "-700", "-311"]
    diagonal = ["6", "14", "2097152", "1208925819614629174706176", "2361183241434822606848",
                "1208925819614629174706176", "32", "1"]
    case = make_case(logits=logits, H=[[diagonal[i] if i == j else "0" for j in range(8)] for i in range(8)])
    result = decide_on_case("forall k in 1..n-1: lambda(k) <= L_T * z(k)**2", case)
    assert result.decided and result.holds and result.rigorous
    assert not decide_on_case("forall k in 1..n-1: lambda(k) < L_T * z(k)**2", case).holds


@pytest.mark.parametrize("seed", range(3))
def test_a_polynomial_of_t_and_x_in_balls_contains_its_value(seed):
    """Sparse and dense polynomials (degrees to 3,000 in t, huge coefficients), t = e^(p/q) or no t, x a ball."""
    rng = random.Random(seed)
    for _ in range(60):
        scale = Fraction(rng.choice([1, -1]) * rng.randint(1, 9), rng.randint(1, 5)) if rng.random() < 0.9 else None
        degree, dense = rng.choice([0, 1, 3, 50, 700, 3000]), rng.random() < 0.5
        terms = {(rng.randint(0, degree), rng.randint(0, 4)): rng.choice([1, -1]) * rng.randint(1, 10 ** rng.randint(1, 30))
                 for _ in range(rng.randint(1, max(1, degree) if dense else 60))}
        bits, x = rng.choice([64, 128, 512]), Fraction(rng.randint(-300, 300), 100)
        ball = Field(scale).evaluate(CTX.from_dict(terms), bits, flint.arb(x.numerator) / x.denominator)
        with mp.workdps(bits // 3 + 60 + degree):
            t = mp.e ** (mp.mpf(scale.numerator) / scale.denominator) if scale is not None else mp.mpf(1)
            value = mp.nstr(mp.fsum(c * t ** et * (mp.mpf(x.numerator) / x.denominator) ** ex for (et, ex), c in terms.items()), mp.mp.dps)
        with flint.ctx.workprec(4 * bits + 400 + 4 * degree):
            assert ball.overlaps(flint.arb(value)), (terms, scale, x, ball, value)


def test_a_squarefree_polynomial_is_certified_at_an_integer_t_and_a_square_never_is():
    from verify.numerics.algebraic_roots import T
    from verify.numerics.exact_spectrum import _certainly_squarefree, _squarefree_factors

    squarefree = (X - T) * (X - T ** 2 + 1) * (X + 3) * (X - 2)  # x = 2 is also t's root at t₀ = 2: t₀ = 3 certifies it
    assert _certainly_squarefree(squarefree) and _squarefree_factors(squarefree) == [(squarefree, 1)]
    assert not _certainly_squarefree(squarefree * (X - T))
    factors = _squarefree_factors(squarefree * (X - T))
    assert max(m for _, m in factors) == 2 and sum(x_degree(f) * m for f, m in factors) == 5
    assert not _certainly_squarefree((X - T ** 3) ** 2 * (X + 1)) and not _certainly_squarefree(X * X - 2 * T * X + T * T)
    for square in ((X - T) ** 2, (X + 2) ** 2, X * X - 2 * T * X + T * T, (2 * X - 3 * T) ** 2 * (X + T)):
        assert max(m for _, m in _squarefree_factors(square)) == 2, square
    # g(t, x) = (t − 2)(t − 3) x + 1 loses its x at both t₀: g²(x − 5) is (x − 5) there, squarefree, of lower degree
    hidden = ((T - 2) * (T - 3) * X + 1) ** 2 * (X - 5)
    assert not _certainly_squarefree(hidden) and max(m for _, m in _squarefree_factors(hidden)) == 2


@pytest.mark.parametrize("text, zero", [
    ("lambda_min <= mu_T * j_min**2", True),  # uniform z: λ_min = μ_T j_min² exactly
    ("lambda_min < mu_T * j_min**2", True),  # the same tie, failing: its margin is 0 all the same
    ("not (lambda_min < mu_T * j_min**2)", True),
    ("lambda_min < mu_T * j_min**2 or z_max > 0", False),  # the `or`'s margin is its true part's
    ("lambda_min <= mu_T * j_min**2 and z_max > 0", True),
    ("lambda_min == mu_T * j_min**2 and kappa >= 1", True),
    ("z_max > 0", False),
])
def test_the_exact_margin_is_zero_exactly_where_a_tie_decides_it(text, zero):
    from verify.claims.exact import margin_is_zero
    from verify.claims.language.parser import parse_claim

    case = make_case(logits=["0", "0", "0"], H=[["3", "1", "0"], ["1", "2", "0"], ["0", "0", "5"]])
    assert margin_is_zero(parse_claim(text), case) is zero


def test_sides_that_differ_by_4e_86_have_a_margin_that_is_not_zero():
    """(tests/test_exact_ties.py: their margin, not 0, is what the exact route's decision shows.)"""
    from verify.claims.exact import margin_is_zero
    from verify.claims.language.parser import parse_claim

    case = make_case(logits=["-135", "0", "-38"], H=[["7", "0", "0"], ["0", "15", "0"], ["0", "0", "15"]])
    for op in ("<", "==", ">="):
        assert not margin_is_zero(parse_claim(f"mu_T * j(2)**2 {op} lambda(2)", (3, 3)), case)
    assert margin_is_zero(parse_claim("mu_T * j(2)**2 < lambda(2) and mu_T * j(2)**2 <= mu_T * j(2)**2", (3, 3)), case)


@settings(max_examples=200, deadline=None)
@given(st.fractions(), st.fractions().filter(bool), st.sampled_from(["+", "-", "*", "/"]))
def test_a_rationals_sign_is_that_of_its_fraction_whatever_the_signs_of_its_parts(a, b, op):
    """A Value with no root and no t is a rational: its sign is read off its two integers (a quotient's denominator may
    be negative), and equals the Fraction's."""
    from verify.numerics.algebraic import Value
    from verify.numerics.algebraic_roots import Field

    field = Field()
    x, y = Value.rational(field, a), Value.rational(field, b)
    value = {"+": x + y, "-": x - y, "*": x * y, "/": x / y}[op]
    exact = {"+": a + b, "-": a - b, "*": a * b, "/": a / b}[op]
    assert value.sign() == (exact > 0) - (exact < 0)
    assert (x - x).sign() == 0 and (-x).sign() == -Value.rational(field, a).sign()
