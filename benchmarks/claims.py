"""User claims (issue: "Your own claims: python -m verify claims FILE.toml").

Decides a planted set of false claims (each false only somewhere: near uniform z, on ties, for
n ≥ 7, where κ exceeds 1e400, …) and a set of true ones under the default budget (300 random
cases, Hypothesis search, 50 digits), one claim at a time in process, and prints the fraction of
false claims REFUTED (with a certificate that `check` confirmed), any true claim refuted (there
must be none), and the seconds per claim against the 10 s aim.
Run: python benchmarks/claims.py [--samples 300]
"""
import argparse
import tempfile
import time

from verify.claims.user.claimfile import parse_claims_text
from verify.claims.user.run import run_claims

PLANTED = """
[[claim]]
id = "false.near_uniform"
holds = "j_max >= 1.001 * j_min"
n = [3, 10]
[[claim]]
id = "false.ties"
holds = "j_max >= z(2) * (1 + 1e-9)"
[[claim]]
id = "false.large_n"
holds = "z_max >= 1/6"
[[claim]]
id = "false.huge_kappa"
holds = "kappa <= 1e400"
[[claim]]
id = "false.swapped_max"
holds = "lambda_max >= L_T * z_max**2"
[[claim]]
id = "false.kappa_linear_in_R"
holds = "kappa <= (L_T/mu_T) * R"
[[claim]]
id = "false.lambda_min_doubled"
holds = "lambda_min >= 2 * mu_T * z_min**2"
[[claim]]
id = "false.mu_T_gap"
holds = "mu_T >= 1.5 * mu"
[[claim]]
id = "false.L_T_gap"
holds = "L_T <= 0.9 * L"
[[claim]]
id = "false.bounded_R"
holds = "R <= 1e100"
[[claim]]
id = "false.j_min_above"
holds = "j_min >= 1.5 * z_min"
[[claim]]
id = "false.kappa_above_R2"
holds = "kappa >= R**2"
hessian = "isotropic"
[[claim]]
id = "false.lambda_max_small"
holds = "lambda_max <= L_T / 8"
[[claim]]
id = "false.never"
holds = "not (kappa >= 1)"
[[claim]]
id = "false.diagonal_kappa"
holds = "kappa <= 1e6"
hessian = "diagonal"
"""

TRUE = """
[[claim]]
id = "true.eq47.max"
holds = "lambda_max >= L_T * z_min**2"
[[claim]]
id = "true.eq47.min"
holds = "lambda_min <= mu_T * z_max**2"
[[claim]]
id = "true.interlace"
holds = "(mu_T/L_T) * (z(2)/z(n-1))**2 <= kappa <= (L_T/mu_T) * (z(1)/z(n))**2"
n = [3, 10]
[[claim]]
id = "true.J_interlace"
holds = "z_min <= j_min <= z(n-1) and z(2) <= j_max <= z_max"
[[claim]]
id = "true.kappa_by_J"
holds = "kappa <= (L_T/mu_T) * (j_max/j_min)**2"
"""


def decide_each(text, samples):
    rows = []
    with tempfile.TemporaryDirectory() as out:
        for claim in parse_claims_text(text, "benchmark claims"):
            started = time.perf_counter()
            result = run_claims([claim], samples=samples, out_dir=out, workers=1).claims[0]
            rows.append((claim.id, result.verdict, time.perf_counter() - started,
                         (result.evidence.certificate_check or "") if result.verdict != "HOLDS" else ""))
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=300)
    args = parser.parse_args()
    false_rows = decide_each(PLANTED, args.samples)
    true_rows = decide_each(TRUE, args.samples)
    for claim_id, verdict, seconds, check in false_rows + true_rows:
        print(f"{claim_id:28} {verdict:12} {seconds:6.2f} s  {check[:60]}")
    refuted = sum(v == "REFUTED" and c.startswith("CONFIRMED") for _, v, _, c in false_rows)
    wrongly = sum(v == "REFUTED" for _, v, _, _ in true_rows)
    seconds = [s for _, _, s, _ in false_rows + true_rows]
    print(f"planted false claims refuted with a confirmed certificate: {refuted}/{len(false_rows)} "
          f"({refuted / len(false_rows):.0%}; aim: all)")
    print(f"true claims refuted: {wrongly}/{len(true_rows)} (must be 0)")
    print(f"seconds per claim: median {sorted(seconds)[len(seconds) // 2]:.2f}, max {max(seconds):.2f} (aim ≤ 10 s)")


if __name__ == "__main__":
    main()
