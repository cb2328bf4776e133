import contextlib
import gc
import io
import os
import subprocess
import sys
from dataclasses import dataclass

import flint
import mpmath as mp
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("verify", deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("verify")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The transformer tests' tiny models spend most of their time in XLA's compiler; at its lowest optimisation level it
# compiles them in half the CPU time (12 s -> 8 s for the study run twice), and what the tests check (the same seed
# gives the same numbers, the CSV's rows, the findings, the attention rows) does not depend on it. Set before JAX
# starts, here and in every process a test starts.
os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} --xla_backend_optimization_level=0".strip()


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


THEOREM2_RUN = dict(seed=1, samples=40, dps=50)  # the one whole `theorem2` decision the tests share


@pytest.fixture(scope="session")
def theorem2_run(tmp_path_factory):
    """The whole `theorem2` decision with THEOREM2_RUN's settings and its certificates, once per test process for
    every test that reads a report: (Report, the certificates' folder)."""
    from verify.claims.verdicts.theorem2 import run_theorem2

    out = tmp_path_factory.mktemp("theorem2")
    return run_theorem2(**THEOREM2_RUN, out_dir=str(out), workers=1), out


@pytest.fixture(scope="session")
def lemmas_example_run():
    """examples/lemmas.toml decided once per test process (seed 0, 20 samples; Report) for every test that reads it."""
    from verify.claims.claimfile import load_claims
    from verify.claims.verdicts.decide import run_claims

    return run_claims(load_claims(f"{ROOT}/examples/lemmas.toml"), seed=0, samples=20, workers=1)


@dataclass(frozen=True)
class Ran:
    """What a run of the CLI left: its exit status and what it wrote."""

    returncode: int
    stdout: str
    stderr: str


def run_cli(*args, cwd=None):
    """`verify ARGS` in this process, through verify.commandline.cli.main(argv), from `cwd` (the repository by default):
    the exit status, stdout and stderr a user sees; an exception escaping main fails the test, as a traceback
    would. `run_cli_process` starts `python -m verify` for what only a process shows (signals, pipes, the
    interpreter's own exit status, a bound on a run's time)."""
    from verify.commandline.cli import main

    out, err = io.StringIO(), io.StringIO()
    previous = os.getcwd()
    os.chdir(cwd or ROOT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as stop:  # argparse's --help and --version
                code = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
    finally:
        os.chdir(previous)
    return Ran(code, out.getvalue(), err.getvalue())


def run_cli_process(*args, cwd=None, timeout=300):
    """The CLI through a subprocess, as a user's shell runs it."""
    return subprocess.run([sys.executable, "-m", "verify", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, timeout=timeout)


# Files that share a process's memory of the built-in and the suite's claims (the proof cache, `theorem2_run`,
# `lemmas_example_run`, the LaTeX export's decision; the README's blocks and the API's doctests decide the built-in
# and example claims too):
# under xdist they run on one worker, so that memory is made once, not on each worker.
SHARED_DECISIONS = {"test_algebraic.py", "test_certificate_bounds.py", "test_certificates.py", "test_claims_command.py",
                    "test_cli.py", "test_latex_proofs.py", "test_lemmas.py", "test_prover.py", "test_readme.py",
                    "test_render.py", "api.py"}


def pytest_xdist_make_scheduler(config, log):
    """xdist's scheduling by file (`--dist loadfile`), with the files of SHARED_DECISIONS as one unit; any other
    --dist is xdist's own."""
    from xdist.scheduler import LoadScopeScheduling

    if config.getvalue("dist") != "loadfile":
        return None

    class ByFileSharingDecisions(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            path = nodeid.split("::", 1)[0]
            return "shared decisions" if os.path.basename(path) in SHARED_DECISIONS else path

    return ByFileSharingDecisions(config, log)


def pytest_collection_finish(session):
    """Every module the tests import is loaded now: its objects live as long as the process, so the cyclic garbage
    collector's full passes need not scan them again; and a test process makes young objects by the million
    (Hypothesis's draws, SymPy's caches), so it collects them in batches of 10,000, not 700 (the workers' collections
    took 11 s of CPU, 9 s with the freeze alone, 4.4 s with both: measured)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)
