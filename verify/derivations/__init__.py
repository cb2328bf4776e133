"""Derivations D1–D6 and the rank argument of A2: one module per derivation group
(`softmax`: D1, D2; `loss`: D3, D4; `descent`: D5, D6; `rank`: A2), each a record with SymPy
steps, a closed form, a symbolic and a numeric check; the registry; the exact zero test the
symbolic checks share (`exact`); and running the checks over worker processes (`run`).
It imports only `verify.numerics`; the LaTeX export is `verify.document.latex_export`. A new derivation
goes in a module here and a `Derivation` record in `registry.py`.
"""
