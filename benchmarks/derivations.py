"""Wall time of `python -m verify derive` (every derivation's symbolic and numeric checks) against its
15 s budget, and of `python -m verify export-latex`; runs the CLI as a user does.

Prints the median of the runs, the ratio of that median to the budget, and the slowest checks of
one run (each check's own seconds, from `derive --json`: with worker processes they overlap).
Run: python benchmarks/derivations.py [--repeats 3]
     python benchmarks/derivations.py --quick   (derive D1 once, no export: checks the benchmark runs, no budget ratio)
"""
import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time

BUDGET_SECONDS = 15.0
QUICK_DERIVATION = "D1"  # the softmax Jacobian: one of the quickest


def wall_seconds(arguments, repeats):
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "verify", *arguments], check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - started)
    return times


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs of each command (the median is printed)")
    parser.add_argument("--quick", action="store_true", help="the quickest setting: derive D1 once, no export-latex")
    args = parser.parse_args(argv)
    chosen = [QUICK_DERIVATION] if args.quick else []
    repeats = 1 if args.quick else args.repeats
    derive = wall_seconds(["derive", *chosen], repeats)
    median = statistics.median(derive)
    print(f"derive {' '.join(chosen) or '(all)'}: median {median:.2f} s of {repeats} ({', '.join(f'{t:.2f}' for t in derive)})")
    if not args.quick:
        print(f"ratio to the {BUDGET_SECONDS:.0f} s budget: {median / BUDGET_SECONDS:.2f}")
        with tempfile.TemporaryDirectory() as out:
            export = wall_seconds(["export-latex", "--out", out], repeats)
        print(f"export-latex: median {statistics.median(export):.2f} s of {repeats}")
    report = json.loads(subprocess.run([sys.executable, "-m", "verify", "derive", "--json", *chosen], check=True,
                                       capture_output=True, text=True).stdout)
    checks = [(c["seconds"], d["id"], c["kind"], c["sizes"]) for d in report["derivations"] for c in d["checks"]]
    print(f"checks: {sum(s for s, *_ in checks):.1f} s in all; slowest:")
    for seconds, identifier, kind, sizes in sorted(checks, reverse=True)[:5]:
        print(f"  {seconds:6.2f} s  {identifier} {kind} ({sizes})")


if __name__ == "__main__":
    main()
