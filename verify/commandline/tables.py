"""Tables (rich) and JSON shapes for the CLI: the one place that prints; the library never does.

Numbers in a table are never cut: each is shown to a fixed number of significant digits with its
exponent (`number_text`), numeric columns do not wrap, and a prose column is never narrower than
the longest number it holds, so rich wraps prose only between words, never inside a number.
"""
import re

from verify.commandline.terminal import safe_console
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from verify.claims.record import READING_TEXT
from verify.numerics.precision import decimal
from verify.base.versions import package_versions
from verify.claims.results import VerdictKind

VERDICT_STYLE = {VerdictKind.PROVED: "bold green", VerdictKind.CERTIFIED: "green", VerdictKind.HOLDS: "cyan",
                 VerdictKind.REFUTED: "bold red", VerdictKind.INCONCLUSIVE: "yellow", VerdictKind.ASSUMED: "yellow",
                 VerdictKind.INTERRUPTED: "magenta",
                 VerdictKind.CONTRADICTION: "bold white on red"}
SHOWN_DIGITS = 6  # significant digits of a number in a table (the JSON has them all)
VALUE_DIGITS = 15  # case mode's spectrum, whose digits are the point of asking
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_HUGE = re.compile(r"([-+]?)exp\((.*)\)")  # a value beyond any float, given as ±exp(its logarithm)
SOLVER_NAMES = {"z3": "Z3"}


def number_text(value, digits=SHOWN_DIGITS):
    """A number as a table shows it: `digits` significant digits with its exponent ("-9.995e-4", "4.6e+607");
    an int as it is; ±exp(x) (beyond any float) with x shortened alike; other text ("undefined") as given."""
    if value is None:
        return "—"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        huge = _HUGE.fullmatch(value.strip())
        if huge:
            return f"{huge[1]}exp({number_text(huge[2], digits)})"
        if not NUMBER.fullmatch(value.strip()):
            return value
        if re.fullmatch(r"[-+]?\d+", value.strip()) and len(value.strip()) <= digits + 1:
            return value.strip()  # a short integer: all its digits
    try:
        return decimal(value, digits, strip_zeros=True, min_fixed=-3, max_fixed=digits + 1)
    except (ValueError, OverflowError, TypeError):  # a value mpmath cannot print (a giant exponent, a NaN text)
        return "—"


def _number_list(values):
    """A (nested) list of numbers, each shortened by number_text."""
    if isinstance(values, (list, tuple)):
        return "[" + ", ".join(_number_list(v) for v in values) + "]"
    return number_text(values)


def _widest_number_word(texts):
    """The width of the widest word of `texts` that holds a digit (a file path aside): the least width of a
    prose column, so that rich, which wraps between words, never folds a number across lines."""
    words = [w for text in texts for w in str(text).split() if any(ch.isdigit() for ch in w) and "/" not in w]
    return max(map(len, words), default=1)


GREEK_NAMES = {"lambda": "λ", "mu": "μ", "kappa": "κ", "sigma": "σ", "pi": "π"}
SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
RELATION_SIGNS = {">=": "≥", "<=": "≤", "==": "=", "!=": "≠"}


def formula_text(text):
    """A claim's formula (claim-language text) in compact Unicode for a table: λ_max ≥ L_T·z_min², κ ≤ (L_T/μ_T)·R²."""
    out = re.sub(r"\b(lambda|mu|kappa|sigma|pi)(?=\b|_|\()", lambda m: GREEK_NAMES[m.group(1)], text)
    # an integer exponent (a negative one bracketed) as a superscript, unless a power follows (10**10**10: 10^10¹⁰)
    out = re.sub(r"\*\*(\d+|\(-\d+\))(?![\d.eE]|\s*\*\*)", lambda m: m.group(1).strip("()").translate(SUPERSCRIPT), out)
    out = re.sub(r"\s*(>=|<=|==|!=)\s*", lambda m: f" {RELATION_SIGNS[m.group(1)]} ", out)
    out = re.sub(r"(\s*)\*(\s*)", r"\1·\2", out.replace("**", "^"))  # spaced as written: a / b · c stays (a/b)·c
    return re.sub(r"\bsqrt\(", "√(", out)


