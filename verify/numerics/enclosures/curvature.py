"""Case mode: rigorous arb enclosures of λ_max, λ_min, κ of J H J on T, of L_T, μ_T, L, μ and of z.

Scaled problems (all scalings are exact powers of two, so they cost no accuracy):
  H_s = H / h,  h = 2^k ≥ max|H_ij|;
  J_s = J / c,  c = 4^m ≈ max_k z_k(1 − z_k), J_s = diag(d) − w wᵀ off the diagonal,
                d_k = z_k S_k / c, S_k = 1 − z_k = Σ_{j≠k} z_j (no cancellation), w = z / 2^m;
  C_s = g² (J⁺)² on T = P E P E P,  E = diag(g / z_k), g = 2^j ≤ z_min
       (J⁺ = P D⁻¹ P on T, D = diag z: J P D⁻¹ y = y − z 1ᵀy = y for y ∈ T).
Every quantity is then the LARGEST or SMALLEST eigenvalue of a problem with entries ≤ ~1:
  λ_max(B)      = c² h · λ_max(J_s H_s J_s)         (B ≥ 0, B1 = 0, so its top on Rⁿ is its top on T);
  λ_min(B on T) = h g² / ν₁,  ν₁ = max_{y∈T} yᵀC_s y / yᵀH_s y   (y = Jx maps T onto T and
                  xᵀx = yᵀ(J⁺)²y, so λ_min = min_{y∈T} yᵀHy / yᵀ(J⁺)²y) — never a small
                  eigenvalue of B itself, so κ up to 1e600 keeps full relative accuracy;
  L_T, μ_T      = h · extremes of P H_s P on T (on Rⁿ it is {0} ∪ spec(H_T), and H SPD puts 0 lowest);
  L, μ          = h · extremes of H_s.
Each is enclosed by `verified.refine_extreme` (Kato–Temple from a float64
eigendecomposition, with the neighbouring eigenvalue bounded by
`verified.VerifiedPencil`); the float copies' distances to the exact matrices
are bounded a priori (docstrings below).  When the neighbour cannot be
separated (clusters, ties) the ball is the verified Weyl–Ostrowski enclosure,
honestly wider; `verify.numerics.enclosures.case` then recomputes such a
quantity on the ball path where n allows.
Isotropic H = aI + b11ᵀ (detected exactly): L_T = μ_T = a, {L, μ} = {a, a + nb};
with tied extreme coefficients (exactly equal logits) the extreme eigenvalue of
J is that coefficient (it has an eigenvector e_i − e_j), so λ = a z².
"""
import math

import flint
import numpy as np

from verify.base import options
from verify.base.errors import InputError
from verify.numerics.enclosures.exact import ExactMatrix
from verify.numerics.enclosures.verified import VerifiedPencil, refine_extreme, rel_width
from verify.numerics.rounding import ETA, U, centre_error, fro, matmul_error
from verify.numerics.precision import to_arb
from verify.numerics.softmax import exact_keys, extreme_ratio, softmax_balls, sums_but_one
from verify.numerics.spectrum import CurvatureSpectrum
from verify.numerics.tangent import centre, project as _project

GUARD_BITS = 40
TAU = 2.0**-96  # float copies: entries below TAU are set to 0 (graded matrices make LAPACK produce subnormals,
# ~100× slower; entries this small do not matter at float64 accuracy relative to the ~1 top eigenvalue); each
# such change is ≤ TAU per entry, ≤ n·TAU in Frobenius norm, and is added to the error bound where made.
NAMES = ("lambda_max", "lambda_min", "L_T", "mu_T", "L_amb", "mu_amb")


def correct_digits(ball):
    """Correct significant digits a ball guarantees (0 when it contains 0 or is not finite)."""
    if ball is None:
        return 0.0
    w = rel_width(ball)
    if w == 0:
        return math.inf
    return -math.log10(w) if w < 1 else 0.0


