"""Margins of a claim at one example: one tree walk, three number systems.

Margin of a comparison `lhs OP rhs` (≥ 0 means it holds):
- both sides positive: d = ln(lhs/rhs), the built-in claims' margin (verify.claims), so
  verdicts and shrinking match `theorem2`;
- otherwise the scaled difference d = (lhs − rhs) / max(|lhs|, |rhs|, tiny);
- `>=`, `>`: margin d;  `<=`, `<`: margin −d;  `==`: margin −|d| (never positive).
At margin exactly 0 a strict comparison (`<`, `>`) fails and a non-strict one holds.
`and` takes the least margin, `or` the greatest, `not` negates it and flips strictness.

Every backend yields an `Outcome`: the margin and an enclosure [lower, upper] of it.
- float64 (`evaluate_float`) and mpmath (`evaluate_mp`) carry a first-order running error
  bound beside each value (the inputs' relative error, plus one rounding per operation);
  an overflow, an underflow out of float64's normal range or a NaN makes the enclosure
  infinite (undecided), so the caller re-decides at higher precision;
- python-flint (`evaluate_arb`) computes with balls: the margin is a ball, the enclosure rigorous.
An outcome is *decided* when its enclosure excludes 0 (or is a single exact point); an
undecided outcome counts as holding — an equality is therefore refuted only when its two
sides are rigorously apart.
"""
from fractions import Fraction

import mpmath as mp
import sympy

from verify.errors import InputError
from verify.claims.user.backends import Balls, Estimated, Float64, MpMath
from verify.claims.user.grammar import AllOf, Compare, Greatest, Least, Negate, ZOrder, index_value
from verify.claims.user.outcome import Outcome

__all__ = ["Outcome", "claim_values", "evaluate_arb", "evaluate_float", "evaluate_mp", "judge", "value"]


def claim_values(q, j_max=None, j_min=None):
    """The evaluation inputs of a CurvatureSpectrum-like q: name → value, and 'z' → z_desc."""
    z = tuple(q.z_desc)
    return {
        "n": int(q.n), "z_max": z[0], "z_min": z[-1], "R": q.R, "lambda_max": q.lambda_max,
        "lambda_min": q.lambda_min, "kappa": q.kappa, "L_T": q.L_T, "mu_T": q.mu_T, "L": q.L_amb,
        "mu": q.mu_amb, "j_max": j_max, "j_min": j_min, "z": z,
    }


def evaluate_float(tree, values, rel_err=0.0, text=None):
    """Outcome in float64 arithmetic (the fast search)."""
    return judge(tree, values, Estimated(Float64(), rel_err), text)


def evaluate_mp(tree, values, dps, rel_err=0.0, text=None):
    """Outcome in mpmath at `dps` digits (scoped), with a running error estimate."""
    with mp.workdps(dps):
        return judge(tree, values, Estimated(MpMath(), rel_err), text)


def evaluate_arb(tree, values, text=None):
    """Outcome with python-flint balls at flint's context precision (set it with flint.ctx.workprec)."""
    return judge(tree, values, Balls(), text)


# ---------------------------------------------------------------- the one tree walk


def judge(tree, values, backend, text=None):
    if isinstance(tree, Compare):
        lhs = value(tree.lhs, values, backend, text)
        rhs = value(tree.rhs, values, backend, text)
        return backend.compare(lhs, rhs, tree.op)
    if isinstance(tree, Negate):
        part = judge(tree.part, values, backend, text)
        return Outcome(-part.margin, -part.upper, -part.lower, not part.strict)
    parts = [judge(p, values, backend, text) for p in tree.parts]
    pick = backend.least if isinstance(tree, AllOf) else backend.greatest
    margin = pick([p.margin for p in parts])
    tied = [p.strict for p in parts if p.margin == margin] or [p.strict for p in parts]
    strict = any(tied) if isinstance(tree, AllOf) else all(tied)
    return Outcome(margin, pick([p.lower for p in parts]), pick([p.upper for p in parts]), strict)


def value(expr, values, backend, text=None):
    if expr is sympy.pi or expr is sympy.E:
        return backend.constant(str(expr))
    if expr.is_Number:
        return backend.number(Fraction(int(expr.p), int(expr.q)))
    if expr.is_Symbol:
        if expr.name == "n":
            return backend.number(Fraction(values["n"]))
        return backend.leaf(_known(values, expr.name))
    if isinstance(expr, ZOrder):
        return backend.leaf(_order_statistic(expr, values, text))
    args = [value(a, values, backend, text) for a in expr.args]
    if expr.is_Add:
        return _fold(backend.add, args)
    if expr.is_Mul:
        return _fold(backend.mul, args)
    if expr.is_Pow:
        exponent = expr.args[1]
        if exponent.is_Integer:
            return backend.power_int(args[0], int(exponent))
        if exponent == sympy.S.Half:
            return backend.sqrt(args[0])
        return backend.power(args[0], args[1])
    unary = {sympy.exp: backend.exp, sympy.log: backend.log, sympy.Abs: backend.abs}
    if expr.func in unary:
        return unary[expr.func](args[0])
    if expr.func in (Least, Greatest):
        return (backend.least if expr.func is Least else backend.greatest)(args)
    raise TypeError(f"unexpected node {expr.func.__name__} in a parsed claim")


def _fold(operation, args):
    out = args[0]
    for arg in args[1:]:
        out = operation(out, arg)
    return out


def _known(values, name):
    if values.get(name) is None:
        raise InputError(f"claim uses {name!r}, which was not computed for this example; compute it or drop it from the claim")
    return values[name]


def _order_statistic(expr, values, text):
    n = values["n"]
    k = index_value(expr.args[0], n)
    if not 1 <= k <= n:
        raise InputError(f"claim expression {text or ''!r}: z({expr.args[0]}) is z({k}) at n = {n}, outside 1..n; "
                         "use an index between 1 and n, or narrow the claim's n")
    return values["z"][k - 1]
