"""Training the study's character transformer: the optimizers (SGD with and without momentum,
Adam, AdamW), one compiled chunk of training steps per optimizer family, and every (optimizer,
step size) candidate of the grids trained side by side.

At each measured step every live candidate's evaluation and its next chunk of steps are queued
before any value is read, so XLA runs independent candidates on all cores and Python never
leaves it idle; a candidate whose validation loss is no longer finite stops there.  Everything
is compiled ahead of the loop, once per shape, so the phases can be timed apart.
"""
import math
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from verify.experiments.transformer.model import forward, init_params, jax_modules, loss

OPTIMIZERS = ("sgd", "sgd-momentum", "adam", "adamw")
MOMENTUM = 0.9
WEIGHT_DECAY = 0.1
FAMILY = {"sgd": "sgd", "sgd-momentum": "sgd", "adam": "adamw", "adamw": "adamw"}


def optimizer(optax, name, step_size):
    """The optax transformation of `name`, with its hyperparameters in its state.  The optimizers of
    one family share a state layout and so one compiled chunk: SGD is SGD with momentum 0 (its trace
    g + 0·t is g exactly) and Adam is AdamW with weight decay 0 (g + 0·p is g exactly)."""
    if FAMILY[name] == "sgd":
        return optax.inject_hyperparams(optax.sgd)(learning_rate=step_size,
                                                   momentum=MOMENTUM if name == "sgd-momentum" else 0.0)
    return optax.inject_hyperparams(optax.adamw)(learning_rate=step_size,
                                                 weight_decay=WEIGHT_DECAY if name == "adamw" else 0.0)


def schedule(settings):
    """The measured steps: 0, k, 2k, … and the last step, k = ceil(steps / measurements)."""
    every = max(1, math.ceil(settings.steps / settings.measurements))
    return list(range(0, settings.steps, every)) + [settings.steps]


def fixed_batch(tokens, count, length, rng):
    """`count` sequences of `length` tokens at seeded starts (evenly spread, then jittered)."""
    starts = rng.integers(0, len(tokens) - length, size=count)
    return np.stack([tokens[s: s + length] for s in np.sort(starts)])


@contextmanager
def timed(timings, phase):
    """Add the seconds spent inside the block to timings[phase]."""
    started = time.perf_counter()
    try:
        yield
    finally:
        timings[phase] = timings.get(phase, 0.0) + time.perf_counter() - started


@dataclass
class Candidate:
    """One optimizer at one step size: its parameters, optimizer state and what was recorded."""

    name: str
    step_size: float
    params: object
    state: object
    record: dict = field(default_factory=lambda: {"steps": [], "train_loss": [], "val_loss": [], "attention": []})
    pending: tuple = ()
    live: bool = True


def train_candidates(text, settings, chosen, seed, tick, timings):
    """Every chosen optimizer at every step size of its grid; {name: [record, …]} in grid order, a
    record holding the step size and, at each measured step, the losses on fixed train and
    validation batches and the attention logits of the probe (the first measure_batch validation
    sequences).  `tick(steps, label)` reports progress; `timings` gains the phases' seconds."""
    jax, jnp, optax = jax_modules()
    rng = np.random.default_rng([seed, 11])
    length = settings.context + 1
    train_eval = jnp.asarray(fixed_batch(text.train, settings.eval_batch, length, rng))
    val_eval = jnp.asarray(fixed_batch(text.val, settings.eval_batch, length, rng))
    probe = val_eval[: settings.measure_batch, :-1]
    tokens = jnp.asarray(text.train)
    measured = schedule(settings)
    grids = dict(settings.step_grids)
    with timed(timings, "initialising and compiling"):
        init = init_params(jax.random.PRNGKey(seed), len(text.vocabulary), settings.width, settings.layers,
                           settings.context)
        data_key = jax.random.PRNGKey(seed + 1)
        keys = [jax.random.split(jax.random.fold_in(data_key, index), measured[index] - measured[index - 1])
                for index in range(1, len(measured))]
        candidates = [Candidate(name, eta, init, optimizer(optax, name, eta).init(init)) for name in chosen
                      for eta in grids[name]]
        evaluate = _compiled(("evaluate", settings.heads, _shapes(jax, init, train_eval)), lambda: jax.jit(
            lambda p, batch: loss(p, batch, settings.heads)).lower(init, train_eval).compile())
        attention = _compiled(("attention", settings.heads, _shapes(jax, init, probe)), lambda: jax.jit(
            lambda p, x: forward(p, x, settings.heads)[1]).lower(init, probe).compile())
        chunks = _compiled_chunks(jax, optax, settings, candidates, tokens, keys)
    with timed(timings, "training"):
        for index, step in enumerate(measured):
            live = [c for c in candidates if c.live]
            for c in live:
                c.pending = (evaluate(c.params, train_eval), evaluate(c.params, val_eval), attention(c.params, probe))
            if index + 1 < len(measured):
                for c in live:
                    c.params, c.state, _ = chunks[FAMILY[c.name], len(keys[index])](c.params, c.state, tokens, keys[index])
            for c in live:
                _read(c, step, measured, tick)
    return {name: [dict(c.record, step_size=c.step_size) for c in candidates if c.name == name] for name in chosen}


