"""The study: settings presets, the choice of each optimizer's best step (SGD with and without
momentum at the best step of a small grid; Adam; AdamW; one budget of steps for all, trained in
`training`), and the measurements of the attention rows of a fixed validation batch every k
steps.  `run_transformer_study` validates every input before it writes anything, never prints,
reports through an optional `progress(fraction, label)` callback and returns the seconds of each
phase.  Same seed, same numbers.
"""
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from verify.base import atomic, options
from verify.base.errors import InputError
from verify.experiments.transformer import corpus as corpora
from verify.experiments.transformer.measure import measure_attention
from verify.experiments.transformer.model import jax_modules
from verify.experiments.transformer.training import OPTIMIZERS, schedule, timed, train_candidates
from verify.base.printable import shown


@dataclass(frozen=True)
class TransformerSettings:
    name: str
    width: int
    layers: int
    heads: int
    context: int  # characters per sequence (query positions 0..context−1)
    batch: int  # training sequences per step
    steps: int  # the same budget for every optimizer
    measurements: int  # measured every ceil(steps / measurements) steps, and at step 0
    eval_batch: int  # sequences of the fixed train and validation batches for the losses
    measure_batch: int  # validation sequences whose attention rows are measured
    step_grids: tuple  # ((optimizer, (step sizes...)), ...)
    max_chars: int  # characters of the training text used (0: all)


QUICK = TransformerSettings("quick", width=48, layers=2, heads=4, context=48, batch=16, steps=1500, measurements=30,
                            eval_batch=32, measure_batch=4, max_chars=1_000_000,
                            step_grids=(("sgd", (0.1, 0.3, 1.0)), ("sgd-momentum", (0.1, 0.3, 1.0)),
                                        ("adam", (3e-3,)), ("adamw", (3e-3,))))
FULL = TransformerSettings("full", width=128, layers=4, heads=8, context=128, batch=32, steps=4000, measurements=40,
                           eval_batch=64, measure_batch=8, max_chars=0,
                           step_grids=(("sgd", (0.1, 0.3, 1.0, 3.0)), ("sgd-momentum", (0.01, 0.03, 0.1, 0.3)),
                                       ("adam", (1e-3, 3e-3)), ("adamw", (1e-3, 3e-3))))
PRESETS = {"quick": QUICK, "full": FULL}
MAX_LAYERS = 32  # XLA compiles the layers unrolled: 1,000 layers ran past a minute and 2.6 GB before a step
MAX_PARAMETERS = 5 * 10**7  # about 12·layers·width² weights (the full preset: 786,432): 200 MB, three times with Adam
MAX_ATTENTION = 10**8  # attention scores held in a step, batch × heads × context² × layers (the full preset 1.7e7)
MAX_WORK = 4 * 10**14  # steps × the step grids' runs × batch × context × (weights + layers × heads × context): about
# 2.5 times the full preset's 1.6e14


def _check_cost(settings, chosen):
    """InputError when the settings would not fit (layers, weights) or would run for days (work: the weights' products
    and the attention scores, per token)."""
    weights = 12 * settings.layers * settings.width ** 2
    runs = sum(len(dict(settings.step_grids)[name]) for name in chosen)
    per_token = weights + settings.layers * settings.heads * settings.context
    work = settings.steps * runs * settings.batch * settings.context * per_token
    if settings.layers > MAX_LAYERS:
        raise InputError(f"layers = {settings.layers}: at most {MAX_LAYERS} (each is compiled unrolled); give fewer", "layers")
    if weights > MAX_PARAMETERS:
        raise InputError(f"width = {settings.width} with {settings.layers} layers is about {weights:.3g} weights; at most "
                         f"{MAX_PARAMETERS:.0e}: give a smaller width or fewer layers", "width")
    scores = settings.batch * settings.heads * settings.context ** 2 * settings.layers
    if scores > MAX_ATTENTION:
        raise InputError(f"heads = {settings.heads} with {settings.layers} layers of context {settings.context} hold "
                         f"{scores:.3g} attention scores a step; at most {MAX_ATTENTION:.0e}: give fewer heads or layers",
                         "heads")
    if work > MAX_WORK:
        raise InputError(f"steps = {settings.steps} for {runs} run(s) of about {weights:,} weights and {settings.heads} "
                         f"heads costs {work:.3g} step-weights; at most {MAX_WORK:.0e}: give fewer steps, a smaller model "
                         "or one optimizer", "steps")


@dataclass(frozen=True)
class TransformerStudyResult:
    settings: TransformerSettings
    seed: int
    corpus: str
    optimizers: tuple
    rows: list  # one dict per optimizer, step, layer, head (the CSV)
    runs: dict  # optimizer -> {"step_size", "grid": {step: final val loss}, "steps", "train_loss", "val_loss"}
    findings: tuple  # one sentence each, numbers included
    seconds: float  # from the corpus load to the files written
    out_dir: Path
    csv_path: Path
    json_path: Path
    summary_path: Path
    plot_paths: tuple
    timings: dict  # seconds per phase: loading the corpus, initialising and compiling, training, measuring, writing files


