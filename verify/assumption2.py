"""Assumption 2 (SPEC §3: A2.dim, A2.seq, A2.decouple, T2.up): what it requires, what breaks without it.

Readings:
- all-sequences: K Kᵀ = I_{nN} (every key vector of every sequence orthonormal); needs d ≥ nN.
- per-sequence:  K_i K_iᵀ = I_n for each i; needs only d ≥ n, but leaves cross blocks.
For d below what a reading needs, K Kᵀ has at most d nonzero eigenvalues, so at least
nN − d of the eigenvalues of K Kᵀ − I equal −1: ‖K Kᵀ − I‖₂ ≥ 1 and ‖K Kᵀ − I‖_F ≥ √(nN − d),
both reached by any K with orthonormal columns (K Kᵀ a projector).
"""
import math
from dataclasses import dataclass

import numpy as np
from scipy.linalg import block_diag

from verify import dynamics, phessian
from verify.errors import InputError
from verify.softmax import jacobian

MEMORY_LIMIT_BYTES = 8 * 2**30  # the work must fit comfortably in this machine's 24 GiB


# ---------------------------------------------------------------- constructions


def best_keys(rows, d, rng):
    """K ∈ R^{rows×d} as close to K Kᵀ = I as d allows: orthonormal rows if d ≥ rows, else columns."""
    Q, _ = np.linalg.qr(rng.standard_normal((max(rows, d), min(rows, d))))
    return Q.T if d >= rows else Q


def violation(K):
    """(‖K Kᵀ − I‖₂, ‖K Kᵀ − I‖_F)."""
    E = K @ K.T - np.eye(K.shape[0])
    return float(np.linalg.norm(E, 2)), float(np.linalg.norm(E, "fro"))


def least_violation_bound(rows, d):
    """The lower bounds of the rank argument: (1, √(rows − d)) when d < rows, else (0, 0)."""
    return (1.0, math.sqrt(rows - d)) if d < rows else (0.0, 0.0)


@dataclass(frozen=True)
class Reading:
    name: str
    satisfiable: bool
    least_violation_spectral: float  # reached by the construction
    least_violation_frobenius: float
    bound_spectral: float  # what the rank argument says no K can beat
    bound_frobenius: float


def readings(n, N, d, rng):
    """Both readings at (n, N, d): satisfiable or not, and the least violation a construction reaches."""
    K = best_keys(n * N, d, rng)
    spectral, frobenius = violation(K)
    all_sequences = Reading("all-sequences", d >= n * N, spectral, frobenius, *least_violation_bound(n * N, d))
    blocks = [violation(best_keys(n, d, rng)) for _ in range(N)]
    per_sequence = Reading(
        "per-sequence",
        d >= n,
        max(b[0] for b in blocks),
        math.sqrt(sum(b[1] ** 2 for b in blocks)),
        least_violation_bound(n, d)[0],
        math.sqrt(N) * least_violation_bound(n, d)[1],
    )
    return all_sequences, per_sequence


def per_sequence_keys(n, N, d, rng):
    """K stacked from blocks with K_i K_iᵀ = I_n each, drawn independently (A2.seq)."""
    return np.vstack([best_keys(n, d, rng) for _ in range(N)])


def cross_block_size(zs, K, n):
    """max over i ≠ j of ‖J_i K_i K_jᵀ J_j‖₂ relative to max ‖J_i²‖₂ (zero iff examples decouple)."""
    N = len(zs)
    Js = [jacobian(z) for z in zs]
    blocks = [K[i * n:(i + 1) * n] for i in range(N)]
    cross = max((np.linalg.norm(Js[i] @ blocks[i] @ blocks[j].T @ Js[j], 2) for i in range(N) for j in range(N) if i != j),
                default=0.0)
    return cross / max(np.linalg.norm(J @ J, 2) for J in Js)


# ---------------------------------------------------------------- decoupling (A2.decouple)


@dataclass(frozen=True)
class Decoupling:
    d: int
    preconditioner_rel_error: float
    kappa_rel_error: float
    rate_rel_error: float
    kappa_true: float
    kappa_decoupled: float
    rate_observed: float
    rate_decoupled: float
    rate_resolution: float  # spread of the observed per-step ratios: the measurement's own error


