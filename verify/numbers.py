"""Parsing user numbers (ints, floats or decimal strings) and printing decimal strings.

Decimal strings are parsed by mpmath, so a coefficient such as "1e-400" (below
float64's range) is kept exactly at the working precision.
"""
import math

import mpmath as mp

from verify.errors import InputError

DIGITS = 30  # significant digits of every number written to JSON


def parse_number(value, where):
    """An mpf from a JSON number or decimal string; NaN, inf and junk are refused."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InputError(f"{where} is {value!r}, not a number; give a number or a decimal string like \"1e-40\"")
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{where} is {value!r}; every number must be finite")
    try:
        number = mp.mpf(value.strip() if isinstance(value, str) else value)
    except (ValueError, TypeError):
        raise InputError(f"{where} is {value!r}, not a number; give a decimal string like \"1e-40\"") from None
    if not mp.isfinite(number):
        raise InputError(f"{where} is {value!r}; every number must be finite")
    return number


def decimal(value, digits=DIGITS):
    """A decimal string with `digits` significant digits (mpf, float, arb-free)."""
    if value is None:
        return None
    if not isinstance(value, mp.mpf):
        with mp.workdps(digits + 5):
            value = mp.mpf(value)
    return mp.nstr(value, digits, strip_zeros=False)


def bits_for(dps):
    return int(math.ceil(dps * math.log2(10))) + 8
