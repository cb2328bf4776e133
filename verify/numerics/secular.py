"""Eigenvalues of diag(d) − w wᵀ and of J(z) = diag(z) − z zᵀ by the secular equation.

With poles d₁ > d₂ > … (equal poles deflated: each repeated value is an eigenvalue of
multiplicity count − 1 and the group becomes one pole of summed weight), the roots of
    F(λ) = ρ + Σ_j c_j / (d_j − λ),   c_j > 0,   F increasing between poles,
lie one in each (d_{k+1}, d_k).  For J(z) we use Σz = 1: the nonzero eigenvalues are the
roots of Σ_j z_j / (z_j − λ) (ρ = 0, c = z), which depend only on ratios; 0 is the last
eigenvalue.  For diag(d) − w wᵀ, ρ = −1 and c = w², with one more root below d_min.

Each root is found relative to its nearer pole (λ = origin + τ, with d_j − λ computed as
(d_j − origin) − τ), so every eigenvalue, however small, has high relative accuracy.  The
step fits each side of F with one pole ("middle way", R.-C. Li 1994) and is safeguarded by
bisection.  `_solve_root` is plain arithmetic: numba (optional, loaded on first float64 use)
compiles it, and the same function runs on mpmath numbers for coefficients below
float64's range.
"""
import math
import types

import mpmath as mp
import numpy as np

from verify.errors import InputError
from verify.numerics.precision import to_mpf
from verify.numerics.secular_numpy import interior_roots
from verify.numerics.softmax import on_simplex_error



def _evaluate(d, c, rho, k, origin, tau, s):
    """F and its pieces at λ = origin + τ: ψ (poles below d_k), φ (the others), and the
    slopes s·ψ', s·φ' in units of s (F is invariant under scaling c, d, λ together, so
    this keeps every quantity near 1 however small the eigenvalue)."""
    psi = 0.0 * tau
    dpsi = 0.0 * tau
    phi = 0.0 * tau
    dphi = 0.0 * tau
    for j in range(k + 1):
        inverse = 1 / ((d[j] - origin) - tau)
        term = c[j] * inverse
        phi += term
        dphi += term * inverse
    for j in range(k + 1, len(d)):
        inverse = 1 / ((d[j] - origin) - tau)
        term = c[j] * inverse
        psi += term
        dpsi += term * inverse
    dpsi *= s
    dphi *= s
    return rho + psi + phi, psi, dpsi, phi, dphi


def _solve_root(d, c, rho, k, eps, max_iter):
    """The root in (d_{k+1}, d_k) (or below d_{m−1} when k = m − 1), as (origin, τ)."""
    m = len(d)
    zero = 0.0 * d[0]
    if k < m - 1:  # start at the midpoint, seen from the pole on the root's side
        lower, upper = d[k + 1], d[k]
        half = (upper - lower) / 2
        origin, tau, lo, hi = lower, half, zero, half
        s = half
        value, psi, dpsi, phi, dphi = _evaluate(d, c, rho, k, origin, tau, s)
        if value < 0:
            origin, tau, lo, hi = upper, -half, -half, zero
    else:  # below the smallest pole (ρ < 0 only): λ ∈ (d_min − Σc/|ρ|, d_min)
        total = zero
        for j in range(m):
            total += c[j]
        origin, lo, hi = d[m - 1], -total / (-rho), zero
        tau = (lo + hi) / 2
        s = abs(tau)
        value, psi, dpsi, phi, dphi = _evaluate(d, c, rho, k, origin, tau, s)
    for _ in range(max_iter):
        if value < 0:
            lo = tau
        else:
            hi = tau
        scale = abs(rho) + abs(psi) + abs(phi)
        if abs(value) <= 8 * eps * scale or hi - lo <= 2 * eps * max(abs(lo), abs(hi)):
            break
        step = _middle_way(d, k, origin, tau, value, psi, dpsi, phi, dphi, m, s)
        if not (lo < step < hi):
            step = _bisect(lo, hi)
        converged = abs(step - tau) <= 2 * eps * abs(step)
        tau = step
        if converged:
            break
        s = abs(tau) if tau != 0 else hi - lo
        value, psi, dpsi, phi, dphi = _evaluate(d, c, rho, k, origin, tau, s)
    return origin, tau


