"""The search for algebraic certificates (verify.claims.prover.algebraic): a linear program, then exact arithmetic.

For a target polynomial p, the candidate terms are m·Π s_i for products of at most two hypothesis slacks
(an equality at most once) and monomials m, grown from p's own monomials: a term is a candidate when one
of its monomials is one the identity must produce or cancel, up to `DEPTH` rounds (Handelman's
representation, restricted to the monomials that can take part). HiGHS finds nonnegative coefficients
(an equality's may have any sign) matching p; the floating-point answer is only a guess: its support's
coefficients are rounded to small fractions, or solved for exactly on that support, and the identity is
kept only when it holds exactly over QQ. Positivity lemmas come first (each quantity the hypotheses prove
positive, then each denominator factor), one round after another.
"""
import itertools
import time
from fractions import Fraction

from sympy import QQ

from verify.claims.prover.algebraic import (Algebra, Identity, Lemma, Term, expected_denominators, lemma_targets,
                                            multiplier_polynomial, poly_text, setting, sums_to)

DEPTH = 6  # rounds of growing the candidate terms from the target's monomials
MAX_COLUMNS = 4000
PAIR_DEPTH = 2
MAX_POSITIVITY_ROUNDS = 5
TOLERANCE = 1e-9
SECONDS = 10.0  # a backstop per claim: the rounds and MAX_COLUMNS bound the search, the same on every machine
ONE = Term(Fraction(1), (), ())


def find(part, piece, facts, seconds=SECONDS):
    """An Algebra proving the part at the piece from the facts, or None (not polynomial, or none found)."""
    deadline = time.perf_counter() + seconds
    found = setting(part, piece, facts)
    if found is None:
        return None
    quick = _identities(found, [], set(), deadline, quick=True)  # each comparison a cited fact's own: no lemmas
    if quick is not None:
        return quick
    lemmas, positive = _positivity(found, lemma_targets(found), deadline)
    return _identities(found, lemmas, positive, deadline)


def _identities(found, lemmas, positive, deadline, quick=False):
    identities, required = [], set()
    for ratio, relation in found.goals:
        for factor, power in ratio.den:
            text = None if quick else _denominator_lemma(factor, power, found, lemmas, positive, deadline)
            if text is None and not factor.is_ground:
                return None
            required.add(text or "")
        denominators = expected_denominators(ratio, {l.polynomial for l in lemmas})
        if relation == "==":
            if ratio.num:
                return None
            answer = ((ONE,), ())
        else:
            strict = relation == ">"
            answer = _direct(ratio.num, strict, found.hypotheses) if quick else \
                _staged(ratio.num, strict, found.hypotheses, positive, deadline)
            if answer is None:
                return None
        identities.append(Identity(denominators, answer[0], poly_text(ratio.num), relation, answer[1]))
    return Algebra(found.substitutions, _needed(lemmas, identities, required), tuple(identities))


def _denominator_lemma(factor, power, found, lemmas, positive, deadline):
    """The text of the lemma proving the factor (or, under an even power, its square) positive, added if need be
    ("" for a constant); None when there is none."""
    proved = {l.polynomial for l in lemmas}
    candidates = [factor] + ([factor ** 2] if power % 2 == 0 else [])
    if factor.is_ground:
        return ""
    for candidate in candidates:
        if poly_text(candidate) in proved:
            return poly_text(candidate)
    for candidate in candidates:
        answer = _staged(candidate, True, found.hypotheses, positive, deadline)
        if answer is not None:
            lemmas.append(Lemma(poly_text(candidate), *answer))
            return poly_text(candidate)
    return None


def _positivity(found, targets, deadline):
    """Positivity lemmas for the quantities the hypotheses prove positive, in rounds (a later one may use an
    earlier one's quantity): first the direct ones (q > 0, or q ≥ p for p already positive), then the LP."""
    lemmas, positive = [], set()
    read = set()
    for hypothesis in found.hypotheses:
        read |= {str(g) for monom in hypothesis.poly.monoms() for g, power in zip(found.space.ring.gens, monom) if power}
    names = [name for name in found.space.names if name in read]
    for _ in range(MAX_POSITIVITY_ROUNDS):
        grew = _read_off(found, targets, names, lemmas, positive)
        for name in names:
            if name in positive or time.perf_counter() > deadline:
                continue
            answer = _search(targets[name], True, found.hypotheses, positive, deadline, depth=2, pairs=False,
                             multiplied=True)
            if answer is not None:
                lemmas.append(Lemma(name, *answer))
                positive.add(name)
                grew = True
        if not grew:
            break
    return lemmas, positive


