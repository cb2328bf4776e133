"""The project's documentation: docs/ builds with Sphinx with warnings as errors, its generated
reference tables cover every quantity, function, fact, claim, certificate key, command, option,
derivation and experiment the code offers, the API page documents all of `verify.__all__`, and no
file of the project points at a file outside the repository."""
import html
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TEXT_SUFFIXES = {".py", ".md", ".toml", ".tex", ".rst", ".txt"}
OUTSIDE = ("SPEC" + ".md", "paper" + "-reviews", "../" + "shared")  # split so this file does not match itself


@pytest.fixture(scope="module")
def site_dir(tmp_path_factory):
    """The folder of the HTML build of docs/ (once per module)."""
    pytest.importorskip("sphinx", reason="sphinx is not installed; pip install '.[docs]' (the test extra includes it)")
    pytest.importorskip("myst_parser", reason="myst-parser is not installed; pip install '.[docs]'")
    out = tmp_path_factory.mktemp("docs-html")
    build = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                            str(ROOT / "docs"), str(out)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert build.returncode == 0, f"sphinx-build failed:\n{build.stdout}\n{build.stderr}"
    return out


@pytest.fixture(scope="module")
def site(site_dir):
    """The HTML build of docs/: {page name: html text}."""
    return {page.stem: page.read_text(encoding="utf-8") for page in site_dir.glob("*.html")}


def table_text(page_html, kind):
    """The plain text of every cell of the generated table(s) of class verify-<kind>, as a list of rows."""
    tables = re.findall(rf'<table class="verify-{re.escape(kind)}[ "].*?</table>', page_html, re.S)
    assert tables, f"no verify-{kind} table on the page"
    rows = []
    for table in tables:
        for row in re.findall(r"<tr.*?</tr>", table, re.S):
            cells = re.findall(r"<t[dh].*?</t[dh]>", row, re.S)
            rows.append([" ".join(html.unescape(re.sub(r"<[^>]+>", " ", c)).split()) for c in cells])
    return rows


def first_column(page_html, kind):
    return [row[0] for row in table_text(page_html, kind)[1:]]


def test_the_docs_build_without_warnings(site):
    assert {"index", "spec", "language", "proofs", "certificates", "cli", "api", "derivations", "experiments",
            "assumption2"} <= set(site)


def test_the_html_loads_no_script_or_style_from_the_network(site_dir):
    """Read offline, every page renders its maths: each script and stylesheet is a file of the build."""
    pages = list(site_dir.glob("*.html"))
    assert pages
    maths = 0
    for page in pages:
        text = page.read_text(encoding="utf-8")
        sources = re.findall(r'<script[^>]*\ssrc="([^"]+)"', text)
        sources += re.findall(r'<link[^>]*rel="stylesheet"[^>]*href="([^"]+)"', text)
        sources += re.findall(r'<link[^>]*href="([^"]+)"[^>]*rel="stylesheet"', text)
        for source in sources:
            assert not re.match(r"(?i)([a-z]+:)?//", source), f"{page.name} loads {source} from the network"
            assert (site_dir / source.split("?")[0]).is_file(), f"{page.name} loads {source}, not in the build"
        maths += any("mathjax" in s.lower() for s in sources)
    assert maths, "no page loads MathJax: the maths would show as raw TeX"


def test_spec_keeps_its_section_numbers(site):
    for number in range(1, 7):
        assert f'id="spec-{number}"' in site["spec"]


def test_every_quantity_constant_and_function_is_listed(site):
    from verify.claims.language.quantities import CONSTANTS, FUNCTIONS, QUANTITIES

    listed = first_column(site["language"], "quantities")
    assert listed == [f"{q.name}(k)" if q.series else q.name for q in QUANTITIES]
    assert first_column(site["language"], "constants") == list(CONSTANTS)
    functions = table_text(site["language"], "functions")[1:]
    assert [row[0] for row in functions] == list(FUNCTIONS)
    for row, (low, high) in zip(functions, FUNCTIONS.values()):
        assert row[1] == (str(low) if low == high else f"{low} to {high}")