def _middle_way(d, k, origin, tau, value, psi, dpsi, phi, dphi, m, s):
    """Zero of a + s₁/(Δ_lo − t) + s₂/(Δ_hi − t), the model matching ψ, φ and their slopes at τ.

    Solved in units of s (t = s·t̂; dpsi, dphi are s·ψ', s·φ'), returned in absolute units.
    One pole is the origin (Δ = 0); the other may be ~1e300 units away, so its weight
    s_i = slope·(Δ − t)² is only ever used divided by that distance D (no overflow)."""
    t = tau / s
    hi_pole = (d[k] - origin) / s
    r2 = hi_pole - t
    if k == m - 1:  # no pole below: ψ is modelled by its value and slope
        return s * _newton_line(value - dphi * r2 - dpsi * t, dpsi, dphi * r2 * r2, hi_pole, t)
    lo_pole = (d[k + 1] - origin) / s
    r1 = lo_pole - t
    a = value - dpsi * r1 - dphi * r2
    D = max(abs(lo_pole), abs(hi_pole), 1.0)
    s1 = dpsi * r1 * (r1 / D)  # s₁/D
    s2 = dphi * r2 * (r2 / D)  # s₂/D
    # a(Δ_lo − t)(Δ_hi − t) + s₁(Δ_hi − t) + s₂(Δ_lo − t) = 0, divided by D: A t² − B t + C = 0;
    # one of Δ_lo, Δ_hi is 0 (the origin pole), so C has no cancellation
    A = a / D
    B = a * ((lo_pole + hi_pole) / D) + s1 + s2
    C = a * lo_pole * (hi_pole / D) + s1 * hi_pole + s2 * lo_pole
    disc = B * B - 4 * A * C
    if disc < 0:
        disc = 0.0 * disc
    root = disc**0.5
    if A == 0:
        return s * C / B if B != 0 else tau
    small = 2 * C / (B + root) if B >= 0 else 2 * C / (B - root)
    large = (B + root) / (2 * A) if B >= 0 else (B - root) / (2 * A)
    return s * (small if abs(small - t) <= abs(large - t) else large)


def _newton_line(a, slope, s2, hi_pole, tau):
    """Below the last pole: zero of a + slope·t + s2/(Δ_hi − t) by one Newton step from τ."""
    f = a + slope * tau + s2 / (hi_pole - tau)
    df = slope + s2 / (hi_pole - tau) ** 2
    return tau - f / df


def _bisect(lo, hi):
    """Geometric midpoint when the bracket spans orders of magnitude on one side of 0."""
    if lo > 0 and hi > 4 * lo:
        return lo**0.5 * hi**0.5  # not (lo·hi)^½: lo·hi underflows below 1e-308
    if hi < 0 and lo < 4 * hi:
        return -((-lo) ** 0.5 * (-hi) ** 0.5)
    if lo == 0 and hi > 0:
        return hi / 1024 if hi > 1e-300 else hi / 2
    if hi == 0 and lo < 0:
        return lo / 1024 if lo < -1e-300 else lo / 2
    return (lo + hi) / 2


# The pure-Python originals, sharing one namespace: the mpmath path runs these.
_PY = {}
for _name in ("_evaluate", "_middle_way", "_newton_line", "_bisect", "_solve_root"):
    _PY[_name] = types.FunctionType(globals()[_name].__code__, _PY, _name)
_PY.update({"abs": abs, "min": min, "max": max, "len": len, "range": range})

_ALL_ROOTS = None


