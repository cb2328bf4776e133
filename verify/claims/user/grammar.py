"""The claim language: a whitelisted walk of Python's `ast` that builds SymPy expressions.

The text is only *parsed* (`ast.parse(..., mode="eval")`); it is never executed.  Every
node kind is checked against a whitelist and turned into a SymPy object built with
`evaluate=False`, so nothing is computed while parsing (`10**10**10` stays a tree).
Numbers are exact, read from their source text (`1e-400` is 10^-400, not the float 0.0).

A claim is a tree of comparisons: `Compare(lhs, op, rhs)` leaves (SymPy expressions on
both sides, kept unevaluated so `1 < 2` stays a comparison), combined by `AllOf` (and),
`AnyOf` (or) and `Negate` (not).  `a <= b <= c` becomes AllOf of the two pairs.
"""
import ast
import difflib
import re
import warnings
from dataclasses import dataclass

import sympy

from verify.errors import InputError

MAX_TEXT = 2000
MAX_NODES = 400
MAX_DEPTH = 40
MAX_N = 1000  # largest token count a claim may range over

NAMES = ("n", "z_max", "z_min", "R", "lambda_max", "lambda_min", "kappa", "L_T", "mu_T", "L", "mu", "j_max", "j_min")
LATEX_NAMES = {
    "n": "n", "z_max": r"z_{\max}", "z_min": r"z_{\min}", "R": "R", "lambda_max": r"\lambda_{\max}",
    "lambda_min": r"\lambda_{\min}", "kappa": r"\kappa", "L_T": "L_T", "mu_T": r"\mu_T", "L": "L", "mu": r"\mu",
    "j_max": r"j_{\max}", "j_min": r"j_{\min}",
}
SYMBOLS = {name: sympy.Symbol(name) for name in NAMES}
N = SYMBOLS["n"]
CONSTANTS = {"pi": sympy.pi, "e": sympy.E}
FUNCTIONS = {"z": (1, 1), "sqrt": (1, 1), "log": (1, 1), "exp": (1, 1), "abs": (1, 1), "min": (2, 50), "max": (2, 50)}
OPERATORS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "=="}
KNOWN = NAMES + tuple(CONSTANTS) + tuple(FUNCTIONS)
HELP = "use the names " + ", ".join(NAMES) + ", pi, e and the functions z(k), sqrt, log, exp, abs, min, max"
NUMBER = re.compile(r"^(?P<int>\d*)(?:\.(?P<frac>\d*))?(?:[eE](?P<exp>[+-]?\d{1,12}))?$")
FORBIDDEN = {
    ast.Attribute: "attribute access", ast.Subscript: "a subscript", ast.Lambda: "a lambda",
    ast.ListComp: "a comprehension", ast.SetComp: "a comprehension", ast.DictComp: "a comprehension",
    ast.GeneratorExp: "a comprehension", ast.List: "a list", ast.Tuple: "a tuple", ast.Dict: "a dict",
    ast.Set: "a set", ast.JoinedStr: "a string", ast.IfExp: "a conditional expression",
    ast.NamedExpr: "an assignment", ast.Starred: "a starred argument", ast.Await: "await", ast.Yield: "yield",
}


class ZOrder(sympy.Function):
    """z(k): the k-th largest attention coefficient z_(k) (1 ≤ k ≤ n)."""

    nargs = 1


class Least(sympy.Function):
    """min(a, b, …), arguments kept in the written order (sympy.Min sorts them, evaluating numbers)."""


class Greatest(sympy.Function):
    """max(a, b, …), arguments kept in the written order."""


@dataclass(frozen=True)
class Compare:
    """lhs OP rhs, with SymPy expressions on both sides (kept unevaluated)."""

    lhs: object
    op: str  # one of < <= > >= ==
    rhs: object


@dataclass(frozen=True)
class AllOf:
    """Every part holds (`and`, and a chained comparison)."""

    parts: tuple


@dataclass(frozen=True)
class AnyOf:
    """Some part holds (`or`)."""

    parts: tuple


@dataclass(frozen=True)
class Negate:
    """The part does not hold (`not`)."""

    part: object


def normalise(text):
    """Whitespace runs become one space: the form that is parsed, hashed and compared."""
    return " ".join(str(text).split())


