"""Exact ties: with rational z and H, a comparison whose sides are equal is decided exactly — a non-strict one
holds, a strict one fails — the same way in decide_on_case, case mode and its JSON, and a counterexample
certificate that `check` confirms; where the balls decide, exact arithmetic agrees with them."""
import json
from fractions import Fraction
from decimal import Decimal

import mpmath as mp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.api import decide_on_case, make_case
from verify.claims.verdicts.mode import evaluate_case
from verify.claims.certificates.check import check_body, counterexample_body
from verify.claims.certificates.counterexample import ball_outcome
from verify.claims.exact import decide_exactly
from verify.claims.jobs import Job
from verify.claims.language.outcome import FAILS, HOLDS
from verify.claims.language.parser import parse_claim
from verify.claims.record import FormulaClaim
from verify.claims.search.sampling import EXTREME
from verify.numerics import exact_spectrum

TWO = make_case(logits=["0", "0"], H=[[2, 0], [0, 1]])  # λ_max = L_T z_min² = 3/8 exactly


def _job(text, n_range):
    """The search's job for a claim text on n_range."""
    return Job(FormulaClaim("x", "", text, n_range=n_range, command="claims", tree=parse_claim(text, n_range)))


def diagonal(*values):
    return [[values[i] if i == j else 0 for j in range(len(values))] for i in range(len(values))]


def exact_agrees_with_the_balls(case, text, bits):
    """Where the balls at `bits` decide the claim at the case and the exact route decides it too, they agree."""
    tree = parse_claim(text, (case.n, case.n))
    outcome, _ = ball_outcome(tree, case, bits)
    exact = decide_exactly(tree, case)
    return outcome.status not in (HOLDS, FAILS) or exact is None or exact == (outcome.status == HOLDS)


def test_a_tie_holds_for_a_non_strict_comparison_and_fails_for_a_strict_one():
    tie = decide_on_case("lambda_max >= L_T * z_min**2", TWO)
    assert tie.decided and tie.holds and float(tie.margin) == 0
    strict = decide_on_case("lambda_max > L_T * z_min**2", TWO)
    assert strict.decided and not strict.holds and float(strict.margin) == 0


@pytest.mark.parametrize("text, n", [("lambda_min > mu_T * j_min**2", 3), ("kappa < (L_T/mu_T)*(j_max/j_min)**2", 4)])
def test_the_classic_ties_at_uniform_z_fail_strictly_and_hold_loosely(text, n):
    case = make_case(logits=["0"] * n, H=diagonal(*range(1, n + 1)))
    assert not decide_on_case(text, case).holds and decide_on_case(text, case).decided
    loose = text.replace(">", ">=").replace("<", "<=")
    assert decide_on_case(loose, case).holds


def test_case_mode_and_its_json_agree_at_a_tie():
    report = evaluate_case(TWO, dps=30)
    row = {(r.claim, r.reading): r for r in report.rows}[("T2.eq47.max", "tangent-exact")]
    assert row.holds and row.rigorous == "holds" and row.verdict.text == "CERTIFIED" and row.margin == 0


def test_a_strict_tie_is_certified_as_a_counterexample_that_check_confirms():
    claim = FormulaClaim("mine.strict", "", "lambda_min > mu_T * j_min**2", n_range=(3, 3), command="claims")
    case = make_case(logits=["0"] * 3, H=diagonal(1, 2, 3))
    body = counterexample_body(Job(claim), case, 50)
    assert body is not None and float(body["margin"]) == 0
    assert check_body(json.loads(json.dumps(body))).confirmed


def test_an_equal_bottom_tie_given_as_z():
    case = make_case(z=["0.5", "0.25", "0.25"], H=diagonal(1, 2, 3))
    assert decide_on_case("j_min == z_min", case).holds and not decide_on_case("j_min < z_min", case).holds


TEXTS = ["lambda_min >= mu_T * z_min**2", "kappa <= 3 * R", "j_max * j_min <= 1/8", "lambda_max < L_T * j_max**2",
         "sqrt(lambda_max) >= z_min", "min(L_T, 2*mu_T) <= abs(lambda_max - 1)",
         "lambda_min >= mu * z_min**2", "lambda_max <= L * j_max**2 and mu <= mu_T",  # H's own extremes after J H J's
         "kappa * mu <= 2 * L"]


