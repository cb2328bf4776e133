"""Structured cases: two-level z (m tokens at one coefficient, n − m at another; uniform z included) with
H = αI + β11ᵀ or H diagonal on the same two groups, whose spectra are known in closed form at any n up to 10⁶
(verify.numerics.twolevel). The search decides a few hundred of them per claim (`structured_cases`), at token
counts far beyond what dense matrices reach; a certificate describes such a case by its structure
(`inputs()`), which `check` rebuilds exactly (`parse_structured`).

A case is decided with Arb balls of its exact rational quantities and, where the balls leave a comparison
tight, exactly (every quantity is rational: an exact tie is decided as one, verify.claims.exact.structured_outcome).
"""
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import flint

from verify.base.errors import InputError
from verify.numerics import twolevel
from verify.numerics.spectrum import CurvatureSpectrum
from verify.numerics.precision import to_arb

MAX_FORALL_VALUES = 300  # a claim for every k is decided at a structured case only where k takes at most this many
FORALL_BUDGET = 5000  # values of k, over all the structured cases of one claim
MAX_RATIONAL_DIGITS = 60  # digits of a numerator or denominator in a structured certificate
HESSIAN_LIMIT = 10**300  # as a case file's entries of H
RATIOS = (Fraction(2), Fraction(1000))
KINDS = ("isotropic", "diagonal")
IDENTITY = ("isotropic", Fraction(1), Fraction(0))  # H = I, in every family


@dataclass(frozen=True)
class StructuredCase:
    """Two-level z: m tokens at a = ratio·b, n − m at b (ratio ≥ 1); H = ("isotropic", α, β) meaning αI + β11ᵀ,
    or ("diagonal", h_top, h_bottom) with h_top on the m top tokens."""

    n: int
    m: int
    ratio: Fraction
    hessian: tuple
    L = mu = None  # the ambient bounds are H's own extreme eigenvalues

    @cached_property
    def spectrum(self):
        return twolevel.spectrum(self.n, self.m, self.ratio, self.hessian)

    def inputs(self):
        """The certificate's form: {"structured": {n, top, ratio, H: {kind: [two numbers]}}}, numbers as exact text."""
        kind, first, second = self.hessian
        return {"structured": {"n": self.n, "top": self.m, "ratio": _text(self.ratio),
                               "H": {kind: [_text(first), _text(second)]}}}

    def in_family(self, family):
        """Whether H belongs to a family of H (spd holds every H here)."""
        kind, first, second = self.hessian
        if family == "isotropic":
            return kind == "isotropic" or first == second or self.m == self.n
        if family == "diagonal":
            return kind == "diagonal" or second == 0
        return family == "spd"

    def point(self, bits):
        """A Point of the case's exact quantities as balls at `bits` precision."""
        from verify.claims.language.values import Point

        s = self.spectrum
        with flint.ctx.workprec(bits):
            balls = {v: to_arb(v) for series in (s.z, s.j, s.lam) for v in series.values()}
            balls.update({v: to_arb(v) for v in (s.L_T, s.mu_T, s.L, s.mu)})
            series = lambda runs: twolevel.Runs(tuple((balls[v], c) for v, c in runs.runs))
            spectrum = CurvatureSpectrum(self.n, balls[s.lambda_max], balls[s.lambda_min], balls[s.L_T],
                                         balls[s.mu_T], balls[s.L], balls[s.mu], series(s.z), 0.0, None,
                                         kappa=to_arb(s.kappa), R=to_arb(s.R), j=series(s.j), lam=series(s.lam))
        return Point(self.n, spectrum, bits)


def _text(value):
    value = Fraction(value)
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


# ---------------------------------------------------------------- deciding


def work(tree, n):
    """The instances of the claim's body a decision at n tokens takes: the values of k of a claim for every k, else 1."""
    from verify.claims.language.syntax import ForAll

    return max(tree.hi.at(n) - tree.lo.at(n) + 1, 1) if isinstance(tree, ForAll) else 1


def decidable(tree, n):
    """Whether a claim is decided at a structured case of n tokens (a claim for every k: at most
    MAX_FORALL_VALUES values of k there)."""
    return work(tree, n) <= MAX_FORALL_VALUES


# ---------------------------------------------------------------- the search's structured cases


def token_counts(n_range, extra=(), only=None):
    """The token counts the search tries: both ends (up to 10⁶), the first three, a log-spaced grid, round
    numbers and the counts one past them (200, 1001, …), and `extra` (the counts the prover's models name)."""
    lo, hi = n_range
    top = int(min(hi, twolevel.MAX_N))
    if only is not None:
        return sorted({m for n in only for m in (n - 1, n, n + 1) if lo <= m <= top})
    chosen = {lo, lo + 1, lo + 2, top}
    steps = 12
    for i in range(steps + 1):
        chosen.add(int(round(math.exp(math.log(lo) + (math.log(top) - math.log(lo)) * i / steps))))
    for base in (10, 30, 60, 100, 200, 1000, 10**4, 10**5, 10**6):
        chosen.update({base, base + 1})
    for n in extra:
        chosen.update({n - 1, n, n + 1})
    return sorted(n for n in chosen if lo <= n <= top)


