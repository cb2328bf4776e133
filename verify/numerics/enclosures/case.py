"""Case mode's enclosure of one example: every spectral quantity as a rigorous ball to `dps` digits.

Up to BALL_LIMIT tokens every quantity comes from the ball path (`curvature_balls`: Weyl–Ostrowski
balls on refined eigenvectors, every eigenvalue by index, clusters and exact ties included; λ_min as
1/λ_max of the inverse on T), the precision doubling until each ball has `dps` correct digits or
MAX_BITS is reached. Beyond, the scaled Kato–Temple path (`enclose_curvature`, O(n²) Arb work) gives
the extremes; a quantity it leaves short of `dps` digits (a cluster at an end of a spectrum, where no
gap separates the extreme eigenvalue) is recomputed on the ball path up to DENSE_MAX tokens, and
beyond that keeps its wider ball. Each quantity keeps the narrowest ball found: the result is
per quantity, never abandoned as a whole.
"""
import flint
import numpy as np

from verify.base import options
from verify.base.errors import InputError
from verify.numerics.curvature_balls import curvature_balls
from verify.numerics.definite import positive_definite
from verify.numerics.enclosures.curvature import NotSeparated, correct_digits, enclose_curvature
from verify.numerics.enclosures.exact import ExactMatrix
from verify.numerics.precision import Log, bits_for, parse_number
from verify.numerics.spectrum import CurvatureSpectrum

BALL_LIMIT = 16  # every quantity on the ball path up to this n (its dense Arb work grows as n³)
DENSE_MAX = 64  # a quantity the Kato–Temple path leaves short is recomputed on the ball path up to this n
MAX_BITS = 1 << 15  # the ball path's precision stops doubling here
LOGIT_SPREAD_MAX = 2 * 10**6  # max_i s_i − min_i s_i, two |logit| bounds of a case file (10⁶ each): coefficients down to e^(−2·10⁶)
FIELDS = ("lambda_max", "lambda_min", "L_T", "mu_T", "L_amb", "mu_amb", "R")
BALL_METHOD = ("Weyl–Ostrowski balls from Ogita–Aishima-refined eigenvectors in Arb (every eigenvalue by index, "
               "clusters included; λ_min as 1/λ_max of (J H J)⁻¹ on T; exact structure and secular roots by sign checks)")
KATO_TEMPLE = "Kato–Temple bounds on refined float64 eigenvectors with verified neighbour bounds"


def enclose_case(log_z, H, dps=30, refine=True):
    """(spectrum, bits, method): a CurvatureSpectrum of Arb balls for one example, the largest precision used
    (bits) and how the balls were obtained. log_z: exact logits (any number `parse_number` takes) or `Log(z)`
    for coefficients given as z; H: rows of exact numbers or a float64 ndarray, symmetric positive definite.
    refine=False: the ball path makes one pass at its starting precision, however few digits that gives (a
    search's decision: an exact tie stays undecided at any precision, and a second pass cost up to 5× the first)."""
    options.dps(dps)
    log_z = _log_weights(log_z)
    exact = ExactMatrix(H, len(log_z))
    rows = exact.rows()
    decided = positive_definite(rows, floats=exact.float)
    if not decided:
        raise InputError("H is not positive definite; give a symmetric positive definite matrix" if decided is False else
                         "H is too close to singular to be proved positive definite; regularise or rescale it")
    if len(log_z) <= BALL_LIMIT:
        spectrum, bits = _ball_path(log_z, rows, dps, FIELDS, refine=refine)
        return spectrum, bits, BALL_METHOD
    try:
        spectrum, methods, bits = enclose_curvature(log_z, exact, dps)
    except np.linalg.LinAlgError:  # (SciPy's is NumPy's) H on T singular in float64 (κ beyond 1e300)
        if len(log_z) > DENSE_MAX:
            raise InputError(f"H is too ill-conditioned on T for float64 starting points at n = {len(log_z)} (beyond "
                             f"{DENSE_MAX} tokens only they are tried); regularise or rescale it") from None
        spectrum, bits = _ball_path(log_z, rows, dps, FIELDS, refine=refine)
        return spectrum, bits, BALL_METHOD
    except NotSeparated as reason:  # a cluster at the bottom of the spectrum: H is SPD (proved above), no gap
        if len(log_z) > DENSE_MAX:
            raise InputError(f"{reason}: H is positive definite, but its smallest eigenvalues are clustered without "
                             f"the gap Kato–Temple bounds need, and beyond {DENSE_MAX} tokens the ball path that "
                             "separates clusters is not tried; spread or regularise H's smallest eigenvalues") from None
        spectrum, bits = _ball_path(log_z, rows, dps, FIELDS, refine=refine)
        return spectrum, bits, BALL_METHOD
    short = [name for name in FIELDS if correct_digits(getattr(spectrum, name)) < dps]
    if short and len(log_z) <= DENSE_MAX:
        spectrum, bits = _ball_path(log_z, rows, dps, short, spectrum, bits, refine=refine)
        methods.update({name: "ball path" for name in short})
    recomputed = sorted({name for name, how in methods.items() if how == "ball path"})
    method = KATO_TEMPLE + (f"; {', '.join(recomputed)}: {BALL_METHOD}" if recomputed else "")
    return spectrum, bits, method


