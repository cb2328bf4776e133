"""How the project's mathematics is printed: prose with Unicode math as LaTeX, and SymPy expressions
as LaTeX (the document) or as Unicode art (the terminal).

Prose is written once, in Unicode ("λ_max ≥ L (min z)², K Kᵀ = I_{nN}"); `prose` turns it into
LaTeX text with the math in `$…$` (words stay text, runs of symbols, subscripts and one-letter
names become math), and `math` turns a formula into math-mode LaTeX.  SymPy symbols may carry
such Unicode names (`∇²L(p*)`): the terminal shows them as they are, the LaTeX printer converts them.
"""
import re
import unicodedata

from sympy import Symbol
from sympy.printing.latex import LatexPrinter
from sympy.printing.pretty.pretty import PrettyPrinter
from sympy.printing.pretty.stringpict import prettyForm

from verify.base.printable import shown

GREEK = {"α": r"\alpha", "β": r"\beta", "γ": r"\gamma", "δ": r"\delta", "ε": r"\varepsilon", "ϵ": r"\epsilon",
         "ζ": r"\zeta", "η": r"\eta", "θ": r"\theta", "ϑ": r"\vartheta", "ι": r"\iota", "κ": r"\kappa", "λ": r"\lambda",
         "μ": r"\mu", "ν": r"\nu", "ξ": r"\xi", "π": r"\pi", "ϖ": r"\varpi", "ρ": r"\rho", "ϱ": r"\varrho",
         "σ": r"\sigma", "ς": r"\varsigma", "τ": r"\tau", "υ": r"\upsilon", "φ": r"\varphi", "ϕ": r"\phi", "χ": r"\chi",
         "ψ": r"\psi", "ω": r"\omega", "ο": "o", "Γ": r"\Gamma", "Δ": r"\Delta", "Θ": r"\Theta", "Λ": r"\Lambda",
         "Ξ": r"\Xi", "Υ": r"\Upsilon", "Φ": r"\Phi", "Ψ": r"\Psi", "Ω": r"\Omega", "Σ": r"\sum", "Π": r"\prod",
         "ℓ": r"\ell", **dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΧ", "ABEZHIKMNOPTX"))}
SYMBOLS = {"≥": r"\ge", "≤": r"\le", "≼": r"\preceq", "≽": r"\succeq", "⪯": r"\preceq", "⪰": r"\succeq", "≺": r"\prec",
           "≻": r"\succ", "≠": r"\ne", "≪": r"\ll", "≫": r"\gg", "≡": r"\equiv", "≈": r"\approx", "≃": r"\simeq",
           "≅": r"\cong", "∼": r"\sim", "∝": r"\propto", "≲": r"\lesssim", "≳": r"\gtrsim", "≦": r"\leqq", "≧": r"\geqq",
           "⊥": r"\perp", "‖": r"\|", "∥": r"\parallel", "∣": r"\mid", "∈": r"\in", "∉": r"\notin", "∋": r"\ni",
           "⊂": r"\subset", "⊃": r"\supset", "⊆": r"\subseteq", "⊇": r"\supseteq", "∪": r"\cup", "∩": r"\cap",
           "∖": r"\setminus", "∅": r"\emptyset", "→": r"\to", "←": r"\leftarrow", "↔": r"\leftrightarrow",
           "⟶": r"\longrightarrow", "↑": r"\uparrow", "↓": r"\downarrow", "⇒": r"\Rightarrow", "⟹": r"\Longrightarrow",
           "⇐": r"\Leftarrow", "⟸": r"\Longleftarrow", "⇔": r"\iff", "⟺": r"\iff", "∀": r"\forall", "∃": r"\exists",
           "∄": r"\nexists", "¬": r"\neg", "∧": r"\land", "∨": r"\lor", "⊤": r"\top", "∇": r"\nabla", "∂": r"\partial",
           "∘": r"\circ", "×": r"\times", "÷": r"\div", "·": r"\cdot", "⋅": r"\cdot", "∙": r"\bullet", "∗": "*",
           "⊗": r"\otimes", "⊕": r"\oplus", "⊙": r"\odot", "−": "-", "∓": r"\mp", "∑": r"\sum", "∏": r"\prod",
           "∫": r"\int", "∞": r"\infty", "ℝ": r"\mathbb{R}", "ℕ": r"\mathbb{N}", "ℤ": r"\mathbb{Z}", "ℚ": r"\mathbb{Q}",
           "ℂ": r"\mathbb{C}", "ℏ": r"\hbar", "½": r"\tfrac12", "⅓": r"\tfrac13", "¼": r"\tfrac14", "…": r"\dots",
           "⋯": r"\cdots", "′": "'", "″": "''", "ŷ": r"\hat y", "*": "^*", "↦": r"\mapsto", "±": r"\pm", "°": r"^{\circ}",
           "⟨": r"\langle", "⟩": r"\rangle", "⌈": r"\lceil", "⌉": r"\rceil", "⌊": r"\lfloor", "⌋": r"\rfloor",
           "|": r"\,|\,", "#": r"\#", "%": r"\%", "&": r"\&", "$": r"\$", "~": r"\sim"}
SUPERSCRIPTS = dict(zip("ᵀ⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺⁼ⁿⁱ⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰʲᵏˡᵐᵒᵖʳˢᵗᵘᵛʷˣʸᶻ",
                        [r"\top"] + list("0123456789-+=ni()abcdefghjklmoprstuvwxyz")))
SUBSCRIPTS = dict(zip("₀₁₂₃₄₅₆₇₈₉ᵢⱼₖₙₜ₊₋₌₍₎ₐₑₒₓₕₗₘₚₛᵣᵤᵥ", list("0123456789ijknt+-=()aeoxhlmpsruv")))
OPERATORS = {"max": r"\max", "min": r"\min", "log": r"\log", "exp": r"\exp", "det": r"\det",
             **{name: rf"\operatorname{{{name}}}" for name in ("rank", "blockdiag", "diag", "spec", "range", "tr")}}
APPLIED = set(OPERATORS) - {"max", "min"}  # in prose, math only when applied, as in rank(K) (not "log–log slope")
TEXT = {"—": "---", "–": "--", "‒": "--", "‐": "-", "‑": "-", "’": "'", "‘": "`", "“": "``", "”": "''", "„": ",,",
        "«": "<<", "»": ">>", "‹": "<", "›": ">", "…": r"\ldots{}", "§": r"\ensuremath{\mathsection}",
        "¶": r"\ensuremath{\mathparagraph}", "†": r"\ensuremath{\dagger}", "‡": r"\ensuremath{\ddagger}",
        "•": r"\ensuremath{\bullet}", "©": "(c)", "£": r"\ensuremath{\mathsterling}", "\u00a0": "~", "\u202f": r"\,",
        "\u2009": r"\,", "\u2002": r"\enspace{}", "\u2003": r"\quad{}", "ß": r"\ss{}", "æ": r"\ae{}", "Æ": r"\AE{}",
        "œ": r"\oe{}", "Œ": r"\OE{}", "ø": r"\o{}", "Ø": r"\O{}", "ł": r"\l{}", "Ł": r"\L{}", "ı": r"\i{}",
        "_": r"\_", "&": r"\&", "%": r"\%", "#": r"\#", "^": r"\^{}", "{": r"\{", "}": r"\}", "~": r"\~{}",
        "$": r"\$", "\\": r"\textbackslash{}", "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}
ACCENTS = {"\u0301": "'", "\u0300": "`", "\u0302": "^", "\u0308": '"', "\u0303": "~", "\u0304": "=", "\u0307": ".",
           "\u0306": "u", "\u030c": "v", "\u030b": "H", "\u030a": "r", "\u0327": "c", "\u0323": "d", "\u0331": "b"}
MATH_CHARS = (set(GREEK) | set(SYMBOLS) | set(SUPERSCRIPTS) | set(SUBSCRIPTS) | set("_^=<>+/{}√")) - set("#%&$~…")
WORDS = {"am", "an", "as", "at", "be", "by", "do", "go", "he", "if", "in", "is", "it", "me", "my", "no", "of", "on", "or",
         "so", "to", "up", "us", "we", "vs", "eg", "ie"}  # two-letter English words, never a product of two names
OPERATOR_ENDS = "=<>≤≥≠≼≽⪯⪰≺≻+−-·*/×"
RELATION_CHARS = "[=<>≤≥≠∈∉≼≽⪯⪰≺≻⊂⊃⊆⊇≈≃≅∼∝≪≫≦≧≲≳]"
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
            out.append(char if char.isascii() else r"\text{" + _letter(char, formula) + "}")
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
        raise NotTypeset(f"nothing follows the last character of {shown(formula, 200)}")
    text = word.group()
    return OPERATORS.get(text) or math(text), start + len(text)


def _matching(formula, start):
    depth, opener, closer = 0, formula[start], CLOSERS[formula[start]]
    for position in range(start, len(formula)):
        depth += (formula[position] == opener) - (formula[position] == closer)
        if depth == 0:
            return position
    raise NotTypeset(f"unbalanced {shown(opener, 200)} in {shown(formula, 200)}")


def _letter(char, value):
    """A character of text as LaTeX: from TEXT, an accented letter as its accent command (é → \\'{e}), a
    compatibility form as what it stands for (ﬁ → fi); NotTypeset for a character with no LaTeX form here."""
    if char.isascii() or char in TEXT:
        return TEXT.get(char, char)
    base, *marks = unicodedata.normalize("NFD", char)
    if marks and base.isascii() and all(mark in ACCENTS for mark in marks):
        for mark in marks:
            base = "\\" + ACCENTS[mark] + "{" + ("\\i" if base == "i" else base) + "}"  # a dotless i under an accent
        return base
    compatible = unicodedata.normalize("NFKC", char)
    if compatible != char and all(c.isascii() or c in TEXT for c in compatible):
        return "".join(TEXT.get(c, c) for c in compatible)
    raise NotTypeset(f"no LaTeX for {shown(char, 200)} ({unicodedata.name(char, 'unnamed character')}) in {shown(value, 200)}")


def unset_characters(text):
    """The characters of text with no LaTeX form here, each once, in order, as "'✓' (CHECK MARK)"."""
    tables = set(GREEK) | set(SYMBOLS) | set(SUPERSCRIPTS) | set(SUBSCRIPTS)
    found = []
    for char in dict.fromkeys(text):
        try:
            if char not in tables:
                _letter(char, text)
        except NotTypeset:
            found.append(f"{shown(char, 200)} ({unicodedata.name(char, 'unnamed character')})")
    return found


# ---------------------------------------------------------------- prose


def prose(value):
    """Prose with Unicode math as LaTeX text: words stay text and each run of math becomes `$…$`,
    so no `_`, `^` or brace ever shows as a character: "all z_k > 0" → "all $z_{k} > 0$"."""
    try:
        return _prose(value)
    except NotTypeset as error:
        raise NotTypeset(f"{error} (in {shown(value, 200)})") from None


def _prose(value):
    tokens = re.split(r"(\s+)", value.strip())
    words = tokens[::2]
    kinds = _resolve(words, [_kind(word) for word in words])
    out, run = [], []
    for index, (word, kind) in enumerate(zip(words, kinds)):
        space = _space(tokens[2 * index - 1]) if index else ""
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


def _space(between):
    """The space between two words: a tie (~) where it must not break (U+00A0, U+202F), else as written in ASCII."""
    if between.isascii():
        return between
    return "~" if any(char in "\u00a0\u202f\u2007" for char in between) else " "


def _kind(word):
    """math, text, neutral (digits and brackets only: math next to math), article (a: math between math),
    pronoun (I) or product (two letters such as nb): math only where it continues a formula."""
    if re.fullmatch(r"\(?[A-Z]\d[\w.]*\)?[.,;:]*", word):  # an id: D1, (A2), T2.multi
        return "text"
    if re.fullmatch("[aA][.,;:]?", word):
        return "article"
    if re.search(r"[A-Za-z]['’]s\b", word):  # a possessive: J's spectrum
        return "text"
    if re.fullmatch(r"\(?[^\s=<>≤≥-]+-[a-z]{3,}[a-z-]*[.,;:)]*", word):  # μ-strongly, L-smooth: a word
        return "text"
    if any(char in TEXT and char not in "…" and not char.isascii() for char in word) and \
            not any(char in MATH_CHARS for char in word):
        return "text"  # a dash or quotation marks: punctuation of the sentence
    if word.rstrip(".,;:!?") == "I":
        return "pronoun"
    if any(char in MATH_CHARS for char in word):
        return "math"
    names = list(re.finditer("[A-Za-z]+", word))
    if not names:
        return "neutral"
    if re.fullmatch("[a-z]{2}", word) and word not in WORDS:
        return "product"  # nb in "a + nb > 0": math only inside a formula
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
        if kind in ("pronoun", "product"):
            resolved[index] = "math" if _continues(words, resolved, kinds, index) else "text"
            continue
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


def _continues(words, resolved, kinds, index):
    """Whether a word that may be a name (I, nb) continues a formula: after math ending in a relation or an
    operator ("H = I", "a + nb"), or before a word that starts with one ("I ≼ H"); else a word ("I think")."""
    before = index and resolved[index - 1] == "math" and words[index - 1][-1] in OPERATOR_ENDS
    after = index + 1 < len(words) and kinds[index + 1] == "math" and words[index + 1][0] in OPERATOR_ENDS
    return bool(before or after)


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
        if all(re.search(RELATION_CHARS, side) for side in (merged[-1], part)):
            merged.append(part)
        else:
            merged[-1] += ", " + part
    return merged


def _text(word):
    """A word of text as LaTeX; a symbol inside it is set as math (μ-strongly → $\\mu$-strongly)."""
    return "".join(f"${math(char)}$" if char in MATH_CHARS and not char.isascii() else _letter(char, word)
                   for char in word)


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
