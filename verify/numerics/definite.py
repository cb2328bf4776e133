"""Rigorous positive (semi)definiteness of an exact symmetric matrix, in float64 time at its own scale.

1. Scaling (van der Sluis): D = diag(2^-⌈log2(a_ii)/2⌉), exact powers of two from the exact diagonal,
   so DAD has its diagonal in [1/4, 1); A is positive definite iff DAD is. A = float64 of DAD, each
   entry rounded once (|error| ≤ 2u|a| + η, u = 2⁻⁵³, η = 2⁻¹⁰⁷⁴), so ‖DAD − A‖₂ ≤ M := 2u‖A‖_F + nη.
2. Rump's criterion (S. M. Rump, "Verification of positive definiteness", BIT 46, 433–452, 2006, with
   the (k+1)u bounds of Rump & Jeannerod, SIMAX 35, 2014): if the float64 Cholesky factorisation of
   A − cI runs to completion with c ≥ Σ_i (i + 3)u·a_ii + 6n(n + max a_ii)η + M (row i has i entries
   left of its diagonal, counted from 0; n < 6.7·10⁷), then DAD, hence the exact matrix, is positive
   definite. c is summed in Arb (an upper bound) and the shifted diagonal is rounded downwards.
3. Otherwise, a certificate of the opposite: a float64 eigenvector x of A's smallest eigenvalue with
   xᵀ(DAD)x < 0 decided in Arb on the exact entries (not positive semidefinite, hence not definite).
4. Otherwise the matrix is within rounding of singular: a square-root-free Cholesky (LDLᵀ) in Arb balls on the
   exact entries, at 256 bits and then 4× more up to BALL_MAX_BITS, proves it definite (every pivot certainly
   > 0) or not (a pivot certainly < 0, the earlier ones > 0: a leading minor is negative). Up to EXACT_MAX rows
   what the balls leave open is decided exactly from the characteristic polynomial over the rationals (all eigenvalues ≥ 0, resp. > 0, iff its
   coefficients alternate in sign, weakly resp. strictly: Descartes' rule on det(tI + A)); beyond,
   the answer is None (undecided), and callers refuse the input in one line.
"""
import math
from fractions import Fraction

import flint
import numpy as np

from verify.numerics.precision import symmetric_floats, to_arb, to_float
from verify.numerics.rounding import ETA, U, fro

EXACT_MAX = 64  # the exact characteristic-polynomial decision up to this size
BALL_MAX_BITS = 1 << 16  # the most precision the ball LDLᵀ is tried at (1e-5000 of the diagonal needs ~17,000)


def positive_definite(H, shift=0, strict=True, floats=None):
    """True / False / None (undecided): is H − shift·I positive definite (strict) or semidefinite?
    H: square rows of exact numbers (Fraction, int, or float64 values, each taken exactly), symmetric; shift: an exact rational; `floats`: H's
    float64 copy (each entry correctly rounded), when the caller has one."""
    n = len(H)
    shift = Fraction(shift)
    diagonal = [Fraction(H[i][i]) - shift for i in range(n)]
    if any(v < 0 for v in diagonal) or (strict and any(v == 0 for v in diagonal)):
        return False
    if any(v == 0 for v in diagonal):  # semidefinite with a zero diagonal: that row and column must vanish
        live = [i for i in range(n) if diagonal[i] != 0]
        if any(H[i][j] != 0 for i in range(n) if diagonal[i] == 0 for j in range(n) if j != i):
            return False
        return positive_definite([[H[i][j] for j in live] for i in live], shift, strict) if live else True
    scales = [_half_exponent(v) for v in diagonal]
    A = _scaled_floats(H, shift, scales, floats if shift == 0 and len(diagonal) == len(H) else None)
    if A is None:  # an entry beyond float64's range after scaling: |a_ij| > 1 > √(a_ii a_jj), a negative 2×2 minor
        return False
    if _rump(A):
        return True
    if _negative_direction(H, shift, scales, A):
        return False
    decided = _ball_pivots(H, shift, strict)
    if decided is not None:
        return decided
    return _exact(H, shift, strict) if n <= EXACT_MAX else None


def _ball_pivots(H, shift, strict):
    """True / False from the pivots of an LDLᵀ factorisation in Arb balls at rising precision; None if undecided.
    Pivot k is the ratio of leading minors k+1 and k: all certainly > 0 is definite; the first one not > 0 being
    certainly < 0 is not even semidefinite. (A semidefinite matrix that is singular stays undecided here.)"""
    n = len(H)
    bits = 256
    while bits <= BALL_MAX_BITS:
        with flint.ctx.workprec(bits):
            signs = ldl_signs([[_arb(H[i][j] - (shift if i == j else 0)) for j in range(n)] for i in range(n)])
        if signs == 1:
            return True
        if signs == -1:
            return False
        bits *= 4
    return None


