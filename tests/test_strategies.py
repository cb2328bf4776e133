"""verify.strategies: what they draw is what they promise (exact, SPD, on the simplex)."""
from fractions import Fraction

import mpmath as mp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.claims.cases.case import Case
from verify.numerics.secular import j_eigenvalues_mp
from verify.numerics.curvature import isotropic_on_tangent
from verify.strategies import FAMILIES, cases, probability_vectors, spd_matrices, spectra

FAST = settings(max_examples=30, deadline=None)


@FAST
@given(st.sampled_from(FAMILIES).flatmap(lambda family: cases(min_n=2, max_n=8, hessian=family)))
def test_cases_lie_on_the_simplex_with_exactly_symmetric_positive_definite_H(case):
    assert isinstance(case, Case) and 2 <= case.n <= 8
    with mp.workdps(50):
        top = max(case.logits)
        weights = [mp.exp(v - top) for v in case.logits]
        z = [w / mp.fsum(weights) for w in weights]
        assert abs(mp.fsum(z) - 1) < mp.mpf(10) ** -45 and min(z) > 0
        H = mp.matrix([list(row) for row in case.H])
        assert all(case.H[i][j] == case.H[j][i] for i in range(case.n) for j in range(case.n))
        mp.cholesky(H)  # raises ValueError unless positive definite


@FAST
@given(cases(min_n=2, max_n=8))
def test_j_eigenvalues_interlace_the_sorted_coefficients(case):
    with mp.workdps(40):
        top = max(case.logits)
        weights = [mp.exp(v - top) for v in case.logits]
        z = sorted((w / mp.fsum(weights) for w in weights), reverse=True)
        eigenvalues = j_eigenvalues_mp(list(case.logits), dps=30)
        slack = mp.mpf(10) ** -25
        for k in range(case.n - 1):
            assert z[k + 1] * (1 - slack) <= eigenvalues[k] <= z[k] * (1 + slack)
        assert eigenvalues[-1] == 0


@FAST
@given(probability_vectors(min_n=2, max_n=10, min_log=-700))
def test_probability_vectors_are_exact_logits_with_largest_zero(logits):
    assert all(isinstance(v, Fraction) for v in logits)
    assert max(logits) == 0 and min(logits) >= -700 - 1
    assert all(float(v) == v for v in logits)  # dyadic: exactly a float as well


@FAST
@given(probability_vectors(min_n=3, max_n=6, ties=False))
def test_without_ties_every_coefficient_is_distinct(logits):
    assert len(set(logits)) == len(logits)


def test_the_mix_reaches_ties_near_uniform_vectors_and_the_floor():
    seen = set()

    @settings(max_examples=200, deadline=None)
    @given(probability_vectors(min_n=3, max_n=5, min_log=-700))
    def probe(logits):
        if len(set(logits)) < len(logits):
            seen.add("ties")
        if 0 < -min(logits) < 1e-6:
            seen.add("near uniform")
        if min(logits) == -700:
            seen.add("floor")

    probe()
    assert seen == {"ties", "near uniform", "floor"}


@FAST
@given(st.integers(2, 6), st.data())
def test_spd_matrices_have_the_chosen_spectrum(n, data):
    spectrum = data.draw(st.lists(st.integers(1, 2**12), min_size=n, max_size=n))
    for family in ("spd", "diagonal"):
        H = data.draw(spd_matrices(n, family, spectrum))
        with mp.workdps(50):
            eigenvalues = sorted(mp.eigsy(mp.matrix([[mp.mpf(v.numerator) / v.denominator for v in row] for row in H]),
                                          eigvals_only=True))
            assert all(abs(a - b) < mp.mpf(10) ** -30 * b for a, b in zip(eigenvalues, sorted(spectrum)))


@FAST
@given(st.integers(2, 7), st.data())
def test_isotropic_matrices_are_recognised(n, data):
    case = data.draw(cases(min_n=n, max_n=n, hessian="isotropic"))
    a, b = isotropic_on_tangent(case.H)
    assert a > 0 and a + n * b > 0
    H = data.draw(spd_matrices(n, "isotropic", spectrum=(3, 3 + 2 * n)))
    assert H[0][0] == 5 and H[0][1] == 2


def test_bad_family_or_spectrum_is_refused():
    with pytest.raises(ValueError, match="family"):
        spd_matrices(3, "dense")
    with pytest.raises(ValueError, match="positive"):
        spd_matrices(2, "diagonal", spectrum=(1, -1))


