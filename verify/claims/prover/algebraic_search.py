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
import operator
import time
from fractions import Fraction


from verify.claims.prover.algebraic import setting
from verify.claims.prover.algebraic_check import Algebra, Identity, Lemma, Term, expected_denominators, lemma_targets, poly_text
from verify.claims.prover.algebraic_lp import ONE, solve

DEPTH = 6  # rounds of growing the candidate terms from the target's monomials
MAX_COLUMNS = 4000
PAIR_DEPTH = 2
MAX_POSITIVITY_ROUNDS = 5
SECONDS = 10.0  # a backstop per claim: the rounds and MAX_COLUMNS bound the search, the same on every machine


def find(part, piece, facts, seconds=SECONDS):
    """An Algebra proving the part at the piece from the facts, or None (not polynomial, or none found): first
    with the cited equalities as substitutions, then with them as hypotheses (kept when a substitution
    brings a denominator the facts do not prove positive, κ = λ_max/λ_min at n = 2 without F6)."""
    deadline = time.perf_counter() + seconds
    for substitute in (True, False):
        found = setting(part, piece, facts, substitute)
        if found is None:
            return None
        algebra = _find(found, deadline)
        if algebra is not None or not found.substitutions:
            return algebra
    return None


def _find(found, deadline):
    quick = _identities(found, [], set(), deadline, quick=True)  # each comparison a cited fact's own: no lemmas
    if quick is not None:
        return quick
    lemmas, positive = _positivity(found, lemma_targets(found), deadline)
    return _identities(found, lemmas, positive, deadline)


def _identities(found, lemmas, positive, deadline, quick=False):
    """The Algebra of the goals with these lemmas (quick: each goal a cited slack itself, no lemma), or None."""
    identities, required = [], set()
    for ratio, relation in found.goals:
        for factor, power in ratio.den:
            text = None if quick else _denominator_lemma(factor, power, found, lemmas, positive, deadline)
            if text is None and not factor.is_ground:
                return None
            required.add(text or "")
        answer = _goal(ratio.num, relation, found.hypotheses, positive, deadline, quick)
        if answer is None:
            return None
        denominators = expected_denominators(ratio, {l.polynomial for l in lemmas})
        identities.append(Identity(denominators, answer[0], poly_text(ratio.num), relation, answer[1]))
    return Algebra(found.substitutions, _needed(lemmas, identities, required), tuple(identities))


def _goal(numerator, relation, hypotheses, positive, deadline, quick):
    """(multiplier, terms) for one goal: N ≥ 0 or N > 0 from the slacks; N = 0 from the cited equalities."""
    if relation == "==":
        equalities = [h for h in hypotheses if h.relation == "=="]
        if not numerator:
            return (ONE,), ()
        return None if quick or not equalities else _search(numerator, False, equalities, set(), deadline, depth=2,
                                                            pairs=False)
    if quick:
        return _direct(numerator, relation == ">", hypotheses)
    return _staged(numerator, relation == ">", hypotheses, positive, deadline)


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
    failed_with = {}  # name -> the positive set its LP failed with: the same LP again would fail again
    for _ in range(MAX_POSITIVITY_ROUNDS):
        grew = _read_off(found, targets, names, lemmas, positive)
        for name in names:
            if name in positive or failed_with.get(name) == positive or time.perf_counter() > deadline:
                continue
            answer = _search(targets[name], True, found.hypotheses, positive, deadline, depth=2, pairs=False,
                             multiplied=True)
            if answer is not None:
                lemmas.append(Lemma(name, *answer))
                positive.add(name)
                grew = True
            else:
                failed_with[name] = frozenset(positive)
        if not grew:
            break
    return lemmas, positive


def _read_off(found, targets, names, lemmas, positive):
    """q > 0 read off one hypothesis (q − c ≥ 0 with c ≥ 0, or q − p ≥ 0 with p positive), as often as it adds
    one; whether any was added."""
    grew = False
    while True:
        added = False
        for name in (n for n in names if n not in positive):
            lemma = next((l for l in (_read_one(name, targets[name], h, positive) for h in found.hypotheses) if l), None)
            if lemma is not None:
                lemmas.append(lemma)
                positive.add(name)
                added = grew = True
        if not added:
            return grew


def _read_one(name, target, h, positive):
    """The lemma target > 0 from the one hypothesis h, or None."""
    if h.relation == "==":
        return None
    rest = h.poly - target  # target = slack − rest
    slack = Term(Fraction(1), (h.label,), ())
    if rest.is_ground:
        constant = -Fraction(str(rest.LC))
        if constant > 0 or (constant == 0 and h.relation == ">"):
            return Lemma(name, (ONE,), (slack,) + ((Term(constant, (), ()),) if constant else ()))
    elif len(rest) == 1 and rest.LC == -1 and str(-rest) in positive:
        return Lemma(name, (ONE,), (slack, Term(Fraction(1), (), ((str(-rest), 1),))))
    return None


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


