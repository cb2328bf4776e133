"""The verdicts `export-latex` prints are the decision's: every claim and reading shows the verdict its
ClaimResult holds, PROVED with every fact of its proof evidence (in a reading order that does not depend on
the order the solver names them), REFUTED with its certified counterexample, HOLDS with what was searched,
and nothing is decided again while the document is written. Prose in Unicode is typeset (words stay words),
the fonts are vector fonts with or without Latin Modern, and the document with the example claim file's
prose compiles with no warning and no overfull box. The committed derivations/ is what the tool writes now,
byte for byte (these tests share one decision of the built-in claims, computed once per process)."""
import copy
import dataclasses
import filecmp
import random
import re
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.test_derivations import SPEC_DERIVATIONS, compile_latex, layout_problems, needs_pdflatex
from verify.api import load_claims
from verify.claims.language.latex import claim_latex
from verify.claims.language.parser import parse_claim
from verify.claims.prover.facts import BY_ID, FACTS
from verify.claims.builtin.registry import REGISTRY
from verify.document.latex_claims import claims_section, proof_argument
from verify.derivations.registry import DERIVATIONS
from verify.document.latex_display import display
from verify.document.latex_export import PREAMBLE, Decision, export, registry_results, registry_rows, user_results, user_rows
from verify.document.latex_proofs import reading_order, verdict_row
from verify.claims.verdicts.decide import verdict_of
from verify.document.mathtext import NotTypeset, prose

EXAMPLES = f"{ROOT}/examples/claims.toml"
EXAMPLES_DECISION = Decision(samples=40)  # the example file's verdicts under a small search (the same both ways)


def escaped(name):
    return name.replace("_", r"\_")


def paragraph(section, claim_id):
    """One claim's part of a claims section: from its heading to the next claim's."""
    start = section.index(f"\\paragraph{{\\texttt{{{escaped(claim_id)}}}}}")
    end = section.find("\\paragraph{", start + 1)
    return section[start:end if end >= 0 else len(section)]


def verdict_block(text, result):
    """The part of a claim's paragraph that states one result's verdict, up to the next verdict."""
    reading = f" under reading \\texttt{{{result.reading}}}" if result.reading else ""
    start = text.index(f"\\noindent\\textbf{{{result.verdict.text}}}{reading}.")
    end = text.find("\\noindent\\textbf{", start + 1)
    return text[start:end if end >= 0 else len(text)]


@pytest.fixture(scope="module")
def results():
    return registry_results()


@pytest.fixture(scope="module")
def section(results):
    return claims_section(registry_rows(results))


def test_every_built_in_claim_shows_the_verdict_the_decision_gave_it(results, section):
    assert {r.id for r in results} == set(REGISTRY)
    for result in results:
        block = verdict_block(paragraph(section, result.id), result)
        assert ("\\textit{Proof.}" in block) == (result.verdict.text == "PROVED" and hasattr(result.evidence, "proof"))
        assert ("\\textit{Counterexample}" in block) == (getattr(result.evidence, "counterexample", None) is not None)
    assert {r.verdict.text for r in results} >= {"PROVED", "REFUTED", "HOLDS"}  # each kind is exercised


def test_a_proved_claim_shows_every_fact_of_its_proof_evidence(results, section):
    for result in (r for r in results if r.verdict.text == "PROVED" and hasattr(r.evidence, "proof")):
        block = verdict_block(paragraph(section, result.id), result)
        cited = [lemma["id"] for lemma in result.evidence.proof.lemmas]
        assert cited
        for fact in cited:
            assert f"  & {claim_latex(BY_ID[fact].tree)} && \\text{{\\texttt{{{escaped(fact)}}}" in block
        pieces = result.certificate_body["pieces"]
        if any(piece.get("algebra") for piece in pieces):  # an algebraic certificate is shown, checked exactly
            assert "exactly:" in block and "nonnegative" not in block  # why its terms are: once per document
        if not all(piece.get("algebra") for piece in pieces):
            assert "Z3 and cvc5 report the negation unsatisfiable" in block
        if result.reading:
            assert f"the claim is\n{display(result.latex)}" in block


