"""Derivations D1–D6 and A2: every check passes, wrong formulas are caught by both kinds of check,
the exact zero test is exact, the checks run in worker processes with a progress report per check,
the terminal form fits 80 and 100 columns, and the committed LaTeX compiles with no warning, no overfull
box and vector fonts only (that it is what the tool writes, and its prose, are tests/test_latex_proofs.py's)."""
import io
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from tests.conftest import ROOT, run_cli
from tests.test_cli import assert_one_line_error
from verify.derivations import loss, softmax
from verify.derivations.exact import Exp, vanishes
from verify.derivations.records import SIGMA, jacobian_formula
from verify.derivations.registry import DERIVATION_REGISTRY, run_checks
from verify.derivations.run import run_derivations
from verify.document.latex_claims import ClaimRow, claims_section
from verify.document.latex_display import LINE_CHARACTERS, display, width
from verify.document.latex_export import PREAMBLE
from verify.document.latex_proofs import ProofRow, VerdictRow
from verify.document.mathtext import prose
from verify.commandline.tables import derivations_text
from verify.claims.verdicts.decide import verdict_of

SPEC_DERIVATIONS = ["D1", "D2", "D3", "D4", "D5", "D6"]


@pytest.mark.parametrize("derivation_id", SPEC_DERIVATIONS + ["A2"])
def test_every_check_passes_and_both_kinds_exist(derivation_id):
    derivation = DERIVATION_REGISTRY[derivation_id]
    checks = run_checks(derivation)
    assert {c.kind for c in checks} == {"symbolic", "numeric"}
    failed = [c for c in checks if not c.passed]
    assert not failed, failed


def wrong_jacobian(z):
    """diag(z) + z zᵀ: the sign of the outer product flipped."""
    n = len(z)
    return sp.Matrix(n, n, lambda i, k: z[i] * (int(i == k) + z[k]))


def wrong_hessian(z):
    """The closed form with the sign of its last term flipped."""
    n = len(z)
    d = lambda x, y: int(x == y)
    return [[[z[k] * ((d(k, a) - z[a]) * (d(k, b) - z[b]) + z[a] * (d(a, b) - z[b])) for b in range(n)]
             for a in range(n)] for k in range(n)]


def test_wrong_jacobian_caught_symbolically_and_numerically():
    assert not softmax.check_d1_explicit(wrong_jacobian, sizes=(2, 3))[0]
    assert not softmax.check_d1_numeric(wrong_jacobian, sizes=(5,))[0]
    assert not softmax.check_d1_general(lambda i, k: SIGMA[i] * (sp.KroneckerDelta(i, k) + SIGMA[k]))[0]


def test_wrong_hessian_caught_symbolically_and_numerically():
    assert not softmax.check_d2_explicit(wrong_hessian, sizes=(2, 3))[0]
    assert not softmax.check_d2_numeric(wrong_hessian, sizes=(4,))[0]
    d = sp.KroneckerDelta
    flipped = lambda i, a, b: SIGMA[i] * ((d(i, a) - SIGMA[a]) * (d(i, b) - SIGMA[b]) + SIGMA[a] * (d(a, b) - SIGMA[b]))
    assert not softmax.check_d2_general(flipped)[0]


def test_wrong_jacobian_breaks_eq16_both_ways():
    assert not loss.check_d4_symbolic(jac=wrong_jacobian, sizes=(2,))[0]
    passed, detail = loss.check_d4_numeric(jac=wrong_jacobian)
    assert not passed, detail  # the remainder then decays like η, not η³


def test_wrong_loss_hessian_caught():
    def without_residual(K, u, y, p, loss, z_of):
        """Gauss–Newton part only: wrong away from a zero-residual point."""
        N, d = len(K), len(p)
        total = sp.zeros(d, d)
        for i in range(N):
            z = z_of(i)
            J, Ki, ui = jacobian_formula(z), sp.Matrix(K[i]), sp.Matrix(u[i])
            total += Ki.T * J * ui * ui.T * J * Ki
        return total / N

    assert not loss.check_d3_symbolic("square", sizes=((2, 1, 2),), closed=without_residual)[0]
    assert not loss.check_d3_symbolic("logistic", sizes=((2, 1, 2),), closed=without_residual)[0]


# ---------------------------------------------------------------- the exact zero test

