"""Claims: the built-in formula claims against an independent formula on a dense reference, the
mathematical facts behind the verdicts as properties over generated cases, T2.multi, and the n = 2 proofs."""
import math
import re

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.test_spectra import dense_reference
from verify.claims.verdicts.mode import evaluate_job
from verify.claims.cases.case import Case
from verify.claims.search.engine import Decider
from verify.claims.jobs import Job
from verify.claims.record import AMBIENT, READINGS, TANGENT, CheckerClaim, FormulaClaim
from verify.claims.builtin.registry import REGISTRY
from verify.claims.search.strategies import cases as simple_cases

# the claim ids docs/spec.md §3 names for Theorem 2 (the spec, not verdicts)
SPEC_T2_IDS = ["T2.eq47.max", "T2.eq47.min", "T2.eq47.kappa", "T2.swapped", "T2.interlace", "T2.multi"]


def test_registry_holds_every_spec_claim_as_data():
    assert [i for i in SPEC_T2_IDS if i not in REGISTRY] == []
    for claim in REGISTRY.values():
        assert claim.statement and claim.latex and claim.hypotheses
        if isinstance(claim, FormulaClaim):
            assert claim.text and claim.tree is not None and claim.readings == READINGS
        else:
            assert isinstance(claim, CheckerClaim) and (claim.multi or callable(claim.checker))


def test_a_reading_is_a_substitution_of_names():
    claim = REGISTRY["T2.interlace"]
    assert claim.reading_text(TANGENT) == "mu_T / L_T * (z(2) / z(n - 1))**2 <= kappa <= L_T / mu_T * (z(1) / z(n))**2"
    assert "L_T" not in claim.reading_text(AMBIENT) and "L" in claim.reading_text(AMBIENT)
    assert claim.n_range == (3, math.inf) and r"\frac{\mu}{L}" in claim.latex


def independent_sides(claim_id, lmax, lmin, L, mu, z):
    """The quoted inequalities written out again from docs/spec.md §3, as (lhs, rhs, relation) triples."""
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
@pytest.mark.parametrize("seed", range(3))
def test_claim_text_matches_the_independent_formula(claim_id, reading, seed):
    rng = np.random.default_rng(seed)
    n = 4
    logits = [float(v) for v in -40 * rng.random(n)]
    A = rng.standard_normal((n, n))
    H = A @ A.T + 0.5 * np.eye(n) + (5 * np.ones((n, n)) if seed % 2 else 0)
    evaluation = evaluate_job(Job(REGISTRY[claim_id], reading), Case.from_arrays(logits, H), 30)
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
    from verify.numerics.curvature import curvature_precise

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
# interlacing z_(k+1) ≤ λ_k(J) ≤ z_(k) imply these hold for every case; the engine must agree.
ALWAYS_TRUE = [("T2.eq47.max", TANGENT), ("T2.eq47.min", TANGENT), ("T2.eq47.kappa", TANGENT),
               ("T2.interlace", TANGENT), ("T2.interlace", AMBIENT)]


@pytest.mark.parametrize("claim_id,reading", ALWAYS_TRUE)
@given(case=st.data())
def test_provable_claims_never_fail_on_generated_cases(claim_id, reading, case):
    claim = REGISTRY[claim_id]
    drawn = case.draw(simple_cases(min_n=claim.min_n, max_n=6))
    assert Decider(40).decide(Job(claim, reading), drawn).status != "fails"


@pytest.mark.parametrize("claim_id,reading", [("T2.eq47.max", AMBIENT), ("T2.swapped", TANGENT)])
def test_ambient_and_swapped_fail_somewhere(claim_id, reading):
    """n = 2 with H having its large eigenvalue along 1 (killed by J): the ambient L overshoots."""
    H = np.array([[3, 2], [2, 3]])  # eigenvalues 5 (along 1) and 1 (on T)
    case = Case.from_arrays([0, -1], H)
    assert Decider(40).decide(Job(REGISTRY[claim_id], reading), case).status == "fails"


def test_multi_balls_overlap_with_orthonormal_keys_and_separate_without():
    """T2.multi's decision is not vacuous: with K Kᵀ = I (Cayley keys) the balls overlap and are
    narrow; with the same examples and correlated keys they are disjoint."""
    import flint

    from verify.claims.cases.multi_balls import enclose_multi
    from verify.claims.search.sampling import random_multi_case

    case = random_multi_case(8, 0)
    exact = enclose_multi(case, 300)
    assert exact.overlap and exact.relative_radius < 1e-40
    rng = np.random.default_rng(8)
    correlated = flint.arb_mat(rng.standard_normal((case.rows, case.d)).tolist())
    assert not enclose_multi(case, 300, keys=correlated).overlap


@pytest.mark.parametrize("seed", [0, 11, 23])
def test_multi_holds_on_sampled_seeds(seed):
    """T2.multi is a theorem: the search must say HOLDS (never INCONCLUSIVE), seed 11 included."""
    from verify.claims.verdicts.theorem2 import run_theorem2

    report = run_theorem2(seed=seed, samples=60, claim_ids=["T2.multi"], workers=1)
    assert [r.verdict.text for r in report.claims] == ["HOLDS"]


def test_two_token_proofs_agree_with_the_search():
    """n = 2, tangent-exact: SymPy proves the three Eq. (47) claims and disproves the swapped reading."""
    import sympy as sp

    from verify.claims.builtin.two_tokens import H, T, prove_two_token, two_token_values

    values = two_token_values()
    assert sp.simplify(values["lambda1"] - 4 * H * T**2 * (1 - T) ** 2) == 0  # (2 z₁ z₂)² vᵀHv, from J and H
    for claim_id in ("T2.eq47.max", "T2.eq47.min", "T2.eq47.kappa"):
        assert prove_two_token(Job(REGISTRY[claim_id], TANGENT))[0] is True
    assert prove_two_token(Job(REGISTRY["T2.swapped"], TANGENT))[0] is False
    assert prove_two_token(Job(REGISTRY["T2.eq47.max"], AMBIENT)) is None
    assert prove_two_token(Job(REGISTRY["T2.interlace"], TANGENT)) is None


@pytest.mark.parametrize("stage", ["float", 30, 60, "balls"])
@pytest.mark.parametrize("claim_id,reading", [("T2.eq47.max", AMBIENT), ("T2.eq47.min", TANGENT)])
def test_a_reported_margin_shows_only_digits_its_enclosure_vouches_for(stage, claim_id, reading):
    """--json's worst margin: every digit printed is right to one unit of the last, against a 300-digit reference."""
    from verify.claims.search.decision import Decision, margin_text

    case = Case.from_arrays([0, "-1.25", "0.5"], np.array([[3, 2, 0], [2, 3, 1], [0, 1, 4]]))
    job = Job(REGISTRY[claim_id], reading)
    decision = Decision(Decider(30).at(job, case, stage), stage)
    text = margin_text(decision.margin, decision.vouched_digits)
    with mp.workdps(300):
        reference = Decider(300).at(job, case, 300).margin
        shown = len(re.sub(r"[-+.]|e.*$", "", text).lstrip("0"))
        unit = mp.mpf(10) ** (mp.floor(mp.log10(abs(reference))) - shown + 1)
        assert abs(mp.mpf(text) - reference) <= unit, (text, reference)
    assert shown >= 5  # a float64 estimate still says something
