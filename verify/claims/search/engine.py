"""The search engine shared by `theorem2` and `claims`: seeded work units, the float64-first
Decider, and the merge of unit results into one deterministic record per job.

A job (verify.claims.jobs.Job) is a formula claim under one reading. The random phase is cut into
units, each a range of sample indices of one pool; sample i of a pool is drawn from its own
generator (`search.random_case(seed, i)`), and a unit decides every job of its pool on its samples,
so a case's spectrum is computed once for all jobs. The adversarial phase is one search per job, the jobs that
draw alike run in one task (`run_adversarial_jobs`).
Units and tasks are plain functions of picklable arguments (claims travel as syntax trees of our
own, which stay inert when pickled): any executor gives the same merged result in any order.
"""
import json
import threading
from dataclasses import dataclass, field

import flint
import mpmath as mp
import numpy as np

from verify.claims.search import sampling as search
from verify.claims.search.decision import Decision, margin_text
from verify.claims.search.structured import run_structured_jobs
from verify.claims.cases.case import parse_case
from verify.claims.exact import exact_outcome
from verify.claims.executors import check_stop
from verify.claims.forking import preloads
from verify.claims.language.evaluate import decide_at
from verify.claims.language.outcome import FAILS, HOLDS, TIGHT
from verify.claims.language.quantities import CURVATURE
from verify.claims.language.values import LAM_PRECISE_N, Point, ball_point, ball_spectrum, float_point, mp_point
from verify.claims.results import InterruptedEvidence, SearchEvidence, VerdictKind
from verify.base.errors import InputError
from verify.base.files import FolderStore
from verify.numerics.precision import bits_for

UNIT_SIZE = 50  # samples per work unit
ESTIMATE_FAILURES = (np.linalg.LinAlgError, ZeroDivisionError, ValueError, OverflowError, FloatingPointError)
RIGOROUS_STAGES = ("balls", "enclosure")  # the stages whose balls are rigorous (the others' carry estimated errors)
CANDIDATES = 5  # counterexamples kept (the smallest n first) and tried in turn until one is certified


_SHARED_POINTS, _SHARED_POINTS_LOCK, MAX_SHARED_POINTS = {}, threading.Lock(), 4096  # see Decider.point


