"""The one spectrum record of one example: J H J on T, the constants of H, and optionally every eigenvalue."""
from dataclasses import dataclass


@dataclass(frozen=True)
class CurvatureSpectrum:
    """Extreme eigenvalues of J H J on T and the constants of H.

    Values are mpf (precise path), mpf or float (fast path) or flint.arb balls (ball path, where any
    field may be None when that quantity could not be enclosed at the working precision)."""

    n: int
    lambda_max: object
    lambda_min: object
    L_T: object  # λ_max of H on T (reading tangent-exact)
    mu_T: object  # λ_min of H on T
    L_amb: object  # λ_max of H on R^n (reading ambient-bounds)
    mu_amb: object
    z_desc: tuple  # coefficients, largest first
    rel_err: float  # estimated relative error of every value above (0 for balls: the radii say it)
    dps: object  # None for the float64 and ball paths
    kappa: object = None  # λ_max/λ_min and R = z_max/z_min, computed at the working precision
    R: object = None
    j: tuple = None  # the n − 1 positive eigenvalues of J(z), decreasing (when asked for)
    lam: tuple = None  # the n − 1 eigenvalues of J H J on T, decreasing (when asked for)
    lam_err: tuple = None  # the precise path's bound on each |lam − λ(k)| (its enclosure's radii), else None
