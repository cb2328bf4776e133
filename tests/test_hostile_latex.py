"""No claim file can make the exported .tex read or write a file, or fail to compile: every string of the
user's reaches LaTeX by one rule (verify.document.usertext), as text, never as TeX; control characters are
refused when the file is loaded. The hostile fixture (tests/fixtures/hostile.toml: \\input, \\openout,
\\write18, {{{{, \\end{document}, \\verb, 5000 nested braces, "_{" * 3000 …) is exported under a hostile file
name and compiled with `pdflatex -halt-on-error -no-shell-escape -recorder`; the recorder's list says which
files TeX opened."""
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.test_derivations import needs_pdflatex
from verify.base.errors import InputError
from verify.claims.claimfile import load_claims, parse_claims_text
from verify.document import mathtext
from verify.document.latex_export import Decision, export
from verify.document.mathtext import NotTypeset
from verify.document.usertext import ESCAPED, user_text

HOSTILE = Path(__file__).resolve().parent / "fixtures" / "hostile.toml"
HOSTILE_NAME = "we_ird%{x}$#&~^[1].toml"  # the file name reaches the document too
DANGEROUS = ("input", "include", "openout", "openin", "write", "read", "immediate", "end", "verb", "def", "csname",
             "catcode", "endinput", "ShellEscape", "documentclass", "usepackage", "begin", "par", "item", "label")


def _allowed_commands():
    """Every command the rule may write: those of its own fixed tables."""
    tables = [ESCAPED, mathtext.TEXT, mathtext.GREEK, mathtext.SYMBOLS, mathtext.SUPERSCRIPTS, mathtext.SUBSCRIPTS]
    found = {command for table in tables for value in table.values() for command in re.findall(r"\\([A-Za-z]+)", value)}
    return found | {"ensuremath", "i"} | set("'`^\"~=.uvHrcdb")


ALLOWED = _allowed_commands()


def _commands(latex):
    return re.findall(r"\\([A-Za-z]+|.)", latex)


def _deepest_group(latex):
    depth = deepest = 0
    for token in re.finditer(r"\\.|[{}]", latex):
        if token.group() in "{}":
            depth += 1 if token.group() == "{" else -1
            assert depth >= 0, latex
            deepest = max(deepest, depth)
    assert depth == 0, latex
    return deepest


ALPHABET = st.sampled_from(list("\\{}$&%#^_~<>|[]@`'\"aZ09 ") + list("λμκ≤≥²ᵀₖ−·é—ﬁ＼｛") +
                           ["\\input{/etc/hostname}", "\\end{document}", "^^5c", "\\verb|", "\\\\"])


@given(st.lists(ALPHABET, max_size=40).map("".join))
def test_a_users_string_becomes_text_with_only_the_rules_own_commands(text):
    latex = user_text(text)
    assert set(_commands(latex)) - {"{", "}", "$", "&", "%", "#", "_"} <= ALLOWED
    assert not set(_commands(latex)) & set(DANGEROUS)
    assert _deepest_group(latex) <= 3  # the rule opens at most \ensuremath{^{…}}: a user's brace never nests


@pytest.mark.parametrize("text", ["{" * 5000 + "}" * 5000, "_{" * 3000, "\\" * 3000, "$" * 3000])
def test_deep_or_long_text_is_set_flat_without_recursion(text):
    latex = user_text(text)
    assert _deepest_group(latex) <= 1 and "\\input" not in latex


def test_a_character_with_no_form_is_refused_by_name():
    with pytest.raises(NotTypeset, match="U\\+0007"):
        user_text("bell \x07")
    with pytest.raises(NotTypeset, match="CHECK MARK"):
        user_text("done ✓")


@pytest.mark.parametrize("key, escape", [("statement", "\\u0007"), ("statement", "\\u001b[31m"),
                                         ("reason", "\\u0000"), ("statement", "\\u202e"), ("holds", "\\u0085")])
def test_control_characters_are_refused_when_the_file_is_loaded(key, escape):
    fields = {"statement": "fine", "reason": "fine", "holds": "n >= 2"}
    fields[key] = f"text {escape} here" if key != "holds" else f"n >= 2 {escape}"
    text = '[[claim]]\nid = "c"\n' + "".join(f'{k} = "{v}"\n' for k, v in fields.items())
    with pytest.raises(InputError) as error:
        parse_claims_text(text)
    message = str(error.value)
    assert "\n" not in message and key in message and "U+" in message


def test_a_lemmas_source_is_checked_as_its_statement_is():
    with pytest.raises(InputError, match="source holds U\\+0007"):
        parse_claims_text('[[lemma]]\nid = "l"\nholds = "n >= 2"\nsource = "a \\u0007"\n'
                          '[[claim]]\nid = "c"\nholds = "n >= 2"\n')