def _read(candidate, step, measured, tick):
    train_loss, val_loss, attention = candidate.pending
    record = candidate.record
    record["steps"].append(step)
    record["train_loss"].append(float(train_loss))
    record["val_loss"].append(float(val_loss))
    record["attention"].append(np.asarray(attention))
    label = f"{candidate.name} (step size {candidate.step_size:g})"
    if not math.isfinite(record["val_loss"][-1]):  # diverged: the rest of the budget cannot help
        candidate.live = False
        tick(measured[-1] - step, label)
    elif step > 0:
        tick(step - measured[measured.index(step) - 1], label)


_COMPILED = {}  # (what, its settings, the arguments' shapes): code XLA compiled in this process


def _compiled(key, compile_it):
    """The compiled code for `key`, compiled once per process: a compile takes seconds, and a second run with
    the same shapes (the same seed twice, or another seed) runs the same code."""
    if key not in _COMPILED:
        _COMPILED[key] = compile_it()
    return _COMPILED[key]


def _shapes(jax, *trees):
    return tuple((leaf.shape, str(leaf.dtype)) for tree in trees for leaf in jax.tree_util.tree_leaves(tree))


def _compiled_chunks(jax, optax, settings, candidates, tokens, keys):
    """{(family, chunk length): compiled chunk} for every family and chunk length the run needs."""
    chunks = {}
    for c in candidates:
        for count in {len(k) for k in keys}:
            if (FAMILY[c.name], count) not in chunks:
                sample = next(k for k in keys if len(k) == count)
                key = ("chunk", FAMILY[c.name], settings.heads, settings.context, settings.batch, tokens.shape[0],
                       _shapes(jax, c.params, c.state, sample))
                chunks[FAMILY[c.name], count] = _compiled(key, lambda c=c, sample=sample: _chunk_function(
                    jax, optax, optimizer(optax, c.name, 0.0), settings, tokens.shape[0]).lower(
                    c.params, c.state, tokens, sample).compile())
    return chunks


def _chunk_function(jax, optax, transformation, settings, n_tokens):
    """`count` training steps by lax.scan (the step size lives in the optimizer state, so every
    step size and every optimizer of a family reuses the compiled code)."""
    heads, length, batch = settings.heads, settings.context + 1, settings.batch

    def one_step(carry, key):
        params, state, tokens = carry
        starts = jax.random.randint(key, (batch,), 0, n_tokens - length)
        sequences = jax.vmap(lambda s: jax.lax.dynamic_slice(tokens, (s,), (length,)))(starts)
        value, grads = jax.value_and_grad(loss)(params, sequences, heads)
        updates, state = transformation.update(grads, state, params)
        return (optax.apply_updates(params, updates), state, tokens), value

    def chunk(params, state, tokens, keys):
        (params, state, _), values = jax.lax.scan(one_step, (params, state, tokens), keys)
        return params, state, values

    return jax.jit(chunk)
