"""Writing certificates: atomically, and only once `check` confirms them (their format: .format)."""
import json
from pathlib import Path

from verify.base import atomic
from verify.claims.certificates.format import file_name


def check_targets(out_dir, claims_and_readings):
    """InputError, before any work, when a certificate this run may write under `out_dir` has its file's place taken
    by a folder (or a pipe, a socket, a device): the atomic write would fail only after the whole search."""
    import os
    import stat

    from verify.base.errors import InputError
    from verify.base.printable import shown

    if out_dir is None:
        return
    for claim_id, reading in claims_and_readings:
        path = os.path.join(os.fspath(out_dir), file_name(claim_id, reading))
        try:
            mode = os.lstat(path).st_mode
        except OSError:  # nothing there (or nothing we may look at: the write will say so)
            continue
        if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
            kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
            raise InputError(f"the certificate {shown(path, 200)} this run would write is {kind}; remove it or give "
                             "another output folder", "out")


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
