"""The prover never proves what the balls refute: the claim language has one meaning in every backend.

Random claims over the whole grammar, leaning to boundaries, at exact points (tests/soundness.py says
what is checked and why it implies soundness); then the audits' classes of unsound encodings as
named examples, each decided soundly end to end.
"""
import math
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.soundness import claims, disagreements, forall_claims, judge_exact, lemma_claims
from verify.claims.language.parser import parse_claim
from verify.claims.prover.prove import prove

CLAIMS_PER_RUN = 2000


@settings(max_examples=CLAIMS_PER_RUN, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(claims(), st.sampled_from([2, 3, 4]), st.integers(0, 2**32), st.booleans())
def test_balls_and_smt_agree_at_exact_points(text, n, seed, wide):
    assert disagreements(text, n, seed, wide) == []


EXACT_CLAIMS_PER_RUN = 600  # benchmarks/soundness.py runs as many as --claims


@settings(max_examples=EXACT_CLAIMS_PER_RUN, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(claims(), st.sampled_from([2, 3, 4]), st.integers(0, 2**32))
def test_the_exact_route_agrees_with_smt_and_the_balls_at_exact_points(text, n, seed):
    """The route that decides exact ties (verify.claims.exact) against the same SMT queries, and the balls."""
    assert judge_exact(text, n, seed)[1] == []


def test_the_exact_route_decides_the_algebraic_claims_it_is_judged_on():
    """Not vacuous: the exact route decides claims of every algebraic construct at exact points (and leaves log
    to the balls)."""
    algebraic = ["z_max - z_min >= 0", "sqrt(z_max) <= 1 or j(1) < 0", "1/(j_min - z_min) > 0", "(z(1))**(-1/2) >= 0",
                 "abs(L - mu) == max(L, mu) - min(L, mu)", "not (kappa**2 < R * n)", "(lambda(1) + 1)**(3/2) > 0"]
    for seed in range(5):
        assert {judge_exact(text, 3, seed)[0] for text in algebraic} <= {"exact holds", "exact fails", "exact undefined"}
    assert judge_exact("log(z_max) < 0", 3, 0)[0] == "exact undecided"


# ---------------------------------------------------------------- the audits' classes, each decided soundly

FALSE_CLAIMS = [  # undefined somewhere (a claim fails where it is undefined), or false at a case
    ("j_max / (2 - 2) == j_max / (2 - 2)", (2, math.inf)),
    ("z_max / 0 == z_max / 0", (2, 17)),
    ("z_max ** (1 - 1) >= 1 / (11 * z_max)", (2, math.inf)),
    ("abs(z_max - 0.3817)**(-1/2) > 0", (3, math.inf)),
    ("1/(z_min - 1/4)**2 >= 0", (2, 2)),
    ("sqrt(z_min - 1/4) >= 0", (2, 3)),
    ("log(z_max - 1/2) < 100", (2, 3)),
]
TRUE_CLAIMS = [
    ("j_max ** (1 - 1) <= 1", (2, math.inf)),
    ("(z_max - 1)**(2/1) > 0", (2, math.inf)),
    ("(lambda_min - lambda_max - 1)**(0 - 2) <= 1", (2, math.inf)),
    ("0 ** 0 == 1", (2, 3)),
]


@pytest.mark.parametrize("text, n_range", FALSE_CLAIMS)
def test_a_false_claim_is_never_proved(text, n_range):
    assert prove(parse_claim(text, n_range), n_range).status != "proved"


@pytest.mark.parametrize("text, n_range", TRUE_CLAIMS)
def test_a_true_claim_is_proved_and_never_disproved(text, n_range):
    assert prove(parse_claim(text, n_range), n_range).status == "proved"


def test_the_exact_two_token_algebra_sees_where_a_claim_is_undefined():
    from verify.claims.builtin.two_tokens import _comparison_at_two, two_token_values

    values = two_token_values()
    assert _comparison_at_two(parse_claim("1/(z_min - 1/4)**2 >= 0", (2, 2)), values) == Fraction(1, 4)
    assert _comparison_at_two(parse_claim("sqrt(z_min - 1/4) >= 0", (2, 2)), values) is not True
    assert _comparison_at_two(parse_claim("1/z_min**2 >= 0", (2, 2)), values) is True


def test_min_and_max_are_linear_in_their_arguments():
    from verify.claims.prover.pieces import Piece
    from verify.claims.prover.smt import build_query

    def size(width):
        text = f"max({', '.join(['z(2)'] * width)}) >= min({', '.join(['j_max'] * width)})"
        return len(build_query(parse_claim(text), Piece(n=3), ()).text)

    assert size(50) < 30 * size(2)


def test_check_evaluates_a_disproof_at_its_own_case(monkeypatch):
    """A disproof whose solvers agree (here: made to) is still refused when the claim holds at its stored case."""
    from verify.claims.claimfile import parse_claims_text
    from verify.claims.verdicts.decide import _any_case
    from verify.claims.jobs import Job
    from verify.claims.certificates import proof as certificate
    from verify.claims.prover import solvers
    from verify.claims.prover.solvers import Answer

    claims = parse_claims_text('[[claim]]\nid = "mine.false"\nholds = "z_max < z_min"\nn = [2, 3]\n')
    job = Job(claims[0])
    proof = prove(job.tree, (2, 3))
    assert proof.status == "disproved"
    body = certificate.proof_body(job, proof, _any_case(job))
    assert certificate.check_proof_certificate(body, "certificate", None).confirmed
    true_claims = parse_claims_text('[[claim]]\nid = "mine.false"\nholds = "z_max >= z_min"\nn = [2, 3]\n')
    forged = dict(body, statement="z_max >= z_min", sha256=true_claims[0].digest(None))
    unsat = lambda *args, **kwargs: Answer("solver", "unsat", 0.0)
    monkeypatch.setattr(solvers, "run_z3", unsat)
    monkeypatch.setattr(solvers, "run_cvc5", unsat)
    monkeypatch.setattr(certificate, "build_query", lambda *a, **k: type("Q", (), {"text": None})())
    forged["pieces"] = [dict(p, query=None) for p in forged["pieces"]]
    result = certificate.check_proof_certificate(forged, "certificate", None)
    assert not result.confirmed and "holds" in result.reason


def test_the_docs_state_the_one_table_of_definedness():
    from pathlib import Path

    from verify.claims.language.semantics import RULES

    page = (Path(__file__).resolve().parent.parent / "docs" / "language.md").read_text(encoding="utf-8")
    table = page.split("| expression | defined where |\n|---|---|\n", 1)[1].split("\n\n", 1)[0]
    stated = [tuple(cell.strip().replace("`", "") for cell in row.strip("|").split("|")) for row in table.splitlines()]
    assert [(expr, where.split(" (")[0]) for expr, where in stated] == [(e, w) for e, w in RULES]


FORALL_CLAIMS_PER_RUN = 10  # benchmarks/soundness.py runs 300


@pytest.fixture(scope="module")
def exact_cases():
    from tests.soundness import real_cases

    return real_cases()


@settings(max_examples=FORALL_CLAIMS_PER_RUN, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(forall_claims(), st.sampled_from([(2, math.inf), (3, math.inf), (2, 5)]))
def test_a_claim_proved_for_every_n_fails_at_no_case(exact_cases, text, n_range):
    from tests.soundness import prover_disagreements

    assert prover_disagreements(text, n_range, exact_cases)[1] == []


LEMMA_CLAIMS_PER_RUN = 10  # benchmarks/soundness.py runs 300


@settings(max_examples=LEMMA_CLAIMS_PER_RUN, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(lemma_claims())
@example(("z(n-1) <= 1/3", (3, math.inf), (("z(3) <= 1/3", (3, math.inf)),)))  # z(3) once came before z(n-1) at n = 3
@example(("(n-4)*z(1) + 4*z(2) >= 1", (4, math.inf), (("(n-4)*z(1) + 4*z(n-3) >= 1", (4, math.inf)),)))  # and z(n-3) after z(2)
@example(("z(n) <= 1/4", (3, math.inf), (("forall k in 4..n: k * z(n) <= 1", (3, math.inf)),)))  # k in 4..n, n = 3
def test_a_claim_proved_from_lemmas_fails_at_no_case(exact_cases, drawn):
    from tests.soundness import prover_disagreements

    text, n_range, lemmas = drawn
    assert prover_disagreements(text, n_range, exact_cases, lemmas)[1] == []


@pytest.mark.parametrize("text, n, values", [
    # a divisor whose ball straddles 0 (an exact 0 the balls cannot see) in one part of an `or`: may be undefined
    ("forall k in 1..n-1: (z(k) - z(k+1)) > z(k+1) or 1/(j(k) - z(k+1)) == 1/(j(k) - z(k+1))", 2,
     {("z", 1): Fraction(1), ("z", 2): Fraction(3817, 10000), ("j", 1): Fraction(3817, 10000)}),
    # an `and` that fails in one part while another may be undefined: its negation must not hold
    ("not ((mu_T + z_max) == log(1e-3) <= log(-(j_min - j_min)))", 2,
     {("mu_T", None): Fraction(9, 10), ("z", 1): Fraction(3817, 10000), ("j", 1): Fraction(1, 3)}),
    # equal values as separate balls with a radius: a tie the enclosure shows, not the margin's ball
    ("forall k in 1..n-1: lambda(k) >= lambda(k) or z(k) >= z(k)", 4,
     {("lambda", 1): Fraction(13), ("z", 1): Fraction(1, 3), ("lambda", 2): Fraction(1, 4), ("z", 2): Fraction(1, 2),
      ("lambda", 3): Fraction(-13, 9), ("z", 3): Fraction(-1)}),
])
def test_balls_never_decide_what_they_cannot_see(monkeypatch, text, n, values):
    """Found by benchmarks/soundness.py at 50,000 claims: the balls decided these (one wrongly held, one wrongly
    failed); they must agree with the SMT encoding, or leave the claim open."""
    from tests import soundness

    monkeypatch.setattr(soundness.ExactPoint, "exact", lambda self, name, k=None: values[(name, k)])
    assert soundness.judge(text, n, 0)[1] == []