def test_a_refuted_claim_shows_its_counterexample_with_both_sides_and_the_margin(results, section):
    refuted = [r for r in results if r.verdict.text == "REFUTED" and getattr(r.evidence, "counterexample", None)]
    assert refuted
    for result in refuted:
        found, block = result.evidence.counterexample, verdict_block(paragraph(section, result.id), result)
        assert f"($n = {found.n}$)" in block and "\\begin{pmatrix}" in block
        row = verdict_row(REGISTRY[result.id], result).counterexample
        assert f"left side is ${row.lhs}$ and its right side ${row.rhs}$" in block
        assert f"a margin of ${row.margin}$" in block and row.margin.startswith("-")
        for value, exact in zip((row.lhs, row.rhs, row.margin), (found.lhs, found.rhs, found.margin)):
            assert abs(float(value) - float(exact)) <= 1e-7 * max(1.0, abs(float(exact)))


def test_the_document_never_decides_a_claim_again(results, monkeypatch):
    def forbidden(*_):
        raise AssertionError("the export called the prover itself")

    monkeypatch.setattr("verify.claims.prover.prove.prove", forbidden)
    monkeypatch.setattr("verify.claims.verdicts.decide.run_jobs", forbidden)
    assert claims_section(registry_rows(results))


def test_a_contradiction_is_shown_as_one_and_never_with_a_proof(results):
    proved = next(r for r in results if r.verdict.text == "PROVED" and hasattr(r.evidence, "proof"))
    note = "CONTRADICTION: the claim was proved from the cited facts, yet this certified counterexample refutes it"
    clash = dataclasses.replace(proved, verdict=verdict_of("contradiction"), evidence=proved.evidence.with_(note=note))
    row = verdict_row(REGISTRY[proved.id], clash)
    assert row.verdict.text == "CONTRADICTION" and row.proof is None
    text = claims_section(registry_rows([clash]))
    assert "\\textbf{CONTRADICTION}" in text and "\\textit{Proof.}" not in text and "CONTRADICTION: the claim" in text


def test_a_claim_that_holds_shows_what_was_searched(tmp_path):
    claims = load_claims('[[claim]]\nid = "mine.holds"\nstatement = "κ ≥ e^{−n}."\nholds = "kappa >= exp(-n)"\n')
    [result] = user_results(claims, Decision(samples=12))
    assert result.verdict.text == "HOLDS"
    text = claims_section(user_rows(claims, [result]))
    evidence = result.evidence
    assert f"No proof was found. The search decided {evidence.samples} random cases and " \
           f"{evidence.adversarial_examples} Hypothesis examples" in text
    assert f"at $n = {evidence.worst_case_n}$" in text


def test_the_proof_shows_each_checked_identity_and_the_solvers_word_for_the_rest(results):
    assert proof_argument(None, "every n ≥ 2").startswith("Both Z3 and cvc5 report the negation unsatisfiable")
    kappa = next(r for r in results if r.id == "T2.eq47.kappa" and r.verdict.text == "PROVED")
    body = copy.deepcopy(kappa.certificate_body)
    assert all(piece["algebra"] for piece in body["pieces"])
    text = proof_argument(body, "every n ≥ 2")
    assert text.count("exactly:") == len(body["pieces"]) and "Z3" not in text
    identity = body["pieces"][-1]["algebra"]["identities"][-1]["terms"][0]
    identity["coefficient"] = str(Fraction(identity["coefficient"]) + 1)  # an identity that no longer holds
    text = proof_argument(body, "every n ≥ 2")
    assert text.count("exactly:") == len(body["pieces"]) - 1
    last = body["pieces"][-1]["n"]
    where = prose(f"n ≥ {last[0]}" if isinstance(last, list) else f"n = {last}")
    assert f"On {where} no identity was found: there, only the solvers stand behind the proof (both Z3 and cvc5 " \
           "report the negation unsatisfiable)." in text


@pytest.mark.parametrize("row", [r for r in ("T2.eq47.max", "T2.eq47.kappa", "T2.interlace")])
def test_the_reading_order_ignores_the_order_the_facts_come_in(results, row):
    for result in (r for r in results if r.id == row and r.verdict.text == "PROVED"):
        claim = REGISTRY[result.id]
        ordered = [fact for _, fact, _, _ in verdict_row(claim, result).proof.facts]
        tree = claim.reading_tree(result.reading)
        shuffler = random.Random(0)
        for _ in range(10):
            assert reading_order(shuffler.sample(ordered, len(ordered)), tree) == ordered
        about_z = [i for i, f in enumerate(ordered) if BY_ID[f].names <= {"n", "z", "z_max", "z_min"}]
        about_lambda = [i for i, f in enumerate(ordered) if any(name.startswith("lambda") for name in BY_ID[f].names)]
        assert not about_z or not about_lambda or max(about_z) < min(about_lambda)
        if "F10.kappa" in ordered:
            assert ordered[-1] == "F10.kappa"


