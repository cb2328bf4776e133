"""Theorem 2 / Eq. (47): evaluate the claims at a case, search for counterexamples, give verdicts.

The library API returns result objects and never prints; `progress(done, total, label)`
is an optional callback the CLI turns into a progress bar.
"""
import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field

import mpmath as mp
import numpy as np

from verify import certificates, search
from verify.claims import claims_for, evaluate, get_claim
from verify.errors import InputError
from verify.numbers import decimal
from verify.spectra import curvature_fast, curvature_precise, multi_spectrum
from verify.symbolic import prove_two_token
from verify.versions import package_versions

MIN_CERTIFY_DPS = 50  # SPEC §4: a counterexample is re-checked at ≥ 50 digits


@dataclass(frozen=True)
class ClaimResult:
    id: str
    reading: object
    statement: str
    latex: str
    verdict: str
    evidence: dict
    certificate: object = None

    def to_json(self):
        return {k: getattr(self, k) for k in ("id", "reading", "statement", "latex", "verdict", "evidence", "certificate")}


@dataclass(frozen=True)
class Theorem2Report:
    seed: int
    dps: int
    samples: int
    claims: tuple
    seconds: float
    versions: dict = field(default_factory=package_versions)
    command: str = "theorem2"

    def to_json(self):
        return {
            "command": self.command,
            "seed": self.seed,
            "dps": self.dps,
            "samples": self.samples,
            "seconds": round(self.seconds, 3),
            "versions": self.versions,
            "claims": [c.to_json() for c in self.claims],
        }

    @property
    def refuted(self):
        return [c for c in self.claims if c.verdict == "REFUTED"]


class Decider:
    """Float64 first; a margin within its error estimate is re-decided at `dps` digits, then at 2·dps."""

    def __init__(self, dps):
        self.dps = dps
        self.precise_rechecks = 0
        self._fast = {}
        self._precise = {}

    def spectrum(self, case, dps=None):
        cache, key = (self._fast, id(case)) if dps is None else (self._precise, (id(case), dps))
        if key not in cache:
            if dps is None:
                cache[key] = (case, curvature_fast(case.log_z_float(), case.H_float()))
            else:
                self.precise_rechecks += 1
                cache[key] = (case, curvature_precise(case.logits, case.H, dps))
        return cache[key][1]

    def decide(self, claim, reading, case):
        for dps in (None, self.dps, 2 * self.dps):
            evaluation = evaluate(claim, reading, self.spectrum(case, dps), case.L, case.mu)
            if evaluation.decided:
                return evaluation
        return evaluation  # tight to 2·dps digits: counts as holding (the claims are non-strict)

    def forget(self):
        self._fast.clear()
        self._precise.clear()


def evaluate_case(case, dps=50, claim_ids=None):
    """Case mode: the spectrum at `dps` digits and every single-example claim's two sides."""
    q = curvature_precise(case.logits, case.H, dps)
    rows = []
    for claim in _selected(claim_ids):
        if claim.multi or case.n < claim.min_n:
            continue
        for reading in claim.readings:
            rows.append(evaluate(claim, reading, q, case.L, case.mu))
    return q, rows


def _selected(claim_ids):
    if not claim_ids:
        return claims_for("theorem2")
    chosen = tuple(get_claim(c) for c in claim_ids)
    wrong = [c.id for c in chosen if c.command != "theorem2"]
    if wrong:
        raise InputError(f"claim {wrong[0]} belongs to `python -m verify assumption2`, not theorem2; run it there")
    return chosen


