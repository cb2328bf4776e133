"""Assumption 2 in the claims layer: the claims A2.dim, A2.seq, A2.decouple and T2.up as records with
their checkers (verify.claims.verdicts.assumption2 runs them: the default sweep, one user's dimensions).

A checker takes (rng, settings) and returns (outcome, evidence) — "proved", "holds", "fails" or "undecided" —
and `verdict_of` (verify.claims.verdicts.decide) gives the verdict, as for every claim (no certificate kind stands behind these measurements,
so a failure they see is INCONCLUSIVE, never REFUTED); the mathematics it checks lives in
verify.numerics.assumption2. Which d each claim is about is decided here: T2.up and the least
violations of A2.dim are about d < nN, the decoupled formulas of A2.decouple compare d ≥ nN with d < nN,
and A2.seq needs d ≥ n.
"""
from dataclasses import dataclass

import numpy as np

from verify.claims.record import Claim
from verify.claims.results import RecordEvidence
from verify.base.errors import InputError
from verify.numerics.assumption2 import (ROUNDING, SYMBOLIC_SIZES, check_sizes, cross_block_size, decoupling,
                                         least_violation_bound, per_sequence_keys, symbolic_rank_proof,
                                         under_parameterized, violation)
from verify.numerics.model import orthonormal_keys
from verify.base.printable import shown

MAX_SAMPLES = 10_000  # random cases per check: T2.up decides samples/10 cases at each d < nN


@dataclass(frozen=True)
class Settings:
    """The Assumption 2 sweep: n, N, the key dimensions d, and random samples per check. The d must lie on
    both sides of nN (A2.decouple compares them; T2.up is about d < nN) and reach n (A2.seq)."""

    n: int = 3
    N: int = 4
    ds: tuple = tuple(range(3, 25))
    samples: int = 40

    def check(self):
        """InputError unless the sweep is one the claims can be checked on, within the size and cost bounds."""
        if isinstance(self.samples, bool) or not isinstance(self.samples, int) or not 1 <= self.samples <= MAX_SAMPLES:
            raise InputError(f"samples = {shown(self.samples, 200)} must be a whole number from 1 to {MAX_SAMPLES}", "samples")
        ds = tuple(self.ds) if isinstance(self.ds, (tuple, list, range)) else ()
        if not ds:
            raise InputError(f"ds = {shown(self.ds, 200)} must be a non-empty sequence of key dimensions", "ds")
        for d in ds:
            check_sizes(self.n, self.N, d)
        rows = self.n * self.N
        if min(ds) >= rows or max(ds) < rows or max(ds) < self.n:
            raise InputError(f"ds = {list(ds)} must hold some d < nN = {rows} and some d ≥ nN (and d ≥ n = {self.n}): "
                             "the claims compare the two sides", "ds")

    @property
    def below(self):
        """The d of the sweep with d < nN (where Assumption 2 cannot hold)."""
        return [d for d in self.ds if d < self.n * self.N]


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
        f"the rank argument for every n, N, d (read, not machine-checked); SymPy's det(K Kᵀ) ≡ 0 for (nN, d) ∈ "
        f"{', '.join(proved)}; numerics for n = {settings.n}, N = {settings.N}, d ∈ {{{_listed(settings.ds)}}}",
    )
    ok = len(proved) == len(SYMBOLIC_SIZES) and worst_above < ROUNDING and worst_gap < ROUNDING and beaten == 0
    return ("proved" if ok else "undecided"), evidence


def _listed(values):
    """Whole numbers as a reader writes them: runs of three or more as 'a–b' ('3–24', '16, 31, 32')."""
    values, parts, start = sorted(values), [], 0
    for end in range(len(values)):
        if end + 1 == len(values) or values[end + 1] != values[end] + 1:
            run = values[start:end + 1]
            parts += [f"{run[0]}–{run[-1]}"] if len(run) >= 3 else [str(v) for v in run]
            start = end + 1
    return ", ".join(parts)


def _search_better_keys(rng, settings):
    """Hypothesis-free random search: scaled Gaussian K never beat the rank-argument bounds."""
    rows = settings.n * settings.N
    beaten = 0
    for d in settings.below:
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
    return ("holds" if satisfied and coupled else "undecided"), evidence


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
    return ("holds" if holds_inside and fails_outside and inside and outside else "undecided"), evidence


