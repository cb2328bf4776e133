"""The structured kernel against independent references: LAPACK on well-conditioned cases,
mpmath dense eigensolves at a precision chosen from the grading on graded cases."""
import json

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import run_cli
from verify.numerics import model as phessian
from verify.numerics.secular import j_eigenvalues, j_eigenvalues_batch, j_eigenvalues_mp, j_eigenvectors, rank_one_eigenvalues
from verify.numerics.softmax import jacobian
from verify.numerics.curvature import curvature_precise, isotropic_on_tangent


def dense_mp_eigenvalues(z, digits=20):
    """Reference: mpmath's dense symmetric solve with enough digits to resolve the smallest z."""
    z = [mp.mpf(float(v)) for v in z]
    dps = int(digits + 10 - float(mp.log10(min(z))))
    with mp.workdps(dps):
        zz = np.array(z, dtype=object) / mp.fsum(z)
        values = sorted(mp.eigsy(mp.matrix(jacobian(zz).tolist()), eigvals_only=True), reverse=True)
        return values, dps


positive_vectors = st.integers(2, 12).flatmap(lambda n: st.lists(st.floats(0.05, 1.0), min_size=n, max_size=n, unique=True))


@given(positive_vectors)
def test_interlacing_and_zero(weights):
    z = np.array(weights) / np.sum(weights)
    values = j_eigenvalues(z)
    zs = np.sort(z)[::-1]
    assert values[-1] == 0
    for k in range(len(z) - 1):
        assert zs[k + 1] <= values[k] <= zs[k]


@given(positive_vectors)
def test_agrees_with_lapack_when_well_conditioned(weights):
    z = np.array(weights) / np.sum(weights)
    dense = np.linalg.eigvalsh(jacobian(z))[::-1]
    assert np.max(np.abs(j_eigenvalues(z)[:-1] / dense[:-1] - 1)) <= 1e-12


@given(st.integers(3, 12), st.floats(5, 300), st.integers(0, 10**6))
def test_graded_every_eigenvalue_to_1e_13(n, decades, seed):
    rng = np.random.default_rng(seed)
    exponents = -np.sort(rng.uniform(0, decades, n))
    z = 10.0**exponents
    z /= z.sum()
    values = j_eigenvalues(z)
    reference, dps = dense_mp_eigenvalues(z)
    with mp.workdps(dps):
        for got, want in zip(values[:-1], reference[:-1]):
            assert abs(mp.mpf(got) / want - 1) <= 1e-13


def test_root_far_from_its_upper_pole():
    """z = (1, 2e-161, 1e-161, 2e-219): the top root sits 3e-161 above a pole 1 away (found by Hypothesis)."""
    z = np.array([1.0, 2.24792975e-161, 1.01467169e-161, 1.56709925e-219])
    z /= z.sum()
    values = j_eigenvalues(z)
    reference, dps = dense_mp_eigenvalues(z)
    with mp.workdps(dps):
        for got, want in zip(values[:-1], reference[:-1]):
            assert abs(mp.mpf(got) / want - 1) <= 1e-14


def test_graded_down_to_1e_minus_300():
    z = np.logspace(-1, -300, 20)
    z /= z.sum()
    values = j_eigenvalues(z)
    reference, dps = dense_mp_eigenvalues(z)
    with mp.workdps(dps):
        worst = max(abs(mp.mpf(got) / want - 1) for got, want in zip(values[:-1], reference[:-1]))
    assert worst <= 1e-14


def test_below_float_range_through_mpmath():
    logits = [0, -3, -900, -2500]
    values = j_eigenvalues_mp(logits, dps=30)
    with mp.workdps(1200):
        z = np.array([mp.exp(mp.mpf(v)) for v in logits], dtype=object)
        z = z / mp.fsum(z)
        reference = sorted(mp.eigsy(mp.matrix(jacobian(z).tolist()), eigvals_only=True), reverse=True)
        for got, want in zip(values[:-1], reference[:-1]):
            assert abs(got / want - 1) < mp.mpf(10) ** -30
    with mp.workdps(40):  # the smallest positive eigenvalue sits in [z_(n), z_(n−1)], near e^-2500
        assert values[-1] == 0 and mp.exp(-2500) / 2 < values[-2] < mp.exp(-900)


def test_batch_of_examples():
    rng = np.random.default_rng(9)
    Z = rng.random((5, 7))
    Z /= Z.sum(axis=1, keepdims=True)
    batch = j_eigenvalues_batch(Z)
    assert batch.shape == (5, 7)
    for row, values in zip(Z, batch):
        assert np.array_equal(values, j_eigenvalues(row))


