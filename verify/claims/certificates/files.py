"""Writing certificates: atomically, and only once `check` confirms them (their format: .format)."""
import json
from pathlib import Path

from verify.base import atomic
from verify.claims.certificates.format import file_name


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
