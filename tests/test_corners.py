"""Claims false only in the corners of their domain are refuted on every seed; claims false everywhere, at one n,
at ties, or undefined are never HOLDS (the search and the prover together, through the library)."""
import pytest

from verify.claims.claimfile import parse_claims_text
from verify.claims.verdicts.decide import run_claims

CORNERS = {
    "kappa <= 1e600": "κ reaches 4.6e607 at logits [0, 0, -700], H = I",
    "lambda_min >= 1e-500 * mu_T": "a constant below float64's range; λ_min/μ_T reaches e^-1400",
    "R <= 1 or R >= 1 + 1e-8": "false only for 1 < R < 1 + 1e-8 (near-uniform z)",
}
NEVER_HOLDS = ["kappa > kappa", "z(1) < z(1)", "kappa > 1", "j_min < z(n-1)", "sqrt(-1) <= kappa", "log(0) <= kappa",
               "1/(n-n) <= kappa", "9**9**9**9 <= kappa"]


def _claims(texts):
    body = "".join(f'[[claim]]\nid = "c{i}"\nholds = "{text}"\n' for i, text in enumerate(texts))
    return parse_claims_text(body)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_claims_false_only_in_a_corner_are_refuted_on_every_seed(seed):
    report = run_claims(_claims(CORNERS), seed=seed, samples=150, workers=1)
    assert [r.verdict.text for r in report.claims] == ["REFUTED"] * len(CORNERS), \
        [(text, r.verdict.text) for text, r in zip(CORNERS, report.claims)]


def test_claims_false_everywhere_at_one_n_at_ties_or_undefined_are_never_holds():
    report = run_claims(_claims(NEVER_HOLDS), seed=0, samples=60, workers=1)
    verdicts = dict(zip(NEVER_HOLDS, (r.verdict.text for r in report.claims)))
    assert all(v in ("REFUTED", "INCONCLUSIVE") for v in verdicts.values()), verdicts
    assert verdicts["kappa > 1"] == "REFUTED" and verdicts["kappa > kappa"] == "REFUTED"


@pytest.mark.parametrize("seed", [7, 8])
def test_a_claim_false_only_beyond_the_small_n_is_refuted(seed):
    """z_max ≥ 1/11 fails for every n ≥ 12 only: the random pool reaches past lo + 8."""
    claims = parse_claims_text('[[claim]]\nid = "far"\nholds = "z_max >= 1/11"\nn = [2, inf]\n')
    (result,) = run_claims(claims, seed=seed, samples=100, workers=1).claims
    assert result.verdict.text == "REFUTED" and result.evidence.counterexample.n >= 12


def test_the_pool_reaches_both_ends_of_a_wide_range_and_keeps_narrow_ones_uniform():
    import numpy as np

    from verify.claims.search.sampling import pool_n

    draws = [pool_n(np.random.default_rng([0, i]), i, (2, 64)) for i in range(200)]
    assert draws[:2] == [2, 64] and min(draws) == 2 and sum(n > 20 for n in draws) >= 20
    assert {pool_n(np.random.default_rng([0, i]), i, (3, 5)) for i in range(50)} == {3, 4, 5}


TIES_AND_BOUNDS = {
    "lambda_min > mu_T * j_min**2": "fails exactly at uniform z with any H (J = I/n on T)",
    "kappa < (L_T/mu_T)*(j_max/j_min)**2": "fails exactly at uniform z: κ = cond(H_T) there",
    "kappa <= 1e300 or R >= 1e140": "κ reaches 6.7e599 at uniform z, H = diag(1e300, 1e-300, 1e-300)",
}


@pytest.mark.slow
@pytest.mark.parametrize("seed", [7, 8])
def test_claims_false_only_at_exact_ties_or_at_the_bounds_are_refuted_on_every_seed(seed):
    body = "".join(f'[[claim]]\nid = "c{i}"\nholds = "{text}"\nn = [3, inf]\n' for i, text in enumerate(TIES_AND_BOUNDS))
    report = run_claims(parse_claims_text(body), seed=seed, samples=60, workers=1)
    assert [r.verdict.text for r in report.claims] == ["REFUTED"] * len(TIES_AND_BOUNDS), \
        [(text, r.verdict.text) for text, r in zip(TIES_AND_BOUNDS, report.claims)]
