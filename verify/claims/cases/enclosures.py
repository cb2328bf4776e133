"""Case mode's rigorous enclosure of one case's spectrum (verify.numerics.enclosures) and its midpoints."""
import flint

from verify.numerics.arb import arb_to_mpf
from verify.numerics.enclosures import enclose_case
from verify.numerics.spectrum import CurvatureSpectrum

BALL_FIELDS = ("lambda_max", "lambda_min", "kappa", "L_T", "mu_T", "L_amb", "mu_amb", "R")


def case_balls(case, dps):
    """(balls, bits, method): every spectral quantity of the case as a rigorous ball, None where one could not be had."""
    return enclose_case(case.logits, case.H, dps)


def midpoints(balls, bits, dps):
    """The balls' midpoints as a CurvatureSpectrum of mpf (to `dps` digits; rel_err from the radii), or None when
    some quantity has no ball (the caller then computes the values at `dps` digits instead)."""
    if balls is None or any(getattr(balls, name) is None for name in BALL_FIELDS):
        return None
    with flint.ctx.workprec(bits):
        rel = max(float(getattr(balls, name).rad() / abs(getattr(balls, name).mid())) for name in BALL_FIELDS)
        values = {name: arb_to_mpf(getattr(balls, name)) for name in BALL_FIELDS}
        z_desc = tuple(arb_to_mpf(v) for v in balls.z_desc)
    return CurvatureSpectrum(balls.n, values["lambda_max"], values["lambda_min"], values["L_T"], values["mu_T"],
                             values["L_amb"], values["mu_amb"], z_desc, max(rel, 10.0 ** -(dps + 5)), dps,
                             kappa=values["kappa"], R=values["R"])
