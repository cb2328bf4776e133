"""Exact decisions where the balls cannot separate the two sides of a comparison (a tie, or a value the balls
could not enclose at a degenerate case).

Every case has rational logits (or a rational z), so its quantities are algebraic over Q(t), t = e^{1/q}
transcendental (verify.numerics.exact_spectrum, verify.numerics.algebraic): a difference of two sides is
exactly 0 or not by polynomial gcds and resultants over Z[t], and when it is not 0 its sign is a ball's at a
precision that rises until it excludes 0. A comparison whose sides are equal is a tie (`<=` holds, `<`
fails). log, exp, π, e and powers beyond halves are left undecided, and so is anything beyond EXACT_MAX_N tokens
or the size limits of verify.numerics.algebraic. The claim's meaning, definedness included, is the one fold
of verify.claims.language.semantics, interpreted here in exact algebraic numbers.
"""
import functools

from verify.claims.language.semantics import NONNEG, NONZERO, interpret, item_index, judge
from verify.claims.language.syntax import IndexValue, Item, names
from verify.numerics.algebraic import Undecidable, compare

EXACT_MAX_N = 8
OF_H_ALONE = frozenset({"n", "L_T", "mu_T", "L", "mu"})  # the quantities that do not depend on the coefficients
MAX_POWER = 16  # |numerator| of an exponent p/1 or p/2 decided exactly


class Undefined(Exception):
    """A division by an exact 0, the square root of a negative number: the claim is undefined (it fails)."""


def decide_exactly(tree, case, ties_only=False):
    """True / False when exact arithmetic decides the claim at the case (a tie included; undefined there: False),
    else None; with `ties_only`, None also when a comparison it read is not a tie (its margin is then not 0: the balls
    find it)."""
    found = exact_truth(tree, case, ties_only)
    return False if found is UNDEFINED_TRUTH else found


def exact_truth(tree, case, ties_only=False):
    """decide_exactly's answer, UNDEFINED_TRUTH where the claim is undefined at the case (it fails there)."""
    if case.n > EXACT_MAX_N:
        return None
    try:
        at = _exact_case(case, coefficients=not names(tree) <= OF_H_ALONE)
    except (Undecidable, ArithmeticError, ValueError):  # a size beyond the limits, flint's refusals
        return None
    return _decided(tree, at, ties_only)


def _decided(tree, at, ties_only=False):
    """exact_truth's answer at `at` (see `truth`)."""
    try:
        signs = []
        value = truth(tree, at, signs)
        return None if ties_only and any(signs) else value
    except Undefined:
        return UNDEFINED_TRUTH
    except (Undecidable, ArithmeticError, ValueError):  # a size beyond the limits, flint's refusals
        return None


@functools.lru_cache(maxsize=64)
def _exact_case(case, coefficients=True):
    """The case's exact quantities, shared by every claim decided at it (the search decides a case per claim); without
    `coefficients`, those of its H alone (its logits taken equal: a claim of H's eigenvalues is then decided over Q,
    whatever t its logits would need)."""
    from verify.numerics.exact_spectrum import ExactCase

    return ExactCase(case.logits if coefficients else (0,) * case.n, case.H, case.L, case.mu)


def truth(node, at, signs):
    """The claim's truth value at `at` (an ExactCase, or anything with n, rational(v), item(series, k) and
    name(id) giving verify.numerics.algebraic Values); the sign of each comparison's difference is appended to
    `signs`. Raises Undefined where the claim is undefined, Undecidable where exact arithmetic cannot decide."""
    found = judge(node, _ExactLogic(at, signs), at.n)  # the connectives of the one semantics, in exact booleans
    if found is UNDEFINED_TRUTH:
        raise Undefined()
    if isinstance(found, Undecidable):
        raise found
    return found


UNDEFINED_TRUTH = "undefined"  # a comparison undefined at the case: the truth value the connectives propagate


def margin_is_zero(tree, case):
    """Whether the claim's margin at the case is exactly 0, so that no precision shows another: the exact signs of its
    comparisons' margins (verify.claims.language.outcome: ln(lhs/rhs) or the scaled difference, negated for < and <=,
    −|…| for ==) folded as margins are (`and` the least, `or` the greatest, `not` negated). False where exact
    arithmetic does not decide every comparison, or the claim is undefined there."""
    if case.n > EXACT_MAX_N:
        return False
    try:
        at = _exact_case(case, coefficients=not names(tree) <= OF_H_ALONE)
        return judge(tree, _MarginSigns(at), at.n) == 0
    except (Undefined, Undecidable, ArithmeticError, ValueError):
        return False


