"""The study's files: transformer.csv (one row per optimizer, step, layer, head), transformer.json
(seed, settings, step grids, findings, versions), the PNG plots and summary.md, each written
atomically; the findings are computed here from the rows, never typed in."""
import csv
import io
import json
import math

import numpy as np

from verify.base import atomic
from verify.experiments.common import grid_edge, legend_below
from verify.experiments.transformer.measure import COLUMNS
from verify.base.versions import package_versions

CSV_COLUMNS = ("optimizer", "step_size", "step", "layer", "head", "train_loss", "val_loss") + COLUMNS
THRESHOLDS = (4, 8)  # log10 R
COLOR = {"sgd": "tab:blue", "sgd-momentum": "tab:green", "adam": "tab:orange", "adamw": "tab:red"}
NOTE = ("Theorem 2 is read with H = I (no decoder: the curvature of the loss in z is the identity, so L = μ = 1); "
        "then κ of J H J on T = 1^⊥ is κ_J², the Eq. (47) lower bound is R⁻² and the interlacing bounds are "
        "(z_(2)/z_(n−1))² ≤ κ ≤ (z_(1)/z_(n))².")


def _by(rows, optimizer):
    return [r for r in rows if r["optimizer"] == optimizer]


def _per_step(rows, key, reduce=max):
    steps = sorted({r["step"] for r in rows})
    return steps, [reduce(r[key] for r in rows if r["step"] == s) for s in steps]


def first_crossing(rows, threshold, key="log10_R_p99"):
    """(step, val loss, layer, head) of the first measured step where some layer/head has key > threshold."""
    for row in sorted(rows, key=lambda r: (r["step"], r["layer"], r["head"])):
        if row[key] > threshold:
            return row["step"], row["val_loss"], row["layer"], row["head"]
    return None


def findings(rows, runs, chosen, settings):
    """One sentence per finding, with the numbers behind it."""
    out = []
    for name in chosen:
        mine = _by(rows, name)
        last = max(r["step"] for r in mine)
        parts = []
        for threshold in THRESHOLDS:
            hit = first_crossing(mine, threshold)
            if hit:
                parts.append(f"exceeds 1e{threshold} at step {hit[0]} (validation loss {hit[1]:.3f}, layer {hit[2]}, "
                             f"head {hit[3]})")
            else:
                parts.append(f"never exceeds 1e{threshold} in {last} steps")
        peak_p99 = max(r["log10_R_p99"] for r in mine)
        peak = max(r["log10_R_max"] for r in mine)
        crossed = f"{parts[0]}, and {parts[1]}" if "never" not in parts[0] else f"never exceeds 1e4 (nor 1e8) in {last} steps"
        out.append(f"{name} (step size {runs[name]['step_size']:g}): the 99th percentile of R over the rows of a layer/head "
                   f"{crossed}; its largest value was 10^{peak_p99:.2f} and the largest R of any row "
                   f"10^{peak:.2f}.")
    out += _adam_versus_sgd(rows, runs, chosen)
    final = {name: [r for r in _by(rows, name) if r["step"] == max(q["step"] for q in _by(rows, name))] for name in chosen}
    out.append("Final κ_J (median over rows, largest over layers/heads; largest row): " + "; ".join(
        f"{name} 10^{max(r['log10_kappa_J_median'] for r in final[name]):.2f}, "
        f"10^{max(r['log10_kappa_J_max'] for r in final[name]):.2f}" for name in chosen) + ".")
    out.append(_theorem2(rows))
    out += _grid_edges(runs, chosen)
    return tuple(out)


def _grid_edges(runs, chosen):
    """A chosen step size at the edge of its grid: a step beyond it might have done better, and was not tried."""
    out = []
    for name in chosen:
        grid = tuple(runs[name].get("grid", ()))
        edge = grid_edge(runs[name]["step_size"], grid)
        if edge:
            out.append(f"{name}: the chosen step size {runs[name]['step_size']:g} is the {edge} of its grid "
                       f"({', '.join(f'{g:g}' for g in grid)}); a step beyond it was not tried.")
    return out


def _final(rows, runs, name):
    mine = _by(rows, name)
    last = max(r["step"] for r in mine)
    at_end = [r for r in mine if r["step"] == last]
    return runs[name]["val_loss"][-1], max(r["log10_R_p99"] for r in at_end), max(r["log10_R_median"] for r in at_end)