def test_every_claim_file_key_is_listed(site):
    from verify.claims.claimfile import KEYS

    assert first_column(site["language"], "claim-file-keys") == list(KEYS)


def test_every_fact_is_listed_with_its_text_and_source(site):
    from verify.claims.prover.facts import FACTS

    rows = table_text(site["proofs"], "facts")[1:]
    assert [row[0] for row in rows] == [fact.id for fact in FACTS]
    for row, fact in zip(rows, FACTS):
        assert row[1] == " ".join(fact.text.split()) and row[3] == " ".join(fact.source.split())
    assert table_text(site["spec"], "facts") == table_text(site["proofs"], "facts")


def test_every_claim_is_listed(site):
    from verify.claims.record import FormulaClaim
    from verify.claims.builtin.registry import CLAIMS

    formula = first_column(site["spec"], "formula-claims")
    checker = first_column(site["spec"], "checker-claims")
    assert formula == [c.id for c in CLAIMS if isinstance(c, FormulaClaim)]
    assert checker == [c.id for c in CLAIMS if not isinstance(c, FormulaClaim)]
    texts = [row[2] for row in table_text(site["spec"], "formula-claims")[1:]]
    assert texts == [c.text for c in CLAIMS if isinstance(c, FormulaClaim)]


def test_every_certificate_key_is_listed(site):
    from verify.claims.certificates.format import KEYS

    page = site["certificates"]
    assert first_column(page, "certificate-counterexample") == list(KEYS["counterexample"])
    assert first_column(page, "certificate-several-examples") == list(KEYS["several-examples"])
    assert first_column(page, "certificate-proof") == list(KEYS["proof"])


def test_every_command_and_option_is_listed(site):
    import argparse

    from verify.commandline.arguments import build_parser

    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert action.choices, "the parser has no sub-commands"
    for name, sub in action.choices.items():
        assert f'id="command-{name}"' in site["cli"], f"command {name} has no section"
        rows = {row[0]: row for row in table_text(site["cli"], f"options-{name}")[1:]}
        listed = " ".join(rows)
        for option in sub._actions:
            if isinstance(option, argparse._HelpAction):
                continue
            for spelling in option.option_strings or [option.metavar or option.dest]:
                assert spelling in listed, f"{name} {spelling} is not listed"
            row = next(r for cell, r in rows.items() if (option.option_strings or [option.metavar or option.dest])[0] in cell)
            if option.default is not None and option.default is not False and option.default != argparse.SUPPRESS:
                assert row[2] == str(option.default), f"{name} {row[0]}: default {row[2]!r}, the parser's {option.default!r}"


def test_every_derivation_and_experiment_is_listed(site):
    from verify.derivations.registry import DERIVATIONS
    from verify.experiments.synthetic import EXPERIMENTS

    assert first_column(site["derivations"], "derivations") == [d.id for d in DERIVATIONS]
    assert first_column(site["experiments"], "experiments") == list(EXPERIMENTS)


def test_the_api_page_documents_all_of_verify(site):
    import verify

    for name in verify.__all__:
        assert f'id="verify.{name}"' in site["api"], f"verify.{name} is not documented"
    for name in ("probability_vectors", "spd_matrices", "cases"):
        assert f'id="verify.strategies.{name}"' in site["api"]


def test_constants_in_prose_are_the_code_s(site):
    from verify.claims.language.parser import MAX_NODES, MAX_TEXT

    def shown(value):  # as the verify-const role writes it
        return f"{value:,}" if value >= 10_000 else str(value)

    rows = {row[0]: row[1] for row in table_text_plain(site["language"]) if len(row) == 2}
    assert rows["characters in a claim text"] == shown(MAX_TEXT)
    assert rows["syntax-tree nodes"] == shown(MAX_NODES)


def table_text_plain(page_html):
    """Rows of the hand-written tables of a page (those without a verify-* class)."""
    rows = []
    for table in re.findall(r'<table class="docutils.*?</table>', page_html, re.S):
        for row in re.findall(r"<tr.*?</tr>", table, re.S):
            cells = re.findall(r"<t[dh].*?</t[dh]>", row, re.S)
            rows.append([" ".join(html.unescape(re.sub(r"<[^>]+>", " ", c)).split()) for c in cells])
    return rows


