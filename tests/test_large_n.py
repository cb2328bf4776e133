"""What keeps n = 1000 within its budget (benchmarks/large_n.py measures the CPU): the corners beyond SCALE_N tokens at
one n and scaled, no curvature computed for a claim of z or J alone, the search's stages beyond LAM_PRECISE_N tokens
(no dense precise path), a bound on the pieces of a claim's n range, and `spectrum`'s κ by case mode's path."""
import math
from fractions import Fraction

import pytest

import verify
from verify.claims.language.outcome import FAILS
from verify.claims.search import sampling
from verify.claims.search.engine import LAM_PRECISE_N, Decider


def test_corners_beyond_scale_n_are_one_n_and_scaled():
    small = sampling.corner_cases((2, 10))
    assert {case.n for case in small} == {2, 3, 4} and len(small) == 3 * 3 * 4
    large = sampling.corner_cases((1000, math.inf))
    assert {case.n for case in large} == {1000}
    assert 1 <= len(large) == sampling.scaled(3 * 4, 1000)
    first = large[0]  # the classic tie first: uniform z, H = I
    assert set(first.logits) == {Fraction(0)} and all(first.H[i][i] == 1 for i in range(3))


def test_a_claim_of_z_or_j_alone_computes_no_curvature():
    from verify.claims.language.values import float_spectrum

    case = verify.make_case(logits=[0, -1, -2], H=[[2, 0, 0], [0, 3, 0], [0, 0, 4]])
    alone = float_spectrum(case, frozenset({"j"}))
    assert alone.lambda_max is None and alone.L_T is None and len(alone.j) == 2
    assert float(alone.R) == pytest.approx(math.e ** 2)
    full = float_spectrum(case, frozenset({"curvature"}))
    assert full.lambda_max is not None and float(full.z_desc[0]) == pytest.approx(float(alone.z_desc[0]))


def test_the_search_s_stages_beyond_the_dense_paths_reach():
    big = sampling.random_case(0, 2, (LAM_PRECISE_N + 1, LAM_PRECISE_N + 1))
    small = sampling.random_case(0, 2, (LAM_PRECISE_N, LAM_PRECISE_N))
    assert Decider(50, {"lam", "curvature"}).stages(big) == ("float",)
    assert Decider(50, {"curvature"}).stages(big) == ("float", "enclosure")
    assert Decider(50, {"j"}).stages(big) == ("float", "balls")
    assert Decider(50, {"lam", "curvature"}).stages(small) == ("float", 50, 100, "balls")


def test_the_enclosure_stage_decides_a_curvature_claim_rigorously():
    """At n = 60 a claim the float64 stage leaves tight (the corner H = I, uniform z: λ_min = μ_T z_max² exactly)
    goes to case mode's enclosure, whose balls decide it or leave it tight, never FAILS."""
    from verify.claims.jobs import Job

    claim = verify.load_claims('[[claim]]\nid = "a"\nholds = "lambda_min <= mu_T * z_max**2"\nn = [60, 60]\n')[0]
    job = Job(claim, None)
    case = sampling.corner_cases((60, 60))[0]
    decision = Decider(30, job.needs).decide(job, case)
    assert decision.status != FAILS and decision.stage in ("float", "enclosure")


def test_a_claim_cut_into_too_many_pieces_is_not_attempted_by_the_prover():
    from verify.claims.prover.pieces import MAX_PIECES
    from verify.claims.prover.prove import prove

    claim = verify.load_claims('[[claim]]\nid = "a"\nholds = "z(500) <= z(n-499) + 1"\nn = [500, 1000]\n')[0]
    proof = prove(claim.tree, claim.n_range)
    assert proof.status == "not attempted" and f"more than the {MAX_PIECES}" in proof.reason


def test_spectrum_s_kappa_agrees_with_the_curvature_spectrum():
    case = verify.make_case(logits=["0", "-1", "-3.5", "-7"], H=[[4, 1, 0, 0], [1, 3, 1, 0], [0, 1, 2, 0],
                                                                  [0, 0, 0, 5]])
    report = verify.j_spectrum(case, 40)
    with __import__("mpmath").workdps(40):
        assert abs(report.kappa_JHJ / verify.curvature_spectrum(case, 40).kappa - 1) < 1e-35