def test_the_extremes_of_h_are_its_eigenvalues_whatever_was_computed_first():
    """Once, μ read the matrix H from a cache J H J's eigenvalues had filled: uniform z, H = diag(1, 1, 2) gives
    λ_min = 1/9 = μ z_min² exactly, a tie that holds, which was REFUTED."""
    case = make_case(logits=["0", "0", "0"], H=diagonal(1, 1, 2))
    for text in ("lambda_min >= mu * z_min**2", "lambda_min == mu / 9 and L == 2 and mu == 1 and L_T == 5/3"):
        assert decide_exactly(parse_claim(text, (3, 3)), case) is True
        assert decide_on_case(text, case).holds


@settings(max_examples=24, deadline=None, derandomize=True)
@given(st.lists(st.integers(1, 9), min_size=2, max_size=4), st.lists(st.integers(1, 5), min_size=4, max_size=4),
       st.sampled_from(TEXTS))
def test_exact_decisions_agree_with_the_balls_where_the_balls_decide(weights, spectrum, text):
    z = [f"{Decimal(w) / Decimal(sum(weights)):.40f}" for w in weights]  # renormalised exactly by the case
    case = make_case(z=z, H=diagonal(*spectrum[:len(z)]))
    assert exact_agrees_with_the_balls(case, text, 200)  # (the exact route may give up: a degree or size beyond its limits)


def test_the_agreement_test_is_not_vacuous():
    """The agreement test skips the cases exact arithmetic gives up on; at a small case it gives up on none."""
    case = make_case(z=["0.5", "0.3", "0.2"], H=diagonal(1, 2, 3))
    assert [t for t in TEXTS if decide_exactly(parse_claim(t, (3, 3)), case) is None] == []


@pytest.mark.parametrize("logits", [[0, -1, -157], [0, -1, -2, -40], [0, Fraction(1, 3), Fraction(-5, 2), -38],
                                    [-292, -80, -573, -430, -80, -430, 0]])
def test_kappa_and_the_squared_ratio_of_js_tie_exactly_at_h_identity(logits):
    """H = I: λ(k) = j(k)², so κ = (j_max/j_min)²; with z's exponents in t up to hundreds, the two sides' resultants
    were beyond the size limit (undecided), where the same ratio of the same two roots is one number."""
    case = make_case(logits=logits, H=diagonal(*[1] * len(logits)))
    for text, holds in [("kappa == (j_max/j_min)**2", True), ("kappa <= (L_T/mu_T)*(j_max/j_min)**2", True),
                        ("kappa < (j_max/j_min)**2", False)]:
        result = decide_on_case(text, case)
        assert result.decided and result.holds is holds, (text, result)


@pytest.mark.parametrize("logits", [["0", "-1", "-2.0001"], [0, 0.5, 0.1]])
def test_a_claim_of_h_alone_is_decided_whatever_t_its_logits_need(logits):
    """μ = μ_T = 1 and L = L_T = 3 for this H (the eigenvectors (1, −1, 0) and one of 3 lie in T); the logits' common
    denominator (10⁴, 2⁵⁵) put z beyond the exact path's exponents, and the claim does not read z at all."""
    case = make_case(logits=logits, H=[[2, 1, 0], [1, 2, 0], [0, 0, 3]])
    for text, holds in [("mu <= mu_T", True), ("mu == mu_T", True), ("L_T <= L", True), ("mu < mu_T", False)]:
        result = decide_on_case(text, case)
        assert result.decided and result.holds is holds, (text, result)


JOINED = ("kappa >= (j_max/j_min)**2", "kappa <= (j_max/j_min)**2", "lambda(1)/lambda(2) > j(1)**2/j(2)**2",
          "j(1)*j(2) <= 1/n**2", "lambda(1)*lambda(2) >= L_T**2*(j(1)*j(2))**2", "kappa <= 2*(j(1)/j(2))**2",
          "(j_max/j_min)**2 >= 2*kappa/3", "lambda(1)/lambda(2) == (L_T/mu_T)*(j(1)/j(2))**2",
          "kappa*lambda_min == lambda_max", "kappa*lambda_min >= 2*lambda_max/3", "j(1)*j(2)*j(1) == j(1)**2*j(2)",
          "j(1)*j(2)*j(1) <= j(1)*j(2)**2", "j(1)**3/j(2) >= j(1)**2*(j(1)/j(2))", "j(2)*j(1) < j(1)*j(2)",
          "(lambda(1)*lambda(2))/lambda(1) == lambda(2)", "lambda(2)/lambda(1)*lambda(1)**2 > lambda(1)*lambda(2)",
          "j(1)*j(2) < j(1)/j(2)", "lambda(2)/lambda(1) <= lambda(1)*lambda(2)*10**6")


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.lists(st.integers(-6, 0), min_size=3, max_size=5), st.integers(1, 4), st.integers(0, 3), st.booleans(),
       st.sampled_from(JOINED))
