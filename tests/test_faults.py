"""Faults survived, nothing lost: kill -9 then --resume, a component
raising on one record, an unwritable or full disk, and every kind of bad input."""
import errno
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import spacy

from fault_components import build_pipeline, make_lines, write_lines
from spacy_deid.io.records import AtomicJSONLWriter, FatalError
from spacy_deid.engines.local import DEFAULT_MAX_CHARS, sanitize_file, split_text

ROOT = Path(__file__).resolve().parents[1]
CODE = Path(__file__).resolve().parent / "fault_components.py"


def _read(path: Path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _n_records(lines) -> int:
    return sum(1 for line in lines if line.strip())


@pytest.fixture(scope="module")
def nlp():
    return build_pipeline()


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    """A saved pipeline whose component sleeps 3 ms per doc (slow enough to kill)."""
    path = tmp_path_factory.mktemp("faults") / "slow_model"
    build_pipeline(delay=0.003).to_disk(path)
    return path


def _cli_env():
    return dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", PYTHONPATH=str(CODE.parent))


def _wait_for_lines(path: Path, n: int, proc: subprocess.Popen, timeout: float = 180.0) -> int:
    """Wait until ``path`` holds at least ``n`` lines while ``proc`` still runs."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            out = proc.stdout.read() if proc.stdout else ""
            pytest.fail(f"the run ended (rc {proc.returncode}) before it could be killed: {out[-2000:]}")
        if path.exists():
            with path.open("rb") as fh:
                count = fh.read().count(b"\n")
            if count >= n:
                return count
        time.sleep(0.05)
    pytest.fail(f"{path} did not reach {n} lines in {timeout} s")


@pytest.mark.slow
def test_kill9_mid_run_then_resume_gives_the_uninterrupted_output(tmp_path, model_dir, nlp):
    lines = make_lines(2500, seed=3)
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_lines(inp, lines)
    reference = tmp_path / "reference.jsonl"
    sanitize_file(nlp, inp, reference, batch_size=16)

    cmd = [sys.executable, "-m", "spacy_deid", "sanitize", str(model_dir), str(inp), str(out),
           "--code", str(CODE), "--batch-size", "16"]
    proc = subprocess.Popen(cmd, env=_cli_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    partial = tmp_path / "out.jsonl.partial"
    try:
        seen = _wait_for_lines(partial, 300, proc)
        assert proc.poll() is None, "the run must still be going when it is killed"
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert not out.exists() and partial.exists()
    assert seen < _n_records(lines)

    # resumed in Python with the pipeline the CLI ran (another one is refused)
    with pytest.raises(FatalError, match="another pipeline"):
        sanitize_file(nlp, inp, out, batch_size=16, resume=True)
    stats = sanitize_file(spacy.load(model_dir), inp, out, batch_size=16, resume=True)
    assert stats.n_resumed >= 300
    assert out.read_bytes() == reference.read_bytes()
    recs = _read(out)
    assert len(recs) == _n_records(lines)  # exactly one record per input line
    # the duplicate ids are flagged the same way whether the run was resumed or not
    assert sum(1 for r in recs if r.get("duplicate_id")) == sum(1 for r in _read(reference) if r.get("duplicate_id")) > 0


def test_a_record_that_raises_gets_an_error_record_and_the_run_goes_on(tmp_path, nlp):
    lines = make_lines(300, seed=1)
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_lines(inp, lines)
    stats = sanitize_file(nlp, inp, out, batch_size=8)
    recs = _read(out)
    assert len(recs) == _n_records(lines) == stats.n_in
    boom = [r for r in recs if r["status"] == "error" and "RuntimeError" in r["error"]]
    assert len(boom) == sum(1 for line in lines if b"EXPLODE" in line) >= 2
    for r in boom:
        assert r["error"].startswith(f"record {r['id']!r}") and "boom" not in r["error"]
    ok = [r for r in recs if r["status"] == "ok"]
    assert all("[DATE]" in r["deid_text"] for r in ok)


def test_n_process_2_matches_one_process(tmp_path, nlp):
    """Docs made by _make_doc carry doc._.deid_record (index, pass-through fields):
    it survives spaCy's multiprocessing, and a record a child process fails on
    still gets its error record, in order."""
    lines = make_lines(400, seed=2)
    inp = tmp_path / "in.jsonl"
    write_lines(inp, lines)
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    sanitize_file(nlp, inp, one, batch_size=16)
    stats = sanitize_file(nlp, inp, two, batch_size=16, n_process=2)
    assert two.read_bytes() == one.read_bytes()
    assert stats.n_error >= 4 and any("boom on purpose" in k or "RuntimeError" in k for k in stats.errors_by_kind)


def test_a_dying_worker_process_is_a_clear_error_and_resume_finishes(tmp_path, nlp, monkeypatch):
    """n_process > 1: a worker process that dies (OOM killer) ends the run with one
    clear error; what was written is kept and --resume with the same pipeline completes it."""
    lines = make_lines(600, seed=8, bad=False)
    lines[450] = json.dumps({"id": "killer", "text": "DIE here, seen 3/14/2019"}).encode()
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_lines(inp, lines)
    dying = build_pipeline(die_on="DIE")
    monkeypatch.setenv("FAULT_DIE", "1")
    with pytest.raises(FatalError, match="worker process died.*--resume"):
        sanitize_file(dying, inp, out, n_process=2, batch_size=16)
    assert not out.exists() and (tmp_path / "out.jsonl.partial").exists()
    monkeypatch.delenv("FAULT_DIE")
    with pytest.raises(FatalError, match="another pipeline"):
        sanitize_file(nlp, inp, out, n_process=2, batch_size=16, resume=True)
    stats = sanitize_file(dying, inp, out, n_process=2, batch_size=16, resume=True)
    reference = tmp_path / "reference.jsonl"
    sanitize_file(nlp, inp, reference)
    assert out.read_bytes() == reference.read_bytes()
    assert stats.n_resumed + stats.n_in == 600


@pytest.mark.slow
def test_n_process_2_under_spawn(tmp_path):
    """Under the spawn start method (macOS, Python >= 3.14 default: forkserver) the
    pipeline and our error handler are pickled to the children."""
    model = tmp_path / "model"
    build_pipeline().to_disk(model)
    inp = tmp_path / "in.jsonl"
    write_lines(inp, make_lines(120, seed=5))
    code = (
        "import multiprocessing as mp, sys\n"
        "mp.set_start_method('spawn', force=True)\n"
        "import fault_components\n"
        "from spacy_deid.engines.local import sanitize_file\n"
        "if __name__ == '__main__':\n"
        f"    s = sanitize_file({str(model)!r}, {str(inp)!r}, {str(tmp_path / 'spawn.jsonl')!r}, batch_size=16, n_process=2)\n"
        "    print(s.n_in, s.n_ok, s.n_error)\n"
    )
    script = tmp_path / "spawn_run.py"
    script.write_text(code)
    res = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=_cli_env(), timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    sanitize_file(build_pipeline(), inp, tmp_path / "ref.jsonl", batch_size=16)
    assert (tmp_path / "spawn.jsonl").read_bytes() == (tmp_path / "ref.jsonl").read_bytes()


# ------------------------------------------------------------------ disk faults


class _Budget:
    """A text file that raises ENOSPC once ``budget`` characters were written."""

    def __init__(self, fh, budget: int):
        self.fh = fh
        self.left = budget

    def write(self, data: str) -> int:
        if len(data) > self.left:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.left -= len(data)
        return self.fh.write(data)

    def __getattr__(self, name):
        return getattr(self.fh, name)


def test_disk_full_mid_run_keeps_previous_output_and_resumes(tmp_path, nlp, monkeypatch):
    lines = make_lines(500, seed=4)
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_lines(inp, lines)
    reference = tmp_path / "reference.jsonl"
    sanitize_file(nlp, inp, reference)
    out.write_text("previous output\n")

    real_open = AtomicJSONLWriter._open
    monkeypatch.setattr(AtomicJSONLWriter, "_open", staticmethod(lambda path, mode, **kw: _Budget(real_open(path, mode, **kw), 40_000)))
    with pytest.raises(FatalError, match="No space left on device") as err:
        sanitize_file(nlp, inp, out)
    assert "left untouched" in str(err.value) and "--resume" in str(err.value)
    assert out.read_text() == "previous output\n"
    partial = tmp_path / "out.jsonl.partial"
    assert 0 < partial.stat().st_size <= 40_000

    monkeypatch.setattr(AtomicJSONLWriter, "_open", staticmethod(real_open))  # space freed
    stats = sanitize_file(nlp, inp, out, resume=True)
    assert stats.n_resumed > 0
    assert out.read_bytes() == reference.read_bytes()


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_real_enospc_from_dev_full(tmp_path, nlp):
    """The kernel's own ENOSPC: the partial file is a link to /dev/full."""
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_lines(inp, make_lines(200, seed=6, bad=False))
    out.write_text("previous output\n")
    (tmp_path / "out.jsonl.partial").symlink_to("/dev/full")
    with pytest.raises(FatalError, match="No space left on device"):
        sanitize_file(nlp, inp, out)
    assert out.read_text() == "previous output\n"


def test_output_under_a_file_is_a_clear_error(tmp_path, nlp):
    inp = tmp_path / "in.jsonl"
    write_lines(inp, make_lines(5, bad=False))
    blocker = tmp_path / "not_a_dir"
    blocker.write_text("x")
    with pytest.raises(FatalError, match=r"Cannot write output .*not_a_dir"):
        sanitize_file(nlp, inp, blocker / "out.jsonl")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root ignores directory permissions (see the simulated variant below)")
def test_read_only_output_dir(tmp_path, nlp):
    """A read-only directory: clear error, previous output untouched."""
    inp = tmp_path / "in.jsonl"
    write_lines(inp, make_lines(5, bad=False))
    outdir = tmp_path / "out"
    outdir.mkdir()
    (outdir / "out.jsonl").write_text("previous output\n")
    outdir.chmod(0o555)
    try:
        with pytest.raises(FatalError, match="Cannot write output .*Permission denied"):
            sanitize_file(nlp, inp, outdir / "out.jsonl")
    finally:
        outdir.chmod(0o755)
    assert (outdir / "out.jsonl").read_text() == "previous output\n"


def test_permission_denied_through_the_cli(tmp_path, monkeypatch):
    """The same as the CLI sees it: one line, no traceback, non-zero exit. The
    EACCES is simulated (this test also runs as root, whom permissions do not stop)."""
    from typer.testing import CliRunner

    from spacy_deid.cli import app

    inp = tmp_path / "in.jsonl"
    write_lines(inp, make_lines(5, bad=False))
    model = tmp_path / "model"
    build_pipeline().to_disk(model)
    out = tmp_path / "out.jsonl"
    out.write_text("previous output\n")

    def denied(path, mode, **kw):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))

    monkeypatch.setattr(AtomicJSONLWriter, "_open", staticmethod(denied))
    res = CliRunner().invoke(app, ["sanitize", str(model), str(inp), str(out), "--code", str(CODE)])
    assert res.exit_code != 0
    assert "Cannot write output" in res.output and "Permission denied" in res.output
    assert "Traceback" not in res.output
    assert out.read_text() == "previous output\n"


