"""The prompt-attention model of docs/spec.md §1 (keys, student–teacher) and the Hessian of L(p) = (1/N) Σ ℓ(u_iᵀ σ(K_i p), y_i) in the prompt p (docs/spec.md, D3).

    ∇L  = (1/N) Σ K_iᵀ J_i g_i,                      g_i = ∇_z ℓ_i
    ∇²L = (1/N) Σ K_iᵀ (J_i ∇²_z ℓ_i J_i + Σ_k g_ik ∇²σ_k) K_i
Gauss–Newton part: the first term; residual part: the second, with the closed form
    Σ_k w_k/z_k ∇²σ_k = diag(w) − w zᵀ − z wᵀ + 2(Σw) z zᵀ − (Σw) diag(z),  w = g ∘ z.
Square loss ℓ = ½(ŷ − y)²: g = r u, ∇²_z ℓ = u uᵀ; logistic loss ℓ = log(1 + e^{−yŷ}), y = ±1:
g = −y s(−yŷ) u, ∇²_z ℓ = s(ŷ)s(−ŷ) u uᵀ.  Everything is batched over the N examples and
matrix-free: a Hessian-vector product costs O(N n d) and never forms d × d.
"""
from dataclasses import dataclass

import numpy as np

from verify.base.errors import InputError
from verify.numerics.softmax import softmax
from verify.base.printable import shown

LOSSES = ("square", "logistic")
KEY_KINDS = ("orthonormal", "closest", "gaussian")


@dataclass(frozen=True)
class Problem:
    """Keys K (N × n × d), values u (N × n), targets y (N), loss name."""

    K: np.ndarray
    u: np.ndarray
    y: np.ndarray
    loss: str = "square"

    def __post_init__(self):
        if self.loss not in LOSSES:
            raise InputError(f"loss {shown(self.loss, 200)} is not supported; choose one of {', '.join(LOSSES)}")
        N, n, d = self.K.shape
        if self.u.shape != (N, n) or self.y.shape != (N,):
            raise InputError(f"u has shape {self.u.shape} and y {self.y.shape}; with K of shape {self.K.shape} "
                             f"give u of shape {(N, n)} and y of shape {(N,)}")

    @property
    def d(self):
        return self.K.shape[2]


def sigmoid(x):
    return 0.5 * (1 + np.tanh(x / 2))


def attention(problem, p):
    """(z, ŷ) for every example: z_i = σ(K_i p), ŷ_i = u_iᵀ z_i."""
    z = softmax(problem.K @ p)
    return z, np.einsum("ij,ij->i", problem.u, z)


def loss(problem, p):
    """L(p) = (1/N) Σ ℓ(ŷ_i, y_i)."""
    _, yhat = attention(problem, p)
    if problem.loss == "square":
        return 0.5 * np.mean((yhat - problem.y) ** 2)
    return np.mean(np.logaddexp(0, -problem.y * yhat))


def _loss_derivatives(problem, yhat):
    """dℓ/dŷ and d²ℓ/dŷ² per example."""
    if problem.loss == "square":
        return yhat - problem.y, np.ones_like(yhat)
    margin = problem.y * yhat
    return -problem.y * sigmoid(-margin), sigmoid(margin) * sigmoid(-margin)


def jacobian_times(z, v):
    """J(z_i) v_i for every example: z ∘ v − z (zᵀv)."""
    return z * v - z * np.einsum("ij,ij->i", z, v)[:, None]


def gradient(problem, p):
    """∇L(p) = (1/N) Σ K_iᵀ J_i g_i (docs/spec.md, D3)."""
    z, yhat = attention(problem, p)
    first, _ = _loss_derivatives(problem, yhat)
    Ju = jacobian_times(z, problem.u)
    return np.einsum("ind,in->d", problem.K, first[:, None] * Ju) / len(problem.y)


def gauss_newton_factor(problem, p):
    """A (d × N) with GN = A Aᵀ: a_i = √(ℓ''_i / N) K_iᵀ J_i u_i."""
    z, yhat = attention(problem, p)
    _, second = _loss_derivatives(problem, yhat)
    Ju = jacobian_times(z, problem.u)
    return np.einsum("ind,in->di", problem.K, Ju) * np.sqrt(second / len(problem.y))


def hvp(problem, p, exact=True):
    """v ↦ ∇²L v (or its Gauss–Newton part), matrix-free."""
    z, yhat = attention(problem, p)
    first, second = _loss_derivatives(problem, yhat)
    Ju = jacobian_times(z, problem.u)
    N = len(problem.y)
    w = first[:, None] * problem.u * z  # w = g ∘ z

    def apply(v):
        s = problem.K @ v  # N × n
        gn = (second * np.einsum("ij,ij->i", Ju, s))[:, None] * Ju
        total = gn
        if exact:
            w_sum = w.sum(axis=1, keepdims=True)
            zs = np.einsum("ij,ij->i", z, s)[:, None]
            ws = np.einsum("ij,ij->i", w, s)[:, None]
            residual = w * s - w * zs - z * ws + 2 * w_sum * z * zs - w_sum * z * s
            total = gn + residual
        return np.einsum("ind,in->d", problem.K, total) / N

    return apply