# ---------------------------------------------------------------- prose


def test_unicode_prose_is_typeset_and_words_stay_words():
    assert prose("H ≽ 0 — so μ ≤ L") == r"$H \succeq 0$ --- so $\mu \le L$"
    assert prose("I think λ_max ≥ L (min z)²") == r"I think $\lambda_{\max} \ge L (\min z)^{2}$"
    assert prose("Since x > 0, I claim H = I.") == r"Since $x > 0$, I claim $H = I$."
    assert prose("I ≼ H") == r"$I \preceq H$"
    assert prose("H = aI + b11ᵀ, a > 0, a + nb > 0") == r"$H = aI + b11^{\top}$, $a > 0$, $a + nb > 0$"
    assert prose("so we go on, as in it") == "so we go on, as in it"
    assert prose("Poincaré’s “naïve” bound…") == "Poincar\\'{e}'s ``na\\\"{\\i}ve'' bound\\ldots{}"
    assert prose("μ-strongly convex, log–log slope") == r"$\mu$-strongly convex, log--log slope"
    assert prose("ﬁne ω ∈ ℝⁿ, A ⊆ B ∪ C") == r"fine $\omega \in \mathbb{R}^{n}$, $A \subseteq B \cup C$"


def test_a_character_with_no_latex_form_is_named_in_one_line():
    with pytest.raises(NotTypeset, match=r"no LaTeX for '✓' \(CHECK MARK\)"):
        prose("✓ done")


@pytest.mark.parametrize("fonts", ["lmodern.sty", "no-such-font-package.sty"], ids=["latin-modern", "fallback"])
def test_every_common_character_compiles(tmp_path, fonts):
    needs_pdflatex()
    from verify.document.mathtext import ACCENTS, GREEK, SUBSCRIPTS, SUPERSCRIPTS, SYMBOLS, TEXT

    letters = "éèêëàâäáãåçñóòôöõúùûüíìîïýÿčšžřěőűłøßæœÉÈÀÇÑÖÜŁØÆŒ"
    sentences = [f"Words {letters} and punctuation {''.join(c for c in TEXT if not c.isascii())}.",
                 *(f"and then x {c} y." for c in list(GREEK) + list(SYMBOLS) if not c.isascii()),
                 "Scripts x" + "".join(SUPERSCRIPTS) + " and y" + "".join(SUBSCRIPTS) + "."]
    assert all(mark in ACCENTS for mark in "\u0301\u0300\u0302\u0308\u030c")
    body = "".join(f"{prose(sentence)}\n\n" for sentence in sentences)
    (tmp_path / "chars.tex").write_text(PREAMBLE.replace("lmodern.sty", fonts, 1) + body + "\\end{document}\n")
    log = compile_latex(tmp_path, "chars.tex")
    assert not layout_problems(log), layout_problems(log)


# ---------------------------------------------------------------- the document


@pytest.fixture(scope="module")
def examples_document(tmp_path_factory, results):
    out = tmp_path_factory.mktemp("examples")
    export(out, EXAMPLES, rows=registry_rows(results), decision=EXAMPLES_DECISION)
    return out


@pytest.mark.slow
def test_the_example_claim_files_verdicts_are_those_of_the_claims_command(examples_document):
    text = (examples_document / "user-claims.tex").read_text()
    for result in user_results(load_claims(EXAMPLES), EXAMPLES_DECISION):
        verdict_block(paragraph(text, result.id), result)  # present, with its verdict
    assert "\\textbf{REFUTED}" in text and "\\textit{Counterexample}" in text and "\\textbf{PROVED}" in text


@pytest.mark.slow
def test_the_document_with_the_example_claim_files_prose_compiles_cleanly(examples_document):
    needs_pdflatex()
    log = compile_latex(examples_document, "derivations.tex")
    assert not layout_problems(log), layout_problems(log)
    if subprocess.run(["kpsewhich", "lmodern.sty"], capture_output=True).returncode == 0:
        assert re.search(r"lm/lm\w+\.pfb", log)  # Latin Modern where it is installed


