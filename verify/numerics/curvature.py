"""Spectra of the local curvature J H J on T = 1^⊥ (docs/spec.md §1, T2): the float64, precise and ball paths.

κ of B = J H J on T is the product of two *largest* eigenvalues:
λ_max(B) and λ_max(B⁺) = 1/λ_min(B), where on T
    J⁺ = P D⁻¹ P   (D = diag z, P = I − 11ᵀ/n)   and   H_T⁻¹ = G,
G the top-left block of [[H, 1], [1ᵀ, 0]]⁻¹.  So B⁺ = P D⁻¹ G D⁻¹ P.
A largest eigenvalue has high relative accuracy, so the tiny λ_min of the
paper's regime (coefficients of 1e-30 and below, where a dense solve of B
returns noise) comes out with every digit.  Both matrices are scaled before
they meet float64, so coefficients far below float64's range are fine.

Three paths return the one `CurvatureSpectrum` record (verify.numerics.spectrum):
- `curvature_fast`: float64 in the log domain, with an error estimate;
- `curvature_precise`: python-flint arb assembly at a working precision chosen
  from the data, the top eigenpair refined by Rayleigh-quotient iteration,
  its error estimated from the residual (Weyl); values are mpf;
- `curvature_balls`: rigorous Arb balls for any n (verify.numerics.curvature_balls).
Every eigenvalue λ(k) of B on T: `lam_fast` (float64) and `lam_precise` (the midpoints of the balls
path's enclosure, verify.numerics.eigenballs); `curvature_balls(..., want=("lam",))` gives the balls.
"""
import math

import flint
import mpmath as mp
import numpy as np

from verify.numerics.arb import arb_matrix, arb_to_mpf, bordered_inverse_block_arb, top_eigenvalue
from verify.numerics.curvature_balls import curvature_balls, curvature_matrix_balls, j_balls
from verify.numerics.eigenballs import symmetric_eigenvalue_balls
from verify.numerics.precision import bits_for, to_mpf
from verify.numerics.secular import j_eigenvalues_mp
from verify.numerics.softmax import exact_keys, jacobian_balls, log_complements, softmax_balls
from verify.numerics.spectrum import CurvatureSpectrum
from verify.numerics.structure import isotropic
from verify.numerics.tangent import centre, on_tangent, tangent_basis

EPS = np.finfo(float).eps
__all__ = ["CurvatureSpectrum", "coefficients_precise", "curvature_fast", "curvature_precise", "curvature_balls",
           "isotropic_on_tangent", "j_extremes_balls", "lam_fast", "lam_precise", "scaled_operators", "working_dps"]


def _spectrum(n, values, z_desc, rel_err, dps):
    """Call inside the working precision: κ and R are divided there, not at mpmath's default."""
    lambda_max, lambda_min = values[0], values[1]
    return CurvatureSpectrum(
        n, *values, z_desc, rel_err, dps, kappa=lambda_max / lambda_min, R=z_desc[0] / z_desc[-1]
    )


# ---------------------------------------------------------------- float64 path


def _bordered_inverse_block(H, solve):
    """G = H_T⁻¹ on T: top-left block of [[H, 1], [1ᵀ, 0]]⁻¹ (docs/spec.md §1, T2)."""
    n = H.shape[0]
    border = np.ones((n + 1, n + 1))
    border[:n, :n] = H
    border[n, n] = 0
    rhs = np.zeros((n + 1, n))
    rhs[:n, :] = np.eye(n)
    return solve(border, rhs)[:n, :]


