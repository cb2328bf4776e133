"""Rigorous case-mode enclosures (verify.numerics.enclosures.enclose_case) against an independent dense mpmath
reference: the ball path up to 16 tokens, the Kato–Temple path beyond (recomputed on the ball path where
a cluster at an end of a spectrum leaves it short).

The reference shares nothing with the library but the mathematics: J H J is
projected onto T with the explicit Helmert orthonormal basis Q and solved with
mp.eigsy at ≥ 100 digits; λ_min also by the inverse route
1/λ_max((QᵀD⁻¹Q)(QᵀHQ)⁻¹(QᵀD⁻¹Q)) (QᵀD⁻¹Q = (QᵀJQ)⁻¹), which keeps its relative
accuracy for κ up to 1e600.
"""
from fractions import Fraction

import flint
import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.base.errors import InputError
from verify.numerics.enclosures import ball_json, digits_of, enclose_case
from verify.numerics.precision import Log
from tests.dense_reference import exact_mpf, helmert

REF_DPS = 100
QUANTITIES = ("lambda_max", "lambda_min", "kappa", "L_T", "mu_T", "L_amb", "mu_amb", "R")


def enclose_curvature(logits, H, dps=30, z=None):
    """The case-mode enclosure's spectrum (coefficients given as z become Log(z))."""
    log_z = logits if z is None else [Log(Fraction(v) if not isinstance(v, mp.mpf) else _fraction(v)) for v in z]
    spectrum, bits, method = enclose_case(log_z, H, dps)
    assert bits > 0 and method
    return spectrum


def _fraction(x):
    sign, man, exp, _ = x._mpf_
    value = Fraction(int(man)) * Fraction(2) ** exp
    return -value if sign else value


def min_digits(spectrum):
    return min(digits_of(spectrum).values())


def _extremes(M):
    values = sorted(mp.eigsy(M, eigvals_only=True))
    return values[-1], values[0]


def reference(H, logits=None, z=None, dps=REF_DPS, direct_extra=0):
    """Dense mpmath values of every quantity (z sorted descending)."""
    n = len(H)
    with mp.workdps(dps + direct_extra):
        if z is None:
            s = [exact_mpf(v) for v in logits]
            top = max(s)
            e = [mp.exp(v - top) for v in s]
        else:
            e = [exact_mpf(v) for v in z]
        total = mp.fsum(e)
        zz = [v / total for v in e]
        Hm = mp.matrix([[exact_mpf(v) for v in row] for row in H])
        Q = helmert(n)
        J = -mp.matrix(zz) * mp.matrix(zz).T
        for k in range(n):  # J_kk = z_k Σ_{j≠k} z_j: no cancellation when z_k is within 1e-400 of 1
            J[k, k] = zz[k] * mp.fsum(e[j] for j in range(n) if j != k) / total
        lam_max, lam_min_direct = _extremes(Q.T * J * Hm * J * Q)
        HT = Q.T * Hm * Q
        L_T, mu_T = _extremes(HT)
        L, mu = _extremes(Hm)
        Jinv = Q.T * mp.diag([1 / v for v in zz]) * Q
        inv_top, _ = _extremes(Jinv * mp.inverse(HT) * Jinv)
        lam_min = 1 / inv_top
        zs = sorted(zz, reverse=True)
        out = dict(lambda_max=lam_max, lambda_min=lam_min, L_T=L_T, mu_T=mu_T, L_amb=L, mu_amb=mu,
                   kappa=lam_max / lam_min, R=zs[0] / zs[-1], z=zs, lambda_min_direct=lam_min_direct)
        return {k: (+v if not isinstance(v, list) else [+w for w in v]) for k, v in out.items()}


def _ball_of(value, rel):
    """arb ball around an mpf reference with relative radius rel (its own error)."""
    man, exp = value.man_exp
    mid = flint.arb(flint.arf((int(man), int(exp))))
    with flint.ctx.workprec(4000):
        return flint.arb(mid, abs(mid) * flint.arb(rel))


