"""Reaching a running Dask scheduler safely: Dask's configuration read (a malformed DASK_CONFIG file is one line),
the TLS set-up of a tls:// address checked before any connection (CA file, client certificate and key, each a
regular file Dask's own `Security` object can load), and the scheduler's first bytes read on a socket of our own
before Dask unpickles anything.

TLS needs, in Dask's configuration (`distributed.comm.tls.…`, or the DASK_DISTRIBUTED__COMM__TLS__… variables):
`ca-file` (the CA that signed the scheduler's certificate), `client.cert` (this client's certificate, signed by a
CA the scheduler trusts) and `client.key` (its key, unless `client.cert` holds it too). Dask uses TLS only with a CA
file *and* a client certificate; with a CA alone it would build no TLS context at all.
"""
import os
import stat
import sys

from verify.base.errors import InputError
from verify.base.printable import shown

CONNECT_TIMEOUT = 5  # seconds to reach a scheduler and hear its answer before saying it is unreachable
MAX_HANDSHAKE = 1 << 20  # bytes: a Dask handshake is a few hundred; more is not a Dask scheduler
MAX_PEM = 1 << 20  # bytes of a CA file, a certificate or a key: PEM files are a few KiB
TLS_FILES = (  # (Security's attribute, Dask's configuration key, its environment variable, required)
    ("tls_ca_file", "distributed.comm.tls.ca-file", "DASK_DISTRIBUTED__COMM__TLS__CA_FILE", True),
    ("tls_client_cert", "distributed.comm.tls.client.cert", "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT", True),
    ("tls_client_key", "distributed.comm.tls.client.key", "DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY", False),
)
TLS_FIX = ("set distributed.comm.tls.ca-file, .client.cert and .client.key (DASK_DISTRIBUTED__COMM__TLS__CA_FILE, "
           "…__CLIENT__CERT, …__CLIENT__KEY) to PEM files; see docs/cli.md")


MAX_DASK_CONFIG_BYTES = 1 << 20  # a configuration file Dask may read (its own are a few KB)


def import_dask():
    """Import Dask, which reads its configuration (DASK_CONFIG, ~/.config/dask, DASK_… variables) as it starts:
    a malformed configuration file is an InputError naming it, not Dask's traceback; so is one that is not a regular
    file of at most MAX_DASK_CONFIG_BYTES (Dask would read /dev/zero until memory ran out, and wait on a FIFO)."""
    if "dask.config" not in sys.modules:
        _check_config_files()
    try:
        import dask.config  # noqa: F401
        import distributed  # noqa: F401  (its defaults join Dask's configuration: Security reads them)
    except (ValueError, UnicodeDecodeError, OSError) as error:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise InputError(f"Dask's configuration cannot be read ({shown(reason, 160)}); fix or remove the file "
                         f"DASK_CONFIG names ({shown(os.environ.get('DASK_CONFIG', '~/.config/dask'), 120)})",
                         ) from None


def _check_config_files():
    """InputError when a file Dask would read from DASK_CONFIG (that path, or the .yaml/.yml/.json entries of that
    folder, as Dask's collect_yaml lists them) is a pipe, a device or a socket, or a regular file over
    MAX_DASK_CONFIG_BYTES; an entry Dask could not open anyway (a dangling link, a folder) is left to it."""
    named = os.environ.get("DASK_CONFIG")
    if not named:
        return
    try:
        paths = [os.path.join(named, p) for p in sorted(os.listdir(named))
                 if os.path.splitext(p)[1].lower() in (".json", ".yaml", ".yml")] if os.path.isdir(named) else [named]
    except OSError:  # a folder that cannot be listed: Dask cannot either
        return
    for path in paths:
        try:
            status = os.stat(path)
        except OSError:
            continue
        if stat.S_ISDIR(status.st_mode):
            continue
        if not stat.S_ISREG(status.st_mode) or status.st_size > MAX_DASK_CONFIG_BYTES:
            raise InputError(f"Dask's configuration file {shown(path, 120)} is not a regular file of at most "
                             f"{MAX_DASK_CONFIG_BYTES:,} bytes; fix DASK_CONFIG or remove the file")


def security_for(scheduler):
    """Dask's Security for this address: for tls://, the certificates of Dask's configuration, each checked to be a
    regular file that loads (InputError otherwise, before any connection)."""
    import_dask()
    import ssl

    from distributed.security import Security

    try:
        security = Security()
    except (ValueError, TypeError) as error:  # e.g. distributed.comm.tls.min-version = 1.1
        raise InputError(f"Dask's TLS configuration is not usable ({shown(str(error), 160)}); {TLS_FIX}",
                         "scheduler") from None
    if not scheduler.startswith("tls://"):
        return security
    for attribute, key, variable, required in TLS_FILES:
        _check_tls_file(scheduler, getattr(security, attribute), key, variable, required)
    try:
        context = security.get_connection_args("client")["ssl_context"]
    except (ssl.SSLError, OSError, ValueError) as error:
        raise InputError(f"the TLS files for {shown(scheduler, 80)} do not load as a CA, a certificate and its key "
                         f"({type(error).__name__}: {shown(str(error), 100)}); {TLS_FIX}", "scheduler") from None
    if context is None:  # not reached after the checks above: Dask builds a context from a CA and a certificate
        raise InputError(f"Dask builds no TLS context for {shown(scheduler, 80)}; {TLS_FIX}", "scheduler")
    return security


