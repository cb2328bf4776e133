"""The `spectrum` command's library API: every eigenvalue of J(z) by the secular kernel.

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
from verify.numerics.softmax import exact_keys

MP_EIGENVALUE_LIMIT = 400  # up to this n every eigenvalue of J is printed with `dps` correct digits
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
        kappa_J = mp.mpf(values[0]) / mp.mpf(values[-2])
        kappa_JHJ = _kappa_JHJ(logits, H, dps) if H is not None else None
    return JSpectrumReport(n, tuple(values), kappa_J, kappa_JHJ, digits, method)


def _kappa_JHJ(logits, H, dps):
    """κ of J H J on T to `dps` digits by case mode's one path (`enclose_case`: verified Kato–Temple enclosures
    beyond a few tokens, seconds at n = 1000 where the dense ball path takes minutes): its ball's midpoint when the
    ball carries `dps` correct digits, else the precise path."""
    import flint

    from verify.numerics.enclosures.case import enclose_case
    from verify.numerics.enclosures.curvature import correct_digits
    from verify.numerics.precision import arb_to_mpf

    spectrum, bits, _ = enclose_case(logits, H, dps)
    if spectrum.kappa is not None and correct_digits(spectrum.kappa) >= dps:
        with flint.ctx.workprec(bits):
            return arb_to_mpf(spectrum.kappa)
    return curvature_precise(logits, H, dps).kappa


def _shifted_floats(logits):
    """log z − max log z as float64, from exact logits (shifted exactly, then rounded once) or Log(z)."""
    keys = exact_keys(logits)
    top = max(keys)
    if hasattr(logits[0], "of"):  # coefficients given as z: log of the exact ratio to the largest
        return np.array([math.log(k.numerator * top.denominator) - math.log(k.denominator * top.numerator)
                         for k in keys])
    return np.array([float(k - top) for k in keys])
