"""Exact inputs for the enclosures: numbers → Fractions, logits/coefficients/H validated once.

Every user number is taken EXACTLY: ints, floats (binary64 values are dyadic
rationals), Fractions, decimal strings and Decimals ("1.1" is 11/10, not the
double nearest to it), and mpmath mpf (sign·man·2^exp).  Sizes are checked
BEFORE any exact conversion, so "1e400000000" or a logit of 1e308 gives an
InputError with one line instead of a huge integer or an arb traceback.

A float64 ndarray H (the common case at n = 1000) is kept as it is: its entries
are already exact, so no per-entry Python conversion is needed.
"""
import math
from decimal import Decimal, InvalidOperation
from fractions import Fraction

import flint
import mpmath as mp
import numpy as np

from verify.errors import InputError

DECIMAL_EXPONENT_MAX = 100_000  # |exponent| of any number given (10^±100000)
BINARY_EXPONENT_MAX = 340_000  # the same bound in bits, for mpf / Fraction inputs
LOGIT_SPREAD_MAX = 10**6  # max_i s_i − min_i s_i; coefficients down to e^(−10^6) ≈ 10^(−434294)
H_ABS_MAX = 1e300  # |H_ij| must fit float64 with room to scale


def exact_number(x, where):
    """x as a Fraction, exactly; InputError (one line) for non-numbers, NaN/inf and absurd sizes."""
    if isinstance(x, bool):
        raise InputError(f"{where} is {x!r}, not a number")
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, int):
        if x.bit_length() > BINARY_EXPONENT_MAX:
            raise InputError(f"{where} has {x.bit_length()} bits; numbers must stay below 2^{BINARY_EXPONENT_MAX}")
        return Fraction(x)
    if isinstance(x, float):
        if not math.isfinite(x):
            raise InputError(f"{where} is {x!r}; every number must be finite")
        return Fraction(x)
    if isinstance(x, Fraction):
        if max(x.numerator.bit_length(), x.denominator.bit_length()) > BINARY_EXPONENT_MAX:
            raise InputError(f"{where} is a fraction with more than {BINARY_EXPONENT_MAX} bits; give a smaller one")
        return x
    if isinstance(x, mp.mpf):
        sign, man, exp, bc = x._mpf_
        if not mp.isfinite(x):
            raise InputError(f"{where} is {x}; every number must be finite")
        if man == 0:
            return Fraction(0)
        if abs(exp + bc) > BINARY_EXPONENT_MAX or bc > BINARY_EXPONENT_MAX:
            raise InputError(f"{where} = {mp.nstr(x, 5)} is out of range (|binary exponent| > {BINARY_EXPONENT_MAX})")
        value = Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)
        return -value if sign else value
    if isinstance(x, (str, Decimal)):
        try:
            d = Decimal(x.strip()) if isinstance(x, str) else x
        except InvalidOperation:
            raise InputError(f"{where} is {x!r}, not a number; give a decimal string like \"1e-40\"") from None
        if not d.is_finite():
            raise InputError(f"{where} is {x!r}; every number must be finite")
        if d.is_zero():
            return Fraction(0)
        if abs(d.adjusted()) > DECIMAL_EXPONENT_MAX or len(d.as_tuple().digits) > DECIMAL_EXPONENT_MAX:
            raise InputError(f"{where} is {x!r}: out of range (decimal exponent beyond ±{DECIMAL_EXPONENT_MAX})")
        return Fraction(d)
    raise InputError(f"{where} is {x!r} of type {type(x).__name__}; give an int, float, Fraction, mpf or decimal string")


def fraction_to_arb(q):
    """A ball containing the rational q exactly (exact when q is dyadic and fits the precision)."""
    return flint.arb(flint.fmpq(q.numerator, q.denominator))


def _log_abs(q):
    """log|q| for a nonzero Fraction of any size (math.log takes big ints)."""
    return math.log(abs(q.numerator)) - math.log(q.denominator)


class Coefficients:
    """The example's coefficients z = softmax(s), from exact logits s or exact positive z.

    `weights()` gives unnormalised positive balls e_k (e_k = exp(s_k − max s), or z_k
    itself) so that z_k = e_k / Σ e: every later formula uses only sums of positive
    terms (no cancellation), e.g. 1 − z_k = Σ_{j≠k} e_j / Σ e.
    """

    def __init__(self, logits=None, z=None):
        if (logits is None) == (z is None):
            raise InputError("give the example's logits or its coefficients z, not both")
        values = logits if logits is not None else z
        try:
            n = len(values)
        except TypeError:
            raise InputError(f"{'logits' if z is None else 'z'} must be a sequence of numbers") from None
        if n < 2:
            raise InputError(f"an example needs at least 2 tokens (T = 1^⊥ is trivial for n = {n})")
        self.n = n
        if logits is not None:
            s = [exact_number(v, f"logit {i}") for i, v in enumerate(values)]
            top, bottom = max(s), min(s)
            if top - bottom > LOGIT_SPREAD_MAX:
                i = max(range(n), key=lambda k: abs(s[k] - (top + bottom) / 2))
                raise InputError(
                    f"logit {i} = {float(s[i]):.6g} is out of range: logits may differ by at most "
                    f"{LOGIT_SPREAD_MAX:g} (coefficients down to e^-{LOGIT_SPREAD_MAX:g})")
            self.shifted = [v - top for v in s]  # exact, ≤ 0
            self.z_exact = None
            self.key = self.shifted  # exact sort key (z is increasing in it)
            self.magnitude = max(1.0, float(top - bottom))
        else:
            q = [exact_number(v, f"z {i}") for i, v in enumerate(values)]
            if any(v <= 0 for v in q):
                i = next(k for k in range(n) if q[k] <= 0)
                raise InputError(f"z {i} = {values[i]!r}; coefficients must be positive")
            spread = max(_log_abs(v) for v in q) - min(_log_abs(v) for v in q)
            if spread > LOGIT_SPREAD_MAX:
                raise InputError(f"z spans a ratio e^{spread:.3g}; at most e^{LOGIT_SPREAD_MAX:g} is supported")
            self.shifted = None
            self.z_exact = q
            self.key = q
            self.magnitude = 1.0
        self.order = sorted(range(n), key=lambda k: self.key[k], reverse=True)  # z descending, exact

    def weights(self):
        """Positive balls e_k with z_k = e_k / Σ_j e_j, at the context precision."""
        if self.z_exact is not None:
            return [fraction_to_arb(v) for v in self.z_exact]
        return [fraction_to_arb(v).exp() for v in self.shifted]

    def tied_extremes(self):
        """(largest value tied, smallest value tied), decided exactly."""
        k = self.key
        o = self.order
        return k[o[0]] == k[o[1]], k[o[-1]] == k[o[-2]]