class _MarginSigns:
    """The logic of `margin_is_zero` for verify.claims.language.semantics.judge: each comparison's margin as its exact
    sign (−1, 0, 1)."""

    def __init__(self, at):
        self.at = at

    def compare(self, node):
        algebra = _ExactAlgebra(self.at)
        sign = compare(interpret(node.left, algebra), interpret(node.right, algebra))
        return {">": sign, ">=": sign, "<": -sign, "<=": -sign, "==": -abs(sign)}[node.op]

    def negate(self, sign):
        return -sign

    def join(self, signs, every):
        return min(signs) if every else max(signs)

    def true(self):
        return 1


def _open(value):
    """A truth value that is not a boolean: undefined, or not decidable exactly."""
    return value is UNDEFINED_TRUTH or isinstance(value, Undecidable)


class _ExactLogic:
    """The logic verify.claims.language.semantics.judge asks for, in exact booleans. Every part of an and / or is
    decided (no short cut): a claim undefined in any part fails, even where another part holds or exact arithmetic
    cannot decide another part."""

    def __init__(self, at, signs):
        self.at, self.signs = at, signs

    def compare(self, node):
        algebra = _ExactAlgebra(self.at)
        try:
            sign = compare(interpret(node.left, algebra), interpret(node.right, algebra))
        except Undefined:
            return UNDEFINED_TRUTH
        except Undecidable as reason:
            return reason
        self.signs.append(sign)
        return {"<": sign < 0, "<=": sign <= 0, ">": sign > 0, ">=": sign >= 0, "==": sign == 0}[node.op]

    def negate(self, value):
        return value if _open(value) else not value

    def join(self, parts, every):
        parts = list(parts)
        if any(part is UNDEFINED_TRUTH for part in parts):
            return UNDEFINED_TRUTH
        undecidable = next((part for part in parts if isinstance(part, Undecidable)), None)
        if undecidable is not None:
            return undecidable
        return all(parts) if every else any(parts)

    def true(self):
        return True


class _ExactAlgebra:
    """The algebra of verify.claims.language.semantics in exact algebraic numbers at one case: each
    definedness condition decided on the exact sign; log, exp and large powers are Undecidable."""

    def __init__(self, at):
        self.at = at

    def exact(self, value):
        return self.at.rational(value)

    def number(self, num):
        raise Undecidable("a number beyond the exact range")

    def constant(self, name):
        raise Undecidable(f"{name} is not algebraic")

    def leaf(self, node):
        if isinstance(node, Item):
            return self.at.item(node.name, item_index(node, self.at.n))
        if isinstance(node, IndexValue):
            return self.at.rational(node.index.at(self.at.n))
        return self.at.name(node.id)

    def require(self, kind, x):
        sign = x.sign()
        return sign != 0 if kind == NONZERO else sign >= 0 if kind == NONNEG else sign > 0

    def undefined(self):
        raise Undefined()

    def unknown(self):
        raise Undecidable("a power whose exponent's kind is not known")

    def is_undefined(self, value):
        return False

    def is_open(self, value):
        return False

    def exponent_class(self, value, integer_valued):
        raise Undecidable("an exponent that is not a constant")

    def neg(self, a):
        return -a

    def arithmetic(self, op, a, b):
        return a + b if op == "+" else a - b if op == "-" else a * b

    def divide(self, a, b, guard):
        return a / b

    def power(self, x, p, guard):
        if p.denominator > 2 or abs(p.numerator) > MAX_POWER:
            raise Undecidable("a power beyond small integer and half-integer exponents")
        if p.denominator == 2:
            x = x.sqrt()
        return x.power(p.numerator)

    def power_of(self, x, p, is_integer, guard):
        raise Undecidable("an exponent that is not a constant")

    def call(self, name, args, guard):
        if name == "abs":
            return args[0] if args[0].sign() >= 0 else -args[0]
        if name in ("min", "max"):
            out = args[0]
            for arg in args[1:]:
                sign = compare(arg, out)
                out = arg if (sign < 0 if name == "min" else sign > 0) else out
            return out
        raise Undecidable(f"{name} of an algebraic number")


