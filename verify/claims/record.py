"""The claim record, its inequalities, the readings of L and μ, and a claim's evaluation at a spectrum.

A claim's `sides(q, L, mu)` maps a spectrum `q` (a CurvatureSpectrum whose
values are mpf numbers or python-flint arb balls) and the constants of the
chosen reading to the inequalities it asserts.  The same formula serves the
search, case mode and the independent certificate check.
"""
from dataclasses import dataclass, field
from typing import Callable

import mpmath as mp

from verify.numerics.precision import to_arb, to_mpf


TANGENT = "tangent-exact"
AMBIENT = "ambient-bounds"
READINGS = (TANGENT, AMBIENT)

READING_TEXT = {
    TANGENT: "L, μ are the extreme eigenvalues of H restricted to T = 1^⊥",
    AMBIENT: "L, μ are any constants with μI ≼ H ≼ LI on R^n (case mode: the extreme eigenvalues of H)",
}


@dataclass(frozen=True)
class Inequality:
    """One inequality of a claim at a spectrum: its label, both sides and the relation (>=, <=, or == for
    T2.multi, decided only with balls: see ball_verdict)."""

    label: str
    lhs: object
    rhs: object
    relation: str  # ">=", "<=" or "=="

    def log_margin(self, log):
        """ln(lhs/rhs), signed so that ≥ 0 means the inequality holds."""
        margin = log(self.lhs / self.rhs)
        return margin if self.relation == ">=" else -margin


@dataclass(frozen=True)
class Claim:
    """A claim of the registry: id, statement (text and LaTeX), hypotheses, readings, and how it is decided
    (`sides` for the Theorem 2 claims, `checker` for the Assumption 2 ones)."""

    id: str
    statement: str
    latex: str
    hypotheses: tuple
    readings: tuple  # (None,) when the claim has one reading
    sides: Callable = field(repr=False, default=None)  # T2 inequalities at a spectrum
    min_n: int = 2
    multi: bool = False  # needs several examples (T2.multi)
    checker: Callable = field(repr=False, default=None)  # (rng, settings) -> (verdict, evidence), A2 claims
    command: str = "theorem2"


def constants_for(reading, q, L=None, mu=None):
    """(L, μ) of a reading: tangent-exact from H on T; ambient-bounds from H on R^n or as given."""
    if reading == TANGENT:
        return q.L_T, q.mu_T
    return (q.L_amb if L is None else L), (q.mu_amb if mu is None else mu)


@dataclass(frozen=True)
class Evaluation:
    """A claim's two sides at one case; the binding (smallest-margin) inequality is reported."""

    claim: str
    reading: object
    label: str
    lhs: object
    rhs: object
    relation: str
    margin: object  # ln(lhs/rhs) signed: ≥ 0 holds
    tolerance: float  # |margin| below this cannot be decided at this precision

    @property
    def decided(self):
        return abs(self.margin) > self.tolerance

    @property
    def holds(self):
        return self.margin >= 0 or not self.decided


def evaluate(claim, reading, q, L=None, mu=None):
    """Every inequality of `claim` at spectrum q (mpf values); the worst one decides."""
    work = (q.dps or 15) + 10
    with mp.workdps(work):
        L, mu = (None if c is None else to_mpf(c) for c in (L, mu))  # the user's exact constants, converted here
        L_r, mu_r = constants_for(reading, q, L, mu) if reading else (None, None)
        inequalities = claim.sides(q, L_r, mu_r)
        tolerance = 8 * q.rel_err
        rows = [(ineq.log_margin(mp.log), ineq) for ineq in inequalities]
        margin, worst = min(rows, key=lambda row: row[0])
    return Evaluation(claim.id, reading, worst.label, worst.lhs, worst.rhs, worst.relation, margin, tolerance)


def ball_verdict(claim, reading, q, L=None, mu=None):
    """A claim at a spectrum of Arb balls: "fails" when some inequality fails for every point of the
    balls, "holds" when every one holds for every point, else "undecided" (tight at these balls).
    L, μ are the user's exact constants (or None)."""
    L, mu = (None if c is None else to_arb(c) for c in (L, mu))
    L_r, mu_r = constants_for(reading, q, L, mu) if reading else (None, None)
    verdicts = []
    for ineq in claim.sides(q, L_r, mu_r):
        if ineq.relation == "==":
            verdicts.append("holds" if ineq.lhs.overlaps(ineq.rhs) else "fails")
            continue
        big, small = (ineq.lhs, ineq.rhs) if ineq.relation == ">=" else (ineq.rhs, ineq.lhs)
        verdicts.append("holds" if big >= small else "fails" if big < small else "undecided")
    if "fails" in verdicts:
        return "fails"
    return "holds" if all(v == "holds" for v in verdicts) else "undecided"
