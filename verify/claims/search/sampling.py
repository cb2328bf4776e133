"""Counterexample search: random sampling over the domain and its corners (numpy, seeded per sample), and
Hypothesis-driven adversarial search (`target` on the margin) over verify.claims.search.strategies; the failures
found are simplified afterwards (verify.claims.search.simplify).
"""
import functools
import math
import os
import warnings
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings, target
from hypothesis import strategies as st
from hypothesis.configuration import set_hypothesis_home_dir

from verify.claims.search import strategies
from verify.claims.cases.case import Case
from verify.numerics.precision import Log
from verify.claims.executors import check_stop
from verify.claims.language.outcome import FAILS
from verify.claims.cases.multi_balls import MultiCase

LOGIT_FLOOR = -700  # e^{-700} ≈ 1e-304: tiny coefficients, the paper's regime


SPAN = 8  # the small token counts lo..lo+8, where most failures are, keep half of a wide pool
SCALE_N = 24  # up to this n every sample is searched; beyond, (SCALE_N / n)³ of them: a case costs about n³


def scaled(count, n):
    """The cases to decide at token counts up to n: all `count` up to SCALE_N, then fewer as n³ grows (at least
    1); the report counts the cases each claim was decided on."""
    return count if n <= SCALE_N else max(1, min(count, math.ceil(count * (SCALE_N / n) ** 3)))
HESSIAN_FAMILIES = ("spd", "isotropic", "diagonal")

# ---------------------------------------------------------------- random sampling


def random_spd(rng, n, family="spd"):
    """Exactly SPD H of a family, over its corners: `spd` mixes rotated generic spectra (condition up to 1e6),
    H aligned with 1 (the kernel of J), diagonal H with condition up to 1e30 and exactly repeated
    eigenvalues (I, diag(1, 1, 2), …); `isotropic` is a I + b 11ᵀ (b may be negative, a + n b > 0);
    `diagonal` the same diagonal corners. Rotated spectra stay well-conditioned enough that float64
    rounding keeps H positive definite; the extreme conditions are diagonal, hence exact."""
    if family == "isotropic":
        a = 10 ** rng.uniform(-1, 1)
        b = 10 ** rng.uniform(-1, 3) if rng.random() < 0.7 else -a / n * rng.uniform(0, 0.9)
        return np.eye(n) * a + b * np.ones((n, n))
    kind = rng.integers(5) if family == "spd" else 3 + rng.integers(2)
    if kind == 1:
        return np.eye(n) * 10 ** rng.uniform(-1, 1) + 10 ** rng.uniform(-1, 3) * np.ones((n, n))
    if kind == 3:  # diagonal, condition up to 1e30
        return np.diag(10 ** rng.uniform(-15, 15, n) if rng.random() < 0.5 else 10 ** rng.uniform(-2, 2, n))
    if kind == 4:  # small integers with exact repeats: I, diag(1, 1, 2), …
        return np.diag(rng.integers(1, 3, n).astype(float))
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    spread = 2 if kind == 0 else 6
    H = (Q * 10 ** rng.uniform(-spread / 2, spread / 2, n)) @ Q.T
    return (H + H.T) / 2


def random_logits(rng, n):
    """Logits over the domain and its corners: spread over scales (coefficients down to e^-700), exact ties
    (top, middle, bottom), near-uniform z with R − 1 from 1e-15 to 0.1, some coefficients at the top and
    the rest as deep as allowed, or one at the top and every other at the floor."""
    shape = rng.random()
    if shape < 0.35:  # spread over scales
        scale = 10 ** rng.uniform(-1, np.log10(-LOGIT_FLOOR))
        logits = -scale * rng.random(n) ** rng.uniform(0.3, 3)
    elif shape < 0.5:  # ties: a few distinct values, repeated
        values = -10 ** rng.uniform(-1, np.log10(-LOGIT_FLOOR), int(rng.integers(1, 3)))
        logits = rng.choice(np.append(values, 0.0), n)
    elif shape < 0.65:  # near-uniform: every coefficient close to 1/n
        logits = -10 ** rng.uniform(-15, -1) * rng.random(n)
    elif shape < 0.85:  # corners: k at the top, the others at the floor or anywhere below
        top = int(rng.integers(1, n)) if n > 1 else 1
        deep = np.where(rng.random(n) < 0.7, float(LOGIT_FLOOR), LOGIT_FLOOR * rng.random(n))
        logits = np.concatenate([np.zeros(top), deep[top:]])
    else:  # the widest gap: one at the top, every other at the floor
        logits = np.full(n, float(LOGIT_FLOOR))
    logits[rng.integers(n)] = 0.0
    return logits


def pool_n(rng, index, n_range):
    """A sample's token count: uniform on a range of at most SPAN + 1 values; on a wider one, samples 0 and 1
    take its ends, and the rest are uniform on its first SPAN + 1 values or log-uniform over all of it."""
    lo, hi = n_range
    if hi - lo <= SPAN or index > 1 and rng.random() < 0.5:
        return int(rng.integers(lo, min(hi, lo + SPAN) + 1))
    if index <= 1:
        return (lo, hi)[index]
    return int(min(hi, math.floor(math.exp(rng.uniform(math.log(lo), math.log(hi + 1))))))