def _adam_versus_sgd(rows, runs, chosen):
    sgds = [n for n in chosen if n.startswith("sgd")]
    adams = [n for n in chosen if n.startswith("adam")]
    if not sgds or not adams:
        return ["Adam against SGD: not compared (run at least one of each)."]
    finite = lambda n: _final(rows, runs, n)[0] if math.isfinite(_final(rows, runs, n)[0]) else math.inf  # noqa: E731
    sgd, adam = min(sgds, key=finite), min(adams, key=finite)
    (l_s, p_s, m_s), (l_a, p_a, m_a) = _final(rows, runs, sgd), _final(rows, runs, adam)
    lower, higher = l_a < l_s, p_a > p_s
    verdict = "yes" if lower and higher else "no"
    return [f"Does Adam reach a lower loss with a higher R? {verdict}: final validation loss {l_a:.3f} ({adam}) against "
            f"{l_s:.3f} ({sgd}, the better SGD), with the 99th percentile of R (largest over layers/heads) "
            f"10^{p_a:.2f} against 10^{p_s:.2f} and the median 10^{m_a:.2f} against 10^{m_s:.2f}."]


def _theorem2(rows):
    weights = np.array([r["rows"] for r in rows], dtype=float)
    usable = np.isfinite([r["eq47_holds"] for r in rows])
    share = lambda key: float(np.average([r[key] for r in rows if np.isfinite(r[key])],  # noqa: E731
                                         weights=weights[np.isfinite([r[key] for r in rows])]))
    tight = np.median([r["log10_upper_over_kappa_median"] for r in rows if np.isfinite(r["log10_upper_over_kappa_median"])])
    slack = np.median([r["log10_kappa_over_eq47_median"] for r in rows if np.isfinite(r["log10_kappa_over_eq47_median"])])
    return (f"Theorem 2 with H = I (L = μ = 1), over {int(weights[usable].sum())} measured rows: the Eq. (47) lower bound "
            f"R⁻² ≤ κ holds in {100 * share('eq47_holds'):.2f}% of rows (κ exceeds it by a median factor 10^{slack:.2f}), "
            f"the interlacing lower bound in {100 * share('interlace_lower_holds'):.2f}% and the upper bound "
            f"κ ≤ R² in {100 * share('interlace_upper_holds'):.2f}% of rows of length ≥ 3; the upper bound is within a "
            f"factor 10^{tight:.2f} of κ (median over layers, heads and steps of the median row).")


def write_csv(path, rows):
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        writer.writerow([_cell(row[c]) for c in CSV_COLUMNS])
    return atomic.write_text(path, buffer.getvalue())


def _cell(value):
    return repr(float(value)) if isinstance(value, (float, np.floating)) else value


def _figure(panels, title, sharey=False):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    columns = min(2, panels)
    fig, axes = plt.subplots(math.ceil(panels / columns), columns, figsize=(6 * columns, 3.6 * math.ceil(panels / columns)),
                             squeeze=False, sharey=sharey)
    fig.suptitle(title, fontsize=11)
    return fig, axes.ravel(), plt


def _save(fig, plt, path):
    image = io.BytesIO()
    fig.tight_layout()
    fig.savefig(image, format="png", dpi=100, bbox_inches="tight")  # the legends below the panels too
    plt.close(fig)
    return atomic.write_bytes(path, image.getvalue())


def plot_R(path, rows, chosen, runs, layers):
    fig, plt = R_figure(rows, chosen, runs, layers)
    return _save(fig, plt, path)


def R_figure(rows, chosen, runs, layers):
    """One panel per optimizer on one shared log10 R axis, so the optimizers compare at a glance."""
    lines = " and ".join(f"1e{t}" for t in THRESHOLDS)
    fig, axes, plt = _figure(len(chosen), "log10 R = log10(z_max / z_min) of the attention rows (largest over heads), "
                                          f"fixed validation batch; grey lines: R = {lines}", sharey=True)
    colors = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink", "tab:gray"]
    for ax, name in zip(axes, chosen):
        mine = _by(rows, name)
        for layer in range(layers):
            here = [r for r in mine if r["layer"] == layer]
            for key, style, label in (("log10_R_median", "-", "median"), ("log10_R_p90", "--", "90th pct"),
                                      ("log10_R_p99", ":", "99th pct")):
                steps, values = _per_step(here, key)
                ax.plot(steps, values, style, color=colors[layer % len(colors)], label=f"layer {layer}, {label}")
        for threshold in THRESHOLDS:
            ax.axhline(threshold, color="0.6", linewidth=0.8)
        ax.set_title(f"{name} (step size η = {runs[name]['step_size']:g})", fontsize=10)
        ax.set_xlabel("training step")
        ax.set_ylabel("log10 R")
        ax.tick_params(labelleft=True)
    handles, labels = axes[0].get_legend_handles_labels()  # the same lines in every panel: one legend, below them all
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0), ncol=3, fontsize=7, frameon=False)
    for ax in axes[len(chosen):]:
        ax.set_visible(False)
    return fig, plt


