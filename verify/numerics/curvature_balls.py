"""The ball path: every quantity of one example as rigorous Arb balls at the context precision, for any n.

Inputs are exact (logits as Fractions or ints, coefficients given as z as `Log(z)`, H as exact rows).
With Q the Helmert basis of T (balls containing it), everything is a symmetric problem on T:
    H_T = QᵀHQ,  B_T = QᵀJHJQ = J_T H_T J_T  (J = QQᵀJQQᵀ),  J_T = QᵀJQ,
    B_T⁻¹ = K H_T⁻¹ K  with  K = J_T⁻¹ = QᵀD⁻¹Q  (J⁺ = P D⁻¹ P on T, D = diag z: no inversion of J).
λ_max is the top of B_T and λ_min = 1/(top of B_T⁻¹): both are largest eigenvalues, enclosed to about
2^-prec relative (`eigenballs`), so κ = λ_max/λ_min keeps its digits however tiny λ_min is (κ of
1e600 and beyond); only H's conditioning costs precision. Each λ_k is the intersection of B_T's k-th
ball and 1/(B_T⁻¹'s); each is exact to about 2^-prec·min(λ_max/λ_k, λ_k/λ_min).
Structure needs no eigensolver: an exactly isotropic H = aI + b11ᵀ has H_T = aI, so L_T = μ_T = a,
{L, μ} = {a, a + nb} and λ_k = a·j_k²; an exactly diagonal H has L, μ = its extreme entries and its
eigenvalues on T are the roots of Σ_i 1/(h_i − λ) = 0; J's eigenvalues j_k are the roots of
Σ z_j/(z_j − λ) = 0 (`secular_balls`, exact ties deflated exactly).
Any field is None when its quantity could not be enclosed at this precision; the others stand.
"""
import flint

from verify.base.errors import InputError
from verify.numerics.arb import arb_matrix
from verify.numerics.eigenballs import symmetric_eigenvalue_balls
from verify.numerics.precision import to_arb
from verify.numerics.secular_balls import secular_balls
from verify.numerics.softmax import exact_keys, extreme_ratio, jacobian_balls, softmax_balls
from verify.numerics.spectrum import CurvatureSpectrum
from verify.numerics.structure import diagonal, isotropic
from verify.numerics.tangent import tangent_basis_arb
from verify.base.printable import shown

WANTS = ("j", "lam")


def curvature_balls(log_z, H, want=(), curvature=True):
    """A CurvatureSpectrum of Arb balls for exact log-weights `log_z` and exact symmetric positive definite
    rows `H`, at the context precision (flint.ctx.workprec); `want` ⊆ {"j", "lam"} also fills J's positive
    eigenvalues and all eigenvalues of J H J on T (both decreasing). curvature=False leaves J H J and H
    alone (their fields None; "lam" needs them): z, R and J's eigenvalues are all a claim of z or J reads."""
    unknown = set(want) - set(WANTS)
    if unknown:
        raise InputError(f"want has {shown(sorted(unknown), 200)}; ask for a subset of {list(WANTS)}")
    n = len(log_z)
    keys = exact_keys(log_z)
    z, complements, e = softmax_balls(log_z)
    order = sorted(range(n), key=lambda i: keys[i], reverse=True)
    shape = isotropic(H) if curvature else None  # (a claim of z or J alone: H is not read)
    if "lam" in want and not curvature:
        raise InputError("want has 'lam', which needs the curvature; drop curvature=False")
    j = j_balls(keys, e) if "j" in want or (curvature and shape is not None) else None
    if not curvature:
        constants, lam, kappa = (None,) * 4, [None], None
    elif shape is not None:
        constants, lam, kappa = _isotropic(shape, n, j)
    else:
        constants, lam, kappa = _general(z, complements, H, "lam" in want)
    return CurvatureSpectrum(n, lam[0], lam[-1], *constants, tuple(z[i] for i in order), 0.0, None, kappa=kappa,
                             R=extreme_ratio(log_z),
                             j=tuple(j) if "j" in want else None, lam=tuple(lam) if "lam" in want else None)


def curvature_matrix_balls(log_z, H):
    """B = J H J (on Rⁿ) as an arb_mat for exact log-weights and exact rows of H, at the context precision."""
    J = jacobian_balls(*softmax_balls(log_z)[:2])
    return J * arb_matrix(H) * J


def j_balls(keys, e):
    """J's n − 1 positive eigenvalues, decreasing: the secular roots for the weights e_k = z_k/z_max, over Σe."""
    total = sum(e, flint.arb(0))
    return [None if v is None else v / total for v in secular_balls(keys, e, e)]


def _isotropic(shape, n, j):
    """H = aI + b11ᵀ: ((L_T, μ_T, L, μ), λ decreasing, κ) with λ_k = a j_k² and κ = (j_max/j_min)²."""
    a, b = shape
    a_ball = to_arb(a)
    ambient = sorted((a, a + n * b))
    lam = [None if v is None else a_ball * v * v for v in j]
    kappa = (j[0] / j[-1]) ** 2 if j[0] is not None and j[-1] is not None else None
    return (a_ball, a_ball, to_arb(ambient[1]), to_arb(ambient[0])), lam, kappa


def _general(z, complements, H, every):
    """((L_T, μ_T, L, μ), λ decreasing, κ) through the symmetric problems of the module docstring."""
    n = len(z)
    Hb = arb_matrix(H)
    Q = tangent_basis_arb(n)
    H_T = Q.transpose() * Hb * Q
    constants = _constants(H, Hb, H_T)
    J_T = Q.transpose() * jacobian_balls(z, complements) * Q
    D_inv = flint.arb_mat(n, n)
    for i in range(n):
        D_inv[i, i] = 1 / z[i]
    K = Q.transpose() * D_inv * Q
    inverse_H_T = H_T.inv(nonstop=True)
    wanted = None if every else {n - 2}
    direct = symmetric_eigenvalue_balls(J_T * H_T * J_T, wanted=wanted)
    inverse = symmetric_eigenvalue_balls(K * inverse_H_T * K, wanted=wanted)
    lam = [_both(direct[n - 2 - k] if direct else None, 1 / inverse[k] if inverse else None) for k in range(n - 1)]
    kappa = lam[0] / lam[-1] if lam[0] is not None and lam[-1] is not None else None
    return constants, lam, kappa


def _constants(H, Hb, H_T):
    """(L_T, μ_T, L, μ): H's extreme eigenvalues on T and on Rⁿ (exact entries when H is diagonal)."""
    n = len(H)
    entries = diagonal(H)
    if entries is not None:
        on_T = secular_balls(entries, [to_arb(v) for v in entries], [flint.arb(1)] * n)
        return on_T[0], on_T[-1], to_arb(max(entries)), to_arb(min(entries))
    on_T = symmetric_eigenvalue_balls(H_T, wanted={0, n - 2}) or [None]
    ambient = symmetric_eigenvalue_balls(Hb, wanted={0, n - 1}) or [None]
    return on_T[-1], on_T[0], ambient[-1], ambient[0]


def _both(first, second):
    """The intersection of two enclosures of one value (either may be None or not finite)."""
    balls = [b for b in (first, second) if b is not None and b.is_finite()]
    if not balls:
        return None
    if len(balls) == 1:
        return balls[0]
    return balls[0].intersection(balls[1])