def hessians(n, family):
    """The structured H tried at n: I, isotropic ones (β > 0 and β < 0) and two-level diagonals."""
    one = Fraction(1)
    isotropic = [IDENTITY, ("isotropic", one, one), ("isotropic", one, Fraction(-1, 2 * n))]
    diagonal = [("diagonal", one, Fraction(1000)), ("diagonal", Fraction(1000), one)]
    if family == "isotropic":
        return isotropic
    if family == "diagonal":
        return isotropic[:1] + diagonal
    return isotropic + diagonal


def shapes(n):
    """(m, ratio) of the two-level z tried at n: uniform, one token above or below the rest, half and half."""
    small, large = RATIOS
    return list(dict.fromkeys(zip(_tops(n), (Fraction(1), small, large, large, small))))


def _tops(n):
    """The top group's size m of each entry of `shapes` at n tokens."""
    return (n, 1, 1, n - 1, max(1, n // 2))


def structured_cases(n_range, family, extra=(), only=None, reads_h=True):
    """The structured cases of a claim's domain, smallest n first (see token_counts, shapes, hessians); for a claim
    that reads nothing of H (`reads_h` False), H = I alone (a member of every family: any other H decides alike)."""
    out = []
    for n in token_counts(n_range, extra, only):
        for m, ratio in shapes(n):
            for H in hessians(n, family) if reads_h else (IDENTITY,):
                if m == n and H[0] == "diagonal":
                    continue  # one group: a diagonal two-level H is h_top·I, already tried
                case = StructuredCase(n, m, ratio, H)
                if case.in_family(family):
                    out.append(case)
    return out


def at_tokens(case, n):
    """The case's shape at n tokens: the same entry of `shapes` (uniform, one token above or below the rest, half and
    half) with the same ratio, and the same H, β·n kept for the isotropic H with β < 0 (so it stays positive definite);
    None for a shape `shapes` does not make."""
    tops = _tops(case.n)
    if case.m not in tops or n < 2:
        return None
    kind, first, second = case.hessian
    H = (kind, first, Fraction(second) * case.n / n) if kind == "isotropic" and second < 0 else case.hessian
    return StructuredCase(n, _tops(n)[tops.index(case.m)], case.ratio, H)


# ---------------------------------------------------------------- certificates


def is_structured(inputs):
    return isinstance(inputs, dict) and set(inputs) == {"structured"}


def parse_structured(inputs, where):
    """A StructuredCase from a certificate's inputs, every field checked (InputError names what is wrong)."""
    data = inputs["structured"]
    if not isinstance(data, dict) or set(data) != {"n", "top", "ratio", "H"}:
        raise InputError(f"{where} structured inputs must have exactly the keys n, top, ratio, H")
    n, m = data["n"], data["top"]
    if type(n) is not int or not 2 <= n <= twolevel.MAX_N:
        raise InputError(f"{where} structured n must be an integer in 2..{twolevel.MAX_N}")
    if type(m) is not int or not 1 <= m <= n:
        raise InputError(f"{where} structured top must be an integer in 1..n")
    ratio = _rational(data["ratio"], f"{where} structured ratio")
    if ratio < 1:
        raise InputError(f"{where} structured ratio must be ≥ 1 (the top coefficient over the bottom one)")
    H = data["H"]
    if not isinstance(H, dict) or len(H) != 1 or next(iter(H)) not in KINDS:
        raise InputError(f"{where} structured H must be {{\"isotropic\": [α, β]}} or {{\"diagonal\": [top, bottom]}}")
    kind, pair = next(iter(H.items()))
    if not isinstance(pair, list) or len(pair) != 2:
        raise InputError(f"{where} structured H's {kind} must be a list of two numbers")
    first, second = (_rational(v, f"{where} structured H") for v in pair)
    if kind == "isotropic" and not (first > 0 and first + n * second > 0):
        raise InputError(f"{where} structured H = αI + β11ᵀ needs α > 0 and α + nβ > 0 (positive definite)")
    if kind == "diagonal" and not (first > 0 and second > 0):
        raise InputError(f"{where} structured diagonal H needs positive entries (positive definite)")
    return StructuredCase(n, m, ratio, (kind, first, second))


def _rational(text, where):
    if not isinstance(text, str) or not re.fullmatch(r"-?[0-9]{1,%d}(/[0-9]{1,%d})?" % ((MAX_RATIONAL_DIGITS,) * 2), text):
        raise InputError(f"{where} must be an exact rational written \"p\" or \"p/q\" (at most "
                         f"{MAX_RATIONAL_DIGITS} digits each)")
    top, _, bottom = text.partition("/")
    if bottom and int(bottom) == 0:
        raise InputError(f"{where} divides by 0")
    value = Fraction(int(top), int(bottom or 1))  # digits and one slash, matched above: no other syntax is read
    if abs(value) > HESSIAN_LIMIT:
        raise InputError(f"{where} is beyond ±1e300")
    return value
