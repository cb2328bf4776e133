"""The certificate file format, in one place: its version tag, the keys of each kind, how a body is built and
read (exact keys, the recorded precision), the file name, and how a number is recorded and matched again.

Three kinds share one format (JSON; keys validated exactly: an unknown or missing key is refused):
- "counterexample": a formula claim (built-in or user) failing at a case, with its binding comparison's sides
  and margin (verify.claims.certificates.counterexample);
- "several-examples": T2.multi's two sides as balls at several examples (verify.claims.certificates.several);
- "proof": a PROVED (or proved-false) claim's facts and SMT-LIB2 queries (verify.claims.certificates.proof).

One tolerance rule for every recorded number (`side_matches`): a recorded decimal of at least the certificate's
digits lies in the recomputed ball, widened by half a unit in the decimal's last digit and nothing more.
"""
import re

import flint

from verify.base import options
from verify.claims.language.balls import UNDEFINED, Huge
from verify.base.errors import InputError
from verify.numerics.arb import arb_to_mpf
from verify.numerics.precision import decimal
from verify.base.options import CERTIFY_DPS, MAX_DPS
from verify.base.printable import shown

FORMAT = "verify-certificate/2"
_HEAD = ("format", "kind", "claim", "reading")
KEYS = {
    "counterexample": _HEAD + ("statement", "domain", "sha256", "inputs", "binding", "margin", "dps", "bits"),
    "several-examples": _HEAD + ("inputs", "inequality", "lhs", "rhs", "margin", "dps"),
    "proof": _HEAD + ("statement", "domain", "sha256", "verdict", "lemmas", "pieces", "solvers", "inputs"),
}
DECIMAL = re.compile(r"-?[0-9]{1,1100}(\.[0-9]{0,1100})?(e[+-]?[0-9]{1,20})?")  # a number as side_text writes it


def body(kind, **fields):
    """A certificate of `kind` holding `fields`, its keys in the format's order; a missing or extra field is a
    programming error (ValueError), never a file that `check` would refuse."""
    data = {"format": FORMAT, "kind": kind, **fields}
    if set(data) != set(KEYS[kind]):
        raise ValueError(f"a {kind} certificate has {', '.join(KEYS[kind])}, not {', '.join(data)}")
    return {key: data[key] for key in KEYS[kind]}


def kind_of(data, where):
    """The kind of a certificate read from a file, its keys checked exactly; InputError for anything else."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(f"{where} is not a {FORMAT} certificate (an older format, or not a certificate); "
                         "re-run the search to write a new one")
    kind = data.get("kind")
    if not isinstance(kind, str) or kind not in KEYS:
        *others, last = KEYS
        raise InputError(f"{where} has kind {shown(kind, 40)}; a certificate is a {', '.join(others)} or {last}")
    _exact_keys(data, KEYS[kind], where)
    return kind


def _exact_keys(data, keys, where):
    """InputError unless data has exactly `keys` (an unknown key is a misspelling until shown otherwise)."""
    missing = [k for k in keys if k not in data]
    unknown = [k for k in data if k not in keys]
    if missing:
        raise InputError(f"{where} lacks {', '.join(missing)}; a certificate of this kind has {', '.join(keys)}")
    if unknown:
        raise InputError(f"{where} has the unknown key {shown(unknown[0], 200)}; a certificate of this kind has only {', '.join(keys)}")


def checked_dps(dps, where):
    try:
        return options.dps(dps, CERTIFY_DPS)
    except InputError as error:
        raise InputError(f"{where}: {error} (a certificate records {CERTIFY_DPS} to {MAX_DPS} digits)") from None


MAX_RECORDED_BITS = 1 << 16  # the most precision a certificate records (the balls stop doubling below it)


def checked_bits(bits, where):
    """A certificate's recorded precision (informational: check chooses its own): a whole number of bits."""
    if isinstance(bits, bool) or not isinstance(bits, int) or not 1 <= bits <= MAX_RECORDED_BITS:
        raise InputError(f"{where} bits = {shown(bits, 40)} is not a precision a certificate records (a whole number "
                         f"from 1 to {MAX_RECORDED_BITS:,}); restore the value the tool wrote, or write the certificate again")
    return bits


def file_name(claim_id, reading):
    return f"{claim_id}.{reading}.json" if reading else f"{claim_id}.json"


def side_text(x, dps):
    """A number as a certificate records it: a decimal of `dps` digits, ±exp(L) for a Huge value, or "undefined"."""
    if x is UNDEFINED:
        return "undefined"
    if isinstance(x, Huge):
        return ("-" if x.sign < 0 else "") + f"exp({decimal(arb_to_mpf(x.log), dps)})"
    if not x.is_finite():
        return "nan"
    return decimal(arb_to_mpf(x), dps)


def side_matches(recorded, ball, dps):
    """The one tolerance rule: whether a recorded number (text) is the recomputed ball's, up to the recorded digits."""
    if recorded == "undefined" or ball is UNDEFINED:
        return recorded == "undefined" and ball is UNDEFINED
    if not isinstance(recorded, str):
        return False
    if isinstance(ball, Huge) or recorded.lstrip("-").startswith("exp("):
        if not isinstance(ball, Huge) or recorded.startswith("-") != (ball.sign < 0):
            return False
        return side_matches(recorded.lstrip("-")[4:-1], ball.log, dps)
    if not isinstance(ball, flint.arb) or not ball.is_finite() or not DECIMAL.fullmatch(recorded) or \
            significant_digits(recorded) < min(dps, 1000):
        return False  # a certificate's numbers are decimals carrying the digits it says it has
    value = flint.arb(recorded)  # a ball around the decimal: its exponent may be beyond any user number's
    return bool(abs(value - ball.mid()) <= ball.rad() + value.rad() + half_ulp(recorded) * flint.arb("1.000001"))


def significant_digits(text):
    """Significant digits written in a decimal ("0.00120" has 3; zero counts as fully written)."""
    mantissa = text.lower().lstrip("+-").partition("e")[0].replace(".", "").lstrip("0")
    return len(mantissa) if mantissa else 10**6


def half_ulp(text):
    """Half a unit in the last written digit of a decimal ("1.250e-3" → 0.5e-6): the rounding a
    correctly rounded number may carry, and all the slack `check` allows beyond the ball's radius. Zero is
    written whole ("0.0" is exactly 0, as side_text writes a zero ball): no slack."""
    mantissa, _, exponent = text.lower().lstrip("+-").partition("e")
    if not mantissa.replace(".", "").strip("0"):
        return flint.arb(0)
    decimals = len(mantissa.partition(".")[2])
    return flint.arb(10) ** (int(exponent or 0) - decimals) / 2
