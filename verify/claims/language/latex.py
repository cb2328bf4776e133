"""LaTeX of claim-language trees, through a subclass of SymPy's LatexPrinter (its `_print_<Class>`
dispatch serves our own node classes). No math delimiters: they are added once, where placed.

Names print as their LaTeX symbols (lambda_min → \\lambda_{\\min}, mu_T → \\mu_T); z(k) as the order
statistic z_{(k)}, j(k) and lambda(k) as j_{k}, \\lambda_{k}; a quotient as \\frac; 1e-400 as 10^{-400}.
"""
from sympy.printing.latex import LatexPrinter

from verify.claims.language.quantities import latex_name
from verify.claims.language.syntax import And, BinOp, Compare, Neg, Num
from verify.claims.language.text import PRECEDENCE, _chained, _decimal, index_text

RELATIONS = {"<": "<", "<=": r"\le", ">": ">", ">=": r"\ge", "==": "="}
LEVEL = dict(PRECEDENCE, **{"/": PRECEDENCE["atom"]})  # the text's one table; a \frac is an atom


class ClaimLatexPrinter(LatexPrinter):
    """SymPy's LaTeX printer, taught the claim language's nodes."""

    def _print_Num(self, num):
        mantissa = abs(num.mantissa)
        body = _decimal(mantissa)
        if body is None:
            body = rf"\frac{{{mantissa.numerator}}}{{{mantissa.denominator}}}"
        sign = "-" if num.mantissa < 0 else ""
        if not num.exp10:
            return sign + body
        power = f"10^{{{num.exp10}}}"
        return sign + (power if mantissa == 1 else rf"{body} \cdot {power}")

    def _print_Name(self, name):
        return latex_name(name.id)

    def _print_Item(self, item):
        index = index_text(item.index).replace(" ", "")
        if item.name == "z":
            return rf"z_{{({index})}}"
        return rf"{latex_name(item.name)}_{{{index}}}"

    def _print_IndexValue(self, node):
        return index_text(node.index).replace(" ", "")

    def _print_Call(self, call):
        args = [self._print(a) for a in call.args]
        if call.name == "sqrt":
            return rf"\sqrt{{{args[0]}}}"
        if call.name == "abs":
            return rf"\left|{args[0]}\right|"
        return rf"\{call.name}\left({', '.join(args)}\right)"

    def _print_Neg(self, node):
        return "-" + self._wrap(node.operand, LEVEL["neg"])

    def _print_BinOp(self, node):
        if node.op == "/":
            return rf"\frac{{{self._print(node.left)}}}{{{self._print(node.right)}}}"
        if node.op == "**":
            base = self._print(node.left)
            if not _plain_base(node.left):
                base = r"\left(" + base + r"\right)"
            return f"{base}^{{{self._print(node.right)}}}"
        if node.op == "*":
            left, right = self._wrap(node.left, LEVEL["*"]), self._wrap(node.right, LEVEL["*"])
            joiner = r" \cdot " if right[:1].isdigit() or right.startswith("-") else " "
            return left + joiner + right
        right = self._wrap(node.right, LEVEL["*"] if node.op == "-" else LEVEL["+"])
        return f"{self._print(node.left)} {node.op} {right}"

    def _print_Compare(self, node):
        return f"{self._print(node.left)} {RELATIONS[node.op]} {self._print(node.right)}"

    def _print_And(self, node):
        if _chained(node.parts):
            out = self._print(node.parts[0].left)
            for part in node.parts:
                out += f" {RELATIONS[part.op]} {self._print(part.right)}"
            return out
        return r" \land ".join(self._grouped(p) for p in node.parts)

    def _print_Or(self, node):
        return r" \lor ".join(self._grouped(p) for p in node.parts)

    def _print_Not(self, node):
        return r"\lnot\left(" + self._print(node.part) + r"\right)"

    def _print_ForAll(self, node):
        # every integer k between the bounds: none when the lower bound exceeds the upper (the claim then holds)
        return (rf"\forall k \in \mathbb{{Z}},\ {index_text(node.lo)} \le k \le {index_text(node.hi)}:\ "
                + self._print(node.part))

    def _grouped(self, part):
        text = self._print(part)
        return text if isinstance(part, Compare) or (isinstance(part, And) and _chained(part.parts)) \
            else r"\left(" + text + r"\right)"

    def _wrap(self, node, least):
        text = self._print(node)
        return text if _level(node) >= least else r"\left(" + text + r"\right)"


def _plain_base(node):
    """A base that takes an exponent without parentheses: a name, an indexed quantity, a plain number."""
    from verify.claims.language.syntax import Item, Name

    return isinstance(node, (Name, Item)) or (isinstance(node, Num) and node.mantissa > 0 and not node.exp10
                                               and node.mantissa.denominator == 1)


def _level(node):
    if isinstance(node, BinOp):
        return LEVEL[node.op]
    if isinstance(node, Neg) or (isinstance(node, Num) and node.mantissa < 0):
        return LEVEL["neg"]
    return LEVEL["atom"]


def claim_latex(tree):
    """LaTeX of a claim (or expression) tree, without delimiters."""
    return ClaimLatexPrinter().doprint(tree)
