"""Running the experiments: each one's CSV and PNG under the output folder, and summary.md.

`run_experiments` is the library API (it never prints); `progress(fraction, label)` is an
optional callback.
"""
import csv
import io
import json
import time
from pathlib import Path

import numpy as np

from verify.base import atomic, options
from verify.experiments import common as experiments
from verify.experiments.common import QUICK, SPARSE_STEPS
from verify.experiments.synthetic import EXPERIMENTS
from verify.experiments.training import GD_GRID, STEP_GRIDS
from verify.base.versions import package_versions


def run_experiments(names=None, scale=QUICK, out_dir="results", seed=0, progress=None):
    """Run the named experiments (all by default), write their files, return the results and paths."""
    names = options.known(list(names or EXPERIMENTS), EXPERIMENTS, "experiment")
    options.seed(seed)
    experiments.checked_scale(scale)
    atomic.check_out_dir(options.path(out_dir, "out", "a folder such as 'results'"))
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    results, seconds = [], {}
    for index, name in enumerate(names):
        started = time.perf_counter()
        rng = np.random.default_rng([seed, index])
        inner = (lambda fraction, i=index, n=name: progress((i + fraction) / len(names), n)) if progress else None
        result = EXPERIMENTS[name](rng, scale, inner)
        seconds[name] = time.perf_counter() - started
        _write(out, result)
        results.append(result)
    if progress:
        progress(1.0, "done")
    atomic.write_text(out / "summary.md", summary(results, scale, seed, seconds))
    return results


def _write(out, result):
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(result.columns)
    writer.writerows(result.rows)
    atomic.write_text(out / f"{result.name}.csv", buffer.getvalue())
    image = io.BytesIO()
    result.figure.tight_layout()
    result.figure.savefig(image, format="png", dpi=110, bbox_inches="tight")  # the legend below the axes too
    import matplotlib.pyplot as plt  # loaded with the first figure, not at import

    plt.close(result.figure)
    atomic.write_bytes(out / f"{result.name}.png", image.getvalue())


def summary(results, scale, seed, seconds):
    lines = ["# Reviewer-requested experiments", "",
             f"Synthetic student–teacher prompt attention: N sequences of n tokens with keys K_i (n × d) and values "
             f"u_i = X_i v, predictions ŷ_i = u_iᵀ softmax(K_i p), a student prompt p trained from 0 to fit the labels of a "
             f"teacher (p*, v*). `{scale.name}` settings: n = {scale.n}, N = {scale.N}, "
             f"d = {scale.d_over} (over-parameterized, orthonormal keys) or {scale.d_under} (under), {scale.steps} steps per run "
             f"({SPARSE_STEPS}× for sparse-target). Seed {seed}. Step sizes: the best of GD {list(GD_GRID)} × 1/L₀ (L₀ the largest Hessian "
             f"eigenvalue at the start), " + ", ".join(f"{o} {list(STEP_GRIDS[o])}" for o in STEP_GRIDS)
             + ", by the steps needed to cut the training loss 1000× (else the final loss).", ""]
    for result in results:
        lines += [f"## {result.name}", "", f"Files: `{result.name}.csv`, `{result.name}.png` ({seconds[result.name]:.1f} s).", ""]
        lines += [f"- {sentence}" for sentence in result.findings]
        lines.append("")
    lines += ["## Reproducibility", "", "```json", json.dumps({"seed": seed, "scale": scale.name, "versions": package_versions()}, indent=2),
              "```", ""]
    return "\n".join(lines)
