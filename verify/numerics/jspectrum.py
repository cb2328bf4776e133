"""The `spectrum` command's library API: every eigenvalue of J(z) by the secular kernel; and κ_J, the one
condition number of J(z) on T (`kappa_J_of` from J's eigenvalues, `log10_kappa_J_of` for a stack of rows).

Cost bounds: up to MP_EIGENVALUE_LIMIT coefficients every eigenvalue is computed at `dps` digits
(the float64 roots refined at that precision: O(n²) work per step, one or two steps); beyond, in
float64 (15 digits, relative to each eigenvalue). Coefficients below float64's range (relative to
the largest) have no float64 start, so their high-precision solve starts from scratch (O(n²) work
per step, tens of steps): at most COLD_LIMIT distinct such coefficients are accepted.
"""
import math
from dataclasses import dataclass

import mpmath as mp
import numpy as np

from verify.base.errors import InputError
from verify.numerics import secular
from verify.numerics.curvature import curvature_precise
from verify.numerics.softmax import exact_keys, log_softmax

LN10 = math.log(10.0)
MP_EIGENVALUE_LIMIT = 400  # up to this n every eigenvalue of J is printed with `dps` correct digits
PRECISE_KAPPA_LIMIT = 48  # up to this n, κ of J H J the enclosure leaves short of `dps` digits is computed densely
# (curvature_precise: an O(n³) mpmath eigen-solve, 4 s at n = 100 and 42 s at 200); beyond, the enclosure's own digits
COLD_LIMIT = 400  # distinct coefficients at most when some lie below float64's range


@dataclass(frozen=True)
class JSpectrumReport:
    """The spectrum command's result: J's eigenvalues, κ_J, κ of J H J on T, correct digits and method."""

    n: int
    eigenvalues: tuple  # of J(z), decreasing, the last 0 (mpf, or float above the limit)
    kappa_J: object
    kappa_JHJ: object
    correct_digits: int
    method: str
    kappa_JHJ_digits: int = None  # the correct digits of kappa_JHJ (None without H)


def j_spectrum_report(logits, H=None, dps=30):
    """Eigenvalues of J(z) by the secular kernel (at `dps` digits when n is small or z leaves float64's range).

    Work outside the kernel is linear in n: the logits are shifted by their maximum once."""
    n = len(logits)
    log_z = _shifted_floats(logits)
    in_range = secular.within_float_range(log_z - math.log(n))
    if not in_range and len(set(exact_keys(logits))) > COLD_LIMIT:
        raise InputError(f"{len(set(exact_keys(logits)))} distinct coefficients, some below float64's range (1e-290 "
                         f"of the largest): at most {COLD_LIMIT} are solved at {dps} digits; give fewer tokens or "
                         "coefficients within 1e-290 of the largest")
    if n <= MP_EIGENVALUE_LIMIT or not in_range:
        values = secular.j_eigenvalues_mp(logits, dps=dps)
        digits = dps
        method = ("secular, float64 roots refined at the working precision" if in_range else
                  "secular, solved at the working precision (coefficients below float64's range)")
    else:
        z = np.exp(log_z)
        values = list(secular.j_eigenvalues(z / np.sum(z)))
        digits, method = 15, "secular, float64"
    with mp.workdps(dps + 10):
        kappa_J = kappa_J_of(values)
        kappa_JHJ, kappa_digits = _kappa_JHJ(logits, H, dps) if H is not None else (None, None)
    return JSpectrumReport(n, tuple(values), kappa_J, kappa_JHJ, digits, method, kappa_digits)


