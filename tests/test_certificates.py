"""Every REFUTED claim writes a certificate that `check` confirms from scratch, and a certificate that
has been made false in any field — the claim's n range or family of H, its id, its text, the margin,
the sides, the digits, the inputs — is rejected (an InputError, or NOT CONFIRMED)."""
import copy
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verify.claims.certificates.check import check_body, check_certificate
from verify.claims.claimfile import parse_claims_text
from verify.claims.verdicts.decide import run_claims
from verify.claims.language.parser import parse_claim
from verify.claims.language.syntax import comparisons
from verify.claims.verdicts.theorem2 import run_theorem2
from verify.base.errors import InputError


@pytest.fixture(scope="module")
def report(theorem2_run):
    return theorem2_run


def test_refuted_claims_have_confirmed_certificates(report):
    result, out = report
    refuted = result.refuted
    assert refuted, "the search found no counterexample at all"
    for claim in refuted:
        assert claim.certificate and claim.certificate.startswith(str(out))
        checked = check_certificate(claim.certificate)
        assert checked.confirmed, checked.reason
        body = json.loads(open(claim.certificate).read())
        assert body["dps"] >= 50 and body["claim"] == claim.id and body["reading"] == claim.reading
        if body["kind"] == "counterexample":
            tree = parse_claim(claim.text, None)
            assert body["statement"] == claim.text
            assert parse_claim(body["binding"]["comparison"], None) in comparisons(tree)


def test_only_refuted_and_proved_claims_have_a_certificate(report):
    for claim in report[0].claims:
        if claim.verdict.text not in ("REFUTED", "PROVED"):
            assert claim.certificate is None
        if claim.verdict.text == "PROVED":
            assert json.loads(open(claim.certificate).read())["kind"] == "proof"


def rejected(body, claims_file=None):
    """True when check refuses the certificate (one-line InputError) or does not confirm it."""
    try:
        return not check_body(body, "certificate (edited)", claims_file).confirmed
    except InputError as error:
        assert "\n" not in str(error)
        return True


def edited(body, edit):
    body = copy.deepcopy(body)
    edit(body)
    return body


def _set(path, value):
    def edit(body):
        target = body
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return edit


@pytest.fixture(scope="module")
def user_certificate(tmp_path_factory):
    """A refuted user claim that holds on its own domain n ≤ 6 (pigeonhole) and fails at n = 7."""
    claims = parse_claims_text('[[claim]]\nid = "mine.large_n"\nholds = "z_max >= 1/6"\nn = [2, 8]\n'
                               '[[claim]]\nid = "mine.iso"\nholds = "L_T <= mu_T * 1.0000001"\nhessian = "spd"\n')
    result = run_claims(claims, seed=1, samples=80, workers=1)
    bodies = {r.id: r.certificate_body for r in result.claims}
    assert all(bodies.values()), [r.verdict.text for r in result.claims]
    return bodies


def test_a_user_certificate_is_confirmed_and_every_false_edit_is_rejected(user_certificate):
    body = user_certificate["mine.large_n"]
    assert check_body(body).confirmed
    n = body["inputs"]["logits"].__len__()
    assert n >= 7
    edits = {
        "n range narrowed to where the claim holds": _set(("domain", "n"), [2, 6]),
        "n range with the hash recomputed": None,  # below
        "family": _set(("domain", "hessian"), "isotropic"),
        "claim id": _set(("claim",), "T2.eq47.min"),
        "another user id": _set(("claim",), "mine.other"),
        "margin": _set(("margin",), "2"),
        "margin's last digit": lambda b: b.update(margin=b["margin"][:-1] + str((int(b["margin"][-1]) + 3) % 10)),
        "lhs": _set(("binding", "lhs"), "0.5"),
        "sides swapped": lambda b: b["binding"].update(lhs=b["binding"]["rhs"], rhs=b["binding"]["lhs"]),
        "holds text": _set(("statement",), "z_max >= 1/7"),
        "dps lowered": _set(("dps",), 10),
        "dps raised beyond the digits recorded": _set(("dps",), 80),
        "dps absurd": _set(("dps",), 10**9),
        "inputs where it holds": _set(("inputs", "logits"), ["0"] + ["-5"] * (n - 1)),
        "inputs below the n range": _set(("inputs",), {"logits": ["0"], "H": [["1"]]}),
        "unknown key": _set(("Mu",), "1"),
        "reading": _set(("reading",), "tangent-exact"),
    }
    for name, edit in edits.items():
        if edit is None:
            from verify.claims.record import FormulaClaim

            claim = FormulaClaim("mine.large_n", "", "z_max >= 1/6", n_range=(2, 6), command="claims")
            tampered = edited(body, lambda b: b.update(domain=claim.domain(), sha256=claim.digest()))
        else:
            tampered = edited(body, edit)
        assert rejected(tampered), name


