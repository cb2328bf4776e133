"""Prove a claim on its whole domain from the fact library, with two SMT solvers.

For each piece of the n range (verify.claims.prover.smt): Z3 decides the query with every fact that
applies; when unsat, its unsat core names the facts used, shrunk (the core's own core, then each fact
dropped in turn, heaviest first, if Z3 still proves it without); the query over those facts alone is
then given to Z3 and to cvc5, and the piece is proved only when both answer unsat. The claim is
PROVED when every piece is. The same with the claim asserted instead of negated shows the facts imply
its negation everywhere (REFUTED, "false for every case"). A satisfiable query's model is a hint
for the counterexample search, never a verdict. Anything else is "not proved", with the reason.

The disproof is first looked for briefly (Z3's first answer within QUICK_STEPS and QUICK_BACKSTOP_MS), before
the proof: a claim the facts refute outright (a fact negated) is then answered in a fraction of a second,
where the proof's search could only stop at Z3's backstop. The answer is the same either way: what Z3 finds
within fewer steps it finds in the same steps with more, the facts are true (so no claim is both proved and
disproved), and the rest of the disproof is the full one. So when the first look ends where Z3 answered sat, the
full disproof is not run after a failed proof: it would answer sat there too. A claim file's lemmas may be taken as
given, and so be inconsistent: with them, the proof comes first as ever. A query that Z3's default search has not
answered within FIRST_LOOK_MS is first searched for a model another way (`answer`): some satisfiable queries stall
the default search until its backstop.
"""

import functools
import threading
import time
from dataclasses import dataclass, field

from verify.claims.language.text import to_text
from verify.claims.prover import facts as library
from verify.claims.prover.pieces import NotEncodable, conjuncts, pieces
from verify.claims.prover.smt import build_query
from verify.claims.prover.solvers import Z3_STEPS, both_prove, proved_by_both, run_z3, said, versions

SHRINK_STEPS = 300_000  # Z3's resource limit when trying a smaller set of facts (about 0.1 s)
QUICK_STEPS, QUICK_BACKSTOP_MS = 300_000, 500  # the first look for a disproof, before the proof is attempted
FIRST_LOOK_MS = 2_000  # a query's default search first runs this long (its slowest unsat answer here takes 1.3 s) ...
MODEL_LOOK = (("smt.arith.nl.nra_check_assignment", False),)  # ... then Z3 looks for a model this way (see `answer`)
MODEL_LOOK_STEPS, MODEL_LOOK_MS = 1_000_000, 1_000
FACTS_ALLOW = "the facts allow a counterexample (a model of them and the negated claim)"  # Z3 answered sat


@dataclass(frozen=True)
class PieceProof:
    """One part of the claim (a conjunct; the whole claim for a disproof) proved on one piece: the facts used
    (ids), the query both solvers answered unsat, and their times (s)."""

    piece: object
    part: int
    lemmas: tuple
    query: str
    seconds: dict


@dataclass(frozen=True)
class Proof:
    """What the prover concluded about a claim on its domain.

    status: "proved", "disproved" (the facts imply its negation everywhere), "not proved" or "not attempted";
    pieces: the PieceProofs (proved/disproved); reason: why not; hints: models of the facts and the negated
    claim (name → value), for the counterexample search; seconds: the whole time; versions: the solvers'."""

    status: str
    pieces: tuple = ()
    reason: str = ""
    hints: tuple = ()
    seconds: float = 0.0
    versions: dict = field(default_factory=dict)

    @property
    def lemmas(self):
        """Every fact used, in library order, then the claim file's lemmas used, in their order."""
        used = [lemma for piece in self.pieces for lemma in piece.lemmas]
        known = [f.id for f in library.FACTS]
        return tuple(f for f in known if f in used) + tuple(dict.fromkeys(i for i in used if i not in known))


def facts_for(piece, family, tree=None, extra=()):
    """The facts that hold on all of a piece (F8 only at n = 2, F9 only for isotropic H), those offered to `tree`;
    `extra`: a claim file's lemmas (Facts), offered where they hold on all of the piece too, and, with `tree`, where
    their indices keep their order there beside the claim's (`_in_order`)."""
    every = library.FACTS + tuple(extra)
    if piece.n is not None:
        facts = tuple(f for f in every if f.applies_at(piece.n, family))
    else:
        facts = tuple(f for f in every if f.applies((piece.lo, piece.hi), family))
    return facts if tree is None else _in_order(tuple(f for f in facts if f.offered_to(tree)), tree, piece, extra)


