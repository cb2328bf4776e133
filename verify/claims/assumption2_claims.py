"""The Assumption 2 claims of SPEC §3 (A2.dim, A2.seq, A2.decouple, T2.up) as data, with their checkers.

A checker takes (rng, settings) and returns (verdict, evidence); the mathematics it checks
lives in verify.numerics.assumption2.
"""
from dataclasses import dataclass

import numpy as np

from verify.claims.record import Claim
from verify.claims.results import RecordEvidence
from verify.numerics.assumption2 import (ROUNDING, SYMBOLIC_SIZES, cross_block_size, decoupling, least_violation_bound,
                                         per_sequence_keys, symbolic_rank_proof, under_parameterized, violation)
from verify.numerics.model import orthonormal_keys


@dataclass(frozen=True)
class Settings:
    """The Assumption 2 sweep: n, N, the key dimensions d, and random samples per check."""

    n: int = 3
    N: int = 4
    ds: tuple = tuple(range(3, 25))
    samples: int = 40


@dataclass(frozen=True)
class DimEvidence(RecordEvidence):
    """A2.dim: sizes where det(K Kᵀ) ≡ 0 symbolically, the general rank argument, how far the orthonormal
    construction is from K Kᵀ = I (d ≥ nN) and from the bounds (d < nN), random keys beating the bounds."""

    symbolic_det_identically_zero: list
    general_argument: str
    construction_violation_when_d_ge_nN: str
    construction_gap_to_bounds_when_d_lt_nN: str
    random_keys_beating_the_bounds: int
    sizes_proved: str


@dataclass(frozen=True)
class SeqEvidence(RecordEvidence):
    """A2.seq: the d checked, the worst ‖K_i K_iᵀ − I‖₂, and the relative size of the cross blocks J_i K_i K_jᵀ J_j."""

    d_checked: list
    worst_per_sequence_violation: str
    smallest_relative_cross_block: str
    largest_relative_cross_block: str
    note: str


@dataclass(frozen=True)
class DecoupleEvidence(RecordEvidence):
    """A2.decouple: worst errors of the decoupled formulas where d ≥ nN, least errors where d < nN, the sweep over d."""

    d_ge_nN_worst_preconditioner_error: str
    d_ge_nN_worst_kappa_error: str
    d_lt_nN_smallest_preconditioner_error: str
    d_lt_nN_largest_kappa_error: str
    sweep: list


@dataclass(frozen=True)
class UpEvidence(RecordEvidence):
    """T2.up: cases checked, the worst Cauchy-interlacing margin, κ against the bounds interlacing implies."""

    cases: int
    worst_interlacing_margin: str
    kappa_vs_bounds: list
    note: str


def check_dim(rng, settings):
    """A2.dim: the rank argument, symbolically for small sizes and numerically over the sweep."""
    proved = symbolic_rank_proof()
    rows = settings.n * settings.N
    worst_above, worst_gap = 0.0, 0.0
    for d in settings.ds:
        spectral, frobenius = violation(orthonormal_keys(rng, rows, d))
        bound = least_violation_bound(rows, d)
        if d >= rows:
            worst_above = max(worst_above, spectral)
        else:
            worst_gap = max(worst_gap, abs(spectral - bound[0]), abs(frobenius - bound[1]) / bound[1])
    beaten = _search_better_keys(rng, settings)
    evidence = DimEvidence(
        proved,
        "rank(K Kᵀ) ≤ rank(K) ≤ d < nN, so K Kᵀ has ≥ nN − d zero eigenvalues and "
        "K Kᵀ − I has ≥ nN − d eigenvalues −1: ‖·‖₂ ≥ 1, ‖·‖_F ≥ √(nN − d)",
        f"{worst_above:.1e}",
        f"{worst_gap:.1e}",
        beaten,
        f"symbolic for (nN, d) ∈ {', '.join(proved)}; numeric for n = {settings.n}, N = {settings.N}, d ∈ {list(settings.ds)}",
    )
    ok = len(proved) == len(SYMBOLIC_SIZES) and worst_above < ROUNDING and worst_gap < ROUNDING and beaten == 0
    return ("PROVED" if ok else "INCONCLUSIVE"), evidence


def _search_better_keys(rng, settings):
    """Hypothesis-free random search: scaled Gaussian K never beat the rank-argument bounds."""
    rows = settings.n * settings.N
    beaten = 0
    for d in [d for d in settings.ds if d < rows]:
        for _ in range(settings.samples):
            K = rng.standard_normal((rows, d))
            U, sv, Vt = np.linalg.svd(K, full_matrices=False)
            K = U * np.clip(sv * rng.uniform(0.5, 1.5) / sv.max(), 0, None) @ Vt
            spectral, frobenius = violation(K)
            bound = least_violation_bound(rows, d)
            beaten += spectral < bound[0] - ROUNDING or frobenius < bound[1] - ROUNDING
    return int(beaten)


def check_seq(rng, settings):
    """A2.seq: per-sequence orthonormal keys satisfy K_i K_iᵀ = I yet leave cross blocks."""
    n, N = settings.n, settings.N
    rows = []
    for d in [d for d in settings.ds if d >= n]:
        K = per_sequence_keys(n, N, d, rng)
        per_block = max(violation(K[i * n:(i + 1) * n])[0] for i in range(N))
        zs = [np.exp(-2 * rng.random(n)) for _ in range(N)]
        zs = [z / z.sum() for z in zs]
        rows.append((d, per_block, cross_block_size(zs, K, n)))
    satisfied = all(r[1] < ROUNDING for r in rows)
    coupled = all(r[2] > 1e6 * ROUNDING for r in rows)
    evidence = SeqEvidence(
        [r[0] for r in rows],
        f"{max(r[1] for r in rows):.1e}",
        f"{min(r[2] for r in rows):.3g}",
        f"{max(r[2] for r in rows):.3g}",
        "K_i drawn independently: nothing in the per-sequence reading makes K_i K_jᵀ vanish",
    )
    return ("HOLDS" if satisfied and coupled else "INCONCLUSIVE"), evidence


