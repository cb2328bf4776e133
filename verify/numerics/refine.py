"""Extreme eigenvalues of J H J on T, of H on T and of H for large n, to many digits in O(n²)
high-precision work: float64 eigenpairs of each scaled problem, refined by high-precision (Arb)
residuals, and enclosed by the residual.

For a symmetric operator M and a vector x, with θ = xᵀMx / xᵀx and r = Mx − θx, some eigenvalue of
M lies in [θ − ‖r‖/‖x‖, θ + ‖r‖/‖x‖] (the residual bound); all of θ, r and ‖r‖ are Arb balls, so
the interval is rigorous. That it is the *extreme* eigenvalue is read off the float64 spectrum of
the same scaled matrix: the enclosure is accepted only when the float64 gap to the next eigenvalue
exceeds the residual plus LAPACK's backward error (n·eps·‖M‖), and `identified` records it.
λ_min of J H J on T is far below ‖J H J‖·eps in the paper's regime, so it comes as 1/λ_max of
B⁺ = J⁺ H_T⁻¹ J⁺ (scaled by z_min²), whose products need H_T⁻¹ y: a float64 LU of the bordered
matrix [[H, 1], [1ᵀ, 0]] refined by Arb residuals, its error bounded by ‖residual‖/μ_T.
"""
import math
from dataclasses import dataclass

import flint
import numpy as np
import scipy.linalg

from verify.numerics.arb import softmax_arb
from verify.numerics.curvature import scaled_operators
from verify.numerics.precision import bits_for, to_arb

EPS = np.finfo(float).eps
STEPS = 6  # refinement steps at most per eigenpair


@dataclass(frozen=True)
class RefinedSpectrum:
    """Balls for the extreme eigenvalues (same names as CurvatureSpectrum), `identified` when every one
    was shown to be the extreme eigenvalue by the float64 gap, and the working precision (bits)."""

    n: int
    lambda_max: object
    lambda_min: object
    L_T: object
    mu_T: object
    L_amb: object
    mu_amb: object
    kappa: object
    R: object
    z_desc: tuple
    identified: bool
    bits: int


def _column(values):
    return flint.arb_mat([[v] for v in values])


def _norm(x):
    """An upper bound of ‖x‖ as an exact ball (a tiny residual's ball for ‖x‖² may reach below 0)."""
    return flint.arb((x.transpose() * x)[0, 0].upper()).sqrt()


def _to_floats(x):
    return np.array([float(x[i, 0].mid()) for i in range(x.nrows())])


def _mean(x):
    return sum(x[i, 0] for i in range(x.nrows())) / x.nrows()


def _project(x):
    """P x = x − mean(x) 1 (exact in Arb)."""
    mean = _mean(x)
    return _column([x[i, 0] - mean for i in range(x.nrows())])


def refine(apply, M_f, end, target, extra_error=lambda x: 0, values=None):
    """The extreme eigenvalue (`end` = "top" or "bottom") of the operator `apply` (Arb column → Arb
    column), whose float64 matrix is M_f: (ball, identified). The float64 eigenvalues (`values`, else
    LAPACK's, without vectors) give the end and its neighbour; inverse iteration gives its vector;
    Newton steps on the bordered system [[M_f − θI, x], [xᵀ, 0]] correct x until the relative residual
    is below `target`. `extra_error(x)` bounds the error of `apply` itself (an inexact solve inside it)."""
    n = len(M_f)
    w = np.sort(scipy.linalg.eigvalsh(M_f) if values is None else values)
    own, neighbour = (n - 1, n - 2) if end == "top" else (0, 1)
    x_f = _inverse_iteration(M_f, w[own])
    bordered = np.zeros((n + 1, n + 1))
    bordered[:n, :n] = M_f - w[own] * np.eye(n)
    bordered[:n, n] = bordered[n, :n] = x_f
    lu = scipy.linalg.lu_factor(bordered)
    x = _column([float(v) for v in x_f])
    for _ in range(STEPS):
        y = apply(x)
        xx = (x.transpose() * x)[0, 0]
        theta = (x.transpose() * y)[0, 0] / xx
        residual = y - x * theta
        radius = (_norm(residual) + extra_error(x)) / xx.sqrt()
        if float((radius / abs(theta)).upper()) < target:
            break
        step = scipy.linalg.lu_solve(lu, np.append(-_to_floats(residual), 0.0))[:n]
        x = x + _column([float(v) for v in step])
    gap = abs(w[own] - w[neighbour])
    backward = 4 * n * EPS * float(np.abs(M_f).sum(axis=1).max())  # LAPACK's backward error, ‖M_f‖ ≤ max row sum
    identified = gap > 2 * (float(radius.upper()) + backward)
    return theta + flint.arb(0, float(radius.upper())), identified


def _inverse_iteration(M_f, value, steps=3):
    """A unit eigenvector of M_f for the eigenvalue near `value` (a seeded start, three solves)."""
    n = len(M_f)
    shift = value + 8 * EPS * max(abs(value), float(np.abs(M_f).max()))  # never exactly singular
    lu = scipy.linalg.lu_factor(M_f - shift * np.eye(n))
    x = np.random.default_rng(n).standard_normal(n)
    for _ in range(steps):
        x = scipy.linalg.lu_solve(lu, x)
        x /= np.linalg.norm(x)
    return x