def dense_hessian(problem, p, exact=True):
    """∇²L as a d × d matrix (for small d, and as the baseline of the benchmark)."""
    apply = hvp(problem, p, exact)
    return np.column_stack([apply(e) for e in np.eye(problem.d)])


@dataclass(frozen=True)
class HessianSpectrum:
    """Extreme eigenvalues of the p-Hessian (on its range for Gauss–Newton), κ, rank and the method used."""

    lambda_max: float
    lambda_min: float  # smallest positive (on the range) for GN; smallest for the exact Hessian
    kappa: float
    rank: int
    method: str


def gauss_newton_spectrum(problem, p, rank_tol=1e-12):
    """Extreme eigenvalues of the GN Hessian on its range via the small Gram matrix AᵀA or AAᵀ."""
    A = gauss_newton_factor(problem, p)
    gram = A.T @ A if A.shape[1] <= A.shape[0] else A @ A.T
    eigenvalues = np.linalg.eigvalsh(gram)
    positive = eigenvalues[eigenvalues > rank_tol * eigenvalues[-1]]
    return HessianSpectrum(positive[-1], positive[0], positive[-1] / positive[0], len(positive), "gram")


def hessian_spectrum(problem, p, exact=True, matrix_free=None, dense_limit=400):
    """Extreme eigenvalues of ∇²L: dense when d ≤ dense_limit, else Lanczos (eigsh) on the HVP."""
    if not exact and matrix_free is None:
        return gauss_newton_spectrum(problem, p)
    d = problem.d
    if matrix_free is None:
        matrix_free = d > dense_limit
    if not matrix_free:
        eigenvalues = np.linalg.eigvalsh(dense_hessian(problem, p, exact))
        return HessianSpectrum(eigenvalues[-1], eigenvalues[0], eigenvalues[-1] / eigenvalues[0], d, "dense")
    from scipy.sparse.linalg import LinearOperator, eigsh  # SciPy is loaded on use: the search imports this module

    operator = LinearOperator((d, d), matvec=hvp(problem, p, exact), dtype=float)
    top = eigsh(operator, k=1, which="LA", return_eigenvectors=False)[0]
    bottom = eigsh(operator, k=1, which="SA", return_eigenvectors=False, tol=1e-10)[0]
    return HessianSpectrum(top, bottom, top / bottom, d, "lanczos")


def orthonormal_keys(rng, rows, d):
    """K ∈ R^{rows×d} as close to K Kᵀ = I as d allows: orthonormal rows if d ≥ rows (Assumption 2),
    else orthonormal columns (K Kᵀ a projector: the least violation, A2.dim)."""
    Q, _ = np.linalg.qr(rng.standard_normal((max(rows, d), min(rows, d))))
    return Q.T if d >= rows else Q


def keys(rng, N, n, d, kind="gaussian"):
    """Keys N × n × d: `orthonormal` (K Kᵀ = I_{nN}, needs d ≥ nN), `closest` (as close to it as d
    allows) or `gaussian` (entries N(0, 1/d))."""
    if kind not in KEY_KINDS:
        raise InputError(f"key kind {shown(kind, 200)} is not known; choose one of {', '.join(KEY_KINDS)}")
    if kind == "orthonormal" and d < n * N:
        raise InputError(f"orthonormal keys need d ≥ nN; got d = {d} < {n * N}")
    if kind == "gaussian":
        return rng.standard_normal((N, n, d)) / np.sqrt(d)
    return orthonormal_keys(rng, n * N, d).reshape(N, n, d)


def student_teacher(rng, N, n, d, loss_name="square", key_kind="gaussian", p_scale=1.0, logit_spread=None):
    """The one fixed-decoder student–teacher problem: keys, values u, a teacher p* (scaled by `p_scale`,
    or so that its largest logit is `logit_spread`) and the teacher's targets (realizable, docs/spec.md §1)."""
    K = keys(rng, N, n, d, key_kind)
    u = rng.standard_normal((N, n))
    p_star = rng.standard_normal(d)
    p_star = p_star * p_scale if logit_spread is None else p_star * (logit_spread / max(np.abs(K @ p_star).max(), 1e-12))
    teacher = Problem(K, u, np.zeros(N), loss_name)
    _, yhat = attention(teacher, p_star)
    y = yhat if loss_name == "square" else np.where(yhat >= 0, 1.0, -1.0)
    return Problem(K, u, y, loss_name), p_star
