"""Hypothesis strategies for claims about (z, H): the search's adversarial phase draws its cases here,
and `verify.strategies` offers them for property tests in your own test suite.

Every number drawn is exact: logits are dyadic rationals (integers, or integers plus a multiple of
2^-30 or 2^-50), Hessians have dyadic entries built as Q Λ Qᵀ from exactly orthogonal Householder
products Q = Π (I − 2 v vᵀ / vᵀv) with vᵀv a power of 2, so H is symmetric and positive definite
*exactly*, with the chosen spectrum Λ (repeated eigenvalues stay exactly repeated; condition numbers
reach 2^100). The corners of the domain are drawn on purpose: the deepest coefficients allowed
(e^min_log), exact ties at the top, middle and bottom, near-uniform z with R − 1 down to 1e-15.
Everything shrinks toward small n, zero logits (the uniform vector) and small integers.

    >>> from hypothesis import given
    >>> from verify.strategies import cases
    >>> @given(cases(min_n=2, max_n=6))
    ... def test_my_bound(case):
    ...     ...  # case.logits, case.H (rows): exact Fractions in a verify.claims.cases.case.Case
"""
import functools
from fractions import Fraction

import numpy as np
from hypothesis import strategies as st

from verify.base import options
from verify.base.errors import InputError
from verify.claims.cases.case import LOGIT_LIMIT, MAX_MATRIX_N, Case
from verify.claims.exact import EXACT_MAX_N
from verify.base.printable import shown

FAMILIES = ("spd", "isotropic", "diagonal")
MAX_N = 2 * MAX_MATRIX_N  # rows of a drawn case (the search draws a few past a claim's least n, which reaches 1000)
MAX_EIGENVALUE = 2**1000
MIN_LOG = -LOGIT_LIMIT  # the deepest logit a case file takes


class StrategyError(InputError, ValueError):
    """A bad argument of a strategy: an InputError (as every library check), and a ValueError as Hypothesis's own
    strategies raise."""


def _sizes(min_n, max_n):
    min_n = whole(min_n, "min_n", 2, MAX_N, f"give min_n from 2 (one token has no tangent space) to {MAX_N}")
    return min_n, whole(max_n, "max_n", min_n, MAX_N, f"give max_n from min_n = {min_n} to {MAX_N}")


def _min_log(min_log):
    return whole(min_log, "min_log", MIN_LOG, 0, f"give the deepest logit as a whole number from {MIN_LOG:,} to 0")


def _flag(value, name):
    if not isinstance(value, bool):
        raise StrategyError(f"{name} = {shown(value, 40)} is not True or False; give a bool", name)
    return value


def _family(family, name="family"):
    if not isinstance(family, str) or family not in FAMILIES:
        raise StrategyError(f"{name} = {shown(family, 40)}: choose one of {', '.join(FAMILIES)}", name)
    return family


def whole(value, name, low, high, fix):
    """options.whole, raising StrategyError."""
    try:
        return options.whole(value, name, low, high, fix)
    except InputError as error:
        raise StrategyError(str(error), name) from None
NEAR = 2**30  # near-uniform logits differ by multiples of 2^-30 …
NEARER = 2**50  # … or of 2^-50 (R − 1 down to about 1e-15)


def probability_vectors(min_n=2, max_n=EXACT_MAX_N, min_log=-700, ties=True):
    """Log-coefficients s (a tuple of Fractions, largest 0) of z = softmax(s).

    Mixes plain integer logits in [min_log, 0] (coefficients down to e^min_log), exact ties,
    near-uniform vectors (logits within a few 2^-30 of each other) and vectors with some
    coefficients at the floor e^min_log.  With ties=False all entries are distinct.

    >>> probability_vectors(min_n=3, max_n=3).example()  # doctest: +SKIP
    (Fraction(0, 1), Fraction(-12, 1), Fraction(-700, 1))
    """
    return _vectors(*_sizes(min_n, max_n), _min_log(min_log), _flag(ties, "ties"))