def scaled_operators(log_z, H):
    """Float64 (B/e^{2c}, B⁺·z_min², c, log z_min, G) with every entry at most about 1."""
    log_J_diag = log_z + log_complements(log_z)
    c = log_J_diag.max()
    J_scaled = -np.exp(log_z[:, None] + log_z[None, :] - c)
    J_scaled[np.diag_indices(len(log_z))] = np.exp(log_J_diag - c)
    B_scaled = J_scaled @ H @ J_scaled
    G = _bordered_inverse_block(H, np.linalg.solve)
    log_z_min = log_z.min()
    d = np.exp(log_z_min - log_z)
    Bp_scaled = centre(d[:, None] * G * d[None, :])
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
    L_T = np.linalg.eigvalsh(centre(H))[-1]
    mu_T = 1.0 / np.linalg.eigvalsh(G)[-1]
    rel_err = 1e3 * n * EPS * (h[-1] / h[0]) if h[0] > 0 else math.inf
    if not (np.isfinite([top_B, top_Bp, L_T, mu_T]).all() and top_B > 0 and top_Bp > 0):
        rel_err = math.inf
    log_lmax = 2 * c + math.log(top_B) if top_B > 0 else -math.inf
    log_lmin = 2 * log_z_min - math.log(top_Bp) if top_Bp > 0 else math.inf
    with mp.workdps(20):
        values = [mp.exp(v) for v in (log_lmax, log_lmin)]
        z_desc = tuple(mp.exp(v) for v in sorted(log_z.tolist(), reverse=True))
        constants = [mp.mpf(float(v)) for v in (L_T, mu_T, h[-1], h[0])]
        return _spectrum(n, values + constants, z_desc, float(rel_err), None)


def lam_fast(log_z, H):
    """Every eigenvalue of J H J on T, largest first, by a dense float64 solve of the scaled operator: each to
    about n·eps·λ_max absolutely (mpf values, since they may lie below float64's range)."""
    B_scaled, _, c, _, _ = scaled_operators(np.asarray(log_z, dtype=float), np.asarray(H, dtype=float))
    Q = tangent_basis(len(log_z))
    values = np.sort(np.linalg.eigvalsh(Q.T @ B_scaled @ Q))[::-1]
    with mp.workdps(20):
        return tuple(mp.mpf(float(v)) * mp.exp(2 * c) for v in values)


# ---------------------------------------------------------------- precise path


def lam_precise(logits, H, dps=30):
    """(values, errors): every eigenvalue of J H J on T, largest first, as the midpoints of the balls path's
    enclosure of QᵀJHJQ at `dps` digits, and their radii, which bound each midpoint's error. A radius can be far
    above λ_max·10^−dps: a graded matrix's small eigenvalues, merged in the float64 start, are enclosed only to its
    residual. ValueError where no enclosure exists at `dps` (an estimate stage that breaks down: the next decides)."""
    with mp.workdps(dps), flint.ctx.workprec(bits_for(dps)):
        balls = symmetric_eigenvalue_balls(on_tangent(curvature_matrix_balls(logits, H)))
        if balls is None:
            raise ValueError(f"J H J on T has no eigenvalue enclosure at {dps} digits")
        balls = tuple(reversed(balls))
        return tuple(arb_to_mpf(v) for v in balls), tuple(arb_to_mpf(v.rad()) for v in balls)


def working_dps(H, dps):
    """Digits to carry: the target, plus what H's conditioning and n can cost, plus guard."""
    h = np.linalg.eigvalsh(np.asarray(H, dtype=float))
    lost = math.log10(h[-1]) - math.log10(h[0]) if h[0] > 0 else 300.0  # log10 of H's condition number, one beyond
    return int(dps + 10 + max(lost, 0.0) + math.log10(len(h)))  # float64's range included (diag(1e-300, 1e9))


def isotropic_on_tangent(H):
    """(a, b) as exact rationals when H = a I + b 11ᵀ exactly (then J H J = a J² on T, since J 1 = 0), else None.

    The test and the difference a = H₀₀ − H₀₁ are exact: no rounding decides or enters them."""
    return isotropic(H)


