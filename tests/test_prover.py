"""The prover: every cited fact survives the counterexample search and its strengthened twin does not;
no false claim, no negated fact and no strengthened fact is ever PROVED; the suite's true claims are
proved, most with an algebraic identity; proof certificates are confirmed by `check`, and rejected once
a lemma is removed or edited, the domain widened, or a query edited."""
import copy
import json
import math
from pathlib import Path

import pytest

from verify.claims.certificates.check import check_body
from verify.claims.claimfile import load_claims
from verify.claims.verdicts.decide import run_jobs
from verify.claims.jobs import Job
from verify.claims.language.parser import parse_claim
from verify.claims.language.syntax import Not
from verify.claims.language.text import to_text
from verify.claims.prover.facts import FACTS, strengthened
from verify.claims.prover.prove import prove
from verify.claims.record import FormulaClaim
from verify.base.errors import InputError

SUITE = Path(__file__).resolve().parent.parent / "examples" / "suite.toml"


def fact_claim(fact, tree=None, name=None):
    """A fact (or its twin) as a formula claim on the fact's own domain, for the search."""
    tree = tree if tree is not None else fact.tree
    return FormulaClaim(name or fact.id, "", to_text(tree), n_range=fact.n_range, hessian=fact.family, command="claims")


def search(claims, samples=40):
    results, _, _ = run_jobs([Job(c) for c in claims], seed=3, samples=samples, dps=50, workers=1, prove=False)
    return {r.id: r for r in results}


def test_every_fact_survives_the_counterexample_search():
    """A fact is a theorem with a source: the same search that refutes false claims finds nothing against any."""
    assert [f.id for f in FACTS if len(f.source.strip()) < 10] == []
    results = search([fact_claim(f) for f in FACTS])
    assert not [(i, r.evidence.counterexample) for i, r in results.items() if r.verdict.text == "REFUTED"]


def test_every_strengthened_twin_is_refuted():
    """Each fact is tight somewhere: moved by 1e-9 in the false direction, the search refutes it (so the search
    would see a wrong fact, and the facts are no weaker than stated)."""
    twins = [fact_claim(f, strengthened(f.tree), f"{f.id}.twin") for f in FACTS if strengthened(f.tree) is not None]
    assert len(twins) >= 15
    results = search(twins, samples=80)
    assert {i: r.verdict.text for i, r in results.items() if r.verdict.text != "REFUTED"} == {}


def _never_proved(tree, n_range, family):
    proof = prove(tree, n_range, family)
    return proof.status != "proved"


def test_no_negated_and_no_strengthened_fact_is_proved():
    for fact in FACTS:
        domain = (fact.n_range[0], fact.n_range[1])
        assert _never_proved(Not(fact.tree), domain, fact.family), fact.id
        twin = strengthened(fact.tree)
        if twin is not None:
            assert _never_proved(twin, domain, fact.family), f"{fact.id} twin"


def test_no_false_claim_of_the_suite_is_proved_nine_in_ten_true_ones_are_and_nine_in_ten_of_those_by_identities():
    from verify.claims.prover.prove import prove_with_identities

    claims = load_claims(SUITE)
    true, false = [c for c in claims if c.expect is True], [c for c in claims if c.expect is False]
    assert len(true) >= 40 and len(false) >= 40 and all(c.reason for c in claims)
    assert [c.id for c in false if prove(c.tree, c.n_range, c.hessian).status == "proved"] == []
    proofs = {c.id: (c, prove(c.tree, c.n_range, c.hessian)) for c in true}
    proved = [i for i, (_, p) in proofs.items() if p.status == "proved"]
    assert len(proved) >= 0.9 * len(true), sorted({c.id for c in true} - set(proved))
    certified = {i: prove_with_identities(proofs[i][0].tree, proofs[i][0].n_range, proofs[i][0].hessian) for i in proved}
    for i in proved:  # the proof with identities is the solvers' proof, a piece citing more facts where that gave one
        widened, solvers = certified[i][0], proofs[i][1]
        assert widened.status == "proved" and [p.piece for p in widened.pieces] == [p.piece for p in solvers.pieces]
        assert all(set(s.lemmas) <= set(w.lemmas) or a is not None for s, w, a in
                   zip(solvers.pieces, widened.pieces, certified[i][1][0]))
    with_identity = [i for i in proved if all(a is not None for a in certified[i][1][0])]
    assert len(with_identity) >= 0.9 * len(proved), sorted(set(proved) - set(with_identity))


