"""The values a claim reads at one example, in each number system: spectra with the series a claim
needs (J's eigenvalues, J H J's), and `Point`s that hand each quantity to the tree walk.

Three systems: "float" (the fast search path: float64 spectra with an error estimate), "mp"
(mpmath at a number of digits: an estimate, tighter), "balls" (Arb: rigorous, the only one that
decides a tight or undefined claim and that certificates use). In the ball system, values known to
be exactly equal are the same object, so a comparison of them is decided exactly: tied
coefficients (equal logits), J's eigenvalue at a tie (it equals the tied coefficient, F2),
and at n = 2, where T is a line (λ_min = λ_max, μ_T = L_T, κ = 1; F8).
"""
import dataclasses
import functools

import flint
import mpmath as mp
import numpy as np

from verify.claims.language.quantities import CURVATURE, SERIES
from verify.numerics.curvature import (coefficients_fast, coefficients_precise, curvature_balls, curvature_fast,
                                       curvature_precise, lam_fast, lam_precise)
from verify.numerics.precision import bits_for, to_arb
from verify.numerics.secular import j_eigenvalues, j_eigenvalues_mp, within_float_range

FAST_BITS = 64  # the fast stage's balls: float64 spectra, evaluated a little above float precision
FLOAT_REL_ERR = 1e-13  # the float64 path's values (log-domain spectra, secular roots) carry at most this
EPS = 2.0**-52
UNUSABLE_REL_ERR = 0.125  # an estimate's relative error from which its value is taken as unknown (NaN: undecided)
LAM_PRECISE_N = 48  # tokens up to which an eigenvalue λ(k) is computed precisely (mpmath, Arb); beyond, a dense
# precise path costs seconds to minutes (verify.claims.search.engine.Decider.stages, claims.verdicts.mode.decide_on_case)


class Point:
    """One example in one number system: n, each quantity as an Arb ball (for the estimate stages, a ball whose
    radius is the value's estimated error), and the precision (bits) to evaluate at."""

    def __init__(self, n, spectrum, bits, L=None, mu=None, rel_err=0.0, lam_errors=None):
        self.n, self.spectrum, self.bits = n, spectrum, bits
        self.rel_err, self.lam_errors = rel_err, lam_errors
        self.constants = {"L": L, "mu": mu}
        self._balls = {}

    @classmethod
    def of(cls, n, bits=200, rel_err=0.0, z=None, j=None, lam=None, **values):
        """A point of given values (names of the claim language; z, j, lam as tuples, largest first): for tests
        and for deciding a claim at numbers you already have. Unset quantities are NaN (undecided)."""
        from verify.numerics.curvature import CurvatureSpectrum

        z = list(z or (None,) * n)
        z[0], z[-1] = values.pop("z_max", z[0]), values.pop("z_min", z[-1])
        j, lam = list(j or (None,) * (n - 1)), tuple(lam or (None,) * (n - 1))
        j[0], j[-1] = values.pop("j_max", j[0]), values.pop("j_min", j[-1])
        fields = {"L": "L_amb", "mu": "mu_amb"}
        spectrum = {fields.get(k, k): v for k, v in values.items()}
        known = ("lambda_max", "lambda_min", "L_T", "mu_T", "L_amb", "mu_amb")
        q = CurvatureSpectrum(n, *(spectrum.get(k) for k in known), tuple(z or (None,) * n), 0.0, None,
                              kappa=spectrum.get("kappa"), R=spectrum.get("R"), j=tuple(j), lam=lam)
        return cls(n, q, bits, rel_err=rel_err)

    def get(self, name, k=None):
        key = (name, k)
        if key not in self._balls:
            with flint.ctx.workprec(self.bits):
                self._balls[key] = _ball(*self._raw(name, k))
        return self._balls[key]

    def _raw(self, name, k):
        if k is None:
            given = self.constants.get(name)
            if given is not None:
                return given, 0.0
            field = {"L": "L_amb", "mu": "mu_amb"}.get(name, name)
            return getattr(self.spectrum, field), self.rel_err
        q = self.spectrum
        if name == "z":
            return q.z_desc[k - 1], self.rel_err
        if name == "lambda" and (k == 1 or k == self.n - 1):
            return (q.lambda_max if k == 1 else q.lambda_min), self.rel_err
        values = q.j if name == "j" else q.lam
        if values is None:
            raise ValueError(f"{name}(k) was not computed for this example")
        error = self.lam_errors[k - 1] if name == "lambda" and self.lam_errors is not None else self.rel_err
        return values[k - 1], error