@st.composite
def _probability_vectors(draw, min_n, max_n, min_log, ties):
    n = draw(st.integers(min_n, max_n))
    kind = draw(KINDS)
    if kind == "near_uniform":
        logits = draw(_near_uniform(n, draw(STEPS), ties))
    elif kind == "corner" and ties:  # some coefficients at the top, the others as deep as allowed
        top = draw(st.integers(1, max(1, n - 1)))
        logits = [Fraction(0)] * top + [Fraction(min_log)] * (n - top)
    elif kind == "ties" and ties:
        pool = draw(_tie_pool(n, min_log))
        logits = [Fraction(v) for v in draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))]  # a pool per draw
    elif kind == "floor":
        logits = [Fraction(v) for v in draw(_floors(n, min_log, ties))]
    else:
        logits = [Fraction(v) for v in draw(_integer_logits(n, min_log, ties))]
    top = max(logits)
    return tuple(v - top for v in logits)


# The strategies a draw uses are built once per argument (functools caches below): Hypothesis validates every new
# strategy object on its first draw, which took a quarter of a case's generation time when they were built per draw.
# The draws are the same either way.
KINDS = st.sampled_from(("integers", "ties", "near_uniform", "floor", "corner"))
STEPS = st.sampled_from((NEAR, NEARER))


@functools.lru_cache(maxsize=256)
def _near_uniform(n, step, ties):
    offsets = st.integers(-64, 0).map(lambda k: Fraction(k, step))
    return st.lists(offsets, min_size=n, max_size=n, unique=not ties)


@functools.lru_cache(maxsize=256)
def _tie_pool(n, min_log):
    return st.lists(st.integers(min_log, 0), min_size=1, max_size=max(1, n - 1), unique=True)


@functools.lru_cache(maxsize=256)
def _floors(n, min_log, ties):
    floor = st.one_of(st.just(min_log), st.just(0), st.integers(min_log, 0))
    return st.lists(floor, min_size=n, max_size=n, unique=not ties)


@functools.lru_cache(maxsize=256)
def _integer_logits(n, min_log, ties):
    return st.lists(st.integers(min_log, 0), min_size=n, max_size=n, unique=not ties)


def spectra(n, low=1, high=2**100):
    """n positive integer eigenvalues in [low, high]: small integers (repeats included), spread over
    decades up to a condition number of 2^100 ≈ 1e30, or near-singular."""
    n = whole(n, "n", 1, MAX_N, f"give a whole number of eigenvalues from 1 to {MAX_N}")
    low = whole(low, "low", 1, MAX_EIGENVALUE, "give the least eigenvalue as a whole number ≥ 1 (H is positive definite)")
    high = whole(high, "high", low, MAX_EIGENVALUE, f"give the largest eigenvalue as a whole number from low = {low} "
                 "to 2^1000")
    return _spectra(n, low, high)


@functools.lru_cache(maxsize=256)
def _spectra(n, low, high):
    decades = st.integers(0, high.bit_length() - 1).map(lambda b: max(low, min(high, 2**b)))
    return st.lists(st.one_of(st.integers(low, min(high, 16)), decades), min_size=n, max_size=n)


