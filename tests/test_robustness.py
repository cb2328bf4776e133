"""Every input bounded, every failure one line: Hypothesis writes case files, claim files and certificates
of random structure, sizes, number formats and nesting, and drives the CLI in this process.

For every example: the exit status is 0, 1 or 2; on 2, stderr is exactly one non-empty line
(`verify: error: …`) and no file was written; never a traceback; no temporary file is left behind.
Certificates start from real ones, written once per module by `theorem2` and `claims`, and are mutated
(keys dropped, added or retyped, numbers changed, deep nesting, truncation, bytes that are not UTF-8).
Each property has a `slow` variant on four to five times the examples. Hypothesis does not shrink here (a
failure is reported as drawn): shrinking whole command runs can take its full five minutes.
"""
import json
import os
import tempfile
from fractions import Fraction
from pathlib import Path

import mpmath as mp
import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from verify.claims.cases.multi_balls import MultiCase
from verify.claims.certificates.several import certificate_body as multi_certificate_body
from verify.claims.builtin.registry import get_claim
from verify.claims.cases.case import MAX_MATRIX_N
from tests.conftest import run_cli
from tests.robust_inputs import case_files, claim_files, mutated_certificates, valid_H

QUICK = settings(max_examples=80, deadline=None, derandomize=True, database=None,
                 suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate])
LONG = settings(QUICK, max_examples=400)
QUICK_SEARCH = settings(QUICK, max_examples=30)  # a valid claim file runs a search (a refuted claim: seconds)
LONG_SEARCH = settings(QUICK, max_examples=120)
SEARCH = ["--samples", "4", "--workers", "1", "--dps", "30"]  # the smallest search: the input paths are under test


# ---------------------------------------------------------------- running the CLI in this process


def run(argv):
    """(exit status, stdout, stderr) of `verify ARGV` from the current folder (conftest's run_cli)."""
    ran = run_cli(*argv, cwd=os.getcwd())
    return ran.returncode, ran.stdout, ran.stderr


def leftovers(folder):
    """Temporary files (verify.base.atomic's `.NAME.*.tmp`) anywhere under `folder`."""
    return [p for p in Path(folder).rglob("*") if p.name.endswith(".tmp")]


def assert_one_line_or_done(code, out, err, folder, out_dir=None):
    assert "Traceback" not in out + err, err[-2000:]
    assert code in (0, 1, 2), (code, err[-2000:])
    if code == 2:
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("verify: error: ") and lines[0][15:].strip(), err[-2000:]
        assert err.endswith("\n")
        if out_dir is not None:  # bad input writes nothing
            assert not Path(out_dir).exists() or not any(Path(out_dir).iterdir())
    assert not leftovers(folder)


# ---------------------------------------------------------------- case files


