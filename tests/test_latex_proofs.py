"""The proofs `export-latex` prints: a claim PROVED under a reading shows every fact of its proof evidence,
each set by the claim language's printer, in a reading order that does not depend on the order the
solver names them; a claim the prover does not prove (REFUTED by the search) shows no proof; a claim
file's ranges read "every n ≥ 2"; and the document with a claim file's proofs compiles."""
import random
import re

import pytest

import verify
from tests.test_derivations import compile_latex, layout_problems, needs_pdflatex
from verify.claims.verdicts.decide import proof_evidence
from verify.claims.jobs import Job
from verify.claims.language.latex import claim_latex
from verify.claims.prover.facts import BY_ID
from verify.claims.prover.prove import prove
from verify.claims.builtin.registry import CLAIMS
from verify.latex_export import claims_section, display, export, registry_rows
from verify.latex_proofs import proved, reading_order

FORMULA_JOBS = [(claim, reading) for claim in CLAIMS if hasattr(claim, "reading_tree") for reading in claim.readings]


def escaped(name):
    return name.replace("_", r"\_")


def paragraph(section, claim_id):
    """One claim's part of a claims section: from its heading to the next claim's."""
    start = section.index(f"\\paragraph{{\\texttt{{{escaped(claim_id)}}}}}")
    end = section.find("\\paragraph{", start + 1)
    return section[start:end if end >= 0 else len(section)]


def proof_block(text, reading):
    """The proof under one reading (the only proof when reading is None) in a claim's paragraph, or None."""
    heading = f"\\textit{{Proof under reading \\texttt{{{reading}}}.}}" if reading else "\\textit{Proof.}"
    if heading not in text:
        return None
    start = text.index(heading)
    return text[start:text.index("\\hfill$\\square$", start)]


@pytest.fixture(scope="module")
def section():
    return claims_section(registry_rows())


@pytest.mark.parametrize("claim, reading", FORMULA_JOBS, ids=[f"{c.id}-{r}" for c, r in FORMULA_JOBS])
def test_a_proved_claim_shows_every_fact_of_its_proof_evidence_as_the_printer_sets_it(claim, reading, section):
    job = Job(claim, reading)
    evidence = proof_evidence(job, prove(job.tree, claim.n_range, claim.hessian))  # a run of its own
    block = proof_block(paragraph(section, claim.id), reading)
    if evidence.status != "proved":
        assert proved(claim, reading) is None and block is None
        return
    row = proved(claim, reading)
    assert sorted(fact for _, fact, _, _ in row.facts) == sorted(lemma["id"] for lemma in evidence.lemmas)
    for latex, fact, source, _ in row.facts:
        assert latex == claim_latex(BY_ID[fact].tree) and source == BY_ID[fact].source
        assert f"  & {latex} && \\text{{\\texttt{{{escaped(fact)}}}" in block
    for piece in evidence.pieces:  # each piece's facts are named where the domain is split
        assert set(piece["lemmas"]) <= {fact for _, fact, _, _ in row.facts}
    assert f"Both Z3 and cvc5 report the negation unsatisfiable on every $n \\ge {claim.n_range[0]}$" in block
    assert f"the claim is\n{display(claim_latex(job.tree))}" in block


def test_the_built_in_claims_include_proved_and_unproved_readings():
    statuses = {proved(claim, reading) is None for claim, reading in FORMULA_JOBS}
    assert statuses == {True, False}


@pytest.mark.parametrize("claim, reading", FORMULA_JOBS, ids=[f"{c.id}-{r}" for c, r in FORMULA_JOBS])
def test_the_reading_order_ignores_the_order_the_facts_come_in(claim, reading):
    row = proved(claim, reading)
    if row is None:
        return
    ordered = [fact for _, fact, _, _ in row.facts]
    tree = Job(claim, reading).tree
    shuffler = random.Random(0)
    for _ in range(10):
        shuffled = shuffler.sample(ordered, len(ordered))
        assert reading_order(shuffled, tree) == ordered
    # a reader meets the coefficients' facts before those about J H J, and κ's definition just before κ
    about_z = [i for i, fact in enumerate(ordered) if BY_ID[fact].names <= {"n", "z", "z_max", "z_min"}]
    about_lambda = [i for i, fact in enumerate(ordered) if any(name.startswith("lambda") for name in BY_ID[fact].names)]
    assert not about_z or not about_lambda or max(about_z) < min(about_lambda)
    if "F10.kappa" in ordered:
        assert ordered[-1] == "F10.kappa"


CLAIM_FILE = """
[[claim]]
id = "mine.min_every_n"
statement = "λ_min ≤ μ_T (max z)² for every n."
holds = "lambda_min <= mu_T * z_max**2"
n = [2, inf]

[[claim]]
id = "mine.swapped"
statement = "The swapped half: λ_max ≥ L_T (max z)²."
holds = "lambda_max >= L_T * z_max**2"
n = [3, 10]
"""


@pytest.fixture(scope="module")
def claim_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("claims") / "mine.toml"
    path.write_text(CLAIM_FILE)
    return path


def test_user_claims_show_a_proof_when_proved_and_none_when_refuted(claim_file, tmp_path):
    report = verify.run_claims(verify.load_claims(str(claim_file)), samples=20, workers=1)
    export(tmp_path, claim_file)
    text = (tmp_path / "user-claims.tex").read_text()
    verdicts = {result.id: result for result in report.claims}
    assert {result.verdict for result in report.claims} == {"PROVED", "REFUTED"}  # both kinds are exercised
    for claim_id, result in verdicts.items():
        block = proof_block(paragraph(text, claim_id), None)
        if result.verdict != "PROVED":
            assert block is None
            continue
        for lemma in result.evidence.proof.lemmas:
            assert f"\\texttt{{{escaped(lemma['id'])}}}" in block
            assert claim_latex(BY_ID[lemma["id"]].tree) in block


def test_user_claim_ranges_read_as_every_n(claim_file, tmp_path):
    export(tmp_path, claim_file)
    text = (tmp_path / "user-claims.tex").read_text()
    unbounded, bounded = paragraph(text, "mine.min_every_n"), paragraph(text, "mine.swapped")
    assert "Hypotheses: $n \\ge 2$; $H$ symmetric positive definite." in unbounded
    assert "on every $n \\ge 2$, for $H$ symmetric positive definite." in unbounded
    assert "Hypotheses: $3 \\le n \\le 10$" in bounded
    assert not re.search(r"inf\b", text)


def test_the_document_with_a_claim_files_proofs_compiles(claim_file, tmp_path):
    needs_pdflatex()
    export(tmp_path, claim_file)
    log = compile_latex(tmp_path, "derivations.tex")
    assert not layout_problems(log), layout_problems(log)