def _read_off(found, targets, names, lemmas, positive):
    """q > 0 read off one hypothesis (q > 0, or q − p ≥ 0 with p positive), as often as it adds one."""
    one, grew = Term(Fraction(1), (), ()), False
    while True:
        added = False
        for name in names:
            if name in positive:
                continue
            for h in found.hypotheses:
                rest = h.poly - targets[name]
                constant = -Fraction(str(rest.LC)) if rest.is_ground else None  # q = slack + constant
                if h.relation != "==" and constant is not None and constant >= 0 and (constant > 0 or h.relation == ">"):
                    lemmas.append(Lemma(name, (one,), (Term(Fraction(1), (h.label,), ()),) +
                                        ((Term(constant, (), ()),) if constant else ())))
                elif h.relation != "==" and len(rest) == 1 and str(-rest) in positive and rest.LC == -1:
                    lemmas.append(Lemma(name, (one,), (Term(Fraction(1), (h.label,), ()), Term(Fraction(1), (), ((str(-rest), 1),)))))
                else:
                    continue
                positive.add(name)
                added = grew = True
                break
        if not added:
            return grew


def _needed(lemmas, identities, required):
    """The lemmas the identities use (odd powers, denominators), and those these use in turn, in order."""
    by_text = {l.polynomial: l for l in lemmas}
    wanted, stack = set(), list(required)
    stack += [name for i in identities for t in i.terms + i.multiplier for name, _ in t.monomial]
    while stack:
        text = stack.pop()
        if text in by_text and text not in wanted:
            wanted.add(text)
            stack += [name for t in by_text[text].terms + by_text[text].multiplier for name, _ in t.monomial]
    return tuple(l for l in lemmas if l.polynomial in wanted)


# ---------------------------------------------------------------- candidate terms and the LP


def _bases(hypotheses, pairs):
    """(labels, polynomial, kind) of the products of at most two slacks: kind "=" when an equality is in it."""
    singles = [((h.label,), h.poly, "=" if h.relation == "==" else ("+" if h.relation == ">" else "0")) for h in hypotheses]
    out = [((), None, "+")] + singles
    if pairs:
        inequalities = [s for s in singles if s[2] != "="]
        for (a, pa, ka), (b, pb, kb) in itertools.combinations_with_replacement(inequalities, 2):
            out.append((a + b, pa * pb, "+" if ka == kb == "+" else "0"))
    return out


def _staged(target, strict, hypotheses, positive, deadline):
    """_search with single slacks and deep growth first, then with products of two and shallow growth."""
    return (_search(target, strict, hypotheses, positive, deadline, depth=DEPTH, pairs=False) or
            _search(target, strict, hypotheses, positive, deadline, depth=PAIR_DEPTH + 1, pairs=False, multiplied=True) or
            _search(target, strict, hypotheses, positive, deadline, depth=PAIR_DEPTH, pairs=True))


