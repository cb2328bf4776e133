"""The claims as a LaTeX section: each claim's statement, formula, hypotheses and readings, then every
verdict the decision gave it (verify.document.latex_proofs rows): PROVED with its proof, REFUTED with its
counterexample, HOLDS or INCONCLUSIVE with what was searched.  Prose goes through `verify.document.mathtext.prose`."""
from typing import NamedTuple

from verify.numerics.precision import decimal  # the one number formatter

from verify.claims.results import VerdictKind
from verify.document.latex_display import LINE_CHARACTERS, display, width
from verify.document.mathtext import prose
from verify.document.usertext import shown, user_name, user_text


class ClaimRow(NamedTuple):
    """A claim as the document shows it: prose (Unicode math; a user's as UserText, set as text), its formula
    (math-mode LaTeX without delimiters, printed from the parsed claim), hypotheses (prose), readings (names; empty
    for a claim with a single reading, None where readings do not apply), its verdicts (VerdictRows, one per
    reading decided), the heading it is listed under, and a lemma's source (UserText; "" for a claim)."""

    id: str
    statement: str
    latex: str
    hypotheses: tuple = ()
    readings: tuple = None  # None: readings do not apply (nothing is said)
    verdicts: tuple = ()
    group: str = "Claims"
    source: str = ""


def claims_section(rows, title="Claims checked", label="sec:claims", intro=None):
    """The claims as a section: each row's statement, formula, hypotheses, readings and verdicts; rows of one
    group are listed together under its heading, groups in the order they first appear."""
    intro = intro or ("Each claim is a record of the toolkit's registry, shown with the verdict of "
                      "\\texttt{python -m verify theorem2} or \\texttt{python -m verify assumption2}.")
    lines = [f"\\section{{{title}}}\\label{{{label}}}\n", intro + "\n"]
    groups = list(dict.fromkeys(row.group for row in rows))
    for group in groups:
        if len(groups) > 1:
            lines.append(f"\\subsection{{{shown(group)}}}\n")
        lines += [_claim(row) for row in rows if row.group == group]
    return "".join(lines)


def _claim(row):
    lines = [f"\\paragraph{{\\texttt{{{user_name(row.id)}}}}} {shown(row.statement)}\n", display(row.latex)]
    sentences = []
    if row.hypotheses:
        sentences.append("Hypotheses: " + "; ".join(shown(h) for h in row.hypotheses) + ".")
    if row.source:
        sentences.append(f"Source: {shown(row.source)}.")
    if row.readings is not None:
        sentences.append(_readings(row.readings))
    lines.append(" ".join(sentences) + "\n")
    lines += [_verdict(verdict) for verdict in row.verdicts]
    return "".join(lines) + "\n"


def _readings(readings):
    if not readings:
        return "It has a single reading."
    names = [f"\\texttt{{{user_name(r)}}}" for r in readings]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"It is decided under {'its reading' if len(names) == 1 else 'each of its readings'}: {listed}."


def _verdict(row):
    """A verdict as the decision gave it, then why: a proof, a counterexample, or what was searched."""
    reading = f" under reading \\texttt{{{user_name(row.reading)}}}" if row.reading else ""
    lines = [f"\n\\noindent{verdict_text(row.verdict)}{reading}."]
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


def verdict_text(verdict):
    """A Verdict in bold, its assumptions (lemma ids) after it in type: PROVED assuming lem.a →
    \\textbf{PROVED} assuming \\texttt{lem.a}."""
    bold = f"\\textbf{{{user_text(verdict.kind.value)}}}"
    if not verdict.assumptions:
        return bold
    return f"{bold} assuming " + ", ".join(f"\\texttt{{{user_name(i)}}}" for i in verdict.assumptions)


def _sentence(text):
    """Prose of the decision (a note) as a sentence: a capital first letter, a full stop."""
    text = text.strip()
    return prose(text[:1].upper() + text[1:] + ("" if text.endswith(".") else "."))


