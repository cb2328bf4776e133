"""LaTeX export: `derivations.tex` (standalone), one snippet per derivation, the claims, and a claim
file's claims, each formula claim with its proof under every reading the prover proves
(verify.latex_proofs).  The output depends only on the registries and the prover, whose solvers work
within resource limits, so it is byte-identical on every run.

The claims arrive as plain rows (`ClaimRow`): `claims_section(rows)` never looks at a claim record,
and `registry_rows()` is the one adapter from today's claim registry to rows.  Prose goes through
`verify.mathtext.prose`, formulas through `verify.mathtext`; every display is broken to fit the page.
"""
import re
from pathlib import Path
from typing import NamedTuple

from verify import atomic
from verify.derivations.registry import DERIVATIONS
from verify.errors import InputError
from verify.latex_proofs import n_text, proof_rows
from verify.mathtext import NotTypeset, prose, to_latex

LINE_CHARACTERS = 64  # `width` units a display line holds (6.5 in at 11 pt: about 7 pt a unit)


class ClaimRow(NamedTuple):
    """A claim as the document shows it: prose (Unicode math), its formula (math-mode LaTeX without
    delimiters), hypotheses (prose), readings (names; empty for a claim with a single reading, None
    where readings do not apply), its proofs (ProofRows, one per reading proved), and the heading it is
    listed under."""

    id: str
    statement: str
    latex: str
    hypotheses: tuple = ()
    readings: tuple = None  # None: readings do not apply (nothing is said)
    proof: tuple = ()
    group: str = "Claims"


def registry_rows():
    """Today's claim registry as rows: the one place that knows a claim record."""
    from verify.claims.builtin.registry import CLAIMS

    groups = {"theorem2": "Theorem 2 and Eq. (47)", "assumption2": "Assumption 2"}
    return [ClaimRow(c.id, c.statement, c.latex, tuple(c.hypotheses), tuple(r for r in c.readings if r),
                     proof_rows(c), groups.get(c.command, c.command)) for c in CLAIMS]


def user_rows(claims):
    """A claim file's claims as rows."""
    from verify.claims.record import FAMILY_TEXT

    return [ClaimRow(c.id, c.statement, c.latex, (n_text(c.n_range), FAMILY_TEXT[c.hessian]), proof=proof_rows(c))
            for c in claims]


# ---------------------------------------------------------------- displays


def display(body, label=None):
    """A display that fits the page: one line, or broken at its top-level separators (multline)."""
    lines = _break(body)
    tag = f"\\label{{{label}}}" if label else ""
    if len(lines) == 1:
        environment = "equation" if label else "equation*"
        return f"\\begin{{{environment}}}{tag}\n{body}\n\\end{{{environment}}}\n"
    environment = "multline" if label else "multline*"
    return f"\\begin{{{environment}}}{tag}\n" + " \\\\\n".join(lines) + f"\n\\end{{{environment}}}\n"


BREAKS = (r";\\quad |; ",  # between statements: break after
          r",\\quad |\\quad |,\\ ",  # between parts of one statement
          r" (?==|\\le |\\ge |\\leq |\\geq |\\iff |\\Rightarrow )",  # before a relation
          r" (?=[+-] )")  # before a binary + or −


def _break(body):
    """Lines of at most LINE_CHARACTERS glyphs, split at the first kind of break that makes them fit."""
    if width(body) <= LINE_CHARACTERS:
        return [body]
    best = [body]
    for pattern in BREAKS:
        lines = _pack(_split_top_level(body, pattern))
        if max(map(width, lines)) < max(map(width, best)):
            best = lines
        if max(map(width, best)) <= LINE_CHARACTERS:
            break
    return [re.sub(r"(\\quad|\\ )\s*$", "", line) for line in best]  # no spacing left at a line's end


def _split_top_level(body, pattern):
    """Pieces of body cut at the matches of pattern that lie outside every {…} and \\left…\\right."""
    pieces, start, depth = [], 0, 0
    position = 0
    while position < len(body):
        if body.startswith("\\left", position) or body[position] == "{":
            depth += 1
        elif body.startswith("\\right", position) or body[position] == "}":
            depth -= 1
        match = re.compile(pattern).match(body, position) if depth == 0 else None
        if match and position > start:
            pieces.append(body[start:match.end()].strip())
            start = position = match.end()
            continue
        position += 1
    return pieces + [body[start:].strip()]


def _pack(pieces):
    lines = [pieces[0]]
    for piece in pieces[1:]:
        joined = f"{lines[-1]} {piece}"
        if width(joined) <= LINE_CHARACTERS:
            lines[-1] = joined
        else:
            lines.append(piece)
    return lines


RELATIONS = r"(=|<|>|\\le\b|\\ge\b|\\leq|\\geq|\\iff|\\Rightarrow|\\ne\b|\\in\b|\\quad|\\mapsto)"


