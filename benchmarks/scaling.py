"""Searches on Dask (issue: "Searches that outgrow one machine: Dask").

Prints samples per second of `python -m verify theorem2 --samples N` with `--workers 1` (in process)
and `--workers 2` (a local Dask cluster), the ratio against the 1.6× target on this 2-core machine,
and the overhead of one work unit on Dask against the same unit run in process.
Run: python benchmarks/scaling.py [--samples 20000]
"""
import argparse
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


def unit_overhead():
    """One 50-sample unit: in process, then as a Dask task on a warm local cluster (median of 5)."""
    from verify.claims.engine import run_unit, units_for
    from verify.claims.executors import DaskExecutor
    from verify.claims.registry import select
    from verify.claims.theorem2 import ClaimJob

    jobs = [ClaimJob(c, r) for c in select("theorem2") if not c.multi for r in c.readings]
    unit = units_for(0, 50, tuple(range(len(jobs))), 50)[0]
    local = []
    for _ in range(5):
        started = time.perf_counter()
        run_unit(unit, jobs)
        local.append(time.perf_counter() - started)
    executor = DaskExecutor(1)
    executor.run([("warm", run_unit, (unit, jobs))])
    remote = []
    for _ in range(5):
        started = time.perf_counter()
        executor.run([("unit", run_unit, (unit, jobs))])
        remote.append(time.perf_counter() - started)
    executor.close()
    return sorted(local)[2], sorted(remote)[2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=20000)
    args = parser.parse_args()
    one = whole_command(args.samples, 1)
    two = whole_command(args.samples, 2)
    print(f"theorem2 --samples {args.samples}: --workers 1 {one:.1f} s ({args.samples / one:.0f} samples/s), "
          f"--workers 2 {two:.1f} s ({args.samples / two:.0f} samples/s)")
    print(f"speed-up with 2 workers: {one / two:.2f}× (target ≥ 1.6×)")
    local, remote = unit_overhead()
    print(f"one 50-sample unit: in process {local * 1e3:.0f} ms, as a Dask task {remote * 1e3:.0f} ms "
          f"(overhead {1e3 * (remote - local):.0f} ms per unit)")


if __name__ == "__main__":
    main()
