"""Numerics: the bottom layer. Softmax and its Jacobian for float64, mpmath and Arb numbers, the
secular-equation kernel for the eigenvalues of J(z), the spectra of J H J on T (float64 fast path
and precise path), several examples (T2.multi), the prompt-attention model and its p-Hessian, GD
dynamics, the mathematics of Assumption 2, and exact parsing of user numbers with the precision
constants. It imports nothing from the rest of the package but `verify.errors`.
"""
