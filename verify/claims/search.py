"""Counterexample search: random sampling over many scales, and Hypothesis-driven
adversarial search (`target` on the margin) that shrinks a failure to the
smallest n and the simplest numbers (integers) that still fail.
"""
from dataclasses import dataclass

import numpy as np
from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings, target
from hypothesis import strategies as st

from verify.claims.cases import Case
from verify.numerics.model import orthonormal_keys

LOGIT_FLOOR = -700  # e^{-700} ≈ 1e-304: tiny coefficients, the paper's regime


# ---------------------------------------------------------------- random sampling


def _random_spd(rng, n):
    """SPD H with a chosen spectrum: generic, aligned with 1 (the kernel of J), or near-singular."""
    family = rng.integers(3)
    if family == 1:
        return np.eye(n) * 10 ** rng.uniform(-1, 1) + 10 ** rng.uniform(-1, 3) * np.ones((n, n))
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    spread = 2 if family == 0 else 6
    eigenvalues = 10 ** rng.uniform(-spread / 2, spread / 2, n)
    H = (Q * eigenvalues) @ Q.T
    return (H + H.T) / 2


def _random_logits(rng, n):
    """Logits spread over many scales, so that many coefficients are tiny (down to e^-700)."""
    scale = 10 ** rng.uniform(-1, np.log10(-LOGIT_FLOOR))
    logits = -scale * rng.random(n) ** rng.uniform(0.3, 3)
    logits[rng.integers(n)] = 0.0
    return logits


def random_cases(rng, count, n_range=(2, 10)):
    for _ in range(count):
        n = int(rng.integers(n_range[0], n_range[1] + 1))
        yield Case.from_arrays(_random_logits(rng, n), _random_spd(rng, n))


def random_examples(rng, N, n, extra):
    """N examples (log z_i, H_i) with moderate logits and keys with K Kᵀ = I, d = nN + extra (T2.multi)."""
    log_zs, Hs = [], []
    for _ in range(N):
        s = -10 ** rng.uniform(-1, 1.5) * rng.random(n)
        log_zs.append(s - np.log(np.sum(np.exp(s))))
        Hs.append(_random_spd(rng, n))
    return log_zs, Hs, orthonormal_keys(rng, n * N, n * N + extra)


def random_multi_cases(rng, count):
    for _ in range(count):
        N, n = int(rng.integers(2, 4)), int(rng.integers(2, 4))
        yield random_examples(rng, N, n, int(rng.integers(0, 3)))


# ---------------------------------------------------------------- Hypothesis


@dataclass(frozen=True)
class Found:
    case: object  # the shrunk counterexample, or None
    examples: int  # examples Hypothesis ran


class _Counterexample(Exception):
    def __init__(self, case):
        super().__init__("counterexample")
        self.case = case


@st.composite
def simple_cases(draw, min_n=2, max_n=5):
    """Integer logits (down to e^-700) and H = A Aᵀ + c I with small integer A: exact, shrinkable."""
    n = draw(st.integers(min_n, max_n))
    logits = draw(st.lists(st.integers(LOGIT_FLOOR, 0), min_size=n, max_size=n))
    A = np.array(draw(st.lists(st.lists(st.integers(-3, 3), min_size=n, max_size=n), min_size=n, max_size=n)))
    c = draw(st.integers(1, 4))
    return Case.from_arrays(logits, A @ A.T + c * np.eye(n, dtype=int))


def _settings(seed_value, max_examples):
    def wrap(test):
        configured = settings(
            max_examples=max_examples,
            database=None,
            deadline=None,
            phases=(Phase.generate, Phase.target, Phase.shrink),
            suppress_health_check=list(HealthCheck),
            verbosity=Verbosity.quiet,
            report_multiple_bugs=False,
        )(test)
        return seed(seed_value)(configured)

    return wrap


def adversarial(claim, reading, decider, seed_value, max_examples=60):
    """Hypothesis search maximising the violation; a failure comes back shrunk."""
    count = [0]

    @_settings(seed_value, max_examples)
    @given(simple_cases(min_n=claim.min_n))
    def probe(case):
        count[0] += 1
        evaluation = decider.decide(claim, reading, case)
        target(-float(evaluation.margin), label="violation")
        if not evaluation.holds:
            raise _Counterexample(case)

    try:
        probe()
    except _Counterexample as failure:
        return Found(failure.case, count[0])
    return Found(None, count[0])


def adversarial_multi(claim, seed_value, max_examples, decide):
    count = [0]

    @_settings(seed_value, max_examples)
    @given(st.integers(2, 3), st.integers(2, 3), st.integers(0, 2), st.integers(0, 2**32 - 1))
    def probe(N, n, extra, key_seed):
        count[0] += 1
        log_zs, Hs, K = random_examples(np.random.default_rng(key_seed), N, n, extra)
        evaluation = decide(log_zs, Hs, K)
        target(-float(evaluation.margin), label="disagreement")
        if not evaluation.holds:
            raise _Counterexample((log_zs, Hs, K))

    try:
        probe()
    except _Counterexample as failure:
        return Found(failure.case, count[0])
    return Found(None, count[0])
