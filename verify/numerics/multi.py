"""Several examples (T2.multi): κ of KᵀMK on its range, densely, beside the block formula."""
import math
from dataclasses import dataclass

import mpmath as mp
import numpy as np
from scipy.linalg import block_diag

from verify.numerics.curvature import EPS, curvature_fast, curvature_precise
from verify.numerics.precision import to_mpf
from verify.numerics.softmax import jacobian


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
        A = dense_curvature_matrix([[to_mpf(v) for v in lz] for lz in log_zs], Hs, K_exact, work)
        eigenvalues = sorted(mp.eigsy(mp.matrix(A.tolist()), eigvals_only=True), reverse=True)[:rank]
        kappa_dense = eigenvalues[0] / eigenvalues[-1]
        kappa_blocks = block_kappa(spectra)
        rel_err = max(q.rel_err for q in spectra) + float(mp.mpf(10) ** (-work + digits_lost + 5))
        return MultiSpectrum(kappa_dense, kappa_blocks, rel_err, work)