def evidence_text(result):
    """The evidence column: dispatched on the evidence's type (as SymPy's printer dispatches `_print_<Type>`)."""
    evidence = result.evidence
    for kind in type(evidence).__mro__:
        method = globals().get(f"_text_{kind.__name__}")
        if method:
            return method(evidence, result)
    raise TypeError(f"no renderer for evidence of type {type(evidence).__name__}")


def _text_SearchEvidence(e, result):
    parts = [_cases_line(e)]
    if e.counterexample is not None:
        parts.append(_counterexample_line(e))
    elif e.worst_margin is not None:
        parts.append(_worst_margin_line(e, result.verdict))
    if e.tight:
        parts.append(e.tight)  # the engine's words: how many cases stayed tight, equal to how many digits
    if e.proof is not None:
        parts.append(_proof_line(e.proof, result.verdict))
    if e.two_tokens:
        parts.append(e.two_tokens)
    if e.dependence_on_R:
        dep = e.dependence_on_R
        parts.append(f"d/dR bound = {dep['derivative']} ({dep['verdict']}: {dep['meaning']})")
    if e.certificate_check and result.verdict.kind is not VerdictKind.REFUTED:
        parts.append(f"check: {e.certificate_check}")
    if result.certificate:
        parts.append("certificate: listed below the table")
    if e.note:
        parts.append(e.note)
    return "\n".join(p for p in parts if p)


def _cases_line(e):
    rechecked = [f"{e.precise_rechecks} re-decided in mpmath"] if e.precise_rechecks else []
    rechecked += [f"{e.ball_decisions} by balls"] if e.ball_decisions else []
    structured = f" + {e.structured_cases} structured" if getattr(e, "structured_cases", None) else ""
    return f"{e.samples} random + {e.adversarial_examples} adversarial{structured} cases" + \
        (f" ({', '.join(rechecked)})" if rechecked else "")


def _worst_margin_line(e, verdict):
    """The least margin among the decided cases (the engine records no other); a negative one outside a REFUTED
    row is a failure the search saw but the balls did not certify, and is said to be so."""
    line = f"worst margin {number_text(e.worst_margin)} (n = {e.worst_case_n})"
    if verdict.kind is not VerdictKind.REFUTED and str(e.worst_margin).startswith("-"):
        line += ": a failure not certified, not a counterexample"
    return line


def _counterexample_line(e):
    c = e.counterexample
    sides = (f"{number_text(c.lhs)} vs {number_text(c.rhs)}, margin {number_text(c.margin)}" if c.lhs is not None
             else f"margin {number_text(c.margin)}")
    if "structured" in c.inputs:
        return _structured_line(c, sides)
    coefficients = ("logits", c.inputs["logits"]) if "logits" in c.inputs else ("z", c.inputs.get("z"))
    how = "counterexample, shrunk" if e.shrunk else "counterexample"
    random = f"; {e.random_counterexamples} random case(s) fail" if e.random_counterexamples else ""
    H = c.inputs["H"]
    shortened = len(H) > LISTED or len(coefficients[1]) > LISTED
    how_shown = "shortened; whole and exact in the certificate" if shortened else \
        f"to {SHOWN_DIGITS} digits; exact in the certificate"
    return (f"{how}: n = {c.n}, {coefficients[0]} {_vector_text(coefficients[1])}, H {_matrix_text(H)} "
            f"({how_shown}); {c.inequality} fails: {sides}{random}")


def _structured_line(c, sides):
    """A structured counterexample by its structure: two-level z and H (verify.claims.cases.structured)."""
    form = c.inputs["structured"]
    n, top, ratio = form["n"], form["top"], form["ratio"]
    z = "uniform z" if ratio == "1" or top == n else f"z two-level: {top} token(s) at {ratio}× the other {n - top}"
    (kind, (first, second)), = form["H"].items()
    H = (f"H = {first}·I" + (f" + {second}·11ᵀ" if second != "0" else "")) if kind == "isotropic" else \
        f"H diagonal: {first} on the top, {second} below"
    return f"structured counterexample: n = {n}, {z}, {H} (exact in the certificate); {c.inequality} fails: {sides}"


LISTED = 6  # a counterexample's vectors and matrices up to this size are shown whole in a table