def _check_case(text, as_json):
    """theorem2 --case and spectrum on one case file."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "case.json"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        json_flag = ["--json"] if as_json else []
        code, out, err = run(["theorem2", "--case", str(path), "--dps", "30", *json_flag])
        assert_one_line_or_done(code, out, err, folder)
        if code == 0 and as_json:
            kappa = mp.mpf(json.loads(out)["kappa"])  # κ may lie far beyond float64's range
            assert mp.isfinite(kappa) and kappa >= 1
        code, out, err = run(["spectrum", str(path), *json_flag])
        assert_one_line_or_done(code, out, err, folder)


@QUICK
@given(case_files(), st.booleans())
@example('\ufeff{"logits": [0, -1], "H": [[2, 1], [1, 2]]}', True)  # a byte-order mark is read past
@example('{"logits": "' + "x" * 100_000 + '"}', False)  # the message quotes 60 characters of it, not all
@example('{"logits": [' + ", ".join(["0"] * (MAX_MATRIX_N + 1)) + '], "H": [[1]]}', False)
def test_any_case_file_exits_0_or_one_line(text, as_json):
    _check_case(text, as_json)


@pytest.mark.soak
@LONG
@given(case_files(), st.booleans())
def test_any_case_file_exits_0_or_one_line_long(text, as_json):
    _check_case(text, as_json)


# ---------------------------------------------------------------- claim files


def _check_claims(data, as_json):
    """claims FILE with the smallest search; `check` on every certificate it wrote."""
    with tempfile.TemporaryDirectory() as folder:
        path, out_dir = Path(folder) / "claims.toml", Path(folder) / "out"
        path.write_bytes(data)
        code, out, err = run(["claims", str(path), *SEARCH, "--out", str(out_dir), *(["--json"] if as_json else [])])
        assert_one_line_or_done(code, out, err, folder, out_dir)
        for certificate in sorted(out_dir.glob("*.json")) if code == 0 else ():
            code, out, err = run(["check", str(certificate), "--claims", str(path)])
            assert_one_line_or_done(code, out, err, folder)
            assert code == 0, out  # what the search certified, check confirms


@QUICK_SEARCH
@given(claim_files(), st.booleans())
@example(b'[[claim]]\nid = "a"\nholds = "kappa >= 1"\nexpect = [1]\n', True)  # once a TypeError (unhashable)
@example(b'[[claim]]\nid = "a"\nholds = "kappa >= 1"\nhessian = {spd = 1}\n', False)
@example(b'[[claim]]\nid = "a"\nholds = "kappa >="\n', False)
def test_any_claim_file_exits_0_or_one_line(data, as_json):
    _check_claims(data, as_json)


@pytest.mark.soak
@LONG_SEARCH
@given(claim_files(), st.booleans())
def test_any_claim_file_exits_0_or_one_line_long(data, as_json):
    _check_claims(data, as_json)


# ---------------------------------------------------------------- certificates


CLAIM_FILE = """\
[[claim]]
id = "mine.false"
holds = "lambda_min >= mu_T * z_max**2"
n = [2, 4]

[[claim]]
id = "mine.true"
holds = "lambda_max <= L_T"
n = [2, inf]
hessian = "diagonal"
"""


@pytest.fixture(scope="module")
def real_certificates(tmp_path_factory):
    """Certificates as the commands write them: a built-in and a user claim's counterexample and proof,
    and T2.multi's several-examples certificate of a case (which the command writes only when refuted)."""
    folder = tmp_path_factory.mktemp("certificates")
    claims = folder / "claims.toml"
    claims.write_text(CLAIM_FILE)
    for argv in (["theorem2", "--claim", "T2.swapped", "--claim", "T2.eq47.max", "--out", str(folder / "t2")],
                 ["claims", str(claims), "--out", str(folder / "user")]):
        code, _, err = run([*argv, "--samples", "10", "--workers", "1", "--json"])
        assert code == 0, err
    bodies = {path.name: json.loads(path.read_text()) for path in sorted(folder.glob("*/*.json"))}
    kinds = {body["kind"] for body in bodies.values()}
    assert {"counterexample", "proof"} <= kinds, sorted(bodies)
    bodies["T2.multi.json"] = _multi_body()
    return bodies, str(claims)


def _multi_body():
    """T2.multi's certificate of two 2-token examples whose keys come from a 4 × 4 integer generator."""
    exact = lambda rows: tuple(tuple(Fraction(v) for v in row) for row in rows)
    generator = tuple(tuple((i * 3 + j) % 5 - 2 for j in range(4)) for i in range(4))
    case = MultiCase(exact([(0, -1), (0, -2)]), (exact(valid_H(2)), exact(valid_H(2))), generator, 4)
    return multi_certificate_body(get_claim("T2.multi"), case, 50)


def _check_certificate(real_certificates, draw_result):
    (data, user), (bodies, claims_file) = draw_result, real_certificates
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "certificate.json"
        path.write_bytes(data)
        for extra in ([], ["--claims", claims_file]) if user else ([],):
            code, out, err = run(["check", str(path), "--json", *extra])
            assert_one_line_or_done(code, out, err, folder)
            if code != 2:
                assert json.loads(out)["confirmed"] is (code == 0)


