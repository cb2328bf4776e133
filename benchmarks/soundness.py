"""The differential soundness check at scale: random claims over the whole grammar at exact points,
balls against the SMT encoding (tests/soundness.py says what is checked). Prints how many claims
reached each outcome and every disagreement; the disagreements must be 0.
Run: python benchmarks/soundness.py [--claims 50000] [--seed 0]
"""
import argparse
import collections
import sys
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.soundness import claims, judge  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    counts, found = collections.Counter(), []

    @settings(max_examples=args.claims, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(claims(), st.sampled_from([2, 3, 4]), st.integers(0, 2**32))
    def run(text, n, seed):
        kind, problems = judge(text, n, seed)
        counts[kind] += 1
        found.extend(problems)

    started = time.perf_counter()
    from hypothesis import seed as fixed_seed

    fixed_seed(args.seed)(run)()
    total = sum(counts.values())
    print(f"{total} claims in {time.perf_counter() - started:.0f} s: " +
          ", ".join(f"{kind} {count}" for kind, count in counts.most_common()))
    print(f"disagreements: {len(found)}")
    for problem in found[:20]:
        print("  " + problem[:300])
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
