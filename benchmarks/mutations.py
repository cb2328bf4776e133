"""Mutation check of the test suite: puts back, one at a time, a bug this project once had (or one of its
kind), runs tests against it, and prints whether they fail (they must, for every mutation). The source file
is restored after each run, whatever happens.

The SMT mutations are the encodings that once proved false claims (a static undefined not made false, x**0
as a reciprocal, an unguarded root definition, an integer power that needs its base >= 0); the others are an
exact tie reading mu and L from the wrong matrix (a true claim was REFUTED), a ball comparison decided from
the midpoints (a verdict inside the rounding error), softmax without its max shift (overflow), a
certificate whose claim hash is not compared, a looser rule for recorded numbers (ten times the slack; half
a unit for a recorded zero), T2.multi's recorded margin not compared, the prover's quick look for a
disproof taken as the verdict, and its look for a model (after the default search's first look) taken as the
answer when it proves the query, or skipped, and the full search for a disproof skipped even where the quick
look found no model; and six of 2026-12-07's: a tied pair's root divided out once whatever its multiplicity, a
quotient of roots joined as their product, a monomial's gcd taken though it divides neither power, the exact
point's eigenvalues in the wrong order and its mu read as mu_T, and a case's balls kept without their precision;
and a query on the generic piece built without checking that a claim file's lemma keeps its indices in order
(z(3) before z(n - 1) from n = 3 PROVED false claims, found by an attack).

Run: python benchmarks/mutations.py            (the whole default suite, stopping at its first failure)
     python benchmarks/mutations.py --soundness (the differential soundness tests only, SMT mutations)
     python benchmarks/mutations.py --quick     (runs no test: checks every mutation's code is still found once)
"""
import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SMT = "verify/claims/prover/smt.py"
FORMAT = "verify/claims/certificates/format.py"
MUTATIONS = {  # name: (file, code, the mutated code)
    "static undefined not made false": (SMT, '        self.defined.append("false")\n        return self.fresh_name("undefined")',
                                        '        return self.fresh_name("undefined")'),
    "x**0 as a reciprocal": (SMT, '            if k == 0:\n                return "1.0"',
                             '            if k == 0:\n                return self.divide("1.0", base, f"(not (= {base} 0.0))")'),
    "unguarded root definition": (SMT, '        self.definitions.append((y, body if guard is True else f"(=> {guard} {body})"))',
                                  '        self.definitions.append((y, body))'),
    "integer power needs base >= 0": (SMT, '            product = base if abs(k) == 1',
                                      '            self.defined.append(f"(>= {base} 0.0)")\n            product = base if abs(k) == 1'),
    "exact ties read mu and L from J H J": ("verify/numerics/exact_spectrum.py",
                                            'return self.H_eigenvalues[0] if name == "L" else self.H_eigenvalues[-1]',
                                            'return self.lam_desc[0] if name == "L" else self.lam_desc[-1]'),
    "balls decide from midpoints": ("verify/claims/language/balls.py", "    return Outcome(m, m.lower(), m.upper(), op",
                                    "    return Outcome(m, m.mid(), m.mid(), op"),
    "softmax without its max shift": ("verify/numerics/softmax.py", "        shifted = s - top\n", "        shifted = s\n"),
    "certificate hash not compared": ("verify/claims/certificates/stored_claim.py",
                                      '    if data.get("sha256") != claim.digest(reading):', "    if False:"),
    "recorded numbers get ten times the slack": (FORMAT, 'half_ulp(recorded) * flint.arb("1.000001")',
                                                 "half_ulp(recorded) * 10"),
    "a recorded zero gets half a unit of slack": (FORMAT, '    if not mantissa.replace(".", "").strip("0"):\n'
                                                          "        return flint.arb(0)\n", ""),
    "T2.multi's recorded margin not compared": ("verify/claims/certificates/several.py",
                                                "for name, ball in _sides(enclosure).items())",
                                                'for name, ball in _sides(enclosure).items() if name != "margin")'),
    "the quick look for a disproof decides alone": ("verify/claims/prover/prove.py",
                                                    '    if against is None or against.status != "proved":',
                                                    "    if against is None:"),
    "the model look's unsat taken as the answer": ("verify/claims/prover/prove.py",
                                                   '    return model if model.result == "sat" else',
                                                   '    return model if model.result != "unknown" else'),
    "a first look the clock stopped taken as the answer": ("verify/claims/prover/prove.py",
                                                           "    if not first.clock:\n        return first",
                                                           "    if True:\n        return first"),
    "the full disproof skipped without a model from the first look": ("verify/claims/prover/prove.py",
                                                                      'if outcome.status == "proved" or settled:',
                                                                      'if outcome.status == "proved" or True:'),
    "a tied pair's root divided out once, whatever its multiplicity": (
        "verify/numerics/exact_spectrum.py", "            poly, m = quotient, m + 1\n",
        "            poly, m = quotient, m + 1\n            break\n"),
    "a quotient of roots joined as their product": ("verify/numerics/algebraic.py", 'sign = 1 if op == "*" else -1',
                                                    "sign = 1"),
    "the exact point's eigenvalues smallest first": ("verify/claims/exact.py",
                                                     "lam = [v.ball(bits) for v in at.lam_desc]",
                                                     "lam = [v.ball(bits) for v in reversed(at.lam_desc)]"),
    "a monomial's gcd taken though it divides neither power": ("verify/numerics/algebraic.py",
                                                                "g = g if k % g == 0 and m % g == 0 else 1", "g = g"),
    "the exact point reading mu as mu_T": ("verify/claims/exact.py", "at.name(name).ball(bits)",
                                           'at.name({"mu": "mu_T"}.get(name, name)).ball(bits)'),
    "a case's balls kept without their precision": ("verify/claims/language/values.py",
                                                    "_ball_spectrum(case, frozenset(needs), flint.ctx.prec)",
                                                    "_ball_spectrum(case, frozenset(needs), 128)"),
    "precise λ(k) without their enclosure's radii": ("verify/claims/language/values.py",
                                                     "10.0 ** -(q.dps + 15), q.lam_err)", "10.0 ** -(q.dps + 15))"),
    "top eigenvalue not confirmed by LDLᵀ": ("verify/numerics/arb.py", "or not _above_all(M, theta, rel_err):", ":"),
    "dense top eigenvalue without M's radii": ("verify/numerics/arb.py", "float(width / abs(top) + rounding)",
                                               "float(rounding)"),
    "float estimates used at any relative error": ("verify/claims/language/values.py",
                                                   "UNUSABLE_REL_ERR = 0.125", "UNUSABLE_REL_ERR = float('inf')"),
    "no re-split of a cluster's small members": ("verify/numerics/eigenballs.py", "MAX_BANDS = 16", "MAX_BANDS = 0"),
    "the generic piece's order of a lemma's indices unchecked": (SMT, "    check_order(encoder.items, piece, encoder.k_range, schemas)\n",
                                                                 ""),
}
SOUNDNESS = ("tests/test_soundness.py", "-k", "agree_at_exact_points or proved_for_every_n or proved_from_lemmas")


