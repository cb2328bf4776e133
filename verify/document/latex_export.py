"""LaTeX export: `derivations.tex` (standalone), one snippet per derivation, the claims, and a claim
file's claims, each claim with the verdict the decision gave it (`theorem2`, `assumption2`, `claims`, run
here with the same settings; verify.document.latex_proofs reads their results, verify.document.latex_claims sets them).
The decision is seeded and its solvers work within resource limits, so the output is byte-identical on
every run.

The claims arrive as plain rows (`ClaimRow`): `claims_section(rows)` never looks at a claim record,
and `registry_rows()` is the one adapter from today's claim registry to rows.  Prose goes through
`verify.document.mathtext.prose`, formulas through `verify.document.mathtext`; every display is broken to fit the page.
"""
import functools
import re
from pathlib import Path
from typing import NamedTuple

from verify.base import atomic
from verify.derivations.registry import DERIVATIONS
from verify.base.errors import InputError
from verify.base.printable import shown
from verify.document.latex_claims import ALGEBRAIC_CERTIFICATES, ClaimRow, claims_section
from verify.document.latex_display import display
from verify.document.latex_proofs import n_text, verdict_rows
from verify.document.mathtext import prose, to_latex
from verify.document.usertext import UserText, unset_characters, user_name


class Decision(NamedTuple):
    """The settings of the decision whose verdicts the document prints (those of `theorem2` and `claims`)."""

    seed: int = 0
    samples: int = 300
    dps: int = 50

    def checked(self):
        """The settings, each checked as the search checks it (InputError naming the value and the fix)."""
        from verify.base import options

        return Decision(options.seed(self.seed), options.samples(self.samples), options.dps(self.dps))

    def flags(self):
        return f"--seed {self.seed} --samples {self.samples} --dps {self.dps}"


def registry_results(decision=Decision()):
    """The decision on every built-in claim: `theorem2` and `assumption2` (its own default sweep), in this
    process; the same settings give the same results, so they are computed once per process."""
    return _registry_results(Decision(*decision))


@functools.lru_cache(maxsize=4)
def _registry_results(decision):
    from verify.claims.verdicts.assumption2 import run_assumption2
    from verify.claims.verdicts.theorem2 import run_theorem2

    reports = (run_theorem2(decision.seed, decision.samples, decision.dps, workers=1),
               run_assumption2(decision.seed, workers=1))
    _stop_if_interrupted(reports)
    return tuple(result for report in reports for result in report.claims)


def _stop_if_interrupted(reports):
    if any(report.interrupted for report in reports):
        raise KeyboardInterrupt  # Ctrl-C during the decision: nothing is written


def registry_rows(results=None):
    """Today's claim registry as rows with the decision's verdicts (by default `registry_results()`): the one
    place that knows a claim record."""
    from verify.claims.builtin.registry import CLAIMS

    results = registry_results() if results is None else results
    groups = {"theorem2": "Theorem 2 and Eq. (47)", "assumption2": "Assumption 2"}
    return [ClaimRow(c.id, c.statement, c.latex, tuple(c.hypotheses), tuple(r for r in c.readings if r),
                     verdict_rows(c, results), groups.get(c.command, c.command)) for c in CLAIMS]


def user_rows(claims, results):
    """A claim file's lemmas and claims as rows, with the verdicts of `run_claims` on them (`results`): every
    string of the file is the user's (UserText, set as text); a proof citing a lemma shows it with its verdict."""
    from verify.claims.record import FAMILY_TEXT

    verdicts = {result.id: result.verdict for result in results}
    lemmas = tuple((c, verdicts[c.id]) for c in claims if c.lemma and c.id in verdicts)
    groups = {True: "Lemmas", False: "Claims"} if lemmas else {True: "Claims", False: "Claims"}
    return [ClaimRow(c.id, UserText(c.statement), c.latex, (n_text(c.n_range), FAMILY_TEXT[c.hessian]),
                     verdicts=verdict_rows(c, results, lemmas), group=groups[c.lemma],
                     source=UserText(c.source) if c.lemma and c.source else "") for c in claims]


def user_results(claims, decision=Decision()):
    """The decision of `claims` (the command of that name) on a claim file's claims, in this process; the same
    claims and settings give the same results, so they are computed once per process."""
    return _user_results(tuple(claims), decision)


@functools.lru_cache(maxsize=4)
def _user_results(claims, decision):
    from verify.claims.verdicts.decide import run_claims

    report = run_claims(list(claims), decision.seed, decision.samples, decision.dps, workers=1)
    _stop_if_interrupted([report])
    return report.claims


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


# ---------------------------------------------------------------- the document and the files


