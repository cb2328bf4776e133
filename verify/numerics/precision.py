"""Precision in one place: the digit constants, the one parser of user numbers, and their one conversion.

User numbers are parsed into exact rationals (`fractions.Fraction`: "1.1" is 11/10, "1e-400" is
10⁻⁴⁰⁰) and a coefficient given as z is kept as `Log(z)`; nothing here passes through float64.
Each computation converts them exactly once, at its own working precision: `to_mpf` rounds to
the context precision (within one unit in the last place), `to_arb` gives a ball that contains
the exact value.

Bounds on a user number (one set, for every input path):
- at most MAX_DIGITS = 10,000 significant decimal digits (a decimal string's mantissa, an int);
- a decimal exponent within ±MAX_EXPONENT = 100,000 (1e-100000 is fine, 1e999999999 is not);
- a rational or binary number given through the library (Fraction, mpf) may carry at most
  MAX_BITS bits in its numerator and denominator: what the two bounds above allow a decimal.
Decimal text is ASCII only ("١" is refused, although Python's own parsers read it as 1).
"""
import functools
import math
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import flint
import mpmath as mp
import numpy as np
from mpmath.libmp import from_man_exp, from_rational, round_nearest

from verify.base.errors import InputError
from verify.base.options import CERTIFY_DPS, MAX_DPS, MIN_DPS  # noqa: F401 (stated once, there)
from verify.base.printable import shown

DIGITS = 30  # significant digits of every number written to JSON
MAX_EXPONENT = 100_000  # |decimal exponent| a user number may carry
MAX_DIGITS = 10_000  # significant digits a user number may carry
MAX_BITS = math.ceil((MAX_DIGITS + MAX_EXPONENT + 1) * math.log2(10))  # numerator/denominator bits of such a number
_TEN_TO_MAX_DIGITS = 10**MAX_DIGITS
_SMALL_BITS = 4096  # below this, mpmath's own exact rounding of a rational is fast

_NUMBER = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?")  # ASCII digits only


@dataclass(frozen=True)
class Log:
    """ln of an exact positive rational: a logit given through its coefficient z (ln z is not rational)."""

    of: Fraction

    def __float__(self):
        return math.log(self.of.numerator) - math.log(self.of.denominator)  # big integers: no underflow


def parse_number(value, where):
    """The exact rational a JSON number, decimal string or library number denotes (see the module's bounds);
    NaN, inf, non-numbers, non-ASCII digits and sizes beyond the bounds are refused with one line."""
    if type(value) is str:  # the common case first: JSON numbers arrive as their decimal text
        return _decimal_text(value, where)
    if isinstance(value, (bool, np.bool_)):
        raise InputError(f"{where} is {shown(value, 200)}, not a number; give a number or a decimal string like \"1e-40\"")
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, int):
        return _integer(value, where)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InputError(f"{where} is {shown(value, 200)}; every number must be finite")
        return Fraction(value)  # exactly the float's value
    if isinstance(value, Fraction):
        return _rational(value, where)
    if isinstance(value, mp.mpf):
        return _binary(value, where)
    if isinstance(value, Decimal):
        return _decimal_number(value, where)
    if isinstance(value, str):
        return _decimal_text(value, where)
    raise InputError(f"{where} is {shown(value, 40)} of type {type(value).__name__}, not a number; "
                     "give a number or a decimal string like \"1e-40\"")


def _too_big(where, value):
    return InputError(f"{where} is {shown(value, 40)}, out of range: beyond {MAX_DIGITS} significant digits or a decimal "
                      f"exponent of ±{MAX_EXPONENT}; give a number of sensible size")


def _integer(value, where):
    if abs(value) >= _TEN_TO_MAX_DIGITS:
        raise InputError(f"{where} is an integer of more than {MAX_DIGITS} digits; give a number of sensible size")
    return Fraction(value)


def _rational(value, where):
    if max(value.numerator.bit_length(), value.denominator.bit_length()) > MAX_BITS:
        raise InputError(f"{where} is a fraction of more than {MAX_BITS} bits; give a number of sensible size")
    return value


def _binary(value, where):
    if not mp.isfinite(value):
        raise InputError(f"{where} is {value}; every number must be finite")
    sign, man, exp, bc = value._mpf_
    man = int(man)  # mpmath's mantissa is a gmpy2 mpz when gmpy2 is its backend
    if man == 0:
        return Fraction(0)
    if bc > MAX_BITS or abs(exp) > MAX_BITS:
        raise InputError(f"{where} = {mp.nstr(value, 5)} carries more than {MAX_BITS} bits; give a number of sensible size")
    magnitude = Fraction(man << exp) if exp >= 0 else Fraction(man, 1 << -exp)
    return -magnitude if sign else magnitude


