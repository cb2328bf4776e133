"""Claims: each checker against an independent formula on a dense reference, and the
mathematical facts behind the verdicts as properties over generated cases."""
import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from verify.claims.cases import Case
from verify.claims.record import AMBIENT, TANGENT, evaluate
from verify.claims.registry import REGISTRY
from verify.claims.search import simple_cases
from verify.numerics.curvature import curvature_precise
from verify.claims.engine import Decider
from verify.claims.theorem2 import ClaimJob
from tests.test_spectra import dense_reference

# the claim ids SPEC §3 names for Theorem 2 (the spec, not verdicts)
SPEC_T2_IDS = ["T2.eq47.max", "T2.eq47.min", "T2.eq47.kappa", "T2.swapped", "T2.interlace", "T2.multi"]


def test_registry_holds_every_spec_claim():
    assert [i for i in SPEC_T2_IDS if i not in REGISTRY] == []
    for claim in REGISTRY.values():
        assert claim.statement and claim.latex and claim.hypotheses
        assert callable(claim.sides) if claim.command == "theorem2" else callable(claim.checker)


def independent_sides(claim_id, lmax, lmin, L, mu, z):
    """The quoted inequalities written out again from SPEC §3, as (lhs, rhs, relation) triples."""
    zs = sorted(z, reverse=True)
    kappa, R = lmax / lmin, zs[0] / zs[-1]
    return {
        "T2.eq47.max": [(lmax, L * zs[-1] ** 2, ">=")],
        "T2.eq47.min": [(lmin, mu * zs[0] ** 2, "<=")],
        "T2.eq47.kappa": [(kappa, L / mu / R**2, ">=")],
        "T2.swapped": [(lmax, L * zs[0] ** 2, ">="), (lmin, mu * zs[-1] ** 2, "<="), (kappa, L / mu * R**2, ">=")],
        "T2.interlace": [(kappa, mu / L * (zs[1] / zs[-2]) ** 2, ">="), (kappa, L / mu * (zs[0] / zs[-1]) ** 2, "<=")],
    }[claim_id]


@pytest.mark.parametrize("claim_id", [i for i in SPEC_T2_IDS if i != "T2.multi"])
@pytest.mark.parametrize("reading", [TANGENT, AMBIENT])
@pytest.mark.parametrize("seed", range(4))
def test_checker_matches_independent_formula(claim_id, reading, seed):
    rng = np.random.default_rng(seed)
    n = 4
    logits = [float(v) for v in -40 * rng.random(n)]
    A = rng.standard_normal((n, n))
    H = A @ A.T + 0.5 * np.eye(n) + (5 * np.ones((n, n)) if seed % 2 else 0)
    q = curvature_precise([mp.mpf(v) for v in logits], [[mp.mpf(float(v)) for v in r] for r in H], dps=30)
    evaluation = evaluate(REGISTRY[claim_id], reading, q)
    lmax, lmin, L_T, mu_T, dps = dense_reference(logits, H, 30)
    with mp.workdps(dps):
        if reading == TANGENT:
            L, mu = L_T, mu_T
        else:
            h = mp.eigsy(mp.matrix(H.tolist()), eigvals_only=True)
            L, mu = max(h), min(h)
        z = [mp.exp(mp.mpf(v)) for v in logits]
        z = [v / mp.fsum(z) for v in z]
        triples = independent_sides(claim_id, lmax, lmin, L, mu, z)
        margins = [mp.log(l / r) if rel == ">=" else mp.log(r / l) for l, r, rel in triples]
        assert abs(evaluation.margin - min(margins)) < mp.mpf(10) ** -20


def test_two_token_closed_form():
    """n = 2: T is one line, λ_max = λ_min = (2 z₁ z₂)² vᵀHv with v = (1, −1)/√2."""
    with mp.workdps(40):
        logits = [mp.mpf(0), mp.mpf(-3)]
        H = [[mp.mpf(2), mp.mpf(1)], [mp.mpf(1), mp.mpf(5)]]
        q = curvature_precise(logits, H, dps=30)
        z2 = mp.exp(-3) / (1 + mp.exp(-3))
        z1 = 1 - z2
        expected = (2 * z1 * z2) ** 2 * (2 - 2 * 1 + 5) / 2
        assert abs(q.lambda_max / expected - 1) < mp.mpf(10) ** -28
        assert abs(q.lambda_min / expected - 1) < mp.mpf(10) ** -28


