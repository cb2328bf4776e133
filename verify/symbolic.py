"""Derivations D1–D6 (SPEC §2) and the rank argument of A2.dim, as data, with two
independent verifications each: symbolic (SymPy) and numeric (mpmath, high precision).

Every closed form is a function `formula(z, ...)` that the checks take as a parameter,
so a deliberately wrong formula can be handed to them (the tests do) and must fail both.
"""
import functools
from dataclasses import dataclass, field
from typing import Callable

import mpmath as mp
import numpy as np
import sympy as sp

# ---------------------------------------------------------------- records


@dataclass(frozen=True)
class Step:
    text: str  # plain LaTeX-safe prose
    expr: object  # a SymPy object (usually an Eq)


@dataclass(frozen=True)
class Check:
    kind: str  # "symbolic" or "numeric"
    sizes: str
    passed: bool
    detail: str


@dataclass(frozen=True)
class Derivation:
    id: str
    name: str
    slug: str
    hypotheses: tuple  # LaTeX-safe strings
    steps: Callable = field(repr=False)  # () -> tuple of Step
    result: Callable = field(repr=False)  # () -> SymPy Eq, the closed form
    verified_by: str = ""  # how, for the document (static: the document stays byte-identical)
    checks: tuple = field(default=(), repr=False)  # (kind, sizes, function(**overrides) -> (passed, detail))


class BlockDiag(sp.Function):
    """blockdiag(A_1, …, A_N), printed by our LaTeX printer."""


class Diag(sp.Function):
    """diag(z)."""


# ---------------------------------------------------------------- closed forms (the claims under test)


def jacobian_formula(z):
    """J(z) = diag(z) − z zᵀ (D1)."""
    n = len(z)
    return sp.Matrix(n, n, lambda i, k: z[i] * (int(i == k) - z[k]))


def hessian_formula(z):
    """∂²σ_k/∂s_a∂s_b = σ_k[(δ_ka − σ_a)(δ_kb − σ_b) − σ_a(δ_ab − σ_b)] (D2), as T[k][a][b]."""
    n = len(z)
    d = lambda x, y: int(x == y)
    return [[[z[k] * ((d(k, a) - z[a]) * (d(k, b) - z[b]) - z[a] * (d(a, b) - z[b])) for b in range(n)]
             for a in range(n)] for k in range(n)]


def _numeric(formula):
    """The same closed form on mpmath numbers."""
    return lambda z: formula([mp.mpf(v) for v in z])


# ---------------------------------------------------------------- helpers

INDEX = sp.symbols("i k j a b", integer=True, positive=True)
N_SYM = sp.Symbol("n", integer=True, positive=True)
S_BASE = sp.IndexedBase("s")
SIGMA = sp.IndexedBase("sigma")


def _resolve_range(expr):
    """Sum(exp(s_j) δ_jk, (j, 1, n)).doit() gives Piecewise((exp(s_k), k ≤ n), (0, True)); under the
    hypothesis 1 ≤ k ≤ n it is exp(s_k).  Anything else is left alone (and would fail the check)."""

    def is_range_piecewise(e):
        return (isinstance(e, sp.Piecewise) and len(e.args) == 2 and e.args[1] == (0, True)
                and all(isinstance(c, (sp.Le, sp.Ge, sp.And)) for c in [e.args[0][1]]))

    return expr.replace(is_range_piecewise, lambda e: e.args[0][0])


def _to_sigma(expr, indices):
    """Replace Σ_j e^{s_j} by S and e^{s_i} by σ_i S."""
    j = INDEX[2]
    total = sp.Sum(sp.exp(S_BASE[j]), (j, 1, N_SYM))
    S = sp.Symbol("S", positive=True)
    expr = expr.subs(total, S)
    return expr.subs({sp.exp(S_BASE[ix]): SIGMA[ix] * S for ix in indices})


def _softmax_exprs(n):
    s = sp.symbols(f"s1:{n + 1}", real=True)
    e = [sp.exp(v) for v in s]
    total = sum(e)
    return s, [v / total for v in e]


def _rational(expr, s):
    """exp(s_j) → x_j (positive symbols): softmax expressions become rational functions."""
    x = sp.symbols(f"x1:{len(s) + 1}", positive=True)
    return expr.subs({sp.exp(v): xv for v, xv in zip(s, x)})


def _vanishes_in_p(expr, p):
    """expr ≡ 0 for logits integer-linear in p: with p_c = log w_c every exponential becomes a
    monomial in w (SymPy may merge exp(a)·exp(b), so substituting the exponentials themselves is fragile)."""
    w = sp.symbols(f"w1:{len(p) + 1}", positive=True)
    expr = sp.powsimp(expr.subs({pc: sp.log(wc) for pc, wc in zip(p, w)}), force=True)
    return sp.cancel(sp.together(sp.expand(expr))) == 0