def test_repeated_coefficients_deflate():
    z = np.array([0.3, 0.3, 0.2, 0.1, 0.1])
    dense = np.linalg.eigvalsh(jacobian(z))[::-1]
    assert np.allclose(j_eigenvalues(z), dense, rtol=1e-13, atol=1e-16)


@given(st.integers(1, 10).flatmap(lambda n: st.tuples(
    st.lists(st.floats(-5, 5), min_size=n, max_size=n, unique=True),
    st.lists(st.floats(0.1, 3), min_size=n, max_size=n))))
def test_general_rank_one_downdate(params):
    a, w = map(np.array, params)
    dense = np.linalg.eigvalsh(np.diag(a) - np.outer(w, w))[::-1]
    got = rank_one_eigenvalues(a, w)
    assert np.allclose(got, dense, rtol=1e-10, atol=1e-12 * np.max(np.abs(dense)))


def test_eigenvectors():
    rng = np.random.default_rng(4)
    z = rng.random(30)
    z /= z.sum()
    values = j_eigenvalues(z)
    V = j_eigenvectors(z, values)
    J = jacobian(z)
    assert np.abs(J @ V - V * values).max() < 1e-14
    assert np.abs(V.T @ V - np.eye(30)).max() < 1e-10


def test_isotropic_curvature_agrees_with_general_path():
    """H = aI + b11ᵀ runs on the secular kernel; the general arb path must give the same numbers."""
    logits = [mp.mpf(v) for v in (0, -2, -400, -900)]
    H = [[mp.mpf(3 if i == j else 1) for j in range(4)] for i in range(4)]
    assert isotropic_on_tangent(H) == (2, 1)
    fast = curvature_precise(logits, H, 30)
    import verify.numerics.curvature as spectra

    original = spectra.isotropic
    spectra.isotropic = lambda H: None
    try:
        general = curvature_precise(logits, H, 30)
    finally:
        spectra.isotropic = original
    with mp.workdps(40):
        for name in ("lambda_max", "lambda_min", "kappa", "L_T", "mu_T", "L_amb", "mu_amb"):
            assert abs(getattr(fast, name) / getattr(general, name) - 1) < mp.mpf(10) ** -25


# ---------------------------------------------------------------- p-space Hessian (D3)


@pytest.mark.parametrize("loss", ["square", "logistic"])
def test_gradient_and_hvp_against_finite_differences(loss):
    rng = np.random.default_rng(0)
    problem, _ = phessian.student_teacher(rng, 6, 4, 5, loss)
    p = rng.standard_normal(5)
    h = 1e-6
    eye = np.eye(5)
    fd_grad = np.array([(phessian.loss(problem, p + h * e) - phessian.loss(problem, p - h * e)) / (2 * h) for e in eye])
    assert np.abs(phessian.gradient(problem, p) - fd_grad).max() < 1e-8
    fd_hess = np.column_stack([(phessian.gradient(problem, p + h * e) - phessian.gradient(problem, p - h * e)) / (2 * h) for e in eye])
    assert np.abs(phessian.dense_hessian(problem, p) - fd_hess).max() < 1e-7


def test_gauss_newton_equals_exact_at_zero_residual():
    rng = np.random.default_rng(1)
    problem, p_star = phessian.student_teacher(rng, 8, 3, 6)
    exact = phessian.dense_hessian(problem, p_star, exact=True)
    gn = phessian.dense_hessian(problem, p_star, exact=False)
    assert np.abs(exact - gn).max() < 1e-14


def test_spectrum_methods_agree():
    rng = np.random.default_rng(2)
    problem, p_star = phessian.student_teacher(rng, 40, 5, 12)
    gram = phessian.gauss_newton_spectrum(problem, p_star)
    dense = np.linalg.eigvalsh(phessian.dense_hessian(problem, p_star, exact=False))
    assert abs(gram.lambda_max / dense[-1] - 1) < 1e-10 and abs(gram.lambda_min / dense[0] - 1) < 1e-8
    lanczos = phessian.hessian_spectrum(problem, p_star, exact=False, matrix_free=True)
    assert abs(lanczos.lambda_max / dense[-1] - 1) < 1e-8


# ---------------------------------------------------------------- CLI


