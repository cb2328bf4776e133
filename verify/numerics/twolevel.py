"""Closed-form spectra of structured examples, exact at any n (docs/spec.md §1).

A *two-level* z has m coefficients at a and n − m at b, a = r·b with r ≥ 1 (r = 1 or m = n: uniform),
so b = 1/(m r + n − m). Then, exactly:

- J = diag(z) − zzᵀ has the eigenvalue a on the vectors of the top group summing to 0 (m − 1 of them),
  b on those of the bottom group (n − m − 1), and n·a·b on u = (n − m)·1_top − m·1_bottom, which spans
  what is left of T (the trace 1 − Σz² and the pseudo-determinant n·Πz agree);
- H = αI + β11ᵀ (isotropic, H = I included): on T it is α, so J H J on T is α J², λ = α·j², L_T = μ_T = α,
  and on Rⁿ the eigenvalues are α and α + nβ;
- H = diag(h_top on the top group, h_bottom on the bottom one): the same three invariant subspaces of T;
  H compressed to T has h_top, h_bottom and (h_top (n − m) + h_bottom m)/n on u, and J H J on T has
  a² h_top, b² h_bottom and (n a b)² (h_top (n − m) + h_bottom m)/n.

Every value is an exact rational; a series is kept as runs (value, count), so n = 10⁶ costs nothing.
"""
from dataclasses import dataclass
from fractions import Fraction

MAX_N = 10**6  # the largest n a structured example may have


@dataclass(frozen=True)
class Runs:
    """A non-increasing sequence given as runs (value, count), indexed from 0 like a tuple."""

    runs: tuple

    def __len__(self):
        return sum(count for _, count in self.runs)

    def __getitem__(self, i):
        if i < 0:
            i += len(self)
        for value, count in self.runs:
            if i < count:
                return value
            i -= count
        raise IndexError("index beyond the sequence")

    def values(self):
        return [value for value, count in self.runs if count]


def runs(pairs):
    """Runs from (value, count) pairs in any order: sorted decreasing, empty ones dropped, equal values merged."""
    merged = {}
    for value, count in pairs:
        if count:
            merged[value] = merged.get(value, 0) + count
    return Runs(tuple(sorted(merged.items(), key=lambda vc: vc[0], reverse=True)))


@dataclass(frozen=True)
class ExactSpectrum:
    """What the claim language reads at a structured example, as exact rationals (series as Runs)."""

    n: int
    z: Runs
    j: Runs
    lam: Runs
    L_T: Fraction
    mu_T: Fraction
    L: Fraction
    mu: Fraction

    @property
    def lambda_max(self):
        return self.lam[0]

    @property
    def lambda_min(self):
        return self.lam[-1]

    @property
    def kappa(self):
        return self.lambda_max / self.lambda_min

    @property
    def R(self):
        return self.z[0] / self.z[-1]


def two_level_z(n, m, ratio):
    """(a, b): the two coefficients, a = ratio·b on m tokens and b on n − m, summing to 1."""
    _check(n, m, ratio)
    b = 1 / (m * ratio + (n - m))
    return ratio * b, b


def spectrum(n, m, ratio, hessian):
    """The ExactSpectrum of two-level z (n, m, ratio ≥ 1) and H given as ("isotropic", α, β) (H = αI + β11ᵀ)
    or ("diagonal", h_top, h_bottom) (h_top on the m top tokens); see the module docstring."""
    a, b = two_level_z(n, m, Fraction(ratio))
    if a == b:  # uniform: one group
        m = n
    bottom = n - m
    z = runs([(a, m), (b, bottom)])
    middle = n * a * b
    j = runs([(a, m - 1), (b, bottom - 1), (middle, 1)]) if bottom else runs([(a, n - 1)])
    kind, first, second = hessian[0], Fraction(hessian[1]), Fraction(hessian[2])
    if kind == "isotropic":
        alpha, along = first, first + n * second
        if alpha <= 0 or along <= 0:
            raise ValueError("H = αI + β11ᵀ must have α > 0 and α + nβ > 0")
        lam = Runs(tuple((alpha * v * v, count) for v, count in j.runs))
        return ExactSpectrum(n, z, j, lam, alpha, alpha, max(alpha, along), min(alpha, along))
    if kind != "diagonal":
        raise ValueError(f"H's kind is {kind!r}; give 'isotropic' or 'diagonal'")
    if first <= 0 or second <= 0:
        raise ValueError("a diagonal H needs positive entries")
    if not bottom:
        second = first  # one group: H = h_top·I
    on_u = (first * bottom + second * m) / n
    compressed = [(first, m - 1), (second, bottom - 1), (on_u, 1)] if bottom else [(first, n - 1)]
    lam = runs([(a * a * first, m - 1), (b * b * second, bottom - 1), (middle * middle * on_u, 1)]) if bottom \
        else runs([(a * a * first, n - 1)])
    values = [v for v, count in compressed if count]
    return ExactSpectrum(n, z, j, lam, max(values), min(values), max(first, second), min(first, second))


def _check(n, m, ratio):
    if not (isinstance(n, int) and 2 <= n <= MAX_N):
        raise ValueError(f"n = {n!r}; a structured example has 2 ≤ n ≤ {MAX_N}")
    if not (isinstance(m, int) and 1 <= m <= n):
        raise ValueError(f"m = {m!r}; give 1 ≤ m ≤ n tokens at the top level")
    if not (isinstance(ratio, Fraction) and ratio >= 1):
        raise ValueError(f"ratio = {ratio!r}; give an exact ratio ≥ 1 of the top coefficient to the bottom one")
