"""Exact inputs for the enclosures: H's float64 and Arb copies at an exact power-of-two scale.

H comes as rows of exact numbers (each taken exactly by `precision.parse_number`) or as a float64
ndarray (exact binary values already; the common case at n = 1000 needs no per-entry conversion).
Symmetry and definiteness are the case validation's (verify.claims.cases.case); here they are only
re-checked when cheap (exact symmetry).
"""
import math
from fractions import Fraction

import flint
import numpy as np

from verify.base.errors import InputError
from verify.numerics.precision import parse_number, symmetric_floats
from verify.numerics.structure import isotropic

H_ABS_MAX = 1e300  # |H_ij| must fit float64 with room to scale


class ExactMatrix:
    """A symmetric n×n matrix with exact entries: float copy, arb copy, exact structure tests."""

    def __init__(self, H, n):
        if isinstance(H, np.ndarray) and H.dtype.kind == "f":
            if H.shape != (n, n):
                raise InputError(f"H has shape {H.shape}; it must be {n}×{n} like the logits")
            if not np.isfinite(H).all():
                i, j = np.argwhere(~np.isfinite(H))[0]
                raise InputError(f"H[{i}][{j}] is {H[i, j]}; every number must be finite")
            self.rational = None
            self.float = np.array(H, dtype=float)
            if not self._symmetric():
                raise InputError("H is not symmetric (exactly); the curvature needs a symmetric positive definite H")
        else:
            try:
                rows = [list(r) for r in H]
            except TypeError:
                raise InputError("H must be a square table (sequence of rows) of numbers") from None
            if len(rows) != n or any(len(r) != n for r in rows):
                raise InputError(f"H must be {n}×{n} (one row and column per token)")
            self.rational = [[v if type(v) is Fraction else parse_number(v, f"H[{i}][{j}]") for j, v in enumerate(r)]
                             for i, r in enumerate(rows)]
            if not self._symmetric():
                raise InputError("H is not symmetric (exactly); the curvature needs a symmetric positive definite H")
            try:
                self.float = symmetric_floats(self.rational)  # each entry correctly rounded
            except OverflowError:
                raise InputError(f"H has an entry beyond float64's range (|H_ij| ≤ {H_ABS_MAX:g})") from None
        if np.abs(self.float).max() > H_ABS_MAX:
            i, j = np.unravel_index(np.argmax(np.abs(self.float)), self.float.shape)
            raise InputError(f"H[{i}][{j}] = {self.float[i, j]:.3g} is out of range (|H_ij| ≤ {H_ABS_MAX:g})")
        if not np.abs(self.float).max() > 0:  # a positive definite H whose entries all round to 0 in float64
            raise InputError("H's entries are all below float64's range (under 1e-308 in magnitude), where case mode's "
                             "enclosures start; rescale H (multiply it by a power of ten)")
        self.n = n
        # Scale by a power of two, 2^k ≥ max|H|: H_s = H / 2^k has entries ≤ 1 (exact in arb).
        self.log2_scale = math.frexp(float(np.abs(self.float).max()))[1]

    def _symmetric(self):
        if self.rational is None:
            return bool(np.array_equal(self.float, self.float.T))
        R = self.rational
        return all(R[i][j] is R[j][i] or R[i][j] == R[j][i] for i in range(len(R)) for j in range(i))

    def rows(self):
        """Exact rows (float64 values are exact rationals too)."""
        return self.rational if self.rational is not None else self.float.tolist()

    def isotropic(self):
        """(a, b) as Fractions when H = a I + b 11ᵀ exactly, else None."""
        if self.rational is not None:
            return isotropic(self.rational)
        diagonal_value, off = self.float[0, 0], self.float[0, 1]  # float64 entries: exact, compared as arrays
        expected = np.where(np.eye(self.n, dtype=bool), diagonal_value, off)
        if not np.array_equal(self.float, expected):
            return None
        return Fraction(float(diagonal_value)) - Fraction(float(off)), Fraction(float(off))

    def scaled_float(self):
        """(A, e_exact): A = float64 copy of H / 2^k, and whether A is H / 2^k exactly (a float64 H whose
        scaling lost no bits); otherwise each entry is correctly rounded (|error| ≤ u|a| + η, η = 2^-1074
        for the subnormal range), so u‖A‖_F + 2nη bounds ‖H/2^k − A‖_F."""
        A = np.ldexp(self.float, -self.log2_scale)
        exact = self.rational is None and np.array_equal(np.ldexp(A, self.log2_scale), self.float)
        return A, exact

    def scaled_arb(self):
        """arb_mat of H / 2^k at the context precision (balls contain the exact entries)."""
        n = self.n
        if self.rational is None:
            M = flint.arb_mat(self.float.tolist())
        else:
            lower = [[flint.fmpq(int(v.numerator), int(v.denominator)) for v in r[: i + 1]] for i, r in enumerate(self.rational)]
            M = flint.arb_mat(flint.fmpq_mat(n, n, [lower[i][j] if j <= i else lower[j][i]  # symmetric: convert half
                                                     for i in range(n) for j in range(n)]))
        return M * (flint.arb(2) ** (-self.log2_scale))