SKIPPED = {"_build", "build", "dist", "__pycache__", "node_modules"}


def project_files(folder=ROOT):
    """The project's text files: every folder but .git and other hidden ones (a venv, caches) and build output."""
    for path in folder.iterdir():
        if path.is_dir():
            if not (path.name.startswith(".") or path.name in SKIPPED or path.name.endswith(".egg-info")):
                yield from project_files(path)
        elif path.suffix in TEXT_SUFFIXES:
            yield path


def test_no_file_refers_outside_the_repository():
    files = list(project_files())
    assert any(p.name == "README.md" for p in files) and any(p.suffix == ".py" for p in files)
    offending = [f"{path.relative_to(ROOT)}: {word}" for path in files
                 for word in OUTSIDE if word in path.read_text(encoding="utf-8", errors="replace")]
    assert not offending, "files refer to something outside the repository:\n" + "\n".join(offending)


def test_the_test_extra_installs_the_docs_extra():
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    names = {re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower() for requirement in extras["docs"]}
    assert {"sphinx", "myst-parser", "sphinx-mathjax-offline"} <= names
    assert set(extras["docs"]) <= set(extras["test"])


def test_ci_runs_the_readmes_test_command_which_builds_the_docs_with_warnings_as_errors():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = [line for line in readme.splitlines() if line.startswith("python3 -m venv .venv")]
    test_command = next(c for c in commands if "'.[test]'" in c)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test_command.replace("pip install", "pip install -q") in ci
    assert "python -m sphinx -W" in test_command and test_command.endswith("python -m pytest")


DOCS_BUILD = "python -m sphinx -W --keep-going -q -b html docs docs/_build/html"


def test_the_docs_build_command_is_written_one_way():
    """Every place that tells how to build docs/ gives the same command as CI runs."""
    places = [ROOT / "README.md", ROOT / "docs" / "index.md", ROOT / "docs" / "conf.py", ROOT / ".ci" / "run"]
    for place in places:
        commands = re.findall(r"python -m sphinx[^`&\n]*?html docs docs/_build/html", place.read_text(encoding="utf-8"))
        assert commands, f"{place.relative_to(ROOT)} does not say how to build the docs"
        assert set(commands) == {DOCS_BUILD}, f"{place.relative_to(ROOT)} builds the docs another way: {commands}"


def test_a_skipped_test_prints_its_reason(tmp_path):
    """Under the project's pytest settings a run names every skipped test and why (no silent 's')."""
    (tmp_path / "test_skipping.py").write_text('import pytest\n\n\ndef test_it():\n    pytest.skip("no frobnicator here")\n')
    run = subprocess.run([sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path),
                          "-p", "no:cacheprovider", str(tmp_path / "test_skipping.py")],
                         capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "SKIPPED" in run.stdout and "no frobnicator here" in run.stdout


def test_the_experiments_page_lists_every_preset_setting(site):
    import dataclasses

    from verify.experiments.common import FULL, QUICK
    from verify.experiments.transformer.study import FULL as T_FULL, QUICK as T_QUICK

    for kind, quick, full in (("synthetic", QUICK, FULL), ("transformer", T_QUICK, T_FULL)):
        rows = table_text(site["experiments"], f"presets-{kind}")
        assert rows[0] == ["setting", "--quick", "--full"]
        names = [f.name for f in dataclasses.fields(quick) if f.name != "name"]
        assert [row[0] for row in rows[1:]] == names
        for row, name in zip(rows[1:], names):
            if isinstance(getattr(quick, name), int):
                assert row[1:] == [str(getattr(quick, name)), str(getattr(full, name))]


def test_the_example_claim_files_count_is_the_files_own(site):
    from verify.claims.claimfile import load_claims

    count = len(load_claims(ROOT / "examples" / "claims.toml"))
    cli_text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", site["cli"])).split())
    assert f"examples/claims.toml ( {count} claims" in cli_text or f"examples/claims.toml ({count} claims" in cli_text
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert re.findall(r"examples/claims\.toml` \((\d+) claims\)", readme) == [str(count)]
