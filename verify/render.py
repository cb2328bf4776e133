"""Tables (rich) and JSON shapes for the CLI: the one place that prints; the library never does."""
from rich.console import Console
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from verify.claims.record import READING_TEXT
from verify.numerics.precision import decimal
from verify.versions import package_versions

VERDICT_STYLE = {"PROVED": "bold green", "CERTIFIED": "green", "HOLDS": "cyan", "REFUTED": "bold red", "INCONCLUSIVE": "yellow",
                 "INTERRUPTED": "magenta"}


def evidence_text(result):
    """The evidence column: dispatched on the evidence's type (as SymPy's printer dispatches `_print_<Type>`)."""
    evidence = result.evidence
    for kind in type(evidence).__mro__:
        method = globals().get(f"_text_{kind.__name__}")
        if method:
            return method(evidence, result)
    raise TypeError(f"no renderer for evidence of type {type(evidence).__name__}")


def _text_SearchEvidence(e, result):
    parts = [f"{e.samples} random + {e.adversarial_examples} adversarial cases"]
    if e.worst_margin is not None and e.counterexample is None:
        parts.append(f"worst ln-margin {e.worst_margin} (n={e.worst_case_n})")
    if e.two_tokens:
        parts.append(e.two_tokens)
    if e.dependence_on_R:
        dep = e.dependence_on_R
        parts.append(f"d/dR bound = {dep['derivative']} ({dep['verdict']}: {dep['meaning']})")
    if e.counterexample:
        c = e.counterexample
        coefficients = c.inputs.get("logits", c.inputs.get("z"))
        how = f"{c.lhs[:12]} vs {c.rhs[:12]}" if c.lhs is not None else f"margin {c.margin[:12]}"
        parts.append(f"smallest counterexample n={c.n}: logits {coefficients}, H {c.inputs['H']}; "
                     f"{c.inequality} fails: {how}")
    if result.certificate:
        parts.append(f"certificate {result.certificate}")
    if e.note:
        parts.append(e.note)
    return "\n".join(parts)


def _text_MultiEvidence(e, result):
    parts = [f"{e.samples} random + {e.adversarial_examples} adversarial cases",
             f"dense vs block κ: worst relative gap {e.worst_relative_gap}, largest relative ball radius "
             f"{e.largest_relative_radius}, {e.disagreements} disjoint", e.method]
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
    """A claim command's report as a rich table, with the readings explained."""
    console = console or Console()
    title = title or f"Theorem 2 / Eq. (47) — seed {report.seed}, {report.dps} digits, {report.seconds:.1f} s"
    table = Table(title=title, show_lines=True)
    table.add_column("claim", no_wrap=True)
    table.add_column("reading", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    table.add_column("evidence", overflow="fold")
    for result in report.claims:
        style = VERDICT_STYLE.get(result.verdict, "")
        table.add_row(result.id, result.reading or "—", f"[{style}]{result.verdict}[/]", evidence_text(result))
    console.print(table)
    if report.command == "theorem2":
        for name, meaning in READING_TEXT.items():
            console.print(f"[bold]{name}[/]: {meaning}", highlight=False)
        console.print("ln-margin = ln(lhs/rhs), signed so that ≥ 0 holds; re-check a certificate with "
                      "`python -m verify check FILE`.", highlight=False)


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
             "margin": decimal(r.margin), "holds": bool(r.holds), "rigorous": r.rigorous}
            for r in report.rows
        ],
    }


def _short(value):
    import mpmath as mp

    return mp.nstr(value, 6)


def case_table(case, report, console=None):
    """Case mode as two tables: the spectrum with its enclosures, and the claims."""
    console = console or Console()
    q = report.spectrum
    summary = Table(title=f"J H J on T, n = {q.n} ({q.dps} digits, relative error ≤ {q.rel_err:.1e})")
    summary.add_column("quantity")
    summary.add_column("value")
    summary.add_column("rigorous enclosure (radius)")
    for name in ("lambda_max", "lambda_min", "kappa", "L_T", "mu_T", "R"):
        enclosure = ball_json(getattr(report.balls, name))["rad"] if report.balls is not None else "—"
        summary.add_row(name, decimal(getattr(q, name)), f"± {enclosure}")
    console.print(summary)
    claims = Table(title="claims at this case (margin = ln(lhs/rhs), ≥ 0 holds; rigorous: what Arb balls alone decide)")
    for column in ("claim", "reading", "binding inequality", "lhs", "rhs", "margin", "holds", "rigorous"):
        claims.add_column(column, overflow="fold")
    for r in report.rows:
        claims.add_row(r.claim, r.reading or "—", r.label, _short(r.lhs), _short(r.rhs), _short(r.margin),
                       "[green]holds[/]" if r.holds else "[red]fails[/]", r.rigorous)
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
    console = console or Console()
    data = report.to_json()
    table = Table(title=f"Assumption 2 at n = {report.n}, N = {report.N}, d = {report.d} (nN = {report.n * report.N})")
    for column in ("reading", "satisfiable", "least ‖KKᵀ − I‖₂", "least ‖KKᵀ − I‖_F", "bounds (rank argument)"):
        table.add_column(column, overflow="fold")
    for r in data["readings"]:
        table.add_row(r["name"], "[green]yes[/]" if r["satisfiable"] else "[red]no[/]", r["least_violation_spectral"],
                      r["least_violation_frobenius"], f"{r['bound_spectral'][:8]}, {r['bound_frobenius'][:8]}")
    console.print(table)
    errors = Table(title="decoupled formulas against the truth at these dimensions (relative errors)")
    errors.add_column("quantity")
    errors.add_column("value")
    for key, value in data["decoupling"].items():
        errors.add_row(key.replace("_", " "), value)
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
