"""Lemmas of the user's own: decided first, in file order, citable by the claims after them; a proof citing a
lemma taken as given says "PROVED assuming …" in the result, its JSON and its certificate, and `check` confirms
it only with that wording; a lemma that is neither proved nor assumed is never cited."""
import copy
from pathlib import Path

import pytest

from verify.claims.certificates.check import check_body
from verify.claims.certificates.proof import proof_body
from verify.claims.claimfile import load_claims, parse_claims_text
from verify.claims.jobs import Job
from verify.claims.verdicts.decide import run_claims
from verify.claims.results import VerdictKind
from verify.base.errors import InputError

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "lemmas.toml"


@pytest.fixture(scope="module")
def report(lemmas_example_run):  # the example decided with seed 0 and 20 samples, once per process (conftest)
    return {r.id: r for r in lemmas_example_run.claims}


def test_the_example_holds_a_chain_a_stepping_stone_and_an_assumed_lemma():
    claims = load_claims(EXAMPLE)
    lemmas = [c for c in claims if c.lemma]
    assert [c.id for c in lemmas] == ["step.bottom", "step.lambda_min", "assumed.trace7"]
    assert [c.assume for c in lemmas] == [False, False, True] and all(c.source for c in lemmas)


def test_lemmas_are_proved_first_and_cited_after(report):
    assert report["step.bottom"].verdict.text == "PROVED" and report["step.lambda_min"].verdict.text == "PROVED"
    cited = [l["id"] for l in report["step.lambda_min"].evidence.proof.lemmas]
    assert "step.bottom" in cited  # the chain: the second lemma rests on the first
    assert report["uses.chain"].verdict.text == "PROVED"


def test_a_proof_resting_on_an_assumed_lemma_says_so_everywhere(report):
    result = report["uses.assumption"]
    assert result.verdict.kind is VerdictKind.PROVED and result.verdict.assumptions == ("assumed.trace7",)
    assert result.verdict.text == "PROVED assuming assumed.trace7"
    assert result.to_json()["verdict"] == "PROVED assuming assumed.trace7"
    body = result.certificate_body
    assert body["verdict"] == "proved assuming assumed.trace7"
    check = check_body(copy.deepcopy(body), "certificate", EXAMPLE)
    assert check.confirmed and "assuming assumed.trace7" in check.summary


def test_a_certificate_hiding_its_assumption_is_rejected(report):
    body = copy.deepcopy(report["uses.assumption"].certificate_body)
    body["verdict"] = "proved"
    assert not check_body(body).confirmed
    body = copy.deepcopy(report["uses.assumption"].certificate_body)
    for lemma in body["lemmas"]:
        if lemma.get("assumed"):
            lemma["assumed"] = False  # claimed proved: check tries to prove it and cannot
    assert not check_body(body).confirmed


def test_a_false_lemma_is_never_cited():
    text = ('[[lemma]]\nid = "wrong"\nholds = "kappa <= 1"\nn = [2, 5]\n'
            '[[claim]]\nid = "rests"\nholds = "kappa <= 1 or R < 1"\nn = [2, 5]\n')
    verdicts = {r.id: r.verdict.text for r in run_claims(parse_claims_text(text), seed=0, samples=20, workers=1).claims}
    assert verdicts == {"wrong": "REFUTED", "rests": "REFUTED"}


@pytest.mark.parametrize("text, names", [
    ('[[lemma]]\nid = "a"\nholds = "n >= 2"\nassume = "yes"\n', "assume"),
    ('[[lemma]]\nid = "F1.positive"\nholds = "n >= 2"\n', "F1.positive"),
    ('[[lemma]]\nid = "a"\nholds = "n >= 2"\nexpect = "true"\n', "expect"),
    ('[[lemma]]\nid = "a"\nholds = "n >= 2"\n[[lemma]]\nid = "a"\nholds = "n >= 2"\n', "twice"),
])
def test_a_bad_lemma_is_refused_in_one_line(text, names):
    with pytest.raises(InputError) as error:
        parse_claims_text(text + '[[claim]]\nid = "c"\nholds = "n >= 2"\n')
    assert names in str(error.value) and "\n" not in str(error.value)