def test_products_and_ratios_of_roots_agree_with_the_balls_where_the_balls_decide(logits, a, b, isotropic, text):
    """A product or quotient of two roots' powers is the same two roots' join, made once (the κ ties above): wherever
    the balls decide such a comparison, the exact route, when it decides, agrees."""
    n = len(logits)
    H = [[a + b if i == j else b for j in range(n)] for i in range(n)] if isotropic else diagonal(*range(a, a + n))
    case = make_case(logits=logits, H=H)
    assert exact_agrees_with_the_balls(case, text, 300), (text, logits, H)


def test_the_joined_roots_test_is_not_vacuous():
    """At a small case every comparison of the list is decided exactly, and through joins of J's roots."""
    from verify.claims.exact import _exact_case

    case = make_case(logits=[0, -1, -3, -4], H=diagonal(2, 2, 2, 2))
    assert [t for t in JOINED if decide_exactly(parse_claim(t, (4, 4)), case) is None] == []
    assert _exact_case(case, coefficients=True).field.joins  # the products and ratios of J's roots made


def test_roots_1e300_apart_are_isolated_once_then_reused_and_refined(monkeypatch):
    """Two roots 1e-300 apart need 2,048 bits; a sign asked at 128 bits isolates them there, then every request up to
    2,048 reuses those balls and a higher one refines them by Newton steps: flint's exact roots of the midpoint
    polynomial (seconds each at these sizes) run once, not once per precision."""
    from verify.numerics import algebraic_roots as roots

    A = 10**300
    f = (A * roots.X - A) * (A * roots.X - A - 1)  # roots 1 + 1e-300 and 1
    calls = []
    certified = roots._certified
    monkeypatch.setattr(roots, "_certified", lambda *args: calls.append(args[2]) or certified(*args))
    found = roots.RootSet(roots.Field(), f)
    first = found.at(128)
    assert first[0].mid() > first[1].mid() and not first[0].overlaps(first[1]) and first[1].contains(1)
    isolated_at = len(calls)
    assert all(found.at(bits) is first for bits in (256, 512, 1024))
    finer = found.at(8192)
    assert len(calls) == isolated_at and finer[1].contains(1) and finer[0].rad() < first[0].rad()
    assert finer[0].mid() > 1 and not finer[0].overlaps(finer[1])


def _spectrum_on_t(logits, H, dps=60):
    """An independent computation: J H J, J and H compressed to T (a Helmert basis) and their eigenvalues by mpmath,
    largest first."""
    n = len(logits)
    with mp.workdps(dps):
        w = [mp.exp(mp.mpf(Fraction(v).numerator) / Fraction(v).denominator) for v in logits]
        z = [x / sum(w) for x in w]
        J = mp.matrix([[(z[i] if i == j else 0) - z[i] * z[j] for j in range(n)] for i in range(n)])
        Hm = mp.matrix([[mp.mpf(Fraction(x).numerator) / Fraction(x).denominator for x in row] for row in H])
        Q = mp.matrix(n, n - 1)
        for k in range(n - 1):
            for i in range(k + 1):
                Q[i, k] = 1 / mp.sqrt((k + 1) * (k + 2))
            Q[k + 1, k] = -(k + 1) / mp.sqrt((k + 1) * (k + 2))
        spectra = []
        for M in (J * Hm * J, J, Hm):
            values = mp.eigsy(Q.T * M * Q)[0]
            spectra.append(sorted((values[i] for i in range(n - 1)), reverse=True))
        return spectra