def _vanishes(expr, s):
    return sp.cancel(sp.together(_rational(expr, s))) == 0


def _random_logits(n, seed, spread=4):
    rng = np.random.default_rng(seed)
    return [mp.mpf(float(v)) for v in np.round(spread * rng.standard_normal(n), 3)]


def _softmax_mp(s):
    e = [mp.exp(v) for v in s]
    total = mp.fsum(e)
    return [v / total for v in e]


# ---------------------------------------------------------------- D1, D2


def d1_general():
    i, k, _, _, _ = INDEX
    j = INDEX[2]
    sigma_i = sp.exp(S_BASE[i]) / sp.Sum(sp.exp(S_BASE[j]), (j, 1, N_SYM))
    raw = sp.diff(sigma_i, S_BASE[k])
    resolved = _resolve_range(raw.doit())
    closed = sp.simplify(_to_sigma(resolved, (i, k)))
    return sigma_i, raw, resolved, closed


def d1_steps():
    i, k = INDEX[0], INDEX[1]
    sigma_i, raw, resolved, closed = d1_general()
    derivative = sp.Derivative(SIGMA[i], S_BASE[k])
    return (
        Step("The softmax of the logits $s \\in \\mathbb{R}^n$, coordinate $i$:", sp.Eq(SIGMA[i], sigma_i)),
        Step("SymPy differentiates through the sum, which carries a Kronecker delta:", sp.Eq(derivative, raw)),
        Step("Evaluating the sum gives a piecewise term equal to $e^{s_k}$ for $1 \\le k \\le n$:", sp.Eq(derivative, resolved)),
        Step("With $e^{s_i} = \\sigma_i \\sum_j e^{s_j}$ this simplifies to", sp.Eq(derivative, closed)),
    )


def d1_result():
    i, k = INDEX[0], INDEX[1]
    z, zt = sp.Symbol("z", commutative=False), sp.Symbol("z^{\\top}", commutative=False)
    return sp.Eq(sp.Symbol("J(z)"), Diag(z) - z * zt), sp.Eq(sp.Derivative(SIGMA[i], S_BASE[k]), SIGMA[i] * (sp.KroneckerDelta(i, k) - SIGMA[k]))


def check_d1_general(formula=None):
    i, k = INDEX[0], INDEX[1]
    closed = d1_general()[3]
    target = SIGMA[i] * (sp.KroneckerDelta(i, k) - SIGMA[k]) if formula is None else formula(i, k)
    return sp.simplify(sp.expand(closed - target)) == 0, "general n (IndexedBase, KroneckerDelta)"


def check_d1_explicit(formula=jacobian_formula, sizes=range(2, 9)):
    for n in sizes:
        s, z = _softmax_exprs(n)
        difference = sp.Matrix(z).jacobian(s) - formula(z)
        if not all(_vanishes(entry, s) for entry in difference):
            return False, f"difference does not vanish at n = {n}"
    return True, f"Matrix.jacobian − closed form ≡ 0 for n = {min(sizes)}..{max(sizes)}"


def check_d1_numeric(formula=jacobian_formula, sizes=(12, 20), dps=40):
    worst = mp.mpf(0)
    with mp.workdps(dps):
        for n in sizes:
            s = _random_logits(n, n)
            closed = _numeric(formula)(_softmax_mp(s))
            for a in range(n):
                column = [mp.diff(lambda t: _softmax_mp(s[:a] + [s[a] + t] + s[a + 1:])[k], 0) for k in range(n)]
                worst = max(worst, max(abs(column[k] - closed[k, a]) for k in range(n)))
        passed = worst < mp.mpf(10) ** (-dps + 10)
        return passed, f"max |finite difference − closed form| = {mp.nstr(worst, 3)} at {dps} digits"


def d2_general():
    i, _, _, a, b = INDEX
    j = INDEX[2]
    sigma_i = sp.exp(S_BASE[i]) / sp.Sum(sp.exp(S_BASE[j]), (j, 1, N_SYM))
    raw = sp.diff(sigma_i, S_BASE[a], S_BASE[b])
    resolved = _resolve_range(raw.doit())
    closed = sp.factor(sp.expand(sp.simplify(_to_sigma(resolved, (i, a, b)))), SIGMA[i])
    return resolved, closed


def _d2_target(i, a, b):
    d = sp.KroneckerDelta
    return SIGMA[i] * ((d(i, a) - SIGMA[a]) * (d(i, b) - SIGMA[b]) - SIGMA[a] * (d(a, b) - SIGMA[b]))


def d2_steps():
    i, a, b = INDEX[0], INDEX[3], INDEX[4]
    resolved, closed = d2_general()
    derivative = sp.Derivative(SIGMA[i], S_BASE[a], S_BASE[b])
    return (
        Step("Differentiating D1 once more (SymPy, sums evaluated under $1 \\le a, b \\le n$):", sp.Eq(derivative, resolved)),
        Step("In terms of $\\sigma$ this is", sp.Eq(derivative, closed)),
    )


