"""One configuration of Theorem 2: coefficients (z or logits), H and optional L, μ.

The case-file format is also the `inputs` of a certificate: {"z": [...]} or {"logits": [...]}, "H": [[...]],
optional "L", "mu"; numbers are JSON numbers or decimal strings, kept as exact rationals (a JSON number is read as
the decimal it is written as); each computation converts them once, at its own precision.
Bounds (each refused in one line that names the fix):
- a file of at most MAX_FILE_BYTES = 64 MiB (n = 1000 with 30-digit entries is about 35 MB);
- at most MAX_TOKENS = 10,000 coefficients (`spectrum`'s largest size: its secular work is O(n²), about 15 s here
  at this n; 100,000 took 20 minutes), and with H at most MAX_MATRIX_N = 1000 (case mode's benchmarked size:
  reading H takes 5 s; 64 MiB of one-digit entries would be n ≈ 5,800, minutes of work, gigabytes of rationals);
- the keys above and no others (a misspelled key is refused with the nearest valid one);
- every number within `verify.numerics.precision`'s bounds (10,000 digits, exponents of ±100,000);
- |logit| ≤ 10⁶ (coefficients down to e^(−2·10⁶)), |H_ij|, L, μ ≤ 10³⁰⁰ (float64's range);
- H symmetric (asymmetry up to 10⁻¹² of its largest entry is averaged away) and positive definite,
  L ≥ λ_max(H), 0 < μ ≤ λ_min(H): all proved rigorously (`verify.numerics.definite`: Rump's float64
  criterion at the matrix's own scale, an exact decision up to 64 rows when that is inconclusive).
"""
import difflib
import functools
import json
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from verify.base.errors import InputError
from verify.base.files import read_bounded
from verify.claims.cases.entries import Entries
from verify.numerics.definite import EXACT_MAX, positive_definite
from verify.numerics.precision import Log, exact_decimal, parse_number, terminates, to_float
from verify.base.printable import clipped, shown

LOGIT_LIMIT = 10**6  # |logit| bound: coefficients down to e^(−2·10⁶) are fine, 1e308 is a typo
MATRIX_LIMIT = 10**300  # |H_ij|, L, μ stay inside float64's range (the search path reads them)
MAX_FILE_BYTES = 64 << 20  # bytes read from a case or certificate file
MAX_TOKENS = 10_000  # coefficients of a case (spectrum at this n: about 15 s; the secular work is O(n²))
MAX_COEFFICIENT_BITS = 30_000_000  # bits of the coefficients' exact rationals, in all (about 9 million digits)
MAX_MATRIX_N = 1000  # rows of H (n² exact rationals; case mode's benchmarked size)
KEYS = ("z", "logits", "H", "L", "mu")
REBUILT = 4000  # characters of a repr that rebuilds the case, at most (a drawn case of 8 tokens: about 1,500)