def _search(target, strict, hypotheses, positive, deadline, depth=DEPTH, pairs=True, multiplied=False):
    """(multiplier, terms) with multiplier·target == Σ terms exactly (a strictly positive term when `strict`), or
    None. The multiplier is 1, or with `multiplied` a nonnegative combination of 1, q and q² for the quantities q
    proved positive: [(coefficient, monomial)]."""
    if time.perf_counter() > deadline:
        return None
    if not target:
        return None if strict else ((ONE,), ())
    direct = _direct(target, strict, hypotheses)
    if direct is not None:
        return direct
    ring = target.ring
    names = [str(g) for g in ring.gens]
    odd_ok = tuple(name in positive for name in names)
    zero = (0,) * ring.ngens
    multipliers = [((), zero)]
    if multiplied:
        for i, name in enumerate(names):  # q, q² for q > 0; for a strict target any square (m ≥ 0, m·p > 0: p > 0)
            powers = (1, 2) if name in positive else (2,) if strict else ()
            multipliers += [((), tuple(int(j == i) * k for j in range(ring.ngens))) for k in powers]
        multipliers += [((h.label,), zero) for h in hypotheses if h.relation != "==" and _degree(h.poly) <= 1]
        multipliers += [((), m) for m in _quotients(target, hypotheses, odd_ok, strict) if ((), m) not in multipliers]
    by_label = {h.label: h for h in hypotheses}
    scaled = {d: target.mul_monom(d[1]) * _product(d[0], by_label, ring) for d in multipliers}
    bases = [(labels, poly if poly is not None else ring.one, kind) for labels, poly, kind in _bases(hypotheses, pairs)]
    base_monoms = [(b, tuple(b[1].monoms())) for b in bases]
    poly_degree = {labels: max((sum(u) for u in poly.monoms()), default=0) for labels, poly, _ in bases}
    columns = {("goal",) + d: (-scaled[d], "goal") for d in multipliers}
    seen = {m for d in multipliers for m in scaled[d].monoms()}
    frontier = set(seen)
    top = max(sum(m) for m in seen) + max(poly_degree.values())
    highest = [max(e) for e in zip(*seen, *(u for _, monoms in base_monoms for u in monoms if len(monoms) and u))]
    for _ in range(depth):
        fresh = set()
        for t in frontier:
            for (labels, poly, kind), monoms in base_monoms:
                for u in monoms:
                    m = tuple(a - b for a, b in zip(t, u))
                    if min(m) < 0 or (labels, m) in columns or sum(m) + poly_degree[labels] > top:
                        continue
                    if kind != "=" and any(p % 2 and not ok for p, ok in zip(m, odd_ok)):
                        continue
                    product = poly.mul_monom(m)
                    if any(e > h for monom in product.monoms() for e, h in zip(monom, highest)):
                        continue
                    columns[(labels, m)] = (product, kind)
                    fresh |= set(product.monoms()) - seen
            if len(columns) > MAX_COLUMNS or time.perf_counter() > deadline:
                break
        found = _solve(target, strict, columns, names, positive, hypotheses)
        if found is not None or not fresh or len(columns) > MAX_COLUMNS or time.perf_counter() > deadline:
            return found
        seen |= fresh
        frontier = fresh
    return None


def _product(labels, by_label, ring):
    out = ring.one
    for label in labels:
        out *= by_label[label].poly
    return out


def _is_strict(key, kind, names, positive):
    return kind == "+" and all(p == 0 or name in positive for p, name in zip(key[-1], names))


def _system(columns, keys):
    """Rows (monomial -> row; the last row normalises the multiplier) and the sparse entries of the columns."""
    rows, entries = {}, ([], [], [])
    for j, key in enumerate(keys):
        for monom, coeff in columns[key][0].items():
            entries[0].append(rows.setdefault(monom, len(rows)))
            entries[1].append(j)
            entries[2].append(coeff)
    norm = len(rows)
    for j, key in enumerate(keys):
        if key[0] == "goal" and not key[1]:  # the multiplier's strictly positive part sums to 1
            entries[0].append(norm)
            entries[1].append(j)
            entries[2].append(1)
    return norm + 1, entries


def _solve(target, strict, columns, names, positive, hypotheses):
    import numpy as np
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix

    keys = list(columns)
    height, (r, c, v) = _system(columns, keys)
    matrix = coo_matrix(([float(x) for x in v], (r, c)), shape=(height, len(keys))).tocsr()
    rhs = np.zeros(height)
    rhs[-1] = 1.0
    kinds = [columns[k][1] for k in keys]
    strict_flags = [_is_strict(k, kind, names, positive) for k, kind in zip(keys, kinds)]
    cost = [_cost(k, kind, flag) for k, kind, flag in zip(keys, kinds, strict_flags)]
    bounds = [(None, None) if kind == "=" else (0, None) for kind in kinds]
    a_ub = b_ub = None
    if strict:
        if not any(strict_flags):
            return None
        chosen = [j for j, flag in enumerate(strict_flags) if flag]
        a_ub = coo_matrix(([-1.0] * len(chosen), ([0] * len(chosen), chosen)), shape=(1, len(keys))).tocsr()
        b_ub = [-1e-6]
    answer = linprog(cost, A_ub=a_ub, b_ub=b_ub, A_eq=matrix, b_eq=rhs, bounds=bounds, method="highs-ds")
    if answer.status != 0:
        return None
    support = [(keys[j], answer.x[j]) for j in range(len(keys)) if abs(answer.x[j]) > TOLERANCE]
    return _exact(target, strict, support, columns, positive, hypotheses)


def _cost(key, kind, strict_flag):
    if kind == "goal":
        return 0.0 if not key[1] and not any(key[2]) else 1.0
    return 0.0 if kind == "=" else (0.5 if strict_flag else 1.0)


