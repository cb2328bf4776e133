"""Theorem 2 / Eq. (47): decide the claims at a case, search for counterexamples, give verdicts.

The library API returns result objects and never prints; `progress(done, total, label)`
is an optional callback the CLI turns into a progress bar.
"""
import multiprocessing
import os
import time

import mpmath as mp
import numpy as np

from verify.claims import certificates, search
from verify.claims.record import evaluate
from verify.claims.registry import select
from verify.claims.results import ClaimResult, Counterexample, MultiEvidence, Report, SearchEvidence
from verify.numerics.curvature import curvature_fast, curvature_precise
from verify.numerics.multi import multi_spectrum
from verify.numerics.precision import CERTIFY_DPS, decimal


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

    def decide(self, claim, reading, case):
        for dps in (None, self.dps, 2 * self.dps):
            self.precise_rechecks += dps is not None
            evaluation = evaluate(claim, reading, self.spectrum(case, dps), case.L, case.mu)
            if evaluation.decided:
                return evaluation
        return evaluation  # tight to 2·dps digits: counts as holding (the claims are non-strict)


def evaluate_case(case, dps=50, claim_ids=None):
    """Case mode: the spectrum at `dps` digits and every single-example claim's two sides."""
    q = curvature_precise(case.logits, case.H, dps)
    rows = []
    for claim in select("theorem2", claim_ids):
        if claim.multi or case.n < claim.min_n:
            continue
        for reading in claim.readings:
            rows.append(evaluate(claim, reading, q, case.L, case.mu))
    return q, rows


def run_theorem2(seed=0, samples=300, dps=50, claim_ids=None, out_dir="certificates", progress=None, workers=None):
    """Search every selected claim and reading; REFUTED only with a confirmed certificate.

    The (claim, reading) jobs are independent and seeded, so they run in forked worker
    processes (one per core) and give the same results in any order; the float64 spectra
    of the random pool are computed once, before the fork, and inherited."""
    started = time.perf_counter()
    claims = select("theorem2", claim_ids)
    rng = np.random.default_rng(seed)
    pool = list(search.random_cases(rng, samples))
    multi_pool = list(search.random_multi_cases(rng, max(samples // 10, 5))) if any(c.multi for c in claims) else []
    jobs = [(c, r) for c in claims for r in c.readings]
    decider = Decider(dps)
    if any(not c.multi for c in claims):
        for case in pool:
            decider.spectrum(case)

    def run_job(index):
        claim, reading = jobs[index]
        if claim.multi:
            return _run_multi(claim, multi_pool, seed, dps, samples)
        return _run_single(claim, reading, pool, decider, seed, dps, samples, out_dir)

    labels = [f"{c.id} {r or ''}".strip() for c, r in jobs]
    workers = min(workers or os.cpu_count() or 1, len(jobs))
    results = _run_forked(run_job, labels, workers, progress)
    return Report(seed, dps, samples, tuple(results), time.perf_counter() - started)


def _run_forked(run_job, labels, workers, progress):
    """run_job(i) for every i, in `workers` forked processes (the closure is inherited, not pickled)."""
    total = len(labels)
    if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        results = []
        for index in range(total):
            results.append(run_job(index))
            if progress:
                progress(index + 1, total, labels[index])
        return results
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    processes = [context.Process(target=_worker, args=(run_job, range(w, total, workers), queue), daemon=True)
                 for w in range(workers)]
    for process in processes:
        process.start()
    results = [None] * total
    try:
        for done in range(total):
            index, ok, value = queue.get()
            if not ok:
                raise value
            results[index] = value
            if progress:
                progress(done + 1, total, labels[index])
    finally:
        for process in processes:
            process.join(timeout=1) if results.count(None) == 0 else process.terminate()
    return results


def _worker(run_job, indices, queue):
    for index in indices:
        try:
            queue.put((index, True, run_job(index)))
        except BaseException as error:  # handed to the parent, which raises it
            queue.put((index, False, error))
            return


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
    evidence = SearchEvidence(
        samples=evaluated,
        adversarial_examples=found.examples,
        precise_rechecks=decider.precise_rechecks - rechecks_before,
        worst_margin=decimal(worst[0].margin, 6) if worst else None,
        worst_case_n=worst[1].n if worst else None,
        random_counterexamples=len(failures),
    )
    evidence = _symbolic_evidence(claim, reading, evidence)
    counterexample = found.case or (min(failures, key=lambda c: c.n) if failures else None)
    if counterexample is None:
        return _result(claim, reading, "HOLDS", evidence)
    evidence = evidence.with_(shrunk=found.case is not None)
    return _refute(claim, reading, counterexample, max(dps, CERTIFY_DPS), evidence, out_dir)


def _symbolic_evidence(claim, reading, evidence):
    """The SymPy evidence (d/dR of the implied bound; the n = 2 proof). SymPy is loaded here, on use,
    so that importing the search does not pay for it."""
    from verify.claims import proofs

    if claim.id == "T2.eq47.kappa":
        evidence = evidence.with_(dependence_on_R=proofs.kappa_bound_monotonicity())
    two_tokens = proofs.prove_two_token(claim, reading)
    if two_tokens is not None:
        evidence = evidence.with_(two_tokens=("PROVED " if two_tokens[0] else "REFUTED ") + two_tokens[1])
    return evidence


def _refute(claim, reading, case, dps, evidence, out_dir):
    evaluation = evaluate(claim, reading, curvature_precise(case.logits, case.H, dps), case.L, case.mu)
    evidence = evidence.with_(counterexample=Counterexample(
        case.n, case.inputs(), evaluation.label, decimal(evaluation.lhs), decimal(evaluation.rhs), decimal(evaluation.margin)))
    if evaluation.holds:
        evidence = evidence.with_(note=f"the float64 failure did not survive {dps}-digit re-evaluation")
        return _result(claim, reading, "INCONCLUSIVE", evidence)
    path = certificates.write_certificate(out_dir, claim, reading, case, evaluation, dps)
    check = certificates.check_certificate(path)
    evidence = evidence.with_(certificate_check=check.summary)
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
    evidence = MultiEvidence(
        samples=len(pool),
        adversarial_examples=found.examples,
        worst_relative_gap=decimal(_gap(worst), 3) if worst else None,
        worst_gap_tolerance=f"{worst.tolerance:.1e}" if worst else None,
        counterexamples=len(failures) + (found.case is not None),
    )
    verdict = "HOLDS" if not failures and found.case is None else "INCONCLUSIVE"
    if verdict != "HOLDS":
        evidence = evidence.with_(note="a disagreement between the dense and block κ beyond the error estimate; "
                                       "no certificate format for several examples yet")
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