def _decimal_number(value, where):
    if not value.is_finite():
        raise InputError(f"{where} is {value}; every number must be finite")
    if value.is_zero():
        return Fraction(0)
    if len(value.as_tuple().digits) > MAX_DIGITS or abs(value.adjusted()) > MAX_EXPONENT:
        raise _too_big(where, value)
    return Fraction(value)


def _decimal_text(value, where):
    """ASCII decimal text: sign, digits, optional fraction and exponent. A short mantissa with a moderate exponent
    (every JSON number of a float64) is built from its integers directly, with no further checks needed
    (Fraction's own string parser is 5× slower); the rest is checked against the bounds, and a long mantissa goes
    through Decimal, which has no limit on digits (int() refuses more than 4,300)."""
    match = _NUMBER.fullmatch(value) or _NUMBER.fullmatch(value.strip())
    if match is None:
        raise InputError(f"{where} is {shown(value, 40)}, not a number; give a decimal string like \"1e-40\"")
    sign, whole, fraction, exponent_text = match.groups()
    digits = whole + fraction if fraction else whole
    if not digits:
        raise InputError(f"{where} is {shown(value, 40)}, not a number; give a decimal string like \"1e-40\"")
    if len(digits) <= 300 and (exponent_text is None or len(exponent_text) <= 4):  # |adjusted exponent| ≤ 10,299
        exponent = (int(exponent_text) if exponent_text else 0) - (len(fraction) if fraction else 0)
        mantissa = int(digits)
    else:
        exponent, mantissa = _checked(value, where, digits, len(fraction or ""), exponent_text)
        if mantissa is None:
            return Fraction(Decimal(value.strip()))
    if sign == "-":
        mantissa = -mantissa
    if exponent >= 0:
        return Fraction(mantissa * _power_of_ten(exponent))
    return Fraction(mantissa, _power_of_ten(-exponent))


def _checked(value, where, digits, places, exponent_text):
    """(exponent, mantissa) of a long or far-scaled decimal within the bounds (mantissa None: parse it through
    Decimal, beyond int()'s 4,300 digits); InputError beyond them."""
    significant = digits.lstrip("0")
    exponent_text = (exponent_text or "0").lstrip("+")
    if len(exponent_text.lstrip("-").lstrip("0")) > 12:  # far beyond the bound (and beyond int()'s limit)
        raise _too_big(where, value)
    exponent = int(exponent_text) - places
    if not significant:
        return 0, 0
    if len(significant) > MAX_DIGITS or abs(exponent + len(digits) - 1) > MAX_EXPONENT:
        raise _too_big(where, value)
    return exponent, (int(significant) if len(significant) <= 4000 else None)


@functools.lru_cache(maxsize=256)
def _power_of_ten(k):
    """10^k, kept: a case file of numbers like 1e-99999 builds its 330,000-bit power once."""
    return 10**k


def to_float(x):
    """A Fraction (or int) as the nearest float64: int/int true division is correctly rounded, and 2× faster than
    float(Fraction); OverflowError beyond float64's range."""
    return x.numerator / x.denominator


def symmetric_floats(H):
    """The float64 copy (each entry correctly rounded) of a symmetric matrix of Fractions or ints, converting only
    the lower triangle (the upper one is its mirror, exactly)."""
    n = len(H)
    A = np.zeros((n, n))
    for i, row in enumerate(H):
        A[i, : i + 1] = [to_float(v) for v in row[: i + 1]]
    return A + np.tril(A, -1).T


def to_mpf(x):
    """x (int, float, Fraction, Log or mpf) as an mpf at the context precision (within one ulp; a rational of
    fewer than 4096 bits is rounded correctly, a larger one through an Arb ball 20 bits finer)."""
    if isinstance(x, mp.mpf):
        return x
    if isinstance(x, Fraction):
        if max(x.numerator.bit_length(), x.denominator.bit_length()) < _SMALL_BITS:
            return mp.mpf(from_rational(x.numerator, x.denominator, mp.mp.prec, round_nearest))
        with flint.ctx.workprec(mp.mp.prec + 20):
            return +arb_to_mpf(to_arb(x))
    if isinstance(x, Log):
        with mp.workprec(mp.mp.prec + 10):
            value = mp.log(to_mpf(x.of))
        return +value
    return mp.mpf(x)


def arb_to_mpf(a):
    """The midpoint of an arb ball, exactly, as an mpf (not rounded to mpmath's ambient precision)."""
    man, exp = a.mid().man_exp()
    return mp.make_mpf(from_man_exp(int(man), int(exp)))


