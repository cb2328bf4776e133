"""Every script in benchmarks/ runs at its quickest setting (`--quick`) and prints what it measures: a benchmark
whose imports or arguments rot fails here, not when someone next wants its numbers. The targets and budgets
are not asserted (timings belong to the scripts, and a loaded machine would fail them); each run's own
correctness line is. The whole-command timings (scaling's Dask cluster, theorem2's pairs of commands, the
transformer study) are soak tests: run them with -m soak."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = sorted(path.stem for path in (ROOT / "benchmarks").glob("*.py"))
HEAVY = {"scaling", "theorem2", "transformer"}  # a Dask cluster, or several whole commands: over 5 s of CPU
EXPECTED = {  # a line each quick run must print (a benchmark not listed must still exit 0)
    "casemode": "case mode, n =   20:",
    "claims": "decided against expectation: none",
    "derivations": "derive D1: median",
    "fast_calls": "20 drawn cases (n = 2..8)",
    "heldout": "wrong verdicts: 0",
    "large_n": "worst ratio against the budget:",
    "mutations": "mutations apply (each one's code found once); no test was run",
    "scaling": "one 50-sample unit: in process",
    "soundness": "disagreements: 0",
    "spectral": "80-bit bracket check of all 199 roots at 1e-14: 0 failures",
    "suite": "exit status 0",  # and the bytecode line below
    "theorem2": "default / --workers 1: median ratio",
    "transformer": "transformer, tiny model: median",
}


def test_every_benchmark_is_run_here():
    assert SCRIPTS and set(EXPECTED) <= set(SCRIPTS), set(EXPECTED) - set(SCRIPTS)


@pytest.mark.parametrize("script", [pytest.param(s, marks=pytest.mark.soak) if s in HEAVY else s for s in SCRIPTS])
def test_the_quickest_setting_runs(script):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, f"benchmarks/{script}.py", "--quick"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert EXPECTED.get(script, "") in done.stdout, done.stdout[-2000:]
    if script == "suite":  # the bytecode line: one way two measurements of the suite can differ
        modules = len(list((ROOT / "verify").rglob("*.py")))
        assert re.search(rf"bytecode cached for \d+ of {modules} modules of verify/", done.stdout), done.stdout
