"""The ball path (`curvature_balls`, `symmetric_eigenvalue_balls`, `secular_balls`) against an independent dense
mpmath reference: every ball must contain it, including the cases acb_mat.eig could not isolate (clusters,
exactly repeated eigenvalues, exact ties in z) and logits far below float64's range."""
from fractions import Fraction as F

import flint
import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.dense_reference import assert_encloses, contains, dense_reference, relative_radius
from verify.numerics.curvature import curvature_balls, j_extremes_balls
from verify.numerics.eigenballs import symmetric_eigenvalue_balls
from verify.numerics.precision import Log

WANT = ("j", "lam")


def householder(v):
    """I − 2vvᵀ/vᵀv for an integer vector: exactly orthogonal, rational."""
    n = len(v)
    norm = sum(x * x for x in v)
    return [[F(int(i == j)) - F(2 * v[i] * v[j], norm) for j in range(n)] for i in range(n)]


def with_spectrum(values, v):
    """Q diag(values) Q for the Householder Q of v: exact rational H whose eigenvalues are exactly `values`."""
    Q = householder(v)
    n = len(values)
    return [[sum(Q[i][k] * F(values[k]) * Q[k][j] for k in range(n)) for j in range(n)] for i in range(n)]


def balls(logits, H, bits=256, want=WANT):
    with flint.ctx.workprec(bits):
        return curvature_balls(logits, H, want=want)


def test_diag_112_where_acb_eig_returned_nan():
    H = [[1, 0, 0], [0, 1, 0], [0, 0, 2]]
    with flint.ctx.workprec(200):
        assert not all(v.is_finite() for v in flint.acb_mat(flint.arb_mat(H)).eig(multiple=True, nonstop=True))
    logits = [F(0), F(-1), F(-3)]
    q = balls(logits, H)
    assert_encloses(q, dense_reference(logits, H, 90), 90)
    assert q.mu_amb.contains(1) and q.mu_T.contains(1) and q.L_amb.contains(2)  # exact: diagonal structure
    assert all(relative_radius(getattr(q, k)) < 1e-60 for k in ("lambda_max", "lambda_min", "kappa", "L_T"))


def test_symmetric_eigenvalue_balls_of_a_repeated_eigenvalue_and_a_near_cluster():
    exact = with_spectrum([1, 1, 1, 2, 3], [1, 2, -1, 3, 1])
    near = with_spectrum([1 + F(k, 10**21) for k in range(1, 6)] + [2], [2, -1, 1, 1, 3, -2])
    for H, values in ((exact, [1, 1, 1, 2, 3]), (near, [1 + F(k, 10**21) for k in range(1, 6)] + [2])):
        with flint.ctx.workprec(200):
            got = symmetric_eigenvalue_balls(flint.arb_mat([[flint.arb(flint.fmpq(v.numerator, v.denominator))
                                                              for v in row] for row in H]))
        with mp.workdps(80):
            for ball, value in zip(got, values):
                assert contains(ball, mp.mpf(F(value).numerator) / F(value).denominator, 80)
                assert relative_radius(ball) < 1e-50  # the near cluster is split, not smeared


@pytest.mark.parametrize("where", ["top", "middle", "bottom"])
def test_exact_ties_in_z(where):
    logits = {"top": [0, 0, -1, -2, -4], "middle": [0, -1, -1, -1, -3], "bottom": [0, -1, -2, -5, -5]}[where]
    logits = [F(v) for v in logits]
    rng = np.random.default_rng(5)
    A = rng.integers(-3, 4, (5, 5))
    H = (A @ A.T + 2 * np.eye(5, dtype=int)).tolist()
    q = balls(logits, H)
    reference = dense_reference(logits, H, 90)
    assert_encloses(q, reference, 90)
    j, z = {"top": (0, 0), "middle": (1, 1), "bottom": (3, 4)}[where]  # a tied coefficient is an eigenvalue of J
    assert contains(q.j[j], reference["z"][z], 90) and q.j[j].rad() <= q.z_desc[z].rad() * 2
    assert relative_radius(q.kappa) < 1e-60


def test_isotropic_with_ties_is_a_j_squared():
    n, a, b = 5, F(2, 5), F(7, 10)
    H = [[a + b if i == j else b for j in range(n)] for i in range(n)]
    logits = [F(0), F(0), F(-30), F(-30), F(-100)]
    q = balls(logits, H)
    assert_encloses(q, dense_reference(logits, H, 150), 150)
    with flint.ctx.workprec(256):
        assert q.L_T.contains(flint.fmpq(2, 5)) and q.mu_T.contains(flint.fmpq(2, 5)) and relative_radius(q.L_T) < 1e-70
        for lam, j in zip(q.lam, q.j):
            assert lam.overlaps(flint.arb(flint.fmpq(2, 5)) * j * j)
        assert relative_radius(q.kappa) < 1e-60


@pytest.mark.parametrize("n", [3, 20])
def test_repeated_smallest_eigenvalue_of_H(n):
    values = [1, 1] + [2 + k for k in range(n - 2)]
    H = with_spectrum(values, [(-1) ** k * (k % 4 + 1) for k in range(n)])
    logits = [F(-3 * k, 2) for k in range(n)]
    q = balls(logits, H)
    reference = dense_reference(logits, H, 120)
    assert_encloses(q, reference, 120)
    assert q.mu_amb.contains(1) and relative_radius(q.mu_amb) < 1e-60


