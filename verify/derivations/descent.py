"""D5 and D6: GD as preconditioned descent in attention space, and its linearisation at p*."""
import numpy as np
import sympy as sp
from scipy.linalg import block_diag

from verify.derivations.exact import vanishes
from verify.derivations.loss import small_problem
from verify.derivations.records import BLOCKDIAG, Step, jacobian_formula, softmax_of_linear
from verify.numerics import dynamics, model
from verify.numerics.model import orthonormal_keys
from verify.numerics.softmax import jacobian


ROTATIONS = (sp.Matrix([[3, 4], [-4, 3]]) / 5, sp.Matrix([[5, 12], [-12, 5]]) / 13)


def _rational_orthogonal(size):
    """A rational orthogonal matrix of even size (Kronecker products of Pythagorean rotations)."""
    Q = sp.Matrix([[1]])
    k = 0
    while Q.shape[0] < size:
        Q = sp.kronecker_product(Q, ROTATIONS[k % 2])
        k += 1
    return Q[:size, :size] if Q.shape[0] == size else None


def check_d5_symbolic(sizes=((2, 2, 4), (2, 2, 8), (2, 4, 8))):
    for n, N, d in sizes:
        Q = _rational_orthogonal(d)
        K = Q[: n * N, :]  # K Kᵀ = I_{nN} exactly
        zs = [[sp.Symbol(f"z{i}_{r}", positive=True) for r in range(n)] for i in range(N)]
        Js = [jacobian_formula(z) for z in zs]
        J = sp.diag(*Js)
        if not (K * K.T - sp.eye(n * N)).is_zero_matrix:
            return False, "the construction is not orthonormal"
        if not (J * K * K.T * J - sp.diag(*[Ji * Ji for Ji in Js])).expand().is_zero_matrix:
            return False, f"J K Kᵀ J ≠ blockdiag(J_i²) at (n, N, d) = {(n, N, d)}"
    return True, f"J K Kᵀ J − blockdiag(J_i²) ≡ 0 with symbolic z and rational K Kᵀ = I, (n, N, d) ∈ {list(sizes)}"


def check_d5_numeric():
    """K Kᵀ = I: the decoupled preconditioner is exact (rounding); random keys: it is not."""
    rng = np.random.default_rng(5)
    n, N = 3, 3
    zs = [np.exp(-2 * rng.random(n)) for _ in range(N)]
    Js = [jacobian(z / z.sum()) for z in zs]
    J = block_diag(*Js)
    decoupled = block_diag(*[Ji @ Ji for Ji in Js])

    def error(K):
        return np.linalg.norm(J @ K @ K.T @ J - decoupled) / np.linalg.norm(decoupled)

    exact = error(orthonormal_keys(rng, n * N, n * N + 3))
    random = error(rng.standard_normal((n * N, n * N + 3)) / np.sqrt(n * N + 3))
    return exact < 1e-14 and random > 1e-2, f"relative error {exact:.1e} with K Kᵀ = I, {random:.2f} with Gaussian keys"


def d5_steps():
    eta, N = sp.Symbol("eta", positive=True), sp.Symbol("N", positive=True)
    J, K, G, Kt = (sp.Symbol(v, commutative=False) for v in ("J", "K", "G", "Kᵀ"))
    return (
        Step("Stacking the examples, ∇L = (1/N) Kᵀ J G with J = blockdiag(J_i) and G = (g_i)_i, so to first order",
             sp.Eq(sp.Symbol("zₜ₊₁ − zₜ"), -eta / N * J * K * Kt * J * G)),
        Step("Under Assumption 2 (K Kᵀ = I) the preconditioner decouples:",
             sp.Eq(sp.Symbol("P"), BLOCKDIAG(sp.Symbol("J₁²"), sp.Symbol("…"), sp.Symbol("J_N²")))),
    )


def d5_result():
    return (sp.Eq(sp.Symbol("J K Kᵀ J"), BLOCKDIAG(sp.Symbol("Jᵢ²"))),)


