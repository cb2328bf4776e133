"""Eigenvalues of diag(d) − w wᵀ and of J(z) = diag(z) − z zᵀ by the secular equation: one solver.

With poles d₁ > d₂ > … (equal poles deflated: each repeated value is an eigenvalue of
multiplicity count − 1 and the group becomes one pole of summed weight), the roots of
    F(λ) = ρ + Σ_j c_j / (d_j − λ),   c_j > 0,   F increasing between poles,
lie one in each (d_{k+1}, d_k).  For J(z) we use Σz = 1: the nonzero eigenvalues are the
roots of Σ_j z_j / (z_j − λ) (ρ = 0, c = z), which depend only on ratios; 0 is the last
eigenvalue.  For diag(d) − w wᵀ, ρ = −1 and c = w², with one more root below d_min, which
lies in [d_min − Σc, d_min): a pole of weight 0 at d_min − Σc brackets it like the others.

Each root is found relative to its nearer pole (λ = origin + τ, with d_j − λ computed as
(d_j − origin) − τ), so every eigenvalue, however small, has high relative accuracy.  The
step fits each side of F with one pole ("middle way", R.-C. Li 1994) and is safeguarded by
bisection.  The iteration is written once, vectorised over a block of roots with numpy, and
runs on float64 arrays and on arrays of flint `arf` points at any precision (mpmath callers
get mpf back): the high-precision run starts from the float64 roots when the coefficients fit
float64's range, so it needs one or two steps, and from scratch otherwise.
"""
import functools
import math

import flint
import mpmath as mp

import numpy as np

from verify.base.errors import InputError
from verify.numerics.precision import to_arb
from verify.numerics.softmax import on_simplex_error, softmax_balls

EPS = 2.0**-52
BLOCK = 64  # roots evaluated together (a BLOCK × n array per step: 2 MB at n = 4000 stays in cache; 256 took 3× longer)
FLOAT_FLOOR = 1e-290  # coefficients (relative to the largest) below this leave float64's safe range


def _mask(values):
    return np.asarray(values, dtype=bool)


def _sqrt(a):
    if a.dtype != object:
        return np.sqrt(a)
    return np.array([arf_of(flint.arb(v).sqrt()) for v in a], dtype=object)


def arf_of(ball):
    """The midpoint of an arb ball as an arf point (exact)."""
    man, exp = ball.mid().man_exp()
    return flint.arf((int(man), int(exp)))


def _divide(a, b):
    """a / b, 0 where b = 0 (both branches of np.where are evaluated; arf division by 0 raises)."""
    zero = _mask(b == 0)
    return np.where(zero, 0 * a, a / np.where(zero, 1, b))


def _evaluate(d, c, rho, k, origin, tau, s):
    """F = ρ + ψ + φ at λ = origin + τ for each root of the block: φ over the poles d_0..d_k, ψ over the
    others, and the slopes s·ψ', s·φ' in units of s (F is invariant under scaling c, d, λ together).
    The roots are sorted, so only a band of columns [min k + 1, max k] splits differently per row."""
    if d.dtype != object:
        return _evaluate_float(d, c, rho, k, origin, tau, s)
    inverse = 1 / ((d[None, :] - origin[:, None]) - tau[:, None])  # never 0: τ stays inside its bracket
    term = c[None, :] * inverse
    slopes = term * inverse
    first, last = k.min() + 1, k.max() + 1
    upper = np.arange(first, last)[None, :] <= k[:, None]

    def split(a):
        band = a[:, first:last]
        return (a[:, :first].sum(axis=1) + np.where(upper, band, 0).sum(axis=1),
                a[:, last:].sum(axis=1) + np.where(upper, 0, band).sum(axis=1))

    (phi, psi), (dphi, dpsi) = split(term), split(slopes)
    return rho + psi + phi, psi, dpsi * s, phi, dphi * s


def _evaluate_float(d, c, rho, k, origin, tau, s):
    """`_evaluate` in float64 with one block-sized array, reused in place: the columns left and right of the
    band are matrix-vector products (Σ c_j/(d_j − λ) and Σ c_j/(d_j − λ)², each sum of terms of one sign)."""
    first, last = k.min() + 1, k.max() + 1
    inverse = np.subtract(d[None, :], origin[:, None])
    inverse -= tau[:, None]
    np.reciprocal(inverse, out=inverse)  # never 0: τ stays inside its bracket
    upper = np.arange(first, last)[None, :] <= k[:, None]
    band = c[first:last] * inverse[:, first:last]
    band_slopes = band * inverse[:, first:last]
    left, right = c[:first], c[last:]
    phi = inverse[:, :first] @ left + np.where(upper, band, 0).sum(axis=1)
    psi = inverse[:, last:] @ right + np.where(upper, 0, band).sum(axis=1)
    np.multiply(inverse, inverse, out=inverse)
    dphi = inverse[:, :first] @ left + np.where(upper, band_slopes, 0).sum(axis=1)
    dpsi = inverse[:, last:] @ right + np.where(upper, 0, band_slopes).sum(axis=1)
    return rho + psi + phi, psi, dpsi * s, phi, dphi * s