@pytest.mark.parametrize("logits, h", [([0, 0, -1, -16, -16], [2, 2, 1, 1, 1]),
                                       ([0, 0, -700, -700, -700, -700, -700], [2**56, 2**56, 2**56, 10, 1, 64, 1])])
def test_paired_ties_of_a_diagonal_h_give_the_lambda_polynomials_rational_roots(logits, h):
    """Tied tokens i, j with H(e_i − e_j) = μ(e_i − e_j) give λ = μ ζ² on e_i − e_j, a root in Q(t) that the λ
    polynomial's squarefree factors hid: this tie was undecided (the first case) or took 3.5 s in a resultant of
    polynomials of degree 6 (the second, a drawn case of `cases(hessian="diagonal")`)."""
    from verify.claims.exact import _exact_case

    case = make_case(logits=logits, H=diagonal(*h))
    lam, j, h_t = _spectrum_on_t(logits, diagonal(*h))
    for text, holds in [("kappa == (L_T/mu_T)*(j_max/j_min)**2", True), ("kappa < (L_T/mu_T)*(j_max/j_min)**2", False)]:
        result = decide_on_case(text, case)
        assert result.decided and result.holds is holds, (text, result)
    # the tie itself, independently (mpmath's eigenvalues of the matrices): equal to 40 digits
    kappa, ratio = lam[0] / lam[-1], (h_t[0] / h_t[-1]) * (j[0] / j[-1]) ** 2
    assert abs(kappa - ratio) <= abs(ratio) * mp.mpf("1e-40")
    rational = [v for v in _exact_case(case, coefficients=True).lam_desc if v.root is None]
    assert len(rational) >= 2  # the two pairs' λ (and no resultant was needed to compare them)


TIED = ("lambda_max >= L_T * z_max**2", "lambda_min <= mu_T * z_max**2", "kappa <= (L_T/mu_T)*(j_max/j_min)**2",
        "kappa >= (L_T/mu_T)*(j_max/j_min)**2", "lambda(1) == L_T*z(1)**2", "lambda_min >= mu_T*z_min**2",
        "lambda(2) <= lambda(1)", "lambda_min * 4 <= lambda_max")


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.lists(st.integers(-4, 0), min_size=3, max_size=5), st.lists(st.integers(1, 3), min_size=5, max_size=5),
       st.booleans())
def test_the_exact_lambdas_with_tied_pairs_are_the_eigenvalues_and_decide_as_the_balls_do(logits, h, coupled):
    """Few logit and H values, so that tied pairs with equal H entries are common; `coupled` gives H an entry b
    between tokens 0 and 1 (H(e_0 − e_1) = (h_0 − b)(e_0 − e_1) when h_0 = h_1). Every exact λ lies in mpmath's
    eigenvalue ball, and wherever the balls decide a claim, the exact route, when it decides, agrees."""
    from verify.claims.exact import _exact_case

    n = len(logits)
    H = diagonal(*h[:n])
    if coupled:
        H[0][1] = H[1][0] = Fraction(1, 2)
    case = make_case(logits=logits, H=H)
    lam = _spectrum_on_t(logits, H)[0]
    exact = _exact_case(case, coefficients=True).lam_desc
    with mp.workdps(60):
        assert all(abs(mp.mpf(v.ball(240).mid()) - e) <= mp.mpf("1e-50") for v, e in zip(exact, lam, strict=True))
    for text in TIED:
        assert exact_agrees_with_the_balls(case, text, 300), (text, logits, H)


def test_a_tied_pairs_root_is_divided_out_as_often_as_it_divides():
    """Three tokens tied at H = 2 give the root 2ζ² twice (on e_0 − e_1 and e_1 − e_2), two at H = 1 give ζ'² once."""
    from verify.claims.exact import _exact_case

    logits, h = [0, 0, 0, -1, -1], [2, 2, 2, 1, 1]
    exact = _exact_case(make_case(logits=logits, H=diagonal(*h)), coefficients=True)
    linear, _ = exact_spectrum._divided(exact._lam_polynomial(), exact._tied_pair_factors())
    assert sorted(m for _, m in linear) == [1, 2]
    with mp.workdps(60):
        lam = _spectrum_on_t(logits, diagonal(*h))[0]
        assert all(abs(mp.mpf(v.ball(240).mid()) - e) <= mp.mpf("1e-50") for v, e in zip(exact.lam_desc, lam, strict=True))


