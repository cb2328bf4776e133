"""Rigorous ball enclosures (python-flint arb) of the case-mode quantities of one example.

Public API: `enclose_curvature` → `CurvatureEnclosure`; building blocks
`VerifiedPencil`, `refine_extreme` (Kato–Temple from float64 eigenvectors);
rendering helpers `ball_interval`, `ball_mid_rad`.
"""
from verify.numerics.enclosures.balls import ball_interval, ball_mid_rad
from verify.numerics.enclosures.curvature import CurvatureEnclosure, enclose_curvature
from verify.numerics.enclosures.verified import VerifiedPencil, refine_extreme

__all__ = ["enclose_curvature", "CurvatureEnclosure", "VerifiedPencil", "refine_extreme",
           "ball_interval", "ball_mid_rad"]
