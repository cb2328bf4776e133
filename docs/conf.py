"""Sphinx configuration of the project's own documentation.

Build it with `python -m sphinx -W --keep-going -q -b html docs docs/_build/html` (warnings are errors;
tests/test_docs.py builds it the same way). The reference tables (quantities, functions, facts,
claims, certificate keys, commands and options, derivations, experiments) are generated at build
time from the package's own registries by the local extension `_ext/verify_docs.py`, so they cannot
drift from the code.
"""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(HERE.parent))  # the package of this checkout, not an installed copy

project = "verify"
author = "the verify developers"
copyright = "the verify developers"
release = version = __import__("verify").__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # MathJax from the package, copied into _static: the pages need no network
    "verify_docs",
]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

default_role = "literal"  # docstrings write `code` in single backticks
autodoc_member_order = "bysource"
autodoc_typehints = "none"
autodoc_default_options = {"undoc-members": False}
napoleon_google_docstring = True
napoleon_numpy_docstring = True

html_theme = "alabaster"
html_title = "verify — documentation"
html_theme_options = {"page_width": "1100px", "sidebar_width": "230px", "fixed_sidebar": False}
html_static_path = []
suppress_warnings = []
smartquotes = False  # the pages quote code and the facts' sources verbatim
