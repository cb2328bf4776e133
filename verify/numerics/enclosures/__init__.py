"""Rigorous ball enclosures (python-flint arb) of the case-mode quantities of one example.

Public API: `enclose_case` → (CurvatureSpectrum of balls, bits, method), the one entry point of case
mode; `enclose_curvature` (the scaled Kato–Temple path for large n) and `digits_of`; building blocks
`VerifiedPencil`, `refine_extreme` (Kato–Temple from float64 eigenvectors); `ball_json`, the one
way a ball is printed.
"""
from verify.numerics.enclosures.balls import ball_json
from verify.numerics.enclosures.case import digits_of, enclose_case
from verify.numerics.enclosures.curvature import enclose_curvature
from verify.numerics.enclosures.verified import VerifiedPencil, refine_extreme

__all__ = ["enclose_case", "enclose_curvature", "digits_of", "VerifiedPencil", "refine_extreme", "ball_json"]