def test_the_tied_pairs_test_is_not_vacuous():
    """Its kind of case has tied pairs with equal H entries, whose roots are divided out, and its claims decided."""
    from verify.claims.exact import _exact_case

    case = make_case(logits=[0, 0, -1, -1, -2], H=diagonal(1, 1, 2, 2, 3))
    exact = _exact_case(case, coefficients=True)
    assert len(exact._tied_pair_factors()) == 2 and sum(v.root is None for v in exact.lam_desc) == 2
    assert [t for t in TIED if decide_exactly(parse_claim(t, (5, 5)), case) is None] == []


def test_eigenvalues_beyond_float64s_range_are_decided_with_their_margin():
    """λ(2)/λ(3) ≈ e^362 here, λ(3) far below 1e-308: the balls' float64 starts merge such eigenvalues. The balls at
    the precision that spans λ_max/λ_min decide the claim, with its true margin ln(λ(2)/λ(3)); so do the balls of the
    exact quantities (`_on_exact_point`, the route where the balls could not split them; before it, the climb to the
    precision limit took 1.8 s to end in a tie's margin 0, 9 s at n = 8)."""
    from verify.claims.certificates.counterexample import _on_exact_point

    logits, h = [-700, -700, -363, 0, -510], [38685626227668133590597632, 1, 13, 7, 576460752303423488]
    case = make_case(logits=logits, H=diagonal(*h))
    with mp.workdps(1000):
        lam = _spectrum_on_t(logits, diagonal(*h), dps=1000)[0]
        result = decide_on_case("lambda(2) >= lambda(3)", case)
        strict = decide_on_case("lambda(2) < lambda(3)", case)
        assert result.decided and result.holds and strict.decided and not strict.holds
        assert abs(mp.mpf(result.margin) - mp.log(lam[1] / lam[2])) < mp.mpf("1e-15")
        shown = dict(result.values)  # the values read, from the balls that decided (the digits' were NaN)
        assert abs(mp.mpf(shown["lambda(3)"]) / lam[2] - 1) < mp.mpf("1e-15")
        outcome, _, _ = _on_exact_point(parse_claim("lambda(2) >= lambda(3)", (5, 5)), case, 256, 1 << 15)
        assert outcome.decided and outcome.holds
        assert abs(mp.mpf(outcome.margin.mid().str(30, radius=False)) - mp.log(lam[1] / lam[2])) < mp.mpf("1e-15")


POINTED = ("lambda_min <= mu_T * z_max**2", "kappa >= (L_T/mu_T)*R**-2", "log(lambda_max) < log(L) + 2*log(z_max)",
           "sqrt(lambda(2)) >= j(2) * sqrt(mu_T)", "j_max/j_min <= R * n", "lambda(1) - lambda(2) > mu * z_min**2",
           "abs(lambda(2) - L_T*z(2)**2) <= L*z(1)**2", "max(j(1), lambda(1)) >= min(z(2), mu)")


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.lists(st.integers(-9, 0), min_size=3, max_size=5), st.lists(st.integers(1, 9), min_size=5, max_size=5),
       st.sampled_from(POINTED))
def test_a_claim_on_the_exact_quantities_balls_is_decided_as_on_the_cases_balls(logits, h, text):
    """The exact point (verify.claims.exact.exact_point) is another enclosure of the same quantities: wherever both
    it and the case's own balls decide a claim, they agree, and their margins' enclosures overlap."""
    import flint

    from verify.claims.exact import exact_point
    from verify.claims.language.balls import Balls
    from verify.claims.language.evaluate import decide
    from verify.claims.language.syntax import names

    n = len(logits)
    H = diagonal(*h[:n])
    H[0][1] = H[1][0] = Fraction(1, 3)  # not diagonal: L and μ differ from L_T and μ_T
    case = make_case(logits=logits, H=H)
    tree = parse_claim(text, (n, n))
    ours, _ = ball_outcome(tree, case, 300)
    with flint.ctx.workprec(300):
        point = exact_point(case, 300, names(tree))
        theirs = decide(tree, point, Balls()) if point is not None else None
    if theirs is not None and ours.decided and theirs.decided:
        assert ours.holds == theirs.holds, (text, logits, H)
        assert not ours.undefined and not theirs.undefined and flint.arb(ours.margin).overlaps(flint.arb(theirs.margin))


