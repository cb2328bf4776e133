"""Deciding formula claims, built-in and user alike: the prover and the search (verify.claims.search.engine) on
every job, then one verdict per job.

PROVED: the facts imply the claim on its whole domain and both Z3 and cvc5 say so (verify.claims.prover);
a proof certificate records it. REFUTED: a counterexample certified by `check` (the prover's models
seed the search), with "false for every case" when the facts imply the negation. CONTRADICTION: proved
and refuted at once — a defect that must never happen, reported loudly. INCONCLUSIVE: a strict
comparison stayed tight, or the estimates flagged a failure the balls did not confirm (no failure is then
named, nor its margin shown: a failure is named only once certified). HOLDS: every case decided to hold (a
non-strict comparison whose sides agree to every digit computed holds, and the evidence says so).
"""
import math
import time

from verify.claims.certificates import check as certificates
from verify.claims.certificates.files import write, write_confirmed
from verify.claims.cases.structured import StructuredCase
from verify.claims.search.engine import CANDIDATES, Decider, collect, first_certified, search_outcome
from verify.claims.search.tasks import single_tasks
from verify.claims.search.structured import run_structured
from verify.claims.certificates.stored_claim import MAX_CHECK_N
from verify.claims.executors import run_tasks
from verify.claims.forking import preloads
from verify.claims.language.outcome import FAILS, HOLDS
from verify.claims.record import FAMILY_TEXT
from verify.claims.results import (ClaimResult, Counterexample, InterruptedEvidence, ProofEvidence, Verdict,
                                   VerdictKind)
from verify.numerics.precision import CERTIFY_DPS
from verify.base.printable import shown


OUTCOMES = ("proved", "certified", "holds", "fails", "undecided", "interrupted", "contradiction", "assumed")
_KINDS = {"proved": VerdictKind.PROVED, "certified": VerdictKind.CERTIFIED, "holds": VerdictKind.HOLDS,
          "undecided": VerdictKind.INCONCLUSIVE, "interrupted": VerdictKind.INTERRUPTED,
          "contradiction": VerdictKind.CONTRADICTION, "assumed": VerdictKind.ASSUMED}


def verdict_of(outcome, certified=False, assumptions=()):
    """The one maker of a Verdict, from what a decision found — "proved" (resting on `assumptions`, the lemma ids
    taken as given), "certified" (balls at one case), "holds", "fails", "undecided", "interrupted" or
    "contradiction", or "assumed" (a claim file's lemma taken as given, neither proved nor refuted) — by the rule every claim follows: a failure is REFUTED only with a certificate behind it
    (`certified`): a counterexample's that `check` confirmed, or a disproof's that both solvers gave; a failure seen
    without one (a measurement, a certificate `check` refused) settles nothing: INCONCLUSIVE."""
    if outcome not in OUTCOMES:
        raise ValueError(f"outcome {shown(outcome, 200)}: one of {', '.join(OUTCOMES)}")
    if assumptions and outcome != "proved":
        raise ValueError(f"only a proof rests on assumed lemmas, not the outcome {shown(outcome, 200)}")
    if outcome == "fails":
        return Verdict(VerdictKind.REFUTED if certified else VerdictKind.INCONCLUSIVE)
    return Verdict(_KINDS[outcome], tuple(assumptions))


def run_jobs(jobs, seed, samples, dps, out_dir=None, progress=None, workers=None, scheduler=None, example_db=None,
             executor=None, extra_tasks=(), prove=True, after_proof=None):
    """(results per job, collected task results, interrupted): prover (unless prove=False: the search alone,
    as the fact library's own tests need) and search on every job, then each verdict. Each proof's algebraic
    identities are made in this process as the proof arrives (`with_identities`), while the tasks run on; so is
    `after_proof` = (name, function of a job), whose result goes with the tasks' under "label: name"."""
    tasks = [(f"{job.label}: proof", prove_job, (job, dps)) for job in jobs] if prove else []
    tasks += list(extra_tasks)
    tasks += single_tasks(jobs, seed, samples, dps, example_db)
    here = {}  # what this process made beside the tasks

    def finish(index, found):
        if not prove or index >= len(jobs) or found is None:
            return found
        if after_proof is not None:
            here[f"{jobs[index].label}: {after_proof[0]}"] = after_proof[1](jobs[index])
        return with_identities(jobs[index], found)

    results, interrupted = run_tasks(tasks, progress, executor, workers, scheduler, finish=finish)
    collected = collect(tasks, results)
    collected.other.update(here)
    outcomes = [formula_result(job, i, collected, dps, samples, out_dir) for i, job in enumerate(jobs)]
    return outcomes, collected, interrupted