def width(latex):
    """About how many glyphs wide a formula prints: a command counts one, a relation (with the space TeX
    puts around it) three, a fraction its wider part.  Calibrated on pdflatex's overfull-box reports."""
    text = re.sub(RELATIONS, "xxx", latex)
    text = re.sub(r"\\(left|right|big|Big|bigl|bigr|Bigl|Bigr)\b", "", text)
    text = re.sub(r"\\(operatorname|mathrm|mathbb|text)\{([^{}]*)\}", r"\2", text)
    while True:
        reduced = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", lambda m: max(m.group(1), m.group(2), key=len), text)
        reduced = re.sub(r"[_^]\{([^{}]*)\}", r"\1", reduced)
        if reduced == text:
            break
        text = reduced
    text = re.sub(r"\\[A-Za-z]+|\\.", "x", text)
    return len(re.sub(r"[\s{}_^]", "", text))


# ---------------------------------------------------------------- derivations


def derivation_snippet(derivation):
    lines = [f"% {derivation.id}: written by `python -m verify export-latex`; do not edit by hand.\n",
             f"\\subsection{{{derivation.id}: {prose(derivation.name)}}}\\label{{sec:{derivation.id}}}\n",
             "\\paragraph{Hypotheses.}\n\\begin{itemize}\n"]
    lines += [f"  \\item {prose(h)}\n" for h in derivation.hypotheses]
    lines.append("\\end{itemize}\n\\paragraph{Derivation.}\n")
    for step in derivation.steps():
        lines.append(prose(step.text) + "\n")
        lines.append(display(to_latex(step.expr)))
    lines.append("\\paragraph{Result.}\n")
    results = derivation.result()
    for number, result in enumerate(results, 1):
        label = f"eq:{derivation.id}" + (f"-{number}" if len(results) > 1 else "")
        lines.append(display(to_latex(result), label))
    lines.append(f"\\paragraph{{Verification.}} {prose(derivation.verified_by)}\n")
    return "".join(lines)


def snippet_name(derivation):
    return f"{derivation.id}-{derivation.slug}.tex"


# ---------------------------------------------------------------- claims


def claims_section(rows, title="Claims checked", label="sec:claims", intro=None):
    """The claims as a section: each row's statement, formula, hypotheses, readings and (if given) proof;
    rows of one group are listed together under its heading, groups in the order they first appear."""
    intro = intro or ("Each claim is a record of the toolkit's registry; \\texttt{python -m verify theorem2} and "
                      "\\texttt{python -m verify assumption2} give its verdict and evidence.")
    lines = [f"\\section{{{title}}}\\label{{{label}}}\n", intro + "\n"]
    groups = list(dict.fromkeys(row.group for row in rows))
    for group in groups:
        if len(groups) > 1:
            lines.append(f"\\subsection{{{prose(group)}}}\n")
        lines += [_claim(row) for row in rows if row.group == group]
    return "".join(lines)


def _claim(row):
    lines = [f"\\paragraph{{\\texttt{{{_texttt(row.id)}}}}} {prose(row.statement)}\n", display(row.latex)]
    sentences = []
    if row.hypotheses:
        sentences.append("Hypotheses: " + "; ".join(prose(h) for h in row.hypotheses) + ".")
    if row.readings is not None:
        sentences.append(_readings(row.readings))
    lines.append(" ".join(sentences) + "\n")
    lines += [_proof(proof) for proof in row.proof]
    return "".join(lines) + "\n"


def _readings(readings):
    if not readings:
        return "It has a single reading."
    names = [f"\\texttt{{{_texttt(r)}}}" for r in readings]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"It is decided under {'its reading' if len(names) == 1 else 'each of its readings'}: {listed}."


def _proof(proof):
    """A short proof: the claim under its reading, the facts cited as displayed inequalities (each with its id
    and, where narrower than the claim's, its domain), which facts each piece of the domain used, the
    solvers' verdict on the whole domain, and the facts' sources."""
    heading = f"Proof under reading \\texttt{{{_texttt(proof.reading)}}}" if proof.reading else "Proof"
    lead = f"Under this reading the claim is\n{display(proof.latex)}It" if proof.reading else "It"
    rows = []
    for inequality, fact, _, where in proof.facts:
        note = f", {prose(where)}" if where else ""
        rows.append(f"  & {inequality} && \\text{{\\texttt{{{_texttt(fact)}}}{note}}}")
    lines = [f"\n\\noindent\\textit{{{heading}.}} {lead} follows from these facts:\n",
             "\\begin{align*}\n", " \\\\\n".join(rows), "\n\\end{align*}\n"]
    if len(proof.pieces) > 1:
        lines.append(_pieces(proof))
    lines.append(f"Both Z3 and cvc5 report the negation unsatisfiable on {prose(proof.domain)}.\n")
    lines.append(f"Sources: {_sources(proof.facts)}. \\hfill$\\square$\n")
    return "".join(lines)


