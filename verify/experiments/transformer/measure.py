"""What the study measures in each attention row z = softmax(s) of the causal rows (query t
attends to the t + 1 keys 0..t): R = z_max / z_min, the share of coefficients below 1e-4 and
1e-8, κ_J = λ_max / λ_min⁺ of J(z) = diag(z) − z zᵀ (secular kernel; rows whose coefficients
leave float64's range go through its mpmath twin in log-domain), and the Theorem 2 comparison.

Theorem 2 is read with H = I (no decoder: the loss curvature in z is the identity, L = μ = 1),
so κ of J H J on T = 1^⊥ is κ_J².  It is compared with the Eq. (47) lower bound (L/μ)·R⁻² and
with the interlacing bounds (μ/L)(z_(2)/z_(n−1))² ≤ κ ≤ (L/μ)(z_(1)/z_(n))².  All of it is in
float64 log-domain from the attention logits, so z_min = 1e-40 is still seen.
"""
import math

import mpmath as mp
import numpy as np

from verify.numerics.secular import j_eigenvalues, j_eigenvalues_mp, within_float_range

THRESHOLDS = (1e-4, 1e-8)
TOLERANCE = 1e-9  # in log10: a bound "holds" unless it fails by more than this (float64 rounding of κ_J)
LN10 = math.log(10.0)
MP_DPS = 30
COLUMNS = ("rows", "rows_mp", "log10_R_median", "log10_R_p90", "log10_R_p99", "log10_R_max", "frac_below_1e-4",
           "frac_below_1e-8", "log10_kappa_J_median", "log10_kappa_J_max", "eq47_holds", "interlace_lower_holds",
           "interlace_upper_holds", "log10_upper_over_kappa_median", "log10_kappa_over_lower_median",
           "log10_kappa_over_eq47_median")


def attention_log_probs(attention_logits):
    """log z in float64 from attention logits (…, T, T) with −∞ above the diagonal."""
    s = np.asarray(attention_logits, dtype=np.float64)
    top = np.max(s, axis=-1, keepdims=True)
    with np.errstate(invalid="ignore"):
        shifted = s - top  # −∞ stays −∞
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))


def log10_kappa_J(log_z):
    """log10 of κ_J = λ_1 / λ_{n−1} of J(z) for one row given as natural-log coefficients, and
    whether the mpmath path was needed (a coefficient below float64's normal range)."""
    log_z = np.asarray(log_z, dtype=np.float64)
    if within_float_range(log_z):
        z = np.exp(log_z - np.max(log_z))
        values = j_eigenvalues(z / z.sum())
        return math.log10(values[0]) - math.log10(values[-2]), False
    with mp.workdps(MP_DPS):
        values = j_eigenvalues_mp(log_z=[float(v) for v in log_z], dps=MP_DPS)
        return float(mp.log10(values[0]) - mp.log10(values[-2])), True


def row_measures(log_z):
    """One row's measures (natural-log coefficients in, log10 out): R, κ_J, the interlacing
    lower-bound ratio z_(2)/z_(n−1) (None when n < 3), counts below each threshold."""
    ordered = np.sort(np.asarray(log_z, dtype=np.float64))[::-1]
    n = len(ordered)
    log10_R = (ordered[0] - ordered[-1]) / LN10
    log10_lower_ratio = (ordered[1] - ordered[-2]) / LN10 if n >= 3 else None
    kappa, used_mp = log10_kappa_J(ordered)
    below = tuple(int(np.sum(ordered < math.log(t))) for t in THRESHOLDS)
    return {"n": n, "log10_R": log10_R, "log10_kappa_J": kappa, "mp": used_mp,
            "log10_lower_ratio": log10_lower_ratio, "below": below}


def causal_rows(log_p, layer, batch, head):
    """The rows of one layer, sequence and head that have at least 2 keys: (t, log z over keys 0..t)."""
    matrix = log_p[layer, batch, head]
    return [(t, matrix[t, : t + 1]) for t in range(1, matrix.shape[0])]


def head_summary(measures):
    """The CSV columns of one (layer, head) from its rows' measures (κ = κ_J² under H = I, L = μ = 1)."""
    R = np.array([m["log10_R"] for m in measures])
    kJ = np.array([m["log10_kappa_J"] for m in measures])
    kappa = 2 * kJ  # log10 κ(J H J on T), H = I
    eq47 = -2 * R  # log10 (L/μ) R⁻²
    upper = 2 * R  # log10 (L/μ)(z_(1)/z_(n))²
    three = np.array([m["log10_lower_ratio"] is not None for m in measures])
    lower = np.array([2 * m["log10_lower_ratio"] for m in measures if m["log10_lower_ratio"] is not None])
    coefficients = sum(m["n"] for m in measures)
    summary = {
        "rows": len(measures), "rows_mp": sum(m["mp"] for m in measures),
        "log10_R_median": float(np.median(R)), "log10_R_p90": float(np.percentile(R, 90)),
        "log10_R_p99": float(np.percentile(R, 99)), "log10_R_max": float(R.max()),
        "log10_kappa_J_median": float(np.median(kJ)), "log10_kappa_J_max": float(kJ.max()),
        "eq47_holds": float(np.mean(kappa >= eq47 - TOLERANCE)),
        "interlace_upper_holds": float(np.mean(kappa[three] <= upper[three] + TOLERANCE)) if three.any() else float("nan"),
        "interlace_lower_holds": float(np.mean(kappa[three] >= lower - TOLERANCE)) if three.any() else float("nan"),
        "log10_upper_over_kappa_median": float(np.median(upper[three] - kappa[three])) if three.any() else float("nan"),
        "log10_kappa_over_lower_median": float(np.median(kappa[three] - lower)) if three.any() else float("nan"),
        "log10_kappa_over_eq47_median": float(np.median(kappa - eq47)),
    }
    for index, threshold in enumerate(THRESHOLDS):
        summary[f"frac_below_{threshold:.0e}".replace("e-0", "e-")] = sum(m["below"][index] for m in measures) / coefficients
    return summary


def measure_attention(attention_logits):
    """{(layer, head): head_summary} over every sequence of the batch and every query t ≥ 1;
    rows with a non-finite logit (a diverged model) are left out."""
    log_p = attention_log_probs(attention_logits)
    layers, batch, heads = log_p.shape[:3]
    result = {}
    with _one_numba_thread():  # rows of ≤ a few hundred roots: waking a thread pool per row costs more than it saves
        for layer in range(layers):
            for head in range(heads):
                measures = [row_measures(row) for b in range(batch) for _, row in causal_rows(log_p, layer, b, head)
                            if np.isfinite(row).all()]
                result[(layer, head)] = head_summary(measures) if measures else dict.fromkeys(COLUMNS, float("nan"))
    return result


class _one_numba_thread:
    """Run the secular kernel on one thread inside the block (numba is optional)."""

    def __enter__(self):
        try:
            import numba
        except ImportError:  # pragma: no cover
            self.numba = None
            return self
        self.numba, self.before = numba, numba.get_num_threads()
        numba.set_num_threads(1)
        return self

    def __exit__(self, *exc):
        if self.numba is not None:
            self.numba.set_num_threads(self.before)
        return False
