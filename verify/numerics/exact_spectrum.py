"""A case's quantities as exact algebraic numbers (verify.numerics.algebraic), for rational logits or z.

With logits s_i (rationals) write s_i − min s = a_i·g/q (q their common denominator, g the gcd of the
numerators): z_i = t^{a_i}/S, S = Σ t^{a_j}, t = e^{g/q}, so z lives in Q(t). (Given z: w_i rational, no t.)

- j: J = diag(z) − zzᵀ has, for each tie group of m equal coefficients ζ, the eigenvalue ζ m − 1 times
  (on e_i − e_j); the other eigenvalues on T are the k − 1 positive roots of the secular polynomial
  Π_g (x − ζ_g) + Σ_g m_g ζ_g² Π_{h≠g} (x − ζ_h) (k distinct coefficients), one strictly between each two
  consecutive ζ (F2). Their order is therefore known without numbers.
- lambda: J H J on T. H = aI + b11ᵀ gives λ(k) = a·j(k)² (J 1 = 0); otherwise the characteristic
  polynomial of S⁴·d·J H J (Berkowitz over Z[t], d H's common denominator) divided by x (J H J 1 = 0); the
  roots μζ² of tied pairs (z_i = z_j = ζ, H(e_i − e_j) = μ(e_i − e_j)) divided out as often as they divide exactly,
  the rest split into squarefree factors, whose real roots are isolated and ordered with multiplicity.
- L_T, mu_T, L, mu: eigenvalues of H compressed to T (P H P, P = I − 11ᵀ/n) and of H, rationals or real
  roots of the factors of their characteristic polynomials over Q (or the case's L, μ).
"""
import functools
import math
from fractions import Fraction

import flint

from verify.numerics.algebraic import Value
from verify.numerics.algebraic_roots import (CTX, MAX_BITS, ONE, START_BITS, ZERO, Field, Root, RootSet, T,
                                             Undecidable, X, x_coefficients, x_degree)
from verify.numerics.precision import Log

MAX_EXPONENT = 20_000  # z's exponents in t beyond this (logits far apart over a fine denominator): undecided