def _proof(proof, refutes=False):
    """A proof: the facts cited as displayed inequalities (each with its id and, where narrower than the
    claim's, its domain), which facts each piece of the domain used, the argument the certificate holds
    (`proof_argument`), the claim file's lemmas it rests on (each with its verdict; an assumed one marked as an
    assumption) and the facts' sources."""
    rows = []
    for inequality, fact, _, where in proof.facts:
        note = f", {prose(where)}" if where else ""
        rows.append(f"  & {inequality} && \\text{{\\texttt{{{user_name(fact)}}}{note}}}")
    claim = "The claim fails for every case of its domain: its negation" if refutes else "The claim"
    if rows:
        lines = [f"\\textit{{Proof.}} {claim} follows from these facts:\n",
                 "\\begin{align*}\n", " \\\\\n".join(rows), "\n\\end{align*}\n"]
    else:
        lines = [f"\\textit{{Proof.}} {claim} follows from its domain alone, citing no fact.\n"]
    if len(proof.pieces) > 1:
        lines.append(_pieces(proof))
    lines.append(proof_argument(proof.certificate, proof.domain, refutes))
    if proof.lemmas:
        lines.append(lemmas_text(proof.lemmas))
    assumed = {lemma.id for lemma in proof.lemmas if lemma.assumed}  # their sources are in their own sentence
    sourced = [fact for fact in proof.facts if fact[1] not in assumed]
    lines.append(f"Sources: {_sources(sourced)}. \\hfill$\\square$\n" if sourced else "\\hfill$\\square$\n")
    return "".join(lines)


def lemmas_text(lemmas):
    """The claim file's lemmas a proof cites, each with its verdict: a proved one (its proof is shown with it), an
    assumed one named as an assumption, with its source."""
    proved = [lemma for lemma in lemmas if not lemma.assumed]
    assumed = [lemma for lemma in lemmas if lemma.assumed]
    sentences = []
    if proved:
        listed = "; ".join(f"\\texttt{{{user_name(lemma.id)}}} ({verdict_text(lemma.verdict)})" for lemma in proved)
        sentences.append(f"It cites lemmas of the claim file, each proved where it is listed: {listed}.")
    for lemma in assumed:
        sentences.append(f"It rests on the assumption \\texttt{{{user_name(lemma.id)}}} "
                         f"({verdict_text(lemma.verdict)}: taken as given, not proved; source: {shown(lemma.source)}).")
    return " ".join(sentences) + "\n"


def proof_argument(certificate, domain, refutes=False):
    """Why the cited facts imply the claim (its negation, when it `refutes`), from the proof certificate's
    data: each piece whose record holds an algebraic certificate (`algebra`, verify.claims.prover.algebraic)
    shows its substitutions, positivity lemmas and identities, checked exactly again here (why each term is
    nonnegative is said once per document: ALGEBRAIC_CERTIFICATES); the pieces without one are named, and the
    solvers' agreement alone covers them (every piece, when none has one)."""
    pieces = [piece for piece in (certificate or {}).get("pieces", ()) if isinstance(piece, dict)]
    lines = [_algebra_lines(certificate, piece) if piece.get("algebra") else None for piece in pieces]
    negated = "the claim" if refutes else "the negation"
    if not any(lines):
        return f"Both Z3 and cvc5 report {negated} unsatisfiable on {prose(domain)}.\n"
    out = [_identity(piece, shown_lines) for piece, shown_lines in zip(pieces, lines) if shown_lines]
    rest = list(dict.fromkeys(_piece_text(piece) for piece, shown_lines in zip(pieces, lines) if not shown_lines))
    if rest:
        out.append(f"On {'; '.join(prose(where) for where in rest)} no identity was found: there, only the solvers "
                   f"stand behind the proof (both Z3 and cvc5 report {negated} unsatisfiable).\n")
    return "".join(out)