@dataclass(frozen=True)
class Case:
    """A hashable record of exact numbers: logits (Fractions, or `Log(z_k)` when z was given), H's rows, optional L,
    μ, and which of z / logits the user gave. A case whose H holds float64 values (the search's random cases, the
    corners, drawn cases whose entries fit float64) keeps them as one read-only float64 array, each entry exactly the
    rational it denotes: its rows of Fractions are built only when something reads `H` (10⁶ Fractions take seconds
    at n = 1000), and its hash, equality and float copy come from the array."""

    logits: tuple  # Fraction; when z is given, Log(z_k) (softmax of it is z renormalised)
    H: tuple  # rows of Fraction (built on first use when the case holds H as an exact float64 array)
    L: object = None
    mu: object = None
    given: str = "logits"  # which of "z" / "logits" the user gave

    def __getattr__(self, name):
        """`H` of a case built from an exact float64 array: its rows of Fractions, built once on first use."""
        exact = self.__dict__.get("_H_exact") if name == "H" else None
        if exact is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        rows = _fraction_rows(exact)
        object.__setattr__(self, "H", rows)
        return rows

    def __hash__(self):
        return self._hash

    @functools.cached_property
    def _hash(self):
        """The logits, H's diagonal and first row (enough to tell cases apart; equality compares everything), L, μ.
        Float64 values and the Fractions equal to them hash alike, so the array and the rows give one hash; no str
        or None is hashed (their hashes differ between processes, and a pickled case carries this one)."""
        exact = self.exact_H_float()
        if exact is not None:
            sample = (tuple(exact.diagonal().tolist()), tuple(exact[0].tolist()))
        else:
            sample = () if self.H is None else (tuple(row[i] for i, row in enumerate(self.H)), tuple(self.H[0]))
        given = tuple(() if v is None else v for v in (self.L, self.mu))
        return hash((self.logits, sample, given, self.given == "z"))

    def __eq__(self, other):
        """Equal exact numbers (float64 arrays compared as arrays: their entries are the exact values)."""
        if self is other:
            return True
        if not isinstance(other, Case):
            return NotImplemented
        if hash(self) != hash(other) or (self.logits, self.L, self.mu, self.given) != (other.logits, other.L,
                                                                                        other.mu, other.given):
            return False
        mine, theirs = self.exact_H_float(), other.exact_H_float()
        if mine is not None and theirs is not None:
            return bool(np.array_equal(mine, theirs))
        return self.H == other.H

    @property
    def n(self):
        return len(self.logits)

    @property
    def has_H(self):
        """Whether the case has an H (without building its rows)."""
        return "_H_exact" in self.__dict__ or self.H is not None

    def exact_H_float(self):
        """H as a read-only float64 array whose entries are exactly H's, when the case holds it so; else None."""
        return self.__dict__.get("_H_exact")

    def log_z_float(self):
        s = np.array([float(v) for v in self.logits])
        s = s - s.max()
        return s - np.log(np.sum(np.exp(s)))

    def H_float(self):
        """H in float64 (a copy: the caller may change it), converted once per case (10⁶ Fractions take a second)."""
        cached = self.__dict__.get("_H_exact")
        cached = self.__dict__.get("_H_float") if cached is None else cached
        if cached is None:
            cached = np.array([[float(v) for v in row] for row in self.H])
            object.__setattr__(self, "_H_float", cached)
        return cached.copy()

    def inputs(self):
        """The JSON case-file form (exact decimal strings), which `--case` and certificates read."""
        if self.given == "z":
            coefficients = {"z": [exact_decimal(v.of) for v in self.logits]}
        else:
            coefficients = {"logits": [exact_decimal(v) for v in self.logits]}
        out = dict(coefficients, H=[[exact_decimal(v) for v in row] for row in self.H])
        for key in ("L", "mu"):
            if getattr(self, key) is not None:
                out[key] = exact_decimal(getattr(self, key))
        return out

    def __repr__(self):
        """`make_case(...)` with every number exact, which rebuilds the case (a failing example Hypothesis prints), up
        to REBUILT characters; else bounded and safe whatever the numbers (a 5,000-digit entry has no str in Python)."""
        if self.n <= 16 and self.H is not None and all(terminates(v) for v in (  # (the size first: no large H is read)
                *(v.of if self.given == "z" else v for v in self.logits), self.L, self.mu, *sum(self.H, ())) if v is not None):
            rebuilt = "make_case(" + ", ".join(f"{k}={v!r}" for k, v in self.inputs().items()) + ")"
            if len(rebuilt) <= REBUILT:
                return rebuilt
        return (f"Case(n={self.n}, given={self.given!r}, logits={shown(list(self.logits), 120)}, "
                f"H={shown(None if self.H is None else list(self.H), 120)}, L={shown(self.L)}, mu={shown(self.mu)})")

    def _repr_pretty_(self, printer, cycle):
        """Hypothesis prints a drawn case through this (its own printer would walk all n² entries)."""
        printer.text(repr(self))

    @classmethod
    def from_arrays(cls, logits, H, L=None, mu=None):
        """From float64 (or integer) arrays, each value taken exactly."""
        exact = lambda v: Fraction(int(v)) if isinstance(v, (int, np.integer)) else Fraction(float(v))
        floats = exact_floats(H)
        if floats is None:
            return cls(tuple(exact(v) for v in logits), tuple(tuple(exact(v) for v in row) for row in H),
                       None if L is None else exact(L), None if mu is None else exact(mu))
        return cls.with_float_H(tuple(exact(v) for v in logits), floats, None if L is None else exact(L),
                                None if mu is None else exact(mu))

    @classmethod
    def with_float_H(cls, logits, H, L=None, mu=None, given="logits"):
        """A case whose H is a float64 array of exact values (its rows of Fractions are built on first use)."""
        H = np.array(H, dtype=np.float64)  # a copy, which the case alone holds
        if not np.isfinite(H).all():
            raise ValueError("H has an entry that is not finite; every entry of a case is an exact number")
        H.setflags(write=False)
        case = object.__new__(cls)
        for name, value in (("logits", tuple(logits)), ("L", L), ("mu", mu), ("given", given), ("_H_exact", H)):
            object.__setattr__(case, name, value)
        return case