def estimate_bytes(n, N, d):
    """Memory of the dense work at (n, N, d): K, K Kᵀ, the preconditioners, the d × d Hessian."""
    rows = n * N
    return 8 * (3 * rows * d + 4 * rows * rows + 3 * d * d)


def check_sizes(n, N, d):
    for name, value in (("--n", n), ("--N", N), ("--d", d)):
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise InputError(f"{name} {value!r} must be a positive whole number")
    if n < 2:
        raise InputError(f"--n {n}: one token per sequence has no softmax to speak of; use --n 2 or more")
    need = estimate_bytes(n, N, d)
    if need > MEMORY_LIMIT_BYTES:
        largest = _largest_fitting_d(n, N)
        raise InputError(f"--n {n} --N {N} --d {d} needs about {need / 2**30:.1f} GiB (limit "
                         f"{MEMORY_LIMIT_BYTES / 2**30:.0f} GiB); the largest d that fits with these n, N is {largest}"
                         if largest else f"--n {n} --N {N} needs about {need / 2**30:.1f} GiB even for d = 1; reduce n·N")


def _largest_fitting_d(n, N):
    d = 0
    step = 1 << 20
    while step:
        if estimate_bytes(n, N, d + step) <= MEMORY_LIMIT_BYTES:
            d += step
        else:
            step //= 2
    return d


def student_teacher(n, N, d, rng, spread=2.0):
    """Square-loss problem with keys as close to Assumption 2 as d allows, and its teacher p*."""
    K = best_keys(n * N, d, rng).reshape(N, n, d)
    u = rng.standard_normal((N, n))
    p_star = rng.standard_normal(d)
    p_star *= spread / max(np.abs(K @ p_star).max(), 1e-12)  # logits of size `spread`
    teacher = phessian.Problem(K, u, np.zeros(N))
    _, y = phessian.attention(teacher, p_star)
    return phessian.Problem(K, u, y), p_star


def decoupling(n, N, d, rng, spread=2.0):
    """How far the decoupled formulas (blockdiag(J_i²), block κ, 1 − 1/κ) are off at this d."""
    problem, p_star = student_teacher(n, N, d, rng, spread)
    z, _ = phessian.attention(problem, p_star)
    Js = [jacobian(zi) for zi in z]
    K = problem.K.reshape(n * N, d)
    J = block_diag(*Js)
    true_pre = J @ K @ K.T @ J
    decoupled_pre = block_diag(*[Ji @ Ji for Ji in Js])
    pre_error = np.linalg.norm(true_pre - decoupled_pre) / np.linalg.norm(decoupled_pre)
    # M = blockdiag(J_i H_i J_i) with H_i = u_i u_iᵀ / N (square loss at zero residual)
    block_eigs = np.array([np.sum((Ji @ ui) ** 2) / N for Ji, ui in zip(Js, problem.u)])
    kappa_decoupled = block_eigs.max() / block_eigs.min()
    true = phessian.gauss_newton_spectrum(problem, p_star)
    gram = phessian.gauss_newton_factor(problem, p_star)
    true_eigs = np.linalg.eigvalsh(gram.T @ gram)
    true_eigs = true_eigs[true_eigs > 1e-12 * true_eigs[-1]]
    eta = 1.0 / block_eigs.max()  # the step the decoupled analysis would choose
    rate_decoupled = dynamics.predicted_rate(block_eigs, eta)
    observed = dynamics.observed_rate(problem, p_star, eta, rng)
    return Decoupling(
        d,
        float(pre_error),
        abs(true.kappa - kappa_decoupled) / kappa_decoupled,
        abs(observed.rate - rate_decoupled) / rate_decoupled,
        float(true.kappa),
        float(kappa_decoupled),
        observed.rate,
        rate_decoupled,
        observed.resolution,
    )


def _interlacing_margin(m, c, rows, d):
    """min_j of λ_j(M) − λ_j(KᵀMK) and λ_j(KᵀMK) − λ_{j+nN−d}(M), relative to λ_1(M)."""
    return float(min((m[:d] - c).min(), (c - m[rows - d:rows]).min()) / m[0])


REDECIDE_DPS = 50  # digits at which a float64 margin inside rounding is re-decided