MONOMIALS = [  # at logits 0, −1, −3 (1 > j(1) > j(2) > 0): each a tie or a claim whose truth is known by hand
    ("j(1)*j(2)**2*j(1) == (j(1)*j(2))**2", True), ("(j(1)/j(2))/j(1) == 1/j(2)", True),
    ("(j(1)/j(2))*(j(2)/j(1)) == 1", True), ("(j(1)/j(2))*(j(2)/j(1)) < 1", False),
    ("j(1)**3/j(2)**3 <= (j(1)/j(2))**3", True), ("j(1)**2*j(2)**4 == (j(1)*j(2)**2)**2", True),
    ("j(1)/j(2) <= j(2)/j(1) or j(1)*j(2) < j(2)*j(1)", False),  # the strict tie makes the exact route decide
    ("j(1)*j(2)**2*j(1) >= 1 or j(1)*j(2) < j(2)*j(1)", False),
    ("(j(1)/j(2))/j(1) == j(2) or j(1)*j(2) < j(2)*j(1)", False),
    ("(j(1)/j(2))*(j(2)/j(1)) >= 2 or j(1)*j(2) < j(2)*j(1)", False)]


@pytest.mark.parametrize("text, holds", MONOMIALS)
def test_monomials_of_roots_that_cancel_or_share_a_gcd_are_decided_with_their_truth(text, holds):
    """A monomial's exponents divided by a gcd that does not divide both powers, a lone root left with a negative
    exponent, a monomial that cancels to 1: each decided (a tie in every claim), with the truth known by hand."""
    result = decide_on_case(text, make_case(logits=[0, -1, -3], H=diagonal(2, 3, 5)))
    assert result.decided and result.holds is holds, result


FAR = {"z": ["0.99999", "1e-400", "1e-300", "1e-5"], "H": diagonal(2, 3, 5, "1e20")}  # λ(3) ≈ 5.9e-800


@pytest.mark.parametrize("given, text, margin", [
    ({}, "lambda(2) >= lambda(3) and mu < 2.2", mp.log(mp.mpf("1.1"))),
    ({}, "lambda(2) >= lambda(3) and L > 9e19", mp.log(mp.mpf(10) / 9)),
    ({"mu": "1.5", "L": "2e20"}, "lambda(2) >= lambda(3) and mu < 1.6 and L > 1.9e20", mp.log(mp.mpf(2) / mp.mpf("1.9")))])
def test_the_exact_point_reads_l_and_mu_of_h_or_as_given(given, text, margin):
    """At a case given as z with eigenvalues far below float64's range, the exact point decides; its L and μ are H's
    extremes on Rⁿ (not on T), or the case's own L and μ when given."""
    from verify.claims.certificates import counterexample

    case = make_case(**FAR, **given)
    outcome, _, _ = counterexample._on_exact_point(parse_claim(text, (4, 4)), case, 256, 1 << 15)
    assert outcome.decided and outcome.holds
    assert abs(mp.mpf(outcome.margin.mid().str(30, radius=False)) - margin) < mp.mpf("1e-15"), outcome
    balls = decide_on_case(text, case)  # the balls at the spread's precision: the same margin
    assert balls.decided and balls.holds and abs(mp.mpf(balls.margin) - margin) < mp.mpf("1e-15"), balls


def test_a_claim_undefined_at_an_exact_zero_shows_its_margin_as_undefined():
    """The divisor is exactly 0 (the balls only know it is near 0): the claim fails there, and its margin is no
    number — shown as `undefined`, as the balls show a claim they find undefined, not as a tie's 0."""
    zero = "((j(1) - j(2)) + (j(2) - j(1)))"
    result = decide_on_case(f"j(1) * {zero} / {zero} == j(1)", make_case(logits=[0, -1, -3], H=diagonal(2, 3, 5)))
    assert result.decided and not result.holds and result.margin == "undefined", result