def _in_order(facts, tree, piece, extra):
    """The facts, less each lemma that, beside the claim and the lemmas kept before it, makes the generic piece's query
    read an index, or instantiate a range, out of order at the piece's least n (a lemma on z(3) beside a claim on
    z(n − 1) from n = 3: z(n − 1) is z(2) there; a lemma for every k in 4..n, a range empty at n = 3): that query,
    which asserts the order of what it reads, cannot be built (verify.claims.prover.pieces.check_order), and one
    without the lemma can. (The library's facts keep their order from the piece's least n: `generic_threshold`.)"""
    lemmas = {f.id for f in extra}
    if piece.n is not None or not lemmas & {f.id for f in facts} or _builds(tree, piece, facts):
        return facts
    kept = [f for f in facts if f.id not in lemmas]
    for lemma in (f for f in facts if f.id in lemmas):
        if _builds(tree, piece, [f for f in facts if f in kept or f is lemma]):
            kept.append(lemma)
    return tuple(f for f in facts if f in kept)


def _builds(tree, piece, facts):
    try:
        build_query(tree, piece, facts)
    except NotEncodable:
        return False
    return True


def prove(tree, n_range, family="spd", extra=()):
    """A Proof that `tree` holds (status "proved") — or fails (status "disproved") — for every n in n_range
    (hi may be math.inf) and every H of the family, from the facts and the `extra` ones (a claim file's
    lemmas, as Facts); see the module docstring. The solvers work within resource limits, so their answers
    depend on the query alone: a claim is proved once per process, and asked again it is answered from memory."""
    return _memory(tree, tuple(n_range), family, tuple(extra)).proof


def prove_with_identities(tree, n_range, family="spd", extra=()):
    """(Proof, (algebraic identities, seconds)): `prove`'s Proof and, for a proved claim, each piece's identity
    (verify.claims.prover.algebraic_search.certify; None where a piece has none), from the same memory."""
    return identities(tree, _memory(tree, tuple(n_range), family, tuple(extra)).proof, family, extra)


def identities(tree, proof, family="spd", extra=()):
    """(Proof, (algebraic identities, seconds)) for a `proof` of `tree` from the facts and `extra`, made wherever
    the Proof is (the search makes them in the process that collects the proofs): each proved piece's identity, or
    None; the Proof they go with is `_widened`'s. A Proof this process's proof cache made gets them from there: they
    are made once per process, like the proof."""
    memory = _BY_PROOF.get(id(proof))
    if memory is not None and memory.proof is proof:
        if memory.identities is None:
            memory.certified, memory.identities = _identities(tree, proof, family, extra)
        return memory.certified, memory.identities
    return _identities(tree, proof, family, extra)


def _identities(tree, proof, family, extra):
    from verify.claims.prover.algebraic_search import certify

    started = time.perf_counter()
    algebras, _ = certify(tree, proof, tuple(extra))
    certified, algebras = _widened(tree, proof, algebras, family, tuple(extra), started)
    return certified, (algebras, time.perf_counter() - started)


@dataclass
class _Memory:
    """The one proof cache's entry: a claim's Proof, and its identities once asked for (with the Proof they go with:
    `_widened`'s, whose pieces may cite more facts than the solvers needed)."""

    proof: Proof
    identities: tuple = None
    certified: Proof = None


def _widened(tree, proof, algebras, family, extra, started, seconds=None):
    """(Proof, identities) where a piece with no identity from the facts the solvers used gets one from more facts:
    those other pieces of the claim cited, where they hold on this piece too (R ≥ 1 at n = 2 from the order of z,
    as at n ≥ 3). Such a piece is kept only when both solvers answer its new query unsat too, so it stays a piece
    of a proof in every sense; the others are as the solvers left them."""
    from verify.claims.prover.algebraic_search import SECONDS

    seconds = SECONDS if seconds is None else seconds
    if proof.status != "proved" or all(a is not None for a in algebras):
        return proof, algebras
    parts, pieces_, algebras = conjuncts(tree), list(proof.pieces), list(algebras) + [None] * (len(proof.pieces) - len(algebras))
    for index, piece in enumerate(pieces_):
        left = seconds - (time.perf_counter() - started)
        if algebras[index] is not None or left <= 0:
            continue
        available = {f.id: f for f in facts_for(piece.piece, family, parts[piece.part], extra)}
        found = _wider_identity(parts[piece.part], piece, pieces_, available, started, seconds)
        if found is None:
            continue
        facts, algebra = found
        query = build_query(parts[piece.part], piece.piece, facts, negate=True)
        answers = both_prove(query.text)
        if proved_by_both(answers):
            ids = tuple(f.id for f in facts)
            pieces_[index] = PieceProof(piece.piece, piece.part, ids, query.text, {a.solver: round(a.seconds, 3)
                                                                                  for a in answers})
            algebras[index] = algebra
    return Proof(proof.status, tuple(pieces_), proof.reason, proof.hints, proof.seconds, proof.versions), tuple(algebras)


