"""Values echoed in messages and on the terminal, shown safely: one line, bounded in length, control characters
escaped, and giant integers shown by their leading digits and their length (Python's `str` refuses an int of more
than 4,300 digits with a ValueError, and would take quadratic time on a huge one anyway)."""
import unicodedata

SHOWN = 60  # characters of an echoed value, by default
_DIGITS_SHOWN = 12  # leading digits of a giant integer
_GIANT_BITS = 200  # an integer above this many bits is shown by its leading digits and its length
_DIGITS_COUNTED = 200_000  # bits beyond which the digits are estimated, not counted exactly
_ITEMS = 6  # items of a list, tuple or dict shown before "…"
_ESCAPED_CATEGORIES = ("Cc", "Cf", "Zl", "Zp", "Cs")  # control, format (bidi overrides), line and paragraph separators


def escaped(text, keep=""):
    """`text` with every control character (ESC, newline, carriage return, bidi overrides, …) written as an escape
    (`\\x1b`, `\\n`, `\\u202e`), except those in `keep` (a table keeps its "\\n")."""
    if text.isprintable() and not keep:
        return text
    return "".join(_escape_char(ch) if ch not in keep and unicodedata.category(ch) in _ESCAPED_CATEGORIES else ch
                   for ch in text)


def _escape_char(ch):
    return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(ch) or (f"\\x{ord(ch):02x}" if ord(ch) < 256 else
                                                              f"\\u{ord(ch):04x}" if ord(ch) < 65536 else
                                                              f"\\U{ord(ch):08x}")


def shown(value, limit=SHOWN):
    """`value` as a message echoes it (like repr): one line of at most about `limit` characters, "…" where cut."""
    return _cut(escaped(_text(value, limit)), limit)


def clipped(text, limit=SHOWN):
    """A value's own text (a number's digits, as the user wrote or the program computed them), escaped and cut to
    about `limit` characters, "…" where cut: no quotes, so a number reads as a number."""
    return _cut(escaped(str(text)[:limit + 1]), limit)


def _cut(text, limit):
    return text if len(text) <= limit else text[:max(limit - 1, 1)] + "…"


def _text(value, limit, depth=0):
    from fractions import Fraction

    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        return integer_text(value)
    if isinstance(value, Fraction):
        return f"Fraction({integer_text(value.numerator)}, {integer_text(value.denominator)})"
    if isinstance(value, str):  # cut inside its quotes, which stay: '0.1111…'
        text = repr(value[:limit + 1])
        return text if len(text) <= limit else text[:max(limit - 2, 2)] + "…" + text[0]
    if isinstance(value, (bytes, bytearray)):
        return repr(bytes(value[:limit + 1]))
    if isinstance(value, (list, tuple, dict, set, frozenset)):
        return _container_text(value, limit, depth)
    try:
        return repr(value)[:4 * limit + 8]
    except Exception:  # a repr that fails (a giant integer inside): the type alone
        return f"<{type(value).__name__}>"


def _container_text(value, limit, depth):
    opening, closing = {list: "[]", tuple: "()"}.get(type(value), "{}")
    if depth >= 3:
        return f"{opening}…{closing}"
    if isinstance(value, dict):
        parts = [f"{_text(k, limit, depth + 1)}: {_text(v, limit, depth + 1)}" for k, v in _first(value.items(), _ITEMS + 1)]
    else:
        parts = [_text(item, limit, depth + 1) for item in _first(value, _ITEMS + 1)]
    if len(parts) > _ITEMS:
        parts[_ITEMS:] = ["…"]
    return opening + ", ".join(parts) + closing


def _first(iterable, count):
    import itertools

    return list(itertools.islice(iter(iterable), count))


def integer_text(number):
    """An int in decimal; beyond _GIANT_BITS bits, its leading digits and its number of digits ("12345678901…
    (5001 digits)"), computed without `str` (and in bounded time: past _DIGITS_COUNTED bits the length is
    estimated from the bit length, "about N digits")."""
    magnitude = abs(number)
    if magnitude.bit_length() <= _GIANT_BITS:
        return str(number)
    sign = "-" if number < 0 else ""
    if magnitude.bit_length() > _DIGITS_COUNTED:
        return f"{sign}<an integer of about {int(magnitude.bit_length() * 0.30103):,} digits>"
    digits = _digit_count(magnitude)
    leading = magnitude // 10 ** (digits - _DIGITS_SHOWN)
    return f"{sign}{leading}… ({digits} digits)"


def _digit_count(magnitude):
    digits = int((magnitude.bit_length() - 1) * 0.30102999566398120) + 1  # exact or one short
    return digits + 1 if magnitude >= 10 ** digits else digits
