"""Command line: thin over the library API.  Bad input: one stderr line, exit 2."""
import argparse
import json
import os
import sys
import time
from pathlib import Path

MIN_DPS = 30  # verify.numerics.precision.MIN_DPS (not imported: the CLI starts fast)
FLAGS = {"n": "--n", "N": "--N", "d": "--d", "steps": "--steps", "out": "--out", "claim": "--claim", "seed": "--seed",
         "samples": "--samples", "dps": "--dps", "workers": "--workers", "scheduler": "--scheduler", "example_db": "--example-db"}


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        from verify.errors import InputError

        command = " ".join(self.prog.split()[1:])
        raise InputError(f"{message}; see `python -m verify {command + ' ' if command else ''}--help`")


def _positive_int(name):
    def parse(text):
        from verify.errors import InputError

        try:
            value = int(text)
        except ValueError:
            raise InputError(f"{name} {text!r} is not a whole number; give a positive integer") from None
        if value <= 0:
            raise InputError(f"{name} {value} must be positive; give a positive integer")
        return value

    return parse


def _dps(text):
    from verify.errors import InputError

    value = _positive_int("--dps")(text)
    if value < MIN_DPS:
        raise InputError(f"--dps {value} is below {MIN_DPS}, the least that can certify a margin; use --dps 50")
    return value


def _workers(text):
    from verify.errors import InputError

    try:
        value = int(text)
    except ValueError:
        raise InputError(f"--workers {text!r} is not a whole number; give 1 (in this process) or more") from None
    if value < 1:
        raise InputError(f"--workers {value} must be at least 1; give 1 (in this process) or more")
    return value


def _writable_dir(flag):
    def parse(text):
        import tempfile

        from verify.errors import InputError

        try:
            Path(text).mkdir(parents=True, exist_ok=True)
            tempfile.TemporaryFile(dir=text).close()  # the folder must take a file, not only look writable
        except OSError as error:
            raise InputError(f"{flag} {text!r} is not a writable folder ({error.strerror}); give a folder you can "
                             "write to") from None
        return text

    return parse


def _add_scaling(parser, example_db=True):
    parser.add_argument("--workers", type=_workers, help="worker processes (default: this machine's cores; 1 runs in process)")
    parser.add_argument("--scheduler", metavar="ADDRESS", help="run on an existing Dask scheduler (tcp://HOST:PORT)")
    if example_db:
        parser.add_argument("--example-db", metavar="DIR", type=_writable_dir("--example-db"),
                            help="Hypothesis example database: a rerun replays earlier counterexamples first")


def build_parser():
    parser = _Parser(prog="verify", description="Check the mathematics of the softmax-attention GD paper (see SPEC.md).")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    t2 = commands.add_parser("theorem2", help="Theorem 2 / Eq. (47): verdict table for every claim (the main job)")
    t2.add_argument("--case", metavar="FILE.json", help="evaluate one configuration instead of searching")
    t2.add_argument("--claim", metavar="ID", action="append", help="only this claim (repeatable)")
    t2.add_argument("--seed", type=int, default=0, help="random and Hypothesis seed (default 0)")
    t2.add_argument("--samples", type=_positive_int("--samples"), default=300, help="random cases per claim (default 300)")
    t2.add_argument("--dps", type=_dps, default=50, help=f"digits for re-decisions and certificates (≥ {MIN_DPS}, default 50)")
    t2.add_argument("--out", metavar="DIR", default="certificates", help="folder for certificates (default ./certificates)")
    t2.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    t2.add_argument("--strict", action="store_true", help="exit 1 if any claim is REFUTED")
    _add_scaling(t2)

    a2 = commands.add_parser("assumption2", help="Assumption 2: which readings d allows, and what breaks without it")
    a2.add_argument("--n", type=_positive_int("--n"), help="tokens per sequence (with --N and --d: one user's dimensions)")
    a2.add_argument("--N", type=_positive_int("--N"), help="number of sequences")
    a2.add_argument("--d", type=_positive_int("--d"), help="key dimension")
    a2.add_argument("--seed", type=int, default=0)
    a2.add_argument("--samples", type=_positive_int("--samples"), default=40, help="random cases per check (default 40)")
    a2.add_argument("--claim", metavar="ID", action="append", help="only this claim (repeatable)")
    a2.add_argument("--json", action="store_true")
    a2.add_argument("--plot", metavar="FILE.png", help="plot the decoupling errors against d/(nN)")
    _add_scaling(a2, example_db=False)

    derive = commands.add_parser("derive", help="derivations D1–D6 and A2 with their symbolic and numeric checks")
    derive.add_argument("ids", nargs="*", metavar="ID", help="derivation ids (default: all)")
    derive.add_argument("--json", action="store_true")
    derive.add_argument("--strict", action="store_true", help="exit 1 if a check fails")

    export = commands.add_parser("export-latex", help="write derivations.tex and one snippet per derivation")
    export.add_argument("--out", metavar="DIR", default="derivations", help="folder (default derivations/)")

    experiments = commands.add_parser("experiments", help="reviewer-requested experiments: CSVs, plots and summary.md")
    experiments.add_argument("names", nargs="*", metavar="NAME",
                             help="optimizers, conditioning, estimation, sparse-target, losses, joint, regimes (default: all)")
    size = experiments.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="small sweeps, all experiments in under 3 minutes (default)")
    size.add_argument("--full", action="store_true", help="larger sweeps")
    experiments.add_argument("--out", metavar="DIR", default="results", help="output folder (default results/)")
    experiments.add_argument("--seed", type=int, default=0)
    experiments.add_argument("--steps", type=_positive_int("--steps"), help="steps per run (overrides the preset)")
    experiments.add_argument("--n", type=_positive_int("--n"), help="tokens per sequence (overrides the preset)")
    experiments.add_argument("--N", type=_positive_int("--N"), help="sequences (overrides the preset)")

    spectrum = commands.add_parser("spectrum", help="eigenvalues of J(z) by the secular equation; κ of J and of J H J on T")
    spectrum.add_argument("file", metavar="FILE.json", help='{"z": [...]} or {"logits": [...]}, optional "H"')
    spectrum.add_argument("--json", action="store_true")
    spectrum.add_argument("--dps", type=_dps, default=30, help=f"digits (≥ {MIN_DPS}, default 30)")

    check = commands.add_parser("check", help="re-verify a certificate from scratch (ball arithmetic, ≥ 50 digits)")
    check.add_argument("file", metavar="FILE")
    check.add_argument("--json", action="store_true")
    return parser


