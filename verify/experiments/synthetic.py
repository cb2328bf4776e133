"""The seven reviewer-requested experiments on the synthetic prompt-attention model:
optimizers, conditioning, estimation, sparse-target, losses, joint, regimes.

Each returns an `ExperimentResult` (its curves as rows, a figure, and findings: one sentence
each, with the numbers behind it).  Every finding, title and label is computed from the run: a
direction ("rose", "still growing") is the one its numbers show.  Same seed, same numbers.
"""
import math
from dataclasses import replace

import numpy as np

from verify.experiments.common import (COLOR, FLOOR, LABEL, REBOUND, SHORT, SPARSE_STEPS, ExperimentResult, change,
                                       coincide, cut_text, figure, floor, grid_edge, legend_below, rebound,
                                       problem_for, step_text, trends)
from verify.experiments import training
from verify.experiments.training import OPTIMIZERS, best_run, steps_to, student_teacher
from verify.numerics import model as prompt_model



def optimizers(rng, scale, progress=None):
    """GD vs Adam vs normalized GD, softmax vs linear attention, over a sweep of sparsity, n and d."""
    rows, outcomes = [], []
    settings = [(s, n, regime) for s in scale.sparsities for n in scale.ns for regime in ("over", "under")]
    for index, (sparsity, n, regime) in enumerate(settings):
        if progress:
            progress(index / len(settings))
        d = max(scale.d_over, n * scale.N) if regime == "over" else scale.d_under
        base = problem_for(rng, scale, n=n, d=d, sparsity=sparsity)
        for attention in ("softmax", "linear"):
            problem = replace(base, train=replace(base.train, attention=attention), test=replace(base.test, attention=attention))
            runs = {o: best_run(problem, o, scale.steps) for o in OPTIMIZERS}
            curvature = training.initial_curvature(problem)
            for o, run in runs.items():
                rows += [(sparsity, n, d, regime, attention, o, run.step_size, int(t), float(l))
                         for t, l in zip(run.steps, run.train_loss)]
            outcomes.append(dict(sparsity=sparsity, n=n, d=d, regime=regime, attention=attention,
                                 final={o: runs[o].final_loss for o in OPTIMIZERS},
                                 steps_to={o: steps_to(runs[o]) for o in OPTIMIZERS},
                                 start=runs["gd"].train_loss[0], runs=runs, curvature=curvature))
    softmax = [o for o in outcomes if o["attention"] == "softmax"]
    wins = [o for o in softmax if _advantage(o) > 1]
    best = max(softmax, key=_advantage)
    setting = f"sparsity {best['sparsity']:g}, n = {best['n']}, d = {best['d']} ({best['regime']}-parameterized)"
    helped = _advantage(best) > 1
    where = (f"its largest advantage, {_advantage_text(best)}, was at {setting}" if helped
             else f"it came closest at {setting}: {_advantage_text(best)}")
    findings = [
        f"Adam beat the best-tuned GD (fewer steps to cut the training loss 1000×, or a lower final loss) in "
        f"{len(wins)} of {len(softmax)} softmax settings; {where}.",
        _ngd_finding(softmax),
        _linear_finding(outcomes),
    ]
    headline = "where Adam's advantage over GD is largest" if helped else "where Adam came closest to GD (it never beat it)"
    fig, ax = figure(f"Training loss, sparsity {best['sparsity']:g}, n = {best['n']}, d = {best['d']}:\n{headline}",
                      "step", f"training loss (drawn at least {FLOOR:g})")
    linear = next(o for o in outcomes if o["attention"] == "linear" and all(o[k] == best[k] for k in ("sparsity", "n", "d")))
    for o in OPTIMIZERS:
        for outcome, style, kind in ((best, "-", "softmax"), (linear, "--", "linear attention")):
            run = outcome["runs"][o]
            ax.plot(run.steps, floor(run.train_loss), color=COLOR[o], linestyle=style,
                    label=f"{LABEL[o]}, {kind} ({step_text(o, run.step_size, outcome['curvature'])})")
    legend_below(ax)
    numbers = {"settings": len(softmax), "adam_wins": len(wins),
               "best": {k: best[k] for k in ("sparsity", "n", "d", "regime")} | {"advantage": _advantage(best)}}
    columns = ("sparsity", "n", "d", "regime", "attention", "optimizer", "step_size", "step", "train_loss")
    return ExperimentResult("optimizers", columns, rows, fig, tuple(findings), numbers)