def _pieces(proof):
    """Which facts each piece of the domain (and each conjunct of a claim joined by `and`) used."""
    every = {fact for _, fact, _, _ in proof.facts}
    lead = "The prover decides the domain piece by piece (index expressions coincide at small $n$)"
    if all(set(ids) == every for _, ids in proof.pieces):
        return f"{lead}: {'; '.join(prose(where) for where, _ in proof.pieces)}, each from all of these facts.\n"
    uses = "".join(f"  \\item {prose(where)}: " + ", ".join(f"\\texttt{{{_texttt(i)}}}" for i in ids) + "\n"
                   for where, ids in proof.pieces)
    return f"{lead}; the facts each piece uses:\n\\begin{{itemize}}\\raggedright\n{uses}\\end{{itemize}}\n"


def _sources(facts):
    """The facts' sources, each once, after the ids that cite it (in the order the facts are listed)."""
    cited = {}
    for _, fact, source, _ in facts:
        cited.setdefault(source, []).append(f"\\texttt{{{_texttt(fact)}}}")
    return "; ".join(f"{', '.join(ids)}: {prose(source)}" for source, ids in cited.items())


TEXTTT = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "_": r"\_", "&": r"\&", "%": r"\%", "#": r"\#",
          "$": r"\$", "^": r"\^{}", "~": r"\~{}"}


def _texttt(name):
    """A name (an id, a file name) for \\texttt: LaTeX's special characters escaped, others as '?'."""
    return "".join(TEXTTT.get(char, char if char.isascii() else "?") for char in name)


# ---------------------------------------------------------------- the document and the files


PREAMBLE = r"""\documentclass[11pt]{article}
\usepackage[T1]{fontenc}
\IfFileExists{lmodern.sty}{\usepackage{lmodern}}{}  % scalable fonts where installed (Debian: lmodern)
\usepackage{amsmath,amssymb}
\usepackage[margin=1in]{geometry}
\setlength{\emergencystretch}{2em}
\title{Derivations and claims checked by \texttt{verify}\\[0.3em]
\large ``Gradient Descent and Attention Models: Challenges Posed by the Softmax Function''}
\author{written by \texttt{python -m verify export-latex}}
\date{}
\begin{document}
\maketitle
"""

INTRO = r"""\section*{About this document}
This document is generated from the toolkit's registries of derivations and claims; do not edit it
by hand. Each derivation lists its hypotheses, the steps SymPy carried out, the result in closed form,
and the two independent verifications it passes (symbolic, and numeric at high precision). The first
section covers the softmax Jacobian and Hessian (D1, D2), the loss Hessian (D3), Eq.~(16) (D4),
gradient descent as preconditioned descent (D5), its linearisation at a stationary point (D6) and
the rank argument behind Assumption 2; the next states the claims the toolkit searches for
counterexamples. Notation: $z = \sigma(s)$, $J(z) = \operatorname{diag}(z) - z z^\top$,
$T = \mathbf{1}^\perp$, $M = \operatorname{blockdiag}(J_i H_i J_i)$.

"""


def document(claims, user_claims=None):
    body = [PREAMBLE, INTRO, "\\section{Derivations}\\label{sec:derivations}\n"]
    body += [derivation_snippet(d) for d in DERIVATIONS]
    body.append(claims)
    if user_claims:
        body.append(user_claims)
    body.append("\\end{document}\n")
    return "".join(body)


def default_out_dir(claims_file=None):
    """derivations/ (the committed document) for the package's own claims; a user's claim file gets a folder
    of its own, latex-<file stem>/, so an export of one's claims never rewrites the committed files."""
    return "derivations" if claims_file is None else f"latex-{Path(claims_file).stem}"


def export(out_dir=None, claims_file=None, rows=None):
    """Write derivations.tex, one snippet per derivation and claims.tex (the claims of `rows`, by default
    the registry's); with a claim file, also user-claims.tex and a section of the document. The paths.
    `out_dir` None is `default_out_dir(claims_file)`."""
    out_dir = default_out_dir(claims_file) if out_dir is None else out_dir
    user = None
    if claims_file is not None:
        from verify.claims.claimfile import load_claims  # only this option reads a claim file

        source = (f"Stated in \\texttt{{{_texttt(Path(claims_file).name)}}}; \\texttt{{python -m verify claims}} "
                  "gives their verdicts.")
        try:
            user = claims_section(user_rows(load_claims(claims_file)), "Claims of a claim file", "sec:user-claims", source)
        except NotTypeset as error:
            raise InputError(f"the claim file {str(claims_file)!r} cannot be set in LaTeX: {error}; write that text with "
                             "other symbols", "claims") from None
    atomic.check_out_dir(out_dir, "LaTeX files")
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"the output folder {out_dir!r} cannot be created ({error.strerror}); give a writable folder", "out") from None
    claims = claims_section(registry_rows() if rows is None else rows)
    files = {snippet_name(d): derivation_snippet(d) for d in DERIVATIONS}
    files["claims.tex"] = claims
    if user:
        files["user-claims.tex"] = user
    files["derivations.tex"] = document(claims, user)
    contents = {name: re.sub(r"[ \t]+\n", "\n", body) for name, body in files.items()}
    try:
        return [str(atomic.write_text(out / name, body)) for name, body in contents.items()]
    except PermissionError:
        raise InputError(f"the output folder {out_dir!r} is not writable; give a folder you can write to", "out") from None
