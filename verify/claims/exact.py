"""Exact decisions at exact ties: where Arb balls cannot separate the two sides of a comparison because
they are equal, exact arithmetic can say so.

A case is exact when z is rational (given as z, or equal logits: the uniform vector) and H, L, μ are
rational (every case's are). Its quantities are then algebraic numbers: z(k) rational, and j(k),
lambda(k), L_T, mu_T, L, mu eigenvalues of rational matrices — of J, J H J and H on T in the basis
e_i − e_n, and of H — found as the real roots of their characteristic polynomials (SymPy's CRootOf,
exact). A comparison whose difference has minimal polynomial x is an exact tie, decided as a tie
(`<=` holds, `<` fails); any other difference is non-zero, and its sign is what SymPy's evalf gives
at the precision it certifies (`strict=True`). log and exp are left undecided (their values at
algebraic points are not algebraic), and so is anything beyond EXACT_MAX_N tokens or MAX_DEGREE.
The claim's meaning, definedness included, is the one fold of verify.claims.language.semantics,
interpreted here in exact algebraic numbers.
"""
import functools
from fractions import Fraction

from verify.claims.language.semantics import NONNEG, NONZERO, interpret, item_index, judge
from verify.claims.language.syntax import IndexValue, Item
from verify.numerics.precision import Log

EXACT_MAX_N = 6  # characteristic polynomials of degree ≤ 5 and their roots' minimal polynomials stay quick
MAX_DEGREE = 16  # a difference whose minimal polynomial may exceed this degree is left undecided
SIGN_DIGITS = 60
SIGN_MAX_DIGITS = 2000  # H's entries reach 1e±300, so a difference may cancel some 1200 digits


class Undecidable(Exception):
    """The exact route cannot decide this claim here (a transcendental value, a size beyond the limits)."""


class Undefined(Exception):
    """A division by an exact 0, the square root of a negative number: the claim is undefined (it fails)."""


def exact_z(case):
    """z as Fractions (largest first), or None when z is not rational (logits that are not all equal)."""
    logits = case.logits
    if all(isinstance(v, Log) for v in logits):
        total = sum(v.of for v in logits)
        z = [v.of / total for v in logits]  # a case file's z is renormalised, as softmax of ln z is
    elif len(set(logits)) == 1 and not isinstance(logits[0], Log):
        z = [Fraction(1, len(logits))] * len(logits)
    else:
        return None
    return sorted(z, reverse=True)


def decide_exactly(tree, case):
    """True / False when exact arithmetic decides the claim at the case (a tie included), else None."""
    exact = _exact_at(case) if case.n <= EXACT_MAX_N else None
    if exact is None:
        return None
    try:
        return exact.truth(tree)
    except Undefined:
        return False
    except (Undecidable, NotImplementedError, ValueError, TypeError, ArithmeticError):  # SymPy's refusals, overflow
        return None


@functools.lru_cache(maxsize=64)
def _exact_at(case):
    """The case's exact quantities (None when z is not exact), shared by every claim decided at it: the search
    decides a case for each claim."""
    z = exact_z(case)
    return None if z is None else _Exact(case, z)


class _Exact:
    """The claim's quantities at one exact case, computed on first use, and its truth value."""

    def __init__(self, case, z):
        import sympy as sp

        self.sp, self.case, self.n, self.z = sp, case, case.n, z
        self.spectra = {}  # eigenvalues by key (see `eigenvalues`)

    # ------------------------------------------------ quantities
    @functools.cached_property
    def matrices(self):
        """H, J and on_T (a matrix restricted or compressed to T, in the basis e_i − e_n), computed once."""
        sp, n = self.sp, self.n
        H = sp.Matrix(n, n, lambda i, j: sp.Rational(self.case.H[i][j].numerator, self.case.H[i][j].denominator))
        order = self._token_z()  # H's rows follow the tokens' order, so J's must too
        J = sp.diag(*order) - order * order.T
        B = sp.Matrix(n, n - 1, lambda i, j: 1 if i == j else (-1 if i == n - 1 else 0))  # e_i − e_n: a basis of T
        on_T = lambda A: (B.T * B).inv() * B.T * A * B  # A restricted to T (T invariant) or compressed to it
        return {"H": H, "J": J, "on_T": on_T}

    def _token_z(self):
        sp = self.sp
        logits = self.case.logits
        if all(isinstance(v, Log) for v in logits):
            total = sum(v.of for v in logits)
            values = [v.of / total for v in logits]
        else:
            values = [Fraction(1, self.n)] * self.n
        return sp.Matrix([sp.Rational(v.numerator, v.denominator) for v in values])

    def eigenvalues(self, key):
        """Eigenvalues, largest first: "j" (J on T), "lam" (J H J on T), "H_T" (H compressed to T), "H"."""
        if key not in self.spectra:
            m = self.matrices
            J, H, on_T = m["J"], m["H"], m["on_T"]
            matrix = {"j": lambda: on_T(J), "lam": lambda: on_T(J * H * J), "H_T": lambda: on_T(H), "H": lambda: H}[key]()
            x = self.sp.Symbol("x")
            roots = self.sp.Poly(matrix.charpoly(x).as_expr(), x).all_roots()
            self.spectra[key] = sorted(roots, key=lambda r: r.evalf(SIGN_DIGITS), reverse=True)
        return self.spectra[key]

    def name(self, name):
        sp = self.sp
        if name == "n":
            return sp.Integer(self.n)
        if name in ("L_T", "mu_T"):
            values = self.eigenvalues("H_T")
            return values[0] if name == "L_T" else values[-1]
        if name in ("L", "mu"):
            given = self.case.L if name == "L" else self.case.mu
            if given is not None:
                return sp.Rational(given.numerator, given.denominator)
            values = self.eigenvalues("H")
            return values[0] if name == "L" else values[-1]
        if name == "kappa":
            lam = self.eigenvalues("lam")
            return lam[0] / lam[-1]
        if name == "R":
            return sp.Rational(self.z[0]) / sp.Rational(self.z[-1])
        raise Undecidable(name)

    def item(self, series, k):
        if series == "z":
            return self.sp.Rational(self.z[k - 1])
        return self.eigenvalues({"j": "j", "lambda": "lam"}[series])[k - 1]

    # ------------------------------------------------ arithmetic: the one semantics, in exact algebraic numbers
    def value(self, node):
        return interpret(node, _ExactAlgebra(self))

    def sign(self, value):
        """The exact sign of an algebraic number: 0 when its minimal polynomial is x, else evalf's certified sign."""
        sp = self.sp
        value = sp.nsimplify(value) if value.is_Float else value
        if value.is_Rational:
            return int(bool(value > 0)) - int(bool(value < 0))
        if _degree_bound(value) > MAX_DEGREE:
            raise Undecidable("a minimal polynomial beyond MAX_DEGREE")
        x = sp.Symbol("x")
        polynomial = sp.Poly(sp.minimal_polynomial(value, x), x)
        if polynomial.degree() == 1 and polynomial.TC() == 0:
            return 0
        from sympy.core.evalf import PrecisionExhausted

        try:  # a non-zero number: evalf raises the precision (up to SIGN_MAX_DIGITS) until its sign is certain
            approximation = value.evalf(SIGN_DIGITS, strict=True, maxn=SIGN_MAX_DIGITS)
        except PrecisionExhausted:
            raise Undecidable("a non-zero difference smaller than evalf's precision") from None
        return 1 if approximation > 0 else -1

    # ------------------------------------------------ logic
    def truth(self, node):
        return judge(node, self, self.n)  # the connectives of the one semantics, in exact booleans

    def compare(self, node):
        sign = self.sign(self.value(node.left) - self.value(node.right))
        return {"<": sign < 0, "<=": sign <= 0, ">": sign > 0, ">=": sign >= 0, "==": sign == 0}[node.op]

    def negate(self, truth):
        return not truth

    def join(self, parts, every):
        return all(parts) if every else any(parts)

    def true(self):
        return True