def _middle_way(d, k, origin, tau, value, psi, dpsi, phi, dphi, s):
    """Zero of a + s₁/(Δ_lo − t) + s₂/(Δ_hi − t), the model matching ψ, φ and their slopes at τ, solved in
    units of s (t = s·t̂). One pole is the origin (Δ = 0); the other may be ~1e300 units away, so its
    weight s_i = slope·(Δ − t)² is only ever used divided by that distance D (no overflow)."""
    t = tau / s
    hi_pole = (d[k] - origin) / s
    lo_pole = (d[k + 1] - origin) / s
    r1, r2 = lo_pole - t, hi_pole - t
    a = value - dpsi * r1 - dphi * r2
    D = np.maximum(np.maximum(np.abs(lo_pole), np.abs(hi_pole)), 1 + 0 * t)
    s1, s2 = dpsi * r1 * (r1 / D), dphi * r2 * (r2 / D)
    A = a / D
    B = a * ((lo_pole + hi_pole) / D) + s1 + s2
    C = a * lo_pole * (hi_pole / D) + s1 * hi_pole + s2 * lo_pole  # one of the poles is 0: no cancellation
    root = _sqrt(np.maximum(B * B - 4 * A * C, 0 * B))
    positive = _mask(B >= 0)
    small = np.where(positive, _divide(2 * C, B + root), _divide(2 * C, B - root))
    large = np.where(positive, _divide(B + root, 2 * A), _divide(B - root, 2 * A))
    pick = np.where(_mask(np.abs(small - t) <= np.abs(large - t)), small, large)
    pick = np.where(_mask(A == 0), np.where(_mask(B != 0), _divide(C, B), t), pick)
    return s * pick


def _bisect(lo, hi):
    """Geometric midpoint when the bracket spans orders of magnitude on one side of 0."""
    middle = (lo + hi) / 2
    middle = np.where(_mask((hi == 0) & (lo < 0)), np.where(_mask(lo < -1e-300), lo / 1024, lo / 2), middle)
    middle = np.where(_mask((lo == 0) & (hi > 0)), np.where(_mask(hi > 1e-300), hi / 1024, hi / 2), middle)
    negative = _mask((hi < 0) & (lo < 4 * hi))
    middle = np.where(negative, -(_sqrt(np.where(negative, -lo, 1 + 0 * lo)) * _sqrt(np.where(negative, -hi, 1 + 0 * hi))),
                      middle)
    positive = _mask((lo > 0) & (hi > 4 * lo))  # not (lo·hi)^½: lo·hi underflows below 1e-308
    return np.where(positive, _sqrt(np.where(positive, lo, 1 + 0 * lo)) * _sqrt(np.where(positive, hi, 1 + 0 * hi)), middle)


def _solve_block(d, c, rho, k, eps, max_iter, start):
    lower, upper = d[k + 1], d[k]
    width = upper - lower
    zero = 0 * width
    if start is None:  # the midpoint decides the side: measure from the pole on the root's side
        half = width / 2
        right = _mask(_evaluate(d, c, rho, k, lower, half, half)[0] < 0)
        tau, lo, hi = np.where(right, -half, half), np.where(right, -half, zero), np.where(right, zero, half)
    else:
        right, tau = start
        lo, hi = np.where(right, -width, zero), np.where(right, zero, width)
        # a coarse start outside its bracket (float64 poles closer than its rounding) restarts at the middle
        tau = np.where(_mask(lo < tau) & _mask(tau < hi), tau, (lo + hi) / 2)
    origin = np.where(right, upper, lower)
    s = np.abs(tau)
    value, psi, dpsi, phi, dphi = _evaluate(d, c, rho, k, origin, tau, s)
    active = np.ones(len(k), dtype=bool)
    for _ in range(max_iter):
        negative = _mask(value < 0)
        lo, hi = np.where(active & negative, tau, lo), np.where(active & ~negative, tau, hi)
        scale = abs(rho) + np.abs(psi) + np.abs(phi)
        active &= ~(_mask(np.abs(value) <= 8 * eps * scale) | _mask(hi - lo <= 2 * eps * np.maximum(np.abs(lo), np.abs(hi))))
        if not active.any():
            break
        step = _middle_way(d, k, origin, tau, value, psi, dpsi, phi, dphi, s)
        step = np.where(_mask(lo < step) & _mask(step < hi), step, _bisect(lo, hi))
        converged = _mask(np.abs(step - tau) <= 2 * eps * np.abs(step))
        tau = np.where(active, step, tau)
        active &= ~converged
        s = np.where(_mask(tau != 0), np.abs(tau), hi - lo)
        if not active.any():
            break
        fresh = _evaluate(d, c, rho, k[active], origin[active], tau[active], s[active])
        for array, new in zip((value, psi, dpsi, phi, dphi), fresh):
            array[active] = new
    return right, tau


