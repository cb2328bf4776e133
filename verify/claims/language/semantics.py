"""The meaning of the claim language, stated once: every number system interprets this one fold.

`fold(node)` canonicalises a tree (z_max → z(1)), folds every subtree of numbers alone to one exact
rational (exponents included) and turns each power into `Power(base, p)` with p an exact `Fraction`
(`sqrt(x)` is `x ** (1/2)`). `interpret(node, algebra)` walks the folded tree once for every number
system — Arb balls (verify.claims.language.balls), SMT terms (verify.claims.prover.smt), SymPy
(verify.claims.builtin.two_tokens) — and before each partial operation asks the algebra to `require` the
operation's definedness condition, taken from the one table below. A condition on an exact number is
decided here, on its exact value, never on its text.

| expression                        | defined where |
|-----------------------------------|---------------|
| a / b                             | b ≠ 0         |
| x ** p, p an integer ≥ 0          | everywhere (x ** 0 = 1, 0 ** 0 included) |
| x ** p, p a negative integer      | x ≠ 0         |
| x ** p, p not an integer, p > 0   | x ≥ 0         |
| x ** p, p not an integer, p < 0   | x > 0         |
| sqrt(x)                           | x ≥ 0 (it is x ** (1/2)) |
| log(x)                            | x > 0         |
| exp, abs, min, max, +, −, ×       | everywhere    |

A power whose exponent is not a constant reads the same rule at the exponent's value. A claim is
defined at a case when every operation in it is; it holds there iff it is defined and its
comparisons, joined by and / or / not / forall, hold (a `forall` over no index holds). Every part of a
claim counts: `a or b` with `a` true and `b` undefined is undefined, so it fails (no part is skipped).
"""
import functools
from dataclasses import dataclass
from fractions import Fraction

from verify.claims.language.quantities import canonical, index_bounds
from verify.claims.language.syntax import And, BinOp, Call, Compare, ForAll, Index, IndexValue, Item, Name, Neg, Not, Num, Or
from verify.claims.language.text import index_text, instantiate
from verify.base.errors import InputError
from verify.base.printable import shown

NONZERO, NONNEG, POSITIVE = "≠ 0", "≥ 0", "> 0"
EXACT_TEST = {NONZERO: lambda v: v != 0, NONNEG: lambda v: v >= 0, POSITIVE: lambda v: v > 0}
MAX_CONSTANT_BITS = 4096  # an exact constant of more bits is left to the number system's arithmetic
RULES = (("a / b", "b ≠ 0"), ("x ** p, p an integer ≥ 0", "everywhere"), ("x ** p, p a negative integer", "x ≠ 0"),
         ("x ** p, p not an integer, p > 0", "x ≥ 0"), ("x ** p, p not an integer, p < 0", "x > 0"),
         ("sqrt(x)", "x ≥ 0"), ("log(x)", "x > 0"), ("exp, abs, min, max, +, −, ×", "everywhere"))


def power_condition(is_integer, negative):
    """The condition on the base of x ** p (None: defined everywhere); the table's power rows."""
    if is_integer:
        return NONZERO if negative else None
    return POSITIVE if negative else NONNEG


CALL_CONDITION = {"log": POSITIVE}  # sqrt is a power; exp, abs, min, max are defined everywhere


@dataclass(frozen=True)
class Exact:
    """A number known exactly (a folded constant)."""

    value: Fraction


@dataclass(frozen=True)
class Power:
    """base ** p with p an exact rational."""

    base: object
    exponent: Fraction


@dataclass(frozen=True)
class PowerOf:
    """base ** exponent with an exponent that is not a constant (the rule is read at its value)."""

    base: object
    exponent: object


