"""Case mode: every single-example Theorem 2 claim at one case, to `dps` digits and rigorously (balls
from Arb up to 16 tokens, verified Kato–Temple enclosures beyond)."""
from dataclasses import dataclass

import flint

from verify.claims.record import ball_verdict, evaluate
from verify.claims.registry import select
from verify.numerics.arb import arb_to_mpf
from verify.numerics.curvature import CurvatureSpectrum, curvature_balls, curvature_precise, isotropic_on_tangent
from verify.numerics.enclosures import enclose_curvature
from verify.numerics.precision import bits_for
from verify.numerics.refine import refined_curvature


@dataclass(frozen=True)
class CaseReport:
    """Case mode: the spectrum to `dps` digits, its rigorous enclosure (a CurvatureSpectrum of Arb balls,
    None if the eigenvalues could not be isolated), and per claim and reading the two sides at `dps`
    digits with the verdict the balls alone give ("holds", "fails" or "undecided")."""

    spectrum: object
    balls: object
    rows: tuple  # (Evaluation, rigorous verdict)
    bits: int = 0  # the balls' precision
    method: str = ""  # how the balls were obtained


def evaluate_case(case, dps=50, claim_ids=None):
    """Case mode: every single-example claim at one case, to `dps` digits and rigorously."""
    claims = [c for c in select("theorem2", claim_ids) if not c.multi and case.n >= c.min_n]
    balls, bits, method = case_balls(case, dps)
    q = midpoints(balls, bits, dps) if balls is not None else curvature_precise(case.logits, case.H, dps)
    rows = []
    with flint.ctx.workprec(bits):  # the sides' products at the balls' own precision
        for claim in claims:
            for reading in claim.readings:
                rigorous = ball_verdict(claim, reading, balls, case.L, case.mu) if balls is not None else "undecided"
                rows.append((evaluate(claim, reading, q, case.L, case.mu), rigorous))
    return CaseReport(q, balls, tuple(rows), bits, method)


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


def midpoints(balls, bits, dps):
    """The balls' midpoints as a CurvatureSpectrum of mpf (to `dps` digits; rel_err from the radii)."""
    with flint.ctx.workprec(bits):
        rel = max(float(getattr(balls, name).rad() / abs(getattr(balls, name).mid())) for name in BALL_FIELDS)
        values = {name: arb_to_mpf(getattr(balls, name)) for name in BALL_FIELDS}
        z_desc = tuple(arb_to_mpf(v) for v in balls.z_desc)
    return CurvatureSpectrum(balls.n, values["lambda_max"], values["lambda_min"], values["L_T"], values["mu_T"],
                             values["L_amb"], values["mu_amb"], z_desc, max(rel, 10.0 ** -(dps + 5)), dps,
                             kappa=values["kappa"], R=values["R"])


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
