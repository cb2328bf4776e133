"""The public suite (examples/suite.toml): true and false claims about J, H and κ, each decided as
`python -m verify claims` decides it (prover, then search, in process), one claim at a time.

Prints the verdict matrix — true claims: PROVED / HOLDS / INCONCLUSIVE / REFUTED; false claims:
REFUTED / HOLDS / INCONCLUSIVE / PROVED — the share of true claims PROVED (aim: at least 90 %), every
true claim not proved with the prover's reason, the seconds per claim and per proof (aim: a proof in
at most 1 s), any claim decided against its expectation (a false claim PROVED must never happen), and
the share of PROVED claims whose proof is an algebraic identity (verify.claims.prover.algebraic; aim:
at least 90 %) with the seconds the search for identities took on each (aim: at most 2 s).
Run: python benchmarks/claims.py [--samples 300] [--only ID_PREFIX]
     python benchmarks/claims.py --quick   (the first true claim and the first false one, 20 samples each: checks the benchmark runs)
"""
import argparse
import resource
import statistics
import time
from pathlib import Path

from verify.claims.claimfile import load_claims
from verify.claims.verdicts.decide import run_claims

SUITE = Path(__file__).resolve().parent.parent / "examples" / "suite.toml"
TRUE_COLUMNS = ("PROVED", "HOLDS", "INCONCLUSIVE", "REFUTED")
FALSE_COLUMNS = ("REFUTED", "HOLDS", "INCONCLUSIVE", "PROVED")


def decide_each(claims, samples):
    rows = []
    for claim in claims:
        started = time.perf_counter()
        result = run_claims([claim], samples=samples, workers=1).claims[0]
        proof = result.evidence.proof if hasattr(result.evidence, "proof") else None
        rows.append((claim, result, time.perf_counter() - started, proof))
    return rows


def kind(result):
    """The verdict's kind as its name ("PROVED", ...): a Verdict is compared by its kind, never with a string."""
    return result.verdict.kind.value


def matrix(rows, columns):
    counts = {c: 0 for c in columns}
    for _, result, _, _ in rows:
        counts[kind(result)] = counts.get(kind(result), 0) + 1
    return counts


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--only", default="")
    parser.add_argument("--quick", action="store_true", help="the quickest setting: a true and a false claim, 20 samples")
    args = parser.parse_args(argv)
    claims = [c for c in load_claims(SUITE) if c.id.startswith(args.only)]
    if args.quick:  # the first true claim and the first false one
        claims = [c for c in (next((c for c in claims if c.expect is expect), None) for expect in (True, False)) if c]
        args.samples = 20
    rows = decide_each(claims, args.samples)
    true_rows = [r for r in rows if r[0].expect is True]
    false_rows = [r for r in rows if r[0].expect is False]
    for claim, result, seconds, proof in rows:
        proof_time = f"{proof.seconds:5.2f} s" if proof is not None and proof.status == "proved" else "     —"
        print(f"{claim.id:34} expect {str(claim.expect):5}  {result.verdict.text:12} {seconds:6.2f} s  proof {proof_time}")
    print()
    print("true claims: " + ", ".join(f"{k} {v}" for k, v in matrix(true_rows, TRUE_COLUMNS).items()))
    print("false claims: " + ", ".join(f"{k} {v}" for k, v in matrix(false_rows, FALSE_COLUMNS).items()))
    proved = sum(kind(r[1]) == "PROVED" for r in true_rows)
    print(f"true claims PROVED: {proved}/{len(true_rows)} ({proved / max(len(true_rows), 1):.0%}; aim ≥ 90%)")
    for claim, result, _, proof in true_rows:
        if kind(result) != "PROVED":
            why = (proof.reason if proof is not None else "") or result.verdict.text
            print(f"  not proved: {claim.id}: {result.verdict.text}; prover: {proof.status if proof else '—'}: {why}")
    wrong = [(c.id, r.verdict.text) for c, r, _, _ in rows if (c.expect is True and kind(r) == "REFUTED")
             or (c.expect is False and kind(r) in ("PROVED", "HOLDS"))]
    print(f"decided against expectation: {wrong or 'none'} (a false claim PROVED must never happen)")
    proof_seconds = [p.seconds for _, _, _, p in rows if p is not None and p.status == "proved"]
    seconds = [s for _, _, s, _ in rows]
    if proof_seconds:
        print(f"seconds per proof: median {statistics.median(proof_seconds):.2f}, max {max(proof_seconds):.2f} "
              f"(aim ≤ 1 s; ratio max/1 s = {max(proof_seconds):.2f})")
    print(f"seconds per claim (prover and search): median {statistics.median(seconds):.2f}, max {max(seconds):.2f}")
    memory_report()
    algebraic_report(rows)


def memory_report():
    """Page faults and system time of the whole run: each solver query's fresh context should reuse the memory the
    last one freed (verify.claims.prover.solvers.HEAP_RESERVE), not fault it in again from the kernel."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    print(f"page faults: {used.ru_minflt:,} minor; system time {used.ru_stime:.1f} s of {used.ru_utime + used.ru_stime:.1f} s "
          f"CPU (a few hundred thousand faults at most; millions mean the freed memory went back to the kernel)")


def algebraic_report(rows):
    """Each PROVED claim's kind of proof and the seconds its identities took to find; the share with one."""
    proved = [(claim, proof) for claim, result, _, proof in rows if kind(result) == "PROVED" and proof is not None]
    if not proved:
        return
    print()
    for claim, proof in proved:
        print(f"{claim.id:34} {proof.kind:20} identities searched in {proof.algebra_seconds or 0:5.2f} s")
    algebraic = [proof for _, proof in proved if proof.kind == "algebraic identity"]
    times = [proof.algebra_seconds or 0 for _, proof in proved]
    print(f"PROVED claims with an algebraic certificate: {len(algebraic)}/{len(proved)} "
          f"({len(algebraic) / len(proved):.0%}; aim ≥ 90%)")
    print(f"seconds to find the identities of a claim: median {statistics.median(times):.2f}, max {max(times):.2f} "
          f"(aim ≤ 2 s)")


if __name__ == "__main__":
    main()
