"""What the synthetic experiments share: their size presets, the result record, figures, and the
wording of findings and titles, which states only what the numbers given to it show."""
from dataclasses import dataclass, field

import numpy as np

from verify.experiments.training import TEST_SEQUENCES, student_teacher

LABEL = {"gd": "GD (best fixed step size)", "adam": "Adam", "ngd": "normalized GD"}
SHORT = {"gd": "GD", "adam": "Adam", "ngd": "normalized GD"}
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
MAX_KEY_ENTRIES = 4 * 10**6  # numbers in the largest problem's training keys (32 MB of float64, and an orthonormal
# draw's QR of at most 2,000 columns; the full preset's: 262,144)
MAX_TEST_KEY_ENTRIES = 5 * 10**7  # and with its TEST_SEQUENCES test keys (400 MB; the full preset's: 2,359,296)
MAX_STEP_WORK = 10**10  # steps × training key numbers of the largest run, the sparse target's longer runs included
# (about three times the full preset's 3.1e9)
SPARSE_STEPS = 4  # the sparse-target runs take this many times the preset's steps


def problem_sizes(scale):
    """(N, n, d) of every problem a preset builds: the main and the swept over-parameterized ones, and the estimation
    experiment's 8·d_under sequences."""
    sizes = [(scale.N, scale.n, max(scale.d_over, scale.n * scale.N)), (8 * scale.d_under, scale.n, scale.d_under)]
    return sizes + [(scale.N, n, max(scale.d_over, n * scale.N)) for n in scale.ns]


def largest_keys(scale):
    """The numbers in the training keys of the largest problem a preset builds (N·n·d)."""
    return max(N * n * d for N, n, d in problem_sizes(scale))


def largest_memory(scale):
    """The numbers in the keys of the largest problem a preset builds, its TEST_SEQUENCES held-out ones included."""
    return max((N + TEST_SEQUENCES) * n * d for N, n, d in problem_sizes(scale))


def checked_scale(scale):
    """The preset, unless its sizes are not whole numbers ≥ 1 or its largest run would hold more than MAX_KEY_ENTRIES
    numbers or cost more than MAX_STEP_WORK (InputError naming the sizes and the fix: --n 1000000 once tried to
    allocate a petabyte)."""
    from verify.base import options
    from verify.base.errors import InputError

    for name in ("n", "N", "d_over", "d_under", "steps"):
        options.positive(getattr(scale, name), name, high=10**9)
    keys, memory = largest_keys(scale), largest_memory(scale)
    for held, most, what in ((keys, MAX_KEY_ENTRIES, "training"), (memory, MAX_TEST_KEY_ENTRIES, "training and test")):
        if held > most:
            raise InputError(f"experiments at n = {scale.n}, N = {scale.N} (d = {max(scale.d_over, scale.n * scale.N)}) "
                             f"build {what} keys of {held:.3g} numbers; at most {most:,}: give a smaller n or N")
    work = scale.steps * SPARSE_STEPS * keys
    if work > MAX_STEP_WORK:
        raise InputError(f"experiments of {scale.steps} steps on keys of {keys:,} numbers cost {work:.3g} step-numbers; at "
                         f"most {MAX_STEP_WORK:.0e}: give fewer steps, or a smaller n or N", "steps")
    return scale


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


FLOOR = 1e-16  # losses are drawn at least this, so a log axis does not spend decades on rounding noise


def floor(values):
    return np.maximum(values, FLOOR)


REBOUND = 10  # a drawn loss curve that climbs this many times above its lowest value so far is an event to report


def rebound(steps, relative):
    """The largest climb of a drawn loss curve (floored as drawn) above its lowest value so far:
    (factor, step of the low, the low, step of the high, the high)."""
    drawn = floor(np.asarray(relative, dtype=float))
    climb = drawn / np.minimum.accumulate(drawn)
    high = int(np.argmax(climb))
    low = int(np.argmin(drawn[:high + 1]))
    return float(climb[high]), int(steps[low]), float(drawn[low]), int(steps[high]), float(drawn[high])


def coincide(a, b, tolerance=0.05):
    """Two drawn curves within 5 % of each other at every recorded step: on the plot one hides the other."""
    a, b = floor(np.asarray(a, dtype=float)), floor(np.asarray(b, dtype=float))
    return a.shape == b.shape and bool(np.all(np.abs(np.log(a / b)) <= np.log1p(tolerance)))


def legend_below(ax, columns=2, below=0.17):
    """The legend under the axes (and their x label: `below` is the axes' fraction between), covering no curve."""
    ax.legend(fontsize=7, ncol=columns, loc="upper center", bbox_to_anchor=(0.5, -below), frameon=False)


def grid_edge(step_size, grid):
    """'largest' or 'smallest' when the chosen step is at that end of a grid of several steps, else None."""
    if len(grid) < 2:
        return None
    return "largest" if step_size == max(grid) else "smallest" if step_size == min(grid) else None


def direction(start, end):
    """'rose', 'fell' or 'stayed' from start to end, as the two numbers read at 3 significant digits."""
    if f"{start:.3g}" == f"{end:.3g}":
        return "stayed"
    return "rose" if end > start else "fell"


def change(name, start, end):
    """'R rose from 1 to 5.22e+03' (or 'fell', or 'stayed at 29'): the sentence the numbers support."""
    verb = direction(start, end)
    return f"{name} stayed at {start:.3g}" if verb == "stayed" else f"{name} {verb} from {start:.3g} to {end:.3g}"


def trends(name, curves):
    """'κ from start to end: rose along GD and Adam; fell along normalized GD' (each curve's (start, end))."""
    groups = {}
    for optimizer, (start, end) in curves.items():
        groups.setdefault(direction(start, end), []).append(SHORT[optimizer])
    return f"{name} from start to end:\n" + "; ".join(f"{verb} along {_listed(names)}" for verb, names in groups.items())


def _listed(names):
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def cut_text(cut, steps):
    """Where a run cut its training loss 1000×, or that it did not within its recorded steps."""
    return f"cut 1000× by step {cut}" if cut is not None else f"not cut 1000× within {steps} steps"


def step_text(optimizer, step_size, curvature):
    """The step size as the legend shows it: GD's as a multiple of 1/L₀ (its grid), the others' as η."""
    return f"η = {step_size * curvature:.3g}/L₀" if optimizer == "gd" else f"η = {step_size:.3g}"