def _kappa_JHJ(logits, H, dps):
    """(κ of J H J on T, its correct digits) by case mode's one path (`enclose_case`: verified Kato–Temple enclosures
    beyond a few tokens, seconds at n = 1000 where the dense ball path takes minutes): its ball's midpoint when the
    ball carries `dps` correct digits; else, up to PRECISE_KAPPA_LIMIT tokens, the precise path's `dps` digits, and
    beyond, the midpoint to the digits the ball vouches for (a cluster of eigenvalues widens it)."""
    import flint

    from verify.numerics.enclosures.case import enclose_case
    from verify.numerics.enclosures.curvature import correct_digits
    from verify.numerics.precision import arb_to_mpf

    spectrum, bits, _ = enclose_case(logits, H, dps)
    vouched = correct_digits(spectrum.kappa) if spectrum.kappa is not None else 0  # inf for an exact κ
    if vouched < dps and len(logits) <= PRECISE_KAPPA_LIMIT:
        return curvature_precise(logits, H, dps).kappa, dps
    with flint.ctx.workprec(bits):
        return arb_to_mpf(spectrum.kappa), dps if vouched >= dps else max(0, int(vouched))


def _shifted_floats(logits):
    """log z − max log z as float64, from exact logits (shifted exactly, then rounded once) or Log(z)."""
    keys = exact_keys(logits)
    top = max(keys)
    if hasattr(logits[0], "of"):  # coefficients given as z: log of the exact ratio to the largest
        return np.array([math.log(k.numerator * top.denominator) - math.log(k.denominator * top.numerator)
                         for k in keys])
    return np.array([float(k - top) for k in keys])


def kappa_J_of(eigenvalues):
    """κ_J = λ_max / λ_min⁺ from J(z)'s eigenvalues, decreasing with the last 0 (as the secular kernel returns
    them), divided at the context precision."""
    return mp.mpf(eigenvalues[0]) / mp.mpf(eigenvalues[-2])


def log10_kappa_J_of(log_rows, dps=30):
    """log10 κ_J of J(z) for each row of a stack (k, n) of natural-log coefficients (normalised here), as a
    float64 array: rows inside float64's normal range all at once (`_log10_kappa_J_float`), any other row by
    the secular kernel at `dps` digits."""
    log_rows = np.asarray(log_rows, dtype=np.float64)
    log_z = log_softmax(log_rows)
    inside = np.fromiter((secular.within_float_range(row) for row in log_z), bool, len(log_z))
    kappa = np.empty(len(log_z))
    if inside.any():
        kappa[inside] = _log10_kappa_J_float(log_z[inside])
    for index in np.nonzero(~inside)[0]:
        with mp.workdps(dps):
            kappa[index] = float(mp.log10(kappa_J_of(secular.j_eigenvalues_mp(log_z=list(log_rows[index]), dps=dps))))
    return kappa


def _log10_kappa_J_float(log_z):
    """log10 κ_J of normalised float64 rows: κ_J is λ_max(J) · λ_max(J⁺) with J⁺ = P D⁻¹ P (D = diag(z), P the
    projector onto T = 1^⊥), two *largest* eigenvalues of positive semidefinite matrices, which a dense symmetric
    solver returns to a few ulps relative to the matrix norm, i.e. to high relative accuracy. J is formed with its
    diagonal z_i Σ_{j≠i} z_j (no cancellation when z_i ≈ 1) and D⁻¹ is scaled by z_min, so its entries z_min/z_j
    lie in (0, 1] whatever R is; the stack is one batched `numpy.linalg.eigvalsh` call."""
    count, n = log_z.shape
    diagonal = np.arange(n)
    z = np.exp(log_z)
    J = -z[:, :, None] * z[:, None, :]
    J[:, diagonal, diagonal] = z * (z @ (1.0 - np.eye(n)))  # z_i (1 − z_i), 1 − z_i summed from the others
    low = log_z.min(axis=-1)
    s = np.exp(low[:, None] - log_z)  # z_min / z_j
    scaled_pinv = s.sum(axis=-1)[:, None, None] / n**2 - (s[:, :, None] + s[:, None, :]) / n  # z_min · P D⁻¹ P
    scaled_pinv[:, diagonal, diagonal] += s
    top = np.linalg.eigvalsh(np.concatenate([J, scaled_pinv]))[:, -1]
    return np.log10(top[:count]) + np.log10(top[count:]) - low / LN10
