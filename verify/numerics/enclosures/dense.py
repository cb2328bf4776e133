"""Dense ball-arithmetic fallback for small n: every extreme from acb_mat.eig on well-scaled matrices.

Used when the fast path cannot separate an extreme eigenvalue from its neighbour
(clusters, exact ties) or misses the target digits.  acb_mat.eig(multiple=True)
returns balls each containing one eigenvalue (clusters included), so
max_k λ_k lies in the arb max of the balls' real parts and min_k λ_k in their
min (the eigenvalues are real; the real part of each complex ball contains it).
Scalings are the fast path's powers of two, so relative accuracy is kept:
λ_min(B) is h·g²/ν₁ with ν₁ the LARGEST eigenvalue of the pencil
(V ᵀ C V, V ᵀ H V), V = [e_i − e_n] an exact basis of T (C = g²(J⁺)² on T).
Precision doubles until the target is met (cost O(n³) per doubling: small n only).
"""
import flint

from verify.numerics.enclosures.verified import rel_width

MAX_BITS = 1 << 15


def _extremes(M):
    values = flint.acb_mat(M).eig(multiple=True, nonstop=True)
    if not values or not all(v.is_finite() for v in values):
        return flint.arb("nan"), flint.arb("nan")
    reals = [v.real for v in values]
    top, bottom = reals[0], reals[0]
    for r in reals[1:]:
        top, bottom = top.max(r), bottom.min(r)
    return top, bottom


def _once(ctx, names):
    """One pass at the context precision; ctx provides z, S, scalings and H_s."""
    n = ctx.n
    Hs = ctx.hs_arb()
    out = {}
    V = flint.arb_mat(n, n - 1)
    for i in range(n - 1):
        V[i, i] = 1
        V[n - 1, i] = -1
    G = V.transpose() * Hs * V  # H on T in the basis V (SPD)
    if {"L", "mu"} & names:
        out["L"], out["mu"] = _extremes(Hs)
    if {"L_T", "mu_T"} & names:
        gram_inv = flint.arb_mat(n - 1, n - 1)  # (VᵀV)⁻¹ = I − 11ᵀ/n, exactly
        for i in range(n - 1):
            for j in range(n - 1):
                gram_inv[i, j] = (1 if i == j else 0) - flint.arb(1) / n
        out["L_T"], out["mu_T"] = _extremes(gram_inv * G)
    if "lambda_max" in names:
        J = flint.arb_mat(n, n)
        for i in range(n):
            for j in range(n):
                J[i, j] = ctx.d[i] if i == j else -ctx.w[i] * ctx.w[j]
        out["lambda_max"] = _extremes(J * Hs * J)[0]
    if "lambda_min" in names:
        P = flint.arb_mat(n, n)
        E = flint.arb_mat(n, n)
        for i in range(n):
            E[i, i] = ctx.e[i]
            for j in range(n):
                P[i, j] = (1 if i == j else 0) - flint.arb(1) / n
        C = P * E * P * E * P
        F = V.transpose() * C * V
        out["lambda_min"] = _extremes(G.solve(F))[0]  # ν₁, converted by the caller
    return out


def dense_enclosures(ctx, names, target_rel, start_bits):
    """{name: ball} for the requested scaled quantities, and the bits used."""
    bits = start_bits
    best = {}
    while True:
        with flint.ctx.workprec(bits):
            ctx.recompute()
            got = _once(ctx, set(names))
        for k, v in got.items():
            if k not in best or rel_width(v) < rel_width(best[k]):
                best[k] = v
        if all(rel_width(best[k]) < target_rel for k in names) or bits >= MAX_BITS:
            return best, bits
        bits *= 2
