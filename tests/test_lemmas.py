"""Lemmas of the user's own: decided first, in file order, citable by the claims after them; a proof citing a
lemma taken as given says "PROVED assuming …" in the result, its JSON and its certificate, and `check` confirms
it only with that wording; a lemma that is neither proved nor assumed is never cited."""
import copy
from pathlib import Path

import pytest

from verify.claims.certificates.check import check_body
from verify.claims.claimfile import load_claims, parse_claims_text
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