# ------------------------------------------------------------------ input faults


def test_bad_input_lines_each_get_a_record_naming_them(tmp_path, nlp):
    lines = [
        b"",
        json.dumps({"id": "a", "text": "Seen 3/14/2019."}).encode(),
        b"{oops",
        json.dumps({"id": 7, "text": "integer id is fine"}).encode(),
        json.dumps({"id": {"x": 1}, "text": "dict id"}).encode(),
        json.dumps({"text": "no id, seen 2019-03-14"}).encode(),
        b"  ",
        b'{"id": "bin", "text": "\xff\xfe"}',
        json.dumps({"id": "a", "text": "duplicate id"}).encode(),
        json.dumps({"id": "p", "text": "x", "patient_id": [1]}).encode(),
        json.dumps({"id": "s", "text": "x", "spans": [{"start": 0, "end": 9, "label": "X"}]}).encode(),
        b"null",
        json.dumps({"id": "a", "text": "another duplicate"}).encode(),
    ]
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_lines(inp, lines)
    stats = sanitize_file(nlp, inp, out)
    recs = _read(out)
    assert len(recs) == _n_records(lines) == 11
    by_line = {r.get("line"): r for r in recs if r["status"] == "error"}
    assert "invalid JSON" in by_line[3]["error"] and by_line[3]["id"] == 3  # line numbers count blank lines
    assert "'id' must be" in by_line[5]["error"]
    assert recs[4]["id"] == "line-6" and recs[4]["status"] == "ok"  # missing id: the line number
    assert "UTF-8" in by_line[8]["error"]
    assert "patient_id" in by_line[10]["error"]
    assert "outside the text" in by_line[11]["error"]
    assert "JSON object" in by_line[12]["error"]
    dup = [r for r in recs if r["id"] == "a"]
    assert [r.get("duplicate_id", False) for r in dup] == [False, True, True]  # kept, flagged
    assert stats.n_duplicate_ids == 2


