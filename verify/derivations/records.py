"""The derivation record (steps, closed form, checks), the closed forms under test, and the
SymPy/mpmath helpers the derivations share.

Every closed form is a function `formula(z, ...)` that the checks take as a parameter,
so a deliberately wrong formula can be handed to them (the tests do) and must fail both.
Prose (names, hypotheses, step texts) is written in Unicode math: the terminal shows it as
it is and the LaTeX export converts it (verify.document.mathtext).
"""
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

import mpmath as mp
import numpy as np
import sympy as sp

from verify.derivations.exact import Exp
from verify.numerics.softmax import as_mp, jacobian_symbolic, softmax


@dataclass(frozen=True)
class Step:
    """One step of a derivation: prose (Unicode math) and the SymPy expression it produced."""

    text: str
    expr: object  # a SymPy object (usually an Eq)


@dataclass(frozen=True)
class Check:
    """A check's outcome: symbolic or numeric, the sizes covered, passed or not, what it measured, its seconds."""

    kind: str  # "symbolic" or "numeric"
    sizes: str
    passed: bool
    detail: str
    seconds: float = 0.0


@dataclass(frozen=True)
class Derivation:
    """A derivation: id, name, hypotheses, its SymPy steps and closed form, how it is verified, its checks."""

    id: str
    name: str  # Unicode prose
    slug: str
    hypotheses: tuple  # Unicode prose
    steps: Callable = field(repr=False)  # () -> tuple of Step
    result: Callable = field(repr=False)  # () -> tuple of SymPy Eq, the closed form
    verified_by: str = ""  # prose, for the document (static: the document stays byte-identical)
    checks: tuple = field(default=(), repr=False)  # (kind, sizes, function() -> (passed, detail))


BLOCKDIAG = sp.Function("blockdiag")
DIAG = sp.Function("diag")


# ---------------------------------------------------------------- closed forms (the claims under test)


jacobian_formula = jacobian_symbolic  # J(z) = diag(z) − z zᵀ (D1): the one symbolic J builder


def hessian_formula(z):
    """∂²σ_k/∂s_a∂s_b = σ_k[(δ_ka − σ_a)(δ_kb − σ_b) − σ_a(δ_ab − σ_b)] (D2), as T[k][a][b]."""
    n = len(z)
    d = lambda x, y: int(x == y)
    return [[[z[k] * ((d(k, a) - z[a]) * (d(k, b) - z[b]) - z[a] * (d(a, b) - z[b])) for b in range(n)]
             for a in range(n)] for k in range(n)]


def numeric(formula):
    """The same closed form on mpmath numbers."""
    return lambda z: formula([mp.mpf(v) for v in z])


# ---------------------------------------------------------------- helpers

INDEX = sp.symbols("i k j a b", integer=True, positive=True)
N_SYM = sp.Symbol("n", integer=True, positive=True)
S_BASE = sp.IndexedBase("s")
SIGMA = sp.IndexedBase("sigma")


def resolve_range(expr):
    """Sum(exp(s_j) δ_jk, (j, 1, n)).doit() gives Piecewise((exp(s_k), k ≤ n), (0, True)); under the
    hypothesis 1 ≤ k ≤ n it is exp(s_k).  Anything else is left alone (and would fail the check)."""

    def is_range_piecewise(e):
        return (isinstance(e, sp.Piecewise) and len(e.args) == 2 and e.args[1] == (0, True)
                and all(isinstance(c, (sp.Le, sp.Ge, sp.And)) for c in [e.args[0][1]]))

    return expr.replace(is_range_piecewise, lambda e: e.args[0][0])


def to_sigma(expr, indices):
    """Replace Σ_j e^{s_j} by S and e^{s_i} by σ_i S."""
    j = INDEX[2]
    total = sp.Sum(sp.exp(S_BASE[j]), (j, 1, N_SYM))
    S = sp.Symbol("S", positive=True)
    expr = expr.subs(total, S)
    return expr.subs({sp.exp(S_BASE[ix]): SIGMA[ix] * S for ix in indices})


def softmax_exprs(n):
    """The logits s_1..s_n and σ(s) = Exp(s_k) / Σ_j Exp(s_j) (see verify.derivations.exact.Exp)."""
    s = sp.symbols(f"s1:{n + 1}")
    e = [Exp(v) for v in s]
    total = sp.Add(*e)
    return s, [v / total for v in e]


def softmax_of_linear(K, p):
    """σ(K p) for an integer matrix K (rows of a sequence's keys) and symbols p, with Exp."""
    e = [Exp(sum(row[c] * p[c] for c in range(len(p)))) for row in K]
    total = sp.Add(*e)
    return [v / total for v in e]


def random_logits(n, seed, spread=4):
    rng = np.random.default_rng(seed)
    return [mp.mpf(float(v)) for v in np.round(spread * rng.standard_normal(n), 3)]


def softmax_mp(s):
    """σ(s) of mpmath logits as a list, by the one softmax (verify.numerics.softmax)."""
    return list(softmax(as_mp(s)))


def shifted_softmax(s):
    """softmax(s + t_a e_a + t_b e_b) as a function of (a, t_a, b, t_b), remembered: mpmath's finite-difference
    stencils for all k (and for (a, b) and (b, a)) evaluate the same shifted logits, so each is computed once."""

    @lru_cache(maxsize=None)
    def at(shifted):
        return softmax_mp(list(shifted))

    def value(a, ta, b=None, tb=0):
        t = list(s)
        t[a] += ta
        if b is not None:
            t[b] += tb
        return at(tuple(t))

    return value