def check_decouple(rng, settings):
    """A2.decouple: the decoupled formulas are exact for d ≥ nN and off below it."""
    n, N = settings.n, settings.N
    sweep = [decoupling(n, N, d, rng) for d in settings.ds]
    inside = [r for r in sweep if r.d >= n * N]
    outside = [r for r in sweep if r.d < n * N]
    holds_inside = all(r.preconditioner_rel_error < ROUNDING and r.kappa_rel_error < 1e3 * ROUNDING for r in inside)
    fails_outside = all(r.preconditioner_rel_error > 1e6 * ROUNDING for r in outside)
    evidence = DecoupleEvidence(
        f"{max((r.preconditioner_rel_error for r in inside), default=0):.1e}",
        f"{max((r.kappa_rel_error for r in inside), default=0):.1e}",
        f"{min((r.preconditioner_rel_error for r in outside), default=0):.3g}",
        f"{max((r.kappa_rel_error for r in outside), default=0):.3g}",
        [decoupling_json(r, n * N) for r in sweep],
    )
    return ("HOLDS" if holds_inside and fails_outside and inside and outside else "INCONCLUSIVE"), evidence


def check_up(rng, settings):
    """T2.up: Cauchy interlacing of KᵀMK against M for d < nN, and the κ bounds it implies."""
    n, N = settings.n, settings.N
    ds = [d for d in settings.ds if d < n * N]
    results = [under_parameterized(n, N, d, rng) for d in ds for _ in range(max(settings.samples // 10, 2))]
    evidence = UpEvidence(
        len(results),
        f"{min(r.worst_interlacing_margin for r in results):.3e}",
        [{"d": r.d, "kappa": f"{r.kappa:.4g}", "lower": f"{r.kappa_lower:.4g}", "upper": f"{r.kappa_upper:.4g}"}
         for r in results[:: max(len(results) // len(ds), 1)]],
        "an upper bound of inf: λ_{r+nN−d}(M) = 0, so interlacing bounds κ from one side only",
    )
    return ("HOLDS" if all(r.interlacing_holds for r in results) else "REFUTED"), evidence


def decoupling_json(r, rows):
    """One point of the decoupling sweep as JSON (shortest decimals of float64 measurements)."""
    return {
        "d": r.d,
        "d_over_nN": round(r.d / rows, 4),
        "preconditioner_rel_error": f"{r.preconditioner_rel_error:.3e}",
        "kappa_rel_error": f"{r.kappa_rel_error:.3e}",
        "rate_rel_error": f"{r.rate_rel_error:.3e}",
        "rate_measurement_resolution": f"{r.rate_resolution:.1e}",
        "kappa_true": f"{r.kappa_true:.6g}",
        "kappa_decoupled": f"{r.kappa_decoupled:.6g}",
    }


ASSUMPTION2_CLAIMS = (
    Claim(
        "A2.dim",
        "K Kᵀ = I_{nN} is satisfiable iff d ≥ nN; for d < nN the least ‖K Kᵀ − I‖₂ is 1 and the least "
        "‖K Kᵀ − I‖_F is √(nN − d).",
        r"\exists K\in\mathbb{R}^{nN\times d}: KK^\top = I_{nN} \iff d \ge nN;\quad d<nN \Rightarrow "
        r"\min_K\|KK^\top - I\|_2 = 1,\ \min_K\|KK^\top - I\|_F = \sqrt{nN-d}",
        ("K ∈ R^{nN×d} real", "rank(K Kᵀ) ≤ d"),
        (None,),
        checker=check_dim,
        command="assumption2",
    ),
    Claim(
        "A2.seq",
        "The per-sequence reading K_i K_iᵀ = I_n needs only d ≥ n, and leaves the cross blocks "
        "J_i K_i K_jᵀ J_j ≠ 0: examples do not decouple.",
        r"K_iK_i^\top = I_n\ \forall i \text{ needs } d \ge n,\ \text{yet } J_iK_iK_j^\top J_j \ne 0 \ (i\ne j)",
        ("d ≥ n", "K_i drawn independently with orthonormal rows"),
        (None,),
        checker=check_seq,
        command="assumption2",
    ),
    Claim(
        "A2.decouple",
        "The decoupled preconditioner blockdiag(J_i²) and spectrum of KᵀMK = spectrum of M hold under "
        "K Kᵀ = I (d ≥ nN) and fail otherwise.",
        r"JKK^\top J = \operatorname{blockdiag}(J_i^2) \text{ and } \operatorname{spec}(K^\top MK) = "
        r"\operatorname{spec}(M) \iff KK^\top = I",
        ("square loss, student–teacher, zero residual at p*", "K as close to K Kᵀ = I as d allows"),
        (None,),
        checker=check_decouple,
        command="assumption2",
    ),
    Claim(
        "T2.up",
        "Under-parameterized (d < nN, KᵀK = I_d): Cauchy interlacing λ_j(M) ≥ λ_j(KᵀMK) ≥ λ_{j+nN−d}(M), "
        "with the bounds it implies on κ.",
        r"\lambda_j(M) \ge \lambda_j(K^\top M K) \ge \lambda_{j+nN-d}(M),\quad K^\top K = I_d,\ d < nN",
        ("d < nN", "KᵀK = I_d", "M = blockdiag(J_i H_i J_i), H_i SPD"),
        (None,),
        checker=check_up,
        command="assumption2",
    ),
)
