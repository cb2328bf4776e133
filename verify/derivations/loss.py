"""D3 and D4: the gradient and Hessian of L(p), and Eq. (16), the quadratic approximation of one GD step."""
import mpmath as mp
import numpy as np
import sympy as sp

from verify.derivations.exact import Exp, vanishes
from verify.derivations.records import (Step, hessian_formula, jacobian_formula, numeric, softmax_exprs, softmax_mp,
                                         softmax_of_linear)
from verify.numerics import model


def small_problem(n, N, d, seed, loss):
    rng = np.random.default_rng(seed)
    K = [[[int(v) for v in row] for row in rng.integers(-2, 3, (n, d))] for _ in range(N)]
    u = [[int(v) for v in row] for row in rng.integers(-2, 3, (N, n))]
    y = [sp.Symbol(f"y{i + 1}") for i in range(N)] if loss == "square" else [1 if v > 0 else -1 for v in rng.standard_normal(N)]
    return K, u, y


def _loss_terms(loss):
    yhat, y = sp.symbols("yhat y")
    ell = sp.Rational(1, 2) * (yhat - y) ** 2 if loss == "square" else sp.log(1 + Exp(-y * yhat))
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
        K, u, y = small_problem(n, N, d, seed=n * 100 + N * 10 + d, loss=loss)
        p = sp.symbols(f"p1:{d + 1}", real=True)
        ell, yhat_s, y_s = _loss_terms(loss)
        zs = [softmax_of_linear(K[i], p) for i in range(N)]
        L = sum(ell.subs({yhat_s: sum(u[i][r] * zs[i][r] for r in range(n)), y_s: y[i]}) for i in range(N)) / N
        difference = sp.hessian(L, p) - closed(K, u, y, p, loss, lambda i: zs[i])
        if not all(vanishes(entry) for entry in difference):
            return False, f"{loss} loss: difference does not vanish at (n, N, d) = {(n, N, d)}"
    return True, f"{loss} loss: sympy.hessian(L) − closed form ≡ 0 for (n, N, d) ∈ {list(sizes)}"


def check_d3_logistic():
    return check_d3_symbolic("logistic")


def check_d3_numeric(loss="square", size=(5, 4, 6), dps=40):
    """High-precision finite differences of L against the matrix-free closed form (verify.phessian)."""
    n, N, d = size
    rng = np.random.default_rng(3)
    problem, _ = model.student_teacher(rng, N, n, d, loss)
    p0 = rng.standard_normal(d)
    closed = model.dense_hessian(problem, p0)

    def loss_mp(p):
        total = mp.mpf(0)
        for i in range(N):
            s = [mp.fsum(mp.mpf(float(problem.K[i, r, c])) * p[c] for c in range(d)) for r in range(n)]
            z = softmax_mp(s)
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


def check_d3_numeric_logistic():
    return check_d3_numeric("logistic")


def d3_steps():
    p, K_i, J_i, g, H, R = sp.symbols("p Kᵢ Jᵢ gᵢ Hᵢ Rᵢ", commutative=False)
    N, i = sp.Symbol("N", positive=True), sp.Symbol("i")
    Kt = sp.Symbol("Kᵢᵀ", commutative=False)
    ell = sp.Function("ℓ")(sp.Symbol("ŷᵢ"), sp.Symbol("yᵢ"))
    return (
        Step("The loss over N sequences with logits s_i = K_i p and prediction ŷ_i = u_iᵀ σ(s_i):",
             sp.Eq(sp.Function("L")(p), sp.Sum(ell, (i, 1, N)) / N)),
        Step("By the chain rule with D1, g_i = ∇_{z_i} ℓ = ℓ′(ŷ_i) u_i:",
             sp.Eq(sp.Symbol("∇L(p)"), sp.Sum(Kt * J_i * g, (i, 1, N)) / N)),
        Step("Differentiating again, with D2 for the second derivative of σ:",
             sp.Eq(sp.Symbol("∇²L(p)"), sp.Sum(Kt * (J_i * H * J_i + R) * K_i, (i, 1, N)) / N)),
    )