def test_nine_in_ten_proved_claims_of_the_examples_files_have_identities_on_every_piece():
    from verify.claims.prover.prove import prove_with_identities

    proved = with_identity = 0
    for path in sorted((SUITE.parent).glob("*.toml")):
        claims = load_claims(path)
        lemmas = tuple(c.as_fact() for c in claims if c.lemma)
        for claim in (c for c in claims if not c.lemma):
            proof, (algebras, _) = prove_with_identities(claim.tree, claim.n_range, claim.hessian, lemmas)
            proved += proof.status == "proved"
            with_identity += proof.status == "proved" and all(a is not None for a in algebras)
    assert proved >= 70 and with_identity >= 0.9 * proved, (with_identity, proved)


def test_a_piece_with_no_identity_from_the_solvers_facts_gets_one_from_the_facts_its_claim_cites_elsewhere():
    from verify.claims.certificates.check import check_body
    from verify.claims.claimfile import parse_claims_text
    from verify.claims.prover.algebraic_check import check_algebra
    from verify.claims.prover.prove import prove_with_identities
    from verify.claims.verdicts.decide import run_claims

    for text in ("R >= 1", "lambda_max <= L_T", "kappa <= (L_T/mu_T) * (j_max/j_min)**2"):
        tree = parse_claim(text, (2, math.inf))
        solvers = prove(tree, (2, math.inf))
        widened, (algebras, _) = prove_with_identities(tree, (2, math.inf))
        assert all(a is not None for a in algebras), text
        assert any(set(w.lemmas) != set(s.lemmas) for s, w in zip(solvers.pieces, widened.pieces)), text
        for piece, algebra in zip(widened.pieces, algebras):  # each identity checks from the facts its piece cites
            assert check_algebra(algebra, tree, piece.piece, [f for f in FACTS if f.id in piece.lemmas]) is None
    claims = parse_claims_text('[[claim]]\nid = "r"\nholds = "R >= 1"\nn = [2, inf]\n')
    result = run_claims(claims, seed=0, samples=20, workers=1).claims[0]
    assert result.verdict.text == "PROVED" and result.evidence.proof.kind == "algebraic identity"
    check = check_body(result.certificate_body)
    assert check.confirmed and "2 piece(s) proved by an algebraic identity" in check.reason


def test_a_piece_whose_index_the_identities_cannot_state_keeps_its_proof_without_one():
    """Widening a piece's facts for an identity reads the claim in the identities' algebra; where that cannot state
    an index (n − k + 1 for every n), the piece stays proved by the solvers, with no identity (it raised before)."""
    from verify.claims.claimfile import claim_from_fields
    from verify.claims.prover.prove import prove_with_identities

    claim = claim_from_fields({"id": "t", "holds": "forall k in 1..n: (n - k + 1) * z(n - k + 1) <= 1",
                               "n": [2, math.inf]}, "test")
    proof, (algebras, _) = prove_with_identities(claim.tree, claim.n_range, claim.hessian)
    assert proof.status == "proved" and len(algebras) == len(proof.pieces) and None in algebras


def test_a_claim_false_everywhere_is_disproved_and_never_proved():
    claims = {c.id: c for c in load_claims(SUITE)}
    for claim_id in ("false.kappa_gt_kappa", "false.z1_lt_z1", "false.sqrt_negative", "false.divide_by_zero"):
        claim = claims[claim_id]
        assert prove(claim.tree, claim.n_range, claim.hessian).status == "disproved", claim_id


def test_n_two_pieces_cite_the_two_token_fact_only_there():
    from verify.claims.builtin.registry import REGISTRY

    claim = REGISTRY["T2.eq47.kappa"]
    proof = prove(claim.reading_tree("tangent-exact"), claim.n_range, claim.hessian)
    assert proof.status == "proved"
    for piece in proof.pieces:
        assert ("F8.two_tokens" in piece.lemmas) <= (piece.piece.n == 2)
    assert [p.piece.label for p in proof.pieces][-1].startswith("n ≥")


@pytest.fixture(scope="module")
def interlace_certificate():
    from verify.claims.verdicts.decide import run_jobs as run
    from verify.claims.builtin.registry import REGISTRY

    (result,), _, _ = run([Job(REGISTRY["T2.interlace"], "tangent-exact")], seed=0, samples=20, dps=50, workers=1)
    assert result.verdict.text == "PROVED"
    return result.certificate_body


def rejected(body):
    try:
        return not check_body(copy.deepcopy(body)).confirmed
    except InputError as error:
        assert "\n" not in str(error)
        return True


def test_a_proof_certificate_is_confirmed(interlace_certificate):
    body = json.loads(json.dumps(interlace_certificate))
    assert body["kind"] == "proof" and body["lemmas"] and all({"id", "text", "source"} == set(l) for l in body["lemmas"])
    assert set(body["solvers"]) == {"z3", "cvc5"} and all(p["query"].startswith("(set-option") for p in body["pieces"])
    assert check_body(body).confirmed