class _Scaled:
    """Coefficient data and scalings (exact powers of two) at the context precision."""

    def __init__(self, log_z):
        self.n = n = len(log_z)
        keys = exact_keys(log_z)
        self.order = sorted(range(n), key=lambda k: keys[k], reverse=True)  # z descending, exact
        self.tied = keys[self.order[0]] == keys[self.order[1]], keys[self.order[-1]] == keys[self.order[-2]]
        self.z, self.S, _ = softmax_balls(log_z)  # 1 − z_k = S_k, sums of positives
        jdiag = [a * b for a, b in zip(self.z, self.S)]
        top = max(jdiag, key=lambda a: float(a.mid().log()))
        self.m = int(math.floor(float(top.mid().log()) / math.log(4)))
        zmin = min(self.z, key=lambda a: float(a.mid().log()))
        j = int(math.floor(float(zmin.mid().log()) / math.log(2)))
        while not flint.arb(2) ** j <= zmin:
            j -= 1
        self.c = flint.arb(4) ** self.m
        self.w = [v * flint.arb(2) ** (-self.m) for v in self.z]
        self.d = [v / self.c for v in jdiag]
        self.g = flint.arb(2) ** j
        self.e = [self.g / v for v in self.z]  # in (0, 1]

    def apply_J(self, y):
        """J_s y with (J y)_k = z_k (S_k y_k − Σ_{j≠k} z_j y_j) (Σz = 1), prefix sums: O(n), no cancellation in 1 − z_k."""
        _, others = sums_but_one([a * b for a, b in zip(self.z, y)])
        return [self.z[k] * (self.S[k] * y[k] - others[k]) / self.c for k in range(self.n)]


def _vector_error(balls, floats):
    """arb bound of ‖exact − float copy‖₂ (each ball contains its exact value)."""
    return sum(((b - flint.arb(float(f))) ** 2 for b, f in zip(balls, floats)), flint.arb(0)).sqrt()


def _flush(a):
    """a with entries of magnitude below TAU set to 0 (callers add n·TAU to their error bounds)."""
    a = np.array(a, dtype=float)
    a[np.abs(a) < TAU] = 0.0
    return a


def _mant_exp(balls):
    """(f, k, ρ) with ball_i's exact value x_i = f_i 2^{k_i}(1 + a_i), |a_i| ≤ ρ (arb); x_i > 0."""
    f, k = [], []
    rho = flint.arb(0)
    for x in balls:
        man, exp = x.mid().man_exp()
        e = int(exp) + int(man).bit_length()
        y = x * flint.arb(2) ** (-e)  # in [1/2, 1] up to the ball radius
        fi = float(y.mid())
        rho = rho.max(abs(y - fi) / fi)
        f.append(fi)
        k.append(e)
    return np.array(f), np.array(k, dtype=np.int64), rho


def _floats(balls):
    return np.array([float(b.mid()) for b in balls])


class NotSeparated(InputError):
    """Kato–Temple bounds need a gap below the extreme eigenvalue: a cluster at the bottom of H's or J H J's
    spectrum (an SPD H of condition 1e12 with tied small eigenvalues) leaves the ball around it touching 0.
    Not a verdict on H: the caller encloses such a case on the ball path instead, or refuses it in one line."""


