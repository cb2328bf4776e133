"""Searches on Dask: the same report in process, on a local cluster and on a scheduler the test starts;
the default runs in process unless the work is long; a cluster is silent; bad scaling options get one
line; Ctrl-C exits 130 with one line (and the report so far), whenever it comes."""
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli, run_cli_process
from tests.test_cli import assert_one_line_error
from verify.claims import executors
from verify.claims.verdicts.theorem2 import run_theorem2

SMALL = dict(seed=4, samples=60, claim_ids=["T2.eq47.max", "T2.swapped", "T2.multi"])


def _comparable(report):
    """The JSON report minus timings, versions and the certificates' folders."""
    from tests.test_certificates import without_timings

    data = without_timings(report.to_json())
    data.pop("versions")
    for claim in data["claims"]:
        claim.pop("certificate")
    return data


@pytest.mark.skipif(executors.usable_cores() < 2, reason="a local cluster of two workers needs two cores here")
def test_report_is_the_same_in_process_on_a_local_cluster_and_on_a_scheduler(tmp_path, monkeypatch):
    from dask.distributed import LocalCluster

    alone = run_theorem2(**SMALL, out_dir=str(tmp_path / "1"), workers=1)
    clusters = []  # the local run's executors, with their workers counted: a cluster that cannot start falls back
    real_executor_for = executors.executor_for

    def counted(*args, **kwargs):
        executor = real_executor_for(*args, **kwargs)
        client = getattr(executor, "client", None)  # InProcess has none
        clusters.append(len(client.scheduler_info()["workers"]) if client else 0)
        return executor

    monkeypatch.setattr(executors, "executor_for", counted)
    local = run_theorem2(**SMALL, out_dir=str(tmp_path / "2"), workers=2)  # units merged from two worker processes
    monkeypatch.undo()
    assert clusters and all(count == 2 for count in clusters)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp://", dashboard_address=None,
                      silence_logs=50) as cluster:  # a scheduler's TCP address (one worker, a thread of this process: the
        # merging of several worker processes is tested above)
        remote = run_theorem2(**SMALL, out_dir=str(tmp_path / "3"), scheduler=cluster.scheduler_address)
    assert _comparable(alone) == _comparable(local) == _comparable(remote)
    assert {r.verdict.text for r in alone.claims} >= {"HOLDS", "REFUTED"}  # the comparison covers both outcomes


@pytest.mark.skipif(executors.usable_cores() < 2 or not hasattr(os, "fork"), reason="forks two processes on two cores")
def test_the_command_line_forks_a_short_search_and_the_report_is_the_same(tmp_path):
    """Given neither workers nor a scheduler, a short search from the command line forks one process per usable core
    (executors.Forked; in this process only when no other thread runs, which a test worker's do); the library's own
    default stays in process. The report is the one a single process makes."""
    assert isinstance(executors.executor_for(tasks=30), executors.InProcess)
    with executors.forking_by_default():
        forks = executors.can_fork()
        assert isinstance(executors.executor_for(tasks=30), executors.Forked if forks else executors.InProcess)
        assert isinstance(executors.executor_for(workers=1, tasks=30), executors.InProcess)
    alone = run_theorem2(**SMALL, out_dir=str(tmp_path / "1"), workers=1)
    forked = run_theorem2(**SMALL, out_dir=str(tmp_path / "2"), executor=executors.Forked(2))
    assert _comparable(alone) == _comparable(forked)
    assert {r.verdict.text for r in alone.claims} >= {"HOLDS", "REFUTED"}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_forked_tasks_come_back_in_order_with_their_progress():
    seen = []
    results = executors.Forked(2).run([(f"task {k}", pow, (k, 2)) for k in range(7)],
                                      lambda done, total, label: seen.append((done, total)))
    assert results == [k * k for k in range(7)]
    assert [done for done, _ in seen] == list(range(1, 8)) and {total for _, total in seen} == {7}


