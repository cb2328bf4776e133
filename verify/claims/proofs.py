"""Symbolic evidence for the Theorem 2 claims (SymPy): the n = 2 proofs from each claim's own
`sides`, and the sign of d/dR of the bound Eq. (47) implies."""
import functools

import sympy as sp

from verify.claims.record import TANGENT
from verify.numerics.curvature import CurvatureSpectrum
from verify.numerics.softmax import jacobian_symbolic


@functools.lru_cache(maxsize=1)
def kappa_bound_monotonicity():
    """T2.eq47.kappa: sign of d/dR of (L/μ) R⁻², derived by SymPy for all L, μ, R > 0
    (the symbols' assumptions decide the sign of the derivative)."""
    L, mu, R = sp.symbols("L mu R", positive=True)
    bound = (L / mu) * R**-2
    derivative = sp.diff(bound, R)
    sign = "negative" if derivative.is_negative else "not proved"
    return {
        "derivative": sp.sstr(derivative),
        "sign": sign,
        "verdict": "PROVED" if sign == "negative" else "INCONCLUSIVE",
        "meaning": "the implied lower bound on κ shrinks as R grows" if sign == "negative" else "",
    }


def two_token_spectrum():
    """J H J on T for n = 2 with z = (1 − t, t), t ∈ (0, ½], and a symbolic SPD H = [[a, b], [b, c]]
    reparametrised by h = vᵀHv > 0 (T is the line of v = (1, −1)/√2): SymPy computes every T2
    quantity from J and H; the result must depend on H through h alone."""
    t, h, c = sp.symbols("t h c", positive=True)
    b = sp.Symbol("b", real=True)
    a = 2 * h + 2 * b - c  # so that vᵀHv = (a − 2b + c)/2 = h
    z = [1 - t, t]
    J = jacobian_symbolic(z)
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
