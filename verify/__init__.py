"""verify: checks the mathematics of "Gradient Descent and Attention Models: Challenges Posed by
the Softmax Function": SymPy derivations, rigorous numerics, Hypothesis search, proofs from cited facts.

The public API is `__all__` below (each name is documented in `verify.api`):

>>> import verify
>>> case = verify.make_case(logits=["0", "-575"], H=[[2, 0], [0, 3]])
>>> verify.evaluate_claim("T2.eq47.min", case, "tangent-exact").holds
True

Names are loaded on first use, so `python -m verify` starts without the library's weight.
"""
import importlib

__version__ = "0.1.0"

__all__ = ["Case", "CheckResult", "ClaimResult", "CurvatureSpectrum", "DecisionResult", "Evaluation", "InputError",
           "Report", "Verdict", "VerdictKind", "assumption2_dimensions", "check_certificate", "curvature_spectrum", "decide_on_case",
           "evaluate_case", "evaluate_claim", "j_spectrum", "load_case", "load_claims", "make_case", "run_assumption2",
           "run_claims", "run_derivation", "run_theorem2"]


def __getattr__(name):
    if name in __all__:
        return getattr(importlib.import_module("verify.api"), name)
    raise AttributeError(f"module 'verify' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
