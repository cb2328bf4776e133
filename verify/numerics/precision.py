"""Precision in one place: the digit constants, exact parsing of user numbers, decimal printing.

Decimal strings are parsed by mpmath at `PARSE_DPS` digits or more, so a coefficient such as
"1e-400" (below float64's range) or "1.0000000000000000000001" keeps its value; nothing
here passes through float64.
"""
import math
import re

import mpmath as mp

from verify.errors import InputError

DIGITS = 30  # significant digits of every number written to JSON
MIN_DPS = 30  # the least precision that can certify a margin
CERTIFY_DPS = 50  # SPEC §4: a counterexample is re-checked at ≥ 50 digits
PARSE_DPS = 50  # digits at which user numbers are parsed and validated (symmetry, definiteness)
MAX_EXPONENT = 100_000  # |decimal exponent| a user number may carry (1e-100000 is fine; 1e999999999 is not)

_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def parse_number(value, where, dps=PARSE_DPS):
    """An mpf from a JSON number or decimal string (at ≥ `dps` digits); NaN, inf and junk are refused."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InputError(f"{where} is {value!r}, not a number; give a number or a decimal string like \"1e-40\"")
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{where} is {value!r}; every number must be finite")
    text = value.strip() if isinstance(value, str) else repr(value)
    match = _NUMBER.fullmatch(text)
    if match is None:
        raise InputError(f"{where} is {value!r}, not a number; give a decimal string like \"1e-40\"")
    if match.group(2) and abs(int(match.group(2)[1:])) > MAX_EXPONENT:
        raise InputError(f"{where} is {value!r}, whose exponent is beyond ±{MAX_EXPONENT}; give a number of sensible size")
    if isinstance(value, int) and abs(value).bit_length() > 4 * MAX_EXPONENT:
        raise InputError(f"{where} is an integer of {len(text)} digits; give a number of sensible size")
    with mp.workdps(max(dps, mp.mp.dps)):
        return +mp.mpf(text)


def decimal(value, digits=DIGITS):
    """A decimal string with `digits` significant digits (mpf or float)."""
    if value is None:
        return None
    if not isinstance(value, mp.mpf):
        with mp.workdps(digits + 5):
            value = mp.mpf(value)
    return mp.nstr(value, digits, strip_zeros=False)


def bits_for(dps):
    """Binary precision (bits) that carries `dps` decimal digits, plus guard bits."""
    return int(math.ceil(dps * math.log2(10))) + 8