@QUICK
@given(data=st.data())
def test_any_certificate_is_checked_or_refused_in_one_line(real_certificates, data):
    _check_certificate(real_certificates, data.draw(mutated_certificates(real_certificates[0])))


@pytest.mark.soak
@LONG
@given(data=st.data())
def test_any_certificate_is_checked_or_refused_in_one_line_long(real_certificates, data):
    _check_certificate(real_certificates, data.draw(mutated_certificates(real_certificates[0])))


def test_the_real_certificates_are_confirmed(real_certificates):
    """The mutations start from certificates `check` confirms (T2.multi's holds, so it is not confirmed)."""
    bodies, claims_file = real_certificates
    with tempfile.TemporaryDirectory() as folder:
        for name, body in bodies.items():
            path = Path(folder) / name
            path.write_text(json.dumps(body))
            code, out, err = run(["check", str(path)])
            assert code == (1 if name == "T2.multi.json" else 0), (name, out, err)


@pytest.mark.parametrize("edit", [
    lambda body: body["lemmas"][0].update(id=["F1.positive"]),
    lambda body: body["pieces"][0].update(lemmas=[["F1.positive"]]),
    lambda body: body.update(pieces=None),
    lambda body: body.update(inputs={"logits": [0, 0]}),
], ids=["lemma-id", "piece-lemma-id", "pieces-null", "inputs-of-a-proof"])
def test_a_proof_certificate_citing_a_list_is_not_confirmed(real_certificates, edit):
    """Once a TypeError (a list is not hashable; None has no length): now NOT CONFIRMED, in one line."""
    body = json.loads(json.dumps(real_certificates[0]["mine.true.json"]))
    edit(body)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "certificate.json"
        path.write_text(json.dumps(body))
        code, out, err = run(["check", str(path)])
    assert (code, err) == (1, "") and out.startswith("NOT CONFIRMED") and len(out.splitlines()) == 1


@pytest.mark.parametrize("kind", [[], {}, ["proof"], None, 1])
def test_a_certificate_whose_kind_is_not_a_word_is_not_confirmed(real_certificates, kind, tmp_path):
    """Once a TypeError (`kind not in KEYS` with an unhashable kind), found by an attack: now NOT CONFIRMED, in one
    line that names the kinds."""
    body = json.loads(json.dumps(real_certificates[0]["mine.true.json"]))
    body["kind"] = kind
    path = tmp_path / "certificate.json"
    path.write_text(json.dumps(body))
    code, out, err = run(["check", str(path)])
    assert (code, err) == (1, "") and out.startswith("NOT CONFIRMED") and len(out.splitlines()) == 1
    assert "has kind" in out and "proof" in out


# ---------------------------------------------------------------- forall bounds


@pytest.mark.parametrize("bounds", ["1..1000000000", "1..1001", "1..2*n", "-5000..n", "1..99999999999*n",
                                    "-" * 1900 + "1..n", "1..\uff4e", "\u0661..n", "1..n" + "+0" * 40])
def test_a_forall_with_too_many_values_or_an_odd_bound_is_one_line(tmp_path, bounds):
    """Once hours of work (a billion values of k) or a RecursionError (1,900 signs); the bounds take the body's
    size checks, ASCII only, and k takes at most 1,000 values (n + 1 when its bounds grow with n)."""
    path = tmp_path / "claims.toml"
    path.write_text(f'[[claim]]\nid = "a"\nholds = "forall k in {bounds}: z(1) > 0"\n', encoding="utf-8")
    code, out, err = run(["claims", str(path), *SEARCH, "--out", str(tmp_path / "out")])
    assert code == 2, (out, err)
    assert_one_line_or_done(code, out, err, tmp_path, tmp_path / "out")


@QUICK
@given(st.integers(-10**6, 10**6), st.integers(-10**6, 10**6), st.integers(-3, 3), st.integers(-3, 3))
def test_every_forall_that_parses_has_a_bounded_number_of_values(lo, hi, lo_n, hi_n):
    from verify.claims.language.parser import MAX_FORALL, MAX_N, parse_claim
    from verify.base.errors import InputError

    text = f"forall k in {lo}+{lo_n}*n..{hi}+{hi_n}*n: z(1) > 0"
    try:
        tree = parse_claim(text, (2, 50))
    except InputError:
        return
    for n in (2, 50, MAX_N):
        assert tree.hi.at(n) - tree.lo.at(n) + 1 <= max(MAX_FORALL, n + 1)