def test_spectrum_cli_json(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"logits": [0, -700, -2, -1500], "H": [[2, 0, 0, 0], [0, 3, 1, 0], [0, 1, 4, 0], [0, 0, 0, 1]]}))
    out = run_cli("spectrum", str(path), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["n"] == 4 and len(data["eigenvalues"]) == 4 and float(data["eigenvalues"][-1]) == 0
    with mp.workdps(40):
        values = [mp.mpf(v) for v in data["eigenvalues"]]
        assert values == sorted(values, reverse=True)
        assert abs(mp.mpf(data["kappa_J"]) / (values[0] / values[-2]) - 1) < mp.mpf(10) ** -25
    assert data["kappa_JHJ"] is not None and data["kappa_JHJ_digits"] >= 15  # a 4-token H: the enclosure, or the dense path


def test_spectrum_of_an_exact_kappa_has_every_digit():
    """κ = 1 exactly (a zero-width ball, whose digits are infinite) once ended in an OverflowError (a review)."""
    from verify.api import j_spectrum, make_case

    report = j_spectrum(make_case(logits=[0, 0], H=[[1, 0], [0, 1]]), 30)
    assert report.kappa_JHJ == 1 and report.kappa_JHJ_digits == 30


def test_spectrum_beyond_the_dense_limit_gives_kappa_to_the_digits_its_enclosure_vouches_for():
    """Repeated logits and a tridiagonal H, 70 tokens: the enclosure leaves κ of J H J short of the 30 digits asked
    (clustered eigenvalues), and beyond PRECISE_KAPPA_LIMIT tokens the dense precise path (minutes at n = 400, found
    by an attack) is not run: κ comes with the digits it carries, each of them right (an independent dense solve)."""
    from tests.dense_reference import _eigenvalues, helmert
    from verify.api import j_spectrum, make_case
    from verify.numerics.jspectrum import PRECISE_KAPPA_LIMIT

    n = 70
    logits = [-(i % 7) for i in range(n)]
    H = [[3 if i == j else int(abs(i - j) == 1) for j in range(n)] for i in range(n)]
    report = j_spectrum(make_case(logits=logits, H=H), 30)
    assert n > PRECISE_KAPPA_LIMIT and 1 <= report.kappa_JHJ_digits < 30
    with mp.workdps(25):
        e = [mp.exp(v) for v in logits]
        z = [v / mp.fsum(e) for v in e]
        J = mp.matrix([[(z[i] if i == j else 0) - z[i] * z[j] for j in range(n)] for i in range(n)])
        Q = helmert(n)
        lam = _eigenvalues(Q.T * J * mp.matrix(H) * J * Q)
        assert abs(report.kappa_JHJ / (lam[0] / lam[-1]) - 1) < mp.mpf(10) ** -report.kappa_JHJ_digits


@pytest.mark.parametrize("body", [
    {"z": []}, {"z": [1.0]}, {"logits": [0]}, {"z": [0.5, 0.6]}, {"z": [-0.1, 1.1]}, {"logits": ["nan", 0]},
    {"logits": [0, 1], "H": [[1, 0, 0]]}, {"logits": [0, 1], "H": [[1, 2], [0, 1]]},
])
def test_spectrum_bad_input(tmp_path, body):
    from tests.test_cli import assert_one_line_error

    path = tmp_path / "s.json"
    path.write_text(json.dumps(body))
    assert_one_line_error(run_cli("spectrum", str(path)))


@pytest.mark.parametrize("kind", ["graded", "random", "spread", "ties"])
def test_float64_and_high_precision_runs_of_the_one_solver_agree(kind):
    """The same iteration on float64 arrays and on 200-bit arf points (started from scratch): every float64 root
    is within a few ulps of the precise one."""
    import flint

    from verify.numerics import secular

    rng = np.random.default_rng(7)
    z = {"graded": 10.0 ** -np.linspace(1, 300, 40), "random": rng.random(300),
         "spread": np.exp(-rng.uniform(0, 600, 300)), "ties": np.repeat(rng.random(50), 3)}[kind]
    z = z / z.sum()
    poles, weights, _ = secular.deflate(z, z.copy())
    count = len(poles) - 1
    fast = secular.roots(poles, weights, 0.0, count)
    with flint.ctx.workprec(200):
        points = np.array([flint.arf(float(v)) for v in poles], dtype=object)
        precise = secular.roots(points, points.copy(), 0, count)
        worst = max(abs(float((flint.arb(f) - flint.arb(p)) / flint.arb(p))) for f, p in zip(fast, precise))
    assert worst <= 8e-16


def test_high_precision_roots_from_a_float_start_match_a_cold_start():
    import flint

    from verify.numerics import secular

    z = np.random.default_rng(3).random(60)
    z = z / z.sum()
    with flint.ctx.workprec(300):
        points = np.array(sorted((flint.arf(float(v)) for v in z), reverse=True), dtype=object)
        warm = secular.precise_roots(points, points.copy())
        cold = secular.roots(points, points.copy(), 0, len(points) - 1)
        assert max(abs(float((flint.arb(a) - flint.arb(b)) / flint.arb(b))) for a, b in zip(warm, cold)) < 1e-85



def test_clustered_poles_get_a_float_start_from_the_shifted_problem():
    """Near-uniform z (poles 1/n apart by 2^-70 relative: equal in float64) still start the precise run from
    float64 roots, of the problem shifted by the smallest pole, and land on the cold start's roots."""
    import flint

    from verify.numerics import secular

    n = 40
    with flint.ctx.workprec(300):
        base = flint.arf(1) / n
        points = np.array([base * (1 + flint.arf((n - k, -70)) + flint.arf((k % 3, -75))) for k in range(n)],
                          dtype=object)
        assert len({float(v) for v in points}) == 1  # one float64: the unshifted start is impossible
        start = secular._float_start(points, points.copy(), n - 1)
        assert start is not None
        warm = secular.roots(points, points.copy(), 0, n - 1, start)
        cold = secular.roots(points, points.copy(), 0, n - 1)
        gaps = [float((points[k] - points[k + 1]) / base) for k in range(n - 1)]
        assert all(points[k + 1] < warm[k] < points[k] for k in range(n - 1))
        assert max(abs(float((flint.arb(a) - flint.arb(b)) / base)) / g for a, b, g in zip(warm, cold, gaps)) < 1e-60

def test_secular_balls_contain_the_roots_with_exact_ties():
    """J's eigenvalues as balls: the tied coefficients are eigenvalues, each root is enclosed by sign checks."""
    from fractions import Fraction

    import flint

    from verify.numerics.secular_balls import secular_balls

    keys = [Fraction(v) for v in (5, 3, 3, 2, 1, 1, 1)]  # poles 5 > 3 (×2) > 2 > 1 (×3), weights 1
    with flint.ctx.workprec(200):
        values = secular_balls(keys, [flint.arb(int(k)) for k in keys], [flint.arb(1)] * len(keys))
    with mp.workdps(70):
        reference = sorted(_on_tangent_eigenvalues([int(k) for k in keys]), reverse=True)
    assert len(values) == 6
    for ball, value in zip(values, reference):
        with flint.ctx.workprec(260):
            assert ball.overlaps(flint.arb(mp.nstr(value, 65))) and float(ball.rad()) < 1e-55
    assert values[1].contains(3) and values[4].contains(1) and values[5].contains(1)  # the exact ties


def _on_tangent_eigenvalues(diagonal):
    """Eigenvalues of diag(h) restricted to 1^⊥ (Helmert basis), densely at the working precision."""
    n = len(diagonal)
    Q = mp.matrix(n, n - 1)
    for k in range(1, n):
        for i in range(k):
            Q[i, k - 1] = 1 / mp.sqrt(k * (k + 1))
        Q[k, k - 1] = -k / mp.sqrt(k * (k + 1))
    return mp.eigsy(Q.T * mp.diag(diagonal) * Q, eigvals_only=True)


@pytest.mark.parametrize("gap_bits", [30, 60, 100, 150])
def test_poles_closer_than_float64_rounding_keep_their_root_between_them(gap_bits):
    """Two poles 2^-gap apart (weights = poles): float64 rounds them apart by 2^-53 or merges them, so the warm
    start is wrong; the root must still lie strictly between the poles and match the closed form. With
    c = d, Σ d_j/(d_j − λ) = 0 is 2 d₁d₂ = λ(d₁ + d₂): λ = 2 d₁d₂/(d₁ + d₂)."""
    import flint

    from verify.numerics import secular
    from verify.numerics.secular_balls import secular_balls

    with flint.ctx.workprec(300):
        upper, lower = flint.arf(1), flint.arf(1) - flint.arf((1, -gap_bits))
        points = np.array([upper, lower], dtype=object)
        (root,) = secular.precise_roots(points, points.copy())
        assert lower < root < upper
        exact = 2 * flint.arb(upper) * flint.arb(lower) / (flint.arb(upper) + flint.arb(lower))
        assert abs(float((flint.arb(root) - exact) / (flint.arb(upper) - flint.arb(lower)))) < 1e-20
        (ball,) = secular_balls([1, 0], [flint.arb(upper), flint.arb(lower)], [flint.arb(upper), flint.arb(lower)])
        assert ball is not None and ball.overlaps(exact)
