"""The `spectrum` command's library API: every eigenvalue of J(z) by the secular kernel."""
import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath as mp
import numpy as np

from verify.numerics import secular
from verify.numerics.curvature import curvature_precise

MP_EIGENVALUE_LIMIT = 400  # up to this n every eigenvalue of J is printed with 30 correct digits


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
    """Eigenvalues of J(z) by the secular kernel (mpmath when n is small or z leaves float64's range).

    Work outside the kernel is linear in n: the logits are shifted by their maximum once."""
    n = len(logits)
    log_z = _shifted_floats(logits)
    if n <= MP_EIGENVALUE_LIMIT or not secular.within_float_range(log_z - math.log(n)):
        values = secular.j_eigenvalues_mp(logits, dps=dps)
        digits, method = dps, "secular, mpmath"
    else:
        z = np.exp(log_z)
        values = list(secular.j_eigenvalues(z / np.sum(z)))
        digits, method = 15, "secular, float64"
    with mp.workdps(dps + 10):
        kappa_J = mp.mpf(values[0]) / mp.mpf(values[-2])
        kappa_JHJ = curvature_precise(logits, H, dps).kappa if H is not None else None
    return JSpectrumReport(n, tuple(values), kappa_J, kappa_JHJ, digits, method)


def _shifted_floats(logits):
    """s − max(s) as float64; exact rationals are shifted exactly, then rounded once."""
    if all(isinstance(v, Fraction) for v in logits):
        top = max(logits)
        return np.array([float(v - top) for v in logits])
    s = np.array([float(v) for v in logits])
    return s - s.max()