def assert_encloses(r, ref, ref_rel=mp.mpf(10) ** (-REF_DPS + 15)):
    for name in QUANTITIES:
        ball = getattr(r, name)
        assert ball.overlaps(_ball_of(ref[name], ref_rel)), (name, ball, mp.nstr(ref[name], 40))
    for got, want in zip(r.z_desc, ref["z"]):
        assert got.overlaps(_ball_of(want, ref_rel))


def contains_rational(ball, p, q):
    """The ball contains the exact rational p/q (checked as ball·q ∋ p at high precision)."""
    with flint.ctx.workprec(2000):
        return (ball * q).contains(flint.arb(p))


def random_spd(rng, n):
    A = rng.standard_normal((n, n))
    H = A @ A.T / n + 0.5 * np.eye(n)
    return 0.5 * (H + H.T)


@pytest.mark.parametrize("seed,n", [(0, 3), (1, 5), (2, 8), (3, 12)])
def test_random_spd_cases_contain_the_reference(seed, n):
    rng = np.random.default_rng(seed)
    H = random_spd(rng, n)
    logits = rng.uniform(-60, 5, n).tolist()
    r = enclose_curvature(logits, H, dps=30)
    assert_encloses(r, reference(H.tolist(), logits))
    assert min_digits(r) >= 30, digits_of(r)


def test_forty_tokens_kappa_1e487():
    n = 40
    rng = np.random.default_rng(40)
    A = rng.standard_normal((n, n))
    H = A @ A.T / 40 + np.eye(n)
    H = 0.5 * (H + H.T)
    logits = np.linspace(-575, 0, n).tolist()
    r = enclose_curvature(logits, H, dps=30)
    ref = reference(H.tolist(), logits)
    assert 480 < float(mp.log10(ref["kappa"])) < 495
    assert_encloses(r, ref)
    assert min_digits(r) >= 30, digits_of(r)


@pytest.mark.parametrize("given_as", ["fraction", "mpf"])
def test_coefficients_of_1e_400_given_directly(given_as):
    tiny = [Fraction(1, 10**400), Fraction(3, 10**400), Fraction(7, 10**401)]
    z = [1 - sum(tiny)] + tiny
    if given_as == "mpf":
        with mp.workdps(40):
            z = [mp.mpf(v.numerator) / v.denominator for v in z]  # exact binary values from here on
    rng = np.random.default_rng(7)
    H = random_spd(rng, 4)
    r = enclose_curvature(None, H, dps=30, z=z)
    assert_encloses(r, reference(H.tolist(), z=[Fraction(v) if given_as == "fraction" else v for v in z]))
    assert min_digits(r) >= 30
    assert r.z_desc[-1] < flint.arb("1e-400")


def test_logits_minus_1000_and_log_of_fraction():
    rng = np.random.default_rng(8)
    H = random_spd(rng, 5)
    with mp.workdps(60):
        logits = [mp.mpf(0), mp.mpf(-1000), mp.log(mp.mpf(10) ** -400), mp.mpf(-3), mp.mpf("-999.5")]
    r = enclose_curvature(logits, H, dps=30)
    assert_encloses(r, reference(H.tolist(), logits))
    assert min_digits(r) >= 30


def test_isotropic_decimal_strings_give_L_T_exactly():
    n = 5
    H = [["1.1" if i == j else "0.7" for j in range(n)] for i in range(n)]
    logits = ["0", "-1.5", "-30", "-2", "-100"]
    r = enclose_curvature(logits, H, dps=30)
    assert contains_rational(r.L_T, 2, 5) and contains_rational(r.mu_T, 2, 5)
    assert digits_of(r)["L_T"] >= 30
    assert_encloses(r, reference(H, logits))
    assert min_digits(r) >= 30


def test_tie_case_two_tokens():
    H = [["1.4", "0.1"], ["0.1", "1.4"]]
    r = enclose_curvature(["0", "0"], H, dps=30)
    for ball in (r.L_T, r.mu_T):
        assert contains_rational(ball, 13, 10) and digits_of(r)["L_T"] >= 30
    assert_encloses(r, reference(H, ["0", "0"]))
    # J = diag(½,½) − ¼11ᵀ: on T its eigenvalue is ½, so λ = 1.3/4 = κ·λ_min, κ = 1
    assert contains_rational(r.lambda_max, 13, 40) and r.kappa.contains(1)


