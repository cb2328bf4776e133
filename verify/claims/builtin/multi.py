"""T2.multi as a checker claim: its random and Hypothesis search over several examples, its verdict,
and its certificate (the examples, the integer generator of the keys, both sides as balls).

Both sides are Arb balls (verify.claims.builtin.multi_balls): the claim holds at a sample when the balls of κ of
KᵀMK on its range and of the block formula overlap, and fails only when they are disjoint.
"""
from verify.base.printable import shown
from dataclasses import dataclass

import flint

from verify.claims.search import sampling as search
from verify.claims.certificates import format as certificate_format
from verify.claims.certificates.files import write_confirmed
from verify.claims.certificates.format import checked_dps, side_matches, side_text
from verify.claims.cases.case import parse_case
from verify.claims.executors import check_stop
from verify.claims.builtin.multi_balls import MultiCase, decide_multi
from verify.claims.verdicts.results import CheckResult, ClaimResult, InterruptedEvidence, MultiEvidence, verdict_of
from verify.base.errors import InputError
from verify.numerics.arb import arb_to_mpf
from verify.numerics.precision import CERTIFY_DPS, decimal, exact_decimal

INEQUALITY = "κ(KᵀMK on range) = max_i λ_max(B_i) / min_i λ_min(B_i)"
MAX_D = 24  # key dimension of a certificate's generator: check stays within seconds
MAX_BITS = 1 << 16


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


def disjoint(enclosure):
    """T2.multi fails at the balls: the two sides' balls are disjoint."""
    return not enclosure.dense.overlaps(enclosure.blocks)


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
        return _result(claim, "INTERRUPTED", InterruptedEvidence("the run was interrupted before T2.multi was decided"))
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


def certificate_body(claim, case, dps):
    """A T2.multi certificate: the examples, the integer generator of the keys, both sides at `dps` digits."""
    enclosure = decide_multi(case, dps)
    examples = [{"logits": [exact_decimal(v) for v in lz], "H": [[exact_decimal(v) for v in row] for row in H]}
                for lz, H in zip(case.log_zs, case.Hs)]
    return certificate_format.body(
        "several-examples", claim=claim.id, reading=None,
        inputs={"examples": examples, "key_generator": [list(row) for row in case.generator], "rows": case.rows},
        inequality=INEQUALITY, dps=dps, **{name: side_text(ball, dps) for name, ball in _sides(enclosure).items()})


def _sides(enclosure):
    """The balls a certificate records: the two sides and the margin dense / blocks − 1 (at the enclosure's precision)."""
    with flint.ctx.workprec(enclosure.bits):
        return {"lhs": enclosure.dense, "rhs": enclosure.blocks, "margin": enclosure.dense / enclosure.blocks - 1}


def parse_multi_inputs(data, where):
    """A MultiCase from a T2.multi certificate's inputs: examples of one size n, an integer generator
    d × d with d ≥ rows = nN."""
    if not isinstance(data, dict) or set(data) != {"examples", "key_generator", "rows"} or \
            not isinstance(data["examples"], list) or not 1 <= len(data["examples"]) <= 8:
        raise InputError(f"{where} must hold exactly \"examples\" (1 to 8 cases), \"key_generator\" and \"rows\"")
    examples = [parse_case(e, where=f"{where} examples[{i}]") for i, e in enumerate(data["examples"])]
    n = examples[0].n
    if any(e.n != n for e in examples):
        raise InputError(f"{where} examples have different sizes {[e.n for e in examples]}; give examples of one n")
    generator, rows = data["key_generator"], data["rows"]
    if rows != n * len(examples) or not isinstance(generator, list) or not all(isinstance(r, list) for r in generator):
        raise InputError(f"{where} rows is {shown(rows, 20)}; it must be nN = {n * len(examples)}, with a square key_generator")
    d = len(generator)
    if d < rows or d > MAX_D or any(len(r) != d or not all(isinstance(v, int) and not isinstance(v, bool) and abs(v) <= 1000
                                                            for v in r) for r in generator):
        raise InputError(f"{where} key_generator must be a d × d list of integers (|entry| ≤ 1000), rows ≤ d ≤ {MAX_D}")
    return MultiCase(tuple(e.logits for e in examples), tuple(e.H for e in examples),
                     tuple(tuple(r) for r in generator), rows)


def check_multi_certificate(data, where):
    """Confirm iff the two sides' balls are disjoint and the recorded sides and margin are theirs (format.side_matches;
    the keys were checked by format.kind_of)."""
    if data["claim"] != "T2.multi" or data["reading"] is not None or data["inequality"] != INEQUALITY:
        raise InputError(f"{where} is a several-examples certificate, which only T2.multi writes")
    dps = checked_dps(data["dps"], where)
    case = parse_multi_inputs(data["inputs"], f"{where} inputs")
    enclosure = decide_multi(case, dps, max_bits=MAX_BITS)
    if enclosure is None:
        return CheckResult(False, "eigenvalues could not be isolated", MAX_BITS)
    if not disjoint(enclosure):
        return CheckResult(False, "the two sides' balls overlap: no disagreement is certified", enclosure.bits)
    if not all(side_matches(data[name], ball, dps) for name, ball in _sides(enclosure).items()):
        return CheckResult(False, "the sides differ rigorously, but not as recorded", enclosure.bits)
    dense, blocks = decimal(arb_to_mpf(enclosure.dense), 12), decimal(arb_to_mpf(enclosure.blocks), 12)
    return CheckResult(True, f"dense κ {dense} ≠ block κ {blocks} rigorously", enclosure.bits)
