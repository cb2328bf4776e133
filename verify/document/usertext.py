"""The one rule for every string of a user's that reaches the LaTeX document — a claim's or lemma's id,
statement and source, a verdict's text, a file's name: it is text, never TeX.

Each character is mapped on its own, with no state and no recursion: a letter, digit or space stays as it is;
a character TeX reads as a command or a group (``\\ { } $ & % # ^ _ ~``, and ``< > | [ ]``, which T1 text or an
optional argument would read otherwise) becomes the command that prints it; a Unicode symbol becomes the fixed
command that prints it (λ → ``\\ensuremath{\\lambda}``, ² → ``\\ensuremath{^{2}}``, é → ``\\'{e}``); any other
character is refused (`NotTypeset`).  So the output holds no command and no brace the user wrote: it cannot
read or write a file, open a group it does not close, or end the document, whatever the string.  The
mathematics of a claim is never taken from its prose: it is printed from the parsed claim
(verify.claims.language.latex).

The project's own prose (the registry's statements, the toolkit's sentences) is set by
`verify.document.mathtext.prose`, which typesets its Unicode math; a string is the user's when it is wrapped in
`UserText` at the boundary where it enters the document (`shown` sets either kind).
"""
import unicodedata

from verify.document.mathtext import GREEK, SUBSCRIPTS, SUPERSCRIPTS, SYMBOLS, TEXT, NotTypeset, _letter, prose

SAFE_ASCII = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;:!?()'\"`/+-=*@")
ESCAPED = {**{char: TEXT[char] for char in "\\{}$&%#^_~<>|"}, "[": "{[}", "]": "{]}"}
SPACES = frozenset("\t\n\r\u00a0\u202f\u2009\u2002\u2003")  # whitespace: one space (a tie where it must not break)


class UserText(str):
    """A string that came from the user (a claim file, a file name): `shown` sets it by `user_text`."""


LINE_CHARACTERS = 1000  # characters of LaTeX source per line of a user's string, about: "%" and a line break after each


def user_text(value):
    """A user's string as LaTeX text, character by character (see the module docstring); NotTypeset, naming the
    character, for one with no form here. A long string's source is broken into lines of about LINE_CHARACTERS
    characters with "%" and a line break, which TeX reads as nothing, before a character whose form is not a space (a
    break before one would drop it): pdflatex reads a line of at most 200,000 characters, and one ⟹ is 28 of them."""
    text, out, length = str(value), [], 0
    for char in text:
        part = _character(char, value)
        if length >= LINE_CHARACTERS and not part.startswith(" "):
            out.append("%\n")
            length = 0
        out.append(part)
        length += len(part)
    return "".join(out)


def _character(char, value):
    if char in SAFE_ASCII:
        return char
    if char in ESCAPED:
        return ESCAPED[char]
    if char in SPACES:
        return "~" if char in "\u00a0\u202f" else " "
    if unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn"):
        raise NotTypeset(f"the control or unassigned character U+{ord(char):04X} in {value!r}")
    if char in SUPERSCRIPTS:  # the tables' entries are fixed math (a digit, a letter, \top)
        return "\\ensuremath{^{" + SUPERSCRIPTS[char] + "}}"
    if char in SUBSCRIPTS:
        return "\\ensuremath{_{" + SUBSCRIPTS[char] + "}}"
    if char in GREEK or (char in SYMBOLS and not char.isascii()):
        return "\\ensuremath{" + (GREEK.get(char) or SYMBOLS[char]) + "}"
    compatible = unicodedata.normalize("NFKC", char)
    if compatible != char and compatible.isascii():  # a full-width ＼ is a backslash: escaped as one
        return "".join(_character(c, value) for c in compatible)
    return _letter(char, value)  # an accented letter, a dash, a quotation mark; NotTypeset for anything else


def unset_characters(value):
    """The characters of a user's string with no form under the rule, each once, in order, as "'✓' (CHECK MARK)"."""
    found = []
    for char in dict.fromkeys(str(value)):
        try:
            _character(char, value)
        except NotTypeset:
            found.append(f"{char!r} ({unicodedata.name(char, f'U+{ord(char):04X}')})")
    return found


def user_name(value):
    """A user's name (an id, a file name) for \\texttt: the same rule."""
    return user_text(value)


def shown(value):
    """Prose as LaTeX: a user's string (`UserText`) by `user_text`, the project's own by `prose`."""
    return user_text(value) if isinstance(value, UserText) else prose(value)