# ---------------------------------------------------------------- min/max width and giant constants


def test_min_and_max_take_fifty_arguments_and_refuse_more():
    from verify.api import decide_on_case, make_case
    from verify.base.errors import InputError

    case = make_case(logits=[0, -1, -2], H=[[2, 0, 0], [0, 3, 0], [0, 0, 4]])
    fifty = ", ".join(("z_min", "z_max", "kappa", "R", "n")[i % 5] for i in range(50))
    assert decide_on_case(f"min({fifty}) <= max({fifty})", case).holds
    with pytest.raises(InputError, match="takes 2 to 50"):
        decide_on_case(f"min({fifty}, z_min) > 0", case)


@pytest.mark.parametrize("text", ["z_min > 1e-1000", "kappa < 1e999999999999", "lambda_min <= mu_T * z_max**2",
                                  "z_min > 1e-99999 * 10**-99999"])
def test_giant_constants_print_and_decide(text):
    """A margin of 6,000 digits once crashed the printing (Python's 4,300-digit limit on str(int))."""
    from verify.api import decide_on_case, make_case

    result = decide_on_case(text, make_case(logits=["0", "0"], H=[[1, 0], [0, 2]]))
    assert result.holds in (True, False)


def test_a_long_mantissa_is_rounded_before_it_is_printed():
    from verify.numerics.precision import decimal

    with mp.workdps(7000):
        tiny = mp.mpf(1) / 3 * mp.mpf(10) ** -6000
    assert decimal(tiny, 20) == "3.3333333333333333333e-6001"