def _interlacing_margin_mp(M, K, rows, d, dps=REDECIDE_DPS):
    """The same margin at `dps` digits, with K's columns re-orthonormalised there; a margin
    above −10^(10−dps) counts as 0 (equality, as where M has zero eigenvalues)."""
    import mpmath as mp

    from verify.spectra import orthonormal_rows

    with mp.workdps(dps):
        Kt = orthonormal_rows(K.T)  # rows of Kᵀ orthonormal: KᵀK = I_d
        Mm = mp.matrix(M.tolist())
        Km = mp.matrix(Kt).T
        m = sorted(mp.eigsy(Mm, eigvals_only=True), reverse=True)
        c = sorted(mp.eigsy(Km.T * Mm * Km, eigvals_only=True), reverse=True)
        margin = min(min(m[j] - c[j], c[j] - m[j + rows - d]) for j in range(d)) / m[0]
        return 0.0 if margin > -mp.mpf(10) ** (10 - dps) else float(margin)


# ---------------------------------------------------------------- T2.up


@dataclass(frozen=True)
class UnderParameterized:
    d: int
    interlacing_holds: bool
    worst_interlacing_margin: float  # min over j of the two Cauchy gaps, relative to λ_1(M)
    kappa: float  # of KᵀMK on its range
    kappa_lower: float  # bounds implied by interlacing
    kappa_upper: float


def under_parameterized(n, N, d, rng, spread=2.0):
    """d < nN with KᵀK = I_d: Cauchy interlacing λ_j(M) ≥ λ_j(KᵀMK) ≥ λ_{j+nN−d}(M), and κ's bounds."""
    rows = n * N
    if d >= rows:
        raise InputError(f"T2.up is about d < nN; got d = {d} ≥ nN = {rows}")
    K = best_keys(rows, d, rng)  # orthonormal columns
    blocks = []
    for _ in range(N):
        z = np.exp(-spread * rng.random(n))
        z /= z.sum()
        A = rng.standard_normal((n, n))
        H = A @ A.T + np.eye(n)
        Jz = jacobian(z)
        block = Jz @ H @ Jz
        blocks.append((block + block.T) / 2)  # exactly symmetric, so M and KᵀMK are the matrices eigsy reads
    M = block_diag(*blocks)
    m = np.sort(np.linalg.eigvalsh(M))[::-1]
    c = np.sort(np.linalg.eigvalsh(K.T @ M @ K))[::-1]
    tol = 1e-12 * m[0]
    margin = _interlacing_margin(m, c, rows, d)
    if margin < 1e3 * ROUNDING:  # inside float64's error: re-decide at 50 digits (tight where M has zeros)
        margin = _interlacing_margin_mp(M, K, rows, d)
    rank = int(np.sum(c > tol))
    lower_at = [m[j + rows - d] for j in range(rank)]
    kappa = c[0] / c[rank - 1]
    kappa_upper = m[0] / lower_at[rank - 1] if lower_at[rank - 1] > tol else math.inf
    kappa_lower = lower_at[0] / m[rank - 1] if m[rank - 1] > tol else 0.0
    return UnderParameterized(d, bool(margin >= 0), float(margin), float(kappa), float(kappa_lower), float(kappa_upper))


# ---------------------------------------------------------------- the claims' checkers

SYMBOLIC_SIZES = ((2, 1), (3, 1), (3, 2), (4, 1), (4, 2), (4, 3))  # (nN, d) with d < nN
ROUNDING = 1e-12  # a float64 identity "holds" below this; "fails" needs 1e6 times more


@dataclass(frozen=True)
class Settings:
    n: int = 3
    N: int = 4
    ds: tuple = tuple(range(3, 25))
    samples: int = 40


def symbolic_rank_proof(sizes=SYMBOLIC_SIZES):
    """det(K Kᵀ) expands to 0 for a K of independent symbols, for each (rows, d) with d < rows."""
    import sympy as sp

    proved = []
    for rows, d in sizes:
        K = sp.Matrix(rows, d, lambda i, j: sp.Symbol(f"k_{i}_{j}"))
        if sp.expand((K * K.T).det(method="berkowitz")) == 0:
            proved.append(f"{rows}×{d}")
    return proved