class ExactMatrix:
    """A symmetric n×n matrix with exact entries: float copy, arb copy, exact structure tests."""

    def __init__(self, H, n):
        if isinstance(H, np.ndarray) and H.dtype.kind == "f":
            A = np.asarray(H, dtype=float)
            if A.shape != (n, n):
                raise InputError(f"H has shape {A.shape}; it must be {n}×{n} like the logits")
            if not np.isfinite(A).all():
                i, j = np.argwhere(~np.isfinite(A))[0]
                raise InputError(f"H[{i}][{j}] is {A[i, j]}; every number must be finite")
            self.rational = None
            self.float = A.copy()
            self.float_is_exact = True
        else:
            try:
                rows = [list(r) for r in H]
            except TypeError:
                raise InputError("H must be a square table (sequence of rows) of numbers") from None
            if len(rows) != n or any(len(r) != n for r in rows):
                raise InputError(f"H must be {n}×{n} (one row and column per token)")
            self.rational = [[exact_number(v, f"H[{i}][{j}]") for j, v in enumerate(r)] for i, r in enumerate(rows)]
            big = [(i, j) for i in range(n) for j in range(n) if abs(self.rational[i][j]) > H_ABS_MAX]
            if big:
                i, j = big[0]
                raise InputError(f"H[{i}][{j}] = {float(self.rational[i][j]):.3g} is out of range (|H_ij| ≤ {H_ABS_MAX:g})")
            # Fraction → float is correctly rounded (CPython divides the integers exactly rounded).
            self.float = np.array([[float(v) for v in r] for r in self.rational])
            self.float_is_exact = all(Fraction(f) == v for fr, r in zip(self.float, self.rational) for f, v in zip(fr, r))
        if np.abs(self.float).max() > H_ABS_MAX:
            i, j = np.unravel_index(np.argmax(np.abs(self.float)), self.float.shape)
            raise InputError(f"H[{i}][{j}] = {self.float[i, j]:.3g} is out of range (|H_ij| ≤ {H_ABS_MAX:g})")
        if not self._symmetric():
            raise InputError("H is not symmetric (exactly); the curvature needs a symmetric positive definite H")
        if not np.abs(self.float).max() > 0:
            raise InputError("H is zero; it must be symmetric positive definite")
        self.n = n
        # Scale by a power of two, 2^k ≥ max|H|: H_s = H / 2^k has entries ≤ 1 (exact in arb).
        self.log2_scale = math.frexp(float(np.abs(self.float).max()))[1]

    def _symmetric(self):
        if self.rational is None:
            return bool(np.array_equal(self.float, self.float.T))
        n = len(self.rational)
        return all(self.rational[i][j] == self.rational[j][i] for i in range(n) for j in range(i))

    def isotropic(self):
        """(a, b) as Fractions when H = a I + b 11ᵀ exactly, else None."""
        if self.rational is None:
            d, off = self.float[0, 0], self.float[0, 1]
            diag_ok = np.all(np.diag(self.float) == d)
            mask = ~np.eye(self.n, dtype=bool)
            if diag_ok and np.all(self.float[mask] == off):
                return Fraction(float(d)) - Fraction(float(off)), Fraction(float(off))
            return None
        R = self.rational
        d, off = R[0][0], R[0][1]
        if all(R[i][j] == (d if i == j else off) for i in range(self.n) for j in range(self.n)):
            return d - off, off
        return None

    def scaled_float(self):
        """(A, e): A = float64 copy of H / 2^k, e ≥ ‖H/2^k − A‖_F rigorously (0 when exact).

        Each entry of the float copy is the correctly rounded value (|error| ≤ u|a|),
        and the exact scaling by 2^-k can only lose bits in the subnormal range
        (|error| ≤ η = 2^-1074 per entry); so e = u‖A‖_F + 2nη bounds the Frobenius norm.
        """
        A = np.ldexp(self.float, -self.log2_scale)
        exact = self.float_is_exact and np.array_equal(np.ldexp(A, self.log2_scale), self.float)
        return A, exact

    def scaled_arb(self):
        """arb_mat of H / 2^k at the context precision (balls contain the exact entries)."""
        n = self.n
        if self.rational is None:
            M = flint.arb_mat(self.float.tolist())
        else:
            M = flint.arb_mat(flint.fmpq_mat(n, n, [flint.fmpq(v.numerator, v.denominator)
                                                     for r in self.rational for v in r]))
        return M * (flint.arb(2) ** (-self.log2_scale))
