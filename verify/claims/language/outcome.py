"""The result of deciding a claim at one example: a margin, an enclosure of it, and its status.

Margin of a comparison `lhs OP rhs` (≥ 0 means it holds): ln(lhs/rhs) when both sides are
positive, else the scaled difference (lhs − rhs)/max(|lhs|, |rhs|); `<=`, `<` negate it, `==` is
−|…|. `and` takes the least margin, `or` the greatest, `not` negates it and flips strictness. A
claim whose value is undefined at the example (log of 0, a division by 0, the square root of a
negative number, anywhere in it) fails there.
"""
from dataclasses import dataclass

HOLDS, FAILS, TIGHT, UNDECIDED = "holds", "fails", "tight", "undecided"


@dataclass(frozen=True)
class Outcome:
    """A margin (float, mpf or arb ball), an enclosure [lower, upper] of it, whether margin 0 fails
    (strict), whether the claim is undefined at this example (then it fails, decided), and whether the balls
    left open whether it is defined (then it is undecided)."""

    margin: object
    lower: object
    upper: object
    strict: bool
    undefined: bool = False
    open: bool = False  # the balls could not settle whether the claim is defined here: [lower, upper] encloses the
    # margin if it is; it then fails for sure only when upper < 0 (false if defined, undefined otherwise)

    @property
    def decided(self):
        """The enclosure settles the sign: it excludes 0, or it is one exact point, or the claim is undefined."""
        if self.undefined:
            return True
        if self.open:  # false if defined, failing if not: it fails either way
            return bool(self.upper < 0)
        return bool(self.lower > 0 or self.upper < 0 or self.lower == self.upper)

    @property
    def holds(self):
        """Decided and ≥ 0 (> 0 for a strict claim), read off the enclosure; an undecided outcome does not
        hold (see `status`)."""
        if self.undefined or self.open or not self.decided:
            return False
        if self.lower > 0 or self.upper < 0:
            return bool(self.lower > 0)
        return bool(self.lower == 0 and not self.strict)  # one exact point: the margin is exactly 0

    @property
    def status(self):
        """holds / fails when decided; else tight (the sides agree to the precision used) or undecided
        (the margin is not even finite: an overflow or an uncertain definition)."""
        if self.decided:
            return HOLDS if self.holds else FAILS
        return TIGHT if _finite(self.lower) and _finite(self.upper) else UNDECIDED

    @property
    def error(self):
        """Half-width of the enclosure around the margin."""
        return max(self.margin - self.lower, self.upper - self.margin)


def _finite(x):
    """x is a finite number (float, mpf or arb)."""
    if hasattr(x, "is_finite"):
        return bool(x.is_finite())
    return bool(x == x and abs(x) != float("inf"))


def undefined_outcome():
    """A claim that is undefined at the example: it fails there."""
    return Outcome(float("nan"), float("nan"), float("nan"), False, undefined=True)


def negated(outcome):
    """`not`: the margin negated, strictness flipped (an undefined claim stays undefined)."""
    if outcome.undefined:
        return outcome
    return Outcome(-outcome.margin, -outcome.upper, -outcome.lower, not outcome.strict, open=outcome.open)