@preloads("z3", "cvc5", "verify.claims.prover.prove", "verify.claims.prover.hints")
def prove_job(job, dps):
    """(Proof, failing cases built from its models, cases tried, the lemmas it was proved from): the prover on one
    job's claim and domain, and the counterexample search's hints where the facts allow a counterexample. The
    proof's identities come after (`with_identities`, where the results are collected: SymPy and SciPy's optimiser,
    which they need, then load in that one process)."""
    from verify.claims.prover.hints import cases_from_model
    from verify.claims.prover.prove import prove

    proof, cited = least_assumption_proof(job, lambda *args: (prove(*args), args[3]))
    failing, tried = [], 0
    decider = Decider(dps, job.needs)
    hints = proof.hints if job.min_n <= MAX_CHECK_N else ()  # a case beyond check's bound could not be certified
    for values in hints:
        for case in cases_from_model(values, job.claim.hessian, job.claim.n_range):
            if job.applies(case) and len(failing) < CANDIDATES:
                tried += 1
                if decider.decide(job, case).status == FAILS:
                    failing.append(case)
    model_ns = tuple(sorted({n for n in map(model_n, proof.hints) if n is not None}))
    if model_ns and not failing:  # the structured cases at the models' n, at any n up to 10⁶
        found, decided = run_structured(job, dps, model_ns, only=model_ns)
        failing += list(found)
        tried += decided
    return proof, tuple(failing), tried, cited


def with_identities(job, found):
    """A proof task's result (prove_job) with the proof's algebraic identities: (Proof, failing cases, cases tried,
    (identities, seconds)), the Proof the identities go with (verify.claims.prover.prove.identities)."""
    from verify.claims.prover.prove import identities

    proof, failing, tried, cited = found
    certified, algebras = identities(job.tree, proof, job.claim.hessian, cited)
    return certified, failing, tried, algebras


def model_n(values):
    """The token count a model of the facts and the negated claim names (an integer ≥ 2), or None."""
    n = values.get("n")
    try:
        n = round(float(n))
    except (TypeError, ValueError, OverflowError):
        return None
    return n if 2 <= n else None


def least_assumption_proof(job, prove):
    """prove(tree, n range, family, lemmas)'s answer, (Proof, anything), for a job citing as few assumptions as it can:
    first from the facts and the lemmas that rest on nothing taken as given; only when that fails, from every lemma (a
    claim provable without an assumed lemma is a plain PROVED, and an assumed lemma is cited only when it is needed)."""
    rests_on_assumption = dict(job.assumed)
    unassumed = tuple(lemma for lemma in job.lemmas if lemma.id not in rests_on_assumption)
    if len(unassumed) < len(job.lemmas):
        proof, more = prove(job.tree, job.claim.n_range, job.claim.hessian, unassumed)
        if proof.status == "proved":
            return proof, more
    return prove(job.tree, job.claim.n_range, job.claim.hessian, job.lemmas)