@pytest.mark.parametrize("H", ["[[1, 0], [0, 2]]", "[[1, 0], [0, 1]]"])
def test_a_case_with_a_tiny_logit_prints_its_table(H):
    """Logits 1e-100000 apart: beyond every precision the ball path tries for J's eigenvalue when H = I, so λ
    has no enclosure (shown as "—"), and the table and JSON still print."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "case.json"
        path.write_text(f'{{"logits": ["1e-100000", "0"], "H": {H}}}')
        for flags in ([], ["--json"]):
            code, out, err = run(["theorem2", "--case", str(path), *flags])
            assert code == 0 and not err, err
        assert json.loads(out)["n"] == 2


# ---------------------------------------------------------------- files that are not regular files


def _special_files(folder):
    """A named pipe (opened, it would wait for a writer for ever), a symlink to /dev/zero, and a folder."""
    import os

    fifo, zero, sub = Path(folder) / "pipe", Path(folder) / "zero", Path(folder) / "sub"
    os.mkfifo(fifo)
    zero.symlink_to("/dev/zero")
    sub.mkdir()
    return [str(fifo), str(zero), str(sub)]


@pytest.mark.parametrize("argv", [["theorem2", "--case", "{}"], ["spectrum", "{}"], ["check", "{}"],
                                  ["claims", "{}", *SEARCH], ["export-latex", "--claims", "{}", "--out", "{folder}/tex"]])
def test_every_file_input_refuses_pipes_devices_and_folders_in_one_line(argv):
    with tempfile.TemporaryDirectory() as folder:
        certificate = Path(folder) / "certificate.json"
        certificate.write_text("{}")
        for special in _special_files(folder):
            filled = [a.format(special, certificate=certificate, folder=folder) for a in argv]
            code, out, err = run(filled)
            assert code == 2 and ("regular file" in err or "folder" in err), (filled, err)
            assert_one_line_or_done(code, out, err, folder)


def test_checks_claim_file_refuses_pipes_devices_and_folders_in_one_line(real_certificates):
    with tempfile.TemporaryDirectory() as folder:
        certificate = Path(folder) / "certificate.json"
        certificate.write_text(json.dumps(real_certificates[0]["mine.false.json"]))
        for special in _special_files(folder):
            code, out, err = run(["check", str(certificate), "--claims", special])
            assert code == 2 and ("regular file" in err or "folder" in err), err
            assert_one_line_or_done(code, out, err, folder)


def test_example_database_entries_that_are_not_regular_files_are_skipped(tmp_path):
    """A symlink to /dev/zero among the saved examples once read 2.6 GB in 1.6 s; it is skipped unread."""
    from verify.base.files import FolderStore

    store = FolderStore(tmp_path / "db", limit=1 << 10)
    store.save(b"key", b"saved")
    folder = next((tmp_path / "db").iterdir())
    (folder / "zero").symlink_to("/dev/zero")
    import os

    os.mkfifo(folder / "pipe")
    (folder / "big").write_bytes(b"x" * 2048)
    assert store.fetch(b"key") == [b"saved"]


# ---------------------------------------------------------------- option bounds


@pytest.mark.parametrize("argv, flag", [
    (["theorem2", "--seed", "-1"], "--seed"), (["theorem2", "--seed", str(2**64)], "--seed"),
    (["claims", "x.toml", "--seed", "-1"], "--seed"), (["experiments", "--seed", "-1"], "--seed"),
    (["assumption2", "--seed", "-1"], "--seed"), (["theorem2", "--samples", str(10**30)], "--samples"),
    (["theorem2", "--samples", "1000001"], "--samples"), (["theorem2", "--dps", "29"], "--dps"),
    (["spectrum", "x.json", "--dps", "1001"], "--dps"), (["theorem2", "--workers", "0"], "--workers"),
    (["theorem2", "--seed", "１"], "--seed"), (["theorem2", "--scheduler", "http://127.0.0.1:80"], "--scheduler"),
    (["experiments", "--layers", "-2"], "--layers"), (["assumption2", "--n", "0"], "--n"),
])
def test_each_option_is_checked_by_the_library_in_one_line(tmp_path, argv, flag):
    code, out, err = run([*argv, "--out", str(tmp_path / "out")] if argv[0] in ("theorem2", "claims") else argv)
    assert code == 2 and err.startswith((f"verify: error: {flag}: ", f"verify: error: {flag} ")), err
    assert_one_line_or_done(code, out, err, tmp_path, tmp_path / "out")
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------- output paths, leftovers


@pytest.mark.parametrize("make", ["dangling", "loop", "proc", "long", "file"])
def test_an_output_folder_that_cannot_be_made_is_refused_before_any_work(tmp_path, make):
    target = {"dangling": tmp_path / "dangling", "loop": tmp_path / "loop", "proc": Path("/proc/x"),
              "long": tmp_path / ("a" * 300), "file": tmp_path / "file"}[make]
    if make == "dangling":
        target.symlink_to(tmp_path / "nowhere")
    elif make == "loop":
        target.symlink_to(target)
    elif make == "file":
        target.write_text("")
    before = sorted(p.name for p in tmp_path.iterdir())
    for flag in ("--out", "--example-db"):
        code, out, err = run(["theorem2", "--claim", "T2.swapped", *SEARCH, flag, str(target)])
        assert code == 2 and flag in err, err
        assert_one_line_or_done(code, out, err, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_search_leaves_nothing_in_the_current_folder(tmp_path, monkeypatch):
    """Hypothesis keeps its cache in the user's cache folder, not ./.hypothesis; a refused run makes no
    --example-db folder."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path.parent / f"{tmp_path.name}-cache"))
    Path("claims.toml").write_text('[[claim]]\nid = "a"\nholds = "kappa >= 1"\nn = [2, 3]\n')
    code, out, err = run(["claims", "claims.toml", *SEARCH, "--out", "out", "--json"])
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["claims.toml", "out"]
    code, out, err = run(["claims", "claims.toml", *SEARCH, "--example-db", "newdb", "--seed", "-1"])
    assert code == 2 and not Path("newdb").exists()