@pytest.mark.slow
def test_without_latin_modern_the_fonts_are_still_vector_fonts(examples_document, tmp_path):
    needs_pdflatex()
    text = (examples_document / "derivations.tex").read_text()
    (tmp_path / "derivations.tex").write_text(text.replace("lmodern.sty", "no-such-font-package.sty", 1))
    log = compile_latex(tmp_path, "derivations.tex")
    assert not layout_problems(log), layout_problems(log)
    assert re.search(r"\.pfb", log) and not re.search(r"lm/lm\w+\.pfb", log)


def test_a_claim_the_facts_refute_everywhere_shows_that_proof_and_its_counterexample():
    claims = load_claims('[[claim]]\nid = "mine.never"\nholds = "z_max < z_min"\n')
    [result] = user_results(claims, Decision(samples=12))
    assert result.verdict.text == "REFUTED" and result.evidence.proof.status == "disproved"
    text = claims_section(user_rows(claims, [result]))
    assert "The claim fails for every case of its domain: its negation follows from these facts" in text
    assert "Both Z3 and cvc5 report the claim unsatisfiable" in text and "\\textit{Counterexample}" in text


def test_ctrl_c_during_the_decision_writes_nothing(tmp_path, monkeypatch):
    from verify.claims.results import Report

    monkeypatch.setattr("verify.claims.verdicts.decide.run_claims", lambda *_, **__: Report(0, 50, 1, (), 0.0, interrupted=True))
    claim_file = tmp_path / "mine.toml"
    claim_file.write_text('[[claim]]\nid = "mine"\nholds = "z_max >= z_min"\n')
    with pytest.raises(KeyboardInterrupt):
        export(tmp_path / "out", claim_file)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("decision, named", [(Decision(samples=0), "samples"), (Decision(dps=5), "dps"),
                                             (Decision(seed=-1), "seed"), ("fast", "decision")])
def test_the_export_checks_its_decisions_settings_before_any_work(tmp_path, decision, named):
    from verify.base.errors import InputError

    with pytest.raises(InputError) as error:
        export(tmp_path / "out", decision=decision)
    assert error.value.parameter == named and not (tmp_path / "out").exists()


@pytest.mark.parametrize("n, digits", [(2, 1), (4, 3), (8, 12), (12, 0)])  # 12: more columns than pmatrix holds
def test_a_counterexample_of_any_size_fits_the_page(tmp_path, n, digits):
    needs_pdflatex()
    from verify.claims.language.latex import claim_latex as latex
    from verify.document.latex_claims import ClaimRow
    from verify.document.latex_proofs import CounterexampleRow, VerdictRow

    entry = lambda i, j: "-" * ((i + j) % 2) + "0." + str(i * 7 + j + 1) * digits  # noqa: E731
    claim = latex(parse_claim("lambda_max >= L * z_min**2"))
    found = CounterexampleRow(n, "logits", tuple(entry(i, 0) for i in range(n)), ("0.1",) * n,
                              tuple(tuple(entry(i, j) for j in range(n)) for i in range(n)), (), claim, "0.375", "0.5",
                              "-0.28768207")
    text = claims_section([ClaimRow("demo", "A claim.", claim, verdicts=(VerdictRow(None, verdict_of("fails", certified=True), claim, None, found),))])
    assert ("\\begin{pmatrix}" in text) == (n < 8) and "\\textit{Counterexample}" in text
    (tmp_path / "demo.tex").write_text(PREAMBLE + text + "\\end{document}\n")
    log = compile_latex(tmp_path, "demo.tex")
    assert not layout_problems(log), layout_problems(log)


# ---------------------------------------------------------------- the committed document (derivations/)


def all_prose():
    texts = [t for d in DERIVATIONS for t in (d.name, d.verified_by, *d.hypotheses, *(s.text for s in d.steps()))]
    proofs = [t for row in registry_rows(registry_results()) for verdict in row.verdicts if verdict.proof
              for t in (verdict.proof.domain, *(where for where, _ in verdict.proof.pieces),
                        *(f[2] for f in verdict.proof.facts))]
    proofs += [t for row in registry_rows(registry_results()) for verdict in row.verdicts for t in (verdict.searched, verdict.note) if t]
    return texts + [t for row in registry_rows(registry_results()) for t in (row.statement, *row.hypotheses)] + proofs + \
        [fact.source for fact in FACTS]


def test_prose_shows_no_raw_markup():
    for value in all_prose():
        latex = prose(value)
        assert latex.count("$") % 2 == 0, latex
        text = re.sub(r"\$[^$]*\$", "", latex)
        assert not re.search(r"\\_|\\\^|\\\{|\\\}|[_^]", text), (value, latex)


