"""docs/spec.md §1 facts as property tests, against independent computations (mpmath finite differences)."""
import mpmath as mp
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from verify.numerics.softmax import as_mp, hessian_tensor, jacobian, log_softmax, softmax
from verify.numerics.tangent import tangent_basis

logit_vectors = st.integers(2, 8).flatmap(
    lambda n: st.lists(st.floats(-30, 30, allow_nan=False), min_size=n, max_size=n))


@given(logit_vectors)
def test_jacobian_symmetric_psd_kernel_and_rank(logits):
    z = softmax(np.array(logits))
    J = jacobian(z)
    n = len(z)
    assert np.allclose(J, J.T, atol=0)
    assert np.abs(J @ np.ones(n)).max() <= 1e-15
    with mp.workdps(60):
        Jm = jacobian(softmax(as_mp(logits)))
        eig = sorted(mp.eigsy(mp.matrix(Jm.tolist()), eigvals_only=True))
        assert abs(eig[0]) < mp.mpf(10) ** -50
        # rank n − 1: the others are at least z_min ≥ e^-60/n, far above the 60-digit noise
        assert all(e > mp.mpf(10) ** -40 for e in eig[1:])


@given(logit_vectors)
def test_interlacing(logits):
    with mp.workdps(60):
        z = softmax(as_mp(logits))
        eig = sorted(mp.eigsy(mp.matrix(jacobian(z).tolist()), eigvals_only=True), reverse=True)
        zs = sorted(z, reverse=True)
        slack = mp.mpf(10) ** -50
        for k in range(len(z) - 1):
            assert zs[k + 1] - slack <= eig[k] <= zs[k] + slack


@given(logit_vectors, st.data())
def test_norm_identity(logits, data):
    z = softmax(np.array(logits))
    u = np.array(data.draw(st.lists(st.floats(-10, 10), min_size=len(z), max_size=len(z))))
    lhs = np.sum((jacobian(z) @ u) ** 2)
    rhs = np.sum(z**2 * (u - z @ u) ** 2)
    assert abs(lhs - rhs) <= 1e-12 * (1 + abs(rhs))


def _fd_jacobian(logits, dps=50):
    """∂σ/∂s by mpmath numerical differentiation at high precision: independent of the closed form."""
    n = len(logits)
    with mp.workdps(dps):
        s = [mp.mpf(v) for v in logits]
        columns = []
        for a in range(n):
            def component(t, k, a=a):
                shifted = list(s)
                shifted[a] += t
                return softmax(np.array(shifted, dtype=object))[k]
            columns.append([mp.diff(lambda t: component(t, k), 0) for k in range(n)])
        return [[columns[a][k] for a in range(n)] for k in range(n)]


@given(st.integers(2, 5).flatmap(lambda n: st.lists(st.integers(-20, 20), min_size=n, max_size=n)))
def test_jacobian_against_finite_differences(logits):
    fd = _fd_jacobian(logits)
    with mp.workdps(50):
        closed = jacobian(softmax(as_mp(logits)))
        for k in range(len(logits)):
            for a in range(len(logits)):
                assert abs(closed[k, a] - fd[k][a]) < mp.mpf(10) ** -35


@given(st.integers(2, 4).flatmap(lambda n: st.lists(st.integers(-10, 10), min_size=n, max_size=n)))
def test_hessian_tensor_against_finite_differences(logits):
    n = len(logits)
    with mp.workdps(40):
        s = as_mp(logits)
        T = hessian_tensor(softmax(s))
        for a in range(n):
            def jac_row(t, k, b, a=a):
                shifted = s.copy()
                shifted[a] += t
                return jacobian(softmax(shifted))[k, b]
            for k in range(n):
                for b in range(n):
                    fd = mp.diff(lambda t: jac_row(t, k, b), 0)
                    assert abs(T[k, a, b] - fd) < mp.mpf(10) ** -25


def test_hessian_sign_flip_is_caught():
    """The finite-difference check distinguishes the right tensor from one with a sign flipped."""
    with mp.workdps(40):
        s = as_mp([0, -1, 2])
        z = softmax(s)
        T = hessian_tensor(z)
        wrong = T.copy()
        wrong[0] = -wrong[0]
        shifted = s.copy()
        shifted[0] += mp.mpf(10) ** -15
        fd = (jacobian(softmax(shifted))[0, 0] - jacobian(z)[0, 0]) / mp.mpf(10) ** -15
        assert abs(T[0, 0, 0] - fd) < 1e-10 < abs(wrong[0, 0, 0] - fd)


def test_stable_at_huge_logits_and_tiny_coefficients():
    z = softmax(np.array([1e6, -1e6, 0.0]))
    assert np.isfinite(z).all() and abs(z.sum() - 1) < 1e-15
    with mp.workdps(30):
        z = softmax(as_mp([0, -2000, -1e6]))
        # e^-2000 ≈ 1e-869 is far below float64's range; mpmath keeps its digits
        assert abs(z[1] / mp.exp(-2000) - 1) < mp.mpf(10) ** -25
        assert z[2] > 0
        assert abs(log_softmax(as_mp([0, -2000]))[1] + 2000) < mp.mpf(10) ** -25


@given(st.integers(2, 12))
def test_tangent_basis_orthonormal_and_orthogonal_to_ones(n):
    Q = tangent_basis(n)
    assert np.allclose(Q.T @ Q, np.eye(n - 1), atol=1e-14)
    assert np.abs(np.ones(n) @ Q).max() < 1e-14
