"""The Theorem 2 / Eq. (47) claims of SPEC §3 as data: each claim's inequalities at a spectrum."""
from verify.claims.record import READINGS, Claim, Inequality


def _eq47_max(q, L, mu):
    return [Inequality("λ_max ≥ L z_min²", q.lambda_max, L * q.z_desc[-1] ** 2, ">=")]


def _eq47_min(q, L, mu):
    return [Inequality("λ_min ≤ μ z_max²", q.lambda_min, mu * q.z_desc[0] ** 2, "<=")]


def _eq47_kappa(q, L, mu):
    return [Inequality("κ ≥ (L/μ) R⁻²", q.kappa, (L / mu) / q.R**2, ">=")]


def _swapped(q, L, mu):
    return [
        Inequality("λ_max ≥ L z_max²", q.lambda_max, L * q.z_desc[0] ** 2, ">="),
        Inequality("λ_min ≤ μ z_min²", q.lambda_min, mu * q.z_desc[-1] ** 2, "<="),
        Inequality("κ ≥ (L/μ) R²", q.kappa, (L / mu) * q.R**2, ">="),
    ]


def _interlace(q, L, mu):
    z = q.z_desc
    return [
        Inequality("κ ≥ (μ/L)(z_(2)/z_(n−1))²", q.kappa, (mu / L) * (z[1] / z[-2]) ** 2, ">="),
        Inequality("κ ≤ (L/μ)(z_(1)/z_(n))²", q.kappa, (L / mu) * (z[0] / z[-1]) ** 2, "<="),
    ]


def _multi(q, L, mu):
    """q is a MultiEnclosure: κ of KᵀMK on its range (`dense`) against the block formula (`blocks`), as balls."""
    return [Inequality("κ(KᵀMK on range) = max_i λ_max(B_i) / min_i λ_min(B_i)", q.dense, q.blocks, "==")]


_EQ47_HYP = ("one example, all z_k > 0", "H symmetric positive definite", "λ: extreme eigenvalues of J H J on T")

THEOREM2_CLAIMS = (
    Claim(
        "T2.eq47.max",
        "Eq. (47), first half: λ_max ≥ L (min z)².",
        r"\lambda_{\max}(JHJ|_T) \ge L \,(\min_k z_k)^2",
        _EQ47_HYP,
        READINGS,
        _eq47_max,
    ),
    Claim(
        "T2.eq47.min",
        "Eq. (47), second half: λ_min ≤ μ (max z)².",
        r"\lambda_{\min}(JHJ|_T) \le \mu \,(\max_k z_k)^2",
        _EQ47_HYP,
        READINGS,
        _eq47_min,
    ),
    Claim(
        "T2.eq47.kappa",
        "The bound Eq. (47) implies: κ ≥ (L/μ) R⁻², R = z_max/z_min; it shrinks as R grows.",
        r"\kappa \ge \frac{L}{\mu} R^{-2}, \quad R = \frac{\max_k z_k}{\min_k z_k}",
        _EQ47_HYP,
        READINGS,
        _eq47_kappa,
    ),
    Claim(
        "T2.swapped",
        "The reading the narrative needs: λ_max ≥ L (max z)², λ_min ≤ μ (min z)², hence κ ≥ (L/μ) R².",
        r"\lambda_{\max} \ge L(\max_k z_k)^2,\ \lambda_{\min} \le \mu(\min_k z_k)^2,\ \kappa \ge \frac{L}{\mu} R^{2}",
        _EQ47_HYP,
        READINGS,
        _swapped,
    ),
    Claim(
        "T2.interlace",
        "Two-sided bound from interlacing: (μ/L)(z_(2)/z_(n−1))² ≤ κ ≤ (L/μ)(z_(1)/z_(n))², n ≥ 3.",
        r"\frac{\mu}{L}\Big(\frac{z_{(2)}}{z_{(n-1)}}\Big)^2 \le \kappa \le \frac{L}{\mu}\Big(\frac{z_{(1)}}{z_{(n)}}\Big)^2",
        _EQ47_HYP + ("n ≥ 3",),
        READINGS,
        _interlace,
        min_n=3,
    ),
    Claim(
        "T2.multi",
        "With N examples and K Kᵀ = I (Assumption 2), the spectrum of KᵀMK on its range is that of "
        "M = blockdiag(J_i H_i J_i), so κ = max_i λ_max(B_i) / min_i λ_min(B_i).",
        r"\kappa\big(K^\top M K\big|_{\mathrm{range}}\big) = \frac{\max_i \lambda_{\max}(J_iH_iJ_i|_T)}{\min_i \lambda_{\min}(J_iH_iJ_i|_T)}",
        ("N examples, all z_ik > 0", "H_i symmetric positive definite", "K Kᵀ = I_{nN} (d ≥ nN)"),
        (None,),
        _multi,
        multi=True,
    ),
)
