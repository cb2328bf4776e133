"""Input validation at the scale ends: the one exact-number parser, case-file keys and size, and the rigorous
positive-definiteness and constants checks (`verify.numerics.definite`) against exact decisions."""
import json
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import run_cli_process
from verify.claims.cases.case import MAX_FILE_BYTES, load_case, parse_case
from verify.base.errors import InputError
from verify.numerics import definite
from verify.numerics.definite import positive_definite
from verify.numerics.precision import MAX_DIGITS, exact_decimal, parse_number


@pytest.mark.parametrize("text,value", [
    ("1e-400", F(1, 10**400)), ("-0.5", F(-1, 2)), (".5", F(1, 2)), ("5.", F(5)), ("1E+3", F(1000)),
    ("00012.50e-2", F(1, 8)), (" 7 ", F(7)), ("-0", F(0)),
])
def test_decimal_text_is_exact(text, value):
    assert parse_number(text, "x") == value


def _integer_of(text):
    """int(text) for any number of digits, by 1000-digit chunks (int() refuses more than 4,300)."""
    value = 0
    for start in range(0, len(text), 1000):
        chunk = text[start:start + 1000]
        value = value * 10 ** len(chunk) + int(chunk)
    return value


def test_numbers_of_4301_to_10000_digits_parse_and_print_exactly():
    for digits in (4301, 9999, MAX_DIGITS):
        text = "7" * digits
        assert parse_number(text, "x") == _integer_of(text)
        assert parse_number(text + "e-5", "x").denominator == 10**5
        assert exact_decimal(parse_number(text, "x")) == text
    assert parse_number(10**MAX_DIGITS - 1, "x") == 10**MAX_DIGITS - 1


@pytest.mark.parametrize("value", ["١", "-١", "１", "1٫5", "nan", "inf", "0x10", "", "1/3", "1_0", ".", "+", "1e",
                                   "7" * (MAX_DIGITS + 1), "1e100001", "1e-100001", "1e" + "9" * 5000,
                                   10**MAX_DIGITS, True, None, [1], float("nan")],
                         ids=lambda v: "10**10000" if isinstance(v, int) and v > 10**100 else repr(v)[:16])
def test_refused_in_one_line(value):
    with pytest.raises(InputError) as info:
        parse_number(value, "x")
    assert "\n" not in str(info.value)


def test_library_numbers_share_the_bounds():
    import mpmath as mp

    assert parse_number(F(1, 3), "x") == F(1, 3)
    assert parse_number(np.float64(0.5), "x") == F(1, 2)
    with mp.workdps(30):
        assert parse_number(mp.mpf(1) / 4, "x") == F(1, 4)
    with pytest.raises(InputError):
        parse_number(F(1, 3 ** 300000), "x")


def test_unknown_key_is_refused_with_the_nearest_one():
    with pytest.raises(InputError, match='unknown key .Mu.; did you mean "mu"'):
        parse_case({"logits": [0, -1], "H": [[1, 0], [0, 1]], "Mu": "0.5"})
    with pytest.raises(InputError, match="the keys are"):
        parse_case({"logits": [0, -1], "H": [[1, 0], [0, 1]], "comment": "x"})


def test_file_size_is_bounded(tmp_path):
    path = tmp_path / "big.json"
    with open(path, "wb") as handle:
        handle.seek(MAX_FILE_BYTES + 10)
        handle.write(b"0")
    with pytest.raises(InputError, match="larger than"):
        load_case(str(path))
    with pytest.raises(InputError, match="not a regular file"):  # a device is refused before a byte is read
        load_case("/dev/zero")


def test_big_json_integers_are_numbers_not_a_json_error(tmp_path):
    path = tmp_path / "case.json"
    path.write_text('{"logits": [0, -1], "H": [[' + "1" + "0" * 5000 + ', 0], [0, 1]]}')
    with pytest.raises(InputError, match="beyond ±1e300"):  # refused by H's bound, not as invalid JSON
        load_case(str(path))


# ---------------------------------------------------------------- positive definiteness


def _householder_spd(values, v):
    n = len(values)
    norm = sum(x * x for x in v)
    Q = [[F(int(i == j)) - F(2 * v[i] * v[j], norm) for j in range(n)] for i in range(n)]
    return [[sum(Q[i][k] * F(values[k]) * Q[k][j] for k in range(n)) for j in range(n)] for i in range(n)]