def spd_matrices(n, family="spd", spectrum=None):
    """Exactly symmetric positive definite n×n matrices (tuples of rows of Fractions).

    family "diagonal": diag(spectrum); "spd": Q diag(spectrum) Qᵀ with Q a product of one to
    three exact Householder reflections; "isotropic": a I + b 11ᵀ, whose eigenvalues are a
    (on T = 1^⊥) and a + n b (along 1) — `spectrum` then gives (a, a + n b).
    `spectrum` (positive dyadic numbers) is drawn when None.  Bad arguments raise StrategyError here (an
    InputError and a ValueError).

    >>> spd_matrices(2, family="diagonal", spectrum=(1, 4)).example()  # doctest: +SKIP
    ((Fraction(1, 1), Fraction(0, 1)), (Fraction(0, 1), Fraction(4, 1)))
    """
    n = whole(n, "n", 1, MAX_N, f"give a whole number of rows from 1 to {MAX_N}")
    family = _family(family)
    if spectrum is not None:
        expected = 2 if family == "isotropic" else n
        try:
            values = [Fraction(v) for v in spectrum]
        except (TypeError, ValueError):
            values = None
        if values is None or len(values) != expected or min(values) <= 0 or family != "isotropic" and any(
                v.denominator & (v.denominator - 1) for v in values):
            raise StrategyError(f"spectrum {shown(spectrum, 80)}: give {expected} positive dyadic eigenvalues (integers "
                                f"or k / 2^m) for family {shown(family, 40)}", "spectrum")
        spectrum = tuple(values)
    if family == "isotropic":
        return _isotropic(n, spectrum)
    return _conjugated(n, family, spectrum).map(Dyadic.rows)


class Dyadic:
    """A matrix M / 2^exponent, M rows of integers: a drawn H before it becomes a case's exact numbers."""

    FLOAT_BITS = 53  # integers of at most this many bits are exact in float64

    def __init__(self, M, exponent):
        self.M, self.exponent = M, exponent

    def rows(self):
        """Rows of Fractions (one Fraction per distinct entry: most of a large drawn H is 0)."""
        denominator, made = 1 << self.exponent, {}
        return tuple(tuple(made[x] if x in made else made.setdefault(x, Fraction(x, denominator)) for x in row)
                     for row in self.M)

    def exact_floats(self):
        """The float64 array of exactly these values, or None when an entry needs more than 53 bits."""
        if self.exponent > 1000 or max(max(map(abs, row)) for row in self.M).bit_length() > self.FLOAT_BITS:
            return None
        return np.ldexp(np.array(self.M, dtype=np.float64), -self.exponent)


@st.composite
def _conjugated(draw, n, family, spectrum):
    values = [Fraction(v) for v in (spectrum if spectrum is not None else draw(_spectra(n, 1, 2**100)))]
    denominator = max(v.denominator for v in values)  # dyadic: a power of two
    M = [[int(values[i] * denominator) if i == j else 0 for j in range(n)] for i in range(n)]
    exponent = denominator.bit_length() - 1
    if family == "spd":
        for _ in range(draw(st.integers(1, 3 if n <= 16 else 1))):
            M, exponent = _reflect(M, exponent, draw(_reflector(n)))
    return Dyadic(M, exponent)


def _isotropic(n, spectrum):
    """a I + b 11ᵀ with a > 0 and a + n b > 0 (small integers when drawn)."""
    if spectrum is not None:
        a, along_one = (Fraction(v) for v in spectrum)
        return st.just(_isotropic_matrix(n, a, (along_one - a) / n))
    return _isotropic_integers(n).map(Dyadic.rows)


