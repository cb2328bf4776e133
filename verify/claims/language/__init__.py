"""The claim language: its own small syntax tree (syntax), the whitelisted parser (parser), one record
per quantity (quantities), text and LaTeX printing (text, latex), the values a claim reads at an example
(values) and one tree walk that decides it in Arb balls (evaluate, balls, outcome). Reading a claim
imports neither SymPy nor the numerics' heavy parts; LaTeX loads SymPy's printer on use."""
