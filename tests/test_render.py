"""What a user sees (issue 18): every number a table shows is the report's number, whole — to the table's
significant digits, with its exponent, never cut and never split across lines — at 80, 100 and 200
columns; PROVED rows show their proof, a CONTRADICTION exits 3 with one loud line."""
import io
from fractions import Fraction
import json
import re

import mpmath as mp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from verify import api

from verify.commandline import cli
from verify.claims.verdicts.mode import evaluate_case
from verify.claims.cases.case import load_case
from verify.claims.results import ClaimResult, Counterexample, ProofEvidence, Report, SearchEvidence
from verify.numerics.precision import decimal
from verify.commandline.tables import SHOWN_DIGITS, VALUE_DIGITS, evidence_text, number_text, theorem2_table
from verify.commandline.case_tables import case_json, case_table

WIDTHS = (80, 100, 200)
TOKEN = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?")
CLAIMS = """
[[claim]]
id = "true.min"
holds = "lambda_min <= mu_T * z_max**2"

[[claim]]
id = "false.swapped"
holds = "kappa >= L_T / mu_T * R**2"

[[claim]]
id = "false.tiny"
statement = "fails by a relative margin near -1e-3"
holds = "lambda_max <= 0.999 * L_T * j_max**2"
n = [2, 4]
"""


@pytest.fixture(scope="module")
def theorem2_report(theorem2_run):
    return theorem2_run[0]


@pytest.fixture(scope="module")
def claims_report():
    return api.run_claims(api.load_claims(CLAIMS), samples=10, workers=1)


@pytest.fixture(scope="module")
def case_report(tmp_path_factory):
    path = tmp_path_factory.mktemp("case") / "case.json"
    path.write_text(json.dumps({"logits": ["0", "-575", "-3.5"], "H": [[2, 0, 0], [0, 3, 1], [0, 1, 4]]}))
    case = load_case(str(path))
    return case, evaluate_case(case, 50)


def rendered(draw, width):
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    draw(console)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines() if not line.endswith(".json")) <= width  # a path is whole
    return text


def shown_numbers(text):
    """Every number token of the text, line by line (a number split across lines is two wrong tokens)."""
    with mp.workdps(40):
        return [mp.mpf(token) for line in text.splitlines() for token in TOKEN.findall(line)]


def assert_shown(value, numbers, digits=SHOWN_DIGITS, where=""):
    """`value` (a JSON decimal string or number) is among the table's numbers to `digits` significant digits:
    within half a unit of its last digit (and a little for the JSON's own rounding)."""
    with mp.workdps(40):
        x = mp.mpf(value)
        tolerance = 0 if x == 0 else mp.mpf(10) ** (mp.floor(mp.log10(abs(x))) - digits + 1) * mp.mpf("0.5001")
        assert any(abs(t - x) <= tolerance for t in numbers), f"{where}: {value} is not shown to {digits} digits"


def is_number(value):
    return isinstance(value, (int, float)) or (isinstance(value, str) and TOKEN.fullmatch(value) is not None)


def promised_numbers(claim):
    """The numbers of one claim's JSON evidence that its row promises: (value, significant digits)."""
    e = claim["evidence"]
    out = [(e[key], SHOWN_DIGITS) for key in ("samples", "adversarial_examples", "precise_rechecks", "ball_decisions",
                                              "disagreements", "worst_relative_gap", "largest_relative_radius") if key in e]
    c = e.get("counterexample")
    if c:
        out += [(c["n"], SHOWN_DIGITS), (c["margin"], SHOWN_DIGITS), (e["random_counterexamples"], SHOWN_DIGITS)]
        out += [(c[side], SHOWN_DIGITS) for side in ("lhs", "rhs") if c.get(side) is not None]
        out += [(x, SHOWN_DIGITS) for x in c["inputs"].get("logits", c["inputs"].get("z", []))]
        out += [(x, SHOWN_DIGITS) for row in c["inputs"]["H"] for x in row]
    elif is_number(e.get("worst_margin")):
        out += [(e["worst_margin"], SHOWN_DIGITS), (e["worst_case_n"], SHOWN_DIGITS)]
    proof = e.get("proof", {})
    if proof.get("status") == "proved":
        out.append((proof["seconds"], 3))
        out += [(seconds, 3) for piece in proof["pieces"] for seconds in piece["seconds"].values()]
        totals = {}
        for piece in proof["pieces"]:
            for solver, seconds in piece["seconds"].items():
                totals[solver] = totals.get(solver, 0) + seconds
        out += [(round(total, 3), 2) for total in totals.values()]
    return [(v, d) for v, d in out if v is not None]


