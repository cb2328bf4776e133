"""Precision in one place: the digit constants, exact user numbers, and their one conversion.

User numbers are parsed into exact rationals (`fractions.Fraction`: "1.1" is 11/10, "1e-400" is
10⁻⁴⁰⁰) and a coefficient given as z is kept as `Log(z)`; nothing here passes through float64.
Each computation converts them exactly once, at its own working precision: `to_mpf` rounds
correctly to the context precision, `to_arb` gives a ball that contains the exact value.
"""
import math
import re
from dataclasses import dataclass
from fractions import Fraction

import flint
import mpmath as mp
from mpmath.libmp import from_rational, round_nearest

from verify.errors import InputError

DIGITS = 30  # significant digits of every number written to JSON
MIN_DPS = 30  # the least precision that can certify a margin
CERTIFY_DPS = 50  # SPEC §4: a counterexample is re-checked at ≥ 50 digits
MAX_DPS = 1000  # the most digits a search asks for, and a certificate may record
PARSE_DPS = 50  # digits at which user numbers are parsed and validated (symmetry, definiteness)
MAX_EXPONENT = 100_000  # |decimal exponent| a user number may carry (1e-100000 is fine; 1e999999999 is not)
MAX_DIGITS = 10_000  # digits a user number may carry

_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


@dataclass(frozen=True)
class Log:
    """ln of an exact positive rational: a logit given through its coefficient z (ln z is not rational)."""

    of: Fraction

    def __float__(self):
        return math.log(self.of.numerator) - math.log(self.of.denominator)  # big integers: no underflow


def parse_number(value, where):
    """The exact rational a JSON number or decimal string denotes; NaN, inf, junk and absurd sizes are refused."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InputError(f"{where} is {value!r}, not a number; give a number or a decimal string like \"1e-40\"")
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{where} is {value!r}; every number must be finite")
    if isinstance(value, int):
        if value.bit_length() > 4 * MAX_DIGITS:
            raise InputError(f"{where} is an integer of more than {MAX_DIGITS} digits; give a number of sensible size")
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(value)  # exactly the float's value
    text = value.strip()
    match = _NUMBER.fullmatch(text)
    if match is None:
        raise InputError(f"{where} is {value!r}, not a number; give a decimal string like \"1e-40\"")
    if len(match.group(1)) > MAX_DIGITS or (match.group(2) and abs(int(match.group(2)[1:])) > MAX_EXPONENT):
        raise InputError(f"{where} is {value[:40]!r}…, beyond {MAX_DIGITS} digits or an exponent of ±{MAX_EXPONENT}; "
                         "give a number of sensible size")
    return Fraction(text)


def to_mpf(x):
    """x (int, float, Fraction, Log or mpf) as an mpf, rounded once to the context precision."""
    if isinstance(x, mp.mpf):
        return x
    if isinstance(x, Fraction):
        return mp.mpf(from_rational(x.numerator, x.denominator, mp.mp.prec, round_nearest))
    if isinstance(x, Log):
        with mp.workprec(mp.mp.prec + 10):
            value = mp.log(to_mpf(x.of))
        return +value
    return mp.mpf(x)


def to_fraction(x):
    """x (int, float, Fraction or mpf) as an exact rational (an mpf is man·2^exp exactly)."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, mp.mpf):
        sign, man, exp, _ = x._mpf_
        value = Fraction(man) * (Fraction(2) ** exp)
        return -value if sign else value
    return Fraction(x)


def to_arb(x):
    """x (int, float, Fraction, Log, mpf or arb) as a ball containing its exact value, at the context precision."""
    if isinstance(x, flint.arb):
        return x
    if isinstance(x, Fraction):
        return flint.arb(flint.fmpq(x.numerator, x.denominator))
    if isinstance(x, Log):
        return to_arb(x.of).log()
    if isinstance(x, (int, float)):
        return flint.arb(x)
    sign, man, exp, _ = (x if isinstance(x, mp.mpf) else mp.mpf(x))._mpf_  # an mpf keeps every bit it carries
    return flint.arb(flint.arf((-man if sign else man, exp)))


def exact_decimal(x):
    """The exact decimal string of a rational whose denominator is 2^a·5^b (floats, decimal input);
    another rational is written to 60 significant digits."""
    x = Fraction(x)
    if x.denominator == 1:
        return str(x.numerator)
    twos = (x.denominator & -x.denominator).bit_length() - 1
    fives, rest = 0, x.denominator >> twos
    while rest % 5 == 0:
        rest //= 5
        fives += 1
    if rest != 1:
        with mp.workdps(60):
            return mp.nstr(to_mpf(x), 60)
    places = max(twos, fives)
    digits = str(abs(x.numerator) * 10**places // x.denominator)
    sign = "-" if x < 0 else ""
    if places - len(digits) > 20:  # far below 1: scientific notation
        return f"{sign}{digits[0]}.{digits[1:]}e-{places - len(digits) + 1}".replace(".e", "e")
    digits = digits.rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}"


def decimal(value, digits=DIGITS):
    """A decimal string with `digits` significant digits (mpf or float); below 1e-4 in scientific notation."""
    if value is None:
        return None
    if not isinstance(value, mp.mpf):
        with mp.workdps(digits + 5):
            value = mp.mpf(value)
    return mp.nstr(value, digits, strip_zeros=False, min_fixed=-4)


def bits_for(dps):
    """Binary precision (bits) that carries `dps` decimal digits, plus guard bits."""
    return int(math.ceil(dps * math.log2(10))) + 8