def test_a_50_mb_record_gets_an_error_record_fast(tmp_path, nlp):
    """Over max_chars (10 M characters by default) a record is refused at once,
    named, and the records around it go on."""
    big = "word " * (10 * 1024 * 1024)  # 50 MiB
    lines = [
        json.dumps({"id": "before", "text": "Seen 3/14/2019."}).encode(),
        json.dumps({"id": "huge", "text": big}).encode(),
        json.dumps({"id": "after", "text": "Call 555-123-4567."}).encode(),
    ]
    del big
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_lines(inp, lines)
    del lines
    t0 = time.perf_counter()
    sanitize_file(nlp, inp, out)
    elapsed = time.perf_counter() - t0
    recs = _read(out)
    assert [r["id"] for r in recs] == ["before", "huge", "after"]
    assert recs[1]["status"] == "error" and "too long" in recs[1]["error"] and "'huge'" in recs[1]["error"]
    assert f"{DEFAULT_MAX_CHARS:,}" in recs[1]["error"]
    assert recs[0]["status"] == recs[2]["status"] == "ok"
    assert elapsed < 30, f"a refused 50 MB record took {elapsed:.1f} s"


def test_long_records_are_processed_in_pieces(tmp_path, nlp):
    """Above piece_chars a text is cut at line/space boundaries, processed piece by
    piece, and joined into one record whose edits point into the whole text."""
    parts = [f"Visit {i} on {i % 12 + 1}/{i % 28 + 1}/2019, phone 555-{100 + i}-{1000 + i}." for i in range(400)]
    text = "\n".join(parts)
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_lines(inp, [json.dumps({"id": "long", "text": text}).encode(), json.dumps({"id": "short", "text": "3/14/2019"}).encode()])
    stats = sanitize_file(nlp, inp, out, piece_chars=2000, max_chars=0)
    long_rec, short_rec = _read(out)
    assert long_rec["status"] == "ok" and long_rec["pieces"] == len(split_text(text, 2000)) > 5
    assert "pieces" not in short_rec and stats.n_split == 1
    reps = [e["replacement"] for e in long_rec["edits"]]
    assert reps.count("[DATE]") == 400 and reps.count("[PHONE]") == 400  # every date and phone of every piece
    for edit in long_rec["edits"]:  # offsets point into the whole text
        original = text[edit["start"]:edit["end"]]
        assert original.strip() and original == original.strip()
        if edit["replacement"] == "[PHONE]":
            assert re.fullmatch(r"555-\d{3}-\d{4}", original)
    # the rendering of the whole equals the rendering piece by piece, joined
    assert long_rec["deid_text"].count("[DATE]") == 400 and "555-" not in long_rec["deid_text"]
    # the same text processed whole gives the same output (cuts fall on line breaks)
    whole = tmp_path / "whole.jsonl"
    sanitize_file(nlp, inp, whole, piece_chars=10**7, max_chars=0)
    assert _read(whole)[0]["deid_text"] == long_rec["deid_text"]
    assert _read(whole)[0]["edits"] == long_rec["edits"]