def _vector_text(values):
    """A vector whole up to LISTED entries, else its first three and last two around an ellipsis."""
    if len(values) <= LISTED:
        return _number_list(values)
    return "[" + ", ".join(map(number_text, values[:3])) + ", …, " + ", ".join(map(number_text, values[-2:])) + \
        f"] ({len(values)} entries)"


def _matrix_text(rows):
    """A matrix whole up to LISTED rows; larger, by its structure: I, a diagonal, or its size and first row."""
    from fractions import Fraction

    n = len(rows)
    if n <= LISTED:
        return _number_list(rows)
    exact = [[Fraction(str(v)) for v in row] for row in rows]
    if all(exact[i][j] == 0 for i in range(n) for j in range(n) if i != j):
        diagonal = [row[i] for i, row in enumerate(rows)]
        return f"I ({n}×{n})" if all(exact[i][i] == 1 for i in range(n)) else f"diag {_vector_text(diagonal)}"
    return f"{n}×{n}, first row {_vector_text(rows[0])}"


def _proof_line(proof, verdict):
    """One line: the domain, the fact families cited and each solver with its version and total seconds; or why not."""
    if proof.status in ("proved", "disproved"):
        families = list(dict.fromkeys(lemma["id"].split(".")[0] for lemma in proof.lemmas))
        what = "proof" if proof.status == "proved" else "proof of the negation"
        kind = f" ({_kind_text(proof)})" if proof.kind else ""
        return f"{what}{kind}: {proof.domain}; from {', '.join(families)}; {_solvers_text(proof)}"
    if verdict.is_(VerdictKind.HOLDS, VerdictKind.INCONCLUSIVE) and proof.reason:
        return f"prover: {proof.status}: {proof.reason}"
    return ""


def _kind_text(proof):
    """The kind of proof, naming the pieces that rest on the solvers alone when others have an identity."""
    alone = [piece["piece"] for piece in proof.pieces if piece.get("kind") != "algebraic identity"]
    if not alone or len(alone) == len(proof.pieces):
        return proof.kind
    return f"algebraic identity, except on {', '.join(dict.fromkeys(alone))}: Z3 and cvc5 alone"


def _solver_seconds(proof):
    """Each solver's seconds summed over the proof's pieces."""
    totals = {}
    for piece in proof.pieces:
        for solver, seconds in piece["seconds"].items():
            totals[solver] = totals.get(solver, 0) + seconds
    return totals


def _solvers_text(proof):
    versions = proof.solvers or {}
    return " + ".join(f"{SOLVER_NAMES.get(name, name)} {versions.get(name, '?')} {number_text(round(seconds, 3), 2)} s"
                      for name, seconds in _solver_seconds(proof).items())


def _text_MultiEvidence(e, result):
    parts = [f"{e.samples} random + {e.adversarial_examples} adversarial cases",
             f"dense vs block κ: worst relative gap {number_text(e.worst_relative_gap)}, largest relative ball radius "
             f"{number_text(e.largest_relative_radius)}, {e.disagreements} disjoint", e.method]
    if result.certificate:
        parts.append("certificate: listed below the table")
    parts += [text for text in (e.certificate_check, e.note) if text]
    return "\n".join(parts)


def _text_InterruptedEvidence(e, result):
    return e.note


def _text_RecordEvidence(e, result):
    """A flat record: one `name: value` line per field, in words (long lists and lists of records are left to
    --json)."""
    return "\n".join(f"{_field_words(k)}: {_value_words(v)}" for k, v in e.to_json().items()
                     if not isinstance(v, list) or (len(v) < 8 and not any(isinstance(x, dict) for x in v)))


def _field_words(key):
    """A field name read aloud: 'd_ge_nN_worst_kappa_error' → 'd ≥ nN: worst kappa error'."""
    words = f" {key.replace('_', ' ')} ".replace(" ge nN ", " ≥ nN: ").replace(" lt nN ", " < nN: ")
    return " ".join(words.split()).rstrip(":").replace("when d ≥ nN:", "when d ≥ nN").replace("when d < nN:", "when d < nN")


