"""The fact library: the theorems a proof may cite (docs/spec.md §6), each stated in the claim language with
its domain (the token counts n it speaks of, the family of H it needs) and its source.

A fact is a theorem, not an observation: each has a source, and the test suite runs the
counterexample search on every fact and on its strengthened twin (its constants moved by 1e-9 in
the false direction), which must be refuted (tests/test_prover.py). `forall k in A..B: …` facts are
schemas: the prover instantiates them at the indices a claim reads. An "order" fact says a series
is non-increasing; the prover relates every pair of the series' entries a claim reads.

L and μ in a fact are the ambient constants (μI ≼ H ≼ LI on Rⁿ): the exact extreme eigenvalues of
H, or any valid bounds — every fact below holds for both, so a proof holds under either reading.
"""
import math
from dataclasses import dataclass, field

from fractions import Fraction

from verify.claims.language.parser import parse_fact
from verify.claims.language.syntax import children, names


@dataclass(frozen=True)
class Fact:
    """A cited theorem: id, its text in the claim language, domain, source, and (for an order fact) its series."""

    id: str
    text: str
    source: str
    n_range: tuple = (2, math.inf)
    family: str = "spd"  # spd: every family (isotropic and diagonal H are SPD too); isotropic: that family only
    order: str = None  # "z", "j" or "lambda" for a fact saying the series is non-increasing
    pivot: str = None  # a schema's subject: it is instantiated at the indices of this series a query reads
    reads: frozenset = None  # offered only to a claim reading one of these names (an identity kept out of other queries)
    tree: object = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        if self.tree is None:
            object.__setattr__(self, "tree", parse_fact(self.text, self.n_range))

    def applies(self, n_range, family):
        """Whether the fact holds on all of a claim's domain: its n range inside the fact's, its family inside."""
        lo, hi = n_range
        inside = self.n_range[0] <= lo and hi <= self.n_range[1]
        return inside and (self.family == "spd" or self.family == family)

    def applies_at(self, n, family):
        return self.n_range[0] <= n <= self.n_range[1] and (self.family == "spd" or self.family == family)

    @property
    def names(self):
        return names(self.tree)

    def offered_to(self, tree):
        """Whether a proof of `tree` is offered this fact (every fact, except one whose `reads` the claim misses)."""
        return self.reads is None or bool(self.reads & names(tree))


SIMPLEX = "elementary: Σ z = 1 with z sorted, z > 0 (the k largest coefficients are each ≥ z(k), the rest ≥ z_min)"
INTERLACING = ("interlacing for a rank-one modification of diag(z) (Golub, SIAM Review 15, 1973; Wilkinson, "
               "The Algebraic Eigenvalue Problem, 1965, §2.39)")
RAYLEIGH_J = "Courant–Fischer: the Rayleigh quotient of J at the projection of e_i on T"
CAUCHY = "Cauchy interlacing for a compression: H_T is H compressed to T (Horn & Johnson, Matrix Analysis, Thm 4.3.17)"
OSTROWSKI = ("Ostrowski, A quantitative formulation of Sylvester's law of inertia, PNAS 45 (1959): "
             "λ_k(J_T H_T J_T) = θ_k λ_k(H_T) with θ_k in [j_min², j_max²]")
RAYLEIGH_B = "Courant–Fischer: the Rayleigh quotients of B = J H J at the extreme eigenvectors of J in T"
TWO_TOKENS = "direct: for two tokens the space T is the line of (1, −1), so J and J H J each have one eigenvalue on it"
ISOTROPIC = "H = aI + b11ᵀ gives H_T = aI on T, so J H J = a J² on T"
DEFINITIONS = "definitions: the notation of Theorem 2"
LOEWNER = ("Loewner order on T: xᵀ J H J x = (Jx)ᵀ H (Jx) with Jx in T, so μ_T J² ≼ J H J ≼ L_T J² there, and "
           "Weyl's monotonicity (A ≼ B gives λ_k(A) ≤ λ_k(B); Horn & Johnson, Matrix Analysis, Cor. 4.3.12)")
TRACE_J = "the trace of J = diag(z) − z zᵀ is Σ z − Σ z² = 1 − Σ z², all of it on T (J 1 = 0)"
PDET_J = ("the product of J's eigenvalues on T is the sum of its principal (n−1)-minors, each (Π_{k≠i} z_k)(1 − Σ_{k≠i} "
          "z_k) = Π z (matrix determinant lemma), so it is n Π z")
J_NAMES = frozenset({"j", "j_max", "j_min"})  # Z3 gets lost in the degree-n identities below when a claim has no use for them
EXACT_N = range(2, 7)  # the trace and the pseudo-determinant are stated one n at a time, for these n


def _per_n(stem, source, statement):
    """A fact stated at each n of EXACT_N (a sum or product over every index is a fixed formula at one n)."""
    return tuple(Fact(f"{stem}.n{n}", statement(n), source, n_range=(n, n), reads=J_NAMES) for n in EXACT_N)


def _trace(n):
    return " + ".join(f"j({k})" for k in range(1, n)) + " == 1 - " + " - ".join(f"z({k})**2" for k in range(1, n + 1))


