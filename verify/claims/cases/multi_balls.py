"""Several examples (T2.multi): rigorous balls for κ of KᵀMK on its range and for the block formula.

Keys satisfy K Kᵀ = I_{nN} exactly: K is the first nN rows of the Cayley transform
Q = (I − A)(I + A)⁻¹ of an integer skew-symmetric A, a rational orthogonal matrix. Its Arb
enclosure contains the exact K, so every ball below contains the exact value for the exactly
orthonormal keys, and two sides whose balls are disjoint differ rigorously.
"""
import math
from dataclasses import dataclass

import flint
import numpy as np

from verify.numerics.curvature import curvature_fast
from verify.numerics.curvature_balls import curvature_matrix_balls
from verify.numerics.eigenballs import symmetric_eigenvalue_balls
from verify.numerics.precision import bits_for
from verify.numerics.tangent import on_tangent


@dataclass(frozen=True)
class MultiCase:
    """N examples (exact logits and H_i) and the integer generator of the keys; `rows` = nN ≤ d."""

    log_zs: tuple  # N tuples of exact logits
    Hs: tuple  # N tuples of rows
    generator: tuple  # d × d integers; A = upper(G) − upper(G)ᵀ is skew-symmetric
    rows: int

    @property
    def d(self):
        return len(self.generator)


@dataclass(frozen=True)
class MultiEnclosure:
    """κ of KᵀMK on its range (`dense`) and max_i λ_max(B_i) / min_i λ_min(B_i) (`blocks`), as balls."""

    dense: object
    blocks: object
    bits: int

    @property
    def overlap(self):
        return self.dense.overlaps(self.blocks)

    @property
    def relative_radius(self):
        return max(float(b.rad()) / abs(float(b.mid())) for b in (self.dense, self.blocks))


def skew(generator):
    """A = U − Uᵀ with U the strict upper triangle of the integer generator."""
    G = np.array(generator, dtype=np.int64)
    upper = np.triu(G, 1)
    return upper - upper.T


def keys_arb(case):
    """The exact orthonormal rows K, enclosed at the context precision."""
    A = flint.arb_mat(skew(case.generator).tolist())
    eye = flint.arb_mat(case.d, case.d)
    for i in range(case.d):
        eye[i, i] = 1
    Q = (eye - A) * (eye + A).inv()
    K = flint.arb_mat(case.rows, case.d)
    for i in range(case.rows):
        for j in range(case.d):
            K[i, j] = Q[i, j]
    return K


def _ball_max(values):
    top = values[0]
    for v in values[1:]:
        top = (top + v + abs(top - v)) / 2  # max as a ball operation: contains max of any two points
    return top


def _ball_min(values):
    low = values[0]
    for v in values[1:]:
        low = (low + v - abs(low - v)) / 2
    return low


def enclose_multi(case, bits, keys=None):
    """Both sides of T2.multi as balls at `bits`, or None if some eigenvalue cannot be isolated there.
    `keys` (an arb matrix) replaces the exactly orthonormal K, to see the identity fail without it."""
    with flint.ctx.workprec(bits):
        blocks, tops, bottoms = [], [], []
        for log_z, H in zip(case.log_zs, case.Hs):
            B = curvature_matrix_balls(log_z, H)
            eigenvalues = symmetric_eigenvalue_balls(on_tangent(B))
            if eigenvalues is None or not eigenvalues[0] > 0:
                return None
            blocks.append(B)
            tops.append(eigenvalues[-1])
            bottoms.append(eigenvalues[0])
        M = _block_diagonal(blocks)
        K = keys_arb(case) if keys is None else keys
        dense = _on_range(K.transpose() * M * K, K.transpose() * _tangent_blocks(case))
        if dense is None or not dense[0] > 0:
            return None
        return MultiEnclosure(dense[-1] / dense[0], _ball_max(tops) / _ball_min(bottoms), bits)


def _tangent_blocks(case):
    """V = blockdiag(V_i), V_i the basis e_k − e_n of T: range(M) = range(V) (exact integers)."""
    sizes = [len(lz) for lz in case.log_zs]
    V = flint.arb_mat(sum(sizes), sum(n - 1 for n in sizes))
    row = col = 0
    for n in sizes:
        for k in range(n - 1):
            V[row + k, col + k] = 1
            V[row + n - 1, col + k] = -1
        row, col = row + n, col + n - 1
    return V


def _on_range(A, U):
    """Balls around the eigenvalues of the symmetric A on range(U), an invariant subspace holding its nonzero
    spectrum (A = KᵀMK maps into Kᵀ range(M) = range(U)), increasing: those of the pencil (UᵀAU, UᵀU), which
    are exactly A's nonzero ones; None when they cannot be enclosed at this precision."""
    return symmetric_eigenvalue_balls(U.transpose() * A * U, U.transpose() * U)


def _block_diagonal(blocks):
    size = sum(B.nrows() for B in blocks)
    M = flint.arb_mat(size, size)
    offset = 0
    for B in blocks:
        for i in range(B.nrows()):
            for j in range(B.ncols()):
                M[offset + i, offset + j] = B[i, j]
        offset += B.nrows()
    return M


def block_kappa_estimate(case):
    """κ of the block formula in float64 (only to choose the working precision)."""
    kappas = []
    for log_z, H in zip(case.log_zs, case.Hs):
        s = np.array([float(v) for v in log_z])
        s = s - s.max()
        q = curvature_fast(s - np.log(np.sum(np.exp(s))), np.array([[float(v) for v in r] for r in H]))
        kappas.append((float(q.lambda_max), float(q.lambda_min)))
    return max(t for t, _ in kappas) / min(b for _, b in kappas)


def decide_multi(case, dps, max_bits=1 << 14):
    """The enclosure at a precision that resolves `dps/2` digits of κ, raised until the eigenvalues
    are isolated and the radius is below 10^(−dps/2); the last enclosure tried (None if never isolated)."""
    estimate = block_kappa_estimate(case)
    digits_lost = math.log10(estimate) if math.isfinite(estimate) and estimate > 1 else 30.0
    bits = bits_for(dps + digits_lost + 10)
    enclosure = None
    while bits <= max_bits:
        enclosure = enclose_multi(case, bits) or enclosure
        if enclosure is not None and enclosure.bits == bits and enclosure.relative_radius < 10 ** (-dps / 2):
            return enclosure
        bits *= 2
    return enclosure
