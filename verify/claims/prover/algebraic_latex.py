"""An algebraic certificate as LaTeX, through the claim language's printer: the substitutions made, each
positivity lemma and each identity as a displayed line, every cited slack labelled with its fact."""
from fractions import Fraction

from verify.claims.language.latex import claim_latex
from verify.claims.language.syntax import BinOp, Neg, Num
from verify.claims.prover.algebraic import atoms, fact_atoms, k_range, setting
from verify.claims.prover.algebraic_check import Term, check_algebra, lemma_targets


def poly_tree(poly, space):
    """A polynomial of the piece's ring as a claim-language tree (Σ c·Π q**k, quantities as they are written)."""
    out = None
    for monom, coeff in sorted(poly.items(), reverse=True):
        value = Fraction(int(coeff.numerator), int(coeff.denominator))
        factors = [_power(space.trees[name], k) for name, k in zip(space.names, monom) if k]
        body = _product(([Num(abs(value))] if abs(value) != 1 or not factors else []) + factors)
        if out is None:
            out = Neg(body) if value < 0 else body
        else:
            out = BinOp("-" if value < 0 else "+", out, body)
    return out if out is not None else Num(Fraction(0))


def _power(tree, k):
    return tree if k == 1 else BinOp("**", tree, Num(Fraction(k)))


def _product(trees):
    out = trees[0]
    for tree in trees[1:]:
        out = BinOp("*", out, tree)
    return out


def term_latex(term, space, by_label):
    """One term: its coefficient and monomial, then each cited slack in parentheses, labelled with its fact."""
    coefficient = term.coefficient
    parts = [] if coefficient == 1 else [_coefficient_latex(abs(coefficient))]
    parts += [claim_latex(_power(space.trees[name], k)) for name, k in term.monomial]
    for label in term.factors:
        slack_text = claim_latex(poly_tree(by_label[label].poly, space))
        parts.append(rf"\underbrace{{\left({slack_text}\right)}}_{{\text{{{_escaped(label)}}}}}")
    body = r" \, ".join(parts) or "1"
    return ("-" if coefficient < 0 else "") + body


def _coefficient_latex(value):
    return str(value.numerator) if value.denominator == 1 else rf"\frac{{{value.numerator}}}{{{value.denominator}}}"


def _escaped(label):
    return label.replace("_", r"\_")


def _sum_latex(terms, space, by_label):
    out = ""
    for term in terms:
        text = term_latex(term, space, by_label)
        out += text if not out else (f" - {text[1:]}" if text.startswith("-") else f" + {text}")
    return out or "0"


def algebra_latex(algebra, part, piece, facts):
    """The certificate as displayed LaTeX lines (no delimiters): the substitutions made, each positivity lemma
    (multiplier · p = Σ terms > 0) and each identity (multiplier · numerator = Σ terms); None when it does not
    check."""
    if check_algebra(algebra, part, piece, facts) is not None:
        return None
    found = setting(part, piece, facts, substitute=bool(algebra.substitutions))
    space, by_label = found.space, {h.label: h for h in found.hypotheses}
    labelled = dict(fact_atoms(facts, piece, atoms(part, piece), k_range(part, piece)))
    lines = [rf"{claim_latex(labelled[label])} \quad \text{{({_escaped(label)})}}" for label in algebra.substitutions]
    targets = lemma_targets(found)
    for lemma in algebra.lemmas:
        target = claim_latex(poly_tree(targets[lemma.polynomial], space))
        lines.append(rf"{_times(lemma.multiplier, space, by_label)}{target} = {_sum_latex(lemma.terms, space, by_label)} > 0")
    for identity, (ratio, relation) in zip(algebra.identities, found.goals):
        numerator = claim_latex(poly_tree(ratio.num, space))
        sign = {">": ">", ">=": r"\ge", "==": "="}[relation]
        lines.append(rf"{_times(identity.multiplier, space, by_label)}\left({numerator}\right) = "
                     rf"{_sum_latex(identity.terms, space, by_label)} {sign} 0")
    return lines


def _times(multiplier, space, by_label):
    """A multiplier as a left factor: nothing when it is 1."""
    if multiplier == (Term(Fraction(1), (), ()),):
        return ""
    return rf"\left({_sum_latex(multiplier, space, by_label)}\right) "


def proof_latex(tree, proof, algebras):
    """[(piece label, part number from 1, lines or None)] for every piece of a proved Proof of `tree`: the
    displayed lines of its algebraic certificates (`algebras`, as verify.claims.prover.prove.prove_with_identities
    gives them), None where a piece has none."""
    from verify.claims.prover import facts as library
    from verify.claims.prover.pieces import conjuncts

    parts, out = conjuncts(tree), []
    for piece, algebra in zip(proof.pieces, algebras):
        facts = [f for f in library.FACTS if f.id in piece.lemmas]
        lines = algebra_latex(algebra, parts[piece.part], piece.piece, facts) if algebra is not None else None
        out.append((piece.piece.label, piece.part + 1, lines))
    return out