def solve(d, c, rho, count, eps=EPS, max_iter=80, start=None):
    """(right, τ) for the roots in (d_{k+1}, d_k), k = 0..count−1 (count ≤ len(d) − 1): the root is
    d_k + τ when `right`, else d_{k+1} + τ. d (decreasing, distinct) and c (> 0) are float64 arrays or
    object arrays of arf points (then eps = 2^-prec); `start` = (right, τ) from a coarser run."""
    right, taus = np.zeros(count, dtype=bool), np.empty(count, dtype=d.dtype)
    with np.errstate(all="ignore"):  # a step that divides by 0 is caught by the bracket and bisected
        for first in range(0, count, BLOCK):
            k = np.arange(first, min(first + BLOCK, count))
            block_start = None if start is None else (start[0][k], start[1][k])
            right[k], taus[k] = _solve_block(d, c, rho, k, eps, max_iter, block_start)
    return right, taus


def roots(d, c, rho, count, start=None):
    """The roots themselves (float64, or arf points at the context precision), in the dtype of d."""
    precise = d.dtype == object
    right, taus = solve(d, c, rho, count, flint.arf((1, -flint.ctx.prec)) if precise else EPS, 400 if precise else 80, start)
    k = np.arange(count)
    return np.where(right, d[k], d[k + 1]) + taus


def deflate(d, c):
    """Sort poles decreasingly and merge equal ones: (poles, weights, repeated eigenvalues)."""
    dtype = d.dtype if isinstance(d, np.ndarray) else object
    order = np.argsort(-d, kind="stable") if dtype != object else sorted(range(len(d)), key=lambda i: d[i], reverse=True)
    poles, weights, repeats = [], [], []
    for i in order:
        if poles and d[i] == poles[-1]:
            weights[-1] = weights[-1] + c[i]
            repeats.append(d[i])
        else:
            poles.append(d[i])
            weights.append(c[i])
    return np.array(poles, dtype=dtype), np.array(weights, dtype=dtype), repeats


def precise_roots(poles, weights):
    """The roots of Σ c_j/(d_j − λ) = 0 between consecutive poles (positive, decreasing, distinct arf points;
    positive arf weights), as arf points at the context precision: warm-started from float64 when the poles
    and weights fit its range relative to the largest pole, from scratch otherwise."""
    count = len(poles) - 1
    if count < 1:
        return np.array([], dtype=object)
    return roots(poles, weights, 0, count, _float_start(poles, weights, count))


def _float_start(poles, weights, count):
    """(right, τ) from float64 for the precise run, or None. The poles scaled by the largest when they stay
    distinct in float64 and inside its range; else (poles clustered within float64's resolution, as near-uniform
    z are) shifted by the smallest first: the roots of Σ c_j/(d_j − λ) move with the poles, so the float64 roots
    of the shifted problem (scaled by d_1 − d_m) are offsets from the same poles. Only a start: the precise run
    converges from any point of the bracket, and the balls are checked by signs."""
    for shift in (None, poles[-1]):
        top = poles[0] if shift is None else poles[0] - shift
        d_f = np.array([float((v if shift is None else v - shift) / top) for v in poles])
        c_f = np.array([float(v / top) for v in weights])
        live = d_f if shift is None else d_f[:-1]  # shifted, the last pole is 0
        if np.all(live > FLOAT_FLOOR) and np.all(np.diff(d_f) < 0) and np.all(c_f > FLOAT_FLOOR) and np.isfinite(c_f).all():
            right, taus = _float_solution(d_f.tobytes(), c_f.tobytes(), count)
            return right, np.array([flint.arf(float(t)) * top for t in taus], dtype=object)
    return None