BAD_ARGUMENTS = {
    "spectra([3])": lambda: spectra([3]),
    "spectra(low=0)": lambda: spectra(3, low=0),
    "spectra(high < low)": lambda: spectra(3, low=5, high=4),
    "spectra(high=0.5)": lambda: spectra(3, high=0.5),
    "cases([2])": lambda: cases([2]),
    "cases(max_n < min_n)": lambda: cases(5, 3),
    "cases(min_n=1)": lambda: cases(1, 3),
    "cases(hessian=[...])": lambda: cases(2, 3, hessian=["spd"]),
    "cases(ties=1)": lambda: cases(ties=1),
    "cases(max_n=10**6)": lambda: cases(2, 10**6),
    "probability_vectors(min_log=1)": lambda: probability_vectors(min_log=1),
    "probability_vectors(min_log=[0])": lambda: probability_vectors(min_log=[0]),
    "spd_matrices([2])": lambda: spd_matrices([2]),
    "spd_matrices(spectrum='ab')": lambda: spd_matrices(2, "diagonal", spectrum="ab"),
    "spd_matrices(spectrum=1/3)": lambda: spd_matrices(2, "spd", spectrum=(1, Fraction(1, 3))),
}


@pytest.mark.parametrize("call", list(BAD_ARGUMENTS))
def test_a_bad_strategy_argument_is_refused_when_called_and_writes_nothing(call, tmp_path, monkeypatch):
    import verify

    monkeypatch.chdir(tmp_path)
    with pytest.raises(verify.InputError) as caught:
        BAD_ARGUMENTS[call]()
    assert isinstance(caught.value, ValueError) and "\n" not in str(caught.value) and len(str(caught.value)) < 300
    assert not list(tmp_path.iterdir())


def test_drawing_an_example_writes_nothing_into_the_current_folder(tmp_path):
    import subprocess
    import sys

    from tests.conftest import ROOT

    env = {k: v for k, v in __import__("os").environ.items() if k != "HYPOTHESIS_STORAGE_DIRECTORY"}
    env.update(PYTHONPATH=ROOT, XDG_CACHE_HOME=str(tmp_path / "cache"))
    work = tmp_path / "work"
    work.mkdir()
    done = subprocess.run([sys.executable, "-c", "from verify.strategies import cases, spectra\n"
                           "print(spectra(3).example(), cases(2, 3).example().n)"],
                          cwd=work, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert not list(work.iterdir())


@settings(max_examples=40, deadline=None)
@given(cases(min_n=2, max_n=8))
def test_a_drawn_cases_repr_rebuilds_it_with_make_case(case):
    """A failing example's repr is what a user copies to reproduce it: `make_case(...)` with every number exact (the
    repr cut H's rows with "…", so a failing case could not be rebuilt from Hypothesis's report)."""
    import ast

    from verify import make_case

    call = ast.parse(repr(case), mode="eval").body
    assert isinstance(call, ast.Call) and call.func.id == "make_case", repr(case)[:200]
    rebuilt = make_case(**{keyword.arg: ast.literal_eval(keyword.value) for keyword in call.keywords})
    assert rebuilt.logits == case.logits and rebuilt.H == case.H


@FAST
@given(st.data())
def test_logit_cases_draw_the_logits_probability_vectors_draws_with_h_the_identity(data):
    from verify.claims.search.strategies import logit_cases

    case = data.draw(logit_cases(3, 7, -700))
    assert 3 <= case.n <= 7 and max(case.logits) == 0 and min(case.logits) >= -701
    assert case.H == tuple(tuple(Fraction(int(i == k)) for k in range(case.n)) for i in range(case.n))


@pytest.mark.parametrize("text, drawn_h", [("z_max >= 1/6", False), ("j_min * n >= R / 10**9", False),
                                           ("kappa >= 1", True), ("lambda_min <= mu_T * z_max**2", True)])
def test_the_search_draws_h_only_for_a_claim_that_reads_it(text, drawn_h, monkeypatch):
    """A claim of z, J, R and n alone is searched over logits with H = I (a drawn H would only slow the draws); a
    claim that reads curvature over drawn matrices of its family."""
    from verify.claims.claimfile import parse_claims_text
    from verify.claims.jobs import Job
    from verify.claims.search import engine

    seen, decide = [], engine.Decider.decide
    monkeypatch.setattr(engine.Decider, "decide", lambda self, job, case: seen.append(case.H) or decide(self, job, case))
    job = Job(parse_claims_text(f'[[claim]]\nid = "c"\nholds = "{text}"\nn = [2, 8]\n')[0])
    engine.run_adversarial(job, 0, 30, 20)
    identity = [H == tuple(tuple(int(i == k) for k in range(len(H))) for i in range(len(H))) for H in seen]
    assert seen and (not all(identity) if drawn_h else all(identity))
