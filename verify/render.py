"""Tables (rich) and JSON shapes for the CLI: the one place that prints; the library never does.

Numbers in a table are never cut: each is shown to a fixed number of significant digits with its
exponent (`number_text`), numeric columns do not wrap, and a prose column is never narrower than
the longest number it holds, so rich wraps prose only between words, never inside a number.
"""
import re

import mpmath as mp
from rich import box
from rich.console import Console
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from verify.claims.record import READING_TEXT
from verify.numerics.precision import decimal
from verify.versions import package_versions

VERDICT_STYLE = {"PROVED": "bold green", "CERTIFIED": "green", "HOLDS": "cyan", "REFUTED": "bold red", "INCONCLUSIVE": "yellow",
                 "INTERRUPTED": "magenta", "CONTRADICTION": "bold white on red"}
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
    with mp.workdps(digits + 10):
        return mp.nstr(mp.mpf(value), digits, min_fixed=-3, max_fixed=digits + 1)


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
    if e.certificate_check and result.verdict != "REFUTED":
        parts.append(f"check: {e.certificate_check}")
    if result.certificate:
        parts.append(f"certificate {result.certificate}")
    if e.note:
        parts.append(e.note)
    return "\n".join(p for p in parts if p)


def _cases_line(e):
    rechecked = [f"{e.precise_rechecks} re-decided in mpmath"] if e.precise_rechecks else []
    rechecked += [f"{e.ball_decisions} by balls"] if e.ball_decisions else []
    return f"{e.samples} random + {e.adversarial_examples} adversarial cases" + (f" ({', '.join(rechecked)})" if rechecked else "")


def _worst_margin_line(e, verdict):
    """The least margin among the decided cases (the engine records no other); a negative one outside a REFUTED
    row is a failure the search saw but the balls did not certify, and is said to be so."""
    line = f"worst margin {number_text(e.worst_margin)} (n = {e.worst_case_n})"
    if verdict != "REFUTED" and str(e.worst_margin).startswith("-"):
        line += ": a failure not certified, not a counterexample"
    return line


def _counterexample_line(e):
    c = e.counterexample
    coefficients = ("logits", c.inputs["logits"]) if "logits" in c.inputs else ("z", c.inputs.get("z"))
    sides = (f"{number_text(c.lhs)} vs {number_text(c.rhs)}, margin {number_text(c.margin)}" if c.lhs is not None
             else f"margin {number_text(c.margin)}")
    how = "smallest counterexample, shrunk" if e.shrunk else "counterexample"
    random = f"; {e.random_counterexamples} random case(s) fail" if e.random_counterexamples else ""
    return (f"{how}: n = {c.n}, {coefficients[0]} {_number_list(coefficients[1])}, H {_number_list(c.inputs['H'])} "
            f"(to {SHOWN_DIGITS} digits; exact in the certificate); {c.inequality} fails: {sides}{random}")


def _proof_line(proof, verdict):
    """One line: the domain, the fact families cited and each solver with its version and total seconds; or why not."""
    if proof.status in ("proved", "disproved"):
        families = list(dict.fromkeys(lemma["id"].split(".")[0] for lemma in proof.lemmas))
        what = "proof" if proof.status == "proved" else "proof of the negation"
        return f"{what}: {proof.domain}; from {', '.join(families)}; {_solvers_text(proof)}"
    if verdict in ("HOLDS", "INCONCLUSIVE") and proof.reason:
        return f"prover: {proof.status}: {proof.reason}"
    return ""


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
        parts.append(f"certificate {result.certificate}")
    parts += [text for text in (e.certificate_check, e.note) if text]
    return "\n".join(parts)


def _text_InterruptedEvidence(e, result):
    return e.note


def _text_RecordEvidence(e, result):
    """A flat record: one `name: value` line per field (long lists are left to --json)."""
    return "\n".join(f"{k.replace('_', ' ')}: {v}" for k, v in e.to_json().items() if not isinstance(v, list) or len(v) < 8)


