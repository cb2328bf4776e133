"""Gradient descent near a stationary point: the predicted and the observed local rate (D6).

Linearising GD at p* gives e_{t+1} ≈ (I − η ∇²L(p*)) e_t; on the range of the Hessian the
contraction per step is max_λ |1 − ηλ| over its positive eigenvalues, 1 − 1/κ at η = 1/λ_max.
The observed rate is read off the residuals r_t = ŷ(p_t) − y of a real GD run started
close to p*: in the linear regime r_{t+1} ≈ (I − η G) r_t with G the Gram matrix of the
Gauss–Newton factor, so ‖r_t‖ contracts by the slowest mode's factor.
"""
from dataclasses import dataclass

import numpy as np

from verify.numerics import model


def predicted_rate(eigenvalues, eta):
    """max |1 − ηλ| over the positive eigenvalues of the Hessian on its range."""
    eigenvalues = np.asarray(eigenvalues)
    return float(np.max(np.abs(1 - eta * eigenvalues)))


@dataclass(frozen=True)
class ObservedRate:
    """The contraction per GD step read off a run near p*, its resolution, and the steps it took."""

    rate: float  # contraction of ‖ŷ − y‖ per step: exp(slope of log‖r_t‖) over the fitted window
    resolution: float  # largest deviation of a per-step ratio from the fit (the measurement's own error)
    steps: int


def observed_rate(problem, p_star, eta, rng, start=1e-5, floor=1e-7, max_steps=20000):
    """Run GD from p* + start·(random unit direction) until ‖r‖ falls by `floor` (well above
    rounding) and fit the contraction where the slow mode dominates (after a 100× fall)."""
    direction = rng.standard_normal(problem.d)
    p = p_star + start * direction / np.linalg.norm(direction)
    residuals = []
    for _ in range(max_steps):
        _, yhat = model.attention(problem, p)
        residuals.append(np.linalg.norm(yhat - problem.y))
        if residuals[-1] < floor * residuals[0] or residuals[-1] > 1e6 * residuals[0]:
            break
        p = p - eta * model.gradient(problem, p)
    logs = np.log(np.array(residuals))
    window = np.nonzero(logs <= logs[0] + np.log(1e-2))[0]
    if len(window) < 5:
        window = np.arange(len(logs) // 2, len(logs))
    if len(window) < 2:
        return ObservedRate(float("nan"), float("nan"), len(logs))
    slope, intercept = np.polyfit(window, logs[window], 1)
    deviation = np.abs(np.diff(logs[window]) - slope).max()
    return ObservedRate(float(np.exp(slope)), float(np.expm1(deviation)), len(logs))
