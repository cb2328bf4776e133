"""The assumption2 command's library API: the default sweep of the Assumption 2 claims, and one
user's dimensions (which readings d allows, how far the decoupled formulas are off)."""
import time
from dataclasses import dataclass

import mpmath as mp
import numpy as np

from verify.claims.assumption2_claims import Settings
from verify.claims.registry import select
from verify.claims.executors import run_tasks
from verify.claims.results import ClaimResult, InterruptedEvidence, Report
from verify.numerics.assumption2 import REDECIDE_DPS, Decoupling, check_sizes, decoupling, readings
from verify.numerics.precision import decimal
from verify.versions import package_versions


@dataclass(frozen=True)
class DimensionsReport:
    """One user's dimensions: both readings (satisfiable, least violations, bounds) and the decoupling errors."""

    n: int
    N: int
    d: int
    readings: tuple
    decoupling: Decoupling
    seed: int

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
        }


def check_dimensions(n, N, d, seed=0):
    """One user's dimensions: which readings are satisfiable, how far the decoupled formulas are off."""
    check_sizes(n, N, d)
    rng = np.random.default_rng(seed)
    return DimensionsReport(n, N, d, readings(n, N, d, rng), decoupling(n, N, d, rng), seed)


def run_assumption2(seed=0, settings=None, claim_ids=None, progress=None, workers=None, scheduler=None, executor=None):
    """The default sweep: every assumption2 claim's verdict and evidence. Each claim's checker is one
    seeded task (`np.random.default_rng([seed, index])`), run by the executor (see run_theorem2)."""
    settings = settings or Settings()
    started = time.perf_counter()
    claims = select("assumption2", claim_ids)
    tasks = [(claim.id, _check, (claim, [seed, index], settings)) for index, claim in enumerate(claims)]
    results, interrupted = run_tasks(tasks, progress, executor, workers, scheduler)
    outcomes = tuple(result or ClaimResult(claim.id, None, claim.statement, claim.latex, "INTERRUPTED",
                                           InterruptedEvidence("the run was interrupted before this claim was checked"))
                     for claim, result in zip(claims, results))
    return Report(seed, REDECIDE_DPS, settings.samples, outcomes, time.perf_counter() - started,
                  command="assumption2", interrupted=interrupted)


def _check(claim, seed_words, settings):
    verdict, evidence = claim.checker(np.random.default_rng(seed_words), settings)
    return ClaimResult(claim.id, None, claim.statement, claim.latex, verdict, evidence, None)
