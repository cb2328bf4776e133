"""Verdicts: the one decision of a claim's verdict from the prover and the search, and the result types."""
