"""A Sphinx extension that builds the reference tables from the package's own registries.

Directives (each a table, or for the command line one section per command):
- ``verify-quantities``, ``verify-constants``, ``verify-functions``: the claim language's names
  (verify.claims.language.quantities);
- ``verify-facts``: the fact library a proof may cite (verify.claims.prover.facts);
- ``verify-claims``: the built-in claims (verify.claims.builtin.registry);
- ``verify-certificate-keys KIND``: the keys of a certificate kind, as `check` validates them;
- ``verify-claim-file-keys``: the keys of a ``[[claim]]`` table (verify.claims.claimfile);
- ``verify-cli``: every command and option of verify.commandline.arguments.build_parser;
- ``verify-derivations``, ``verify-experiments``: the two registries of those names;
- ``verify-presets synthetic`` or ``verify-presets transformer``: every setting of the quick and full presets.

Role ``{verify-const}`module.NAME``` prints a module constant's value (a bound, a default);
role ``{verify-claim-count}`FILE.toml``` the number of claims a claim file of the repository states.

Prose the code does not hold (what a function or a certificate key means) lives in the tables
below; a name the code has and this file does not describe stops the build, so the pages list
everything the code offers.
"""
import argparse
import importlib
import math
import re
from pathlib import Path

from docutils import nodes
from sphinx.errors import ExtensionError
from sphinx.util.docutils import SphinxDirective, SphinxRole

FUNCTION_TEXT = {
    "sqrt": "square root; undefined (the claim fails) for a negative argument",
    "log": "natural logarithm; undefined for an argument ≤ 0",
    "exp": "exponential",
    "abs": "absolute value",
    "min": "the least of its arguments",
    "max": "the greatest of its arguments",
}
CONSTANT_TEXT = {"pi": "π", "e": "Euler's number e = exp(1)"}

CERTIFICATE_KEYS = {
    "format": "the file format's version tag; another value is refused",
    "kind": "counterexample, several-examples or proof",
    "claim": "the claim's id (built-in, or a user claim's)",
    "reading": "tangent-exact, ambient-bounds, or null (a claim without a reading, every user claim)",
    "statement": "the claim's text in the claim language under its reading (L, mu read as L_T, mu_T "
                 "under tangent-exact)",
    "domain": "{\"n\": [lo, hi or null for ∞], \"hessian\": family, \"reading\": reading}",
    "sha256": "SHA-256 of the id, the statement and the domain: an edit of any of them is refused",
    "inputs": "the example: a case file (counterexample; a disproof's case in its domain, else null for a "
              "proof); for T2.multi the examples, the integer key generator and rows = nN",
    "binding": "{\"comparison\", \"lhs\", \"rhs\"}: the comparison that sets the margin, and its two sides "
               "as decimals at dps digits (±exp(…) beyond a ball's reach, or \"undefined\")",
    "margin": "the claim's margin at the inputs (< 0: it fails); for T2.multi, dense/blocks − 1",
    "dps": "the digits the sides are written to (50 to 1000)",
    "bits": "the Arb precision (bits) at which the balls decided the failure",
    "verdict": "proved, or disproved (the facts imply the claim's negation on its whole domain)",
    "lemmas": "the cited facts, each {id, text, source}: they must be the library's, word for word",
    "pieces": "one record per piece of the n range and part (conjunct) of the claim: n (an int, or [lo, hi]), "
              "part, the lemmas it cites, its SMT-LIB2 query, and its algebraic certificate (or null): substitutions, "
              "positivity lemmas and one identity per comparison, checked exactly over QQ (see the proofs page)",
    "solvers": "the versions of Z3 and cvc5 that answered unsat",
    "inequality": "the identity T2.multi states, as text",
    "lhs": "κ of KᵀMK on its range (the dense side), decimal at dps digits",
    "rhs": "max_i λ_max(B_i) / min_i λ_min(B_i) (the block formula), decimal at dps digits",
}

