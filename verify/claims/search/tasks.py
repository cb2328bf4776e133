"""The search's tasks for a list of jobs, as (label, function, args): per pool of jobs the random units; per group of
jobs that draw alike the Hypothesis searches (verify.claims.search.engine.run_adversarial_jobs) and the structured
cases (verify.claims.search.structured.run_structured_jobs), each case's points then computed once for the group."""
from verify.claims.search import sampling as search
from verify.claims.search.engine import run_adversarial_jobs, run_unit, units_for
from verify.claims.search.structured import run_structured_jobs

JOBS_PER_TASK = 8  # jobs of a group in one task (more would make a task too long to balance the processes)


def _examples(samples, n):
    """The Hypothesis examples of one job: a fifth of its samples, at least 20 (fewer at large n)."""
    if n <= search.SCALE_N:
        return max(samples // 5, 20)
    count = search.scaled(samples, n)
    return max(count // 5, min(20, count))


def groups(jobs, key):
    """(label, jobs) for the jobs grouped by key(job), in order, at most JOBS_PER_TASK in a group."""
    by_key = {}
    for job in jobs:
        by_key.setdefault(key(job), []).append(job)
    out = []
    for group in by_key.values():
        for start in range(0, len(group), JOBS_PER_TASK):
            chunk = tuple(group[start:start + JOBS_PER_TASK])
            out.append((chunk[0].label if len(chunk) == 1 else f"{chunk[0].label} and {len(chunk) - 1} more", chunk))
    return out


def single_tasks(jobs, seed, samples, dps, example_db=None):
    """The Hypothesis searches and the structured cases (per group of jobs), and the random units (per pool of
    jobs), as (label, function, args)."""
    # the long sequential tasks first, so the short units fill in around them
    tasks = [(f"{label}: adversarial", run_adversarial_jobs,
              (chunk, seed, dps, tuple(_examples(samples, job.n_range[1]) for job in chunk), example_db))
             for label, chunk in groups(jobs, lambda job: (tuple(job.n_range), job.family))]
    tasks += [(f"{label}: structured", run_structured_jobs, (chunk, dps))
              for label, chunk in groups(jobs, lambda job: (tuple(job.claim.n_range), job.family))]
    pools = {}
    for index, job in enumerate(jobs):
        pools.setdefault(job.pool, []).append(index)
    for pool, ids in pools.items():
        units = units_for(seed, search.scaled(samples, pool.n_range[1]), tuple(ids), dps)
        tasks += [(f"samples {u.start}–{u.stop - 1}", run_unit, (u, jobs)) for u in units]
    return tasks