@pytest.mark.parametrize("width", WIDTHS)
def test_theorem2_table_shows_every_promised_number_whole(theorem2_report, width):
    text = rendered(lambda console: theorem2_table(theorem2_report, console), width)
    numbers = shown_numbers(text)
    data = theorem2_report.to_json()
    verdicts = {c["verdict"] for c in data["claims"]}
    assert {"PROVED", "REFUTED"} <= verdicts, verdicts  # the run exercises both kinds of rows
    for claim in data["claims"]:
        for value, digits in promised_numbers(claim):
            assert_shown(value, numbers, digits, f"{claim['id']} {claim['reading']} at {width} columns")


@pytest.mark.parametrize("width", WIDTHS)
def test_claims_table_shows_every_promised_number_whole(claims_report, width):
    text = rendered(lambda console: theorem2_table(claims_report, console, title="claims"), width)
    numbers = shown_numbers(text)
    data = claims_report.to_json()
    assert {c["verdict"] for c in data["claims"]} & {"REFUTED"}
    for claim in data["claims"]:
        for value, digits in promised_numbers(claim):
            assert_shown(value, numbers, digits, f"{claim['id']} at {width} columns")


def assert_bounded(value, numbers, where):
    """A radius is shown to two digits rounded up: some shown number is ≥ it and within 10 % above it."""
    with mp.workdps(40):
        x = mp.mpf(value)
        assert any(x <= t <= x * mp.mpf("1.1") for t in numbers), f"{where}: {value} is not shown rounded up"


def test_the_case_header_promises_what_the_enclosures_give(case_report):
    """Its relative radius is the largest of the shown radii over their values (each ball's own), rounded up."""
    from verify.commandline.case_tables import case_precision_text

    case, report = case_report
    data = case_json(report)
    promised = mp.mpf(case_precision_text(report).rsplit("≤ ", 1)[1])
    with mp.workdps(40):
        worst = max(mp.mpf(data["enclosures"][name]["rad"]) / abs(mp.mpf(data["enclosures"][name]["mid"]))
                    for name in ("lambda_max", "lambda_min", "kappa", "L_T", "mu_T", "R"))
        assert worst * mp.mpf("0.99") <= promised <= worst * mp.mpf("1.1")
    assert mp.mpf(data["enclosure_relative_radius"]) == promised


@pytest.mark.parametrize("width", WIDTHS)
def test_case_tables_show_every_value_and_side_whole(case_report, width):
    case, report = case_report
    text = rendered(lambda console: case_table(case, report, console), width)
    numbers = shown_numbers(text)
    data = case_json(report)
    assert_shown(data["n"], numbers)
    for name in ("lambda_max", "lambda_min", "kappa", "L_T", "mu_T", "R"):
        assert_shown(data[name], numbers, VALUE_DIGITS, name)
        assert_bounded(data["enclosures"][name]["rad"], numbers, f"radius of {name}")
    for row in data["claims"]:
        for key in ("lhs", "rhs", "margin"):
            assert_shown(row[key], numbers, SHOWN_DIGITS, f"{row['id']} {row['reading']} {key}")
    assert any(abs(mp.log10(abs(x))) > 400 for x in numbers if x)  # this case's sides are beyond float64's range


