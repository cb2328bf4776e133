"""Certificates: written atomically, re-checked from scratch by `check`.

Three kinds, one file format (JSON, keys validated exactly: an unknown or missing key is refused):
- "counterexample": a formula claim (built-in or user) failing at a case. The claim is stored as
  its claim-language text under its reading, with its domain (n range, family of H) and the
  SHA-256 of (id, text, domain); `check` re-parses the text with the same parser as user claims,
  refuses a text or domain that differs from the package's claim (or the claim file's), refuses
  inputs outside the domain, and re-decides the claim with Arb balls alone (verify.claims.certificates.counterexample);
- "several-examples": T2.multi's two sides as balls (verify.claims.builtin.multi_balls);
- "proof": a PROVED claim's facts and SMT-LIB2 queries (verify.claims.certificates.proof).
"""
from verify.claims.certificates import counterexample
from verify.claims.certificates.files import FORMAT, checked_dps, exact_keys
from verify.claims.cases.case import parse_case, read_json
from verify.claims.certificates.stored_claim import MAX_CHECK_N, certified_claim, in_domain, reject_claims_file
from verify.claims.verdicts.results import CheckResult
from verify.errors import InputError

KEYS = {
    "counterexample": ("format", "kind", "claim", "reading", "statement", "domain", "sha256", "inputs", "binding",
                       "margin", "dps", "bits"),
}



def counterexample_body(job, case, dps):
    """A formula claim's counterexample certificate (a dict), or None when the balls do not show it fails (or the
    case has more tokens than `check` takes: such a failure stays uncertified)."""
    if case.n > MAX_CHECK_N:
        return None
    found = counterexample.certify(job.tree, case, dps)
    if found is None:
        return None
    claim = job.claim
    return {"format": FORMAT, "kind": "counterexample", "claim": claim.id, "reading": job.reading,
            "statement": job.text, "domain": claim.domain(job.reading), "sha256": claim.digest(job.reading),
            "inputs": case.inputs(), "binding": found["binding"], "margin": found["margin"], "dps": dps,
            "bits": found["bits"]}


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
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(f"{where} is not a {FORMAT} certificate (an older format, or not a certificate); "
                         "re-run the search to write a new one")
    kind = data.get("kind")
    if kind == "several-examples":
        from verify.claims.builtin import multi as multi_claim

        reject_claims_file(claims_file, "T2.multi", where)
        return multi_claim.check_multi_certificate(data, where)
    if kind == "proof":
        from verify.claims.certificates import proof

        return proof.check_proof_certificate(data, where, claims_file)
    if kind != "counterexample":
        raise InputError(f"{where} has kind {kind!r}; a certificate is a counterexample, several-examples or proof")
    exact_keys(data, KEYS["counterexample"], where)
    claim = certified_claim(data, where, claims_file)
    dps = checked_dps(data.get("dps"), where)
    case = parse_case(data["inputs"], where=f"{where} inputs")
    in_domain(case, claim, where)
    if not isinstance(data["binding"], dict) or set(data["binding"]) != {"comparison", "lhs", "rhs"} or \
            not all(isinstance(v, str) for v in data["binding"].values()) or not isinstance(data["margin"], str):
        raise InputError(f"{where} binding must be {{\"comparison\", \"lhs\", \"rhs\"}} strings and margin a string")
    tree = claim.reading_tree(data["reading"])
    confirmed, reason, bits = counterexample.recheck(tree, case, dict(data, dps=dps), where)
    return CheckResult(confirmed, reason, bits)
