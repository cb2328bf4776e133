"""D1 and D2: the softmax Jacobian and Hessian tensor, symbolic (general n and n = 2..8) and numeric."""
from functools import cache

import mpmath as mp
import sympy as sp

from verify.derivations.exact import vanishes
from verify.derivations.records import (DIAG, INDEX, N_SYM, S_BASE, SIGMA, Step, hessian_formula, jacobian_formula,
                                         numeric, random_logits, resolve_range, shifted_softmax, softmax_exprs,
                                         softmax_mp, to_sigma)
from verify.numerics.precision import decimal


@cache
def d1_general():
    """σ_i = e^{s_i}/Σ_j e^{s_j} differentiated by SymPy for general n; shared by the steps and the check."""
    i, k, j = INDEX[0], INDEX[1], INDEX[2]
    sigma_i = sp.exp(S_BASE[i]) / sp.Sum(sp.exp(S_BASE[j]), (j, 1, N_SYM))
    raw = sp.diff(sigma_i, S_BASE[k])
    resolved = resolve_range(raw.doit())
    closed = sp.simplify(to_sigma(resolved, (i, k)))
    return sigma_i, raw, resolved, closed


def d1_steps():
    i, k = INDEX[0], INDEX[1]
    sigma_i, raw, resolved, closed = d1_general()
    derivative = sp.Derivative(SIGMA[i], S_BASE[k])
    return (
        Step("The softmax of the logits s ∈ ℝⁿ, coordinate i:", sp.Eq(SIGMA[i], sigma_i)),
        Step("SymPy differentiates through the sum, which carries a Kronecker delta:", sp.Eq(derivative, raw)),
        Step("Evaluating the sum gives a piecewise term equal to e^{s_k} for 1 ≤ k ≤ n:", sp.Eq(derivative, resolved)),
        Step("With e^{s_i} = σ_i Σ_j e^{s_j} this simplifies to", sp.Eq(derivative, closed)),
    )


def d1_result():
    i, k = INDEX[0], INDEX[1]
    z, zt = sp.Symbol("z", commutative=False), sp.Symbol("zᵀ", commutative=False)
    return (sp.Eq(sp.Symbol("J(z)"), sp.Add(DIAG(z), -z * zt, evaluate=False)),
            sp.Eq(sp.Derivative(SIGMA[i], S_BASE[k]), SIGMA[i] * (sp.KroneckerDelta(i, k) - SIGMA[k])))


def check_d1_general(formula=None):
    i, k = INDEX[0], INDEX[1]
    closed = d1_general()[3]
    target = SIGMA[i] * (sp.KroneckerDelta(i, k) - SIGMA[k]) if formula is None else formula(i, k)
    return sp.expand(closed - target) == 0, "general n (IndexedBase, KroneckerDelta)"


def check_d1_explicit(formula=jacobian_formula, sizes=range(2, 9)):
    for n in sizes:
        s, z = softmax_exprs(n)
        difference = sp.Matrix(z).jacobian(s) - formula(z)
        if not all(vanishes(entry) for entry in difference):
            return False, f"difference does not vanish at n = {n}"
    return True, f"Matrix.jacobian − closed form ≡ 0 for n = {min(sizes)}..{max(sizes)}"


def check_d1_numeric(formula=jacobian_formula, sizes=(12, 20), dps=40):
    worst = mp.mpf(0)
    with mp.workdps(dps):
        for n in sizes:
            s = random_logits(n, n)
            closed = numeric(formula)(softmax_mp(s))
            moved = shifted_softmax(s)
            for a in range(n):
                column = [mp.diff(lambda t: moved(a, t)[k], 0) for k in range(n)]
                worst = max(worst, max(abs(column[k] - closed[k, a]) for k in range(n)))
        passed = worst < mp.mpf(10) ** (-dps + 10)
        return passed, f"max |finite difference − closed form| = {decimal(worst, 3, strip_zeros=True)} at {dps} digits"


@cache
def d2_general():
    i, a, b, j = INDEX[0], INDEX[3], INDEX[4], INDEX[2]
    sigma_i = sp.exp(S_BASE[i]) / sp.Sum(sp.exp(S_BASE[j]), (j, 1, N_SYM))
    raw = sp.diff(sigma_i, S_BASE[a], S_BASE[b])
    resolved = resolve_range(raw.doit())
    closed = sp.factor(sp.expand(to_sigma(resolved, (i, a, b))), SIGMA[i])
    return resolved, closed


def _d2_target(i, a, b):
    d = sp.KroneckerDelta
    return SIGMA[i] * ((d(i, a) - SIGMA[a]) * (d(i, b) - SIGMA[b]) - SIGMA[a] * (d(a, b) - SIGMA[b]))


def d2_steps():
    i, a, b = INDEX[0], INDEX[3], INDEX[4]
    resolved, closed = d2_general()
    derivative = sp.Derivative(SIGMA[i], S_BASE[a], S_BASE[b])
    return (
        Step("Differentiating D1 once more (SymPy, sums evaluated under 1 ≤ a, b ≤ n):", sp.Eq(derivative, resolved)),
        Step("In terms of σ this is", sp.Eq(derivative, closed)),
    )


def d2_result():
    i, a, b = INDEX[0], INDEX[3], INDEX[4]
    return (sp.Eq(sp.Derivative(SIGMA[i], S_BASE[a], S_BASE[b]), _d2_target(i, a, b)),)


def check_d2_general(formula=None):
    i, a, b = INDEX[0], INDEX[3], INDEX[4]
    target = _d2_target(i, a, b) if formula is None else formula(i, a, b)
    return sp.expand(d2_general()[1] - target) == 0, "general n (IndexedBase, KroneckerDelta)"


def check_d2_explicit(formula=hessian_formula, sizes=range(2, 9)):
    for n in sizes:
        x = sp.symbols(f"x1:{n + 1}", positive=True)
        total = sp.Add(*x)
        z = [v / total for v in x]  # σ(s) with x = e^s
        closed = formula(z)
        for k in range(n):
            # ∂/∂s_a = x_a ∂/∂x_a on functions of x = e^s (chain rule), applied twice
            for a in range(n):
                first = x[a] * sp.diff(z[k], x[a])
                for b in range(a, n):
                    if not vanishes(x[b] * sp.diff(first, x[b]) - closed[k][a][b]):
                        return False, f"difference does not vanish at n = {n}, (k, a, b) = {(k, a, b)}"
    return True, f"second derivatives − closed form ≡ 0 for n = {min(sizes)}..{max(sizes)}"


def check_d2_numeric(formula=hessian_formula, sizes=(8, 12), dps=40):
    worst = mp.mpf(0)
    with mp.workdps(dps):
        for n in sizes:
            s = random_logits(n, n + 1)
            closed = numeric(formula)(softmax_mp(s))
            moved = shifted_softmax(s)
            for a in range(n):
                for b in range(n):
                    for k in range(n):
                        fd = mp.diff(lambda ta, tb: moved(a, ta, b, tb)[k], (0, 0), (1, 1))
                        worst = max(worst, abs(fd - closed[k][a][b]))
        return worst < mp.mpf(10) ** (-dps + 12), f"max |finite difference − closed form| = {decimal(worst, 3, strip_zeros=True)} at {dps} digits"
