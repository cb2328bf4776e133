"""A formula claim under one reading, as the search engine sees it (built-in and user claims alike)."""
import functools
from dataclasses import dataclass

from verify.claims.language.quantities import CURVATURE, needs
from verify.claims.language.syntax import names


@dataclass(frozen=True)
class Pool:
    """How a job's random cases are drawn: token counts and the family of H."""

    n_range: tuple = (2, 10)
    family: str = "spd"


@dataclass(frozen=True)
class Job:
    """A FormulaClaim under one reading: the tree it decides, where it searches, what it must compute."""

    claim: object
    reading: object = None
    lemmas: tuple = ()  # the claim file's lemmas a proof may cite (Facts), proved or assumed before this claim
    assumed: tuple = ()  # (lemma id, the assumed lemmas it rests on): those taken as given, or proved from them

    @property
    def label(self):
        return f"{self.claim.id} {self.reading or ''}".strip()

    @functools.cached_property
    def tree(self):
        return self.claim.reading_tree(self.reading)

    @functools.cached_property
    def text(self):
        return self.claim.reading_text(self.reading)

    @property
    def min_n(self):
        return self.claim.n_range[0]

    @property
    def max_n(self):
        return self.claim.n_range[1]

    @property
    def family(self):
        return self.claim.hessian

    @property
    def pool(self):
        return Pool(tuple(self.claim.search_n), self.claim.hessian)

    @property
    def n_range(self):  # the Hypothesis search's token counts
        return tuple(self.claim.adversarial_n)

    @functools.cached_property
    def needs(self):
        """Series beyond the extremes this claim reads ("j", "lam")."""
        return needs(names(self.tree))

    @property
    def reads_h(self):
        """Whether the claim reads anything of H (curvature, L, μ): one that does not holds or fails alike at every H,
        and the search tries it at H = I alone."""
        return bool(CURVATURE & self.needs)

    def applies(self, case):
        return self.min_n <= case.n <= self.max_n