CLAIM_FILE_KEYS = {
    "id": ("required", "1 to 100 letters, digits, '.', '_' or '-', not starting with '.'; not a built-in id"),
    "statement": ("optional", "prose: what the claim says"),
    "holds": ("required", "the claim, in the claim language: when it is true"),
    "n": ("optional", "[lo, hi], the token counts the claim speaks of; hi may be inf (default [2, 10])"),
    "hessian": ("optional", "the family of H: spd (default), isotropic or diagonal"),
    "expect": ("optional", "\"true\" or \"false\": what you expect; a verdict against it (REFUTED when true was expected, PROVED or HOLDS when false was) is marked ≠ expect in the table, with a line under it naming the claims, and in --json by disagrees_with_expect on the claim and disagree_with_expect on the report"),
    "reason": ("optional", "prose: why (a proof sketch, a counterexample)"),
}

EXPERIMENT_TEXT = {
    "optimizers": "GD (best fixed step of a grid) vs Adam vs normalized GD, softmax vs linear attention, swept over "
                  "sparsity, n and d",
    "conditioning": "R = max_i z_max/z_min and κ of the Gauss–Newton p-Hessian along training",
    "estimation": "training loss beside test loss and ‖p_t − p*‖ (d < nN, N = 8d noisy examples)",
    "sparse-target": "a one-hot target attention: ‖p_t‖ fitted against log t",
    "losses": "square vs logistic loss, with the logistic loss's floor when the decoder is fixed",
    "joint": "the prompt trained alone vs the decoder and prompt trained jointly",
    "regimes": "over- (d ≥ nN) vs under-parameterized (d < nN) prompt, with κ at the teacher",
}


# ---------------------------------------------------------------- building blocks


def cell(content):
    """A table cell's paragraph: text, a node, or a list of both."""
    parts = content if isinstance(content, list) else [content]
    paragraph = nodes.paragraph()
    for part in parts:
        paragraph += nodes.Text(part) if isinstance(part, str) else part
    entry = nodes.entry()
    entry += paragraph
    return entry


def code(text):
    return nodes.literal(text, text)


def math_node(latex):
    return nodes.math(latex, latex)


def table(kind, headers, rows):
    """A table of class `verify-<kind>` (the tests find it by that class), its widths left to the browser."""
    group = nodes.tgroup(cols=len(headers))
    for _ in headers:
        group += nodes.colspec(colwidth=1)
    head = nodes.thead()
    head += row_node(headers)
    body = nodes.tbody()
    for row in rows:
        body += row_node(row)
    group += head
    group += body
    out = nodes.table(classes=[f"verify-{kind}", "colwidths-auto"])
    out += group
    return out


def row_node(cells):
    row = nodes.row()
    for content in cells:
        row += cell(content)
    return row


def described(name, texts, where):
    """The docs' text for a name the code offers; stop the build when this file does not describe it."""
    if name not in texts:
        raise ExtensionError(f"docs/_ext/verify_docs.py does not describe {where} {name!r}; add it there")
    return texts[name]


def n_text(lo, hi):
    return f"n ≥ {lo}" if hi in (math.inf, None) else (f"n = {lo}" if lo == hi else f"{lo} ≤ n ≤ {hi}")


# ---------------------------------------------------------------- the claim language


class Quantities(SphinxDirective):
    def run(self):
        from verify.claims.language.quantities import QUANTITIES
        from verify.claims.language.text import index_text

        rows = []
        for q in QUANTITIES:
            written = f"{q.name}(k)" if q.series else q.name
            indices = f"1 ≤ k ≤ {index_text(q.last)}" if q.series else ""
            rows.append([code(written), math_node(q.latex), q.meaning, indices])
        return [table("quantities", ["name", "symbol", "meaning", "index"], rows)]


class Constants(SphinxDirective):
    def run(self):
        from verify.claims.language.quantities import CONSTANTS

        rows = [[code(name), math_node(latex), described(name, CONSTANT_TEXT, "the constant")] for name, latex in CONSTANTS.items()]
        return [table("constants", ["name", "symbol", "value"], rows)]


class Functions(SphinxDirective):
    def run(self):
        from verify.claims.language.quantities import FUNCTIONS

        rows = []
        for name, (low, high) in FUNCTIONS.items():
            count = str(low) if low == high else f"{low} to {high}"
            rows.append([code(name), count, described(name, FUNCTION_TEXT, "the function")])
        return [table("functions", ["function", "arguments", "meaning"], rows)]


