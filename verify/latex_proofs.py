"""The proofs the LaTeX document prints: for each built-in or user formula claim, the prover
(verify.claims.prover) on each reading, and for each reading PROVED the facts it cites, in the order a
reader chains them, with the pieces of the domain that used them.  Rows only: verify.latex_export sets them.
"""
import functools
import math
from typing import NamedTuple


class ProofRow(NamedTuple):
    """A claim proved under one reading: the reading (None for a claim with one), the claim's formula under
    it (LaTeX), the facts cited as (LaTeX, id, source, domain note) in reading order (`reading_order`),
    the facts each piece of the domain used as (where, ids) pairs, and the domain (prose)."""

    reading: object
    latex: str
    facts: tuple
    pieces: tuple
    domain: str


def n_text(n_range):
    """A range of token counts in Unicode prose: "n ≥ 2", "n = 3" or "2 ≤ n ≤ 10"."""
    lo, hi = n_range
    if hi == math.inf:
        return f"n ≥ {lo}"
    return f"n = {lo}" if lo == hi else f"{lo} ≤ n ≤ {int(hi)}"


def proof_rows(claim):
    """A formula claim's proofs: one ProofRow per reading the prover proves (Z3 and cvc5 both find the
    negation unsatisfiable on every piece of the domain); a reading not proved, and a claim decided by its
    own checker, get none."""
    if not hasattr(claim, "reading_tree"):
        return ()
    return tuple(row for row in (proved(claim, reading) for reading in claim.readings) if row is not None)


@functools.lru_cache(maxsize=None)
def proved(claim, reading):
    """The ProofRow of a claim under a reading, or None when the prover does not prove it there (cached:
    the same claim and reading always get the same proof, the solvers working within resource limits)."""
    from verify.claims.verdicts.decide import proof_evidence
    from verify.claims.jobs import Job
    from verify.claims.language.latex import claim_latex
    from verify.claims.prover.facts import BY_ID
    from verify.claims.prover.prove import prove
    from verify.claims.record import FAMILY_TEXT

    job = Job(claim, reading)
    evidence = proof_evidence(job, prove(job.tree, claim.n_range, claim.hessian))
    if evidence.status != "proved":
        return None
    order = reading_order([lemma["id"] for lemma in evidence.lemmas], job.tree)
    facts = tuple((claim_latex(BY_ID[i].tree), i, BY_ID[i].source, _fact_domain(BY_ID[i], claim)) for i in order)
    parts = len({piece["part"] for piece in evidence.pieces})
    pieces = tuple((piece["piece"] + (f", conjunct {piece['part']}" if parts > 1 else ""),
                    tuple(i for i in order if i in piece["lemmas"])) for piece in evidence.pieces)
    domain = f"every {n_text(claim.n_range)}, for {FAMILY_TEXT[claim.hessian]}"
    return ProofRow(reading, claim_latex(job.tree), facts, pieces, domain)


STAGES = {"n": 0, "z": 0, "R": 0, "j": 1, "L": 1, "mu": 1, "L_T": 1, "mu_T": 1, "lambda": 2, "kappa": 3}


def reading_order(fact_ids, claim_tree):
    """The facts of a proof in the order a reader chains them, from the coefficients up to the claim.

    Each quantity has a stage: the coefficients z (and n, R = z_max/z_min) come first; J's eigenvalues j and
    H's constants (L, μ, L_T, μ_T) are built from them or given; the eigenvalues λ of J H J on T need both;
    κ = λ_max/λ_min comes last. A fact stands at the stage of the latest quantities it mentions (an extreme
    such as z_min counts as its series z). Facts are sorted by stage; within a stage, those whose latest
    quantities the claim itself mentions come last, so each stage ends with the facts that lead to the
    claim; ties keep the fact library's order. Given the facts, the order depends on them and the claim alone."""
    from verify.claims.language.syntax import names
    from verify.claims.prover.facts import BY_ID, FACTS

    position = {fact.id: index for index, fact in enumerate(FACTS)}
    own = {_series(name) for name in names(claim_tree)}

    def key(fact_id):
        series = {_series(name) for name in BY_ID[fact_id].names}
        stage = max(STAGES.get(s, 0) for s in series)
        latest = {s for s in series if STAGES.get(s, 0) == stage}
        return stage, bool(latest & own), position[fact_id]

    return sorted(fact_ids, key=key)


def _series(name):
    """The series a quantity belongs to: z_min and z_max to z, j_max to j, lambda_min to lambda; others as named."""
    from verify.claims.language.quantities import BY_NAME

    quantity = BY_NAME.get(name)
    return quantity.item[0] if quantity is not None and quantity.item else name


def _fact_domain(fact, claim):
    """Where a fact holds, in prose, when that is narrower than the claim's domain ("" when it is not)."""
    from verify.claims.record import FAMILY_TEXT

    notes = []
    (lo, hi), (claim_lo, claim_hi) = fact.n_range, claim.n_range
    if lo > claim_lo or hi < claim_hi:
        notes.append(n_text(fact.n_range))
    if fact.family != "spd":
        notes.append(FAMILY_TEXT[fact.family])
    return ", ".join(notes)
