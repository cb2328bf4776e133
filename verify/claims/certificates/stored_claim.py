"""Which claim a certificate speaks of, and whether its example lies in that claim's domain: the package's
own claim for a built-in id (its text and domain must be the package's), or the user claim that the
certificate's text, domain and SHA-256 describe (and, given the claim file, the file's claim of that id)."""
import math

from verify.claims.record import FormulaClaim, in_family
from verify.claims.builtin.registry import REGISTRY, get_claim
from verify.base.errors import InputError
from verify.base.printable import shown

MAX_CHECK_N = 50  # a certificate's example has at most this many tokens (dense balls: 200 took 71 s at 200 bits)


def certified_claim(data, where, claims_file=None):
    """The FormulaClaim a certificate speaks of: the package's own (built-in id), or the user claim its
    text, domain and SHA-256 describe (and, given the claim file, the file's claim of that id)."""
    claim_id, reading, statement = data.get("claim"), data.get("reading"), data.get("statement")
    if not isinstance(claim_id, str) or not isinstance(statement, str):
        raise InputError(f"{where} claim and statement must be strings")
    if claim_id in REGISTRY:
        reject_claims_file(claims_file, claim_id, where)
        claim = get_claim(claim_id)
        if not isinstance(claim, FormulaClaim) or reading not in claim.readings:
            raise InputError(f"{where} has claim {shown(claim_id, 200)} with reading {shown(reading, 200)}; that claim takes "
                             f"{[r for r in claim.readings]}")
        if statement != claim.reading_text(reading) or data.get("domain") != claim.domain(reading):
            raise InputError(f"{where} states {claim_id} as {shown(statement, 80)} on {data.get('domain')}, but the package's "
                             f"{claim_id} is {shown(claim.reading_text(reading), 200)} on {claim.domain(reading)}; re-run the search")
    else:
        claim = _user_claim(claim_id, reading, statement, data.get("domain"), where)
        if claims_file is not None:
            _same_as_file(claim, claims_file, where)
    if data.get("sha256") != claim.digest(reading):
        raise InputError(f"{where} SHA-256 does not match its claim id, statement and domain: one of them was edited "
                         "after the certificate was written; restore it or re-run the search")
    return claim


def _user_claim(claim_id, reading, statement, domain, where):
    if reading is not None:
        raise InputError(f"{where} has reading {shown(reading, 200)}; a user claim has no reading (null)")
    if not isinstance(domain, dict) or set(domain) != {"n", "hessian", "reading"} or domain["reading"] is not None:
        raise InputError(f"{where} domain must be {{\"n\": [lo, hi], \"hessian\": family, \"reading\": null}}")
    from verify.claims.claimfile import claim_from_fields

    n = domain["n"]
    if not isinstance(n, list) or len(n) != 2:
        raise InputError(f"{where} domain n is {shown(n, 200)}; give [lo, hi] (hi may be null for every n ≥ lo)")
    n_value = [n[0], math.inf if n[1] is None else n[1]]
    return claim_from_fields({"id": claim_id, "holds": statement, "n": n_value, "hessian": domain["hessian"]},
                             f"{where} claim")


def _same_as_file(claim, claims_file, where):
    from verify.claims.claimfile import load_claims

    stated = {c.id: c for c in load_claims(claims_file)}
    if claim.id not in stated:
        raise InputError(f"{where} is for claim {shown(claim.id, 200)}, which claim file {shown(str(claims_file), 200)} does not contain; "
                         "give the claim file the certificate came from")
    mine = stated[claim.id]
    if mine.text != claim.text or mine.domain() != claim.domain():
        raise InputError(f"{where} claim {shown(claim.id, 200)} is {shown(claim.text, 80)} on {claim.domain()}, but the claim file "
                         f"states {shown(mine.text, 80)} on {mine.domain()}; re-run the search for the edited claim")


def reject_claims_file(claims_file, claim_id, where):
    if claims_file is not None:
        raise InputError(f"{where} is for the built-in claim {claim_id}, which no claim file states; drop --claims")


def in_domain(case, claim, where):
    """InputError unless the case lies in the claim's domain: its n range and its family of H."""
    lo, hi = claim.n_range
    if not lo <= case.n <= hi:
        raise InputError(f"{where} inputs have n = {case.n}, outside the claim's n range {claim.domain()['n']}; "
                         "a counterexample must lie in the claim's domain")
    if case.n > MAX_CHECK_N:
        raise InputError(f"{where} inputs have n = {case.n} tokens; check takes at most {MAX_CHECK_N}")
    if not in_family(case.H, claim.hessian):
        raise InputError(f"{where} inputs' H is not in the claim's family {shown(claim.hessian, 200)}; a counterexample must "
                         "lie in the claim's domain")


def structured_in_domain(case, claim, where):
    """InputError unless a structured case lies in the claim's domain: its n range and its family of H."""
    lo, hi = claim.n_range
    if not lo <= case.n <= hi:
        raise InputError(f"{where} inputs have n = {case.n}, outside the claim's n range {claim.domain()['n']}; "
                         "a counterexample must lie in the claim's domain")
    if not case.in_family(claim.hessian):
        raise InputError(f"{where} inputs' H is not in the claim's family {claim.hessian!r}; a counterexample must "
                         "lie in the claim's domain")
