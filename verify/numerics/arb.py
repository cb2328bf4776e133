"""Python-flint ball arithmetic for the precise path: arb matrices of exact entries, the bordered
inverse on T, and the top eigenvalue by Rayleigh-quotient iteration.

`top_eigenvalue` refines a float64 eigenvector by Rayleigh-quotient iteration at the context
precision and estimates its error by the residual (Weyl; an estimate for the precise path, not a
ball). Every eigenvalue as a ball: `verify.numerics.eigenballs.symmetric_eigenvalue_balls`.
"""
import math

import flint
import mpmath as mp
import numpy as np

from verify.numerics.precision import arb_to_mpf, to_arb

__all__ = ["arb_to_mpf", "arb_matrix", "top_eigenvalue", "bordered_inverse_block_arb", "to_arb"]


def arb_matrix(rows):
    """An arb matrix of exact entries (each converted once, to a ball around its value)."""
    return flint.arb_mat([[to_arb(v) if not isinstance(v, flint.arb) else v for v in row] for row in rows])


def _mid_floats(M, scale):
    """Float64 midpoints of M/scale (underflow to 0 is harmless: the entries are ≤ 1), read off each ball: six times
    faster than through mpmath, and the same floats but for the last digit of a few subnormal ones (a start vector)."""
    return np.array([[float(M[i, j] / scale) for j in range(M.ncols())] for i in range(M.nrows())])


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
    rel_err += math.ldexp(1.0, max(16 - flint.ctx.prec, -1070))  # the iteration's own rounding (and never 0)
    if float(arb_to_mpf(theta / scale)) < w[-1] * (1 - 1e-6) or not _above_all(M, theta, rel_err):
        value, dense_err = _top_eigenvalue_dense(M)
        return value, max(rel_err, dense_err)  # M's own width, which the residual measured, stays in the error
    return arb_to_mpf(theta), rel_err


def _above_all(M, theta, rel_err):
    """Whether θ(1 + rel_err) is certainly above every eigenvalue of M (its difference with M positive definite:
    every pivot of its LDLᵀ in balls > 0), so that λ_max lies in θ(1 ± rel_err): the residual puts only SOME
    eigenvalue within rel_err of θ, and from a float64 start Rayleigh-quotient iteration can settle on one just below
    the top (a gap of 2^-60 at H = diag(1, 1 + 2^-60, 1), where L_T then read 1 and the true λ(1) <= L_T*z(1)**2
    came back failing)."""
    from verify.numerics.definite import ldl_signs

    if not math.isfinite(rel_err) or not theta.is_finite():
        return False
    n = M.nrows()
    top = theta + abs(theta) * flint.arb(rel_err)
    return ldl_signs([[(top if i == j else 0) - M[i, j] for j in range(n)] for i in range(n)]) == 1


def _top_eigenvalue_dense(M):
    """Fallback when RQI lands on another eigenvalue, or its top cannot be confirmed: mpmath's full solve of M's
    midpoints at the same precision, with a relative error of M's radii (Weyl: ‖rad M‖_F moves every eigenvalue at
    most that far) and of the solve's own rounding."""
    from verify.numerics.eigenballs import frobenius_upper

    n = M.nrows()
    with mp.workprec(flint.ctx.prec):
        A = mp.matrix([[arb_to_mpf(M[i, j]) for j in range(n)] for i in range(n)])
        top = max(mp.eigsy(A, eigvals_only=True))
        width = arb_to_mpf(frobenius_upper(M - M.mid()))
        rounding = mp.ldexp(mp.mpf(1), -flint.ctx.prec + 8 + n)
        return top, float(width / abs(top) + rounding) if top != 0 else math.inf


def _upper(a):
    """A float upper bound of the ball a (inf when a is not finite)."""
    if not a.is_finite():
        return math.inf
    return float(a.mid()) + float(a.rad())


def _rayleigh(M, x):
    return (x.transpose() * M * x)[0, 0] / (x.transpose() * x)[0, 0]


def _norm(x):
    return (x.transpose() * x)[0, 0].sqrt()


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
