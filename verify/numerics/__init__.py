"""Numerics: the bottom layer. Exact parsing of user numbers with the precision constants (precision),
rigorous positive definiteness in float64 time (definite), softmax and its Jacobian for float64, mpmath
and Arb balls (softmax), the tangent space T (tangent), the secular-equation solver for the eigenvalues
of J(z) and its rigorous root balls (secular, secular_balls), balls around every eigenvalue of a
symmetric matrix (eigenballs), the one spectrum record of J H J on T and its float64, precise and ball
paths (spectrum, curvature, curvature_balls), case mode's enclosures (enclosures), several examples
(T2.multi), the prompt-attention model and its p-Hessian, GD dynamics and the mathematics of
Assumption 2. It imports nothing from the rest of the package but `verify.base.errors`.
"""