def formula_result(job, index, collected, dps, samples, out_dir):
    """One job's ClaimResult from the prover's and the search's results (see the module docstring)."""
    evidence, candidates, tally = search_outcome(job, index, collected, samples, dps)
    if isinstance(evidence, InterruptedEvidence):
        return result(job, verdict_of("interrupted"), evidence)
    proof, hinted, tried, algebras = collected.other.get(f"{job.label}: proof") or (None, (), 0, ((), 0.0))
    evidence = evidence.with_(**(collected.other.get(f"{job.label}: symbolic") or {}))
    if proof is not None:
        evidence = evidence.with_(proof=proof_evidence(job, proof, tried, algebras))
    structured_found, structured_decided = collected.other.get(f"{job.label}: structured") or ((), 0)
    structured = tuple(dict.fromkeys(sorted([c for c in hinted if isinstance(c, StructuredCase)] + list(structured_found),
                                            key=lambda c: c.n)))  # all of both: a tie first may not certify
    hinted = tuple(c for c in hinted if not isinstance(c, StructuredCase))
    if structured_decided:
        evidence = evidence.with_(structured_cases=structured_decided)
    found_anywhere = tuple(hinted) + tuple(c for c in candidates if c not in hinted)
    candidates = simplest_first(job, tuple(c for c in found_anywhere if c.n <= MAX_CHECK_N), dps) + structured
    if found_anywhere and not candidates and (proof is None or proof.status != "proved"):
        return result(job, verdict_of("fails", certified=False), evidence.with_(
            note=f"the search flagged a case at n = {min(c.n for c in found_anywhere)} as failing, beyond the "
                 f"{MAX_CHECK_N} tokens a certificate may have (check's bound): not certified, so no failure is certain"))
    if candidates:
        statuses = []  # the balls' status at each candidate they did not show to fail
        as_found = set(found_anywhere) | set(structured)  # a candidate not among them is a simplification of one
        found = first_certified(candidates[:3 * CANDIDATES], lambda case: refute(
            job, case, max(dps, CERTIFY_DPS), evidence.with_(shrunk=case not in as_found), out_dir, statuses))
        refuted = found.verdict.kind is VerdictKind.REFUTED
        if refuted and proof is not None and proof.status == "proved":
            return _contradiction(found)
        if refuted:
            return found
        flagged_cases = tuple(found_anywhere) + structured  # (a structured case alone: a tie the balls cannot certify)
        flagged = len(flagged_cases) + tally.failure_count - len(tally.failures)
        evidence = unconfirmed(evidence, statuses, min(c.n for c in flagged_cases), flagged)
        every_one_holds = statuses.count(HOLDS) == len(statuses) == len(candidates) and \
            flagged == len(flagged_cases) and all(c.n <= MAX_CHECK_N for c in found_anywhere)
        if (proof is None or proof.status != "proved") and not every_one_holds:
            return result(job, verdict_of("undecided"), evidence)
    if proof is not None and proof.status in ("proved", "disproved"):
        return _proved(job, proof, evidence, out_dir, algebras[0])
    if tally.strict_tight_count or tally.undecided_count:
        note = "; ".join(filter(None, (evidence.note, _tight_note(tally))))
        return result(job, verdict_of("undecided"), evidence.with_(note=note))
    return result(job, verdict_of("holds"), evidence)


def simplest_first(job, candidates, dps, simplified=2):
    """The candidates with the simplifications of the first `simplified` (verify.claims.search.simplify), the
    smallest n and shortest numbers first: what a reader sees is the simplest case that fails, certified."""
    from verify.claims.search.simplify import can_simplify, simplify

    ranked = _simplest_first(candidates)
    decider = Decider(dps, job.needs)
    fails = lambda case: decider.decide(job, case).status == FAILS
    simpler = [simplify(case, fails, job.claim.n_range, job.claim.hessian)
               for case in [case for case in ranked if can_simplify(case)][:simplified]]
    return tuple(_simplest_first(simpler + ranked))


def _simplest_first(cases):
    """The distinct cases, the smallest n and shortest numbers first."""
    return sorted(dict.fromkeys(cases), key=lambda case: (case.n, _size(case)))


def _size(case):
    """How long the case's numbers are to write (the characters of its exact decimals)."""
    return sum(len(str(v)) for v in case.logits) + sum(len(str(v)) for row in case.H for v in row)


def _tight_note(tally):
    strict = tally.strict_tight_count
    note = (f"{strict} case(s) left a strict comparison tight (equal sides to every digit computed: it may fail "
            "there)" if strict else "")
    if tally.undecided_count:
        note += ("; " if note else "") + f"{tally.undecided_count} case(s) stayed undecided"
    return note


def _proved(job, proof, evidence, out_dir, algebras=()):
    """PROVED (or, for a proof of the negation, REFUTED with a case of the domain) with its proof certificate."""
    from verify.claims.certificates.proof import proof_body, witness_problem

    case = None if proof.status == "proved" else _any_case(job)
    if case is not None:
        problem = witness_problem(job.tree, case)
        if problem:  # the balls at a case of the domain disagree with the disproof: never report it
            return result(job, verdict_of("contradiction" if "holds" in problem else "undecided"),
                          evidence.with_(note=f"the prover proved the claim false everywhere, but {problem}"))
    verdict = proved_verdict(job, proof) if proof.status == "proved" else verdict_of("fails", certified=True)  # by the proof
    body = proof_body(job, proof, case, algebras, verdict.assumptions)  # the two solvers' own answers
    path = str(write(out_dir, body)) if out_dir is not None else None
    if proof.status == "disproved":
        evidence = evidence.with_(note="false for every case of its domain: the cited facts imply its negation")
    return result(job, verdict, evidence, certificate=path, body=body)