def check_d6_symbolic():
    """JK(I − η KᵀMK) = (I − η P H) JK with P = JKKᵀJ, M = JHJ (matrix algebra), and at a
    zero-residual point the Hessian is its Gauss–Newton part KᵀMK (small sizes)."""
    m, d = sp.symbols("m d", integer=True, positive=True)
    J = sp.MatrixSymbol("J", m, m)
    K = sp.MatrixSymbol("K", m, d)
    H = sp.MatrixSymbol("H", m, m)
    eta = sp.Symbol("eta")
    left = (J * K * (sp.Identity(d) - eta * K.T * J * H * J * K)).expand()
    right = ((sp.Identity(m) - eta * J * K * K.T * J * H) * J * K).expand()
    difference = (left - right).doit()
    linear = difference == 0 or isinstance(difference, sp.ZeroMatrix)  # SymPy returns scalar 0 here
    residual_free = _zero_residual_hessian_is_gauss_newton()
    return linear and residual_free, "JK(I − ηKᵀMK) = (I − ηPH)JK (MatrixSymbol algebra); ∇²L(p*) = KᵀMK at zero residual, (n, N, d) = (2, 2, 2)"


def _zero_residual_hessian_is_gauss_newton(n=2, N=2, d=2):
    K, u, _ = small_problem(n, N, d, seed=6, loss="square")
    p = sp.symbols(f"p1:{d + 1}", real=True)
    q = sp.symbols(f"q1:{d + 1}", real=True)  # p*
    teacher = [softmax_of_linear(K[i], q) for i in range(N)]
    y = [sum(u[i][r] * teacher[i][r] for r in range(n)) for i in range(N)]
    zs = [softmax_of_linear(K[i], p) for i in range(N)]
    L = sum((sum(u[i][r] * zs[i][r] for r in range(n)) - y[i]) ** 2 for i in range(N)) / (2 * N)
    at_star = sp.hessian(L, p).subs(dict(zip(p, q)))
    gauss_newton = sp.zeros(d, d)
    for i in range(N):
        Ki, ui = sp.Matrix(K[i]), sp.Matrix(u[i])
        Ji = jacobian_formula(teacher[i])
        gauss_newton += Ki.T * Ji * ui * ui.T * Ji * Ki / N
    return all(vanishes(a - b) for a, b in zip(at_star, gauss_newton))


def check_d6_numeric():
    """Run GD near p*: the observed contraction per step against max|1 − ηλ| over the Hessian's spectrum."""
    rng = np.random.default_rng(7)
    problem, p_star = model.student_teacher(rng, 6, 3, 10, p_scale=0.5)
    spectrum = np.linalg.eigvalsh(model.dense_hessian(problem, p_star, exact=True))
    positive = spectrum[spectrum > 1e-10 * spectrum[-1]]
    eta = 1.0 / positive[-1]
    predicted = dynamics.predicted_rate(positive, eta)
    observed = dynamics.observed_rate(problem, p_star, eta, rng)
    gap = abs(observed.rate - predicted)
    return gap <= max(10 * observed.resolution, 1e-6), (
        f"observed rate {observed.rate:.6f} vs predicted {predicted:.6f} (|gap| {gap:.1e}, measurement resolution "
        f"{observed.resolution:.1e}, {observed.steps} GD steps)")


def d6_steps():
    eta = sp.Symbol("eta", positive=True)
    e = sp.Symbol("eₜ", commutative=False)
    P, H = sp.Symbol("P*", commutative=False), sp.Symbol("H*", commutative=False)
    return (
        Step("Linearising the GD map p ↦ p − η ∇L(p) at a stationary p* with zero residual, where "
             "∇²L(p*) = Kᵀ M K, M = blockdiag(J_i H_i J_i), and mapping to attention space by J K:",
             sp.Eq(sp.Symbol("eₜ₊₁"), (1 - eta * P * H) * e)),
        Step("With P* = J* K Kᵀ J*, the local rate at η = 1/λ_max is",
             sp.Eq(sp.Symbol("rho"), 1 - 1 / sp.Symbol("κ(Kᵀ M K)"))),
    )


def d6_result():
    return d6_steps()[1].expr,