def d2_result():
    i, a, b = INDEX[0], INDEX[3], INDEX[4]
    return (sp.Eq(sp.Derivative(SIGMA[i], S_BASE[a], S_BASE[b]), _d2_target(i, a, b)),)


def check_d2_general(formula=None):
    i, a, b = INDEX[0], INDEX[3], INDEX[4]
    target = _d2_target(i, a, b) if formula is None else formula(i, a, b)
    return sp.simplify(sp.expand(d2_general()[1] - target)) == 0, "general n (IndexedBase, KroneckerDelta)"


def check_d2_explicit(formula=hessian_formula, sizes=range(2, 9)):
    for n in sizes:
        s, z = _softmax_exprs(n)
        closed = formula(z)
        x = sp.symbols(f"x1:{n + 1}", positive=True)
        zx = [_rational(v, s) for v in z]
        for k in range(n):
            # ∂/∂s_a = x_a ∂/∂x_a on functions of x = e^s (chain rule), applied twice
            for a in range(n):
                first = x[a] * sp.diff(zx[k], x[a])
                for b in range(a, n):
                    second = x[b] * sp.diff(first, x[b])
                    if sp.cancel(second - _rational(closed[k][a][b], s)) != 0:
                        return False, f"difference does not vanish at n = {n}, (k, a, b) = {(k, a, b)}"
    return True, f"second derivatives − closed form ≡ 0 for n = {min(sizes)}..{max(sizes)}"


def check_d2_numeric(formula=hessian_formula, sizes=(8, 12), dps=40):
    worst = mp.mpf(0)
    with mp.workdps(dps):
        for n in sizes:
            s = _random_logits(n, n + 1)
            closed = _numeric(formula)(_softmax_mp(s))
            for a in range(n):
                for b in range(n):
                    def shifted(ta, tb, k, a=a, b=b):
                        t = list(s)
                        t[a] += ta
                        t[b] += tb
                        return _softmax_mp(t)[k]
                    for k in range(n):
                        fd = mp.diff(lambda ta, tb: shifted(ta, tb, k), (0, 0), (1, 1))
                        worst = max(worst, abs(fd - closed[k][a][b]))
        return worst < mp.mpf(10) ** (-dps + 12), f"max |finite difference − closed form| = {mp.nstr(worst, 3)} at {dps} digits"


# ---------------------------------------------------------------- D3


def _small_problem(n, N, d, seed, loss):
    rng = np.random.default_rng(seed)
    K = [[[int(v) for v in row] for row in rng.integers(-2, 3, (n, d))] for _ in range(N)]
    u = [[int(v) for v in row] for row in rng.integers(-2, 3, (N, n))]
    y = [sp.Symbol(f"y{i + 1}") for i in range(N)] if loss == "square" else [1 if v > 0 else -1 for v in rng.standard_normal(N)]
    return K, u, y


def _loss_terms(loss):
    yhat, y = sp.symbols("yhat y")
    ell = sp.Rational(1, 2) * (yhat - y) ** 2 if loss == "square" else sp.log(1 + sp.exp(-y * yhat))
    return ell, yhat, y


def d3_closed_hessian(K, u, y, p, loss, z_of):
    """(1/N) Σ K_iᵀ (J_i ℓ''_i u uᵀ J_i + Σ_k g_ik ∇²σ_k) K_i with g_i = ℓ'_i u_i (D3)."""
    ell, yhat_s, y_s = _loss_terms(loss)
    N, d = len(K), len(p)
    total = sp.zeros(d, d)
    for i in range(N):
        z = z_of(i)
        n = len(z)
        Ki = sp.Matrix(K[i])
        ui = sp.Matrix(u[i])
        yhat = (ui.T * sp.Matrix(z))[0]
        first = sp.diff(ell, yhat_s).subs({yhat_s: yhat, y_s: y[i]})
        second = sp.diff(ell, yhat_s, 2).subs({yhat_s: yhat, y_s: y[i]})
        J = jacobian_formula(z)
        T = hessian_formula(z)
        g = first * ui
        curvature = J * ui * ui.T * J * second + sp.Matrix(n, n, lambda a, b: sum(g[k] * T[k][a][b] for k in range(n)))
        total += Ki.T * curvature * Ki
    return total / N