def _wider_identity(part, piece, pieces_, available, started, seconds):
    """(facts, identity) for a piece from more facts than its solvers' — first those the claim's other pieces cite
    (where they hold here), then every fact that holds here and is offered to the claim — or None."""
    from verify.claims.prover.algebraic_search import find

    own = set(piece.lemmas)
    if not own <= set(available):
        return None
    tried = [own]
    for wider in (own | {i for other in pieces_ for i in other.lemmas if i in available}, set(available)):
        left = seconds - (time.perf_counter() - started)
        if wider in tried or left <= 0:
            continue
        tried.append(wider)
        facts = [f for f in available.values() if f.id in wider]
        try:
            algebra = find(part, piece.piece, facts, left)
        except NotEncodable:  # the identity's algebra cannot state the part (an index such as n − k), as certify finds
            return None
        if algebra is not None:
            return _cited(part, piece.piece, facts, algebra)
    return None


def _cited(part, piece, facts, algebra):
    """(facts, identity) with only the facts whose slacks or equalities the identity reads, when it still checks
    exactly from those alone (else all of `facts`)."""
    import json
    import re

    from verify.claims.prover.algebraic_check import check_algebra

    text = json.dumps(algebra.as_data())
    read = [f for f in facts if re.search(re.escape(f.id) + r"\.i\d", text)]
    if read and len(read) < len(facts) and check_algebra(algebra, part, piece, read) is None:
        return read, algebra
    return facts, algebra


MAX_MEMORIES = 512  # the proof cache's entries
_BY_PROOF = {}  # id(Proof) -> its proof cache entry (held here, so the id is not reused while it is a key)
_BY_PROOF_LOCK = threading.Lock()


@functools.lru_cache(maxsize=MAX_MEMORIES)
def _memory(tree, n_range, family, extra):
    memory = _Memory(_prove(tree, n_range, family, extra))
    with _BY_PROOF_LOCK:  # a Dask worker may run several tasks in threads of one process
        if len(_BY_PROOF) >= MAX_MEMORIES:
            _BY_PROOF.pop(next(iter(_BY_PROOF)))  # the oldest (its Proof then gets its identities made afresh)
        _BY_PROOF[id(memory.proof)] = memory
    return memory


def _prove(tree, n_range, family, extra):
    started = time.perf_counter()
    try:
        outcome = _proof_or_disproof(tree, pieces(tree, n_range), family, extra)
    except NotEncodable as reason:
        outcome = Proof("not attempted", reason=str(reason))
    return Proof(outcome.status, outcome.pieces, outcome.reason, outcome.hints, time.perf_counter() - started, versions())


def _proof_or_disproof(tree, parts, family, extra):
    """The proof; else the disproof (looked for briefly first, without a claim file's lemmas: see the module
    docstring); else the proof's reason for failing."""
    against, settled = (None, False) if extra else _decide([tree], parts, family, negate=False, quick=True)
    if against is None or against.status != "proved":
        outcome, _ = _decide(conjuncts(tree), parts, family, negate=True, extra=extra)
        if outcome.status == "proved" or settled:  # settled: the first look's Z3 said sat; the full one would too
            return outcome
        against, _ = _decide([tree], parts, family, negate=False, extra=extra)
        if against.status != "proved":
            return outcome
    return Proof("disproved", against.pieces, "the facts imply the claim fails on its whole domain")


def _decide(parts, pieces_, family, negate, extra=(), quick=False):
    """(Proof, whether it stopped where Z3 found a model, i.e. answered sat)."""
    proved, hints = [], []
    for piece in pieces_:
        for number, part in enumerate(parts):
            result = prove_piece(part, piece, family, negate, extra, quick)
            if isinstance(result, PieceProof):
                proved.append(PieceProof(piece, number, result.lemmas, result.query, result.seconds))
                continue
            reason, hint = result
            if hint:
                hints.append(hint)
            where = f"at {piece.label}" + (f", part {number + 1} ({to_text(part)})" if len(parts) > 1 else "")
            return Proof("not proved", tuple(proved), f"{where}: {reason}", tuple(hints)), reason == FACTS_ALLOW
    return Proof("proved", tuple(proved)), False


