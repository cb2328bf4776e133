"""Case mode at scale (issue: "No float64 inside the precise path"): the enclosures of λ_max, λ_min, κ,
L_T, μ_T, L, μ for one dense case of n tokens (random SPD H from a seeded generator, logits spread
down to −700), at 30 digits, each n in a fresh process so its peak memory is its own. Prints wall
time, peak memory and the correct digits the balls guarantee, against the n = 1000 target of 10 s
and 1 GB, and the dense Arb path (`curvature_precise`) at n = 100 for the ratio.
Run: python benchmarks/casemode.py
"""
import json
import subprocess
import sys

TARGET_SECONDS, TARGET_MB = 10.0, 1024

CHILD = """
import json, math, resource, sys, time
import numpy as np
from verify.claims.cases import Case
from verify.claims.casemode import evaluate_case
from verify.numerics.curvature import curvature_precise
n, path = int(sys.argv[1]), sys.argv[2]
rng = np.random.default_rng(n)
A = rng.standard_normal((n, n))
H = A @ A.T / n + np.eye(n)
logits = -700 * rng.random(n)
logits[0] = 0.0
case = Case.from_arrays(logits, (H + H.T) / 2)
started = time.perf_counter()
if path == "dense":
    curvature_precise(case.logits, case.H, 30)
    digits = 30
else:
    report = evaluate_case(case, 30)
    b = report.balls
    digits = min(-math.log10(float(getattr(b, k).rad() / abs(getattr(b, k).mid())))
                 for k in ("lambda_max", "lambda_min", "kappa", "L_T", "mu_T", "L_amb", "mu_amb"))
seconds = time.perf_counter() - started
print(json.dumps({"seconds": seconds, "mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "digits": digits}))
"""


def measure(n, path="enclosure"):
    out = subprocess.run([sys.executable, "-c", CHILD, str(n), path], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    for n in (100, 300, 1000):
        row = measure(n)
        print(f"case mode, n = {n:4}: {row['seconds']:6.2f} s, peak {row['mb']:6.0f} MB, "
              f"{row['digits']:.0f} correct digits guaranteed")
    print(f"n = 1000 against the target: {row['seconds'] / TARGET_SECONDS:.2f} of 10 s, {row['mb'] / TARGET_MB:.2f} of 1 GB")
    dense = measure(100, "dense")
    print(f"dense Arb path at n = 100: {dense['seconds']:.2f} s, peak {dense['mb']:.0f} MB "
          f"(case mode at n = 100 is {dense['seconds'] / measure(100)['seconds']:.0f}× faster)")


if __name__ == "__main__":
    main()
