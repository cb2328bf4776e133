"""Mutation check of the differential soundness tests: puts back, one at a time, each SMT encoding that once
proved false claims (a static undefined not made false, x**0 as a reciprocal, an unguarded root definition,
an integer power that needs its base >= 0), runs the two differential tests of tests/test_soundness.py, and
prints whether they fail (they must, for every mutation). The source file is restored after each run.
Run: python benchmarks/soundness_mutations.py
"""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SMT = ROOT / "verify" / "claims" / "prover" / "smt.py"
MUTATIONS = {
    "static undefined not made false": ('        self.defined.append("false")\n        return self.fresh_name("undefined")',
                                        '        return self.fresh_name("undefined")'),
    "x**0 as a reciprocal": ('            if k == 0:\n                return "1.0"',
                             '            if k == 0:\n                return self.divide("1.0", base, f"(not (= {base} 0.0))")'),
    "unguarded root definition": ('        self.definitions.append((y, body if guard is True else f"(=> {guard} {body})"))',
                                  '        self.definitions.append((y, body))'),
    "integer power needs base >= 0": ('            product = base if abs(k) == 1',
                                      '            self.defined.append(f"(>= {base} 0.0)")\n            product = base if abs(k) == 1'),
}
TESTS = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", "-x", "tests/test_soundness.py",
         "-k", "agree_at_exact_points or proved_for_every_n"]


def main():
    original = SMT.read_text()
    caught = 0
    for name, (old, new) in MUTATIONS.items():
        if original.count(old) != 1:
            print(f"{name}: the code to mutate is not found once in {SMT.name}; update this script")
            return 2
        SMT.write_text(original.replace(old, new))
        try:
            failed = subprocess.run(TESTS, cwd=ROOT, capture_output=True, text=True).returncode != 0
        finally:
            SMT.write_text(original)
        caught += failed
        print(f"{name}: {'caught (the differential tests fail)' if failed else 'NOT CAUGHT'}", flush=True)
    print(f"caught {caught} of {len(MUTATIONS)}")
    return 0 if caught == len(MUTATIONS) else 1


if __name__ == "__main__":
    sys.exit(main())