class ClaimFileKeys(SphinxDirective):
    def run(self):
        from verify.claims.claimfile import KEYS

        rows = [[code(key), *described(key, CLAIM_FILE_KEYS, "the claim-file key")] for key in KEYS]
        return [table("claim-file-keys", ["key", "", "meaning"], rows)]


# ---------------------------------------------------------------- facts and claims


class Facts(SphinxDirective):
    def run(self):
        from verify.claims.prover.facts import FACTS

        rows = []
        for fact in FACTS:
            family = "every SPD H" if fact.family == "spd" else f"H {fact.family} only"
            kind = " (an order fact)" if fact.order else (f" (a schema over {fact.pivot}(k))" if fact.pivot else "")
            rows.append([code(fact.id), code(fact.text), f"{n_text(*fact.n_range)}, {family}{kind}", fact.source])
        return [table("facts", ["fact", "statement", "domain", "source"], rows)]


class Claims(SphinxDirective):
    """The built-in claims: option `formula` (claim-language records) or `checker` (decided by a checker)."""

    has_content = False
    option_spec = {"kind": lambda text: text.strip()}

    def run(self):
        from verify.claims.record import FAMILY_TEXT, FormulaClaim
        from verify.claims.builtin.registry import CLAIMS

        if self.options.get("kind") == "checker":
            rows = [[code(c.id), c.statement, "; ".join(c.hypotheses), code(c.command)]
                    for c in CLAIMS if not isinstance(c, FormulaClaim)]
            return [table("checker-claims", ["claim", "statement", "hypotheses", "command"], rows)]
        rows = []
        for c in CLAIMS:
            if isinstance(c, FormulaClaim):
                readings = ", ".join(r for r in c.readings if r) or "—"
                domain = f"{n_text(*c.n_range)}; {FAMILY_TEXT[c.hessian]}"
                rows.append([code(c.id), c.statement, code(c.text), readings, domain])
        return [table("formula-claims", ["claim", "statement", "claim language", "readings", "domain"], rows)]


class CertificateKeys(SphinxDirective):
    required_arguments = 1

    def run(self):
        kind = self.arguments[0]
        keys = certificate_keys()[kind]
        rows = [[code(key), described(key, CERTIFICATE_KEYS, "the certificate key")] for key in keys]
        return [table(f"certificate-{kind}", ["key", "meaning"], rows)]


def certificate_keys():
    """The exact keys `check` requires of each certificate kind, from the certificate format's one module."""
    from verify.claims.certificates.format import KEYS

    return KEYS


# ---------------------------------------------------------------- the command line


class CommandLine(SphinxDirective):
    """One section per sub-command of `python -m verify`: its help, usage and an options table."""

    def run(self):
        from verify.commandline.arguments import build_parser

        parser = build_parser()
        sections = []
        for name, sub in subcommands(parser).items():
            sections.append(self.command_section(name, sub, summary(parser, name)))
        return sections

    def command_section(self, name, parser, help_text):
        section = nodes.section(ids=[f"command-{name}"], names=[f"command {name}"])
        section += nodes.title("", "", code(name))
        section += nodes.paragraph(text=help_text)
        if parser.description and parser.description != help_text:
            section += nodes.paragraph(text=" ".join(parser.description.split()))
        usage = " ".join(parser.format_usage().split()).replace("usage: ", "python -m ", 1)
        section += nodes.literal_block(usage, usage, language="text")
        section += table(f"options-{name}", ["option", "value", "default", "meaning"], option_rows(parser))
        self.state.document.note_implicit_target(section)
        return section


def subcommands(parser):
    """{name: sub-parser} in the order the parser defines them."""
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def summary(parser, name):
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return next(choice.help for choice in action._choices_actions if choice.dest == name)