def test_deep_logit_three_tokens():
    logits = [F(0), F(-100000), F(-3)]
    H = [[2, 1, 0], [1, 3, 0], [0, 0, 1]]
    q = balls(logits, H, bits=200)
    reference = dense_reference(logits, H, 86960)  # λ_min ≈ 1e-86859: the direct solve needs every digit
    assert_encloses(q, reference, 86960)
    assert relative_radius(q.kappa) < 1e-50


def test_sixteen_tokens_down_to_minus_3000():
    logits = [F(-200 * k) for k in range(16)]
    rng = np.random.default_rng(16)
    A = rng.integers(-4, 5, (16, 16))
    H = (A @ A.T + 16 * np.eye(16, dtype=int)).tolist()
    q = balls(logits, H, bits=256)
    reference = dense_reference(logits, H, 2700)  # κ ≈ 1e2433
    assert float(mp.log10(reference["kappa"])) > 2400
    assert_encloses(q, reference, 2700)
    for name in ("lambda_max", "lambda_min", "kappa", "L_T", "mu_T", "L_amb", "mu_amb"):
        assert relative_radius(getattr(q, name)) < 1e-55, name


def test_coefficients_given_as_z():
    z = [F(1, 2), F(1, 4), F(1, 8), F(1, 8)]
    logits = [Log(v) for v in z]
    H = [[2, 1, 0, 0], [1, 3, 0, 0], [0, 0, 4, 1], [0, 0, 1, 5]]
    q = balls(logits, H)
    assert_encloses(q, dense_reference(logits, H, 90), 90)
    with flint.ctx.workprec(256):
        assert q.R.contains(4) and q.z_desc[0].contains(flint.fmpq(1, 2))


def test_unknown_wants_are_refused():
    from verify.base.errors import InputError

    with pytest.raises(InputError, match="want"):
        balls([F(0), F(-1)], [[1, 0], [0, 1]], want=("lambda",))


def test_j_extremes_and_without_wants():
    logits = [F(0), F(-2), F(-5), F(-5)]
    H = [[3, 1, 0, 0], [1, 3, 0, 0], [0, 0, 2, 0], [0, 0, 0, 2]]
    q = balls(logits, H, want=())
    assert q.j is None and q.lam is None
    with flint.ctx.workprec(256):
        top, bottom = j_extremes_balls(logits)
    reference = dense_reference(logits, H, 90)
    assert contains(top, reference["j"][0], 90) and contains(bottom, reference["j"][-1], 90)


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 6).flatmap(lambda n: st.tuples(
    st.lists(st.integers(-60, 0), min_size=n, max_size=n),
    st.lists(st.integers(-2, 2), min_size=n * n, max_size=n * n),
    st.integers(0, 2))))
def test_property_every_ball_contains_the_reference(case):
    """Small integers: ties in z and in H's spectrum come up often."""
    logits, entries, shift = case
    n = len(logits)
    A = np.array(entries).reshape(n, n)
    H = (A @ A.T + shift * np.eye(n, dtype=int) + np.eye(n, dtype=int)).tolist()
    logits = [F(v) for v in logits]
    assert_encloses(balls(logits, H, bits=160), dense_reference(logits, H, 150), 150)


def test_symmetric_definite_pencil_like_t2_multi_range():
    """(UᵀAU, UᵀU): the restriction of A to range(U) without inverting UᵀU (how T2.multi's `_on_range` can use it)."""
    rng = np.random.default_rng(9)
    A = rng.integers(-3, 4, (6, 6))
    A = (A @ A.T).tolist()  # rank ≤ 6, symmetric
    U = rng.integers(-2, 3, (6, 4)).tolist()
    with flint.ctx.workprec(200):
        Am, Um = flint.arb_mat(A), flint.arb_mat(U)
        got = symmetric_eigenvalue_balls(Um.transpose() * Am * Um, Um.transpose() * Um)
    with mp.workdps(80):
        M, N = mp.matrix(A), mp.matrix(U)
        L = mp.cholesky(N.T * N)
        C = mp.inverse(L) * (N.T * M * N) * mp.inverse(L).T
        reference = sorted(mp.eigsy((C + C.T) / 2, eigvals_only=True))
        for ball, value in zip(got, reference):
            assert contains(ball, value, 80) and relative_radius(ball) < 1e-50


def test_a_graded_h_over_a_block_of_equal_logits_keeps_lambda_max_to_the_working_precision():
    """The refinement stops when λ_max's column converges; the other columns stay near float64's accuracy, and one
    second-order orthonormalisation left XᵀX − I ≈ 1e-26, which Ostrowski's factor charged to every eigenvalue (λ_max
    had 25 of 60 digits at 208 bits, and case mode doubled the precision twice to make up for it)."""
    from verify.numerics.enclosures.curvature import correct_digits

    n = 24
    logits = [F(0)] * (n - 4) + [F(-111), F(-700), F(-354), F(-406)]
    H = [[F(2) ** (-47 + (97 * i) // (n - 1)) if i == j else F(0) for j in range(n)] for i in range(n)]
    found = balls(logits, H, bits=208, want=())
    assert correct_digits(found.lambda_max) >= 55 and correct_digits(found.lambda_min) >= 55