def parse_holds(text, n_range=None):
    """The comparison tree of a `holds` text; InputError (one line, quoting the text) if it is not one.

    `n_range` = (lo, hi): a z(k) index is then checked for every n in the range."""
    text = normalise(text)
    if len(text) > MAX_TEXT:
        raise InputError(f"claim expression {text[:40]!r}… has {len(text)} characters; shorten it to at most {MAX_TEXT}")
    if not text:
        raise InputError("claim expression '' is empty; write a comparison such as 'lambda_min >= mu_T * z_min**2'")
    try:
        with warnings.catch_warnings():  # Python's own SyntaxWarnings (e.g. "1x") would be a second stderr line
            warnings.simplefilter("ignore", SyntaxWarning)
            tree = ast.parse(text, mode="eval")
    except SyntaxError as error:
        raise InputError(f"claim expression {text!r} is not valid syntax ({error.msg}, column {error.offset}); "
                         "write a comparison such as 'lambda_min >= mu_T * z_min**2'") from None
    except (ValueError, RecursionError, MemoryError):
        raise InputError(f"claim expression {text[:60]!r} cannot be parsed; remove nesting or odd characters") from None
    _check_size(tree.body, text)
    return _Walker(text, n_range).logic(tree.body)


def names_used(tree):
    """The grammar names a claim reads ('z' when it calls z(k)); constants pi, e are not names."""
    if isinstance(tree, Compare):
        found = set()
        for side in (tree.lhs, tree.rhs):
            found |= {s.name for s in side.free_symbols}
            if side.atoms(ZOrder):
                found.add("z")
        return frozenset(found)
    parts = (tree.part,) if isinstance(tree, Negate) else tree.parts
    return frozenset().union(*(names_used(p) for p in parts))


def _check_size(node, text):
    count = sum(1 for _ in ast.walk(node))
    if count > MAX_NODES:
        raise InputError(f"claim expression {text[:60]!r} has {count} syntax nodes; split it into claims of at most {MAX_NODES}")
    if _depth(node) > MAX_DEPTH:
        raise InputError(f"claim expression {text[:60]!r} is nested deeper than {MAX_DEPTH}; flatten it")


def _depth(node, level=0):
    if level > MAX_DEPTH:
        return level
    return max((_depth(child, level + 1) for child in ast.iter_child_nodes(node)), default=level)


