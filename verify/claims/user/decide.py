"""Deciding a user claim on one case, and the user-claim part of a certificate.

`decide_on_case` evaluates at `dps` digits with mpmath (spectrum by
`curvature_precise`, J's eigenvalues by the secular kernel); a margin inside its error
estimate is re-decided with python-flint balls (`curvature_balls`, J's eigenvalues
enclosed by acb eigenvalue isolation), doubling the precision a few times.

A refuted user claim's certificate stores the claim id, its holds text (normalised) and the
SHA-256 of that text; `check_certificate_claim` re-parses it with the same safe parser
and detects an edited text, or one that differs from the claim file's.
"""
from dataclasses import dataclass

import flint
import mpmath as mp

from verify.errors import InputError
from verify.numerics.arb import arb_to_mpf
from verify.numerics.curvature import curvature_balls, curvature_precise, j_extremes_balls
from verify.numerics.precision import bits_for, decimal
from verify.numerics.secular import j_eigenvalues_mp
from verify.claims.user.claimfile import UserClaim, holds_digest, load_claims
from verify.claims.user.grammar import ZOrder, index_value, names_used, normalise, parse_holds
from verify.claims.user.latex import claim_latex
from verify.claims.user.margins import claim_values, evaluate_arb, evaluate_mp

BALL_MIN_DPS = 50
BALL_ATTEMPTS = 4  # precision doublings before a tight margin is left undecided
DIGITS = 20


@dataclass(frozen=True)
class DecisionResult:
    """A claim text decided on one case: margin (decimal), holds, decided, whether balls decided it, the values read."""

    claim: str  # the normalised holds text
    margin: str  # decimal string; ≥ 0 holds (see verify.claims.user.margins)
    holds: bool
    decided: bool  # the margin's enclosure excludes 0
    rigorous: bool  # decided with python-flint balls
    values: tuple  # (name, decimal string) of every quantity the claim read, z(k) included


def decide_on_case(holds_text, case, dps=50):
    """Decide a claim text on one Case: mpmath at `dps` digits, then Arb balls when the margin is inside its error.

    >>> from verify.api import make_case
    >>> decide_on_case("lambda_min <= mu_T * z_max**2", make_case(logits=[0, -2], H=[[2, 0], [0, 3]])).holds
    True"""
    tree = parse_holds(holds_text)
    text = normalise(holds_text)
    used = names_used(tree)
    q = curvature_precise(case.logits, case.H, dps)
    values = claim_values(q, *_j_extremes_mp(case, dps, used))
    outcome = evaluate_mp(tree, values, dps + 10, rel_err=max(q.rel_err, 10.0**-dps), text=text)
    rigorous = False
    if not outcome.decided:
        balls = _decide_with_balls(tree, case, used, dps, text)
        if balls is not None:
            outcome, rigorous = balls, True
    with mp.workdps(dps + 10):
        margin = arb_to_mpf(outcome.margin) if isinstance(outcome.margin, flint.arb) else outcome.margin
        shown = decimal(margin, DIGITS)
        used_values = _shown_values(tree, values, used)
    return DecisionResult(text, shown, outcome.holds, outcome.decided, rigorous, used_values)


def _j_extremes_mp(case, dps, used):
    """(j_max, j_min): the secular kernel returns J's eigenvalues decreasing, the last 0."""
    if not used & {"j_max", "j_min"}:
        return None, None
    eigenvalues = j_eigenvalues_mp(list(case.logits), dps=dps)
    return eigenvalues[0], eigenvalues[-2]


def _decide_with_balls(tree, case, used, dps, text):
    bits = bits_for(max(dps, BALL_MIN_DPS))
    for _ in range(BALL_ATTEMPTS):
        with flint.ctx.workprec(bits):
            q = curvature_balls(case.logits, case.H)
            extremes = j_extremes_balls(case.logits) if used & {"j_max", "j_min"} else (None, None)
            if q is not None and extremes is not None:
                outcome = evaluate_arb(tree, claim_values(q, *extremes), text=text)
                if outcome.decided:
                    return outcome
        bits *= 2
    return None


def _shown_values(tree, values, used):
    shown = []
    for name in sorted(used - {"z"}):
        value = values[name]
        shown.append((name, str(value) if name == "n" else decimal(_as_mpf(value), DIGITS)))
    for k in sorted({index_value(z.args[0], values["n"]) for z in _orders(tree)}):
        if 1 <= k <= values["n"]:
            shown.append((f"z({k})", decimal(_as_mpf(values["z"][k - 1]), DIGITS)))
    return tuple(shown)


def _orders(tree):
    if hasattr(tree, "lhs"):
        return tree.lhs.atoms(ZOrder) | tree.rhs.atoms(ZOrder)
    parts = (tree.part,) if hasattr(tree, "part") else tree.parts
    return set().union(*(_orders(p) for p in parts))


def _as_mpf(value):
    return arb_to_mpf(value) if isinstance(value, flint.arb) else mp.mpf(value)


# ---------------------------------------------------------------- certificates


def certificate_fields(claim):
    """What a refuted user claim's certificate stores (suggested key: "user_claim")."""
    return {
        "id": claim.id,
        "holds": normalise(claim.holds),
        "holds_sha256": claim.holds_sha256,
        "n": list(claim.n_range),
        "hessian": claim.hessian,
    }


def check_certificate_claim(record, claims_file=None, where="certificate"):
    """The UserClaim a certificate's stored record describes, re-parsed with the safe parser.

    InputError when the holds text was edited (SHA-256 mismatch) or, given the claim file,
    when the file has no such id or states a different holds text."""
    if not isinstance(record, dict) or any(not isinstance(record.get(k), str) for k in ("id", "holds", "holds_sha256")):
        raise InputError(f"{where} user claim record {record!r} lacks id, holds or holds_sha256; re-run the search to rewrite it")
    claim_id, holds = record["id"], record["holds"]
    if holds_digest(holds) != record["holds_sha256"]:
        raise InputError(f"{where} claim {claim_id!r}: the holds text was edited after the certificate was written "
                         f"({normalise(holds)[:80]!r} no longer matches its SHA-256); restore it or re-run the search")
    n_range = tuple(record.get("n", (2, 10)))
    tree = parse_holds(holds, n_range)
    statement = ""
    if claims_file is not None:
        stated = {c.id: c for c in load_claims(claims_file)}
        if claim_id not in stated:
            raise InputError(f"{where} is for claim {claim_id!r}, which claim file {str(claims_file)!r} does not contain; "
                             "give the claim file the certificate came from")
        if normalise(stated[claim_id].holds) != normalise(holds):
            raise InputError(f"{where} claim {claim_id!r} holds text {normalise(holds)[:80]!r} differs from the claim file's "
                             f"{normalise(stated[claim_id].holds)[:80]!r}; re-run the search for the edited claim")
        statement = stated[claim_id].statement
    return UserClaim(claim_id, statement, holds, tree, claim_latex(tree), n_range, record.get("hessian", "spd"),
                     names_used(tree))