def test_committed_latex_is_what_the_tool_writes(tmp_path):
    export(tmp_path)
    committed = Path(ROOT) / "derivations"
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == sorted(p.name for p in committed.glob("*.tex")), "derivations/ is stale: run `python -m verify export-latex`"
    _, mismatch, errors = filecmp.cmpfiles(committed, tmp_path, written, shallow=False)
    assert not mismatch and not errors, f"stale files in derivations/: {mismatch}; run `python -m verify export-latex`"


def test_export_is_byte_identical_run_to_run(tmp_path):
    export(tmp_path / "a")
    export(tmp_path / "b")
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert filecmp.cmpfiles(tmp_path / "a", tmp_path / "b", names, shallow=False)[0] == names


def test_document_reads_as_a_document():
    text = (Path(ROOT) / "derivations" / "derivations.tex").read_text()
    for marker in ("\\section{Derivations}", "\\section{Claims checked}", "\\paragraph{Hypotheses.}",
                   "\\paragraph{Result.}", "\\paragraph{Verification.}"):
        assert marker in text
    for derivation_id in SPEC_DERIVATIONS:
        assert f"\\label{{sec:{derivation_id}}}" in text
    for row in registry_rows(registry_results()):
        assert f"\\texttt{{{row.id}}}" in text
    assert "Readings: one reading" not in text and "\\ref{" not in text  # one pdflatex pass resolves everything


def test_the_algebraic_certificates_are_explained_once_per_document():
    from verify.document.latex_claims import ALGEBRAIC_CERTIFICATES

    text = (Path(ROOT) / "derivations" / "derivations.tex").read_text()
    assert text.count(ALGEBRAIC_CERTIFICATES) == 1 and text.count("nonnegative rational") == 1
    assert text.count("exactly:") >= 5  # and the proofs show their own steps


LEMMAS = f"{ROOT}/examples/lemmas.toml"


@pytest.fixture(scope="module")
def lemmas_section(lemmas_example_run):  # the example decided with seed 0 and 20 samples, once per process (conftest)
    from verify.document.usertext import user_text

    claims = load_claims(LEMMAS)
    results = lemmas_example_run.claims
    return claims_section(user_rows(claims, results)), {c.id: c for c in claims}, {r.id: r for r in results}, user_text


def test_a_claim_proved_from_lemmas_shows_its_proof_and_each_lemma_with_its_verdict(lemmas_section):
    text, claims, results, _ = lemmas_section
    chain = paragraph(text, "uses.chain")
    assert results["uses.chain"].verdict.text == "PROVED" and "\\textit{Proof.}" in chain
    cited = [lemma["id"] for lemma in results["uses.chain"].evidence.proof.lemmas if lemma["id"] in claims]
    assert cited
    for lemma_id in cited:
        assert f"\\texttt{{{escaped(lemma_id)}}} (\\textbf{{{results[lemma_id].verdict.text}}})" in chain
        assert f"  & {claims[lemma_id].latex} && \\text{{\\texttt{{{escaped(lemma_id)}}}" in chain


def test_an_assumed_lemma_is_marked_as_an_assumption_with_its_source(lemmas_section):
    text, claims, results, user_text = lemmas_section
    resting = paragraph(text, "uses.assumption")
    assert results["uses.assumption"].verdict.text == "PROVED assuming assumed.trace7"
    assert "\\textbf{PROVED} assuming \\texttt{assumed.trace7}" in resting and "\\textit{Proof.}" in resting
    assert "No proof was found" not in resting
    source = user_text(claims["assumed.trace7"].source)
    assert (f"It rests on the assumption \\texttt{{assumed.trace7}} (\\textbf{{ASSUMED}}: taken as given, not proved; "
            f"source: {source})") in resting
    lemma = paragraph(text, "assumed.trace7")
    assert "\\textbf{ASSUMED}" in lemma and "\\textbf{HOLDS}" not in lemma and f"Source: {source}." in lemma


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(p.name for p in (Path(ROOT) / "examples").glob("*.toml")))
def test_the_export_of_every_example_file_compiles(tmp_path, name, results):
    needs_pdflatex()
    export(tmp_path, f"{ROOT}/examples/{name}", rows=registry_rows(results), decision=EXAMPLES_DECISION)
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape",
                          "derivations.tex"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:]
    assert (tmp_path / "derivations.pdf").stat().st_size > 10_000