class Decider:
    """Float64 first; an undecided margin is re-decided at `dps` digits, then at 2·dps, then with Arb
    balls at 2·dps digits, which alone decide a tight or undefined claim (see `decide`). Points are cached per case
    (a Case is a frozen, hashable record of exact numbers); `precise_rechecks` counts the mpmath
    re-decisions and `ball_decisions` the ball ones, cached or not."""

    def __init__(self, dps, needs=CURVATURE):  # a claim's needs (quantities.needs): by default the curvature
        self.dps, self.needs = dps, frozenset(needs)
        self.precise_rechecks = 0
        self.ball_decisions = 0
        self._points = {}

    def point(self, case, stage, needs=None):
        """The case's point at a stage, with the quantities `needs` asks for (by default the Decider's)."""
        needs = self.needs if needs is None else frozenset(needs)
        key = (case, stage, needs)
        if key not in self._points:  # and in every Decider of this process: each job's Hypothesis search has one seed,
            shared = (case, stage, self.dps, needs)  # the jobs of a group that read H draw the same first cases
            point = _SHARED_POINTS.get(shared)
            if point is None:
                point = self._make(case, stage, needs)
                with _SHARED_POINTS_LOCK:  # a Dask worker may run several tasks in threads of one process
                    if len(_SHARED_POINTS) >= MAX_SHARED_POINTS:
                        _SHARED_POINTS.pop(next(iter(_SHARED_POINTS)))  # the oldest
                    _SHARED_POINTS[shared] = point
            self._points[key] = point
        return self._points[key]

    def _make(self, case, stage, needs):
        """The case's point at a stage; an estimate stage that breaks down (a float64 solve of a matrix
        singular to working precision) gives a point of unknown values: undecided, so the next stage decides."""
        try:
            if stage == "float":
                return float_point(case, needs)
            if stage == "enclosure":
                return self._enclosure_point(case, needs)
            if stage == "balls":
                with flint.ctx.workprec(self.ball_bits):
                    return ball_point(case, ball_spectrum(case, needs), self.ball_bits)
            return mp_point(case, stage, needs)
        except ESTIMATE_FAILURES:
            if stage == "balls":
                raise
            return Point.of(case.n, bits=64)
        except InputError:  # beyond the enclosure's reach (H too ill-conditioned on T for float64 starts): undecided
            if stage != "enclosure":
                raise
            return Point.of(case.n, bits=64)

    def stages(self, case, needs=None):
        """The stages a case goes through. Beyond LAM_PRECISE_N tokens the dense precise paths cost minutes (a dense
        Arb eigen-enclosure: 5 s at n = 64, 33 s at 128, cubic and worse beyond): every eigenvalue λ(k) is then
        decided in float64 or left undecided (the report counts it so), and the curvature goes from float64 straight
        to case mode's rigorous enclosure (verified Kato–Temple bounds: seconds at n = 1000)."""
        needs = self.needs if needs is None else needs
        if case.n <= LAM_PRECISE_N or not case.has_H:
            return ("float", self.dps, 2 * self.dps, "balls")
        if "lam" in needs:
            return ("float",)
        return ("float", "enclosure") if "curvature" in needs else ("float", "balls")

    def _enclosure_point(self, case, needs):
        """A Point of rigorous balls from case mode's enclosure of the curvature (J's eigenvalues, when the claim reads
        them, from the secular balls: O(n²) work), its ball path in one pass: a decision needs the sign of the margin,
        not case mode's `dps` digits of every quantity."""
        import dataclasses

        from verify.numerics.enclosures.case import enclose_case

        exact = case.exact_H_float()  # H's own float64 values, when it holds them: no rows of Fractions to scan
        spectrum, bits, _ = enclose_case(case.logits, case.H if exact is None else exact, self.dps, refine=False)
        with flint.ctx.workprec(bits):
            if "j" in needs:
                spectrum = dataclasses.replace(spectrum, j=ball_spectrum(case, frozenset({"j"})).j)
            return ball_point(case, spectrum, bits)

    @property
    def ball_bits(self):
        return bits_for(2 * self.dps)

    def decide(self, job, case):
        """The job's Decision at the case. The float64 point is the Decider's (made once for all the jobs of a unit);
        the stages after it, and their points, follow the job's own needs: a claim of z alone is decided in balls at
        a case where a neighbour reading λ(k) could only be estimated (its verdict must not depend on its file).
        A margin tight at an estimate stage (its enclosure holds 0 there: a tie, mostly) skips the other estimate
        stages for the balls; they run after all, the most precise first, where neither the balls nor exact arithmetic
        decide."""
        needs = frozenset(job.needs)
        stages, skipped, outcome, last = self.stages(case, needs), [], None, None
        for stage in stages:
            if outcome is not None and outcome.status == TIGHT and stage not in RIGOROUS_STAGES:
                skipped.append(stage)
                continue
            outcome, last = self.at(job, case, stage, None if stage == "float" else needs), stage
            if outcome.decided:
                return Decision(outcome, stage)
        # a tie, or a claim whose definedness the balls left open (a divisor they only put near 0), decided exactly
        # (where the balls ran: exact arithmetic costs more than they do)
        exact = exact_outcome(job.tree, case) if (outcome.status == TIGHT or outcome.open) and stages[-1] == "balls" \
            else None
        if exact is not None:
            return Decision(exact, "exact")
        # the skipped estimate stages after all, the most precise first: the balls at 2·dps digits cannot enclose
        # what mpmath estimates at a corner such as H = diag(10³⁰⁰, 10⁻³⁰⁰, …)
        for estimated in reversed(skipped):
            estimate = self.at(job, case, estimated, needs)
            if estimate.decided:
                return Decision(estimate, estimated)
        return Decision(outcome, last)

    def at(self, job, case, stage, needs=None):
        """The job's Outcome at one stage (balls everywhere: the estimate stages' balls carry their estimated errors),
        at the point with the quantities `needs` asks for (by default the Decider's)."""
        if stage in RIGOROUS_STAGES:
            self.ball_decisions += 1
        elif stage != "float":
            self.precise_rechecks += 1
        return decide_at(job.tree, self.point(case, stage, needs))