def _isotropic_integers(n):
    pairs = st.integers(1, 16).flatmap(lambda a: st.tuples(st.just(a), st.integers(-((a - 1) // n), 16)))
    return pairs.map(lambda ab: Dyadic([[ab[0] + ab[1] if i == j else ab[1] for j in range(n)] for i in range(n)], 0))


def _isotropic_matrix(n, a, b):
    return tuple(tuple(a + b if i == j else b for j in range(n)) for i in range(n))


@functools.lru_cache(maxsize=256)
@st.composite
def _reflector(draw, n):
    """v with entries ±1 on 2^k positions (vᵀv = 2^k, so 2/vᵀv is dyadic)."""
    size = draw(st.sampled_from([2**k for k in range(4) if 2**k <= n]))
    positions = draw(_positions(n, size))
    signs = draw(_signs(size))
    v = [0] * n
    for position, sign in zip(positions, signs):
        v[position] = sign
    return v


@functools.lru_cache(maxsize=1024)
def _positions(n, size):
    return st.lists(st.integers(0, n - 1), min_size=size, max_size=size, unique=True)


@functools.lru_cache(maxsize=16)
def _signs(size):
    return st.lists(st.sampled_from((1, -1)), min_size=size, max_size=size)


def _reflect(M, exponent, v):
    """Q H Q for H = M / 2^exponent (M integer) and Q = I − s v vᵀ, s = 2/vᵀv = 2^(1−k): with w = M v and
    c = vᵀ M v, 4^(k−1) Q H Q 2^exponent = 4^(k−1) M − 2^(k−1)(v wᵀ + w vᵀ) + c v vᵀ — integers, and
    O(n · |support of v|) work, so large n stays cheap. Exact: Q is orthogonal and symmetric."""
    n = len(M)
    support = [i for i in range(n) if v[i]]
    k = len(support).bit_length() - 1  # vᵀv = |support| = 2^k
    w = [sum(M[j][i] * v[i] for i in support) for j in range(n)]
    c = sum(v[i] * w[i] for i in support)
    grow, half = 4 ** (k - 1) if k else 1, 2 ** (k - 1) if k else 1
    if k == 0:  # v = ±e_i: Q flips one sign, s = 2: Q H Q = H − 2(v wᵀ + w vᵀ) + 4c v vᵀ
        grow, half, quarter = 1, 2, 4
    else:
        quarter = 1
    out = [[x * grow for x in row] for row in M]
    for i in support:
        for j in range(n):
            out[i][j] -= half * v[i] * w[j]
            out[j][i] -= half * w[j] * v[i]
    for i in support:
        for j in support:
            out[i][j] += quarter * c * v[i] * v[j]
    return out, exponent + (2 * (k - 1) if k else 0)


@functools.lru_cache(maxsize=256)
def _vectors(min_n, max_n, min_log, ties):
    return _probability_vectors(min_n, max_n, min_log, ties)


@functools.lru_cache(maxsize=1024)
def _matrices(n, family):
    """Drawn H as a Dyadic (the same draws as spd_matrices)."""
    return _isotropic_integers(n) if family == "isotropic" else _conjugated(n, family, None)


def cases(min_n=2, max_n=EXACT_MAX_N, hessian="spd", min_log=-700, ties=True):
    """verify.claims.cases.case.Case objects: logits from `probability_vectors`, H from `spd_matrices`.

    The drawn Fractions are the case's exact numbers (a Case keeps user numbers exact). By default up to
    EXACT_MAX_N = 8 tokens, where every exact tie is decided (`decide_on_case`); beyond, a claim whose sides are
    exactly equal at a drawn tie may come back undecided (decided=False).

    >>> cases(min_n=2, max_n=4, hessian="isotropic").example()  # doctest: +SKIP
    Case(logits=(Fraction(0, 1), Fraction(-3, 1)), H=((Fraction(2, 1), Fraction(1, 1)), ...), ...)
    """
    sizes, family = _sizes(min_n, max_n), _family(hessian, "hessian")
    return _cases(*sizes, family, _min_log(min_log), _flag(ties, "ties"))


@functools.lru_cache(maxsize=256)
def logit_cases(min_n, max_n, min_log):
    """Cases whose logits are drawn as `cases` draws them, with H = I (a member of every family): the search's cases
    for a claim that reads nothing of H (z, J, R and n alone), where a drawn H would only lengthen each draw."""
    return _vectors(min_n, max_n, min_log, True).map(_with_identity)


def _with_identity(logits):
    return Case.with_float_H(tuple(logits), np.eye(len(logits)))


@st.composite
def _cases(draw, min_n, max_n, hessian, min_log, ties):
    logits = draw(_vectors(min_n, max_n, min_log, ties))
    H = draw(_matrices(len(logits), hessian))
    floats = H.exact_floats()  # the usual case: the rows of Fractions are then built only if something reads them
    return Case(tuple(logits), H.rows()) if floats is None else Case.with_float_H(tuple(logits), floats)