def exact_floats(H):
    """H as a float64 array with exactly its values, when H is a float64 array, or integers float64 holds exactly
    (|v| ≤ 2⁵³); else None."""
    if not isinstance(H, np.ndarray):
        if not isinstance(H, (list, tuple)) or not all(type(v) is int for row in H for v in row):
            return None
        try:
            H = np.array(H, dtype=np.int64)
        except OverflowError:
            return None
    if H.ndim != 2 or H.shape[0] != H.shape[1]:
        return None
    if H.dtype == np.float64:
        return H
    if H.dtype.kind in "iu" and (H.size == 0 or -(2**53) <= int(H.min()) and int(H.max()) <= 2**53):
        return H.astype(np.float64)
    return None


def _fraction_rows(H):
    """The rows of Fractions of a float64 array (one Fraction per distinct value: H = I shares two)."""
    made = {}
    return tuple(tuple(made[v] if v in made else made.setdefault(v, Fraction(v)) for v in row) for row in H.tolist())


def read_json(path, what):
    """The JSON value of a file of at most MAX_FILE_BYTES (floats kept as their decimal text, integers beyond
    4,000 digits too); InputError, one line, if it is unreadable, too large or not JSON."""
    raw = read_bounded(path, MAX_FILE_BYTES, f"{what} file", "a JSON file", what)
    try:
        text = raw.decode("utf-8-sig")  # a byte-order mark, as some editors write, is not part of the JSON
    except UnicodeDecodeError as error:
        raise InputError(f"{what} file {shown(path, 200)} is not UTF-8 text (byte {error.start}); save it as UTF-8 JSON") from None
    try:
        return json.loads(text, parse_float=str,  # a JSON number is the decimal it is written as
                          parse_int=lambda digits: int(digits) if len(digits) <= 4000 else digits,
                          object_pairs_hook=_unique_keys)
    except DuplicateKey as twice:
        raise InputError(f"{what} file {shown(path, 200)} has the key {shown(twice.key, 40)} twice in one object (JSON "
                         "readers would keep only one of them); give each key once") from None
    except RecursionError:
        raise InputError(f"{what} file {shown(path, 200)} is nested too deeply to read (about 1,000 levels is the limit); a "
                         f"{what} file needs only a few levels") from None
    except (json.JSONDecodeError, ValueError) as error:
        raise InputError(f"{what} file {shown(path, 200)} is not valid JSON ({str(error)[:80]}); fix the syntax") from None


class DuplicateKey(ValueError):
    def __init__(self, key):
        super().__init__(key)
        self.key = key


def _unique_keys(pairs):
    """A JSON object as a dict, refusing a key given twice (json keeps the last silently)."""
    table = dict(pairs)
    if len(table) != len(pairs):
        seen = set()
        raise DuplicateKey(next(k for k, _ in pairs if k in seen or seen.add(k)))
    return table


def parse_case(data, where="case", require_H=True):
    """A validated Case, or InputError naming the bad value and the fix (H may be None if not required)."""
    if not isinstance(data, dict):
        raise InputError(f"{where} must be a JSON object with \"z\" or \"logits\" and \"H\"; got {type(data).__name__}")
    _check_keys(data, where)
    logits, given = _coefficients(data, where)
    n = len(logits)
    if n > MAX_MATRIX_N and (require_H or data.get("H") is not None):
        raise InputError(f"{where} has n = {n} coefficients and an n × n H; give at most {MAX_MATRIX_N} tokens with H")
    H = _matrix(data.get("H"), n, where) if require_H or data.get("H") is not None else None
    L, mu = (_bounded(data[k], f"{where} {k}") if data.get(k) is not None else None for k in ("L", "mu"))
    _check_constants(H, L, mu, where)
    case = Case(tuple(logits), H, L, mu, given)
    object.__setattr__(case, "_checked", True)  # validated: `checked_case` takes it as it is
    return case