def test_near_identity_diagonal_interlacing_decided_by_the_balls():
    diag = [f"1.000000000000000000000{k}" for k in range(1, 7)]
    H = [[diag[i] if i == j else "0" for j in range(6)] for i in range(6)]
    logits = ["0", "0", "0", "-500", "-500", "-500"]
    r = enclose_curvature(logits, H, dps=30)
    ref = reference(H, logits, direct_extra=500)
    assert_encloses(r, ref)
    # the direct eigenvalue at 600 digits agrees with the inverse route
    assert abs(ref["lambda_min_direct"] / ref["lambda_min"] - 1) < mp.mpf(10) ** -80
    z = r.z_desc
    with flint.ctx.workprec(400):  # ball arithmetic on the enclosures (arb is rigorous at any precision)
        lower = (r.mu_T / r.L_T) * (z[1] / z[-2]) ** 2
        upper = (r.L_T / r.mu_T) * (z[0] / z[-1]) ** 2
        assert lower < r.kappa and r.kappa < upper  # decided for every point of the balls
        margin = r.kappa / lower - 1
    with mp.workdps(REF_DPS):
        zs = ref["z"]
        ref_margin = ref["kappa"] / ((ref["mu_T"] / ref["L_T"]) * (zs[1] / zs[-2]) ** 2) - 1
    assert margin.overlaps(_ball_of(ref_margin, mp.mpf(10) ** -60))
    assert 1e-23 < float(ref_margin) < 1e-21  # the small positive margin the 500-digit check reported


def test_100_digits():
    rng = np.random.default_rng(11)
    H = random_spd(rng, 6)
    logits = rng.uniform(-300, 0, 6).tolist()
    r = enclose_curvature(logits, H, dps=100)
    ref = reference(H.tolist(), logits, dps=140)
    assert_encloses(r, ref, ref_rel=mp.mpf(10) ** -125)
    assert min_digits(r) >= 100, digits_of(r)


@settings(max_examples=12, deadline=None)
@given(st.integers(2, 5).flatmap(lambda n: st.tuples(
    st.lists(st.integers(-400, 20), min_size=n, max_size=n),
    st.lists(st.integers(-3, 3), min_size=n * n, max_size=n * n),
    st.integers(1, 4))))
def test_property_enclosures_contain_the_reference(case):
    logits, entries, shift = case
    n = len(logits)
    A = np.array(entries, dtype=float).reshape(n, n)
    H = (A @ A.T + shift * np.eye(n)).tolist()  # small integers: exact, SPD
    H = [[int(v) for v in row] for row in H]
    r = enclose_curvature(logits, H, dps=30)
    assert_encloses(r, reference(H, logits))


def _exact(x):
    """An arb midpoint or radius (a dyadic number) as an exact Fraction."""
    mantissa, exponent = (int(v) for v in x.man_exp())
    return Fraction(mantissa) * Fraction(2) ** exponent


def _contains(ball, printed):
    mid, rad = _exact(ball.mid()), _exact(flint.arb(ball.rad()))
    lo, hi = (Fraction(v) for v in printed["interval"])
    return lo <= mid - rad and mid + rad <= hi


def test_a_printed_enclosure_contains_the_ball_and_is_tight():
    rng = np.random.default_rng(3)
    ball = enclose_curvature([0, -2, -700], random_spd(rng, 3), dps=30).lambda_min
    printed = ball_json(ball, 30)
    lo, hi = (Fraction(v) for v in printed["interval"])
    assert _contains(ball, printed) and hi / lo - 1 < Fraction(1, 10**28)


@settings(max_examples=200, deadline=None, database=None, derandomize=True)
@given(st.integers(-10**40, 10**40), st.integers(-400, 400), st.integers(0, 10**12), st.integers(-450, 0),
       st.integers(5, 40))
def test_any_printed_ball_contains_the_ball(mantissa, exponent, radius, radius_exponent, digits):
    """Exact rationals, independent of Arb's decimal conversion: [lo, hi] holds mid ± rad at every size."""
    mid = flint.arb(mantissa) * flint.arb(2) ** exponent
    ball = flint.arb(mid.mid(), flint.arb(radius) * flint.arb(2) ** (exponent + radius_exponent))
    assert _contains(ball, ball_json(ball, digits))


