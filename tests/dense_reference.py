"""An independent reference for the ball path: every quantity of one example by mpmath's dense `eigsy`.

It shares nothing with the library but the mathematics: z from the exact logits in mpmath, J = diag(z) − zzᵀ
(diagonal z_k Σ_{j≠k} z_j), the Helmert basis built here, QᵀJHJQ, QᵀHQ, H and QᵀJQ solved densely at `dps`
digits (enough digits must be given for the smallest eigenvalue: about log10 κ more than the target).
"""
from fractions import Fraction

import flint
import mpmath as mp

from verify.numerics.precision import Log


def exact_mpf(x):
    """An exact number (int, Fraction, decimal string, float, mpf) as an mpf, rounded once at the working precision."""
    if isinstance(x, mp.mpf):
        return +x
    x = Fraction(x)
    return mp.mpf(x.numerator) / x.denominator


def helmert(n):
    Q = mp.matrix(n, n - 1)
    for k in range(1, n):
        scale = 1 / mp.sqrt(k * (k + 1))
        for i in range(k):
            Q[i, k - 1] = scale
        Q[k, k - 1] = -k * scale
    return Q


def _eigenvalues(M):
    return sorted(mp.eigsy(M, eigvals_only=True), reverse=True)


def dense_reference(log_z, H, dps):
    """{name: mpf or list of mpf, decreasing} for exact logits (Fractions/ints, or Log(z)) and exact rows H."""
    n = len(log_z)
    with mp.workdps(dps):
        if isinstance(log_z[0], Log):
            e = [exact_mpf(v.of) for v in log_z]
        else:
            top = max(Fraction(v) for v in log_z)
            e = [mp.exp(exact_mpf(Fraction(v) - top)) for v in log_z]
        total = mp.fsum(e)
        z = [v / total for v in e]
        J = mp.matrix(n, n)
        for i in range(n):
            for j in range(n):
                J[i, j] = z[i] * mp.fsum(e[k] for k in range(n) if k != i) / total if i == j else -z[i] * z[j]
        Hm = mp.matrix([[exact_mpf(v) for v in row] for row in H])
        Q = helmert(n)
        lam = _eigenvalues(Q.T * J * Hm * J * Q)
        on_T = _eigenvalues(Q.T * Hm * Q)
        ambient = _eigenvalues(Hm)
        j = _eigenvalues(Q.T * J * Q)
        zs = sorted(z, reverse=True)
        return {"lambda_max": lam[0], "lambda_min": lam[-1], "kappa": lam[0] / lam[-1], "L_T": on_T[0],
                "mu_T": on_T[-1], "L_amb": ambient[0], "mu_amb": ambient[-1], "R": zs[0] / zs[-1], "z": zs,
                "j": j, "lam": lam}


def contains(ball, value, dps):
    """The ball contains the mpf reference value, allowing the reference its own error of 10^-(dps − 10) relative."""
    man, exp = value.man_exp
    with flint.ctx.workprec(int(dps * 3.33) + 64):
        point = flint.arb(flint.arf((int(man), int(exp))))
        return ball.overlaps(flint.arb(point, abs(point) * flint.arb(10) ** (10 - dps)))


def assert_encloses(spectrum, reference, dps, names=("lambda_max", "lambda_min", "kappa", "L_T", "mu_T", "L_amb",
                                                     "mu_amb", "R")):
    """Every named ball (and z, j, lam when present) contains the reference."""
    for name in names:
        ball = getattr(spectrum, name)
        assert ball is not None and contains(ball, reference[name], dps), (name, ball, mp.nstr(reference[name], 30))
    for got, want in zip(spectrum.z_desc, reference["z"]):
        assert contains(got, want, dps)
    for key in ("j", "lam"):
        values = getattr(spectrum, key)
        if values is not None:
            assert len(values) == len(reference[key])
            for k, (got, want) in enumerate(zip(values, reference[key])):
                assert got is not None and contains(got, want, dps), (key, k, got, mp.nstr(want, 30))


def relative_radius(ball):
    """rad/|mid| as a float (inf when the ball contains 0)."""
    if ball is None or not ball.is_finite() or ball.contains(0):
        return float("inf")
    with flint.ctx.workprec(64):
        return float((flint.arb(ball.rad()) / abs(flint.arb(ball.mid()))).mid())