# ---------------------------------------------------------------- a scheduler that is not Dask


def test_a_server_that_is_not_dask_is_one_line():
    """An HTTP status line read as Dask's frame length once asked numpy for 3 EiB."""
    import socket
    import threading

    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def answer():
        for _ in range(3):
            try:
                connection, _ = server.accept()
            except OSError:
                return
            with connection:
                connection.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")

    threading.Thread(target=answer, daemon=True).start()
    try:
        with tempfile.TemporaryDirectory() as folder:
            code, out, err = run(["theorem2", "--scheduler", f"tcp://127.0.0.1:{port}", "--samples", "5", "--out", folder])
            assert code == 2 and "--scheduler" in err and "not a Dask" in err, err
            assert_one_line_or_done(code, out, err, folder, folder)
    finally:
        server.close()


# ---------------------------------------------------------------- the library API's argument types


API_CALLS = {
    "check_certificate(1)": lambda v: v.check_certificate(1),
    "check_certificate(0)": lambda v: v.check_certificate(0),
    "check_certificate(None)": lambda v: v.check_certificate(None),
    "claims_file=1": lambda v: v.check_certificate("certificate.json", claims_file=1),
    "run_claims(123)": lambda v: v.run_claims(123),
    "run_claims([1])": lambda v: v.run_claims([1]),
    "load_claims(2)": lambda v: v.load_claims(2),
    "evaluate_claim([...])": lambda v: v.evaluate_claim(["T2.swapped"], v.make_case(logits=[0, 0], H=[[1, 0], [0, 1]])),
    "reading=[]": lambda v: v.evaluate_claim("T2.swapped", v.make_case(logits=[0, 0], H=[[1, 0], [0, 1]]), []),
    "progress=5": lambda v: v.run_theorem2(progress=5),
    "example_db=123": lambda v: v.run_theorem2(example_db=123),
    "out=1": lambda v: v.run_claims('[[claim]]\nid = "a"\nholds = "kappa >= 1"\n', out=1),
    "seed=-1": lambda v: v.run_theorem2(seed=-1),
    "run_derivation([...])": lambda v: v.run_derivation(["D1"]),
    "make_case(logits, z)": lambda v: v.make_case(logits=[0, 0], z=["0.5", "0.5"], H=[[1, 0], [0, 1]]),
    "decide_on_case(bytes)": lambda v: v.decide_on_case(b"kappa >= 1", v.make_case(logits=[0, 0], H=[[1, 0], [0, 1]])),
}


@pytest.mark.parametrize("call", list(API_CALLS), ids=list(API_CALLS))
def test_a_bad_api_argument_is_an_input_error_and_the_streams_stay_open(call):
    import os

    import verify

    with pytest.raises(verify.InputError):
        API_CALLS[call](verify)
    for descriptor in (0, 1, 2):
        os.fstat(descriptor)  # an int taken for a file descriptor once closed the caller's stdout


@pytest.mark.skipif(__import__("shutil").which("openssl") is None, reason="needs openssl to make a test certificate")
def test_a_tls_server_that_is_not_dask_is_one_line(tmp_path):
    """tls:// takes its certificates from Dask's configuration; the first frame is read through TLS."""
    import socket
    import ssl
    import subprocess
    import threading

    import dask

    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def answer():
        try:
            connection, _ = server.accept()
            with context.wrap_socket(connection, server_side=True) as secure:
                secure.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")
        except OSError:
            return

    threading.Thread(target=answer, daemon=True).start()
    settings = {"distributed.comm.tls.ca-file": str(cert), "distributed.comm.tls.client.cert": str(cert),
                "distributed.comm.tls.client.key": str(key)}
    try:
        with dask.config.set(settings):
            code, out, err = run(["theorem2", "--scheduler", f"tls://127.0.0.1:{port}", "--samples", "5",
                                  "--out", str(tmp_path / "out")])
    finally:
        server.close()
    assert code == 2 and "not a Dask handshake" in err, err
    assert_one_line_or_done(code, out, err, tmp_path, tmp_path / "out")