def test_case_mode_through_the_cli_is_readable_at_80_columns(case_report, tmp_path, monkeypatch, capsys):
    path = tmp_path / "case.json"
    path.write_text(json.dumps({"logits": ["0", "-575", "-3.5"], "H": [[2, 0, 0], [0, 3, 1], [0, 1, 4]]}))
    monkeypatch.setenv("COLUMNS", "80")
    assert cli.main(["theorem2", "--case", str(path)]) == 0
    text = capsys.readouterr().out
    assert max(map(len, text.splitlines())) <= 80
    numbers = shown_numbers(text)
    for row in case_json(case_report[1])["claims"]:
        assert_shown(row["margin"], numbers, SHOWN_DIGITS, row["id"])
    claims = text.split("claims at this case", 1)[1].splitlines()[1:]
    rows = case_json(case_report[1])["claims"]
    assert len(claims) == 2 * len(rows)  # two lines a claim: id · reading: inequality, then the numbers
    for (heading, numbers_line), row in zip(zip(claims[::2], claims[1::2]), rows):
        assert heading.startswith(f"{row['id']} · {row['reading']}: ") and numbers_line.lstrip().startswith("lhs ")
        assert row["verdict"] in numbers_line


@pytest.mark.parametrize("value, shown", [
    ("-9.995003330e-4", "-9.995e-4"), ("4.6e+607", "4.6e+607"), ("-1.6094379124341000193293914531760315950910498842466",
                                                                  "-1.60944"),
    ("exp(1234.5678901234567890)", "exp(1234.57)"), ("-exp(7e+5)", "-exp(700000.0)"), ("undefined", "undefined"),
    ("0", "0"), (17, "17"), (None, "—"), ("1.23456789e-100000", "1.23457e-100000")])
def test_number_text_keeps_the_exponent_and_never_cuts(value, shown):
    assert number_text(value) == shown


def _as_kind(value, kind):
    """(the number as that kind of input, its exact value)."""
    if kind == "float":
        return float(value), Fraction(float(value))
    if kind == "mpf":
        with mp.workdps(40):
            x = mp.mpf(value.numerator) / value.denominator
        sign, man, exp, _ = x._mpf_
        return x, Fraction((-1) ** sign * int(man)) * Fraction(2) ** exp
    if kind == "text":
        text = f"{value.numerator / value.denominator:.17e}"
        return text, Fraction(text)
    return value, value


@settings(max_examples=300, deadline=None, database=None, derandomize=True)
@given(st.fractions(min_value=-10**9, max_value=10**9).filter(bool), st.sampled_from(["Fraction", "float", "mpf", "text"]),
       st.integers(1, 40), st.booleans())
def test_every_number_kind_prints_through_one_formatter_to_its_digits(value, kind, digits, table):
    """A Fraction, a float, an mpf or decimal text: one formatter prints each (a table's short form drops
    trailing zeros), within half a unit of its last digit, checked in exact rationals."""
    given_value, exact = _as_kind(value, kind)
    text = number_text(given_value, digits) if table else decimal(given_value, digits)
    with mp.workdps(60):
        exponent = int(mp.floor(mp.log10(abs(mp.mpf(exact.numerator) / exact.denominator))))
    unit = Fraction(10) ** (exponent - digits + 1)
    assert abs(Fraction(text) - exact) <= unit / 2 * (1 + Fraction(1, 10**6)), (text, exact)
    significant = text.split("e")[0].replace("-", "").replace(".", "").strip("0")
    assert len(significant) <= digits, text


def _search_evidence(**changes):
    base = SearchEvidence(samples=40, adversarial_examples=20, precise_rechecks=3, worst_margin="2.5e-3", worst_case_n=4,
                          random_counterexamples=0)
    return base.with_(**changes)


def _result(kind, evidence, claim_id="mine"):
    """A ClaimResult of the given kind's name (its Verdict made, as always, by verdict_of)."""
    from verify.claims.verdicts.decide import verdict_of

    outcome = {"PROVED": "proved", "HOLDS": "holds", "INCONCLUSIVE": "undecided", "REFUTED": "fails",
               "CONTRADICTION": "contradiction"}[kind]
    return ClaimResult(claim_id, None, "", "", verdict_of(outcome, certified=kind == "REFUTED"), evidence)