def main(argv=None):
    from verify.errors import InputError

    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 0
        return COMMANDS[args.command](args)
    except InputError as error:
        flag = f"{FLAGS.get(error.parameter, '')}: " if error.parameter in FLAGS else ""
        print(f"verify: error: {flag}{error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("verify: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader (say `| head`) left early: stop quietly, as the Python docs advise
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


# ---------------------------------------------------------------- theorem2


def cmd_theorem2(args):
    for claim_id in args.claim or ():
        get_claim_for("theorem2", claim_id)
    if args.case:
        return _theorem2_case(args)
    from verify.atomic import check_out_dir

    check_out_dir(args.out, "certificates")
    from verify.claims.theorem2 import run_theorem2

    with _LazyProgress("searching") as progress:
        report = run_theorem2(args.seed, args.samples, args.dps, args.claim, args.out, progress, args.workers,
                              args.scheduler, args.example_db)
    return _print_report(report, args)


def _print_report(report, args, title=None):
    """The table (or JSON); exit 130 after an interrupted run, 1 for REFUTED under --strict."""
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        from verify.render import theorem2_table

        theorem2_table(report, title=title)
    if report.interrupted:
        print("verify: interrupted; the table shows what was decided before Ctrl-C", file=sys.stderr)
        return 130
    return 1 if getattr(args, "strict", False) and report.refuted else 0


def _theorem2_case(args):
    from verify.claims.cases import load_case
    from verify.claims.theorem2 import evaluate_case

    case = load_case(args.case)
    q, rows = evaluate_case(case, args.dps, args.claim)
    from verify.render import case_json, case_table

    if args.json:
        print(json.dumps(case_json(q, rows), indent=2))
    else:
        case_table(case, q, rows)
    return 1 if args.strict and any(not r.holds for r in rows) else 0


def cmd_check(args):
    from verify.claims.certificates import check_certificate

    result = check_certificate(args.file)
    if args.json:
        print(json.dumps({"file": args.file, "confirmed": result.confirmed, "reason": result.reason, "bits": result.bits}))
    else:
        print(f"{'CONFIRMED' if result.confirmed else 'NOT CONFIRMED'}: {args.file}: {result.reason} ({result.bits}-bit balls)")
    return 0 if result.confirmed else 1


def cmd_spectrum(args):
    from verify.claims.cases import load_case
    from verify.numerics.jspectrum import j_spectrum_report

    case = load_case(args.file, require_H=False)
    report = j_spectrum_report(list(case.logits), case.H, args.dps)
    from verify.render import spectrum_json, spectrum_table

    if args.json:
        print(json.dumps(spectrum_json(report), indent=2))
    else:
        spectrum_table(report)
    return 0


def cmd_assumption2(args):
    from verify.claims import assumption2
    from verify.claims.assumption2_claims import Settings
    from verify.errors import InputError

    dims = (args.n, args.N, args.d)
    if any(v is not None for v in dims) and not all(v is not None for v in dims):
        raise InputError("give all three of --n, --N and --d (one user's dimensions), or none for the default sweep")
    if args.plot:
        _check_plot_path(args.plot)
    from verify.render import assumption2_dimensions_table

    if args.n is not None:
        report = assumption2.check_dimensions(args.n, args.N, args.d, args.seed)
        if args.json:
            print(json.dumps(report.to_json(), indent=2))
        else:
            assumption2_dimensions_table(report)
        return 0
    for claim_id in args.claim or ():
        get_claim_for("assumption2", claim_id)
    settings = Settings(samples=args.samples)
    with _LazyProgress("checking") as progress:
        report = assumption2.run_assumption2(args.seed, settings, args.claim, progress, args.workers, args.scheduler)
    if args.plot:
        if not any(c.id == "A2.decouple" for c in report.claims):
            raise InputError("--plot draws the A2.decouple sweep; include --claim A2.decouple or drop --claim")
        from verify.plots import plot_decoupling

        plot_decoupling(report, args.plot)
    return _print_report(report, args, title=f"Assumption 2 — seed {report.seed}, n = {settings.n}, N = {settings.N}, "
                                              f"d ∈ [{settings.ds[0]}, {settings.ds[-1]}], {report.seconds:.1f} s")


def cmd_derive(args):
    from verify.errors import InputError
    from verify.derivations.registry import DERIVATION_REGISTRY, run_checks

    unknown = [i for i in args.ids if i not in DERIVATION_REGISTRY]
    if unknown:
        raise InputError(f"unknown derivation id {unknown[0]!r}; choose from {', '.join(DERIVATION_REGISTRY)}")
    chosen = [DERIVATION_REGISTRY[i] for i in args.ids] if args.ids else list(DERIVATION_REGISTRY.values())
    results = []
    with _LazyProgress("checking derivations") as progress:
        for index, derivation in enumerate(chosen):
            progress(index, len(chosen), derivation.id)
            results.append((derivation, run_checks(derivation)))
        progress(len(chosen), len(chosen), "done")
    from verify.render import derivations_json, derivations_text

    if args.json:
        print(json.dumps(derivations_json(results), indent=2))
    else:
        derivations_text(results)
    failed = any(not c.passed for _, checks in results for c in checks)
    return 1 if args.strict and failed else 0


def cmd_export_latex(args):
    from verify.derivations.latex import export

    paths = export(args.out)
    print(f"wrote {len(paths)} files to {args.out}/: " + ", ".join(Path(p).name for p in paths))
    return 0


def cmd_experiments(args):
    from dataclasses import replace

    from verify.experiments import common as experiments
    from verify.experiments.runner import run_experiments
    from verify.experiments.synthetic import EXPERIMENTS

    scale = experiments.FULL if args.full else experiments.QUICK
    overrides = {k: v for k, v in (("steps", args.steps), ("n", args.n), ("N", args.N)) if v is not None}
    if overrides:
        scale = replace(scale, **overrides)
        scale = replace(scale, d_over=max(scale.d_over, scale.n * scale.N + 8), d_under=max(2, min(scale.d_under, scale.n * scale.N // 3)))
    names = args.names or list(EXPERIMENTS)
    unknown = [n for n in names if n not in EXPERIMENTS]
    if unknown:
        from verify.errors import InputError

        raise InputError(f"unknown experiment {unknown[0]!r}; choose from {', '.join(EXPERIMENTS)}")
    from verify.atomic import check_out_dir

    check_out_dir(args.out)
    with _LazyProgress("experiments") as bar:
        results = run_experiments(names, scale, args.out, args.seed,
                                              lambda fraction, label: bar(round(fraction * 1000), 1000, label))
    print(f"wrote {len(results)} experiments to {args.out}/ (CSV, PNG each) and {args.out}/summary.md")
    for result in results:
        print(f"\n{result.name}:")
        for sentence in result.findings:
            print(f"  - {sentence}")
    return 0


def get_claim_for(command, claim_id):
    from verify.claims.registry import get_claim

    return get_claim(claim_id, command)


def _check_plot_path(path):
    from verify.errors import InputError

    target = Path(path)
    if target.is_dir():
        raise InputError(f"--plot {path!r} is a folder; give a file name ending in .png")
    if not target.parent.exists() or not os.access(target.parent, os.W_OK):
        raise InputError(f"--plot {path!r}: the folder {str(target.parent)!r} does not exist or is not writable")


COMMANDS = {"theorem2": cmd_theorem2, "assumption2": cmd_assumption2, "derive": cmd_derive,
            "export-latex": cmd_export_latex, "experiments": cmd_experiments, "spectrum": cmd_spectrum, "check": cmd_check}


class _LazyProgress:
    """A rich progress bar on stderr, shown only once the work has taken 2 s."""

    def __init__(self, title, delay=2.0):
        self.title, self.delay = title, delay
        self.started = time.perf_counter()
        self.bar = self.task = None

    def __enter__(self):
        return self

    def __call__(self, done, total, label):
        if self.bar is None and time.perf_counter() - self.started < self.delay:
            return
        if self.bar is None:
            from rich.console import Console
            from rich.progress import Progress

            self.bar = Progress(console=Console(stderr=True), transient=True)
            self.bar.start()
            self.task = self.bar.add_task(self.title, total=total)
        self.bar.update(self.task, completed=done, description=f"{self.title}: {label}")

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.stop()
        return False