def assumptions(job, proof):
    """The lemmas taken as given (assume = true) a proof rests on, cited directly or through a lemma proved from them."""
    roots = dict(job.assumed)
    return tuple(dict.fromkeys(root for i in proof.lemmas for root in roots.get(i, ())))


def proved_verdict(job, proof):
    """PROVED, resting on the lemmas taken as given the proof cites (directly or through a proved lemma)."""
    return verdict_of("proved", assumptions=assumptions(job, proof))


def _any_case(job):
    """The simplest case of a job's domain: uniform z at its least n, H = I (every family holds I)."""
    from verify.claims.cases.case import Case

    n = job.min_n
    return Case.from_arrays([0] * n, [[int(i == j) for j in range(n)] for i in range(n)])


def _contradiction(found):
    evidence = found.evidence.with_(note="CONTRADICTION: the claim was proved from the cited facts, yet this certified "
                                         "counterexample refutes it; a fact or a solver is wrong — report it")
    return ClaimResult(found.id, found.reading, found.statement, found.latex, verdict_of("contradiction"), evidence,
                       found.certificate, found.text, found.certificate_body, found.expect)


def proof_evidence(job, proof, tried=0, algebras=None):
    """The prover's conclusion as evidence: status, domain in words, facts used with their sources, pieces, and
    — when `algebras` (certify's answer) is given — the kind of proof: an algebraic identity on every piece,
    or Z3 and cvc5 agreeing."""
    from verify.claims.prover.facts import BY_ID

    found, seconds = algebras if algebras is not None else ((), None)
    searched = algebras is not None and proof.status in ("proved", "disproved")
    known = dict(BY_ID, **{f.id: f for f in job.lemmas})
    lemmas = tuple({"id": i, "text": known[i].text, "source": known[i].source} for i in proof.lemmas)
    pieces = tuple(dict({"piece": p.piece.label, "part": p.part + 1, "lemmas": list(p.lemmas), "seconds": p.seconds},
                        **({"kind": piece_kind(found, i)} if searched else {})) for i, p in enumerate(proof.pieces))
    kind = None if not searched else ALGEBRAIC if pieces and all(p["kind"] == ALGEBRAIC for p in pieces) else SOLVERS
    decided = proof.status in ("proved", "disproved")
    return ProofEvidence(proof.status, domain_text(job), lemmas, pieces if decided else (),
                         proof.versions or None, round(proof.seconds, 3), proof.reason or None, tried or None,
                         kind, round(seconds, 3) if found else None)


ALGEBRAIC, SOLVERS = "algebraic identity", "Z3 and cvc5 agree"


def piece_kind(algebras, index):
    return ALGEBRAIC if index < len(algebras) and algebras[index] is not None else SOLVERS


def domain_text(job):
    """The claim's domain in words: every n ≥ 2 (or in 2..10), the family of H, the reading."""
    lo, hi = job.claim.n_range
    n_text = f"every n ≥ {lo}" if hi == math.inf else f"every n in {lo}..{hi}"
    reading = f", reading {job.reading}" if job.reading else ""
    return f"{n_text}, {FAMILY_TEXT[job.claim.hessian]}{reading}"


def refute(job, case, dps, evidence, out_dir=None, statuses=None):
    """REFUTED with a certificate `check` confirms (written under out_dir when given), else INCONCLUSIVE (the
    balls' status at the case, where they do not show it fails, is added to `statuses` when given)."""
    body, status = certificates.counterexample_attempt(job, case, dps)
    if body is None:
        if statuses is not None:
            statuses.append(status)
        return result(job, verdict_of("undecided"), unconfirmed(evidence, [status], case.n, 1))
    binding = body["binding"]
    evidence = evidence.with_(counterexample=Counterexample(case.n, case.inputs(), binding["comparison"], binding["lhs"],
                                                            binding["rhs"], body["margin"]))
    check = certificates.check_body(body, "certificate (in memory)")
    evidence = evidence.with_(certificate_check=check.summary)
    return result(job, verdict_of("fails", check.confirmed), evidence, certificate=write_confirmed(out_dir, body, check),
                  body=body if check.confirmed else None)


