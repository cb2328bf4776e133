"""Z3 and cvc5 on one SMT-LIB2 text each: sat / unsat / unknown, the unsat core (Z3), a model (Z3, on
sat), and the time taken. Each solver works within a *resource* limit (its own count of steps), so the
same query gets the same answer on a busy machine and a quiet one — the proofs, their facts and their
certificates are reproducible; a generous wall-clock limit is only a backstop. A solver that errs or
runs out answers "unknown"."""
import ctypes
import functools
import hashlib
import sys
import threading
import time
from dataclasses import dataclass
from fractions import Fraction

from verify.claims.executors import check_stop, shielded

Z3_STEPS = 5_000_000  # Z3's rlimit per check: about a second on this machine's hardest proof
CVC5_STEPS = 2_000_000  # cvc5's rlimit-per
BACKSTOP_MS = 5_000  # a query whose nonlinear search does not count steps (Z3's nlsat) stops here (no unsat
# answer of examples/ or the built-in claims takes over 1.3 s)
HEAP_RESERVE = 64 << 20  # bytes of freed memory the C allocator keeps for the next solver context (`_keep_freed_memory`)
MAPPED_ABOVE = 32 << 20  # blocks this large or larger get their own memory map (glibc's own ceiling for the threshold)
M_TOP_PAD, M_MMAP_THRESHOLD = -2, -3  # glibc's mallopt parameters


@dataclass(frozen=True)
class Answer:
    solver: str
    result: str  # "sat", "unsat" or "unknown"
    seconds: float
    core: tuple = ()
    model: dict = None  # variable name -> Fraction (Z3, sat only)
    why: str = ""  # for "unknown": which limit stopped the solver, or what it said
    clock: bool = False  # unknown because the wall-clock backstop came, with steps left (Z3 says "canceled" for its
    # step limit too)

    @property
    def limit_text(self):
        """Why the solver answered unknown, in words a reader can act on."""
        if self.clock:
            return f"{self.solver} stopped at its {BACKSTOP_MS // 1000} s wall-clock backstop"
        if any(word in self.why for word in ("resource", "rlimit", "canceled")):
            return f"{self.solver} found no proof within its resource limit (a count of steps)"
        return f"{self.solver} answered unknown ({self.why[:80] or 'no reason given'})"


def z3_version():
    import z3

    return z3.get_version_string()


def cvc5_version():
    import cvc5

    return cvc5.__version__


def versions():
    return {"z3": z3_version(), "cvc5": cvc5_version()}


def run_z3(text, steps=Z3_STEPS, want_model=False, backstop_ms=BACKSTOP_MS, options=()):
    """Z3 on the text in a fresh context; `options`: (name, value) pairs of Z3 parameters to set as well. Asked
    again, the answer comes from memory (`_remembered`)."""
    check_stop()
    key = _key("z3", text, steps, want_model, backstop_ms, tuple(options))
    return _ANSWERS.get(key) or _remembered(key, _ask_z3(text, steps, want_model, backstop_ms, options))


def _ask_z3(text, steps, want_model, backstop_ms, options):
    started = time.perf_counter()
    with shielded():  # a Ctrl-C now waits for Z3 to finish and its context to be freed, then stops the run
        result, core, model, why, steps_left = _z3(text, steps, want_model, backstop_ms, options)
    check_stop()
    seconds = time.perf_counter() - started
    clock = result == "unknown" and steps_left and seconds * 1000 >= backstop_ms
    return Answer("z3", result, seconds, core, model, why, clock=clock)


_ANSWERS = {}  # the solvers' answers this process has had, by `_key`
_ANSWERS_LOCK = threading.Lock()  # a Dask worker may run several tasks in threads of one process
MAX_ANSWERS = 4096


def _key(solver, text, *limits):
    """The memory's key: the solver, the SHA-256 of the text and every limit the answer depends on."""
    return (solver, hashlib.sha256(text.encode()).digest(), *limits)


def _remembered(key, answer):
    """Keep an answer for the same query asked again (the same claim in two commands of one process, a proof's
    query rechecked): each query runs in a fresh context within a count of steps, so its answer is a function of
    the text and the limits. An answer that may be the wall clock's is not kept: Z3's when the clock stopped it,
    cvc5's "unknown" (its clock and its steps both answer so)."""
    if not answer.clock and not (answer.solver == "cvc5" and answer.result == "unknown"):
        with _ANSWERS_LOCK:
            if len(_ANSWERS) >= MAX_ANSWERS:
                _ANSWERS.pop(next(iter(_ANSWERS)))  # the oldest
            _ANSWERS[key] = answer
    return answer