CORNER_SPAN = 3  # the deterministic corners are built at n = lo, lo + 1, lo + 2
EXTREME = Fraction(10) ** 300  # the case-file bound on |H_ij|: cond(H_T) reaches 1e600 inside it


def corner_cases(n_range, family="spd"):
    """The deterministic corners every seed decides, before the random samples: the classic ties (uniform z,
    isotropic H, the two bottom coefficients equal, H = I), coefficients at the floor e^-700, and H as far
    from isotropic as the case-file bounds allow (diag(1e300, 1e-300, …): cond(H_T) and κ near 1e600)."""
    lo, hi = n_range
    span = CORNER_SPAN if lo <= SCALE_N else 1  # beyond SCALE_N tokens a corner costs about n³: one n, scaled below
    out = []
    for n in range(lo, int(min(hi, lo + span - 1)) + 1):
        makers = _corner_hessians(n, family)
        coefficients = _corner_coefficients(n)
        keep = scaled(len(coefficients) * len(makers), n)  # the classic tie (uniform z, H = I) first
        hessians = [make() for make in makers[:keep]]  # each an n × n exact matrix: built once, shared by the cases
        out += [_corner_case(logits, H, given) for logits, given in coefficients for H in hessians][:keep]
    return out


def _corner_coefficients(n):
    """(logits, given) of the corner z: uniform; the two bottom ones equal (z given exactly, so a tie there is
    exact); two at the top and the rest at the floor."""
    weights = [2 ** (n - k) for k in range(1, n - 1)] + [1, 1]
    equal_bottom = tuple(Log(Fraction(w, sum(weights))) for w in weights)
    floor = tuple(Fraction(v) for v in [0, 0] + [LOGIT_FLOOR] * (n - 2))
    return [((Fraction(0),) * n, "logits"), (equal_bottom, "z"), (floor, "logits")]


def _corner_case(logits, H, given):
    """A corner case; H a float64 array of exact values (small integers) or rows of Fractions."""
    return Case.with_float_H(logits, H, given=given) if isinstance(H, np.ndarray) else Case(logits, H, given=given)


def _corner_hessians(n, family):
    """The corner Hessians of a family at n, as functions that build them (only those used are built): float64
    arrays where every entry is a small integer (exact), rows of Fractions otherwise."""
    zero = Fraction(0)
    identity = lambda: np.eye(n)
    if family == "isotropic":
        return [identity, lambda: np.eye(n) + np.ones((n, n)),
                lambda: tuple(tuple((i == j) - Fraction(1, 2 * n) for j in range(n)) for i in range(n))]
    extreme = [EXTREME] + [1 / EXTREME] * (n - 1)
    out = [identity, lambda: np.diag(np.arange(1.0, n + 1)),
           lambda: tuple(tuple(extreme[i] if i == j else zero for j in range(n)) for i in range(n))]
    if family == "spd":  # tridiagonal 2, 1: not diagonal, not aligned with 1
        out.append(lambda: 2 * np.eye(n) + np.eye(n, k=1) + np.eye(n, k=-1))
    return out


def random_case(seed, index, n_range=(2, 10), family="spd"):
    """Sample `index` of the random pool of `seed`: its own generator, so any split of the pool
    into work units draws the same cases."""
    rng = np.random.default_rng([seed, index])
    n = pool_n(rng, index, n_range)
    return Case.from_arrays(random_logits(rng, n), random_spd(rng, n, family))


def random_multi_case(seed, index):
    """Sample `index` of the T2.multi pool: N, n ∈ {2, 3} examples with moderate logits, and keys with
    K Kᵀ = I exactly (rows of a rational orthogonal matrix of size d = nN + 0..2)."""
    rng = np.random.default_rng([seed, index, 1])  # a stream apart from the single-example pool's
    N, n, extra = int(rng.integers(2, 4)), int(rng.integers(2, 4)), int(rng.integers(0, 3))
    return multi_case_from(rng, N, n, extra)


def multi_case_from(rng, N, n, extra):
    """A T2.multi case of N examples of n tokens with keys in d = nN + extra dimensions, drawn from rng."""
    log_zs, Hs = [], []
    for _ in range(N):
        s = -10 ** rng.uniform(-1, 1.5) * rng.random(n)
        log_zs.append(tuple(Fraction(float(v)) for v in s))
        Hs.append(tuple(tuple(Fraction(float(v)) for v in row) for row in random_spd(rng, n)))
    d = n * N + extra
    generator = tuple(tuple(int(v) for v in row) for row in rng.integers(-3, 4, (d, d)))
    return MultiCase(tuple(log_zs), tuple(Hs), generator, n * N)


# ---------------------------------------------------------------- Hypothesis


