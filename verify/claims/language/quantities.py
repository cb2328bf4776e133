"""One record per quantity of the claim language: its name, LaTeX, meaning, where its value comes
from, and what must be computed for it. The parser, the evaluators, the LaTeX printer, the prover
and the documentation all read this table; adding a quantity is adding a record here.

A plain name reads a field of the spectrum record (verify.numerics.curvature.CurvatureSpectrum) or
of the case (L, μ given in a case file); an indexed quantity z(k), j(k), lambda(k) reads the k-th
entry (largest first) of a series. Extreme names are items: z_max is z(1), j_min is j(n−1).
"""
from dataclasses import dataclass

from verify.claims.language.syntax import Index, Item, Name


@dataclass(frozen=True)
class Quantity:
    """A name of the claim language and how to get its value at one example (z, H)."""

    name: str
    latex: str
    meaning: str
    field: str = None  # the spectrum record's field (a plain quantity)
    series: str = None  # an indexed quantity: the spectrum's tuple, largest first
    last: Index = None  # an indexed quantity's largest index (its smallest is 1)
    needs: frozenset = frozenset()  # the work its value takes: "curvature" (J H J's extremes and H's constants),
    # "j" (every eigenvalue of J), "lam" (every eigenvalue of J H J); z and R take none
    positive: bool = True
    item: tuple = None  # an extreme name: the (series, index) it stands for


CURVATURE = frozenset({"curvature"})
SERIES = frozenset({"j", "lam"})  # needs beyond the extremes: every eigenvalue of J, of J H J
N_INDEX = Index(0, 1)  # n
N_MINUS_1 = Index(-1, 1)  # n − 1

QUANTITIES = (
    Quantity("n", "n", "the number of tokens (an integer ≥ 2)"),
    Quantity("z", "z", "z(k): the k-th largest attention coefficient z_(k), 1 ≤ k ≤ n", series="z_desc", last=N_INDEX),
    Quantity("j", "j", "j(k): the k-th largest positive eigenvalue of J(z) = diag(z) − zzᵀ, 1 ≤ k ≤ n − 1",
             series="j", last=N_MINUS_1, needs=frozenset({"j"})),
    Quantity("lambda", r"\lambda", "lambda(k): the k-th largest eigenvalue of J H J on T = 1^⊥, 1 ≤ k ≤ n − 1",
             series="lam", last=N_MINUS_1, needs=frozenset({"lam"}) | CURVATURE),
    Quantity("z_max", r"z_{\max}", "the largest coefficient, z(1)", item=("z", Index(1))),
    Quantity("z_min", r"z_{\min}", "the smallest coefficient, z(n)", item=("z", N_INDEX)),
    Quantity("j_max", r"j_{\max}", "the largest positive eigenvalue of J, j(1)", item=("j", Index(1)),
             needs=frozenset({"j"})),
    Quantity("j_min", r"j_{\min}", "the smallest positive eigenvalue of J, j(n − 1)", item=("j", N_MINUS_1),
             needs=frozenset({"j"})),
    Quantity("lambda_max", r"\lambda_{\max}", "the largest eigenvalue of J H J on T, lambda(1)", item=("lambda", Index(1)),
             needs=CURVATURE),
    Quantity("lambda_min", r"\lambda_{\min}", "the smallest eigenvalue of J H J on T, lambda(n − 1)",
             item=("lambda", N_MINUS_1), needs=CURVATURE),
    Quantity("kappa", r"\kappa", "the condition number λ_max/λ_min of J H J on T", field="kappa", needs=CURVATURE),
    Quantity("R", "R", "the coefficient ratio z_max/z_min", field="R"),
    Quantity("L_T", "L_T", "the largest eigenvalue of H on T (reading tangent-exact's L)", field="L_T",
             needs=CURVATURE),
    Quantity("mu_T", r"\mu_T", "the smallest eigenvalue of H on T (reading tangent-exact's μ)", field="mu_T",
             needs=CURVATURE),
    Quantity("L", "L", "λ_max(H) on Rⁿ, or the case file's L (reading ambient-bounds)", field="L_amb",
             needs=CURVATURE),
    Quantity("mu", r"\mu", "λ_min(H) on Rⁿ, or the case file's μ (reading ambient-bounds)", field="mu_amb",
             needs=CURVATURE),
)
CONSTANTS = {"pi": r"\pi", "e": "e"}
FUNCTIONS = {"sqrt": (1, 1), "log": (1, 1), "exp": (1, 1), "abs": (1, 1), "min": (2, 50), "max": (2, 50)}

BY_NAME = {q.name: q for q in QUANTITIES}
INDEXED = {q.name: q for q in QUANTITIES if q.series}
PLAIN = tuple(q.name for q in QUANTITIES if not q.series)


def canonical(node):
    """An extreme name as the item it stands for (z_max → z(1)); any other leaf unchanged."""
    if isinstance(node, Name) and node.id in BY_NAME and BY_NAME[node.id].item:
        series, index = BY_NAME[node.id].item
        return Item(series, index)
    return node


def needs(names):
    """What must be computed for a claim reading `names` (see Quantity.needs): a claim of z alone needs nothing
    but the coefficients, one of J alone only J's eigenvalues."""
    out = set()
    for name in names:
        quantity = BY_NAME.get(name)
        if quantity is not None:
            out |= quantity.needs
    return frozenset(out)


def index_bounds(series):
    """(first, last) of an indexed quantity: (1, n) for z, (1, n − 1) for j and lambda."""
    return Index(1), INDEXED[series].last


def latex_name(name):
    """LaTeX of a plain name or constant."""
    return BY_NAME[name].latex if name in BY_NAME else CONSTANTS[name]
