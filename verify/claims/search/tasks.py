"""The search's tasks for a list of jobs: per pool of jobs the random units, per job one adversarial (Hypothesis)
task, and per domain of jobs a structured task (verify.claims.search.structured), as (label, function, args)."""
from verify.claims.search import sampling as search
from verify.claims.search.engine import run_adversarial, run_unit, units_for
from verify.claims.search.structured import structured_tasks


def _examples(samples, n):
    """The Hypothesis examples of one job: a fifth of its samples, at least 20 (fewer at large n)."""
    if n <= search.SCALE_N:
        return max(samples // 5, 20)
    count = search.scaled(samples, n)
    return max(count // 5, min(20, count))


def single_tasks(jobs, seed, samples, dps, example_db=None):
    """The random units (per pool of jobs), one adversarial task per job and the structured tasks (per domain of
    jobs), as (label, function, args)."""
    pools = {}
    for index, job in enumerate(jobs):
        pools.setdefault(job.pool, []).append(index)
    # the long sequential tasks first, so the short units fill in around them
    tasks = [(f"{job.label}: adversarial", run_adversarial, (job, seed, dps, _examples(samples, job.n_range[1]),
                                                             example_db)) for job in jobs]
    tasks += structured_tasks(jobs, dps)  # (search.structured)
    for pool, ids in pools.items():
        units = units_for(seed, search.scaled(samples, pool.n_range[1]), tuple(ids), dps)
        tasks += [(f"samples {u.start}–{u.stop - 1}", run_unit, (u, jobs)) for u in units]
    return tasks