@pytest.mark.parametrize("scale", [F(1, 10**60), F(1, 10**250), F(10**250), F(1)])
def test_definiteness_at_the_matrix_own_scale(scale):
    H = _householder_spd([1, 2, 3, 5], [1, -2, 3, 1])
    assert positive_definite([[v * scale for v in row] for row in H]) is True
    assert positive_definite([[-v * scale for v in row] for row in H]) is False
    assert positive_definite([[scale if i == j else 0 for j in range(5)] for i in range(5)]) is True


def test_graded_diagonal_and_a_tiny_off_diagonal():
    H = [[F(1), F(0)], [F(0), F(1, 10**20)]]
    assert positive_definite(H) is True  # van der Sluis scaling: float64 alone would see a singular matrix
    H = [[F(1), F(1, 10**10)], [F(1, 10**10), F(1, 10**20)]]  # singular: det = 0
    assert positive_definite(H) is False and positive_definite(H, strict=False) is True


def test_boundary_decided_exactly_and_undecided_beyond_exact_max(monkeypatch):
    values = [F(1)] + [F(1) + F(k, 10**30) for k in range(1, 5)]
    H = _householder_spd(values, [2, -1, 3, 1, 1])
    assert positive_definite(H, shift=1) is False and positive_definite(H, shift=1, strict=False) is True
    assert positive_definite(H, shift=1 + F(1, 10**40)) is False
    # the size limit of the exact decision, lowered from EXACT_MAX (the same code at a fraction of its cost: the balls
    # try up to BALL_MAX_BITS on a singular matrix first, which takes seconds at EXACT_MAX rows)
    monkeypatch.setattr(definite, "EXACT_MAX", 8)
    for n, decided in ((8, True), (9, None)):
        singular = _householder_spd([1] + [2] * (n - 1), [k % 3 + 1 for k in range(n)])
        # λ_min − 1 = 0 exactly: no float64 verdict, and the balls cannot see a zero
        assert positive_definite(singular, shift=1, strict=False) is decided
        assert positive_definite(singular, shift=F(1, 2)) is True


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6).flatmap(lambda n: st.tuples(st.just(n), st.lists(st.integers(-4, 4), min_size=n * n,
                                                                            max_size=n * n), st.integers(-3, 3))))
def test_agrees_with_the_exact_characteristic_polynomial(case):
    n, entries, shift = case
    A = np.array(entries).reshape(n, n)
    H = [[F(int(v)) for v in row] for row in (A + A.T)]
    import flint

    poly = flint.fmpq_mat(n, n, [int(v) - (shift if i == j else 0) for i, row in enumerate(H) for j, v in enumerate(row)])
    signed = [c * (-1) ** (n - k) for k, c in enumerate(poly.charpoly().coeffs())]
    assert positive_definite(H, shift) == all(c > 0 for c in signed)
    assert positive_definite(H, shift, strict=False) == all(c >= 0 for c in signed)


def test_case_constants_are_checked_rigorously():
    H = [["1.4", "0.1"], ["0.1", "1.4"]]  # eigenvalues 1.3 and 1.5
    assert parse_case({"logits": [0, 0], "H": H, "mu": "1.3", "L": "1.5"}).mu == F(13, 10)
    with pytest.raises(InputError, match="above λ_min"):
        parse_case({"logits": [0, 0], "H": H, "mu": "1.3000000000000000000000000000000000000000001"})
    with pytest.raises(InputError, match="below λ_max"):
        parse_case({"logits": [0, 0], "H": H, "L": "1.4999999999999999999999999999999999999999999"})
    with pytest.raises(InputError, match="not positive"):
        parse_case({"logits": [0, 0], "H": H, "mu": "0"})


def test_spd_check_of_1e_minus_60_identity_and_scaled_matrices():
    for scale in ("1e-60", "1e-250"):
        case = parse_case({"logits": [0, -1, -2], "H": [[scale, "0", "0"], ["0", scale, "0"], ["0", "0", scale]]})
        assert case.H[0][0] == parse_number(scale, "x")
    with pytest.raises(InputError, match="not positive definite"):
        parse_case({"logits": [0, -1], "H": [["1e-250", "2e-250"], ["2e-250", "1e-250"]]})


def test_spectrum_cost_is_bounded(tmp_path):
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps({"z": ["1"] + ["1e-99999"] * 999}))
    out = run_cli_process("spectrum", str(path), "--json", timeout=120)
    assert out.returncode == 0, out.stderr
    values = json.loads(out.stdout)["eigenvalues"]
    assert len(values) == 1000 and float(values[-1]) == 0