def refined_curvature(log_z, H, dps=30):
    """The extreme eigenvalues of J H J on T, of H on T and of H as balls (see the module docstring)."""
    n = len(log_z)
    bits = bits_for(dps + 20)
    target = 10.0 ** -(dps + 3)
    with flint.ctx.workprec(bits):
        z = softmax_arb(log_z)
        Hq = flint.arb_mat([[to_arb(v) for v in row] for row in H])
        H_f = np.array([[float(v) for v in row] for row in H])
        log_z_f = np.array([float(v) for v in log_z])
        log_z_f = log_z_f - log_z_f.max()
        log_z_f = log_z_f - np.log(np.sum(np.exp(log_z_f)))
        B_f, Bp_f, c, log_z_min, _ = scaled_operators(log_z_f, H_f)
        constants, identified_H = _constants(Hq, H_f, target)
        L_T, mu_T, L_amb, mu_amb = constants
        top_B, identified_B = _top_of_B(z, Hq, B_f, c, target)
        top_Bp, identified_Bp = _top_of_Bplus(z, Hq, H_f, Bp_f, mu_T, target)
        z_desc = tuple(sorted(z, key=lambda a: a.mid(), reverse=True))
        lambda_min = z_desc[-1] ** 2 / top_Bp
        return RefinedSpectrum(n, top_B, lambda_min, L_T, mu_T, L_amb, mu_amb, top_B / lambda_min,
                               z_desc[0] / z_desc[-1], z_desc, identified_H and identified_B and identified_Bp, bits)


def _constants(Hq, H_f, target):
    """L, μ of H; L_T, μ_T of P H P on T (its eigenvector along 1, eigenvalue 0, is left out)."""
    values = scipy.linalg.eigvalsh(H_f)  # one tridiagonalisation serves both ends
    L_amb, ok_L = refine(lambda x: Hq * x, H_f, "top", target, values=values)
    mu_amb, ok_mu = refine(lambda x: Hq * x, H_f, "bottom", target, values=values)
    # P H P has the eigenvalue 0 along 1; adding s·11ᵀ/n moves it to s, away from the end sought
    P_f = H_f - H_f.mean(axis=0, keepdims=True) - H_f.mean(axis=1, keepdims=True) + H_f.mean()
    bound = float(np.abs(H_f).sum(axis=1).max())  # ≥ every eigenvalue of H and of H on T
    shifted = lambda s: (lambda x: _project(Hq * _project(x)) + _column([_mean(x) * s] * len(H_f)))
    L_T, ok_LT = refine(shifted(-bound), P_f - bound / len(H_f), "top", target)
    mu_T, ok_muT = refine(shifted(2 * bound), P_f + 2 * bound / len(H_f), "bottom", target)
    return (L_T, mu_T, L_amb, mu_amb), ok_L and ok_mu and ok_LT and ok_muT


def _top_of_B(z, Hq, B_f, c, target):
    """λ_max(J H J) = e^{2c} λ_max(B_f) with B_f = J H J / e^{2c} (c from the float64 scaling, exact)."""
    scale = flint.arb(math.exp(-c))  # a float: exactly the factor the float64 matrix used, up to its rounding
    J = _jacobian_product(z)

    top, identified = refine(lambda x: J(Hq * J(x)) * (scale * scale), B_f, "top", target)
    return top / (scale * scale), identified


def _jacobian_product(z):
    """x ↦ J(z) x with (Jx)_i = z_i ((1 − z_i) x_i − Σ_{j≠i} z_j x_j), where for the largest z_i (near 1) both
    1 − z_i and the sum are taken over the other coefficients: no cancellation of x_i − zᵀx."""
    n = len(z)
    top = max(range(n), key=lambda i: z[i].mid())
    rest = sum(z[j] for j in range(n) if j != top)
    complement = [rest if i == top else 1 - z[i] for i in range(n)]

    def apply(x):
        weighted = [z[j] * x[j, 0] for j in range(n)]
        total = sum(weighted)
        others_of_top = sum(weighted[j] for j in range(n) if j != top)
        return _column([z[i] * (complement[i] * x[i, 0] - (others_of_top if i == top else total - weighted[i]))
                        for i in range(n)])

    return apply


def _top_of_Bplus(z, Hq, H_f, Bp_f, mu_T, target):
    """λ_max(B⁺)·z_min², B⁺ = P D⁻¹ H_T⁻¹ D⁻¹ P on T, with the solves refined in Arb."""
    n = len(z)
    z_min = min(z, key=lambda a: a.mid())
    d = [z_min / z[i] for i in range(n)]  # ≤ 1, down to far below float64's range
    border = np.zeros((n + 1, n + 1))
    border[:n, :n], border[:n, n], border[n, :n] = H_f, 1.0, 1.0
    lu = scipy.linalg.lu_factor(border)
    mu_low = mu_T.lower()
    solve_error = []

    def solve_T(y):
        """g ∈ T with H_T g = P y: bordered float64 solves, refined by Arb residuals."""
        g, t = _column([0.0] * n), flint.arb(0)
        residual = _project(y)
        for _ in range(STEPS):
            step = scipy.linalg.lu_solve(lu, np.append(_to_floats(residual), 0.0))
            g = _project(g + _column([float(v) for v in step[:n]]))  # g ∈ T exactly: P r = H_T(g* − g)
            t = t + float(step[n])
            residual = y - Hq * g - _column([t] * n)
            if float(_norm(_project(residual)).upper()) < target * float(_norm(g).lower()) * 1e-3:
                break
        solve_error.append(_norm(_project(residual)) / mu_low)
        return g

    def apply(x):
        x = _project(x)
        g = solve_T(_column([d[i] * x[i, 0] for i in range(n)]))
        return _project(_column([d[i] * g[i, 0] for i in range(n)]))

    return refine(apply, Bp_f, "top", target, extra_error=lambda x: solve_error[-1] if solve_error else 0)