def run_theorem2(seed=0, samples=300, dps=50, claim_ids=None, out_dir="certificates", progress=None, workers=None):
    """Search every selected claim and reading; REFUTED only with a confirmed certificate.

    The (claim, reading) jobs are independent and seeded, so they run in forked worker
    processes (one per core) and give the same results in any order; the float64 spectra
    of the random pool are computed once, before the fork, and shared."""
    started = time.perf_counter()
    claims = _selected(claim_ids)
    rng = np.random.default_rng(seed)
    pool = list(search.random_cases(rng, samples))
    multi_pool = list(search.random_multi_cases(rng, max(samples // 10, 5))) if any(c.multi for c in claims) else []
    jobs = [(c, r) for c in claims for r in c.readings]
    decider = Decider(dps)
    if any(not c.multi for c in claims):
        for case in pool:
            decider.spectrum(case)
    global _SHARED
    _SHARED = (jobs, pool, multi_pool, decider, seed, dps, samples, out_dir)
    workers = min(workers or os.cpu_count() or 1, len(jobs))
    results = [None] * len(jobs)
    if workers > 1 and "fork" in multiprocessing.get_all_start_methods():
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as executor:
            futures = {executor.submit(_job, index): index for index in range(len(jobs))}
            for done, future in enumerate(as_completed(futures)):
                results[futures[future]] = future.result()
                if progress:
                    progress(done + 1, len(jobs), _label(jobs[futures[future]]))
    else:
        for index in range(len(jobs)):
            results[index] = _job(index)
            if progress:
                progress(index + 1, len(jobs), _label(jobs[index]))
    return Theorem2Report(seed, dps, samples, tuple(results), time.perf_counter() - started)


_SHARED = None  # what the forked workers inherit: the jobs, the pools and the warm Decider


def _label(job):
    claim, reading = job
    return f"{claim.id} {reading or ''}".strip()


def _job(index):
    jobs, pool, multi_pool, decider, seed, dps, samples, out_dir = _SHARED
    claim, reading = jobs[index]
    if claim.multi:
        return _run_multi(claim, multi_pool, seed, dps, samples)
    return _run_single(claim, reading, pool, decider, seed, dps, samples, out_dir)


def _run_single(claim, reading, pool, decider, seed, dps, samples, out_dir):
    rechecks_before = decider.precise_rechecks
    worst, failures, evaluated = None, [], 0
    for case in pool:
        if case.n < claim.min_n:
            continue
        evaluated += 1
        evaluation = decider.decide(claim, reading, case)
        if worst is None or evaluation.margin < worst[0].margin:
            worst = (evaluation, case)
        if not evaluation.holds:
            failures.append(case)
    found = search.adversarial(claim, reading, decider, seed, max_examples=max(samples // 5, 20))
    evidence = {
        "samples": evaluated,
        "adversarial_examples": found.examples,
        "precise_rechecks": decider.precise_rechecks - rechecks_before,
        "worst_margin": decimal(worst[0].margin, 6) if worst else None,
        "worst_case_n": worst[1].n if worst else None,
        "random_counterexamples": len(failures),
    }
    if claim.id == "T2.eq47.kappa":
        evidence["dependence_on_R"] = search.kappa_bound_monotonicity()
    two_tokens = prove_two_token(claim, reading)
    if two_tokens is not None:
        evidence["two_tokens"] = ("PROVED " if two_tokens[0] else "REFUTED ") + two_tokens[1]
    counterexample = found.case or (min(failures, key=lambda c: c.n) if failures else None)
    if counterexample is None:
        return _result(claim, reading, "HOLDS", evidence)
    evidence["shrunk"] = found.case is not None
    return _refute(claim, reading, counterexample, max(dps, MIN_CERTIFY_DPS), evidence, out_dir)


def _refute(claim, reading, case, dps, evidence, out_dir):
    evaluation = evaluate(claim, reading, curvature_precise(case.logits, case.H, dps), case.L, case.mu)
    evidence["counterexample"] = {
        "n": case.n,
        "inputs": case.inputs(),
        "inequality": evaluation.label,
        "lhs": decimal(evaluation.lhs),
        "rhs": decimal(evaluation.rhs),
        "margin": decimal(evaluation.margin),
    }
    if evaluation.holds:
        evidence["note"] = f"the float64 failure did not survive {dps}-digit re-evaluation"
        return _result(claim, reading, "INCONCLUSIVE", evidence)
    path = certificates.write_certificate(out_dir, claim, reading, case, evaluation, dps)
    check = certificates.check_certificate(path)
    evidence["certificate_check"] = check.summary
    verdict = "REFUTED" if check.confirmed else "INCONCLUSIVE"
    return _result(claim, reading, verdict, evidence, certificate=str(path))


def _run_multi(claim, pool, seed, dps, samples):
    worst, failures = None, []
    for log_zs, Hs, K in pool:
        evaluation = _decide_multi(claim, log_zs, Hs, K, dps)
        if worst is None or _gap(evaluation) > _gap(worst):
            worst = evaluation
        if not evaluation.holds:
            failures.append((log_zs, Hs, K))
    found = search.adversarial_multi(claim, seed, max_examples=max(samples // 20, 10), decide=lambda *a: _decide_multi(claim, *a, dps))
    evidence = {
        "samples": len(pool),
        "adversarial_examples": found.examples,
        "worst_relative_gap": decimal(_gap(worst), 3) if worst else None,
        "worst_gap_tolerance": f"{worst.tolerance:.1e}" if worst else None,
        "counterexamples": len(failures) + (found.case is not None),
    }
    verdict = "HOLDS" if not failures and found.case is None else "INCONCLUSIVE"
    if verdict != "HOLDS":
        evidence["note"] = "a disagreement between the dense and block κ beyond the error estimate; no certificate format for several examples yet"
    return _result(claim, None, verdict, evidence)


def _decide_multi(claim, log_zs, Hs, K, dps):
    evaluation = evaluate(claim, None, multi_spectrum(log_zs, Hs, K))
    if evaluation.decided:
        return evaluation
    return evaluate(claim, None, multi_spectrum(log_zs, Hs, K, dps))


def _gap(evaluation):
    """|ln(dense κ / block κ)|: the relative disagreement of the two sides of T2.multi."""
    with mp.workdps(30):
        return abs(mp.log(evaluation.lhs / evaluation.rhs))


def _result(claim, reading, verdict, evidence, certificate=None):
    return ClaimResult(claim.id, reading, claim.statement, claim.latex, verdict, evidence, certificate)
