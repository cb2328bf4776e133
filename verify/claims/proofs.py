"""Symbolic evidence for the formula claims (SymPy): the n = 2 proofs, where T is a line and every
quantity has a closed form, and the sign of d/dR of the bound Eq. (47) implies.

At n = 2, with z = (1 − t, t), t ∈ (0, ½], and H SPD with h = vᵀHv > 0 on the line T = span(v),
v = (1, −1)/√2: j_max = j_min = 2t(1 − t), λ_max = λ_min = h·(2t(1 − t))², κ = 1, L_T = μ_T = h,
R = (1 − t)/t. A claim whose comparisons are joined by `and` (the built-in ones) becomes rational
functions of t and h, whose sign SymPy decides exactly. L and μ on Rⁿ are not functions of h alone:
claims reading them are not attempted here.
"""
import functools

import sympy as sp

from verify.claims.language.quantities import canonical
from verify.claims.language.syntax import And, BinOp, Call, Compare, Item, Name, Neg, Num
from verify.claims.language.text import to_text
from verify.claims.record import TANGENT
from verify.numerics.softmax import jacobian_symbolic

T, H = sp.symbols("t h", positive=True)


@functools.lru_cache(maxsize=1)
def kappa_bound_monotonicity():
    """T2.eq47.kappa: sign of d/dR of (L/μ) R⁻², derived by SymPy for all L, μ, R > 0
    (the symbols' assumptions decide the sign of the derivative)."""
    L, mu, R = sp.symbols("L mu R", positive=True)
    derivative = sp.diff((L / mu) * R**-2, R)
    sign = "negative" if derivative.is_negative else "not proved"
    return {
        "derivative": sp.sstr(derivative),
        "sign": sign,
        "verdict": "PROVED" if sign == "negative" else "INCONCLUSIVE",
        "meaning": "the implied lower bound on κ shrinks as R grows" if sign == "negative" else "",
    }


@functools.lru_cache(maxsize=1)
def two_token_values():
    """Every quantity at n = 2 as a SymPy expression of t and h, computed from J and a symbolic SPD H."""
    b = sp.Symbol("b", real=True)
    c = sp.Symbol("c", positive=True)
    a = 2 * H + 2 * b - c  # so that vᵀHv = (a − 2b + c)/2 = h
    J = jacobian_symbolic([1 - T, T])
    v = sp.Matrix([1, -1]) / sp.sqrt(2)
    curvature = sp.factor(sp.cancel((v.T * J * sp.Matrix([[a, b], [b, c]]) * J * v)[0]))
    j = sp.factor((v.T * J * v)[0])
    values = {"z1": 1 - T, "z2": T, "j1": j, "lambda1": curvature, "kappa": sp.Integer(1), "R": (1 - T) / T,
              "L_T": H, "mu_T": H, "n": sp.Integer(2)}
    assert not curvature.free_symbols - {T, H}, "at n = 2, J H J on T depends on H through h alone"
    return values


def to_sympy(node, values):
    """A claim-language expression at n = 2 as SymPy (None when it reads a quantity without a closed form)."""
    node = canonical(node)
    if isinstance(node, Num):
        exact = node.exact(1000)
        return None if exact is None else sp.Rational(exact.numerator, exact.denominator)
    if isinstance(node, Name):
        return {"pi": sp.pi, "e": sp.E}.get(node.id, values.get(node.id))
    if isinstance(node, Item):
        return values.get(f"{node.name}{node.index.at(2)}")
    children = (node.operand,) if isinstance(node, Neg) else (node.left, node.right) if isinstance(node, BinOp) else node.args
    parts = [to_sympy(child, values) for child in children]
    if any(p is None for p in parts):
        return None
    if isinstance(node, Neg):
        return -parts[0]
    if isinstance(node, BinOp):
        a, b = parts
        return {"+": a + b, "-": a - b, "*": a * b, "/": a / b, "**": a**b}[node.op]
    functions = {"sqrt": sp.sqrt, "log": sp.log, "exp": sp.exp, "abs": sp.Abs, "min": sp.Min, "max": sp.Max}
    return functions[node.name](*parts) if isinstance(node, Call) else None


def prove_two_token(job):
    """For a claim that holds at n = 2 under the tangent-exact reading (or has no reading): does it hold for
    all t ∈ (0, ½] and every SPD H at n = 2? (proved, detail), or None when not attempted."""
    if job.reading not in (TANGENT, None) or not job.min_n <= 2 <= job.max_n or job.claim.hessian != "spd":
        return None
    parts = job.tree.parts if isinstance(job.tree, And) else (job.tree,)
    if not all(isinstance(p, Compare) for p in parts):
        return None
    values = two_token_values()
    for comparison in parts:
        verdict = _comparison_at_two(comparison, values)
        if verdict is None:
            return None
        if verdict is not True:
            return False, f"n = 2: {to_text(comparison)} fails, e.g. at z_min = {verdict}"
    return True, "n = 2: every comparison holds for all z and every SPD H (SymPy, exact)"


def _comparison_at_two(comparison, values):
    """True, a failing t, or None (not decidable here)."""
    lhs, rhs = to_sympy(comparison.left, values), to_sympy(comparison.right, values)
    if lhs is None or rhs is None:
        return None
    gap = sp.cancel(sp.together(lhs - rhs if comparison.op in (">=", ">", "==") else rhs - lhs))
    if comparison.op == "==":
        return True if gap == 0 else None
    degree = next((k for k in range(4) if sp.cancel(gap.subs(H, 2 * H) - 2**k * gap) == 0), None)
    if degree is None or not gap.free_symbols <= {T, H} or not gap.subs(H, 1).is_rational_function(T):
        return None
    failing = _failing_points(sp.cancel(gap.subs(H, 1)), comparison.op in ("<", ">"))
    return failing[0] if failing else True


def _failing_points(rational, strict):
    """Points of (0, ½] where the rational function of t is negative (or zero, for a strict comparison):
    its sign is constant between the exact real roots of numerator and denominator."""
    numerator, denominator = sp.fraction(sp.together(rational))
    cuts = {sp.Integer(0), sp.Rational(1, 2)}
    roots = set()
    for poly in (numerator, denominator):
        if sp.Poly(poly, T).degree() > 0:
            roots |= {r for r in sp.Poly(poly, T).real_roots() if 0 < r <= sp.Rational(1, 2)}
    cuts |= roots
    cuts = sorted(cuts, key=lambda r: float(r))
    probes = [(a + b) / 2 for a, b in zip(cuts, cuts[1:])] + [sp.Rational(1, 2)]
    if strict:
        probes += [r for r in roots if numerator.subs(T, r) == 0]
    return [p for p in probes if (rational.subs(T, p) <= 0 if strict else rational.subs(T, p) < 0)]