def check_d3_symbolic(loss="square", sizes=((2, 1, 2), (2, 2, 2), (3, 1, 2), (2, 1, 3)), closed=d3_closed_hessian):
    for n, N, d in sizes:
        K, u, y = _small_problem(n, N, d, seed=n * 100 + N * 10 + d, loss=loss)
        p = sp.symbols(f"p1:{d + 1}", real=True)
        ell, yhat_s, y_s = _loss_terms(loss)
        logits = [[sum(K[i][r][c] * p[c] for c in range(d)) for r in range(n)] for i in range(N)]
        zs = []
        for i in range(N):
            e = [sp.exp(v) for v in logits[i]]
            zs.append([v / sum(e) for v in e])
        L = sum(ell.subs({yhat_s: sum(u[i][r] * zs[i][r] for r in range(n)), y_s: y[i]}) for i in range(N)) / N
        difference = sp.hessian(L, p) - closed(K, u, y, p, loss, lambda i: zs[i])
        if not all(_vanishes_in_p(entry, p) for entry in difference):
            return False, f"{loss} loss: difference does not vanish at (n, N, d) = {(n, N, d)}"
    return True, f"{loss} loss: sympy.hessian(L) − closed form ≡ 0 for (n, N, d) ∈ {list(sizes)}"


def check_d3_numeric(loss="square", size=(5, 4, 6), dps=40):
    """High-precision finite differences of L against the matrix-free closed form (verify.phessian)."""
    from verify import phessian

    n, N, d = size
    rng = np.random.default_rng(3)
    problem, _ = phessian.random_problem(rng, N, n, d, loss)
    p0 = rng.standard_normal(d)
    closed = phessian.dense_hessian(problem, p0)

    def loss_mp(p):
        total = mp.mpf(0)
        for i in range(N):
            s = [mp.fsum(mp.mpf(float(problem.K[i, r, c])) * p[c] for c in range(d)) for r in range(n)]
            z = _softmax_mp(s)
            yhat = mp.fsum(mp.mpf(float(problem.u[i, r])) * z[r] for r in range(n))
            y = mp.mpf(float(problem.y[i]))
            total += (yhat - y) ** 2 / 2 if loss == "square" else mp.log(1 + mp.exp(-y * yhat))
        return total / N

    worst = 0.0
    with mp.workdps(dps):
        base = [mp.mpf(float(v)) for v in p0]
        for a in range(d):
            for b in range(a, d):
                def shifted(ta, tb, a=a, b=b):
                    q = list(base)
                    q[a] += ta
                    q[b] += tb
                    return loss_mp(q)
                fd = mp.diff(shifted, (0, 0), (1, 1))
                worst = max(worst, abs(float(fd) - closed[a, b]) / max(1.0, abs(closed).max()))
    return worst < 1e-12, f"{loss} loss: max relative |finite difference − closed form| = {worst:.1e} ({dps}-digit FD, float64 closed form)"


def d3_steps():
    p, K_i, J_i, u_i, g, H = sp.symbols("p K_i J_i u_i g_i H_i", commutative=False)
    L = sp.Function("L")
    N = sp.Symbol("N", positive=True)
    Kt = sp.Symbol("K_i^{\\top}", commutative=False)
    return (
        Step("The loss over $N$ sequences with logits $s_i = K_i p$ and prediction $\\hat y_i = u_i^\\top \\sigma(s_i)$:",
             sp.Eq(L(p), sp.Sum(sp.Function("\\ell")(sp.Symbol("\\hat{y}_i"), sp.Symbol("y_i")), (sp.Symbol("i"), 1, N)) / N)),
        Step("By the chain rule with D1, $g_i = \\nabla_{z_i}\\ell = \\ell'(\\hat y_i)\\, u_i$:",
             sp.Eq(sp.Symbol("\\nabla L(p)"), sp.Sum(Kt * J_i * g, (sp.Symbol("i"), 1, N)) / N)),
        Step("Differentiating again, with D2 for the second derivative of $\\sigma$:",
             sp.Eq(sp.Symbol("\\nabla^2 L(p)"), sp.Sum(Kt * (J_i * H * J_i + sp.Symbol("R_i", commutative=False)) * K_i,
                                                      (sp.Symbol("i"), 1, N)) / N)),
    )


def d3_result():
    return (
        sp.Eq(sp.Symbol("H_i"), sp.Symbol("\\ell''(\\hat y_i)") * sp.Symbol("u_i u_i^{\\top}")),
        sp.Eq(sp.Symbol("R_i"), sp.Symbol("\\sum_k g_{ik} \\nabla^2 \\sigma_k(s_i)")),
        sp.Eq(sp.Symbol("\\nabla^2 L(p^*)"), sp.Symbol("K^{\\top} M K") * 1),
    )


# ---------------------------------------------------------------- D4 (Eq. 16)


