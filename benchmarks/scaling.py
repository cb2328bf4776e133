"""Searches on Dask: where a local cluster starts to pay (issue: "Searches that outgrow one machine: Dask").

For each `--samples` value, times `python -m verify theorem2 --samples N` in process (`--workers 1`) and
on a local cluster of two workers (`--workers 2`), prints their ratio against the 1.6× target at the
largest size, the task count of each search and the crossover: the smallest size where two workers
win, which `verify.claims.executors.MIN_TASKS_FOR_CLUSTER` (the default's threshold) should lie near.
Last, the overhead of one work unit on Dask against the same unit run in process.
Run: python benchmarks/scaling.py [--samples 300,1000,2000,4000] [--repeats 1]
     python benchmarks/scaling.py --quick   (one budget of 50 samples, one unit timed once: checks it runs)
"""
import argparse
import statistics
import subprocess
import sys
import tempfile
import time


def whole_command(samples, workers):
    with tempfile.TemporaryDirectory() as out:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "verify", "theorem2", "--samples", str(samples), "--workers", str(workers),
                        "--json", "--out", out], check=True, capture_output=True)
        return time.perf_counter() - started


def task_count(samples):
    """The tasks of the default theorem2 search at this sample budget (what the default decides on)."""
    from verify.claims import executors
    from verify.claims.verdicts.theorem2 import run_theorem2

    counted = []

    class Count:
        def run(self, tasks, progress=None, finish=None):
            counted.append(len(tasks))
            raise executors.Interrupted([None] * len(tasks))

        def close(self):
            pass

    with tempfile.TemporaryDirectory() as out:
        run_theorem2(samples=samples, out_dir=out, executor=Count())
    return counted[0]


def unit_overhead(repeats=5):
    """One 50-sample unit: in process, then as a Dask task on a warm local cluster (median of `repeats`)."""
    from verify.claims.search.engine import run_unit, units_for
    from verify.claims.executors import DaskExecutor
    from verify.claims.builtin.registry import select
    from verify.claims.jobs import Job

    jobs = [Job(c, r) for c in select("theorem2") if not c.multi for r in c.readings]
    unit = units_for(0, 50, tuple(range(len(jobs))), 50)[0]
    local = []
    for _ in range(repeats):
        started = time.perf_counter()
        run_unit(unit, jobs)
        local.append(time.perf_counter() - started)
    executor = DaskExecutor(2)
    executor.run([("warm", run_unit, (unit, jobs))])
    remote = []
    for _ in range(repeats):
        started = time.perf_counter()
        executor.run([("unit", run_unit, (unit, jobs))])
        remote.append(time.perf_counter() - started)
    executor.close()
    return statistics.median(local), statistics.median(remote)


def main(argv=None):
    from verify.claims.executors import MIN_TASKS_FOR_CLUSTER

    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", default="300,1000,2000,4000", help="comma-separated sample budgets")
    parser.add_argument("--repeats", type=int, default=1, help="runs of each command (the median is printed)")
    parser.add_argument("--quick", action="store_true", help="the quickest setting: --samples 50, one unit timed once")
    args = parser.parse_args(argv)
    if args.quick:
        args.samples = "50"
    sizes = [int(s) for s in args.samples.split(",")]
    crossover = None
    for samples in sizes:
        one = statistics.median(whole_command(samples, 1) for _ in range(args.repeats))
        two = statistics.median(whole_command(samples, 2) for _ in range(args.repeats))
        tasks = task_count(samples)
        print(f"--samples {samples:>6} ({tasks:>4} tasks): --workers 1 {one:6.1f} s ({samples / one:5.0f} samples/s), "
              f"--workers 2 {two:6.1f} s: speed-up {one / two:.2f}×")
        if crossover is None and two < one:
            crossover = (samples, tasks)
    print("speed-up target with 2 workers at the largest size: ≥ 1.6×")
    if crossover:
        print(f"two workers first win at --samples {crossover[0]} ({crossover[1]} tasks); the default starts a cluster "
              f"from {MIN_TASKS_FOR_CLUSTER} tasks: ratio {MIN_TASKS_FOR_CLUSTER / crossover[1]:.2f}")
    else:
        print(f"two workers never won up to --samples {sizes[-1]}; the default starts a cluster from "
              f"{MIN_TASKS_FOR_CLUSTER} tasks")
    local, remote = unit_overhead(1 if args.quick else 5)
    print(f"one 50-sample unit: in process {local * 1e3:.0f} ms, as a Dask task {remote * 1e3:.0f} ms "
          f"(overhead {1e3 * (remote - local):.0f} ms per unit)")


if __name__ == "__main__":
    main()