def _kernel():
    """All roots in float64: numba-compiled (parallel over roots, cached on disk) on first use."""
    global _ALL_ROOTS, _evaluate, _newton_line, _bisect, _middle_way, _solve_root
    if _ALL_ROOTS is not None:
        return _ALL_ROOTS
    try:
        import numba
    except ImportError:  # pragma: no cover - numba is optional
        _ALL_ROOTS = _roots_in_python
        return _ALL_ROOTS
    # compiled twins under the module names, so the compiled _solve_root calls compiled helpers;
    # reassociation lets LLVM vectorise the sums (terms of one sign: no cancellation to protect)
    _evaluate = numba.njit(cache=True, fastmath={"reassoc", "contract"}, error_model="numpy")(_evaluate)
    _newton_line = numba.njit(cache=True)(_newton_line)
    _bisect = numba.njit(cache=True)(_bisect)
    _middle_way = numba.njit(cache=True)(_middle_way)
    _solve_root = numba.njit(cache=True)(_solve_root)

    @numba.njit(parallel=True, cache=True)
    def all_roots(d, c, rho, count):
        origins = np.empty(count)
        taus = np.empty(count)
        for k in numba.prange(count):
            origins[k], taus[k] = _solve_root(d, c, rho, k, 2.220446049250313e-16, 80)
        return origins, taus

    _ALL_ROOTS = all_roots
    return _ALL_ROOTS


def _roots_in_python(d, c, rho, count):
    pairs = [_PY["_solve_root"](d, c, rho, k, 2.220446049250313e-16, 80) for k in range(count)]
    return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])


# ---------------------------------------------------------------- public API


def _deflate(d, c):
    """Sort poles decreasingly and merge equal ones: (poles, weights, repeated eigenvalues)."""
    order = np.argsort(-d, kind="stable")
    d, c = d[order], c[order]
    poles, weights, repeats = [], [], []
    for value, weight in zip(d, c):
        if poles and value == poles[-1]:
            weights[-1] += weight
            repeats.append(value)
        else:
            poles.append(value)
            weights.append(weight)
    return np.array(poles), np.array(weights), repeats


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
    poles, weights, repeats = _deflate(z, z.copy())
    values = list(repeats)
    if len(poles) > 1:
        origins, taus = _roots(poles, weights, 0.0, len(poles) - 1)
        values.extend(origins + taus)
    values = np.sort(np.array(values))[::-1]
    return np.append(values, 0.0)


NUMPY_ROOTS = 3000  # up to this many roots the vectorised numpy solver beats numba's load time end to end


def _roots(d, c, rho, count):
    """The interior roots: vectorised numpy for a moderate count (no compiler to load), else the compiled kernel."""
    if count <= NUMPY_ROOTS:
        return interior_roots(d, c, rho, count)
    return _kernel()(d, c, rho, count)


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
    poles, weights, repeats = _deflate(a[live], w[live] ** 2)
    values.extend(repeats)
    if len(poles):
        origins, taus = _kernel()(poles, weights, -1.0, len(poles))
        values.extend(origins + taus)
    return np.sort(np.array(values))[::-1]


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
    """Eigenvalues of J(z) as mpf, decreasing, for coefficients given as log z (any range)
    or as z itself (taken exactly, then normalised); `roots` (indices k of the k-th
    largest nonzero eigenvalue, distinct z only) computes just those, for a sampled reference.

    The same `_solve_root`, on mpmath numbers: only ratios matter, so z is scaled by its largest entry."""
    with mp.workdps(dps + 10):
        if z is None:
            logs = [to_mpf(v) for v in log_z]
            top = max(logs)
            z = [mp.exp(v - top) for v in logs]
        else:
            z = [to_mpf(v) for v in z]
        total = mp.fsum(z)
        z = np.array([v / total for v in z], dtype=object)
        poles, weights, repeats = _deflate(z, z.copy())
        values = list(repeats)
        eps = mp.mpf(2) ** (-mp.mp.prec)
        poles, weights = list(poles), list(weights)
        for k in range(len(poles) - 1) if roots is None else roots:
            origin, tau = _PY["_solve_root"](poles, weights, mp.mpf(0), k, eps, 400)
            values.append(origin + tau)
        if roots is not None:
            return [+v for v in values]
        values = sorted(values, reverse=True) + [mp.mpf(0)]
        return [+v for v in values]


def within_float_range(log_z):
    """True when every coefficient and eigenvalue of J stays inside float64's normal range."""
    return float(np.min(log_z)) > math.log(1e-290)