PREAMBLE = r"""\documentclass[11pt]{article}
% Latin Modern where installed, else Computer Modern (whose text-symbol font TS1 has no vector form here:
% the item bullet is taken from the math fonts): vector fonts either way
\IfFileExists{lmodern.sty}{\usepackage[T1]{fontenc}\usepackage{lmodern}}{\renewcommand{\labelitemi}{$\bullet$}}
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

VERDICTS = r"""Every claim is shown with the verdict the toolkit's decision gave it (\texttt{{{flags}}}):
\textbf{{PROVED}}, with its proof from cited facts; \textbf{{REFUTED}}, with a counterexample certified with
ball arithmetic (or the facts that imply it fails everywhere); \textbf{{HOLDS}} or
\textbf{{INCONCLUSIVE}}, with what was searched; a lemma of a claim file taken as given is \textbf{{ASSUMED}}, and
a proof citing one is \textbf{{PROVED}} assuming it.

"""


def document(claims, user_claims=None, decision=Decision()):
    body = [PREAMBLE, INTRO, VERDICTS.format(flags=decision.flags()), ALGEBRAIC_CERTIFICATES,
            "\\section{Derivations}\\label{sec:derivations}\n"]
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


def export(out_dir=None, claims_file=None, rows=None, decision=Decision()):
    """Write derivations.tex, one snippet per derivation and claims.tex (the claims of `rows`, by default the
    registry's with the verdicts `decision` gives them); with a claim file, also user-claims.tex (its claims
    with the verdicts of `claims` under the same settings) and a section of the document. The paths.
    `out_dir` None is `default_out_dir(claims_file)`."""
    out_dir = default_out_dir(claims_file) if out_dir is None else out_dir
    if not isinstance(decision, tuple) or len(decision) != 3:
        raise InputError(f"decision = {shown(decision, 40)} is not a Decision; give Decision(seed, samples, dps)", "decision")
    decision = Decision(*decision).checked()
    claims = _load_user_claims(claims_file) if claims_file is not None else None
    atomic.check_out_dir(out_dir, "LaTeX files")
    _check_targets(out_dir, [snippet_name(d) for d in DERIVATIONS] + ["claims.tex", "derivations.tex"] +
                   (["user-claims.tex"] if claims is not None else []))
    user = None
    if claims is not None:
        name = user_name(Path(claims_file).name)
        source = (f"Stated in \\texttt{{{name}}}, with the verdicts of "
                  f"\\texttt{{python -m verify claims {name} {decision.flags()}}}.")
        user = claims_section(user_rows(claims, user_results(claims, decision)), "Claims of a claim file",
                              "sec:user-claims", source)
    claims_tex = claims_section(registry_rows(registry_results(decision)) if rows is None else rows)
    files = {snippet_name(d): derivation_snippet(d) for d in DERIVATIONS}
    files["claims.tex"] = claims_tex
    if user:
        files["user-claims.tex"] = user
    files["derivations.tex"] = document(claims_tex, user, decision)
    return _write(out_dir, {name: re.sub(r"[ \t]+\n", "\n", body) for name, body in files.items()})


def _load_user_claims(claims_file):
    """A claim file's claims, refused in one line when its prose cannot be set (before anything is decided)."""
    from verify.claims.claimfile import load_claims  # only this option reads a claim file

    claims = load_claims(claims_file)
    texts = [("the file's name", Path(claims_file).name)]
    texts += [(f"{'lemma' if c.lemma else 'claim'} {c.id}", text) for c in claims for text in (c.statement, c.source)]
    unset = {}
    for where, text in texts:
        unset.setdefault(where, []).extend(char for char in unset_characters(text) if char not in unset.get(where, ()))
    listed = [f"{', '.join(chars)} in {where}" for where, chars in unset.items() if chars]
    if listed:
        raise InputError(f"the claim file {shown(str(claims_file), 200)} cannot be set in LaTeX: no LaTeX for {'; '.join(listed)}; "
                         "write that text with other symbols", "claims")
    return claims


def _check_targets(out_dir, names):
    """InputError when a file the export writes is a folder (or any other non-file) now: refused before anything is
    decided or written (once an IsADirectoryError after the derivations' files were written)."""
    out = Path(out_dir)
    taken = [name for name in names if (out / name).exists() and not (out / name).is_file()]
    if taken:
        raise InputError(f"{shown(str(out / taken[0]), 200)} is a folder or other non-file where the export writes "
                         f"{shown(taken[0], 40)}; move it or give another output folder", "out")


def _write(out_dir, contents):
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"the output folder {shown(out_dir, 200)} cannot be created ({error.strerror}); give a writable folder", "out") from None
    try:
        return [str(atomic.write_text(out / name, body)) for name, body in contents.items()]
    except PermissionError:
        raise InputError(f"the output folder {shown(out_dir, 200)} is not writable; give a folder you can write to", "out") from None