# Ostrowski (λ_k(AHA) = θ_k λ_k(H), θ_k ∈ [λ_min(A²), λ_max(A²)]) with A = J on T and the
# interlacing z_(k+1) ≤ λ_k(J) ≤ z_(k) imply these hold for every case; the checkers must agree.
ALWAYS_TRUE = [("T2.eq47.max", TANGENT), ("T2.eq47.min", TANGENT), ("T2.eq47.kappa", TANGENT),
               ("T2.interlace", TANGENT), ("T2.interlace", AMBIENT)]


@pytest.mark.parametrize("claim_id,reading", ALWAYS_TRUE)
@given(case=st.data())
def test_provable_claims_hold_on_every_generated_case(claim_id, reading, case):
    claim = REGISTRY[claim_id]
    drawn = case.draw(simple_cases(min_n=claim.min_n, max_n=6))
    assert Decider(40).decide(ClaimJob(claim, reading), drawn).holds


@pytest.mark.parametrize("claim_id,reading", [("T2.eq47.max", AMBIENT), ("T2.swapped", TANGENT)])
def test_ambient_and_swapped_fail_somewhere(claim_id, reading):
    """n = 2 with H having its large eigenvalue along 1 (killed by J): the ambient L overshoots."""
    H = np.array([[3, 2], [2, 3]])  # eigenvalues 5 (along 1) and 1 (on T)
    case = Case.from_arrays([0, -1], H)
    assert not Decider(40).decide(ClaimJob(REGISTRY[claim_id], reading), case).holds


def test_multi_balls_overlap_with_orthonormal_keys_and_separate_without():
    """T2.multi's decision is not vacuous: with K Kᵀ = I (Cayley keys) the balls overlap and are
    narrow; with the same examples and correlated keys they are disjoint."""
    import flint

    from verify.claims.search import random_multi_case
    from verify.numerics.multi import enclose_multi

    case = random_multi_case(8, 0)
    exact = enclose_multi(case, 300)
    assert exact.overlap and exact.relative_radius < 1e-40
    rng = np.random.default_rng(8)
    correlated = flint.arb_mat(rng.standard_normal((case.rows, case.d)).tolist())
    assert not enclose_multi(case, 300, keys=correlated).overlap


@pytest.mark.parametrize("seed", [0, 11, 23])
def test_multi_holds_on_sampled_seeds(seed, tmp_path):
    """T2.multi is a theorem: the search must say HOLDS (never INCONCLUSIVE), seed 11 included."""
    from verify.claims.theorem2 import run_theorem2

    report = run_theorem2(seed=seed, samples=60, claim_ids=["T2.multi"], out_dir=str(tmp_path), workers=1)
    assert [r.verdict for r in report.claims] == ["HOLDS"]


def test_two_token_proofs_agree_with_the_search():
    """n = 2, tangent-exact: SymPy proves the three Eq. (47) claims and disproves the swapped reading."""
    from verify.claims.proofs import prove_two_token, two_token_spectrum

    q, t, h, _ = two_token_spectrum()
    assert sp_equal(q.lambda_max, 4 * h * t**2 * (1 - t) ** 2)  # (2 z₁ z₂)² vᵀHv, derived from J and H
    for claim_id in ("T2.eq47.max", "T2.eq47.min", "T2.eq47.kappa"):
        assert prove_two_token(REGISTRY[claim_id], TANGENT)[0] is True
    assert prove_two_token(REGISTRY["T2.swapped"], TANGENT)[0] is False
    assert prove_two_token(REGISTRY["T2.eq47.max"], AMBIENT) is None
    assert prove_two_token(REGISTRY["T2.interlace"], TANGENT) is None


def sp_equal(a, b):
    import sympy as sp

    return sp.simplify(a - b) == 0
