"""Certificates: written atomically, re-checked from scratch by `check`.

Three kinds, one file format (JSON, keys validated exactly: an unknown or missing key is refused):
- "counterexample": a formula claim (built-in or user) failing at a case. The claim is stored as
  its claim-language text under its reading, with its domain (n range, family of H) and the
  SHA-256 of (id, text, domain); `check` re-parses the text with the same parser as user claims,
  refuses a text or domain that differs from the package's claim (or the claim file's), refuses
  inputs outside the domain, and re-decides the claim with Arb balls alone (verify.claims.counterexample);
- "several-examples": T2.multi's two sides as balls (verify.claims.multi);
- "proof": a PROVED claim's facts and SMT-LIB2 queries (verify.claims.prover.certificate).
"""
from verify.claims import counterexample
from verify.claims.certificate_files import FORMAT, checked_dps, exact_keys, write
from verify.claims.cases import parse_case, read_json
from verify.claims.certified import MAX_CHECK_N, certified_claim, in_domain, reject_claims_file
from verify.claims.results import CheckResult
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


def check_body(data, where="certificate", claims_file=None):
    """`check_certificate` on a certificate already read (a dict)."""
    where = where if where.startswith("certificate") else f"certificate {where}"
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(f"{where} is not a {FORMAT} certificate (an older format, or not a certificate); "
                         "re-run the search to write a new one")
    kind = data.get("kind")
    if kind == "several-examples":
        from verify.claims import multi_claim

        reject_claims_file(claims_file, "T2.multi", where)
        return multi_claim.check_multi_certificate(data, where)
    if kind == "proof":
        from verify.claims.prover import certificate as proof

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
