"""Softmax numerics (SPEC §1), one code path for float64 arrays and mpmath.

Functions take numpy arrays of float64 or of mpmath mpf (dtype=object): the
arithmetic is the same, the precision is the caller's (scoped with mp.workdps).
"""
import mpmath as mp
import numpy as np


def _is_mp(array):
    return np.asarray(array).dtype == object


def as_mp(values):
    return np.array([mp.mpf(v) for v in values], dtype=object)


def log_softmax(logits):
    """log σ(s) = s − logsumexp(s), shifted by max(s) so |s| = 1e6 cannot overflow."""
    s = np.asarray(logits)
    shifted = s - max(s)
    if _is_mp(s):
        return shifted - mp.log(mp.fsum(mp.exp(x) for x in shifted))
    return shifted - np.log(np.sum(np.exp(shifted)))


def softmax(logits):
    """σ(s); from mpmath logits every coefficient keeps its digits, however small."""
    log_z = log_softmax(logits)
    if _is_mp(log_z):
        return np.array([mp.exp(x) for x in log_z], dtype=object)
    return np.exp(log_z)


def complements(z):
    """1 − z_k, computed as Σ_{j≠k} z_j for the largest z_k so z_k ≈ 1 loses nothing."""
    z = np.asarray(z)
    top = int(np.argmax(z))
    others = np.delete(z, top)
    comp = 1 - z
    comp[top] = mp.fsum(others) if _is_mp(z) else np.sum(others)
    return comp


def jacobian(z):
    """J(z) = diag(z) − z zᵀ (symmetric PSD, J 1 = 0), diagonal z_k(1 − z_k) without cancellation."""
    z = np.asarray(z)
    J = -np.outer(z, z)
    J[np.diag_indices(len(z))] = z * complements(z)
    return J


def jacobian_symbolic(z):
    """J(z) = diag(z) − z zᵀ as a SymPy matrix of the entries z (symbols or expressions; D1)."""
    import sympy as sp  # only the symbolic callers pay for loading SymPy

    n = len(z)
    return sp.Matrix(n, n, lambda i, k: z[i] * (int(i == k) - z[k]))


def hessian_tensor(z):
    """∂²σ_k/∂s_a∂s_b = σ_k[(δ_ka − σ_a)(δ_kb − σ_b) − σ_a(δ_ab − σ_b)], as T[k, a, b].

    Row k is z_k [(e_k − z)(e_k − z)ᵀ − J(z)].
    """
    z = np.asarray(z)
    n = len(z)
    eye = np.eye(n, dtype=z.dtype)
    if _is_mp(z):
        eye = np.array([[mp.mpf(int(i == j)) for j in range(n)] for i in range(n)], dtype=object)
    E = eye - z[None, :]
    J = jacobian(z)
    return z[:, None, None] * (E[:, :, None] * E[:, None, :] - J[None, :, :])


def tangent_basis(n, mp_dps=None):
    """Orthonormal basis of T = 1^⊥ (Helmert columns), n × (n − 1)."""
    if mp_dps is None:
        Q = np.zeros((n, n - 1))
        sqrt = np.sqrt
    else:
        Q = np.array([[mp.mpf(0)] * (n - 1) for _ in range(n)], dtype=object)
        sqrt = mp.sqrt
    for k in range(1, n):
        norm = sqrt(k * (k + 1))
        Q[:k, k - 1] = 1 / norm
        Q[k, k - 1] = -k / norm
    return Q


def on_simplex_error(z, tol=1e-12):
    """None if z is a probability vector with positive entries (sum within tol), else a reason."""
    if any(v < 0 for v in z):
        return "has a negative entry"
    if any(v == 0 for v in z):
        return "has a zero entry (the claims need every z_k > 0; give logits instead)"
    total = mp.fsum(z) if _is_mp(np.asarray(z)) else float(np.sum(z))
    if abs(total - 1) > tol:
        return f"sums to {mp.nstr(total, 17)}, not 1 within {tol:g}"
    return None
