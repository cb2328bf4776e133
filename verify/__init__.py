"""verify: checks the mathematics of "Gradient Descent and Attention Models:
Challenges Posed by the Softmax Function" (see shared SPEC.md)."""

__version__ = "0.1.0"
