"""How the project's mathematics is printed: prose with Unicode math as LaTeX, and SymPy expressions
as LaTeX (the document) or as Unicode art (the terminal).

Prose is written once, in Unicode ("λ_max ≥ L (min z)², K Kᵀ = I_{nN}"); `prose` turns it into
LaTeX text with the math in `$…$` (words stay text, runs of symbols, subscripts and one-letter
names become math), and `math` turns a formula into math-mode LaTeX.  SymPy symbols may carry
such Unicode names (`∇²L(p*)`): the terminal shows them as they are, the LaTeX printer converts them.
"""
import re

from sympy import Symbol
from sympy.printing.latex import LatexPrinter
from sympy.printing.pretty.pretty import PrettyPrinter
from sympy.printing.pretty.stringpict import prettyForm

GREEK = {"α": r"\alpha", "β": r"\beta", "γ": r"\gamma", "δ": r"\delta", "ε": r"\varepsilon", "η": r"\eta",
         "θ": r"\theta", "κ": r"\kappa", "λ": r"\lambda", "μ": r"\mu", "ρ": r"\rho", "σ": r"\sigma", "τ": r"\tau",
         "φ": r"\varphi", "Δ": r"\Delta", "Σ": r"\sum", "Π": r"\prod", "ℓ": r"\ell"}
SYMBOLS = {"≥": r"\ge", "≤": r"\le", "≼": r"\preceq", "≠": r"\ne", "≪": r"\ll", "≡": r"\equiv", "≈": r"\approx",
           "⊥": r"\perp", "‖": r"\|", "∈": r"\in", "→": r"\to", "⇒": r"\Rightarrow", "⇔": r"\iff", "∀": r"\forall",
           "∃": r"\exists", "∇": r"\nabla", "∂": r"\partial", "∘": r"\circ", "×": r"\times", "·": r"\cdot", "−": "-",
           "∞": r"\infty", "ℝ": r"\mathbb{R}", "½": r"\tfrac12", "…": r"\dots", "′": "'", "″": "''", "ŷ": r"\hat y",
           "*": "^*", "↦": r"\mapsto", "±": r"\pm",
           "|": r"\,|\,", "#": r"\#", "%": r"\%", "&": r"\&", "$": r"\$", "~": r"\sim"}
SUPERSCRIPTS = dict(zip("ᵀ⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺ⁿ⁽⁾", [r"\top"] + list("0123456789-+n()")))
SUBSCRIPTS = dict(zip("₀₁₂₃₄₅₆₇₈₉ᵢⱼₖₙₜ₊₋", list("0123456789ijknt+-")))
OPERATORS = {"max": r"\max", "min": r"\min", "log": r"\log", "exp": r"\exp", "det": r"\det",
             **{name: rf"\operatorname{{{name}}}" for name in ("rank", "blockdiag", "diag", "spec", "range", "tr")}}
APPLIED = set(OPERATORS) - {"max", "min"}  # in prose, math only when applied, as in rank(K) (not "log–log slope")
TEXT = {"—": "---", "–": "--", "’": "'", "‘": "`", "“": "``", "”": "''", "…": r"\ldots{}", "§": r"\S{}",
        "_": r"\_", "&": r"\&", "%": r"\%", "#": r"\#", "^": r"\^{}", "{": r"\{", "}": r"\}", "~": r"\~{}",
        "$": r"\$", "\\": r"\textbackslash{}"}
MATH_CHARS = (set(GREEK) | set(SYMBOLS) | set(SUPERSCRIPTS) | set(SUBSCRIPTS) | set("_^=<>+/{}√")) - set("#%&$~")
CLOSERS = {"{": "}", "(": ")"}


class NotTypeset(ValueError):
    """Text this module cannot set: a character with no LaTeX form here, or an unbalanced bracket."""


# ---------------------------------------------------------------- formulas


