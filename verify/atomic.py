"""Atomic writes: a temporary file in the target folder, then a rename; never a half-written file."""
import os
import tempfile
from pathlib import Path

from verify.errors import InputError


def check_out_dir(out, what="results"):
    """InputError unless `out` is (or can be made) a writable folder; nothing is created here."""
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise InputError(f"the output folder {out!r} is a file; give a folder for the {what}", "out")
    parent = path if path.exists() else path.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK):
        raise InputError(f"the output folder {out!r} is not writable; give a folder you can write to", "out")


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_text(path, text):
    """Write UTF-8 text to `path` atomically (temporary file in the same folder, then rename)."""
    return write_bytes(path, text.encode("utf-8"))


def write_bytes(path, data):
    """Write bytes to `path` atomically: never a half-written file, even on Ctrl-C."""
    path = Path(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes 0600; give the file the usual mode
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    return path