@pytest.mark.parametrize("bits", [53, 30000])
def test_decimal_prints_a_tiny_long_mantissa_to_the_asked_digits(bits):
    """A ball's midpoint near 1e-6743 carries thousands of bits; its decimal is still `digits` digits."""
    import mpmath as mp

    from verify.numerics.precision import decimal

    with mp.workprec(bits):
        value = mp.mpf(1) / 3 * mp.mpf(2) ** -22400
    with mp.workdps(60):
        reference = mp.nstr(+value, 12, min_fixed=-4)  # rounded to 60 digits first
    for digits in (5, 20):
        text = decimal(value, digits)
        mantissa, exponent = text.split("e")
        assert len(mantissa.replace(".", "")) == digits and exponent == reference.split("e")[1]
        assert mantissa[:5] == reference[:5]


def test_the_command_options_are_checked_by_the_library_options_module(tmp_path):
    """assumption2's dimensions and plot, the derivation and experiment names: verify.base.options checks them (the CLI
    only calls it), each refusal one line naming the fix."""
    from verify.base import options
    from verify.base.errors import InputError

    assert options.dimensions(3, 4, 10) is True and options.dimensions(None, None, None) is False
    assert options.sweep_plot(None, False, ["A2.dim"]) is None
    assert options.sweep_plot(str(tmp_path / "x.png"), False, None) == str(tmp_path / "x.png")
    assert options.known(["a"], ("a", "b"), "derivation id") == ["a"]
    assert options.transformer_alone(["transformer"], (("--layers", 2),)) is None
    refused = [lambda: options.dimensions(3, None, 10),
               lambda: options.sweep_plot("x.png", True, None),
               lambda: options.sweep_plot("x.png", False, ["A2.dim"]),
               lambda: options.plot_file(str(tmp_path)),
               lambda: options.plot_file(str(tmp_path / "missing" / "x.png")),
               lambda: options.known(["c"], ("a", "b"), "experiment"),
               lambda: options.transformer_alone(["rates"], (("--layers", 2),)),
               lambda: options.transformer_alone(["rates", "transformer"], ())]
    for call in refused:
        with pytest.raises(InputError) as error:
            call()
        message = str(error.value)
        assert "\n" not in message and any(w in message for w in ("give", "drop", "include", "choose", "run")), message


GIANT = 10**5000  # more digits than int() prints (Python's limit is 4,300)


@pytest.mark.parametrize("call", [
    lambda api: api.decide_on_case("z_max > 0", api.make_case(logits=[0, -1], H=[[1, 0], [0, 1]]), dps=GIANT),
    lambda api: api.assumption2_dimensions(GIANT, 2, 3),
    lambda api: api.assumption2_dimensions(2, GIANT, 3),
])
def test_a_giant_whole_number_is_refused_as_input_not_a_value_error(call):
    """A newcomer's 10**5000 where a count or a precision belongs raised int()'s own ValueError (its 4,300-digit
    limit) from inside the message that was to refuse it."""
    import verify.api as api

    with pytest.raises(InputError, match=r"100000000000… \(5001 digits\)"):
        call(api)


def test_a_giant_whole_number_on_the_command_line_is_out_of_range_not_not_a_number(tmp_path):
    out = run_cli_process("theorem2", "--seed", "1" + "0" * 5000, "--out", str(tmp_path / "o"))
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert "(5001 digits) is outside 0..9223372036854775807" in out.stderr and not (tmp_path / "o").exists()


@pytest.mark.parametrize("text, claims", [('[[ claim ]]\nid = "x"\nholds = "z_max > 0"\n', 1),
                                          ('\n[[claim]]\nid = "x"\nholds = "z_max > 0"\n', 1)])
def test_claim_file_text_is_read_as_toml_however_its_tables_are_spelt(text, claims):
    import verify.api as api

    assert len(api.load_claims(text)) == claims


def test_claim_file_text_with_a_syntax_error_gets_the_toml_message_not_a_missing_file():
    import verify.api as api

    with pytest.raises(InputError, match="not valid TOML"):
        api.load_claims('[[claim]\nid = "x"\n')


