"""The library checks its own arguments: each check returns the value or raises InputError naming the
parameter, the value and the fix (the CLI only adds its flag's spelling). Bounds on size and cost live here."""

import os

from verify.errors import InputError
from verify.numerics.precision import MAX_DPS, MIN_DPS

MAX_SEED = 2**63 - 1
MAX_SAMPLES = 1_000_000  # random cases per claim: about an hour of work on one core
MAX_WORKERS = 64


def whole(value, name, low, high, fix):
    """`value` as an int in [low, high], else InputError."""
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer() and low <= value <= high:
            return int(value)
        raise InputError(f"{name} = {str(value)[:40]!r} is not a whole number; {fix}", name)
    if not low <= value <= high:
        raise InputError(f"{name} = {value} is outside {low}..{high}; {fix}", name)
    return value


def seed(value):
    return whole(value, "seed", 0, MAX_SEED, f"give a seed from 0 to 2^63 − 1, e.g. seed=0")


def samples(value):
    return whole(value, "samples", 1, MAX_SAMPLES, f"give 1 to {MAX_SAMPLES:,} random cases per claim (default 300)")


def search_dps(value):
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < MIN_DPS:
        raise InputError(f"dps = {value} is below {MIN_DPS}, the least that can certify a margin; use dps=50", "dps")
    return whole(value, "dps", MIN_DPS, MAX_DPS, f"give {MIN_DPS} to {MAX_DPS} digits, e.g. dps=50")


def dps(value, low=1):
    return whole(value, "dps", low, MAX_DPS, f"give {low} to {MAX_DPS} digits, e.g. dps=30")


def workers(value):
    if value is None:
        return None
    return whole(value, "workers", 1, MAX_WORKERS, f"give 1 to {MAX_WORKERS} worker processes (1 runs in process)")


def claim_ids(value):
    """None, or a list/tuple of claim id strings (a bare string is a common slip: refuse it)."""
    if value is None:
        return None
    if isinstance(value, str):
        raise InputError(f"claim_ids = {value[:40]!r} is a string; give a list of ids, e.g. [{value[:40]!r}]", "claim")
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise InputError(f"claim_ids = {str(value)[:60]} must be a list of claim id strings", "claim")
    return tuple(value)


def out_dir(value):
    """None (write nothing) or a folder path; the empty path is refused (it would mean the current folder)."""
    if value is None:
        return None
    if not isinstance(value, (str, os.PathLike)) or not str(value).strip():
        raise InputError(f"out = {str(value)[:40]!r} is not a folder path; give a folder such as 'certificates'", "out")
    return value


def scheduler(value):
    """None, or a Dask scheduler address tcp://HOST:PORT."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.startswith("tcp://") or ":" not in value[6:] or "\n" in value:
        raise InputError(f"scheduler = {str(value)[:60]!r} is not a Dask scheduler address; give tcp://HOST:PORT", "scheduler")
    return value


def reading(value, readings):
    if value not in readings:
        shown = ", ".join(str(r) for r in readings)
        raise InputError(f"reading {str(value)[:40]!r} is not one of {shown}", "reading")
    return value