def test_a_family_edit_is_rejected_even_with_a_consistent_hash(user_certificate):
    from verify.claims.record import FormulaClaim

    body = user_certificate["mine.iso"]
    assert check_body(body).confirmed  # L_T > μ_T (1 + 1e-7) somewhere: H not isotropic
    claim = FormulaClaim("mine.iso", "", body["statement"], n_range=(2, 10), hessian="isotropic", command="claims")
    tampered = edited(body, lambda b: b.update(domain=claim.domain(), sha256=claim.digest()))
    assert rejected(tampered)  # its H is not aI + b11ᵀ: outside the family


def test_claims_file_must_state_the_same_claim(user_certificate, tmp_path):
    body = user_certificate["mine.large_n"]
    same = tmp_path / "same.toml"
    same.write_text('[[claim]]\nid = "mine.large_n"\nholds = "z_max  >=  1/6"\nn = [2, 8]\n')
    assert check_body(body, claims_file=same).confirmed  # whitespace aside, the same claim
    for text in ('holds = "z_max >= 1/7"\nn = [2, 8]', 'holds = "z_max >= 1/6"\nn = [2, 6]',
                 'holds = "z_max >= 1/6"\nn = [2, 8]\nhessian = "diagonal"'):
        other = tmp_path / "other.toml"
        other.write_text(f'[[claim]]\nid = "mine.large_n"\n{text}\n')
        assert rejected(body, other), text


def test_built_in_certificates_reject_edits_too(report):
    claim = next(c for c in report[0].refuted if c.id == "T2.swapped")
    body = json.loads(open(claim.certificate).read())
    n = len(body["inputs"]["H"])
    for edit in (_set(("statement",), body["statement"].replace("**2", "**3")), _set(("margin",), "0.5"),
                 _set(("binding", "rhs"), "1e9"), _set(("reading",), "ambient-bounds" if claim.reading != "ambient-bounds"
                                                                      else "tangent-exact"),
                 _set(("inputs", "logits"), ["0"] * n), _set(("domain", "n"), [3, None])):
        assert rejected(edited(body, edit))


def without_timings(data):
    """A JSON report with every "seconds" or "…_seconds" field (a measurement, not a result) left out."""
    if isinstance(data, dict):
        return {k: without_timings(v) for k, v in data.items() if k != "seconds" and not k.endswith("_seconds")}
    if isinstance(data, list):
        return [without_timings(v) for v in data]
    return data


def test_multi_certificate_round_trips_and_an_agreeing_case_is_not_confirmed():
    """The several-examples format: written, parsed back, re-enclosed; with K Kᵀ = I the sides agree,
    so check must refuse to confirm a disagreement."""
    from verify.claims.certificates.several import certificate_body
    from verify.claims.builtin.registry import REGISTRY
    from verify.claims.search.sampling import random_multi_case

    body = certificate_body(REGISTRY["T2.multi"], random_multi_case(3, 1), 50)
    result = check_body(json.loads(json.dumps(body)))
    assert not result.confirmed and "overlap" in result.reason


def test_an_unconfirmed_several_examples_certificate_is_never_written(tmp_path, monkeypatch):
    """A search that reports a T2.multi disagreement `check` cannot confirm (here every case is made to look
    like one; the balls overlap) gives INCONCLUSIVE and writes no certificate."""
    from verify.claims.verdicts import multi

    monkeypatch.setattr(multi, "multi_verdict", lambda case, dps: (1.0, 0.0, False))
    report = run_theorem2(seed=0, samples=10, claim_ids=["T2.multi"], out_dir=str(tmp_path / "certs"), workers=1)
    (result,) = report.claims
    assert result.verdict.text == "INCONCLUSIVE" and result.certificate is None
    assert "overlap" in result.evidence.certificate_check
    assert not (tmp_path / "certs").exists() or not any((tmp_path / "certs").iterdir())


