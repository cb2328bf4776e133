"""The one check of each option (seed, samples, digits, workers, scheduler, claim ids, output folder, derivation
and experiment names, assumption2's dimensions and plot), used by the
library API and by the command line alike: each returns the value or raises InputError naming the parameter, the
value and the fix (the CLI only adds its flag's spelling). The bounds on size and cost are stated here, once.
A leaf module: it imports nothing of the package but its errors and echoes (and, to check a plot's folder, the leaf
verify.base.atomic), so the command line starts fast."""

import os
from urllib.parse import urlsplit

from verify.base.errors import InputError
from verify.base.printable import shown

MIN_DPS = 30  # every dps accepted (library and command line) lies in MIN_DPS..MAX_DPS: the least that can certify a margin
CERTIFY_DPS = 50  # docs/spec.md §4: a counterexample is re-checked at ≥ 50 digits
MAX_DPS = 1000  # the most digits a search asks for, and a certificate may record
MAX_SEED = 2**63 - 1
MAX_SAMPLES = 2_000  # random cases per claim: a theorem2 search at this budget takes about 25 s of CPU (3,000 took 41.5 s)
MAX_WORKERS = 64
SCHEMES = ("tcp", "tls")


def whole(value, name, low, high, fix):
    """`value` as an int in [low, high], else InputError (a numpy integer counts as one)."""
    if not isinstance(value, (bool, int)) and type(value).__module__ == "numpy" and hasattr(value, "is_integer") \
            and getattr(value, "dtype", None) is not None and value.dtype.kind in "iu":
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer() and low <= value <= high:
            return int(value)
        raise InputError(f"{name} = {shown(value, 40)} is not a whole number; {fix}", name)
    if not low <= value <= high:
        raise InputError(f"{name} = {shown(value, 40)} is outside {shown(low, 40)}..{shown(high, 40)}; {fix}", name)
    return value


def from_text(text, check):
    """A command-line value: the text as a whole number, then the library's own `check` of it."""
    stripped = text.strip()
    digits = stripped[1:] if stripped[:1] in "+-" else stripped
    if not (digits.isdigit() and digits.isascii()):
        return check(text)  # not a whole number: the check's own message names it
    if len(digits) <= 4000:  # within what int() reads (Python's limit is 4,300 digits)
        return check(int(stripped))
    # longer: its leading digits and its size, which is all the check's refusal shows of a number this large ("12345…
    # (N digits)"; every bound is far below it)
    return check((-1 if stripped[0] == "-" else 1) * int(digits[:40]) * 10 ** (len(digits) - 40))


def seed(value):
    return whole(value, "seed", 0, MAX_SEED, "give a seed from 0 to 2^63 − 1, e.g. 0")


def samples(value):
    return whole(value, "samples", 1, MAX_SAMPLES, f"give 1 to {MAX_SAMPLES:,} random cases per claim (default 300)")


def dps(value, low=MIN_DPS):
    """`value` as a working precision of MIN_DPS to MAX_DPS decimal digits: the one range of every function and
    flag that accepts dps (a certificate file's recorded dps is held to CERTIFY_DPS and up: pass `low`). The
    error repeats the value and names the fix, as `dps = 5 ...; use dps = 50` (the command line spells it
    `--dps 5 ...; use --dps 50`)."""
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            return dps(int(value), low)
        raise InputError(f"dps = {str(value)[:40]!r} is not a whole number of digits; use dps = {CERTIFY_DPS}", "dps")
    if value < low:
        why = "the least that can certify a margin" if low == MIN_DPS else "the least a certificate records"
        raise InputError(f"dps = {value} is below {low}, {why}; use dps = {max(low, CERTIFY_DPS)}", "dps")
    if value > MAX_DPS:
        raise InputError(f"dps = {shown(value, 60)} is above {MAX_DPS}, the most digits the package works at; "
                         f"use dps = {MAX_DPS}", "dps")
    return value


def positive(value, name, high=10**6):
    """A count such as n, N, d or steps: a whole number from 1 to `high`."""
    return whole(value, name, 1, high, f"give a whole number from 1 to {high:,}")


def workers(value):
    if value is None:
        return None
    return whole(value, "workers", 1, MAX_WORKERS, f"give 1 to {MAX_WORKERS} worker processes (1 runs in process)")


def claim_ids(value):
    """None, or a list/tuple of claim id strings (a bare string is a common slip: refuse it)."""
    if value is None:
        return None
    if isinstance(value, str):
        raise InputError(f"claim_ids = {shown(value, 40)} is a string; give a list of ids, e.g. [{shown(value, 40)}]", "claim")
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise InputError(f"claim_ids = {shown(value, 60)} must be a list of claim id strings", "claim")
    return tuple(value)


def path(value, name, what="a file path"):
    """A str or os.PathLike path (an int would be read as an open file descriptor: refused)."""
    if isinstance(value, bytes) or not isinstance(value, (str, os.PathLike)):
        raise InputError(f"{name} = {shown(value, 40)} is of type {type(value).__name__}; give {what} as a string",
                         name)
    text = os.fspath(value)
    if not isinstance(text, str) or not text.strip() or "\0" in text:
        raise InputError(f"{name} = {shown(text, 40)} is not a usable path; give {what}", name)
    return text


