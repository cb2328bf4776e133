"""T2.multi as a checker claim: its random and Hypothesis search over several examples and its verdict; its
certificate is verify.claims.certificates.several.

Both sides are Arb balls (verify.claims.cases.multi_balls): the claim holds at a sample when the balls of κ of
KᵀMK on its range and of the block formula overlap, and fails only when they are disjoint.
"""
from dataclasses import dataclass

import flint

from verify.claims.search import sampling as search
from verify.claims.certificates.files import write_confirmed
from verify.claims.certificates.several import certificate_body, check_multi_certificate, disjoint
from verify.claims.executors import check_stop
from verify.claims.cases.multi_balls import decide_multi
from verify.claims.results import ClaimResult, InterruptedEvidence, MultiEvidence
from verify.claims.verdicts.decide import verdict_of
from verify.numerics.precision import CERTIFY_DPS


@dataclass(frozen=True)
class MultiUnit:
    """Samples start..stop−1 of the T2.multi pool drawn with `seed`, decided at `dps` digits."""

    seed: int
    start: int
    stop: int
    dps: int


def run_multi_unit(unit):
    """Each sample's two sides as balls: (index, relative gap, relative radius, holds, case)."""
    rows = []
    for index in range(unit.start, unit.stop):
        check_stop()
        case = search.random_multi_case(unit.seed, index)
        rows.append((index,) + multi_verdict(case, unit.dps) + (case,))
    return rows


def multi_verdict(case, dps):
    """(relative gap |dense/blocks − 1| of the midpoints, relative radius, whether T2.multi holds: its
    balls overlap)."""
    enclosure = decide_multi(case, dps)
    if enclosure is None:
        return float("inf"), float("inf"), True
    with flint.ctx.workprec(enclosure.bits):  # the ratio at the balls' own precision, not at 53 bits
        gap = abs(float((enclosure.dense / enclosure.blocks - 1).mid()))
    return gap, enclosure.relative_radius, not disjoint(enclosure)


def run_multi_adversarial(seed, dps, max_examples, database=None):
    """The Hypothesis search for a T2.multi case whose two balls are disjoint."""
    def decide(case):
        gap, _, holds = multi_verdict(case, dps)
        return holds, gap

    return search.adversarial_multi(decide, seed, max_examples)


def multi_tasks(seed, samples, dps, example_db):
    count = max(samples // 10, 5)
    units = [MultiUnit(seed, start, min(start + 10, count), dps) for start in range(0, count, 10)]
    tasks = [("T2.multi: adversarial", run_multi_adversarial, (seed, dps, max(samples // 20, 10), example_db))]
    return tasks + [(f"T2.multi samples {u.start}–{u.stop - 1}", run_multi_unit, (u,)) for u in units]


def multi_result(claim, collected, dps, out_dir):
    """T2.multi from its samples' balls: HOLDS when every pair overlaps with a radius below 10^(−dps/2);
    REFUTED only through a certificate that `check` confirms (disjoint balls)."""
    units = [result for label, result in collected.other.items() if label.startswith("T2.multi samples")]
    found = collected.other.get("T2.multi: adversarial")
    if None in units or found is None:
        return _result(claim, verdict_of("interrupted"), InterruptedEvidence("the run was interrupted before T2.multi was decided"))
    rows = sorted((row for unit in units for row in unit), key=lambda row: row[0])
    failing = [row[4] for row in rows if not row[3]]
    counterexample = found.case or (failing[0] if failing else None)
    largest_radius = max(row[2] for row in rows)
    evidence = MultiEvidence(
        samples=len(rows),
        adversarial_examples=found.examples,
        worst_relative_gap=f"{max(row[1] for row in rows):.1e}",
        largest_relative_radius=f"{largest_radius:.1e}",
        disagreements=len(failing) + (found.case is not None),
        method="both sides as Arb balls; K = rows of an exactly orthogonal rational matrix (Cayley), so K Kᵀ = I",
    )
    if counterexample is not None:
        body = certificate_body(claim, counterexample, max(dps, CERTIFY_DPS))
        check = check_multi_certificate(body, "certificate (in memory)")
        evidence = evidence.with_(certificate_check=check.summary)
        return _result(claim, verdict_of("fails", check.confirmed), evidence,
                       write_confirmed(out_dir, body, check), body)
    if largest_radius >= 10 ** (-dps / 2):
        evidence = evidence.with_(note=f"some balls stayed wider than 10^(−{dps // 2}); raise the precision")
        return _result(claim, verdict_of("undecided"), evidence)
    return _result(claim, verdict_of("holds"), evidence)


def _result(claim, verdict, evidence, certificate=None, body=None):
    return ClaimResult(claim.id, None, claim.statement, claim.latex, verdict, evidence, certificate,
                       certificate_body=body)
