"""The prover: claims PROVED for every n from cited facts, decided by two SMT solvers.

`facts` is the library of cited theorems (each in the claim language, with its domain and source);
`smt` translates a claim and the facts that apply on its domain into nonlinear real arithmetic
(SMT-LIB2), split into pieces of n where index expressions collide (z(n−1) is z(1) at n = 2);
`solvers` runs Z3 and cvc5 on the same text; `prove` decides (PROVED only when both say unsat on
every piece), names the facts used (the unsat core) and turns satisfiable models into hints for the
counterexample search; `algebraic` (with `algebraic_check`, `algebraic_search`, `algebraic_lp`,
`algebraic_latex`) turns a proved piece into an identity a reader can check by hand and `check` confirms
exactly, without a solver; `certificate` writes and re-checks proof certificates.
"""
