"""A case's H read entry by entry as exact rationals, within one bound on their digits over the whole matrix
(verify.claims.cases.case parses and validates the rest)."""
from verify.base.errors import InputError

MAX_MATRIX_BITS = 2_000_000_000  # bits of H's exact entries, in all (a dense float64 H of 1000 rows: 0.1–1 billion)


class Entries:
    """H's entries, each text parsed once (an n × n matrix of one long number makes one Fraction, not n² copies), within
    MAX_MATRIX_BITS bits of exact rationals over all n² entries: the exact work on H costs that much (40,000 entries of
    100,000 digits took 2.5–3.4 GB and up to half a minute), while a dense float64 H of 1000 rows carries 0.1 billion
    bits (entries near 1) to 1 billion (entries near 1e-300: a decimal exponent is bits of the denominator)."""

    def __init__(self, where, parse):
        self.where, self.parse, self.by_text, self.by_value, self.bits = where, parse, {}, {}, 0

    def __call__(self, value, where):
        key = (type(value), value) if isinstance(value, (str, int, float)) else None
        number = self.by_text.get(key) if key is not None else None
        if number is None:
            number = self.parse(value, where)
            number = self.by_value.setdefault(number, number)
            if key is not None:
                self.by_text[key] = number
        self.bits += number.numerator.bit_length() + number.denominator.bit_length()
        if self.bits > MAX_MATRIX_BITS:
            raise InputError(f"{self.where} H's entries carry more than {MAX_MATRIX_BITS:,} bits of exact digits in all; "
                             "give entries of fewer digits or exponents nearer 0 (float64 numbers of moderate size "
                             "are plenty for H; rescale a tiny or huge H)")
        return number