def _text(result, width=100):
    report = Report(0, 50, 40, (result,), 1.0, command="claims")
    return rendered(lambda console: theorem2_table(report, console, title="t"), width)


def _evidence(result):
    """The evidence cell's text, before the table wraps it."""
    return " ".join(evidence_text(result).split())


def test_an_uncertified_failure_is_not_shown_as_a_counterexample():
    result = _result("INCONCLUSIVE", _search_evidence(
        worst_margin="-3.1e-17", note="a failure at n = 4 found by the search could not be certified"))
    text = _evidence(result)
    assert "counterexample:" not in text and "not certified, not a counterexample" in text
    assert_shown("-3.1e-17", shown_numbers(_text(result, 80)))


def test_a_tight_comparison_says_so_and_its_margin_only_when_decided():
    tight = "tight at 3 case(s): the two sides agree to every one of 100 digits"
    text = _evidence(_result("HOLDS", _search_evidence(worst_margin=None, worst_case_n=None, tight=tight)))
    assert tight in text and "worst margin" not in text


def test_a_proved_row_shows_domain_facts_and_both_solvers():
    proof = ProofEvidence("proved", "every n ≥ 2, H symmetric positive definite",
                          ({"id": "F1.positive", "text": "z_min > 0", "source": "elementary"},
                           {"id": "F7.rayleigh", "text": "lambda_max >= j_max**2 * mu_T", "source": "Courant–Fischer"}),
                          ({"piece": "n ≥ 2", "part": 1, "lemmas": ["F1.positive", "F7.rayleigh"],
                            "seconds": {"z3": 0.052, "cvc5": 0.041}},),
                          {"z3": "4.13.0", "cvc5": "1.1.2"}, 0.31)
    result = _result("PROVED", _search_evidence(proof=proof))
    line = "proof: every n ≥ 2, H symmetric positive definite; from F1, F7; Z3 4.13.0 0.052 s + cvc5 1.1.2 0.041 s"
    assert line in _evidence(result)
    listing = _text(result, 200)
    assert "F7.rayleigh: lambda_max >= j_max**2 * mu_T" in listing and "Courant–Fischer" in listing


def test_a_proved_row_says_which_kind_of_proof_it_is():
    pieces = ({"piece": "n ≥ 2", "part": 1, "lemmas": ["F1.positive"], "seconds": {"z3": 0.05, "cvc5": 0.04},
               "kind": "algebraic identity"},)
    for kind in ("algebraic identity", "Z3 and cvc5 agree"):
        proof = ProofEvidence("proved", "every n ≥ 2, H symmetric positive definite",
                              ({"id": "F1.positive", "text": "z_min > 0", "source": "elementary"},), pieces,
                              {"z3": "4.13.0", "cvc5": "1.1.2"}, 0.31, kind=kind, algebra_seconds=0.02)
        result = _result("PROVED", _search_evidence(proof=proof))
        assert f"proof ({kind}): every n ≥ 2" in _evidence(result)
        assert result.to_json()["evidence"]["proof"]["kind"] == kind


@pytest.mark.parametrize("width", (37, 80))
def test_a_counterexample_shows_its_sides_with_their_exponents(width):
    """Even narrower than a terminal should be, the evidence column keeps its widest number on one line."""
    c = Counterexample(3, {"logits": ["0", "-575", "-3.5"], "H": [["2", "0", "0"], ["0", "3", "1"], ["0", "1", "4"]]},
                       "lambda_min <= 1e-510", "1.8016242949629441720280670739143676e-499", "1e-510",
                       "25.9170000000000000000001")
    text = _text(_result("REFUTED", _search_evidence(counterexample=c, shrunk=True, random_counterexamples=2),
                         "a.rather.long.claim.identifier"), width)
    numbers = shown_numbers(text)
    for value in (c.lhs, c.rhs, c.margin, "-575", "-3.5"):
        assert_shown(value, numbers)
    assert "1.80162e-499" in text and "-9.995003330" not in text


