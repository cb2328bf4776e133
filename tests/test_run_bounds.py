"""A run's inputs are refused before any work: more claims than a file may hold, the same id twice, a certificate's
place taken by a folder, an unknown --claim in a file with lemmas (no lemma's certificate is written)."""
import contextlib
import io
import time

import pytest

import verify
from verify.commandline.cli import main

LEMMA_FILE = ('[[lemma]]\nid = "step"\nholds = "j_min >= z_min"\nn = [2, 3]\n\n'
              '[[claim]]\nid = "mine"\nholds = "lambda_min >= mu_T * z_min**2"\nn = [2, 3]\n')


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_run_claims_is_bounded_like_a_claim_file():
    claims = verify.load_claims('[[claim]]\nid = "a"\nholds = "kappa >= 1"\n')
    started = time.process_time()
    with pytest.raises(verify.InputError, match="at most 200"):
        verify.run_claims(claims * 100_000, samples=5, workers=1)
    assert time.process_time() - started < 5
    with pytest.raises(verify.InputError, match="twice"):
        verify.run_claims(claims * 2, samples=5, workers=1)


def test_a_folder_in_a_certificate_s_place_is_refused_before_the_search(tmp_path):
    out = tmp_path / "out"
    (out / "T2.swapped.tangent-exact.json").mkdir(parents=True)
    started = time.process_time()
    code, _, err = run(["theorem2", "--claim", "T2.swapped", "--samples", "5", "--out", str(out)])
    assert code == 2 and len(err.splitlines()) == 1 and "is a folder" in err, err
    assert time.process_time() - started < 10  # refused before the search, not after it
    claims = tmp_path / "claims.toml"
    claims.write_text(LEMMA_FILE)
    (out / "step.json").mkdir()
    code, _, err = run(["claims", str(claims), "--samples", "5", "--out", str(out)])
    assert code == 2 and "step.json" in err and "is a folder" in err, err
    assert sorted(p.name for p in out.iterdir()) == ["T2.swapped.tangent-exact.json", "step.json"]


def test_an_unknown_claim_in_a_file_with_lemmas_writes_nothing(tmp_path):
    claims = tmp_path / "claims.toml"
    claims.write_text(LEMMA_FILE)
    code, out, err = run(["claims", str(claims), "--claim", "nope", "--samples", "5", "--out", str(tmp_path / "out")])
    assert code == 2 and len(err.splitlines()) == 1 and "nope" in err, err
    assert not (tmp_path / "out").exists()


def test_samples_above_the_most_a_run_can_afford_name_the_maximum():
    from verify.base.options import MAX_SAMPLES

    code, _, err = run(["theorem2", "--samples", str(MAX_SAMPLES + 1)])
    assert code == 2 and len(err.splitlines()) == 1 and f"{MAX_SAMPLES:,}" in err, err
    with pytest.raises(verify.InputError, match=f"{MAX_SAMPLES:,}"):
        verify.run_theorem2(samples=MAX_SAMPLES + 1)
