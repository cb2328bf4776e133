"""Spectra of the local curvature J H J on T = 1^⊥ (SPEC §1, T2).

κ of B = J H J on T is the product of two *largest* eigenvalues:
λ_max(B) and λ_max(B⁺) = 1/λ_min(B), where on T
    J⁺ = P D⁻¹ P   (D = diag z, P = I − 11ᵀ/n)   and   H_T⁻¹ = G,
G the top-left block of [[H, 1], [1ᵀ, 0]]⁻¹.  So B⁺ = P D⁻¹ G D⁻¹ P.
A largest eigenvalue has high relative accuracy, so the tiny λ_min of the
paper's regime (coefficients of 1e-30 and below, where a dense solve of B
returns noise) comes out with every digit.  Both matrices are scaled before
they meet float64, so coefficients far below float64's range are fine.

Two paths return the same `CurvatureSpectrum`:
- `curvature_fast`: float64 in the log domain, with an error estimate;
- `curvature_precise`: python-flint arb assembly at a working precision chosen
  from the data, the top eigenpair refined by Rayleigh-quotient iteration,
  its error bounded by the residual (Weyl).
"""
import math
from dataclasses import dataclass

import flint
import mpmath as mp
import numpy as np

from verify.numerics.arb import (all_eigenvalues, arb_matrix, arb_to_mpf, bordered_inverse_block_arb, centre_arb,
                                  jacobian_arb, on_tangent, softmax_arb, top_eigenvalue)
from verify.numerics.precision import bits_for, to_arb, to_fraction, to_mpf
from verify.numerics.secular import j_eigenvalues_mp

EPS = np.finfo(float).eps


@dataclass(frozen=True)
class CurvatureSpectrum:
    """Extreme eigenvalues of J H J on T and the constants of H; values are mpf."""

    n: int
    lambda_max: object
    lambda_min: object
    L_T: object  # λ_max of H on T (reading tangent-exact)
    mu_T: object  # λ_min of H on T
    L_amb: object  # λ_max of H on R^n (reading ambient-bounds)
    mu_amb: object
    z_desc: tuple  # coefficients, largest first
    rel_err: float  # estimated relative error of every value above
    dps: object  # None for the float64 path
    kappa: object = None  # λ_max/λ_min and R = z_max/z_min, computed at the working precision
    R: object = None
    j: tuple = None  # the n−1 positive eigenvalues of J(z), decreasing (when asked for)
    lam: tuple = None  # the n−1 eigenvalues of J H J on T, decreasing (when asked for)


def _spectrum(n, values, z_desc, rel_err, dps):
    """Call inside the working precision: κ and R are divided there, not at mpmath's default."""
    lambda_max, lambda_min = values[0], values[1]
    return CurvatureSpectrum(
        n, *values, z_desc, rel_err, dps, kappa=lambda_max / lambda_min, R=z_desc[0] / z_desc[-1]
    )


# ---------------------------------------------------------------- float64 path


def _log_complements(log_z):
    """log(1 − z_k): log1p(−z_k), except log Σ_{j≠k} z_j for the largest z_k."""
    top = int(np.argmax(log_z))
    with np.errstate(divide="ignore"):  # the top entry's log1p(−1) is replaced below
        out = np.log1p(-np.exp(log_z))
    others = np.delete(log_z, top)
    m = others.max()
    out[top] = m + np.log(np.sum(np.exp(others - m)))
    return out


def _bordered_inverse_block(H, solve):
    """G = H_T⁻¹ on T: top-left block of [[H, 1], [1ᵀ, 0]]⁻¹ (SPEC §1, T2)."""
    n = H.shape[0]
    border = np.ones((n + 1, n + 1))
    border[:n, :n] = H
    border[n, n] = 0
    rhs = np.zeros((n + 1, n))
    rhs[:n, :] = np.eye(n)
    return solve(border, rhs)[:n, :]


def _centre(M):
    """P M P with P = I − 11ᵀ/n."""
    return M - M.mean(axis=0, keepdims=True) - M.mean(axis=1, keepdims=True) + M.mean()


def scaled_operators(log_z, H):
    """Float64 (B/e^{2c}, B⁺·z_min², c, log z_min, G) with every entry at most about 1."""
    log_J_diag = log_z + _log_complements(log_z)
    c = log_J_diag.max()
    J_scaled = -np.exp(log_z[:, None] + log_z[None, :] - c)
    J_scaled[np.diag_indices(len(log_z))] = np.exp(log_J_diag - c)
    B_scaled = J_scaled @ H @ J_scaled
    G = _bordered_inverse_block(H, np.linalg.solve)
    log_z_min = log_z.min()
    d = np.exp(log_z_min - log_z)
    Bp_scaled = _centre(d[:, None] * G * d[None, :])
    return B_scaled, Bp_scaled, c, log_z_min, G


def curvature_fast(log_z, H):
    """Float64 path; `rel_err` is a conservative estimate, not a bound."""
    log_z = np.asarray(log_z, dtype=float)
    H = np.asarray(H, dtype=float)
    n = len(log_z)
    B_scaled, Bp_scaled, c, log_z_min, G = scaled_operators(log_z, H)
    top_B = np.linalg.eigvalsh(B_scaled)[-1]
    top_Bp = np.linalg.eigvalsh(Bp_scaled)[-1]
    h = np.linalg.eigvalsh(H)
    L_T = np.linalg.eigvalsh(_centre(H))[-1]
    mu_T = 1.0 / np.linalg.eigvalsh(G)[-1]
    rel_err = 1e3 * n * EPS * (h[-1] / h[0])
    if not (np.isfinite([top_B, top_Bp, L_T, mu_T]).all() and top_B > 0 and top_Bp > 0):
        rel_err = math.inf
    log_lmax = 2 * c + math.log(top_B) if top_B > 0 else -math.inf
    log_lmin = 2 * log_z_min - math.log(top_Bp) if top_Bp > 0 else math.inf
    with mp.workdps(20):
        values = [mp.exp(v) for v in (log_lmax, log_lmin)]
        z_desc = tuple(mp.exp(v) for v in sorted(log_z.tolist(), reverse=True))
        constants = [mp.mpf(float(v)) for v in (L_T, mu_T, h[-1], h[0])]
        return _spectrum(n, values + constants, z_desc, float(rel_err), None)