def check_up(rng, settings):
    """T2.up: Cauchy interlacing of KᵀMK against M for d < nN, and the κ bounds it implies."""
    n, N = settings.n, settings.N
    ds = settings.below  # T2.up is about d < nN
    results = [under_parameterized(n, N, d, rng) for d in ds for _ in range(max(settings.samples // 10, 2))]
    failed = sorted({r.d for r in results if not r.interlacing_holds})
    note = "an upper bound of inf: λ_{r+nN−d}(M) = 0, so interlacing bounds κ from one side only"
    if failed:
        note = (f"interlacing failed at d ∈ {{{_listed(failed)}}} (a margin inside float64's error re-checked at 50 "
                "digits): a measurement, not a certified counterexample; " + note)
    evidence = UpEvidence(
        len(results),
        f"{min(r.worst_interlacing_margin for r in results):.3e}",
        [{"d": r.d, "kappa": f"{r.kappa:.4g}", "lower": f"{r.kappa_lower:.4g}", "upper": f"{r.kappa_upper:.4g}"}
         for r in results[:: max(len(results) // len(ds), 1)]],
        note,
    )
    return ("fails" if failed else "holds"), evidence


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


def _a2_claim(claim_id, statement, latex, hypotheses, checker):
    """An Assumption 2 claim's record: one reading, decided by its checker in the assumption2 command."""
    return Claim(claim_id, statement, latex, hypotheses, (None,), checker=checker, command="assumption2")


ASSUMPTION2_CLAIMS = (
    _a2_claim(
        "A2.dim",
        "K Kᵀ = I_{nN} is satisfiable iff d ≥ nN; for d < nN the least ‖K Kᵀ − I‖₂ is 1 and the least "
        "‖K Kᵀ − I‖_F is √(nN − d).",
        r"\exists K\in\mathbb{R}^{nN\times d}: KK^\top = I_{nN} \iff d \ge nN;\quad d<nN \Rightarrow "
        r"\min_K\|KK^\top - I\|_2 = 1,\ \min_K\|KK^\top - I\|_F = \sqrt{nN-d}",
        ("K ∈ R^{nN×d} real", "rank(K Kᵀ) ≤ d"),
        check_dim,
    ),
    _a2_claim(
        "A2.seq",
        "The per-sequence reading K_i K_iᵀ = I_n needs only d ≥ n, and leaves the cross blocks "
        "J_i K_i K_jᵀ J_j ≠ 0: examples do not decouple.",
        r"K_iK_i^\top = I_n\ \forall i \text{ needs } d \ge n,\ \text{yet } J_iK_iK_j^\top J_j \ne 0 \ (i\ne j)",
        ("d ≥ n", "K_i drawn independently with orthonormal rows"),
        check_seq,
    ),
    _a2_claim(
        "A2.decouple",
        "The decoupled preconditioner blockdiag(J_i²) and spectrum of KᵀMK = spectrum of M hold under "
        "K Kᵀ = I (d ≥ nN) and fail otherwise.",
        r"JKK^\top J = \operatorname{blockdiag}(J_i^2) \text{ and } \operatorname{spec}(K^\top MK) = "
        r"\operatorname{spec}(M) \iff KK^\top = I",
        ("square loss, student–teacher, zero residual at p*", "K as close to K Kᵀ = I as d allows"),
        check_decouple,
    ),
    _a2_claim(
        "T2.up",
        "Under-parameterized (d < nN, KᵀK = I_d): Cauchy interlacing λ_j(M) ≥ λ_j(KᵀMK) ≥ λ_{j+nN−d}(M), "
        "with the bounds it implies on κ.",
        r"\lambda_j(M) \ge \lambda_j(K^\top M K) \ge \lambda_{j+nN-d}(M),\quad K^\top K = I_d,\ d < nN",
        ("d < nN", "KᵀK = I_d", "M = blockdiag(J_i H_i J_i), H_i SPD"),
        check_up,
    ),
)


# ---------------------------------------------------------------- the assumption2 command