def test_a_proof_certificate_with_a_lemma_removed_is_rejected(interlace_certificate):
    body = copy.deepcopy(interlace_certificate)
    used = body["pieces"][0]["lemmas"][0]
    body["lemmas"] = [l for l in body["lemmas"] if l["id"] != used]
    assert rejected(body)
    body = copy.deepcopy(interlace_certificate)
    body["pieces"][-1]["lemmas"] = body["pieces"][-1]["lemmas"][1:]
    assert rejected(body)


def test_a_proof_certificate_with_a_lemma_edited_is_rejected(interlace_certificate):
    body = copy.deepcopy(interlace_certificate)
    body["lemmas"][0]["text"] = body["lemmas"][0]["text"].replace(">", ">=", 1) + " "
    assert rejected(body)


def test_a_proof_certificate_with_its_domain_widened_is_rejected(interlace_certificate):
    for domain in ({"n": [2, None], "hessian": "spd", "reading": "tangent-exact"},):
        body = copy.deepcopy(interlace_certificate)
        body["domain"] = domain
        assert rejected(body)
    # a user claim true only on its domain, its domain widened with the hash recomputed: still rejected
    narrow = FormulaClaim("mine.pigeonhole", "", "z_max >= 1/6", n_range=(2, 6), command="claims")
    (result,), _, _ = run_jobs([Job(narrow)], seed=0, samples=20, dps=50, workers=1)
    assert result.verdict.text == "PROVED"
    wide = FormulaClaim("mine.pigeonhole", "", "z_max >= 1/6", n_range=(2, 7), command="claims")
    iso = FormulaClaim("mine.iso", "", "L_T == mu_T", n_range=(2, math.inf), hessian="isotropic", command="claims")
    (flat,), _, _ = run_jobs([Job(iso)], seed=0, samples=20, dps=50, workers=1)
    assert flat.verdict.text == "PROVED"
    spd = FormulaClaim("mine.iso", "", "L_T == mu_T", n_range=(2, math.inf), hessian="spd", command="claims")
    for body, claim in ((result.certificate_body, wide), (flat.certificate_body, spd)):
        tampered = dict(copy.deepcopy(body), domain=claim.domain(), sha256=claim.digest())
        assert rejected(tampered)


def test_a_proof_certificate_with_a_query_edited_is_rejected(interlace_certificate):
    for index in range(len(interlace_certificate["pieces"])):
        body = copy.deepcopy(interlace_certificate)
        piece = body["pieces"][index]
        piece["query"] = piece["query"].replace("(check-sat)", "(assert (! (> 1.0 0.0) :named extra))\n(check-sat)")
        assert rejected(body)


@pytest.mark.parametrize("text, n_range", [
    ("forall k in 1..n-1: lambda(k) >= mu_T * z(k+1)**2", (2, 8)),  # F6.loewner with F2.interlacing
    ("forall k in 1..n-1: lambda(k) <= L_T * z(k)**2", (2, 8)),
    ("j_max * j_min == 3 * z(1) * z(2) * z(3)", (3, 3)),  # the pseudo-determinant of J on T
    ("j_max + j_min == 1 - z(1)**2 - z(2)**2 - z(3)**2", (3, 3)),  # its trace
])
def test_the_facts_a_referee_would_cite_prove_the_claims_that_need_them(text, n_range):
    from verify.claims.language.parser import parse_claim

    proof = prove(parse_claim(text, n_range), n_range)
    assert proof.status == "proved", proof.reason


def test_the_per_n_identities_are_offered_only_to_claims_that_read_j():
    from verify.claims.language.parser import parse_claim
    from verify.claims.prover.prove import facts_for
    from verify.claims.prover.pieces import Piece

    offered = lambda text: {f.id for f in facts_for(Piece(n=4), "spd", parse_claim(text, (4, 4)))}
    assert "F11.trace.n4" in offered("j_min <= 1/4") and "F11.trace.n4" not in offered("lambda_min > 0")
    assert "F11.trace.n3" not in offered("j_min <= 1/4")