def test_a_contradiction_exits_3_with_one_loud_line(tmp_path, monkeypatch, capsys):
    claims = tmp_path / "claims.toml"
    claims.write_text('[[claim]]\nid = "bad.fact"\nholds = "z_min <= 1/n"\n')
    contradiction = _result("CONTRADICTION", _search_evidence(note="CONTRADICTION: proved, yet refuted"), "bad.fact")
    report = Report(0, 50, 10, (contradiction,), 0.1, command="claims")
    monkeypatch.setattr("verify.claims.verdicts.decide.run_claims", lambda *args, **kwargs: report)  # the CLI goes through verify.api
    assert cli.main(["claims", str(claims), "--out", str(tmp_path / "certificates")]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "CONTRADICTION" in err[0] and "bad.fact" in err[0]


def test_case_mode_gives_each_claim_its_verdict_at_the_case(case_report):
    """CERTIFIED exactly where the balls alone decide the claim holds, REFUTED where they decide it fails."""
    case, report = case_report
    expected = {"holds": "CERTIFIED", "fails": "REFUTED", "undecided": "INCONCLUSIVE"}
    rows = case_json(report)["claims"]
    assert [row["verdict"] for row in rows] == [expected[row["rigorous"]] for row in rows]
    assert {"CERTIFIED", "REFUTED"} <= {row["verdict"] for row in rows}  # this case shows both
    text = rendered(lambda console: case_table(case, report, console), 80)
    assert all(row["verdict"] in text for row in rows)


def test_json_worst_margin_has_every_digit_the_table_shortens(claims_report):
    """--json promises every digit its enclosure vouches for: a worst margin carries more than the table's SHOWN_DIGITS."""
    margins = [c["evidence"]["worst_margin"] for c in claims_report.to_json()["claims"]
               if is_number(c["evidence"].get("worst_margin"))]
    assert margins
    for margin in margins:
        significant = re.sub(r"[-+.]|e.*$", "", margin).lstrip("0")
        assert len(significant) > SHOWN_DIGITS or mp.mpf(margin) == mp.mpf(number_text(margin)), margin
    assert any(len(re.sub(r"[-+.]|e.*$", "", m).lstrip("0")) > SHOWN_DIGITS for m in margins)


def test_at_80_columns_a_certificate_path_is_whole_and_a_large_counterexample_short(tmp_path):
    """A long --out folder: each path is one line that `check` takes as it is; an n = 20 counterexample's
    identity matrix is named, not printed over 16 lines, and the certificate keeps every entry."""
    from pathlib import Path

    from verify.claims.certificates.check import check_certificate
    from verify.claims.claimfile import parse_claims_text
    from verify.claims.verdicts.decide import run_claims

    claims = parse_claims_text('[[claim]]\nid = "wide.claim-with-a-long-name"\nholds = "z_max >= 2/n"\nn = [20, 20]\n')
    out = tmp_path / ("a-folder-name-long-enough-to-cross-the-eightieth-column" * 2)
    report = run_claims(claims, samples=10, workers=1, out_dir=str(out))
    result = report.claims[0]
    assert result.verdict.text == "REFUTED" and len(str(result.certificate)) > 80
    console = Console(width=80, record=True, file=io.StringIO(), color_system=None)
    theorem2_table(report, console, title="claims")
    lines = console.export_text().splitlines()
    assert str(result.certificate) in lines  # one line, whole
    assert check_certificate(next(line for line in lines if line.endswith(".json"))).confirmed
    assert max(len(line) for line in lines if not line.endswith(".json")) <= 80
    body = json.loads(Path(result.certificate).read_text())
    H = body["inputs"]["H"]
    assert len(H) == 20 and all(len(row) == 20 for row in H)
    table = [line for line in lines if line.startswith("│")]
    assert len(table) <= 12 and "(20×20)" in "".join(lines)
