"""Where the search's tasks run: in this process, or on Dask (a local cluster of worker
processes, or an existing scheduler that `dask scheduler` + `dask worker` started elsewhere).

`Executor.run(tasks, progress)` takes (label, function, args) triples and returns their results
in the order given, whatever order they finish in; `progress(done, total, label)` is called as
each completes. Ctrl-C cancels what is still running and raises `Interrupted` carrying the
results that had arrived.
"""
import os
import uuid

from verify.errors import InputError

CONNECT_TIMEOUT = 5  # seconds to reach a scheduler before saying it is unreachable


class Interrupted(Exception):
    """The user pressed Ctrl-C; `results` holds what had been computed (None where not)."""

    def __init__(self, results):
        super().__init__("interrupted")
        self.results = results


class InProcess:
    """Run every task here, one after another."""

    def run(self, tasks, progress=None):
        results = [None] * len(tasks)
        try:
            for index, (label, function, args) in enumerate(tasks):
                results[index] = function(*args)
                if progress:
                    progress(index + 1, len(tasks), label)
        except KeyboardInterrupt:
            raise Interrupted(results) from None
        return results

    def close(self):
        pass


class DaskExecutor:
    """Tasks as Dask futures on a local cluster of `workers` processes, or on a running scheduler."""

    def __init__(self, workers=None, scheduler=None):
        from dask.distributed import Client

        if scheduler:
            self.cluster = None
            try:
                self.client = Client(scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False)
            except (OSError, TimeoutError, ValueError) as error:
                raise InputError(f"no Dask scheduler answered at {scheduler!r} within {CONNECT_TIMEOUT} s ({error}); "
                                 "start one with `dask scheduler` or give its address as tcp://HOST:PORT",
                                 "scheduler") from None
        else:
            from dask.distributed import LocalCluster

            self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                        dashboard_address=None, silence_logs=50)
            self.client = Client(self.cluster, set_as_default=False)

    def run(self, tasks, progress=None):
        from dask.distributed import as_completed

        run = uuid.uuid4().hex  # keys unique to this run: another run on the same scheduler never shares them
        futures = [self.client.submit(function, *args, key=f"{label}-{index}-{run}", pure=False)
                   for index, (label, function, args) in enumerate(tasks)]
        order = {future.key: index for index, future in enumerate(futures)}
        results = [None] * len(tasks)
        try:
            for done, future in enumerate(as_completed(futures, loop=self.client.loop), 1):
                index = order[future.key]
                results[index] = future.result()
                if progress:
                    progress(done, len(tasks), tasks[index][0])
        except KeyboardInterrupt:
            self.client.cancel(futures)
            raise Interrupted(results) from None
        return results

    def close(self):
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def executor_for(workers=None, scheduler=None):
    """In process for one worker; otherwise Dask (local cluster, or the scheduler at that address)."""
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise InputError(f"workers = {workers!r} must be a whole number ≥ 1 (1 runs in this process)", "workers")
    if scheduler is None and (workers or os.cpu_count() or 1) == 1:
        return InProcess()
    if scheduler is not None:
        return DaskExecutor(workers, scheduler)
    try:
        return DaskExecutor(workers or os.cpu_count() or 1)
    except (OSError, RuntimeError, TimeoutError):  # no local cluster here (no loopback, no processes): same results in process
        return InProcess()


def run_tasks(tasks, progress=None, executor=None, workers=None, scheduler=None):
    """(results, interrupted): the tasks on `executor`, or on one made for `workers`/`scheduler` and
    closed afterwards; after Ctrl-C, the results that had arrived (None for the others)."""
    own = executor is None
    executor = executor or executor_for(workers, scheduler)
    try:
        return executor.run(tasks, progress), False
    except Interrupted as stop:
        return stop.results, True
    finally:
        if own:
            executor.close()
