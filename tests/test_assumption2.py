"""Assumption 2: the readings, the least violations, decoupling, T2.up, and the command."""
import json
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import run_cli
from tests.test_cli import assert_one_line_error
from verify.claims.builtin import assumption2 as a2_checkers
from verify.claims.verdicts import assumption2 as a2_claims
from verify.claims.builtin.registry import REGISTRY
from verify.base.errors import InputError
from verify.numerics import assumption2 as a2
from verify.numerics.model import orthonormal_keys

A2_IDS = ["A2.dim", "A2.seq", "A2.decouple", "T2.up"]


@pytest.mark.parametrize("d, satisfiable", [(10, False), (12, True)])
def test_acceptance_dimensions(d, satisfiable):
    out = run_cli("assumption2", "--n", "3", "--N", "4", "--d", str(d), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    readings = {r["name"]: r for r in data["readings"]}
    assert readings["all-sequences"]["satisfiable"] is satisfiable
    assert readings["per-sequence"]["satisfiable"] is True
    spectral = float(readings["all-sequences"]["least_violation_spectral"])
    frobenius = float(readings["all-sequences"]["least_violation_frobenius"])
    errors = {k: float(v) for k, v in data["decoupling"].items()}
    if satisfiable:
        assert spectral < 1e-12 and frobenius < 1e-12
        assert errors["preconditioner_rel_error"] < 1e-13 and errors["kappa_rel_error"] < 1e-12
    else:
        assert abs(spectral - 1) < 1e-12 and abs(frobenius - math.sqrt(2)) < 1e-12
        assert errors["preconditioner_rel_error"] > 1e-3 and errors["kappa_rel_error"] > 1e-6


@given(st.integers(2, 9), st.integers(1, 8), st.floats(0.01, 10), st.integers(0, 10**6))
def test_no_keys_beat_the_rank_bounds(rows, d, scale, seed):
    """Whatever K (any shape of spectrum, any scale), ‖KKᵀ − I‖ stays above the rank-argument bounds."""
    rng = np.random.default_rng(seed)
    K = rng.standard_normal((rows, d)) * scale
    spectral, frobenius = a2.violation(K)
    bound = a2.least_violation_bound(rows, d)
    assert spectral >= bound[0] - 1e-12 and frobenius >= bound[1] - 1e-12


@given(st.integers(2, 12), st.integers(1, 14), st.integers(0, 10**6))
def test_construction_reaches_the_bounds(rows, d, seed):
    spectral, frobenius = a2.violation(orthonormal_keys(np.random.default_rng(seed), rows, d))
    bound = a2.least_violation_bound(rows, d)
    assert abs(spectral - bound[0]) < 1e-12 and abs(frobenius - bound[1]) < 1e-12


def test_symbolic_rank_proof_covers_its_sizes():
    assert a2.symbolic_rank_proof() == [f"{r}×{d}" for r, d in a2.SYMBOLIC_SIZES]


def test_symbolic_proof_would_catch_a_full_rank_size():
    """d = nN is not singular: the proof must not 'prove' it (the check is not vacuous)."""
    assert a2.symbolic_rank_proof(((2, 2),)) == []


@given(st.integers(2, 3), st.integers(2, 3), st.integers(0, 10**6), st.data())
def test_cauchy_interlacing_under_parameterized(n, N, seed, data):
    d = data.draw(st.integers(1, n * N - 1))
    result = a2.under_parameterized(n, N, d, np.random.default_rng(seed))
    assert result.interlacing_holds
    assert result.kappa_lower <= result.kappa * (1 + 1e-9) and result.kappa <= result.kappa_upper * (1 + 1e-9)


def test_interlacing_is_equality_at_d_equal_nN_and_refused_above():
    """KᵀK = I_d with d = nN makes K orthogonal: KᵀMK has M's spectrum, the margin is 0 and κ sits on its bounds.
    Above nN no K has orthonormal columns: the maths refuses it (the claim T2.up chooses d < nN itself)."""
    result = a2.under_parameterized(2, 3, 6, np.random.default_rng(1))
    assert result.interlacing_holds and abs(result.worst_interlacing_margin) < 1e-12
    with pytest.raises(InputError) as refused:
        a2.under_parameterized(2, 3, 7, np.random.default_rng(1))
    assert refused.value.parameter == "d"


def test_per_sequence_leaves_cross_blocks():
    rng = np.random.default_rng(0)
    n, N, d = 3, 3, 5
    K = a2.per_sequence_keys(n, N, d, rng)
    for i in range(N):
        assert a2.violation(K[i * n:(i + 1) * n])[0] < 1e-12
    zs = [np.array([0.5, 0.3, 0.2])] * N
    assert a2.cross_block_size(zs, K, n) > 1e-3
    assert a2.cross_block_size(zs, orthonormal_keys(rng, n * N, n * N), n) < 1e-12  # all-sequences: no cross blocks


@pytest.mark.parametrize("d", [6, 9, 12, 15])
def test_decoupling_exact_iff_assumption_2(d):
    result = a2.decoupling(3, 4, d, np.random.default_rng(d))
    if d >= 12:
        assert result.preconditioner_rel_error < 1e-13 and result.kappa_rel_error < 1e-12
        assert result.rate_rel_error <= 10 * result.rate_resolution + 1e-6
    else:
        assert result.preconditioner_rel_error > 1e-3


def test_registry_has_every_a2_claim_with_a_checker():
    small = a2_claims.Settings(n=2, N=2, ds=(2, 3, 4, 5), samples=6)
    for claim_id in A2_IDS:
        claim = REGISTRY[claim_id]
        assert claim.checker is not None and claim.command == "assumption2"
        outcome, evidence = claim.checker(np.random.default_rng(0), small)
        assert outcome in {"proved", "holds"}, (claim_id, evidence)


def test_default_sweep_json_and_plot(tmp_path):
    plot = tmp_path / "errors.png"
    out = run_cli("assumption2", "--json", "--plot", str(plot), "--samples", "8")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["command"] == "assumption2" and data["versions"]["numpy"]
    assert {c["id"] for c in data["claims"]} == set(A2_IDS)
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("args", [
    ["--n", "3"],
    ["--n", "0", "--N", "1", "--d", "1"],
    ["--n", "3", "--N", "-4", "--d", "10"],
    ["--n", "3", "--N", "4", "--d", "2.5"],
    ["--n", "3", "--N", "4", "--d", "10000000"],
    ["--n", "5000", "--N", "5000", "--d", "3"],
    ["--n", "3", "--N", "5000", "--d", "10"],
    ["--n", "3", "--N", "300", "--d", "1000"],
    ["--n", "3", "--N", "1", "--d", "5"],
    ["--N", "5000"],
    ["--seed", "-1"],
    ["--samples", "10000000"],
    ["--plot", "x.png", "--claim", "A2.dim"],
    ["--plot", "x.png", "--n", "3", "--N", "4", "--d", "10"],
    ["--plot", "p.txt"],  # once a PNG written under a .txt name (an attack)
    ["--claim", "T2.eq47.max"],
    ["--claim", "A9.none"],
])
def test_bad_input(args, tmp_path):
    assert_one_line_error(run_cli("assumption2", *args))


@pytest.mark.parametrize("n, N, d, parameter", [
    (3, 5000, 10, "N"), (5000, 3, 10, "n"), (2, 2, a2.MAX_D + 1, "d"), (20, 50, a2.MAX_D, "d"), (1, 4, 4, "n"),
    (3, 1, 5, "N"),
])
def test_sizes_beyond_the_bounds_name_their_parameter(n, N, d, parameter):
    with pytest.raises(InputError) as refused:
        a2_claims.check_dimensions(n, N, d)
    assert refused.value.parameter == parameter
    assert f"{parameter} = {locals()[parameter]}" in str(refused.value) or f"{n}·{N}" in str(refused.value)


def test_the_largest_sizes_allowed_are_accepted():
    for n, N, d in ((2, 50, a2.MAX_D), (2, a2.MAX_ROWS // 2, a2.MAX_ROWS_TIMES_D // a2.MAX_ROWS), (2, 2, 1)):
        a2.check_sizes(n, N, d)


@pytest.mark.parametrize("settings, parameter", [
    (a2_claims.Settings(ds=(12, 13)), "ds"),  # no d < nN: T2.up and A2.decouple have nothing to compare
    (a2_claims.Settings(ds=(3, 4)), "ds"),  # no d ≥ nN
    (a2_claims.Settings(ds=()), "ds"),
    (a2_claims.Settings(samples=a2_checkers.MAX_SAMPLES + 1), "samples"),
    (a2_claims.Settings(samples=0), "samples"),
    (a2_claims.Settings(N=5000), "N"),
])
def test_a_sweep_the_claims_cannot_use_is_refused(settings, parameter):
    with pytest.raises(InputError) as refused:
        a2_claims.run_assumption2(0, settings, workers=1)
    assert refused.value.parameter == parameter


def test_library_refuses_a_negative_seed_and_unknown_claims():
    for call, parameter in ((lambda: a2_claims.run_assumption2(-1, workers=1), "seed"),
                            (lambda: a2_claims.check_dimensions(3, 4, 10, seed=-1), "seed"),
                            (lambda: a2_claims.run_assumption2(0, claim_ids=["T2.eq47.max"], workers=1), "claim")):
        with pytest.raises(InputError) as refused:
            call()
        assert refused.value.parameter == parameter


def test_plot_into_missing_folder_writes_nothing(tmp_path):
    target = tmp_path / "missing" / "plot.png"
    assert_one_line_error(run_cli("assumption2", "--plot", str(target)))
    assert not target.parent.exists()


def test_a_users_dimensions_get_verdicts_and_readable_evidence():
    """`assumption2 --n 4 --N 8 --d 16`: every claim's verdict on d, nN − 1, nN; evidence in words, not field names
    or Python reprs."""
    data = json.loads(run_cli("assumption2", "--n", "4", "--N", "8", "--d", "16", "--json").stdout)
    verdicts = {c["id"]: c["verdict"] for c in data["verdicts"]["claims"]}
    assert set(verdicts) == {"A2.dim", "A2.seq", "A2.decouple", "T2.up"}
    assert verdicts["A2.dim"] == "PROVED" and set(verdicts.values()) <= {"PROVED", "HOLDS"}
    assert data["verdicts"]["claims"][1]["evidence"]["d_checked"] == [16, 31, 32]
    out = run_cli("assumption2", "--n", "4", "--N", "8", "--d", "16")
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.split())
    for verdict in verdicts.values():
        assert verdict in text
    assert " ge " not in text and " lt " not in text and "['" not in text and "{'" not in text
    assert "d ≥ nN: worst kappa error" in text and "read, not machine-checked" in text


def test_a_failure_the_checkers_measure_is_inconclusive_never_refuted(monkeypatch):
    """No certificate kind stands behind T2.up's interlacing check (float64, re-checked at 50 digits when tight): a failure it sees is reported, with the
    d where it was seen, and settles nothing (REFUTED needs a certificate `check` confirms, for every claim)."""
    real = a2_checkers.under_parameterized

    def failing(n, N, d, rng, *args, **kwargs):
        import dataclasses

        return dataclasses.replace(real(n, N, d, rng, *args, **kwargs), interlacing_holds=False)

    monkeypatch.setattr(a2_checkers, "under_parameterized", failing)
    report = a2_claims.run_assumption2(seed=1, claim_ids=["T2.up"], workers=1)
    (result,) = report.claims
    assert result.verdict.text == "INCONCLUSIVE" and report.refuted == []
    assert "interlacing failed at d ∈" in result.evidence.note and result.certificate is None


def test_the_verdict_of_an_outcome_is_refuted_only_with_a_confirmed_certificate():
    from verify.claims.results import VerdictKind
    from verify.claims.verdicts.decide import OUTCOMES, verdict_of

    for outcome in OUTCOMES:
        for certified in (False, True):
            assert (verdict_of(outcome, certified).kind is VerdictKind.REFUTED) == (outcome == "fails" and certified)
    assert {verdict_of(o).kind for o in OUTCOMES} == set(VerdictKind) - {VerdictKind.REFUTED}
    with pytest.raises(ValueError, match="outcome 'refuted'"):
        verdict_of("refuted")