def test_a_forged_proof_of_a_false_claim_is_rejected_by_z3_before_cvc5_is_asked(monkeypatch):
    """A certificate whose pieces and queries are rebuilt faithfully for a false claim: Z3 finds the query
    satisfiable and `check` refuses it there. cvc5 is asked only what Z3 proved (on some satisfiable queries it
    runs on past its own time and step limits, so a forged certificate could otherwise hold `check` forever)."""
    from verify.claims.certificates import proof as proof_certificates
    from verify.claims.prover.pieces import pieces
    from verify.claims.prover.prove import PieceProof, Proof
    from verify.claims.prover.smt import build_query

    false = FormulaClaim("mine.forged", "", "z_max >= 1/5", n_range=(2, 6), command="claims")
    job = Job(false)
    cited = [f for f in FACTS if f.id == "F1.bottom"]
    forged = Proof("proved", tuple(PieceProof(piece, 0, ("F1.bottom",), build_query(job.tree, piece, cited).text, {})
                                   for piece in pieces(job.tree, false.n_range)))
    body = json.loads(json.dumps(proof_certificates.proof_body(job, forged)))

    from verify.claims.prover import solvers

    proved_by_z3, real_z3, real_cvc5 = set(), solvers.run_z3, solvers.run_cvc5

    def z3(text, *args, **kwargs):
        answer = real_z3(text, *args, **kwargs)
        if answer.result == "unsat":
            proved_by_z3.add(text)
        return answer

    def cvc5(text, *args, **kwargs):
        assert text in proved_by_z3, "cvc5 was asked a query Z3 did not prove"
        return real_cvc5(text, *args, **kwargs)

    monkeypatch.setattr(solvers, "run_z3", z3)
    monkeypatch.setattr(solvers, "run_cvc5", cvc5)
    result = check_body(body)
    assert not result.confirmed and "z3 says sat" in result.summary, result.summary


def test_the_quick_look_for_a_disproof_changes_no_proof(monkeypatch):
    """The prover's first, brief look for a disproof only saves time: with it made unable to find anything, the
    same claims get the same Proofs (status, pieces, facts, queries, reason). That includes claims neither proved nor
    disproved, whose full disproof is skipped when the first look found a model."""
    from verify.claims.prover import prove as prover

    claims = {c.id: c for c in load_claims(SUITE)}
    trees = [(claims[i].tree, claims[i].n_range, claims[i].hessian) for i in
             ("false.kappa_gt_kappa", "false.z1_lt_z1", "false.sqrt_negative", "false.divide_by_zero",
              "false.L_T.gap", "false.bounds.condition")]
    facts = {f.id: f for f in FACTS}
    trees += [(Not(facts[i].tree), facts[i].n_range, facts[i].family) for i in ("F11.trace.n3", "F10.kappa", "F1.mean")]
    trees += [(claims[i].tree, claims[i].n_range, claims[i].hessian) for i in list(claims)[:2]]
    quick = [prover._prove(*t, ()) for t in trees]
    monkeypatch.setattr(prover, "QUICK_STEPS", 1)
    full = [prover._prove(*t, ()) for t in trees]
    key = lambda p: (p.status, p.reason, [(x.piece, x.part, x.lemmas, x.query) for x in p.pieces])
    assert [key(p) for p in quick] == [key(p) for p in full]
    assert sum(p.status == "disproved" for p in quick) >= 6 and sum(p.status == "not proved" for p in quick) >= 2


def _stalling_query():
    """`j(1) <= z(3)` at n = 3 with every fact: satisfiable, and Z3's default search runs until its backstop."""
    from verify.claims.language.parser import parse_claim
    from verify.claims.prover.pieces import Piece
    from verify.claims.prover.prove import facts_for
    from verify.claims.prover.smt import build_query

    tree = parse_claim("j(1) <= z(3)", (3, 3))
    return tree, build_query(tree, Piece(n=3), facts_for(Piece(n=3), "spd", tree), negate=True).text


def test_a_query_that_stalls_z3s_default_search_gets_a_model_and_no_proof(monkeypatch):
    from verify.claims.prover import prove as prover

    monkeypatch.setattr(prover, "FIRST_LOOK_MS", 200)  # the path of the 2 s first look, sooner
    tree, _ = _stalling_query()
    proof = prover._prove(tree, (3, 3), "spd", ())
    assert proof.status == "not proved" and "allow a counterexample" in proof.reason, proof.reason
    assert proof.hints and proof.hints[0]["j_1"] > proof.hints[0]["z_3"]  # a model of the negated claim