def check_d4_symbolic(jac=jacobian_formula, hess=hessian_formula, sizes=(2, 3, 4)):
    eps = sp.Symbol("epsilon")
    for n in sizes:
        x = sp.symbols(f"x1:{n + 1}", positive=True)
        delta = sp.symbols(f"Delta1:{n + 1}", real=True)
        z = [v / sum(x) for v in x]
        moved = [xv * sp.exp(eps * dv) for xv, dv in zip(x, delta)]
        J, T = jac(z), hess(z)
        for k in range(n):
            series = sp.series(moved[k] / sum(moved), eps, 0, 3).removeO()
            first = sum(J[k, a] * delta[a] for a in range(n))
            second = sum(T[k][a][b] * delta[a] * delta[b] for a in range(n) for b in range(n)) / 2
            if sp.cancel(sp.together(series - z[k] - eps * first - eps**2 * second)) != 0:
                return False, f"Taylor coefficients differ at n = {n}, k = {k}"
    return True, f"series of σ(s + εΔ) to O(ε³) equals z + εJΔ + ε²/2·∇²σ[Δ,Δ] for n = {list(sizes)}"


def check_d4_numeric(jac=jacobian_formula, hess=hessian_formula, dps=60):
    """Remainder of Eq. (16) along Δs = −η K ∇L(p_t): ‖r‖ ∝ η³ (log–log slope 3 ± 0.1) as η → 0."""
    from verify import phessian

    rng = np.random.default_rng(16)
    problem, _ = phessian.random_problem(rng, 1, 6, 5)
    p_t = rng.standard_normal(5)
    direction = -(problem.K[0] @ phessian.gradient(problem, p_t))
    etas = [mp.mpf(10) ** -e for e in range(1, 7)]
    with mp.workdps(dps):
        s = [mp.mpf(float(v)) for v in problem.K[0] @ p_t]
        z = _softmax_mp(s)
        J, T = _numeric(jac)(z), _numeric(hess)(z)
        n = len(z)
        remainders = []
        for eta in etas:
            ds = [eta * mp.mpf(float(v)) for v in direction]
            moved = _softmax_mp([a + b for a, b in zip(s, ds)])
            model = [z[k] + mp.fsum(J[k, a] * ds[a] for a in range(n))
                     + mp.fsum(T[k][a][b] * ds[a] * ds[b] for a in range(n) for b in range(n)) / 2 for k in range(n)]
            remainders.append(mp.sqrt(mp.fsum((m - v) ** 2 for m, v in zip(moved, model))))
        logs = np.array([[float(mp.log10(e)), float(mp.log10(r))] for e, r in zip(etas, remainders)])
    slope = float(np.polyfit(logs[:, 0], logs[:, 1], 1)[0])
    return abs(slope - 3) <= 0.1, f"log–log slope of the remainder against η: {slope:.3f} (η = 1e-1 … 1e-6, {dps} digits)"


def d4_steps():
    eta = sp.Symbol("eta", positive=True)
    return (
        Step("One GD step moves the logits by",
             sp.Eq(sp.Symbol("\\Delta s"), sp.Mul(-1, eta, sp.Symbol("K \\nabla L(p_t)"), evaluate=False))),
        Step("Taylor's theorem in $\\Delta s$ with D1 and D2 gives Eq.~(16):",
             sp.Eq(sp.Symbol("z_{t+1}"), sp.Add(sp.Symbol("z_t"), sp.Symbol("J \\Delta s"),
                                                sp.Mul(sp.Rational(1, 2), sp.Symbol("\\nabla^{2}\\sigma[\\Delta s, \\Delta s]"), evaluate=False),
                                                sp.Symbol("O(\\|\\Delta s\\|^{3})"), evaluate=False))),
    )


def d4_result():
    return d4_steps()[1].expr,


# ---------------------------------------------------------------- D5


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
    from verify.assumption2 import best_keys
    from verify.softmax import jacobian

    rng = np.random.default_rng(5)
    n, N = 3, 3
    zs = [np.exp(-2 * rng.random(n)) for _ in range(N)]
    from scipy.linalg import block_diag

    Js = [jacobian(z / z.sum()) for z in zs]
    J = block_diag(*Js)
    decoupled = block_diag(*[Ji @ Ji for Ji in Js])

    def error(K):
        return np.linalg.norm(J @ K @ K.T @ J - decoupled) / np.linalg.norm(decoupled)

    exact = error(best_keys(n * N, n * N + 3, rng))
    random = error(rng.standard_normal((n * N, n * N + 3)) / np.sqrt(n * N + 3))
    return exact < 1e-14 and random > 1e-2, f"relative error {exact:.1e} with K Kᵀ = I, {random:.2f} with Gaussian keys"


def d5_steps():
    eta, N = sp.Symbol("eta", positive=True), sp.Symbol("N", positive=True)
    J, K, G = (sp.Symbol(v, commutative=False) for v in ("J", "K", "G"))
    Kt = sp.Symbol("K^{\\top}", commutative=False)
    return (
        Step("Stacking the examples, $\\nabla L = \\frac1N K^\\top J G$ with $J = \\operatorname{blockdiag}(J_i)$ and $G = (g_i)_i$, so to first order",
             sp.Eq(sp.Symbol("z_{t+1} - z_t"), -eta / N * J * K * Kt * J * G)),
        Step("Under Assumption 2 ($K K^\\top = I$) the preconditioner decouples:",
             sp.Eq(sp.Symbol("P"), BlockDiag(sp.Symbol("J_1^2"), sp.Symbol("\\ldots"), sp.Symbol("J_N^2")))),
    )


