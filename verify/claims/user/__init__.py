"""User-written claims: a safe expression language, a TOML claim-file reader and evaluators.

`grammar` parses a `holds` text into comparisons over SymPy expressions (never with
eval); `margins` decides them in float64, mpmath or python-flint balls; `claimfile`
reads `claims.toml`; `decide` decides one case and guards certificates.
"""
from verify.claims.user.claimfile import UserClaim, load_claims, parse_claims_text
from verify.claims.user.decide import DecisionResult, certificate_fields, check_certificate_claim, decide_on_case
from verify.claims.user.grammar import AllOf, AnyOf, Compare, Negate, ZOrder, names_used, normalise, parse_holds
from verify.claims.user.latex import ClaimLatexPrinter, claim_latex
from verify.claims.user.margins import Outcome, claim_values, evaluate_arb, evaluate_float, evaluate_mp

__all__ = [
    "AllOf", "AnyOf", "ClaimLatexPrinter", "Compare", "DecisionResult", "Negate", "Outcome", "UserClaim",
    "ZOrder", "certificate_fields", "check_certificate_claim", "claim_latex", "claim_values", "decide_on_case",
    "evaluate_arb", "evaluate_float", "evaluate_mp", "load_claims", "names_used", "normalise",
    "parse_claims_text", "parse_holds",
]