def test_the_fixture_holds_the_hostile_statements_of_issue_41():
    statements = " ".join(claim.statement for claim in load_claims(HOSTILE))
    for needle in ("\\input", "\\openout", "{{{{", "\\end{document}", "\\verb", "{" * 5000, "_{" * 3000, "\\write18"):
        assert needle in statements


@pytest.mark.slow
def test_the_hostile_fixture_exports_and_compiles_reading_and_writing_no_file(tmp_path):
    needs_pdflatex()
    source = tmp_path / HOSTILE_NAME
    shutil.copy(HOSTILE, source)
    out = tmp_path / "out"
    # rows=[]: the built-in claims' section is left empty (tests/test_latex_proofs.py compiles it); deciding them
    # again here cost 9 s of CPU and says nothing about the user's strings
    export(str(out), str(source), rows=[], decision=Decision(samples=8))
    before = set(p.name for p in out.iterdir())
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "-recorder",
                          "derivations.tex"], cwd=out, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:]
    assert (out / "derivations.pdf").stat().st_size > 10_000
    recorded = (out / "derivations.fls").read_text().splitlines()
    inputs = {line.split(" ", 1)[1] for line in recorded if line.startswith("INPUT ")}
    outputs = {line.split(" ", 1)[1] for line in recorded if line.startswith("OUTPUT ")}
    assert {Path(p).name for p in outputs} == {"derivations.aux", "derivations.log", "derivations.pdf"}, outputs
    local = {p for p in inputs if not p.startswith("/") or p.startswith(str(out))}
    assert {Path(p).name for p in local} <= {"derivations.tex", "derivations.aux"}, local
    foreign = [p for p in inputs - local if "texmf" not in p and "/tex/" not in p and "/fonts/" not in p]
    assert not foreign, foreign  # only TeX's own files: no /etc/hostname, /etc/passwd, …
    assert set(p.name for p in out.iterdir()) - before == {"derivations.aux", "derivations.log", "derivations.pdf",
                                                           "derivations.fls"}
    user = (out / "user-claims.tex").read_text()
    assert "we\\_ird\\%\\{x\\}\\$\\#\\&\\~{}\\^{}{[}1{]}.toml" in user  # the file name, as text
    assert "\\textbf{ASSUMED}" in user and "\\textbf{PROVED} assuming \\texttt{hostile.lemma\\_x}" in user


def test_ci_runs_the_compile_tests_of_the_hostile_fixture_and_of_every_example():
    """.ci/run installs pdflatex and runs the README's test command, whose default selection keeps `slow` tests."""
    root = Path(__file__).resolve().parent.parent
    ci = (root / ".ci" / "run").read_text()
    assert "texlive-latex-base" in ci and ci.rstrip().endswith("python -m pytest")
    readme = (root / "README.md").read_text()
    assert "&& python -m pytest\n" in readme
    addopts = next(line for line in (root / "pyproject.toml").read_text().splitlines() if line.startswith("addopts"))
    assert "not slow" not in addopts and "not soak" in addopts
    import tests.test_latex_proofs as proofs

    for test in (test_the_hostile_fixture_exports_and_compiles_reading_and_writing_no_file,
                 proofs.test_the_export_of_every_example_file_compiles):
        marks = {mark.name for mark in getattr(test, "pytestmark", [])}
        assert "slow" in marks and "soak" not in marks and "skip" not in marks
    compiles = proofs.test_the_export_of_every_example_file_compiles
    [names] = [mark.args[1] for mark in compiles.pytestmark if mark.name == "parametrize"]
    assert all(type(name) is str for name in names), names  # plain values: none with a mark of its own (soak, skip)
    assert sorted(names) == sorted(path.name for path in (root / "examples").glob("*.toml"))  # and every file


def test_a_long_user_string_is_set_in_lines_pdflatex_reads_and_loses_no_space():
    """10,000 backslashes (the most a statement holds) were once one source line of 160,000 characters, and 200,000
    more than pdflatex reads (an attack); each run of 200 characters now ends in a TeX comment and a line break, never
    before a space."""
    from verify.claims.claimfile import MAX_PROSE
    from verify.document.usertext import LINE_CHARACTERS, user_text

    text = user_text("\\" * MAX_PROSE)
    assert max(len(line) for line in text.split("\n")) < 4000 and text.replace("%\n", "") == "\\textbackslash{}" * MAX_PROSE
    spaced = "ab " * (2 * LINE_CHARACTERS)
    assert user_text(spaced).replace("%\n", "") == spaced
    assert all(not line.startswith(" ") for line in user_text(spaced).split("\n"))
