"""The synthetic prompt-attention model of the experiments, and its optimizers (numpy).

ŷ_i = (X_i v)ᵀ a_i with a_i = σ(K_i p) (softmax attention) or a_i = K_i p (linear attention);
the prompt p is trained, and the decoder v too when `train_v`.  A student–teacher problem
draws a teacher (p*, v*) whose attention is as peaked as `sparsity` asks.
"""
from dataclasses import dataclass, replace

import numpy as np

from verify.base.errors import InputError
from verify.numerics.model import jacobian_times, keys as draw_keys, sigmoid
from verify.numerics.softmax import softmax
from verify.base.printable import shown

LOSSES = ("square", "logistic")
ATTENTIONS = ("softmax", "linear")


@dataclass(frozen=True)
class Model:
    """The synthetic prompt-attention model: keys, token embeddings, labels, loss, attention, whether v trains."""

    K: np.ndarray  # N × n × d keys
    X: np.ndarray  # N × n × m token embeddings (u_i = X_i v)
    y: np.ndarray  # N labels
    loss: str = "square"
    attention: str = "softmax"
    train_v: bool = False


@dataclass(frozen=True)
class Problem:
    """A student–teacher problem: train and test models, the teacher (p*, v*) and the label noise."""

    train: Model
    test: Model
    p_star: np.ndarray
    v_star: np.ndarray
    noise: float


def attention(model, p):
    s = model.K @ p
    return s if model.attention == "linear" else softmax(s)


def predict(model, p, v):
    return np.einsum("inm,m,in->i", model.X, v, attention(model, p))


def loss(model, p, v):
    yhat = predict(model, p, v)
    if model.loss == "square":
        return 0.5 * float(np.mean((yhat - model.y) ** 2))
    return float(np.mean(np.logaddexp(0, -model.y * yhat)))


def gradients(model, p, v):
    """(∇_p L, ∇_v L); ∇_v is zero when v is not trained."""
    a = attention(model, p)
    u = model.X @ v  # N × n
    yhat = np.einsum("in,in->i", u, a)
    if model.loss == "square":
        first = (yhat - model.y) / len(model.y)
    else:
        first = -model.y * sigmoid(-model.y * yhat) / len(model.y)
    if model.attention == "linear":
        back = u  # ∂ŷ/∂s = u
    else:
        back = jacobian_times(a, u)
    grad_p = np.einsum("ind,in->d", model.K, first[:, None] * back)
    grad_v = np.einsum("inm,in->m", model.X, first[:, None] * a) if model.train_v else np.zeros_like(v)
    return grad_p, grad_v


# ---------------------------------------------------------------- data


def keys(rng, N, n, d, orthonormal):
    """Orthonormal rows across all nN keys (Assumption 2) when asked and d ≥ nN, else Gaussian/√d."""
    return draw_keys(rng, N, n, d, "orthonormal" if orthonormal and d >= n * N else "gaussian")


TEST_SEQUENCES = 256  # the held-out sequences every problem draws beside its N training ones


def student_teacher(rng, N, n, d, m=4, sparsity=2.0, noise=0.0, loss_name="square", attention_name="softmax",
                    train_v=False, orthonormal=True, N_test=TEST_SEQUENCES):
    """A problem whose teacher logits spread over about `sparsity` (larger: more peaked attention)."""
    for name, value in (("N", N), ("n", n), ("d", d), ("m", m)):
        if value <= 0:
            raise InputError(f"{name} = {value} must be positive; give a positive whole number", name)
    if loss_name not in LOSSES or attention_name not in ATTENTIONS:
        raise InputError(f"loss {shown(loss_name, 200)} / attention {shown(attention_name, 200)}: choose a loss from {', '.join(LOSSES)} "
                         f"and an attention from {', '.join(ATTENTIONS)}")
    K = keys(rng, N, n, d, orthonormal)
    K_test = keys(rng, N_test, n, d, False) * (np.linalg.norm(K[0, 0]) * np.sqrt(d) if orthonormal and d >= n * N else 1)
    X, X_test = rng.standard_normal((N, n, m)), rng.standard_normal((N_test, n, m))
    v_star = rng.standard_normal(m)
    p_star = rng.standard_normal(d)
    p_star *= sparsity / max(np.std(K @ p_star) * np.sqrt(n), 1e-12)
    base = Model(K, X, np.zeros(N), loss_name, attention_name, train_v)
    test = Model(K_test, X_test, np.zeros(N_test), loss_name, attention_name, train_v)
    labels = []
    for model in (base, test):
        clean = predict(model, p_star, v_star)
        noisy = clean + noise * rng.standard_normal(len(clean))
        labels.append(noisy if loss_name == "square" else np.where(noisy >= 0, 1.0, -1.0))
    return Problem(replace(base, y=labels[0]), replace(test, y=labels[1]), p_star, v_star, noise)


# ---------------------------------------------------------------- optimizers

OPTIMIZERS = ("gd", "adam", "ngd")
GD_GRID = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0)  # multiples of 1/L₀, L₀ the curvature at the start
STEP_GRIDS = {
    "adam": (0.003, 0.01, 0.03, 0.1, 0.3),
    "ngd": (0.003, 0.01, 0.03, 0.1, 0.3),
}