NEEDLESS = '''[[lemma]]
id = "lem.jmax_half"
holds = "j_max <= 1/2"
n = [2, inf]
source = "Gershgorin's discs of J"
assume = true
[[claim]]
id = "plain"
holds = "kappa <= (L_T/mu_T)*R**2"
n = [2, inf]
[[claim]]
id = "needs"
holds = "j_max <= 1/2 + z_min"
n = [2, inf]
'''


def test_an_assumed_lemma_is_cited_only_where_it_is_needed():
    results = {r.id: r for r in run_claims(parse_claims_text(NEEDLESS), seed=0, samples=20, workers=1).claims}
    plain = results["plain"]
    assert plain.verdict.text == "PROVED"  # provable from the facts alone: no assumption is reported
    assert "lem.jmax_half" not in [lemma["id"] for lemma in plain.evidence.proof.lemmas]
    assert results["needs"].verdict.text == "PROVED assuming lem.jmax_half"


def test_an_assumed_lemma_is_shown_as_assumed_never_as_holds(report, lemmas_example_run):
    import io

    from rich.console import Console

    from verify.commandline.tables import theorem2_table

    lemma = report["assumed.trace7"]
    assert lemma.verdict.text == "ASSUMED" and "taken as given" in lemma.evidence.note
    assert report["step.bottom"].verdict.text == "PROVED"  # a lemma proved is PROVED, never ASSUMED
    out = io.StringIO()
    theorem2_table(lemmas_example_run, Console(file=out, width=160))
    row = next(line for line in out.getvalue().splitlines() if "assumed.trace7" in line)
    assert "ASSUMED" in row and "HOLDS" not in row


CHAINED = '''[[lemma]]
id = "assumed.both"
holds = "lambda_min >= mu_T * z_min**2 and j_max <= 1/2"
n = [2, inf]
assume = true
[[lemma]]
id = "lem.plain"
holds = "lambda_min >= mu_T * z_min**2"
n = [2, inf]
[[claim]]
id = "cites.plain"
holds = "kappa <= lambda_max / (mu_T * z_min**2)"
n = [2, inf]
'''


def test_check_reproves_a_lemma_as_the_decision_does_without_the_assumptions_first():
    from verify.claims.certificates.proof import _user_lemmas

    entries = [{"id": c.id, "text": c.text, "source": c.source, "n": [c.n_range[0], None], "hessian": c.hessian,
                "assumed": c.assume} for c in parse_claims_text(CHAINED) if c.lemma]
    _, roots, problem = _user_lemmas(entries, None, "certificate")
    assert problem is None and roots == {"assumed.both": ("assumed.both",)}  # lem.plain rests on nothing assumed
    results = {r.id: r for r in run_claims(parse_claims_text(CHAINED), seed=0, samples=20, workers=1).claims}
    assert results["assumed.both"].verdict.text == "ASSUMED" and results["lem.plain"].verdict.text == "PROVED"


# A lemma reading an index the claim does not (z(3) beside z(n − 1)): on the generic piece the query orders the
# indices it reads lexicographically, z(3) before z(n − 1), which is false at n = 3 (z(n − 1) is z(2) there). Found
# by an attack: such a lemma once let the prover assert z(2) <= z(3) and PROVE a false claim; `check` confirmed it.
# A lemma for every k in a range empty at the piece's least n (4..n at n = 3) once had its range ends compared the same
# way, (0, 4) before (1, 0), and was asserted at n = 3 too (a second attack; a review found k >= 3 for k in 3..n-1).
REORDERING = [("z(3) <= 1/3", 3, "z(n-1) <= 1/3 or z(1) - z(n-1) <= 1e-13 or z(1) - z(n-1) >= 2e-13",
               ["3.5e-13", "0", "-1"]),
              ("(n-4)*z(1) + 4*z(n-3) >= 1", 4, "(n-4)*z(1) + 4*z(2) >= 1", ["10", "0", "0", "0"]),
              ("forall k in 4..n: k * z(n) <= 1", 3, "z(n) <= 1/4", ["0", "0", "0"]),
              ("forall k in 3..n-1: k >= 3", 3, "z(n-1) <= 1/3 or z(1) - z(n-1) <= 1e-13 or z(1) - z(n-1) >= 2e-13",
               ["3.5e-13", "0", "-1"])]


