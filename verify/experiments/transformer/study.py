"""The study: settings presets, the optimizers (SGD with and without momentum, each at the best
step of a small grid; Adam; AdamW; one budget of steps for all), the training loop on the
character corpus, and the measurements of the attention rows of a fixed validation batch every
k steps.  `run_transformer_study` validates every input before it writes anything, never prints,
and reports through an optional `progress(fraction, label)` callback.  Same seed, same numbers.
"""
import math
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from verify import atomic
from verify.errors import InputError
from verify.experiments.transformer import corpus as corpora
from verify.experiments.transformer.measure import measure_attention
from verify.experiments.transformer.model import forward, init_params, jax_modules, loss

OPTIMIZERS = ("sgd", "sgd-momentum", "adam", "adamw")
MOMENTUM = 0.9
WEIGHT_DECAY = 0.1


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


@dataclass(frozen=True)
class TransformerStudyResult:
    settings: TransformerSettings
    seed: int
    corpus: str
    optimizers: tuple
    rows: list  # one dict per optimizer, step, layer, head (the CSV)
    runs: dict  # optimizer -> {"step_size", "grid": {step: final val loss}, "steps", "train_loss", "val_loss"}
    findings: tuple  # one sentence each, numbers included
    seconds: float
    out_dir: Path
    csv_path: Path
    json_path: Path
    summary_path: Path
    plot_paths: tuple


