"""Where the search's tasks run: in this process, or on Dask (a local cluster of worker
processes, or an existing scheduler that `dask scheduler` + `dask worker` started elsewhere).

`Executor.run(tasks, progress, finish)` takes (label, function, args) triples and returns their results
in the order given, whatever order they finish in; `progress(done, total, label)` is called as
each completes, and `finish(index, result)`, when given, makes the result kept, in this process, as it arrives. Ctrl-C kills a local cluster's worker processes at once (cancelling thousands of
queued tasks and letting the running ones go on held the end of an interrupted run up for 15–25 s),
or cancels a scheduler's tasks, and raises `Interrupted` carrying the results that had arrived.

By default the tasks run in this process, or — from the command line (`forking_by_default`), on a POSIX system
with two usable cores or more — on `Forked` processes, one per core, forked from this one in milliseconds with
everything it has loaded: `theorem2`'s default tasks then take 3.0–4.2 s of CPU in each of two processes, while this
one makes the proofs' identities as they arrive (`run_tasks`' finish; measured under a load of 3–6). A local cluster costs seconds of start-up (each worker
imports numpy, SciPy, SymPy, Hypothesis and Dask: 1.5 s of CPU) and about 1.5–2× the CPU time of the
same tasks in process, so it pays only on a long search with idle cores. It is started by default
when there are at least `MIN_TASKS_FOR_CLUSTER` tasks (a `theorem2` search has 15 + 0.03 × samples
of them, so from `--samples` 4000), with one worker per usable core; `workers` or `scheduler` ask for
Dask explicitly. Measured with benchmarks/scaling.py on a shared 2-core machine under a load of 6–9,
two workers took 1.61×, 1.43× and 1.23× the in-process wall time at `--samples` 1000, 2000 and 4000.
A local cluster has at most one worker per usable core (the tasks are CPU-bound: more processes only
add start-up time and memory), no dashboard, listens on loopback ports the system chooses (never
8787), and nothing from Dask, Tornado or Bokeh reaches stderr.
"""
import contextlib
import logging
import os
import signal
import threading
import uuid
import warnings
from verify.base import options
from verify.base.errors import InputError
from verify.claims.forking import Forked, can_fork, forking_by_default, forks_by_default  # noqa: F401 (re-exported)
from verify.claims.interrupts import Interrupted, check_stop, remembered_interrupts, shielded  # noqa: F401 (used here and re-exported)
from verify.claims.scheduler import CONNECT_TIMEOUT, check_answers, import_dask, security_for
from verify.base.printable import shown

MIN_TASKS_FOR_CLUSTER = 135  # fewer tasks run in process by default (theorem2: --samples below 4000)
QUIET = logging.CRITICAL + 1  # above every level Dask logs at
NOISY_LOGGERS = ("distributed", "tornado", "tornado.application", "bokeh")


class InProcess:
    """Run every task here, one after another."""

    def run(self, tasks, progress=None, finish=None):
        results = [None] * len(tasks)
        try:
            with remembered_interrupts():
                for index, (label, function, args) in enumerate(tasks):
                    check_stop()
                    results[index] = finished(finish, index, function(*args))
                    if progress:
                        progress(index + 1, len(tasks), label)
                check_stop()
        except KeyboardInterrupt:
            raise Interrupted(results) from None
        return results

    def close(self):
        pass


def finished(finish, index, result):
    """finish(index, result) when `finish` is given and the task returned something (see run_tasks), else result."""
    return result if finish is None or result is None else finish(index, result)


