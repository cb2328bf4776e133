"""Syntax tree → claim-language text, with the fewest parentheses Python's precedence needs.

The text re-parses to the same tree, so it serves as a label (the binding comparison of a
counterexample), as the statement a certificate stores, and in error messages.
"""
import functools
from fractions import Fraction

from verify.claims.language.syntax import And, BinOp, Call, Compare, ForAll, IndexValue, Item, Name, Neg, Not, Num, Or
from verify.base.printable import shown

PRECEDENCE = {"or": 1, "and": 2, "not": 3, "compare": 4, "+": 5, "-": 5, "*": 6, "/": 6, "neg": 7, "**": 8, "atom": 9}


def to_text(node):
    """The claim-language text of a tree."""
    return _text(node)[0]


def _text(node):
    """(text, precedence) of a node."""
    if isinstance(node, Num):
        return number_text(node), (PRECEDENCE["neg"] if node.mantissa < 0 else PRECEDENCE["atom"])
    if isinstance(node, Name):
        return node.id, PRECEDENCE["atom"]
    if isinstance(node, Item):
        return f"{node.name}({index_text(node.index)})", PRECEDENCE["atom"]
    if isinstance(node, IndexValue):
        text = index_text(node.index)
        return text, (PRECEDENCE["atom"] if text.isalnum() else PRECEDENCE["+"])
    if isinstance(node, Call):
        return f"{node.name}({', '.join(to_text(a) for a in node.args)})", PRECEDENCE["atom"]
    if isinstance(node, Neg):
        return "-" + _wrap(node.operand, PRECEDENCE["neg"]), PRECEDENCE["neg"]
    if isinstance(node, BinOp):
        return _binary(node)
    if isinstance(node, Compare):
        return f"{_wrap(node.left, 5)} {node.op} {_wrap(node.right, 5)}", PRECEDENCE["compare"]
    if isinstance(node, And) and _chained(node.parts):
        pieces = [_wrap(node.parts[0].left, 5)]
        for part in node.parts:
            pieces += [part.op, _wrap(part.right, 5)]
        return " ".join(pieces), PRECEDENCE["compare"]
    if isinstance(node, (And, Or)):
        word = "and" if isinstance(node, And) else "or"
        return f" {word} ".join(_wrap(p, PRECEDENCE[word] + 1) for p in node.parts), PRECEDENCE[word]
    if isinstance(node, Not):
        return "not " + _wrap(node.part, PRECEDENCE["not"]), PRECEDENCE["not"]
    if isinstance(node, ForAll):
        return f"forall k in {index_text(node.lo)}..{index_text(node.hi)}: {to_text(node.part)}", 0
    raise TypeError(f"not a claim node: {shown(node, 200)}")


def _chained(parts):
    """Comparisons a op b, b op c, …: the form `a op b op c` parses to."""
    return (len(parts) > 1 and all(isinstance(p, Compare) for p in parts)
            and all(a.right == b.left for a, b in zip(parts, parts[1:])))


def _binary(node):
    level = PRECEDENCE[node.op]
    if node.op == "**":  # right-associative; its exponent may be a unary minus (2**-1)
        left = _wrap(node.left, level + 1)
        right_text, right_level = _text(node.right)
        right = right_text if right_level >= PRECEDENCE["neg"] else f"({right_text})"
        return f"{left}**{right}", level
    right_needs = level + 1  # a - (b - c), a / (b * c)
    return f"{_wrap(node.left, level)} {node.op} {_wrap(node.right, right_needs)}", level


def _wrap(node, least):
    text, level = _text(node)
    return text if level >= least else f"({text})"


def number_text(num):
    """A Num as written: 0.5, 1e-400, 2.5e-9; a non-decimal mantissa as a quotient p/q."""
    mantissa = num.mantissa
    body = _decimal(abs(mantissa))
    if body is None:
        body = f"{abs(mantissa.numerator)}/{mantissa.denominator}"
        body = f"({body})" if num.exp10 else body
    exponent = f"e{num.exp10}" if num.exp10 else ""
    return ("-" if mantissa < 0 else "") + body + exponent


def _decimal(value):
    """The exact decimal of a non-negative Fraction whose denominator divides a power of ten, else None."""
    value = Fraction(value)
    places = 0
    while (value * 10**places).denominator != 1:
        places += 1
        if places > 400:
            return None
    digits = str(int(value * 10**places)).rjust(places + 1, "0")
    return digits if not places else f"{digits[:-places]}.{digits[-places:]}"


def index_text(index):
    """An Index as written: 1, n, n - 1, 2*n - 3, k + 1."""
    terms = []
    for coefficient, name in ((index.n_coeff, "n"), (index.k_coeff, "k")):
        if coefficient:
            terms.append((coefficient, name if abs(coefficient) == 1 else f"{abs(coefficient)}*{name}"))
    if index.const or not terms:
        terms.append((index.const, str(abs(index.const))))
    out = ""
    for coefficient, word in terms:
        sign = "-" if coefficient < 0 else "+"
        out += (f" {sign} " if out else ("-" if sign == "-" else "")) + word
    return out


@functools.lru_cache(maxsize=8192)
def instantiate(node, k_value):
    """A ForAll body with its index variable k replaced by the Index `k_value` (trees are immutable: each body is
    instantiated once per index, however many queries, cases and shrinking trials read it)."""
    from verify.claims.language.syntax import transform

    def leaf(item):
        if isinstance(item, Item) and item.index.k_coeff:
            return Item(item.name, item.index.shifted(k_value))
        if isinstance(item, IndexValue):
            return IndexValue(item.index.shifted(k_value))
        return item

    return transform(node, leaf)

