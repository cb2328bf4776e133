"""Python-flint ball arithmetic for the precise path: exact conversions between mpf and arb,
J(z) and the bordered inverse on T as arb matrices, and rigorous eigenvalue tools.

`top_eigenvalue` refines a float64 eigenvector by Rayleigh-quotient iteration at the
context precision and bounds its error by the residual (Weyl); `all_eigenvalues` encloses
every eigenvalue of a small symmetric matrix (acb_mat.eig).
"""
import math

import flint
import mpmath as mp
import numpy as np
from mpmath.libmp import from_man_exp

from verify.numerics.precision import to_arb


def arb_to_mpf(a):
    """The midpoint of a, exactly (not rounded to mpmath's ambient precision)."""
    man, exp = a.mid().man_exp()
    return mp.make_mpf(from_man_exp(int(man), int(exp)))


def arb_matrix(rows):
    """An arb matrix of exact entries (each converted once, to a ball around its value)."""
    return flint.arb_mat([[to_arb(v) if not isinstance(v, flint.arb) else v for v in row] for row in rows])


def _mid_floats(M, scale):
    """Float64 midpoints of M/scale (underflow to 0 is harmless: the entries are ≤ 1)."""
    return np.array([[float(arb_to_mpf(M[i, j] / scale)) for j in range(M.ncols())] for i in range(M.nrows())])


def top_eigenvalue(M):
    """λ_max of a symmetric PSD arb matrix with its relative error bound.

    The float64 eigenvector of the scaled matrix starts Rayleigh-quotient
    iteration at the context precision; ‖Mx − θx‖/θ bounds the distance to an
    eigenvalue (Weyl), and θ must not fall below the float64 estimate of λ_max.
    """
    n = M.nrows()
    scale = max((abs(M[i, i]) for i in range(n)), key=lambda a: a.mid())
    if scale == 0:
        return mp.mpf(0), 0.0
    scaled = _mid_floats(M, scale)
    w, V = np.linalg.eigh(scaled)
    x = flint.arb_mat([[float(v)] for v in V[:, -1]])
    theta = _rayleigh(M, x)
    eye = flint.arb_mat(n, n)
    for i in range(n):
        eye[i, i] = 1
    for _ in range(8):
        y = (M - theta * eye).solve(x, nonstop=True, algorithm="approx")
        if not all(math.isfinite(float(y[i, 0].mid())) for i in range(n)):
            break
        x = y * (1 / _norm(y))
        new = _rayleigh(M, x)
        settled = abs(new - theta) <= abs(new) * flint.arb(2) ** (-flint.ctx.prec + 8)
        theta = new
        if settled:
            break
    residual = M * x - theta * x
    squared = (residual.transpose() * residual)[0, 0] / ((x.transpose() * x)[0, 0] * theta**2)
    rel_err = math.sqrt(_upper(squared))
    if float(arb_to_mpf(theta / scale)) < w[-1] * (1 - 1e-6):
        return _top_eigenvalue_dense(M)
    return arb_to_mpf(theta), rel_err


def _top_eigenvalue_dense(M):
    """Fallback when RQI lands on another eigenvalue: mpmath's full solve at the same precision."""
    n = M.nrows()
    A = mp.matrix([[arb_to_mpf(M[i, j]) for j in range(n)] for i in range(n)])
    return max(mp.eigsy(A, eigvals_only=True)), float(mp.mpf(2) ** (-mp.prec + 8 + n))


def _upper(a):
    """A float upper bound of the ball a (inf when a is not finite)."""
    if not a.is_finite():
        return math.inf
    return float(a.mid()) + float(a.rad())


def _rayleigh(M, x):
    return (x.transpose() * M * x)[0, 0] / (x.transpose() * x)[0, 0]


def _norm(x):
    return (x.transpose() * x)[0, 0].sqrt()


def softmax_arb(log_z):
    """z = σ(log z) as balls; the exact inputs are converted once, here."""
    z = [to_arb(v).exp() for v in log_z]
    total = sum(z)
    return [v / total for v in z]


def jacobian_arb(z):
    """J(z) = diag(z) − zzᵀ as an arb matrix, its diagonal z_i Σ_{j≠i} z_j (no cancellation)."""
    n = len(z)
    J = flint.arb_mat(n, n)
    for i in range(n):
        complement = sum(z[j] for j in range(n) if j != i)
        for j in range(n):
            J[i, j] = z[i] * complement if i == j else -z[i] * z[j]
    return J


def centre_arb(M):
    """P M P with P = I − 11ᵀ/n, in arb."""
    n = M.nrows()
    P = flint.arb_mat(n, n)
    for i in range(n):
        for j in range(n):
            P[i, j] = (1 if i == j else 0) - flint.arb(1) / n
    return P * M * P


def bordered_inverse_block_arb(H):
    """G = H_T⁻¹ on T: the top-left block of [[H, 1], [1ᵀ, 0]]⁻¹, symmetrised, in arb."""
    n = H.nrows()
    border = flint.arb_mat(n + 1, n + 1)
    rhs = flint.arb_mat(n + 1, n)
    for i in range(n):
        rhs[i, i] = 1
        border[i, n] = border[n, i] = 1
        for j in range(n):
            border[i, j] = H[i, j]
    X = border.solve(rhs, algorithm="approx")
    G = flint.arb_mat(n, n)
    for i in range(n):
        for j in range(n):
            G[i, j] = (X[i, j] + X[j, i]) / 2
    return G


def all_eigenvalues(M):
    """Rigorous real enclosures of all eigenvalues, or None if they cannot be isolated at this precision."""
    values = flint.acb_mat(M).eig(multiple=True, nonstop=True)
    if not all(v.is_finite() for v in values):
        return None
    return sorted((v.real for v in values), key=lambda a: a.mid())


def on_tangent(M, n):
    """M restricted to T in the basis v_i = e_i − e_n: (VᵀV)⁻¹ VᵀMV, (VᵀV)⁻¹ = I − 11ᵀ/n (exact)."""
    V = flint.arb_mat(n, n - 1)
    for i in range(n - 1):
        V[i, i] = 1
        V[n - 1, i] = -1
    gram_inv = flint.arb_mat(n - 1, n - 1)
    for i in range(n - 1):
        for j in range(n - 1):
            gram_inv[i, j] = (1 if i == j else 0) - flint.arb(1) / n
    return gram_inv * V.transpose() * M * V
