"""Command line: thin over the library API, verify.api (its grammar and option checks are verify.commandline.arguments and
verify.base.options; it imports nothing from verify.claims or verify.numerics). Bad input: one stderr line, exit 2."""
import json
import os
import re
import sys
import time
from pathlib import Path

from verify.base.printable import escaped
from verify.commandline.terminal import safe


def main(argv=None):
    """Run one command: exit status 0 (done), 1 (--strict: a claim REFUTED, a check failed), 2 (bad input: one
    line on stderr), 3 (a CONTRADICTION: a claim proved and refuted at once, one line per claim on stderr), 130 (Ctrl-C, whenever it came: one line on stderr), 141 (the reader of stdout left).
    Called as the program (argv None: `python -m verify`, the `verify` script), a Ctrl-C that comes while
    the process ends (Dask's clean-up, flushing the output) also ends it with status 130."""
    try:
        try:
            status = _run(argv)
        except KeyboardInterrupt:
            print("verify: interrupted", file=sys.stderr)
            status = 130
    except KeyboardInterrupt:  # a second Ctrl-C while the first was reported
        status = 130
    if argv is None:
        import functools
        import gc
        import signal

        signal.signal(signal.SIGINT, functools.partial(_interrupted_at_exit, status))
        gc.freeze()  # the process ends next: its final collection would walk every object the run made (0.3 s of
        # theorem2's 3.5 s); what it would free, the process's exit frees, and the output is flushed all the same
        _exit_without_teardown(status)
    return status


def _exit_without_teardown(status):
    """End the program now with `status`, as the interpreter would but without freeing the run's objects one by one
    (0.2–0.3 s of theorem2's 3 s, after its last line was printed): the exit handlers run (Dask's, multiprocessing's,
    the temporary files' finalizers), then the output is flushed and the process exits. Where a thread is still
    alive, the interpreter's own ending (which waits for it, then runs the handlers) is kept."""
    import atexit
    import threading

    if threading.active_count() > 1:
        return
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:  # (None where the program started with that descriptor closed)
                stream.flush()
        except BrokenPipeError:  # the reader left before the last of the output: 141, quietly (the docstring's)
            status = 141
        except (OSError, ValueError):  # a full disk, a closed stream: the interpreter's ending reports it
            return
    os._exit(status)


def _interrupted_at_exit(status, *_):
    """SIGINT handler once the command is done: one line (unless one was printed), exit 130 at once."""
    try:
        sys.stdout.flush()
        if status != 130:
            print("verify: interrupted", file=sys.stderr, flush=True)
    except OSError:  # the reader left: nothing more to say
        pass
    os._exit(130)


def _as_flag(error, flag):
    """The library's message with its parameter spelled as the flag that sets it (`dps = 5 is below 30, ...; use
    dps = 50` as `--dps 5 is below 30, ...; use --dps 50`); the flag goes in front when the message does not
    name the parameter so."""
    if flag is None:
        return str(error)
    text = re.sub(rf"(?<![\w.-]){re.escape(error.parameter)} = ", f"{flag} ", str(error))
    return text if text.startswith(flag) else f"{flag}: {text}"


