"""Rigorous extreme eigenvalues from float64 eigendecompositions: verified spectra + Kato–Temple.

Two building blocks, used by `curvature.py` for every quantity of case mode.

1. `VerifiedPencil`: rigorous enclosures of ALL eigenvalues (modest accuracy,
   ~n²u relative) of an exact symmetric-definite pencil (M, N) (N = I for a
   standard problem), from a float64 copy A of M (‖M − A‖₂ ≤ e_A, B of N with
   ‖N − B‖₂ ≤ e_B) and float64 eigenvectors X.  The chain:
   - congruence: (M, N) and (XᵀMX, XᵀNX) have the same eigenvalues (X nonsingular);
   - S = XᵀNX = I + F with ‖F‖₂ ≤ δ < 1 (which also proves X nonsingular);
   - XᵀMX = diag(g) + E, ‖E‖₂ ≤ ε (Frobenius bounds, below); Weyl:
     λ_k(XᵀMX) ∈ [g_(k) − ε, g_(k) + ε] (g sorted);
   - Ostrowski (Horn & Johnson 4.5.9) with W = S^{-1/2}: the pencil's k-th
     eigenvalue is θ_k λ_k(XᵀMX), θ_k ∈ [1/(1+δ), 1/(1−δ)].
   Float rounding is bounded a priori (`verify.numerics.rounding`: γ_m bounds of
   products, rigorous Frobenius norms of float arrays); all scalar bound
   arithmetic is done in arb.

2. `refine_extreme`: the largest (or smallest) eigenvalue to high RELATIVE
   accuracy.  For a vector y (any y in the space; arb balls containing it are
   fine by inclusion), θ = yᵀMy / yᵀNy and r = My − θNy:
   - top:    θ ≤ λ_1 ≤ θ + ε²/(θ − α)   if α ≥ λ_2 and α < θ,
   - bottom: θ − ε²/(β − θ) ≤ λ_n ≤ θ   if β ≤ λ_{n−1} and θ < β,
   with ε² = rᵀN⁻¹r / yᵀNy ≤ ‖r‖² / (ν · yᵀNy), ν ≤ λ_min(N) (Kato–Temple in the
   N-inner product; proof for the top: with u = N^{1/2}y, K = N^{-1/2}MN^{-1/2},
   Σ c_i²(λ_i − α)(λ_i − λ_1) = ε² − (θ − α)(λ_1 − θ) and every term on the
   left is ≥ 0 because no λ_i lies in (α, λ_1)).  α, β come from the
   VerifiedPencil; the result is also intersected with its enclosure.
   y is improved by iterative refinement (Dongarra–Moler–Wilkinson): the residual
   is computed in arb at the working precision, the correction
   δ = −Σ_{i≠t} x_i (x_iᵀ r)/(λ_i − θ) in float64 from the float eigenpairs; each
   step gains roughly log10(gap / (n u ‖M‖)) digits, and the Kato–Temple bound
   squares the residual.  The refinement only chooses y; rigour never depends on it.
"""
import math

import flint
import numpy as np

from verify.numerics.rounding import ETA, U, fro, matmul_error


class VerifiedPencil:
    """Rigorous enclosures of all eigenvalues of the exact pencil (M, N) (see the module docstring).

    A, X: float64 arrays (n×n); e_A ≥ ‖M − A‖₂; B, e_B likewise for N (B None: N = I, e_B = 0).
    `enclosure(k)` gives (lo, hi) arb points for the k-th smallest eigenvalue (0-based).
    """

    def __init__(self, A, e_A, X, B=None, e_B=0):
        n = A.shape[0]
        nX = fro(X)
        nA = fro(A)
        Y = A @ X
        G = X.T @ Y
        err_Y = matmul_error(nA, nX, n, n, n)
        err_G = matmul_error(nX, fro(Y), n, n, n) + nX * err_Y
        Gs = 0.5 * (G + G.T)  # the exact XᵀMX is symmetric: symmetrising loses nothing; one rounding each
        err_G += U * fro(Gs) + n * n * flint.arb(ETA)
        g = np.diag(Gs).copy()
        off = Gs.copy()
        np.fill_diagonal(off, 0.0)
        self.eps = err_G + fro(off) + nX * nX * flint.arb(e_A)
        if B is None:
            S = X.T @ X
            err_S = matmul_error(nX, nX, n, n, n)
        else:
            Z = B @ X
            S = X.T @ Z
            err_S = matmul_error(nX, fro(Z), n, n, n) + nX * matmul_error(fro(B), nX, n, n, n)
            err_S += nX * nX * flint.arb(e_B)
        # S − I: the diagonal subtraction is exact when s_ii ∈ [1/2, 2] (Sterbenz); else add u|S|.
        F = S - np.eye(n)
        diag = np.diag(S)
        if not np.all((diag >= 0.5) & (diag <= 2)):
            err_S += U * fro(S)
        self.delta = fro(F) + err_S
        self.g = np.sort(g)
        self.ok = bool(self.delta < 1) and bool(self.eps.is_finite())
        if self.ok:
            self.theta = (1 / (1 + self.delta), 1 / (1 - self.delta))

    def enclosure(self, k):
        """(lo, hi): bounds (balls containing exact bounds) with lo ≤ (k-th smallest eigenvalue) ≤ hi."""
        if not self.ok:
            return flint.arb("-inf"), flint.arb("inf")
        lo_m = flint.arb(float(self.g[k])) - self.eps
        hi_m = flint.arb(float(self.g[k])) + self.eps
        t1, t2 = self.theta
        return (t1 * lo_m).min(t2 * lo_m), (t1 * hi_m).max(t2 * hi_m)


