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
def report():
    return {r.id: r for r in run_claims(load_claims(EXAMPLE), seed=0, samples=20, workers=1).claims}


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