def to_fraction(x):
    """x (int, float, Fraction or mpf) as an exact rational (an mpf is man·2^exp exactly)."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, mp.mpf):
        sign, man, exp, _ = x._mpf_
        value = Fraction(int(man)) * (Fraction(2) ** exp)
        return -value if sign else value
    return Fraction(x)


def to_arb(x):
    """x (int, float, Fraction, Log, mpf or arb) as a ball containing its exact value, at the context precision."""
    if isinstance(x, flint.arb):
        return x
    if isinstance(x, Fraction):
        if x.denominator == 1:
            return flint.arb(flint.fmpz(int(x.numerator)))
        return flint.arb(flint.fmpq(int(x.numerator), int(x.denominator)))
    if isinstance(x, Log):
        return to_arb(x.of).log()
    if isinstance(x, (int, float)):
        return flint.arb(x)
    sign, man, exp, _ = (x if isinstance(x, mp.mpf) else mp.mpf(x))._mpf_  # an mpf keeps every bit it carries
    man = int(man)
    return flint.arb(flint.arf((-man if sign else man, int(exp))))


def terminates(x):
    """Whether the rational x has an exact decimal string (its denominator is 2^a·5^b): `exact_decimal` is then exact."""
    return _twos_fives(Fraction(x).denominator)[2] == 1


def _twos_fives(denominator):
    """(a, b, rest) with denominator = 2^a·5^b·rest."""
    twos = (denominator & -denominator).bit_length() - 1
    fives, rest = _multiplicity(denominator >> twos, 5)
    return twos, fives, rest


def exact_decimal(x):
    """The exact decimal string of a rational whose denominator is 2^a·5^b (floats, decimal input);
    another rational is written to 60 significant digits. Big integers are written through Decimal
    (str() of an int refuses more than 4,300 digits)."""
    x = Fraction(x)
    if x.denominator == 1:
        return str(Decimal(x.numerator))
    twos, fives, rest = _twos_fives(x.denominator)
    if rest != 1:
        with mp.workdps(60):
            return mp.nstr(to_mpf(x), 60)
    places = max(twos, fives)
    digits = str(Decimal(abs(x.numerator) * 10**places // x.denominator))
    sign = "-" if x < 0 else ""
    if places - len(digits) > 20:  # far below 1: scientific notation
        return f"{sign}{digits[0]}.{digits[1:]}e-{places - len(digits) + 1}".replace(".e", "e")
    digits = digits.rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}"


def _multiplicity(value, prime):
    """(k, value / prime^k) with k the largest such that prime^k divides value: by squaring powers, so in about
    log k big divisions (one by one, 10^-100000 took 100,000 divisions of a 230,000-bit integer)."""
    powers = [prime]
    while value % powers[-1] == 0 and powers[-1].bit_length() <= value.bit_length():
        value //= powers[-1]
        powers.append(powers[-1] * powers[-1])
    count = (1 << (len(powers) - 1)) - 1
    for k in reversed(range(len(powers) - 1)):
        if value % powers[k] == 0:
            value //= powers[k]
            count += 1 << k
    return count, value


def decimal(value, digits=DIGITS, strip_zeros=False, min_fixed=-4, max_fixed=None):
    """A number (mpf, float, int, Fraction, decimal text) as a decimal string of `digits` significant digits,
    the one number formatter of every output: below 10^min_fixed (and from 10^max_fixed, when given) in
    scientific notation; trailing zeros kept unless strip_zeros (a table's short form)."""
    if value is None:
        return None
    with mp.workdps(digits + 10):  # rounded first: mpmath prints an exact 20,000-bit mantissa through str(int)
        value = +to_mpf(value)
    layout = {} if max_fixed is None else {"max_fixed": max_fixed}
    text = mp.nstr(value, digits, strip_zeros=strip_zeros, min_fixed=min_fixed, **layout)
    return text.replace(".e", "e")[:-1] if text.endswith(".") else text.replace(".e", "e")  # one digit: "2e-17", not "2.e-17"


def vouched_digits(value, error):
    """The significant digits of `value` (an mpf) that an error bound `error` (an arb: a ball's radius, an
    enclosure's half-width) vouches for: printed to that many, it is within one unit of its last digit of the true
    value. None where no finite, non-zero error limits them (an exact or unbounded error, a value 0 or not finite)."""
    if not isinstance(error, flint.arb) or not error.is_finite() or not mp.isfinite(value) or value == 0:
        return None
    error = arb_to_mpf(abs(error).upper())
    if error == 0:
        return None
    with mp.workdps(20):
        return max(1, int(mp.floor(mp.log10(abs(value) / (2 * error)))))


def bits_for(dps):
    """Binary precision (bits) that carries `dps` decimal digits, plus guard bits."""
    return int(math.ceil(dps * math.log2(10))) + 8
