"""The result of deciding a claim: a margin, an enclosure of it, and whether 0 is a failure."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Outcome:
    """A claim's margin (≥ 0 holds), an enclosure [lower, upper] of it, and whether 0 itself fails (strict)."""

    margin: object  # float, mpf or arb ball
    lower: object  # enclosure of the margin
    upper: object
    strict: bool  # at margin exactly 0 the claim fails

    @property
    def decided(self):
        return bool(self.lower > 0 or self.upper < 0 or self.lower == self.upper)

    @property
    def error(self):
        """Half-width of the enclosure around the margin (the ball's radius for arb)."""
        return max(self.margin - self.lower, self.upper - self.margin)

    @property
    def holds(self):
        if not self.decided:
            return True
        return bool(self.margin > 0 or (self.margin == 0 and not self.strict))


def signed_outcome(d, e, op):
    """The Outcome of a signed difference d ± e under operator op."""
    if op in (">=", ">"):
        return Outcome(d, d - e, d + e, op == ">")
    if op in ("<=", "<"):
        return Outcome(-d, -d - e, -d + e, op == "<")
    gap = abs(d)
    upper = -(gap - e) if gap > e else 0 * gap
    return Outcome(-gap, -(gap + e), upper, False)