def test_units_split_differently_give_the_same_tallies():
    """A unit's cases depend on (seed, sample index) only: one unit of 60 or six of 10, same merge."""
    from verify.claims.search.engine import merge, run_unit, units_for
    from verify.claims.builtin.registry import REGISTRY
    from verify.claims.jobs import Job

    jobs = [Job(REGISTRY["T2.eq47.max"], "ambient-bounds")]
    whole = merge([run_unit(u, jobs) for u in units_for(2, 60, (0,), 30, size=60)])[0]
    parts = merge([run_unit(u, jobs) for u in reversed(units_for(2, 60, (0,), 30, size=10))])[0]
    assert (whole.evaluated, whole.failure_count, whole.worst[:2], [i for i, _ in whole.failures]) == \
           (parts.evaluated, parts.failure_count, parts.worst[:2], [i for i, _ in parts.failures])


def test_unreachable_scheduler_is_one_line_within_ten_seconds(tmp_path):
    started = time.perf_counter()
    out = run_cli_process("theorem2", "--scheduler", "tcp://127.0.0.1:9", "--out", str(tmp_path))
    assert time.perf_counter() - started < 10
    assert_one_line_error(out)
    assert "tcp://127.0.0.1:9" in out.stderr


@pytest.mark.parametrize("args", [["--workers", "0"], ["--workers", "two"], ["--example-db", "/proc/no-such-folder"]])
def test_bad_scaling_options_are_one_line(args, tmp_path):
    assert_one_line_error(run_cli("theorem2", *args, "--out", str(tmp_path)))


def test_example_database_keeps_counterexamples(tmp_path):
    db = tmp_path / "db"
    run_theorem2(seed=1, samples=20, claim_ids=["T2.swapped"], out_dir=str(tmp_path / "c"), workers=1, example_db=str(db))
    assert any(path.is_file() for path in db.rglob("*"))


def test_ctrl_c_exits_130_with_the_report_so_far(tmp_path):
    """Interrupted in the middle of a search (one claim, proved in a fraction of a second, then 2,000 samples (the most --samples takes))."""
    process = subprocess.Popen(
        [sys.executable, "-m", "verify", "theorem2", "--samples", "2000", "--workers", "1", "--json",
         "--claim", "T2.eq47.max", "--out", str(tmp_path)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL), env=dict(os.environ))
    time.sleep(2.5)  # imports and the proof take about a second here; the search has begun
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err[-2000:]
    report = json.loads(out)
    assert report["interrupted"] is True
    assert "Traceback" not in err
    assert all(c["verdict"] in ("INTERRUPTED", "REFUTED", "HOLDS") for c in report["claims"])


