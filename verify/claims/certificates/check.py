"""`check`: a certificate re-checked from scratch, by its kind (the format of each: .format).

- "counterexample": the claim's text is re-parsed with the same parser as user claims; a text or domain that
  differs from the package's claim (or the claim file's) is refused, and so are inputs outside the domain;
  the claim is re-decided with Arb balls alone (verify.claims.certificates.counterexample);
- "several-examples": T2.multi's two sides as balls (verify.claims.certificates.several);
- "proof": every query rebuilt and proved again (verify.claims.certificates.proof).
"""
from verify.claims.certificates import counterexample
from verify.claims.certificates import format as certificate_format
from verify.claims.certificates.format import checked_dps
from verify.claims.cases.case import parse_case, read_json
from verify.claims.cases.structured import StructuredCase, is_structured, parse_structured
from verify.claims.certificates.stored_claim import (MAX_CHECK_N, certified_claim, in_domain, reject_claims_file,
                                                    structured_in_domain)
from verify.claims.results import CheckResult
from verify.base.errors import InputError


def counterexample_body(job, case, dps):
    """A formula claim's counterexample certificate (a dict), or None when the balls do not show it fails (or the
    case has more tokens than `check` takes: such a failure stays uncertified)."""
    return counterexample_attempt(job, case, dps)[0]


def counterexample_attempt(job, case, dps):
    """(the certificate or None, the balls' status at the case: holds, fails, tight, undecided, or None when the
    case has more tokens than `check` takes and was not decided; a structured case is rebuilt by `check` at any n)."""
    if case.n > MAX_CHECK_N and not isinstance(case, StructuredCase):
        return None, None
    found, status = counterexample.attempt(job.tree, case, dps)
    if found is None:
        return None, status
    claim = job.claim
    return certificate_format.body(
        "counterexample", claim=claim.id, reading=job.reading, statement=job.text, domain=claim.domain(job.reading),
        sha256=claim.digest(job.reading), inputs=case.inputs(), binding=found["binding"], margin=found["margin"],
        dps=dps, bits=found["bits"]), status


def check_certificate(path, claims_file=None):
    """Re-verify a certificate file from scratch: a CheckResult, confirmed only for a rigorous failure (or,
    for a proof certificate, when both solvers prove the rebuilt queries again)."""
    return check_body(read_json(path, "certificate"), str(path), claims_file)


def judge_certificate(path, claims_file=None):
    """`check`'s one rule: every certificate it rejects (edited, malformed, of another format, outside its
    claim's domain, or not failing) is a CheckResult that is not confirmed, with the reason. Only a file that
    is no certificate to judge (missing, unreadable, not JSON) or a bad claim file is an InputError."""
    if claims_file is not None:
        from verify.claims.claimfile import load_claims

        load_claims(claims_file)
    data = read_json(path, "certificate")
    try:
        return check_body(data, str(path), claims_file)
    except InputError as rejected:
        return CheckResult(False, str(rejected).removeprefix(f"certificate {path} "), 0)


def check_body(data, where="certificate", claims_file=None):
    """`check_certificate` on a certificate already read (a dict)."""
    where = where if where.startswith("certificate") else f"certificate {where}"
    kind = certificate_format.kind_of(data, where)
    if kind == "several-examples":
        from verify.claims.certificates import several as multi_claim

        reject_claims_file(claims_file, "T2.multi", where)
        return multi_claim.check_multi_certificate(data, where)
    if kind == "proof":
        from verify.claims.certificates import proof

        return proof.check_proof_certificate(data, where, claims_file)
    claim = certified_claim(data, where, claims_file)
    dps = checked_dps(data.get("dps"), where)
    certificate_format.checked_bits(data.get("bits"), where)
    if is_structured(data["inputs"]):  # a structured case: rebuilt exactly from its structure, at any n up to 10⁶
        case = parse_structured(data["inputs"], f"{where} inputs")
        structured_in_domain(case, claim, where)
    else:
        case = parse_case(data["inputs"], where=f"{where} inputs")
        in_domain(case, claim, where)
    if not isinstance(data["binding"], dict) or set(data["binding"]) != {"comparison", "lhs", "rhs"} or \
            not all(isinstance(v, str) for v in data["binding"].values()) or not isinstance(data["margin"], str):
        raise InputError(f"{where} binding must be {{\"comparison\", \"lhs\", \"rhs\"}} strings and margin a string")
    tree = claim.reading_tree(data["reading"])
    confirmed, reason, bits = counterexample.recheck(tree, case, dict(data, dps=dps))
    return CheckResult(confirmed, reason, bits)
