"""The claims as a LaTeX section: each claim's statement, formula, hypotheses and readings, then every
verdict the decision gave it (verify.document.latex_proofs rows): PROVED with its proof, REFUTED with its
counterexample, HOLDS or INCONCLUSIVE with what was searched.  Prose goes through `verify.document.mathtext.prose`."""
from typing import NamedTuple

from verify.numerics.precision import decimal  # the one number formatter

from verify.claims.results import VerdictKind
from verify.document.latex_display import LINE_CHARACTERS, display, texttt, width
from verify.document.mathtext import prose


class ClaimRow(NamedTuple):
    """A claim as the document shows it: prose (Unicode math), its formula (math-mode LaTeX without
    delimiters), hypotheses (prose), readings (names; empty for a claim with a single reading, None
    where readings do not apply), its verdicts (VerdictRows, one per reading decided), and the heading it
    is listed under."""

    id: str
    statement: str
    latex: str
    hypotheses: tuple = ()
    readings: tuple = None  # None: readings do not apply (nothing is said)
    verdicts: tuple = ()
    group: str = "Claims"


def claims_section(rows, title="Claims checked", label="sec:claims", intro=None):
    """The claims as a section: each row's statement, formula, hypotheses, readings and verdicts; rows of one
    group are listed together under its heading, groups in the order they first appear."""
    intro = intro or ("Each claim is a record of the toolkit's registry, shown with the verdict of "
                      "\\texttt{python -m verify theorem2} or \\texttt{python -m verify assumption2}.")
    lines = [f"\\section{{{title}}}\\label{{{label}}}\n", intro + "\n"]
    groups = list(dict.fromkeys(row.group for row in rows))
    for group in groups:
        if len(groups) > 1:
            lines.append(f"\\subsection{{{prose(group)}}}\n")
        lines += [_claim(row) for row in rows if row.group == group]
    return "".join(lines)


def _claim(row):
    lines = [f"\\paragraph{{\\texttt{{{texttt(row.id)}}}}} {prose(row.statement)}\n", display(row.latex)]
    sentences = []
    if row.hypotheses:
        sentences.append("Hypotheses: " + "; ".join(prose(h) for h in row.hypotheses) + ".")
    if row.readings is not None:
        sentences.append(_readings(row.readings))
    lines.append(" ".join(sentences) + "\n")
    lines += [_verdict(verdict) for verdict in row.verdicts]
    return "".join(lines) + "\n"


def _readings(readings):
    if not readings:
        return "It has a single reading."
    names = [f"\\texttt{{{texttt(r)}}}" for r in readings]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"It is decided under {'its reading' if len(names) == 1 else 'each of its readings'}: {listed}."


def _verdict(row):
    """A verdict as the decision gave it, then why: a proof, a counterexample, or what was searched."""
    reading = f" under reading \\texttt{{{texttt(row.reading)}}}" if row.reading else ""
    lines = [f"\n\\noindent\\textbf{{{row.verdict.text}}}{reading}."]
    if row.reading:
        lines.append(f" Under this reading the claim is\n{display(row.latex)}")
    else:
        lines.append("\n")
    if row.proof is not None:
        lines.append(_proof(row.proof, refutes=row.verdict.kind is not VerdictKind.PROVED))
    if row.counterexample is not None:
        lines.append(_counterexample(row.counterexample, row.latex))
    if row.proof is None and row.counterexample is None and row.searched:
        lead = "" if row.verdict.kind is VerdictKind.PROVED else "No proof was found. "
        lines.append(f"{lead}{prose(row.searched)}\n")
    if row.note and row.proof is None:
        lines.append(_sentence(row.note) + "\n")
    return "".join(lines)


def _sentence(text):
    """Prose of the decision (a note) as a sentence: a capital first letter, a full stop."""
    text = text.strip()
    return prose(text[:1].upper() + text[1:] + ("" if text.endswith(".") else "."))


def _proof(proof, refutes=False):
    """A proof: the facts cited as displayed inequalities (each with its id and, where narrower than the
    claim's, its domain), which facts each piece of the domain used, the argument the certificate holds
    (`proof_argument`), and the facts' sources."""
    rows = []
    for inequality, fact, _, where in proof.facts:
        note = f", {prose(where)}" if where else ""
        rows.append(f"  & {inequality} && \\text{{\\texttt{{{texttt(fact)}}}{note}}}")
    claim = "The claim fails for every case of its domain: its negation" if refutes else "The claim"
    lines = [f"\\textit{{Proof.}} {claim} follows from these facts:\n",
             "\\begin{align*}\n", " \\\\\n".join(rows), "\n\\end{align*}\n"]
    if len(proof.pieces) > 1:
        lines.append(_pieces(proof))
    lines.append(proof_argument(proof.certificate, proof.domain, refutes))
    lines.append(f"Sources: {_sources(proof.facts)}. \\hfill$\\square$\n")
    return "".join(lines)


def proof_argument(certificate, domain, refutes=False):
    """Why the cited facts imply the claim (its negation, when it `refutes`), from the proof certificate's
    data: each piece whose record holds an algebraic certificate (`algebra`, verify.claims.prover.algebraic)
    shows its substitutions, positivity lemmas and identities, checked exactly again here, and why each term
    is nonnegative; the solvers' agreement covers the pieces without one (every piece, when none has one)."""
    pieces = [piece for piece in (certificate or {}).get("pieces", ()) if isinstance(piece, dict)]
    shown = [(piece, _algebra_lines(certificate, piece)) for piece in pieces if piece.get("algebra")]
    shown = [(piece, lines) for piece, lines in shown if lines]
    negated = "the claim" if refutes else "the negation"
    if not shown:
        return f"Both Z3 and cvc5 report {negated} unsatisfiable on {prose(domain)}.\n"
    out = [_identity(piece, lines) for piece, lines in shown]
    if len(shown) < len(pieces):
        out.append(f"On the other pieces, both Z3 and cvc5 report {negated} unsatisfiable.\n")
    return "".join(out)


