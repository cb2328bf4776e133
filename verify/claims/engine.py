"""The search engine shared by `theorem2` and `claims`: seeded work units, the float64-first
Decider, and the merge of unit results into one deterministic record per job.

A job is a claim under one reading (anything with `label`, `min_n`, `pool` and
`evaluate(q, case) -> Evaluation`). The random phase is cut into units, each a range of
sample indices of one pool; sample i of a pool is drawn from its own generator
(`search.random_case(seed, i)`), and a unit decides every job of its pool on its samples,
so a case's spectrum is computed once for all jobs. The adversarial phase is one task per
job. Units and tasks are plain functions of picklable arguments: any executor (in process,
forked, Dask) gives the same merged result in any order.
"""
import json
from dataclasses import dataclass, field

import flint

from verify.claims import search
from verify.claims.cases import parse_case
from verify.claims.record import ball_verdict
from verify.claims.registry import REGISTRY
from verify.claims.results import InterruptedEvidence, SearchEvidence
from verify.errors import InputError
from verify.numerics.curvature import curvature_fast, curvature_precise
from verify.numerics.multi import decide_multi
from verify.numerics.precision import decimal

UNIT_SIZE = 50  # samples per work unit


@dataclass(frozen=True)
class Pool:
    """How a job's random cases are drawn: token counts and the family of H."""

    n_range: tuple = (2, 10)
    family: str = "spd"


class Decider:
    """Float64 first; a margin within its error estimate is re-decided at `dps` digits, then at 2·dps.

    Spectra are cached per case (a Case is a frozen, hashable record of exact numbers);
    `precise_rechecks` counts the re-decisions, whether or not their spectrum was cached."""

    def __init__(self, dps):
        self.dps = dps
        self.precise_rechecks = 0
        self._spectra = {}

    def spectrum(self, case, dps=None):
        key = (case, dps)
        if key not in self._spectra:
            if dps is None:
                self._spectra[key] = curvature_fast(case.log_z_float(), case.H_float())
            else:
                self._spectra[key] = curvature_precise(case.logits, case.H, dps)
        return self._spectra[key]

    def decide(self, job, case):
        for dps in (None, self.dps, 2 * self.dps):
            self.precise_rechecks += dps is not None
            evaluation = job.evaluate(self.spectrum(case, dps), case)
            if evaluation.decided:
                return evaluation
        return evaluation  # tight to 2·dps digits: counts as holding (the claims are non-strict)


CANDIDATES = 5  # counterexamples kept (the smallest n first) and tried in turn until one is certified


@dataclass
class JobTally:
    """What the random phase saw for one job: cases decided, precise re-decisions, the worst
    (smallest-margin) evaluation with its sample index and case, how many samples failed, and the
    CANDIDATES failing samples with the smallest (n, index) — all a report needs, so a unit's result
    stays small however many samples fail."""

    evaluated: int = 0
    rechecks: int = 0
    worst: object = None  # (margin, index, evaluation, case)
    failures: list = field(default_factory=list)  # (index, case), the smallest (n, index) first
    failure_count: int = 0

    def fail(self, index, case):
        self.failure_count += 1
        self.failures = _smallest(self.failures + [(index, case)])

    def add(self, other):
        self.evaluated += other.evaluated
        self.rechecks += other.rechecks
        self.failure_count += other.failure_count
        if other.worst is not None and (self.worst is None or other.worst[:2] < self.worst[:2]):
            self.worst = other.worst
        self.failures = _smallest(self.failures + other.failures)


def _smallest(failures):
    return sorted(failures, key=lambda f: (f[1].n, f[0]))[:CANDIDATES]


@dataclass(frozen=True)
class Unit:
    """Samples start..stop−1 of the pool drawn with `seed`, decided for the jobs `job_ids`."""

    seed: int
    start: int
    stop: int
    job_ids: tuple
    dps: int


def units_for(seed, samples, job_ids, dps, size=UNIT_SIZE):
    """The work units covering samples 0..samples−1 of the pool drawn with `seed`."""
    return [Unit(seed, start, min(start + size, samples), tuple(job_ids), dps) for start in range(0, samples, size)]


def run_unit(unit, jobs):
    """The random phase on one unit: every job of the unit on every sample (a job skips n < min_n)."""
    decider = Decider(unit.dps)
    pool = jobs[unit.job_ids[0]].pool
    tallies = {j: JobTally() for j in unit.job_ids}
    for index in range(unit.start, unit.stop):
        case = search.random_case(unit.seed, index, pool.n_range, pool.family)
        for j in unit.job_ids:
            if case.n < jobs[j].min_n:
                continue
            before = decider.precise_rechecks
            evaluation = decider.decide(jobs[j], case)
            tally = tallies[j]
            tally.evaluated += 1
            tally.rechecks += decider.precise_rechecks - before
            if tally.worst is None or evaluation.margin < tally.worst[0]:
                tally.worst = (evaluation.margin, index, evaluation, case)
            if not evaluation.holds:
                tally.fail(index, case)
    return tallies


def run_adversarial(job, seed, dps, max_examples, database=None):
    """The Hypothesis phase of one job: (the shrunk counterexample or None with the examples run,
    re-decisions). With a `database` folder, the counterexamples saved by earlier runs are decided
    first, and a new one is saved there."""
    decider = Decider(dps)
    store = _database(database)
    for case in _saved_cases(store, job):
        if not decider.decide(job, case).holds:
            return search.Found(case, 0), decider.precise_rechecks
    found = search.adversarial(job, decider, seed, max_examples)
    if store is not None and found.case is not None:
        store.save(_key(job), json.dumps(found.case.inputs(), sort_keys=True).encode())
    return found, decider.precise_rechecks