def test_the_default_search_runs_in_process_without_loading_dask(tmp_path):
    """The default theorem2 search (300 samples) is too short to gain from a cluster: Dask is never imported."""
    code = ("import sys; from verify.claims.verdicts.theorem2 import run_theorem2; "
            f"run_theorem2(samples=300, claim_ids=['T2.eq47.min'], out_dir={str(tmp_path)!r}); "
            "print('distributed' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.skipif(executors.usable_cores() < 2, reason="a local cluster needs two cores here")
def test_a_long_search_starts_a_cluster_by_default():
    chosen = executors.executor_for(tasks=executors.MIN_TASKS_FOR_CLUSTER)
    scratch = chosen.scratch  # the workers' dask-scratch-space lives here, not in $TMPDIR itself
    try:
        assert isinstance(chosen, executors.DaskExecutor) and len(chosen.client.scheduler_info()["workers"]) >= 2
        assert Path(scratch).is_dir()
    finally:
        chosen.close()
    assert not Path(scratch).exists()
    assert isinstance(executors.executor_for(tasks=executors.MIN_TASKS_FOR_CLUSTER - 1), executors.InProcess)


@pytest.mark.skipif(executors.usable_cores() < 2, reason="a local cluster needs two cores here")
def test_a_cluster_prints_nothing_while_port_8787_is_taken(tmp_path):
    held = socket.socket()
    try:
        held.bind(("127.0.0.1", 8787))
        held.listen()
    except OSError:  # another program holds it already: the condition under test
        pass
    try:
        out = run_cli_process("theorem2", "--workers", "2", "--samples", "20", "--claim", "T2.swapped", "--out", str(tmp_path))
    finally:
        held.close()
    assert out.returncode == 0 and "REFUTED" in out.stdout
    assert out.stderr == ""


@pytest.mark.parametrize("args, named", [
    (["--workers", "1000"], "1000"),
    (["--scheduler", ""], "''"),
    (["--scheduler", "tls://127.0.0.1:8786"], "tls://127.0.0.1:8786"),
    (["--scheduler", "inproc://10.0.0.1/1/1"], "inproc://10.0.0.1/1/1"),
    (["--scheduler", "127.0.0.1:8786"], "127.0.0.1:8786"),
    (["--scheduler", "tcp://127.0.0.1"], "tcp://127.0.0.1"),
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:9"], "2"),
])
def test_executor_bounds_are_one_line_and_start_nothing(args, named, tmp_path):
    started = time.perf_counter()
    out = run_cli("theorem2", *args, "--samples", "5", "--out", str(tmp_path))
    assert_one_line_error(out)
    assert named in out.stderr and time.perf_counter() - started < 30
    assert list(tmp_path.iterdir()) == []


def test_a_scheduler_that_never_answers_is_one_line_within_the_connect_timeout(tmp_path):
    """A port that accepts the connection and says nothing (Dask's own handshake would wait forever)."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
    started = time.perf_counter()
    try:
        out = run_cli_process("theorem2", "--scheduler", address, "--samples", "5", "--out", str(tmp_path), timeout=60)
    finally:
        silent.close()
    assert time.perf_counter() - started < executors.CONNECT_TIMEOUT + 15
    assert_one_line_error(out)
    assert address in out.stderr


STOP_SECONDS = 30  # a Ctrl-C ends the run 2-5 s later on a quiet machine (6-13 s before its workers were killed at
# once, 15-25 s under load); a Ctrl-C during start-up waits for the workers' imports, which a loaded machine slows


def _live_members(group):
    """Processes of a process group that are still running (zombies excluded)."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            alive.append(stat.parent.name)
    return alive


@pytest.mark.skipif(executors.usable_cores() < 2 or not Path("/proc").exists(), reason="needs two cores and /proc")
@pytest.mark.parametrize("delay, options", [(1.0, ["--workers", "2", "--samples", "2000"]),
                                            (3.0, ["--workers", "2", "--samples", "2000"]),
                                            (3.0, ["--samples", "2000"]),  # forked by default (executors.Forked)
                                            pytest.param(8.0, ["--workers", "2", "--samples", "2000"],
                                                         marks=pytest.mark.soak)])
def test_ctrl_c_to_the_whole_group_is_one_line_and_130_whenever_it_comes(delay, options, tmp_path):
    """A terminal's Ctrl-C reaches every process of the group, Dask's workers and the forked processes too: during
    start-up, the search or shut-down, the run ends within seconds, with status 130, one line on stderr, and no
    process left running."""
    process = subprocess.Popen([sys.executable, "-m", "verify", "theorem2", *options,
                                "--out", str(tmp_path)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    try:
        time.sleep(delay)
        os.killpg(process.pid, signal.SIGINT)
        pressed = time.perf_counter()
        out, err = process.communicate(timeout=120)
        ended = time.perf_counter() - pressed
    finally:  # a run that did not stop must not outlive the test (it would slow every test after it)
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
    assert process.returncode == 130 and len(err.strip().splitlines()) == 1, err[-3000:]
    assert err.startswith("verify: interrupted")
    assert ended < STOP_SECONDS, f"the run ended {ended:.0f} s after Ctrl-C"
    deadline = time.perf_counter() + 10
    while _live_members(process.pid) and time.perf_counter() < deadline:
        time.sleep(0.2)
    assert not _live_members(process.pid)


def test_a_ctrl_c_while_the_program_ends_exits_130_with_one_line(tmp_path):
    """After the report is printed, the process still cleans up (here an exit hook that takes 30 s):
    a Ctrl-C then ends it at once with status 130 and one line, not by the signal."""
    code = ("import atexit, runpy, sys, time; atexit.register(time.sleep, 30); "
            f"sys.argv = ['verify', 'theorem2', '--samples', '5', '--claim', 'T2.swapped', '--workers', '1', "
            f"'--out', {str(tmp_path)!r}]; runpy.run_module('verify', run_name='__main__')")
    process = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    finished = tmp_path / "T2.swapped.tangent-exact.json"
    deadline = time.perf_counter() + 120
    while not finished.exists() and time.perf_counter() < deadline:
        time.sleep(0.2)
    time.sleep(3)  # the report is printed, the exit hook is sleeping
    started = time.perf_counter()
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=20)
    assert time.perf_counter() - started < 10
    assert process.returncode == 130, (process.returncode, err[-2000:])
    assert err.strip() == "verify: interrupted" and "REFUTED" in out


def test_a_ctrl_c_python_can_only_print_is_remembered_not_printed(capsys):
    """A KeyboardInterrupt raised inside a finaliser or a gc callback (Hypothesis has one) reaches only
    sys.unraisablehook: it must stop the run at the next check_stop, without a traceback on stderr."""
    from verify.claims.executors import check_stop, remembered_interrupts

    class Finaliser:
        def __del__(self):
            raise KeyboardInterrupt

    with remembered_interrupts():
        Finaliser()  # freed at once: its KeyboardInterrupt is unraisable
        with pytest.raises(KeyboardInterrupt):
            check_stop()
    check_stop()  # the remembered Ctrl-C is forgotten once the run ends
    assert "Traceback" not in capsys.readouterr().err


def test_a_ctrl_c_during_an_import_lets_the_import_finish_and_stops_the_run_after(tmp_path, monkeypatch):
    """A Ctrl-C that lands while a module is being imported (SymPy, loaded on first use while the tasks run) is
    remembered, not raised there: an import stopped half-way leaves its package broken for the rest of the process
    (the interrupted run's report then failed on `NameError: name 'Mul' is not defined`, exit status 1)."""
    from verify.claims.executors import check_stop, remembered_interrupts

    (tmp_path / "interrupted_import.py").write_text(
        "import os, signal\nos.kill(os.getpid(), signal.SIGINT)\nAFTER_THE_SIGNAL = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with remembered_interrupts():
        import interrupted_import  # noqa: F401

        assert interrupted_import.AFTER_THE_SIGNAL
        with pytest.raises(KeyboardInterrupt):
            check_stop()
    sys.modules.pop("interrupted_import", None)


def test_a_run_started_from_a_module_being_imported_still_stops_at_once_on_ctrl_c(tmp_path, monkeypatch):
    """Only imports begun inside the run hold a Ctrl-C back: a run started from a module's body (a script imported
    by another) is stopped where it waits, not at the next check."""
    (tmp_path / "starts_a_run.py").write_text(
        "import os, signal, threading, time\n"
        "from verify.claims.executors import remembered_interrupts\n"
        "STOPPED_AFTER = None\n"
        "started = time.perf_counter()\n"
        "try:\n"
        "    with remembered_interrupts():\n"
        "        threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()\n"
        "        time.sleep(5)\n"
        "except KeyboardInterrupt:\n"
        "    STOPPED_AFTER = time.perf_counter() - started\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import starts_a_run

    assert starts_a_run.STOPPED_AFTER is not None and starts_a_run.STOPPED_AFTER < 2
    sys.modules.pop("starts_a_run", None)


def test_an_error_a_library_raises_in_place_of_a_ctrl_c_is_the_interrupt():
    """Hypothesis, interrupted as its engine starts, fails `assert state._runner is not None` while handling the
    KeyboardInterrupt (CI saw `verify theorem2` end with status 1 and that traceback): the run was interrupted all
    the same, and the executor reports it as such, with the results so far."""
    from verify.claims.executors import InProcess, Interrupted

    def replaced_by_the_library():
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)
        except KeyboardInterrupt:
            assert False, "the library's own assertion"

    with pytest.raises(Interrupted) as stopped:
        InProcess().run([("first", lambda: 1, ()), ("second", replaced_by_the_library, ())])
    assert stopped.value.results == [1, None]


def test_an_error_without_a_ctrl_c_is_not_an_interrupt():
    from verify.claims.executors import InProcess

    def fails():
        raise ValueError("a real error")

    with pytest.raises(ValueError, match="a real error"):
        InProcess().run([("fails", fails, ())])
