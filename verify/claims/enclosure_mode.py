"""Case mode's rigorous enclosure of one case's spectrum (balls of every quantity at ≥ dps digits)."""
import flint

from verify.numerics.arb import arb_to_mpf
from verify.numerics.curvature import CurvatureSpectrum, curvature_balls, isotropic_on_tangent
from verify.numerics.enclosures import enclose_curvature
from verify.numerics.precision import bits_for
from verify.numerics.refine import refined_curvature


def case_balls(case, dps, max_bits=1 << 14):
    """(balls, bits, method): balls of every spectral quantity of the case at ≥ `dps` digits, or None.
    Up to BALL_LIMIT tokens Arb isolates every eigenvalue (raising the precision until it can);
    beyond, each extreme eigenpair is refined at high precision and enclosed by its residual,
    accepted when the float64 gap identifies it as the extreme one (verify.numerics.refine)."""
    if case.n > BALL_LIMIT:
        verified, bits = _verified(case, dps)
        if all(_radius_ok(getattr(verified, name), dps) for name in BALL_FIELDS):
            return verified, bits, "Kato–Temple bounds with verified neighbour bounds (verify.numerics.enclosures)"
        if isotropic_on_tangent(case.H) is None:
            refined = refined_curvature(case.logits, case.H, dps)
            if refined.identified and all(_radius_ok(getattr(refined, name), dps) for name in BALL_FIELDS):
                return refined, refined.bits, ("residual bounds of refined eigenpairs (Arb); the eigenvalue identified as the "
                                               "extreme one by the float64 gap (LAPACK's backward error)")
        return None, bits_for(dps), "none: the extreme eigenvalues could not be separated to dps digits"
    bits = bits_for(dps + 10)
    while bits <= max_bits and case.n <= BALL_LIMIT:
        with flint.ctx.workprec(bits):
            balls = curvature_balls(case.logits, case.H)
            if balls is not None and all(_radius_ok(getattr(balls, name), dps) for name in BALL_FIELDS):
                return balls, bits, "every eigenvalue isolated by Arb"
        bits *= 2
    return None, bits // 2, "none: the eigenvalues could not be isolated"


BALL_FIELDS = ("lambda_max", "lambda_min", "kappa", "L_T", "mu_T", "L_amb", "mu_amb", "R")
BALL_LIMIT = 16  # every eigenvalue isolated by Arb up to this n (its cost grows as n³ at high precision)


def _verified(case, dps):
    """(balls, bits): the rigorous enclosure of verify.numerics.enclosures as a CurvatureSpectrum of balls."""
    if case.given == "z":
        found = enclose_curvature(None, case.H, dps, z=[v.of for v in case.logits])
    else:
        found = enclose_curvature(case.logits, case.H, dps)
    spectrum = CurvatureSpectrum(found.n, found.lambda_max, found.lambda_min, found.L_T, found.mu_T, found.L, found.mu,
                                 found.z_desc, 0.0, None, kappa=found.kappa, R=found.R)
    return spectrum, found.prec


def _radius_ok(ball, dps):
    return bool(ball.rad() <= abs(ball.mid()) * flint.arb(10) ** (-dps))
def midpoints(balls, bits, dps):
    """The balls' midpoints as a CurvatureSpectrum of mpf (to `dps` digits; rel_err from the radii)."""
    with flint.ctx.workprec(bits):
        rel = max(float(getattr(balls, name).rad() / abs(getattr(balls, name).mid())) for name in BALL_FIELDS)
        values = {name: arb_to_mpf(getattr(balls, name)) for name in BALL_FIELDS}
        z_desc = tuple(arb_to_mpf(v) for v in balls.z_desc)
    return CurvatureSpectrum(balls.n, values["lambda_max"], values["lambda_min"], values["L_T"], values["mu_T"],
                             values["L_amb"], values["mu_amb"], z_desc, max(rel, 10.0 ** -(dps + 5)), dps,
                             kappa=values["kappa"], R=values["R"])


