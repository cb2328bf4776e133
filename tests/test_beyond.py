"""The prover's index forms and powers beyond the expansion (issue 40): claims for every k indexed by n − k
(read by reflection), large constant exponents (10**10), fine rational exponents and sums of logs. True
claims a referee would prove by citing a known inequality are PROVED; their false neighbours are not."""
import math
from fractions import Fraction

import flint
import mpmath as mp
import pytest

from tests.soundness import ExactPoint
from verify.claims.language.balls import Balls
from verify.claims.language.evaluate import decide
from verify.claims.language.parser import parse_claim
from verify.claims.prover.beyond import literal_value, log_bounds
from verify.claims.prover.pieces import oriented
from verify.claims.prover.prove import prove
from verify.claims.prover.smt import literal

EVERY_N = (2, math.inf)
TRUE = [
    "forall k in 1..n-1: z(n - k + 1) <= z(n - k)",  # F1.order, reflected
    "forall k in 1..n-1: z(n - k + 1) <= j(n - k) <= z(n - k)",  # interlacing, reflected
    "forall k in 2..n: (n - k + 1) * z(n - k + 1) <= 1",  # the k largest coefficients sum to at most 1
    "z_max**(10**10) <= z_max",
    "z_min**(10**10) <= z_max**(10**10)",
    "(1 + j_min)**(10**10) >= 1 + 10**10 * j_min",  # Bernoulli
    "(-z_max)**(10**10 + 1) < 0",
    "R**(1/1000) >= 1",
    "kappa**(-1/1000) <= 1",
    "log(kappa) <= log(L_T / mu_T) + 2 * log(R)",  # κ ≤ (L_T/μ_T)(j_max/j_min)² and interlacing
    "log(R) == log(z_max) - log(z_min)",
    "log(2) * n < 0.7 * n",
]
FALSE = [
    "forall k in 1..n-1: z(n - k) <= z(n - k + 1)",
    "forall k in 1..n-1: j(n - k) <= z(n - k + 1)",
    "z_max**(10**10) >= z_min",
    "z_max**(10**10) < z_min**(10**10)",
    "R**(1/1000) > 1",  # R = 1 at uniform z
    "log(kappa) <= log(L_T / mu_T) + log(R)",
    "log(R) == log(z_max) + log(z_min)",
    "log(2) > 0.6932",
]


@pytest.mark.parametrize("text", TRUE)
def test_true_claims_beyond_the_old_encoding_are_proved(text):
    assert prove(parse_claim(text, EVERY_N), EVERY_N).status == "proved"


@pytest.mark.parametrize("text", FALSE)
def test_false_claims_beyond_the_old_encoding_are_never_proved(text):
    assert prove(parse_claim(text, EVERY_N), EVERY_N).status != "proved"


def test_reflection_reads_the_same_instances_at_every_n():
    for text in ("forall k in 1..n-1: z(n - k + 1) <= j(n - k)", "forall k in 2..n: (n - k + 1) * z(n - k + 1) <= 1",
                 "forall k in 1..n-2: lambda(n - k) >= z(n - k + 1) * k"):
        tree = parse_claim(text, EVERY_N)
        mirrored = oriented(tree)
        assert mirrored != tree
        for n in range(3, 12):
            for seed in range(5):  # the same outcome at exact points where every quantity is an arbitrary rational
                point = ExactPoint(n, seed)
                with flint.ctx.workprec(point.bits):
                    mine, theirs = decide(tree, point, Balls()), decide(mirrored, point, Balls())
                assert (mine.status, mine.undefined) == (theirs.status, theirs.undefined)
                if mine.decided:
                    assert mine.margin.mid() == theirs.margin.mid()
    mixed = parse_claim("forall k in 1..n-1: z(k) >= z(n - k + 1) * 0", EVERY_N)
    assert oriented(mixed) is mixed  # k and n − k in one body: no reflection makes both k + c


def test_literals_and_log_bounds():
    for value in (Fraction(0), Fraction(7), Fraction(-3, 8), Fraction(10**40, 3)):
        assert literal_value(literal(value)) == value
    assert literal_value("(+ 1.0 2.0)") is None and literal_value("z_1") is None
    for value in (Fraction(2), Fraction(1, 3), Fraction(10**300 + 1, 7)):
        low, high = log_bounds(value)
        with mp.workdps(50):
            ln = mp.log(mp.mpf(value.numerator) / value.denominator)
            assert mp.mpf(low.numerator) / low.denominator < ln < mp.mpf(high.numerator) / high.denominator
            assert high - low <= Fraction(3, 10**15)
