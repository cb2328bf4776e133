"""Claim text → syntax tree, by a whitelisted walk of Python's `ast` (the text is parsed, never run).

Every node kind is checked against a whitelist; numbers are read exactly from their source text
(`1e-400` is 10⁻⁴⁰⁰, not the float 0.0); the size and nesting of the text are bounded. A chained
comparison `a <= b < c` becomes And of the pairs. Index expressions (the k of z(k)) are linear
integer expressions in n (and, in the fact library only, in k), checked against the claim's n range.
"""
import ast
import difflib
import math
import re
import warnings
from fractions import Fraction

from verify.claims.language.quantities import BY_NAME, CONSTANTS, FUNCTIONS, INDEXED
from verify.claims.language.syntax import (And, BinOp, Call, Compare, ForAll, Index, IndexValue, Item, Name, Neg,
                                           Not, Num, Or)
from verify.base.errors import InputError
from verify.base.printable import shown

MAX_TEXT = 2000
MAX_NODES = 400
MAX_DEPTH = 40
MAX_N = 1000  # largest finite n a claim may range over
MAX_EXPONENT_DIGITS = 12  # 1e999999999999 is the largest exponent written

KNOWN = tuple(BY_NAME) + tuple(CONSTANTS) + tuple(FUNCTIONS)
PLAIN_NAMES = tuple(name for name in BY_NAME if name not in INDEXED)
HELP = ("use the names " + ", ".join(PLAIN_NAMES) + ", pi, e, the indexed quantities "
        + ", ".join(f"{name}(k)" for name in INDEXED) + " and the functions sqrt, log, exp, abs, min, max")
OPERATORS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "=="}
ARITHMETIC = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}
KEYWORD_LAMBDA = re.compile(r"\blambda\b")  # lambda(k) is a quantity, but `lambda` is a Python keyword
SAFE_LAMBDA = "lambd_"  # same length, so columns in messages stay right
NUMBER = re.compile(r"^(?P<int>[0-9]*)(?:\.(?P<frac>[0-9]*))?(?:[eE](?P<exp>[+-]?[0-9]{1,%d}))?$" % MAX_EXPONENT_DIGITS)
FORBIDDEN = {
    ast.Attribute: "attribute access", ast.Subscript: "a subscript", ast.Lambda: "a lambda",
    ast.ListComp: "a comprehension", ast.SetComp: "a comprehension", ast.DictComp: "a comprehension",
    ast.GeneratorExp: "a comprehension", ast.List: "a list", ast.Tuple: "a tuple", ast.Dict: "a dict",
    ast.Set: "a set", ast.JoinedStr: "a string", ast.IfExp: "a conditional expression",
    ast.NamedExpr: "an assignment", ast.Starred: "a starred argument", ast.Await: "await", ast.Yield: "yield",
}


SPELLINGS = {"ln": "log", "log10": "log", "exponential": "exp"}  # other languages' names of the functions
LONE_EQUALS = re.compile(r"(?<![<>=!])=(?!=)")


def normalise(text):
    """Whitespace runs become one space: the form that is parsed, hashed and compared."""
    return " ".join(str(text).split())


def parse_claim(text, n_range=None, index_vars=("n",)):
    """The syntax tree of a claim text; InputError (one line, quoting the text) if it is not a claim.

    `n_range` = (lo, hi), hi possibly math.inf: every index is checked for every n of the range.
    `index_vars` ("n", or "n" and "k" inside a `forall k in A..B:` claim) are the names an index may use."""
    text = normalise(text)
    if len(text) > MAX_TEXT:
        raise InputError(f"claim expression {shown(text, 40)}… has {len(text)} characters; shorten it to at most {MAX_TEXT}")
    if not text:
        raise InputError("claim expression '' is empty; write a comparison such as 'lambda_min >= mu_T * z_min**2'")
    quantified = FORALL.fullmatch(text) if "k" not in index_vars else None
    if quantified is not None:
        return _forall(quantified, n_range)
    if not text.isascii():
        bad = next(ch for ch in text if not ch.isascii())
        raise InputError(f"claim expression {shown(text, 60)} contains the character {shown(bad, 200)}; write it in ASCII "
                         "(lambda, mu, <=, ** …)")
    try:
        with warnings.catch_warnings():  # Python's own SyntaxWarnings (e.g. "1x") would be a second stderr line
            warnings.simplefilter("ignore")
            tree = ast.parse(KEYWORD_LAMBDA.sub(SAFE_LAMBDA, text), mode="eval")
    except SyntaxError as error:  # Python gives column 0 for a text that ends too soon
        where = f"column {error.offset}" if error.offset and error.offset <= len(text) else "at its end"
        hint = "did you mean '=='? " if LONE_EQUALS.search(text) else ""
        raise InputError(f"claim expression {shown(text, 200)} is not valid syntax ({error.msg}, {where}); "
                         f"{hint}write a comparison such as 'lambda_min >= mu_T * z_min**2'") from None
    except (ValueError, RecursionError, MemoryError):
        raise InputError(f"claim expression {shown(text, 60)} cannot be parsed; remove nesting or odd characters") from None
    _check_size(tree.body, text)
    return _Walker(text, n_range, index_vars).logic(tree.body)


def _check_size(node, text):
    count = sum(1 for _ in ast.walk(node))
    if count > MAX_NODES:
        raise InputError(f"claim expression {shown(text, 60)} has {count} syntax nodes; split it into claims of at most {MAX_NODES}")
    if _depth(node) > MAX_DEPTH:
        raise InputError(f"claim expression {shown(text, 60)} is nested deeper than {MAX_DEPTH}; flatten it")


def _depth(node, level=0):
    if level > MAX_DEPTH:
        return level
    return max((_depth(child, level + 1) for child in ast.iter_child_nodes(node)), default=level)


class _Walker:
    def __init__(self, text, n_range, index_vars):
        self.text = text
        self.n_range = n_range
        self.index_vars = index_vars

    def fail(self, node, problem, fix):
        segment = (ast.get_source_segment(KEYWORD_LAMBDA.sub(SAFE_LAMBDA, self.text), node) or self.text)
        segment = segment.replace(SAFE_LAMBDA, "lambda")
        raise InputError(f"claim expression {shown(self.text, 200)}: {problem} {shown(segment, 200)}; {fix}")

    # ------------------------------------------------------------ comparisons and logic

    def logic(self, node):
        if isinstance(node, ast.BoolOp):
            parts = tuple(self.logic(v) for v in node.values)
            return And(parts) if isinstance(node.op, ast.And) else Or(parts)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return Not(self.logic(node.operand))
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
        return pairs[0] if len(pairs) == 1 else And(tuple(pairs))

    # ------------------------------------------------------------ arithmetic

    def arith(self, node):
        if isinstance(node, ast.Constant):
            return self.number(node)
        if isinstance(node, ast.Name):
            return self.name(node)
        if isinstance(node, ast.BinOp):
            if type(node.op) not in ARITHMETIC:
                hint = "did you mean '**'? (^ is not a power) " if isinstance(node.op, ast.BitXor) else ""
                self.fail(node, f"the operator {type(node.op).__name__} is not allowed in", f"{hint}use + - * / ** only")
            return BinOp(ARITHMETIC[type(node.op)], self.arith(node.left), self.arith(node.right))
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
        written = (ast.get_source_segment(self.text, node) or "").replace("_", "")  # no lambda inside a number
        match = NUMBER.match(written)
        if not match or not (match["int"] or match["frac"]):
            self.fail(node, "the number is not a plain decimal:", "write decimal numbers such as 2, 0.5 or 1e-400")
        digits, fraction = (match["int"] or "").lstrip("0"), (match["frac"] or "")
        mantissa = Fraction(int(digits + fraction or "0"), 10 ** len(fraction))
        exponent = int(match["exp"] or 0)
        return Num(mantissa, exponent if mantissa else 0)

    def name(self, node):
        node.id = "lambda" if node.id == SAFE_LAMBDA else node.id
        if node.id == "k" and "k" in self.index_vars:
            return IndexValue(Index(0, 0, 1))
        if node.id in BY_NAME and node.id not in INDEXED:
            return Name(node.id)
        if node.id in CONSTANTS:
            return Name(node.id)
        if node.id in INDEXED:
            self.fail(node, "an indexed quantity is used without its index:",
                      f"write {node.id}(1), {node.id}({_last_text(node.id).replace(' ', '')}) or {node.id}(k) with k an "
                      "integer expression in n")
        if node.id in FUNCTIONS:
            self.fail(node, "a function is used without arguments:", f"call it, e.g. {node.id}(x)")
        near = difflib.get_close_matches(node.id, KNOWN, n=1, cutoff=0.6)
        fix = f"did you mean {shown(near[0], 200)}? " if near else ""
        self.fail(node, "unknown name", fix + HELP)

    def unary(self, node):
        if isinstance(node.op, ast.USub):
            operand = self.arith(node.operand)
            return Num(-operand.mantissa, operand.exp10) if isinstance(operand, Num) else Neg(operand)
        if isinstance(node.op, ast.UAdd):
            return self.arith(node.operand)
        if isinstance(node.op, ast.Not):
            self.fail(node, "not applies to comparisons, not to the number in", "write not (a < b)")
        self.fail(node, f"the operator {type(node.op).__name__} is not allowed in", "use + - * / ** only")

    def call(self, node):
        known = FUNCTIONS.keys() | INDEXED.keys()
        if isinstance(node.func, ast.Name) and node.func.id == SAFE_LAMBDA:
            node.func.id = "lambda"
        if not isinstance(node.func, ast.Name) or node.func.id not in known:
            called = getattr(node.func, "id", "")
            near = SPELLINGS.get(called) or next(iter(difflib.get_close_matches(called, known, n=1, cutoff=0.6)), None)
            self.fail(node, "calling this is not allowed:", (f"did you mean {shown(near, 200)}? " if near else "") + HELP)
        name = node.func.id
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            self.fail(node, "keyword or starred arguments are not allowed:", f"call {name} with plain arguments")
        low, high = FUNCTIONS.get(name, (1, 1))
        if not low <= len(node.args) <= high:
            count = f"{low}" if low == high else f"{low} to {high}"
            self.fail(node, f"{name} takes {count} argument(s) in", f"give {name} {count} argument(s)")
        if name in INDEXED:
            return self.item(node, name)
        return Call(name, tuple(self.arith(a) for a in node.args))

    # ------------------------------------------------------------ indexed quantities

    def item(self, node, name):
        index = self.index(node.args[0])
        if not index.k_coeff:
            problem = index_problem(name, index, self.n_range)
            if problem:
                self.fail(node, problem + " in", f"use an index between 1 and {_last_text(name)} for every n of the "
                          "claim (e.g. z(1), z(n), z(n-1)), or narrow n")
        return Item(name, index)

    def index(self, node):
        """A linear integer expression in n (and k in facts): integers, n, + - * and parentheses."""
        if isinstance(node, ast.Constant) and type(node.value) is int:
            written = ast.get_source_segment(KEYWORD_LAMBDA.sub(SAFE_LAMBDA, self.text), node) or ""
            if not written.replace("_", "").isdigit():
                self.fail(node, "the index must be a plain decimal integer, not", "write e.g. z(1), z(n) or z(n-1)")
            return Index(node.value)
        if isinstance(node, ast.Name) and node.id in self.index_vars:
            return Index(0, 1) if node.id == "n" else Index(0, 0, 1)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            inner = self.index(node.operand)
            return inner if isinstance(node.op, ast.UAdd) else Index(-inner.const, -inner.n_coeff, -inner.k_coeff)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
            left, right = self.index(node.left), self.index(node.right)
            if isinstance(node.op, ast.Mult):
                return self.product(node, left, right)
            sign = 1 if isinstance(node.op, ast.Add) else -1
            return Index(left.const + sign * right.const, left.n_coeff + sign * right.n_coeff,
                         left.k_coeff + sign * right.k_coeff)
        self.fail(node, "the index must be an integer expression in n, not", "write e.g. z(1), z(n) or z(n-1)")

    def product(self, node, left, right):
        constant = [side for side in (left, right) if not side.n_coeff and not side.k_coeff]
        if not constant:
            self.fail(node, "the index must be linear in n, not", "write e.g. z(2*n - 3), not a product of n's")
        c, other = (left, right) if constant[0] is left else (right, left)
        return Index(c.const * other.const, c.const * other.n_coeff, c.const * other.k_coeff)