def enclose_curvature(log_z, H, dps=30):
    """(spectrum, methods, bits): rigorous balls for one example by the scaled Kato–Temple path above.

    log_z: exact log-weights (Fraction or int logits, or `Log(z)` for coefficients given as z);
    H: float64 ndarray (exact binary values), rows of exact numbers or an ExactMatrix, symmetric positive definite.
    The spectrum is a CurvatureSpectrum of balls; `methods[name]` says how each was enclosed."""
    options.dps(dps)
    n = len(log_z)
    if n < 2:
        raise InputError(f"an example needs at least 2 tokens (T = 1^⊥ is trivial for n = {n})")
    Hx = H if isinstance(H, ExactMatrix) else ExactMatrix(H, n)
    iso = Hx.isotropic()
    if iso is not None:
        a, b = iso
        if not (a > 0 and a + n * b > 0):
            raise InputError(f"H = {float(a):.6g} I + {float(b):.6g} 11ᵀ is not positive definite "
                             "(needs a > 0 and a + n b > 0)")
    A_H, copy_exact = Hx.scaled_float()
    w_H, V_H = np.linalg.eigh(A_H)
    if iso is not None:  # κ(H) exactly, as a power of two: 11ᵀ + 10⁻⁵⁰⁰⁰ I is far beyond float64's range
        ratio = max(a, a + n * b) / min(a, a + n * b)
        cond_bits = max(ratio.numerator.bit_length() - ratio.denominator.bit_length() + 1, 0)
    else:
        cond_bits = math.ceil(math.log2(max(w_H[-1] / w_H[0] if w_H[0] > 0 else 1e16, 1.0)))
    keys = exact_keys(log_z)
    spread = float(max(keys) - min(keys)) if not hasattr(log_z[0], "of") else math.log(float(max(keys) / min(keys)))
    prec = (math.ceil(dps * math.log2(10)) + GUARD_BITS + math.ceil(math.log2(n))
            + math.ceil(math.log2(max(spread, 1.0) + 1)) + cond_bits)
    target = 10.0 ** (-dps) / 4
    with flint.ctx.workprec(prec):
        out, methods, ctx = _fast(_Scaled(log_z), Hx, iso, A_H, copy_exact, w_H, V_H, target)
        if not out["mu_amb"] > 0:
            if out["mu_amb"] < 0:
                raise InputError("H is not positive definite (its smallest eigenvalue is certainly negative)")
            raise NotSeparated("H could not be certified positive definite on this path (its smallest eigenvalue "
                               f"within {float(out['mu_amb'].rad()):.2g} of 0)")
        if not out["lambda_min"] > 0:
            raise NotSeparated("λ_min of J H J on T could not be certified positive on this path")
        z_desc = tuple(ctx.z[k] for k in ctx.order)
        spectrum = CurvatureSpectrum(n, *(out[k] for k in NAMES), z_desc, 0.0, None,
                                     kappa=out["lambda_max"] / out["lambda_min"], R=extreme_ratio(log_z))
    return spectrum, methods, prec


