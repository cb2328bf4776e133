"""Powers beyond the products the SMT encoding expands (x ** 10**10, x ** (1/1000)), and log at the arguments a
query reads: fresh unknowns constrained only by true statements, as log and exp are (verify.claims.prover.smt).

A power y = x^r with r an exact rational beyond the expansion (|numerator| > MAX_POWER or denominator > 4) is,
where it is defined (the guard of verify.claims.language.semantics):

- for x ≥ 0 (a non-integer r needs it; an integer r is read at |x|, its sign restored below): y ≥ 0, y > 0 when
  x > 0, y = 1 at x = 1, y = 0 at x = 0 for r > 0; on which side of x and of 1 it lies (x^r ≤ x on [0, 1] for
  r ≥ 1, …); Bernoulli's bound y ≥ 1 + r(x − 1) (r ≥ 1 or r < 0) or y ≤ 1 + r(x − 1) (0 < r < 1); for r ≥ 1 on
  0 < x ≤ 1 also y·(x + r(1 − x)) ≤ x (Bernoulli at 1/x); and monotonicity between the powers of one exponent
  the query reads (increasing for r > 0, decreasing for r < 0);
- an integer r at a real x: the power of |x| (a fresh a ≥ 0 equal to x or −x), with the sign of x for odd r;
  a negative integer r is 1 over the power of |r| (defined where x ≠ 0).

log: beyond monotonicity and log x ≤ x − 1, the query gets, for arguments a, b, c it reads,
log c = log a + log b where a, b > 0 and c = a·b (so log of a product, a quotient, a square is the sum or
difference of logs), and a constant argument's log between rational bounds 10⁻¹⁵ apart. A comparison of sums
of rational multiples of logs is stated as the equivalent comparison of products (`as_products`).
"""
from fractions import Fraction

import mpmath as mp

from verify.claims.prover.pieces import NotEncodable, literal

MAX_DIGITS = 1000  # an exponent's numerator and denominator have at most this many digits
LOG_TRIPLES = 200  # log's product rule is stated for at most this many triples of arguments


def power(encoder, base, p, guard):
    """The SMT term of base ** p for a rational p beyond the expansion, its definitions added to the encoder."""
    if len(str(abs(p.numerator))) > MAX_DIGITS or len(str(p.denominator)) > MAX_DIGITS:
        raise NotEncodable(f"the exponent {p} has more than {MAX_DIGITS} digits")
    if p.denominator != 1:
        return _nonnegative_power(encoder, base, p, guard)
    magnitude = encoder.extreme("abs", [base])
    y = _nonnegative_power(encoder, magnitude, Fraction(abs(p)), True)
    if p.numerator % 2:
        signed = encoder.fresh_name("pow")
        encoder.definitions.append((signed, f"(and (=> (>= {base} 0.0) (= {signed} {y})) "
                                            f"(=> (< {base} 0.0) (= {signed} (- {y}))))"))
        y = signed
    return y if p > 0 else encoder.divide("1.0", y, guard)


def _nonnegative_power(encoder, x, r, guard):
    """y = x^r for x ≥ 0 as a fresh unknown with the true statements of the module docstring."""
    y = encoder.fresh_name("pow")
    rr, one = literal(r), "1.0"
    facts = [f"(>= {y} 0.0)", f"(=> (> {x} 0.0) (> {y} 0.0))", f"(=> (= {x} {one}) (= {y} {one}))"]
    if r > 0:
        facts.append(f"(=> (= {x} 0.0) (= {y} 0.0))")
    bernoulli = f"(+ 1.0 (* {rr} (- {x} 1.0)))"
    if r >= 1:
        facts += [f"(=> (<= {x} 1.0) (<= {y} {x}))", f"(=> (>= {x} 1.0) (>= {y} {x}))", f"(>= {y} {bernoulli})",
                  f"(=> (and (> {x} 0.0) (<= {x} 1.0)) (<= (* {y} (+ {x} (* {rr} (- 1.0 {x})))) {x}))"]
    elif r > 0:
        facts += [f"(=> (<= {x} 1.0) (and (>= {y} {x}) (<= {y} 1.0)))", f"(=> (>= {x} 1.0) (and (<= {y} {x}) (>= {y} 1.0)))",
                  f"(<= {y} {bernoulli})"]
    else:
        facts += [f"(=> (and (> {x} 0.0) (< {x} 1.0)) (> {y} 1.0))", f"(=> (> {x} 1.0) (< {y} 1.0))",
                  f"(=> (> {x} 0.0) (>= {y} {bernoulli}))"]
    body = f"(=> (>= {x} 0.0) (and {' '.join(facts)}))"
    encoder.definitions.append((y, body if guard is True else f"(=> {guard} {body})"))
    same = encoder.powers.setdefault(r, [])
    for other_x, other_y in same:
        for a, ya, b, yb in ((x, y, other_x, other_y), (other_x, other_y, x, y)):
            encoder.axiom(f"(=> (and (>= {a} 0.0) (= {a} {b})) (= {ya} {yb}))")
            if r > 0:  # increasing on x ≥ 0
                encoder.axiom(f"(=> (and (>= {a} 0.0) (< {a} {b})) (< {ya} {yb}))")
            else:  # decreasing on x > 0
                encoder.axiom(f"(=> (and (> {a} 0.0) (< {a} {b})) (> {ya} {yb}))")
    same.append((x, y))
    return y


