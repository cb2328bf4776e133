"""Package versions recorded in every JSON output (reproducibility)."""
import platform
from importlib import metadata

DISTRIBUTION = "softmax-attention-verify"  # this project's name on the package index (its import package is `verify`)
PACKAGES = (DISTRIBUTION, "numpy", "scipy", "sympy", "mpmath", "gmpy2", "hypothesis", "python-flint", "rich", "matplotlib", "z3-solver", "cvc5",
            "distributed", "jax", "optax")


def package_versions():
    """Python's and every key package's version (recorded in every JSON output); None for one not installed
    (this project's own when it runs from a source tree that was never installed)."""
    versions = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions
