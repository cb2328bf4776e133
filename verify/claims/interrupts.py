"""Ctrl-C while a search's tasks run: remembered where Python cannot raise it, held back inside a solver call, and
`Interrupted` carrying the results that had arrived (verify.claims.executors re-exports every name)."""
import contextlib
import signal
import sys
import threading

_STOP = threading.Event()  # set by Ctrl-C while tasks run in this process


def check_stop():
    """Raise KeyboardInterrupt if Ctrl-C came while tasks run here (long loops call this at each step)."""
    if _STOP.is_set():
        raise KeyboardInterrupt


@contextlib.contextmanager
def remembered_interrupts():
    """While tasks run in this process, a Ctrl-C is remembered as well as raised: one that lands where
    Python cannot raise it (inside an object's finaliser, such as a Z3 context being freed) still stops
    the run at the next `check_stop`, and an error a library raises in its place is a KeyboardInterrupt.
    Outside the main thread nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    outer_imports = _imports(sys._getframe())  # the run itself may have been started from a module being imported

    def remember(signum, frame):
        _STOP.set()
        if _imports(frame) <= outer_imports:  # an import stopped half-way leaves its package broken for the rest of
            raise KeyboardInterrupt  # the process (the interrupted report's LaTeX then fails): check_stop raises it after

    def quiet_when_remembered(unraisable, hook=sys.unraisablehook):
        """A Ctrl-C raised where Python can only print it (a finaliser, Hypothesis's gc callback) is not
        printed as a traceback: it is remembered, and the next check_stop raises it."""
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            _STOP.set()
            return
        hook(unraisable)

    previous, previous_hook = signal.signal(signal.SIGINT, remember), sys.unraisablehook
    sys.unraisablehook = quiet_when_remembered
    try:
        yield
    except Exception as error:
        if _STOP.is_set():  # raised in place of the Ctrl-C (Hypothesis, interrupted as its engine starts, fails an
            raise KeyboardInterrupt from error  # assertion instead): the run was interrupted, and says so
        raise
    finally:
        signal.signal(signal.SIGINT, previous)
        sys.unraisablehook = previous_hook
        _STOP.clear()


def _imports(frame):
    """How many frames of Python's import machinery are on the stack below `frame` (more than when the run started:
    the signal came while a module was being imported)."""
    count = 0
    while frame is not None:
        count += frame.f_code.co_filename.startswith("<frozen importlib")
        frame = frame.f_back
    return count


@contextlib.contextmanager
def shielded():
    """Ctrl-C only remembered, never raised, inside (a solver call and the freeing of its objects); the
    caller's next `check_stop` raises it. Outside the main thread nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, lambda signum, frame: _STOP.set())
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class Interrupted(Exception):
    """The user pressed Ctrl-C; `results` holds what had been computed (None where not)."""

    def __init__(self, results):
        super().__init__("interrupted")
        self.results = results