def test_split_text_round_trips():
    text = "aaaa bbbb\ncccc dddd\n\neeee " * 50 + "x" * 300
    for size in (7, 30, 100, 299, 5000):
        pieces = split_text(text, size)
        assert "".join(p for _, p in pieces) == text
        assert all(len(p) <= size for _, p in pieces)
        assert [off for off, _ in pieces] == [sum(len(p) for _, p in pieces[:i]) for i in range(len(pieces))]


def test_resume_refuses_a_partial_of_another_input(tmp_path, nlp):
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_lines(inp, make_lines(50, bad=False))
    (tmp_path / "out.jsonl.partial").write_text(json.dumps({"id": "zzz", "status": "ok"}) + "\n")
    with pytest.raises(FatalError, match="no run fingerprint"):
        sanitize_file(nlp, inp, out, resume=True)


def test_cli_rejects_unknown_engine(tmp_path):
    res = subprocess.run(
        [sys.executable, "-m", "spacy_deid", "sanitize", "x", "y", "z", "--engine", "spark"],
        capture_output=True, text=True, env=_cli_env(),
    )
    assert res.returncode != 0 and "--engine must be" in res.stdout + res.stderr


def test_scan_chunks_cover_every_record_once(tmp_path):
    """The Ray engine's chunk table (byte ranges, first line number, first record
    index) agrees with the local reader's numbering, blank lines included."""
    from spacy_deid.io.records import iter_lines, iter_raw_lines, scan_chunks

    lines = [b"", b"  "] + make_lines(57, seed=9) + [b"", b'{"id": "last", "text": "no newline at the end"}']
    inp = tmp_path / "in.jsonl"
    inp.write_bytes(b"\n".join(lines))  # no trailing newline
    expected = [(res.line_no, i) for i, res in enumerate(iter_lines(inp))]
    for size in (1, 7, 1000):
        chunks = scan_chunks(inp, records_per_chunk=size)
        got = []
        with inp.open("rb") as fh:
            for c in chunks:
                fh.seek(c.start)
                data = fh.read(c.end - c.start)
                for k, (line_no, _) in enumerate(iter_raw_lines(iter(data.splitlines(keepends=True)), c.line_no)):
                    got.append((line_no, c.index + k))
                assert k + 1 == c.n
        assert got == expected