def _exact(target, strict, support, columns, positive, hypotheses):
    """The LP's support with exact rational coefficients that make the identity hold, or None."""
    space_like = _Space(target.ring)
    by_label = {h.label: h for h in hypotheses}
    for coefficients in (_rounded(support, 10**4), _rounded(support, 10**8), _solved(support, columns)):
        if coefficients is None:
            continue
        chosen = [(key, x) for (key, _), x in zip(support, coefficients) if x]
        multiplier = tuple(_term(key[1:], x, space_like.names) for key, x in chosen if key[0] == "goal")
        try:
            factor = multiplier_polynomial(multiplier, space_like, by_label, positive, strict)
        except ValueError:
            continue
        terms = tuple(_term(key, x, space_like.names) for key, x in chosen if key[0] != "goal")
        if sums_to(terms, factor * target, space_like, by_label, positive, strict) is None:
            return multiplier, terms
    return None


def _rounded(support, limit):
    return [Fraction(x).limit_denominator(limit) for _, x in support]


def _solved(support, columns):
    """The exact solution of the identity's linear system on the support (free unknowns at 0)."""
    from sympy.polys.matrices import DomainMatrix

    keys = [key for key, _ in support]
    height, (r, c, v) = _system(columns, keys)
    width = len(keys)
    data = [[QQ(0)] * (width + 1) for _ in range(height)]
    for i, j, x in zip(r, c, v):
        data[i][j] = QQ(x)
    data[-1][width] = QQ(1)
    reduced, pivots = DomainMatrix(data, (height, width + 1), QQ).rref()
    if width in pivots:
        return None
    values = [Fraction(0)] * width
    dense = reduced.to_Matrix()
    for row, col in enumerate(pivots):
        values[col] = Fraction(int(dense[row, width].p), int(dense[row, width].q))
    return values


def _named(monom, names):
    return tuple((name, p) for name, p in zip(names, monom) if p)


def _term(key, coefficient, names):
    labels, m = key
    return Term(Fraction(coefficient), labels, _named(m, names))


class _Space:
    """The ring seen as the check sees a Space (its generators by name)."""

    def __init__(self, ring):
        self.ring = ring
        self.names = [str(g) for g in ring.gens]
        self.gens = dict(zip(self.names, ring.gens))


def certify(tree, proof, seconds=SECONDS):
    """(Algebra or None for each of a proved Proof's pieces, seconds taken): the identities of a proof whose
    claim is `tree`; the whole search shares `seconds`."""
    from verify.claims.prover import facts as library
    from verify.claims.prover.prove import conjuncts

    started = time.perf_counter()
    if proof.status != "proved":
        return (), 0.0
    parts = conjuncts(tree)
    out = []
    for piece in proof.pieces:
        left = seconds - (time.perf_counter() - started)
        facts = [f for f in library.FACTS if f.id in piece.lemmas]
        out.append(find(parts[piece.part], piece.piece, facts, left) if left > 0 else None)
    return tuple(out), time.perf_counter() - started


def _quotients(target, hypotheses, odd_ok, strict):
    """For a one-term target t: the monomials u/t of the hypotheses' monomials u that t divides, when they may
    multiply (odd powers of positive quantities; other even powers only for a strict target)."""
    if len(target) != 1:
        return []
    (t,) = target.monoms()
    out = []
    for h in hypotheses:
        for u in h.poly.monoms():
            m = tuple(a - b for a, b in zip(u, t))
            if min(m) >= 0 and any(m) and m not in out and all(ok if p % 2 else (ok or strict or not p)
                                                               for p, ok in zip(m, odd_ok)):
                out.append(m)
    return out


def _direct(target, strict, hypotheses):
    """(1, [c·slack]) when the target is a cited fact's own slack times c > 0, else None."""
    for h in hypotheses:
        ratio = _ratio(target, h.poly)
        if ratio is not None and ratio > 0 and (h.relation == ">" or not strict) and h.relation != "==":
            return (ONE,), (Term(ratio, (h.label,), ()),)
    return None


def _ratio(target, poly):
    """c with target == c·poly, or None."""
    if len(target) != len(poly) or not poly:
        return None
    monom, coeff = next(iter(poly.items()))
    c = target.get(monom)
    if c is None or target != poly * target.ring(c / coeff):
        return None
    c = c / coeff
    return Fraction(int(c.numerator), int(c.denominator))


def _degree(poly):
    return max((sum(m) for m in poly.monoms()), default=0)
