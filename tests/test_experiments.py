"""Experiments at tiny sizes: the files' shapes and a few invariants of the training code."""
import csv
import math
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
        for sentence in result.findings:
            assert sentence in summary and any(ch.isdigit() for ch in sentence)
    assert '"seed": 3' in summary and '"numpy"' in summary


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


@pytest.mark.parametrize("args", [["bogus"], ["--steps", "0"], ["--n", "-2"], ["--N", "x"], ["--quick", "--full"]])
def test_bad_input(args, tmp_path):
    assert_one_line_error(run_cli("experiments", "--out", str(tmp_path / "out"), *args))
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