x, y = sp.symbols("x y")
POLYNOMIALS = st.lists(st.tuples(st.integers(-3, 3), st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=4).map(
    lambda terms: sum(c * x**i * y**j for c, i, j in terms)).filter(lambda p: p != 0)


@given(POLYNOMIALS, POLYNOMIALS, POLYNOMIALS)
def test_vanishes_decides_rational_identities_exactly(p, q, r):
    assert vanishes(p / q - (p * r) / (q * r))
    assert not vanishes(p / q - (p + 1) / q)
    assert not vanishes(p / (q * r) - p / (q * r + 1))


def test_vanishes_reads_exponentials_as_generators_and_falls_back_on_nested_fractions():
    a, b = sp.symbols("a b")
    softmax_a = Exp(a) / (Exp(a) + Exp(b))
    assert vanishes(sp.diff(softmax_a, a) - softmax_a * (1 - softmax_a))
    assert not vanishes(sp.diff(softmax_a, a) - softmax_a * (1 + softmax_a))
    assert vanishes(softmax_a - 1 / (1 + Exp(b) / Exp(a)))  # a fraction inside a denominator: sympy.cancel


# ---------------------------------------------------------------- running the checks


def test_checks_run_in_workers_report_each_check_and_match_one_process():
    chosen = [DERIVATION_REGISTRY["D5"], DERIVATION_REGISTRY["A2"]]
    calls = []
    parallel = run_derivations(chosen, lambda done, total, label: calls.append((done, total, label)), workers=2)
    serial = run_derivations(chosen, workers=1)
    total = sum(len(d.checks) for d in chosen)
    assert [done for done, _, _ in calls] == list(range(1, total + 1)) and {t for _, t, _ in calls} == {total}
    outcome = lambda results: [(d.id, [(c.kind, c.sizes, c.passed, c.detail) for c in checks]) for d, checks in results]
    assert outcome(parallel) == outcome(serial)
    assert [d.id for d, _ in parallel] == ["D5", "A2"]


@pytest.mark.parametrize("columns", [80, 100])
def test_terminal_form_fits_and_shows_no_latex(columns):
    fast = [(DERIVATION_REGISTRY[i], run_checks(DERIVATION_REGISTRY[i])) for i in ("D5", "A2")]
    art_only = [(DERIVATION_REGISTRY[i], ()) for i in ("D1", "D2", "D3", "D4", "D6")]  # the widest art: D2
    console = Console(width=columns, file=io.StringIO(), color_system=None)
    derivations_text(fast + art_only, console)
    shown = console.file.getvalue()
    assert max(len(line) for line in shown.splitlines()) <= columns
    assert not re.search(r"[\\$↪]|\^\{|_\{", shown), shown
    assert "A2 · Assumption 2 needs d ≥ nN (rank argument)" in shown and shown.count("passed") == 4


def test_derive_cli_text(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    out = run_cli("derive", "A2")
    assert out.returncode == 0, out.stderr
    assert "min_K ‖K Kᵀ − I‖₂ = 1" in out.stdout and out.stdout.count("passed") == 2
    assert max(len(line) for line in out.stdout.splitlines()) <= 80


# ---------------------------------------------------------------- the LaTeX document


def compile_latex(folder, name, passes=5):
    """pdflatex until its log stops asking for a rerun (at most `passes` runs): the last log."""
    for _ in range(passes):
        run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", name], cwd=folder,
                             capture_output=True, text=True, timeout=120, env={**os.environ, "max_print_line": "10000"})
        assert run.returncode == 0, run.stdout[-3000:]
        log = (Path(folder) / name).with_suffix(".log").read_text(errors="replace")
        if not re.search(r"Rerun to get|Rerun LaTeX", log):
            return log
    pytest.fail(f"references still unsettled after {passes} pdflatex runs")


def layout_problems(log):
    """Every warning (undefined references included), every overfull box and every bitmap font of a pdflatex log."""
    warnings = [line for line in log.splitlines() if re.search(r"warning|undefined", line, re.IGNORECASE)]
    overfull = [line for line in log.splitlines() if line.startswith(("Overfull \\hbox", "Overfull \\vbox"))]
    bitmaps = re.findall(r"[\w./-]+\.\d+pk\b", log)  # a font pdflatex had to render as pixels
    return warnings + overfull + bitmaps


def test_layout_problems_reads_a_log():
    log = ("Overfull \\hbox (0.3pt too wide) detected at line 229\nOverfull \\vbox (4.9pt too high) has occurred\n"
           "LaTeX Warning: Reference `sec:claims' on page 1 undefined on input line 17.\n"
           "Package amsmath Warning: Foreign command \\over\n</usr/share/fonts/ecrm1095.600pk>\n")
    lines = log.splitlines()
    assert layout_problems(log) == [lines[2], lines[3], lines[0], lines[1], "/usr/share/fonts/ecrm1095.600pk"]
    assert layout_problems("Underfull \\hbox (badness 10000)\n</usr/share/texmf/fonts/type1/public/lm/lmr10.pfb>") == []


def needs_pdflatex():
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed (Debian: texlive-latex-base texlive-latex-recommended; .ci/run installs them)")


def test_document_compiles_without_undefined_references_or_wide_lines(tmp_path):
    needs_pdflatex()
    for name in (Path(ROOT) / "derivations").glob("*.tex"):
        shutil.copy(name, tmp_path)
    log = compile_latex(tmp_path, "derivations.tex")
    assert not layout_problems(log), layout_problems(log)
    assert (tmp_path / "derivations.pdf").stat().st_size > 10_000


def test_claims_section_takes_plain_rows_with_a_short_proof(tmp_path):
    needs_pdflatex()
    proof = ProofRow(((r"j_{\min} \le j_{\max}", "F2", "rank-one modification of diag(z) (Golub 1973)", ""),
                      (r"\lambda_{\min} \le j_{\min}^2 L_T", "F7", "Courant–Fischer", "n = 2")),
                     (("n = 2", ("F2", "F7")), ("n ≥ 3", ("F2",))), "every n ≥ 2, for H symmetric positive definite")
    verdict = VerdictRow(None, verdict_of("proved"), r"\lambda_{\min} \le j_{\max}^2 L_T", proof)
    rows = [ClaimRow("F.demo", "λ_min ≤ j_max² L_T for every z, with L_T the largest eigenvalue of H on T.",
                     r"\lambda_{\min} \le j_{\max}^2 L_T", ("H symmetric positive definite", "n ≥ 2"), (), (verdict,),
                     "Facts"),
            ClaimRow("F.plain", "A claim without readings or verdict.", "1 \\le 2")]
    section = claims_section(rows)
    assert "\\textbf{PROVED}." in section and "\\textit{Proof.}" in section and "F7" in section
    assert "Golub 1973" in section and "\\item $n \\ge 3$: \\texttt{F2}" in section and "every $n \\ge 2$" in section
    assert "It has a single reading." in section and section.count("single reading") == 1
    (tmp_path / "rows.tex").write_text(PREAMBLE + section + "\\end{document}\n")
    log = compile_latex(tmp_path, "rows.tex")
    assert not layout_problems(log), layout_problems(log)


def test_a_long_display_is_broken_into_lines_that_fit():
    long = " + ".join(f"a_{{{k}}} b_{{{k}}}" for k in range(40)) + r" = \sum_k c_k"
    body = display(long)
    assert body.startswith("\\begin{multline*}")
    lines = body.split("\n")[1:-2]
    assert len(lines) > 1 and all(width(line.rstrip(" \\")) <= LINE_CHARACTERS for line in lines)
    assert display("a = b").startswith("\\begin{equation*}")


def test_prose_puts_formulas_in_math_and_leaves_words_as_text():
    assert prose("K Kᵀ = I_{nN} (d ≥ nN)") == r"$K K^{\top} = I_{nN}\ (d \ge nN)$"
    assert prose("so κ = max_i λ_max(B_i).") == r"so $\kappa = \max_{i} \lambda_{\max}(B_{i})$."
    assert prose("K ∈ R^{nN×d} real") == r"$K \in R^{nN\times d}$ real"
    assert prose("one example, all z_k > 0") == "one example, all $z_{k} > 0$"
    assert prose("λ_max ≥ a, λ_min ≤ b, n = 2, 3, 4") == r"$\lambda_{\max} \ge a$, $\lambda_{\min} \le b$, $n = 2, 3, 4$"
    assert prose("Assumption 2 (the rank argument) as in D1") == "Assumption 2 (the rank argument) as in D1"


def test_derive_cli_json():
    out = run_cli("derive", "D5", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    [entry] = data["derivations"]
    assert entry["id"] == "D5" and isinstance(entry["result_latex"], str) and "blockdiag" in entry["result_latex"]
    assert {c["kind"] for c in entry["checks"]} == {"symbolic", "numeric"} and all(c["passed"] for c in entry["checks"])


@pytest.mark.parametrize("args", [["derive", "D9"], ["derive", "D1", "nonsense"]])
def test_derive_bad_ids(args):
    assert_one_line_error(run_cli(*args))


def test_export_latex_bad_out(tmp_path):
    target = tmp_path / "a-file"
    target.write_text("x")
    assert_one_line_error(run_cli("export-latex", "--out", str(target)))
    assert_one_line_error(run_cli("export-latex", "--out", str(target / "below-a-file")))
    assert target.read_text() == "x"


def test_export_latex_refuses_claim_text_it_cannot_set(tmp_path):
    claims = tmp_path / "claims.toml"
    claims.write_text('[[claim]]\nid = "mine.sum"\nstatement = "λ stays small ✓"\nholds = "lambda_min <= mu_T * z_max**2"\n'
                      '[[claim]]\nid = "mine.cjk"\nstatement = "κ ≥ 1 — 証明 ✓"\nholds = "kappa >= 1"\n')
    out = run_cli("export-latex", "--out", str(tmp_path / "out"), "--claims", str(claims))
    assert_one_line_error(out)
    assert "'✓' (CHECK MARK) in claim mine.sum; '証' (CJK UNIFIED IDEOGRAPH-8A3C), '明' (CJK UNIFIED IDEOGRAPH-660E), " \
           "'✓' (CHECK MARK) in claim mine.cjk" in out.stderr  # every character at once, not one per run
    assert not (tmp_path / "out").exists()
