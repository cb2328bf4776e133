"""Derivations D1–D6 and the rank argument of A2 (SPEC §2): one module per derivation group
(`softmax`: D1, D2; `loss`: D3, D4; `descent`: D5, D6; `rank`: A2), each a record with SymPy
steps, a closed form, a symbolic and a numeric check; the registry; and the LaTeX printer and
export. It imports `verify.numerics` and `verify.claims` (for the claims' LaTeX). A new
derivation goes in a module here and a `Derivation` record in `registry.py`.
"""
