"""CPU time of the whole test suite (user + system, its worker processes and every process they start
included) against its budget of 240 s on this project's 2-core machine, and its wall time.

The suite runs as CI runs it (`python -m pytest`, two worker processes); the CPU time is read from the
operating system's accounting of the finished child processes, so nothing in the suite needs to cooperate.
Run: python benchmarks/suite.py [pytest options, e.g. -n 0]
"""
import resource
import subprocess
import sys
import time
from pathlib import Path

BUDGET_CPU_SECONDS = 240.0
ROOT = Path(__file__).resolve().parent.parent


def main(argv):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *argv], cwd=ROOT)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
    print(f"suite: exit status {run.returncode}, {wall:.0f} s wall, {user + system:.0f} s CPU "
          f"({user:.0f} user + {system:.0f} system); budget {BUDGET_CPU_SECONDS:.0f} s CPU: "
          f"ratio {(user + system) / BUDGET_CPU_SECONDS:.2f}")
    return run.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