def _bases(hypotheses, pairs, ring):
    """(labels, polynomial, kind) of the products of at most two slacks: kind "=" when an equality is in it, "+"
    when all are strict, else "0"."""
    singles = [((h.label,), h.poly, "=" if h.relation == "==" else ("+" if h.relation == ">" else "0")) for h in hypotheses]
    out = [((), ring.one, "+")] + singles
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
    None. The multiplier is 1, or with `multiplied` a combination of the candidates of `_multipliers`."""
    if time.perf_counter() > deadline:
        return None
    if not target:
        return None if strict else ((ONE,), ())
    direct = _direct(target, strict, hypotheses)
    if direct is not None:
        return direct
    names = [str(g) for g in target.ring.gens]
    odd_ok = tuple(name in positive for name in names)
    by_label = {h.label: h for h in hypotheses}
    multipliers = _multipliers(target, hypotheses, odd_ok, strict) if multiplied else [((), (0,) * len(names))]
    columns = {("goal",) + d: (-target.mul_monom(d[1]) * _product(d[0], by_label, target.ring), "goal")
               for d in multipliers}
    grower = _Grower(columns, _bases(hypotheses, pairs, target.ring), odd_ok)
    for _ in range(depth):
        fresh = grower.grow(deadline)
        found = solve(target, strict, columns, names, positive, hypotheses)
        if found is not None or not fresh or len(columns) > MAX_COLUMNS or time.perf_counter() > deadline:
            return found
    return None


def _multipliers(target, hypotheses, odd_ok, strict):
    """Candidate multipliers (labels, monomial): 1; q and q² for q > 0 (for a strict target any square: m ≥ 0 and
    m·p > 0 give p > 0); the cited slacks of degree ≤ 1; the quotients of the slacks' monomials by the target."""
    n = len(odd_ok)
    zero = (0,) * n
    out = [((), zero)]
    for i, ok in enumerate(odd_ok):
        powers = (1, 2) if ok else (2,) if strict else ()
        out += [((), tuple(int(j == i) * k for j in range(n))) for k in powers]
    out += [((h.label,), zero) for h in hypotheses if h.relation != "==" and _degree(h.poly) <= 1]
    return out + [((), m) for m in _quotients(target, hypotheses, odd_ok, strict) if ((), m) not in out]


class _Grower:
    """The candidate terms m·(product of slacks), grown round by round from the monomials the identity must
    produce or cancel: those of the target (times its multipliers), then those the last round's terms brought."""

    def __init__(self, columns, bases, odd_ok):
        self.columns = columns
        self.seen = {m for poly, _ in columns.values() for m in poly.monoms()}
        self.frontier = set(self.seen)
        monoms = [tuple(b[1].monoms()) for b in bases]
        self.top = max(sum(m) for m in self.seen) + max(_degree(b[1]) for b in bases)
        highest = _highest(list(self.seen) + [u for shifts in monoms for u in shifts])
        self.odd_not_ok = tuple(i for i, ok in enumerate(odd_ok) if not ok)  # where an odd power is refused
        # per base: (base, its monomials, degree, room: the highest power m may add to each variable, odd powers checked)
        self.bases = [(b, shifts, _degree(b[1]), tuple(h - e for e, h in zip(_highest(shifts), highest)), b[2] != "=")
                      for b, shifts in zip(bases, monoms)]

    def grow(self, deadline):
        """One round; the monomials it brought (empty: nothing more to grow)."""
        fresh = set()
        for t in self.frontier:
            for base in self.bases:
                for u in base[1]:
                    m = tuple(map(operator.sub, t, u))
                    if min(m) >= 0:
                        fresh.update(self._add(base, m))
            if len(self.columns) > MAX_COLUMNS or time.perf_counter() > deadline:
                break
        self.seen |= fresh
        self.frontier = fresh
        return fresh

    def _add(self, base, m):
        """The term m·base as a column, unless it has one already, is of too high a degree, has an odd power of a
        quantity not proved positive, or a power above every monomial's (those of m·base are base's shifted by m)."""
        (labels, poly, kind), _, degree, room, odd_checked = base
        if (labels, m) in self.columns or sum(m) + degree > self.top:
            return ()
        if odd_checked and any(m[i] & 1 for i in self.odd_not_ok):
            return ()
        if any(map(operator.gt, m, room)):
            return ()
        product = poly.mul_monom(m)
        self.columns[(labels, m)] = (product, kind)
        return set(sorted(product.keys(), reverse=True)) - self.seen  # product.monoms(): the ring's order is lex


def _highest(monomials):
    """Each variable's highest power among the monomials."""
    return [max(e) for e in zip(*monomials)]


def _product(labels, by_label, ring):
    out = ring.one
    for label in labels:
        out *= by_label[label].poly
    return out


def certify(tree, proof, extra=(), seconds=SECONDS):
    """(Algebra or None for each of a proved Proof's pieces, seconds taken): the identities of a proof whose
    claim is `tree`, from the library's facts and `extra` (a claim file's lemmas); the search shares `seconds`."""
    from verify.claims.prover import facts as library
    from verify.claims.prover.pieces import conjuncts

    started = time.perf_counter()
    if proof.status != "proved":
        return (), 0.0
    parts = conjuncts(tree)
    out = []
    for piece in proof.pieces:
        left = seconds - (time.perf_counter() - started)
        facts = [f for f in library.FACTS + tuple(extra) if f.id in piece.lemmas]
        out.append(_stated(parts[piece.part], piece.piece, facts, left) if left > 0 else None)
    return tuple(out), time.perf_counter() - started


def _stated(part, piece, facts, seconds):
    """find, or None where the identity's algebra cannot state the part (an index value such as n − k)."""
    from verify.claims.prover.pieces import NotEncodable

    try:
        return find(part, piece, facts, seconds)
    except NotEncodable:
        return None


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
