"""The secular solver of verify.numerics.secular, vectorised over roots with numpy: the same
origin-shifted iteration (each root found relative to its nearer pole), the same "middle way"
step and bisection safeguard, evaluated for a block of roots at once. It needs no compiler, so a
process that computes one spectrum of moderate n does not pay numba's load time; its work is
O(n²) per iteration, so large n goes to the compiled kernel.
"""
import numpy as np

EPS = 2.220446049250313e-16
BLOCK = 256  # roots evaluated together (a BLOCK × n array per step)


def interior_roots(d, c, rho, count, max_iter=80):
    """(origins, taus) of the roots in (d_{k+1}, d_k), k = 0..count−1 (count ≤ len(d) − 1)."""
    origins, taus = np.empty(count), np.empty(count)
    with np.errstate(all="ignore"):  # a step that divides by 0 is caught by the bracket and bisected
        for start in range(0, count, BLOCK):
            k = np.arange(start, min(start + BLOCK, count))
            origins[k], taus[k] = _solve_block(d, c, rho, k, max_iter)
    return origins, taus


def _evaluate(d, c, rho, k, origin, tau, s):
    """F = ρ + ψ + φ at λ = origin + τ for each root of the block, with the slopes in units of s."""
    inverse = 1 / ((d[None, :] - origin[:, None]) - tau[:, None])
    term = c[None, :] * inverse
    upper = np.arange(len(d))[None, :] <= k[:, None]  # poles d_0..d_k: φ; the others: ψ
    phi = np.where(upper, term, 0).sum(axis=1)
    psi = term.sum(axis=1) - phi
    slopes = term * inverse
    dphi = np.where(upper, slopes, 0).sum(axis=1)
    dpsi = (slopes.sum(axis=1) - dphi) * s
    return rho + psi + phi, psi, dpsi, phi, dphi * s


def _solve_block(d, c, rho, k, max_iter):
    lower, upper = d[k + 1], d[k]
    half = (upper - lower) / 2
    origin, tau, lo, hi, s = lower.copy(), half.copy(), np.zeros_like(half), half.copy(), half.copy()
    value, psi, dpsi, phi, dphi = _evaluate(d, c, rho, k, origin, tau, s)
    right = value < 0  # the root is nearer the upper pole: measure from it
    origin, tau, lo, hi = np.where(right, upper, origin), np.where(right, -half, tau), \
        np.where(right, -half, lo), np.where(right, 0.0, hi)
    active = np.ones(len(k), dtype=bool)
    for _ in range(max_iter):
        lo, hi = np.where(active & (value < 0), tau, lo), np.where(active & (value >= 0), tau, hi)
        scale = abs(rho) + np.abs(psi) + np.abs(phi)
        done = (np.abs(value) <= 8 * EPS * scale) | (hi - lo <= 2 * EPS * np.maximum(np.abs(lo), np.abs(hi)))
        active &= ~done
        if not active.any():
            break
        step = _middle_way(d, k, origin, tau, value, psi, dpsi, phi, dphi, s)
        step = np.where((lo < step) & (step < hi), step, _bisect(lo, hi))
        converged = np.abs(step - tau) <= 2 * EPS * np.abs(step)
        tau = np.where(active, step, tau)
        active &= ~converged
        s = np.where(tau != 0, np.abs(tau), hi - lo)
        if not active.any():
            break
        fresh = _evaluate(d, c, rho, k[active], origin[active], tau[active], s[active])
        for array, new in zip((value, psi, dpsi, phi, dphi), fresh):
            array[active] = new
    return origin, tau


def _middle_way(d, k, origin, tau, value, psi, dpsi, phi, dphi, s):
    """Zero of the two-pole model matching ψ, φ and their slopes at τ (see secular._middle_way)."""
    t = tau / s
    hi_pole = (d[k] - origin) / s
    lo_pole = (d[k + 1] - origin) / s
    r1, r2 = lo_pole - t, hi_pole - t
    a = value - dpsi * r1 - dphi * r2
    D = np.maximum(np.maximum(np.abs(lo_pole), np.abs(hi_pole)), 1.0)
    s1, s2 = dpsi * r1 * (r1 / D), dphi * r2 * (r2 / D)
    A = a / D
    B = a * ((lo_pole + hi_pole) / D) + s1 + s2
    C = a * lo_pole * (hi_pole / D) + s1 * hi_pole + s2 * lo_pole
    root = np.sqrt(np.maximum(B * B - 4 * A * C, 0.0))
    positive = B >= 0
    small = np.where(positive, 2 * C / (B + root), 2 * C / (B - root))
    large = np.where(positive, (B + root) / (2 * A), (B - root) / (2 * A))
    pick = np.where(np.abs(small - t) <= np.abs(large - t), small, large)
    pick = np.where(A == 0, np.where(B != 0, C / B, t), pick)
    return s * pick


def _bisect(lo, hi):
    """Geometric midpoint when the bracket spans orders of magnitude on one side of 0 (see secular._bisect)."""
    middle = (lo + hi) / 2
    middle = np.where((hi == 0) & (lo < 0), np.where(lo < -1e-300, lo / 1024, lo / 2), middle)
    middle = np.where((lo == 0) & (hi > 0), np.where(hi > 1e-300, hi / 1024, hi / 2), middle)
    middle = np.where((hi < 0) & (lo < 4 * hi), -(np.sqrt(-lo) * np.sqrt(-hi)), middle)
    return np.where((lo > 0) & (hi > 4 * lo), np.sqrt(lo) * np.sqrt(hi), middle)