# ---------------------------------------------------------------- log


def log_axioms(args):
    """True statements of log at its arguments beyond smt's: the product rule on triples, constants' bounds."""
    out = []
    count = 0
    for i, a in enumerate(args):
        for b in args[i:]:
            for c in args:
                if c in (a, b) or count >= LOG_TRIPLES:
                    continue
                count += 1
                out.append(f"(=> (and (> {a} 0.0) (> {b} 0.0) (= {c} (* {a} {b}))) "
                           f"(= (log_ {c}) (+ (log_ {a}) (log_ {b}))))")
    for a in args:
        value = literal_value(a)
        if value is not None and value > 0:
            low, high = log_bounds(value)
            out.append(f"(and (< {literal(low)} (log_ {a})) (< (log_ {a}) {literal(high)}))")
    return out


def log_bounds(value):
    """Rationals low < ln(value) < high, 2·10⁻¹⁵ apart: ln at 60 digits, whose error is far below the margin."""
    scale = 10**15
    with mp.workdps(60):
        estimate = mp.log(mp.mpf(value.numerator) / value.denominator) * scale
        return Fraction(int(mp.floor(estimate)) - 1, scale), Fraction(int(mp.ceil(estimate)) + 1, scale)


def literal_value(term):
    """The exact rational an SMT literal of `smt.literal` denotes, or None for any other term."""
    negative = term.startswith("(- ") and term.endswith(")")
    body = term[3:-1] if negative else term
    if body.startswith("(/ ") and body.endswith(")"):
        parts = body[3:-1].split(" ")
        if len(parts) != 2:
            return None
        top, bottom = (_integer(p) for p in parts)
        value = None if top is None or not bottom else Fraction(top, bottom)
    else:
        value = _integer(body)
        value = None if value is None else Fraction(value)
    return None if value is None else (-value if negative else value)


def _integer(text):
    digits = text[:-2] if text.endswith(".0") else None
    return int(digits) if digits and digits.isdigit() else None


# ---------------------------------------------------------------- comparisons of sums of logs


def log_linear(node):
    """{argument: rational coefficient} when the node is a sum of rational multiples of log(argument), else None."""
    from verify.claims.language.syntax import BinOp, Call, Neg

    constant = _constant(node)
    if constant is not None:
        return {} if constant == 0 else None
    if isinstance(node, Call) and node.name == "log":
        return {node.args[0]: Fraction(1)}
    if isinstance(node, Neg):
        inner = log_linear(node.operand)
        return None if inner is None else {k: -v for k, v in inner.items()}
    if isinstance(node, BinOp) and node.op in "+-":
        left, right = log_linear(node.left), log_linear(node.right)
        if left is None or right is None:
            return None
        sign = 1 if node.op == "+" else -1
        out = dict(left)
        for k, v in right.items():
            out[k] = out.get(k, 0) + sign * v
        return out
    if isinstance(node, BinOp) and node.op in "*/":
        factor = _constant(node.right) if node.op == "/" or _constant(node.left) is None else _constant(node.left)
        term = node.left if node.op == "/" or _constant(node.left) is None else node.right
        if factor is None or factor == 0:
            return None
        inner = log_linear(term)
        factor = 1 / factor if node.op == "/" else factor
        return None if inner is None else {k: v * factor for k, v in inner.items()}
    return None


def _constant(node):
    """The exact value of a small constant subtree (numbers joined by + - * /), else None."""
    from verify.claims.language.syntax import BinOp, Neg, Num

    if isinstance(node, Num):
        value = node.exact(60)
        return value
    if isinstance(node, Neg):
        inner = _constant(node.operand)
        return None if inner is None else -inner
    if isinstance(node, BinOp) and node.op in "+-*/":
        left, right = _constant(node.left), _constant(node.right)
        if left is None or right is None or (node.op == "/" and right == 0):
            return None
        return {"+": lambda: left + right, "-": lambda: left - right, "*": lambda: left * right,
                "/": lambda: left / right}[node.op]()
    return None


def as_products(compare, max_power):
    """For a comparison of sums of logs (Σ c_i log x_i OP Σ d_j log y_j, rational coefficients): (exponents,
    arguments) — the integer exponents of an equivalent comparison of products (∏ over positive exponents OP ∏
    over negative ones), which holds exactly where every log is defined, and every log's argument (each must be
    > 0, a log whose terms cancel included): ln is an increasing bijection, ln of a product the sum of the lns.
    None when it does not apply or the exponents exceed max_power."""
    left, right = log_linear(compare.left), log_linear(compare.right)
    if left is None or right is None or not (left or right):
        return None
    arguments = tuple(dict.fromkeys(list(left) + list(right)))
    total = dict(left)
    for k, v in right.items():
        total[k] = total.get(k, 0) - v
    total = {k: v for k, v in total.items() if v}
    scale = 1
    for v in total.values():
        scale = scale * v.denominator // _gcd(scale, v.denominator)
    exponents = {k: int(v * scale) for k, v in total.items()}
    if any(abs(e) > max_power for e in exponents.values()):
        return None
    return exponents, arguments


def _gcd(a, b):
    import math

    return math.gcd(a, b)