def command(soundness):
    base = [sys.executable, "-m", "pytest", "-q", "-x", "-rfE", "-p", "no:cacheprovider"]
    return base + ["-n", "0", *SOUNDNESS] if soundness else base


def original_text(path, old):
    """The source file's text, which must hold the code to mutate exactly once."""
    original = (ROOT / path).read_text()
    if original.count(old) != 1:
        raise SystemExit(f"the code to mutate is not found once in {path}; update this script")
    return original


def run_mutation(path, old, new, soundness):
    """(caught, seconds, the first failing test) with the mutation in place."""
    source = ROOT / path
    original = original_text(path, old)
    source.write_text(original.replace(old, new))
    started = time.perf_counter()
    try:
        run = subprocess.run(command(soundness), cwd=ROOT, capture_output=True, text=True)
    finally:
        source.write_text(original)
    failed = [line.split(" ")[1] for line in run.stdout.splitlines() if line.startswith(("FAILED ", "ERROR "))]
    # caught only when a test failed (-x under xdist exits 2): a failing status with no failed test is pytest not running
    return run.returncode != 0 and bool(failed), time.perf_counter() - started, (failed[0] if failed else "")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--soundness", action="store_true", help="only the SMT mutations, against the differential tests")
    parser.add_argument("--quick", action="store_true",
                        help="the quickest setting: no test run, only each mutation's code found once in its file")
    args = parser.parse_args(argv)
    chosen = {k: v for k, v in MUTATIONS.items() if not args.soundness or v[0] == SMT}
    if args.quick:  # the source files are never changed: safe beside other test processes
        for path, old, _ in chosen.values():
            original_text(path, old)
        print(f"all {len(chosen)} mutations apply (each one's code found once); no test was run")
        return 0
    caught = 0
    for name, (path, old, new) in chosen.items():
        failed, seconds, first = run_mutation(path, old, new, args.soundness)
        caught += failed
        print(f"{name}: {'caught by ' + first if failed else 'NOT CAUGHT'} ({seconds:.0f} s)", flush=True)
    print(f"caught {caught} of {len(chosen)}")
    return 0 if caught == len(chosen) else 1


if __name__ == "__main__":
    sys.exit(main())
