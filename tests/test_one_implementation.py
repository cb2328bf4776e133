"""Each numeric job has one implementation the others call (issue 38): the softmax, κ_J and the number
formatter. Each test compares the shared function's callers with an independent computation, or reads the
source for a second implementation of the job."""
import ast
from pathlib import Path

import mpmath as mp
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.derivations.records import softmax_mp
from verify.experiments.transformer.measure import attention_log_probs, row_measures
from verify.numerics import model
from verify.numerics.jspectrum import j_spectrum_report, kappa_J_of, log10_kappa_J_of
from verify.numerics.softmax import log_softmax, softmax

PACKAGE = Path(__file__).resolve().parent.parent / "verify"
rows = st.integers(2, 6).flatmap(lambda n: st.lists(st.lists(st.floats(-40, 40), min_size=n, max_size=n),
                                                    min_size=1, max_size=4))


def _reference(row):
    """σ of one row at 60 digits, written out independently."""
    with mp.workdps(60):
        e = [mp.exp(mp.mpf(v)) for v in row]
        return [float(v / mp.fsum(e)) for v in e]


@given(rows)
def test_the_softmax_of_a_batch_is_the_softmax_of_each_row(batch):
    got = softmax(np.array(batch))
    assert got.shape == (len(batch), len(batch[0]))
    for row, z in zip(batch, got):
        assert np.allclose(z, _reference(row), rtol=1e-13, atol=0)


def test_a_masked_logit_stays_out_and_huge_logits_do_not_overflow():
    logits = np.array([[0.0, -np.inf, -np.inf], [1e6, 1e6 - 1, -np.inf]])
    log_z = log_softmax(logits)
    assert log_z[0].tolist() == [0.0, -np.inf, -np.inf]
    assert np.allclose(np.exp(log_z[1, :2]), _reference([1, 0]), rtol=1e-14)
    assert np.array_equal(attention_log_probs(logits), log_z)


def test_the_model_and_the_derivations_call_the_one_softmax():
    rng = np.random.default_rng(3)
    problem, p = model.student_teacher(rng, 5, 4, 3)
    z, _ = model.attention(problem, p)
    assert np.array_equal(z, softmax(problem.K @ p))
    with mp.workdps(40):
        s = [mp.mpf(v) for v in (-3.5, 0.25, 700)]
        assert softmax_mp(s) == list(softmax(np.array(s, dtype=object)))


def _log10_kappa_J_dense(row):
    """κ_J from a 60-digit dense eigensolve of J(z): largest over smallest nonzero eigenvalue."""
    with mp.workdps(60):
        e = [mp.exp(mp.mpf(v)) for v in row]
        z = [v / mp.fsum(e) for v in e]
        J = mp.matrix([[z[i] * ((i == k) - z[k]) for k in range(len(z))] for i in range(len(z))])
        eig = sorted(mp.eigsy(J, eigvals_only=True))
        return float(mp.log10(eig[-1] / eig[1]))


@settings(max_examples=25)
@given(st.integers(2, 6).flatmap(lambda n: st.lists(st.floats(-30, 30), min_size=n, max_size=n, unique=True)))
def test_kappa_J_of_a_stack_against_a_dense_solve(row):
    got = log10_kappa_J_of(np.array([row, row[::-1]]))
    expected = _log10_kappa_J_dense(row)
    assert np.allclose(got, expected, rtol=0, atol=1e-10)


def test_kappa_J_beyond_float_range_and_in_the_spectrum_report_agree():
    row = [0.0, -5.0, -900.0]  # z_min ≈ e^-900: below float64's range, solved by the secular kernel
    beyond = float(log10_kappa_J_of(np.array([row]))[0])
    report = j_spectrum_report([mp.mpf(v) for v in row], dps=30)
    assert abs(beyond - float(mp.log10(report.kappa_J))) < 1e-12
    with mp.workdps(40):  # the report divides at its dps + 10
        assert report.kappa_J == kappa_J_of(report.eigenvalues)
    assert row_measures(row)["mp"] and abs(row_measures(row)["log10_kappa_J"] - beyond) < 1e-12


def _calls(name):
    """(module, line) of every call of an attribute or function `name` in the package."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                func = node.func
                called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                if called == name:
                    found.append((str(path.relative_to(PACKAGE)), node.lineno))
    return found


def test_numbers_are_formatted_by_precision_decimal_alone():
    assert _calls("nstr") and {module for module, _ in _calls("nstr")} == {"numerics/precision.py"}
    users = {module for module, _ in _calls("decimal")}
    assert {"document/latex_claims.py", "document/latex_proofs.py", "commandline/tables.py"} <= users


SOFTMAX_CALLERS = ("numerics/model.py", "derivations/records.py", "document/latex_proofs.py",
                   "experiments/transformer/measure.py")


def hand_written_softmaxes(source):
    """The functions of `source` that exponentiate, sum and then divide or take a log: a softmax written again."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef):
            called = {getattr(c.func, "attr", getattr(c.func, "id", None)) for c in ast.walk(node) if isinstance(c, ast.Call)}
            divides = any(isinstance(b, ast.BinOp) and isinstance(b.op, ast.Div) for b in ast.walk(node))
            if "exp" in called and called & {"sum", "fsum"} and (divides or "log" in called):
                found.append(node.name)
    return found


def test_softmax_and_kappa_J_are_written_once():
    for module in SOFTMAX_CALLERS:
        assert hand_written_softmaxes((PACKAGE / module).read_text()) == [], module
    assert hand_written_softmaxes((PACKAGE / "numerics/softmax.py").read_text())  # the detector sees the one softmax
    assert _calls("logsumexp") == []  # a second log-softmax
    assert "experiments/transformer/measure.py" not in {m for m, _ in _calls("eigvalsh")}  # a second κ_J
