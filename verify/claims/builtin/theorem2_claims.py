"""The Theorem 2 / Eq. (47) claims of docs/spec.md §3 as data: claim-language records (and T2.multi, a checker claim)."""
import math

from verify.claims.record import READINGS, CheckerClaim, FormulaClaim

def _search(lo):
    """The built-in claims share one random pool, n = 2..10 (a claim skips n below its own range), and the
    Hypothesis search draws n from the claim's least n up to 5."""
    return ((2, 10), (lo, max(lo, 5)))


_EQ47_HYP = ("one example, all z_k > 0", "H symmetric positive definite", "λ: extreme eigenvalues of J H J on T")

THEOREM2_CLAIMS = (
    FormulaClaim(
        "T2.eq47.max",
        "Eq. (47), first half: λ_max ≥ L (min z)².",
        "lambda_max >= L * z_min**2",
        _EQ47_HYP,
        READINGS,
        search=_search(2),
    ),
    FormulaClaim(
        "T2.eq47.min",
        "Eq. (47), second half: λ_min ≤ μ (max z)².",
        "lambda_min <= mu * z_max**2",
        _EQ47_HYP,
        READINGS,
        search=_search(2),
    ),
    FormulaClaim(
        "T2.eq47.kappa",
        "The bound Eq. (47) implies: κ ≥ (L/μ) R⁻², R = z_max/z_min; it shrinks as R grows.",
        "kappa >= (L/mu) * R**-2",
        _EQ47_HYP,
        READINGS,
        search=_search(2),
    ),
    FormulaClaim(
        "T2.swapped",
        "The reading the narrative needs: λ_max ≥ L (max z)², λ_min ≤ μ (min z)², hence κ ≥ (L/μ) R².",
        "lambda_max >= L * z_max**2 and lambda_min <= mu * z_min**2 and kappa >= (L/mu) * R**2",
        _EQ47_HYP,
        READINGS,
        search=_search(2),
    ),
    FormulaClaim(
        "T2.interlace",
        "Two-sided bound from interlacing: (μ/L)(z_(2)/z_(n−1))² ≤ κ ≤ (L/μ)(z_(1)/z_(n))², n ≥ 3.",
        "(mu/L) * (z(2)/z(n-1))**2 <= kappa <= (L/mu) * (z(1)/z(n))**2",
        _EQ47_HYP + ("n ≥ 3",),
        READINGS,
        n_range=(3, math.inf),
        search=_search(3),
    ),
    CheckerClaim(
        "T2.multi",
        "With N examples and K Kᵀ = I (Assumption 2), the spectrum of KᵀMK on its range is that of "
        "M = blockdiag(J_i H_i J_i), so κ = max_i λ_max(B_i) / min_i λ_min(B_i).",
        r"\kappa\big(K^\top M K\big|_{\mathrm{range}}\big) = \frac{\max_i \lambda_{\max}(J_iH_iJ_i|_T)}{\min_i \lambda_{\min}(J_iH_iJ_i|_T)}",
        ("N examples, all z_ik > 0", "H_i symmetric positive definite", "K Kᵀ = I_{nN} (d ≥ nN)"),
        multi=True,
    ),
)
