"""The one registry of built-in claims: the CLI, the tests and the LaTeX export all read it."""
from verify.base.printable import shown
from verify.claims.builtin.assumption2 import ASSUMPTION2_CLAIMS
from verify.claims.builtin.theorem2_claims import THEOREM2_CLAIMS
from verify.base.errors import InputError

CLAIMS = THEOREM2_CLAIMS + ASSUMPTION2_CLAIMS
REGISTRY = {claim.id: claim for claim in CLAIMS}


def claims_for(command):
    """The claims a command decides ("theorem2" or "assumption2"), in registry order."""
    return tuple(c for c in CLAIMS if c.command == command)


def get_claim(claim_id, command=None):
    """The claim `claim_id`; InputError if unknown or (with `command`) decided by another command."""
    if not isinstance(claim_id, str) or claim_id not in REGISTRY:
        known = ", ".join(REGISTRY)
        raise InputError(f"unknown claim id {shown(claim_id, 60)}; choose one of: {known}", "claim")
    claim = REGISTRY[claim_id]
    if command is not None and claim.command != command:
        raise InputError(f"claim {claim_id} is decided by the {claim.command} command, not {command}; run it there", "claim")
    return claim


def select(command, claim_ids=None):
    """The claims of `command` named by `claim_ids` (all of them when none are named)."""
    if not claim_ids:
        return claims_for(command)
    return tuple(get_claim(c, command) for c in claim_ids)
