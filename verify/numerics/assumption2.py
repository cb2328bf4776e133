"""The mathematics of Assumption 2 (A2.dim, A2.seq, A2.decouple, T2.up): pure functions of (n, N, d)
and a random generator; which claim uses them, and over which d, is the claims layer's business.

Readings:
- all-sequences: K Kᵀ = I_{nN} (every key vector of every sequence orthonormal); needs d ≥ nN.
- per-sequence:  K_i K_iᵀ = I_n for each i; needs only d ≥ n, but leaves cross blocks.
For d below what a reading needs, K Kᵀ has at most d nonzero eigenvalues, so at least
nN − d of the eigenvalues of K Kᵀ − I equal −1: ‖K Kᵀ − I‖₂ ≥ 1 and ‖K Kᵀ − I‖_F ≥ √(nN − d),
both reached by any K with orthonormal columns (K Kᵀ a projector).

Size and cost: the decoupling check is dense in nN (blockdiag(J_i) and J K Kᵀ J are nN × nN, about
(nN)²(nN + d) operations) and runs GD near p* (up to 20,000 steps of about nN·d operations each), so
`check_sizes` refuses n·N above MAX_ROWS, d above MAX_D and n·N·d above MAX_ROWS_TIMES_D: at the
largest sizes allowed, (n, N, d) = (2, 50, 2000), (2, 500, 200) or (100, 10, 200), `check_dimensions`
took 18–24 s on a shared 2-core machine under a load of 6 (n·N·d = 10⁶ took 143 s there). It also
refuses N = 1: with one sequence there is nothing to decouple (the decoupled rate 1 − 1/κ is 0).
"""
import math
from dataclasses import dataclass

import mpmath as mp
import numpy as np

from verify.base.errors import InputError
from verify.numerics import dynamics, model
from verify.numerics.model import orthonormal_keys
from verify.numerics.precision import CERTIFY_DPS
from verify.numerics.softmax import jacobian
from verify.base.printable import shown

MAX_ROWS = 1000  # n·N: the nN × nN matrices are dense
MAX_D = 2000  # key dimension
MAX_ROWS_TIMES_D = 200_000  # n·N·d: one GD step near p* costs about this many operations
ROUNDING = 1e-12  # a float64 identity "holds" below this; "fails" needs 1e6 times more
REDECIDE_DPS = CERTIFY_DPS  # digits at which a float64 margin inside rounding is re-decided


def violation(K):
    """(‖K Kᵀ − I‖₂, ‖K Kᵀ − I‖_F)."""
    E = K @ K.T - np.eye(K.shape[0])
    return float(np.linalg.norm(E, 2)), float(np.linalg.norm(E, "fro"))


def least_violation_bound(rows, d):
    """The lower bounds of the rank argument: (1, √(rows − d)) when d < rows, else (0, 0)."""
    return (1.0, math.sqrt(rows - d)) if d < rows else (0.0, 0.0)


@dataclass(frozen=True)
class Reading:
    """A reading of Assumption 2 at (n, N, d): satisfiable or not, the violations reached and the rank bounds."""

    name: str
    satisfiable: bool
    least_violation_spectral: float  # reached by the construction
    least_violation_frobenius: float
    bound_spectral: float  # what the rank argument says no K can beat
    bound_frobenius: float


def readings(n, N, d, rng):
    """Both readings at (n, N, d): satisfiable or not, and the least violation a construction reaches."""
    K = orthonormal_keys(rng, n * N, d)
    spectral, frobenius = violation(K)
    all_sequences = Reading("all-sequences", d >= n * N, spectral, frobenius, *least_violation_bound(n * N, d))
    blocks = [violation(orthonormal_keys(rng, n, d)) for _ in range(N)]
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
    return np.vstack([orthonormal_keys(rng, n, d) for _ in range(N)])


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
    """How far the decoupled formulas are off at one d: preconditioner, κ, local rate (with its resolution)."""

    d: int
    preconditioner_rel_error: float
    kappa_rel_error: float
    rate_rel_error: float
    kappa_true: float
    kappa_decoupled: float
    rate_observed: float
    rate_decoupled: float
    rate_resolution: float  # spread of the observed per-step ratios: the measurement's own error