def d5_result():
    return (sp.Eq(sp.Symbol("J K K^{\\top} J"), BlockDiag(sp.Symbol("J_i^2"))),)


# ---------------------------------------------------------------- D6


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
    difference = sp.simplify(left - right)
    linear = difference == 0 or isinstance(difference, sp.ZeroMatrix)  # SymPy returns scalar 0 here
    residual_free = _zero_residual_hessian_is_gauss_newton()
    return linear and residual_free, "JK(I − ηKᵀMK) = (I − ηPH)JK (MatrixSymbol algebra); ∇²L(p*) = KᵀMK at zero residual, (n, N, d) = (2, 2, 2)"


def _zero_residual_hessian_is_gauss_newton(n=2, N=2, d=2):
    K, u, _ = _small_problem(n, N, d, seed=6, loss="square")
    p = sp.symbols(f"p1:{d + 1}", real=True)
    q = sp.symbols(f"q1:{d + 1}", real=True)  # p*
    def zs_at(point):
        out = []
        for i in range(N):
            e = [sp.exp(sum(K[i][r][c] * point[c] for c in range(d))) for r in range(n)]
            out.append([v / sum(e) for v in e])
        return out
    teacher = zs_at(q)
    y = [sum(u[i][r] * teacher[i][r] for r in range(n)) for i in range(N)]
    zs = zs_at(p)
    L = sum((sum(u[i][r] * zs[i][r] for r in range(n)) - y[i]) ** 2 for i in range(N)) / (2 * N)
    at_star = sp.hessian(L, p).subs(dict(zip(p, q)))
    gauss_newton = sp.zeros(d, d)
    for i in range(N):
        Ki, ui = sp.Matrix(K[i]), sp.Matrix(u[i])
        Ji = jacobian_formula(teacher[i])
        gauss_newton += Ki.T * Ji * ui * ui.T * Ji * Ki / N
    return all(_vanishes_in_p(a - b, q) for a, b in zip(at_star, gauss_newton))


def check_d6_numeric():
    """Run GD near p*: the observed contraction per step against max|1 − ηλ| over the Hessian's spectrum."""
    from verify import dynamics, phessian

    rng = np.random.default_rng(7)
    problem, p_star = phessian.random_problem(rng, 6, 3, 10, orthonormal=False, p_scale=0.5)
    spectrum = np.linalg.eigvalsh(phessian.dense_hessian(problem, p_star, exact=True))
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
    e = sp.Symbol("e_t", commutative=False)
    P, H = sp.Symbol("P^*", commutative=False), sp.Symbol("H^*", commutative=False)
    return (
        Step("Linearising the GD map $p \\mapsto p - \\eta \\nabla L(p)$ at a stationary $p^*$ with zero residual, where "
             "$\\nabla^2 L(p^*) = K^\\top M K$, $M = \\operatorname{blockdiag}(J_i H_i J_i)$, and mapping to attention space by $JK$:",
             sp.Eq(sp.Symbol("e_{t+1}"), (1 - eta * P * H) * e)),
        Step("With $P^* = J^* K K^\\top J^*$, the local rate at $\\eta = 1/\\lambda_{\\max}$ is",
             sp.Eq(sp.Symbol("\\rho"), 1 - 1 / sp.Symbol("\\kappa(K^{\\top} M K)"))),
    )


def d6_result():
    return d6_steps()[1].expr,


# ---------------------------------------------------------------- A2.dim (rank argument)


def check_rank_symbolic():
    from verify.assumption2 import SYMBOLIC_SIZES, symbolic_rank_proof

    proved = symbolic_rank_proof()
    return len(proved) == len(SYMBOLIC_SIZES), f"det(K Kᵀ) ≡ 0 for symbolic K of sizes {', '.join(proved)} (nN × d)"


def check_rank_numeric():
    from verify.assumption2 import best_keys, least_violation_bound, violation

    rng = np.random.default_rng(2)
    worst = 0.0
    for rows in range(2, 13):
        for d in range(1, rows):
            spectral, frobenius = violation(best_keys(rows, d, rng))
            bound = least_violation_bound(rows, d)
            worst = max(worst, abs(spectral - bound[0]), abs(frobenius - bound[1]))
    return worst < 1e-12, f"orthonormal-column K reaches (1, √(nN − d)) to {worst:.1e} for nN ≤ 12, all d < nN"


