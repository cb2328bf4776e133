"""One documented precision range (issue 38 item 6): every public function and every command-line flag that
takes dps accepts verify.base.options.MIN_DPS to MAX_DPS and refuses anything else before any work, repeating
the value and naming the fix (on the command line, spelled as the flag)."""
import inspect

import pytest

import verify
from verify.base import options
from verify.base.errors import InputError
from verify.base.options import MAX_DPS, MIN_DPS
from verify.document.latex_export import Decision
from tests.conftest import run_cli

CASE = verify.make_case(logits=["0", "-3"], H=[[2, 0], [0, 3]])
CALLS = {  # each public function that takes dps, called with everything else valid
    "curvature_spectrum": lambda dps: verify.curvature_spectrum(CASE, dps=dps),
    "j_spectrum": lambda dps: verify.j_spectrum(CASE, dps=dps),
    "evaluate_claim": lambda dps: verify.evaluate_claim("T2.eq47.min", CASE, "tangent-exact", dps=dps),
    "evaluate_case": lambda dps: verify.evaluate_case(CASE, dps=dps, claim_ids=["T2.eq47.min"]),
    "decide_on_case": lambda dps: verify.decide_on_case("z_max >= z_min", CASE, dps=dps),
    "run_theorem2": lambda dps: verify.run_theorem2(samples=1, dps=dps, workers=1),
    "run_claims": lambda dps: verify.run_claims(verify.load_claims("examples/suite.toml"), samples=1, dps=dps, workers=1),
    "Decision": lambda dps: Decision(dps=dps).checked(),
}
CHEAP = ("curvature_spectrum", "j_spectrum", "evaluate_claim", "decide_on_case")  # accepted at the bounds quickly


def test_every_public_function_that_takes_dps_is_checked_here():
    taking = {name for name in verify.__all__ if callable(getattr(verify, name)) and not inspect.isclass(getattr(verify, name))
              and "dps" in inspect.signature(getattr(verify, name)).parameters}
    assert taking and taking <= set(CALLS), taking - set(CALLS)


@pytest.mark.parametrize("name", list(CALLS))
@pytest.mark.parametrize("value, words", [(MIN_DPS - 1, f"is below {MIN_DPS}"), (MAX_DPS + 1, f"is above {MAX_DPS}"),
                                          (1, f"is below {MIN_DPS}"), ("50", "is not a whole number")])
def test_outside_the_range_is_refused_with_the_value_and_the_fix(name, value, words):
    with pytest.raises(InputError) as refused:
        CALLS[name](value)
    message = str(refused.value)
    assert refused.value.parameter == "dps"
    assert message.startswith(f"dps = {value!r}" if isinstance(value, str) else f"dps = {value} ") and words in message
    assert "; use dps = " in message


@pytest.mark.parametrize("name", CHEAP)
def test_the_bounds_themselves_are_accepted(name):
    for value in (MIN_DPS, 60):
        assert CALLS[name](value) is not None


def test_the_check_is_the_one_range():
    assert options.dps(MIN_DPS) == MIN_DPS and options.dps(MAX_DPS) == MAX_DPS and options.dps(40.0) == 40
    with pytest.raises(InputError, match=f"is below {options.CERTIFY_DPS}, the least a certificate records"):
        options.dps(MIN_DPS, low=options.CERTIFY_DPS)


@pytest.mark.parametrize("argv", [["theorem2"], ["claims", "examples/suite.toml"], ["export-latex"],
                                  ["spectrum", "x.json"]])
@pytest.mark.parametrize("value, expected", [
    ("5", f"--dps 5 is below {MIN_DPS}, the least that can certify a margin; use --dps 50"),
    (str(MAX_DPS + 1), f"--dps {MAX_DPS + 1} is above {MAX_DPS}, the most digits the package works at; use --dps {MAX_DPS}"),
])
def test_each_dps_flag_repeats_the_value_and_names_the_fix_as_the_flag(tmp_path, argv, value, expected):
    folder = ["--out", str(tmp_path / "out")] if argv[0] != "spectrum" else []
    out = run_cli(*argv, "--dps", value, *folder)
    assert (out.returncode, out.stdout, out.stderr) == (2, "", f"verify: error: {expected}\n")
    assert not (tmp_path / "out").exists()
