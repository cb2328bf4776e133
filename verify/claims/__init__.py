"""Claims: the claim record and the one registry (Theorem 2 and Assumption 2 claims as data), the
readings of L and μ, evaluation and margins, case files, the counterexample search, certificates
and their independent `check`, the symbolic n = 2 proofs, and the result types of the claim
commands. It imports `verify.numerics` (and the leaf modules errors, atomic, versions), never the
derivations, experiments or CLI. A new claim goes in `theorem2_claims.py` or
`assumption2_claims.py` as a `Claim` record.
"""
