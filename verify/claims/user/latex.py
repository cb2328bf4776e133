"""LaTeX of a parsed claim, through a subclass of SymPy's LatexPrinter.

Names print as their LaTeX symbols (λ_min → \\lambda_{\\min}, μ_T → \\mu_T), z(k) as
z_{(k)}; comparisons and their and/or/not combinations are joined here.
"""
import sympy
from sympy.printing.latex import LatexPrinter

from verify.claims.user.grammar import LATEX_NAMES, SYMBOLS, AllOf, Compare, Negate, ZOrder

RELATIONS = {"<": "<", "<=": r"\le", ">": ">", ">=": r"\ge", "==": "="}


class ClaimLatexPrinter(LatexPrinter):
    """SymPy's printer with the claim language's symbol names, keeping the order as written."""

    def __init__(self, settings=None):
        names = {SYMBOLS[name]: latex for name, latex in LATEX_NAMES.items()}
        super().__init__({"order": "none", "symbol_names": names, **(settings or {})})

    def _print_Pow(self, expr):
        """Powers as written, without SymPy's sign queries (they would evaluate 10^(10^10))."""
        base, power = expr.args
        if power == sympy.S.Half:
            return r"\sqrt{" + self._print(base) + "}"
        if power.is_Number and power < 0 and not base.is_Number:  # 10^{-400} stays as written
            positive = base if power == -1 else sympy.Pow(base, -power, evaluate=False)
            return r"\frac{1}{" + self._print(positive) + "}"
        written = self._print(base)
        if not (base.is_Symbol or isinstance(base, ZOrder) or (base.is_Integer and base >= 0)):
            written = r"\left(" + written + r"\right)"
        return f"{written}^{{{self._print(power)}}}"

    def _print_Least(self, expr, exp=None):
        return self._variadic(r"\min", expr, exp)

    def _print_Greatest(self, expr, exp=None):
        return self._variadic(r"\max", expr, exp)

    def _variadic(self, name, expr, exp):
        """min/max with their arguments in the written order (SymPy sorts them, evaluating numbers)."""
        tex = name + r"\left(" + ", ".join(self._print(a) for a in expr.args) + r"\right)"
        return tex if exp is None else f"{tex}^{{{exp}}}"

    def _print_Mul(self, expr):
        """Unevaluated products as written: factors with negative powers go under one fraction bar."""
        factors = _factors(expr)
        if factors[0] == -1 and len(factors) > 1:
            rest = sympy.Mul(*factors[1:], evaluate=False) if len(factors) > 2 else factors[1]
            return "- " + self._wrapped(rest)
        top, bottom = [], []
        for factor in factors:
            power = factor.args[1] if factor.is_Pow else None
            if power is not None and power.is_Number and power < 0:
                bottom.append(factor.args[0] if power == -1 else sympy.Pow(factor.args[0], -power, evaluate=False))
            elif factor != 1 or len(factors) == 1:
                top.append(factor)
        numerator = self._product(top) if len(top) > 1 else self._print(top[0]) if top else "1"
        return rf"\frac{{{numerator}}}{{{self._product(bottom)}}}" if bottom else numerator

    def _product(self, factors):
        out = ""
        for factor in factors:
            tex = self._wrapped(factor)
            out += ("" if not out else r" \cdot " if tex[0].isdigit() else " ") + tex
        return out

    def _print_Add(self, expr):
        """Sums as written; a negated term prints as a subtraction (SymPy's sign test evaluates numbers)."""
        out = ""
        for term in expr.args:
            negated = _negated(term)
            if negated is not None:
                out += (" - " if out else "- ") + self._wrapped(negated, in_sum=True)
            else:
                out += (" + " if out else "") + self._print(term)
        return out

    def _wrapped(self, expr, in_sum=False):
        """expr in parentheses when it would otherwise bind loosely (a sum, a negative or a fraction)."""
        tex = self._print(expr)
        loose = expr.is_Add or (not in_sum and _negated(expr) is not None)
        loose = loose or (not in_sum and expr.is_Rational and not expr.is_Integer)
        return r"\left(" + tex + r"\right)" if loose else tex

    def _print_ZOrder(self, expr, exp=None):
        index = LatexPrinter({"order": "lex"}).doprint(expr.args[0])  # n - 1, not -1 + n
        tex = r"z_{(" + index + ")}"
        return tex if exp is None else f"{tex}^{{{exp}}}"


def _negated(term):
    """x when term is −x as the parser builds it (Mul(−1, x) or a negative number), else None."""
    if term.is_Number and term < 0:
        return -term
    if term.is_Mul and term.args[0] == -1:
        rest = term.args[1:]
        return rest[0] if len(rest) == 1 else sympy.Mul(*rest, evaluate=False)
    return None


def _factors(expr):
    """The factors of nested unevaluated products, in order."""
    if expr.is_Mul:
        return [f for arg in expr.args for f in _factors(arg)]
    return [expr]


def expression_latex(expr):
    return ClaimLatexPrinter().doprint(expr)


def claim_latex(tree):
    """LaTeX of a comparison tree (no math delimiters)."""
    if isinstance(tree, Compare):
        return f"{expression_latex(tree.lhs)} {RELATIONS[tree.op]} {expression_latex(tree.rhs)}"
    if isinstance(tree, Negate):
        return r"\lnot\left(" + claim_latex(tree.part) + r"\right)"
    joiner = r" \land " if isinstance(tree, AllOf) else r" \lor "
    return joiner.join(_grouped(part) for part in tree.parts)


def _grouped(part):
    text = claim_latex(part)
    return text if isinstance(part, (Compare, Negate)) else r"\left(" + text + r"\right)"


__all__ = ["ClaimLatexPrinter", "claim_latex", "expression_latex"]
