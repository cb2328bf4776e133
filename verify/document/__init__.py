"""The document a referee receives: the LaTeX export (latex_export), its claims and proofs (latex_claims,
latex_proofs, latex_display) and Unicode prose set as LaTeX text (mathtext)."""