@functools.lru_cache(maxsize=64)
def _float_solution(poles, weights, count):
    """`solve` in float64 on the scaled poles and weights (their bytes), kept: the precise runs of one case at
    several precisions (and its claims) start from the same float64 roots."""
    right, taus = solve(np.frombuffer(poles), np.frombuffer(weights), 0.0, count)
    right.flags.writeable = taus.flags.writeable = False
    return right, taus


# ---------------------------------------------------------------- public API (float64 and mpmath)


def _validate_z(z):
    z = np.asarray(z, dtype=float)
    if z.ndim != 1 or len(z) < 2:
        raise InputError(f"z has {z.size} entr{'y' if z.size == 1 else 'ies'}; give at least 2 coefficients")
    if not np.isfinite(z).all():
        raise InputError("z has a NaN or infinite entry; every coefficient must be finite")
    problem = on_simplex_error(z)
    if problem:
        raise InputError(f"z {problem}; give a probability vector with positive entries (or logits)")
    return z


def j_eigenvalues(z):
    """All eigenvalues of J(z), decreasing, the last exactly 0 (float64, every one to high relative accuracy)."""
    z = _validate_z(z)
    poles, weights, repeats = deflate(z, z.copy())
    values = list(repeats)
    if len(poles) > 1:
        values.extend(roots(poles, weights, 0.0, len(poles) - 1))
    return np.append(np.sort(np.array(values, dtype=float))[::-1], 0.0)


def j_eigenvalues_batch(Z):
    """Eigenvalues of J(z) for each row of Z (a batch of examples), decreasing."""
    return np.array([j_eigenvalues(row) for row in np.atleast_2d(Z)])


def rank_one_eigenvalues(a, w):
    """All eigenvalues of diag(a) − w wᵀ, decreasing."""
    a, w = np.asarray(a, dtype=float), np.asarray(w, dtype=float)
    if a.shape != w.shape or a.ndim != 1:
        raise InputError(f"a and w have shapes {a.shape} and {w.shape}; give two vectors of one length")
    live = w != 0
    values = list(a[~live])  # w_j = 0: a_j is an eigenvalue as it stands
    poles, weights, repeats = deflate(a[live], w[live] ** 2)
    values.extend(repeats)
    if len(poles):
        d = np.append(poles, poles[-1] - weights.sum())  # brackets the root below the last pole
        values.extend(roots(d, np.append(weights, 0.0), -1.0, len(poles)))
    return np.sort(np.array(values, dtype=float))[::-1]


def j_eigenvectors(z, eigenvalues=None):
    """Unit eigenvectors of J(z) as columns, matching `j_eigenvalues` (v ∝ (z_j/(z_j − λ))_j; 1/√n for 0).

    Exact ties in z are not supported here (their eigenvectors are not unique)."""
    z = _validate_z(z)
    if len(np.unique(z)) < len(z):
        raise InputError("z has repeated entries; eigenvectors of a repeated eigenvalue are not unique, perturb z")
    lam = j_eigenvalues(z) if eigenvalues is None else eigenvalues
    V = np.empty((len(z), len(lam)))
    for i, value in enumerate(lam[:-1]):
        v = z / (z - value)
        V[:, i] = v / np.linalg.norm(v)
    V[:, -1] = 1 / np.sqrt(len(z))
    return V


def j_eigenvalues_mp(log_z=None, dps=30, z=None, roots=None):
    """Eigenvalues of J(z) as mpf, decreasing, for coefficients given as log z (any range; exact numbers,
    floats or mpf) or as z itself (taken exactly, then normalised); `roots` (indices k of the k-th largest
    nonzero eigenvalue, distinct z only) keeps just those, for a sampled reference."""
    with mp.workdps(dps + 10):
        prec = mp.mp.prec
    with flint.ctx.workprec(prec):
        if z is None:
            weights = softmax_balls(log_z)[2]  # z_k / z_max, from the exact logits
        else:
            weights = [to_arb(v) for v in z]
        total = sum(weights, flint.arb(0))
        points = np.array([arf_of(v / total) for v in weights], dtype=object)
        poles, merged, repeats = deflate(points, points.copy())
        found = precise_roots(poles, merged) if len(poles) > 1 else np.array([], dtype=object)
        if roots is not None:
            return [_mpf(found[k]) for k in roots]
        values = sorted([_mpf(v) for v in list(found) + repeats], reverse=True)
    return values + [mp.mpf(0)]


def _mpf(point):
    man, exp = point.man_exp()
    return mp.make_mpf(mp.libmp.from_man_exp(int(man), int(exp)))


def within_float_range(log_z):
    """True when every coefficient and eigenvalue of J stays inside float64's normal range."""
    return float(np.min(log_z)) > math.log(1e-290)
