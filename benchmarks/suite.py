"""CPU time of the whole test suite (user + system, its worker processes and every process they start
included) against its budget of 240 s on this project's 2-core machine, and its wall time.

The suite runs as CI runs it (`python -m pytest`, two worker processes); the CPU time is read from the
operating system's accounting of the finished child processes, so nothing in the suite needs to cooperate.
Run: python benchmarks/suite.py [pytest options, e.g. -n 0]
     python benchmarks/suite.py --quick   (one small test file in one process: checks the benchmark runs, no budget)
"""
import importlib.util
import resource
import subprocess
import sys
import time
from pathlib import Path

BUDGET_CPU_SECONDS = 240.0
ROOT = Path(__file__).resolve().parent.parent
QUICK = ["-n", "0", "tests/test_architecture.py"]  # --quick: one small file, in this process's child alone


def bytecode_state():
    """How many of verify/'s modules have cached bytecode, and whether Python may write more. Under
    PYTHONDONTWRITEBYTECODE, each process the suite starts (about a hundred) compiles the modules it imports that
    have none from source again: 0.13 s of CPU for a short `theorem2` command (measured on 2026-12-07). Over the
    whole suite the difference stayed within the runs' spread (fresh clones run alternately with verify/ compiled
    first and without, that day), but it is one more way two measurements can differ."""
    sources = sorted((ROOT / "verify").rglob("*.py"))
    cached = sum(Path(importlib.util.cache_from_source(str(source))).exists() for source in sources)
    writes = "may not write the rest (PYTHONDONTWRITEBYTECODE)" if sys.flags.dont_write_bytecode else \
        "writes the rest as the first process imports them"
    return f"bytecode cached for {cached} of {len(sources)} modules of verify/ before the run; Python {writes}"


def main(argv):
    quick = "--quick" in argv
    bytecode = bytecode_state()
    if quick:
        argv = [a for a in argv if a != "--quick"] + QUICK
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *argv], cwd=ROOT)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
    if quick:
        print(f"{' '.join(QUICK)}: exit status {run.returncode}, {wall:.0f} s wall, {user + system:.1f} s CPU")
        print(bytecode)
        return run.returncode
    print(f"suite: exit status {run.returncode}, {wall:.0f} s wall, {user + system:.0f} s CPU "
          f"({user:.0f} user + {system:.0f} system); budget {BUDGET_CPU_SECONDS:.0f} s CPU: "
          f"ratio {(user + system) / BUDGET_CPU_SECONDS:.2f}")
    print(bytecode)
    return run.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
