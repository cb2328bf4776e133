"""One tree walk decides a claim at one example in any number system (float64, mpmath, balls).

The example is a `point`: its token count `n`, `get(name, k=None)` → the quantity as an Arb ball, and
the precision `bits` (verify.claims.language.values builds points from a spectrum record, for the
estimate stages and for the rigorous one). The backend (balls.Balls) supplies the arithmetic;
call inside `flint.ctx.workprec(point.bits)`, or use `decide_at`.
"""
import functools

from verify.claims.language.outcome import Outcome, negated
from verify.claims.language.quantities import canonical
from verify.claims.language.syntax import And, BinOp, Call, Compare, ForAll, Index, IndexValue, Item, Name, Neg, Not, Num, Or
from verify.claims.language.text import index_text, instantiate, to_text
from verify.errors import InputError


def decide(tree, point, backend):
    """The Outcome of a claim tree at a point (see verify.claims.language.outcome for margins)."""
    if isinstance(tree, Compare):
        lhs, rhs = value(tree.left, point, backend), value(tree.right, point, backend)
        return backend.compare(lhs, rhs, tree.op)
    if isinstance(tree, Not):
        return negated(decide(tree.part, point, backend))
    if isinstance(tree, ForAll):
        lo, hi = tree.lo.at(point.n), tree.hi.at(point.n)
        parts = [decide(instantiate(tree.part, Index(k)), point, backend) for k in range(lo, hi + 1)]
        return combine(parts, backend, every=True) if parts else vacuous()
    parts = [decide(part, point, backend) for part in tree.parts]
    return combine(parts, backend, every=isinstance(tree, And))


def decide_at(tree, point):
    """The claim's Outcome at a point, in Arb balls at the point's own precision."""
    import flint

    from verify.claims.language.balls import Balls

    with flint.ctx.workprec(point.bits):
        return decide(tree, point, Balls())


def vacuous():
    """A statement about no index at all (forall k in 1..0): it holds."""
    import flint

    infinite = flint.arb("inf")
    return Outcome(infinite, infinite, infinite, False)


def combine(parts, backend, every):
    """`and` (every=True): the least margin; `or`: the greatest. An undefined part makes the whole undefined."""
    undefined = [p for p in parts if p.undefined]
    if undefined:
        return undefined[0]
    pick = min if every else max
    margin = backend.pick_margin([p.margin for p in parts], pick)
    tied = [p.strict for p in parts if p.margin == margin] or [p.strict for p in parts]
    strict = any(tied) if every else all(tied)
    return Outcome(margin, backend.pick_margin([p.lower for p in parts], pick),
                   backend.pick_margin([p.upper for p in parts], pick), strict)


def value(node, point, backend):
    """The value of an arithmetic node at the point, in the backend's number system. A subtree of numbers
    alone is first folded to one exact rational (when it is of modest size), so equal constants are equal exactly."""
    node = canonical(node)
    if isinstance(node, (Num, BinOp, Neg)):
        exact = constant(node)
        if exact is not None:
            return backend.exact(exact)
    if isinstance(node, Num):
        return backend.number(node)
    if isinstance(node, Name):
        if node.id == "n":
            return backend.integer(point.n)
        if node.id in ("pi", "e"):
            return backend.constant(node.id)
        return backend.leaf(point.get(node.id))
    if isinstance(node, Item):
        return backend.leaf(point.get(node.name, item_index(node, point.n)))
    if isinstance(node, IndexValue):
        return backend.integer(node.index.at(point.n))
    if isinstance(node, Neg):
        return backend.neg(value(node.operand, point, backend))
    if isinstance(node, BinOp):
        return _binary(node, point, backend)
    if isinstance(node, Call):
        return _call(node, point, backend)
    raise TypeError(f"not an arithmetic node: {node!r}")


MAX_CONSTANT_BITS = 4096  # an exact constant of more bits is left to the backend's arithmetic


@functools.lru_cache(maxsize=4096)
def constant(node):
    """The exact value of a subtree made of numbers alone (+ − × ÷, integer powers), or None."""
    if isinstance(node, Num):
        return node.exact(MAX_CONSTANT_BITS // 4)
    if isinstance(node, Neg):
        inner = constant(node.operand)
        return None if inner is None else -inner
    if not isinstance(node, BinOp):
        return None
    left = constant(node.left)
    right = constant(node.right) if left is not None else None
    if right is None:
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


def item_index(item, n):
    """The integer index of z(k), j(k), lambda(k) at n; InputError when outside the quantity's range."""
    from verify.claims.language.quantities import index_bounds

    k = item.index.at(n)
    first, last = index_bounds(item.name)
    if not first.at(n) <= k <= last.at(n):
        raise InputError(f"claim reads {item.name}({index_text(item.index)}), which is {item.name}({k}) at n = {n}, "
                         f"outside {first.at(n)}..{last.at(n)}; narrow the claim's n or change the index")
    return k


def _binary(node, point, backend):
    left = value(node.left, point, backend)
    if node.op == "**":
        exponent = integer_literal(node.right)
        if exponent is not None:
            return backend.power_int(left, exponent)
        if isinstance(node.right, Num) and node.right.exact(4) == 0.5:
            return backend.sqrt(left)
        return backend.power(left, value(node.right, point, backend))
    right = value(node.right, point, backend)
    operation = {"+": backend.add, "*": backend.mul, "/": backend.div}
    if node.op == "-":
        return backend.add(left, backend.neg(right))
    return operation[node.op](left, right)


def integer_literal(node, limit=10**6):
    """The integer a literal (or a negated literal) denotes, when it is one of modest size, else None."""
    sign = 1
    while isinstance(node, Neg):
        node, sign = node.operand, -sign
    if not isinstance(node, Num) or node.exp10 > 6:
        return None
    exact = node.exact(6)
    if exact is None or exact.denominator != 1 or abs(exact) > limit:
        return None
    return sign * int(exact)


def _call(node, point, backend):
    args = [value(a, point, backend) for a in node.args]
    if node.name in ("min", "max"):
        return (backend.least if node.name == "min" else backend.greatest)(args)
    return getattr(backend, node.name)(args[0])


def describe(tree):
    """The claim text of a tree (for messages)."""
    return to_text(tree)