def _curvature_isotropic(log_z, a, b, dps):
    """H = a I + b 11ᵀ: the secular kernel's eigenvalues of J, squared (T2 with isotropic H)."""
    n = len(log_z)
    with mp.workdps(dps + 10):
        eigenvalues = j_eigenvalues_mp(log_z, dps=dps + 10)
        a, b = to_mpf(a), to_mpf(b)
        with flint.ctx.workprec(mp.mp.prec):
            z = softmax_balls(log_z)[0]
        z_desc = _descending(z)
        ambient = sorted([a, a + n * b])
        values = (a * eigenvalues[0] ** 2, a * eigenvalues[-2] ** 2, a, a, ambient[1], ambient[0])
        return _spectrum(n, values, z_desc, 10.0 ** (-dps - 5), dps)


def curvature_precise(log_z, H, dps=30):
    """Every value to about `dps` significant digits (rel_err says how close)."""
    n = len(log_z)
    shape = isotropic(H)
    if shape is not None and shape[0] > 0 and shape[0] + n * shape[1] > 0:
        return _curvature_isotropic(log_z, *shape, dps)
    work = working_dps([[float(v) for v in row] for row in H], dps)
    with mp.workdps(work), flint.ctx.workprec(bits_for(work)):
        z, complements, _ = softmax_balls(log_z)
        Hm = arb_matrix(H)
        J = jacobian_balls(z, complements)
        G = bordered_inverse_block_arb(Hm)
        z_min = min(z, key=lambda a: a.mid())
        Dinv = flint.arb_mat(n, n)
        for i in range(n):
            Dinv[i, i] = z_min / z[i]
        top_B, err_B = top_eigenvalue(J * Hm * J)
        top_Bp, err_Bp = top_eigenvalue(centre(Dinv * G * Dinv))
        L_T, err_L = top_eigenvalue(centre(Hm))
        inv_mu_T, err_mu = top_eigenvalue(G)
        L_amb, err_La = top_eigenvalue(Hm)
        inv_mu_amb, err_ma = top_eigenvalue(Hm.inv())
        z_min_mp = arb_to_mpf(z_min)
        values = (top_B, z_min_mp**2 / top_Bp, L_T, 1 / inv_mu_T, L_amb, 1 / inv_mu_amb)
        z_desc = _descending(z)
        rel_err = max(err_B, err_Bp, err_L, err_mu, err_La, err_ma, 10.0 ** (-work + 5))
        return _spectrum(n, values, z_desc, rel_err, dps)


def _descending(z):
    """The coefficients' balls as mpf midpoints, largest first."""
    return tuple(sorted((arb_to_mpf(v) for v in z), reverse=True))


def coefficients_fast(log_z):
    """Float64 z (largest first) and R, and no curvature: what a claim of z (or of J) alone reads (no n × n work)."""
    log_z = np.asarray(log_z, dtype=float)
    with mp.workdps(20):
        z_desc = tuple(mp.exp(v) for v in sorted(log_z.tolist(), reverse=True))
        return CurvatureSpectrum(len(log_z), None, None, None, None, None, None, z_desc, 1e3 * len(log_z) * EPS, None,
                                 R=z_desc[0] / z_desc[-1])


def coefficients_precise(log_z, dps=30):
    """z (largest first) and R to about `dps` digits, and no curvature: what a claim of z (or of J) alone reads."""
    with mp.workdps(dps + 10), flint.ctx.workprec(bits_for(dps + 10)):
        z = softmax_balls(log_z)[0]
        z_desc = _descending(z)
        rel_err = max([10.0 ** (-dps - 5)] + [float(arb_to_mpf(flint.arb(v.rad())) / abs(arb_to_mpf(v))) for v in z])
        return CurvatureSpectrum(len(log_z), None, None, None, None, None, None, z_desc, rel_err, dps,
                                 R=z_desc[0] / z_desc[-1])


# ---------------------------------------------------------------- balls


def j_extremes_balls(log_z):
    """Balls around J's largest and smallest positive eigenvalues at the context precision, or None if either
    could not be enclosed (`curvature_balls(..., want={"j"})` gives them all)."""
    values = j_balls(exact_keys(log_z), softmax_balls(log_z)[2])
    return None if values[0] is None or values[-1] is None else (values[0], values[-1])
