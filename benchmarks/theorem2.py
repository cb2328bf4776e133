"""Wall time of `python -m verify theorem2` as a user runs it (target: under 10 s on 2 cores, aim 5 s),
and of the default run against `--workers 1` (in process): the default must be no slower.

The two commands are run in turn (default, --workers 1, default, ...) so that a drift in the machine's
speed touches both; the ratio is taken pair by pair and its median printed.
Run: python benchmarks/theorem2.py [--repeats 5]
     python benchmarks/theorem2.py --quick   (one pair on one claim at --samples 20, no warm-up: checks the benchmark runs)
"""
import argparse
import statistics
import subprocess
import sys
import tempfile
import time

BUDGET_SECONDS = 10.0
AIM_SECONDS = 5.0
QUICK_CLAIM, QUICK_SAMPLES = "T2.eq47.max", 20  # --quick: one claim, 20 samples


def wall_time(*options):
    with tempfile.TemporaryDirectory() as out:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "verify", "theorem2", "--out", out, *options], check=True,
                       stdout=subprocess.DEVNULL)
        return time.perf_counter() - started


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5, help="pairs of runs (after one warm-up pair)")
    parser.add_argument("--quick", action="store_true", help="the quickest setting: one pair on one claim at --samples 20, no warm-up")
    args = parser.parse_args(argv)
    budget = ["--claim", QUICK_CLAIM, "--samples", str(QUICK_SAMPLES)] if args.quick else []
    if args.quick:
        args.repeats = 1
    else:
        wall_time(), wall_time("--workers", "1")  # warm-up: file caches and Python's bytecode caches
    default, alone = [], []
    for _ in range(args.repeats):
        default.append(wall_time(*budget))
        alone.append(wall_time("--workers", "1", *budget))
    ratios = [d / a for d, a in zip(default, alone)]
    median = statistics.median(default)
    print(f"theorem2 (default): median {median:.2f} s of {args.repeats} ({', '.join(f'{t:.2f}' for t in default)})")
    print(f"theorem2 --workers 1: median {statistics.median(alone):.2f} s ({', '.join(f'{t:.2f}' for t in alone)})")
    print(f"default / --workers 1: median ratio {statistics.median(ratios):.2f} (aim: ≤ 1.00, no slower)")
    if args.quick:
        return
    print(f"default against the 10 s budget: {median / BUDGET_SECONDS:.2f}   against the 5 s aim: {median / AIM_SECONDS:.2f}")


if __name__ == "__main__":
    main()
