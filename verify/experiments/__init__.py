"""Experiments: the synthetic student–teacher training model and its optimizers
(`training`), the seven reviewer-requested experiments (`synthetic`), and the runner that writes
CSV, PNG and summary.md (`runner`). It imports `verify.numerics` only. A new experiment is a
function in `synthetic.py` (or a module of its own) registered in `EXPERIMENTS`.  The `transformer`
package is a study of its own: R along the training of a character transformer in JAX.
"""
