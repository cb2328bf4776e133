"""A held-out measurement: claims written apart from the code (benchmarks/heldout/*.toml, each with `expect`),
decided as `python -m verify claims` decides them, one claim at a time (after the file's lemmas, when it has any).

Prints, for the true claims, how many are PROVED, and for the false ones how many are REFUTED (with a certified
counterexample or a disproof) and at which n; every claim decided short of that, with its verdict and the
prover's reason; and any wrong verdict (a false claim PROVED, a true claim REFUTED, any CONTRADICTION), which
must never happen: the exit status is 1 then.
Run: python benchmarks/heldout.py [FILE.toml] [--samples 100]
"""
import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from verify.claims.claimfile import load_claims  # noqa: E402
from verify.claims.results import VerdictKind  # noqa: E402
from verify.claims.verdicts.decide import run_claims  # noqa: E402

DEFAULT = Path(__file__).resolve().parent / "heldout" / "issue40.toml"
AIM = {True: VerdictKind.PROVED, False: VerdictKind.REFUTED}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", default=str(DEFAULT))
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--quick", action="store_true",
                        help="the quickest setting: the file's first two claims (after its lemmas) at --samples 20")
    args = parser.parse_args()
    claims = load_claims(args.file)
    if args.quick:
        claims, args.samples = [c for c in claims if c.lemma] + [c for c in claims if not c.lemma][:2], 20
    tally = {True: [0, 0], False: [0, 0]}  # expected truth -> [reached the aim, claims]
    short, wrong = [], []
    started = time.perf_counter()
    lemmas = [c for c in claims if c.lemma]  # decided before each claim, as the claims command decides a file
    for claim in claims:
        if claim.expect is None:
            continue
        result = run_claims(lemmas + [claim], samples=args.samples, workers=1).claims[-1]
        tally[claim.expect][1] += 1
        verdict = result.verdict
        if verdict.kind is AIM[claim.expect] and not verdict.assumptions:
            tally[claim.expect][0] += 1
            if not claim.expect:
                example = getattr(result.evidence, "counterexample", None)
                short.append(f"  {claim.id}: REFUTED" + (f" at n = {example.n}" if example else " (disproof)"))
            continue
        if verdict.kind is VerdictKind.PROVED and not claim.expect or verdict.kind is VerdictKind.REFUTED and claim.expect \
                or verdict.kind is VerdictKind.CONTRADICTION:  # proved and refuted: one of the two is wrong
            wrong.append(f"  {claim.id} ({'true' if claim.expect else 'false'}): {verdict}")
        proof = getattr(result.evidence, "proof", None)
        reason = f"; prover: {proof.status}: {(proof.reason or '')[:120]}" if proof else ""
        short.append(f"  {claim.id} ({'true' if claim.expect else 'false'}): {verdict}{reason}")
    proved, trues = tally[True]
    refuted, falses = tally[False]
    print(f"{args.file}: {trues} true, {falses} false claims in {time.perf_counter() - started:.0f} s (wall; load varies)")
    print(f"true claims PROVED: {proved}/{trues}; false claims REFUTED: {refuted}/{falses}")
    print("\n".join(short))
    print(f"wrong verdicts: {len(wrong)}")
    print("\n".join(wrong))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