# ---------------------------------------------------------------- precise path


def working_dps(H, dps):
    """Digits to carry: the target, plus what H's conditioning and n can cost, plus guard."""
    h = np.linalg.eigvalsh(np.asarray(H, dtype=float))
    cond = h[-1] / h[0] if h[0] > 0 else 1e300
    return int(dps + 10 + math.log10(max(cond, 1.0)) + math.log10(len(h)))


def isotropic_on_tangent(H):
    """(a, b) as exact rationals when H = a I + b 11ᵀ exactly (then J H J = a J² on T, since J 1 = 0), else None.

    The test and the difference a = H₀₀ − H₀₁ are exact: no rounding decides or enters them."""
    n = len(H)
    diagonal, off = H[0][0], H[0][1]
    if all(H[i][j] == (diagonal if i == j else off) for i in range(n) for j in range(n)):
        return to_fraction(diagonal) - to_fraction(off), to_fraction(off)
    return None


def _curvature_isotropic(log_z, a, b, dps):
    """H = a I + b 11ᵀ: the secular kernel's eigenvalues of J, squared (T2 with isotropic H)."""
    n = len(log_z)
    with mp.workdps(dps + 10):
        eigenvalues = j_eigenvalues_mp(log_z, dps=dps + 10)
        a, b = to_mpf(a), to_mpf(b)
        top = max(logs := [to_mpf(v) for v in log_z])
        z = [mp.exp(v - top) for v in logs]
        z_desc = tuple(sorted((v / mp.fsum(z) for v in z), reverse=True))
        ambient = sorted([a, a + n * b])
        values = (a * eigenvalues[0] ** 2, a * eigenvalues[-2] ** 2, a, a, ambient[1], ambient[0])
        return _spectrum(n, values, z_desc, 10.0 ** (-dps - 5), dps)


def curvature_precise(log_z, H, dps=30):
    """Every value to about `dps` significant digits (rel_err says how close)."""
    n = len(log_z)
    isotropic = isotropic_on_tangent(H)
    if isotropic is not None and isotropic[0] > 0 and isotropic[0] + n * isotropic[1] > 0:
        return _curvature_isotropic(log_z, *isotropic, dps)
    work = working_dps([[float(v) for v in row] for row in H], dps)
    with mp.workdps(work), flint.ctx.workprec(bits_for(work)):
        z = softmax_arb(log_z)
        Hm = arb_matrix(H)
        J = jacobian_arb(z)
        G = bordered_inverse_block_arb(Hm)
        z_min = min(z, key=lambda a: a.mid())
        Dinv = flint.arb_mat(n, n)
        for i in range(n):
            Dinv[i, i] = z_min / z[i]
        top_B, err_B = top_eigenvalue(J * Hm * J)
        top_Bp, err_Bp = top_eigenvalue(centre_arb(Dinv * G * Dinv))
        L_T, err_L = top_eigenvalue(centre_arb(Hm))
        inv_mu_T, err_mu = top_eigenvalue(G)
        L_amb, err_La = top_eigenvalue(Hm)
        inv_mu_amb, err_ma = top_eigenvalue(Hm.inv())
        z_min_mp = arb_to_mpf(z_min)
        values = (top_B, z_min_mp**2 / top_Bp, L_T, 1 / inv_mu_T, L_amb, 1 / inv_mu_amb)
        z_desc = tuple(sorted((arb_to_mpf(v) for v in z), reverse=True))
        rel_err = max(err_B, err_Bp, err_L, err_mu, err_La, err_ma, 10.0 ** (-work + 5))
        return _spectrum(n, values, z_desc, rel_err, dps)


# ---------------------------------------------------------------- balls (small n: every eigenvalue isolated)


def curvature_balls(log_z, H):
    """Every eigenvalue of J H J on T, of H on T and of H as rigorous balls at the context precision,
    as a CurvatureSpectrum of arb values (None when they cannot be isolated there)."""
    n = len(log_z)
    z = softmax_arb(log_z)
    J = jacobian_arb(z)
    Hm = flint.arb_mat([[to_arb(v) for v in row] for row in H])
    curvature = all_eigenvalues(on_tangent(J * Hm * J, n))
    on_T = all_eigenvalues(on_tangent(Hm, n))
    ambient = all_eigenvalues(Hm)
    if curvature is None or on_T is None or ambient is None or not curvature[0] > 0:
        return None
    z_desc = tuple(sorted(z, key=lambda a: a.mid(), reverse=True))
    return CurvatureSpectrum(
        n, curvature[-1], curvature[0], on_T[-1], on_T[0], ambient[-1], ambient[0], z_desc, 0.0, None,
        kappa=curvature[-1] / curvature[0], R=z_desc[0] / z_desc[-1],
    )


def j_extremes_balls(log_z):
    """Balls around J's largest and smallest positive eigenvalues (J on T), or None if not isolated."""
    z = softmax_arb(log_z)
    eigenvalues = all_eigenvalues(on_tangent(jacobian_arb(z), len(z)))
    return None if eigenvalues is None else (eigenvalues[-1], eigenvalues[0])
