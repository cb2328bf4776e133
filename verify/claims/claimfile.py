"""The claim file (TOML): a list of `[[claim]]` tables, read with `tomllib` and validated.

    [[claim]]
    id = "mine.lower"                           # required: letters, digits, . _ - (not . or ..)
    statement = "λ_min is at least μ_T z_min²"  # optional prose
    holds = "lambda_min >= mu_T * z_min**2"     # required: when the claim is true
    n = [2, 10]                                 # optional: the claim's token counts (default [2, 10]);
                                                #   n = [3, inf] claims every n ≥ 3 (searched up to 64)
    hessian = "spd"                             # optional: spd (default) | isotropic | diagonal
    expect = "true"                             # optional: what you expect ("true" | "false"); a run reports
                                                #   a verdict that disagrees with it
    reason = "F2 and F6"                        # optional prose: why (a proof sketch, a counterexample)

A claim file may also hold `[[lemma]]` tables — your own stepping stones, decided first in file order
and citable by the proofs of every lemma and claim after them:

    [[lemma]]
    id = "mine.step"                            # required, as a claim's
    holds = "lambda_min >= mu_T * z_min**2"     # required
    n = [2, inf]                                # optional, as a claim's
    hessian = "spd"                             # optional, as a claim's
    source = "F6 and F2"                        # optional prose: where it comes from
    assume = true                               # optional: take it as given (a proof citing it is
                                                #   PROVED assuming it); default false: it must be proved

Unknown keys, a missing id or holds, a duplicate id, a bad n range or Hessian family
and every error of the claim language are InputError, one line each. Each claim becomes a
FormulaClaim (verify.claims.record), decided by the same engine as the built-in ones.
"""
import math
import re
import unicodedata

try:
    import tomllib
except ImportError:  # Python 3.10: the same parser, as the tomli package
    import tomli as tomllib

from verify.claims.language.parser import MAX_N, normalise
from verify.claims.record import FAMILIES, FormulaClaim
from verify.base.errors import InputError
from verify.base.files import read_bounded
from verify.base.printable import shown

MAX_BYTES = 1 << 20
MAX_CLAIMS = 200  # claims per file: a full search of each takes seconds
MAX_PROSE = 10_000  # characters of a claim's statement, reason or source (a 400 KB statement of 200,000 backslashes
# was once exported to a LaTeX line longer than pdflatex reads)
KEYS = ("id", "statement", "holds", "n", "hessian", "expect", "reason")
LEMMA_KEYS = ("id", "statement", "holds", "n", "hessian", "source", "assume")
EXPECT = {"true": True, "false": False}
DEFAULT_N = (2, 10)
ID = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$")


def load_claims(path):
    """Every claim of a TOML claim file, validated, in file order."""
    data = read_bounded(path, MAX_BYTES, "claim file", "a TOML claim file", "claims")
    try:
        text = data.decode("utf-8-sig")  # a byte-order mark, as some editors write, is not part of the TOML
    except UnicodeDecodeError:
        raise InputError(f"claim file {shown(str(path), 200)} is not UTF-8 text; save it as UTF-8") from None
    return parse_claims_text(text, where=f"claim file {shown(str(path), 200)}")


class _Overflow(Exception):
    """A TOML float beyond float64's range (1e999), which would read as inf."""


def _toml_float(text):
    value = float(text)
    if math.isinf(value) and text.lstrip("+-").lower() != "inf":
        raise _Overflow(text)
    return value


def parse_claims_text(text, where="claim file"):
    """The claims of a claim file's text (TOML), validated; InputError, one line, on anything wrong."""
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise InputError(f"{where} is larger than {MAX_BYTES // 1024} KiB; split it into smaller files")
    try:
        data = tomllib.loads(text, parse_float=_toml_float)
    except _Overflow as error:
        raise InputError(f"{where} holds the number {shown(str(error), 40)}, beyond float64's range; write inf for an "
                         "unbounded n range, or a whole number") from None
    except tomllib.TOMLDecodeError as error:
        raise InputError(f"{where} is not valid TOML: {' '.join(str(error).split())}; fix the syntax there") from None
    except RecursionError:
        raise InputError(f"{where} is nested too deeply to read; a claim file is a flat list of [[claim]] tables") from None
    except ValueError:  # an integer of more than 4,300 digits (Python's limit on reading one)
        raise InputError(f"{where} holds an integer of more than 4,300 digits; every number of a claim file is far "
                         "smaller (n ranges are at most 10^6): shorten it") from None
    extra = [k for k in data if k not in ("claim", "lemma")]
    if extra:
        raise InputError(f"{where} has the unknown top-level key {shown(extra[0], 200)}; write each claim as a [[claim]] table")
    lemmas, tables = _tables(data, "lemma", where), _tables(data, "claim", where)
    if not tables:
        raise InputError(f"{where} has no claims; add a [[claim]] table with id and holds")
    if len(tables) + len(lemmas) > MAX_CLAIMS:
        raise InputError(f"{where} has {len(tables) + len(lemmas)} claims and lemmas; split it into files of at most "
                         f"{MAX_CLAIMS}")
    from verify.claims.prover.facts import BY_ID

    claims, seen = [], set(BY_ID)
    for kind, items in (("lemma", lemmas), ("claim", tables)):
        for number, table in enumerate(items, 1):
            claim = claim_from_fields(table, f"{where} {kind} #{number}", lemma=kind == "lemma")
            if claim.id in seen:
                raise InputError(f"{where} has the id {shown(claim.id, 200)} twice (or a fact's id); give every claim and lemma "
                                 "its own id")
            seen.add(claim.id)
            claims.append(claim)
    return tuple(claims)


