"""A claim's decision at one case and its margin as text: the stage that decided it, and only the digits
of the margin that its enclosure vouches for."""
from dataclasses import dataclass

import flint
import mpmath as mp

from verify.numerics.arb import arb_to_mpf
from verify.numerics.precision import decimal, vouched_digits


@dataclass(frozen=True)
class Decision:
    """A job at one case: its Outcome and the stage that produced it ("float", digits, or "balls")."""

    outcome: object
    stage: object

    @property
    def status(self):
        return self.outcome.status

    @property
    def margin(self):
        """The margin as an mpf or float (NaN when undefined; +∞ for a statement about no k), for reports."""
        margin = self.outcome.margin
        if isinstance(margin, flint.arb):
            if margin.is_finite():
                return arb_to_mpf(margin)
            return mp.inf if margin > 0 else -mp.inf if margin < 0 else mp.nan
        return margin

    @property
    def vouched_digits(self):
        """How many significant digits of the margin its enclosure vouches for (verify.numerics.precision.vouched_digits;
        None: every digit it carries, being exact or not finite)."""
        return vouched_digits(self.margin, self.outcome.error)


def margin_text(margin, vouched=None):
    """Every digit of the margin its enclosure vouches for (`vouched`; None: every digit it carries, all of an
    mpf's mantissa, a float64's shortest round-trip decimal). The table shortens it, --json keeps it."""
    if margin == -mp.inf:
        return "undefined"
    if margin == mp.inf:
        return "inf"  # every case a statement about no k: it holds there
    if isinstance(margin, mp.mpf):
        carried = max(mp.libmp.prec_to_dps(margin.bc), 1)
        return decimal(margin, carried if vouched is None else min(carried, vouched))
    return repr(float(margin)) if vouched is None or vouched >= 17 else decimal(margin, vouched)