def _key(job):
    return f"verify counterexamples: {job.label}".encode()


def _saved_cases(store, job):
    if store is None:
        return []
    cases = []
    for value in sorted(store.fetch(_key(job))):
        try:
            cases.append(parse_case(json.loads(value)))
        except (InputError, ValueError):
            store.delete(_key(job), value)  # unreadable: not ours, or from an older format
    return cases


def single_tasks(jobs, seed, samples, dps, example_db=None):
    """The random units (per pool of jobs) and one adversarial task per job, as (label, function, args)."""
    pools = {}
    for index, job in enumerate(jobs):
        pools.setdefault(job.pool, []).append(index)
    examples = max(samples // 5, 20)  # the long sequential tasks first, so the short units fill in around them
    tasks = [(f"{job.label}: adversarial", run_adversarial, (job, seed, dps, examples, example_db)) for job in jobs]
    for ids in pools.values():
        tasks += [(f"samples {u.start}–{u.stop - 1}", run_unit, (u, jobs)) for u in units_for(seed, samples, tuple(ids), dps)]
    return tasks


@dataclass(frozen=True)
class Collected:
    """Task results by kind: unit tallies (None where unfinished), adversarial results by job label,
    and any other task's result by its label."""

    units: list
    adversarial: dict
    other: dict


def collect(tasks, results):
    """Group the tasks' results by kind (see Collected)."""
    units, adversarial, other = [], {}, {}
    for (label, function, args), result in zip(tasks, results):
        if function is run_unit:
            units.append(result)
        elif function is run_adversarial:
            adversarial[args[0].label] = result
        else:
            other[label] = result
    return Collected(units, adversarial, other)


def search_outcome(job, index, collected, samples):
    """(evidence, candidates) of one job: SearchEvidence and the counterexamples to certify, best first
    (the shrunk one, then the random ones by n), empty when none was found; InterruptedEvidence and ()
    when Ctrl-C came before it was decided."""
    tally = merge(u for u in collected.units if u is not None).get(index, JobTally())
    adversarial = collected.adversarial.get(job.label)
    if (None in collected.units or adversarial is None) and not tally.failure_count:
        return InterruptedEvidence(f"interrupted after {tally.evaluated} of about {samples} random cases, "
                                   "with no counterexample so far"), ()
    found, adversarial_rechecks = adversarial or (search.Found(None, 0), 0)
    worst = tally.worst
    evidence = SearchEvidence(
        samples=tally.evaluated,
        adversarial_examples=found.examples,
        precise_rechecks=tally.rechecks + adversarial_rechecks,
        worst_margin=decimal(worst[0], 6) if worst else None,
        worst_case_n=worst[3].n if worst else None,
        random_counterexamples=tally.failure_count,
    )
    failures = [case for _, case in tally.failures]
    candidates = tuple(([found.case] if found.case is not None else []) + failures)[:CANDIDATES]
    if candidates:
        evidence = evidence.with_(shrunk=found.case is not None)
    return evidence, candidates


def first_certified(candidates, refute):
    """refute(case) for each candidate in turn: the first REFUTED result, else the first one's
    (a counterexample at an exact tie can be real yet beyond what balls can certify)."""
    results = []
    for case in candidates:
        results.append(refute(case))
        if results[-1].verdict == "REFUTED":
            return results[-1]
    return results[0]


def merge(results):
    """Unit results (dicts job → tally), in any order, merged into one tally per job."""
    merged = {}
    for tallies in results:
        for j, tally in tallies.items():
            merged.setdefault(j, JobTally()).add(tally)
    return merged


# ---------------------------------------------------------------- T2.multi


@dataclass(frozen=True)
class MultiUnit:
    """Samples start..stop−1 of the T2.multi pool drawn with `seed`, decided at `dps` digits."""

    seed: int
    start: int
    stop: int
    dps: int


def run_multi_unit(unit):
    """Each sample's two sides as balls: (index, relative gap, relative radius, holds, case)."""
    rows = []
    for index in range(unit.start, unit.stop):
        case = search.random_multi_case(unit.seed, index)
        rows.append((index,) + multi_verdict(case, unit.dps) + (case,))
    return rows


def multi_verdict(case, dps):
    """(relative gap |dense/blocks − 1| of the midpoints, relative radius, whether T2.multi holds: its
    formula at the balls does not fail)."""
    enclosure = decide_multi(case, dps)
    if enclosure is None:
        return float("inf"), float("inf"), True
    with flint.ctx.workprec(enclosure.bits):  # the ratio at the balls' own precision, not at 53 bits
        gap = abs(float((enclosure.dense / enclosure.blocks - 1).mid()))
    return gap, enclosure.relative_radius, ball_verdict(REGISTRY["T2.multi"], None, enclosure) != "fails"


def run_multi_adversarial(seed, dps, max_examples, database=None):
    """The Hypothesis search for a T2.multi case whose two balls are disjoint."""
    def decide(case):
        gap, _, holds = multi_verdict(case, dps)
        return holds, gap

    return search.adversarial_multi(decide, seed, max_examples)


def _database(path):
    """Hypothesis's directory database as a key–value store (here, of counterexample case files)."""
    if path is None:
        return None
    from hypothesis.database import DirectoryBasedExampleDatabase

    return DirectoryBasedExampleDatabase(path)
