"""Tasks on processes forked from this one (POSIX): the command line's default for a short search on two cores
or more (verify.claims.executors.executor_for, inside `forking_by_default`)."""
import contextlib
import importlib
import os
import signal
import sys
import threading

from verify.claims.interrupts import Interrupted, check_stop, remembered_interrupts


class Forked:
    """Run the tasks on `workers` processes forked from this one (POSIX only), each taking the next task as it
    finishes one: the tasks share this process's loaded modules and objects without pickling them, and only their
    results come back (pickled). Start-up costs milliseconds, not the seconds of a Dask cluster, so it pays on a
    run of a few seconds. The objects already made are frozen out of the collector's passes first, so the forked
    processes neither scan nor copy them. Ctrl-C stops the processes at once (they ignore it themselves)."""

    def __init__(self, workers):
        self.workers = workers

    def run(self, tasks, progress=None, finish=None):
        import gc
        import multiprocessing

        global _FORKED_TASKS
        results, pool = [None] * len(tasks), None
        _FORKED_TASKS = tasks
        try:
            with remembered_interrupts():
                for name in preloaded(tasks):  # loaded once here, not in each process (and again here for the verdicts)
                    importlib.import_module(name)
                gc.freeze()  # (no collection first: it took 0.07 s before any process could start)
                with _sigint_blocked():  # a Ctrl-C meanwhile reaches no process before it ignores it, and this
                    # one (as KeyboardInterrupt) only once `pool` is set, to be stopped below
                    pool = multiprocessing.get_context("fork").Pool(min(self.workers, len(tasks)) or 1,
                                                                    initializer=_forked_start)
                with fewer_collections():  # this process makes the proofs' identities meanwhile (SymPy's objects)
                    for done, (index, result) in enumerate(pool.imap_unordered(_forked_task, range(len(tasks))), 1):
                        check_stop()
                        results[index] = finish(index, result) if finish is not None and result is not None else result
                        if progress:
                            progress(done, len(tasks), tasks[index][0])
                check_stop()
        except KeyboardInterrupt:
            raise Interrupted(results) from None
        finally:
            if pool is not None:
                pool.terminate()
                pool.join()
            _FORKED_TASKS = None
            gc.unfreeze()
        return results

    def close(self):
        pass


@contextlib.contextmanager
def _sigint_blocked():
    """SIGINT blocked inside (in the main thread, where POSIX signal masks exist); one that came is delivered after."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


FORK_PRELOAD = ()  # what every process of a search loads on first use (the identities' SymPy and SciPy are loaded in
# the process that collects the results: verify.claims.verdicts.decide.run_jobs)
_PRELOADS = {}  # task function -> the modules it loads on first use (`preloads`)


def preloads(*modules):
    """Decorator: the task function loads these modules on first use, so a Forked run of it loads them once, before
    forking, not once per process (Z3, cvc5 and SciPy's optimiser take 0.45 s of CPU to load in each)."""
    def mark(function):
        _PRELOADS[function] = modules
        return function

    return mark


def preloaded(tasks):
    """The modules to load before forking the processes for these tasks: FORK_PRELOAD, then their functions' own."""
    names = dict.fromkeys(FORK_PRELOAD)
    for _, function, _ in tasks:
        names.update(dict.fromkeys(_PRELOADS.get(function, ())))
    return tuple(names)
_FORKED_TASKS = None  # the tasks a Forked run's processes read (inherited at the fork, never pickled)


def _forked_start():
    import gc

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the terminal's Ctrl-C reaches the parent, which stops us
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked while the pool was forked
    gc.set_threshold(*FEWER_COLLECTIONS)


FEWER_COLLECTIONS = (10_000, 10, 10)  # the tasks make objects by the million (Hypothesis's choices, SymPy's
# expressions): young-generation passes every 10,000 of them, not 700, took half the collector's time (0.6 -> 0.3 s)


@contextlib.contextmanager
def fewer_collections():
    """The collector's thresholds at FEWER_COLLECTIONS inside, the caller's restored after."""
    import gc

    saved = gc.get_threshold()
    gc.set_threshold(*FEWER_COLLECTIONS)
    try:
        yield
    finally:
        gc.set_threshold(*saved)


def _forked_task(index):
    label, function, args = _FORKED_TASKS[index]
    try:
        return index, function(*args)
    except KeyboardInterrupt:  # a Ctrl-C came before the fork (its stop flag is inherited): no traceback here,
        return index, None  # the parent's own check_stop ends the run on this result


def can_fork():
    """Whether this process may fork workers: a POSIX fork, in the main thread, with no other thread alive
    (a thread holding a lock at the fork would leave it held in the child)."""
    return (hasattr(os, "fork") and sys.platform != "darwin" and threading.current_thread() is threading.main_thread()
            and threading.active_count() == 1)


_FORK_BY_DEFAULT = threading.local()


@contextlib.contextmanager
def forking_by_default():
    """Inside, a run given neither workers nor a scheduler forks one process per usable core (`Forked`) where it
    would otherwise run in this process (the command line's default for theorem2 and claims)."""
    _FORK_BY_DEFAULT.on = True
    try:
        yield
    finally:
        _FORK_BY_DEFAULT.on = False


def forks_by_default():
    """Whether the run is inside `forking_by_default` (in this thread)."""
    return getattr(_FORK_BY_DEFAULT, "on", False)
