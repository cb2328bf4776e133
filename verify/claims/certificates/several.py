"""T2.multi's certificate, kind "several-examples": the examples, the integer generator of the keys, both sides
as Arb balls (verify.claims.cases.multi_balls), and `check`'s re-check of it (disjoint balls refute T2.multi)."""
import flint

from verify.claims.certificates import format as certificate_format
from verify.claims.certificates.format import checked_dps, side_matches, side_text
from verify.claims.cases.case import parse_case
from verify.claims.cases.multi_balls import MultiCase, decide_multi
from verify.claims.results import CheckResult
from verify.base.errors import InputError
from verify.numerics.arb import arb_to_mpf
from verify.numerics.precision import decimal, exact_decimal
from verify.base.printable import shown

INEQUALITY = "κ(KᵀMK on range) = max_i λ_max(B_i) / min_i λ_min(B_i)"
MAX_D = 24  # key dimension of a certificate's generator: check stays within seconds
MAX_BITS = 1 << 16


def disjoint(enclosure):
    """T2.multi fails at the balls: the two sides' balls are disjoint."""
    return not enclosure.dense.overlaps(enclosure.blocks)


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
