"""Counterexample certificates: written atomically, re-checked from scratch.

`check_certificate` shares nothing with the search but the claim's formula
(its `sides`) and the case-file parser.  It recomputes the spectrum with
python-flint ball arithmetic (rigorous enclosures of every eigenvalue of
J H J on T, of H on T and of H), at ≥ 50 digits, raising the precision until
the eigenvalues are isolated, and confirms only when some inequality of the
claim fails for every point of the balls and the recorded sides match.
"""
import json
from pathlib import Path

import flint
import mpmath as mp

from verify import atomic
from verify.claims.cases import parse_case, read_json
from verify.claims.record import ball_verdict, constants_for
from verify.claims.registry import get_claim
from verify.claims.results import CheckResult
from verify.errors import InputError
from verify.numerics.arb import arb_to_mpf
from verify.numerics.curvature import curvature_balls
from verify.numerics.multi import MultiCase, decide_multi
from verify.numerics.precision import CERTIFY_DPS, bits_for, decimal, exact_decimal, parse_number, to_arb, to_mpf

MAX_BITS = 1 << 16
FIELDS = ("claim", "reading", "inputs", "lhs", "rhs", "margin", "dps")


def write_certificate(out_dir, claim, reading, case, evaluation, dps):
    """A built-in claim's certificate: the case, the failing inequality and its sides at `dps` digits."""
    atomic.check_out_dir(out_dir, "certificates")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    body = {
        "claim": claim.id,
        "reading": reading,
        "inputs": case.inputs(),
        "inequality": evaluation.label,
        "lhs": decimal(evaluation.lhs, dps),
        "rhs": decimal(evaluation.rhs, dps),
        "margin": decimal(evaluation.margin, dps),
        "dps": dps,
    }
    name = f"{claim.id}.{reading}.json" if reading else f"{claim.id}.json"
    return atomic.write_text(out / name, json.dumps(body, indent=2) + "\n")


def write_multi_certificate(out_dir, claim, case, dps):
    """A T2.multi certificate: the examples, the integer generator of the keys, both sides at `dps` digits."""
    enclosure = decide_multi(case, dps)
    body = {
        "claim": claim.id,
        "reading": None,
        "inputs": {"examples": [{"logits": [exact_decimal(v) for v in lz], "H": [[exact_decimal(v) for v in row] for row in H]}
                                for lz, H in zip(case.log_zs, case.Hs)],
                   "key_generator": [list(row) for row in case.generator], "rows": case.rows},
        "inequality": "κ(KᵀMK on range) = max_i λ_max(B_i) / min_i λ_min(B_i)",
        "lhs": decimal(arb_to_mpf(enclosure.dense), dps),
        "rhs": decimal(arb_to_mpf(enclosure.blocks), dps),
        "margin": decimal(arb_to_mpf(enclosure.dense / enclosure.blocks - 1), dps),
        "dps": dps,
    }
    atomic.check_out_dir(out_dir, "certificates")
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    return atomic.write_text(Path(out_dir) / f"{claim.id}.json", json.dumps(body, indent=2) + "\n")


def load_certificate(path):
    """(claim, reading, case, recorded sides, dps) of a built-in claim's certificate; InputError if malformed."""
    data = read_json(path, "certificate")
    if not isinstance(data, dict) or any(k not in data for k in FIELDS):
        missing = [k for k in FIELDS if not isinstance(data, dict) or k not in data]
        raise InputError(f"certificate {path!r} lacks {', '.join(missing)}; a certificate has the fields {', '.join(FIELDS)}")
    claim = get_claim(data["claim"])
    if data["reading"] not in claim.readings:
        raise InputError(f"certificate {path!r} has reading {data['reading']!r}; {claim.id} takes {list(claim.readings)}")
    if isinstance(data["dps"], bool) or not isinstance(data["dps"], int) or not 1 <= data["dps"] <= 10_000:
        raise InputError(f"certificate {path!r} has dps {data['dps']!r}; give a whole number of digits from 1 to 10000")
    reader = parse_multi_inputs if claim.multi else parse_case
    case = reader(data["inputs"], where=f"certificate {path} inputs")
    recorded = {k: parse_number(data[k], f"certificate {path} {k}") for k in ("lhs", "rhs", "margin")}
    recorded["inequality"] = data.get("inequality")
    return claim, data["reading"], case, recorded, data["dps"]


