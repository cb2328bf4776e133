"""LaTeX export: derivations (verify.derivations) and claim statements (verify.claims.registry).

Expressions go through SymPy's LatexPrinter, subclassed for our own objects (BlockDiag,
Diag, the σ and s indexed bases); math delimiters are added once, where a snippet is
placed.  The output depends only on the registries, so it is byte-identical on every run.
"""
import re
from pathlib import Path

from sympy.printing.latex import LatexPrinter

from verify import atomic
from verify.claims.registry import CLAIMS
from verify.errors import InputError
from verify.derivations.registry import DERIVATIONS


class VerifyLatexPrinter(LatexPrinter):
    """SymPy's LatexPrinter for our objects: BlockDiag, Diag, the σ and s bases, names already in LaTeX."""

    def _print_Symbol(self, expr, style="plain"):
        """A name written in LaTeX already (a backslash or braces) is printed as it stands."""
        if "\\" in expr.name or "{" in expr.name or " " in expr.name:
            return expr.name
        return super()._print_Symbol(expr, style)

    def _print_BlockDiag(self, expr):
        return r"\operatorname{blockdiag}\left(" + ", ".join(self._print(a) for a in expr.args) + r"\right)"

    def _print_Diag(self, expr):
        return r"\operatorname{diag}\left(" + ", ".join(self._print(a) for a in expr.args) + r"\right)"

    def _print_Indexed(self, expr):
        base = {"sigma": r"\sigma", "s": "s"}.get(str(expr.base), self._print(expr.base))
        return f"{base}_{{{','.join(self._print(i) for i in expr.indices)}}}"

    def _print_KroneckerDelta(self, expr, exp=None):
        return r"\delta_{" + "".join(self._print(a) for a in expr.args) + "}"


def to_latex(expr):
    """LaTeX of a SymPy expression (no delimiters: they are added once, where it is placed)."""
    return VerifyLatexPrinter({"mul_symbol": None, "order": "none"}).doprint(expr)


def display(body):
    """The one place delimiters are added."""
    return "\\begin{equation*}\n" + body + "\n\\end{equation*}\n"


# unicode in claim statements and hypotheses → LaTeX that pdflatex takes
TEXT_MAP = {
    "λ": r"$\lambda$", "μ": r"$\mu$", "κ": r"$\kappa$", "σ": r"$\sigma$", "η": r"$\eta$", "Σ": r"$\Sigma$",
    "≥": r"$\ge$", "≤": r"$\le$", "≼": r"$\preceq$", "≠": r"$\ne$", "≪": r"$\ll$", "≡": r"$\equiv$", "≈": r"$\approx$",
    "⊥": r"$^\perp$", "‖": r"$\|$", "√": r"$\surd$",
    "∈": r"$\in$", "→": r"$\to$", "∇": r"$\nabla$", "∘": r"$\circ$", "×": r"$\times$", "·": r"$\cdot$",
    "—": "---", "–": "--", "−": "-", "’": "'", "“": "``", "”": "''", "…": r"\ldots{}",
}
SUPERSCRIPT = {"ᵀ": r"\top", "²": "2", "⁻": "-", "¹": "1"}
SUBSCRIPT = {"₂": "2"}
SPECIAL = {"_": r"\_", "&": r"\&", "%": r"\%", "#": r"\#", "^": r"\^{}", "{": r"\{", "}": r"\}", "~": r"\~{}"}


def text(value):
    """Plain text (possibly with unicode math) as LaTeX; unknown non-ASCII characters are refused."""
    out = []
    for run in re.findall(f"[{''.join(SUPERSCRIPT)}]+|[{''.join(SUBSCRIPT)}]+|.", value, flags=re.S):
        if run[0] in SUPERSCRIPT:  # a run such as ⁻² becomes one ^{-2}
            out.append("$^{" + "".join(SUPERSCRIPT[c] for c in run) + "}$")
            continue
        if run[0] in SUBSCRIPT:
            out.append("$_{" + "".join(SUBSCRIPT[c] for c in run) + "}$")
            continue
        char = run
        if char in TEXT_MAP:
            out.append(TEXT_MAP[char])
        elif char in SPECIAL:
            out.append(SPECIAL[char])
        elif ord(char) < 128:
            out.append(char)
        else:
            raise ValueError(f"no LaTeX for {char!r} in {value!r}; add it to verify.latex.TEXT_MAP")
    return "".join(out).replace("$$", "")


