"""One tree walk decides a claim at one example in any number system (float64, mpmath, balls).

The example is a `point`: its token count `n`, `get(name, k=None)` → the quantity as an Arb ball, and
the precision `bits` (verify.claims.language.values builds points from a spectrum record, for the
estimate stages and for the rigorous one). The backend (balls.Balls) supplies the arithmetic;
call inside `flint.ctx.workprec(point.bits)`, or use `decide_at`.
"""
from verify.claims.language.outcome import Outcome, negated
from verify.claims.language.semantics import interpret, judge
from verify.claims.language.text import to_text


def decide(tree, point, backend):
    """The Outcome of a claim tree at a point (see verify.claims.language.outcome for margins); the connectives
    are the one semantics' `judge`."""
    return judge(tree, _Margins(point, backend), point.n)


class _Margins:
    """The logic of Outcomes at a point: a comparison's margin, not's negation, and / or's least / greatest."""

    def __init__(self, point, backend):
        self.point, self.backend = point, backend

    def compare(self, node):
        lhs, rhs = value(node.left, self.point, self.backend), value(node.right, self.point, self.backend)
        return self.backend.compare(lhs, rhs, node.op)

    def negate(self, outcome):
        return negated(outcome)

    def join(self, parts, every):
        return combine(list(parts), self.backend, every)

    def true(self):
        return vacuous()


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
    """`and` (every=True): the least margin; `or`: the greatest. An undefined part makes the whole undefined.
    The enclosure is the least (greatest) of the parts' enclosures, a part whose value is not a number
    counting as [−∞, ∞]; a part whose definedness the balls left open leaves the whole's open too (it then
    fails for sure only when its enclosure is below 0); at an exact tie the strictness of the parts that tie
    decides."""
    undefined = [p for p in parts if p.undefined]
    if undefined:
        return undefined[0]
    pick = min if every else max
    lowers = [backend.bound(p.lower, -1) for p in parts]
    uppers = [backend.bound(p.upper, 1) for p in parts]
    lower, upper = backend.pick_margin(lowers, pick), backend.pick_margin(uppers, pick)
    # a part whose margin is not a number (not computed) counts by its enclosure's end that cannot decide the pick (its
    # lower end for `or`, its upper for `and`): `or` with a part not computed and a part true by 0.29 has margin 0.29
    margins = [p.margin if _number(p.margin) else (low if pick is max else high)
               for p, low, high in zip(parts, lowers, uppers)]
    margin = lower if lower == upper else backend.pick_margin(margins, pick)
    tied = [p.strict for p, low, high in zip(parts, lowers, uppers) if low == high == lower == upper]
    tied = tied or [p.strict for p in parts]
    strict = any(tied) if every else all(tied)
    return Outcome(margin, lower, upper, strict, open=any(p.open for p in parts))


def _number(margin):
    import flint

    return not (isinstance(margin, flint.arb) and margin.is_nan())


def value(node, point, backend):
    """The value of an arithmetic node at the point, in the backend's number system: the one semantics
    (verify.claims.language.semantics) interpreted by the backend bound to the point."""
    return interpret(node, backend.at(point))


def describe(tree):
    """The claim text of a tree (for messages)."""
    return to_text(tree)
