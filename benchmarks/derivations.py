"""Time of the symbolic verification of D1 and D2 for n = 2..8 (target: under 60 s on 2 cores).

Prints each check's time and the ratio of the total to the 60 s budget of the derivations issue.
"""
import time

from verify.derivations import softmax as symbolic

BUDGET_SECONDS = 60.0


def main():
    total = 0.0
    for name, check in (("D1 general n", symbolic.check_d1_general), ("D1 n = 2..8", symbolic.check_d1_explicit),
                        ("D2 general n", symbolic.check_d2_general), ("D2 n = 2..8", symbolic.check_d2_explicit)):
        started = time.perf_counter()
        passed, detail = check()
        elapsed = time.perf_counter() - started
        total += elapsed
        print(f"{name:14} {elapsed:6.2f} s  {'passed' if passed else 'FAILED'}  {detail}")
    print(f"total {total:.1f} s; ratio to the 60 s budget: {total / BUDGET_SECONDS:.2f}")


if __name__ == "__main__":
    main()