def out_dir(value):
    """None (write nothing) or a folder path; the empty path is refused (it would mean the current folder)."""
    if value is None:
        return None
    return path(value, "out", "a folder such as 'certificates'")


def example_db(value):
    """None (the user's cache folder) or the folder of Hypothesis's example database."""
    if value is None:
        return None
    return path(value, "example_db", "a folder for the example database")


def progress(value):
    """None or a callable progress(done, total, label)."""
    if value is not None and not callable(value):
        raise InputError(f"progress is a {type(value).__name__}; give None or a function progress(done, total, label)",
                         "progress")
    return value


def scheduler(value):
    """None, or a Dask scheduler address tcp://HOST:PORT or tls://HOST:PORT (TLS: certificates from Dask's
    configuration, `distributed.comm.tls`)."""
    if value is None:
        return None
    fix = "give the address `dask scheduler` prints, tcp://HOST:PORT or tls://HOST:PORT"
    if not isinstance(value, str) or not value.strip() or len(value) > 300 or not value.isprintable():
        raise InputError(f"scheduler = {shown(value, 60)} is not a Dask scheduler address; {fix}", "scheduler")
    parts = urlsplit(value)
    try:
        port = parts.port
    except ValueError:
        port = None
    if parts.scheme not in SCHEMES or not parts.hostname or port is None or parts.path.strip("/") or parts.query:
        raise InputError(f"scheduler = {shown(value, 60)} is not a Dask scheduler address; {fix}", "scheduler")
    return value


def reading(value, readings):
    if value not in readings:
        raise InputError(f"reading {shown(value, 40)} is not one of {', '.join(str(r) for r in readings)}", "reading")
    return value


def known(ids, choices, what):
    """Names the user chose (derivation ids, experiments), each one of `choices`.

    This check and the ones below are of command-line options with no library parameter of the same name, so
    their messages name the flags themselves."""
    unknown = [i for i in ids if i not in choices]
    if unknown:
        raise InputError(f"unknown {what} {shown(unknown[0], 40)}; choose from {', '.join(choices)}")
    repeated = [i for n, i in enumerate(ids) if i in ids[:n]]
    if repeated:
        raise InputError(f"the {what} {shown(repeated[0], 40)} is named twice; name each once")
    return list(ids)


def dimensions(n, N, d):
    """assumption2's one user's dimensions: all three of n, N, d (True) or none, the default sweep (False)."""
    given = [v is not None for v in (n, N, d)]
    if any(given) and not all(given):
        raise InputError("give all three of --n, --N and --d (one user's dimensions), or none for the default sweep")
    return all(given)


def sweep_plot(plot, dimensions_given, claim_ids):
    """assumption2's --plot: None, or a PNG file name for the A2.decouple sweep (which needs the default sweep and
    that claim)."""
    if plot is None:
        return None
    if dimensions_given:
        raise InputError("--plot draws the default sweep over d; drop --n --N --d to plot it")
    if claim_ids and "A2.decouple" not in claim_ids:
        raise InputError("--plot draws the A2.decouple sweep; include --claim A2.decouple or drop --claim")
    return plot_file(plot)


def plot_file(value):
    """A file name for a plot, in a folder that exists and can be written (nothing is written here)."""
    from pathlib import Path

    from verify.base.atomic import NAME_MAX, check_out_dir

    text = path(value, "plot", "a file name ending in .png")
    target = Path(text)
    if target.is_dir() or not target.name or len(os.fsencode(target.name)) > NAME_MAX:
        raise InputError(f"--plot {shown(text, 60)} is a folder or no usable file name; give a file name ending in .png")
    if target.suffix.lower() != ".png":  # the plot is written as a PNG whatever the name says
        raise InputError(f"--plot {shown(text, 60)} does not end in .png (the plot is a PNG image); give a file name "
                         "ending in .png")
    if target.is_symlink() and not target.exists():
        raise InputError(f"--plot {shown(text, 200)} is a symlink to nothing (or a loop); give a file name ending in .png")
    if not target.parent.is_dir():
        raise InputError(f"--plot {shown(text, 200)}: the folder {shown(str(target.parent), 200)} does not exist; make it or give another")
    check_out_dir(str(target.parent), "plot", "plot")
    return text


def transformer_alone(names, transformer_flags, synthetic_flags=()):
    """`experiments`: the transformer study runs on its own, and its flags (name -> value given) are for it alone; the
    synthetic experiments' sizes (`synthetic_flags`) are not its own."""
    given = [flag for flag, value in transformer_flags if value]
    if names == ["transformer"]:
        other = [flag for flag, value in synthetic_flags if value is not None]
        if other:
            raise InputError(f"{other[0]} sizes the synthetic experiments, not the transformer study; size it with "
                             "--width, --layers, --heads (or drop the flag)")
        return
    if given or "transformer" in names:
        raise InputError(f"{given[0] if given else 'transformer'} is for the transformer study alone; run "
                         "`python -m verify experiments transformer` on its own")
