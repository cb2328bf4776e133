"""Experiments at tiny sizes (and once at the quick preset): the files' shapes, every finding and
title recomputed from the experiment's own CSV, and a few invariants of the training code."""
import csv
import inspect
import math
import re
from collections import defaultdict
from dataclasses import replace

import numpy as np
import pytest

from tests.conftest import run_cli
from tests.test_cli import assert_one_line_error
from verify.experiments import common as experiments, runner, synthetic, training

TINY = experiments.Scale("tiny", n=3, N=4, d_over=16, d_under=4, steps=40, sparsities=(2.0,), ns=(3,))


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    out = tmp_path_factory.mktemp("results")
    results = runner.run_experiments(scale=TINY, out_dir=str(out), seed=3)
    return out, results


def test_every_experiment_writes_csv_png_and_findings(written):
    out, results = written
    assert [r.name for r in results] == list(synthetic.EXPERIMENTS)
    summary = (out / "summary.md").read_text()
    for result in results:
        rows = list(csv.reader(open(out / f"{result.name}.csv")))
        assert tuple(rows[0]) == result.columns and len(rows) > 2
        assert all(len(row) == len(result.columns) for row in rows)
        assert (out / f"{result.name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"## {result.name}" in summary and result.findings
        assert all(sentence in summary for sentence in result.findings)
    assert '"seed": 3' in summary and '"numpy"' in summary
    assert not re.search(r"SPEC|ref\. *\[|\[\d+\]|step never", summary), "summary.md must be self-contained"


# ---------------------------------------------------------------- findings against the CSV
# Each check reads the experiment's CSV, recomputes what its findings and titles state, and fails
# if a number, a count or a direction ("rose", "still growing", "beat") disagrees with the data.


def _rows(out, name):
    with open(out / f"{name}.csv") as handle:
        return list(csv.DictReader(handle))


def _curves(rows, *keys, value="train_loss"):
    """{(row[k] for k in keys): (steps, values)} in CSV order."""
    groups = defaultdict(list)
    for row in rows:
        groups[tuple(row[k] for k in keys)].append((int(row["step"]), float(row[value])))
    return {key: tuple(np.array(column) for column in zip(*pairs)) for key, pairs in groups.items()}


def _cut(steps, losses):
    """The first recorded step where the loss is at most 1/1000 of its start, or None."""
    hits = np.nonzero(losses <= 1e-3 * losses[0])[0]
    return int(steps[hits[0]]) if len(hits) else None


def _moved(name, start, end):
    if f"{start:.3g}" == f"{end:.3g}":
        return f"{name} stayed at {start:.3g}"
    return f"{name} {'rose' if end > start else 'fell'} from {start:.3g} to {end:.3g}"


def _adam_beat_gd(gd, adam):
    """Adam cut the loss 1000× and GD did not, or both did and Adam sooner, or neither did and Adam ended lower."""
    cut_gd, cut_adam = _cut(*gd), _cut(*adam)
    if cut_gd is None and cut_adam is None:
        return adam[1][-1] < gd[1][-1]
    return cut_adam is not None and (cut_gd is None or cut_adam < cut_gd)


def check_optimizers(out, result):
    curves = _curves(_rows(out, "optimizers"), "sparsity", "n", "d", "regime", "attention", "optimizer")
    settings = sorted({key[:4] for key in curves})
    soft = {s: {o: curves[s + ("softmax", o)] for o in training.OPTIMIZERS} for s in settings}
    wins = sum(_adam_beat_gd(c["gd"], c["adam"]) for c in soft.values())
    first, ngd, linear = result.findings
    assert f"in {wins} of {len(settings)} softmax settings" in first
    title = result.figure.axes[0].get_title()
    assert ("where Adam's advantage over GD is largest" in title) == (wins > 0)
    assert ("its largest advantage" in first) == (wins > 0)
    cut = {s: {o: _cut(*c[o]) for o in c} for s, c in soft.items()}
    reached = sum(c["ngd"] is not None for c in cut.values())
    sooner = sum(c["ngd"] is not None and (c["gd"] is None or c["ngd"] < c["gd"]) for c in cut.values())
    assert f"in {reached} of {len(settings)} softmax settings, before the best-tuned GD in {sooner};" in ngd
    final = {o: np.median([c[o][1][-1] / c[o][1][0] for c in soft.values()]) for o in ("ngd", "gd")}
    late = {o: np.median([c[o][1][-1] / c[o][1][len(c[o][1]) // 2] for c in soft.values()]) for o in ("ngd", "gd")}
    assert f"median final loss was {final['ngd']:.2g} of the start against {final['gd']:.2g} for GD" in ngd
    assert f"a median {late['ngd']:.2g} of its loss at mid-run (GD: {late['gd']:.2g})" in ngd
    steps = lambda c: math.inf if c is None else c  # noqa: E731
    pairs = [(steps(cut[s]["gd"]), steps(_cut(*curves[s + ("linear", "gd")]))) for s in settings]
    assert f"sooner than softmax attention in {sum(lin < sm for sm, lin in pairs)} of {len(pairs)} settings" in linear
    assert f"(median steps {np.median([p[1] for p in pairs]):g} linear, {np.median([p[0] for p in pairs]):g} softmax;" in linear
    labels = [line.get_label() for line in result.figure.axes[0].get_lines()]
    assert not any("(step " in label for label in labels)
    for label in labels:  # GD's step size is a grid multiple of 1/L₀ and is shown as one
        multiple = re.search(r"η = ([0-9.e+-]+)/L₀", label)
        assert (multiple is not None) == label.startswith(LABEL_GD)
        assert multiple is None or float(multiple.group(1)) in training.GD_GRID


def check_conditioning(out, result):
    assert not re.search(r"grow|rise|fall|rose|fell", result.figure._suptitle.get_text())  # directions: per panel, computed
    rows = _rows(out, "conditioning")
    for o, sentence in zip(training.OPTIMIZERS, result.findings):
        for column, name, axis in (("R", "R", 0), ("kappa", "κ", 1)):
            steps, values = _curves([r for r in rows if r["optimizer"] == o], value=column)[()]
            assert _moved(name, values[0], values[-1]) in sentence
            assert f"largest {values.max():.3g} at step {steps[np.argmax(values)]}" in sentence
            verb = _moved(name, values[0], values[-1]).split()[1]
            title = result.figure.axes[axis].get_title()
            said = next(part for part in title.split(":", 1)[1].strip().split("; ") if part.startswith(verb))
            assert experiments.SHORT[o] in said.split(" along ")[1].replace(" and ", ", ").split(", ")


def check_estimation(out, result):
    teacher = inspect.signature(synthetic.estimation).parameters["noise"].default ** 2 / 2
    rows = _rows(out, "estimation")
    for o, sentence in zip(("gd", "adam"), result.findings):
        mine = [r for r in rows if r["optimizer"] == o]
        train, test = float(mine[-1]["train_loss"]), float(mine[-1]["test_loss"])
        side = lambda v: "below" if v < teacher else "above"  # noqa: E731
        assert f"training loss ended at {train:.3g} ({side(train)} the teacher's expected loss σ²/2 = {teacher:.3g})" in sentence
        assert f"test loss at {test:.3g} ({side(test)} it)" in sentence
        assert _moved("‖p_t − p*‖", float(mine[0]["p_error"]), float(mine[-1]["p_error"])) in sentence


def check_sparse_target(out, result):
    rows = _rows(out, "sparse-target")
    slopes = []
    for o, sentence in zip(training.OPTIMIZERS, result.findings):
        steps, norms = _curves([r for r in rows if r["optimizer"] == o], value="p_norm")[()]
        _, losses = _curves([r for r in rows if r["optimizer"] == o])[()]
        late = steps >= max(steps[-1] // 10, 1)
        slopes.append(np.polyfit(np.log(steps[late]), norms[late], 1)[0])
        assert f"reached {norms[-1]:.3g} after {steps[-1]} steps" in sentence
        assert (f"still growing by {slopes[-1]:.3g} per unit" if slopes[-1] > 0 else "was not growing") in sentence
        assert _moved("the loss", losses[0], losses[-1]) in sentence
    title = result.figure.axes[0].get_title()
    assert ("still growing at the end of every run" in title) == all(s > 0 for s in slopes)


def check_compared(out, result):
    curves = _curves(_rows(out, result.name), "variant", "optimizer")
    for ((variant, o), (steps, losses)), sentence in zip(curves.items(), result.findings):
        cut = _cut(steps, losses)
        assert sentence.startswith(f"{variant} with {LABEL_GD if o == 'gd' else 'Adam'}: training loss {losses[-1]:.3g} "
                                   f"after {steps[-1]} steps ({losses[-1] / losses[0]:.2g} of its start; ")
        assert (f"cut 1000× by step {cut})" if cut is not None else f"not cut 1000× within {steps[-1]} steps)") in sentence
    check_events(out, result, curves)
    if result.name == "losses":
        floor = result.numbers["logistic_floor"]
        logistic = {o: curves["logistic loss", o][1] for o in ("gd", "adam")}
        assert all(np.all(loss >= floor - 1e-12) for loss in logistic.values())  # a floor indeed
        assert (f"= {floor:.4g}: from its start at {logistic['gd'][0]:.4g} it had {logistic['gd'][0] - floor:.3g} to fall, "
                f"and the runs ended {logistic['gd'][-1] - floor:.2g} (GD) and {logistic['adam'][-1] - floor:.2g} (Adam) "
                f"above that floor.") in result.findings[-1]
    if result.name == "regimes":
        assert all(f"{label}: {kappa:.3g}" in result.findings[-1] for label, kappa in result.numbers["kappa_at_teacher"].items())


def check_events(out, result, curves):
    """A climb of REBOUND× above the low, a chosen step at a grid's edge and coinciding curves are each said,
    with the CSV's numbers, exactly when the CSV (and the legend's step sizes) show them."""
    rows = _rows(out, result.name)
    legend = [t.get_text() for t in result.figure.axes[0].get_legend().get_texts()]
    for (variant, o), (steps, losses) in curves.items():
        name = f"{variant} with {LABEL_GD if o == 'gd' else 'Adam'}: "
        drawn = np.maximum(losses / losses[0], experiments.FLOOR)
        climb = drawn / np.minimum.accumulate(drawn)
        high = int(np.argmax(climb))
        low = int(np.argmin(drawn[:high + 1]))
        said = [f for f in result.findings if f.startswith(name + "the loss climbed back")]
        if climb[high] >= experiments.REBOUND:
            assert said == [f"{name}the loss climbed back {climb[high]:.2g}× above its low, from {drawn[low]:.2g} of its "
                            f"start at step {steps[low]} to {drawn[high]:.2g} at step {steps[high]}."]
        else:
            assert not said
        shown = next(text for text in legend if text.startswith(f"{variant}, {experiments.LABEL[o]} ("))
        if o == "gd":
            multiple, grid = float(re.search(r"η = (\S+)/L₀", shown)[1]), training.GD_GRID
        else:
            multiple, grid = float(next(r["step_size"] for r in rows if (r["variant"], r["optimizer"]) == (variant, o))), \
                training.STEP_GRIDS[o]
        edge = "largest" if math.isclose(multiple, max(grid), rel_tol=1e-2) else \
            "smallest" if math.isclose(multiple, min(grid), rel_tol=1e-2) else None
        said = [f for f in result.findings if f.startswith(name + "the chosen step")]
        assert [edge in f for f in said] == ([True] if edge else [])
    for variant in dict.fromkeys(v for v, _ in curves):
        gd, adam = (np.maximum(curves[variant, o][1] / curves[variant, o][1][0], experiments.FLOOR) for o in ("gd", "adam"))
        together = gd.shape == adam.shape and np.all(np.abs(np.log(gd / adam)) <= np.log1p(0.05))
        assert any(f.startswith(f"{variant}: GD's and Adam's curves stay within 5 %") for f in result.findings) == together


def test_events_helpers_read_what_a_plot_shows():
    steps = np.arange(0, 60, 6)
    falling = np.array([1, 1e-2, 1e-4, 1e-8, 1e-16, 1e-16, 1e-3, 1e-5, 1e-7, 1e-9])
    factor, low_step, low, high_step, high = experiments.rebound(steps, falling)
    assert (low_step, high_step) == (24, 36) and low == 1e-16 and high == 1e-3 and math.isclose(factor, 1e13)
    assert experiments.rebound(steps, np.logspace(0, -9, 10))[0] == 1  # a curve that only falls never climbs
    assert experiments.rebound(steps, falling * 1e-20)[0] == 1  # drawn at the floor: no climb to see
    assert experiments.coincide(falling, falling * 1.04) and not experiments.coincide(falling, falling * 1.06)
    assert experiments.grid_edge(32.0, (0.5, 4.0, 32.0)) == "largest"
    assert experiments.grid_edge(0.5, (0.5, 4.0, 32.0)) == "smallest"
    assert experiments.grid_edge(4.0, (0.5, 4.0, 32.0)) is None and experiments.grid_edge(3e-3, (3e-3,)) is None


LABEL_GD = experiments.LABEL["gd"]
CHECKS = {"optimizers": check_optimizers, "conditioning": check_conditioning, "estimation": check_estimation,
          "sparse-target": check_sparse_target, "losses": check_compared, "joint": check_compared, "regimes": check_compared}


@pytest.mark.parametrize("name", list(synthetic.EXPERIMENTS))
def test_findings_and_titles_agree_with_the_csv(written, name):
    out, results = written
    CHECKS[name](out, next(r for r in results if r.name == name))


SWEEPS = experiments.Scale("sweeps", n=6, N=8, d_over=80, d_under=24, steps=200, sparsities=experiments.QUICK.sparsities,
                           ns=experiments.QUICK.ns)  # the quick preset's sweeps, in a third of its time


@pytest.mark.parametrize("scale", [SWEEPS, pytest.param(experiments.QUICK, marks=pytest.mark.soak)], ids=lambda s: s.name)
def test_swept_findings_and_titles_agree_with_the_csv(tmp_path, scale):
    """Several sparsities and token counts (the quick preset's, `python -m verify experiments`): the branches
    the tiny scale does not reach."""
    for result in runner.run_experiments(scale=scale, out_dir=str(tmp_path), seed=0):
        CHECKS[result.name](tmp_path, result)


def test_losses_in_the_curves_are_finite(written):
    out, results = written
    for result in results:
        rows = list(csv.DictReader(open(out / f"{result.name}.csv")))
        for key in ("train_loss", "test_loss", "p_norm", "p_error", "R", "kappa"):
            if key in rows[0]:
                assert all(math.isfinite(float(row[key])) for row in rows), (result.name, key)


def test_same_seed_same_numbers(tmp_path):
    for folder in ("a", "b"):
        runner.run_experiments(["conditioning"], TINY, str(tmp_path / folder), seed=5)
    assert (tmp_path / "a" / "conditioning.csv").read_bytes() == (tmp_path / "b" / "conditioning.csv").read_bytes()


def test_gd_decreases_monotonically_on_convex_linear_attention():
    """Square loss with linear attention is a convex quadratic in p: GD at step 1/L never goes up."""
    rng = np.random.default_rng(0)
    problem = training.student_teacher(rng, 6, 4, 12, attention_name="linear", noise=0.1)
    L = training.initial_curvature(problem)
    run = training.train(problem, "gd", 1.0 / L, 200, record_every=1)
    assert np.all(np.diff(run.train_loss) <= 1e-15 * run.train_loss[0])
    assert run.train_loss[-1] < run.train_loss[0]


def test_curvature_estimate_matches_the_quadratic():
    rng = np.random.default_rng(1)
    problem = training.student_teacher(rng, 5, 3, 8, attention_name="linear")
    A = np.einsum("inm,m,ind->id", problem.train.X, problem.v_star, problem.train.K)  # ŷ = A p
    exact = np.linalg.eigvalsh(A.T @ A / len(A))[-1]
    assert abs(training.initial_curvature(problem) / exact - 1) < 1e-6


def test_optimizers_agree_at_step_zero():
    rng = np.random.default_rng(2)
    problem = training.student_teacher(rng, 6, 4, 20, sparsity=3.0)
    runs = [training.train(problem, o, 0.1, 5) for o in training.OPTIMIZERS]
    assert len({run.train_loss[0] for run in runs}) == 1


def test_joint_training_moves_v_and_fixed_training_does_not():
    rng = np.random.default_rng(4)
    problem = training.student_teacher(rng, 6, 4, 20, sparsity=3.0)
    joint = replace(problem, train=replace(problem.train, train_v=True))
    fixed_run = training.train(problem, "gd", 1.0, 10, record_every=10)
    joint_run = training.train(joint, "gd", 1.0, 10, record_every=10)
    assert np.array_equal(fixed_run.snapshots[-1][1], problem.v_star)
    assert not np.array_equal(joint_run.snapshots[-1][1], joint_run.snapshots[0][1])


@pytest.mark.parametrize("args", [["bogus"], ["--steps", "0"], ["--n", "-2"], ["--N", "x"], ["--quick", "--full"],
                                  # each once a traceback after a petabyte's allocation, or minutes of work (an attack)
                                  ["conditioning", "--n", "1000000"], ["conditioning", "--n", "3000"],
                                  ["optimizers", "--steps", "1000000"],
                                  ["conditioning", "--n", "800", "--N", "1"],  # 256 test sequences: 1.2 GiB (a review)
                                  ["conditioning", "--N", "760", "--steps", "10"]])  # a QR of 6,080 columns (a review)
def test_bad_input(args, tmp_path):
    assert_one_line_error(run_cli("experiments", "--out", str(tmp_path / "out"), *args))
    assert not (tmp_path / "out").exists()


def test_the_presets_fit_the_cost_bounds_and_a_larger_one_is_refused_by_the_library(tmp_path):
    from verify.base.errors import InputError

    for scale in (experiments.QUICK, experiments.FULL):
        assert experiments.checked_scale(scale) is scale
        assert experiments.largest_keys(scale) * scale.steps * experiments.SPARSE_STEPS <= experiments.MAX_STEP_WORK
    wide = replace(experiments.QUICK, ns=(4, 8, 2000))  # a sweep's n beyond the bound, whatever the preset's own n
    with pytest.raises(InputError, match="keys of"):
        runner.run_experiments(["conditioning"], wide, str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()


def test_out_not_writable(tmp_path):
    target = tmp_path / "file"
    target.write_text("x")
    assert_one_line_error(run_cli("experiments", "--out", str(target)))
    assert_one_line_error(run_cli("experiments", "--out", str(target / "below")))


def test_logistic_floor_is_a_floor():
    """No run, however long, goes below the floor that bounded predictions impose."""
    rng = np.random.default_rng(6)
    problem = training.student_teacher(rng, 8, 4, 40, sparsity=3.0, loss_name="logistic")
    floor = synthetic.logistic_floor(problem)
    for optimizer in training.OPTIMIZERS:
        run = training.best_run(problem, optimizer, 200)
        assert np.all(run.train_loss >= floor - 1e-12)
