"""Work at n = 1000, end to end, against the budget every input within the bounds must keep (docs/cli.md, "Work
that grows with n"): 30 s of CPU (user + system, the command's processes included) and 2 GiB of memory.

Each case runs `python -m verify …` in a fresh process and prints its CPU seconds, its peak memory and the ratio
against the budget; a ratio above 1 is over budget. The cases are the largest inputs of each kind: claims at
n = 1000 (`forall k`, `z(1000)`, `lambda(999)`, the range [1000, inf], a claim cut into many pieces), `spectrum`
and `theorem2 --case` of a dense n = 1000 case, and a search at the largest `--samples`.

Run: python benchmarks/large_n.py [--only NAME ...]   (timings are noisy on a shared machine: CPU, not wall)
     python benchmarks/large_n.py --quick   (spectrum of one dense case of 50 tokens: checks the benchmark runs)
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

BUDGET_CPU, BUDGET_MIB = 30.0, 2048
QUICK_N = 50  # --quick: one small case, not the budget's inputs
ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import resource, subprocess, sys, time
started = time.perf_counter()
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
sys.stdout.write(f"{time.perf_counter() - started} {usage.ru_maxrss / 1024} {usage.ru_utime + usage.ru_stime} "
                 f"{done.returncode}\\n")
sys.stderr.write(done.stderr[-400:])
"""

CLAIMS = {  # name -> (holds, n range)
    "forall k at n = 1000": ("forall k in 1..n-1: z(k+1) <= j(k) <= z(k)", "[1000, 1000]"),
    "z(1000)": ("z(1000) <= z_min * 2", "[1000, 1000]"),
    "lambda(999)": ("lambda(999) >= mu_T * z_min**2", "[1000, 1000]"),
    "n in [1000, inf]": ("lambda_min <= mu_T * z_max**2", "[1000, inf]"),
    "many pieces": ("z(30) <= z(n-30) + 1", "[31, 1000]"),  # 31 pieces: each n below 61 alone, then n ≥ 61
}


def claim_file(folder, name, holds, n_range):
    path = Path(folder) / f"{name.replace(' ', '_').replace('/', '_')}.toml"
    path.write_text(f'[[claim]]\nid = "bench"\nholds = "{holds}"\nn = {n_range}\n')
    return path


def dense_case(folder, n=1000):
    """A seeded dense SPD case (H = AAᵀ/n + I, logits uniform in [−600, 0]) as decimal strings."""
    rng = np.random.default_rng(n)
    A = rng.standard_normal((n, n))
    H = A @ A.T / n + np.eye(n)
    H = (H + H.T) / 2
    logits = -600 * rng.random(n)  # within float64's range (e^-600 ≈ 1e-261): spectrum takes it too
    logits[0] = 0.0
    path = Path(folder) / f"dense{n}.json"
    path.write_text(json.dumps({"logits": [repr(float(v)) for v in logits],
                                "H": [[repr(float(v)) for v in row] for row in H]}))
    return path


def commands(folder, quick=False):
    from verify.base.options import MAX_SAMPLES

    if quick:
        return {f"spectrum (dense, n = {QUICK_N})": ["spectrum", str(dense_case(folder, QUICK_N))]}

    out = {name: ["claims", str(claim_file(folder, name, *claim)), "--out", str(Path(folder) / "out")]
           for name, claim in CLAIMS.items()}
    case = dense_case(folder)
    out["spectrum (dense, n = 1000)"] = ["spectrum", str(case)]
    out["theorem2 --case (dense, n = 1000)"] = ["theorem2", "--case", str(case)]
    out[f"theorem2 --samples {MAX_SAMPLES} (the maximum)"] = ["theorem2", "--samples", str(MAX_SAMPLES), "--out",
                                                              str(Path(folder) / "out2")]
    return out


def measure(arguments, folder):
    command = [sys.executable, "-m", "verify", *arguments]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", CHILD, *command], capture_output=True, text=True, cwd=folder, env=env)
    seconds, mib, cpu, code = done.stdout.split()
    return float(seconds), float(mib), float(cpu), int(code), done.stderr.strip().splitlines()[-1:] or [""]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", help="run only the cases whose name holds one of these words")
    parser.add_argument("--quick", action="store_true", help=f"the quickest setting: spectrum at n = {QUICK_N} only")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    print(f"{'case':<42} {'CPU s':>7} {'wall s':>7} {'MiB':>6}  {'CPU/30 s':>8} {'MiB/2 GiB':>9}  exit")
    worst = 0.0
    with tempfile.TemporaryDirectory() as folder:
        for name, arguments in commands(folder, args.quick).items():
            if args.only and not any(word in name for word in args.only):
                continue
            seconds, mib, cpu, code, last = measure(arguments, folder)
            ratio = max(cpu / BUDGET_CPU, mib / BUDGET_MIB)
            worst = max(worst, ratio)
            note = "" if code in (0, 1) else f"  ({last[0][:80]})"
            print(f"{name:<42} {cpu:7.1f} {seconds:7.1f} {mib:6.0f}  {cpu / BUDGET_CPU:8.2f} {mib / BUDGET_MIB:9.2f}  "
                  f"{code}{note}", flush=True)
    print(f"worst ratio against the budget: {worst:.2f} ({'within' if worst <= 1 else 'OVER'} budget)")


if __name__ == "__main__":
    main()