def usable_cores():
    """The cores this process may run on (its CPU affinity where the system reports it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


@contextlib.contextmanager
def deferred_interrupts():
    """Ctrl-C held back while Dask starts or stops its threads and processes, then raised as
    KeyboardInterrupt: nothing is left half-started. Threads and processes started inside have
    SIGINT blocked, so the Ctrl-C a terminal sends to the whole process group reaches only this
    process, never a worker (which would print its own traceback). Outside the main thread, or
    without POSIX signal masks, nothing is deferred."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()  # started later, it would unblock SIGINT in the thread that starts it
    pressed = []
    previous = signal.signal(signal.SIGINT, lambda *_: pressed.append(True))
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Dask's start-up and shut-down warnings are not the user's business
            yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # a pending Ctrl-C is delivered (to `pressed`) here
        signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)
        if pressed:
            raise KeyboardInterrupt  # also in place of an error the interrupted start-up ran into


class DaskExecutor:
    """Tasks as Dask futures on a local cluster of `workers` processes, or on a running scheduler."""

    def __init__(self, workers=None, scheduler=None):
        import_dask()  # a malformed DASK_CONFIG is one line, before Dask's first import reads it
        from distributed.utils import silence_logging_cmgr

        self.cluster = self.client = self.scratch = None
        self.closes_after_run = False  # set by run_tasks for the executor it makes (and closes) itself
        self.quiet = contextlib.ExitStack()  # Dask's loggers stay silent for the executor's lifetime
        for name in NOISY_LOGGERS:
            self.quiet.enter_context(silence_logging_cmgr(QUIET, root=name))
        try:
            with deferred_interrupts():
                self._start(workers, scheduler)
        except BaseException:
            self.close()
            raise

    def _start(self, workers, scheduler):
        from dask.distributed import Client, LocalCluster

        if scheduler:
            security = security_for(scheduler)
            check_answers(scheduler, security)
            self.client = Client(scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False, security=security)
            return
        import tempfile

        import dask

        self.scratch = tempfile.mkdtemp(prefix="verify-dask-")  # the scratch space of every part, removed by close()
        # the scheduler and the nannies make their own `dask-scratch-space` under Dask's temporary-directory (else
        # TMPDIR), which nothing removes: it is pointed into the folder close() removes
        self.quiet.enter_context(dask.config.set({"temporary-directory": self.scratch}))
        self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                                    dashboard_address=None, local_directory=self.scratch, scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                                    silence_logs=QUIET)
        self.client = Client(self.cluster, set_as_default=False)
        from distributed.gc import disable_gc_diagnosis

        # the in-process scheduler's gc callback only logs pauses (silenced here); a Ctrl-C landing inside it
        # would leave its timer half-started, and every later collection would print an AssertionError
        disable_gc_diagnosis(force=True)

    def run(self, tasks, progress=None, finish=None):
        from dask.distributed import as_completed

        run = uuid.uuid4().hex  # keys unique to this run: another run on the same scheduler never shares them
        futures, results = [], [None] * len(tasks)
        try:
            # remembered: a Ctrl-C that lands in Dask's gc callback, where Python can only print it, still stops the run
            with remembered_interrupts():
                futures = [self.client.submit(function, *args, key=f"{label}-{index}-{run}", pure=False)
                           for index, (label, function, args) in enumerate(tasks)]
                order = {future.key: index for index, future in enumerate(futures)}
                for done, future in enumerate(as_completed(futures, loop=self.client.loop), 1):
                    check_stop()
                    index = order[future.key]
                    results[index] = finished(finish, index, future.result())
                    if progress:
                        progress(done, len(tasks), tasks[index][0])
                check_stop()
        except KeyboardInterrupt:
            with deferred_interrupts():
                if self.cluster is not None and self.closes_after_run:
                    self._stop_workers()
                else:  # a scheduler's workers, or a cluster its caller keeps, are not ours to stop: cancel the tasks
                    self.client.cancel(futures)
            raise Interrupted(results) from None
        return results

    def close(self):
        """Stop the client and the cluster this executor started; a Ctrl-C meanwhile comes after."""
        try:
            with deferred_interrupts():
                for part in (self.client, self.cluster):
                    if part is not None:
                        part.close()
        finally:
            if self.scratch is not None:
                import shutil

                shutil.rmtree(self.scratch, ignore_errors=True)
            self.client = self.cluster = self.scratch = None
            self.quiet.close()

    def _stop_workers(self):
        """The local cluster's worker processes killed at once, after a Ctrl-C in a run that closes the cluster
        next (run_tasks' own executor; a caller's is left running, its tasks cancelled): the tasks still running are not
        wanted, Dask's own close lets each run 4 s more, and a worker asked to exit while a solver runs in it can
        print a C++ abort message; with no worker left, the client and the scheduler then close at once."""
        import asyncio

        nannies = list(self.cluster.workers.values())

        async def stop_all():
            for nanny in nannies:
                nanny.close_gracefully(reason="interrupted")  # Dask's word for "do not restart the worker when it goes"
                with contextlib.suppress(OSError, TypeError):  # already gone (reaped, or restarting: no pid)
                    os.kill(nanny.pid, getattr(signal, "SIGKILL", signal.SIGTERM))
            await asyncio.gather(*(nanny.close() for nanny in nannies), return_exceptions=True)

        self.cluster.sync(stop_all)


