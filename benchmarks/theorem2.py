"""Wall and CPU time of `python -m verify theorem2` as a user runs it (issue 39's target: 3 s of wall time on
2 cores), and of the same run with `--workers 1` (every task in one process).

By default the command forks one process per usable core for its tasks (verify.claims.executors.Forked): the
wall time can fall to about half the CPU time, on a machine whose cores are free. On a shared machine the wall
time follows the load, so the CPU time (user + system, the forked processes included) and the load average
are printed beside it, and the wall time an idle machine would take is bounded below by CPU / cores.
The two commands are run in turn (default, --workers 1, default, ...) so that a drift in the machine's
speed touches both. Python's bytecode caches are on, as in an installed package (a sandbox may turn them off).
Run: python benchmarks/theorem2.py [--repeats 5]
     python benchmarks/theorem2.py --quick   (one pair on one claim at --samples 20, no warm-up: checks the benchmark runs)
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

TARGET_SECONDS = 3.0
QUICK_CLAIM, QUICK_SAMPLES = "T2.eq47.max", 20  # --quick: one claim, 20 samples
USER_ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def timed(*options):
    """(wall, CPU) seconds of one run; CPU is the child's and its forked processes' user + system time."""
    with tempfile.TemporaryDirectory() as out:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "verify", "theorem2", "--out", out, *options], check=True,
                       stdout=subprocess.DEVNULL, env=USER_ENV)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def line(name, runs):
    walls, cpus = [w for w, _ in runs], [c for _, c in runs]
    return (f"{name}: median {statistics.median(walls):.2f} s wall ({', '.join(f'{w:.2f}' for w in walls)}), "
            f"median {statistics.median(cpus):.2f} s CPU ({', '.join(f'{c:.2f}' for c in cpus)})")


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5, help="pairs of runs (after one warm-up pair)")
    parser.add_argument("--quick", action="store_true",
                        help="the quickest setting: one pair on one claim at --samples 20, no warm-up")
    args = parser.parse_args(argv)
    budget = ["--claim", QUICK_CLAIM, "--samples", str(QUICK_SAMPLES)] if args.quick else []
    if args.quick:
        args.repeats = 1
    else:
        timed(), timed("--workers", "1")  # warm-up: file caches, Python's bytecode caches
    default, alone, loads = [], [], []
    for _ in range(args.repeats):
        loads.append(os.getloadavg()[0])
        default.append(timed(*budget))
        alone.append(timed("--workers", "1", *budget))
    wall = statistics.median(w for w, _ in default)
    cpu = statistics.median(c for _, c in default)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(line("theorem2 (default)", default))
    print(line("theorem2 --workers 1", alone))
    print(f"load average during the runs: {min(loads):.1f}–{max(loads):.1f} on {cores} cores")
    print(f"default against the {TARGET_SECONDS:.0f} s target: wall {wall / TARGET_SECONDS:.2f}; "
          f"CPU / cores (the least wall time this CPU allows) {cpu / cores / TARGET_SECONDS:.2f}")
    print(f"default / --workers 1, wall: {wall / statistics.median(w for w, _ in alone):.2f}")


if __name__ == "__main__":
    main()