def _value_words(value):
    """A list as a list of words, not Python's repr."""
    if isinstance(value, list):
        return ", ".join(_value_words(v) for v in value)
    return str(value)


def theorem2_table(report, console=None, title=None):
    """A claim command's report as a rich table (claim and reading, verdict, evidence), then each proof in full
    and the readings explained."""
    console = console or safe_console()
    title = title or f"Theorem 2 / Eq. (47) — seed {report.seed}, {report.dps} digits, {report.seconds:.1f} s"
    evidence = [evidence_text(result) for result in report.claims]
    table = Table(title=title, show_lines=True)
    table.add_column("claim", overflow="fold")
    table.add_column("verdict", no_wrap=True)
    table.add_column("evidence", overflow="fold", min_width=_widest_number_word(evidence))
    for result, text in zip(report.claims, evidence):
        claim = Text(result.id)
        if result.reading:
            claim.append("\n" + result.reading, style="dim")
        if result.text:
            text = f"⊢ {formula_text(result.text)}\n{text}"  # the inequality the verdict is about, under its reading
        style = "green" if result.verdict.assumptions else VERDICT_STYLE[result.verdict.kind]
        verdict = Text(result.verdict.text, style=style)
        if result.disagrees:
            verdict.append(f"\n≠ expect\n{'true' if result.expect else 'false'}", style="bold red")
        table.add_row(claim, verdict, Text(text))
    console.print(table)
    certificates_text(report, console)
    if report.disagreements:
        ids = ", ".join(dict.fromkeys(r.id for r in report.disagreements))
        console.print(Text(f"{len(report.disagreements)} verdict(s) disagree with the claim file's expect: {ids}",
                           style="bold red"))
    proofs_text(report, console)
    if report.command == "theorem2":
        for name, meaning in READING_TEXT.items():
            console.print(f"[bold]{name}[/]: {meaning}", highlight=False)
    if report.command in ("theorem2", "claims"):
        console.print("margin ≥ 0 holds: ln(lhs/rhs) when both sides are positive, else (lhs − rhs)/max(|lhs|, |rhs|), "
                      "negated for ≤; re-check a certificate with `python -m verify check FILE`.", highlight=False)


def certificates_text(report, console):
    """Each certificate's path whole on its own line (a terminal may wrap it, but no newline splits it), so it
    copies straight into `python -m verify check`."""
    paths = [r.certificate for r in report.claims if r.certificate]
    if paths:
        console.print(Text("Certificates (re-check each with `python -m verify check FILE`):", style="bold"))
        for path in paths:
            console.print(Text(path), soft_wrap=True, highlight=False)


def proofs_text(report, console):
    """Below the table: each proof's pieces (facts, solver seconds), then every fact cited with its source."""
    proved = [(r, r.evidence.proof) for r in report.claims if getattr(r.evidence, "proof", None) is not None
              and r.evidence.proof.status in ("proved", "disproved")]
    if not proved:
        return
    console.print(Text("Proofs (Z3 and cvc5 each show the claim follows from the facts cited; an algebraic identity, "
                       "checked exactly, shows it by hand):", style="bold"))
    facts = {}
    for result, proof in proved:
        reading = f" ({result.reading})" if result.reading else ""
        kind = f" by {proof.kind}" if proof.kind else ""
        console.print(Text(f"{result.id}{reading}: {proof.status}{kind} for {proof.domain}, {number_text(proof.seconds, 3)} s"))
        for piece in proof.pieces:
            seconds = ", ".join(f"{SOLVER_NAMES.get(s, s)} {number_text(t, 3)} s" for s, t in piece["seconds"].items())
            how = f"; {piece['kind']}" if piece.get("kind") else ""
            console.print(Padding(Text(f"{piece['piece']}, part {piece['part']}: {', '.join(piece['lemmas'])} "
                                       f"({seconds}{how})"), (0, 0, 0, 2)))
        facts.update((lemma["id"], lemma) for lemma in proof.lemmas)
    console.print(Text("Facts cited, by source:", style="bold"))
    by_source = {}
    for fact_id in sorted(facts, key=_natural):
        by_source.setdefault(facts[fact_id]["source"], []).append(f"{fact_id}: {facts[fact_id]['text']}")
    for source, lines in by_source.items():
        console.print(Padding(Text(source, style="italic"), (0, 0, 0, 2)))
        for line in lines:
            console.print(Padding(Text(line), (0, 0, 0, 4)))