def test_every_case_make_case_accepts_is_one_evaluate_case_takes():
    """Logits may each be ±1e6, so they may differ by 2e6: case mode refused a spread above 1e6."""
    import verify.api as api

    case = api.make_case(logits=["1000000", "-1000000", "0"], H=[[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    report = api.evaluate_case(case)
    assert report.spectrum.n == 3 and report.spectrum.lambda_max > 0


def test_the_case_strategy_draws_by_default_only_sizes_whose_ties_are_decided():
    import inspect

    from verify.claims.exact import EXACT_MAX_N
    from verify.strategies import cases, probability_vectors

    for strategy in (cases, probability_vectors):
        assert inspect.signature(strategy).parameters["max_n"].default == EXACT_MAX_N


def test_the_exact_digits_of_h_are_bounded_over_all_its_entries(tmp_path):
    """An n × n H of 100,000-digit entries passed every per-entry bound: 200 rows took 2.5–3.4 GB. The entries' exact
    bits are now bounded in all, and one long text used n² times is parsed once."""
    n = 200
    tiny = {"logits": [str(-i) for i in range(n)], "H": [["1" if i == j else "1e-99999" for j in range(n)] for i in range(n)]}
    with pytest.raises(InputError, match="bits of exact digits in all; give entries of fewer digits"):
        parse_case(tiny)
    n = 40
    dense = {"logits": [str(-i) for i in range(n)],
             "H": [[repr(4.0 if i == j else 1e-3 / (1 + i + j)) for j in range(n)] for i in range(n)]}
    case = parse_case(dense)
    assert case.H[0][1] is case.H[1][0]  # one text, one Fraction


def test_a_claim_file_integer_beyond_4300_digits_is_one_line(tmp_path):
    path = tmp_path / "big.toml"
    path.write_text('[[claim]]\nid = "x"\nholds = "z_max > 0"\nn = [2, ' + "9" * 5000 + "]\n")
    out = run_cli_process("claims", str(path), "--workers", "1", "--out", str(tmp_path / "o"))
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "more than 4,300 digits" in out.stderr, out.stderr


def test_an_h_below_float64s_range_is_named_so_not_called_zero(tmp_path):
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps({"logits": ["0", "-1"], "H": [["1e-99999", "0"], ["0", "1e-99999"]]}))
    out = run_cli_process("spectrum", str(path))
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert "below float64's range" in out.stderr and "rescale H" in out.stderr and "is zero" not in out.stderr


def test_a_float64_h_of_tiny_magnitude_is_within_the_digit_bound():
    """A decimal exponent is bits of the denominator: a dense H of 1000 rows near 1e-250 carries about 0.9 billion
    bits and is ordinary float64 input (the first bound, 400 million, refused it)."""
    import verify

    n = 1000
    H = (1e-250 * (np.eye(n) + 1e-3 * np.ones((n, n)))).tolist()
    assert verify.make_case(logits=[0] * n, H=H).n == n


def test_a_claim_file_whose_name_starts_with_a_bracket_is_read_as_a_file(tmp_path):
    import verify.api as api

    path = tmp_path / "[draft] c.toml"
    path.write_text('[[claim]]\nid = "x"\nholds = "z_max > 0"\n')
    assert [c.id for c in api.load_claims(str(path))] == ["x"]


@pytest.mark.parametrize("bound", ["1e999", "-1e999", "1.5e400"])
def test_a_toml_number_beyond_float64_is_refused_not_read_as_inf(bound):
    """n = [2, 1e999] read as [2, inf] (TOML's float overflows) and the claim was proved for every n; only the
    literal inf means an unbounded range."""
    import verify.api as api

    with pytest.raises(InputError, match="beyond float64's range; write inf"):
        api.load_claims(f'[[claim]]\nid = "x"\nholds = "z_max > 0"\nn = [2, {bound}]\n')
    assert api.load_claims('[[claim]]\nid = "x"\nholds = "z_max > 0"\nn = [2, inf]\n')[0].n_range[1] == float("inf")


def test_a_numpy_integer_is_a_whole_number_and_a_repeated_name_is_refused():
    """np.int64(2) was 'not a whole number' (its message then wrong for 10**18: it is one, only too large), and
    `derive D1 D1` ran D1 twice (an attack)."""
    import numpy as np

    from verify.base import options
    from verify.base.errors import InputError

    assert options.whole(np.int64(5), "n", 1, 10, "fix") == 5 and type(options.whole(np.int64(5), "n", 1, 10, "fix")) is int
    with pytest.raises(InputError, match="outside 1..100"):
        options.whole(np.int64(10**18), "samples", 1, 100, "give fewer")
    with pytest.raises(InputError, match="named twice"):
        options.known(["D1", "D1"], ["D1", "D2"], "derivation id")