def checked_case(case, require_H=True):
    """`case` validated as parse_case validates a case file, for a Case built directly (`Case(...)`, whose fields
    nothing checks): garbage entries, a ragged or indefinite H, an unknown `given` are InputError, never a TypeError
    or a ZeroDivisionError deep in a computation. A case parse_case made (or one checked before) is taken as it is."""
    if not isinstance(case, Case):
        raise InputError(f"case is a {type(case).__name__}; build one with verify.make_case(logits=…, H=…)", "case")
    if getattr(case, "_checked", False):
        return case
    if case.given not in ("logits", "z"):
        raise InputError(f"case given = {shown(case.given, 40)}; it must be \"logits\" or \"z\" (build cases with "
                         "verify.make_case)", "case")
    if not isinstance(case.logits, (tuple, list)):
        raise InputError(f"case logits is a {type(case.logits).__name__}; give a list of numbers (verify.make_case)", "case")
    if case.given == "z":
        if not all(isinstance(v, Log) for v in case.logits):
            raise InputError("case given = \"z\" holds logits that are not ln z_k; build it with verify.make_case(z=…)",
                             "case")
        data = {"z": [v.of for v in case.logits]}
    else:
        data = {"logits": list(case.logits)}
    rows = case.H
    if isinstance(rows, (tuple, list)):
        rows = [list(r) if isinstance(r, (tuple, list)) else r for r in rows]
    data.update(H=rows, L=case.L, mu=case.mu)
    fresh = parse_case(data, require_H=require_H)
    object.__setattr__(case, "_checked", True)
    return fresh


def _check_keys(data, where):
    for key in data:
        if key not in KEYS:
            near = difflib.get_close_matches(str(key).lower(), KEYS, n=1, cutoff=0.5)
            hint = f"did you mean \"{near[0]}\"?" if near else f"the keys are {', '.join(KEYS)}"
            raise InputError(f"{where} has an unknown key {shown(key, 40)}; {hint}")


def _bounded(value, where, limit=MATRIX_LIMIT):
    """parse_number, refusing magnitudes above `limit` (1e300 for H, L, μ; 1e6 for logits)."""
    number = parse_number(value, where)
    if abs(number.numerator) > limit * number.denominator:  # integer arithmetic: Fraction's comparison is 20× slower
        fix = "shift or rescale the logits" if limit == LOGIT_LIMIT else "give a number inside float64's range"
        raise InputError(f"{where} is {shown(value, 40)}, beyond ±1e{len(str(limit)) - 1}; {fix}")
    return number


def _coefficients(data, where):
    if ("z" in data) == ("logits" in data):
        raise InputError(f"{where} needs exactly one of \"z\" or \"logits\"; give the attention coefficients or the logits")
    key = "z" if "z" in data else "logits"
    values = data[key]
    if not isinstance(values, list) or len(values) < 2:
        raise InputError(f"{where} {key} must be a list of at least 2 numbers (one token has no tangent space); got "
                         f"{shown(values, 60)}")
    if len(values) > MAX_TOKENS:
        raise InputError(f"{where} {key} has {len(values)} entries; give at most {MAX_TOKENS} coefficients")
    if key == "logits":
        return _within_budget((_bounded(v, f"{where} logits[{i}]", LOGIT_LIMIT) for i, v in enumerate(values)),
                              where, key), key
    z = _within_budget((parse_number(v, f"{where} z[{i}]") for i, v in enumerate(values)), where, key)
    if any(v <= 0 for v in z):
        raise InputError(f"{where} z has an entry ≤ 0; the claims need every z_k > 0 (give logits for tiny coefficients)")
    if abs(sum(z) - 1) > Fraction(1, 10**12):
        total = f"{float(sum(z)):.17g}" if sum(z) < 10**300 else "more than 1e300"
        raise InputError(f"{where} z sums to {total}, not 1 within 1e-12; z must be a probability vector")
    return [Log(v) for v in z], key


def _within_budget(numbers, where, key):
    """The coefficients, unless their distinct exact rationals carry more than MAX_COEFFICIENT_BITS bits in all
    (10,000 distinct powers of ten down to 1e-99990 would be 1.6 GB of integers and minutes of exact sums)."""
    total, parsed, seen = 0, [], set()
    for number in numbers:  # parsed one by one: the refusal comes as soon as the budget is spent
        if number not in seen:  # a repeated value costs nothing more (its power of ten is built once)
            seen.add(number)
            total += number.numerator.bit_length() + number.denominator.bit_length()
        if total > MAX_COEFFICIENT_BITS:
            raise InputError(f"{where} {key} carry more than {MAX_COEFFICIENT_BITS:,} bits of exact digits in all; "
                             "give shorter numbers, or exponents nearer 0 (shift the logits)")
        parsed.append(number)
    return parsed