def check_dim(rng, settings):
    proved = symbolic_rank_proof()
    rows = settings.n * settings.N
    worst_above, worst_gap = 0.0, 0.0
    for d in settings.ds:
        spectral, frobenius = violation(best_keys(rows, d, rng))
        bound = least_violation_bound(rows, d)
        if d >= rows:
            worst_above = max(worst_above, spectral)
        else:
            worst_gap = max(worst_gap, abs(spectral - bound[0]), abs(frobenius - bound[1]) / bound[1])
    beaten = _search_better_keys(rng, settings)
    evidence = {
        "symbolic_det_identically_zero": proved,
        "general_argument": "rank(K Kᵀ) ≤ rank(K) ≤ d < nN, so K Kᵀ has ≥ nN − d zero eigenvalues and "
                            "K Kᵀ − I has ≥ nN − d eigenvalues −1: ‖·‖₂ ≥ 1, ‖·‖_F ≥ √(nN − d)",
        "construction_violation_when_d_ge_nN": f"{worst_above:.1e}",
        "construction_gap_to_bounds_when_d_lt_nN": f"{worst_gap:.1e}",
        "random_keys_beating_the_bounds": beaten,
    }
    ok = len(proved) == len(SYMBOLIC_SIZES) and worst_above < ROUNDING and worst_gap < ROUNDING and beaten == 0
    evidence["sizes_proved"] = f"symbolic for (nN, d) ∈ {', '.join(proved)}; numeric for n = {settings.n}, N = {settings.N}, d ∈ {list(settings.ds)}"
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
    evidence = {
        "d_checked": [r[0] for r in rows],
        "worst_per_sequence_violation": f"{max(r[1] for r in rows):.1e}",
        "smallest_relative_cross_block": f"{min(r[2] for r in rows):.3g}",
        "largest_relative_cross_block": f"{max(r[2] for r in rows):.3g}",
        "note": "K_i drawn independently: nothing in the per-sequence reading makes K_i K_jᵀ vanish",
    }
    return ("HOLDS" if satisfied and coupled else "INCONCLUSIVE"), evidence


def check_decouple(rng, settings):
    n, N = settings.n, settings.N
    sweep = [decoupling(n, N, d, rng) for d in settings.ds]
    inside = [r for r in sweep if r.d >= n * N]
    outside = [r for r in sweep if r.d < n * N]
    holds_inside = all(r.preconditioner_rel_error < ROUNDING and r.kappa_rel_error < 1e3 * ROUNDING for r in inside)
    fails_outside = all(r.preconditioner_rel_error > 1e6 * ROUNDING for r in outside)
    evidence = {
        "d_ge_nN_worst_preconditioner_error": f"{max((r.preconditioner_rel_error for r in inside), default=0):.1e}",
        "d_ge_nN_worst_kappa_error": f"{max((r.kappa_rel_error for r in inside), default=0):.1e}",
        "d_lt_nN_smallest_preconditioner_error": f"{min((r.preconditioner_rel_error for r in outside), default=0):.3g}",
        "d_lt_nN_largest_kappa_error": f"{max((r.kappa_rel_error for r in outside), default=0):.3g}",
        "sweep": [_decoupling_json(r, n * N) for r in sweep],
    }
    return ("HOLDS" if holds_inside and fails_outside and inside and outside else "INCONCLUSIVE"), evidence