def d3_result():
    u, ut = sp.symbols("uᵢ uᵢᵀ", commutative=False)
    return (
        sp.Eq(sp.Symbol("Hᵢ"), sp.Symbol("ℓ″(ŷᵢ)") * u * ut),
        sp.Eq(sp.Symbol("Rᵢ"), sp.Symbol("Σₖ gᵢₖ ∇²σₖ(sᵢ)")),
        sp.Eq(sp.Symbol("∇²L(p*)"), sp.Symbol("Kᵀ M K")),
    )


# ---------------------------------------------------------------- D4 (Eq. 16)


def check_d4_symbolic(jac=jacobian_formula, hess=hessian_formula, sizes=(2, 3, 4)):
    """The Taylor polynomial of σ(s + εΔ) to second order in ε (SymPy's derivatives at ε = 0) against
    z + ε JΔ + ε²/2 ∇²σ[Δ, Δ], as a polynomial in ε with symbolic s and Δ."""
    eps = sp.Symbol("epsilon")
    for n in sizes:
        s, z = softmax_exprs(n)
        delta = sp.symbols(f"Delta1:{n + 1}", real=True)
        moved = [Exp(sv + eps * dv) for sv, dv in zip(s, delta)]
        total = sp.Add(*moved)
        J, T = jac(z), hess(z)
        for k in range(n):
            along = moved[k] / total
            taylor = sum(sp.diff(along, eps, order).subs(eps, 0) * eps**order / sp.factorial(order) for order in range(3))
            first = sum(J[k, a] * delta[a] for a in range(n))
            second = sum(T[k][a][b] * delta[a] * delta[b] for a in range(n) for b in range(n)) / 2
            if not vanishes(taylor - z[k] - eps * first - eps**2 * second):
                return False, f"Taylor coefficients differ at n = {n}, k = {k}"
    return True, f"Taylor polynomial of σ(s + εΔ) to ε² equals z + εJΔ + ε²/2·∇²σ[Δ,Δ] for n = {list(sizes)}"


def check_d4_numeric(jac=jacobian_formula, hess=hessian_formula, dps=60):
    """Remainder of Eq. (16) along Δs = −η K ∇L(p_t): ‖r‖ ∝ η³ (log–log slope 3 ± 0.1) as η → 0."""
    rng = np.random.default_rng(16)
    problem, _ = model.student_teacher(rng, 1, 6, 5)
    p_t = rng.standard_normal(5)
    direction = -(problem.K[0] @ model.gradient(problem, p_t))
    etas = [mp.mpf(10) ** -e for e in range(1, 7)]
    with mp.workdps(dps):
        s = [mp.mpf(float(v)) for v in problem.K[0] @ p_t]
        z = softmax_mp(s)
        J, T = numeric(jac)(z), numeric(hess)(z)
        n = len(z)
        remainders = []
        for eta in etas:
            ds = [eta * mp.mpf(float(v)) for v in direction]
            moved = softmax_mp([a + b for a, b in zip(s, ds)])
            quadratic = [z[k] + mp.fsum(J[k, a] * ds[a] for a in range(n))
                     + mp.fsum(T[k][a][b] * ds[a] * ds[b] for a in range(n) for b in range(n)) / 2 for k in range(n)]
            remainders.append(mp.sqrt(mp.fsum((m - v) ** 2 for m, v in zip(moved, quadratic))))
        logs = np.array([[float(mp.log10(e)), float(mp.log10(r))] for e, r in zip(etas, remainders)])
    slope = float(np.polyfit(logs[:, 0], logs[:, 1], 1)[0])
    return abs(slope - 3) <= 0.1, f"log–log slope of the remainder against η: {slope:.3f} (η = 1e-1 … 1e-6, {dps} digits)"


def d4_steps():
    eta = sp.Symbol("eta", positive=True)
    return (
        Step("One GD step moves the logits by",
             sp.Eq(sp.Symbol("Δs"), sp.Mul(-1, eta, sp.Symbol("K ∇L(pₜ)"), evaluate=False))),
        Step("Taylor's theorem in Δs with D1 and D2 gives Eq. (16):",
             sp.Eq(sp.Symbol("zₜ₊₁"), sp.Add(sp.Symbol("zₜ"), sp.Symbol("J Δs"),
                                             sp.Mul(sp.Rational(1, 2), sp.Symbol("∇²σ[Δs, Δs]"), evaluate=False),
                                             sp.Symbol("O(‖Δs‖³)"), evaluate=False))),
    )


def d4_result():
    return d4_steps()[1].expr,