def _reordering_text(lemma, lo, claim):
    """A claim file of the lemma, then the claim, both from n = lo."""
    return (f'[[lemma]]\nid = "lem"\nholds = "{lemma}"\nn = [{lo}, inf]\nsource = "a test"\n'
            f'[[claim]]\nid = "claim"\nholds = "{claim}"\nn = [{lo}, inf]\n')


@pytest.mark.parametrize("lemma, lo, claim, logits", REORDERING,
                         ids=["z3-beside-z(n-1)", "z(n-3)-beside-z2", "k-from-4-at-n-3", "k-from-3-to-n-1-at-n-3"])
def test_a_lemma_the_generic_piece_would_reorder_proves_no_false_claim(lemma, lo, claim, logits):
    from verify.api import decide_on_case, make_case
    from verify.claims.prover.prove import prove

    assert not decide_on_case(claim, make_case(logits=logits, H=_identity(len(logits)))).holds  # false at n = lo
    lemma_claim, target = parse_claims_text(_reordering_text(lemma, lo, claim))
    assert prove(lemma_claim.tree, lemma_claim.n_range, "spd").status == "proved"  # a true lemma, citable
    assert prove(target.tree, target.n_range, "spd", (lemma_claim.as_fact(),)).status != "proved"


def _identity(n):
    return [[int(i == j) for j in range(n)] for i in range(n)]


def test_check_refuses_a_proof_whose_query_reorders_a_lemmas_index(monkeypatch, tmp_path):
    """A certificate made as the unsound prover made it (the order left unchecked) is not confirmed: its generic
    piece's query cannot be rebuilt in order."""
    from verify.claims.prover import prove as prover, smt

    lemma, lo, claim, _ = REORDERING[0]
    claims_file = tmp_path / "reordering.toml"
    claims_file.write_text(_reordering_text(lemma, lo, claim))
    lemma_claim, target = load_claims(claims_file)
    job = Job(target, None, (lemma_claim.as_fact(),))
    with monkeypatch.context() as unsound:
        unsound.setattr(smt, "check_order", lambda *args: None)
        unsound.setattr(prover, "_in_order", lambda facts, *args: facts)
        prover._memory.cache_clear()
        try:
            proof = prover.prove(job.tree, target.n_range, target.hessian, job.lemmas)
        finally:
            prover._memory.cache_clear()  # the unsound proof must not outlive the patch
    assert proof.status == "proved"  # what the prover said before the order was checked
    check = check_body(proof_body(job, proof), "certificate", claims_file)
    assert not check.confirmed and "keep their order only from n = 4" in check.summary


PERMITTED = """[[lemma]]
id = "lem.provable"
holds = "j_min >= z_min"
n = [2, inf]
source = "interlacing"
assume = true

[[claim]]
id = "uses"
holds = "lambda_min >= mu_T * z_min**2"
n = [2, inf]
"""


def test_a_lemma_the_file_lets_be_assumed_but_the_prover_proves_keeps_its_certificates_confirmed(tmp_path):
    """assume = true permits taking a lemma as given; proved, it is recorded as not assumed, and check --claims once
    called that a different lemma (an attack): NOT CONFIRMED for a true claim's valid certificate."""
    claims_file = tmp_path / "permitted.toml"
    claims_file.write_text(PERMITTED)
    results = {r.id: r for r in run_claims(load_claims(claims_file), seed=0, samples=20, workers=1).claims}
    assert results["lem.provable"].verdict.text == "PROVED" and results["uses"].verdict.text == "PROVED"
    body = results["uses"].certificate_body
    assert [l["assumed"] for l in body["lemmas"] if "assumed" in l] == [False]
    check = check_body(copy.deepcopy(body), "certificate", claims_file)
    assert check.confirmed, check.summary
    taken = copy.deepcopy(body)
    for lemma in taken["lemmas"]:
        if lemma.get("id") == "lem.provable":
            lemma["id"] = "F2.order"  # a library fact's id (one the proof does not cite), listed as the file's lemma
    refused = check_body(taken, "certificate")
    assert not refused.confirmed and "library fact's id" in refused.summary