def test_every_kind_is_built_and_read_by_the_one_format():
    """format.body writes the kind's keys in the format's order and refuses a missing or extra field (a
    programming error, never a file); format.kind_of reads the same keys back and refuses any other."""
    from verify.claims.certificates import format as certificate_format

    for kind, keys in certificate_format.KEYS.items():
        fields = {key: None for key in keys if key not in ("format", "kind")}
        body = certificate_format.body(kind, **fields)
        assert list(body) == list(keys) and certificate_format.kind_of(body, "certificate") == kind
        for broken in ({k: v for k, v in fields.items() if k != keys[-1]}, dict(fields, extra=1)):
            with pytest.raises(ValueError):
                certificate_format.body(kind, **broken)
        for edit in ({"kind": "nonsense"}, {"format": "verify-certificate/1"}, {"extra": 1}):
            with pytest.raises(InputError):
                certificate_format.kind_of(dict(body, **edit), "certificate")


@given(st.integers(-10**40, 10**40), st.integers(0, 10**30), st.integers(-60, 60), st.sampled_from([30, 50, 80]))
def test_a_recorded_number_matches_its_ball_and_nothing_a_unit_away(mantissa, radius, exponent, dps):
    """The one tolerance rule: side_text's decimal of a ball matches it; moved beyond the ball's radius by more
    than a unit in its last digit, or written with fewer digits than the certificate's, it does not."""
    import flint

    from verify.claims.certificates.format import half_ulp, side_matches, side_text

    with flint.ctx.workprec(400):
        ball = flint.arb(mantissa, radius) * flint.arb(10) ** exponent
        text = side_text(ball, dps)
        assert side_matches(text, ball, dps)
        tiny = (ball.rad() + abs(ball.mid())) * flint.arb(10) ** (2 - dps) + flint.arb(10) ** -200  # > the moved text's rounding
        offset = 2 * (ball.rad() + half_ulp(text)) + tiny
        assert not side_matches(side_text(ball.mid() + offset * (1 if mantissa % 2 else -1), dps + 10), ball, dps)
        toward_zero = -1 if mantissa > 0 else 1  # (so the moved decimal's last digit is no coarser than text's)
        moved = side_text(ball.mid() + toward_zero * (ball.rad() + 4 * half_ulp(text) + tiny), dps)
        assert not side_matches(moved, ball, dps), (text, moved)
        if mantissa != 0:  # (zero is written whole in any number of digits)
            assert not side_matches(side_text(ball, dps - 1), ball, dps)
    assert not side_matches("0.0", flint.arb("0.04"), 30) and side_matches("0.0", flint.arb(0, 1e-30), 30)


def test_a_several_examples_certificate_must_record_its_margin_too(monkeypatch):
    """T2.multi's certificate is checked by the same rule as every other: the sides and the margin. (Sides that
    disagree are made here: with real keys T2.multi holds, so its balls overlap.)"""
    import flint

    from verify.claims.certificates import several as multi
    from verify.claims.cases.multi_balls import MultiEnclosure
    from verify.claims.builtin.registry import REGISTRY
    from verify.claims.search.sampling import random_multi_case

    disagreeing = MultiEnclosure(flint.arb(3), flint.arb(2), 200)
    monkeypatch.setattr(multi, "decide_multi", lambda case, dps, max_bits=None: disagreeing)
    body = multi.certificate_body(REGISTRY["T2.multi"], random_multi_case(3, 1), 50)
    assert body["margin"].startswith("0.5") and check_body(json.loads(json.dumps(body))).confirmed
    for name, wrong in (("margin", "0.6"), ("margin", "0.5"), ("lhs", "3.1" + "0" * 60), ("rhs", "2")):
        assert not check_body(dict(body, **{name: wrong})).confirmed, name