def hull(lo, hi):
    """The ball [lower end of lo, upper end of hi] (a valid enclosure given bounds lo, hi)."""
    return lo.union(hi)


def rel_width(ball):
    """Relative radius rad/|mid| as a float (inf when the ball contains 0)."""
    if not ball.is_finite() or ball.contains(0):
        return math.inf
    w = float((flint.arb(ball.rad()) / abs(flint.arb(ball.mid()))).mid())  # in arb: mid may be far below 1e-308
    return max(w, 1e-300) if ball.rad() != 0 else 0.0


def to_float_scaled(v):
    """Float64 copy of the ball midpoints of v (list of arb), scaled by 2^-e to avoid under/overflow; returns (array, e)."""
    exps = []
    for a in v:
        m = a.mid()
        if m != 0:
            man, exp = m.man_exp()
            exps.append(int(exp) + int(man).bit_length())
    e = max(exps) if exps else 0
    scale = flint.arb(2) ** (-e)
    return np.array([float((a.mid() * scale).mid()) for a in v]), e


def dot(x, y):
    return sum((a * b for a, b in zip(x, y)), flint.arb(0))


def refine_extreme(apply_M, apply_N, project, x0, X, lam, t, which, bound_other, n_min, verified, target_rel, max_steps=12):
    """Enclose the top (which="top") or bottom eigenvalue of the exact pencil by Kato–Temple.

    apply_M, apply_N: y ↦ My, Ny on lists of arb (apply_N None: N = I); project: y ↦ y
    restricted to the space (None: Rⁿ); x0: float64 start; X, lam: float64 eigenpairs
    (t = index of the wanted one); bound_other: α ≥ λ_2 (top) or β ≤ λ_{n−1} (bottom),
    arb; n_min: arb lower bound > 0 of λ_min(N) on the space; verified: (lo, hi) of
    the wanted eigenvalue from VerifiedPencil.  Returns (ball, steps, kato_temple_ok).
    """
    lo_v, hi_v = verified
    y_point = [flint.arb(float(v)) for v in x0]
    mask = np.ones(len(lam), dtype=bool)
    mask[t] = False
    Xo, lam_o = X[:, mask], lam[mask]
    best = None
    previous_width = None
    kt_ok = False
    for step in range(max_steps + 1):
        y = project(y_point) if project else y_point
        My = apply_M(y)
        Ny = apply_N(y) if apply_N else y
        den = dot(y, Ny)
        theta = dot(y, My) / den
        r = [a - theta * b for a, b in zip(My, Ny)]
        eps2 = dot(r, r) / (n_min * den)
        if bound_other is None:  # no other eigenvalue on the space (a line): θ is the eigenvalue
            kt_ok = True
            lo = hi = theta
        elif which == "top":
            gap = theta - bound_other
            kt_ok = bool(gap > 0)
            lo = theta
            hi = theta + eps2 / gap if kt_ok else hi_v
        else:
            gap = bound_other - theta
            kt_ok = bool(gap > 0)
            hi = theta
            lo = theta - eps2 / gap if kt_ok else lo_v
        ball = hull(lo.max(lo_v), hi.min(hi_v))
        width = rel_width(ball)
        if best is None or width < best[1]:
            best = (ball, width, step)
        if width < target_rel or not kt_ok:
            break
        if previous_width is not None and not width < 0.5 * previous_width:
            break  # stagnated (working precision reached)
        previous_width = width
        r_f, e = to_float_scaled(r)
        theta_f = float(theta.mid())
        coeffs = Xo.T @ r_f
        denom = lam_o - theta_f
        if not np.all(np.abs(denom) > 0):
            break
        delta = -(Xo @ (coeffs / denom))
        scale = flint.arb(2) ** e
        y_point = [(a + flint.arb(float(d)) * scale).mid() for a, d in zip(y_point, delta)]
        y_point = [flint.arb(a) for a in y_point]
    return best[0], best[2], kt_ok