def ldl_signs(rows):
    """1 if every pivot of the LDLᵀ of these balls is certainly > 0, −1 if one is certainly < 0 after certainly
    positive ones, 0 when a pivot's ball contains 0."""
    n = len(rows)
    for k in range(n):
        pivot = rows[k][k]
        if pivot < 0:
            return -1
        if not pivot > 0:
            return 0
        column = [rows[i][k] / pivot for i in range(k + 1, n)]
        for a, i in enumerate(range(k + 1, n)):
            factor = column[a]
            row_i, row_k = rows[i], rows[k]
            for j in range(k + 1, i + 1):
                row_i[j] -= factor * row_k[j]
            for j in range(k + 1, i + 1):
                rows[j][i] = row_i[j]
    return 1


def _half_exponent(value):
    """k with 2^(2k) a_ii in [1/4, 1): −⌈log2(a_ii)/2⌉, from the exact value."""
    e = value.numerator.bit_length() - value.denominator.bit_length()  # 2^(e−1) < a < 2^(e+1)
    while Fraction(2) ** e <= value:
        e += 1
    while Fraction(2) ** (e - 1) > value:
        e -= 1
    return -((e + 1) // 2)  # 2^(e−1) ≤ a < 2^e


def _scaled_floats(H, shift, scales, floats=None):
    """float64 of D(H − shift·I)D, each entry correctly rounded once, or None on overflow."""
    n = len(H)
    try:
        A = symmetric_floats(H) if floats is None else floats.copy()
        if shift:
            np.fill_diagonal(A, [to_float(Fraction(H[i][i]) - shift) for i in range(n)])
    except OverflowError:
        return None
    k = np.array(scales)
    scaled = np.ldexp(A, k[:, None] + k[None, :])
    # an entry rounded in the subnormal range (or to 0) erred by ≤ η/2, which scaling by 2^K with K > 0 amplifies:
    # those are converted again from the exact value, as are the overflowed ones
    unsafe = ((np.abs(A) < 2.0**-1021) & (k[:, None] + k[None, :] > 0)) | ~np.isfinite(scaled)
    for i, j in zip(*np.nonzero(unsafe)):
        exact = (Fraction(H[i][j]) - (shift if i == j else 0)) * Fraction(2) ** int(k[i] + k[j])  # H may hold floats
        try:
            scaled[i, j] = to_float(exact)
        except OverflowError:
            return None
    return scaled if np.isfinite(scaled).all() else None


def _rump(A):
    """Rump's floating-point criterion (module docstring, step 2) on the float64 matrix A."""
    n = len(A)
    with flint.ctx.workprec(128):
        conversion = 2 * flint.arb(U) * fro(A) + n * flint.arb(ETA)
        alpha = sum((flint.arb(i + 3) * U * flint.arb(float(A[i, i])) for i in range(n)), flint.arb(0))
        c = alpha + 6 * n * (n + flint.arb(float(A.diagonal().max()))) * flint.arb(ETA) + conversion
        c_float = float(c.upper())
        while not flint.arb(c_float) >= c:  # float() rounds to nearest: step up to an upper bound
            c_float = float(np.nextafter(c_float, math.inf))
    shifted = A.copy()
    diagonal = np.nextafter(A.diagonal() - c_float, -math.inf)  # ≤ a_ii − c exactly
    np.fill_diagonal(shifted, diagonal)
    try:
        np.linalg.cholesky(shifted)
    except np.linalg.LinAlgError:
        return False
    return True


def _negative_direction(H, shift, scales, A):
    """True when the float64 eigenvector x of A's smallest eigenvalue has xᵀ(D(H − shift)D)x < 0 certainly."""
    values, vectors = np.linalg.eigh(A)
    if not values[0] < 0:
        return False
    x = vectors[:, 0]
    n = len(H)
    with flint.ctx.workprec(128 + 4 * int(math.log2(n + 1))):
        y = [flint.arb(float(v)) * flint.arb(2) ** int(s) for v, s in zip(x, scales)]
        total = flint.arb(0)
        for i in range(n):
            row = sum((_arb(H[i][j] - (shift if i == j else 0)) * y[j] for j in range(n)), flint.arb(0))
            total += y[i] * row
        return bool(total < 0)


def _arb(q):
    return to_arb(Fraction(q))


def _exact(H, shift, strict):
    """The exact decision from the characteristic polynomial of H − shift·I over the rationals."""
    n = len(H)
    M = flint.fmpq_mat(n, n, [flint.fmpq(int(Fraction(H[i][j] - (shift if i == j else 0)).numerator),
                                         int(Fraction(H[i][j] - (shift if i == j else 0)).denominator))
                              for i in range(n) for j in range(n)])
    coefficients = M.charpoly().coeffs()  # det(tI − M), constant term first
    signed = [c * (-1) ** (n - k) for k, c in enumerate(coefficients)]  # det(tI + M) up to the sign (−1)^n
    return all(c > 0 for c in signed) if strict else all(c >= 0 for c in signed)