@functools.lru_cache(maxsize=8192)
def fold(node):
    """The folded form of an arithmetic node (see the module docstring)."""
    node = canonical(node)
    exact = constant(node)
    if exact is not None:
        return Exact(exact)
    if isinstance(node, Neg):
        return Neg(fold(node.operand))
    if isinstance(node, BinOp) and node.op == "**":
        exponent = constant(node.right)
        if exponent is not None:
            return Power(fold(node.left), exponent)
        return PowerOf(fold(node.left), fold(node.right))
    if isinstance(node, BinOp):
        return BinOp(node.op, fold(node.left), fold(node.right))
    if isinstance(node, Call) and node.name == "sqrt":
        return Power(fold(node.args[0]), Fraction(1, 2))
    if isinstance(node, Call):
        return Call(node.name, tuple(fold(a) for a in node.args))
    return node


@functools.lru_cache(maxsize=8192)
def constant(node):
    """The exact value of a subtree of numbers alone (+ − × ÷ and integer powers, of modest size), or None
    (a number beyond reach, or an undefined operation: left for `interpret` to decide)."""
    node = canonical(node)
    if isinstance(node, Num):
        return node.exact(MAX_CONSTANT_BITS // 4)
    if isinstance(node, Neg):
        inner = constant(node.operand)
        return None if inner is None else -inner
    if not isinstance(node, BinOp):
        return None
    left, right = constant(node.left), constant(node.right)
    if left is None or right is None:
        return None
    if node.op == "**":
        size = max(left.numerator.bit_length(), left.denominator.bit_length())
        if right.denominator != 1 or abs(right) * size > MAX_CONSTANT_BITS or (left == 0 and right < 0):
            return None
        out = left ** int(right)
    elif node.op == "/":
        if right == 0:
            return None
        out = left / right
    else:
        out = {"+": left + right, "-": left - right, "*": left * right}[node.op]
    small = max(out.numerator.bit_length(), out.denominator.bit_length()) <= MAX_CONSTANT_BITS
    return out if small else None


def interpret(node, algebra):
    """The value of an arithmetic node in the algebra's number system (see the module docstring).

    The algebra supplies: exact(Fraction), number(Num), leaf(node) for names, items and index values,
    constant(name) for π and e, neg, arithmetic(op, a, b) for + − ×, divide(a, b, guard),
    power(x, p, guard) for an exact p, exponent_class(value, integer_valued) → (is_integer, negative) or None,
    power_of(x, p, is_integer, guard), call(name, args, guard), require(kind, x) → a guard, False
    (the condition fails) or None (not known), undefined(), unknown() (a value that may be undefined),
    is_undefined(value) and is_open(value) (the value may be undefined). Undefinedness propagates: an
    operation on an undefined operand is undefined, on a possibly undefined one possibly undefined."""
    return _interpret(fold(node), algebra)


def _interpret(node, algebra):
    if isinstance(node, Exact):
        return algebra.exact(node.value)
    if isinstance(node, Num):
        return algebra.number(node)
    if isinstance(node, Name) and node.id in ("pi", "e"):
        return algebra.constant(node.id)
    if isinstance(node, (Name, Item, IndexValue)):
        return algebra.leaf(node)
    parts = [_interpret(child, algebra) for child in _operands(node)]
    if any(algebra.is_undefined(p) for p in parts):
        return algebra.undefined()
    if any(algebra.is_open(p) for p in parts):
        return algebra.unknown()  # possibly undefined: so is every operation on it (x ** 0 and exp(x) included)
    if isinstance(node, Neg):
        return algebra.neg(parts[0])
    if isinstance(node, Power):
        return _power(node, parts[0], algebra)
    if isinstance(node, PowerOf):
        return _power_of(node, parts[0], parts[1], algebra)
    if isinstance(node, BinOp) and node.op == "/":
        return _guarded(algebra, NONZERO, node.right, parts[1], lambda guard: algebra.divide(parts[0], parts[1], guard))
    if isinstance(node, BinOp):
        return algebra.arithmetic(node.op, parts[0], parts[1])
    condition = CALL_CONDITION.get(node.name)
    return _guarded(algebra, condition, node.args[0], parts[0], lambda guard: algebra.call(node.name, parts, guard))


def judge(tree, logic, n):
    """The truth of a claim tree in a logic: its comparisons joined by and / or / not / forall, the connectives
    stated once for every backend (balls, exact SymPy, SMT-LIB, the binding comparison of a certificate).

    The logic supplies: compare(node) for a Compare, negate(t), join(parts, every) for and (every=True) / or
    over a tuple of parts, every part judged (no short cut: a part undefined beside a true part of an `or`, or a
    false part of an `and` under `not`, makes the claim undefined, and it fails), true() for
    a forall over no index, and every_k(node) for a forall whose k stays symbolic (n is None: the SMT piece for
    every n); with n an int, forall k in lo..hi is the conjunction of its instances at that n."""
    if isinstance(tree, Compare):
        return logic.compare(tree)
    if isinstance(tree, Not):
        return logic.negate(judge(tree.part, logic, n))
    if isinstance(tree, (And, Or)):
        return logic.join(tuple(judge(part, logic, n) for part in tree.parts), every=isinstance(tree, And))
    if isinstance(tree, ForAll) and n is None:
        return logic.every_k(tree)
    if isinstance(tree, ForAll):
        ks = range(tree.lo.at(n), tree.hi.at(n) + 1)
        if not ks:
            return logic.true()
        return logic.join(tuple(judge(instantiate(tree.part, Index(k)), logic, n) for k in ks), every=True)
    raise TypeError(f"not a formula: {type(tree).__name__}")


def _operands(node):
    if isinstance(node, (Neg,)):
        return (node.operand,)
    if isinstance(node, (Power,)):
        return (node.base,)
    if isinstance(node, PowerOf):
        return (node.base, node.exponent)
    if isinstance(node, BinOp):
        return (node.left, node.right)
    if isinstance(node, Call):
        return node.args
    raise TypeError(f"not an arithmetic node: {shown(node, 200)}")


def _power(node, base, algebra):
    p = node.exponent
    condition = power_condition(p.denominator == 1, p < 0)
    return _guarded(algebra, condition, node.base, base, lambda guard: algebra.power(base, p, guard))


def _power_of(node, base, exponent, algebra):
    kind = algebra.exponent_class(exponent, integer_valued(node.exponent))
    if kind is None:
        return algebra.unknown()
    is_integer, negative = kind
    condition = power_condition(is_integer, negative)
    return _guarded(algebra, condition, None, base, lambda guard: algebra.power_of(base, exponent, is_integer, guard))


def integer_valued(node):
    """Whether a folded node's value is an integer by its form alone (n, an index, sums, products and
    natural powers of integers): an exponent such as 9**9**9 is an integer even where a ball cannot show it."""
    if isinstance(node, Exact):
        return node.value.denominator == 1
    if isinstance(node, IndexValue) or (isinstance(node, Name) and node.id == "n"):
        return True
    if isinstance(node, Neg):
        return integer_valued(node.operand)
    if isinstance(node, Power):
        return node.exponent.denominator == 1 and node.exponent >= 0 and integer_valued(node.base)
    if isinstance(node, BinOp) and node.op in "+-*":
        return integer_valued(node.left) and integer_valued(node.right)
    return False


def _guarded(algebra, condition, operand, value, apply):
    """apply(guard) where the condition on the operand holds: decided exactly on a folded constant, else
    by the algebra (a guard to attach, False: undefined, None: not known)."""
    if condition is None:
        return apply(True)
    if isinstance(operand, Exact):
        return apply(True) if EXACT_TEST[condition](operand.value) else algebra.undefined()
    guard = algebra.require(condition, value)
    if guard is False:
        return algebra.undefined()
    if guard is None:
        return algebra.unknown()
    return apply(guard)


def item_index(item, n):
    """The integer index of z(k), j(k), lambda(k) at n; InputError when outside the quantity's range."""
    k = item.index.at(n)
    first, last = index_bounds(item.name)
    if not first.at(n) <= k <= last.at(n):
        raise InputError(f"claim reads {item.name}({index_text(item.index)}), which is {item.name}({k}) at n = {n}, "
                         f"outside {first.at(n)}..{last.at(n)}; narrow the claim's n or change the index")
    return k
