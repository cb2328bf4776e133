"""Dask's inputs: a tls:// scheduler with every broken TLS configuration is one line and exit status 2 (before any
connection), the TLS set-up docs/cli.md states works end to end, a malformed DASK_CONFIG is one line, and a local
cluster leaves nothing in the current folder or TMPDIR."""
import contextlib
import io
import os
import shutil
import subprocess
import sys

import distributed  # noqa: F401  (its defaults in Dask's configuration before a test sets TLS keys in it)
import pytest

from tests.conftest import ROOT
from verify.commandline.cli import main

needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl to make test certificates")


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def assert_one_line(code, out, err, *words):
    assert code == 2 and "Traceback" not in err, (code, err[-2000:])
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("verify: error: --scheduler: "), err
    for word in words:
        assert word in lines[0], lines[0]


def _openssl(*args, cwd):
    subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=cwd)


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    """A CA, and a scheduler's and a client's key and certificate signed by it: the set-up docs/cli.md states."""
    folder = tmp_path_factory.mktemp("pki")
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca-key.pem", "-out", "ca.pem", "-days", "1",
             "-subj", "/CN=test CA", cwd=folder)
    for name in ("scheduler", "client"):
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}-key.pem", "-out", f"{name}.csr",
                 "-subj", f"/CN={name}", cwd=folder)
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem", "-CAcreateserial",
                 "-out", f"{name}-cert.pem", "-days", "1", cwd=folder)
    return folder


def _tls(ca, cert=None, key=None):
    return {"distributed.comm.tls.ca-file": ca, "distributed.comm.tls.client.cert": cert,
            "distributed.comm.tls.client.key": key}


BROKEN_CA = {  # name -> (the CA file's path given a folder, the words the one line must hold)
    "missing": (lambda d: str(d / "nowhere.pem"), "does not exist"),
    "garbage": (lambda d: _write(d / "garbage.pem", b"not a certificate\x00\xff" * 50), "do not load"),
    "folder": (lambda d: str(d), "is a folder"),
    "fifo": (lambda d: _fifo(d / "ca.fifo"), "not a regular file"),
    "device": (lambda d: "/dev/zero", "not a regular file"),
}


def _write(path, data):
    path.write_bytes(data)
    return str(path)


def _fifo(path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    os.mkfifo(path)
    return str(path)


@needs_openssl
@pytest.mark.parametrize("broken", list(BROKEN_CA))
def test_a_broken_ca_file_is_one_line_before_any_connection(broken, pki, tmp_path):
    import dask

    make, words = BROKEN_CA[broken]
    ca = make(tmp_path)
    with dask.config.set(_tls(ca, str(pki / "client-cert.pem"), str(pki / "client-key.pem"))):
        code, out, err = run(["theorem2", "--scheduler", "tls://127.0.0.1:9", "--samples", "5",
                              "--out", str(tmp_path / "out")])
    assert_one_line(code, out, err, words, "ca-file")
    assert not (tmp_path / "out").exists()


@needs_openssl
@pytest.mark.parametrize("what", ["no client certificate", "no CA", "garbage certificate", "key of another"])
def test_an_incomplete_tls_set_up_is_one_line(what, pki, tmp_path):
    import dask

    ca, cert, key = str(pki / "ca.pem"), str(pki / "client-cert.pem"), str(pki / "client-key.pem")
    settings = {"no client certificate": _tls(ca), "no CA": _tls(None, cert, key),
                "garbage certificate": _tls(ca, _write(tmp_path / "c.pem", b"garbage"), key),
                "key of another": _tls(ca, cert, str(pki / "scheduler-key.pem"))}[what]
    with dask.config.set(settings):
        code, out, err = run(["theorem2", "--scheduler", "tls://127.0.0.1:9", "--samples", "5"])
    assert_one_line(code, out, err, "docs/cli.md")


@needs_openssl
def test_the_documented_tls_set_up_runs_a_search(pki, tmp_path):
    """A scheduler with its own certificate, a worker, and the client's CA + certificate + key from Dask's
    configuration (what docs/cli.md states): the search runs on it over TLS and gives the in-process verdicts."""
    import dask
    from distributed import LocalCluster
    from distributed.security import Security

    import verify

    server = Security(tls_ca_file=str(pki / "ca.pem"), tls_scheduler_cert=str(pki / "scheduler-cert.pem"),
                      tls_scheduler_key=str(pki / "scheduler-key.pem"), tls_worker_cert=str(pki / "scheduler-cert.pem"),
                      tls_worker_key=str(pki / "scheduler-key.pem"), tls_client_cert=str(pki / "client-cert.pem"),
                      tls_client_key=str(pki / "client-key.pem"), require_encryption=True)
    claim = "T2.swapped"
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tls://", host="127.0.0.1",
                      security=server, dashboard_address=None, silence_logs=50) as cluster:
        assert cluster.scheduler_address.startswith("tls://")
        with dask.config.set(_tls(str(pki / "ca.pem"), str(pki / "client-cert.pem"), str(pki / "client-key.pem"))):
            remote = verify.run_theorem2(seed=3, samples=10, claim_ids=[claim], scheduler=cluster.scheduler_address)
    local = verify.run_theorem2(seed=3, samples=10, claim_ids=[claim], workers=1)
    assert [r.verdict for r in remote.claims] == [r.verdict for r in local.claims]


