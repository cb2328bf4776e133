"""What the synthetic experiments share: their size presets, the result record, figures."""
from dataclasses import dataclass, field

import numpy as np

from verify.experiments.training import student_teacher

LABEL = {"gd": "GD (best fixed step)", "adam": "Adam", "ngd": "normalized GD"}
COLOR = {"gd": "tab:blue", "adam": "tab:orange", "ngd": "tab:green"}


@dataclass(frozen=True)
class Scale:
    """An experiment preset: sizes (n, N, d over and under nN), steps, and the sweeps."""

    name: str
    n: int
    N: int
    d_over: int  # ≥ nN: Assumption 2 holds (orthonormal keys)
    d_under: int  # < nN
    steps: int
    sparsities: tuple
    ns: tuple


QUICK = Scale("quick", n=6, N=12, d_over=80, d_under=24, steps=600, sparsities=(1.0, 4.0, 8.0), ns=(4, 8))
FULL = Scale("full", n=8, N=32, d_over=288, d_under=64, steps=3000, sparsities=(0.5, 1.0, 2.0, 4.0, 8.0, 12.0), ns=(4, 8, 16))


@dataclass(frozen=True)
class ExperimentResult:
    """An experiment's curves (columns, rows), its figure, findings (one sentence each) and numbers."""

    name: str
    columns: tuple
    rows: list
    figure: object = field(repr=False)  # a matplotlib Figure
    findings: tuple  # one sentence each, numbers included
    numbers: dict


def problem_for(rng, scale, n=None, d=None, sparsity=4.0, **kwargs):
    n = n or scale.n
    d = d or scale.d_over
    return student_teacher(rng, scale.N, n, d, sparsity=sparsity, orthonormal=True, **kwargs)



def figure(title, xlabel, ylabel, logy=True, logx=False):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.set_title(title, fontsize=11)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if logy:
        ax.set_yscale("log")
    if logx:
        ax.set_xscale("symlog", linthresh=10)
    return fig, ax


def floor(values):
    return np.maximum(values, 1e-16)