def _whole(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise InputError(f"{name} = {shown(value, 200)} is not a positive whole number; give a positive integer", name)
    return int(value)


def resolve(preset="quick", optimizers=None, steps=None, layers=None, heads=None, width=None, corpus="shakespeare",
            seed=0, settings=None):
    """The settings and optimizers a call asks for, or the first InputError (nothing touched on disk)."""
    if settings is None and preset not in PRESETS:
        raise InputError(f"preset = {shown(preset, 200)} is unknown; choose one of {', '.join(PRESETS)}", "preset")
    options.seed(int(seed) if isinstance(seed, np.integer) else seed)
    settings = PRESETS[preset] if settings is None else settings
    for name in ("width", "layers", "heads", "context", "batch", "steps", "measurements", "eval_batch", "measure_batch"):
        _whole(getattr(settings, name), name)
    overrides = {name: _whole(value, name) for name, value in
                 (("steps", steps), ("layers", layers), ("heads", heads), ("width", width)) if value is not None}
    settings = replace(settings, **overrides)
    if settings.width % settings.heads:
        raise InputError(f"heads = {settings.heads} does not divide width = {settings.width}; choose a head count "
                         "that divides the width", "heads")
    gridded = tuple(o for o in OPTIMIZERS if o in dict(settings.step_grids))
    chosen = tuple(gridded if optimizers is None else [optimizers] if isinstance(optimizers, str) else optimizers)
    if not chosen:
        raise InputError(f"no optimizer given; choose from {', '.join(OPTIMIZERS)}", "optimizers")
    for name in chosen:
        if name not in OPTIMIZERS:
            raise InputError(f"optimizer = {shown(name, 200)} is unknown; choose from {', '.join(OPTIMIZERS)}", "optimizers")
    if len(set(chosen)) < len(chosen):
        raise InputError(f"optimizers = {list(chosen)} repeats a name; give each optimizer once", "optimizers")
    grids = dict(settings.step_grids)
    for name in chosen:
        if not grids.get(name) or any(not (isinstance(v, (int, float)) and v > 0) for v in grids[name]):
            raise InputError(f"the step grid of {name} is {shown(grids.get(name), 200)}; give positive step sizes", "optimizers")
    _check_cost(settings, chosen)
    corpora.check_corpus(corpus)
    jax_modules()
    return settings, chosen


def run_transformer_study(out_dir, preset="quick", seed=0, optimizers=None, steps=None, layers=None, heads=None,
                          width=None, corpus="shakespeare", progress=None, settings=None):
    """Train the character transformer with each optimizer, measure R, κ_J and the Theorem 2 bounds
    along training, write transformer.csv, transformer.json, the PNGs and summary.md under `out_dir`.

    `settings` (a TransformerSettings) replaces the preset; steps, layers, heads, width override either."""
    settings, chosen = resolve(preset, optimizers, steps, layers, heads, width, corpus, seed, settings)
    atomic.check_out_dir(out_dir)
    started = time.perf_counter()
    timings = {}
    report = progress or (lambda fraction, label: None)
    report(0.0, f"loading the {corpus} corpus")
    with timed(timings, "loading the corpus"):
        text = corpora.load_corpus(corpus, seed, settings.max_chars or None)
    rows, runs = train_and_measure(text, settings, chosen, seed, report, timings)
    from verify.experiments.transformer import report as reporting

    report(0.97, "writing files")
    with timed(timings, "writing files"):
        found, paths = reporting.write_all(Path(out_dir), settings, settings_json(settings), seed, text, chosen, rows,
                                           runs, timings)
    seconds = time.perf_counter() - started
    report(1.0, "done")
    return TransformerStudyResult(settings, seed, corpus, chosen, rows, runs, found, seconds, Path(out_dir), paths["csv"],
                                  paths["json"], paths["summary"], (paths["R_plot"], paths["loss_plot"]), timings)


def train_and_measure(text, settings, chosen, seed, report, timings):
    """Every optimizer over its step grid; the best step's snapshots measured.  Returns (rows, runs)."""
    grids = dict(settings.step_grids)
    measured = schedule(settings)
    total = sum(len(grids[o]) for o in chosen) * settings.steps + len(chosen) * len(measured) * 8
    done = [0]
    trained = train_candidates(text, settings, chosen, seed, lambda n, label: _tick(report, done, n, total, label), timings)
    rows, runs = [], {}
    for name in chosen:
        candidates = trained[name]
        best = min(candidates, key=lambda c: c["val_loss"][-1] if np.isfinite(c["val_loss"][-1]) else np.inf)
        runs[name] = {"step_size": best["step_size"], "steps": best["steps"], "train_loss": best["train_loss"],
                      "val_loss": best["val_loss"],
                      "grid": {c["step_size"]: c["val_loss"][-1] for c in candidates}}
        for index, (step, logits) in enumerate(zip(best["steps"], best["attention"])):
            _tick(report, done, 0, total, f"{name}: measuring attention rows at step {step}")
            with timed(timings, "measuring"):
                measures = sorted(measure_attention(logits).items())
            for (layer, head), columns in measures:
                rows.append({"optimizer": name, "step_size": best["step_size"], "step": step, "layer": layer,
                             "head": head, "train_loss": best["train_loss"][index], "val_loss": best["val_loss"][index],
                             **columns})
            _tick(report, done, 8, total, f"{name}: measured step {step}")
    return rows, runs


def _tick(report, done, units, total, label):
    done[0] += units
    report(min(0.96, 0.96 * done[0] / total), label)


def settings_json(settings):
    return {k: (dict(v) if k == "step_grids" else v) for k, v in asdict(settings).items()}