def test_a_case_held_as_float64_builds_its_fractions_only_when_read_and_equals_its_fraction_form():
    """Random, corner and drawn cases keep a float64 H (exact values): no n² Fractions unless `H` is read; hash and
    equality agree with the same case built from Fractions, survive pickling, and tell different cases apart."""
    import pickle

    import numpy as np

    from verify.claims.cases.case import Case

    lazy = sampling.random_case(0, 2, (60, 60))
    assert "H" not in vars(lazy) and lazy.has_H and not lazy.exact_H_float().flags.writeable
    twin = Case.with_float_H(lazy.logits, lazy.exact_H_float())
    assert twin == lazy and hash(twin) == hash(lazy) and "H" not in vars(twin)  # compared as arrays
    rows = tuple(tuple(Fraction(v) for v in row) for row in lazy.exact_H_float().tolist())
    eager = Case(lazy.logits, rows)
    assert hash(eager) == hash(lazy) and eager == lazy and lazy == eager
    assert lazy.H == rows and all(type(v) is Fraction for row in lazy.H for v in row)
    moved = np.array(lazy.exact_H_float())
    moved[5, 7] = moved[7, 5] = np.nextafter(moved[5, 7], 1.0)  # one ulp off the first row and the diagonal
    other = Case.with_float_H(lazy.logits, moved)
    assert other != lazy and other != eager and Case(lazy.logits, other.H) != lazy
    thawed = pickle.loads(pickle.dumps(twin))
    assert thawed == lazy and hash(thawed) == hash(lazy) and thawed.H == rows
    assert Case.from_arrays([0, -1], [[2, 1], [1, 3]]).H == ((2, 1), (1, 3))  # integers float64 holds: exact too
    big = Case.from_arrays([0, -1], [[2**60 + 1, 0], [0, 1]])  # beyond 2⁵³: kept as Fractions
    assert big.exact_H_float() is None and big.H[0][0] == 2**60 + 1


def test_positive_definiteness_of_float64_rows_whose_zeros_scaling_would_amplify():
    """H given as float64 values (case mode's path for a float64 case) with zeros beside a tiny diagonal: the
    entries that scaling makes unsafe are converted again from the exact values (floats taken exactly)."""
    import numpy as np

    from verify.numerics.definite import positive_definite

    H = np.diag([1e-300, 1e-20, 3.0])
    assert positive_definite(H.tolist(), floats=H) is True
    H[1, 2] = H[2, 1] = 1.0  # the minor 1e-20 · 3 − 1 < 0
    assert positive_definite(H.tolist(), floats=H) is False


def test_the_command_runs_one_blas_thread_per_process_unless_told_otherwise():
    import os
    import subprocess
    import sys

    show = "import verify.commandline, os; print(os.environ['OPENBLAS_NUM_THREADS'])"
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    assert subprocess.run([sys.executable, "-c", show], env=env, capture_output=True, text=True).stdout.strip() == "1"
    env["OPENBLAS_NUM_THREADS"] = "2"
    assert subprocess.run([sys.executable, "-c", show], env=env, capture_output=True, text=True).stdout.strip() == "2"


@pytest.mark.parametrize("holds", ["lambda_min <= mu_T * z_max**2", "forall k in 1..n-1: z(k+1) <= j(k) <= z(k)",
                                   "lambda(59) >= mu_T * z_min**2"])