class ExactCase:
    """The exact quantities of one case, each computed on first use."""

    def __init__(self, logits, H, L=None, mu=None):
        self.n, self.H, self.given = len(logits), H, {"L": L, "mu": mu}
        self.field, self.w = _weights(logits)  # w in the tokens' order (H's rows)
        self.S = sum(self.w, ZERO)
        self.order = sorted(range(self.n), key=lambda i: _key(logits[i]), reverse=True)

    def rational(self, value):
        return Value.rational(self.field, value)

    # ------------------------------------------------ z, R
    @functools.cached_property
    def z_desc(self):
        return [Value(self.field, self.w[i], self.S) for i in self.order]

    def z(self, k):
        return self.z_desc[k - 1]

    @functools.cached_property
    def R(self):
        return Value(self.field, self.w[self.order[0]], self.w[self.order[-1]])

    # ------------------------------------------------ j
    @functools.cached_property
    def groups(self):
        """(w of the group, its size), largest coefficient first."""
        out = []
        for i in self.order:
            if out and out[-1][0] == self.w[i]:
                out[-1][1] += 1
            else:
                out.append([self.w[i], 1])
        return out

    @functools.cached_property
    def j_desc(self):
        S, groups = self.S, self.groups
        factors = [S * X - w for w, _ in groups]
        secular = S * math.prod(factors, start=ONE)
        for g, (w, m) in enumerate(groups):
            secular += m * w * w * math.prod((f for h, f in enumerate(factors) if h != g), start=ONE)
        secular = secular / X  # the root 0 (the vector 1, outside T)
        secular_roots, out = RootSet(self.field, secular), []
        for g, (w, m) in enumerate(groups):
            out += [Value(self.field, w, S)] * (m - 1)
            if g < len(groups) - 1:
                out.append(Value.of_root(secular_roots.root(g)))
        return out

    def j(self, k):
        return self.j_desc[k - 1]

    # ------------------------------------------------ lambda
    @functools.cached_property
    def lam_desc(self):
        a = _isotropic(self.H)
        if a is not None:
            return [self.rational(a) * v * v for v in self.j_desc]
        linear, rest = _divided(self._lam_polynomial(), self._tied_pair_factors())
        return _ordered(self.field, linear + _squarefree_factors(rest))

    def _tied_pair_factors(self):
        """The linear factors x − μζ² of the λ polynomial that tied pairs give, each once: for tokens i, j with
        w_i = w_j (z_i = z_j = ζ = w_i/S) on which H acts as μ, H(e_i − e_j) = μ(e_i − e_j), J(e_i − e_j) = ζ(e_i − e_j)
        and so J H J (e_i − e_j) = μζ² (e_i − e_j), a root in Q(t) that the squarefree factors would hide (diagonal H
        with paired ties). Written over Z[t]: the primitive part of S²·den(μ)·x − num(μ)·w_i²."""
        n, H, w, out = self.n, self.H, self.w, []
        for i in range(n):
            for j in range(i + 1, n):
                if w[i] == w[j] and H[i][i] == H[j][j] and all(H[k][i] == H[k][j] for k in range(n) if k not in (i, j)):
                    mu = Fraction(H[i][i] - H[i][j])
                    factor = (self.S ** 2 * mu.denominator * X - mu.numerator * w[i] ** 2).primitive()[1]
                    if factor not in out:
                        out.append(factor)
        return out

    def _lam_polynomial(self):
        if all(self.H[i][j] == 0 for i in range(self.n) for j in range(self.n) if i != j):
            return self._diagonal_lam_polynomial()
        n, w, S = self.n, self.w, self.S
        d = math.lcm(*(x.denominator for row in self.H for x in row))
        H = [[int(x * d) for x in row] for row in self.H]
        M = [[(S * w[i] if i == j else ZERO) - w[i] * w[j] for j in range(n)] for i in range(n)]  # S²·J
        MH = [[sum((M[i][k] * H[k][j] for k in range(n)), ZERO) for j in range(n)] for i in range(n)]
        N = [[sum((MH[i][k] * M[k][j] for k in range(n)), ZERO) for j in range(n)] for i in range(n)]  # d·S⁴·JHJ
        coefficients = berkowitz(N)  # det(yI − N), highest first; y = d·S⁴·x, and the root 0 removed
        scale = d * S ** 4
        out = ZERO
        for power, c in enumerate(reversed(coefficients[:-1])):
            out += c * scale ** power * X ** power
        return out

    def _diagonal_lam_polynomial(self):
        """For diagonal H = diag(h)/d, a polynomial with the same roots as `_lam_polynomial`'s in O(n²) products of
        sparse factors instead of Berkowitz's O(n⁴) of dense ones (6 s at 8 tokens with logits to −700): J H J =
        Λ − u zᵀ − z uᵀ + c z zᵀ with Λ = diag(u), u_i = h_i z_i²/d, c = Σ u_i, a diagonal plus a rank-2 term, so
        (Sylvester's determinant identity, then Cauchy–Binet on the 2×2 minors) with μ_i = h_i w_i² and y = d S² x,
        S²·det(y − d S² J H J) = S² Q + 2 S Σ μ_i w_i Q_i − (Σ μ) Σ w_i² Q_i − Σ_{i<j} (μ_i w_j − μ_j w_i)² Q_ij,
        Q = Π_k (y − μ_k), Q_i without the factor k = i, Q_ij without k = i, j; divided by y (J H J 1 = 0)."""
        n, w, S = self.n, self.w, self.S
        d = math.lcm(*(self.H[i][i].denominator for i in range(n)))
        mu = [int(self.H[i][i] * d) * w[i] * w[i] for i in range(n)]

        def without(*skipped):
            return math.prod((X - mu[k] for k in range(n) if k not in skipped), start=ONE)

        total = S * S * without() - sum(mu, ZERO) * sum((w[i] * w[i] * without(i) for i in range(n)), ZERO)
        total += 2 * S * sum((mu[i] * w[i] * without(i) for i in range(n)), ZERO)
        total -= sum(((mu[i] * w[j] - mu[j] * w[i]) ** 2 * without(i, j) for i in range(n) for j in range(i + 1, n)),
                     ZERO)
        in_y, scale = x_coefficients(total / X), d * S * S
        return sum((c * scale ** k * X ** k for k, c in in_y.items()), ZERO)

    def lam(self, k):
        return self.lam_desc[k - 1]

    @functools.cached_property
    def kappa(self):
        return self.lam_desc[0] / self.lam_desc[-1]

    # ------------------------------------------------ H
    @functools.cached_property
    def H_T(self):
        n = self.n
        P = _fmpq_mat([[Fraction(int(i == j)) - Fraction(1, n) for j in range(n)] for i in range(n)])
        compressed = P * _fmpq_mat(self.H) * P
        return _rational_eigenvalues(self.field, compressed, drop_zero=True)

    @functools.cached_property
    def H_eigenvalues(self):
        return _rational_eigenvalues(self.field, _fmpq_mat(self.H))

    def name(self, name):
        if name == "n":
            return self.rational(self.n)
        if name in ("L_T", "mu_T"):
            return self.H_T[0] if name == "L_T" else self.H_T[-1]
        if name in ("L", "mu"):
            if self.given[name] is not None:
                return self.rational(self.given[name])
            return self.H_eigenvalues[0] if name == "L" else self.H_eigenvalues[-1]
        if name == "kappa":
            return self.kappa
        if name == "R":
            return self.R
        raise Undecidable(name)

    def item(self, series, k):
        return {"z": self.z, "j": self.j, "lambda": self.lam}[series](k)


def _key(logit):
    return logit.of if isinstance(logit, Log) else logit


