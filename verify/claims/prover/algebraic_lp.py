"""The linear program behind the search for algebraic certificates, and the exact identity recovered from it.

Given candidate terms (columns: a polynomial each; "goal" columns are −multiplier·target), HiGHS finds
coefficients, nonnegative except for an equality's, making them sum to zero with the multiplier's
strictly positive part summing to 1 (and, for a strict target, some weight on strictly positive terms).
That floating-point answer is only a guess: its support's coefficients are rounded to small fractions,
or solved for exactly on the support, and kept only when the identity holds exactly over QQ
(verify.claims.prover.algebraic_check).
"""
from fractions import Fraction

from sympy import QQ

from verify.claims.prover.algebraic_check import Term, multiplier_polynomial, sums_to

TOLERANCE = 1e-9
ONE = Term(Fraction(1), (), ())


def solve(target, strict, columns, names, positive, hypotheses):
    """(multiplier terms, terms) making the identity hold exactly, or None."""
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