def _fast(ctx, Hx, iso, A_H, copy_exact, w_H, V_H, target):
    """The O(n²)-in-arb path (plus O(n³) float64); returns {name: ball}, {name: method} and ctx."""
    n = ctx.n
    h = flint.arb(2) ** Hx.log2_scale
    Hs = Hx.scaled_arb()
    eta = flint.arb(ETA)
    e_H = flint.arb(0) if copy_exact else U * fro(A_H) + 2 * n * eta

    def apply_H(y):
        col = Hs * flint.arb_mat(n, 1, y)
        return [col[i, 0] for i in range(n)]

    def apply_HT(y):
        return _project(apply_H(y))

    out, methods = {}, {}
    KT = "Kato–Temple on float64 eigenvectors, {} refinement step(s)"
    one = flint.arb(1)

    # ---- H on T (and on Rⁿ) ---------------------------------------------------------
    A_T = centre(A_H)
    e_T = e_H + centre_error(A_H)  # ‖P(H_s − A_H)P‖ ≤ e_H, plus the centring's rounding
    if iso is not None:
        a, b = (to_arb(v) for v in iso)
        out["L_T"] = out["mu_T"] = a
        hi, lo = (a, a + n * b) if iso[1] < 0 else (a + n * b, a)
        out["L_amb"], out["mu_amb"] = hi, lo
        methods.update({k: "exact (isotropic H = aI + b11ᵀ)" for k in ("L_T", "mu_T", "L_amb", "mu_amb")})
        mu_T_scaled = a / h
    else:
        vp = VerifiedPencil(A_H, e_H, V_H)
        lo0, hi0 = vp.enclosure(0)
        if hi0 < 0:
            raise InputError("H is not positive definite (its smallest eigenvalue is certainly negative)")
        ball, steps, _ = refine_extreme(apply_H, None, None, V_H[:, -1], V_H, w_H, n - 1, "top",
                                        vp.enclosure(n - 2)[1], one, vp.enclosure(n - 1), target)
        out["L_amb"], methods["L_amb"] = h * ball, KT.format(steps)
        ball, steps, _ = refine_extreme(apply_H, None, None, V_H[:, 0], V_H, w_H, 0, "bottom",
                                        vp.enclosure(1)[0], one, (lo0, hi0), target)
        out["mu_amb"], methods["mu_amb"] = h * ball, KT.format(steps)
        w_T, V_T = np.linalg.eigh(A_T)
        vt = VerifiedPencil(A_T, e_T, V_T)
        # H SPD ⇒ spec(P H_s P) = {0} ∪ spec(H_T) with 0 lowest: index 1 is μ_T, n − 1 is L_T.
        ball, steps, _ = refine_extreme(apply_HT, None, _project, V_T[:, -1], V_T, w_T, n - 1, "top",
                                        vt.enclosure(n - 2)[1], one, vt.enclosure(n - 1), target)
        out["L_T"], methods["L_T"] = h * ball, KT.format(steps)
        beta = vt.enclosure(2)[0] if n >= 3 else None  # n = 2: T is a line, θ is the eigenvalue
        ball, steps, _ = refine_extreme(apply_HT, None, _project, V_T[:, 1], V_T, w_T, 1, "bottom",
                                        beta, one, vt.enclosure(1), target)
        out["mu_T"], methods["mu_T"] = h * ball, KT.format(steps)
        mu_T_scaled = ball
        if not mu_T_scaled > 0:  # λ_min(H_T) ≥ λ_min(H) (Cauchy interlacing for a compression)
            mu_T_scaled = out["mu_amb"] / h

    top_tied, bottom_tied = ctx.tied

    # ---- λ_max(B) = c² h λ_max(J_s H_s J_s) -------------------------------------------
    if iso is not None and top_tied:
        out["lambda_max"] = out["L_T"] * ctx.z[ctx.order[0]] ** 2
        methods["lambda_max"] = "exact (isotropic H, tied largest coefficient: λ_max(J) = z_max)"
    else:
        # Off-diagonal −w_i w_j from w_i ≈ f_i 2^{k_i} (f_i float, k_i integer, relative error ≤ ρ):
        # fl(f_i f_j) has one rounding and ldexp is exact (w itself may exceed float64's range; the
        # products off the diagonal are ≤ 4 because z_j ≤ S_i).  So |w_iw_j − J_f,ij| ≤ rel·|J_f,ij| + 2η,
        # rel = (1+ρ)²/(1−u) − 1.  The diagonal d_k (≤ 4) is rounded directly; its error is summed in arb.
        f, k, rho = _mant_exp(ctx.w)
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            J_f = -np.ldexp(np.outer(f, f), np.add.outer(k, k))
        d_f = _floats(ctx.d)
        np.fill_diagonal(J_f, d_f)  # the (possibly overflowed) squares w_k² are never used
        J_f = _flush(J_f)
        rel = (1 + rho) ** 2 / (1 - flint.arb(U)) - 1
        e_J = rel * fro(J_f) + 2 * n * eta + _vector_error(ctx.d, J_f.diagonal()) + n * flint.arb(TAU)
        Y = _flush(A_H @ J_f)
        Z = J_f @ Y
        A_B = _flush(0.5 * (Z + Z.T))
        nJ, nA = fro(J_f), fro(A_H)
        # J_sH_sJ_s − J_fA_HJ_f = ΔJ H_s J_s + J_f ΔH J_s + J_f A_H ΔJ, then the two products' rounding
        e_B = (e_J * (nA + e_H) * (nJ + e_J) + nJ * e_H * (nJ + e_J) + nJ * nA * e_J
               + nJ * matmul_error(nA, nJ, n, n, n) + matmul_error(nJ, fro(Y), n, n, n)
               + U * fro(A_B) + n * n * eta + (nJ + 1) * n * flint.arb(TAU))  # flushes of Y and A_B
        w_B, V_B = np.linalg.eigh(A_B)
        vb = VerifiedPencil(A_B, e_B, V_B)

        def apply_B(y):
            return ctx.apply_J(apply_H(ctx.apply_J(y)))

        ball, steps, _ = refine_extreme(apply_B, None, None, V_B[:, -1], V_B, w_B, n - 1, "top",
                                        vb.enclosure(n - 2)[1], one, vb.enclosure(n - 1), target)
        out["lambda_max"], methods["lambda_max"] = ctx.c**2 * h * ball, KT.format(steps)

    # ---- λ_min(B) = h g² / ν₁, ν₁ = top of the pencil (C_s, H_T) on T --------------------
    if iso is not None and bottom_tied:
        out["lambda_min"] = out["L_T"] * ctx.z[ctx.order[-1]] ** 2
        methods["lambda_min"] = "exact (isotropic H, tied smallest coefficient: λ_min(J on T) = z_min)"
    else:
        # E P E = E² − eeᵀ/n from e_i ≈ f_i 2^{k_i} (relative error ≤ ρ; e ≤ 1 may be far below float64's
        # range, ldexp underflows to ≤ η): off-diagonal fl(fl(f_if_j)/n) (2 roundings), diagonal
        # fl(fl(f_i²)·fl((n−1)/n)) (3 roundings), so |exact − K_f,ij| ≤ rel·|K_f,ij| + 2η with
        # rel = (1+ρ)²/(1−u)³ − 1; entries below TAU flushed (+TAU each).
        f, k, rho = _mant_exp(ctx.e)
        with np.errstate(under="ignore"):
            K_f = -np.ldexp(np.outer(f, f) / n, np.add.outer(k, k))
            np.fill_diagonal(K_f, np.ldexp((f * f) * ((n - 1) / n), 2 * k))
        K_f = _flush(K_f)
        rel = (1 + rho) ** 2 / (1 - flint.arb(U)) ** 3 - 1
        e_K = rel * fro(K_f) + 2 * n * eta + n * flint.arb(TAU)
        C_f = _flush(centre(K_f))
        e_C = e_K + centre_error(K_f) + n * flint.arb(TAU)
        t0 = 2.0 ** round(math.log2(max(float(np.trace(A_T)) / n / n, 1e-300)))
        Hp = A_T + t0  # float of P H_s P + t0 11ᵀ: SPD on Rⁿ, same as H_T on T, t0 n on span(1)
        e_Hp = e_T + U * fro(Hp) + n * n * eta
        import scipy.linalg  # loaded on use: the spectrum command and the search import this module

        nu, X = scipy.linalg.eigh(C_f, Hp)
        vc = VerifiedPencil(C_f, e_C, X, B=Hp, e_B=e_Hp)

        def apply_C(y):
            v = _project([a * b for a, b in zip(ctx.e, y)])
            return _project([a * b for a, b in zip(ctx.e, v)])

        # on Rⁿ the pencil is {0 on span(1)} ∪ (its T part), so its 2nd largest ≥ ν₂ on T
        ball, steps, _ = refine_extreme(apply_C, apply_HT, _project, X[:, -1], X, nu, n - 1, "top",
                                        vc.enclosure(n - 2)[1], mu_T_scaled, vc.enclosure(n - 1), target)
        out["lambda_min"] = h * ctx.g**2 / ball
        methods["lambda_min"] = KT.format(steps) + " (pencil (g²(J⁺)², H) on T)"
    return out, methods, ctx
