import os
import subprocess
import sys

import flint
import mpmath as mp
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("verify", deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("verify")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(autouse=True)
def reset_precision():
    """Precision is scoped in the library; a test that leaks it fails the next one loudly."""
    mp.mp.dps = 15
    flint.ctx.prec = 53
    yield
    leaked = (mp.mp.dps, flint.ctx.prec)
    mp.mp.dps = 15
    flint.ctx.prec = 53
    assert leaked == (15, 53), f"precision leaked out of a scope: mp.dps, flint prec = {leaked}"


def run_cli(*args, cwd=None, timeout=300):
    """The CLI through a subprocess, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "verify", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, timeout=timeout)
