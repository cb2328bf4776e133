"""Cases built from the models of a failed proof: where the facts allow a counterexample, a concrete
(z, H) near the model's values is a good place for the search to look (claims false only in corners:
κ beyond 1e600, ties, near-uniform z). A model is a hint, never a verdict: every case built here is
decided by the same Decider as any other.

z: the model's coefficients at the indices it names, the others filled geometrically, renormalised.
H: diagonal in J(z)'s eigenbasis with the model's L_T and μ_T on the extreme eigenvectors of J in T
(either way round), the direction 1 carrying the model's L or μ; for the isotropic family aI + b11ᵀ;
for the diagonal family diag of the model's extremes.
"""
import math
from fractions import Fraction

import numpy as np

from verify.claims.cases.case import Case, parse_case
from verify.base.errors import InputError
from verify.numerics.tangent import tangent_basis

MAX_N = 128  # a model's n is brought down to this, beyond the random pool's 64 (a case there takes about a second)


def cases_from_model(values, family, n_range):
    """Candidate cases (exact Case records) near a model's values; possibly none."""
    try:
        return _cases(values, family, n_range)
    except (ArithmeticError, ValueError):  # a model far outside float64: no hint from it
        return []


def _cases(values, family, n_range):
    n = _n(values, n_range)
    log_z = _log_coefficients(values, n)
    if log_z is None:
        return []
    extremes = _constants(values)
    out = []
    for H in _hessians(log_z, extremes, family):
        try:  # validated as a case file is: H must be symmetric positive definite exactly
            out.append(parse_case(Case.from_arrays(log_z - log_z.max(), H).inputs()))
        except (InputError, ValueError, OverflowError):
            continue
    return out


def _n(values, n_range):
    lo, hi = n_range
    n = values.get("n", lo)
    n = int(round(float(n))) if not isinstance(n, int) else n
    return int(max(lo, min(n, hi, MAX_N)))


def _log_coefficients(values, n):
    """ln z, decreasing, from the model's z entries (z_1, z_2, z_n_m1, z_n, …), geometric in between."""
    known = {}
    for name, value in values.items():
        if not name.startswith("z_") or not value > 0:
            continue
        index = _index(name[2:], n, values.get("k"))
        if index is not None and 1 <= index <= n:
            known[index] = _log_fraction(Fraction(value))
    if not known:
        return None
    known.setdefault(1, max(known.values()))
    known.setdefault(n, min(known.values()))
    points = sorted(known)
    logs = np.interp(range(1, n + 1), points, [known[p] for p in points])
    logs = np.minimum.accumulate(logs)  # keep the order
    top = logs.max()
    return logs - top - np.log(np.sum(np.exp(logs - top)))


def _float(value):
    """A model value as a float, clipped to float64's range (a hint needs no more)."""
    value = Fraction(value)
    if value <= 0:
        return 0.0
    return math.exp(max(min(_log_fraction(value), 700.0), -700.0))


def _log_fraction(value):
    return math.log(value.numerator) - math.log(value.denominator)


def _index(suffix, n, k=None):
    """The index of a model name's suffix: "3", "n", "n_m1" (n − 1), "n_p2"; "k", "k_p1" at the model's k
    (a claim for every k), rounded to an integer."""
    if suffix.isdigit():
        return int(suffix)
    stem, _, shift = suffix.partition("_")
    base = n if stem == "n" else round(float(k)) if stem == "k" and k is not None else None
    if base is None:
        return None
    if not shift:
        return base
    if shift[:1] in "mp" and shift[1:].isdigit():
        return base - int(shift[1:]) if shift[0] == "m" else base + int(shift[1:])
    return None


def _constants(values):
    """(L_T, μ_T, L, μ) from the model, positive and ordered, with defaults where it left one free."""
    L_T = _float(values.get("L_T", 1)) or 1.0
    mu_T = _float(values.get("mu_T", 1)) or 1.0
    L_T, mu_T = max(L_T, mu_T, 1e-300), max(min(L_T, mu_T), 1e-300)
    L = max(_float(values.get("L", L_T)) or L_T, L_T)
    mu = min(_float(values.get("mu", mu_T)) or mu_T, mu_T)
    scale = L_T  # the claims are homogeneous in H: bring it to order 1
    return L_T / scale, mu_T / scale, L / scale, max(mu / scale, 1e-30)


def _hessians(log_z, extremes, family):
    L_T, mu_T, L, mu = extremes
    n = len(log_z)
    if family == "isotropic":
        return [np.eye(n) * L_T + (along - L_T) / n * np.ones((n, n)) for along in (L, mu) if along > 0]
    if family == "diagonal":
        spread = np.geomspace(L_T, mu_T, n)
        return [np.diag(spread), np.diag(spread[::-1])]
    z = np.exp(log_z)
    Q = tangent_basis(n)
    _, U = np.linalg.eigh(Q.T @ (np.diag(z) - np.outer(z, z)) @ Q)  # J on T, increasing
    V = np.column_stack([np.ones(n) / math.sqrt(n), Q @ U])  # 1 first, then J's eigenvectors in T, increasing
    out = []
    for top_gets_L in (True, False):
        on_T = np.geomspace(L_T, mu_T, n - 1) if top_gets_L else np.geomspace(mu_T, L_T, n - 1)
        for along in (L, mu):
            h = np.concatenate([[along], on_T[::-1]])  # V's columns: 1 first, then J's eigenvectors increasing
            H = (V * h) @ V.T
            out.append((H + H.T) / 2)
    return out
