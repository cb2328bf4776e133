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

from verify.claims.language.semantics import NONNEG, NONZERO, POSITIVE, interpret
from verify.claims.language.syntax import And, Compare, Item, Name
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


class SympyAlgebra:
    """The SymPy algebra of verify.claims.language.semantics at n = 2: values are expressions of t and h,
    and every definedness condition the fold asks for is kept in `conditions` as (kind, expression)."""

    FUNCTIONS = {"log": sp.log, "exp": sp.exp, "abs": sp.Abs, "min": sp.Min, "max": sp.Max}

    def __init__(self, values):
        self.values, self.conditions, self.missing = values, [], False

    def exact(self, value):
        return sp.Rational(value.numerator, value.denominator)

    def number(self, num):
        self.missing = True
        return sp.nan

    def constant(self, name):
        return sp.pi if name == "pi" else sp.E

    def leaf(self, node):
        if isinstance(node, Item):
            found = self.values.get(f"{node.name}{node.index.at(2)}")
        elif isinstance(node, Name):
            found = self.values.get(node.id)
        else:
            found = sp.Integer(node.index.at(2))
        if found is None:
            self.missing = True
            return sp.nan
        return found

    def require(self, kind, x):
        self.conditions.append((kind, x))
        return True

    def undefined(self):
        self.conditions.append((NONZERO, sp.Integer(0)))  # undefined everywhere: a condition that never holds
        return sp.nan

    def unknown(self):
        self.missing = True
        return sp.nan

    def is_undefined(self, value):
        return False

    def is_open(self, value):
        return False

    def exponent_class(self, value, integer_valued):
        return None

    def neg(self, a):
        return -a

    def arithmetic(self, op, a, b):
        return {"+": a + b, "-": a - b, "*": a * b}[op]

    def divide(self, a, b, guard):
        return a / b

    def power(self, a, p, guard):
        return a ** sp.Rational(p.numerator, p.denominator)

    def call(self, name, args, guard):
        return self.FUNCTIONS[name](*args)


def to_sympy(node, values):
    """(expression, conditions) of a claim-language expression at n = 2, or None when it reads a quantity
    without a closed form: the conditions are the definedness conditions (kind, expression) of the one semantics."""
    algebra = SympyAlgebra(values)
    expression = interpret(node, algebra)
    return None if algebra.missing else (expression, algebra.conditions)


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
    """True, a failing t, or None (not decidable here): the comparison fails where it is undefined."""
    lhs, rhs = to_sympy(comparison.left, values), to_sympy(comparison.right, values)
    if lhs is None or rhs is None:
        return None
    for kind, expression in lhs[1] + rhs[1]:
        failing = _sign_failures(expression, kind)
        if failing is None or failing:
            return None if failing is None else failing[0]
    gap = lhs[0] - rhs[0] if comparison.op in (">=", ">", "==") else rhs[0] - lhs[0]
    if comparison.op == "==":
        return True if sp.cancel(sp.together(gap)) == 0 else None
    failing = _sign_failures(gap, NONNEG if comparison.op in (">=", "<=") else POSITIVE)
    if failing is None:
        return None
    return failing[0] if failing else True


def _sign_failures(expression, kind):
    """Points t ∈ (0, ½] where `expression kind` fails for some h > 0 ([] when it holds everywhere), or None
    when the expression is not a rational function of t homogeneous in h."""
    expression = sp.cancel(sp.together(expression))
    if expression.has(sp.nan) or not expression.free_symbols <= {T, H}:
        return None
    degree = next((k for k in range(4) if sp.cancel(expression.subs(H, 2 * H) - 2**k * expression) == 0), None)
    if degree is None or not expression.subs(H, 1).is_rational_function(T):
        return None
    at_one = sp.cancel(expression.subs(H, 1))
    if kind == NONZERO:
        numerator = sp.fraction(sp.together(at_one))[0]
        if numerator == 0:
            return [sp.Rational(1, 2)]
        if sp.Poly(numerator, T).degree() <= 0:
            return []
        return [r for r in sp.Poly(numerator, T).real_roots() if 0 < r <= sp.Rational(1, 2)]
    return _failing_points(at_one, kind == POSITIVE)


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