def math(formula):
    """A Unicode formula as math-mode LaTeX (no delimiters): `λ_max(B_i)` → `\\lambda_{\\max}(B_{i})`."""
    out, i = [], 0
    while i < len(formula):
        char = formula[i]
        if char in SUPERSCRIPTS or char in SUBSCRIPTS:
            table, mark = (SUPERSCRIPTS, "^") if char in SUPERSCRIPTS else (SUBSCRIPTS, "_")
            run = re.match(f"[{''.join(table)}]+", formula[i:]).group()
            out.append(mark + "{" + "".join(table[c] for c in run) + "}")
            i += len(run)
        elif char in "_^" or char == "√":
            argument, i = _argument(formula, i + 1)
            if char == "√" and argument.startswith("(") and argument.endswith(")"):
                argument = argument[1:-1]
            out.append(r"\sqrt{" + argument + "}" if char == "√" else char + "{" + argument + "}")
        elif char.isascii() and char.isalpha():
            word = re.match("[A-Za-z]+", formula[i:]).group()
            out.append(OPERATORS[word] + " " if word in OPERATORS else word)
            i += len(word)
        elif char in GREEK or char in SYMBOLS:
            command = GREEK.get(char) or SYMBOLS[char]
            out.append(command + (" " if command[-1].isalpha() else ""))
            i += 1
        elif char == " " and formula[i + 1:i + 2] == "(" and re.search("[=<>≤≥≠∈]", formula[i:_matching(formula, i + 1)]):
            out.append(r"\ ")  # "I_{nN} (d ≥ nN)": a condition set apart, not an argument
            i += 1
        else:
            _require_ascii(char, formula)
            out.append(char)
            i += 1
    latex = re.sub(" +", " ", "".join(out))
    return re.sub(r" (?=[_^}])", "", latex).strip()


def _argument(formula, start):
    """What a `_`, `^` or `√` at start − 1 applies to: a {…} or (…) group, or one word; as LaTeX, and where it ends."""
    if start < len(formula) and formula[start] in CLOSERS:
        end = _matching(formula, start)
        inner = math(formula[start + 1:end])
        return (inner if formula[start] == "{" else f"({inner})"), end + 1
    word = re.match(r"[A-Za-z0-9]+|.", formula[start:]) if start < len(formula) else None
    if word is None:
        raise NotTypeset(f"nothing follows the last character of {formula!r}")
    text = word.group()
    return OPERATORS.get(text) or math(text), start + len(text)


def _matching(formula, start):
    depth, opener, closer = 0, formula[start], CLOSERS[formula[start]]
    for position in range(start, len(formula)):
        depth += (formula[position] == opener) - (formula[position] == closer)
        if depth == 0:
            return position
    raise NotTypeset(f"unbalanced {opener!r} in {formula!r}")


def _require_ascii(char, value):
    if not char.isascii():
        raise NotTypeset(f"no LaTeX for {char!r} in {value!r}")


# ---------------------------------------------------------------- prose


def prose(value):
    """Prose with Unicode math as LaTeX text: words stay text and each run of math becomes `$…$`,
    so no `_`, `^` or brace ever shows as a character: "all z_k > 0" → "all $z_{k} > 0$"."""
    try:
        return _prose(value)
    except NotTypeset as error:
        raise NotTypeset(f"{error} (in {value!r})") from None


def _prose(value):
    tokens = re.split(r"(\s+)", value.strip())
    words = tokens[::2]
    kinds = _resolve(words, [_kind(word) for word in words])
    out, run = [], []
    for index, (word, kind) in enumerate(zip(words, kinds)):
        space = tokens[2 * index - 1] if index else ""
        if kind == "math":
            run.append((space, word))
            if word.endswith((":", ";")):  # the sentence goes on: the formula ends here
                out.append(_math_run(run))
                run = []
            continue
        out.append(_math_run(run))
        run = []
        out.append(space + _text(word))
    out.append(_math_run(run))
    return "".join(out)


def _kind(word):
    """math, text, neutral (digits and brackets only: math next to math) or article (a: math between math)."""
    if re.fullmatch(r"\(?[A-Z]\d[\w.]*\)?[.,;:]*", word):  # an id: D1, (A2), T2.multi
        return "text"
    if re.fullmatch("[aA][.,;:]?", word):
        return "article"
    if re.search(r"[A-Za-z]['’]s\b", word):  # a possessive: J's spectrum
        return "text"
    if any(char in MATH_CHARS for char in word):
        return "math"
    names = list(re.finditer("[A-Za-z]+", word))
    if not names:
        return "neutral"
    return "math" if all(_is_math_name(name.group(), word[name.end():name.end() + 1]) for name in names) else "text"


def _is_math_name(name, after):
    """One letter (not the article a), two like nN, or an operator (rank only as in rank(K)); else a word."""
    if name in OPERATORS:
        return name not in APPLIED or after in ("(", "_")
    return (len(name) == 1 and name not in "aA") or bool(re.fullmatch("[a-z][A-Z]", name))