def test_memory_zones_keep_the_vocab_from_growing_and_change_no_output(tmp_path):
    """Every new token string would stay in nlp.vocab for the whole run; in memory
    zones it is freed, and the output is the same."""
    nlp = build_pipeline()
    inp = tmp_path / "in.jsonl"
    write_lines(inp, make_lines(300, seed=10))
    sanitize_file(nlp, inp, tmp_path / "warm.jsonl", zone_records=50)  # warm up lazily created strings
    before = len(nlp.vocab.strings)
    sanitize_file(nlp, inp, tmp_path / "zones.jsonl", zone_records=50)
    assert len(nlp.vocab.strings) == before
    sanitize_file(nlp, inp, tmp_path / "none.jsonl", zone_records=0)
    assert len(nlp.vocab.strings) > before + 100  # without zones the note's numbers and words stay
    assert (tmp_path / "zones.jsonl").read_bytes() == (tmp_path / "none.jsonl").read_bytes()


def test_memory_zone_frees_its_strings_when_the_block_raises():
    """spaCy 3.8.7 leaves a zone's strings half freed when an exception leaves
    ``nlp.memory_zone()``, and the next document fails; our helper closes it first."""
    import spacy

    from spacy_deid.util import memory_zone

    nlp = spacy.blank("en")
    with pytest.raises(RuntimeError, match="disk full"):
        with memory_zone(nlp):
            nlp("Kowalczyk was seen on 3/4 by Zbigniewska")
            raise RuntimeError("disk full")
    with memory_zone(nlp):
        assert [t.text for t in nlp("Kowalczyk was seen again")] == ["Kowalczyk", "was", "seen", "again"]
    assert "Kowalczyk" not in nlp.vocab.strings