def check_workers(workers):
    """InputError unless `workers` is None or a whole number from 1 to the usable cores."""
    if workers is None:
        return
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InputError(f"workers = {shown(workers, 200)} must be a whole number ≥ 1 (1 runs in this process)", "workers")
    cores = usable_cores()
    if workers > cores:
        raise InputError(f"workers = {workers} is more than the {cores} cores this process may use; give at most "
                         f"{cores} (for more machines, start a Dask scheduler and give its address)", "workers")


def executor_for(workers=None, scheduler=None, tasks=0):
    """The executor for `tasks` tasks: Dask on the `scheduler` at that address, or a local cluster of
    `workers` processes; with neither, a local cluster of every usable core when there are at least
    MIN_TASKS_FOR_CLUSTER tasks, else this process. Where a local cluster cannot start, this process."""
    check_workers(workers)
    options.scheduler(scheduler)
    if scheduler is not None and workers is not None:
        raise InputError(f"workers = {workers} is for a local cluster, and a scheduler was given too; give one or the "
                         "other (a scheduler's workers are started with `dask worker`)", "workers")
    if scheduler is not None:
        return DaskExecutor(scheduler=scheduler)
    if workers is None and tasks < MIN_TASKS_FOR_CLUSTER and forks_by_default() \
            and usable_cores() > 1 and tasks > 1 and can_fork():
        return Forked(usable_cores())
    if workers is None:
        workers = usable_cores() if tasks >= MIN_TASKS_FOR_CLUSTER else 1
    if workers == 1:
        return InProcess()
    try:
        return DaskExecutor(workers)
    except (OSError, RuntimeError, TimeoutError):  # no local cluster here (no loopback, no processes): same results in process
        return InProcess()


def run_tasks(tasks, progress=None, executor=None, workers=None, scheduler=None, finish=None):
    """(results, interrupted): the tasks on `executor`, or on one made for `workers`/`scheduler` (see
    executor_for) and closed afterwards; after Ctrl-C, the results that had arrived (None for the others).
    `finish(index, result)`, when given, makes each task's final result in this process as the task's arrives, while
    the other tasks run on (work that needs what only this process should load)."""
    own = executor is None
    executor = executor or executor_for(workers, scheduler, len(tasks))
    if own and isinstance(executor, DaskExecutor):
        executor.closes_after_run = True  # so a Ctrl-C may kill its workers at once
    results, interrupted = [None] * len(tasks), False
    try:
        results = executor.run(tasks, progress, finish) if finish is not None else executor.run(tasks, progress)
    except Interrupted as stop:
        results, interrupted = stop.results, True
    finally:
        if own:
            try:
                executor.close()
            except KeyboardInterrupt:  # Ctrl-C while the cluster stopped: the results stand, marked interrupted
                interrupted = True
    return results, interrupted