@pytest.mark.parametrize("logits,H,fragment", [
    ([0, float("nan")], [[1, 0], [0, 1]], "finite"),
    ([0, float("inf")], [[1, 0], [0, 1]], "finite"),
    ([0, 1e308], [[1, 0], [0, 1]], "out of range"),
    (["0", "1e400000000"], [[1, 0], [0, 1]], "out of range"),
    ([0, "abc"], [[1, 0], [0, 1]], "not a number"),
    ([0, -1], [[1, 2], [2, 1]], "not positive definite"),
    ([0, -1, -2], [[1, 0, 0], [0, 1, 0], [0, 0, -1]], "positive definite"),
    ([0, -1], [[1, 0.5], [0.4, 1]], "symmetric"),
    ([0, -1], [[1, float("nan")], [float("nan"), 1]], "finite"),
    ([0], [[1]], "at least 2"),
])
def test_bad_input_is_one_line_input_error(logits, H, fragment):
    with pytest.raises(InputError) as info:
        enclose_curvature(logits, H, dps=30)
    assert fragment in str(info.value) and "\n" not in str(info.value)


def test_bad_coefficients_and_matrix_types():
    with pytest.raises(InputError, match="positive"):
        enclose_curvature(None, [[1, 0], [0, 1]], z=[Fraction(1, 2), Fraction(-1, 2)])
    with pytest.raises(InputError, match="out of range"):
        enclose_curvature([0, -1], np.array([[1e305, 0], [0, 1.0]]))
    with pytest.raises(InputError, match="dps"):
        enclose_curvature([0, -1], [[1, 0], [0, 1]], dps=0)


def _householder_spd(values, v):
    """Q diag(values) Q with Q = I − 2vvᵀ/vᵀv (exactly orthogonal): exact rational H with exact eigenvalues."""
    n = len(values)
    norm = sum(x * x for x in v)
    Q = [[Fraction(int(i == j)) - Fraction(2 * v[i] * v[j], norm) for j in range(n)] for i in range(n)]
    return [[sum(Q[i][k] * Fraction(values[k]) * Q[k][j] for k in range(n)) for j in range(n)] for i in range(n)]


def test_twenty_tokens_with_a_repeated_smallest_eigenvalue_of_H():
    """Kato–Temple needs a gap below μ; there is none, so μ (and μ_T) come from the ball path instead."""
    n = 20
    H = _householder_spd([1, 1] + [2 + k for k in range(n - 2)], [(-1) ** k * (k % 5 + 1) for k in range(n)])
    logits = [Fraction(-7 * k) for k in range(n)]
    spectrum, bits, method = enclose_case(logits, H, 30)
    assert "ball path" in method or "Weyl" in method
    assert_encloses(spectrum, reference(H, logits))
    assert min_digits(spectrum) >= 30 and spectrum.mu_amb.contains(1)


def test_beyond_the_ball_path_a_repeated_eigenvalue_keeps_a_wider_ball():
    n = 66
    H = _householder_spd([1, 1] + [2 + k % 7 for k in range(n - 2)], [(-1) ** k * (k % 5 + 1) for k in range(n)])
    logits = [Fraction(-3 * k) for k in range(n)]
    spectrum, bits, method = enclose_case(logits, H, 30)
    assert method.startswith("Kato–Temple")
    with flint.ctx.workprec(300):
        assert spectrum.mu_amb.contains(1) and spectrum.L_amb.contains(8)
    assert all(getattr(spectrum, name).is_finite() for name in QUANTITIES)
    assert digits_of(spectrum)["lambda_max"] >= 30


def test_twenty_tokens_down_to_minus_3000_on_the_kato_temple_path():
    n = 20
    rng = np.random.default_rng(20)
    H = random_spd(rng, n)
    logits = np.linspace(-3000, 0, n).tolist()
    spectrum, bits, method = enclose_case(logits, H, 30)
    assert method.startswith("Kato–Temple")
    assert_encloses(spectrum, reference(H.tolist(), logits, dps=2700))
    assert min_digits(spectrum) >= 30


