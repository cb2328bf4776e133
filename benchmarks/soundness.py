"""The differential soundness check at scale: random claims over the whole grammar at exact points,
balls against the SMT encoding, the exact route of ties (verify.claims.exact) against both, then claims for every k, and claims with lemmas before them (reading other indices), proved for every n and
re-decided with balls at exact cases (tests/soundness.py says what is checked). Prints how many claims reached each outcome and
every disagreement; the disagreements must be 0.
Run: python benchmarks/soundness.py [--claims 50000] [--forall 300] [--lemmas 300] [--seed 0]
     python benchmarks/soundness.py --quick   (20 claims, 2 for every k, 2 with lemmas: checks the benchmark runs)
"""
import argparse
import collections
import math
import sys
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.soundness import (claims, forall_claims, judge, judge_exact, lemma_claims, prover_disagreements,  # noqa: E402
                              real_cases)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=50_000)
    parser.add_argument("--forall", type=int, default=300, help="claims for every k given to the prover")
    parser.add_argument("--lemmas", type=int, default=300, help="claims given to the prover with lemmas before them")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="the quickest setting: --claims 20 --forall 2")
    args = parser.parse_args(argv)
    if args.quick:
        args.claims, args.forall, args.lemmas = 20, 2, 2
    counts, found = collections.Counter(), []
    cases = real_cases()

    @settings(max_examples=args.claims, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(claims(), st.sampled_from([2, 3, 4]), st.integers(0, 2**32), st.booleans())
    def run(text, n, seed, wide):
        kind, problems = judge(text, n, seed, wide)
        counts[kind] += 1
        found.extend(problems)
        kind, problems = judge_exact(text, n, seed)
        counts[kind] += 1
        found.extend(problems)

    @settings(max_examples=args.forall, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(forall_claims(), st.sampled_from([(2, math.inf), (3, math.inf), (2, 5)]))
    def run_forall(text, n_range):
        status, problems = prover_disagreements(text, n_range, cases)
        counts[f"forall {status}"] += 1
        found.extend(problems)

    @settings(max_examples=args.lemmas, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(lemma_claims())
    def run_lemmas(drawn):
        text, n_range, lemmas = drawn
        status, problems = prover_disagreements(text, n_range, cases, lemmas)
        counts[f"with lemmas {status}"] += 1
        found.extend(problems)

    started = time.perf_counter()
    from hypothesis import seed as fixed_seed

    fixed_seed(args.seed)(run)()
    fixed_seed(args.seed)(run_forall)()
    fixed_seed(args.seed)(run_lemmas)()
    total = sum(counts.values())
    print(f"{total} claims in {time.perf_counter() - started:.0f} s: " +
          ", ".join(f"{kind} {count}" for kind, count in counts.most_common()))
    print(f"disagreements: {len(found)}")
    for problem in found[:20]:
        print("  " + problem[:300])
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
