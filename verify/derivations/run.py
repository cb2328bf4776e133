"""Running the checks of many derivations, spread over worker processes, with a progress callback
after every check (the library never prints)."""
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor, as_completed

from verify.derivations.registry import run_check


def default_workers():
    """The processors this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def run_derivations(derivations, progress=None, workers=None):
    """Every check of `derivations`: a list of (derivation, tuple of Check), in the order given.

    The checks are independent, so with `workers` > 1 (default: this machine's processors) they run in
    that many forked processes; `progress(done, total, label)` is called after each check.
    """
    tasks = [(d.id, index) for d in derivations for index in range(len(d.checks))]
    workers = min(workers or default_workers(), len(tasks))
    report = progress or (lambda done, total, label: None)
    outcomes = {}
    for done, (task, check) in enumerate(_outcomes(tasks, workers), 1):
        outcomes[task] = check
        report(done, len(tasks), f"{task[0]} {check.kind} ({check.sizes})")
    return [(d, tuple(outcomes[(d.id, index)] for index in range(len(d.checks)))) for d in derivations]


def _outcomes(tasks, workers):
    """(task, Check) pairs as the checks finish."""
    if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        yield from ((task, run_check(*task)) for task in tasks)
        return
    # fork: the workers start with SymPy and the registry imported (a spawned worker would reimport them)
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))
    try:
        futures = {pool.submit(run_check, *task): task for task in tasks}
        for future in as_completed(futures):
            yield futures[future], future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
