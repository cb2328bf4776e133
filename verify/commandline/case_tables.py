"""Case mode's and the spectrum command's tables and JSON: values with their rigorous enclosures, each
claim at the case on two lines, and headers that promise only what the columns show."""
import mpmath as mp
from verify.commandline.terminal import safe_console
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from verify.numerics.enclosures.balls import ball_json
from verify.numerics.precision import DIGITS, arb_to_mpf, decimal
from verify.claims.results import VerdictKind
from verify.commandline.tables import VALUE_DIGITS, VERDICT_STYLE, number_text
from verify.base.versions import package_versions


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
        "relative_error": f"{q.rel_err:.1e}",  # mpmath's estimate
        "enclosure_relative_radius": None if balls is None else upper_text(relative_radius(balls)),
        "dps": q.dps,
        "enclosure_method": report.method,
        "enclosures": None if balls is None else {name: ball_json(getattr(balls, name), q.dps + 20) for name in
                                                  ("lambda_max", "lambda_min", "kappa", "L_T", "mu_T", "L_amb", "mu_amb", "R")},
        "claims": [
            {"id": r.claim, "reading": r.reading, "inequality": r.label, "lhs": decimal(r.lhs), "rhs": decimal(r.rhs),
             "margin": r.margin if isinstance(r.margin, str) else decimal(r.margin), "holds": bool(r.holds), "rigorous": r.rigorous, "verdict": r.verdict.text}
            for r in report.rows
        ],
    }


SPECTRUM_NAMES = ("lambda_max", "lambda_min", "kappa", "L_T", "mu_T", "R")


def relative_radius(balls):
    """The largest radius / |midpoint| of the enclosures shown: what the enclosure column guarantees (inf when a
    quantity could not be enclosed at the most precision the ball path tries)."""
    worst = mp.mpf(0)
    with mp.workdps(20):
        for name in SPECTRUM_NAMES:
            ball = getattr(balls, name)
            if ball is None:
                return mp.inf
            mid, rad = arb_to_mpf(ball.mid()), arb_to_mpf(ball.rad())
            worst = max(worst, rad / abs(mid) if mid else mp.inf)
        return worst


def upper_text(value):
    """A non-negative number to two digits, rounded up (a radius or an error bound shown must still bound)."""
    if not value:
        return "0"
    if value == mp.inf:
        return "inf"
    try:
        with mp.workdps(30):
            exponent = int(mp.floor(mp.log10(value)))
            digits = int(mp.ceil(value / mp.mpf(10) ** (exponent - 1)))
    except (ValueError, OverflowError, ZeroDivisionError, TypeError):  # beyond what mpmath prints (a NaN radius)
        return "—"
    if digits >= 100:  # log10 just below a power of ten
        digits, exponent = -(-digits // 10), exponent + 1
    return f"{digits // 10}.{digits % 10}e{exponent:+d}" if digits >= 10 else f"{digits}.0e{exponent - 1:+d}"


def case_precision_text(report):
    """The header's promise, as the columns keep it: the digits asked for and the enclosures' actual relative
    radius (or, with no enclosures, mpmath's estimate)."""
    q = report.spectrum
    if report.balls is None:
        return f"{q.dps} digits asked; mpmath's estimated relative error {number_text(q.rel_err, 2)}, not a bound"
    return f"{q.dps} digits asked; enclosures' relative radius ≤ {upper_text(relative_radius(report.balls))}"


def case_table(case, report, console=None):
    """Case mode as two tables, readable at 80 columns: the spectrum with its enclosures' radii, and the claims
    (id, reading and binding inequality in one wrapped cell; lhs, rhs and margin whole, on one line each)."""
    console = console or safe_console()
    q = report.spectrum
    summary = Table(title=f"J H J on T, n = {q.n} ({case_precision_text(report)})")
    summary.add_column("quantity", no_wrap=True)
    summary.add_column(f"value ({VALUE_DIGITS} digits)", no_wrap=True)
    summary.add_column("rigorous enclosure", no_wrap=True)
    for name in SPECTRUM_NAMES:
        ball = None if report.balls is None else getattr(report.balls, name)
        radius = None if ball is None else upper_text(arb_to_mpf(ball.rad()))
        summary.add_row(name, number_text(getattr(q, name), VALUE_DIGITS), "—" if radius is None else f"± {radius}")
    console.print(summary)
    console.print(Text("claims at this case (margin ≥ 0 holds; CERTIFIED / REFUTED by Arb balls alone)",
                       style="italic"))
    for r in report.rows:
        console.print(case_claim_heading(r))
        console.print(Padding(case_claim_numbers(r), (0, 0, 0, 4), expand=False))


def case_claim_heading(row):
    """One claim at the case, its first line: id, reading and the binding inequality (wrapped between words)."""
    heading = Text(row.claim, style="bold")
    if row.reading:
        heading.append(f" · {row.reading}", style="dim")
    heading.append(f": {row.label}")
    return heading


def case_claim_numbers(row):
    """Its second line: both sides and the margin, whole, then the verdict."""
    line = Text(f"lhs {number_text(row.lhs)}   rhs {number_text(row.rhs)}   margin {number_text(row.margin)}   ")
    line.append(row.verdict.text, style=VERDICT_STYLE[row.verdict.kind])
    if row.verdict.kind is VerdictKind.INCONCLUSIVE:
        line.append(f" (mpmath: {'holds' if row.holds else 'fails'})", style="dim")
    return line


def spectrum_json(report):
    return {
        "command": "spectrum",
        "versions": package_versions(),
        "n": report.n,
        "eigenvalues": [decimal(v) for v in report.eigenvalues],
        "kappa_J": decimal(report.kappa_J),
        "kappa_JHJ": _kappa_JHJ_text(report),
        "kappa_JHJ_digits": report.kappa_JHJ_digits,
        "correct_digits": report.correct_digits,
        "method": report.method,
    }


def spectrum_table(report, console=None, shown=20):
    console = console or safe_console()
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
        console.print(f"κ of J H J on T = {_kappa_JHJ_text(report)} ({report.kappa_JHJ_digits} correct digits)")


def _kappa_JHJ_text(report):
    """κ of J H J to the digits it carries (at most DIGITS; one where its enclosure vouches for none)."""
    return decimal(report.kappa_JHJ, max(1, min(DIGITS, report.kappa_JHJ_digits))) if report.kappa_JHJ is not None \
        else None
