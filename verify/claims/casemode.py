"""Case mode: every single-example Theorem 2 claim at one case, to `dps` digits and rigorously (balls
from Arb up to 16 tokens, verified Kato–Temple enclosures beyond)."""
from dataclasses import dataclass

import flint

from verify.claims.record import ball_verdict, evaluate
from verify.claims.registry import select
from verify.numerics.arb import arb_to_mpf
from verify.numerics.curvature import CurvatureSpectrum, curvature_precise
from verify.numerics.enclosures import enclose_case


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


def case_balls(case, dps):
    """(balls, bits, method): every spectral quantity of the case as a rigorous ball (verify.numerics.enclosures)."""
    return enclose_case(case.logits, case.H, dps)


BALL_FIELDS = ("lambda_max", "lambda_min", "kappa", "L_T", "mu_T", "L_amb", "mu_amb", "R")


def midpoints(balls, bits, dps):
    """The balls' midpoints as a CurvatureSpectrum of mpf (to `dps` digits; rel_err from the radii)."""
    with flint.ctx.workprec(bits):
        rel = max(float(getattr(balls, name).rad() / abs(getattr(balls, name).mid())) for name in BALL_FIELDS)
        values = {name: arb_to_mpf(getattr(balls, name)) for name in BALL_FIELDS}
        z_desc = tuple(arb_to_mpf(v) for v in balls.z_desc)
    return CurvatureSpectrum(balls.n, values["lambda_max"], values["lambda_min"], values["L_T"], values["mu_T"],
                             values["L_amb"], values["mu_amb"], z_desc, max(rel, 10.0 ** -(dps + 5)), dps,
                             kappa=values["kappa"], R=values["R"])

