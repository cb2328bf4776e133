"""Numerics: the bottom layer. Exact parsing of user numbers with the precision constants (precision),
rigorous positive definiteness in float64 time (definite), softmax and its Jacobian for float64, mpmath
and Arb balls (softmax), the tangent space T (tangent), the secular-equation solver for the eigenvalues
of J(z) and its rigorous root balls (secular, secular_balls), κ_J and the `spectrum` command (jspectrum),
balls around every eigenvalue of a symmetric matrix (eigenballs), the one spectrum record of J H J on T and
its float64, precise and ball paths (spectrum, curvature, curvature_balls), case mode's enclosures
(enclosures), several examples (T2.multi), the prompt-attention model and its p-Hessian, GD dynamics and the
mathematics of Assumption 2. It imports nothing from the rest of the package but `verify.base`.

One implementation per numeric job: the softmax is `softmax.softmax`/`log_softmax` (float64 rows or mpf), κ_J
is `jspectrum.kappa_J_of`/`log10_kappa_J_of`, a number is written by `precision.decimal`, and every precision
is checked against `verify.base.options.MIN_DPS`..`MAX_DPS`. Eigenvalues at high precision come in three
kinds, because they are three jobs, none of which another can do at its cost:
- `eigenballs.symmetric_eigenvalue_balls`: rigorous balls around EVERY eigenvalue of a dense Arb matrix,
  clusters included (O(n³) Arb work per refinement step): the ball path, λ(k), T2.multi's blocks.
- `enclosures.verified.refine_extreme` (Kato–Temple): rigorous balls around the EXTREME eigenvalues of an
  operator applied matrix-free (O(n²) per product) from float64 eigenvectors, for case mode at large n, where
  a dense Arb eigensolve of n = 1000 is out of reach.
- `arb.top_eigenvalue`: an ESTIMATE of λ_max (Rayleigh-quotient iteration, Weyl residual; no ball) for the
  precise path. eigenballs could give it as a ball, and was measured to (n = 5..80, 40 and 100 digits: the same
  value to 1e-42 relative) at 2–6× the CPU, with balls of inverse and centred matrices 10–100× wider than the
  residual estimate; the precise path is an estimate stage whose result the ball stages re-decide, so it keeps
  the cheaper estimate.
"""