def check_up(rng, settings):
    n, N = settings.n, settings.N
    ds = [d for d in settings.ds if d < n * N]
    results = [under_parameterized(n, N, d, rng) for d in ds for _ in range(max(settings.samples // 10, 2))]
    evidence = {
        "cases": len(results),
        "worst_interlacing_margin": f"{min(r.worst_interlacing_margin for r in results):.3e}",
        "kappa_vs_bounds": [{"d": r.d, "kappa": f"{r.kappa:.4g}", "lower": f"{r.kappa_lower:.4g}",
                             "upper": f"{r.kappa_upper:.4g}"} for r in results[:: max(len(results) // len(ds), 1)]],
        "note": "an upper bound of inf: λ_{r+nN−d}(M) = 0, so interlacing bounds κ from one side only",
    }
    return ("HOLDS" if all(r.interlacing_holds for r in results) else "REFUTED"), evidence


def _decoupling_json(r, rows):
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


# ---------------------------------------------------------------- the command's library API


@dataclass(frozen=True)
class DimensionsReport:
    n: int
    N: int
    d: int
    readings: tuple
    decoupling: Decoupling
    seed: int

    def to_json(self):
        """Float64 measurements as shortest round-trip decimals (no fake digits); bounds exact."""
        import mpmath as mp

        from verify.numbers import decimal

        def bound(value):
            with mp.workdps(40):
                return decimal(mp.sqrt(mp.mpf(round(value**2))))  # the bounds are √(integer)

        from verify.versions import package_versions

        return {
            "command": "assumption2", "n": self.n, "N": self.N, "d": self.d, "seed": self.seed,
            "versions": package_versions(),
            "readings": [{"name": r.name, "satisfiable": r.satisfiable,
                          "least_violation_spectral": repr(float(r.least_violation_spectral)),
                          "least_violation_frobenius": repr(float(r.least_violation_frobenius)),
                          "bound_spectral": bound(r.bound_spectral),
                          "bound_frobenius": bound(r.bound_frobenius)} for r in self.readings],
            "decoupling": {key: repr(float(getattr(self.decoupling, key))) for key in
                           ("preconditioner_rel_error", "kappa_rel_error", "rate_rel_error", "kappa_true",
                            "kappa_decoupled", "rate_observed", "rate_decoupled", "rate_resolution")},
        }


def check_dimensions(n, N, d, seed=0):
    """One user's dimensions: which readings are satisfiable, how far the decoupled formulas are off."""
    check_sizes(n, N, d)
    rng = np.random.default_rng(seed)
    return DimensionsReport(n, N, d, readings(n, N, d, rng), decoupling(n, N, d, rng), seed)


def run_assumption2(seed=0, settings=None, claim_ids=None, progress=None):
    """The default sweep: every assumption2 claim's verdict and evidence."""
    import time

    from verify.claims import claims_for, get_claim
    from verify.theorem2 import ClaimResult, Theorem2Report

    settings = settings or Settings()
    started = time.perf_counter()
    claims = claims_for("assumption2") if not claim_ids else tuple(get_claim(c) for c in claim_ids)
    results = []
    for index, claim in enumerate(claims):
        if claim.checker is None:
            raise InputError(f"claim {claim.id} belongs to `python -m verify theorem2`; run it there")
        if progress:
            progress(index, len(claims), claim.id)
        verdict, evidence = claim.checker(np.random.default_rng([seed, index]), settings)
        results.append(ClaimResult(claim.id, None, claim.statement, claim.latex, verdict, evidence, None))
    if progress:
        progress(len(claims), len(claims), "done")
    return Theorem2Report(seed, REDECIDE_DPS, settings.samples, tuple(results), time.perf_counter() - started,
                          command="assumption2")


def plot_decoupling(report, path):
    """Relative errors of the decoupled formulas against d/(nN) (one figure, log scale)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from verify import atomic

    sweep = next(c for c in report.claims if c.id == "A2.decouple").evidence["sweep"]
    x = [row["d_over_nN"] for row in sweep]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for key, label in (("preconditioner_rel_error", "preconditioner blockdiag(J_i²)"),
                       ("kappa_rel_error", "κ from the block formula"),
                       ("rate_rel_error", "local GD rate 1 − 1/κ (observed)")):
        ax.semilogy(x, [max(float(row[key]), 1e-17) for row in sweep], marker="o", label=label)
    ax.semilogy(x, [float(row["rate_measurement_resolution"]) for row in sweep], linestyle=":", color="grey",
                label="resolution of the GD rate measurement")
    ax.axvline(1.0, color="grey", linestyle="--", linewidth=1)
    ax.text(1.02, 1e-11, "d = nN: Assumption 2\nbecomes satisfiable", fontsize=8, color="grey")
    ax.set_xlabel("d / (nN)")
    ax.set_ylabel("relative error of the decoupled formula")
    ax.set_title("Decoupled analysis is exact only when d ≥ nN")
    ax.legend(fontsize=8)
    fig.tight_layout()
    import io

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=120)
    plt.close(fig)
    return str(atomic.write_bytes(path, buffer.getvalue()))
