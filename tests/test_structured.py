"""Structured cases (issue 40): closed-form spectra of two-level z with isotropic or two-level diagonal H, decided
at any n up to 10⁶, and certificates that describe such a case by its structure."""
import json
import math
from fractions import Fraction

import pytest

from verify.base.errors import InputError
from verify.claims.cases.case import Case
from verify.claims.cases.structured import (StructuredCase, at_tokens, hessians, parse_structured, shapes,
                                            structured_cases, token_counts)
from verify.claims.exact import structured_outcome
from verify.claims.certificates.check import check_body
from verify.claims.claimfile import claim_from_fields
from verify.claims.language.outcome import FAILS, HOLDS
from verify.claims.language.parser import parse_claim
from verify.claims.language.values import mp_spectrum
from verify.claims.results import VerdictKind
from verify.claims.verdicts.decide import run_claims
from verify.numerics.precision import Log
from verify.numerics.twolevel import spectrum, two_level_z

SHAPES = [(5, 2, Fraction(3), ("diagonal", 2, Fraction(1, 3))), (6, 1, Fraction(7), ("isotropic", Fraction(3, 2), Fraction(-1, 8))),
          (4, 3, Fraction(5, 2), ("diagonal", 1, 7)), (5, 5, Fraction(1), ("isotropic", 2, 1)),
          (3, 2, Fraction(9), ("isotropic", 1, 0)), (7, 1, Fraction(1000), ("diagonal", 1000, 1))]


def _dense(n, m, ratio, hessian):
    """The same example as an ordinary case: exact z and the n × n H."""
    a, b = two_level_z(n, m, ratio)
    kind, first, second = hessian
    if kind == "isotropic":
        H = [[Fraction(first) * (i == j) + Fraction(second) for j in range(n)] for i in range(n)]
    else:
        H = [[(Fraction(first) if i < m else Fraction(second)) * (i == j) for j in range(n)] for i in range(n)]
    return Case(tuple(Log(v) for v in [a] * m + [b] * (n - m)), tuple(map(tuple, H)), given="z")


@pytest.mark.parametrize("shape", SHAPES)
def test_the_closed_form_is_the_dense_spectrum(shape):
    exact = spectrum(*shape)
    dense = mp_spectrum(_dense(*shape), 30, frozenset({"curvature", "j", "lam"}))
    n = shape[0]
    for k in range(n - 1):
        assert float(exact.j[k]) == pytest.approx(float(dense.j[k]), rel=1e-20)
        assert float(exact.lam[k]) == pytest.approx(float(dense.lam[k]), rel=1e-20)
    for k in range(n):
        assert float(exact.z[k]) == pytest.approx(float(dense.z_desc[k]), rel=1e-20)
    pairs = [(exact.L_T, dense.L_T), (exact.mu_T, dense.mu_T), (exact.L, dense.L_amb), (exact.mu, dense.mu_amb),
             (exact.kappa, dense.kappa), (exact.R, dense.R)]
    for mine, theirs in pairs:
        assert float(mine) == pytest.approx(float(theirs), rel=1e-20)


def test_a_million_tokens_cost_nothing_and_are_exact():
    s = spectrum(10**6, 1, Fraction(2), ("isotropic", 1, 0))
    a, b = two_level_z(10**6, 1, Fraction(2))
    assert len(s.z) == 10**6 and s.z[0] == a and s.z[-1] == b and a == 2 * b
    assert sum(v * c for v, c in s.z.runs) == 1
    assert sum(v * c for v, c in s.j.runs) == 1 - sum(v * v * c for v, c in s.z.runs)  # the trace of J


def test_the_search_reaches_large_n_and_the_model_counts():
    counts = token_counts((2, math.inf), extra=(4321,))
    assert {2, 3, 4, 200, 201, 1000, 1001, 10**6, 4320, 4321, 4322} <= set(counts)
    assert token_counts((2, 60)) [-1] == 60
    assert all(c.in_family("isotropic") for c in structured_cases((2, 9), "isotropic"))
    assert all(c.in_family("diagonal") for c in structured_cases((2, 9), "diagonal"))


def test_a_true_claim_holds_at_every_structured_case():
    tree = parse_claim("lambda_min <= mu_T * z_max**2 and j_min <= z_max", (2, math.inf))
    assert all(structured_outcome(tree, c).status == HOLDS for c in structured_cases((2, math.inf), "spd"))