def exact_outcome(tree, case, ties_only=False):
    """An Outcome (verify.claims.language.outcome) with margin exactly 0 that holds iff the claim is true at the
    case — decided, since its enclosure is one point — or the undefined Outcome where the claim is undefined there
    (it fails), or None when exact arithmetic cannot decide it (or, with `ties_only`, when a comparison it read is
    not a tie)."""
    return _outcome_of(exact_truth(tree, case, ties_only))


def _outcome_of(truth_value):
    """The Outcome of an exact truth value: margin exactly 0, holding iff True; the undefined Outcome for
    UNDEFINED_TRUTH (it fails, and its margin is no number); None for None."""
    import flint

    from verify.claims.language.outcome import Outcome, undefined_outcome

    if truth_value is None:
        return None
    if truth_value is UNDEFINED_TRUTH:
        return undefined_outcome()
    zero = flint.arb(0)
    return Outcome(zero, zero, zero, strict=not truth_value)


LAMBDA_NAMES = frozenset({"lambda", "lambda_max", "lambda_min", "kappa"})
J_NAMES = frozenset({"j", "j_max", "j_min"})


def exact_point(case, bits, read):
    """A Point (verify.claims.language.values) of the case's exact quantities that the names `read` ask for, each the
    ball of an algebraic number at `bits` (rigorous: an isolating ball, refined), or None beyond exact arithmetic's
    reach. The balls of a claim decided on it give a true margin where the floating-point paths' balls enclose none:
    eigenvalues beyond float64's range (λ down to 1e-608 at logits 0 and −700) merge in their float64 starts."""
    from verify.claims.language.values import Point

    if case.n > EXACT_MAX_N:
        return None
    try:
        at = _exact_case(case, coefficients=True)  # (the key decide_exactly uses: lru_cache tells f(x) from f(x, k=v))
        values = {"z": [v.ball(bits) for v in at.z_desc], "R": at.R.ball(bits)}
        if read & J_NAMES:
            values["j"] = [v.ball(bits) for v in at.j_desc]
        if read & LAMBDA_NAMES:
            lam = [v.ball(bits) for v in at.lam_desc]
            values.update(lam=lam, lambda_max=lam[0], lambda_min=lam[-1], kappa=at.kappa.ball(bits))
        values.update({name: at.name(name).ball(bits) for name in ("L_T", "mu_T", "L", "mu") if name in read})
    except (Undecidable, ArithmeticError, ValueError):  # a size beyond the limits, flint's refusals
        return None
    return Point.of(case.n, bits, **values)


# ---------------------------------------------------------------- structured cases (verify.claims.cases.structured)


def structured_outcome(tree, case, bits=256, point=None):
    """The claim's Outcome at a structured case: balls of its exact quantities (`point`, when the caller has the
    case's balls at `bits` already), then exact arithmetic where they leave it tight or open (every quantity there
    is an exact rational)."""
    from verify.claims.language.evaluate import decide_at
    from verify.claims.language.outcome import TIGHT

    outcome = decide_at(tree, point if point is not None else case.point(bits))
    if outcome.status == TIGHT or not outcome.decided:
        exact = structured_exact_outcome(tree, case)
        if exact is not None:
            return exact
    return outcome


def structured_exact_outcome(tree, case, ties_only=False):
    """An exact Outcome (margin 0: holds iff true; undefined where the claim is) at a structured case, or None (log,
    exp, big powers)."""
    return _outcome_of(_decided(tree, _StructuredAt(case), ties_only))


class _StructuredAt:
    """A structured case's quantities as exact rationals (its closed-form spectrum, verify.numerics.twolevel), in the
    interface `truth` reads."""

    def __init__(self, case):
        from verify.numerics.algebraic_roots import Field

        self.n, self.field, self.spectrum = case.n, Field(), case.spectrum
        self._values = {}  # each rational's Value, made once: a claim for every k reads the same few at each k

    def rational(self, value):
        from verify.numerics.algebraic import Value

        key = (value.numerator, value.denominator)  # (a Fraction's own hash takes a modular inverse)
        if key not in self._values:
            self._values[key] = Value.rational(self.field, value)
        return self._values[key]

    def name(self, name):
        if name not in ("n", "L_T", "mu_T", "L", "mu", "kappa", "R"):
            raise Undecidable(name)
        return self.rational(self.n if name == "n" else getattr(self.spectrum, name))

    def item(self, series, k):
        return self.rational({"z": self.spectrum.z, "j": self.spectrum.j, "lambda": self.spectrum.lam}[series][k - 1])