def _pseudo_determinant(n):
    return " * ".join(f"j({k})" for k in range(1, n)) + f" == {n} * " + " * ".join(f"z({k})" for k in range(1, n + 1))


FACTS = (
    Fact("F1.positive", "z_min > 0", SIMPLEX),
    Fact("F1.order", "forall k in 1..n-1: z(k+1) <= z(k)", "definition: z(k) is the k-th largest coefficient", order="z"),
    Fact("F1.mean", "z_min <= 1/n <= z_max", SIMPLEX),
    Fact("F1.below_one", "z_max < 1", SIMPLEX),
    Fact("F1.top", "forall k in 1..n: k*z(k) + (n-k)*z_min <= 1", SIMPLEX, pivot="z"),
    Fact("F1.bottom", "forall k in 1..n: (k-1)*z_max + (n-k+1)*z(k) >= 1", SIMPLEX, pivot="z"),
    # before F2's schemas: schemas are instantiated in this order, and F6.loewner adds the j(k) they then cover
    Fact("F6.loewner", "forall k in 1..n-1: mu_T * j(k)**2 <= lambda(k) <= L_T * j(k)**2", LOEWNER, pivot="lambda"),
    Fact("F2.interlacing", "forall k in 1..n-1: z(k+1) <= j(k) <= z(k)", INTERLACING, pivot="j"),
    Fact("F2.positive", "forall k in 1..n-1: j(k) > 0", "J is positive definite on T (F2 with z > 0)", pivot="j"),
    Fact("F2.order", "forall k in 1..n-2: j(k+1) <= j(k)", "definition: j(k) is the k-th largest positive eigenvalue of J",
         order="j"),
    Fact("F4.rayleigh", "forall k in 1..n: j_min <= z(k) * (1 - z(k)) * n / (n - 1) <= j_max", RAYLEIGH_J, pivot="z"),
    Fact("F5.cauchy", "mu <= mu_T <= L_T <= L", CAUCHY),
    Fact("F5.positive", "mu > 0", "H is positive definite, so μ > 0 (strong convexity)"),
    Fact("F6.positive", "forall k in 1..n-1: lambda(k) > 0",
         "J H J is positive definite on T: J maps T onto T one-to-one and H is positive definite", pivot="lambda"),
    Fact("F6.ostrowski_max", "j_min**2 * L_T <= lambda_max <= j_max**2 * L_T", OSTROWSKI),
    Fact("F6.ostrowski_min", "j_min**2 * mu_T <= lambda_min <= j_max**2 * mu_T", OSTROWSKI),
    Fact("F6.ostrowski_all", "forall k in 1..n-1: j_min**2 * mu_T <= lambda(k) <= j_max**2 * L_T", OSTROWSKI, pivot="lambda"),
    Fact("F6.order", "forall k in 1..n-2: lambda(k+1) <= lambda(k)", "definition: lambda(k) is the k-th largest eigenvalue",
         order="lambda"),
    Fact("F7.rayleigh", "lambda_max >= j_max**2 * mu_T and lambda_min <= j_min**2 * L_T", RAYLEIGH_B),
    Fact("F8.two_tokens", "j_max == 2 * z_max * z_min and L_T == mu_T and lambda_max == L_T * j_max**2", TWO_TOKENS,
         n_range=(2, 2)),
    Fact("F9.isotropic", "forall k in 1..n-1: lambda(k) == L_T * j(k)**2", ISOTROPIC, family="isotropic", pivot="lambda"),
    Fact("F9.flat", "L_T == mu_T", ISOTROPIC, family="isotropic"),
    Fact("F10.kappa", "kappa == lambda_max / lambda_min", DEFINITIONS),
    Fact("F10.ratio", "R == z_max / z_min", DEFINITIONS),
    *_per_n("F11.trace", TRACE_J, _trace),
    *_per_n("F11.pdet", PDET_J, _pseudo_determinant),
)
BY_ID = {fact.id: fact for fact in FACTS}


def applicable(n_range, family):
    """The facts that hold on all of a domain (a proof over it may cite them)."""
    return tuple(f for f in FACTS if f.applies(n_range, family))


TWIN_SHIFT = Fraction(1, 10**9)


def strengthened(tree):
    """The fact's twin with every comparison's constant moved by 1e-9 in the false direction (a ≤ b becomes
    a ≤ b·(1 − 1e-9), a ≥ b becomes a ≥ b·(1 + 1e-9), a = b becomes a = b·(1 + 1e-9)); None when a
    comparison is with 0, where a relative shift means nothing. A tight fact's twin is false somewhere."""
    from verify.claims.language.syntax import BinOp, Compare, Num, rebuild

    def shift(node):
        if isinstance(node, Compare):
            if node.right == Num(Fraction(0)) or node.left == Num(Fraction(0)):
                raise ValueError("a comparison with 0")
            factor = 1 - TWIN_SHIFT if node.op in ("<", "<=") else 1 + TWIN_SHIFT
            return Compare(node.left, node.op, BinOp("*", node.right, Num(factor)))
        return rebuild(node, [shift(child) for child in children(node)])

    try:
        return shift(tree)
    except ValueError:
        return None
