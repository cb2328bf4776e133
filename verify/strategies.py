"""Hypothesis strategies for property tests of claims about (z, H), in your own test suite: exact
probability vectors (coefficients down to e⁻⁷⁰⁰, ties, near-uniform), exactly SPD matrices with chosen
spectra in the three families, and whole cases. They are the strategies the search itself draws from
(verify.claims.search.strategies); see that module for what each draws. Each checks its arguments when called
(a list where a number belongs, a lower bound of 0, an unknown family: a StrategyError, which is an InputError
and a ValueError), before Hypothesis draws anything.

Importing this module points Hypothesis's own folder (where `.example()` and `@given` keep their files) at
`~/.cache/verify/hypothesis` (or `$XDG_CACHE_HOME/verify/hypothesis`) unless you set one yourself
(`HYPOTHESIS_STORAGE_DIRECTORY`, or `hypothesis.configuration.set_hypothesis_home_dir` before the import): nothing
is written into the current folder.

    >>> from hypothesis import given
    >>> from verify.strategies import cases
    >>> @given(cases(min_n=2, max_n=6))
    ... def test_my_bound(case):
    ...     ...  # case.logits, case.H (rows): exact Fractions in a verify.claims.cases.case.Case
"""
from verify.claims.search.sampling import use_cache_folder_by_default
from verify.claims.search.strategies import FAMILIES, StrategyError, cases, probability_vectors, spd_matrices, spectra

__all__ = ["FAMILIES", "StrategyError", "cases", "probability_vectors", "spd_matrices", "spectra"]  # from the search

use_cache_folder_by_default()
