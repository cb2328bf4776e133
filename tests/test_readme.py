"""The README's own examples run as written: every fenced Python block, in this process from the repository's
folder (so the built-in claims' proofs are shared with the other tests of tests/conftest.py's SHARED_DECISIONS), and
its Hypothesis example (and docs/api.md's) under pytest with Hypothesis's default settings, in a fresh process on
this checkout."""
import os
import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT

README = os.path.join(ROOT, "README.md")


def python_blocks():
    with open(README, encoding="utf-8") as handle:
        return re.findall(r"^```python\n(.*?)^```", handle.read(), re.S | re.M)


def run_python(path, *args, cwd=ROOT, timeout=600):
    environment = dict(os.environ, PYTHONPATH=ROOT)  # this checkout, not an installed copy
    return subprocess.run([sys.executable, *args, str(path)], capture_output=True, text=True, cwd=cwd,
                          env=environment, timeout=timeout)


def test_the_readme_has_its_examples():
    blocks = python_blocks()
    assert len(blocks) >= 2 and any("@given" in block for block in blocks)


@pytest.mark.parametrize("index", range(len(python_blocks())))
def test_every_python_block_of_the_readme_runs_as_written(monkeypatch, index):
    """Run from the repository's folder, as the README's relative paths (examples/claims.toml) expect, as a module
    of its own."""
    monkeypatch.chdir(ROOT)
    block = compile(python_blocks()[index], f"README.md, Python block {index}", "exec")
    exec(block, {"__name__": f"readme_block_{index}"})


def hypothesis_examples():
    """The Hypothesis example of the README and of docs/api.md, as written."""
    with open(os.path.join(ROOT, "docs", "api.md"), encoding="utf-8") as handle:
        api = re.findall(r"^```python\n(.*?)^```", handle.read(), re.S | re.M)
    return [next(b for b in python_blocks() if "@given" in b), next(b for b in api if "@given" in b)]


@pytest.mark.parametrize("where", ["README.md", "docs/api.md"])
def test_the_hypothesis_examples_pass_under_pytest_with_hypothesis_default_settings(tmp_path, where):
    """As a user runs them: copied into a fresh folder with no conftest and no profile, so Hypothesis's defaults
    apply (100 examples, the 200 ms deadline); a slow first call or a tie left undecided fails this test."""
    block = hypothesis_examples()[["README.md", "docs/api.md"].index(where)]
    assert "deadline" not in block and "settings" not in block
    (tmp_path / "test_readme_example.py").write_text(block, encoding="utf-8")
    run = run_python(tmp_path / "test_readme_example.py", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                     "-p", "no:randomly", "--rootdir", str(tmp_path), cwd=tmp_path)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-1000:]
    assert "1 passed" in run.stdout
