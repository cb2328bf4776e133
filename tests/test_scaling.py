"""Searches on Dask: the same report in process, on a local cluster and on a scheduler the test starts;
bad scaling options get one line; Ctrl-C exits 130 with the report so far."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT, run_cli
from tests.test_cli import assert_one_line_error
from verify.claims.theorem2 import run_theorem2

SMALL = dict(seed=4, samples=60, claim_ids=["T2.eq47.max", "T2.swapped", "T2.multi"])


def _comparable(report):
    """The JSON report minus timings, versions and the certificates' folders."""
    data = report.to_json()
    data.pop("seconds"), data.pop("versions")
    for claim in data["claims"]:
        claim.pop("certificate")
    return data


def test_report_is_the_same_in_process_on_a_local_cluster_and_on_a_scheduler(tmp_path):
    from dask.distributed import LocalCluster

    alone = run_theorem2(**SMALL, out_dir=str(tmp_path / "1"), workers=1)
    local = run_theorem2(**SMALL, out_dir=str(tmp_path / "2"), workers=2)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=50) as cluster:
        remote = run_theorem2(**SMALL, out_dir=str(tmp_path / "3"), scheduler=cluster.scheduler_address)
    assert _comparable(alone) == _comparable(local) == _comparable(remote)
    assert {r.verdict for r in alone.claims} >= {"HOLDS", "REFUTED"}  # the comparison covers both outcomes


def test_units_split_differently_give_the_same_tallies():
    """A unit's cases depend on (seed, sample index) only: one unit of 60 or six of 10, same merge."""
    from verify.claims.engine import merge, run_unit, units_for
    from verify.claims.registry import REGISTRY
    from verify.claims.jobs import Job

    jobs = [Job(REGISTRY["T2.eq47.max"], "ambient-bounds")]
    whole = merge([run_unit(u, jobs) for u in units_for(2, 60, (0,), 30, size=60)])[0]
    parts = merge([run_unit(u, jobs) for u in reversed(units_for(2, 60, (0,), 30, size=10))])[0]
    assert (whole.evaluated, whole.failure_count, whole.worst[:2], [i for i, _ in whole.failures]) == \
           (parts.evaluated, parts.failure_count, parts.worst[:2], [i for i, _ in parts.failures])


def test_unreachable_scheduler_is_one_line_within_ten_seconds(tmp_path):
    started = time.perf_counter()
    out = run_cli("theorem2", "--scheduler", "tcp://127.0.0.1:9", "--out", str(tmp_path))
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
    process = subprocess.Popen(
        [sys.executable, "-m", "verify", "theorem2", "--samples", "200000", "--workers", "1", "--json",
         "--out", str(tmp_path)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL), env=dict(os.environ))
    time.sleep(6)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err[-2000:]
    report = json.loads(out)
    assert report["interrupted"] is True
    assert "Traceback" not in err
    assert all(c["verdict"] in ("INTERRUPTED", "REFUTED", "HOLDS") for c in report["claims"])