def _check_tls_file(scheduler, value, key, variable, required):
    """InputError unless `value` (a path, or PEM text Dask takes in place of one) names a regular PEM file."""
    where = f"{key} ({variable})"
    if not value:
        if required:
            raise InputError(f"scheduler {shown(scheduler, 80)} is a TLS address, and Dask's configuration sets no "
                             f"{where}; {TLS_FIX}", "scheduler")
        return
    if not isinstance(value, str):
        raise InputError(f"{where} is {shown(value, 40)}, not a file's path; {TLS_FIX}", "scheduler")
    if "-----BEGIN" in value:
        return  # PEM text itself (Dask writes it to a temporary file)
    try:
        info = os.stat(value)
    except (OSError, ValueError) as error:
        reason = "does not exist" if isinstance(error, FileNotFoundError) else "cannot be read"
        raise InputError(f"{where} = {shown(value, 120)} {reason}; {TLS_FIX}", "scheduler") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"{where} = {shown(value, 120)} is a folder; {TLS_FIX}", "scheduler")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{where} = {shown(value, 120)} is not a regular file (a pipe, a device or a socket); "
                         f"{TLS_FIX}", "scheduler")
    if info.st_size > MAX_PEM:
        raise InputError(f"{where} = {shown(value, 120)} is larger than 1 MiB, not a PEM file; {TLS_FIX}", "scheduler")


def _first_frame(scheduler, security):
    """The length that opens the scheduler's handshake, read from a socket of our own (TLS when asked) before
    Dask reads anything: bytes that are not Dask (an HTTP status line) would make it allocate exabytes."""
    import socket
    import struct
    from urllib.parse import urlsplit

    parts = urlsplit(scheduler)
    with socket.create_connection((parts.hostname, parts.port), timeout=CONNECT_TIMEOUT) as raw:
        stream = raw
        if parts.scheme == "tls":
            context = security.get_connection_args("client")["ssl_context"]
            stream = context.wrap_socket(raw, server_hostname=parts.hostname if context.check_hostname else None)
        header = b""
        while len(header) < 8:
            chunk = stream.recv(8 - len(header))
            if not chunk:
                raise ConnectionError("the connection closed before a handshake")
            header += chunk
    return struct.unpack("<Q", header)[0]


def check_answers(scheduler, security):
    """InputError unless a Dask scheduler at this address answers within CONNECT_TIMEOUT (Dask's own
    connect waits for the handshake without a bound, so a port that accepts and never answers hangs it).
    Dask unpickles what a scheduler sends: connect only to schedulers you trust (docs/cli.md)."""
    import asyncio
    import ssl

    from distributed.comm import connect
    from distributed.core import send_recv

    async def identity():
        comm = await connect(scheduler, timeout=CONNECT_TIMEOUT, **security.get_connection_args("client"))
        try:
            return await send_recv(comm, op="identity")
        finally:
            await comm.close()

    fix = "start one with `dask scheduler` or give its address as tcp://HOST:PORT (tls://HOST:PORT with certificates)"
    try:
        if _first_frame(scheduler, security) > MAX_HANDSHAKE:
            raise InputError(f"{shown(scheduler, 80)} answered with bytes that are not a Dask handshake; give a Dask "
                             "scheduler's address (the one `dask scheduler` prints)", "scheduler")
        answer = asyncio.run(asyncio.wait_for(identity(), CONNECT_TIMEOUT))
    except (OSError, asyncio.TimeoutError, ssl.SSLError, ValueError, TypeError, MemoryError, EOFError) as error:
        raise InputError(f"no Dask scheduler answered at {shown(scheduler, 80)} within {CONNECT_TIMEOUT} s "
                         f"({type(error).__name__}{': ' + shown(str(error), 80) if str(error) else ''}); {fix}",
                         "scheduler") from None
    if not isinstance(answer, dict) or answer.get("type") != "Scheduler":
        kind = answer.get("type") if isinstance(answer, dict) else type(answer).__name__
        raise InputError(f"{shown(scheduler, 80)} answered as a {shown(str(kind), 40)}, not a Dask scheduler; give "
                         "the scheduler's address (the one `dask scheduler` prints)", "scheduler")
