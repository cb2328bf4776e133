"""Exact structure of a matrix of exact numbers, decided exactly (never on float64 copies).

- `isotropic(H)`: (a, b) when H = a I + b 11ᵀ (then J H J = a J² on T, since J 1 = 0, and H on T is a I);
- `diagonal(H)`: H's diagonal when every off-diagonal entry is 0.
Entries are exact numbers: Fractions, ints, floats or mpf (each taken exactly).
"""
from verify.numerics.precision import to_fraction


def isotropic(H):
    """(a, b) as exact rationals when H = a I + b 11ᵀ exactly, else None (n ≥ 2)."""
    n = len(H)
    diagonal_value, off = H[0][0], H[0][1]
    if all(H[i][j] == (diagonal_value if i == j else off) for i in range(n) for j in range(n)):
        return to_fraction(diagonal_value) - to_fraction(off), to_fraction(off)
    return None


def diagonal(H):
    """H's diagonal as exact rationals when H is exactly diagonal, else None."""
    n = len(H)
    if all(H[i][j] == 0 for i in range(n) for j in range(n) if i != j):
        return [to_fraction(H[i][i]) for i in range(n)]
    return None
