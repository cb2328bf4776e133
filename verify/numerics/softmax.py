"""Softmax numerics (docs/spec.md §1), one code path for float64 arrays and mpmath, and one for Arb balls.

Functions take numpy arrays of float64 or of mpmath mpf (dtype=object): the arithmetic is the
same, the precision is the caller's (scoped with mp.workdps). `softmax_balls` takes exact logits
(Fractions, or `Log(z)` for coefficients given as z) and returns balls at the context precision,
with every 1 − z_k a sum of the other coefficients; `log_complements` is the float64 log domain.
"""
import flint
import mpmath as mp
import numpy as np

from verify.numerics.precision import Log, decimal, to_arb, to_fraction


def _is_mp(array):
    return np.asarray(array).dtype == object


def as_mp(values):
    return np.array([mp.mpf(v) for v in values], dtype=object)


def log_softmax(logits):
    """log σ(s) = s − logsumexp(s) of one row of mpf logits, or of every row (the last axis) of float64 logits,
    shifted by the row's max so |s| = 1e6 cannot overflow; a −∞ logit (a masked key) stays −∞."""
    s = np.asarray(logits)
    top = max(s) if _is_mp(s) else s.max(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore"):  # a row whose max is ±∞ or NaN (a diverged model) has no σ: NaN
        shifted = s - top
    if _is_mp(s):
        return shifted - mp.log(mp.fsum(mp.exp(x) for x in shifted))
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))


def softmax(logits):
    """σ(s) of one row of mpf logits or of every row of float64 logits (the one softmax of the package: the
    model, the derivations' numeric checks, the LaTeX tables and the transformer's measures call it); from mpmath
    logits every coefficient keeps its digits, however small."""
    log_z = log_softmax(logits)
    if _is_mp(log_z):
        return np.array([mp.exp(x) for x in log_z], dtype=object)
    return np.exp(log_z)


def complements(z):
    """1 − z_k, computed as Σ_{j≠k} z_j for the largest z_k so z_k ≈ 1 loses nothing."""
    z = np.asarray(z)
    top = int(np.argmax(z))
    others = np.delete(z, top)
    comp = 1 - z
    comp[top] = mp.fsum(others) if _is_mp(z) else np.sum(others)
    return comp


def log_complements(log_z):
    """log(1 − z_k) from float64 log z: log1p(−z_k), except log Σ_{j≠k} z_j for the largest z_k."""
    top = int(np.argmax(log_z))
    with np.errstate(divide="ignore"):  # the top entry's log1p(−1) is replaced below
        out = np.log1p(-np.exp(log_z))
    others = np.delete(log_z, top)
    m = others.max()
    out[top] = m + np.log(np.sum(np.exp(others - m)))
    return out


def exact_keys(log_z):
    """Exact sort keys of exact log-weights (a logit as a Fraction, int, float or mpf, each taken exactly, or
    `Log(z)`): z is increasing in the key, and equal keys are exactly tied coefficients."""
    if all(isinstance(v, Log) for v in log_z):
        return [v.of for v in log_z]
    if any(isinstance(v, Log) for v in log_z):
        raise TypeError("give every coefficient as a logit or every one as Log(z), not a mixture")
    return [to_fraction(v) for v in log_z]


def softmax_balls(log_z):
    """(z, 1 − z, e) as lists of Arb balls at the context precision, from exact log-weights: e_k = z_k/z_max
    (exp of the exact logit difference, or the exact ratio of coefficients given as z), z_k = e_k/Σe and
    1 − z_k = Σ_{j≠k} e_j/Σe by prefix and suffix sums (positive terms: no cancellation for any k)."""
    keys = exact_keys(log_z)
    top = max(keys)
    if isinstance(log_z[0], Log):
        e = [to_arb(k / top) for k in keys]
    else:
        e = [to_arb(k - top).exp() for k in keys]
    total, others = sums_but_one(e)
    return [v / total for v in e], [rest / total for rest in others], e


def sums_but_one(values):
    """(Σ values, [Σ_{j≠k} values_j for each k]) of balls by prefix and suffix sums: O(n), and for positive
    terms no cancellation (Σ − values_k would lose 1 − z_k when z_k is near 1)."""
    n = len(values)
    prefix = [flint.arb(0)]
    for v in values:
        prefix.append(prefix[-1] + v)
    suffix = [flint.arb(0)] * (n + 1)
    for k in range(n - 1, -1, -1):
        suffix[k] = suffix[k + 1] + values[k]
    return prefix[n], [prefix[k] + suffix[k + 1] for k in range(n)]


def extreme_ratio(log_z):
    """R = z_max/z_min as a ball: the exact ratio of coefficients given as z, or exp of the exact logit difference."""
    keys = exact_keys(log_z)
    top, bottom = max(keys), min(keys)
    return to_arb(top / bottom) if isinstance(log_z[0], Log) else to_arb(top - bottom).exp()


def jacobian_balls(z, complements):
    """J(z) = diag(z) − zzᵀ as an arb_mat, its diagonal z_k(1 − z_k) from the complements (no cancellation)."""
    n = len(z)
    J = flint.arb_mat(n, n)
    for i in range(n):
        for j in range(n):
            J[i, j] = z[i] * complements[i] if i == j else -z[i] * z[j]
    return J


def jacobian(z):
    """J(z) = diag(z) − z zᵀ (symmetric PSD, J 1 = 0), diagonal z_k(1 − z_k) without cancellation."""
    z = np.asarray(z)
    J = -np.outer(z, z)
    J[np.diag_indices(len(z))] = z * complements(z)
    return J


def jacobian_symbolic(z):
    """J(z) = diag(z) − z zᵀ as a SymPy matrix of the entries z (symbols or expressions; D1)."""
    import sympy as sp  # only the symbolic callers pay for loading SymPy

    n = len(z)
    return sp.Matrix(n, n, lambda i, k: z[i] * (int(i == k) - z[k]))


def hessian_tensor(z):
    """∂²σ_k/∂s_a∂s_b = σ_k[(δ_ka − σ_a)(δ_kb − σ_b) − σ_a(δ_ab − σ_b)], as T[k, a, b].

    Row k is z_k [(e_k − z)(e_k − z)ᵀ − J(z)].
    """
    z = np.asarray(z)
    n = len(z)
    eye = np.eye(n, dtype=z.dtype)
    if _is_mp(z):
        eye = np.array([[mp.mpf(int(i == j)) for j in range(n)] for i in range(n)], dtype=object)
    E = eye - z[None, :]
    J = jacobian(z)
    return z[:, None, None] * (E[:, :, None] * E[:, None, :] - J[None, :, :])


def on_simplex_error(z, tol=1e-12):
    """None if z is a probability vector with positive entries (sum within tol), else a reason."""
    if any(v < 0 for v in z):
        return "has a negative entry"
    if any(v == 0 for v in z):
        return "has a zero entry (the claims need every z_k > 0; give logits instead)"
    total = mp.fsum(z) if _is_mp(np.asarray(z)) else float(np.sum(z))
    if abs(total - 1) > tol:
        return f"sums to {decimal(total, 17, strip_zeros=True)}, not 1 within {tol:g}"
    return None