ALGEBRAIC_CERTIFICATES = (
    "\\paragraph{Algebraic certificates.} Where a proof is shown ``exactly'', each displayed line is an identity "
    "between polynomials with rational coefficients, checked again over the rationals when this document was "
    "written. On its left stands the claim's slack (times a multiplier proved positive); on its right, a sum of "
    "terms, each a nonnegative rational times quantities proved positive times cited facts' slacks (each labelled "
    "with its fact, each nonnegative). So the right side is nonnegative (positive where a strict slack or lemma "
    "stands), and so is the claim's slack: no solver is needed to believe it.\n\n")


def _piece_text(piece):
    """Where a piece of a certificate lies, in prose: "n = 2", "n ≥ 3", with its conjunct when there are several."""
    import math

    from verify.document.latex_proofs import n_text

    n = piece.get("n")
    n_range = (n, n) if isinstance(n, int) else (n[0], math.inf if n[1] is None else n[1])
    return n_text(n_range)


def _algebra_lines(certificate, piece):
    """The displayed lines of one piece's algebraic certificate, rebuilt from the claim and checked (None when
    it does not check or cannot be read); a claim file's lemmas are read from the certificate itself."""
    import math

    from verify.claims.language.parser import parse_claim
    from verify.claims.prover import facts as library
    from verify.claims.prover.algebraic_check import algebra_from_data
    from verify.claims.prover.algebraic_latex import algebra_latex
    from verify.claims.prover.pieces import NotEncodable, Piece, conjuncts
    from verify.base.errors import InputError

    n, (lo, hi) = piece.get("n"), certificate["domain"]["n"]
    at = Piece(n=n) if isinstance(n, int) else Piece(lo=n[0], hi=math.inf if n[1] is None else n[1])
    try:
        tree = parse_claim(certificate["statement"], (lo, math.inf if hi is None else hi))
        known = {f.id: f for f in library.FACTS}
        known.update({entry["id"]: _lemma_fact(entry) for entry in certificate.get("lemmas", ())
                      if isinstance(entry, dict) and entry.get("id") not in known and "n" in entry})
        facts = [known[i] for i in piece.get("lemmas", ()) if i in known]
        return algebra_latex(algebra_from_data(piece["algebra"]), conjuncts(tree)[piece["part"]], at, facts)
    except (InputError, NotEncodable, ValueError, KeyError, IndexError, TypeError):  # NotEncodable: out of order there
        return None


def _lemma_fact(entry):
    """A claim file's lemma as a certificate records it, as a Fact."""
    import math

    from verify.claims.prover.facts import Fact

    lo, hi = entry["n"]
    return Fact(entry["id"], entry["text"], entry.get("source", ""), (lo, math.inf if hi is None else hi),
                entry.get("hessian", "spd"))


def _identity(piece, lines):
    """One piece's algebraic certificate, displayed line by line."""
    shown_lines = "".join(display(line) for line in lines)
    return f"For {prose(_piece_text(piece))}, exactly:\n{shown_lines}"


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
    if width(matrix) <= LINE_CHARACTERS - 8 and len(rows[0]) <= 10:  # room for "H = "; pmatrix holds 10 columns
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
    uses = "".join(f"  \\item {prose(where)}: " + ", ".join(f"\\texttt{{{user_name(i)}}}" for i in ids) + "\n"
                   for where, ids in proof.pieces)
    return f"{lead}; the facts each piece uses:\n\\begin{{itemize}}\\raggedright\n{uses}\\end{{itemize}}\n"


def _sources(facts):
    """The facts' sources, each once, after the ids that cite it (in the order the facts are listed)."""
    cited = {}
    for _, fact, source, _ in facts:
        cited.setdefault(source, []).append(f"\\texttt{{{user_name(fact)}}}")
    return "; ".join(f"{', '.join(ids)}: {shown(source)}" for source, ids in cited.items())