def _last_text(name):
    return "n" if INDEXED[name].last.const == 0 else "n - 1"


def index_problem(name, index, n_range):
    """Why `index` is outside 1..last for some n of `n_range` (None if it is always inside).
    The index and the bound are linear in n, so the ends of the range decide; an infinite range
    needs an index of the form c or n − c."""
    lo, hi = n_range if n_range is not None else (2, MAX_N)
    last = INDEXED[name].last
    ends = [lo] if hi == math.inf else [lo, hi]
    for n in ends:
        value = index.at(n)
        if not 1 <= value <= last.at(n):
            return f"the index is {value} at n = {n}, outside 1..{last.at(n)},"
    if hi == math.inf and index.n_coeff not in (0, 1):
        return "the index leaves 1..n as n grows,"
    return None


def parse_fact(text, n_range=(2, math.inf)):
    """A fact of the library: a claim text (with its optional `forall k in A..B:` prefix) over its n range."""
    return parse_claim(text, n_range)


FORALL = re.compile(r"forall k in (?P<lo>[^:]+)\.\.(?P<hi>[^:]+): (?P<body>.+)")


MAX_BOUND_TEXT = 60  # characters of one bound of k
MAX_FORALL = 1000  # values of k when its bounds are constants (when they grow with n: at most n + 1)


