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
from mpmath.libmp import from_man_exp

from verify.numbers import bits_for

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


def mpf_to_arb(x):
    sign, man, exp, _ = mp.mpf(x)._mpf_
    return flint.arb(flint.arf((-man if sign else man, exp)))


def arb_to_mpf(a):
    """The midpoint of a, exactly (not rounded to mpmath's ambient precision)."""
    man, exp = a.mid().man_exp()
    return mp.make_mpf(from_man_exp(int(man), int(exp)))


def _arb_matrix(rows):
    return flint.arb_mat([[mpf_to_arb(v) if not isinstance(v, flint.arb) else v for v in row] for row in rows])


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


def _softmax_arb(log_z):
    z = [mpf_to_arb(v).exp() for v in log_z]
    total = sum(z)
    return [v / total for v in z]


def _jacobian_arb(z):
    n = len(z)
    J = flint.arb_mat(n, n)
    for i in range(n):
        complement = sum(z[j] for j in range(n) if j != i)
        for j in range(n):
            J[i, j] = z[i] * complement if i == j else -z[i] * z[j]
    return J


def _centre_arb(M):
    n = M.nrows()
    P = flint.arb_mat(n, n)
    for i in range(n):
        for j in range(n):
            P[i, j] = (1 if i == j else 0) - flint.arb(1) / n
    return P * M * P


def _bordered_inverse_block_arb(H):
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


def working_dps(H, dps):
    """Digits to carry: the target, plus what H's conditioning and n can cost, plus guard."""
    h = np.linalg.eigvalsh(np.asarray(H, dtype=float))
    cond = h[-1] / h[0] if h[0] > 0 else 1e300
    return int(dps + 10 + math.log10(max(cond, 1.0)) + math.log10(len(h)))


def isotropic_on_tangent(H):
    """(a, b) when H = a I + b 11ᵀ exactly (then J H J = a J² on T, since J 1 = 0), else None."""
    n = len(H)
    diagonal, off = H[0][0], H[0][1]
    if all(H[i][j] == (diagonal if i == j else off) for i in range(n) for j in range(n)):
        return diagonal - off, off
    return None


def _curvature_isotropic(log_z, a, b, dps):
    """H = a I + b 11ᵀ: the secular kernel's eigenvalues of J, squared (T2 with isotropic H)."""
    from verify.secular import j_eigenvalues_mp

    n = len(log_z)
    with mp.workdps(dps + 10):
        eigenvalues = j_eigenvalues_mp(log_z, dps=dps + 10)
        a, b = mp.mpf(a), mp.mpf(b)
        top = max(logs := [mp.mpf(v) for v in log_z])
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
        log_z = [mp.mpf(v) for v in log_z]
        z = _softmax_arb(log_z)
        Hm = _arb_matrix(H)
        J = _jacobian_arb(z)
        G = _bordered_inverse_block_arb(Hm)
        z_min = min(z, key=lambda a: a.mid())
        Dinv = flint.arb_mat(n, n)
        for i in range(n):
            Dinv[i, i] = z_min / z[i]
        top_B, err_B = top_eigenvalue(J * Hm * J)
        top_Bp, err_Bp = top_eigenvalue(_centre_arb(Dinv * G * Dinv))
        L_T, err_L = top_eigenvalue(_centre_arb(Hm))
        inv_mu_T, err_mu = top_eigenvalue(G)
        L_amb, err_La = top_eigenvalue(Hm)
        inv_mu_amb, err_ma = top_eigenvalue(Hm.inv())
        z_min_mp = arb_to_mpf(z_min)
        values = (top_B, z_min_mp**2 / top_Bp, L_T, 1 / inv_mu_T, L_amb, 1 / inv_mu_amb)
        z_desc = tuple(sorted((arb_to_mpf(v) for v in z), reverse=True))
        rel_err = max(err_B, err_Bp, err_L, err_mu, err_La, err_ma, 10.0 ** (-work + 5))
        return _spectrum(n, values, z_desc, rel_err, dps)


# ---------------------------------------------------------------- several examples (T2.multi)


@dataclass(frozen=True)
class MultiSpectrum:
    """κ of KᵀMK on its range, computed densely, beside the block formula of T2.multi."""

    kappa_dense: object
    kappa_blocks: object
    rel_err: float
    dps: object


def block_kappa(spectra):
    """max_i λ_max(B_i) / min_i λ_min(B_i) over the examples' curvature spectra."""
    return max(q.lambda_max for q in spectra) / min(q.lambda_min for q in spectra)


