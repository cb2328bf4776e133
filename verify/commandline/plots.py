"""Plots the CLI draws from reports (PNG, written atomically)."""
import io

from verify.base import atomic


def plot_decoupling(report, path):
    """Relative errors of the decoupled formulas against d/(nN) (one figure, log scale)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sweep = next(c for c in report.claims if c.id == "A2.decouple").evidence.sweep
    x = [row["d_over_nN"] for row in sweep]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for key, label in (("preconditioner_rel_error", "preconditioner blockdiag(J_i²)"),
                       ("kappa_rel_error", "κ from the block formula"),
                       ("rate_rel_error", "local GD rate 1 − 1/κ (observed)")):
        ax.semilogy(x, [max(float(row[key]), 1e-17) for row in sweep], marker="o", label=label)
    ax.semilogy(x, [float(row["rate_measurement_resolution"]) for row in sweep], linestyle=":", color="grey",
                label="resolution of the GD rate measurement")
    ax.axvline(1.0, color="grey", linestyle="--", linewidth=1)
    ax.text(1.02, 1e-11, "d = nN: Assumption 2\nbecomes satisfiable", fontsize=8, color="grey")
    ax.set_xlabel("d / (nN)")
    ax.set_ylabel("relative error of the decoupled formula")
    ax.set_title("Decoupled analysis is exact only when d ≥ nN")
    ax.legend(fontsize=8)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=120)
    plt.close(fig)
    return str(atomic.write_bytes(path, buffer.getvalue()))