def plot_loss(path, rows, chosen, runs):
    fig, axes, plt = _figure(2, "Loss (nats per character) and κ_J along training")
    for name in chosen:
        run = runs[name]
        color = COLOR.get(name)
        axes[0].plot(run["steps"], run["val_loss"], "-", color=color, label=f"{name} validation")
        axes[0].plot(run["steps"], run["train_loss"], "--", color=color, label=f"{name} train")
        steps, values = _per_step(_by(rows, name), "log10_kappa_J_median")
        axes[1].plot(steps, values, "-", color=color, label=f"{name} median row")
        steps, values = _per_step(_by(rows, name), "log10_kappa_J_max")
        axes[1].plot(steps, values, ":", color=color, label=f"{name} largest row")
    axes[0].set_ylabel("cross-entropy (nats)")
    axes[1].set_ylabel("log10 κ_J\n(largest over layers/heads)")
    for ax in axes:
        ax.set_xlabel("training step")
        legend_below(ax, below=0.24)  # a shorter panel than the synthetic figures': its label takes more of it
    return _save(fig, plt, path)


def write_all(out, settings, settings_dict, seed, text, chosen, rows, runs, timings):
    """Every file; returns (findings, {kind: path})."""
    out.mkdir(parents=True, exist_ok=True)
    found = findings(rows, runs, chosen, settings)
    paths = {"csv": write_csv(out / "transformer.csv", rows),
             "R_plot": plot_R(out / "transformer_R.png", rows, chosen, runs, settings.layers),
             "loss_plot": plot_loss(out / "transformer_loss.png", rows, chosen, runs)}
    versions = package_versions()
    record = {"seed": seed, "settings": settings_dict, "corpus": _corpus(text),
              "optimizers": {n: {"step_size": runs[n]["step_size"],
                                 "grid_final_val_loss": {repr(k): _json_number(v) for k, v in runs[n]["grid"].items()},
                                 "final_train_loss": _json_number(runs[n]["train_loss"][-1]),
                                 "final_val_loss": _json_number(runs[n]["val_loss"][-1])}
                             for n in chosen},
              "theorem2_reading": NOTE, "findings": list(found), "versions": versions}
    paths["json"] = atomic.write_text(out / "transformer.json", json.dumps(record, indent=2) + "\n")
    paths["summary"] = atomic.write_text(out / "summary.md", _summary(record, settings, chosen, runs, timings))
    return found, paths


def _json_number(value):
    """A float, or None for a diverged (non-finite) loss: JSON has no NaN."""
    return float(value) if math.isfinite(value) else None


def _corpus(text):
    return {"name": text.name, "train_characters": int(len(text.train)), "validation_characters": int(len(text.val)),
            "vocabulary_size": len(text.vocabulary), "validation_documents": list(text.documents[1])}


def _summary(record, settings, chosen, runs, timings):
    s = settings
    lines = ["# Attention coefficients while training a character transformer", "",
             f"Decoder-only character transformer (pre-norm, causal softmax attention, learned positions): "
             f"{s.layers} layers, {s.heads} heads, width {s.width}, context {s.context}, batch {s.batch}, "
             f"{s.steps} steps for every optimizer, `{s.name}` preset, seed {record['seed']}, corpus "
             f"`{record['corpus']['name']}` ({record['corpus']['train_characters']} training and "
             f"{record['corpus']['validation_characters']} validation characters, whole documents split by the seed). "
             f"Measured at {len(runs[chosen[0]]['steps'])} steps on the {s.measure_batch} sequences of a fixed "
             f"validation batch: every causal row (query t attends to t + 1 keys; rows of 1 key skipped), each "
             f"layer and head, in float64 log-domain from the attention logits. {NOTE}", "",
             "## Findings", ""]
    lines += [f"- {f}" for f in record["findings"]]
    lines += ["", "## Step sizes", "", "| optimizer | grid: final validation loss | chosen | final train | final validation |",
              "|---|---|---|---|---|"]
    for name in chosen:
        grid = ", ".join(f"{k:g}: {v:.3f}" if math.isfinite(v) else f"{k:g}: diverged" for k, v in runs[name]["grid"].items())
        lines.append(f"| {name} | {grid} | {runs[name]['step_size']:g} | {runs[name]['train_loss'][-1]:.3f} | "
                     f"{runs[name]['val_loss'][-1]:.3f} |")
    lines += ["", "Files: `transformer.csv` (one row per optimizer, step, layer, head), `transformer.json`, "
              "`transformer_R.png`, `transformer_loss.png`.", "",
              f"Wall time before writing the files {sum(timings.values()):.1f} s: "
              + ", ".join(f"{phase} {seconds:.1f} s" for phase, seconds in timings.items()) + ".", "",
              "## Reproducibility", "", "```json",
              json.dumps({"seed": record["seed"], "settings": record["settings"], "versions": record["versions"]}, indent=2),
              "```", ""]
    return "\n".join(lines)