def _ball(value, rel_err):
    """A value (mpf, Fraction, arb) as a ball, widened by rel_err·|value| (an estimate's error); a quantity the
    balls could not enclose (None) is NaN: undecided, never a verdict."""
    if value is None:
        return flint.arb("nan")
    ball = value if isinstance(value, flint.arb) else to_arb(value)
    if rel_err:  # an estimate off by 1/8 of itself or more may be off by any factor (κ: 5e9 ± 4e15, truly 9e18)
        ball = ball + flint.arb(0, (abs(ball) * rel_err).upper()) if rel_err < UNUSABLE_REL_ERR else flint.arb("nan")
    return ball


# ---------------------------------------------------------------- float64


def float_point(case, needs=frozenset(), spectrum=None):
    """The fast path: float64 spectra (log domain), each value a ball of curvature_fast's error estimate."""
    q = spectrum or float_spectrum(case, needs)
    errors = lam_errors(q.lam, case.n, EPS, q.lam_err) if q.lam is not None else None
    return Point(case.n, q, FAST_BITS, case.L, case.mu, max(q.rel_err, FLOAT_REL_ERR), errors)


def float_spectrum(case, needs=frozenset()):
    """The float64 spectrum of what `needs` asks for (z and R always): no n × n work for a claim of z or J alone."""
    log_z = case.log_z_float()
    H = case.H_float() if needs & {"curvature", "lam"} else None
    q = curvature_fast(log_z, H) if "curvature" in needs else coefficients_fast(log_z)
    extra = {}
    if "j" in needs:
        extra["j"] = _j_float(log_z, case)
    if "lam" in needs:
        extra["lam"] = lam_fast(log_z, H)
        extra["lam_err"] = (_formed_error(extra["lam"], H, q.z_desc[0]),) * len(extra["lam"])
    return dataclasses.replace(q, **extra)


def _formed_error(lam, H, z_max):
    """An estimate of every float64 λ(k)'s absolute error: J H J is formed in float64, and the terms of H's part
    beyond a multiple of I cancel where it is large (along 1, or ill-conditioned), so the error scales with that
    part's norm times ‖J‖² ≤ z_max², not with λ_max alone (H = I + 2⁴⁰11ᵀ, where J H J = J²: λ(2) came out 1e-7
    off, with an error bound of 1e-15 from λ_max)."""
    beyond = H - np.eye(len(H)) * np.mean(np.diag(H))
    scale = max(abs(lam[0]), mp.mpf(float(np.abs(beyond).sum(axis=1).max())) * mp.mpf(z_max) ** 2)
    return 16 * len(H) * EPS * scale


def _j_float(log_z, case):
    if within_float_range(log_z - np.log(len(log_z))):
        z = np.exp(log_z)
        return tuple(mp.mpf(float(v)) for v in j_eigenvalues(z / z.sum())[:-1])
    return tuple(j_eigenvalues_mp(list(case.logits), dps=20)[:-1])


def lam_errors(lam, n, unit, absolute=None):
    """Relative error bounds of dense eigenvalues: n·unit·λ_max/λ_k, or a known bound on each |error| (`absolute`,
    the precise path's radii) over λ_k where that is larger; inf when that reaches 1/8."""
    top = lam[0]
    out = []
    for k, value in enumerate(lam):
        bound = float(16 * n * unit * top / value) if value > 0 else float("inf")
        if absolute is not None and value > 0:
            bound = max(bound, float(absolute[k] / value))
        out.append(bound if bound < UNUSABLE_REL_ERR else float("inf"))
    return out