def rank_steps():
    return (
        Step("For $K \\in \\mathbb{R}^{nN \\times d}$ with $d < nN$,",
             sp.Le(sp.Symbol("\\operatorname{rank}(K K^{\\top})"), sp.Symbol("\\operatorname{rank}(K)"))),
        Step("and $\\operatorname{rank}(K) \\le d$, so $K K^\\top$ is singular and at least $nN - d$ eigenvalues of $K K^\\top - I$ equal $-1$:",
             sp.Ge(sp.Symbol("\\|K K^{\\top} - I\\|_F^2"), sp.Symbol("nN") - sp.Symbol("d"))),
    )


def rank_result():
    return (sp.Eq(sp.Symbol("\\min_K \\|K K^{\\top} - I\\|_2"), 1),
            sp.Eq(sp.Symbol("\\min_K \\|K K^{\\top} - I\\|_F"), sp.sqrt(sp.Symbol("nN") - sp.Symbol("d"))))


# ---------------------------------------------------------------- the registry

DERIVATIONS = (
    Derivation("D1", "Softmax Jacobian", "softmax-jacobian",
               ("$\\sigma(s)_i = e^{s_i} / \\sum_{j=1}^n e^{s_j}$", "$1 \\le i, k \\le n$"),
               d1_steps, d1_result,
               "SymPy for general $n$ (indexed symbols) and as explicit matrices for $n = 2, \\dots, 8$; "
               "numerically against 40-digit finite differences for $n = 12, 20$.",
               (("symbolic", "general n", check_d1_general), ("symbolic", "n = 2..8", check_d1_explicit),
                ("numeric", "n = 12, 20", check_d1_numeric))),
    Derivation("D2", "Softmax Hessian tensor", "softmax-hessian",
               ("as in D1", "$1 \\le a, b \\le n$"),
               d2_steps, d2_result,
               "SymPy for general $n$ and for every entry at $n = 2, \\dots, 8$; numerically against 40-digit "
               "mixed finite differences for $n = 8, 12$.",
               (("symbolic", "general n", check_d2_general), ("symbolic", "n = 2..8", check_d2_explicit),
                ("numeric", "n = 8, 12", check_d2_numeric))),
    Derivation("D3", "Gradient and Hessian of the loss in the prompt", "loss-hessian",
               ("$L(p) = \\frac1N \\sum_i \\ell(u_i^\\top \\sigma(K_i p), y_i)$",
                "square loss $\\ell = \\frac12(\\hat y - y)^2$ or logistic loss $\\ell = \\log(1 + e^{-y \\hat y})$",
                "$M = \\operatorname{blockdiag}(J_i H_i J_i)$; at a zero-residual $p^*$ only the Gauss--Newton part remains"),
               d3_steps, d3_result,
               "\\texttt{sympy.hessian} of $L$ against the closed form for $(n, N, d)$ up to $(3, 1, 2)$ and $(2, 1, 3)$, "
               "both losses; numerically against 40-digit finite differences of $L$ at $(n, N, d) = (5, 4, 6)$.",
               (("symbolic", "square, n,N,d ≤ 3", check_d3_symbolic),
                ("symbolic", "logistic, n,N,d ≤ 3", lambda: check_d3_symbolic("logistic", sizes=((2, 1, 2), (2, 2, 2)))),
                ("numeric", "square (5, 4, 6)", check_d3_numeric),
                ("numeric", "logistic (5, 4, 6)", lambda: check_d3_numeric("logistic")))),
    Derivation("D4", "Eq. (16): one GD step in attention space to second order", "eq16-quadratic",
               ("$\\Delta s = -\\eta K \\nabla L(p_t)$", "$\\sigma$ smooth (D1, D2)"),
               d4_steps, d4_result,
               "SymPy series of $\\sigma(s + \\varepsilon \\Delta)$ to $O(\\varepsilon^3)$ for $n = 2, 3, 4$; numerically, "
               "the remainder along a GD step decays with log--log slope $3 \\pm 0.1$ as $\\eta \\to 0$ (60 digits).",
               (("symbolic", "n = 2, 3, 4", check_d4_symbolic), ("numeric", "η = 1e-1..1e-6", check_d4_numeric))),
    Derivation("D5", "GD as preconditioned descent in attention space", "preconditioned-descent",
               ("first order in $\\eta$", "Assumption 2 read as $K K^\\top = I_{nN}$"),
               d5_steps, d5_result,
               "SymPy with symbolic coefficients and exactly orthonormal rational keys; numerically, the "
               "decoupled preconditioner is exact when $K K^\\top = I$ and off by a constant factor otherwise.",
               (("symbolic", "(n, N, d) ≤ (2, 4, 8)", check_d5_symbolic), ("numeric", "n = 3, N = 3, d = 12", check_d5_numeric))),
    Derivation("D6", "Linearisation at a stationary point and the local rate", "linearisation",
               ("$p^*$ stationary with zero residual (student--teacher)", "$\\eta \\le 1/\\lambda_{\\max}$"),
               d6_steps, d6_result,
               "SymPy matrix algebra for the conjugation identity and the Gauss--Newton form of the Hessian at "
               "$p^*$; numerically, GD run near $p^*$ contracts at the predicted rate.",
               (("symbolic", "matrix algebra; (2, 2, 2)", check_d6_symbolic), ("numeric", "n = 3, N = 6, d = 10", check_d6_numeric))),
    Derivation("A2", "Assumption 2 needs $d \\ge nN$ (rank argument)", "assumption2-rank",
               ("$K \\in \\mathbb{R}^{nN \\times d}$ real", "$d < nN$"),
               rank_steps, rank_result,
               "SymPy: $\\det(K K^\\top)$ expands to $0$ for a $K$ of independent symbols for every $(nN, d)$ with "
               "$nN \\le 4$; numerically, orthonormal columns reach both bounds for $nN \\le 12$.",
               (("symbolic", "nN ≤ 4", check_rank_symbolic), ("numeric", "nN ≤ 12", check_rank_numeric))),
)