def test_an_exact_tie_is_decided_exactly():
    at_60 = StructuredCase(60, 60, Fraction(1), ("isotropic", Fraction(1), Fraction(0)))
    assert structured_outcome(parse_claim("60 * z_max > 1", (2, 60)), at_60).status == FAILS
    assert structured_outcome(parse_claim("60 * z_max >= 1", (2, 60)), at_60).status == HOLDS


def _claims(*specs):
    return [claim_from_fields({"id": i, "holds": text, "n": list(n)}, "test") for i, text, n in specs]


def test_failures_only_at_large_n_are_refuted_with_certificates_check_confirms(tmp_path):
    claims = _claims(("issue.a", "60 * z_max > 1", (2, 60)), ("issue.b", "(n - 1) * j_min <= 29/30", (2, math.inf)),
                     ("late", "z_max >= 1/1000", (2, math.inf)))
    report = run_claims(claims, samples=40, out_dir=tmp_path)
    by_id = {r.id: r for r in report.claims}
    assert {r.verdict.kind for r in report.claims} == {VerdictKind.REFUTED}
    assert by_id["issue.a"].evidence.counterexample.n == 60
    assert by_id["issue.b"].evidence.counterexample.n == 31  # (n - 1)/n > 29/30 from n = 31 on, at uniform z
    assert by_id["late"].evidence.counterexample.n == 1001
    body = by_id["late"].certificate_body
    assert check_body(body).confirmed
    for edit in ({"n": 999}, {"ratio": "1/0"}, {"top": 0}, {"H": {"isotropic": ["1", "-1"]}}):
        edited = json.loads(json.dumps(body))
        edited["inputs"]["structured"].update(edit)
        with pytest.raises(InputError):
            check_body(edited)
    within = json.loads(json.dumps(body))
    within["inputs"]["structured"].update(n=900, top=min(900, within["inputs"]["structured"]["top"]))
    # a case where the claim holds: not confirmed
    assert not check_body(within).confirmed


def test_a_failure_between_the_tried_counts_is_reported_at_the_least_n_of_its_shape(tmp_path):
    """The tried counts skip 251, 1501 and 151; the claims fail from there on (the first two at uniform z, the third
    where z_max is near 1: no shape of the grid's fails it below 177), and are refuted there, with certificates check
    confirms, and the same shape one token fewer holds."""
    claims = _claims(("range", "z_max >= 1/250", (200, 300)), ("late", "(n - 1) * j_min <= 1499/1500", (2, math.inf)),
                     ("steep", "z_max <= 150 / n", (2, math.inf)))
    assert not {150, 151, 250, 251, 1500, 1501} & (set(token_counts((2, math.inf))) | set(token_counts((200, 300))))
    by_id = {r.id: r for r in run_claims(claims, samples=20, out_dir=tmp_path).claims}
    for claim, least in zip(claims, (251, 1501, 151)):
        result = by_id[claim.id]
        assert result.verdict.kind is VerdictKind.REFUTED and result.evidence.counterexample.n == least
        assert check_body(result.certificate_body).confirmed
        found = parse_structured(result.certificate_body["inputs"], "test")
        assert structured_outcome(claim.tree, found).status == FAILS
        assert structured_outcome(claim.tree, at_tokens(found, least - 1)).status == HOLDS


def test_a_failure_first_at_a_tie_balls_cannot_certify_is_refuted_further_on_or_left_inconclusive(tmp_path):
    """The descent ends at n = 250, where a divisor is exactly 0 (the claim undefined there: it fails, but no ball
    certifies a 0); a case of the grid further on is certified instead. Where that tie is the only failure, the
    verdict is INCONCLUSIVE, with the flagged case's n (the note once read min() of no case: a traceback)."""
    claims = _claims(("tie.first", "1/(z_max*n/(n*z_max) - 1 + (n - 250)/(n*n)) <= 0", (200, 300)),
                     ("tie.only", "1/(250*z_max - 1) >= -10", (250, 250)))
    by_id = {r.id: r for r in run_claims(claims, samples=20, out_dir=tmp_path).claims}
    refuted = by_id["tie.first"]
    assert refuted.verdict.kind is VerdictKind.REFUTED and 250 < refuted.evidence.counterexample.n <= 300
    assert check_body(refuted.certificate_body).confirmed
    only = by_id["tie.only"]
    assert only.verdict.kind is VerdictKind.INCONCLUSIVE and "the first at n = 250" in only.evidence.note