# ---------------------------------------------------------------- mpmath


def mp_point(case, dps, needs=CURVATURE, spectrum=None):
    """The precise path at `dps` digits (an estimate: its rel_err is not a bound)."""
    q = spectrum or mp_spectrum(case, dps, needs)
    errors = lam_errors(q.lam, case.n, 10.0 ** -(q.dps + 15), q.lam_err) if q.lam is not None else None
    return Point(case.n, q, bits_for(dps + 10), case.L, case.mu, rel_err=max(q.rel_err, 10.0 ** -q.dps), lam_errors=errors)


SPECTRA_KEPT = 32  # the last spectra made, by case, precision and needs: a property test decides several claims at one
# case, and each claim's decision asks for the same spectra (a tie at H = aI + b11ᵀ: half its time went to making them
# again for the strict claim)


def mp_spectrum(case, dps, needs=CURVATURE):
    """The precise path's spectrum of what `needs` asks for (see quantities.Quantity.needs); z and R always."""
    return _mp_spectrum(case, dps, frozenset(needs))


@functools.lru_cache(maxsize=SPECTRA_KEPT)
def _mp_spectrum(case, dps, needs):
    if "curvature" not in needs:
        q = coefficients_precise(case.logits, dps)
    else:
        q = curvature_precise(case.logits, case.H, dps)
    extra = {}
    if "j" in needs:
        extra["j"] = tuple(j_eigenvalues_mp(list(case.logits), dps=dps + 10)[:-1])
    if "lam" in needs:
        extra["lam"], extra["lam_err"] = lam_precise(case.logits, case.H, dps + 20)
    return dataclasses.replace(q, **extra)


# ---------------------------------------------------------------- balls


def ball_spectrum(case, needs=CURVATURE):
    """What `needs` asks for (z and R always) as Arb balls at the context precision (None where a quantity
    could not be enclosed, or was not asked for)."""
    return _ball_spectrum(case, frozenset(needs), flint.ctx.prec)


@functools.lru_cache(maxsize=SPECTRA_KEPT)
def _ball_spectrum(case, needs, bits):
    H = case.H if needs & {"curvature", "lam"} else None  # a claim of z or J alone: H's rows are not built
    with flint.ctx.workprec(bits):
        return curvature_balls(case.logits, H, want=tuple(sorted(needs & SERIES)), curvature="curvature" in needs)


def ball_point(case, spectrum, bits):
    """A Point of rigorous balls, exactly equal quantities aliased to one object (see the module docstring)."""
    q = _aliased(case, spectrum)
    return Point(case.n, q, bits, case.L, case.mu)


def _aliased(case, q):
    order = sorted(range(case.n), key=lambda i: _sort_key(case.logits[i]), reverse=True)
    keys = [_sort_key(case.logits[i]) for i in order]
    z = list(q.z_desc)
    for k in range(1, case.n):
        if keys[k] == keys[k - 1]:
            z[k] = z[k - 1]  # exactly tied coefficients
    changes = {"z_desc": tuple(z)}
    if q.j is not None:
        j = list(q.j)
        for k in range(case.n - 1):
            if keys[k] == keys[k + 1]:
                j[k] = z[k]  # F2: J's k-th eigenvalue is the tied coefficient
        changes["j"] = tuple(j)
    if case.n == 2 and q.lambda_max is not None:
        changes.update(lambda_min=q.lambda_max, mu_T=q.L_T, kappa=flint.arb(1))  # F8: T is a line
    return dataclasses.replace(q, **changes)


def _sort_key(logit):
    """An exact key, increasing with the coefficient (a logit, or ln z for a coefficient given as z)."""
    return getattr(logit, "of", logit)