def _run(argv):
    from verify.commandline.arguments import FLAGS, build_parser
    from verify.base.errors import InputError

    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 0
        return COMMANDS[args.command](args)
    except InputError as error:
        print(safe(f"verify: error: {_as_flag(error, FLAGS.get(error.parameter))}"), file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader (say `| head`) left early: stop quietly, as the Python docs advise
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


# ---------------------------------------------------------------- theorem2


def cmd_theorem2(args):
    if args.case:
        return _theorem2_case(args)
    from verify.api import run_theorem2
    from verify.api import forking_by_default

    with _LazyProgress("searching") as progress, forking_by_default():
        report = run_theorem2(args.seed, args.samples, args.dps, args.claim, args.out, progress, args.workers,
                              args.scheduler, args.example_db)
    return _print_report(report, args)


def cmd_claims(args):
    from verify.api import load_claims, run_claims

    from verify.api import forking_by_default

    claims = load_claims(args.file)
    with _LazyProgress("searching") as progress, forking_by_default():
        report = run_claims(claims, args.seed, args.samples, args.dps, args.claim, args.out, progress, args.workers,
                            args.scheduler, args.example_db)
    return _print_report(report, args, title=f"Claims of {escaped(str(args.file))} — seed {report.seed}, {report.dps} digits, "
                                              f"{report.seconds:.1f} s")


def _print_report(report, args, title=None):
    """The table (or JSON); exit 130 after an interrupted run, 3 after a CONTRADICTION, 1 for REFUTED under --strict."""
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        from verify.commandline.tables import theorem2_table

        theorem2_table(report, title=title)
    for result in report.contradictions:  # a defect of the facts or a solver: loud, whatever else happened
        reading = f" ({result.reading})" if result.reading else ""
        print(safe(f"verify: CONTRADICTION: claim {result.id}{reading} was proved from the cited facts and refuted by a "
              "certified counterexample at once; a fact or a solver is wrong — please report it"), file=sys.stderr)
    if report.interrupted:
        print("verify: interrupted; the table shows what was decided before Ctrl-C", file=sys.stderr)
        return 130
    if report.contradictions:
        return 3
    return 1 if getattr(args, "strict", False) and report.refuted else 0


def _theorem2_case(args):
    from verify.api import evaluate_case, load_case

    case = load_case(args.case)
    report = evaluate_case(case, args.dps, args.claim)
    from verify.commandline.case_tables import case_json, case_table

    if args.json:
        print(json.dumps(case_json(report), indent=2))
    else:
        case_table(case, report)
    return 1 if args.strict and report.refuted else 0


def cmd_check(args):
    from verify.api import check_certificate

    result = check_certificate(args.file, args.claims)
    if args.json:
        from verify.base.versions import package_versions

        print(json.dumps({"command": "check", "file": args.file, "confirmed": result.confirmed, "reason": result.reason,
                          "bits": result.bits, "seed": None, "versions": package_versions()}))  # no randomness: no seed
    else:
        precision = f" ({result.bits}-bit balls)" if result.bits else ""
        print(safe(f"{'CONFIRMED' if result.confirmed else 'NOT CONFIRMED'}: {args.file}: {result.reason}{precision}"))
    return 0 if result.confirmed else 1


def cmd_spectrum(args):
    from verify.api import j_spectrum, load_case

    report = j_spectrum(load_case(args.file, require_H=False), args.dps)
    from verify.commandline.case_tables import spectrum_json, spectrum_table

    if args.json:
        print(json.dumps(spectrum_json(report), indent=2))
    else:
        spectrum_table(report)
    return 0


def cmd_assumption2(args):
    from verify.base import options
    from verify.api import assumption2_dimensions, run_assumption2

    dimensions = options.dimensions(args.n, args.N, args.d)
    options.sweep_plot(args.plot, dimensions, args.claim)
    from verify.commandline.tables import assumption2_dimensions_table

    if dimensions:
        report = assumption2_dimensions(args.n, args.N, args.d, args.seed)
        if args.json:
            print(json.dumps(report.to_json(), indent=2))
        else:
            assumption2_dimensions_table(report)
        return 0
    from verify.api import forking_by_default

    with _LazyProgress("checking") as progress, forking_by_default():
        report = run_assumption2(args.seed, args.samples, args.claim, progress, args.workers, args.scheduler)
    if args.plot and not report.interrupted:
        from verify.commandline.plots import plot_decoupling

        plot_decoupling(report, args.plot)
    return _print_report(report, args, title=f"Assumption 2 — seed {report.seed}, {report.scope}, {report.seconds:.1f} s")


def cmd_derive(args):
    from verify.base import options
    from verify.derivations.registry import DERIVATION_REGISTRY
    from verify.derivations.run import run_derivations

    options.known(args.ids, DERIVATION_REGISTRY, "derivation id")
    chosen = [DERIVATION_REGISTRY[i] for i in args.ids] if args.ids else list(DERIVATION_REGISTRY.values())
    with _LazyProgress("checking derivations") as progress:
        results = run_derivations(chosen, progress)
    from verify.commandline.tables import derivations_json, derivations_text

    if args.json:
        print(json.dumps(derivations_json(results), indent=2))
    else:
        derivations_text(results)
    failed = any(not c.passed for _, checks in results for c in checks)
    return 1 if args.strict and failed else 0


def cmd_export_latex(args):
    from verify.document.latex_export import Decision, default_out_dir, export

    out = args.out or default_out_dir(args.claims)
    paths = export(out, args.claims, decision=Decision(args.seed, args.samples, args.dps))
    print(safe(f"wrote {len(paths)} files to {out}/: " + ", ".join(Path(p).name for p in paths)))
    return 0


def cmd_experiments(args):
    from verify.base import options

    options.transformer_alone(args.names, (("--optimizer", args.optimizer), ("--layers", args.layers),
                                           ("--heads", args.heads), ("--width", args.width),
                                           ("--corpus", args.corpus != "shakespeare" or None)),
                              (("--n", args.n), ("--N", args.N)))
    if args.names == ["transformer"]:
        return _transformer(args)
    from dataclasses import replace

    from verify.experiments import common as experiments
    from verify.experiments.runner import run_experiments
    from verify.experiments.synthetic import EXPERIMENTS

    scale = experiments.FULL if args.full else experiments.QUICK
    overrides = {k: v for k, v in (("steps", args.steps), ("n", args.n), ("N", args.N)) if v is not None}
    if overrides:
        scale = replace(scale, **overrides)
        scale = replace(scale, d_over=max(scale.d_over, scale.n * scale.N + 8), d_under=max(2, min(scale.d_under, scale.n * scale.N // 3)))
    names = args.names or list(EXPERIMENTS)  # run_experiments checks them
    from verify.base.atomic import check_out_dir

    check_out_dir(args.out)
    with _LazyProgress("experiments") as bar:
        results = run_experiments(names, scale, args.out, args.seed,
                                              lambda fraction, label: bar(round(fraction * 1000), 1000, label))
    print(safe(f"wrote {len(results)} experiments to {args.out}/ (CSV, PNG each) and {args.out}/summary.md"))
    for result in results:
        print(safe(f"\n{result.name}:"))
        for sentence in result.findings:
            print(safe(f"  - {sentence}"))
    return 0


def _transformer(args):
    from verify.experiments.transformer import run_transformer_study

    with _LazyProgress("transformer", lines=True) as bar:
        result = run_transformer_study(args.out, "full" if args.full else "quick", args.seed, args.optimizer, args.steps,
                                       args.layers, args.heads, args.width, args.corpus,
                                       lambda fraction, label: bar(round(fraction * 1000), 1000, label))
    files = ", ".join(p.name for p in (result.csv_path, result.json_path, *result.plot_paths, result.summary_path))
    print(safe(f"wrote {files} to {args.out}/ ({result.seconds:.1f} s)"))
    for sentence in result.findings:
        print(safe(f"  - {sentence}"))
    return 0


COMMANDS = {"theorem2": cmd_theorem2, "claims": cmd_claims, "assumption2": cmd_assumption2, "derive": cmd_derive,
            "export-latex": cmd_export_latex, "experiments": cmd_experiments, "spectrum": cmd_spectrum, "check": cmd_check}


class _LazyProgress:
    """A rich progress bar on stderr, shown only once the work has taken 2 s. With `lines` (a run of minutes),
    stderr that is not a terminal gets a plain line instead: at each new stage, and at least every `every` s."""

    def __init__(self, title, delay=2.0, lines=False, every=30.0):
        self.title, self.delay, self.lines, self.every = title, delay, lines, every
        self.started = time.perf_counter()
        self.bar = self.task = None
        self.last_line = None  # (label, time) of the last plain line

    def __enter__(self):
        return self

    def __call__(self, done, total, label):
        if self.bar is None and time.perf_counter() - self.started < self.delay:
            return
        if self.bar is None:
            from rich.progress import Progress

            from verify.commandline.terminal import safe_console

            console = safe_console(stderr=True)
            if not console.is_terminal:  # a bar in a log or a pipe is noise (rich ends it with a blank line)
                if self.lines:
                    self._line(done, total, label)
                else:
                    self.delay = float("inf")
                return
            self.bar = Progress(console=console, transient=True)
            self.bar.start()
            self.task = self.bar.add_task(self.title, total=total)
        self.bar.update(self.task, completed=done, description=f"{self.title}: {label}")

    def _line(self, done, total, label):
        now = time.perf_counter()
        stage = label.split(":")[0]
        if self.last_line is None or stage != self.last_line[0] or now - self.last_line[1] >= self.every:
            self.last_line = (stage, now)
            print(safe(f"verify: {self.title}: {label} ({100 * done // max(total, 1)} %, {now - self.started:.0f} s)"),
                  file=sys.stderr, flush=True)

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.stop()
        return False