def _advantage(outcome):
    """GD's steps to 1000× over Adam's; if GD never gets there, GD's final loss over Adam's."""
    gd, adam = outcome["steps_to"]["gd"], outcome["steps_to"]["adam"]
    if gd and adam:
        return gd / adam
    if adam and not gd:
        return max(outcome["final"]["gd"] / max(outcome["final"]["adam"], 1e-300), 1.0 + 1e-9)
    if gd and not adam:
        return adam / gd if adam else 0.5
    return outcome["final"]["gd"] / max(outcome["final"]["adam"], 1e-300)


def _advantage_text(outcome):
    gd, adam = outcome["steps_to"]["gd"], outcome["steps_to"]["adam"]
    if gd and adam:
        return f"{gd} GD steps against {adam} for Adam to cut the loss 1000×"
    if adam:
        return f"Adam cut the loss 1000× in {adam} steps while GD ended at {outcome['final']['gd'] / outcome['start']:.2g} of its start"
    if gd:
        return f"GD cut the loss 1000× in {gd} steps while Adam ended at {outcome['final']['adam'] / outcome['start']:.2g} of its start"
    return f"final losses {outcome['final']['gd']:.3g} (GD) and {outcome['final']['adam']:.3g} (Adam)"


def _ngd_finding(softmax):
    faster = [o for o in softmax if _first(o, "ngd", "gd")]
    reached = sum(o["steps_to"]["ngd"] is not None for o in softmax)
    final = {o: np.median([x["final"][o] / x["start"] for x in softmax]) for o in ("ngd", "gd")}
    late = {o: np.median([_late_ratio(x["runs"][o]) for x in softmax]) for o in ("ngd", "gd")}
    return (f"Normalized GD (p ← p − η ∇L/‖∇L‖, a step of fixed length η) cut the loss 1000× in {reached} of {len(softmax)} "
            f"softmax settings, before the best-tuned GD in {len(faster)}; its median final loss was {final['ngd']:.2g} of the "
            f"start against {final['gd']:.2g} for GD, and its loss at the end was a median {late['ngd']:.2g} of its loss at "
            f"mid-run (GD: {late['gd']:.2g}).")


