"""The README's own examples run as written: every fenced Python block, in this process from the repository's
folder (so the built-in claims' proofs are shared with the other tests of tests/conftest.py's SHARED_DECISIONS), and
its Hypothesis example under pytest, in a fresh process on this checkout."""
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


def test_the_readmes_hypothesis_example_passes_under_pytest(tmp_path):
    block = next(block for block in python_blocks() if "@given" in block)
    (tmp_path / "test_readme_example.py").write_text(block, encoding="utf-8")
    (tmp_path / "conftest.py").write_text("from hypothesis import settings\n\n"  # a small budget, no flaky deadline
                                          "settings.register_profile('readme', max_examples=40, deadline=None, derandomize=True)\n"
                                          "settings.load_profile('readme')\n", encoding="utf-8")
    run = run_python(tmp_path / "test_readme_example.py", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                     "--rootdir", str(tmp_path), cwd=tmp_path)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-1000:]
    assert "1 passed" in run.stdout


