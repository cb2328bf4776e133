"""How fast a user's property test calls the library (issue 39): in a fresh process, the first
`verify.decide_on_case` (its import excluded and timed apart), then the median and the slowest call over 300
cases drawn by `verify.strategies.cases(min_n=2, max_n=8)` (derandomized: the same cases every run; equal
logits, near-uniform z and coefficients at e^-700 among them; `--hessian` picks the family of H, spd by default),
each call deciding the README's claim. Prints
wall and CPU (user + sys: steadier when the machine is shared) for each, and the ratios against the targets
of 200 ms (first call), 10 ms (median) and 200 ms (slowest).
Run: python benchmarks/fast_calls.py [--examples N] [--claim TEXT] [--hessian spd|diagonal|isotropic]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

TARGETS_MS = {"first": 200.0, "median": 10.0, "max": 200.0}
CLAIM = "lambda_min <= mu_T * z_max**2"

CHILD = """
import json, os, sys, time
examples, claim, hessian = int(sys.argv[1]), sys.argv[2], sys.argv[3]

def clocks():
    return time.perf_counter(), time.process_time()

wall, cpu = clocks()
from verify import decide_on_case
from hypothesis import HealthCheck, given, settings
from verify.strategies import cases
imported = clocks()
calls = []

@settings(max_examples=examples, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(cases(min_n=2, max_n=8, hessian=hessian))
def call(case):
    start = clocks()
    result = decide_on_case(claim, case)
    end = clocks()
    calls.append((end[0] - start[0], end[1] - start[1], result.decided and result.holds, case.n))

call()
print(json.dumps({"import": [imported[0] - wall, imported[1] - cpu], "calls": calls}))
"""


def measure(examples, claim, hessian="spd"):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    environment = dict(os.environ, PYTHONPATH=root)
    done = subprocess.run([sys.executable, "-c", CHILD, str(examples), claim, hessian], capture_output=True, text=True,
                          env=environment, check=True)
    return json.loads(done.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=300)
    parser.add_argument("--claim", default=CLAIM)
    parser.add_argument("--hessian", default="spd", choices=("spd", "diagonal", "isotropic"))
    parser.add_argument("--quick", action="store_true", help="the quickest setting: 20 drawn cases")
    args = parser.parse_args()
    if args.quick:
        args.examples = 20
    data = measure(args.examples, args.claim, args.hessian)
    calls = data["calls"]
    held = sum(1 for c in calls if c[2])
    print(f"claim {args.claim!r}: {len(calls)} drawn cases (n = 2..8), H {args.hessian}, decided and holding at {held}")
    print(f"import: {data['import'][0] * 1e3:.0f} ms wall, {data['import'][1] * 1e3:.0f} ms CPU (not counted)")
    rows = {"first": (calls[0][0], calls[0][1]),
            "median": (statistics.median(c[0] for c in calls), statistics.median(c[1] for c in calls)),
            "max": (max(c[0] for c in calls), max(c[1] for c in calls))}
    for name, (wall, cpu) in rows.items():
        target = TARGETS_MS[name]
        print(f"{name:>6}: {wall * 1e3:8.1f} ms wall ({wall * 1e3 / target:.2f} of {target:.0f} ms), "
              f"{cpu * 1e3:8.1f} ms CPU ({cpu * 1e3 / target:.2f})")


if __name__ == "__main__":
    main()