def test_deciding_a_large_random_or_drawn_case_builds_no_fractions_of_h(holds):
    """Beyond LAM_PRECISE_N tokens every stage reads H's float64 array (the enclosure takes it as it is): the n² rows of
    Fractions, seconds at n = 1000, are never built, whatever the claim reads."""
    from hypothesis import given, settings

    from verify.claims.jobs import Job
    from verify.claims.search.strategies import cases

    job = Job(verify.load_claims(f'[[claim]]\nid = "a"\nholds = "{holds}"\nn = [60, 60]\n')[0], None)
    decider = Decider(30, job.needs)
    for case in [sampling.random_case(0, 2, (60, 60)), sampling.corner_cases((60, 60))[0]]:
        decider.decide(job, case)
        assert "H" not in vars(case)

    @settings(max_examples=3, database=None, deadline=None)
    @given(cases(min_n=60, max_n=60))
    def drawn(case):
        if case.exact_H_float() is not None:
            decider.decide(job, case)
            assert "H" not in vars(case)

    drawn()


def test_a_claims_decision_does_not_depend_on_the_other_claims_of_its_unit():
    """The random units decide every claim of a pool with one Decider whose float64 points carry what any of them
    reads; the later stages follow each claim's own needs. A claim of z alone, exactly tight at a case beyond
    LAM_PRECISE_N tokens, is decided in balls (tight: it holds) beside a claim reading λ(k), not left undecided as
    a float64 estimate (its verdict was HOLDS alone and INCONCLUSIVE in a file with such a claim)."""
    from verify.claims.jobs import Job
    from verify.claims.language.outcome import TIGHT

    z_only, lam_k = (Job(claim, None) for claim in verify.load_claims(
        '[[claim]]\nid = "zsum"\nholds = "z_max + z(2) + (n - 2) * z_min <= 1"\n\n'
        '[[claim]]\nid = "lamk"\nholds = "forall k in 1..n-1: lambda(k) <= L * z(k)**2"\n'))
    n = LAM_PRECISE_N + 16
    case = verify.make_case(logits=["0"] + ["-700"] * (n - 1), H=[[int(i == j) for j in range(n)] for i in range(n)])
    alone = Decider(30, z_only.needs).decide(z_only, case)
    beside = Decider(30, z_only.needs | lam_k.needs).decide(z_only, case)
    assert alone.status == beside.status == TIGHT and alone.stage == beside.stage != "float"


def test_decide_on_case_estimates_an_eigenvalue_beyond_the_dense_paths_reach():
    """λ(k) beyond LAM_PRECISE_N tokens: the search's float64 stage, not a dense precise path (7 s at n = 100, over
    a minute at 300, for a newcomer's graded case); not rigorous, and shown only to the digits the estimate vouches for."""
    import random
    import re

    rng = random.Random(1)
    n = 2 * LAM_PRECISE_N + 4
    case = verify.make_case(logits=[str(-rng.randint(0, 700)) for _ in range(n)],
                            H=[[int(i == j) for j in range(n)] for i in range(n)])
    holds, fails = verify.decide_on_case("lambda(2) >= 0", case), verify.decide_on_case("lambda(2) >= 1", case)
    assert holds.decided and holds.holds and not holds.rigorous
    assert fails.decided and not fails.holds and not fails.rigorous
    for text in [holds.margin, fails.margin, *(value for _, value in holds.values)]:
        assert len(re.sub(r"e.*|[^0-9]", "", text).lstrip("0")) <= 15, text  # no float64 estimate shown to 20 digits


def test_an_estimate_with_an_unbounded_error_is_shown_without_a_flint_error():
    """Beyond LAM_PRECISE_N tokens a small eigenvalue's float64 error can be unbounded (and λ(1), λ(n−1) NaN balls):
    the digits shown were computed from that error and raised flint's `man_exp requires an exact, finite value`."""
    import numpy as np

    n = LAM_PRECISE_N + 2
    Q, _ = np.linalg.qr(np.random.default_rng(1).standard_normal((n, n)))
    H = (Q * np.logspace(0, -11, n)) @ Q.T
    case = verify.make_case(logits=[-(i % 5) * 0.7 for i in range(n)], H=((H + H.T) / 2).tolist())
    for text in (f"lambda({n - 1}) <= 0", "lambda(1) >= 0"):
        result = verify.decide_on_case(text, case)
        assert not result.rigorous and isinstance(result.margin, str)
