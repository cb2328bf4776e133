"""Rigorous balls around the roots of a secular equation with exactly known ties.

For poles d_1 > … > d_m (balls containing exact, distinct values) and weights c_j > 0, the function
    F(λ) = Σ_j c_j / (d_j − λ)
increases from −∞ to +∞ between consecutive poles, so it has exactly one root in each (d_{k+1}, d_k).
An approximation λ = origin + t (origin the nearer pole, t from `secular.precise_roots` at the context
precision) is enclosed by two sign checks in Arb: if, for every point of the pole balls, the interval
origin + [t_lo, t_hi] lies strictly between the two poles and F(origin + t_lo) < 0 < F(origin + t_hi),
the root is in it. F is evaluated as Σ_j c_j / ((d_j − origin) − t), so a root close to its pole keeps
its relative accuracy. Exactly equal keys are merged first: a value shared by m items is an eigenvalue
of multiplicity m − 1 and one pole of the summed weight (deflation, decided on the exact keys).

Two problems have this form: J(z)'s positive eigenvalues (poles and weights e_k = z_k/z_max, the
roots scaled by 1/Σe) and the eigenvalues of a diagonal H on T (poles h_k, weights 1).
"""
import flint
import numpy as np

from verify.numerics.secular import arf_of, precise_roots

WIDENINGS = (1, 8, 24)  # the checked half-width is the first estimate times 2^w for these w in turn


def secular_balls(keys, poles, weights):
    """The n − 1 eigenvalues of the deflated secular problem, DECREASING, as balls (None where a root could not
    be enclosed at this precision): `keys` exact and comparable (equal keys are exact ties, a larger key a
    larger pole), `poles` and `weights` balls per item (weights > 0)."""
    order = sorted(range(len(keys)), key=lambda i: keys[i], reverse=True)
    groups = []
    for i in order:
        if groups and keys[i] == keys[groups[-1][0]]:
            groups[-1].append(i)
        else:
            groups.append([i])
    d = [poles[g[0]] for g in groups]
    c = [sum((weights[i] for i in g), flint.arb(0)) for g in groups]
    found = _roots(d, c)
    values = []
    for k, group in enumerate(groups):
        values.extend([d[k]] * (len(group) - 1))
        if k < len(groups) - 1:
            values.append(found[k])
    return values


def _roots(d, c):
    """A ball (or None) for the root in each (d_{k+1}, d_k)."""
    m = len(d)
    if m < 2:
        return []
    d_points = np.array([arf_of(v) for v in d], dtype=object)
    if not all(d_points[k] > d_points[k + 1] for k in range(m - 1)) or not all(v > 0 for v in c):
        return [None] * (m - 1)
    approximations = precise_roots(d_points, np.array([arf_of(v) for v in c], dtype=object))
    return [_enclose(d, c, k, approximations[k]) for k in range(m - 1)]


def _enclose(d, c, k, approximation):
    """The ball for the root in (d_{k+1}, d_k) around the point `approximation`, or None. The half-width starts
    at the Newton distance |F|/F' to the root plus the uncertainty of F's ball, at least 2^(8−prec)|t|."""
    upper, lower = d[k], d[k + 1]
    point = flint.arb(approximation)
    origin_index = k if abs(upper - point).mid() <= abs(point - lower).mid() else k + 1
    origin = d[origin_index]
    t = point - origin.mid()
    offsets = np.array([flint.arb(0) if j == origin_index else d[j] - origin for j in range(len(d))], dtype=object)
    weights = np.array(c, dtype=object)
    width = upper - lower
    value, slope = _value(offsets, weights, t), (weights / (offsets - t) ** 2).sum()
    if not slope > 0:
        return None
    start = flint.arb(((abs(value.mid()) + value.rad()) / slope.lower()).upper())
    start = start.max(abs(t) * flint.arb(2) ** (8 - flint.ctx.prec))
    for widening in WIDENINGS:
        margin = start * flint.arb(2) ** widening
        t_lo, t_hi = t - margin, t + margin
        inside = (t_lo > -width and t_hi < 0) if origin_index == k else (t_lo > 0 and t_hi < width)
        if inside and _value(offsets, weights, t_lo) < 0 and _value(offsets, weights, t_hi) > 0:
            return origin + t_lo.union(t_hi)
    return None


def _value(offsets, weights, t):
    """F at origin + t, as a ball containing its value for every point of the pole and weight balls."""
    return (weights / (offsets - t)).sum()