def dense_curvature_matrix(log_zs, Hs, K, dps=None):
    """Kᵀ M K with M = blockdiag(J_i H_i J_i), float64 or mpmath (dps) entries."""
    from verify.softmax import jacobian

    blocks = []
    for log_z, H in zip(log_zs, Hs):
        if dps is None:
            z = np.exp(np.asarray(log_z, dtype=float))
            J = jacobian(z)
            blocks.append(J @ np.asarray(H, dtype=float) @ J)
        else:
            z = np.array([mp.exp(v) for v in log_z], dtype=object)
            z = z / mp.fsum(z)
            J = jacobian(z)
            blocks.append(J.dot(np.array(H, dtype=object)).dot(J))
    from scipy.linalg import block_diag

    M = block_diag(*blocks)  # object dtype (mpf entries, integer zeros) on the mpmath path
    K = np.asarray(K, dtype=object if dps else float)
    return K.T.dot(M).dot(K)


def orthonormal_rows(K):
    """K with rows orthonormalised at mpmath's working precision (K Kᵀ = I to every digit)."""
    Q, _ = mp.qr(mp.matrix([[mp.mpf(float(v)) for v in row] for row in K]).T, mode="skinny")
    rows, cols = len(K), len(K[0])
    return [[Q[j, i] for j in range(cols)] for i in range(rows)]


def multi_spectrum(log_zs, Hs, K, dps=None):
    """Both sides of T2.multi; the dense side at a precision chosen from the block κ."""
    if dps is None:
        spectra = [curvature_fast(lz, H) for lz, H in zip(log_zs, Hs)]
    else:
        spectra = [curvature_precise(lz, H, dps) for lz, H in zip(log_zs, Hs)]
    rank = sum(len(lz) - 1 for lz in log_zs)
    with mp.workdps(40):
        kappa_blocks = block_kappa(spectra)
        digits_lost = float(mp.log10(kappa_blocks)) + math.log10(len(K[0]))
    if dps is None and digits_lost < 8:
        eigenvalues = np.linalg.eigvalsh(dense_curvature_matrix(log_zs, Hs, K))[::-1][:rank]
        with mp.workdps(20):
            kappa_dense = mp.mpf(eigenvalues[0]) / mp.mpf(eigenvalues[-1])
        rel_err = max(q.rel_err for q in spectra) + 1e3 * EPS * 10**digits_lost
        return MultiSpectrum(kappa_dense, kappa_blocks, rel_err, None)
    work = int((dps or 30) + digits_lost + 10)
    with mp.workdps(work):
        spectra = [curvature_precise(lz, H, work) for lz, H in zip(log_zs, Hs)]
        K_exact = orthonormal_rows(K)
        A = dense_curvature_matrix([[mp.mpf(v) for v in lz] for lz in log_zs], Hs, K_exact, work)
        eigenvalues = sorted(mp.eigsy(mp.matrix(A.tolist()), eigvals_only=True), reverse=True)[:rank]
        kappa_dense = eigenvalues[0] / eigenvalues[-1]
        kappa_blocks = block_kappa(spectra)
        rel_err = max(q.rel_err for q in spectra) + float(mp.mpf(10) ** (-work + digits_lost + 5))
        return MultiSpectrum(kappa_dense, kappa_blocks, rel_err, work)


# ---------------------------------------------------------------- the `spectrum` command

MP_EIGENVALUE_LIMIT = 400  # up to this n every eigenvalue of J is printed with 30 correct digits


@dataclass(frozen=True)
class JSpectrumReport:
    n: int
    eigenvalues: tuple  # of J(z), decreasing, the last 0 (mpf, or float above the limit)
    kappa_J: object
    kappa_JHJ: object
    correct_digits: int
    method: str


def j_spectrum_report(logits, H=None, dps=30):
    """Eigenvalues of J(z) by the secular kernel (mpmath when n is small or z leaves float64's range)."""
    from verify import secular

    n = len(logits)
    with mp.workdps(dps + 10):
        log_z = [v - max(logits) for v in logits]
        fits = secular.within_float_range(np.array([float(v) for v in log_z]) - math.log(n))
        if n <= MP_EIGENVALUE_LIMIT or not fits:
            values = secular.j_eigenvalues_mp(log_z, dps=dps)
            digits, method = dps, "secular, mpmath"
        else:
            s = np.array([float(v) for v in log_z])
            values = list(secular.j_eigenvalues(np.exp(s) / np.sum(np.exp(s))))
            digits, method = 15, "secular, float64"
        kappa_J = mp.mpf(values[0]) / mp.mpf(values[-2])
        kappa_JHJ = curvature_precise(logits, H, dps).kappa if H is not None else None
    return JSpectrumReport(n, tuple(values), kappa_J, kappa_JHJ, digits, method)