def theorem2_table(report, console=None, title=None):
    """A claim command's report as a rich table (claim and reading, verdict, evidence), then each proof in full
    and the readings explained."""
    console = console or Console()
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
        style = VERDICT_STYLE.get(result.verdict, "green" if result.verdict.startswith("PROVED assuming") else "")
        verdict = Text(result.verdict, style=style)
        table.add_row(claim, verdict, Text(text))
    console.print(table)
    proofs_text(report, console)
    if report.command == "theorem2":
        for name, meaning in READING_TEXT.items():
            console.print(f"[bold]{name}[/]: {meaning}", highlight=False)
    if report.command in ("theorem2", "claims"):
        console.print("margin ≥ 0 holds: ln(lhs/rhs) when both sides are positive, else (lhs − rhs)/max(|lhs|, |rhs|), "
                      "negated for ≤; re-check a certificate with `python -m verify check FILE`.", highlight=False)


def proofs_text(report, console):
    """Below the table: each proof's pieces (facts, solver seconds), then every fact cited with its source."""
    proved = [(r, r.evidence.proof) for r in report.claims if getattr(r.evidence, "proof", None) is not None
              and r.evidence.proof.status in ("proved", "disproved")]
    if not proved:
        return
    console.print(Text("Proofs (Z3 and cvc5 each show the claim follows from the facts cited):", style="bold"))
    facts = {}
    for result, proof in proved:
        reading = f" ({result.reading})" if result.reading else ""
        console.print(Text(f"{result.id}{reading}: {proof.status} for {proof.domain}, {number_text(proof.seconds, 3)} s"))
        for piece in proof.pieces:
            seconds = ", ".join(f"{SOLVER_NAMES.get(s, s)} {number_text(t, 3)} s" for s, t in piece["seconds"].items())
            console.print(Padding(Text(f"{piece['piece']}, part {piece['part']}: {', '.join(piece['lemmas'])} ({seconds})"),
                                  (0, 0, 0, 2)))
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


def ball_json(ball, digits=30):
    """An Arb ball as decimal strings: its midpoint, its radius, and an interval [lo, hi] of `digits`-digit
    decimals that contains it (Arb's own decimal conversion, which rounds outwards)."""
    mid, rad, exponent = ball.mid_rad_10exp(digits)
    scale = lambda m: decimal_from_integer(m, exponent)
    return {"mid": scale(mid), "rad": scale(rad), "interval": [scale(mid - rad), scale(mid + rad)]}


def decimal_from_integer(mantissa, exponent):
    """mantissa · 10^exponent, exactly, as a decimal string in scientific notation."""
    mantissa, exponent = int(mantissa), int(exponent)
    if mantissa == 0:
        return "0"
    sign, digits = ("-" if mantissa < 0 else ""), str(abs(mantissa))
    return f"{sign}{digits[0]}.{digits[1:] or '0'}e{exponent + len(digits) - 1:+d}"


def case_json(report):
    """Case mode's JSON: values at dps digits, their enclosures, and each claim's sides and verdicts."""
    q, balls = report.spectrum, report.balls
    return {
        "command": "theorem2 --case",
        "versions": package_versions(),
        "n": q.n,
        "lambda_max": decimal(q.lambda_max),
        "lambda_min": decimal(q.lambda_min),
        "kappa": decimal(q.kappa),
        "L_T": decimal(q.L_T),
        "mu_T": decimal(q.mu_T),
        "R": decimal(q.R),
        "relative_error": f"{q.rel_err:.1e}",
        "dps": q.dps,
        "enclosure_method": report.method,
        "enclosures": None if balls is None else {name: ball_json(getattr(balls, name)) for name in
                                                  ("lambda_max", "lambda_min", "kappa", "L_T", "mu_T", "L_amb", "mu_amb", "R")},
        "claims": [
            {"id": r.claim, "reading": r.reading, "inequality": r.label, "lhs": decimal(r.lhs), "rhs": decimal(r.rhs),
             "margin": decimal(r.margin), "holds": bool(r.holds), "rigorous": r.rigorous, "verdict": r.verdict}
            for r in report.rows
        ],
    }