def _cli_process(args, tmp_path, **environment):
    env = {**os.environ, "PYTHONPATH": ROOT, "TMPDIR": str(tmp_path), **environment}
    return subprocess.run([sys.executable, "-m", "verify", *args], capture_output=True, text=True, cwd=tmp_path,
                          env=env, timeout=300)


@pytest.mark.parametrize("content", [b"a: [b\n  c: {\n", b"\x00\xff\xfe", b"- just\n- a list\n: ::\n"])
def test_a_malformed_dask_config_is_one_line(content, tmp_path):
    config = tmp_path / "dask.yaml"
    config.write_bytes(content)
    done = _cli_process(["theorem2", "--samples", "5", "--workers", "2", "--out", str(tmp_path / "out")], tmp_path,
                        DASK_CONFIG=str(config))
    if done.returncode == 0:  # Dask read it as a configuration after all (valid YAML): nothing to refuse
        return
    lines = done.stderr.splitlines()
    assert done.returncode == 2 and len(lines) == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert "Dask's configuration" in lines[0] and "DASK_CONFIG" in lines[0], lines[0]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("kind", ["device", "fifo", "too-big"])
def test_a_dask_config_that_is_not_a_small_regular_file_is_one_line_before_dask_reads_it(kind, tmp_path):
    """/dev/zero once took 24 GB before the kernel ended the run, and a FIFO waited for ever (an attack)."""
    config = {"device": "/dev/zero", "fifo": str(tmp_path / "fifo"), "too-big": str(tmp_path / "big.yaml")}[kind]
    if kind == "fifo":
        os.mkfifo(config)
    if kind == "too-big":
        (tmp_path / "big.yaml").write_text("# " + "x" * (2 << 20) + "\n")
    done = _cli_process(["theorem2", "--samples", "5", "--workers", "2", "--out", str(tmp_path / "out")], tmp_path,
                        DASK_CONFIG=config)
    lines = done.stderr.splitlines()
    assert done.returncode == 2 and len(lines) == 1 and "not a regular file of at most" in lines[0], done.stderr[-2000:]
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_a_local_cluster_leaves_nothing_in_the_folder_or_tmpdir(tmp_path):
    done = _cli_process(["theorem2", "--samples", "5", "--workers", "2", "--claim", "T2.swapped", "--out",
                         str(tmp_path / "out")], tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"], sorted(tmp_path.iterdir())


def test_the_dask_config_check_reads_what_dask_reads_and_leaves_it_what_it_ignores(tmp_path, monkeypatch):
    """As Dask's collect_yaml: a folder's .yaml/.yml/.json entries, suffix in any case (a FIFO named c.YAML hung the
    first check); an entry it cannot open (a dangling link, a folder named x.yaml) it skips, and so does the check."""
    from verify.base.errors import InputError
    from verify.claims.scheduler import _check_config_files

    folder = tmp_path / "config"
    folder.mkdir()
    (folder / "a.yaml").symlink_to(tmp_path / "nowhere")
    (folder / "x.yaml").mkdir()
    (folder / "ok.yml").write_text("distributed: {}\n")
    monkeypatch.setenv("DASK_CONFIG", str(folder))
    _check_config_files()
    os.mkfifo(folder / "c.YAML")
    with pytest.raises(InputError, match="c.YAML"):
        _check_config_files()