NONNEGATIVE = ("Each term on the right is a nonnegative rational times quantities proved positive times cited "
               "facts' slacks (each labelled with its fact, each nonnegative), so the right side is nonnegative "
               "(positive where a strict slack or lemma stands), and so is the claim's slack on the left.")


def _algebra_lines(certificate, piece):
    """The displayed lines of one piece's algebraic certificate, rebuilt from the claim and checked (None when
    it does not check or cannot be read)."""
    import math

    from verify.claims.language.parser import parse_claim
    from verify.claims.prover import facts as library
    from verify.claims.prover.algebraic_check import algebra_from_data
    from verify.claims.prover.algebraic_latex import algebra_latex
    from verify.claims.prover.pieces import Piece
    from verify.claims.prover.pieces import conjuncts
    from verify.base.errors import InputError

    n, (lo, hi) = piece.get("n"), certificate["domain"]["n"]
    tree = parse_claim(certificate["statement"], (lo, math.inf if hi is None else hi))
    at = Piece(n=n) if isinstance(n, int) else Piece(lo=n[0], hi=math.inf if n[1] is None else n[1])
    facts = [f for f in library.FACTS if f.id in piece.get("lemmas", ())]
    try:
        return algebra_latex(algebra_from_data(piece["algebra"]), conjuncts(tree)[piece["part"]], at, facts)
    except (InputError, ValueError, KeyError, IndexError):
        return None


def _identity(piece, lines):
    """One piece's algebraic certificate, displayed line by line, with the sentence on why its terms are
    nonnegative."""
    import math

    from verify.document.latex_proofs import n_text

    n = piece.get("n")
    n_range = (n, n) if isinstance(n, int) else (n[0], math.inf if n[1] is None else n[1])
    shown = "".join(display(line) for line in lines)
    return f"For {prose(n_text(n_range))}, exactly:\n{shown}{prose(NONNEGATIVE)}\n"


def _counterexample(found, claim):
    """A certified counterexample: the case as a vector and a matrix, the comparison that fails there (when it
    is not the whole claim), its sides and the margin."""
    vector = "s" if found.given == "logits" else "z"
    case = [f"{vector} = {_column(found.coefficients)}"]
    if found.given == "logits":
        case.append(f"z = \\sigma(s) \\approx {_column(found.z)}")
    matrix = _matrix(found.H)
    case.append(f"H = {matrix}" if matrix.startswith("\\begin") else matrix)
    case += [f"{name} = {_number(value)}" for name, value in found.constants]
    where = "the claim fails" if found.comparison == claim else f"the comparison\n{display(found.comparison)}fails"
    lines = [f"\\textit{{Counterexample}} ($n = {found.n}$), certified with ball arithmetic:\n",
             display(",\\quad ".join(case)), f"There {where}"]
    if found.lhs is not None:
        lines.append(f": its left side is ${found.lhs}$ and its right side ${found.rhs}$")
    lines.append(f", a margin of ${found.margin}$ (a comparison holds where its margin is positive, or zero when it "
                 "is not strict).\n")
    return "".join(lines)


def _column(values):
    """A column vector written as a transposed row, which a display may break after any comma."""
    return "(" + ",\\ ".join(_number(v) for v in values) + ")^{\\top}"


def _matrix(rows):
    """A matrix, or, when it is too wide for a line, its rows one after another (H_{k\\cdot} = row k)."""
    matrix = "\\begin{pmatrix}" + " \\\\ ".join(" & ".join(_number(v) for v in row) for row in rows) + "\\end{pmatrix}"
    if width(matrix) <= LINE_CHARACTERS - 8:  # room for "H = " and the brackets
        return matrix
    return ";\\quad ".join(f"H_{{{k}\\cdot}} = (" + ",\\ ".join(_number(v) for v in row) + ")"
                            for k, row in enumerate(rows, 1))


def _number(text):
    r"""An exact decimal of a case as LaTeX: as written up to 12 characters, else rounded to 8 digits (the
    certificate holds it exactly); 1E+5 as 1 \cdot 10^{5}."""
    if len(text) > 12:
        text = decimal(text, 8, strip_zeros=True, min_fixed=-4, max_fixed=6)
    mantissa, _, exponent = text.lower().partition("e")
    return f"{mantissa} \\cdot 10^{{{int(exponent)}}}" if exponent else mantissa


def _pieces(proof):
    """Which facts each piece of the domain (and each conjunct of a claim joined by `and`) used."""
    every = {fact for _, fact, _, _ in proof.facts}
    lead = "The prover decides the domain piece by piece (index expressions coincide at small $n$)"
    if all(set(ids) == every for _, ids in proof.pieces):
        return f"{lead}: {'; '.join(prose(where) for where, _ in proof.pieces)}, each from all of these facts.\n"
    uses = "".join(f"  \\item {prose(where)}: " + ", ".join(f"\\texttt{{{texttt(i)}}}" for i in ids) + "\n"
                   for where, ids in proof.pieces)
    return f"{lead}; the facts each piece uses:\n\\begin{{itemize}}\\raggedright\n{uses}\\end{{itemize}}\n"


def _sources(facts):
    """The facts' sources, each once, after the ids that cite it (in the order the facts are listed)."""
    cited = {}
    for _, fact, source, _ in facts:
        cited.setdefault(source, []).append(f"\\texttt{{{texttt(fact)}}}")
    return "; ".join(f"{', '.join(ids)}: {prose(source)}" for source, ids in cited.items())