def start(problem):
    """(p0, v0): p = 0; v = v* when fixed, else 0.1·1 (v = 0 is a saddle where ∇_p vanishes)."""
    v0 = 0.1 * np.ones_like(problem.v_star) if problem.train.train_v else problem.v_star.copy()
    return np.zeros(problem.p_star.shape), v0


def initial_curvature(problem, iterations=30, eps=1e-5):
    """L₀: the largest Hessian eigenvalue at the start, by power iteration on finite-difference HVPs."""
    p0, v0 = start(problem)
    x0 = np.concatenate([p0, v0])
    size = p0.size

    def grad(x):
        gp, gv = gradients(problem.train, x[:size], x[size:])
        return np.concatenate([gp, gv])

    direction = np.random.default_rng(0).standard_normal(x0.size)
    value = 0.0
    for _ in range(iterations):
        direction /= np.linalg.norm(direction)
        product = (grad(x0 + eps * direction) - grad(x0 - eps * direction)) / (2 * eps)
        value = float(direction @ product)
        direction = product
    return abs(value) if value else 1.0


def step_grid(problem, optimizer):
    if optimizer == "gd":
        curvature = initial_curvature(problem)
        return tuple(c / curvature for c in GD_GRID)
    return STEP_GRIDS[optimizer]


@dataclass(frozen=True)
class Run:
    """One optimizer run: its step size and the recorded steps, losses, ‖p_t‖, ‖p_t − p*‖ and snapshots."""

    optimizer: str
    step_size: float
    steps: np.ndarray  # the recorded step numbers
    train_loss: np.ndarray
    test_loss: np.ndarray
    p_norm: np.ndarray
    p_error: np.ndarray  # ‖p_t − p*‖
    snapshots: tuple  # (p_t, v_t) at the recorded steps

    @property
    def final_loss(self):
        value = self.train_loss[-1]
        return value if np.isfinite(value) else np.inf


def train(problem, optimizer, step_size, steps, record_every=None, p0=None, v0=None):
    """Run `optimizer` for `steps` steps from p0 (default 0) and v0 (default v* if v is fixed, else 0)."""
    if steps <= 0:
        raise InputError(f"steps = {steps} must be positive; give a positive whole number", "steps")
    model = problem.train
    default_p, default_v = start(problem)
    p = default_p if p0 is None else p0.copy()
    v = default_v if v0 is None else v0.copy()
    record_every = record_every or max(steps // 100, 1)
    state = {"m": np.zeros(p.size + v.size), "s": np.zeros(p.size + v.size)}
    rows, snapshots = [], []
    for t in range(steps + 1):
        if t % record_every == 0 or t == steps:
            rows.append((t, loss(model, p, v), loss(problem.test, p, v), np.linalg.norm(p), np.linalg.norm(p - problem.p_star)))
            snapshots.append((p.copy(), v.copy()))
            if not np.isfinite(rows[-1][1]) or rows[-1][1] > 1e12:
                break
        if t == steps:
            break
        grad_p, grad_v = gradients(model, p, v)
        update = _update(optimizer, np.concatenate([grad_p, grad_v]), step_size, state, t + 1)
        p = p - update[: p.size]
        if model.train_v:
            v = v - update[p.size:]
    columns = np.array(rows, dtype=float).T
    return Run(optimizer, step_size, columns[0].astype(int), columns[1], columns[2], columns[3], columns[4], tuple(snapshots))


def _update(optimizer, grad, step_size, state, t, beta1=0.9, beta2=0.999, eps=1e-8):
    if optimizer == "gd":
        return step_size * grad
    if optimizer == "ngd":  # normalized GD: a fixed step length in parameter space (adaptive step size)
        norm = np.linalg.norm(grad)
        return step_size * grad / norm if norm > 0 else grad
    if optimizer == "adam":
        state["m"] = beta1 * state["m"] + (1 - beta1) * grad
        state["s"] = beta2 * state["s"] + (1 - beta2) * grad**2
        m_hat = state["m"] / (1 - beta1**t)
        s_hat = state["s"] / (1 - beta2**t)
        return step_size * m_hat / (np.sqrt(s_hat) + eps)
    raise InputError(f"unknown optimizer {shown(optimizer, 200)}; choose one of {', '.join(OPTIMIZERS)}")


def steps_to(run, fraction=1e-3):
    """First recorded step where the training loss is below `fraction` of its start (None: never)."""
    hits = np.nonzero(run.train_loss <= fraction * run.train_loss[0])[0]
    return int(run.steps[hits[0]]) if len(hits) else None


def best_run(problem, optimizer, steps, grid=None, record_every=None):
    """The grid's step size that cuts the training loss 1000× soonest (else: lowest final loss, floored at
    1e-12 of the start so rounding noise does not pick the winner)."""
    runs = [train(problem, optimizer, eta, steps, record_every) for eta in (grid or step_grid(problem, optimizer))]

    def score(run):
        reached = steps_to(run)
        return (0, reached) if reached is not None else (1, max(run.final_loss / run.train_loss[0], 1e-12))

    return min(runs, key=score)