def prove_piece(tree, piece, family, negate=True, extra=(), quick=False):
    """A PieceProof, or (reason, hint) when this piece is not proved; `quick`: Z3's first answer within QUICK_STEPS
    and QUICK_BACKSTOP_MS (what it finds there, it finds with its whole budget too, in the same steps)."""
    available = facts_for(piece, family, tree, extra)
    full = build_query(tree, piece, available, negate)
    first = run_z3(full.text, QUICK_STEPS, want_model=negate, backstop_ms=QUICK_BACKSTOP_MS) if quick \
        else answer(full.text, want_model=negate)
    if first.result != "unsat":
        reason = FACTS_ALLOW if first.result == "sat" else first.limit_text
        return reason, (_hint(first.model, piece) if first.model else None)
    proved = {}  # query text -> Z3's unsat answer during the shrinking (unsat within fewer steps is unsat)
    used = shrink(tree, piece, available, _lemma_ids(first.core, full), negate, proved)
    query = build_query(tree, piece, [f for f in available if f.id in used], negate)
    answers = both_prove(query.text, proved.get(query.text))
    if proved_by_both(answers):
        return PieceProof(piece, 0, used, query.text, {a.solver: round(a.seconds, 3) for a in answers})
    return f"{said(answers)} on the facts Z3 used: both must prove it", None


def answer(text, want_model):
    """Z3's answer on a query with every fact: its search with its whole budget, but given FIRST_LOOK_MS first. When
    the clock stopped it there, Z3 looks for a model with nlsat's check of the linear assignment off (MODEL_LOOK),
    which finds one at once for some satisfiable queries where the default search runs until its backstop: a model is
    the answer (no search proves a satisfiable query). Otherwise the default search runs again with its whole budget,
    so every other answer is the one it gives alone."""
    first = run_z3(text, Z3_STEPS, want_model, backstop_ms=FIRST_LOOK_MS)
    if not first.clock:
        return first
    model = run_z3(text, MODEL_LOOK_STEPS, want_model, backstop_ms=MODEL_LOOK_MS, options=MODEL_LOOK)
    return model if model.result == "sat" else run_z3(text, Z3_STEPS, want_model)


def shrink(tree, piece, available, used, negate, proved=None):
    """A smaller set of facts that still proves the piece: the core of the core, then each schema or order
    fact (they add an instance per index) dropped in turn while Z3 still proves it quickly. Each trial runs in
    a fresh context, so its answer depends on its text alone (a context shared by the trials made one trial
    of Theorem 2 run into the wall-clock backstop, then 10 s, that a fresh context answers in 0.06 s)."""
    def listed(ids):  # in the library's order, as the final query lists them: its text is then a trial's, and
        return [f for f in available if f.id in ids]  # Z3's unsat answer on it is reused (`proved`)

    by_id = {f.id: f for f in available}
    for _ in range(3):
        query = build_query(tree, piece, listed(set(used)), negate)
        answer = _remembered(run_z3(query.text, SHRINK_STEPS), query.text, proved)
        smaller = _lemma_ids(answer.core, query) if answer.result == "unsat" else used
        if smaller == used:
            break
        used = smaller
    for fact_id in [i for i in used if _weight(by_id[i]) > 1]:
        text = build_query(tree, piece, listed(set(used) - {fact_id}), negate).text
        if _remembered(run_z3(text, SHRINK_STEPS), text, proved).result == "unsat":
            used = tuple(i for i in used if i != fact_id)
    return tuple(f.id for f in available if f.id in used)


def _remembered(answer, text, proved):
    if proved is not None and answer.result == "unsat":
        proved[text] = answer
    return answer


def _weight(fact):
    """How much a fact adds to a query: schemas and order facts add an instance per index."""
    return 2 if fact.order or type(fact.tree).__name__ == "ForAll" else 1


def _lemma_ids(core, query):
    ids = {query.names.get(name) for name in core}
    return tuple(sorted(i for i in ids if i))


def _hint(model, piece):
    """A model's values by quantity (with the piece's n), for building a case near it."""
    values = {name: value for name, value in model.items() if "." not in name and name != "claim"}
    if piece.n is not None:
        values["n"] = piece.n
    return values



