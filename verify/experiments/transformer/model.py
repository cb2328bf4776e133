"""A decoder-only character-level transformer in JAX: learned token and position embeddings,
pre-norm blocks of causal multi-head softmax attention and a GELU MLP, a final LayerNorm and an
untied read-out.  `forward` returns the next-character logits and, for every layer and head, the
attention logits q·k/√d_head (entries above the diagonal set to −∞) that the softmax turns into
the attention coefficients z measured by the study."""
import math

from verify.base.errors import InputError
from verify.experiments.transformer.corpus import INSTALL


def jax_modules():
    """(jax, jax.numpy, optax), or an InputError naming the install command."""
    try:
        import jax
        import jax.numpy as jnp
        import optax
    except ImportError as error:
        raise InputError(f"the transformer study needs {error.name or 'jax'}, which is not installed; install it with "
                         f"{INSTALL}", "jax") from None
    return jax, jnp, optax


def init_params(key, vocab, width, layers, context, mlp_ratio=4):
    """Parameters as a nested dict (a JAX pytree): normal(0, 0.02) weights, residual projections
    scaled by 1/√(2·layers) (GPT-2), zero biases, unit LayerNorm gains."""
    jax, jnp, _ = jax_modules()
    keys = iter(jax.random.split(key, 3 + 4 * layers))
    normal = lambda shape, scale=0.02: scale * jax.random.normal(next(keys), shape, jnp.float32)  # noqa: E731
    residual = 0.02 / math.sqrt(2 * layers)
    hidden = mlp_ratio * width
    params = {"tokens": normal((vocab, width)), "positions": normal((context, width)),
              "final_norm": {"gain": jnp.ones(width), "bias": jnp.zeros(width)},
              "readout": normal((width, vocab)), "blocks": []}
    for _ in range(layers):
        params["blocks"].append({
            "norm1": {"gain": jnp.ones(width), "bias": jnp.zeros(width)},
            "qkv": normal((width, 3 * width)), "qkv_bias": jnp.zeros(3 * width),
            "out": normal((width, width), residual), "out_bias": jnp.zeros(width),
            "norm2": {"gain": jnp.ones(width), "bias": jnp.zeros(width)},
            "up": normal((width, hidden)), "up_bias": jnp.zeros(hidden),
            "down": normal((hidden, width), residual), "down_bias": jnp.zeros(width)})
    return params


def layer_norm(x, norm, eps=1e-5):
    _, jnp, _ = jax_modules()
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / jnp.sqrt(var + eps) * norm["gain"] + norm["bias"]


def forward(params, tokens, heads):
    """tokens (B, T) int → (logits (B, T, V), attention logits (layers, B, heads, T, T))."""
    jax, jnp, _ = jax_modules()
    batch, length = tokens.shape
    x = params["tokens"][tokens] + params["positions"][:length]
    width = x.shape[-1]
    head_width = width // heads
    causal = jnp.tril(jnp.ones((length, length), dtype=bool))
    attention_logits = []
    for block in params["blocks"]:
        h = layer_norm(x, block["norm1"])
        qkv = h @ block["qkv"] + block["qkv_bias"]
        q, k, v = (part.reshape(batch, length, heads, head_width).transpose(0, 2, 1, 3) for part in jnp.split(qkv, 3, -1))
        scores = jnp.einsum("bhtd,bhsd->bhts", q, k) / math.sqrt(head_width)
        scores = jnp.where(causal, scores, -jnp.inf)
        attention_logits.append(scores)
        # jax.nn.softmax, not verify.numerics.softmax: this runs traced and jitted, and is differentiated by JAX
        # (numpy cannot be); what is measured, the attention logits, goes through the one softmax afterwards
        mixed = jnp.einsum("bhts,bhsd->bhtd", jax.nn.softmax(scores, axis=-1), v)
        x = x + mixed.transpose(0, 2, 1, 3).reshape(batch, length, width) @ block["out"] + block["out_bias"]
        h = layer_norm(x, block["norm2"])
        x = x + jax.nn.gelu(h @ block["up"] + block["up_bias"], approximate=True) @ block["down"] + block["down_bias"]
    logits = layer_norm(x, params["final_norm"]) @ params["readout"]
    return logits, jnp.stack(attention_logits)


def loss(params, tokens, heads):
    """Mean next-character cross-entropy (nats) of a batch of sequences of length T + 1."""
    jax, jnp, optax = jax_modules()
    logits, _ = forward(params, tokens[:, :-1], heads)
    return optax.softmax_cross_entropy_with_integer_labels(logits, tokens[:, 1:]).mean()