@dataclass
class JobTally:
    """What the random phase saw for one job: cases decided, re-decisions, the worst decided margin with
    its sample index and case, the failures (the CANDIDATES with the smallest (n, index)) and their
    count, and the cases left tight (the sides agree to every digit computed) or undecided — all a
    report needs, so a unit's result stays small however many samples fail."""

    evaluated: int = 0
    rechecks: int = 0
    ball_decisions: int = 0
    worst: object = None  # (margin, index, case, the margin's digits its enclosure vouches for)
    failures: list = field(default_factory=list)  # (index, case), the smallest (n, index) first
    failure_count: int = 0
    tight: list = field(default_factory=list)  # (index, case, strict), the first few
    tight_count: int = 0
    strict_tight_count: int = 0
    undecided_count: int = 0

    def record(self, index, case, decision):
        self.evaluated += 1
        status = decision.status
        if status in (HOLDS, FAILS):
            margin = decision.margin
            margin = -mp.inf if margin != margin else margin  # undefined: the worst there is
            if self.worst is None or (margin, index) < self.worst[:2]:
                self.worst = (margin, index, case, decision.vouched_digits)
        if status == FAILS:
            self.failure_count += 1
            self.failures = _smallest(self.failures + [(index, case)])
        elif status == TIGHT and decision.stage != "float":  # tight in float64 alone is only undecided
            self.tight_count += 1
            self.strict_tight_count += decision.outcome.strict
            self.tight = sorted(self.tight + [(index, case, decision.outcome.strict)], key=lambda t: t[0])[:CANDIDATES]
        elif status != HOLDS:
            self.undecided_count += 1
            self.tight = sorted(self.tight + [(index, case, True)], key=lambda t: t[0])[:CANDIDATES]

    def add(self, other):
        for name in ("evaluated", "rechecks", "ball_decisions", "failure_count", "tight_count", "strict_tight_count",
                     "undecided_count"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        if other.worst is not None and (self.worst is None or other.worst[:2] < self.worst[:2]):
            self.worst = other.worst
        self.failures = _smallest(self.failures + other.failures)
        self.tight = sorted(self.tight + other.tight, key=lambda t: t[0])[:CANDIDATES]


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


@preloads("verify.numerics.exact_spectrum")  # the exact route at a tie
def run_unit(unit, jobs):
    """The random phase on one unit: every job of the unit on every sample in its domain (the first unit
    also on the pool's deterministic corners, `search.corner_cases`)."""
    decider = Decider(unit.dps, frozenset().union(*(jobs[j].needs for j in unit.job_ids)))
    pool = jobs[unit.job_ids[0]].pool
    tallies = {j: JobTally() for j in unit.job_ids}
    corners = search.corner_cases(pool.n_range, pool.family) if unit.start == 0 else []
    for index in [*range(-len(corners), 0), *range(unit.start, unit.stop)]:  # the corners first, at negative indices
        check_stop()
        case = corners[index] if index < 0 else search.random_case(unit.seed, index, pool.n_range, pool.family)
        for j in unit.job_ids:
            if not jobs[j].applies(case):
                continue
            rechecks, balls = decider.precise_rechecks, decider.ball_decisions
            tally = tallies[j]
            tally.record(index, case, decider.decide(jobs[j], case))
            tally.rechecks += decider.precise_rechecks - rechecks
            tally.ball_decisions += decider.ball_decisions - balls
    return tallies


def run_adversarial(job, seed, dps, max_examples, database=None):
    """The Hypothesis phase of one job: (its failing case or None with the examples run,
    re-decisions). With a `database` folder, the counterexamples saved by earlier runs are decided
    first, and a new one is saved there."""
    decider = Decider(dps, job.needs)
    store = _database(database)
    for case in _saved_cases(store, job):
        if decider.decide(job, case).status == FAILS:
            return search.Found(case, 0), decider.precise_rechecks
    found = search.adversarial(job, decider, seed, max_examples)
    if store is not None and found.case is not None:
        store.save(_key(job), json.dumps(found.case.inputs(), sort_keys=True).encode())
    return found, decider.precise_rechecks


@preloads("verify.numerics.exact_spectrum")  # the exact route at a tie
def run_adversarial_jobs(jobs, seed, dps, examples, database=None):
    """run_adversarial on each job in turn (`examples`: each one's count), in one process: their searches, seeded
    alike, draw the same first cases (those that read H; those that read none draw logits alone), whose points are
    then computed once. {job label: result}."""
    return {job.label: run_adversarial(job, seed, dps, count, database) for job, count in zip(jobs, examples)}


def _key(job):
    return f"verify counterexamples: {job.label}".encode()


MAX_SAVED_BYTES = 1 << 20


def _saved_cases(store, job):
    if store is None:
        return []
    cases = []
    for value in store.fetch(_key(job)):
        try:
            case = parse_case(json.loads(value))
            if job.applies(case):
                cases.append(case)
        except (InputError, ValueError, RecursionError):
            store.delete(_key(job), value)  # unreadable: not ours, or from an older format
    return cases


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
        elif function is run_adversarial_jobs:
            adversarial.update(result or {})
        elif function is run_structured_jobs:  # a result per job, kept under the job's own label
            other.update({f"{name}: structured": found for name, found in (result or {}).items()})
        else:
            other[label] = result
    return Collected(units, adversarial, other)


def search_outcome(job, index, collected, samples, dps):
    """(evidence, candidates, tally) of one job: SearchEvidence, the counterexamples to certify, best first
    (the Hypothesis search's, then the random ones by n), and the merged tally; InterruptedEvidence and () when
    Ctrl-C came before it was decided."""
    tally = merge(u for u in collected.units if u is not None).get(index, JobTally())
    adversarial = collected.adversarial.get(job.label)
    if (None in collected.units or adversarial is None) and not tally.failure_count:
        return InterruptedEvidence(f"interrupted after {tally.evaluated} of about {samples} random cases, "
                                   "with no counterexample so far"), (), tally
    found, adversarial_rechecks = adversarial or (search.Found(None, 0), 0)
    worst = tally.worst
    evidence = SearchEvidence(
        samples=tally.evaluated,
        adversarial_examples=found.examples,
        precise_rechecks=tally.rechecks + adversarial_rechecks,
        worst_margin=margin_text(worst[0], worst[3]) if worst else None,
        worst_case_n=worst[2].n if worst else None,
        random_counterexamples=tally.failure_count,
        ball_decisions=tally.ball_decisions or None,
        tight=_tight_text(tally, dps),
    )
    failures = [case for _, case in tally.failures]
    candidates = tuple(([found.case] if found.case is not None else []) + failures)[:CANDIDATES]
    return evidence, candidates, tally


def _tight_text(tally, dps):
    """What the samples the balls could not decide were: tight (equal sides) or undecided."""
    if not tally.tight_count and not tally.undecided_count:
        return None
    parts = []
    if tally.tight_count:
        parts.append(f"tight at {tally.tight_count} case(s): the two sides agree to every digit computed (up to {2 * dps}; "
                     f"{dps} beyond {LAM_PRECISE_N} tokens)")
    if tally.undecided_count:
        parts.append(f"undecided at {tally.undecided_count} case(s): a value beyond what the balls could settle (or, for "
                     f"λ(k) beyond {LAM_PRECISE_N} tokens, where no precise path is affordable, what float64 could)")
    return "; ".join(parts)


def first_certified(candidates, refute):
    """refute(case) for each candidate in turn: the first REFUTED result, else the first one's
    (a counterexample at an exact tie can be real yet beyond what balls can certify)."""
    results = []
    for case in candidates:
        results.append(refute(case))
        if results[-1].verdict.kind is VerdictKind.REFUTED:
            return results[-1]
    return results[0]


def merge(results):
    """Unit results (dicts job → tally), in any order, merged into one tally per job."""
    merged = {}
    for tallies in results:
        for j, tally in tallies.items():
            merged.setdefault(j, JobTally()).add(tally)
    return merged


def _database(path):
    """The example database folder as a key–value store (here, of counterexample case files), or None."""
    return None if path is None else FolderStore(path, MAX_SAVED_BYTES)
