"""Wall time of `python -m verify theorem2` (target: under 10 s on 2 cores, aim 5 s).

Prints the ratio against the 10 s budget of the Theorem 2 issue; runs the CLI as a user does.
"""
import subprocess
import sys
import tempfile
import time

BUDGET_SECONDS = 10.0
AIM_SECONDS = 5.0


def main(repeats=3):
    times = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as out:
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "verify", "theorem2", "--out", out], check=True,
                           stdout=subprocess.DEVNULL)
            times.append(time.perf_counter() - started)
    best = min(times)
    print(f"theorem2 wall time: best {best:.2f} s of {repeats} ({', '.join(f'{t:.2f}' for t in times)})")
    print(f"ratio to the 10 s budget: {best / BUDGET_SECONDS:.2f}   ratio to the 5 s aim: {best / AIM_SECONDS:.2f}")


if __name__ == "__main__":
    main()
