"""The claim file (TOML): a list of `[[claim]]` tables, read with `tomllib` and validated.

    [[claim]]
    id = "mine.lower"                           # required: letters, digits, . _ -
    statement = "λ_min is at least μ_T z_min²"  # optional prose
    holds = "lambda_min >= mu_T * z_min**2"     # required: when the claim is true
    n = [2, 10]                                 # optional token counts searched (default [2, 10])
    hessian = "spd"                             # optional: spd (default) | isotropic | diagonal

Unknown keys, a missing id or holds, a duplicate id, a bad n range or Hessian family
and every error of the expression language are InputError, one line each.
"""
import hashlib
import re
from dataclasses import dataclass, field

try:
    import tomllib
except ImportError:  # Python 3.10: the same parser, as the tomli package
    import tomli as tomllib

from verify.errors import InputError
from verify.claims.user.grammar import MAX_N, names_used, normalise, parse_holds
from verify.claims.user.latex import claim_latex

MAX_BYTES = 1 << 20
MAX_CLAIMS = 1000
KEYS = ("id", "statement", "holds", "n", "hessian")
HESSIANS = ("spd", "isotropic", "diagonal")
DEFAULT_N = (2, 10)
ID = re.compile(r"^[A-Za-z0-9._-]{1,100}$")


@dataclass(frozen=True)
class UserClaim:
    """A claim of a claim file: id, statement, holds text and its parsed tree, LaTeX, n range, H family, names read."""

    id: str
    statement: str
    holds: str  # the text as written in the file
    tree: object = field(repr=False)  # Compare / AllOf / AnyOf / Negate
    latex: str
    n_range: tuple  # (lo, hi), inclusive
    hessian: str
    names: frozenset  # grammar names the claim reads ('z' when it calls z(k))

    @property
    def holds_sha256(self):
        return holds_digest(self.holds)


def holds_digest(text):
    """SHA-256 (hex) of the whitespace-normalised holds text."""
    return hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()


def load_claims(path):
    """Every claim of a TOML claim file, validated, in file order."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise InputError(f"claim file {str(path)!r} does not exist; give the path of a TOML file") from None
    except OSError as error:
        raise InputError(f"claim file {str(path)!r} cannot be read ({error.strerror}); check its permissions") from None
    if len(data) > MAX_BYTES:
        raise InputError(f"claim file {str(path)!r} is larger than {MAX_BYTES // 1024} KiB; split it into smaller files")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"claim file {str(path)!r} is not UTF-8 text; save it as UTF-8") from None
    return parse_claims_text(text, where=f"claim file {str(path)!r}")


def parse_claims_text(text, where="claim file"):
    """The claims of a claim file's text (TOML), validated; InputError, one line, on anything wrong."""
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise InputError(f"{where} is larger than {MAX_BYTES // 1024} KiB; split it into smaller files")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise InputError(f"{where} is not valid TOML: {error}; fix the syntax there") from None
    extra = [k for k in data if k != "claim"]
    if extra:
        raise InputError(f"{where} has the unknown top-level key {extra[0]!r}; write each claim as a [[claim]] table")
    tables = data.get("claim", [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise InputError(f"{where}: 'claim' must be a list of [[claim]] tables; write [[claim]] above each claim")
    if not tables:
        raise InputError(f"{where} has no claims; add a [[claim]] table with id and holds")
    if len(tables) > MAX_CLAIMS:
        raise InputError(f"{where} has {len(tables)} claims; split it into files of at most {MAX_CLAIMS}")
    claims, seen = [], set()
    for number, table in enumerate(tables, 1):
        claim = _claim(table, f"{where} claim #{number}")
        if claim.id in seen:
            raise InputError(f"{where} has the id {claim.id!r} twice; give every claim its own id")
        seen.add(claim.id)
        claims.append(claim)
    return tuple(claims)


def _claim(table, where):
    unknown = [k for k in table if k not in KEYS]
    if unknown:
        raise InputError(f"{where} has the unknown key {unknown[0]!r}; a claim takes only {', '.join(KEYS)}")
    for key in ("id", "holds"):
        if key not in table:
            raise InputError(f"{where} has no {key!r}; every claim needs id and holds")
    claim_id = table["id"]
    if not isinstance(claim_id, str) or not ID.match(claim_id):
        raise InputError(f"{where} has the id {claim_id!r}; use 1 to 100 letters, digits, '.', '_' or '-'")
    where = f"{where.rsplit(' #', 1)[0]} {claim_id!r}"
    for key in ("holds", "statement"):
        if key in table and not isinstance(table[key], str):
            raise InputError(f"{where} {key} is {table[key]!r}; write it as a quoted string")
    n_range = _n_range(table.get("n", list(DEFAULT_N)), where)
    hessian = table.get("hessian", "spd")
    if hessian not in HESSIANS:
        raise InputError(f"{where} has hessian {hessian!r}; choose one of {', '.join(HESSIANS)}")
    tree = parse_holds(table["holds"], n_range)
    return UserClaim(claim_id, normalise(table.get("statement", "")), table["holds"], tree, claim_latex(tree),
                     n_range, hessian, names_used(tree))


def _n_range(value, where):
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise InputError(f"{where} has n = {value!r}; give two whole numbers [lo, hi], e.g. n = [2, 10]")
    lo, hi = value
    if lo > hi:
        raise InputError(f"{where} has the empty n range {value!r}; give lo ≤ hi")
    if lo < 2:
        raise InputError(f"{where} has n = {value!r} below 2; one token has no tangent space, start at 2")
    if hi > MAX_N:
        raise InputError(f"{where} has n = {value!r} above {MAX_N}; search at most {MAX_N} tokens")
    return (lo, hi)
