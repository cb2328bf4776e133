"""The claims of SPEC §3 as data: one frozen record each, in one registry.

A claim's `sides(q, L, mu)` maps a spectrum `q` (a CurvatureSpectrum whose
values are mpf numbers or python-flint arb balls) and the constants of the
chosen reading to the inequalities it asserts.  The same formula serves the
search, case mode and the independent certificate check.
"""
from dataclasses import dataclass, field
from typing import Callable

import mpmath as mp

from verify.errors import InputError

TANGENT = "tangent-exact"
AMBIENT = "ambient-bounds"
READINGS = (TANGENT, AMBIENT)

READING_TEXT = {
    TANGENT: "L, μ are the extreme eigenvalues of H restricted to T = 1^⊥",
    AMBIENT: "L, μ are any constants with μI ≼ H ≼ LI on R^n (case mode: the extreme eigenvalues of H)",
}


@dataclass(frozen=True)
class Inequality:
    label: str
    lhs: object
    rhs: object
    relation: str  # ">=" or "<="

    def log_margin(self, log):
        """ln(lhs/rhs), signed so that ≥ 0 means the inequality holds."""
        margin = log(self.lhs / self.rhs)
        return margin if self.relation == ">=" else -margin


@dataclass(frozen=True)
class Claim:
    id: str
    statement: str
    latex: str
    hypotheses: tuple
    readings: tuple  # (None,) when the claim has one reading
    sides: Callable = field(repr=False, default=None)  # T2 inequalities at a spectrum
    min_n: int = 2
    multi: bool = False  # needs several examples (T2.multi)
    checker: Callable = field(repr=False, default=None)  # (rng, settings) -> (verdict, evidence), A2 claims
    command: str = "theorem2"


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
    """q is a MultiSpectrum: κ of KᵀMK on its range against the block formula (T2.multi)."""
    return [Inequality("κ(KᵀMK on range) = max_i λ_max(B_i) / min_i λ_min(B_i)", q.kappa_dense, q.kappa_blocks, "==")]


_EQ47_HYP = ("one example, all z_k > 0", "H symmetric positive definite", "λ: extreme eigenvalues of J H J on T")

CLAIMS = (
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

def _a2(name):
    """The checker `name` of verify.assumption2 (imported on use: the registry stays light)."""

    def check(rng, settings):
        from verify import assumption2

        return getattr(assumption2, name)(rng, settings)

    return check


A2_CLAIMS = (
    Claim(
        "A2.dim",
        "K Kᵀ = I_{nN} is satisfiable iff d ≥ nN; for d < nN the least ‖K Kᵀ − I‖₂ is 1 and the least "
        "‖K Kᵀ − I‖_F is √(nN − d).",
        r"\exists K\in\mathbb{R}^{nN\times d}: KK^\top = I_{nN} \iff d \ge nN;\quad d<nN \Rightarrow "
        r"\min_K\|KK^\top - I\|_2 = 1,\ \min_K\|KK^\top - I\|_F = \sqrt{nN-d}",
        ("K ∈ R^{nN×d} real", "rank(K Kᵀ) ≤ d"),
        (None,),
        checker=_a2("check_dim"),
        command="assumption2",
    ),
    Claim(
        "A2.seq",
        "The per-sequence reading K_i K_iᵀ = I_n needs only d ≥ n, and leaves the cross blocks "
        "J_i K_i K_jᵀ J_j ≠ 0: examples do not decouple.",
        r"K_iK_i^\top = I_n\ \forall i \text{ needs } d \ge n,\ \text{yet } J_iK_iK_j^\top J_j \ne 0 \ (i\ne j)",
        ("d ≥ n", "K_i drawn independently with orthonormal rows"),
        (None,),
        checker=_a2("check_seq"),
        command="assumption2",
    ),
    Claim(
        "A2.decouple",
        "The decoupled preconditioner blockdiag(J_i²) and spectrum of KᵀMK = spectrum of M hold under "
        "K Kᵀ = I (d ≥ nN) and fail otherwise.",
        r"JKK^\top J = \operatorname{blockdiag}(J_i^2) \text{ and } \operatorname{spec}(K^\top MK) = "
        r"\operatorname{spec}(M) \iff KK^\top = I",
        ("square loss, student–teacher, zero residual at p*", "K as close to K Kᵀ = I as d allows"),
        (None,),
        checker=_a2("check_decouple"),
        command="assumption2",
    ),
    Claim(
        "T2.up",
        "Under-parameterized (d < nN, KᵀK = I_d): Cauchy interlacing λ_j(M) ≥ λ_j(KᵀMK) ≥ λ_{j+nN−d}(M), "
        "with the bounds it implies on κ.",
        r"\lambda_j(M) \ge \lambda_j(K^\top M K) \ge \lambda_{j+nN-d}(M),\quad K^\top K = I_d,\ d < nN",
        ("d < nN", "KᵀK = I_d", "M = blockdiag(J_i H_i J_i), H_i SPD"),
        (None,),
        checker=_a2("check_up"),
        command="assumption2",
    ),
)

CLAIMS = CLAIMS + A2_CLAIMS
REGISTRY = {claim.id: claim for claim in CLAIMS}


def claims_for(command):
    return tuple(c for c in CLAIMS if c.command == command)


def get_claim(claim_id):
    if claim_id not in REGISTRY:
        known = ", ".join(REGISTRY)
        raise InputError(f"unknown claim id {claim_id!r}; choose one of: {known}")
    return REGISTRY[claim_id]


def constants_for(reading, q, L=None, mu=None):
    """(L, μ) of a reading: tangent-exact from H on T; ambient-bounds from H on R^n or as given."""
    if reading == TANGENT:
        return q.L_T, q.mu_T
    return (q.L_amb if L is None else L), (q.mu_amb if mu is None else mu)


@dataclass(frozen=True)
class Evaluation:
    """A claim's two sides at one case; the binding (smallest-margin) inequality is reported."""

    claim: str
    reading: object
    label: str
    lhs: object
    rhs: object
    relation: str
    margin: object  # ln(lhs/rhs) signed: ≥ 0 holds
    tolerance: float  # |margin| below this cannot be decided at this precision

    @property
    def decided(self):
        return abs(self.margin) > self.tolerance

    @property
    def holds(self):
        return self.margin >= 0 or not self.decided


def evaluate(claim, reading, q, L=None, mu=None):
    """Every inequality of `claim` at spectrum q (mpf values); the worst one decides."""
    L_r, mu_r = constants_for(reading, q, L, mu) if reading else (None, None)
    work = (q.dps or 15) + 10
    with mp.workdps(work):
        inequalities = claim.sides(q, L_r, mu_r)
        tolerance = 8 * q.rel_err
        rows = []
        for ineq in inequalities:
            if ineq.relation == "==":
                margin = tolerance * 4 - abs(mp.log(ineq.lhs / ineq.rhs))
                rows.append((margin, ineq))
            else:
                rows.append((ineq.log_margin(mp.log), ineq))
        margin, worst = min(rows, key=lambda row: row[0])
    return Evaluation(claim.id, reading, worst.label, worst.lhs, worst.rhs, worst.relation, margin, tolerance)
