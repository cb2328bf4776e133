"""The command line: argument parsing (cli, arguments), the tables a run prints (tables, case_tables) and the
plots. Thin: every piece of work is done by verify.api.

The command's processes use one BLAS thread each (set here, before NumPy loads OpenBLAS, for `python -m verify` and
the `verify` script alike; OPENBLAS_NUM_THREADS set by the caller wins): the command runs one process per core itself,
and at n = 1000 a second BLAS thread gains little time while it multiplies the CPU spent (a 1000 × 1000 eigh: 0.16 s
of CPU on one thread, up to 3 s with threads spinning against a busy machine's other work)."""
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