def _log_weights(log_z):
    """Exact log-weights: logits parsed exactly (spread at most LOGIT_SPREAD_MAX), or Log(z) with z > 0."""
    if len(log_z) < 2:
        raise InputError(f"an example needs at least 2 tokens (T = 1^⊥ is trivial for n = {len(log_z)})")
    if all(isinstance(v, Log) for v in log_z):
        bad = next((i for i, v in enumerate(log_z) if not v.of > 0), None)
        if bad is not None:
            raise InputError(f"z {bad} = {float(log_z[bad].of):.6g}; coefficients must be positive")
        return list(log_z)
    values = [parse_number(v, f"logit {i}") for i, v in enumerate(log_z)]
    top, bottom = max(values), min(values)
    if top - bottom > LOGIT_SPREAD_MAX:
        i = max(range(len(values)), key=lambda k: abs(values[k] - (top + bottom) / 2))
        raise InputError(f"logit {i} = {float(values[i]):.6g} is out of range: logits may differ by at most "
                         f"{LOGIT_SPREAD_MAX:g} (coefficients down to e^-{LOGIT_SPREAD_MAX:g})")
    return values


def _ball_path(log_z, rows, dps, names, best=None, bits=None, refine=True):
    """(spectrum, bits): `best` with each of `names` replaced by the narrowest ball the ball path gives,
    doubling the precision from bits_for(dps + 10) until each has `dps` correct digits or MAX_BITS (only the
    first pass unless `refine`)."""
    bits = max(bits or 0, bits_for(dps + 10))
    while True:
        with flint.ctx.workprec(bits):
            found = curvature_balls(log_z, rows)
        best = found if best is None else _narrowest(best, found, names)
        if not refine or all(correct_digits(getattr(best, name)) >= dps for name in names) or 2 * bits > MAX_BITS:
            break
        bits *= 2
    with flint.ctx.workprec(bits):
        kappa = best.lambda_max / best.lambda_min if best.lambda_max is not None and best.lambda_min is not None else None
    return CurvatureSpectrum(best.n, best.lambda_max, best.lambda_min, best.L_T, best.mu_T, best.L_amb, best.mu_amb,
                             best.z_desc, 0.0, None, kappa=kappa, R=best.R), bits


def _narrowest(best, found, names):
    values = {}
    for name in FIELDS:
        old, new = getattr(best, name), getattr(found, name)
        better = name in names and new is not None and (old is None or correct_digits(new) > correct_digits(old))
        values[name] = new if better else old
    return CurvatureSpectrum(best.n, values["lambda_max"], values["lambda_min"], values["L_T"], values["mu_T"],
                             values["L_amb"], values["mu_amb"], found.z_desc, 0.0, None, kappa=None, R=values["R"])


def digits_of(spectrum):
    """{name: correct digits} for every ball of a spectrum (κ included)."""
    return {name: correct_digits(getattr(spectrum, name)) for name in FIELDS + ("kappa",)}