@pytest.mark.parametrize("n", [2, 3, 7, 40])
def test_a_shape_carried_to_other_counts_is_the_same_shape_and_positive_definite(n):
    for m, ratio in shapes(n):
        for H in (("isotropic", Fraction(1), Fraction(-1, 2 * n)), ("diagonal", Fraction(1000), Fraction(1))):
            case = StructuredCase(n, m, ratio, H)
            for other in (2, 5, 64, 1001):
                moved = at_tokens(case, other)
                assert (moved.m, moved.ratio) in shapes(other) and moved.n == other
                kind, first, second = moved.hessian
                assert kind == H[0] and (kind == "diagonal" and moved.hessian == H or first + other * second == Fraction(1, 2))
                if other >= 5:  # where the shapes' top counts differ, the way back is the same shape
                    assert at_tokens(moved, n) == case
    assert at_tokens(StructuredCase(2, 2, Fraction(1), ("isotropic", 3, -1)), 7).hessian == ("isotropic", 3, Fraction(-2, 7))


def test_structured_inputs_are_validated():
    good = {"structured": {"n": 5, "top": 2, "ratio": "3/2", "H": {"diagonal": ["1", "2"]}}}
    assert parse_structured(good, "here") == StructuredCase(5, 2, Fraction(3, 2), ("diagonal", Fraction(1), Fraction(2)))
    for bad in ({"n": 10**7}, {"ratio": "1/2"}, {"ratio": "2.5"}, {"ratio": "1" * 70}, {"H": {"diagonal": ["1", "0"]}},
                {"H": {"dense": ["1", "2"]}}, {"top": True}):
        data = json.loads(json.dumps(good))
        data["structured"].update(bad)
        with pytest.raises(InputError):
            parse_structured(data, "here")


def test_the_models_n_is_where_structured_cases_are_tried(monkeypatch):
    """Where the prover says the facts allow a counterexample, the structured cases at its model's n are decided, and
    a failure there is carried down to the least n of its shape (z_max >= 1/4000 fails from n = 4001 on)."""
    from verify.claims.jobs import Job
    from verify.claims.prover import prove as prover
    from verify.claims.verdicts.decide import model_n, prove_job

    assert model_n({"n": Fraction(8643, 2)}) == 4322 and model_n({"n": "x"}) is None and model_n({}) is None
    model = prover.Proof("not proved", reason=prover.FACTS_ALLOW, hints=({"n": 4321, "z_1": Fraction(1, 5000)},))
    monkeypatch.setattr(prover, "prove", lambda *args: model)
    job = Job(_claims(("late", "z_max >= 1/4000", (2, math.inf)))[0])
    _, failing, tried, _ = prove_job(job, 30)
    structured = [c for c in failing if isinstance(c, StructuredCase)]
    assert structured and min(c.n for c in structured) == 4001 and {c.n for c in structured} <= {4001, 4320, 4321, 4322}
    assert tried > 0  # (a case of the model's counts stays beside the least ones)
    monkeypatch.setattr("verify.claims.search.structured._lower", lambda job, failing, held, fails: ([], 0))
    _, failing, _, _ = prove_job(job, 30)
    assert {c.n for c in failing if isinstance(c, StructuredCase)} <= {4320, 4321, 4322}  # where the model's n led


def test_a_claim_that_reads_nothing_of_h_is_tried_at_h_the_identity_alone():
    """Its truth is the same at every H of a shape: one H per shape (I, in every family), where a claim of the
    curvature is tried at every H of its family."""
    only_i = structured_cases((2, 50), "spd", reads_h=False)
    every_h = structured_cases((2, 50), "spd")
    assert {c.hessian for c in only_i} == {("isotropic", 1, 0)}
    assert {(c.n, c.m, c.ratio) for c in only_i} == {(c.n, c.m, c.ratio) for c in every_h}
    assert {c.hessian for c in every_h if c.n == 10} == set(hessians(10, "spd"))
    assert all(c.in_family(family) for family in ("spd", "diagonal", "isotropic") for c in only_i)


@pytest.mark.parametrize("text, reads_h", [("z_max >= 1/n", False), ("lambda_max >= mu_T * z_min**2", True)])
def test_the_structured_phase_tries_every_h_only_for_a_claim_that_reads_h(text, reads_h):
    from verify.claims.claimfile import parse_claims_text
    from verify.claims.jobs import Job
    from verify.claims.search.structured import run_structured

    job = Job(parse_claims_text(f'[[claim]]\nid = "c"\nholds = "{text}"\nn = [2, 50]\n')[0])
    failing, decided = run_structured(job, 30)
    assert failing == () and decided == len(structured_cases((2, 50), "spd", reads_h=reads_h))
