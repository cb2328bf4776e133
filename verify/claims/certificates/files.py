"""The certificate file format's common parts: its version tag, atomic writing, and the checks every
kind shares (exact keys, the recorded precision)."""
import json
from pathlib import Path

from verify import atomic, options
from verify.errors import InputError
from verify.options import CERTIFY_DPS, MAX_DPS

FORMAT = "verify-certificate/2"


def file_name(claim_id, reading):
    return f"{claim_id}.{reading}.json" if reading else f"{claim_id}.json"


def write(out_dir, body):
    """Write a certificate under out_dir (created if needed), atomically; its path."""
    atomic.check_out_dir(out_dir, "certificates")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return atomic.write_text(out / file_name(body["claim"], body.get("reading")), json.dumps(body, indent=2) + "\n")


def write_confirmed(out_dir, body, check):
    """The one rule for every certificate a run writes: only once `check` (its CheckResult, from the certificate
    in memory) confirms it, under out_dir when given. Its path, or None."""
    return str(write(out_dir, body)) if check.confirmed and out_dir is not None else None


def exact_keys(data, keys, where):
    """InputError unless data has exactly `keys` (an unknown key is a misspelling until shown otherwise)."""
    missing = [k for k in keys if k not in data]
    unknown = [k for k in data if k not in keys]
    if missing:
        raise InputError(f"{where} lacks {', '.join(missing)}; a certificate of this kind has {', '.join(keys)}")
    if unknown:
        raise InputError(f"{where} has the unknown key {unknown[0]!r}; a certificate of this kind has only {', '.join(keys)}")


def checked_dps(dps, where):
    try:
        return options.dps(dps, CERTIFY_DPS)
    except InputError as error:
        raise InputError(f"{where}: {error} (a certificate records {CERTIFY_DPS} to {MAX_DPS} digits)") from None


