"""The one registry of derivations D1–D6 and A2 (their prose in Unicode math, steps, results and checks),
and running one derivation's checks."""
import time

from verify.derivations import descent, loss, rank, softmax
from verify.derivations.records import Check, Derivation

DERIVATIONS = (
    Derivation("D1", "Softmax Jacobian", "softmax-jacobian",
               ("σ(s)_i = e^{s_i} / Σ_{j=1}^n e^{s_j}", "1 ≤ i, k ≤ n"),
               softmax.d1_steps, softmax.d1_result,
               "SymPy for general n (indexed symbols) and as explicit matrices for n = 2, …, 8; "
               "numerically against 40-digit finite differences for n = 12, 20.",
               (("symbolic", "general n", softmax.check_d1_general), ("symbolic", "n = 2..8", softmax.check_d1_explicit),
                ("numeric", "n = 12, 20", softmax.check_d1_numeric))),
    Derivation("D2", "Softmax Hessian tensor", "softmax-hessian",
               ("as in D1", "1 ≤ a, b ≤ n"),
               softmax.d2_steps, softmax.d2_result,
               "SymPy for general n and for every entry at n = 2, …, 8; numerically against 40-digit "
               "mixed finite differences for n = 8, 12.",
               (("symbolic", "general n", softmax.check_d2_general), ("symbolic", "n = 2..8", softmax.check_d2_explicit),
                ("numeric", "n = 8, 12", softmax.check_d2_numeric))),
    Derivation("D3", "Gradient and Hessian of the loss in the prompt", "loss-hessian",
               ("L(p) = (1/N) Σ_i ℓ(u_iᵀ σ(K_i p), y_i)",
                "square loss ℓ = ½(ŷ − y)² or logistic loss ℓ = log(1 + e^{−yŷ})",
                "M = blockdiag(J_i H_i J_i); at a zero-residual p* only the Gauss–Newton part remains"),
               loss.d3_steps, loss.d3_result,
               "sympy.hessian of L against the closed form for (n, N, d) up to (3, 1, 2) and (2, 1, 3), "
               "both losses; numerically against 40-digit finite differences of L at (n, N, d) = (5, 4, 6).",
               (("symbolic", "square, n,N,d ≤ 3", loss.check_d3_symbolic),
                ("symbolic", "logistic, n,N,d ≤ 3", loss.check_d3_logistic),
                ("numeric", "square (5, 4, 6)", loss.check_d3_numeric),
                ("numeric", "logistic (5, 4, 6)", loss.check_d3_numeric_logistic))),
    Derivation("D4", "Eq. (16): one GD step in attention space to second order", "eq16-quadratic",
               ("Δs = −η K ∇L(p_t)", "σ smooth (D1, D2)"),
               loss.d4_steps, loss.d4_result,
               "SymPy's Taylor polynomial of σ(s + εΔ) in ε to second order for n = 2, 3, 4; numerically, "
               "the remainder along a GD step decays with log–log slope 3 ± 0.1 as η → 0 (60 digits).",
               (("symbolic", "n = 2, 3, 4", loss.check_d4_symbolic), ("numeric", "η = 1e-1..1e-6", loss.check_d4_numeric))),
    Derivation("D5", "GD as preconditioned descent in attention space", "preconditioned-descent",
               ("first order in η", "Assumption 2 read as K Kᵀ = I_{nN}"),
               descent.d5_steps, descent.d5_result,
               "SymPy with symbolic coefficients and exactly orthonormal rational keys; numerically, the "
               "decoupled preconditioner is exact when K Kᵀ = I and off by a constant factor otherwise.",
               (("symbolic", "(n, N, d) ≤ (2, 4, 8)", descent.check_d5_symbolic),
                ("numeric", "n = 3, N = 3, d = 12", descent.check_d5_numeric))),
    Derivation("D6", "Linearisation at a stationary point and the local rate", "linearisation",
               ("p* stationary with zero residual (student–teacher)", "η ≤ 1/λ_max"),
               descent.d6_steps, descent.d6_result,
               "SymPy matrix algebra for the conjugation identity and the Gauss–Newton form of the Hessian at "
               "p*; numerically, GD run near p* contracts at the predicted rate.",
               (("symbolic", "matrix algebra; (2, 2, 2)", descent.check_d6_symbolic),
                ("numeric", "n = 3, N = 6, d = 10", descent.check_d6_numeric))),
    Derivation("A2", "Assumption 2 needs d ≥ nN (rank argument)", "assumption2-rank",
               ("K ∈ ℝ^{nN×d} real", "d < nN"),
               rank.rank_steps, rank.rank_result,
               "SymPy: det(K Kᵀ) is the zero polynomial for a K of independent symbols for every (nN, d) with "
               "nN ≤ 4; numerically, orthonormal columns reach both bounds for nN ≤ 12.",
               (("symbolic", "nN ≤ 4", rank.check_rank_symbolic), ("numeric", "nN ≤ 12", rank.check_rank_numeric))),
)

DERIVATION_REGISTRY = {d.id: d for d in DERIVATIONS}


def run_check(derivation_id, index):
    """Check `index` of a derivation, timed: a Check."""
    kind, sizes, function = DERIVATION_REGISTRY[derivation_id].checks[index]
    started = time.perf_counter()
    passed, detail = function()
    return Check(kind, sizes, bool(passed), detail, time.perf_counter() - started)


def run_checks(derivation):
    """Every check of one derivation, in this process: a tuple of Check."""
    return tuple(run_check(derivation.id, index) for index in range(len(derivation.checks)))