def parse_multi_inputs(data, where):
    """A MultiCase from a T2.multi certificate's inputs: examples of one size n, an integer generator
    d × d with d ≥ rows = nN."""
    if not isinstance(data, dict) or not isinstance(data.get("examples"), list) or len(data["examples"]) < 1:
        raise InputError(f"{where} must hold \"examples\" (a list of cases), \"key_generator\" and \"rows\"")
    examples = [parse_case(e, where=f"{where} examples[{i}]") for i, e in enumerate(data["examples"][:64])]
    n = examples[0].n
    if any(e.n != n for e in examples):
        raise InputError(f"{where} examples have different sizes {[e.n for e in examples]}; give examples of one n")
    generator, rows = data.get("key_generator"), data.get("rows")
    if rows != n * len(examples) or not isinstance(generator, list) or not all(isinstance(r, list) for r in generator):
        raise InputError(f"{where} rows is {rows!r}; it must be nN = {n * len(examples)}, with a square key_generator")
    d = len(generator)
    if d < rows or d > 256 or any(len(r) != d or not all(isinstance(v, int) and not isinstance(v, bool) and abs(v) <= 1000
                                                          for v in r) for r in generator):
        raise InputError(f"{where} key_generator must be a d × d list of integers (|entry| ≤ 1000), rows ≤ d ≤ 256")
    return MultiCase(tuple(e.logits for e in examples), tuple(e.H for e in examples),
                     tuple(tuple(r) for r in generator), rows)


def check_certificate(path, claims_file=None):
    """Re-verify a certificate from scratch: a CheckResult, confirmed only for a rigorous failure.
    A user claim's certificate is re-parsed with the safe parser (and compared with `claims_file`)."""
    data = read_json(path, "certificate")
    if isinstance(data, dict) and "user_claim" in data:
        from verify.claims.user.run import check_user_certificate  # the claim language (SymPy) is loaded only here

        return check_user_certificate(data, path, claims_file)
    claim, reading, case, recorded, dps = load_certificate(path)
    if claim.multi:
        return _check_multi(case, recorded, dps)
    bits = bits_for(max(dps, CERTIFY_DPS))
    while bits <= MAX_BITS:
        with flint.ctx.workprec(bits):
            q = curvature_balls(case.logits, case.H)
            if q is not None:
                return _judge(claim, reading, case, q, recorded, bits)
        bits *= 2
    return CheckResult(False, "eigenvalues could not be isolated", bits // 2)


def _check_multi(case, recorded, dps):
    """Confirm iff the two sides' balls are disjoint and their midpoints are the recorded sides."""
    enclosure = decide_multi(case, max(dps, CERTIFY_DPS), max_bits=MAX_BITS)
    if enclosure is None:
        return CheckResult(False, "eigenvalues could not be isolated", MAX_BITS)
    if ball_verdict(get_claim("T2.multi"), None, enclosure) != "fails":
        return CheckResult(False, "the two sides' balls overlap: no disagreement is certified", enclosure.bits)
    if not (_matches(recorded["lhs"], enclosure.dense) and _matches(recorded["rhs"], enclosure.blocks)):
        return CheckResult(False, "the sides differ rigorously, but not as recorded", enclosure.bits)
    dense, blocks = decimal(arb_to_mpf(enclosure.dense), 12), decimal(arb_to_mpf(enclosure.blocks), 12)
    return CheckResult(True, f"dense κ {dense} ≠ block κ {blocks} rigorously", enclosure.bits)


def _judge(claim, reading, case, q, recorded, bits):
    """Confirm iff the certificate's inequality (or the binding one) fails for every point of the balls."""
    L = to_arb(case.L) if case.L is not None else None
    mu = to_arb(case.mu) if case.mu is not None else None
    L_r, mu_r = constants_for(reading, q, L, mu)
    inequalities = claim.sides(q, L_r, mu_r)
    named = [i for i in inequalities if i.label == recorded.get("inequality")]
    ineq = named[0] if named else min(inequalities, key=lambda i: i.log_margin(lambda a: a.log()).mid())
    fails = ineq.lhs < ineq.rhs if ineq.relation == ">=" else ineq.lhs > ineq.rhs
    if not fails:
        return CheckResult(False, f"{ineq.label} does not fail rigorously at these inputs", bits)
    if not (_matches(recorded["lhs"], ineq.lhs) and _matches(recorded["rhs"], ineq.rhs)):
        return CheckResult(False, f"{ineq.label} fails, but the recorded lhs/rhs differ from the recomputed ones", bits)
    lhs, rhs = decimal(arb_to_mpf(ineq.lhs), 12), decimal(arb_to_mpf(ineq.rhs), 12)
    return CheckResult(True, f"{ineq.label} fails rigorously: lhs {lhs} vs rhs {rhs}", bits)


def _matches(recorded, ball):
    with mp.workdps(60):
        value = arb_to_mpf(ball)
        return abs(to_mpf(recorded) - value) <= abs(value) * mp.mpf(10) ** -25