def _tables(data, kind, where):
    tables = data.get(kind, [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise InputError(f"{where}: {shown(kind, 200)} must be a list of [[{kind}]] tables; write [[{kind}]] above each {kind}")
    return tables


def claim_from_fields(table, where, lemma=False):
    """A FormulaClaim from a claim (or lemma) table's fields (validated)."""
    keys = LEMMA_KEYS if lemma else KEYS
    unknown = [k for k in table if k not in keys]
    if unknown:
        raise InputError(f"{where} has the unknown key {shown(unknown[0], 40)}; a {'lemma' if lemma else 'claim'} "
                         f"takes only {', '.join(keys)}")
    for key in ("id", "holds"):
        if key not in table:
            raise InputError(f"{where} has no {shown(key, 200)}; every claim needs id and holds")
    claim_id = table["id"]
    if not isinstance(claim_id, str) or not ID.match(claim_id):
        raise InputError(f"{where} has the id {shown(claim_id, 60)}; use 1 to 100 letters, digits, '.', '_' or '-', "
                         "not starting with '.'")
    from verify.claims.builtin.registry import REGISTRY

    if claim_id in REGISTRY:
        raise InputError(f"{where} has the id {shown(claim_id, 200)}, a built-in claim's; give your claim an id of its own")
    where = f"{where.rsplit(' #', 1)[0]} {shown(claim_id, 200)}"
    for key in ("holds", "statement", "reason", "source"):
        if key in table and not isinstance(table[key], str):
            raise InputError(f"{where} {key} is {shown(table[key], 60)}; write it as a quoted string")
        if key in table:
            _refuse_control(table[key], f"{where} {key}")
        if key != "holds" and len(table.get(key, "")) > MAX_PROSE:
            raise InputError(f"{where} {key} has {len(table[key]):,} characters; write it in at most {MAX_PROSE:,}")
    n_range = _n_range(table.get("n", list(DEFAULT_N)), where)
    hessian = table.get("hessian", "spd")
    if not isinstance(hessian, str) or hessian not in FAMILIES:
        raise InputError(f"{where} has hessian {shown(hessian, 40)}; choose one of {', '.join(FAMILIES)}")
    expect = table.get("expect")
    if expect is not None and (not isinstance(expect, str) or expect not in EXPECT):  # a list is not hashable
        raise InputError(f"{where} has expect {shown(expect, 20)}; write expect = \"true\" or expect = \"false\"")
    assume = table.get("assume", False)
    if not isinstance(assume, bool):
        raise InputError(f"{where} has assume = {shown(assume, 20)}; write assume = true or leave it out")
    try:
        return FormulaClaim(claim_id, normalise(table.get("statement", "")), normalise(table["holds"]), (), (None,),
                            n_range, hessian, command="claims", expect=EXPECT.get(expect),
                            reason=normalise(table.get("reason", "")), lemma=lemma,
                            source=normalise(table.get("source", "")), assume=assume)
    except InputError as error:  # the claim language's message names the text; say which claim of which file
        raise InputError(f"{where} holds: {error}", error.parameter) from None


WHITESPACE = "\t\n\r"  # a line break or tab in a multi-line string: read as one space


def _refuse_control(text, where):
    """InputError, one line, for a control character (other than a line break or tab), a bidirectional override
    or an unassigned code point: text that prints as something other than what it holds."""
    for position, char in enumerate(text, 1):
        if char not in WHITESPACE and unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn"):
            name = unicodedata.name(char, "a control character")
            raise InputError(f"{where} holds U+{ord(char):04X} ({name}) at character {position}; remove it (write "
                             "the text with printable characters only)")


def _n_range(value, where):
    if not isinstance(value, list) or len(value) != 2 or not all(_whole(v) for v in value[:1]) or not (
            _whole(value[1]) or value[1] == math.inf):
        raise InputError(f"{where} has n = {shown(value, 60)}; give two whole numbers [lo, hi], e.g. n = [2, 10] "
                         "(hi may be inf)")
    lo, hi = value
    if lo > hi:
        raise InputError(f"{where} has the empty n range {shown(value, 200)}; give lo ≤ hi")
    if lo < 2:
        raise InputError(f"{where} has n = {shown(value, 200)} below 2; one token has no tangent space, start at 2")
    if lo > MAX_N or (hi != math.inf and hi > MAX_N):
        raise InputError(f"{where} has n = {shown(value, 200)} above {MAX_N}; give at most {MAX_N} tokens, or hi = inf")
    return (lo, hi)


def _whole(value):
    return isinstance(value, int) and not isinstance(value, bool)