def _matrix(rows, n, where):
    """H as exact rationals (`Entries`): n × n, symmetric (1e-12 relative asymmetry averaged away), proved positive definite."""
    if rows is None:
        raise InputError(f"{where} has no \"H\"; give the curvature as an n × n list of rows (n = {n})")
    if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
        raise InputError(f"{where} H must be a list of rows; got {shown(rows, 60)}")
    if len(rows) != n:
        raise InputError(f"{where} H has {len(rows)} row{'s' * (len(rows) != 1)}, but there are n = {n} coefficients; give an n × n matrix")
    if any(len(r) != n for r in rows):
        ragged = next(i for i, r in enumerate(rows) if len(r) != n)
        raise InputError(f"{where} H[{ragged}] has length {len(rows[ragged])}, but there are n = {n} coefficients; "
                         "give an n × n matrix")
    H = [[None] * n for _ in range(n)]
    asymmetric, entry = [], Entries(where, _bounded)
    for i, row in enumerate(rows):
        for j in range(i + 1):
            H[i][j] = H[j][i] = entry(row[j], f"{where} H[{i}][{j}]")
            mirror = rows[j][i]
            if i != j and not (type(mirror) is type(row[j]) and mirror == row[j]):  # the same text is the same number
                other = entry(mirror, f"{where} H[{j}][{i}]")
                if other != H[i][j]:
                    asymmetric.append((i, j, other))
    if asymmetric:
        scale = max(abs(v) for row in H for v in row)
        for i, j, other in asymmetric:
            if abs(H[i][j] - other) > Fraction(1, 10**12) * scale:
                raise InputError(f"{where} H is not symmetric: H[{i}][{j}] = {clipped(rows[i][j])} but H[{j}][{i}] = "
                                 f"{clipped(rows[j][i])}; "
                                 "give a symmetric matrix")
            H[i][j] = H[j][i] = (H[i][j] + other) / 2
    decided = positive_definite(H)
    if decided is None:
        raise InputError(f"{where} H is too close to singular to be proved positive definite at n = {n} (beyond "
                         f"{EXACT_MAX} rows only float64 criteria run); regularise H (add a multiple of I) or rescale it")
    if not decided:
        raise InputError(f"{where} H is not positive definite; give a symmetric positive definite matrix")
    return tuple(tuple(r) for r in H)


def _check_constants(H, L, mu, where):
    if L is not None and mu is not None and L < mu:
        raise InputError(f"{where} has L = {clipped(exact_decimal(L))} < mu = {clipped(exact_decimal(mu))}; smoothness "
                         "needs L ≥ mu, swap or fix them")
    if mu is not None and mu <= 0:
        raise InputError(f"{where} mu = {clipped(exact_decimal(mu))} is not positive; give 0 < mu ≤ λ_min(H) or omit mu")
    if H is None or (L is None and mu is None):
        return
    estimate = np.linalg.eigvalsh(np.array([[to_float(v) for v in row] for row in H]))
    if L is not None:
        decided = positive_definite([[-v for v in row] for row in H], -L, strict=False)  # L I − H ≽ 0
        if not decided:
            reason = "is below λ_max(H)" if decided is False else "could not be proved ≥ λ_max(H)"
            raise InputError(f"{where} L = {clipped(exact_decimal(L))} {reason} ≈ {estimate[-1]:.17g}, so H ≼ L I fails; "
                             "give L ≥ λ_max(H) or omit L")
    if mu is not None:
        decided = positive_definite(H, mu, strict=False)  # H − μ I ≽ 0
        if not decided:
            reason = "is above λ_min(H)" if decided is False else "could not be proved ≤ λ_min(H)"
            raise InputError(f"{where} mu = {clipped(exact_decimal(mu))} {reason} ≈ {estimate[0]:.17g}, so mu I ≼ H fails; "
                             "give 0 < mu ≤ λ_min(H) or omit mu")


def load_case(path, require_H=True):
    """A validated Case from a case file (see parse_case)."""
    return parse_case(read_json(path, "case"), where=f"case {path}", require_H=require_H)