def test_the_default_search_answers_unless_the_clock_stopped_it_and_a_model_was_found(monkeypatch):
    """`answer`: Z3's default search first; after the clock stopped it, the model look; when that finds no model,
    the default search again with its whole budget, whose answer is the answer."""
    from verify.claims.prover import prove as prover
    from verify.claims.prover.solvers import BACKSTOP_MS, Z3_STEPS, Answer

    def fake(said):  # "unknown": the clock stopped Z3; "out of steps": its count of steps ran out
        def run_z3(text, steps, want_model=False, backstop_ms=BACKSTOP_MS, options=()):
            calls.append((steps, backstop_ms, options))
            result = said[len(calls) - 1]
            return Answer("z3", "unknown" if result == "out of steps" else result, 0.0, clock=result == "unknown")
        return run_z3

    first, model_look, again = ((Z3_STEPS, prover.FIRST_LOOK_MS, ()),
                                (prover.MODEL_LOOK_STEPS, prover.MODEL_LOOK_MS, prover.MODEL_LOOK),
                                (Z3_STEPS, BACKSTOP_MS, ()))
    for said, expected_calls, expected in [(["unsat"], [first], "unsat"), (["sat"], [first], "sat"),
                                           (["out of steps"], [first], "unknown"),
                                           (["unknown", "sat"], [first, model_look], "sat"),
                                           (["unknown", "unsat", "unknown"], [first, model_look, again], "unknown"),
                                           (["unknown", "unknown", "unsat"], [first, model_look, again], "unsat")]:
        calls = []
        monkeypatch.setattr(prover, "run_z3", fake(said))
        assert prover.answer("query", True).result == expected and calls == expected_calls, (said, calls)


def test_an_unknown_answer_names_the_limit_that_stopped_it():
    """Z3 says "canceled" both when its count of steps runs out and when the clock stops it."""
    from verify.claims.prover.solvers import run_z3

    _, text = _stalling_query()
    by_steps, by_clock = run_z3(text, steps=1), run_z3(text, backstop_ms=100)
    assert by_steps.result == by_clock.result == "unknown"
    assert "resource limit" in by_steps.limit_text and not by_steps.clock
    assert "backstop" in by_clock.limit_text and by_clock.clock


def test_an_answer_that_depends_on_the_text_alone_is_remembered_and_one_the_clock_cut_short_is_not(monkeypatch):
    from verify.claims.prover import solvers

    text = "(declare-fun x () Real)\n(assert (> (* x x) 2.0))\n(assert (< x 1.0))\n(assert (> x -1.0))\n(check-sat)\n"
    asked, real_z3, real_cvc5 = [], solvers._z3, solvers._cvc5
    monkeypatch.setattr(solvers, "_ANSWERS", {})
    monkeypatch.setattr(solvers, "_z3", lambda *args: asked.append("z3") or real_z3(*args))
    monkeypatch.setattr(solvers, "_cvc5", lambda *args: asked.append("cvc5") or real_cvc5(*args))
    first = solvers.run_z3(text)
    assert first.result == "unsat" and solvers.run_z3(text) is first and asked == ["z3"]
    others = [dict(steps=solvers.Z3_STEPS - 1), dict(want_model=True), dict(backstop_ms=solvers.BACKSTOP_MS - 1),
              dict(options=(("smt.arith.nl.nra_check_assignment", False),))]  # other limits, or a model asked for
    assert all(solvers.run_z3(text, **limits) is not first for limits in others) and asked == ["z3"] * 5
    assert solvers.run_z3(text + " ") is not first and len(asked) == 6  # another text
    assert solvers.run_cvc5(text) is solvers.run_cvc5(text) and asked.count("cvc5") == 1
    # the clock stopped Z3 with steps left, and cvc5 answered unknown: asked again, they are run again
    monkeypatch.setattr(solvers, "_z3", lambda *args: asked.append("z3") or ("unknown", (), None, "canceled", True))
    monkeypatch.setattr(solvers, "_cvc5", lambda *args: asked.append("cvc5") or "unknown")
    stopped = [solvers.run_z3(text, backstop_ms=0) for _ in range(2)] + [solvers.run_cvc5(text + "  ") for _ in range(2)]
    assert stopped[0].clock and asked[-4:] == ["z3", "z3", "cvc5", "cvc5"]


def test_a_domain_of_one_n_is_that_n_alone():
    """n = [3, 3] was one generic piece "3 <= n <= 3", whose keys are ordered as for every n from 3: the single-n facts
    (the trace and pseudo-determinant at n = 3 read z(3) beside z(n) and j(n - 1)) then could not be asserted in order
    there once the order was checked. As n = 3 alone, its indices are integers and the suite's claims stay proved."""
    from verify.claims.prover.pieces import Piece, pieces

    claims = {c.id: c for c in load_claims(SUITE)}
    for name in ("true.trace_bound3", "true.pdet_bound3"):
        claim = claims[name]
        assert pieces(claim.tree, claim.n_range) == [Piece(n=3)]
        assert prove(claim.tree, claim.n_range, claim.hessian).status == "proved", name
