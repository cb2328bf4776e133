"""Case mode at scale, end to end: `python -m verify theorem2 --case FILE --json` on one dense case of n tokens
(a random SPD H = AAᵀ/n + I from a seeded generator, logits uniform in [−700, 0]), written as a JSON case file
of decimal strings, so the time and memory include reading, exact parsing, the rigorous validation of H
(symmetry, positive definiteness) and the enclosures. Each n runs in a fresh process; its peak memory is its
own. Prints wall time, peak memory and the correct digits every ball guarantees, and for n = 1000 the ratios
against the budget of 10 s and 1 GB.
Run: python benchmarks/casemode.py [--dps N]   (default: the command's default precision)
     python benchmarks/casemode.py --quick     (one case of 20 tokens: checks the benchmark runs, no budget ratio)
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

BUDGET_SECONDS, BUDGET_MB = 10.0, 1024
SIZES = (100, 300, 1000)
QUICK_SIZES = (20,)

CHILD = """
import resource, subprocess, sys, time
started = time.perf_counter()
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
seconds = time.perf_counter() - started
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
sys.stdout.write(f"{seconds} {usage.ru_maxrss / 1024} {usage.ru_utime + usage.ru_stime} {done.returncode}\\n" + done.stdout)
sys.stderr.write(done.stderr)
"""


def write_case(n, path):
    """The seeded case of n tokens as a case file of decimal strings (each float written as its shortest repr)."""
    rng = np.random.default_rng(n)
    A = rng.standard_normal((n, n))
    H = A @ A.T / n + np.eye(n)
    H = (H + H.T) / 2
    logits = -700 * rng.random(n)
    logits[0] = 0.0
    path.write_text(json.dumps({"logits": [repr(float(v)) for v in logits],
                                "H": [[repr(float(v)) for v in row] for row in H]}))


def digits(enclosures):
    """The least number of correct significant digits over the balls (rad/|mid| of each)."""
    worst = math.inf
    for ball in enclosures.values():
        mid, rad = abs(float(ball["mid"])), float(ball["rad"])
        worst = min(worst, math.inf if rad == 0 else -math.log10(rad / mid) if mid > 0 else 0.0)
    return worst


def measure(n, folder, dps):
    path = Path(folder) / f"case{n}.json"
    write_case(n, path)
    command = [sys.executable, "-m", "verify", "theorem2", "--case", str(path), "--json"] + (["--dps", str(dps)] if dps else [])
    out = subprocess.run([sys.executable, "-c", CHILD, *command], capture_output=True, text=True, check=True)
    first, _, body = out.stdout.partition("\n")
    seconds, mb, cpu, code = first.split()
    if code != "0":
        raise SystemExit(f"n = {n}: the command exited {code}: {out.stderr.strip()[-300:]}")
    report = json.loads(body)
    return float(seconds), float(mb), float(cpu), digits(report["enclosures"]), report["dps"], report["enclosure_method"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dps", type=int, help="the command's --dps (default: its own)")
    parser.add_argument("--quick", action="store_true", help=f"the quickest setting: n = {QUICK_SIZES[0]} only")
    args = parser.parse_args(argv)
    dps = args.dps
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (wall time is shared; CPU time is ours)")
    with tempfile.TemporaryDirectory() as folder:
        for n in QUICK_SIZES if args.quick else SIZES:
            seconds, mb, cpu, guaranteed, used, method = measure(n, folder, dps)
            print(f"case mode, n = {n:4}: {seconds:6.2f} s wall, {cpu:6.2f} s CPU, peak {mb:6.0f} MB, every ball "
                  f"≥ {guaranteed:.0f} correct digits as printed (30-digit JSON; dps {used}; {method.split(';')[0]})")
    if n != 1000:
        return
    print(f"n = 1000 against the budget: {seconds / BUDGET_SECONDS:.2f} of {BUDGET_SECONDS:.0f} s wall "
          f"({cpu / BUDGET_SECONDS:.2f} in CPU time), {mb / BUDGET_MB:.2f} of {BUDGET_MB / 1024:.0f} GB "
          "(whole process, validation included)")


if __name__ == "__main__":
    main()
