"""A-priori bounds on float64 rounding, for proofs that run in float64 (binary64, round to nearest).

For C = fl(PQ) with inner dimension m (any summation order, with or without FMA),
|C − PQ| ≤ γ_m |P||Q| + mη entrywise (γ_m = mu/(1 − mu), u = 2⁻⁵³, η = 2⁻¹⁰⁷⁴ covers underflow),
hence ‖C − PQ‖_F ≤ γ_m‖P‖_F‖Q‖_F + m·rows·cols·η; ‖·‖₂ ≤ ‖·‖_F throughout. Every bound is an
arb ball that contains an exact valid bound; comparisons use arb's certain semantics.
"""
import math

import flint
import numpy as np

U = 2.0**-53  # unit roundoff of binary64, round to nearest
ETA = 2.0**-1074  # smallest subnormal: bound on underflow error per operation


def gamma(m):
    """arb upper bound of γ_m = m u / (1 − m u)."""
    mu = flint.arb(m) * U
    return mu / (1 - mu)


def fro(A):
    """Rigorous arb upper bound of ‖A‖_F for a float array A.

    s = fl(Σ a²) over N entries (a dot product) satisfies |s − Σa²| ≤ γ_N Σa² + Nη
    (N roundings of squares and ≤ N − 1 additions, any order), so
    Σa² ≤ (s + Nη)/(1 − γ_N).
    """
    N = A.size
    flat = np.ascontiguousarray(A, dtype=float).ravel()
    s = float(np.dot(flat, flat))  # any order of the N products and N − 1 additions
    if not math.isfinite(s):
        return flint.arb("inf")
    total = (flint.arb(s) + N * flint.arb(ETA)) / (1 - gamma(N))
    return total.sqrt()


def matmul_error(norm_P, norm_Q, m, rows, cols):
    """Upper bound of ‖fl(PQ) − PQ‖_F (inner dimension m)."""
    return gamma(m) * norm_P * norm_Q + flint.arb(m) * rows * cols * ETA


def centre_error(A):
    """Upper bound of ‖fl(centre(A)) − P A P‖_F for a symmetric float A (`verify.numerics.tangent.centre`'s steps).

    With ρ_i = Σ_j |a_ij| (= column sums), ρ̄ = Σρ_i/n, S = max|a_ij|: a row or
    column mean is a sum of n terms (error ≤ γ_{n−1}ρ_i) divided by n (≤ u of the
    result), so it is within (γ_{n−1} + 2u)ρ_i/n ≤ 2uρ_i of the exact mean; the
    grand mean (sum of the n computed column means, divided by n) within
    γ_{n−1}(1.01ρ̄)/n + 2uρ̄ + uρ̄ ≤ 5uρ̄; the three final additions on
    quantities ≤ 2S, 3S, 4S (exact means are ≤ S in size) add ≤ 9.2uS.  Entry
    (i, j) is thus within 2u(ρ_i + ρ_j) + 5uρ̄ + 9.2uS + 16η (η: underflow) of the
    exact P A P, and the Frobenius norm of those bounds is at most
    4u√n‖ρ‖₂ + n(5uρ̄ + 9.2uS + 16η).  ρ is computed in float: inflated by (1 + 2nu).
    """
    n = A.shape[0]
    rho = np.abs(A).sum(axis=1)
    grow = flint.arb(1) + 2 * n * flint.arb(U)
    norm_rho = fro(rho) * grow
    rho_bar = flint.arb(float(rho.max())) * grow  # ρ̄ ≤ max ρ_i
    S = flint.arb(float(np.abs(A).max()))
    u = flint.arb(U)
    return 4 * u * flint.arb(n).sqrt() * norm_rho + n * (5 * u * rho_bar + flint.arb(9.2) * u * S + 16 * flint.arb(ETA))
