"""The built-in claims: Theorem 2 / Eq. (47), Assumption 2 and the several-example claim, as data and checkers."""