def test_a_counterexample_the_exact_route_alone_finds_undefined_is_not_certified():
    """The balls leave the binding side's definedness open where exact arithmetic finds the divisor exactly 0: there
    are no numbers to record that `check` could confirm, so no certificate is written (it raised AttributeError)."""
    from verify.claims.certificates.check import counterexample_attempt

    zero = "((j(1) - j(2)) + (j(2) - j(1)))"
    text = f"j(1) * {zero} / {zero} == j(1)"
    job = _job(text, (3, 4))
    assert counterexample_attempt(job, make_case(logits=[0, -1, -3], H=diagonal(2, 3, 5)), 50) == (None, FAILS)


def test_the_search_decides_exactly_where_the_balls_leave_definedness_open():
    """The search's stages leave the claim open (the divisor is only near 0 in the balls); exact arithmetic finds it
    exactly 0, so the claim is undefined and fails there (the search counted such cases undecided)."""
    from verify.claims.search.engine import Decider

    zero = "((j(1) - j(2)) + (j(2) - j(1)))"
    text = f"j(1) * {zero} / {zero} == j(1)"
    job = _job(text, (3, 4))
    decision = Decider(50, job.needs).decide(job, make_case(logits=[0, -1, -3], H=diagonal(2, 3, 5)))
    assert decision.stage == "exact" and decision.status == FAILS and decision.outcome.undefined


_A, _B, _C = 9453956337844864679936, 9444732965670570950656, 9435509593771155128320
SPREAD = (["-409", "-59", "0", "-692", "-700", "-238", "-373", "0"],  # drawn by cases(hessian="spd"): λ from 1.8e19
          [[_A, -_B, 0, _B, 0, _C, 0, 0], [-_B, _A, 0, -_C, 0, -_B, 0, 0], [0, 0, 2**67, 0, 0, 0, 0, 0],  # down to
           [_B, -_C, 0, _A, 0, _B, 0, 0], [0, 0, 0, 0, 2**75, 0, 0, 0], [_C, -_B, 0, _B, 0, _A, 0, 0],  # 3e-590, and
           [0, 0, 0, 0, 0, 0, 1, 0], [0, 0, 0, 0, 0, 0, 0, 8]])  # a tie z(1) = z(2)


def test_eigenvalues_spread_beyond_the_precision_are_decided_by_balls_at_the_precision_that_spans_them(monkeypatch):
    """The balls at 50 digits enclose λ(k) of J H J only down to about 10^-50·λ_max; here λ spans 600 orders. The
    exact route, asked first at the tie z(1) = z(2), built a λ polynomial of degree 700 in e (12 s); the balls at the
    precision log2(λ_max/λ_min) beyond it decide instead, and every λ(k) they read is the dense reference's."""
    import flint

    from verify.claims import exact
    from verify.claims.language.values import ball_point, ball_spectrum
    from verify.numerics.precision import bits_for
    from tests.dense_reference import contains, dense_reference

    case = make_case(logits=SPREAD[0], H=SPREAD[1])
    monkeypatch.setattr(exact, "exact_outcome", lambda *args, **kwargs: pytest.fail("the exact route was asked"))
    result = decide_on_case("forall k in 1..n-1: lambda(k) <= L_T * z(k)**2", case)
    assert result.decided and result.holds and result.rigorous, result
    reference = dense_reference(case.logits, case.H, 700)["lam"]
    bits = bits_for(50) + 2100
    with flint.ctx.workprec(bits):
        point = ball_point(case, ball_spectrum(case, frozenset({"curvature", "lam"})), bits)
        for k in range(1, case.n):
            assert contains(point.get("lambda", k), reference[k - 1], 80), k  # the reference: 90 digits of λ(7)


def test_sides_closer_than_the_balls_can_tell_are_no_tie_and_show_their_margin():
    """At logits −135, 0, −38 and H = diag(7, 15, 15), μ_T j(2)² and λ(2) differ by 4e-86: the balls at 50 digits
    read them tight, and the exact route decides; its margin 0 contradicted its verdicts (`==` failing with margin 0,
    `<` holding with margin 0). The balls of the exact quantities give the margin, agreeing with mpmath at 300 digits."""
    case = make_case(logits=[-135, 0, -38], H=diagonal(7, 15, 15))
    strict, equal = (decide_on_case(f"mu_T * j(2)**2 {op} lambda(2)", case) for op in ("<", "=="))
    precise = decide_on_case("mu_T * j(2)**2 < lambda(2)", case, dps=300)
    assert strict.decided and strict.holds and equal.decided and not equal.holds
    assert mp.mpf(strict.margin) > 0 and mp.mpf(equal.margin) < 0
    assert abs(mp.mpf(strict.margin) / mp.mpf(precise.margin) - 1) < mp.mpf("1e-15"), (strict, precise)