def option_rows(parser):
    rows = []
    for group in parser._action_groups:
        for action in group._group_actions:
            if isinstance(action, argparse._HelpAction):
                continue
            names = ", ".join(action.option_strings) or action.metavar or action.dest
            value = "" if action.nargs == 0 else (action.metavar or action.dest.upper())
            if action.nargs in ("*", "+"):
                value += " …"
            hidden = action.default is None or action.default is False or action.default == argparse.SUPPRESS
            default = "" if hidden else str(action.default)  # `in (None, False)` would hide a default of 0
            meaning = action.help or ""
            if group.title not in ("positional arguments", "options", "optional arguments"):
                meaning = f"({group.title}) {meaning}"
            rows.append([code(names), value and code(value), default and code(default), meaning])
    return rows


# ---------------------------------------------------------------- derivations and experiments


class Derivations(SphinxDirective):
    def run(self):
        from verify.derivations.registry import DERIVATIONS

        rows = []
        for d in DERIVATIONS:
            checks = "; ".join(f"{kind} ({sizes})" for kind, sizes, _ in d.checks)
            rows.append([code(d.id), d.name, "; ".join(d.hypotheses), d.verified_by, checks])
        return [table("derivations", ["id", "derivation", "hypotheses", "verified how", "checks"], rows)]


class Experiments(SphinxDirective):
    def run(self):
        from verify.experiments.synthetic import EXPERIMENTS

        rows = [[code(name), described(name, EXPERIMENT_TEXT, "the experiment")] for name in EXPERIMENTS]
        return [table("experiments", ["experiment", "what it runs"], rows)]


class Presets(SphinxDirective):
    """`verify-presets synthetic` or `verify-presets transformer`: every field of the quick and full presets."""

    required_arguments = 1

    def run(self):
        import dataclasses

        if self.arguments[0] == "transformer":
            from verify.experiments.transformer.study import FULL, QUICK
        else:
            from verify.experiments.common import FULL, QUICK
        rows = []
        for f in dataclasses.fields(QUICK):
            if f.name != "name":
                rows.append([code(f.name), *(preset_value(getattr(p, f.name)) for p in (QUICK, FULL))])
        return [table(f"presets-{self.arguments[0]}", ["setting", "--quick", "--full"], rows)]


def preset_value(value):
    if isinstance(value, tuple) and value and isinstance(value[0], tuple):  # (optimizer, step sizes) pairs
        return "; ".join(f"{name}: {', '.join(map(str, steps))}" for name, steps in value)
    return ", ".join(map(str, value)) if isinstance(value, tuple) else str(value)


# ---------------------------------------------------------------- constants in prose


class ConstantRole(SphinxRole):
    """`{verify-const}`verify.claims.language.parser.MAX_TEXT``: the constant's value, as text."""

    def run(self):
        module_name, _, name = self.text.rpartition(".")
        try:
            value = getattr(importlib.import_module(module_name), name)
        except (ImportError, AttributeError) as error:
            raise ExtensionError(f"verify-const: {self.text!r} is not a constant of the package ({error})") from None
        shown = f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10_000 else str(value)
        return [nodes.Text(shown)], []


DIRECTIVES = {
    "verify-quantities": Quantities, "verify-constants": Constants, "verify-functions": Functions,
    "verify-claim-file-keys": ClaimFileKeys, "verify-facts": Facts, "verify-claims": Claims,
    "verify-certificate-keys": CertificateKeys, "verify-cli": CommandLine, "verify-derivations": Derivations,
    "verify-experiments": Experiments, "verify-presets": Presets,
}


PLURAL_CODE = re.compile(r"`([^`\n]+)`(?=[A-Za-z])")


def escape_plural_code(app, what, name, obj, options, lines):
    """Docstrings write Markdown-style plurals (`ClaimResult`s); reST needs an escaped space after the role."""
    lines[:] = [PLURAL_CODE.sub(r"`\1`\\ ", line) for line in lines]


class ClaimCountRole(SphinxRole):
    """`{verify-claim-count}`examples/claims.toml``: how many claims that claim file of the repository states."""

    def run(self):
        from verify.claims.claimfile import load_claims

        path = Path(self.env.srcdir).parent / self.text
        return [nodes.Text(str(len(load_claims(path))))], []


def setup(app):
    app.connect("autodoc-process-docstring", escape_plural_code)
    for name, directive in DIRECTIVES.items():
        app.add_directive(name, directive)
    app.add_role("verify-const", ConstantRole())
    app.add_role("verify-claim-count", ClaimCountRole())
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
