"""LaTeX displays that fit the page (broken at their top-level separators, measured by `width`), and names
set in \\texttt: the typesetting helpers of verify.document.latex_claims and verify.document.latex_export."""
import re

LINE_CHARACTERS = 64  # `width` units a display line holds (6.5 in at 11 pt: about 7 pt a unit)


def display(body, label=None):
    """A display that fits the page: one line, or broken at its top-level separators (multline)."""
    lines = _break(body)
    tag = f"\\label{{{label}}}" if label else ""
    if len(lines) == 1:
        environment = "equation" if label else "equation*"
        return f"\\begin{{{environment}}}{tag}\n{body}\n\\end{{{environment}}}\n"
    environment = "multline" if label else "multline*"
    return f"\\begin{{{environment}}}{tag}\n" + " \\\\\n".join(lines) + f"\n\\end{{{environment}}}\n"


BREAKS = (r";\\quad |; ",  # between statements: break after
          r",\\quad |\\quad |,\\ ",  # between parts of one statement
          r" (?==|\\le |\\ge |\\leq |\\geq |\\iff |\\Rightarrow )",  # before a relation
          r" (?=[+-] )")  # before a binary + or −


def _break(body):
    """Lines of at most LINE_CHARACTERS glyphs, split at the first kind of break that makes them fit."""
    if width(body) <= LINE_CHARACTERS:
        return [body]
    best = [body]
    for pattern in BREAKS:
        lines = _pack(_split_top_level(body, pattern))
        if max(map(width, lines)) < max(map(width, best)):
            best = lines
        if max(map(width, best)) <= LINE_CHARACTERS:
            break
    return [re.sub(r"(\\quad|\\ )\s*$", "", line) for line in best]  # no spacing left at a line's end


def _split_top_level(body, pattern):
    """Pieces of body cut at the matches of pattern that lie outside every {…} and \\left…\\right."""
    pieces, start, depth = [], 0, 0
    position = 0
    while position < len(body):
        if body.startswith("\\left", position) or body[position] == "{":
            depth += 1
        elif body.startswith("\\right", position) or body[position] == "}":
            depth -= 1
        match = re.compile(pattern).match(body, position) if depth == 0 else None
        if match and position > start:
            pieces.append(body[start:match.end()].strip())
            start = position = match.end()
            continue
        position += 1
    return pieces + [body[start:].strip()]


def _pack(pieces):
    lines = [pieces[0]]
    for piece in pieces[1:]:
        joined = f"{lines[-1]} {piece}"
        if width(joined) <= LINE_CHARACTERS:
            lines[-1] = joined
        else:
            lines.append(piece)
    return lines


RELATIONS = r"(=|<|>|\\le\b|\\ge\b|\\leq|\\geq|\\iff|\\Rightarrow|\\ne\b|\\in\b|\\quad|\\mapsto)"


def width(latex):
    """About how many glyphs wide a formula prints: a command counts one, a relation (with the space TeX
    puts around it) three, a fraction its wider part, a matrix its widest row.  Calibrated on pdflatex's
    overfull-box reports."""
    text = re.sub(r"\\begin\{pmatrix\}(.*?)\\end\{pmatrix\}", lambda m: max(m.group(1).split("\\\\"), key=len), latex)
    text = re.sub(RELATIONS, "xxx", text)
    text = re.sub(r"\\(left|right|big|Big|bigl|bigr|Bigl|Bigr)\b", "", text)
    text = re.sub(r"\\(operatorname|mathrm|mathbb|text)\{([^{}]*)\}", r"\2", text)
    while True:
        reduced = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", lambda m: max(m.group(1), m.group(2), key=len), text)
        reduced = re.sub(r"[_^]\{([^{}]*)\}", r"\1", reduced)
        if reduced == text:
            break
        text = reduced
    text = re.sub(r"\\[A-Za-z]+|\\.", "x", text)
    return len(re.sub(r"[\s{}_^]", "", text))