def _natural(fact_id):
    """F2.x before F10.x: a fact id's digits compared as numbers."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", fact_id)]


def assumption2_dimensions_table(report, console=None):
    """One user's dimensions: each reading's least violation and the rank bounds, then the decoupling errors
    (numbers to SHOWN_DIGITS digits, whole)."""
    console = console or safe_console()
    data = report.to_json()
    table = Table(title=f"Assumption 2 at n = {report.n}, N = {report.N}, d = {report.d} (nN = {report.n * report.N})")
    table.add_column("reading", no_wrap=True)
    for column in ("least\n‖KKᵀ − I‖₂", "least\n‖KKᵀ − I‖_F", "rank bound\n‖·‖₂", "rank bound\n‖·‖_F"):
        table.add_column(column, no_wrap=True, justify="right")
    for r in data["readings"]:
        numbers = [number_text(r[key]) for key in ("least_violation_spectral", "least_violation_frobenius",
                                                   "bound_spectral", "bound_frobenius")]
        satisfiable = "[green]satisfiable[/]" if r["satisfiable"] else "[red]not satisfiable[/]"
        table.add_row(f"{r['name']}\n{satisfiable}", *numbers)
    console.print(table)
    errors = Table(title="decoupled formulas against the truth at these dimensions (relative errors)")
    errors.add_column("quantity")
    errors.add_column("value", no_wrap=True, justify="right")
    for key, value in data["decoupling"].items():
        errors.add_row(key.replace("_", " "), number_text(value))
    console.print(errors)
    if report.verdicts is None:
        console.print(Text("No verdicts: deciding the claims needs d = nN within the size and cost bounds; run "
                           "`python -m verify assumption2` for the default sweep."))
    else:
        ds = ", ".join(str(d) for d in sorted({report.d, report.n * report.N - 1, report.n * report.N}))
        theorem2_table(report.verdicts, console, title=f"Assumption 2 claims at n = {report.n}, N = {report.N}, "
                                                       f"d ∈ {{{ds}}} (your d, and nN − 1, nN on both sides of nN)")


def derivations_json(results):
    from verify.document.mathtext import to_latex  # SymPy's printers: loaded only by the derivation commands

    return {"command": "derive", "versions": package_versions(), "derivations": [
        {"id": d.id, "name": d.name, "hypotheses": list(d.hypotheses),
         "result_latex": r",\quad ".join(to_latex(r) for r in d.result()),
         "checks": [{"kind": c.kind, "sizes": c.sizes, "passed": c.passed, "detail": c.detail,
                     "seconds": round(c.seconds, 2)} for c in checks]}
        for d, checks in results]}


def derivations_text(results, console=None):
    """Each derivation: a plain heading, its closed form as SymPy's Unicode art, then each check on a line
    (verdict, kind, sizes, seconds) with what it measured below it."""
    console = console or safe_console()
    for derivation, checks in results:
        console.rule(f"{derivation.id} · {derivation.name}", style="bold")
        for result in derivation.result():
            art = "\n".join("  " + line.rstrip() for line in _art(result, console.width - 2).splitlines())
            console.print("\n" + art + "\n", highlight=False, markup=False, soft_wrap=True)
        for check in checks:
            mark = "[green]passed[/]" if check.passed else "[bold red]FAILED[/]"
            console.print(f"  {mark}  {check.kind} · {check.sizes}  [dim]({check.seconds:.1f} s)[/]", highlight=False)
            console.print(Padding(Text(check.detail), (0, 0, 0, 4), expand=False), highlight=False)
        console.print()


def _art(result, width):
    """SymPy's Unicode art of a result; wider than `width`, an equation is drawn as its two sides, one under
    the other (never cut and wrapped)."""
    import sympy as sp

    from verify.document.mathtext import to_unicode

    art = to_unicode(result)
    if max(map(len, art.splitlines())) <= width or not isinstance(result, sp.Eq):
        return art
    return to_unicode(result.lhs) + " =\n" + "\n".join("    " + line for line in to_unicode(result.rhs).splitlines())