DERIVATION_REGISTRY = {d.id: d for d in DERIVATIONS}


def run_checks(derivation):
    results = []
    for kind, sizes, function in derivation.checks:
        passed, detail = function()
        results.append(Check(kind, sizes, bool(passed), detail))
    return tuple(results)


# ---------------------------------------------------------------- T2 claims at n = 2, proved by SymPy


@functools.lru_cache(maxsize=1)
def two_token_spectrum():
    """J H J on T for n = 2 with z = (1 − t, t), t ∈ (0, ½], and a symbolic SPD H = [[a, b], [b, c]]
    reparametrised by h = vᵀHv > 0 (T is the line of v = (1, −1)/√2): SymPy computes every T2
    quantity from J and H; the result must depend on H through h alone."""
    from verify.spectra import CurvatureSpectrum

    t, h, c = sp.symbols("t h c", positive=True)
    b = sp.Symbol("b", real=True)
    a = 2 * h + 2 * b - c  # so that vᵀHv = (a − 2b + c)/2 = h
    z = [1 - t, t]
    J = jacobian_formula(z)
    H = sp.Matrix([[a, b], [b, c]])
    v = sp.Matrix([1, -1]) / sp.sqrt(2)
    curvature = sp.factor(sp.cancel((v.T * J * H * J * v)[0]))
    h_T = sp.cancel((v.T * H * v)[0])
    q = CurvatureSpectrum(2, curvature, curvature, h_T, h_T, None, None, (1 - t, t), 0.0, None,
                          kappa=sp.Integer(1), R=(1 - t) / t)
    return q, t, h, (b, c)


def prove_two_token(claim, reading):
    """For the tangent-exact reading: does every inequality of `claim` hold for all t ∈ (0, ½] and
    all SPD H at n = 2?  Uses the claim's own `sides`; returns (proved, detail), or None if n = 2 is
    outside the claim (T2.interlace needs n ≥ 3) or the reading is not tangent-exact."""
    from verify.claims import TANGENT

    if reading != TANGENT or claim.multi or claim.min_n > 2:
        return None
    q, t, h, others = two_token_spectrum()
    for ineq in claim.sides(q, q.L_T, q.mu_T):
        gap = sp.cancel(ineq.lhs - ineq.rhs if ineq.relation == ">=" else ineq.rhs - ineq.lhs)
        if gap.free_symbols & set(others):
            return False, f"n = 2: {ineq.label} depends on H beyond vᵀHv (not proved)"
        degree = next((k for k in range(4) if sp.cancel(gap.subs(h, 2 * h) - 2**k * gap) == 0), None)
        if degree is None:
            return False, f"n = 2: {ineq.label} is not homogeneous in h (not proved)"
        failing = _negative_points(sp.cancel(gap.subs(h, 1)), t)  # h > 0: gap = h^degree · (gap at h = 1)
        if failing:
            return False, f"n = 2: {ineq.label} fails, e.g. at z_min = {failing[0]}"
    return True, "n = 2: every inequality holds for all z and every SPD H (SymPy, exact)"


def _negative_points(rational, t):
    """Points of (0, ½] where the rational function of t is negative: its sign is constant between
    the exact real roots of numerator and denominator, so one exact evaluation per piece decides."""
    numerator, denominator = sp.fraction(sp.together(rational))
    cuts = {sp.Integer(0), sp.Rational(1, 2)}
    for poly in (numerator, denominator):
        if sp.Poly(poly, t).degree() > 0:
            cuts |= {r for r in sp.Poly(poly, t).real_roots() if 0 < r < sp.Rational(1, 2)}
    cuts = sorted(cuts, key=lambda r: float(r))
    probes = [(a + b) / 2 for a, b in zip(cuts, cuts[1:])] + [sp.Rational(1, 2)]
    return [p for p in probes if rational.subs(t, p) < 0]
