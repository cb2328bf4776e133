"""Reading an input file: only a regular file (never a named pipe, a device such as /dev/zero, a folder), named
by a path (never an int, which Python would take for an open file descriptor), and never more than a stated
number of bytes. Each refusal is one InputError naming the file and the fix."""
import os
import stat

from verify.base.errors import InputError
from verify.base.printable import shown


def checked_path(path, what, parameter=None):
    """`path` as a str: a str or os.PathLike naming a file (an int, bytes, None or '' is refused)."""
    if isinstance(path, (bool, int, bytes)) or not isinstance(path, (str, os.PathLike)):
        raise InputError(f"the {what} path {shown(path, 40)} is of type {type(path).__name__}; give the file's path "
                         "as a string (an int would be taken for an open file descriptor)", parameter)
    text = os.fspath(path)
    if not isinstance(text, str) or not text.strip() or "\0" in text:
        raise InputError(f"the {what} path {shown(text, 60)} names no file; give the file's path", parameter)
    return text


def read_bounded(path, limit, what, kind, parameter=None):
    """The bytes of the regular file at `path`, at most `limit` of them; `kind` says what the file should be
    ("a TOML file"). A FIFO is opened without waiting for a writer, and refused."""
    name = checked_path(path, what, parameter)
    try:
        handle = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError(f"{what} {shown(name, 200)} does not exist; give the path of {kind}", parameter) from None
    except OSError as error:
        raise InputError(f"{what} {shown(name, 200)} cannot be read ({error.strerror}); give the path of {kind} you can read",
                         parameter) from None
    try:
        info = os.fstat(handle)
        if stat.S_ISDIR(info.st_mode):
            raise InputError(f"{what} {shown(name, 200)} is a folder; give the path of {kind}", parameter)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{what} {shown(name, 200)} is not a regular file (a pipe, a device or a socket); give the path of "
                             f"{kind}", parameter)
        if info.st_size > limit:
            raise InputError(f"{what} {shown(name, 200)} is larger than {_size(limit)}; give {kind} of at most {_size(limit)}",
                             parameter)
        with os.fdopen(handle, "rb", closefd=False) as stream:
            data = stream.read(limit + 1)  # a file that grows meanwhile is still read no further
    except OSError as error:
        raise InputError(f"{what} {shown(name, 200)} cannot be read ({error.strerror}); give {kind}", parameter) from None
    finally:
        os.close(handle)
    if len(data) > limit:
        raise InputError(f"{what} {shown(name, 200)} is larger than {_size(limit)}; give {kind} of at most {_size(limit)}",
                         parameter)
    return data


def _size(count):
    return f"{count >> 20} MiB" if count >= 1 << 20 and not count % (1 << 20) else f"{count >> 10} KiB"


class FolderStore:
    """A folder of small files under hashed keys, in the layout of Hypothesis's directory database
    (FOLDER/hash(key)/hash(value)): what a rerun replays. Only regular files are read, each up to `limit` bytes,
    and at most `count` of them per key; the folder is made only when something is saved."""

    def __init__(self, path, limit, count=64):
        self.path, self.limit, self.count = checked_path(path, "example database folder", "example_db"), limit, count

    def _folder(self, key):
        import hashlib

        return os.path.join(self.path, hashlib.sha384(key).hexdigest()[:16])

    def fetch(self, key):
        """The values saved under `key` (fewest first by name); entries that are not regular files are skipped."""
        import itertools

        try:
            with os.scandir(self._folder(key)) as entries:
                names = sorted(e.path for e in itertools.islice(entries, 16 * self.count))[:self.count]
        except OSError:  # nothing saved yet (or not a folder): nothing to replay
            return []
        values = []
        for name in names:
            try:
                values.append(read_bounded(name, self.limit, "example database entry", "a saved example"))
            except InputError:
                continue
        return values

    def save(self, key, value):
        import hashlib

        from verify.base.atomic import write_bytes

        folder = self._folder(key)
        os.makedirs(folder, exist_ok=True)
        write_bytes(os.path.join(folder, hashlib.sha384(value).hexdigest()[:16]), value)

    def delete(self, key, value):
        import hashlib

        try:
            os.unlink(os.path.join(self._folder(key), hashlib.sha384(value).hexdigest()[:16]))
        except OSError:
            pass
