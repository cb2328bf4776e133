"""Wall time of the transformer study's quick preset (`python -m verify experiments transformer
--quick`) against its 180 s budget, with the time of each phase.

Each run is a fresh process (nothing compiled or cached in memory carries over), so what is timed
is what a user waits for: imports, the corpus, compilation, training, the measurements and the
files.  `--repeats N` runs it N times and prints the median; the machine's load average is printed
beside it, since a shared machine slows every figure.
Run: python benchmarks/transformer.py [--repeats 1]
     python benchmarks/transformer.py --quick   (a tiny model, 4 steps of SGD: checks the benchmark runs, no budget ratio)
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

BUDGET_SECONDS = 180.0
QUICK_OVERRIDES = {"steps": 4, "layers": 1, "heads": 1, "width": 8, "optimizers": "sgd"}  # --quick: a tiny model


def child(out, quick=False):
    """One run in this process: prints {"wall": …, "phases": {…}} as JSON on the last line."""
    started = time.perf_counter()
    from verify.experiments.transformer import run_transformer_study  # noqa: E402  (its imports are timed)

    imported = time.perf_counter()
    result = run_transformer_study(out, "quick", **(QUICK_OVERRIDES if quick else {}))
    wall = time.perf_counter() - started
    print(json.dumps({"wall": wall, "phases": {"imports": imported - started, **result.timings}}))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1, help="fresh-process runs (default 1); the median is printed")
    parser.add_argument("--quick", action="store_true", help="the quickest setting: a tiny model trained 4 steps")
    parser.add_argument("--child", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child, args.quick)
    runs = []
    for index in range(args.repeats):
        load = os.getloadavg()[0]
        with tempfile.TemporaryDirectory() as out:
            done = subprocess.run([sys.executable, __file__, "--child", out] + ["--quick"] * args.quick,
                                  capture_output=True, text=True, check=True)
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(f"run {index + 1}: {runs[-1]['wall']:.1f} s (1-minute load average {load:.2f} before, "
              f"{os.getloadavg()[0]:.2f} after, on {os.cpu_count()} cores)")
    wall = statistics.median(r["wall"] for r in runs)
    if args.quick:
        print(f"transformer, tiny model: median {wall:.1f} s of {len(runs)} (not the preset the budget is for)")
    else:
        print(f"transformer --quick wall time: median {wall:.1f} s of {len(runs)}; ratio to the {BUDGET_SECONDS:.0f} s "
              f"budget: {wall / BUDGET_SECONDS:.2f}")
    for phase in runs[0]["phases"]:
        seconds = statistics.median(r["phases"][phase] for r in runs)
        print(f"  {phase:28} {seconds:6.1f} s  {100 * seconds / wall:4.0f} %")


if __name__ == "__main__":
    main()