class _ExactAlgebra:
    """The algebra of verify.claims.language.semantics in SymPy's exact algebraic numbers at one exact case:
    each definedness condition decided on the exact sign; log, exp and large powers are Undecidable."""

    def __init__(self, at):
        self.at, self.sp = at, at.sp

    def exact(self, value):
        return self.sp.Rational(value.numerator, value.denominator)

    def number(self, num):
        raise Undecidable("a number beyond the exact range")

    def constant(self, name):
        raise Undecidable(f"{name} is not algebraic")

    def leaf(self, node):
        if isinstance(node, Item):
            return self.at.item(node.name, item_index(node, self.at.n))
        if isinstance(node, IndexValue):
            return self.sp.Integer(node.index.at(self.at.n))
        return self.at.name(node.id)

    def require(self, kind, x):
        sign = self.at.sign(x)
        return sign != 0 if kind == NONZERO else sign >= 0 if kind == NONNEG else sign > 0

    def undefined(self):
        raise Undefined()

    def unknown(self):
        raise Undecidable("a power whose exponent's kind is not known")

    def is_undefined(self, value):
        return False

    def exponent_class(self, value, integer_valued):
        if not value.is_Rational:
            raise Undecidable("an exponent that is not rational")
        return bool(value.is_Integer), bool(value < 0)

    def neg(self, a):
        return -a

    def arithmetic(self, op, a, b):
        return a + b if op == "+" else a - b if op == "-" else a * b

    def divide(self, a, b, guard):
        return a / b

    def power(self, x, p, guard):
        if p.denominator > 2 or abs(p.numerator) > 16:
            raise Undecidable("a power beyond small rational exponents")
        return x ** self.sp.Rational(p.numerator, p.denominator)

    def power_of(self, x, p, is_integer, guard):
        return self.power(x, Fraction(int(p.p), int(p.q)), guard)

    def call(self, name, args, guard):
        if name == "abs":
            return args[0] if self.at.sign(args[0]) >= 0 else -args[0]
        if name in ("min", "max"):
            out = args[0]
            for arg in args[1:]:
                sign = self.at.sign(arg - out)
                out = arg if (sign < 0) == (name == "min") and sign != 0 else out
            return out
        raise Undecidable(f"{name} of an algebraic number")


def _degree_bound(value):
    """A bound on the degree of an algebraic number's minimal polynomial: the product of its atoms' degrees
    (each root of a polynomial, each square root)."""
    import sympy as sp

    bound = 1
    for root in value.atoms(sp.CRootOf):
        bound *= root.poly.degree()
    for power in value.atoms(sp.Pow):
        bound *= power.exp.q if power.exp.is_Rational else MAX_DEGREE + 1
    return bound


def exact_outcome(tree, case):
    """An Outcome (verify.claims.language.outcome) with margin exactly 0 that holds iff the claim is true at the
    case — decided, since its enclosure is one point — or None when exact arithmetic cannot decide it."""
    import flint

    from verify.claims.language.outcome import Outcome

    truth = decide_exactly(tree, case)
    if truth is None:
        return None
    zero = flint.arb(0)
    return Outcome(zero, zero, zero, strict=not truth)
