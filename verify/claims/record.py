"""The claim records and the readings of L and μ.

A *formula claim* is a statement in the claim language (verify.claims.language): its text, parsed
tree, hypotheses, domain (the token counts n and the family of H) and readings. A reading is a
substitution of names: under tangent-exact, L and μ are the extreme eigenvalues of H on T
(L → L_T, mu → mu_T); under ambient-bounds they are any constants with μI ≼ H ≼ LI on Rⁿ (the
extreme eigenvalues of H, or the case file's L and mu). The same record serves the search, case
mode, certificates and their check, the prover and the LaTeX export; built-in and user claims
alike. A *checker claim* (T2.multi, the Assumption 2 claims) is decided by its own checker.
"""
import hashlib
import json
import math
from dataclasses import dataclass, field
from typing import Callable

from verify.claims.language.parser import normalise, parse_claim
from verify.claims.language.syntax import names, rename
from verify.claims.language.text import to_text

TANGENT = "tangent-exact"
AMBIENT = "ambient-bounds"
READINGS = (TANGENT, AMBIENT)
SUBSTITUTIONS = {TANGENT: {"L": "L_T", "mu": "mu_T"}, AMBIENT: {}, None: {}}

READING_TEXT = {
    TANGENT: "L, μ are the extreme eigenvalues of H restricted to T = 1^⊥",
    AMBIENT: "L, μ are any constants with μI ≼ H ≼ LI on R^n (case mode: the extreme eigenvalues of H)",
}
FAMILIES = ("spd", "isotropic", "diagonal")
FAMILY_TEXT = {"spd": "H symmetric positive definite", "isotropic": "H = aI + b11ᵀ, a > 0, a + nb > 0",
               "diagonal": "H diagonal with positive entries"}
SEARCH_SPAN = 8  # the Hypothesis search covers n = lo..lo+8 of a wider range
SEARCH_CAP = 64  # the random pool reaches n = 64 (log-uniform in n, both ends included): a case there takes ~0.1 s


@dataclass(frozen=True)
class FormulaClaim:
    """A claim stated in the claim language, with its domain: n in n_range (hi may be math.inf) and H in
    `hessian`'s family; `readings` is (TANGENT, AMBIENT) for a claim about L and μ, else (None,)."""

    id: str
    statement: str
    text: str
    hypotheses: tuple = ()
    readings: tuple = (None,)
    n_range: tuple = (2, math.inf)
    hessian: str = "spd"
    command: str = "theorem2"
    search: tuple = None  # ((lo, hi) of the random pool, (lo, hi) of the Hypothesis search); default below
    tree: object = field(default=None, repr=False, compare=False)
    expect: object = field(default=None, compare=False)  # a claim file's stated expectation: True, False or None
    reason: str = field(default="", compare=False)  # why (a proof sketch, or a counterexample)
    lemma: bool = False  # a claim file's [[lemma]]: proved first, then citable by the claims after it
    source: str = ""  # a lemma's source (where its proof or statement comes from)
    assume: bool = False  # a lemma taken as given: a proof citing it is PROVED assuming it

    def as_fact(self):
        """A lemma as a fact the prover may cite (verify.claims.prover.facts.Fact), on the lemma's own domain."""
        from verify.claims.prover.facts import Fact

        return Fact(self.id, self.text, self.source or "the claim file", self.n_range, self.hessian, tree=self.tree)

    def __post_init__(self):
        if self.tree is None:
            object.__setattr__(self, "tree", parse_claim(self.text, self.n_range))

    @property
    def multi(self):
        return False

    @property
    def min_n(self):
        return self.n_range[0]

    @property
    def search_n(self):
        """The token counts of the random pool: `search`'s, else the claim's range cut at SEARCH_CAP."""
        if self.search:
            return self.search[0]
        lo, hi = self.n_range
        return lo, int(max(lo, min(hi, SEARCH_CAP)))

    @property
    def adversarial_n(self):
        """The token counts the Hypothesis search draws: `search`'s, else the claim's range cut at lo + 8."""
        if self.search:
            return self.search[1]
        lo, hi = self.n_range
        return lo, int(min(hi, lo + SEARCH_SPAN))

    def reading_tree(self, reading):
        return rename(self.tree, SUBSTITUTIONS[reading])

    def reading_text(self, reading):
        """The claim's text under a reading (tangent-exact: L, mu read as L_T, mu_T)."""
        return to_text(self.reading_tree(reading)) if SUBSTITUTIONS[reading] else normalise(self.text)

    @property
    def latex(self):
        from verify.claims.language.latex import claim_latex  # SymPy's printer: loaded on use

        return claim_latex(self.tree)

    def reading_latex(self, reading):
        from verify.claims.language.latex import claim_latex

        return claim_latex(self.reading_tree(reading))

    @property
    def names(self):
        return names(self.tree)

    def domain(self, reading=None):
        """The claim's domain as data: n range (None for ∞), family of H, reading."""
        lo, hi = self.n_range
        return {"n": [lo, None if hi == math.inf else int(hi)], "hessian": self.hessian, "reading": reading}

    def digest(self, reading=None):
        """SHA-256 of what the claim says: id, text under the reading, and domain (certificates store it)."""
        body = {"id": self.id, "text": self.reading_text(reading), "domain": self.domain(reading)}
        return hashlib.sha256(json.dumps(body, sort_keys=True).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CheckerClaim:
    """A claim decided by its own checker: T2.multi (several examples) and the Assumption 2 claims."""

    id: str
    statement: str
    latex: str
    hypotheses: tuple
    readings: tuple = (None,)
    checker: Callable = field(repr=False, default=None)  # (rng, settings) -> (outcome, evidence), A2 claims
    command: str = "theorem2"
    multi: bool = False
    min_n: int = 2


Claim = CheckerClaim  # the Assumption 2 records are built with this name


def in_family(H, family):
    """Whether H (exact rows) belongs to a family of H, decided exactly."""
    n = len(H)
    if family == "diagonal":
        return all(H[i][j] == 0 for i in range(n) for j in range(n) if i != j)
    if family == "isotropic":
        return all(H[i][j] == (H[0][0] if i == j else H[0][1]) for i in range(n) for j in range(n))
    return family in FAMILIES
