"""The rank argument of A2.dim: K Kᵀ = I_{nN} needs d ≥ nN; below it the least violations are 1 and √(nN − d).

The symbolic half (det(K Kᵀ) ≡ 0 for a K of independent symbols) lives in verify.numerics.assumption2,
where the A2.dim claim's checker uses the same function.
"""
import numpy as np
import sympy as sp

from verify.derivations.records import Step
from verify.numerics.assumption2 import SYMBOLIC_SIZES, least_violation_bound, symbolic_rank_proof, violation
from verify.numerics.model import orthonormal_keys


def check_rank_symbolic():
    proved = symbolic_rank_proof()
    return len(proved) == len(SYMBOLIC_SIZES), f"det(K Kᵀ) ≡ 0 for symbolic K of sizes {', '.join(proved)} (nN × d)"


def check_rank_numeric():
    rng = np.random.default_rng(2)
    worst = 0.0
    for rows in range(2, 13):
        for d in range(1, rows):
            spectral, frobenius = violation(orthonormal_keys(rng, rows, d))
            bound = least_violation_bound(rows, d)
            worst = max(worst, abs(spectral - bound[0]), abs(frobenius - bound[1]))
    return worst < 1e-12, f"orthonormal-column K reaches (1, √(nN − d)) to {worst:.1e} for nN ≤ 12, all d < nN"


def rank_steps():
    return (
        Step("For K ∈ ℝ^{nN×d} with d < nN,", sp.Le(sp.Symbol("rank(K Kᵀ)"), sp.Symbol("rank(K)"))),
        Step("and rank(K) ≤ d, so K Kᵀ is singular and at least nN − d eigenvalues of K Kᵀ − I equal −1:",
             sp.Ge(sp.Symbol("‖K Kᵀ − I‖_F²"), sp.Symbol("nN") - sp.Symbol("d"))),
    )


def rank_result():
    return (sp.Eq(sp.Symbol("min_K ‖K Kᵀ − I‖₂"), 1),
            sp.Eq(sp.Symbol("min_K ‖K Kᵀ − I‖_F"), sp.sqrt(sp.Symbol("nN") - sp.Symbol("d"))))