class _Walker:
    def __init__(self, text, n_range):
        self.text = text
        self.n_range = n_range

    def fail(self, node, problem, fix):
        segment = ast.get_source_segment(self.text, node) or self.text
        raise InputError(f"claim expression {self.text!r}: {problem} {segment!r}; {fix}")

    # ------------------------------------------------------------ comparisons and logic

    def logic(self, node):
        if isinstance(node, ast.BoolOp):
            parts = tuple(self.logic(v) for v in node.values)
            return AllOf(parts) if isinstance(node.op, ast.And) else AnyOf(parts)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return Negate(self.logic(node.operand))
        if isinstance(node, ast.Compare):
            return self.comparison(node)
        self.arith(node)  # refuses forbidden constructs with their own message
        self.fail(node, "this is a number, not a comparison:", "write a comparison such as 'X >= 0' (< <= > >= ==)")

    def comparison(self, node):
        sides = [node.left, *node.comparators]
        pairs = []
        for left, op, right in zip(sides, node.ops, sides[1:]):
            if type(op) not in OPERATORS:
                fix = "write not (a == b) for ≠" if isinstance(op, ast.NotEq) else "compare with < <= > >= =="
                self.fail(node, f"the operator {type(op).__name__} is not allowed in", fix)
            pairs.append(Compare(self.arith(left), OPERATORS[type(op)], self.arith(right)))
        return pairs[0] if len(pairs) == 1 else AllOf(tuple(pairs))

    # ------------------------------------------------------------ arithmetic

    def arith(self, node):
        if isinstance(node, ast.Constant):
            return self.number(node)
        if isinstance(node, ast.Name):
            return self.name(node)
        if isinstance(node, ast.BinOp):
            return self.binary(node)
        if isinstance(node, ast.UnaryOp):
            return self.unary(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, (ast.Compare, ast.BoolOp)):
            self.fail(node, "a comparison is used as a number:", "compare numbers, then join comparisons with and/or")
        what = FORBIDDEN.get(type(node), f"the construct {type(node).__name__}")
        self.fail(node, f"{what} is not allowed:", HELP)

    def number(self, node):
        value = node.value
        if isinstance(value, str):
            self.fail(node, "a string is not allowed:", HELP)
        if isinstance(value, bool) or value is None or not isinstance(value, (int, float)):
            self.fail(node, "the constant is not a number:", "write decimal numbers such as 2, 0.5 or 1e-400")
        text = (ast.get_source_segment(self.text, node) or "").replace("_", "")
        match = NUMBER.match(text)
        if not match or not (match["int"] or match["frac"]):
            self.fail(node, "the number is not a plain decimal:", "write decimal numbers such as 2, 0.5 or 1e-400")
        digits, fraction = match["int"] or "", match["frac"] or ""
        mantissa = sympy.Rational(int(digits + fraction or "0"), 10 ** len(fraction))
        exponent = int(match["exp"] or 0)
        if mantissa == 0 or exponent == 0:
            return mantissa
        # m·10^k stays a product, never expanded: 1e999999999 costs nothing to hold
        power = sympy.Pow(sympy.Integer(10), sympy.Integer(exponent), evaluate=False)
        return power if mantissa == 1 else sympy.Mul(mantissa, power, evaluate=False)

    def name(self, node):
        if node.id in SYMBOLS:
            return SYMBOLS[node.id]
        if node.id in CONSTANTS:
            return CONSTANTS[node.id]
        if node.id in FUNCTIONS:
            example = "z(1), z(n) or z(k) with k an integer expression in n" if node.id == "z" else f"{node.id}(x)"
            self.fail(node, "a function is used without arguments:", f"call it, e.g. {example}")
        near = difflib.get_close_matches(node.id, KNOWN, n=1, cutoff=0.6)
        fix = f"did you mean {near[0]!r}? " if near else ""
        self.fail(node, "unknown name", fix + HELP)

    def binary(self, node):
        left, right = self.arith(node.left), self.arith(node.right)
        op = node.op
        if isinstance(op, ast.Add):
            return sympy.Add(left, right, evaluate=False)
        if isinstance(op, ast.Sub):
            return sympy.Add(left, _negate(right), evaluate=False)
        if isinstance(op, ast.Mult):
            return sympy.Mul(left, right, evaluate=False)
        if isinstance(op, ast.Div):
            return sympy.Mul(left, sympy.Pow(right, -1, evaluate=False), evaluate=False)
        if isinstance(op, ast.Pow):
            return sympy.Pow(left, right, evaluate=False)
        self.fail(node, f"the operator {type(op).__name__} is not allowed in", "use + - * / ** only")

    def unary(self, node):
        if isinstance(node.op, ast.USub):
            return _negate(self.arith(node.operand))
        if isinstance(node.op, ast.UAdd):
            return self.arith(node.operand)
        if isinstance(node.op, ast.Not):
            self.fail(node, "not applies to comparisons, not to the number in", "write not (a < b)")
        self.fail(node, f"the operator {type(node.op).__name__} is not allowed in", "use + - * / ** only")

    def call(self, node):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            self.fail(node, "calling this is not allowed:", HELP)
        name = node.func.id
        if node.keywords:
            self.fail(node, "keyword arguments are not allowed:", f"call {name} with plain arguments")
        if any(isinstance(a, ast.Starred) for a in node.args):
            self.fail(node, "starred arguments are not allowed:", f"call {name} with plain arguments")
        low, high = FUNCTIONS[name]
        if not low <= len(node.args) <= high:
            count = f"{low}" if low == high else f"{low} to {high}"
            self.fail(node, f"{name} takes {count} argument(s) in", f"give {name} {count} argument(s)")
        if name == "z":
            return self.order_statistic(node)
        args = [self.arith(a) for a in node.args]
        build = {"sqrt": sympy.sqrt, "log": sympy.log, "exp": sympy.exp, "abs": sympy.Abs}
        if name in build:
            return build[name](args[0], evaluate=False)
        return (Least if name == "min" else Greatest)(*args)

    # ------------------------------------------------------------ z(k)

    def order_statistic(self, node):
        k = self.index(node.args[0])
        ns = range(self.n_range[0], self.n_range[1] + 1) if self.n_range is not None else (MAX_N,)
        for n in ns:
            value = index_value(k, n)
            if not 1 <= value <= n:
                self.fail(node, f"the index is {value} at n = {n}, outside 1..n, in",
                          "use an index between 1 and n for every n of the claim (e.g. z(1), z(n), z(n-1)), or narrow n")
        return ZOrder(k)

    def index(self, node):
        """An integer expression in n: integers, n, + - * and parentheses."""
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            return sympy.Integer(node.value)
        if isinstance(node, ast.Name) and node.id == "n":
            return N
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -self.index(node.operand)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
            left, right = self.index(node.left), self.index(node.right)
            return {ast.Add: left + right, ast.Sub: left - right, ast.Mult: left * right}[type(node.op)]
        self.fail(node, "the index of z(k) must be an integer expression in n, not", "write e.g. z(1), z(n) or z(n-1)")


def index_value(k, n):
    """The integer k(n) of a z(k) index (a polynomial in n with integer coefficients)."""
    value = 0
    for coefficient in sympy.Poly(k, N).all_coeffs():
        value = value * n + int(coefficient)
    return value


def _negate(expr):
    if isinstance(expr, sympy.Number):
        return -expr
    return sympy.Mul(sympy.Integer(-1), expr, evaluate=False)