def _weights(logits):
    """(Field, w_i): z_i = w_i / Σ w, with w_i = t^{a_i} (rational logits) or integers (z given)."""
    if all(isinstance(v, Log) for v in logits):
        values = [Fraction(v.of) for v in logits]
        d = math.lcm(*(v.denominator for v in values))
        return Field(), [CTX.constant(int(v * d)) for v in values]
    low = min(logits)
    shifts = [Fraction(v - low) for v in logits]
    q = math.lcm(*(v.denominator for v in shifts))
    a = [int(v * q) for v in shifts]
    g = math.gcd(*a)
    if g == 0:
        return Field(), [ONE] * len(logits)
    a = [v // g for v in a]
    if max(a) > MAX_EXPONENT:
        raise Undecidable("logits too far apart for their common denominator")
    return Field(Fraction(g, q)), [T ** v for v in a]


def _isotropic(H):
    """a when H = aI + b11ᵀ exactly, else None."""
    n = len(H)
    diagonal, off = {H[i][i] for i in range(n)}, {H[i][j] for i in range(n) for j in range(n) if i != j}
    if len(diagonal) == 1 and len(off) <= 1:
        return next(iter(diagonal)) - (next(iter(off)) if off else 0)
    return None


def berkowitz(A):
    """det(xI − A) of a square matrix over a commutative ring, coefficients highest first (division-free)."""
    polynomial = [ONE]
    for k in range(len(A)):
        row, column = A[k][:k], [A[i][k] for i in range(k)]
        items, v = [ONE, -A[k][k]], column
        for _ in range(k):
            items.append(-sum((r * x for r, x in zip(row, v)), ZERO))
            v = [sum((A[i][m] * v[m] for m in range(k)), ZERO) for i in range(k)]
        polynomial = [sum((items[i - j] * polynomial[j] for j in range(len(polynomial)) if 0 <= i - j < len(items)),
                          ZERO) for i in range(k + 2)]
    return polynomial


def _divided(poly, linear):
    """([(factor, multiplicity)] of the linear factors that divide poly exactly, poly with them divided out)."""
    found = []
    for factor in linear:
        m = 0
        while True:
            quotient, remainder = divmod(poly, factor)  # one divisor: remainder 0 exactly when it divides
            if not remainder.is_zero():
                break
            poly, m = quotient, m + 1
        if m:
            found.append((factor, m))
    return found, poly


def _squarefree_factors(poly):
    """[(f, m)]: poly's factors of positive degree in x, squarefree, with their multiplicities: poly itself (its
    integer content removed) when `_certainly_squarefree`, else flint's squarefree factorisation (2 s for a
    polynomial of 8 tokens at logits to −700 that the certificate settles in 0.15 s)."""
    if x_degree(poly) == 0:
        return []
    if _certainly_squarefree(poly):
        return [(poly.primitive()[1], 1)]
    _, factors = poly.factor_squarefree()
    return [(f, m) for f, m in factors if x_degree(f) > 0]


def _certainly_squarefree(poly):
    """Whether poly(t₀, x) is squarefree over Q at an integer t₀ where poly's degree in x does not drop: then poly is
    squarefree in x over Q(t), since a factor g² of poly with g of degree ≥ 1 in x would leave g(t₀, x)², g(t₀, x) of
    the same degree (the leading coefficients multiply). False says nothing (unlucky t₀s, or a repeated root)."""
    degree = x_degree(poly)
    for t0 in (2, 3):
        at = poly.subs({"t": t0})
        if x_degree(at) != degree:
            continue
        dense = [0] * (degree + 1)
        for (_, ex), c in zip(at.monoms(), at.coeffs()):
            dense[int(ex)] = c
        f = flint.fmpz_poly(dense)
        if f.gcd(f.derivative()).degree() == 0:
            return True
    return False


def _ordered(field, factors):
    """The real roots of Π f^m (all real), largest first with multiplicity, as Values."""
    sets = [(RootSet(field, f), m) for f, m in factors]
    entries = [(roots, i, m, Root(field, roots.poly, roots.enclosure(i))) for roots, m in sets
               for i in range(x_degree(roots.poly))]
    bits = START_BITS
    while True:
        keyed = sorted(((roots.at(bits)[i], root, m) for roots, i, m, root in entries), key=lambda e: e[0].mid(),
                       reverse=True)
        if all(not a[0].overlaps(b[0]) for a, b in zip(keyed, keyed[1:])):
            break
        bits *= 2
        if bits > MAX_BITS:
            raise Undecidable("eigenvalues not separated within the precision limit")
    out = []
    for _, root, m in keyed:
        out += [Value.of_root(root)] * m
    return out


def _fmpq_mat(rows):
    return flint.fmpq_mat([[flint.fmpq(Fraction(x).numerator, Fraction(x).denominator) for x in row] for row in rows])


def _rational_eigenvalues(field, matrix, drop_zero=False):
    """The eigenvalues of a symmetric rational matrix, largest first (one 0 removed when drop_zero)."""
    chi = matrix.charpoly()
    if drop_zero:
        chi = chi // flint.fmpq_poly([0, 1])
    _, factors = chi.factor()
    polys = []
    for f, m in factors:
        numerator = f.numer()
        polys.append((sum((int(c) * X ** k for k, c in enumerate(numerator.coeffs())), ZERO), m))
    return _ordered(field, polys)
