"""Atomic writes: a temporary file in the target folder, then a rename; never a half-written file."""
import os
import tempfile
from pathlib import Path

from verify.base.errors import InputError
from verify.base.printable import shown


NAME_MAX = 255  # bytes in one file name on the usual file systems


def check_out_dir(out, what="results", flag="out"):
    """InputError unless `out` is a writable folder or one that can be made: the nearest existing folder on its way
    takes a temporary folder, made and removed at once. A dangling symlink, a symlink loop, a file, a name over
    255 bytes and a place that takes no folders (/proc) are refused before any work; nothing is left behind."""
    text = os.fspath(out)
    fix = f"give a folder you can write to for the {what}"
    if any(len(os.fsencode(part)) > NAME_MAX for part in Path(text).parts):
        raise InputError(f"the output folder {shown(text, 60)}… has a name over {NAME_MAX} bytes; {fix}", flag)
    path = Path(text)
    try:
        if path.is_symlink() and not path.exists():
            raise InputError(f"the output folder {shown(text, 200)} is a symlink to nothing (or a loop); {fix}", flag)
        if path.exists() and not path.is_dir():
            raise InputError(f"the output folder {shown(text, 200)} is a file; {fix}", flag)
        parent = path.absolute()
        while not parent.exists() and not parent.is_symlink():
            parent = parent.parent
        if not parent.is_dir():
            raise InputError(f"the output folder {shown(text, 200)} lies under {shown(str(parent), 200)}, which is not a folder; {fix}", flag)
        tempfile.TemporaryDirectory(dir=parent, prefix=".verify-").cleanup()
    except OSError as error:
        raise InputError(f"the output folder {shown(text, 200)} cannot be made or written ({error.strerror}); {fix}", flag) from None


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
