"""What the study measures in each attention row z = softmax(s) of the causal rows (query t
attends to the t + 1 keys 0..t): R = z_max / z_min, the share of coefficients below 1e-4 and
1e-8, κ_J = λ_max / λ_min⁺ of J(z) = diag(z) − z zᵀ, and the Theorem 2 comparison.

κ_J is verify.numerics.jspectrum.log10_kappa_J_of: every row of one length, across layers, heads and
sequences, in one batched float64 solve; rows with a coefficient below float64's normal range by the secular
kernel's mpmath twin.

Theorem 2 is read with H = I (no decoder: the loss curvature in z is the identity, L = μ = 1),
so κ of J H J on T = 1^⊥ is κ_J².  It is compared with the Eq. (47) lower bound (L/μ)·R⁻² and
with the interlacing bounds (μ/L)(z_(2)/z_(n−1))² ≤ κ ≤ (L/μ)(z_(1)/z_(n))².  All of it is in
float64 log-domain from the attention logits, so z_min = 1e-40 is still seen.
"""
import math

import numpy as np

from verify.numerics.jspectrum import log10_kappa_J_of
from verify.numerics.secular import within_float_range
from verify.numerics.softmax import log_softmax

THRESHOLDS = (1e-4, 1e-8)
TOLERANCE = 1e-9  # in log10: a bound "holds" unless it fails by more than this (float64 rounding of κ_J)
LN10 = math.log(10.0)
COLUMNS = ("rows", "rows_mp", "log10_R_median", "log10_R_p90", "log10_R_p99", "log10_R_max", "frac_below_1e-4",
           "frac_below_1e-8", "log10_kappa_J_median", "log10_kappa_J_max", "eq47_holds", "interlace_lower_holds",
           "interlace_upper_holds", "log10_upper_over_kappa_median", "log10_kappa_over_lower_median",
           "log10_kappa_over_eq47_median")


def attention_log_probs(attention_logits):
    """log z in float64 from attention logits (…, T, T) with −∞ above the diagonal (the one softmax; the JAX
    model keeps jax.nn.softmax inside its jitted forward pass, where a numpy function cannot run)."""
    return log_softmax(np.asarray(attention_logits, dtype=np.float64))


def rows_measures(log_rows):
    """The measures of a stack (k, n) of rows given as natural-log coefficients, as arrays: n, R,
    κ_J (log10), whether the mpmath path was needed, the interlacing lower-bound ratio
    z_(2)/z_(n−1) (log10; NaN when n < 3) and the counts below each threshold (k × 2)."""
    ordered = -np.sort(-np.asarray(log_rows, dtype=np.float64), axis=-1)
    count, n = ordered.shape
    inside = np.fromiter((within_float_range(row[-1:]) for row in ordered), bool, count)
    kappa = log10_kappa_J_of(ordered)
    lower = (ordered[:, 1] - ordered[:, -2]) / LN10 if n >= 3 else np.full(count, np.nan)
    below = np.stack([np.sum(ordered < math.log(t), axis=-1) for t in THRESHOLDS], axis=-1)
    return {"n": np.full(count, n), "log10_R": (ordered[:, 0] - ordered[:, -1]) / LN10, "log10_kappa_J": kappa,
            "mp": ~inside, "log10_lower_ratio": lower, "below": below}


def row_measures(log_z):
    """One row's measures (natural-log coefficients in, log10 out): R, κ_J, the interlacing
    lower-bound ratio z_(2)/z_(n−1) (None when n < 3), counts below each threshold."""
    measures = rows_measures(np.asarray(log_z, dtype=np.float64)[None, :])
    lower = float(measures["log10_lower_ratio"][0])
    return {"n": int(measures["n"][0]), "log10_R": float(measures["log10_R"][0]),
            "log10_kappa_J": float(measures["log10_kappa_J"][0]), "mp": bool(measures["mp"][0]),
            "log10_lower_ratio": None if math.isnan(lower) else lower, "below": tuple(int(b) for b in measures["below"][0])}


def causal_rows(log_p, layer, batch, head):
    """The rows of one layer, sequence and head that have at least 2 keys: (t, log z over keys 0..t)."""
    matrix = log_p[layer, batch, head]
    return [(t, matrix[t, : t + 1]) for t in range(1, matrix.shape[0])]


def _stacked(measures):
    """One dict of arrays from a list of `rows_measures` / `row_measures` results."""
    if isinstance(measures, dict):
        return measures
    stacked = {}
    for key in ("n", "log10_R", "log10_kappa_J", "mp", "log10_lower_ratio", "below"):
        parts = [np.atleast_1d(np.nan if m[key] is None else m[key]) for m in measures]
        stacked[key] = np.concatenate([p.reshape(-1, 2) if key == "below" else p for p in parts])
    return stacked


def head_summary(measures):
    """The CSV columns of one (layer, head) from its rows' measures (a `rows_measures` dict or a
    list of row / stack measures); κ = κ_J² under H = I, L = μ = 1."""
    m = _stacked(measures)
    R, kJ = m["log10_R"], m["log10_kappa_J"]
    kappa = 2 * kJ  # log10 κ(J H J on T), H = I
    eq47 = -2 * R  # log10 (L/μ) R⁻²
    upper = 2 * R  # log10 (L/μ)(z_(1)/z_(n))²
    three = np.isfinite(m["log10_lower_ratio"])
    lower = 2 * m["log10_lower_ratio"][three]
    coefficients = int(m["n"].sum())
    summary = {
        "rows": len(R), "rows_mp": int(m["mp"].sum()),
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
        summary[f"frac_below_{threshold:.0e}".replace("e-0", "e-")] = int(m["below"][:, index].sum()) / coefficients
    return summary


def measure_attention(attention_logits):
    """{(layer, head): head_summary} over every sequence of the batch and every query t ≥ 1;
    rows with a non-finite logit (a diverged model) are left out.  The rows of one query t
    (every layer, sequence and head) are measured together."""
    log_p = attention_log_probs(attention_logits)
    layers, batch, heads, length = log_p.shape[:4]
    owner = np.broadcast_to((np.arange(layers)[:, None, None] * heads + np.arange(heads)[None, None, :]),
                            (layers, batch, heads)).ravel()
    parts, owners = [], []
    for t in range(1, length):
        rows = log_p[..., t, : t + 1].reshape(-1, t + 1)
        finite = np.isfinite(rows).all(axis=-1)
        if finite.any():
            parts.append(rows_measures(rows[finite]))
            owners.append(owner[finite])
    owners = np.concatenate(owners) if owners else np.empty(0, int)
    stacked = _stacked(parts) if parts else None
    result = {}
    for layer in range(layers):
        for head in range(heads):
            mine = owners == layer * heads + head
            result[(layer, head)] = (head_summary({k: v[mine] for k, v in stacked.items()}) if mine.any()
                                     else dict.fromkeys(COLUMNS, float("nan")))
    return result
