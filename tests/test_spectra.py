"""The curvature kernel against an independent reference: a dense mpmath eigensolve of
Qᵀ J H J Q (Helmert basis of T) at a precision chosen to exceed the conditioning."""
import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from verify.numerics.softmax import jacobian, softmax
from verify.numerics.tangent import tangent_basis
from verify.numerics.arb import top_eigenvalue
from verify.numerics.curvature import curvature_fast, curvature_precise


def dense_reference(logits, H, digits):
    """λ_max, λ_min of J H J on T and of H on T by a full dense solve at `digits` + κ digits."""
    spread = float(max(logits) - min(logits))
    dps = int(digits + 2 * spread / 2.3 + 30)
    with mp.workdps(dps):
        z = softmax(np.array([mp.mpf(v) for v in logits], dtype=object))
        n = len(z)
        Q = mp.matrix(tangent_basis(n, mp_dps=dps).tolist())
        Hm = mp.matrix([[mp.mpf(v) for v in row] for row in H])
        J = mp.matrix(jacobian(z).tolist())
        curv = sorted(mp.eigsy(Q.T * J * Hm * J * Q, eigvals_only=True))
        on_T = sorted(mp.eigsy(Q.T * Hm * Q, eigvals_only=True))
        return curv[-1], curv[0], on_T[-1], on_T[0], dps


def spd(rng, n, spread=2.0):
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    H = (Q * 10 ** rng.uniform(-spread / 2, spread / 2, n)) @ Q.T
    return (H + H.T) / 2


cases = st.tuples(st.integers(2, 7), st.integers(0, 10**6), st.floats(0.5, 300))


@given(cases)
def test_precise_path_matches_dense_reference(params):
    n, seed, spread = params
    rng = np.random.default_rng(seed)
    logits = [float(v) for v in -spread * rng.random(n)]
    H = spd(rng, n)
    q = curvature_precise([mp.mpf(v) for v in logits], [[mp.mpf(float(v)) for v in r] for r in H], dps=30)
    ref = dense_reference(logits, H, 30)
    with mp.workdps(ref[4]):
        for got, want in zip((q.lambda_max, q.lambda_min, q.L_T, q.mu_T), ref[:4]):
            assert abs(got / want - 1) < mp.mpf(10) ** -28
    assert q.rel_err < 1e-28


@given(cases)
def test_fast_path_within_its_error_estimate(params):
    n, seed, spread = params
    rng = np.random.default_rng(seed)
    logits = np.array(-spread * rng.random(n))
    H = spd(rng, n)
    q = curvature_fast(logits - np.log(np.sum(np.exp(logits))), H)
    ref = dense_reference(logits.tolist(), H, 20)
    with mp.workdps(ref[4]):
        for got, want in zip((q.lambda_max, q.lambda_min), ref[:2]):
            assert abs(got / want - 1) <= q.rel_err


def test_forty_tokens_logits_down_to_minus_575_twenty_digits():
    """The acceptance case: κ ≈ 1e487 here; 20 significant digits against the dense reference."""
    n = 40
    logits = np.linspace(-575, 0, n)
    rng = np.random.default_rng(0)
    A = rng.standard_normal((n, n))
    H = A @ A.T / n + np.eye(n)
    q = curvature_precise([mp.mpf(float(v)) for v in logits], [[mp.mpf(float(v)) for v in r] for r in H], dps=30)
    with mp.workdps(600):
        z = softmax(np.array([mp.mpf(float(v)) for v in logits], dtype=object))
        J = mp.matrix(jacobian(z).tolist())
        eig = sorted(mp.eigsy(J * mp.matrix(H.tolist()) * J, eigvals_only=True))
        # eig[0] is the exact zero along 1; the spectrum on T is eig[1:]
        kappa_ref = eig[-1] / eig[1]
        assert mp.log10(kappa_ref) > 400
        assert abs(q.kappa / kappa_ref - 1) < mp.mpf(10) ** -20


def test_dense_float64_is_wrong_there():
    """Why the kernel exists: numpy's dense solve of the same matrix gets λ_min wrong."""
    n = 12
    logits = np.linspace(-200, 0, n)
    H = np.eye(n)
    z = softmax(logits)
    Q = tangent_basis(n)
    dense = np.linalg.eigvalsh(Q.T @ jacobian(z) @ H @ jacobian(z) @ Q)[0]
    q = curvature_precise([mp.mpf(float(v)) for v in logits], [[mp.mpf(float(v)) for v in r] for r in H], dps=30)
    ref = dense_reference(logits.tolist(), H, 30)
    with mp.workdps(60):
        assert abs(q.lambda_min / ref[1] - 1) < mp.mpf(10) ** -25
        assert abs(mp.mpf(dense) / ref[1] - 1) > 1  # float64 dense: not even the order of magnitude


def test_top_eigenvalue_residual_bound():
    import flint

    rng = np.random.default_rng(3)
    H = spd(rng, 6, spread=4)
    with flint.ctx.workprec(200):
        value, err = top_eigenvalue(flint.arb_mat(H.tolist()))
    with mp.workdps(60):
        ref = max(mp.eigsy(mp.matrix(H.tolist()), eigvals_only=True))
        assert abs(value / ref - 1) <= max(err, 1e-55)


@pytest.mark.parametrize("seed", range(3))
def test_multi_balls_contain_an_independent_dense_reference(seed):
    """Under K Kᵀ = I the nonzero spectrum of KᵀMK is that of M: both balls of T2.multi must contain
    κ of M computed densely by mpmath at 60 digits (J, H_i rebuilt from the exact inputs)."""
    from verify.claims.search.sampling import random_multi_case
    from verify.claims.cases.multi_balls import enclose_multi
    from verify.numerics.arb import arb_to_mpf
    from verify.numerics.precision import to_mpf

    case = random_multi_case(seed, 5)
    enclosure = enclose_multi(case, 400)
    with mp.workdps(60):
        positive = []
        for log_z, H in zip(case.log_zs, case.Hs):
            z = softmax(np.array([to_mpf(v) for v in log_z], dtype=object))
            J = mp.matrix(jacobian(z).tolist())
            B = J * mp.matrix([[to_mpf(v) for v in r] for r in H]) * J
            positive += sorted(mp.eigsy(B, eigvals_only=True))[1:]  # drop the 0 along 1
        reference = max(positive) / min(positive)
        for ball in (enclosure.dense, enclosure.blocks):
            assert abs(arb_to_mpf(ball) / reference - 1) < mp.mpf(10) ** -45