def case_table(case, report, console=None):
    """Case mode as two tables, readable at 80 columns: the spectrum with its enclosures' radii, and the claims
    (id, reading and binding inequality in one wrapped cell; lhs, rhs and margin whole, on one line each)."""
    console = console or Console()
    q = report.spectrum
    summary = Table(title=f"J H J on T, n = {q.n} ({q.dps} digits, relative error ≤ {number_text(q.rel_err, 2)})")
    summary.add_column("quantity", no_wrap=True)
    summary.add_column(f"value ({VALUE_DIGITS} digits)", no_wrap=True)
    summary.add_column("rigorous enclosure", no_wrap=True)
    for name in ("lambda_max", "lambda_min", "kappa", "L_T", "mu_T", "R"):
        radius = ball_json(getattr(report.balls, name))["rad"] if report.balls is not None else None
        summary.add_row(name, number_text(getattr(q, name), VALUE_DIGITS), "—" if radius is None else f"± {radius}")
    console.print(summary)
    rows = [(r, [number_text(x) for x in (r.lhs, r.rhs, r.margin)]) for r in report.rows]
    claims = Table(title="claims at this case (margin ≥ 0 holds; CERTIFIED / REFUTED: decided by Arb balls alone, or exactly at a tie)",
                   box=box.SIMPLE_HEAD,
                   show_lines=True, pad_edge=False)
    claims.add_column("claim · reading · binding inequality", overflow="fold")
    for column in ("lhs", "rhs", "margin"):
        claims.add_column(column, justify="right", no_wrap=True)
    claims.add_column("verdict", no_wrap=True)
    for r, numbers in rows:
        claim = Text(r.claim, style="bold")
        claim.append(("\n" + r.reading if r.reading else "") + "\n" + r.label)
        verdict = Text(r.verdict, style=VERDICT_STYLE.get(r.verdict, ""))
        if r.verdict == "INCONCLUSIVE":
            verdict.append("\n" + ("holds" if r.holds else "fails") + f" at {number_text(r.margin)}", style="dim")
        claims.add_row(claim, *numbers, verdict)
    console.print(claims)


def spectrum_json(report):
    return {
        "command": "spectrum",
        "versions": package_versions(),
        "n": report.n,
        "eigenvalues": [decimal(v) for v in report.eigenvalues],
        "kappa_J": decimal(report.kappa_J),
        "kappa_JHJ": decimal(report.kappa_JHJ),
        "correct_digits": report.correct_digits,
        "method": report.method,
    }


def spectrum_table(report, console=None, shown=20):
    console = console or Console()
    table = Table(title=f"J(z), n = {report.n} ({report.method}; {report.correct_digits} correct digits)")
    table.add_column("k", justify="right")
    table.add_column("λ_k(J)")
    rows = list(enumerate(report.eigenvalues, 1))
    if len(rows) > shown:
        rows = rows[: shown // 2] + [None] + rows[-shown // 2:]
    for row in rows:
        table.add_row("…", "…") if row is None else table.add_row(str(row[0]), decimal(row[1]))
    console.print(table)
    console.print(f"κ_J (largest / smallest positive) = {decimal(report.kappa_J)}")
    if report.kappa_JHJ is not None:
        console.print(f"κ of J H J on T = {decimal(report.kappa_JHJ)}")


def assumption2_dimensions_table(report, console=None):
    """One user's dimensions: each reading's least violation and the rank bounds, then the decoupling errors
    (numbers to SHOWN_DIGITS digits, whole)."""
    console = console or Console()
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


def derivations_json(results):
    from verify.mathtext import to_latex  # SymPy's printers: loaded only by the derivation commands

    return {"command": "derive", "versions": package_versions(), "derivations": [
        {"id": d.id, "name": d.name, "hypotheses": list(d.hypotheses),
         "result_latex": r",\quad ".join(to_latex(r) for r in d.result()),
         "checks": [{"kind": c.kind, "sizes": c.sizes, "passed": c.passed, "detail": c.detail,
                     "seconds": round(c.seconds, 2)} for c in checks]}
        for d, checks in results]}


def derivations_text(results, console=None):
    """Each derivation: a plain heading, its closed form as SymPy's Unicode art, then each check on a line
    (verdict, kind, sizes, seconds) with what it measured below it."""
    console = console or Console()
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

    from verify.mathtext import to_unicode

    art = to_unicode(result)
    if max(map(len, art.splitlines())) <= width or not isinstance(result, sp.Eq):
        return art
    return to_unicode(result.lhs) + " =\n" + "\n".join("    " + line for line in to_unicode(result.rhs).splitlines())
