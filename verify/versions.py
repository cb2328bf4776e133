"""Package versions recorded in every JSON output (reproducibility)."""
import platform
from importlib import metadata

PACKAGES = ("verify", "numpy", "scipy", "sympy", "mpmath", "hypothesis", "python-flint", "rich", "matplotlib", "numba",
            "distributed", "jax", "optax")


def package_versions():
    """Python's and every key package's version (recorded in every JSON output)."""
    versions = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions
