"""Echoed values and printed text are safe: a giant integer, a newline or an ESC sequence in any input gives one
bounded, escaped line (never Python's 4,300-digit ValueError, never a raw control character on the terminal), a
Case built directly is checked as a case file is, and a number no radius can print is shown as "—"."""
import json
import os
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import verify
from tests.conftest import run_cli
from verify.base.printable import escaped, integer_text, shown
from verify.claims.cases.case import Case

ESC = "\x1b]0;owned\x07\x1b[2J\x1b[31m"
TOML_ESC = "".join(f"\\u{ord(ch):04x}" if ord(ch) < 32 else ch for ch in ESC)  # the same, as a TOML string writes it


def run(argv):
    """(exit status, stdout, stderr) of `verify ARGV` from the current folder (conftest's run_cli)."""
    ran = run_cli(*argv, cwd=os.getcwd())
    return ran.returncode, ran.stdout, ran.stderr


def assert_clean(text):
    """No control character but the layout's newlines."""
    assert not any(ord(ch) < 32 and ch != "\n" or 0x7f <= ord(ch) < 0xa0 or ch in "\u202e\u2028" for ch in text), \
        repr(text[:400])


def assert_one_error_line(code, out, err):
    assert code == 2 and "Traceback" not in err, (code, err[-1500:])
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("verify: error: ") and len(lines[0]) < 700, err[-1500:]
    assert_clean(err)


# ---------------------------------------------------------------- the helper


@given(st.integers(min_value=-10**6000, max_value=10**6000) | st.sampled_from([10**5000, -(10**4301) + 7, 2**20000]))
def test_an_integer_is_shown_with_its_leading_digits_and_length(number):
    text = integer_text(number)
    if abs(number) < 10**60:
        assert text == str(number)
    else:
        digits = len(str(abs(number))) if abs(number).bit_length() < 14000 else None  # str refuses beyond 4,300 digits
        lead, count = text.lstrip("-").split("… (")
        assert count.endswith(" digits)") and (digits is None or int(count.split()[0]) == digits)
        assert (number < 0) == text.startswith("-") and len(lead) == 12


def test_a_giant_integer_is_counted_exactly_past_python_s_limit():
    assert integer_text(10**5000) == "100000000000… (5001 digits)"
    assert integer_text(10**5000 - 1) == "999999999999… (5000 digits)"
    assert "about 1,000,000 digits" in integer_text(10**1_000_000)


@given(st.text(max_size=300))
def test_shown_text_is_one_bounded_line_without_control_characters(text):
    out = shown(text)
    assert "\n" not in out and len(out) <= 60
    assert_clean(out)
    assert out[0] in "'\"" and out[-1] == out[0]  # quoted, the closing quote kept where it is cut


def test_shown_containers_are_bounded():
    listed = shown([10**5000] * 10**5)
    assert listed.startswith("[100000000000… (5001 digits), ") and len(listed) <= 60
    assert shown({"a": Fraction(10**5000, 3)}, 200) == "{'a': Fraction(100000000000… (5001 digits), 3)}"
    assert escaped("a\nb" + ESC, keep="\n") == "a\nb\\x1b]0;owned\\x07\\x1b[2J\\x1b[31m"


# ---------------------------------------------------------------- the library


@pytest.mark.parametrize("kwargs", [
    dict(logits=[10**5000, 0], H=[[1, 0], [0, 1]]),
    dict(logits=[0, 0], H=[[10**5000, 0], [0, 1]]),
    dict(logits=[Fraction(10**5000, 3), 0], H=[[1, 0], [0, 1]]),
    dict(logits=[0, 0], H=[[1, 0], [0, 1]], L=-10**6000),
    dict(logits=["0\n1", 0], H=[[1, 0], [0, 1]]),
    dict(logits=np.array([[1, 2], [3]], dtype=object), H=[[1, 0], [0, 1]]),
    dict(logits=[0, 0], H=np.array([[1, 0], [0, 1]], dtype=object)),
    dict(logits=np.array([[1, 2], [3, 4]], dtype=object), H=[[1, 0], [0, 1]]),
    # numbers of 9,000 digits, once echoed whole (9-18 KB lines, an attack): L below λ_max, mu above λ_min, L < mu,
    # mu < 0, and an entry of H that breaks its symmetry
    dict(logits=[0, 0], H=[[1, 0], [0, 2]], L="1." + "9" * 9000),
    dict(logits=[0, 0], H=[[1, 0], [0, 2]], mu="1." + "1" * 9000),
    dict(logits=[0, 0], H=[[1, 0], [0, 2]], L="1." + "1" * 9000, mu="1." + "2" * 9000),
    dict(logits=[0, 0], H=[[1, 0], [0, 2]], mu="-1." + "1" * 9000),
    dict(logits=[0, 0, 0], H=[[2, 0, 0], [0, 2, 1], [0, "1." + "4" * 9000, 2]]),
])
def test_make_case_refuses_in_one_bounded_line(kwargs):
    with pytest.raises(verify.InputError) as caught:
        verify.make_case(**kwargs)
    message = str(caught.value)
    assert "\n" not in message and len(message) < 400
    assert_clean(message)


def test_a_case_repr_is_bounded_whatever_its_numbers():
    case = Case((Fraction(10**5000), Fraction(0)), ((Fraction(1), Fraction(0)), (Fraction(0), Fraction(1))))
    assert "(5001 digits)" in repr(case) and len(repr(case)) < 400


GARBAGE = {
    "text logits": Case(("a", "b"), ((1, 0), (0, 1))),
    "indefinite H": Case((Fraction(0), Fraction(0)), ((Fraction(1), Fraction(2)), (Fraction(2), Fraction(1)))),
    "zero H": Case((Fraction(0), Fraction(0)), ((Fraction(0), Fraction(0)), (Fraction(0), Fraction(0)))),
    "ragged H": Case((Fraction(0), Fraction(0)), ((Fraction(1),), (Fraction(0), Fraction(1)))),
    "H not rows": Case((Fraction(0), Fraction(0)), "ab"),
    "logits a number": Case(5, ((1, 0), (0, 1))),
    "given": Case((Fraction(0), Fraction(0)), ((1, 0), (0, 1)), given="nope"),
    "z without Log": Case((Fraction(1, 2), Fraction(1, 2)), ((1, 0), (0, 1)), given="z"),
    "None entry": Case((None, Fraction(0)), ((1, 0), (0, 1))),
}
CALLS = {
    "curvature_spectrum": lambda case: verify.curvature_spectrum(case),
    "evaluate_claim": lambda case: verify.evaluate_claim("T2.swapped", case),
    "evaluate_case": lambda case: verify.evaluate_case(case, claim_ids=["T2.swapped"]),
    "decide_on_case": lambda case: verify.decide_on_case("kappa >= 1", case),
    "j_spectrum": lambda case: verify.j_spectrum(case),
}


@pytest.mark.parametrize("call", list(CALLS))
@pytest.mark.parametrize("garbage", list(GARBAGE))
def test_a_case_built_directly_with_garbage_is_an_input_error(garbage, call):
    with pytest.raises(verify.InputError):
        CALLS[call](GARBAGE[garbage])


def test_a_case_built_directly_and_valid_gives_what_make_case_gives():
    direct = Case((Fraction(0), Fraction(-1)), ((Fraction(2), Fraction(0)), (Fraction(0), Fraction(3))))
    made = verify.make_case(logits=[0, -1], H=[[2, 0], [0, 3]])
    assert verify.curvature_spectrum(direct).kappa == verify.curvature_spectrum(made).kappa


# ---------------------------------------------------------------- the command line


@pytest.mark.parametrize("command", ["theorem2 --case", "spectrum"])
@pytest.mark.parametrize("where", ["H", "logit"])
def test_a_newline_or_escape_inside_a_case_value_is_one_escaped_line(command, where, tmp_path):
    bad = "1\n" + ESC
    data = {"logits": ["0", bad if where == "logit" else "0"], "H": [[bad if where == "H" else "1", 0], [0, 2]]}
    path = tmp_path / "case.json"
    path.write_text(json.dumps(data))
    assert_one_error_line(*run([*command.split(), str(path)]))


def test_a_radius_beyond_any_print_is_a_dash_and_a_tiny_logit_prints(tmp_path):
    from verify.commandline.case_tables import upper_text
    from verify.commandline.tables import number_text

    assert upper_text(float("nan")) == "—" and number_text("nan") in ("—", "nan")
    path = tmp_path / "case.json"
    path.write_text(json.dumps({"logits": ["1e-100000", "0", "-1e-100000"], "H": [[1, 0, 0], [0, 2, 0], [0, 0, 3]]}))
    code, out, err = run(["theorem2", "--case", str(path)])
    assert code == 0 and "Traceback" not in err and "R " in out, err[-1500:]


def test_a_claim_file_name_with_a_newline_and_escapes_is_one_escaped_title_line(tmp_path):
    """The table's title names the file: its newline once split the title in two, and a BEL vanished (an attack)."""
    path = tmp_path / f"claims\n{ESC}.toml"
    path.write_text('[[claim]]\nid = "c"\nholds = "z_max <= 1"\n')
    code, out, err = run(["claims", str(path), "--samples", "5", "--workers", "1", "--out", str(tmp_path / "out")])
    assert code == 0, err
    title = "".join(line.strip() for line in out.split("┏")[0].splitlines())  # the lines above the table, as wrapped
    assert "claims\\n\\x1b]0;owned\\x07" in title and "— seed" in title
    assert_clean(out + err)


def test_a_file_name_with_escapes_is_escaped_in_not_confirmed(tmp_path):
    path = tmp_path / f"cert{ESC}.json"
    path.write_text(json.dumps({"format": "verify-certificate/2", "kind": "proof"}))
    code, out, err = run(["check", str(path)])
    assert code == 1 and out.startswith("NOT CONFIRMED: "), (code, out, err)
    assert "\\x1b" in out
    assert_clean(out + err)


def test_an_out_name_with_escapes_is_escaped(tmp_path):
    target = tmp_path / f"out{ESC}"
    target.write_text("a file, not a folder")
    assert_one_error_line(*run(["theorem2", "--samples", "5", "--out", str(target)]))


def test_a_lemma_source_with_escapes_is_refused_in_one_escaped_line(tmp_path):
    """Control characters in a claim file are refused when it is loaded (issue 41); the refusal itself prints none."""
    claims = tmp_path / "claims.toml"
    claims.write_text(f'[[lemma]]\nid = "step"\nholds = "j_min >= z_min"\nn = [2, 4]\nsource = "{TOML_ESC}'
                      f' Cauchy \\u202e interlacing"\n\n[[claim]]\nid = "mine"\nholds = "lambda_min >= mu_T * z_min**2"\n'
                      'n = [2, 4]\n', encoding="utf-8")
    code, out, err = run(["claims", str(claims), "--samples", "5", "--out", str(tmp_path / "out")])
    assert code == 2 and len(err.strip().splitlines()) == 1 and "U+001B" in err, err[-1500:]
    assert not (tmp_path / "out").exists()
    assert_clean(out + err)


def test_an_n_value_with_escapes_is_one_escaped_line(tmp_path):
    claims = tmp_path / "claims.toml"
    claims.write_text(f'[[claim]]\nid = "mine"\nholds = "kappa >= 1"\nn = "{TOML_ESC}"\n')
    assert_one_error_line(*run(["claims", str(claims), "--samples", "5"]))