def derivation_snippet(derivation):
    lines = [f"% {derivation.id}: written by `python -m verify export-latex`; do not edit by hand.\n",
             f"\\subsection{{{derivation.id}: {derivation.name}}}\\label{{sec:{derivation.id}}}\n",
             "\\paragraph{Hypotheses.}\n\\begin{itemize}\n"]
    lines += [f"  \\item {h}\n" for h in derivation.hypotheses]
    lines.append("\\end{itemize}\n\\paragraph{Derivation.}\n")
    for step in derivation.steps():
        lines.append(step.text + "\n")
        lines.append(display(to_latex(step.expr)))
    lines.append("\\paragraph{Result.}\n")
    results = derivation.result()
    body = " \\\\\n".join(to_latex(r) for r in results)
    lines.append(f"\\begin{{gather}}\\label{{eq:{derivation.id}}}\n{body}\n\\end{{gather}}\n" if len(results) == 1 else
                 "\\begin{gather}\n" + " \\\\\n".join(f"{to_latex(r)} \\label{{eq:{derivation.id}-{k + 1}}}"
                                                      for k, r in enumerate(results)) + "\n\\end{gather}\n")
    lines.append(f"\\paragraph{{Verification.}} {derivation.verified_by}\n")
    return "".join(lines)


def claims_section():
    lines = ["\\section{Claims checked}\\label{sec:claims}\n",
             "Each claim is a record of the toolkit's registry; \\texttt{python -m verify theorem2} and "
             "\\texttt{python -m verify assumption2} give its verdict and evidence.\n"]
    for command, title in (("theorem2", "Theorem 2 and Eq.~(47)"), ("assumption2", "Assumption 2")):
        lines.append(f"\\subsection{{{title}}}\n")
        for claim in (c for c in CLAIMS if c.command == command):
            readings = ", ".join(r for r in claim.readings if r) or "one reading"
            lines.append(f"\\paragraph{{\\texttt{{{claim.id}}}}} {text(claim.statement)}\n")
            lines.append(display(claim.latex))
            lines.append("Hypotheses: " + "; ".join(text(h) for h in claim.hypotheses) + f". Readings: {readings}.\n\n")
    return "".join(lines)


PREAMBLE = r"""\documentclass[11pt]{article}
\usepackage[T1]{fontenc}
\usepackage{amsmath,amssymb}
\usepackage[margin=1in]{geometry}
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
and the two independent verifications it passes (symbolic, and numeric at high precision). Section
\ref{sec:derivations} covers the softmax Jacobian and Hessian (D1, D2), the loss Hessian (D3),
Eq.~(16) (D4), gradient descent as preconditioned descent (D5), its linearisation at a stationary
point (D6) and the rank argument behind Assumption 2; Section~\ref{sec:claims} states the claims
the toolkit searches for counterexamples. Notation: $z = \sigma(s)$, $J(z) = \operatorname{diag}(z) - z z^\top$,
$T = \mathbf{1}^\perp$, $M = \operatorname{blockdiag}(J_i H_i J_i)$.

"""


def user_claims_section(claims, source):
    """The claims of a claim file: statement, the LaTeX SymPy's printer made of the parsed `holds`, sizes."""
    lines = ["\\section{Claims of a claim file}\\label{sec:user-claims}\n",
             f"Stated in \\texttt{{{text(str(source))}}}; \\texttt{{python -m verify claims}} gives their verdicts.\n"]
    for claim in claims:
        lines.append(f"\\paragraph{{\\texttt{{{text(claim.id)}}}}} {text(claim.statement)}\n")
        lines.append(display(claim.latex))
        lines.append(f"Searched over $n = {claim.n_range[0]}, \\dots, {claim.n_range[1]}$ with {claim.hessian} $H$.\n\n")
    return "".join(lines)


def snippet_name(derivation):
    return f"{derivation.id}-{derivation.slug}.tex"


def document(user_claims=None):
    body = [PREAMBLE, INTRO, "\\section{Derivations}\\label{sec:derivations}\n"]
    body += [derivation_snippet(d) for d in DERIVATIONS]
    body.append(claims_section())
    if user_claims:
        body.append(user_claims)
    body.append("\\end{document}\n")
    return "".join(body)


def export(out_dir="derivations", claims_file=None):
    """Write derivations.tex and one snippet per derivation and the claims (with a claim file's claims,
    also user-claims.tex and a section of the document); returns the paths."""
    user = None
    if claims_file is not None:
        from verify.claims.claimfile import load_claims  # only this option reads a claim file

        user = user_claims_section(load_claims(claims_file), Path(claims_file).name)
    atomic.check_out_dir(out_dir, "LaTeX files")
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"the output folder {out_dir!r} cannot be created ({error.strerror}); give a writable folder", "out") from None
    files = {snippet_name(d): derivation_snippet(d) for d in DERIVATIONS}
    files["claims.tex"] = claims_section()
    if user:
        files["user-claims.tex"] = user
    files["derivations.tex"] = document(user)
    contents = {name: _no_trailing_space(body) for name, body in files.items()}
    try:
        return [str(atomic.write_text(out / name, body)) for name, body in contents.items()]
    except PermissionError:
        raise InputError(f"the output folder {out_dir!r} is not writable; give a folder you can write to", "out") from None


def _no_trailing_space(body):
    return re.sub(r"[ \t]+\n", "\n", body)
