"""Simplifying a counterexample before it is certified: fewer tokens, then shorter numbers, as long as the
claim still fails. The search's random and prover-seeded cases carry 50-digit decimals; a reader wants
the smallest n and small integers or short decimals; the Hypothesis search's failures come as drawn, so this is
their shrinking too (the logits at the floor e^-700 brought up to the least integer depth that still fails).

Greedy and bounded: each step proposes a simpler case (drop a token; H = I, an integer diagonal, H rounded
to 1…6 significant digits; logits rounded the same way, then one coordinate at a time to 0 or an integer, then
each below 0 up toward 0; the logits in descending order, H's rows and columns permuted alike),
validates it as a case file would be validated (symmetric, positive definite, in the claim's family and n
range), and keeps it when the claim still fails there. Every trial is an estimate (the engine's stages);
the result is certified afterwards like any other candidate, and the original stays as the fallback.
"""
from decimal import Context, Decimal
from fractions import Fraction

from verify.claims.cases.case import parse_case
from verify.claims.record import in_family
from verify.base.errors import InputError

MAX_TRIALS = 100  # cases decided per simplification (a count, not a time: the result does not depend on the machine)
DIGITS = (0, 1, 2, 3, 4, 6)  # significant digits tried, 0 meaning "round to an integer"


class _Budget:
    def __init__(self, max_trials):
        self.left = max_trials

    def spend(self):
        self.left -= 1
        return self.left >= 0


def simplify(case, still_fails, n_range=(2, float("inf")), family="spd", max_trials=MAX_TRIALS):
    """The simplest case found from `case` on which still_fails(case) is true (`case` itself if none is simpler).

    Cases whose coefficients were given as z are returned unchanged (see `can_simplify`)."""
    if not can_simplify(case):
        return case
    budget = _Budget(max_trials)

    def accept(logits, H):
        if not budget.spend():
            return None
        candidate = _valid_case(logits, H, case, n_range, family)
        if candidate is None or candidate == case:
            return None
        try:
            return candidate if still_fails(candidate) else None
        except (InputError, ArithmeticError, ValueError):
            return None

    case = _fewer_tokens(case, accept, n_range[0])
    case = _first_accepted(case, accept, ((case.logits, H) for H in _simpler_matrices(case.H)))
    case = _first_accepted(case, accept, ((logits, case.H) for logits in _simpler_vectors(case.logits)))
    case = _coordinatewise(case, accept)
    for i in range(case.n):  # after every coordinate's cheap tries: the ladder may spend a dozen trials on one
        case = _nearer_zero(case, i, accept)
    return _descending(case, accept)


def can_simplify(case):
    """Whether `simplify` can change the case: not one given as z (its logits are not rationals)."""
    return case.given == "logits"


def _fewer_tokens(case, accept, min_n):
    """Drop tokens (a logit and H's row and column) one at a time while the claim still fails."""
    dropped = True
    while dropped and case.n > min_n:
        dropped = False
        for i in reversed(range(case.n)):
            keep = [k for k in range(case.n) if k != i]
            found = accept([case.logits[k] for k in keep], [[case.H[r][c] for c in keep] for r in keep])
            if found is not None:
                case, dropped = found, True
                break
    return case


def _first_accepted(case, accept, proposals):
    for logits, H in proposals:
        found = accept(logits, H)
        if found is not None:
            return found
    return case


def _coordinatewise(case, accept):
    """Each logit in turn to 0, then to an integer, where the whole vector could not be rounded."""
    for i in range(case.n):
        for value in (Fraction(0), Fraction(round(case.logits[i]))):
            if case.logits[i] == value:
                break
            found = accept(_with(case.logits, i, value), case.H)
            if found is not None:
                case = found
                break
    return case


def _nearer_zero(case, i, accept):
    """A logit below 0 to -1 or, below -1, to the integer nearest 0 on the ladder -1, -2, -4, ... that still fails,
    bisected against the rung before it (the least such integer where failing is monotone in the logit)."""
    if case.logits[i] >= 0 or case.logits[i] == -1:
        return case
    if case.logits[i] > -1:  # a fraction of a unit: -1 is shorter to write
        return accept(_with(case.logits, i, Fraction(-1)), case.H) or case
    held, rung = 0, 1  # held: a magnitude known not to fail (0 was tried first)
    while rung < -case.logits[i]:
        found = accept(_with(case.logits, i, Fraction(-rung)), case.H)
        if found is not None:
            case = found
            break
        held, rung = rung, 2 * rung
    while -case.logits[i] - held > 1 and case.logits[i].denominator == 1:
        middle = (held - case.logits[i]) // 2
        found = accept(_with(case.logits, i, Fraction(-middle)), case.H)
        if found is not None:
            case = found
        else:
            held = middle
    return case


def _descending(case, accept):
    """The logits largest first, H's rows and columns permuted alike (every quantity of the language is unchanged)."""
    order = sorted(range(case.n), key=lambda k: -case.logits[k])
    if order == list(range(case.n)):
        return case
    return accept([case.logits[k] for k in order], [[case.H[r][c] for c in order] for r in order]) or case


def _with(logits, i, value):
    logits = list(logits)
    logits[i] = value
    return logits


def _simpler_matrices(H):
    n = len(H)
    yield [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]
    yield [[Fraction(max(1, round(H[i][i]))) if i == j else Fraction(0) for j in range(n)] for i in range(n)]
    for digits in DIGITS:
        yield [[_short(v, digits) for v in row] for row in H]


def _simpler_vectors(logits):
    yield [Fraction(0)] * len(logits)
    for digits in DIGITS:
        yield [_short(v, digits) for v in logits]


def _short(value, digits):
    """value rounded to `digits` significant decimal digits (0: to the nearest integer), exactly as a Fraction."""
    if digits == 0 or value == 0:
        return Fraction(round(value))
    rounded = Context(prec=digits).divide(Decimal(value.numerator), Decimal(value.denominator))
    return Fraction(rounded)


def _valid_case(logits, H, original, n_range, family):
    """The proposal as a validated Case in the claim's domain, or None (not symmetric positive definite, not in
    the family, L or μ no longer valid for the new H)."""
    if not n_range[0] <= len(logits) <= n_range[1]:
        return None
    top = max(logits)
    data = {"logits": [v - top for v in logits], "H": [list(row) for row in H]}  # exact Fractions, validated as a file's
    if len(logits) == original.n:
        data.update({k: getattr(original, k) for k in ("L", "mu") if getattr(original, k) is not None})
    try:
        candidate = parse_case(data)
    except InputError:
        return None
    return candidate if in_family(candidate.H, family) else None