@dataclass(frozen=True)
class Found:
    """What a Hypothesis search found: its first failing case (or None) and the examples it ran."""

    case: object  # the first failing case, as drawn, or None
    examples: int  # examples Hypothesis ran


class _Counterexample(Exception):
    def __init__(self, case):
        super().__init__("counterexample")
        self.case = case


def _quiet_about_worker_threads(test):
    """On a Dask worker, the worker's own threads draw from the `random` module while Hypothesis
    generates; Hypothesis then warns that a strategy used `random`, which ours do not."""

    @functools.wraps(test)
    def run(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Do not use the `random` module inside strategies")
            return test(*args, **kwargs)

    return run


def cache_folder():
    """Hypothesis's own folder (its cache of constants read from source): the user's cache folder, never the current
    one; HYPOTHESIS_STORAGE_DIRECTORY, when set, wins (and a folder that cannot be written only costs speed)."""
    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        return Path(os.environ["HYPOTHESIS_STORAGE_DIRECTORY"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "verify" / "hypothesis"


def use_cache_folder_by_default():
    """Hypothesis's folder is `cache_folder()` from now on, unless the caller set one (HYPOTHESIS_STORAGE_DIRECTORY,
    or set_hypothesis_home_dir): for verify.strategies, whose draws would otherwise write `.hypothesis/` here."""
    from hypothesis import configuration

    chosen = vars(configuration).get("__hypothesis_home_directory")
    if chosen in (None, vars(configuration).get("__hypothesis_home_directory_default")) and \
            not os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        set_hypothesis_home_dir(cache_folder())


def _settings(seed_value, max_examples, shrink=True):
    """Hypothesis's settings for one probe; without `shrink` a failure is reported as drawn."""
    def wrap(test):
        configured = settings(
            max_examples=max_examples,
            database=None,  # a seeded search is reproducible; saved counterexamples are replayed by the engine
            deadline=None,
            phases=(Phase.generate, Phase.target) + ((Phase.shrink,) if shrink else ()),
            suppress_health_check=list(HealthCheck),
            verbosity=Verbosity.quiet,
            report_multiple_bugs=False,
        )(test)
        return _quiet_about_worker_threads(seed(seed_value)(configured))

    return wrap


def adversarial(job, decider, seed_value, max_examples=60):
    """Hypothesis search maximising the violation of `job`: the first failing case, as drawn. It is not shrunk here:
    the verdict simplifies the simplest failures of every phase alike (verify.claims.search.simplify: fewer tokens,
    H = I, short logits), which reaches the cases Hypothesis's shrinking reached at a fraction of its cost (its
    shrinker redraws a whole case at each of its hundreds of steps)."""
    count, failing = [0], []

    @_settings(seed_value, max_examples, shrink=False)
    @given(_drawn_cases(job, max(job.min_n, job.n_range[0]), job.n_range[1]))
    def probe(case):
        check_stop()
        if case in failing:  # Hypothesis's replay of the failure it found: not another example
            raise _Counterexample(case)
        count[0] += 1
        decision = decider.decide(job, case)
        violation = -_as_float(decision.margin)
        if math.isfinite(violation):  # a margin beyond float64's range cannot steer the search
            target(violation, label="violation")
        if decision.status == FAILS:
            failing.append(case)
            raise _Counterexample(case)

    return _run(probe, count)


def _drawn_cases(job, min_n, max_n):
    """The cases a job's search draws: of its family, or, for a claim that reads nothing of H, logits alone (H = I)."""
    if job.reads_h:
        return strategies.cases(min_n=min_n, max_n=max_n, hessian=job.family, min_log=LOGIT_FLOOR)
    return strategies.logit_cases(min_n, max_n, LOGIT_FLOOR)


def _as_float(margin):
    try:
        return float(margin)
    except (OverflowError, TypeError, ValueError):
        return math.nan


def _run(probe, count):
    """Run a Hypothesis probe: the counterexample it raised, or None, with the examples run. Meanwhile
    Hypothesis's own folder is `cache_folder()`; the caller's setting is restored afterwards."""
    from hypothesis import configuration

    saved = vars(configuration).get("__hypothesis_home_directory")
    set_hypothesis_home_dir(cache_folder())
    try:
        probe()
    except _Counterexample as failure:
        return Found(failure.case, count[0])
    finally:
        set_hypothesis_home_dir(saved)
    return Found(None, count[0])


def adversarial_multi(decide, seed_value, max_examples):
    """Hypothesis search over T2.multi cases (sizes and a generator seed); `decide(case)` returns
    (holds, gap) with gap ≥ 0 the relative disagreement to maximise."""
    count = [0]

    @_settings(seed_value, max_examples)
    @given(st.integers(2, 3), st.integers(2, 3), st.integers(0, 2), st.integers(0, 2**32 - 1))
    def probe(N, n, extra, key_seed):
        check_stop()
        count[0] += 1
        case = multi_case_from(np.random.default_rng(key_seed), N, n, extra)
        holds, gap = decide(case)
        target(float(gap), label="disagreement")
        if not holds:
            raise _Counterexample(case)

    return _run(probe, count)