def _whole(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise InputError(f"{name} = {value!r} is not a positive whole number; give a positive integer", name)
    return int(value)


def resolve(preset="quick", optimizers=None, steps=None, layers=None, heads=None, width=None, corpus="shakespeare",
            seed=0, settings=None):
    """The settings and optimizers a call asks for, or the first InputError (nothing touched on disk)."""
    if settings is None and preset not in PRESETS:
        raise InputError(f"preset = {preset!r} is unknown; choose one of {', '.join(PRESETS)}", "preset")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(f"seed = {seed!r} is not a whole number ≥ 0; give a non-negative integer", "seed")
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
            raise InputError(f"optimizer = {name!r} is unknown; choose from {', '.join(OPTIMIZERS)}", "optimizers")
    if len(set(chosen)) < len(chosen):
        raise InputError(f"optimizers = {list(chosen)} repeats a name; give each optimizer once", "optimizers")
    grids = dict(settings.step_grids)
    for name in chosen:
        if not grids.get(name) or any(not (isinstance(v, (int, float)) and v > 0) for v in grids[name]):
            raise InputError(f"the step grid of {name} is {grids.get(name)!r}; give positive step sizes", "optimizers")
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
    report = progress or (lambda fraction, label: None)
    report(0.0, f"loading the {corpus} corpus")
    text = corpora.load_corpus(corpus, seed, settings.max_chars or None)
    rows, runs = train_and_measure(text, settings, chosen, seed, report)
    from verify.experiments.transformer import report as reporting

    report(0.97, "writing files")
    seconds = time.perf_counter() - started
    found, paths = reporting.write_all(Path(out_dir), settings, settings_json(settings), seed, text, chosen, rows, runs,
                                       seconds)
    report(1.0, "done")
    return TransformerStudyResult(settings, seed, corpus, chosen, rows, runs, found, seconds, Path(out_dir), paths["csv"],
                                  paths["json"], paths["summary"], (paths["R_plot"], paths["loss_plot"]))


def _optimizer(optax, name, step_size):
    if name == "sgd":
        return optax.inject_hyperparams(optax.sgd)(learning_rate=step_size)
    if name == "sgd-momentum":
        return optax.inject_hyperparams(optax.sgd)(learning_rate=step_size, momentum=MOMENTUM)
    if name == "adam":
        return optax.inject_hyperparams(optax.adam)(learning_rate=step_size)
    return optax.inject_hyperparams(optax.adamw)(learning_rate=step_size, weight_decay=WEIGHT_DECAY)


def schedule(settings):
    """The measured steps: 0, k, 2k, … and the last step, k = ceil(steps / measurements)."""
    every = max(1, math.ceil(settings.steps / settings.measurements))
    return list(range(0, settings.steps, every)) + [settings.steps]


def fixed_batch(tokens, count, length, rng):
    """`count` sequences of `length` tokens at seeded starts (evenly spread, then jittered)."""
    starts = rng.integers(0, len(tokens) - length, size=count)
    return np.stack([tokens[s: s + length] for s in np.sort(starts)])


def train_and_measure(text, settings, chosen, seed, report):
    """Every optimizer over its step grid; the best step's snapshots measured.  Returns (rows, runs)."""
    jax, jnp, optax = jax_modules()
    rng = np.random.default_rng([seed, 11])
    length = settings.context + 1
    train_eval = jnp.asarray(fixed_batch(text.train, settings.eval_batch, length, rng))
    val_eval = jnp.asarray(fixed_batch(text.val, settings.eval_batch, length, rng))
    probe = val_eval[: settings.measure_batch, :-1]
    train_tokens = jnp.asarray(text.train)
    init = init_params(jax.random.PRNGKey(seed), len(text.vocabulary), settings.width, settings.layers, settings.context)
    heads = settings.heads
    evaluate = jax.jit(lambda p, batch: loss(p, batch, heads))
    attention = jax.jit(lambda p, tokens: forward(p, tokens, heads)[1])
    measured = schedule(settings)
    grids = dict(settings.step_grids)
    total = sum(len(grids[o]) for o in chosen) * settings.steps + len(chosen) * len(measured) * 8
    done = [0]
    data_key = jax.random.PRNGKey(seed + 1)
    rows, runs = [], {}
    for name in chosen:
        chunk = _chunk_function(jax, optax, jnp, name, settings, train_tokens.shape[0])
        candidates = []
        for step_size in grids[name]:
            label = f"{name} (step {step_size:g})"
            candidates.append(_train(jax, optax, chunk, init, name, step_size, measured, data_key, train_tokens,
                                     evaluate, attention, train_eval, val_eval, probe,
                                     lambda n, lab=label: _tick(report, done, n, total, lab)))
        best = min(candidates, key=lambda c: c["val_loss"][-1] if np.isfinite(c["val_loss"][-1]) else np.inf)
        runs[name] = {"step_size": best["step_size"], "steps": best["steps"], "train_loss": best["train_loss"],
                      "val_loss": best["val_loss"],
                      "grid": {c["step_size"]: c["val_loss"][-1] for c in candidates}}
        for index, (step, logits) in enumerate(zip(best["steps"], best["attention"])):
            _tick(report, done, 0, total, f"{name}: measuring attention rows at step {step}")
            for (layer, head), columns in sorted(measure_attention(logits).items()):
                rows.append({"optimizer": name, "step_size": best["step_size"], "step": step, "layer": layer,
                             "head": head, "train_loss": best["train_loss"][index], "val_loss": best["val_loss"][index],
                             **columns})
            _tick(report, done, 8, total, f"{name}: measured step {step}")
    return rows, runs


def _tick(report, done, units, total, label):
    done[0] += units
    report(min(0.96, 0.96 * done[0] / total), label)


def _chunk_function(jax, optax, jnp, name, settings, n_tokens):
    """One jitted function per optimizer: `count` training steps by lax.scan (the step size is
    part of the optimizer state, so every step of the grid reuses the compiled code)."""
    heads, length, batch = settings.heads, settings.context + 1, settings.batch
    optimizer = _optimizer(optax, name, 0.0)

    def one_step(carry, key):
        params, state, tokens = carry
        starts = jax.random.randint(key, (batch,), 0, n_tokens - length)
        sequences = jax.vmap(lambda s: jax.lax.dynamic_slice(tokens, (s,), (length,)))(starts)
        value, grads = jax.value_and_grad(loss)(params, sequences, heads)
        updates, state = optimizer.update(grads, state, params)
        return (optax.apply_updates(params, updates), state, tokens), value

    def chunk(params, state, tokens, keys):
        (params, state, _), values = jax.lax.scan(one_step, (params, state, tokens), keys)
        return params, state, values

    return jax.jit(chunk)


def _train(jax, optax, chunk, init, name, step_size, measured, data_key, tokens, evaluate, attention, train_eval,
           val_eval, probe, tick):
    """One run: snapshots (losses on the fixed batches, attention logits of the probe) at the measured steps."""
    state = _optimizer(optax, name, step_size).init(init)
    params = init
    record = {"step_size": step_size, "steps": [], "train_loss": [], "val_loss": [], "attention": []}
    previous = 0
    for index, step in enumerate(measured):
        if step > previous:
            keys = jax.random.split(jax.random.fold_in(data_key, index), step - previous)
            params, state, _ = chunk(params, state, tokens, keys)
            tick(step - previous)
        previous = step
        record["steps"].append(step)
        record["train_loss"].append(float(evaluate(params, train_eval)))
        record["val_loss"].append(float(evaluate(params, val_eval)))
        record["attention"].append(np.asarray(attention(params, probe)))
        if not math.isfinite(record["val_loss"][-1]):  # diverged: the rest of the budget cannot help
            tick(measured[-1] - step)
            break
    return record


def settings_json(settings):
    return {k: (dict(v) if k == "step_grids" else v) for k, v in asdict(settings).items()}