def unconfirmed(evidence, statuses, first_n, flagged):
    """The evidence when the search flagged `flagged` cases as failing (its estimates, float64 and mpmath; or a structured
    case's exact arithmetic at a tie, such as a divisor exactly 0, which balls cannot certify), the first at n =
    `first_n`, and the balls confirmed none: no failure is named, and no margin of those cases is shown (an
    estimate's, not a decided one); the note says what the balls found at the cases re-decided (`statuses`)."""
    held, open_ = statuses.count(HOLDS), sum(1 for s in statuses if s != HOLDS)
    found = [f"{held} hold there"] if held else []
    found += [f"{open_} stay undecided"] if open_ else []
    note = (f"the search flagged {flagged} case(s) as failing, the first at n = {first_n}; "
            f"re-decided with balls at {len(statuses)} case(s) (simplified ones included), "
            f"{' and '.join(found) or 'none could be'}: no failure is certain")
    return evidence.with_(worst_margin=None, worst_case_n=None, random_counterexamples=0, shrunk=None, note=note)


def result(job, verdict, evidence, certificate=None, body=None):
    claim = job.claim
    return ClaimResult(claim.id, job.reading, claim.statement, claim.reading_latex(job.reading), verdict, evidence,
                       certificate, text=job.text, certificate_body=body, expect=getattr(claim, "expect", None))


def run_claims(claims, seed=0, samples=300, dps=50, claim_ids=None, out_dir=None, progress=None, workers=None,
               scheduler=None, example_db=None, executor=None):
    """Decide user claims (from `load_claims`) as `run_theorem2` decides the built-in ones; a Report whose
    results have reading None. `claim_ids` picks some of them; certificates are written under `out_dir`
    when it is given."""
    from verify.claims.jobs import Job
    from verify.claims.results import Report

    from verify.claims.certificates.files import check_targets

    started = time.perf_counter()
    chosen = [c for c in _select(claims, claim_ids) if not c.lemma]  # an unknown id is refused before any lemma runs
    check_targets(out_dir, [(c.id, None) for c in claims if c.lemma or c in chosen])
    lemma_results, lemmas, assumed, interrupted = _decide_lemmas([c for c in claims if c.lemma], seed, samples, dps,
                                                                  out_dir, progress, workers, scheduler, example_db, executor)
    jobs = [Job(claim, None, lemmas, assumed) for claim in chosen]
    outcomes, _, stopped = run_jobs(jobs, seed, samples, dps, out_dir, progress, workers, scheduler, example_db,
                                    executor) if jobs and not interrupted else ([], None, interrupted)
    return Report(seed, dps, samples, tuple(lemma_results) + tuple(outcomes), time.perf_counter() - started,
                  command="claims", interrupted=interrupted or stopped)


def _decide_lemmas(lemmas, seed, samples, dps, out_dir, progress, workers, scheduler, example_db, executor):
    """(results, citable Facts, assumed ids, interrupted): each lemma decided in file order, from the facts and the
    lemmas before it; a proved lemma is citable, an assumed one too unless the search refutes it."""
    from verify.claims.jobs import Job

    results, citable, assumed = [], (), ()
    for lemma in lemmas:
        job = Job(lemma, None, citable, assumed)
        (outcome,), _, interrupted = run_jobs([job], seed, samples, dps, out_dir, progress, workers, scheduler,
                                              example_db, executor)
        if interrupted:
            return results + [outcome], citable, assumed, True
        proved = outcome.verdict.kind is VerdictKind.PROVED
        roots = outcome.verdict.assumptions if proved else None
        if not proved and lemma.assume and not outcome.verdict.is_(VerdictKind.REFUTED, VerdictKind.CONTRADICTION):
            outcome, roots = as_assumed(outcome), (lemma.id,)
        results.append(outcome)
        if roots is not None:
            citable += (lemma.as_fact(),)
            if roots:  # taken as given, or proved from lemmas taken as given: a claim citing it rests on those
                assumed += ((lemma.id, roots),)
    return results, citable, assumed, False


def as_assumed(outcome):
    """An assumed lemma's result: ASSUMED (taken as given, neither proved nor refuted), with what the search saw."""
    import dataclasses

    searched = f"taken as given (assume = true); the search alone would say {outcome.verdict}"
    note = getattr(outcome.evidence, "note", None)
    evidence = outcome.evidence.with_(note=f"{searched}; {note}" if note else searched)
    return dataclasses.replace(outcome, verdict=verdict_of("assumed"), evidence=evidence)


def _select(claims, claim_ids):
    from verify.base.errors import InputError

    if not claim_ids:
        return tuple(claims)
    known = {c.id: c for c in claims}
    for claim_id in claim_ids:
        if claim_id not in known:
            raise InputError(f"claim id {shown(claim_id, 200)} is not in the claim file; choose one of {', '.join(known)}", "claim")
    return tuple(known[c] for c in claim_ids)
