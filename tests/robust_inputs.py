"""Hypothesis strategies of bad (and good) input files for tests/test_robustness.py: case files (JSON),
claim files (TOML, holds texts from the claim language's grammar and its invalid neighbours) and mutations
of real certificates. Each draws text or bytes as a user could write them, not Python objects."""
import copy
import json
import math
import random

from hypothesis import strategies as st

from verify.claims.cases.case import MAX_MATRIX_N, MAX_TOKENS
from verify.claims.claimfile import MAX_CLAIMS, claim_from_fields
from verify.claims.language.quantities import CONSTANTS, FUNCTIONS, INDEXED, PLAIN
from verify.base.errors import InputError


def pick(options):
    """One of `options`, each equally likely: Hypothesis favours the first of a `sampled_from` and replays
    earlier choices, which would make every example a broken one; a seeded choice keeps the mix."""
    return st.integers(0, 2**64).map(lambda seed: random.Random(seed).choice(options))


def one_in(k):
    """True about once in k draws."""
    return pick([True] + [False] * (k - 1))


def text(max_size):
    """Text without lone surrogates (those are drawn on purpose, where they belong)."""
    return st.text(st.characters(exclude_categories=["Cs"]), max_size=max_size)


# ---------------------------------------------------------------- JSON with tokens its encoder does not write


class Raw(str):
    """A JSON token written verbatim: 1e-400, NaN, a 5000-digit integer, 3000 nested brackets."""


