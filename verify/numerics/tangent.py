"""The tangent space T = 1^⊥ of the simplex, built once: its orthonormal (Helmert) basis for float64,
mpmath and Arb, and the projection P M P (P = I − 11ᵀ/n) for float64 and Arb.

A symmetric M restricted to T is QᵀMQ for an orthonormal basis Q of T: it is symmetric, and its
eigenvalues are exactly those of M on T. Helmert's columns q_k = (1, …, 1, −k, 0, …)/√(k(k+1)) have
irrational entries; the Arb basis holds balls that contain them, so QᵀMQ computed in Arb contains the
exact restriction.
"""
import flint
import mpmath as mp
import numpy as np


def tangent_basis(n, mp_dps=None):
    """Orthonormal basis of T (Helmert columns), n × (n − 1): float64, or mpmath numbers when mp_dps is given
    (at the context precision)."""
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


def tangent_basis_arb(n):
    """The Helmert basis as an arb_mat of balls containing its exact entries, at the context precision."""
    Q = flint.arb_mat(n, n - 1)
    for k in range(1, n):
        inverse_norm = flint.arb(k * (k + 1)).rsqrt()
        for i in range(k):
            Q[i, k - 1] = inverse_norm
        Q[k, k - 1] = -k * inverse_norm
    return Q


def on_tangent(M):
    """QᵀMQ: the arb_mat M restricted to T in the Helmert basis (symmetric when M is)."""
    Q = tangent_basis_arb(M.nrows())
    return Q.transpose() * M * Q


def centre(A):
    """P A P (P = I − 11ᵀ/n) for a float64 array, by the fixed steps whose rounding
    `verify.numerics.enclosures.verified.centre_error` bounds; for an arb_mat, in Arb."""
    if isinstance(A, flint.arb_mat):
        n = A.nrows()
        P = flint.arb_mat(n, n)
        share = flint.arb(1) / n
        for i in range(n):
            for j in range(n):
                P[i, j] = (1 if i == j else 0) - share
        return P * A * P
    n = A.shape[0]
    col = A.sum(axis=0) / n
    row = A.sum(axis=1) / n
    tot = col.sum() / n
    return ((A - row[:, None]) - col[None, :]) + tot


def project(y):
    """P y = y − mean(y) 1 for a list of balls (balls containing the exact projection)."""
    mean = sum(y, flint.arb(0)) / len(y)
    return [v - mean for v in y]