def _resolve(words, kinds):
    """Decide neutral words and articles by their neighbours: "n = 2, 3" and "for 1 ≤ k" are math,
    "(Assumption 2)", "Assumption 2 (K Kᵀ = I)", "as η → 0 (60 digits)" and "PNAS 45 (1959): λ …" keep their numbers
    in the text."""
    resolved = list(kinds)
    for index, (word, kind) in enumerate(zip(words, kinds)):
        if kind not in ("neutral", "article"):
            continue
        before = resolved[index - 1] if index else "text"
        after = kinds[index + 1] if index + 1 < len(kinds) and not words[index + 1].startswith("(") else "text"
        if word.endswith((":", ";")):  # "PNAS 45 (1959): λ_k …": the clause ends here
            after = "text"
        if kind == "article":
            resolved[index] = "math" if before == after == "math" else "text"
        elif word.count("(") > word.count(")"):  # opens a bracket: math only if what follows is
            resolved[index] = "math" if after == "math" or kinds[index + 1:index + 2] == ["neutral"] else "text"
        else:
            resolved[index] = "math" if "math" in (before, after) else "text"
    return resolved


def _math_run(run):
    """A run of math words as `$…$`, with the sentence's punctuation after it left outside."""
    if not run:
        return ""
    leading = run[0][0]
    formula = "".join(space + word for space, word in run)[len(leading):]
    trailing = re.search(r"[.,;:]*$", formula).group()
    if formula.count("(") < formula.count(")") and formula[: len(formula) - len(trailing)].endswith(")"):
        trailing = ")" + trailing  # "(see D1, J H J)" : the sentence's bracket, not the formula's
    formula = formula[: len(formula) - len(trailing)]
    if not formula:
        return leading + _text(trailing)
    return leading + ", ".join(f"${math(part)}$" for part in _statements(formula)) + _text(trailing)


def _statements(formula):
    """A formula cut at its top-level commas where both sides state a relation ("λ_max ≥ a, λ_min ≤ b"),
    so the comma is the sentence's and TeX may break the line there; "n = 2, 3, 4" stays whole."""
    parts, depth, start = [], 0, 0
    for position, char in enumerate(formula):
        depth += (char in "({[") - (char in ")}]")
        if char == "," and depth == 0 and formula[position + 1:position + 2] == " ":
            parts.append(formula[start:position])
            start = position + 2
    parts.append(formula[start:])
    merged = [parts[0]]
    for part in parts[1:]:
        if all(re.search("[=<>≤≥≠∈≼]", side) for side in (merged[-1], part)):
            merged.append(part)
        else:
            merged[-1] += ", " + part
    return merged


def _text(word):
    out = []
    for char in word:
        if char in TEXT:
            out.append(TEXT[char])
        else:
            _require_ascii(char, word)
            out.append(char)
    return "".join(out)


# ---------------------------------------------------------------- SymPy printers


class DocumentLatexPrinter(LatexPrinter):
    """SymPy's LaTeX printer for our objects: Unicode-named symbols, the σ and s bases, δ with two indices."""

    def _print_Symbol(self, expr, style="plain"):
        return math(expr.name) if _written_out(expr.name) else super()._print_Symbol(expr, style)

    def _hprint_Function(self, func):
        return math(func) if _written_out(func) else super()._hprint_Function(func)

    def _print_Indexed(self, expr):
        base = {"sigma": r"\sigma"}.get(str(expr.base), str(expr.base))
        return f"{base}_{{{','.join(self._print(i) for i in expr.indices)}}}"

    def _print_KroneckerDelta(self, expr, exp=None):
        return r"\delta_{" + "".join(self._print(a) for a in expr.args) + "}"


class TerminalPrinter(PrettyPrinter):
    """SymPy's Unicode pretty printer: names written in Unicode math as they are, σᵢ for Indexed σ[i],
    δᵢₖ for KroneckerDelta(i, k)."""

    def _print_Symbol(self, expr, bold_name=False):
        return prettyForm(expr.name) if _written_out(expr.name) else super()._print_Symbol(expr, bold_name)

    def _print_Indexed(self, expr):
        return self._print(Symbol(f"{expr.base}_{''.join(str(i) for i in expr.indices)}"))

    def _print_KroneckerDelta(self, expr):
        return self._print(Symbol(f"delta_{''.join(str(a) for a in expr.args)}"))


def _written_out(name):
    """A name in Unicode math (ℓ″(ŷᵢ), K Kᵀ, p*) rather than one of SymPy's (sigma_i, eta)."""
    return not name.isascii() or any(char in name for char in "*'( ")


def to_latex(expr):
    """LaTeX of a SymPy expression (no delimiters: they are added once, where it is placed)."""
    return DocumentLatexPrinter({"mul_symbol": None, "order": "none"}).doprint(expr)


def to_unicode(expr):
    """A SymPy expression as Unicode art for the terminal (never wrapped: the caller checks the width)."""
    return TerminalPrinter({"use_unicode": True, "wrap_line": False, "order": "none"}).doprint(expr)
