"""The library API under property tests a user would write (issue 39): every case `verify.strategies` draws —
equal logits, H = I and the other corners included — goes through decide_on_case, evaluate_claim and
curvature_spectrum, and nothing but InputError comes out; a true claim holds (decided) at every drawn case,
ties included, under Hypothesis's default settings (its 200 ms deadline among them)."""
from fractions import Fraction

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from verify import InputError, curvature_spectrum, decide_on_case, evaluate_claim, make_case
from verify.claims.cases.case import Case
from verify.strategies import cases

TEXTS = ("z_max - z_min >= 0", "lambda(1) <= L_T*z(1)**2", "lambda(1) >= 0", "lambda_min <= mu_T * z_max**2",
         "j_min <= z(2)", "lambda_max >= mu_T * j_min**2", "kappa >= 1", "R >= 1 and z_min <= 1/n",
         "sqrt(lambda_min) <= z_max * sqrt(L_T)", "lambda_min < mu_T * j_min**2", "kappa <= R**2 * L / mu")
BUILTIN = ("T2.eq47.max", "T2.eq47.min", "T2.swapped")


def identity(n):
    return tuple(tuple(Fraction(int(i == j)) for j in range(n)) for i in range(n))


@st.composite
def corner_cases(draw):
    """The drawn cases, and the same logits with H = I (the corner the issue's examples sit on)."""
    case = draw(cases(min_n=2, max_n=8))
    return Case(case.logits, identity(case.n)) if draw(st.booleans()) else case


def only_input_errors(call):
    try:
        return call()
    except InputError:
        return None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(corner_cases(), st.sampled_from(TEXTS))
@example(Case((Fraction(0),) * 3, identity(3)), "lambda(1) <= L_T*z(1)**2")
@example(Case((Fraction(0),) * 3, identity(3)), "z_max - z_min >= 0")
def test_decide_on_case_raises_nothing_but_input_errors(case, text):
    result = only_input_errors(lambda: decide_on_case(text, case))
    assert result is None or result.holds in (True, False)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(corner_cases(), st.sampled_from(BUILTIN), st.sampled_from(("tangent-exact", "ambient-bounds")))
def test_evaluate_claim_and_curvature_spectrum_raise_nothing_but_input_errors(case, claim_id, reading):
    only_input_errors(lambda: evaluate_claim(claim_id, case, reading, dps=30))
    spectrum = only_input_errors(lambda: curvature_spectrum(case, dps=20))
    assert spectrum is None or spectrum.lambda_min is not None


def test_the_issues_examples_are_decided_and_hold():
    uniform = make_case(logits=["0", "0", "0"], H=[[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    for text in ("z_max - z_min >= 0", "lambda(1) <= L_T*z(1)**2", "lambda(1) >= 0"):
        result = decide_on_case(text, uniform)
        assert result.decided and result.holds, (text, result)
    result = decide_on_case("lambda_min <= mu_T * z_max**2", make_case(logits=["0", "0", "-1"], H=[[1, 0, 0], [0, 1, 0], [0, 0, 1]]))
    assert result.decided and result.holds


def test_a_strict_comparison_at_an_exact_tie_is_decided_as_failing():
    uniform = make_case(logits=["0", "0", "0"], H=[[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    for text in ("z_max - z_min > 0", "lambda(1) < L_T*z(1)**2"):
        result = decide_on_case(text, uniform)
        assert result.decided and not result.holds, (text, result)


@given(cases(min_n=2, max_n=8))
def test_a_true_claim_with_ties_holds_at_300_cases_under_default_settings(case):
    """Hypothesis's default settings (its 200 ms deadline included) with 300 examples: what a user's test gets."""
    result = decide_on_case("lambda_min <= mu_T * z_max**2 and z_max - z_min >= 0", case)
    assert result.decided and result.holds, result


test_a_true_claim_with_ties_holds_at_300_cases_under_default_settings = settings(  # not the suite's profile
    settings.get_profile("default"), max_examples=300)(test_a_true_claim_with_ties_holds_at_300_cases_under_default_settings)


def test_an_h_with_eigenvalues_beyond_float64s_ratio_raises_nothing():
    """H = diag(1e-300, 1e9): its condition number 1e309 overflowed float64 in the precise path's digit count."""
    case = make_case(logits=[0, 0], H=[["1e-300", 0], [0, "1e9"]])
    assert curvature_spectrum(case).kappa is not None
    for claim_id in BUILTIN:
        for reading in ("tangent-exact", "ambient-bounds"):
            assert evaluate_claim(claim_id, case, reading).holds in (True, False)


@given(cases(min_n=2, max_n=8, hessian="isotropic"))
def test_kappa_is_exactly_the_squared_ratio_of_js_at_every_isotropic_h_under_default_settings(case):
    """H = aI + b11ᵀ: J H J = a J² on T, so κ = (j_max/j_min)² exactly at every case — a tie at every case, decided
    (a third of the drawn cases were left undecided before the two sides shared their roots)."""
    result = decide_on_case("kappa <= (L_T/mu_T)*(j_max/j_min)**2", case)
    assert result.decided and result.holds, result
    strict = decide_on_case("kappa < (L_T/mu_T)*(j_max/j_min)**2", case)
    assert strict.decided and not strict.holds, strict


test_kappa_is_exactly_the_squared_ratio_of_js_at_every_isotropic_h_under_default_settings = settings(
    settings.get_profile("default"))(test_kappa_is_exactly_the_squared_ratio_of_js_at_every_isotropic_h_under_default_settings)


def test_a_cases_spectra_are_made_once_for_its_claims_and_apart_per_precision(monkeypatch):
    """A property test decides several claims at one case: the case's mpmath spectrum is made once for them all
    (values.SPECTRA_KEPT), the same decisions as made afresh; its balls are kept per precision, never one
    precision's balls for another's."""
    import flint

    from verify.claims.language import values

    case = make_case(logits=["0", "-1", "-2.5"], H=[[3, 1, 0], [1, 2, 0], [0, 0, 1]])
    texts = ("lambda_min <= mu_T * z_max**2", "lambda_max >= mu_T * z_min**2", "kappa >= 1")
    fresh = []
    for text in texts:
        values._mp_spectrum.cache_clear()
        fresh.append(decide_on_case(text, case))
    made = []
    precise = values.curvature_precise
    monkeypatch.setattr(values, "curvature_precise", lambda *args: made.append(args) or precise(*args))
    values._mp_spectrum.cache_clear()
    assert [decide_on_case(text, case) for text in texts] == fresh and len(made) == 1
    with flint.ctx.workprec(128):
        coarse = values.ball_spectrum(case)
    with flint.ctx.workprec(512):
        fine = values.ball_spectrum(case)
    assert fine is not coarse and fine.lambda_max.rad() < coarse.lambda_max.rad()
    assert fine.lambda_max.overlaps(coarse.lambda_max)