def _z3(text, steps, want_model, backstop_ms=BACKSTOP_MS, options=()):
    """(result, core, model, why, whether steps were left) in a fresh context (the answer depends on the text alone),
    freed before returning. Z3's own SIGINT handler is off (ctrl_c): a Ctrl-C reaches `shielded` instead of being
    swallowed."""
    import z3

    _keep_freed_memory()
    context = z3.Context()
    solver = z3.Solver(ctx=context)
    solver.set("ctrl_c", False)
    solver.set("rlimit", steps)
    solver.set("timeout", backstop_ms)
    for name, value in options:
        solver.set(name, value)
    why = ""
    try:
        solver.from_string(text)
        result = str(solver.check())
        core = tuple(sorted(str(c) for c in solver.unsat_core())) if result == "unsat" else ()
        model = _model(solver.model()) if result == "sat" and want_model else None
        why = solver.reason_unknown() if result == "unknown" else ""
        steps_left = result != "unknown" or _steps_used(solver) < steps
    except z3.Z3Exception as error:
        result, core, model, why, steps_left = "unknown", (), None, str(error)[:200], True
    del solver, context  # no cycles hold them: a fresh context is freed here, inside the shield
    return result, core, model, why, steps_left


def _steps_used(solver):
    """Z3's count of the steps the check took (its statistic "rlimit count"; 0 when it gives none)."""
    statistics = solver.statistics()
    return statistics.get_key_value("rlimit count") if "rlimit count" in statistics.keys() else 0


def _model(model):
    """Real values of the model's constants (algebraic numbers approximated to 30 digits); a value of more
    digits than Python converts (a hint needs no such value) is left out."""
    import z3

    values = {}
    for declaration in model.decls():
        if declaration.arity() != 0:
            continue
        value = model[declaration]
        try:
            if z3.is_rational_value(value):
                values[declaration.name()] = Fraction(value.numerator_as_long(), value.denominator_as_long())
            elif z3.is_algebraic_value(value):
                values[declaration.name()] = Fraction(value.approx(30).as_decimal(30).rstrip("?"))
        except ValueError:
            continue
    return values


def both_prove(text, z3_answer=None):
    """Z3's answer on the text (`z3_answer`, when already had), then cvc5's only when Z3 answered unsat: on some
    satisfiable nonlinear queries cvc5 runs on past its own limits. The text is proved when both answers are there
    and unsat (`proved_by_both`)."""
    first = z3_answer or run_z3(text)
    return (first, run_cvc5(text)) if first.result == "unsat" else (first,)


def proved_by_both(answers):
    return len(answers) == 2 and all(a.result == "unsat" for a in answers)


def said(answers):
    """What the solvers said, e.g. "z3 says unsat, cvc5 says unknown"."""
    return ", ".join(f"{a.solver} says {a.result}" for a in answers)


def run_cvc5(text, steps=CVC5_STEPS):
    """cvc5 on the text; asked again, a sat or unsat answer comes from memory (`_remembered`)."""
    check_stop()
    key = _key("cvc5", text, steps)
    return _ANSWERS.get(key) or _remembered(key, _ask_cvc5(text, steps))


def _ask_cvc5(text, steps):
    started = time.perf_counter()
    with shielded():
        result = _cvc5(text, steps)
    check_stop()
    return Answer("cvc5", result, time.perf_counter() - started)


def _cvc5(text, steps):
    import cvc5

    _keep_freed_memory()
    solver = cvc5.Solver()
    solver.setOption("rlimit-per", str(steps))
    solver.setOption("tlimit-per", str(BACKSTOP_MS))
    symbols = cvc5.SymbolManager(solver)
    parser = cvc5.InputParser(solver, symbols)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, "query")
    result = "unknown"
    try:
        while True:
            command = parser.nextCommand()
            if command.isNull():
                break
            output = command.invoke(solver, symbols).strip()
            if output in ("sat", "unsat", "unknown"):
                result = output
    except RuntimeError:
        result = "unknown"
    return result


@functools.cache
def _keep_freed_memory():
    """On Linux (glibc), have the C allocator keep HEAP_RESERVE bytes of freed memory at the top of the heap, once per
    process. Every query runs in a fresh solver context that allocates tens of megabytes and frees them all; by default
    glibc gives them back to the kernel at once (or maps them afresh), and the next context faults every page in again:
    4.3 million page faults and 7.7 s of system time in a `claims` run on examples/suite.toml, 0.08 million and 0.7 s
    with the reserve (measured). Setting it turns off glibc's moving threshold for memory maps, so the threshold is set
    to that threshold's own ceiling, MAPPED_ABOVE: blocks below it come from the heap, as they would once the moving
    threshold had risen. Elsewhere (or where the C library has no mallopt), nothing changes."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None)
        libc.mallopt(M_TOP_PAD, HEAP_RESERVE)
        libc.mallopt(M_MMAP_THRESHOLD, MAPPED_ABOVE)
    except (OSError, AttributeError, TypeError):
        pass