def _clustered(n, small=Fraction(1, 10**12)):
    """An exactly orthogonal (Householder, rational) conjugate of diag(1, …, 1, small, …, small): SPD with
    condition 1/small and each half of its spectrum one exact cluster."""
    v = [Fraction(1 + (3 * i) % 7) for i in range(n)]
    norm = sum(x * x for x in v)
    Q = [[int(i == j) - 2 * v[i] * v[j] / norm for j in range(n)] for i in range(n)]
    values = [Fraction(1)] * (n // 2) + [small] * (n - n // 2)
    return [[sum(Q[i][k] * values[k] * Q[j][k] for k in range(n)) for j in range(n)] for i in range(n)]


def test_a_clustered_spd_h_of_condition_1e12_is_accepted():
    """Beyond 16 tokens the Kato–Temple path needs a gap below λ_min(H); a cluster has none, and the ball path
    encloses the case instead (it used to be refused as not SPD)."""
    n = 24
    spectrum = enclose_curvature([Fraction(k, 100) for k in range(n)], _clustered(n), dps=30)
    with flint.ctx.workprec(128):
        assert abs(spectrum.mu_amb - flint.arb("1e-12")) < flint.arb("1e-30")
        assert abs(spectrum.L_amb - 1) < flint.arb("1e-30")
        assert spectrum.lambda_min > 0 and spectrum.kappa.is_finite()


def test_a_clustered_spd_h_beyond_the_ball_path_is_refused_in_one_clear_line():
    with pytest.raises(InputError, match="clustered") as refused:
        enclose_curvature([Fraction(k, 100) for k in range(72)], _clustered(72), dps=30)
    assert "positive definite, but" in str(refused.value)


def test_a_graded_matrixs_small_eigenvalues_are_split_from_the_largest():
    """J H J on T at logits -35, 0, 0, -35, -35 and H = I + a wwᵀ (a = 2^42 − 1/4, w = (0, 1, 1, 1, −1)): eigenvalues
    1/4, 4.2e-18, 2.1e-31, 9.9e-32. The float64 start merges the three small ones; the largest, coupled to them at
    the absolute floor after refinement, joined their cluster, whose split (a float64 start again) saw them all as
    0: every ball came out ±1e-17 wide, at any precision. Each is now enclosed to 25 digits or more, and contains
    the dense reference (mpmath's eigsy at 120 digits)."""
    from verify.api import make_case
    from verify.numerics.curvature import curvature_matrix_balls, on_tangent
    from verify.numerics.eigenballs import symmetric_eigenvalue_balls
    from verify.numerics.precision import bits_for
    from tests.dense_reference import contains, dense_reference
    from tests.test_language import GRADED

    case = make_case(logits=GRADED[0], H=GRADED[1])
    reference = dense_reference(case.logits, case.H, 120)["lam"][::-1]
    with mp.workdps(70), flint.ctx.workprec(bits_for(70)):
        balls = symmetric_eigenvalue_balls(on_tangent(curvature_matrix_balls(case.logits, case.H)))
    for ball, value in zip(balls, reference):
        assert contains(ball, value, 100) and ball.rad() < abs(ball.mid()) * flint.arb(10) ** -25, (ball, value)


def test_a_search_enclosure_makes_one_pass_whose_balls_contain_the_refined_ones():
    """A search's decision asks for one pass of the ball path (refine=False): at 64 tokens and H of condition 1e30
    the second pass, which case mode needs for λ_min's 50 digits, cost 2–3 s against the first's 0.9 s, and at an
    exact tie no pass decides. The one pass's balls are wider, and contain the refined ones."""
    from verify.numerics.precision import bits_for

    logits, H = ["0"] * 59 + ["-700"] * 5, np.diag(10 ** np.random.default_rng(0).uniform(-15, 15, 64))
    refined, refined_bits, _ = enclose_case(logits, H, 50)
    once, once_bits, _ = enclose_case(logits, H, 50, refine=False)
    assert once_bits == bits_for(60) < refined_bits
    assert digits_of(once)["lambda_min"] < 50 <= digits_of(refined)["lambda_min"]
    for name in ("lambda_max", "lambda_min", "L_T", "mu_T", "R"):
        assert getattr(once, name).contains(getattr(refined, name)), name