def _late_ratio(run):
    """The final training loss over the loss at the middle recorded step."""
    return run.train_loss[-1] / max(run.train_loss[len(run.train_loss) // 2], 1e-300)


def _first(outcome, a, b):
    """True when optimizer a reached the 1000× cut, and sooner than b (or b never did)."""
    sa, sb = outcome["steps_to"][a], outcome["steps_to"][b]
    return sa is not None and (sb is None or sa < sb)


def _linear_finding(outcomes):
    pairs = []
    for o in outcomes:
        if o["attention"] != "softmax":
            continue
        twin = next(p for p in outcomes if p["attention"] == "linear" and all(p[k] == o[k] for k in ("sparsity", "n", "d")))
        pairs.append((o["steps_to"]["gd"], twin["steps_to"]["gd"]))
    budget = lambda s: s if s is not None else math.inf
    faster = sum(budget(lin) < budget(soft) for soft, lin in pairs)
    median = lambda values: np.median([budget(v) for v in values])
    return (f"With GD, linear attention cut its loss 1000× sooner than softmax attention in {faster} of {len(pairs)} settings "
            f"(median steps {median([p[1] for p in pairs]):g} linear, {median([p[0] for p in pairs]):g} softmax; inf: not within the budget).")


# ---------------------------------------------------------------- conditioning


def _R_and_kappa(model, p, v):
    z = training.attention(model, p)
    R = float(np.max(z.max(axis=1) / z.min(axis=1)))
    problem = prompt_model.Problem(model.K, model.X @ v, model.y, model.loss)
    return R, float(prompt_model.gauss_newton_spectrum(problem, p).kappa)


def conditioning(rng, scale, progress=None):
    """R = max_i z_max/z_min and κ of the local (Gauss–Newton) p-Hessian along training."""
    problem = problem_for(rng, scale, sparsity=max(scale.sparsities))
    rows, curves = [], {}
    for index, o in enumerate(OPTIMIZERS):
        if progress:
            progress(index / len(OPTIMIZERS))
        run = best_run(problem, o, scale.steps)
        values = [_R_and_kappa(problem.train, p, v) for p, v in run.snapshots]
        curves[o] = (run.steps, np.array(values))
        rows += [(o, run.step_size, int(t), R, k, float(l)) for t, (R, k), l in zip(run.steps, values, run.train_loss)]
    star = _R_and_kappa(problem.train, problem.p_star, problem.v_star)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_R, ax_k) = plt.subplots(1, 2, figsize=(10, 4.4))
    fig.suptitle(f"R and κ along training (sparsity {max(scale.sparsities):g}; dotted: at the teacher p*)", fontsize=11)
    for ax, column, name, label in ((ax_R, 0, "R", "R = max_i z_max / z_min"),
                                    (ax_k, 1, "κ", "κ of the Gauss–Newton p-Hessian (on its range)")):
        ax.set_yscale("log")
        ax.set_xlabel("step")
        ax.set_ylabel(label)
        ax.set_title(trends(name, {o: (v[0, column], v[-1, column]) for o, (s, v) in curves.items()}), fontsize=10)
        for o, (steps, values) in curves.items():
            ax.plot(steps, values[:, column], color=COLOR[o], label=LABEL[o])
        ax.axhline(star[column], color="grey", linestyle=":")
    legend_below(ax_R, columns=3)
    findings = []
    for o, (steps, values) in curves.items():
        peaks = [f"largest {values[:, c].max():.3g} at step {steps[np.argmax(values[:, c])]}" for c in (0, 1)]
        findings.append(f"Along {LABEL[o]}, {change('R', values[0, 0], values[-1, 0])} ({peaks[0]}) and "
                        f"{change('κ', values[0, 1], values[-1, 1])} ({peaks[1]}) over {steps[-1]} steps "
                        f"(teacher: R = {star[0]:.3g}, κ = {star[1]:.3g}).")
    numbers = {o: {"R_start": float(v[0, 0]), "R_end": float(v[-1, 0]), "kappa_start": float(v[0, 1]),
                   "kappa_end": float(v[-1, 1])} for o, (s, v) in curves.items()}
    return ExperimentResult("conditioning", ("optimizer", "step_size", "step", "R", "kappa", "train_loss"), rows, fig,
                            tuple(findings), numbers)


# ---------------------------------------------------------------- estimation


def estimation(rng, scale, progress=None, noise=0.1):
    """Optimization error (training loss) beside estimation error (‖p_t − p*‖, test loss): d < nN and
    N = 8d examples, so the noisy labels cannot be interpolated and p* is identifiable."""
    problem = student_teacher(rng, 8 * scale.d_under, scale.n, scale.d_under, sparsity=2.0, noise=noise, orthonormal=False)
    rows, runs = [], {}
    for index, o in enumerate(("gd", "adam")):
        if progress:
            progress(index / 2)
        runs[o] = best_run(problem, o, scale.steps)
        rows += [(o, runs[o].step_size, int(t), float(a), float(b), float(c))
                 for t, a, b, c in zip(runs[o].steps, runs[o].train_loss, runs[o].test_loss, runs[o].p_error)]
    fig, ax = figure(f"Optimization vs estimation error (d = {scale.d_under}, N = {8 * scale.d_under}, label noise {noise:g})",
                      "step", "value")
    for o, run in runs.items():
        style = "-" if o == "gd" else "--"
        ax.plot(run.steps, run.train_loss, style, color="tab:blue", label=f"training loss, {LABEL[o]}")
        ax.plot(run.steps, run.test_loss, style, color="tab:red", label=f"test loss, {LABEL[o]}")
        ax.plot(run.steps, run.p_error, style, color="tab:green", label=f"‖p_t − p*‖, {LABEL[o]}")
    teacher = noise**2 / 2  # the teacher's expected square loss under label noise σ
    ax.axhline(teacher, color="grey", linestyle=":", label="σ²/2: the teacher's expected loss")
    legend_below(ax)
    side = lambda value: "below" if value < teacher else "above"  # noqa: E731
    findings = [f"With {LABEL[o]} the training loss ended at {r.train_loss[-1]:.3g} ({side(r.train_loss[-1])} the teacher's "
                f"expected loss σ²/2 = {teacher:.3g}), the test loss at {r.test_loss[-1]:.3g} ({side(r.test_loss[-1])} it) and "
                f"{change('‖p_t − p*‖', r.p_error[0], r.p_error[-1])}." for o, r in runs.items()]
    numbers = {o: {"train": float(r.train_loss[-1]), "test": float(r.test_loss[-1]), "p_error": float(r.p_error[-1])} for o, r in runs.items()}
    return ExperimentResult("estimation", ("optimizer", "step_size", "step", "train_loss", "test_loss", "p_error"), rows, fig,
                            tuple(findings), numbers)


# ---------------------------------------------------------------- sparse target


def sparse_target(rng, scale, progress=None):
    """A one-hot target attention (y_i = the value of the teacher's top token), which softmax reaches only as the
    logits go to infinity: whether ‖p_t‖ keeps growing, fitted against log t."""
    problem = problem_for(rng, scale, sparsity=4.0)
    top = np.argmax(training.attention(problem.train, problem.p_star), axis=1)
    values = problem.train.X @ problem.v_star
    hard = values[np.arange(len(top)), top]
    problem = replace(problem, train=replace(problem.train, y=hard))
    rows, runs = [], {}
    steps = scale.steps * SPARSE_STEPS
    for index, o in enumerate(OPTIMIZERS):
        if progress:
            progress(index / len(OPTIMIZERS))
        runs[o] = best_run(problem, o, steps, record_every=2)  # dense records: the log-scale plot starts at step 2
        rows += [(o, runs[o].step_size, int(t), float(a), float(b)) for t, a, b in zip(runs[o].steps, runs[o].p_norm, runs[o].train_loss)]
    findings, fits = [], {}
    for o, run in runs.items():
        late = run.steps >= max(run.steps[-1] // 10, 1)
        slope = float(np.polyfit(np.log(run.steps[late]), run.p_norm[late], 1)[0]) if late.sum() > 2 else float("nan")
        fits[o] = {"slope_per_log_step": slope, "final_norm": float(run.p_norm[-1]), "final_loss": float(run.train_loss[-1])}
        findings.append(f"With {LABEL[o]}, ‖p_t‖ reached {run.p_norm[-1]:.3g} after {run.steps[-1]} steps and {_growth(slope)} "
                        f"over the last 90 % of the run, while {change('the loss', run.train_loss[0], run.train_loss[-1])}.")
    growing = [o for o in runs if fits[o]["slope_per_log_step"] > 0]
    verdict = ("still growing at the end of every run" if len(growing) == len(runs) else
               f"still growing at the end along {', '.join(SHORT[o] for o in growing)} only" if growing else
               "not growing at the end of any run")
    fig, ax = figure(f"‖p_t‖ with a one-hot target attention: {verdict}", "step (log scale)", "‖p_t‖", logy=False, logx=True)
    for o, run in runs.items():
        ax.plot(run.steps, run.p_norm, color=COLOR[o], label=LABEL[o])
    legend_below(ax)
    return ExperimentResult("sparse-target", ("optimizer", "step_size", "step", "p_norm", "train_loss"), rows, fig,
                            tuple(findings), fits)


def _growth(slope):
    """How ‖p_t‖ moved against log t, as its fitted slope says."""
    if not np.isfinite(slope):
        return "had too few records to fit a slope"
    return (f"was still growing by {slope:.3g} per unit of log t" if slope > 0
            else f"was not growing (slope {slope:.3g} per unit of log t)")


# ---------------------------------------------------------------- losses, joint, regimes


def _events(results, curvatures, grids):
    """What the plot shows beyond each run's end: a loss climbing back REBOUND× or more above its low, two
    curves drawn one over the other, a chosen step at the edge of its grid."""
    out = []
    for (label, o), run in results.items():
        factor, low_step, low, high_step, high = rebound(run.steps, run.train_loss / run.train_loss[0])
        if factor >= REBOUND:
            out.append(f"{label} with {LABEL[o]}: the loss climbed back {factor:.2g}× above its low, from {low:.2g} of its "
                       f"start at step {low_step} to {high:.2g} at step {high_step}.")
        edge = grid_edge(run.step_size, grids[(label, o)])
        if edge:
            out.append(f"{label} with {LABEL[o]}: the chosen step, {step_text(o, run.step_size, curvatures[label])}, is "
                       f"the {edge} of its grid; a step beyond it was not tried.")
    labels = list(dict.fromkeys(label for label, _ in results))
    for label in labels:
        gd, adam = results[(label, "gd")], results[(label, "adam")]
        if coincide(gd.train_loss / gd.train_loss[0], adam.train_loss / adam.train_loss[0]):
            out.append(f"{label}: GD's and Adam's curves stay within 5 % of each other at every recorded step "
                       "(drawn one over the other: GD wide and pale, Adam with dots).")
    return out


def _compare(rng, scale, variants, title, progress, name):
    """Best GD and Adam on each variant problem; relative training-loss curves in one figure."""
    rows, results, curvatures, grids = [], {}, {}, {}
    for index, (label, problem) in enumerate(variants):
        curvatures[label] = training.initial_curvature(problem)
        for o in ("gd", "adam"):
            grids[(label, o)] = training.step_grid(problem, o)
            if progress:
                progress((2 * index + (o == "adam")) / (2 * len(variants)))
            run = best_run(problem, o, scale.steps)
            results[(label, o)] = run
            rows += [(label, o, run.step_size, int(t), float(l), float(l / run.train_loss[0])) for t, l in zip(run.steps, run.train_loss)]
    fig, ax = figure(title, "step", f"training loss / its start (drawn at least {FLOOR:g})")
    for (label, o), run in results.items():
        ax.plot(run.steps, floor(run.train_loss / run.train_loss[0]), color=COLOR[o],
                linestyle=("-", "--", ":")[[v[0] for v in variants].index(label)],
                linewidth=3.5 if o == "gd" else 1.2, alpha=0.55 if o == "gd" else 1.0,  # a wide GD line shows under Adam's
                marker="o" if o == "adam" else None, markevery=max(len(run.steps) // 12, 1), markersize=3,
                label=f"{label}, {LABEL[o]} ({step_text(o, run.step_size, curvatures[label])})")
    legend_below(ax)
    findings = [f"{label} with {LABEL[o]}: training loss {run.train_loss[-1]:.3g} after {run.steps[-1]} steps "
                f"({run.train_loss[-1] / run.train_loss[0]:.2g} of its start; {cut_text(steps_to(run), run.steps[-1])})."
                for (label, o), run in results.items()]
    findings += _events(results, curvatures, grids)
    numbers = {f"{label}/{o}": {"start": float(r.train_loss[0]), "final": float(r.train_loss[-1]),
                                "relative": float(r.train_loss[-1] / r.train_loss[0]), "steps_to_1000x": steps_to(r)}
               for (label, o), r in results.items()}
    return ExperimentResult(name, ("variant", "optimizer", "step_size", "step", "train_loss", "relative_loss"), rows, fig,
                            tuple(findings), numbers)


def losses(rng, scale, progress=None):
    square = problem_for(rng, scale, sparsity=4.0)
    logistic = student_teacher(np.random.default_rng(rng.integers(2**32)), scale.N, scale.n, scale.d_over, sparsity=4.0,
                               loss_name="logistic", orthonormal=True)
    result = _compare(rng, scale, [("square loss", square), ("logistic loss", logistic)],
                      "Square vs logistic loss (softmax attention)", progress, "losses")
    floor = logistic_floor(logistic)
    ends = {o: result.numbers[f"logistic loss/{o}"] for o in ("gd", "adam")}
    sentence = (f"With the decoder fixed, |ŷ_i| ≤ max_k |u_ik|, so the logistic loss cannot fall below "
                f"mean_i log(1 + e^(−max_k y_i u_ik)) = {floor:.4g}: from its start at {ends['gd']['start']:.4g} it had "
                f"{ends['gd']['start'] - floor:.3g} to fall, and the runs ended {ends['gd']['final'] - floor:.2g} (GD) and "
                f"{ends['adam']['final'] - floor:.2g} (Adam) above that floor.")
    return replace(result, findings=result.findings + (sentence,), numbers=result.numbers | {"logistic_floor": floor})


def logistic_floor(problem):
    """The least logistic loss any attention can reach with v fixed: each ŷ_i is a convex combination of u_i."""
    u = problem.train.X @ problem.v_star
    best_margin = np.max(problem.train.y[:, None] * u, axis=1)
    return float(np.mean(np.logaddexp(0, -best_margin)))


def joint(rng, scale, progress=None):
    base = problem_for(rng, scale, sparsity=4.0)
    both = replace(base, train=replace(base.train, train_v=True), test=replace(base.test, train_v=True))
    return _compare(rng, scale, [("p only (v = v*)", base), ("v and p jointly", both)],
                    "Training the prompt alone vs the decoder and prompt jointly", progress, "joint")


def regimes(rng, scale, progress=None):
    over = problem_for(rng, scale, sparsity=4.0, d=scale.d_over)
    under = student_teacher(np.random.default_rng(rng.integers(2**32)), scale.N, scale.n, scale.d_under, sparsity=4.0, orthonormal=False)
    result = _compare(rng, scale, [(f"over-parameterized d = {scale.d_over}", over), (f"under-parameterized d = {scale.d_under}", under)],
                      f"Over- vs under-parameterized prompt (nN = {scale.n * scale.N})", progress, "regimes")
    kappas = {label: float(prompt_model.gauss_newton_spectrum(prompt_model.Problem(p.train.K, p.train.X @ p.v_star, p.train.y), p.p_star).kappa)
              for label, p in ((f"over-parameterized d = {scale.d_over}", over), (f"under-parameterized d = {scale.d_under}", under))}
    sentence = "κ of the Gauss–Newton p-Hessian at the teacher: " + "; ".join(f"{k}: {v:.3g}" for k, v in kappas.items()) + "."
    return replace(result, findings=result.findings + (sentence,), numbers=result.numbers | {"kappa_at_teacher": kappas})


EXPERIMENTS = {
    "optimizers": optimizers,
    "conditioning": conditioning,
    "estimation": estimation,
    "sparse-target": sparse_target,
    "losses": losses,
    "joint": joint,
    "regimes": regimes,
}
