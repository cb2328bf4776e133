"""Deciding the Assumption 2 claims (verify.claims.builtin.assumption2 states them and their checkers): the
default sweep's verdicts (`run_assumption2`), and one user's dimensions (`check_dimensions`). A checker's outcome
becomes a verdict through `verdict_of`, as for every claim."""
import time
from dataclasses import dataclass

import mpmath as mp
import numpy as np

from verify.base import options
from verify.base.errors import InputError
from verify.base.versions import package_versions
from verify.claims.builtin.assumption2 import ASSUMPTION2_CLAIMS, Settings
from verify.claims.executors import run_tasks
from verify.claims.results import ClaimResult, InterruptedEvidence, Report
from verify.claims.verdicts.decide import verdict_of
from verify.numerics.assumption2 import REDECIDE_DPS, Decoupling, check_sizes, decoupling, readings
from verify.numerics.precision import decimal
from verify.base.printable import shown


@dataclass(frozen=True)
class DimensionsReport:
    """One user's dimensions: both readings (satisfiable, least violations, bounds) and the decoupling errors."""

    n: int
    N: int
    d: int
    readings: tuple
    decoupling: Decoupling
    seed: int
    verdicts: object = None  # the claims' Report on the sweep `settings_around` gives, None when it is out of bounds

    def to_json(self):
        """Float64 measurements as shortest round-trip decimals (no fake digits); bounds exact."""

        def bound(value):
            with mp.workdps(40):
                return decimal(mp.sqrt(mp.mpf(round(value**2))))  # the bounds are √(integer)

        return {
            "command": "assumption2", "n": self.n, "N": self.N, "d": self.d, "seed": self.seed,
            "versions": package_versions(),
            "readings": [{"name": r.name, "satisfiable": r.satisfiable,
                          "least_violation_spectral": repr(float(r.least_violation_spectral)),
                          "least_violation_frobenius": repr(float(r.least_violation_frobenius)),
                          "bound_spectral": bound(r.bound_spectral),
                          "bound_frobenius": bound(r.bound_frobenius)} for r in self.readings],
            "decoupling": {key: repr(float(getattr(self.decoupling, key))) for key in
                           ("preconditioner_rel_error", "kappa_rel_error", "rate_rel_error", "kappa_true",
                            "kappa_decoupled", "rate_observed", "rate_decoupled", "rate_resolution")},
            "verdicts": None if self.verdicts is None else self.verdicts.to_json(),
        }


def check_dimensions(n, N, d, seed=0, samples=40):
    """One user's dimensions: which readings are satisfiable, how far the decoupled formulas are off, and
    the claims' verdicts on the sweep `settings_around(n, N, d)` (in this process)."""
    check_sizes(n, N, d)
    options.seed(seed)
    rng = np.random.default_rng(seed)
    around = settings_around(n, N, d, samples)
    verdicts = None if around is None else run_assumption2(seed, around, workers=1)
    return DimensionsReport(n, N, d, readings(n, N, d, rng), decoupling(n, N, d, rng), seed, verdicts)


def settings_around(n, N, d, samples=40):
    """The sweep the claims are decided on for one user's dimensions: their d, and nN − 1 and nN, so that
    each claim sees both sides of nN; None when d = nN is beyond the size and cost bounds."""
    settings = Settings(n, N, tuple(sorted({d, n * N - 1, n * N})), samples)
    try:
        settings.check()
    except InputError:
        return None
    return settings


def run_assumption2(seed=0, settings=None, claim_ids=None, progress=None, workers=None, scheduler=None, executor=None):
    """The default sweep: every assumption2 claim's verdict and evidence. Each claim's checker is one
    seeded task (`np.random.default_rng([seed, index])`), run by the executor (see run_theorem2)."""
    settings = settings or Settings()
    settings.check()
    options.seed(seed)
    started = time.perf_counter()
    claims = _select(claim_ids)
    tasks = [(claim.id, _check, (claim, [seed, index], settings)) for index, claim in enumerate(claims)]
    results, interrupted = run_tasks(tasks, progress, executor, workers, scheduler)
    outcomes = tuple(result or ClaimResult(claim.id, None, claim.statement, claim.latex, verdict_of("interrupted"),
                                           InterruptedEvidence("the run was interrupted before this claim was checked"))
                     for claim, result in zip(claims, results))
    return Report(seed, REDECIDE_DPS, settings.samples, outcomes, time.perf_counter() - started,
                  command="assumption2", interrupted=interrupted,
                  scope=f"n = {settings.n}, N = {settings.N}, d ∈ [{settings.ds[0]}, {settings.ds[-1]}]")


def _select(claim_ids):
    """The Assumption 2 claims named (all when none are); the registry imports this module, so it is not asked."""
    if not claim_ids:
        return ASSUMPTION2_CLAIMS
    by_id = {claim.id: claim for claim in ASSUMPTION2_CLAIMS}
    for claim_id in claim_ids:
        if claim_id not in by_id:
            raise InputError(f"claim {shown(claim_id, 200)} is not an Assumption 2 claim; choose from {', '.join(by_id)}", "claim")
    return tuple(by_id[claim_id] for claim_id in claim_ids)


def _check(claim, seed_words, settings):
    outcome, evidence = claim.checker(np.random.default_rng(seed_words), settings)
    return ClaimResult(claim.id, None, claim.statement, claim.latex, verdict_of(outcome), evidence, None)
