"""verify: checks the mathematics of "Gradient Descent and Attention Models: Challenges Posed by
the Softmax Function" (see the SPEC): SymPy derivations, rigorous numerics, Hypothesis search.

The public API is `__all__` below (see `verify.api` for each function's documentation):

>>> import verify
>>> case = verify.make_case(logits=["0", "-575"], H=[[2, 0], [0, 3]])
>>> verify.evaluate_claim("T2.eq47.min", case, "tangent-exact").holds
True

Names are loaded on first use, so `python -m verify` starts without the library's weight.
"""
import importlib

__version__ = "0.1.0"

_PUBLIC = {name: "verify.api" for name in (
    "Case", "CheckResult", "ClaimResult", "CurvatureSpectrum", "Evaluation", "InputError", "Report",
    "check_certificate", "curvature_spectrum", "evaluate_claim", "make_case", "run_derivation", "run_theorem2")}

__all__ = sorted(_PUBLIC)


def __getattr__(name):
    if name in _PUBLIC:
        return getattr(importlib.import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'verify' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