def to_json(value):
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k), ensure_ascii=False)}: {to_json(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(to_json(v) for v in value) + "]"
    return json.dumps(value, allow_nan=True, ensure_ascii=False)


def nested(depth, inner="1", open_="[", close="]"):
    return Raw(open_ * depth + inner + close * depth)


def decimal_texts():
    """Decimal text of every shape: signs, long mantissas, exponents from tiny to absurd."""
    mantissa = st.one_of(st.integers(0, 10**6).map(str), st.integers(1, 60).map(lambda k: "9" * k),
                         st.sampled_from(["0", "00", "", ".", "1.", ".5", "0.1", "1" * 120, "1" * 12000]))
    exponent = st.one_of(st.just(""), st.sampled_from(["e-400", "e+308", "E5", "e-100001", "e999999999", "e", "e+",
                                                       "e-99999", "e100000"]),
                         st.integers(-10**6, 10**6).map(lambda e: f"e{e}"))
    return st.builds(lambda sign, m, e: sign + m + e, st.sampled_from(["", "-", "+"]), mantissa, exponent)


numbers = st.one_of(
    st.integers(-50, 50), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
    decimal_texts(), decimal_texts().map(Raw).filter(lambda t: t and t[-1].isdigit() and t[0] in "-0123456789"),
    st.sampled_from([Raw("1e-400"), Raw("1E+99999"), Raw("-0.0"), Raw("1e999999999"), Raw("NaN"), Raw("-Infinity"),
                     Raw("9" * 5000), Raw("1" + "0" * 4500), "9" * 5000, "1/3", "0x10", "1_000", " 1", "1 ", "١٢",
                     "１.５", "𝟙", "٣e٢", "inf", "nan", "-0", "1e-400"]),
    text(max_size=6), st.none(), st.booleans(), st.just([]), st.just({}))


# ---------------------------------------------------------------- case files


def valid_H(n):
    """Positive definite: n + 1 on the diagonal, 1 elsewhere."""
    return [[n + 1 if i == j else 1 for j in range(n)] for i in range(n)]


@st.composite
def case_files(draw):
    """A case file's text: mostly a valid case with some entries, keys or shapes broken."""
    n = draw(pick([2, 3, 4, 5, 6, 2, 3, 0, 1, 17, 24]))
    broken = draw(pick([0.0, 0.0, 0.05, 0.3]))  # the share of entries replaced by any number
    entry = lambda valid: draw(numbers) if draw(st.floats(0, 1)) < broken else valid
    logit = lambda k: draw(st.sampled_from([-3 * k, str(-3 * k), Raw(f"-{k}e2"), f"-{k}.5", Raw(f"{-k / 7!r}")]))
    exponent = draw(pick([0, 0, -300, 299, -5]))  # H scaled by 10^exponent, each entry exact
    form = draw(st.sampled_from([lambda t: Raw(t), str]))  # a JSON number, or a decimal string
    data = {"logits": [entry(logit(k)) for k in range(n)],
            "H": [[entry(form(f"{v}e{exponent}" if exponent else str(v))) for v in row] for row in valid_H(n)]}
    if draw(one_in(4)):
        data["z"] = [entry(Raw(repr(1 / n))) for _ in range(n)] if n else []
        if draw(pick([True, True, False])):
            del data["logits"]
    for key in ("L", "mu"):
        if draw(one_in(4)):
            data[key] = draw(st.one_of(st.sampled_from([n + 10, 0.5, "1e-9", n]), numbers))
    if draw(one_in(6)):
        data[draw(st.sampled_from(["Mu", "h", "logit", "", "extra", "l"]))] = draw(numbers)
    for _ in range(draw(pick([0, 0, 0, 1, 2]))):
        data = draw(pick(CASE_MUTATIONS))(draw, data, n)
    if draw(one_in(6)):
        data = _whole(draw, data)
    return to_json(data)


def _reshape_H(draw, data, n):
    H = data["H"] if isinstance(data.get("H"), list) and all(isinstance(r, list) for r in data["H"]) else [[1]]
    shapes = [[H], H[:-1], [row[:-1] for row in H], [row + [1] for row in H], [v for row in H for v in row], H + [H[0]]
              if H else H, [[row] for row in H], {"0": H}, "H", 1]
    return dict(data, H=draw(st.sampled_from(shapes)))


def _deepen(draw, data, n):
    depth = draw(st.sampled_from([50, 500, 990, 1001, 3000, 100_000]))
    key = draw(st.sampled_from(["H", "logits", "z", "L", "mu"]))
    return dict(data, **{key: nested(depth, to_json(data.get(key, 1)))})


def _retype(draw, data, n):
    key = draw(st.sampled_from(sorted(data) or ["H"]))
    return dict(data, **{key: draw(st.one_of(numbers, st.lists(numbers, max_size=3)))})


def _whole(draw, data):
    return draw(st.sampled_from([[data], data.get("H"), Raw("null"), nested(5000, "{}"),
                                 Raw(to_json(data)[: draw(st.integers(0, len(to_json(data))))])]))


def _oversize(draw, data, n):
    """More coefficients than a case may have (with H, or at all): refused before any is parsed."""
    count = draw(st.sampled_from([MAX_MATRIX_N + 1, MAX_TOKENS + 1]))
    return dict(data, **{"z" if "z" in data else "logits": Raw("[" + ", ".join(["0"] * count) + "]")})


CASE_MUTATIONS = (_reshape_H, _deepen, _retype, _oversize)


# ---------------------------------------------------------------- claim files


INDICES = {"z": ["1", "2", "n", "n-1", "n - 1"], "j": ["1", "n-1"], "lambda": ["1", "n - 1"]}  # valid for every n ≥ 2
BAD_INDICES = ["n+1", "0", "-1", "2*n", "k", "1.5", "n*n", "10**9", "k+1", "x", "n"]
LITERALS = ["1", "2", "0.5", "3/2", "1e-400", "1e300", "1e999999999", "10**10**10", "9" * 400]
BAD_LITERALS = ["1e9999999999999", "0x10", "1_0", "True", "None", "'a'", "١", "1j", "..."]
NAMES = list(PLAIN) + list(CONSTANTS)
BAD_NAMES = ["foo", "lambda", "z", "lam", "__import__", "os", "k", "x", "Kappa"]
OPERATORS, BAD_OPERATORS = ["+", "-", "*", "/", "**"], ["%", "//", "@", "^", "&"]
COMPARISONS, BAD_COMPARISONS = ["<", "<=", ">", ">=", "=="], ["!=", "=", "is", "in", "=>"]


def grammar(bad):
    """Claim texts from the claim language's grammar (names of verify.claims.language.quantities); with `bad`,
    its invalid neighbours mixed in (unknown names, indices out of range, operators it lacks)."""
    mix = (lambda good, wrong: pick(good + wrong)) if bad else (lambda good, wrong: pick(good))
    indexed = st.one_of(*(st.builds(lambda k, f=f: f"{f}({k})", mix(INDICES[f], BAD_INDICES)) for f in INDEXED))
    atoms = st.one_of(mix(NAMES, BAD_NAMES), mix(LITERALS, BAD_LITERALS), indexed)
    functions = [f for f, (lo, _) in FUNCTIONS.items() if lo == 1]
    expressions = st.recursive(atoms, lambda inner: st.one_of(
        st.builds(lambda a, op, b: f"{a} {op} {b}", inner, mix(OPERATORS, BAD_OPERATORS), inner),
        st.builds(lambda a: f"({a})", inner), st.builds(lambda a: f"-{a}", inner),
        st.builds(lambda f, a: f"{f}({a})", mix(functions, ["eval", "print", "min"]), inner),
        st.builds(lambda f, a, b: f"{f}({a}, {b})", mix(["min", "max"], ["sqrt", "log"]), inner, inner),
        st.builds(lambda parts: " ** ".join(parts), st.lists(inner, min_size=2, max_size=12))), max_leaves=8)
    comparisons = st.builds(lambda a, op, b, more: f"{a} {op} {b}{more}", expressions, mix(COMPARISONS, BAD_COMPARISONS),
                            expressions, pick(["", "", "", " <= 10**9", " < kappa"]))
    return st.recursive(comparisons, lambda inner: st.one_of(
        st.builds(lambda a, op, b: f"{a} {op} {b}", inner, mix(["and", "or"], ["&&", "xor"]), inner),
        st.builds(lambda a: f"not {a}", inner), st.builds(lambda a: f"({a})", inner)), max_leaves=3)


FRAGMENTS = st.sampled_from(["", " ", "\ud800 > 1", "import os", "__class__", "kappa.real >= 1", "[1] < 2", "lambda x: x",
                             "f'{1}' < 2", "kappa >=", "kappa >= 1; 1", "forall k in 1..n: z(k) > 0",
                             "forall k in 1..n-1: forall k in 1..n: j(k) > 0", "forall k in a..b: z(k) > 0",
                             "forall k in 1..n+5: z(k) > 0", "kappa >= 1\nkappa <= 2", "z_max >= 1/6", "R >= 1",
                             "lambda_min <= mu_T * z_max**2", "kappa >= (L_T/mu_T) * R**-2", "lambda_max >= L * z_min**2"])


@st.composite
def holds_texts(draw, broken):
    """A claim text: from the grammar; when `broken`, perhaps invalid, deeply nested or far too long."""
    if not broken:
        claim = draw(grammar(False))
        if draw(one_in(4)):
            claim = f"forall k in 1..n-1: j(k) > 0 and {claim}" if draw(st.booleans()) else \
                f"forall k in 1..n: z(k) <= 1 and {claim}"
        return "(" * 20 + claim + ")" * 20 if draw(one_in(6)) else claim
    kind = draw(pick(["valid", "invalid", "invalid", "fragment", "text"]))
    claim = draw({"valid": grammar(False), "invalid": grammar(True), "fragment": FRAGMENTS, "text": text(max_size=30)}[kind])
    if draw(one_in(3)):
        lo, hi = draw(pick(["1", "2", "0", "n", "n+1"])), draw(pick(["n", "n-1", "1", "n+2"]))
        claim = f"forall k in {lo}..{hi}: {claim.replace('(n)', '(k)')}"
    if draw(one_in(3)):
        depth = draw(st.sampled_from([39, 41, 200, 3000]))
        claim = "(" * depth + claim + ")" * depth
    if draw(one_in(5)):
        claim = claim * draw(st.sampled_from([10, 300]))
    return claim


GOOD_N = st.tuples(st.integers(2, 4), st.integers(2, 6)).map(lambda p: [min(p), max(p)])
BAD_N = st.one_of(
    st.lists(st.one_of(st.integers(-3, 1100), st.sampled_from([math.inf, -math.inf, math.nan, 2.5, 10**30, "2", True])),
             max_size=3),
    st.sampled_from([Raw("[2, inf]"), Raw("[3, [4]]"), Raw("5"), Raw('"2..10"'), Raw("[2, 1e3]"), Raw("{lo = 2}")]))
GOOD_FIELDS = {"statement": text(max_size=20), "n": st.one_of(GOOD_N, st.just([3, math.inf])),
               "hessian": st.sampled_from(["spd", "isotropic", "diagonal"]), "expect": st.sampled_from(["true", "false"]),
               "reason": text(max_size=20)}
TOML_VALUES = st.one_of(st.integers(), st.floats(), st.booleans(), text(max_size=8), st.lists(st.integers(), max_size=3),
                        st.sampled_from([Raw("{a = 1}"), Raw("[[1], [2, [3]]]"), Raw("1979-05-27T07:32:00Z"),
                                         Raw("07:32:00"), Raw("1979-05-27"), Raw("[]"), Raw("{}")]))
BAD_FIELDS = {"statement": TOML_VALUES, "n": st.one_of(BAD_N, TOML_VALUES), "reason": TOML_VALUES,
              "hessian": st.one_of(st.sampled_from(["SPD", "", "dense"]), TOML_VALUES),
              "expect": st.one_of(st.sampled_from(["maybe", "True", ""]), TOML_VALUES)}


@st.composite
def claim_tables(draw, broken):
    """One [[claim]] table's fields; when `broken`, each may be wrong, unknown or missing."""
    bad_ids = st.one_of(st.sampled_from(["T2.swapped", ".x", "", "a" * 101, "x y", "é", "a\n"]), TOML_VALUES)
    table = {"id": draw(bad_ids if broken and draw(one_in(4)) else st.from_regex(r"[a-z][a-z0-9._-]{0,8}", fullmatch=True)),
             "holds": draw(holds_texts(broken))}
    for key in GOOD_FIELDS:
        if draw(one_in(3)):
            table[key] = draw(BAD_FIELDS[key] if broken and draw(one_in(3)) else GOOD_FIELDS[key])
    if broken and draw(one_in(6)):
        table[draw(st.sampled_from(["proof", "claim", "ID", "title"]))] = draw(TOML_VALUES)
    if broken and draw(one_in(8)):
        table["holds"] = draw(TOML_VALUES)
    if broken and draw(one_in(6)):
        del table[draw(st.sampled_from(["id", "holds"]))]
    return table


def toml_value(value):
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return toml_string(str(value))


def toml_string(text):
    """A TOML basic string: quotes, backslashes and control characters escaped, the rest as it is (a lone
    surrogate stays, and makes the file's bytes invalid UTF-8)."""
    escape = lambda c: "\\" + c if c in '"\\' else f"\\u{ord(c):04x}" if ord(c) < 0x20 or ord(c) == 0x7f else c
    return '"' + "".join(escape(c) for c in text) + '"'


@st.composite
def claim_files(draw):
    """A claim file's bytes: half of them valid; the rest with broken tables, too many or none, junk bytes
    or deep nesting."""
    broken = draw(st.booleans())
    count = draw(pick([1, 1, 2, 3, 0, MAX_CLAIMS + 1] if broken else [1, 1, 2]))
    tables = draw(st.lists(claim_tables(broken), min_size=min(count, 3), max_size=min(count, 3)))
    tables = [dict(t, id=f"c{i}.{t['id']}") if broken is False or draw(one_in(2)) and isinstance(t.get("id"), str)
              else t for i, t in enumerate((tables * count)[:count])]  # the same id twice only when broken
    text = "".join("[[claim]]\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in t.items()) + "\n" for t in tables)
    if broken and draw(one_in(3)):
        text += draw(st.sampled_from(["title = \"x\"\n", "claim = 3\n", "[claim]\nid = \"a\"\n",
                                      "[[claim.sub]]\nid = \"a\"\n", "x = " + nested(3000, "1") + "\n",
                                      "x = " + nested(3000, "1", "{a = ", "}") + "\n", "[[claim]]\n"]))
    data = text.encode("utf-8", "surrogatepass")
    if broken and draw(one_in(3)):
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
    return data


# ---------------------------------------------------------------- certificates


def _paths(value, prefix=()):
    """Every path (tuple of keys and indices) into a JSON value, the root included."""
    yield prefix
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        yield from _paths(child, (*prefix, key))


def _replace(root, path, make):
    if not path:
        return make(root)
    parent = root
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = make(parent[path[-1]])
    return root


def _tweak_number(draw, value):
    text = str(value)
    digits = [i for i, c in enumerate(text) if c.isdigit()]
    if not digits:
        return draw(numbers)
    at = draw(st.sampled_from(digits))
    return type(value)(text[:at] + draw(st.sampled_from("0123456789")) + text[at + 1:]) if isinstance(value, str) else \
        value + draw(st.sampled_from([1, -1, 10**6, -(10**9)]))


@st.composite
def mutated_certificates(draw, bodies):
    """(bytes, user claim?) of a real certificate after 0 to 3 mutations of its JSON tree and perhaps its bytes."""
    name = draw(st.sampled_from(sorted(bodies)))
    body = copy.deepcopy(bodies[name])
    for _ in range(draw(st.integers(0, 3))):
        path = draw(st.sampled_from(list(_paths(body))))
        action = draw(pick(["drop", "add", "retype", "number", "nest", "swap"]))
        if action == "drop" and path:
            _replace(body, path[:-1], lambda parent: _drop(parent, path[-1]))
        elif action == "add":
            body = _replace(body, path, lambda v: dict(v, **{draw(st.sampled_from(["x", "dps", "kind", "lhs"])):
                                                            draw(numbers)}) if isinstance(v, dict) else v + [draw(numbers)]
                            if isinstance(v, list) else v)
        elif action == "retype":
            body = _replace(body, path, lambda v: draw(st.one_of(numbers, st.just(str(v)[:50]), st.just([v]),
                                                                 st.sampled_from([None, True, [], {}]))))
        elif action == "number":
            body = _replace(body, path, lambda v: _tweak_number(draw, v) if isinstance(v, (int, str)) and
                            not isinstance(v, bool) else v)
        elif action == "nest":
            depth = draw(st.sampled_from([3, 200, 990, 5000]))
            body = _replace(body, path, lambda v: nested(depth, to_json(v)))
        elif action == "swap":
            other = draw(st.sampled_from(sorted(bodies)))
            key = draw(st.sampled_from(sorted(bodies[other])))
            if isinstance(body, dict):
                body[key] = copy.deepcopy(bodies[other][key])
    if draw(st.booleans()):
        body = _resign(body)
    data = to_json(body).encode("utf-8", "surrogatepass")
    cut = draw(pick(["none", "none", "truncate", "bytes", "bom"]))
    if cut == "truncate":
        data = data[:draw(st.integers(0, len(data)))]
    elif cut == "bytes":
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\x80\x80", b"\xed\xa0\x80", b"\x00"])) + data[at:]
    elif cut == "bom":
        data = b"\xef\xbb\xbf" + data
    return data, isinstance(body, dict) and body.get("claim") in ("mine.false", "mine.true")


def _drop(parent, key):
    if isinstance(parent, dict):
        parent.pop(key, None)
    elif isinstance(parent, list) and parent:
        parent.pop(key)
    return parent


def _resign(body):
    """A user claim's SHA-256 recomputed by the package for the (mutated) statement and domain, as someone
    editing a certificate could: `check` must then refuse or re-decide the edited claim itself."""
    domain = body.get("domain") if isinstance(body, dict) else None
    if not isinstance(domain, dict) or body.get("reading", 1) is not None or not isinstance(domain.get("n"), list):
        return body
    n = [math.inf if v is None else v for v in domain["n"]]
    try:
        claim = claim_from_fields({"id": body.get("claim"), "holds": body.get("statement"), "n": n,
                                   "hessian": domain.get("hessian")}, "certificate")
    except InputError:
        return body
    return dict(body, sha256=claim.digest(None))
