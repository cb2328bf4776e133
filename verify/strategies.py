"""Hypothesis strategies for property tests of claims about (z, H), in your own test suite: exact
probability vectors (coefficients down to e⁻⁷⁰⁰, ties, near-uniform), exactly SPD matrices with chosen
spectra in the three families, and whole cases. They are the strategies the search itself draws from
(verify.claims.search.strategies); see that module for what each draws.

    >>> from hypothesis import given
    >>> from verify.strategies import cases
    >>> @given(cases(min_n=2, max_n=6))
    ... def test_my_bound(case):
    ...     ...  # case.logits, case.H (rows): exact Fractions in a verify.claims.cases.case.Case
"""
from verify.claims.search.strategies import FAMILIES, cases, probability_vectors, spd_matrices, spectra

__all__ = ["FAMILIES", "cases", "probability_vectors", "spd_matrices", "spectra"]  # re-exported from the search