def test_a_tie_at_a_structured_case_is_decided_by_its_closed_form():
    """A structured case (n up to 10⁶, closed-form spectrum) has no exact point: the margin of an exact decision there
    is its closed form's (the exact point's lookup raised AttributeError; benchmarks/soundness.py found it)."""
    from verify.claims.cases.structured import structured_cases
    from verify.claims.certificates.counterexample import decide_rigorously

    tree = parse_claim("forall k in 1..n-1: 2 * z(k) <= 2 * z(k)", (2, 10**6))
    for case in list(structured_cases((2, 10**6), "spd", ()))[:12]:
        outcome, _, _ = decide_rigorously(tree, case, 20, max_bits=1024)
        assert outcome.decided and outcome.holds, case


EXTREME_H = diagonal(EXTREME, 1 / EXTREME, 1 / EXTREME)  # the search's corner H at n = 3
DPS = 50  # the Deciders' digits below: their estimate stages are DPS and 2 * DPS


@pytest.mark.parametrize("text, logits, H, visited, status", [
    ("z_max >= 1/n", [0, 0, 0], diagonal(1, 1, 1), ("float", "balls"), HOLDS),  # a tie, then exact arithmetic
    ("z_max >= 1 - 10**(-30)", [0, -80, -80], diagonal(1, 1, 1), ("float", "balls"), HOLDS),  # tight in float64
    # tight at 50 digits; the balls at 100 cannot enclose κ at this H, so the skipped 100-digit estimate decides
    ("kappa <= kappa * (1 + 10**(-70))", [0, 0, 0], EXTREME_H, ("float", DPS, "balls", 2 * DPS), HOLDS),
    ("L < 10**299 or kappa >= kappa * (1 + 10**(-70))", [0, -1, -2], EXTREME_H, ("float", DPS, "balls", 2 * DPS), FAILS)])
def test_a_margin_tight_at_an_estimate_stage_goes_to_the_balls_and_back_only_where_they_cannot_decide(
        text, logits, H, visited, status, monkeypatch):
    """A margin tight at an estimate stage (a tie, mostly) is decided by the balls next, not by more mpmath digits
    first; where neither the balls nor exact arithmetic decide, the skipped estimate stages still run, the most
    precise first, so no case the stages decided before goes undecided."""
    from verify.claims.search.engine import Decider

    job = _job(text, (3, 3))
    decider, stages = Decider(DPS, job.needs), []
    at = decider.at
    monkeypatch.setattr(decider, "at", lambda job, case, stage, needs=None: stages.append(stage) or
                        at(job, case, stage, needs))
    decision = decider.decide(job, make_case(logits=logits, H=H))
    assert (tuple(stages), decision.status) == (visited, status)


def test_where_balls_and_exact_arithmetic_do_not_decide_every_skipped_estimate_stage_still_may(monkeypatch):
    """Tight in float64, decided by mpmath at dps digits only (at 2·dps the estimate breaks down), the balls tight and
    exact arithmetic out of reach: the case is decided at dps digits, as before any stage was skipped."""
    from verify.claims.language.outcome import Outcome
    from verify.claims.search import engine

    tight, holds, unknown = Outcome(0.0, -1e-20, 1e-20, False), Outcome(1.0, 0.5, 1.5, False), \
        Outcome(float("nan"), float("-inf"), float("inf"), False)
    at_stage = {"float": tight, DPS: holds, 2 * DPS: unknown, "balls": tight}
    monkeypatch.setattr(engine, "exact_outcome", lambda tree, case: None)
    decider, visited = engine.Decider(DPS), []
    monkeypatch.setattr(decider, "at", lambda job, case, stage, needs=None: visited.append(stage) or at_stage[stage])
    job = _job("kappa >= 1", (3, 3))
    decision = decider.decide(job, make_case(logits=[0, -1, -2], H=diagonal(1, 2, 3)))
    assert (decision.status, decision.stage, visited) == (HOLDS, DPS, ["float", "balls", 2 * DPS, DPS])