def check_sizes(n, N, d):
    """InputError unless n ≥ 2, N ≥ 2, d ≥ 1 are whole numbers within the size and cost bounds (module docstring)."""
    for name, value in (("n", n), ("N", N), ("d", d)):
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise InputError(f"{name} = {shown(value, 200)} must be a positive whole number", name)
    if n < 2:
        raise InputError(f"n = {n}: one token per sequence has no softmax to speak of; use n = 2 or more", "n")
    if N < 2:
        raise InputError(f"N = {N}: with one sequence there is nothing to decouple; use N = 2 or more", "N")
    if n * N > MAX_ROWS:
        larger = "n" if n > N else "N"
        raise InputError(f"n·N = {shown(n, 60)}·{shown(N, 60)} = {shown(n * N, 60)} is above {MAX_ROWS}, the most the "
                         f"dense nN × nN work takes here; "
                         f"give a smaller {larger} (n·N ≤ {MAX_ROWS})", larger)
    if d > MAX_D:
        raise InputError(f"d = {shown(d, 60)} is above {MAX_D}, the largest key dimension checked here; give d ≤ {MAX_D}", "d")
    if n * N * d > MAX_ROWS_TIMES_D:
        raise InputError(f"n·N·d = {n}·{N}·{d} = {n * N * d} is above {MAX_ROWS_TIMES_D:,}, the cost bound of the GD "
                         f"run near p*; give d ≤ {MAX_ROWS_TIMES_D // (n * N)} with these n, N", "d")


def decoupling(n, N, d, rng, spread=2.0):
    """How far the decoupled formulas (blockdiag(J_i²), block κ, 1 − 1/κ) are off at this d."""
    from scipy.linalg import block_diag  # SciPy is loaded on use: the claim registry imports this module

    problem, p_star = model.student_teacher(rng, N, n, d, key_kind="closest", logit_spread=spread)
    z, _ = model.attention(problem, p_star)
    Js = [jacobian(zi) for zi in z]
    K = problem.K.reshape(n * N, d)
    J = block_diag(*Js)
    true_pre = J @ K @ K.T @ J
    decoupled_pre = block_diag(*[Ji @ Ji for Ji in Js])
    pre_error = np.linalg.norm(true_pre - decoupled_pre) / np.linalg.norm(decoupled_pre)
    # M = blockdiag(J_i H_i J_i) with H_i = u_i u_iᵀ / N (square loss at zero residual)
    block_eigs = np.array([np.sum((Ji @ ui) ** 2) / N for Ji, ui in zip(Js, problem.u)])
    kappa_decoupled = block_eigs.max() / block_eigs.min()
    true = model.gauss_newton_spectrum(problem, p_star)
    gram = model.gauss_newton_factor(problem, p_star)
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


def orthonormal_rows(K):
    """K with rows orthonormalised at mpmath's working precision (K Kᵀ = I to every digit)."""
    Q, _ = mp.qr(mp.matrix([[mp.mpf(float(v)) for v in row] for row in K]).T, mode="skinny")
    rows, cols = len(K), len(K[0])
    return [[Q[j, i] for j in range(cols)] for i in range(rows)]


def _interlacing_margin_mp(M, K, rows, d, dps=REDECIDE_DPS):
    """The same margin at `dps` digits, with K's columns re-orthonormalised there; a margin
    above −10^(10−dps) counts as 0 (equality, as where M has zero eigenvalues)."""
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
    """T2.up at one d: whether interlacing holds, its worst margin, κ of KᵀMK and the bounds interlacing gives."""

    d: int
    interlacing_holds: bool
    worst_interlacing_margin: float  # min over j of the two Cauchy gaps, relative to λ_1(M)
    kappa: float  # of KᵀMK on its range
    kappa_lower: float  # bounds implied by interlacing
    kappa_upper: float


def under_parameterized(n, N, d, rng, spread=2.0):
    """KᵀK = I_d (d ≤ nN): Cauchy interlacing λ_j(M) ≥ λ_j(KᵀMK) ≥ λ_{j+nN−d}(M), and κ's bounds."""
    rows = n * N
    if d > rows:
        raise InputError(f"d = {d}: KᵀK = I_d needs d ≤ nN = {rows} (d columns orthonormal in R^nN)", "d")
    from scipy.linalg import block_diag  # loaded on use, as in decoupling

    K = orthonormal_keys(rng, rows, d)  # orthonormal columns
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


SYMBOLIC_SIZES = ((2, 1), (3, 1), (3, 2), (4, 1), (4, 2), (4, 3))  # (nN, d) with d < nN


def symbolic_rank_proof(sizes=SYMBOLIC_SIZES):
    """The sizes `rows×d` (d < rows) at which det(K Kᵀ) is the zero polynomial for a K of independent
    symbols: computed exactly in the ring ZZ[k_ij] (the symbolic half of the rank argument, A2.dim)."""
    import sympy as sp  # only the symbolic callers pay for loading SymPy
    from sympy.polys.matrices import DomainMatrix

    proved = []
    for rows, d in sizes:
        K = DomainMatrix.from_Matrix(sp.Matrix(rows, d, lambda i, j: sp.Symbol(f"k_{i}_{j}")))
        gram = K * K.transpose()
        if gram.det() == gram.domain.zero:
            proved.append(f"{rows}×{d}")
    return proved