def _forall(match, n_range):
    """`forall k in A..B: claim` (one level, at the top): bounds linear in n, every k-index in range, and a
    bounded number of values of k."""
    bounds = [_bound(match[key].strip(), match.string) for key in ("lo", "hi")]
    body = parse_claim(match["body"], n_range, ("n", "k"))
    lo, hi = n_range if n_range is not None else (2, MAX_N)
    _check_count(bounds, lo, match.string)
    span = nonempty_span(bounds[0], bounds[1], lo, hi)
    if span is None:  # k ranges over nothing for every n of the claim: vacuous, but surely a slip
        raise InputError(f"claim expression {shown(match.string, 80)}: k ranges over nothing for every n in {lo}..{hi}; "
                         "check its bounds")
    for node in _items(body):
        for bound in bounds:
            problem = index_problem(node.name, node.index.shifted(bound), span)
            if problem:
                raise InputError(f"claim expression {shown(match.string, 80)}: {node.name}(…) at k = {bound_text(bound)}: "
                                 f"{problem} narrow the range of k")
    return ForAll(bounds[0], bounds[1], body)


def nonempty_span(low, high, lo, hi):
    """(first, last): the n of lo..hi (hi may be math.inf) where low(n) ≤ high(n), k's range is not empty — an
    interval, as both bounds are linear in n — or None when there is none. Where it is empty the claim holds
    (a statement about no k), in every number system alike."""
    growth, gap = high.n_coeff - low.n_coeff, low.const - high.const  # nonempty iff growth·n ≥ gap
    if growth == 0:
        first, last = (lo, hi) if gap <= 0 else (None, None)
    elif growth > 0:
        first, last = max(lo, -(-gap // growth)), hi
    else:
        first, last = lo, min(hi, gap // growth)
    return None if first is None or first > last else (first, last)


def _bound(bound, text):
    """One bound of k: a short ASCII integer expression linear in n, checked as the body is."""
    fix = "write e.g. forall k in 1..n-1: …"
    if len(bound) > MAX_BOUND_TEXT or not bound.isascii():
        raise InputError(f"claim expression {shown(text, 60)}: the bound {shown(bound, 40)} of k is not a short ASCII integer "
                         f"expression in n (at most {MAX_BOUND_TEXT} characters); {fix}")
    try:
        node = ast.parse(bound, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise InputError(f"claim expression {shown(text, 60)}: the bound {shown(bound, 200)} of k is not an integer expression in "
                         f"n; {fix}") from None
    _check_size(node, bound)
    try:
        return _Walker(bound, None, ("n",)).index(node)
    except InputError:  # the walker speaks of an item's index: say which bound of which forall it is
        raise InputError(f"claim expression {shown(text, 60)}: the bound {shown(bound, 40)} of k is not an integer "
                         f"expression linear in n (integers, n, + - * and parentheses); {fix}") from None


def _check_count(bounds, lo, text):
    """k takes hi − lo + 1 = a + b·n values: at most MAX_FORALL when the bounds are constants (or shrink as n
    grows, checked at the least n), at most n + 1 when they grow with n; never faster than n."""
    a = bounds[1].const - bounds[0].const + 1
    b = bounds[1].n_coeff - bounds[0].n_coeff
    if b > 1 or (b == 1 and a > 1) or (b <= 0 and a + b * lo > MAX_FORALL):
        raise InputError(f"claim expression {shown(text, 60)}: k takes too many values ({_count_text(a, b)}); give k at "
                         f"most {MAX_FORALL} values, or at most n + 1 (e.g. forall k in 1..n: …)")


def _count_text(a, b):
    return str(a) if not b else f"{a} + {b}·n" if a else f"{b}·n"


def _items(tree):
    from verify.claims.language.syntax import walk

    return [node for node in walk(tree) if isinstance(node, Item) and node.index.k_coeff]


def bound_text(index):
    from verify.claims.language.text import index_text

    return index_text(index)
