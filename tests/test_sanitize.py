"""The JSONL contract of sanitize: N lines in, N records out, in order, nothing lost."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from spacy.language import Language

from spacy_deid.edits import add_edit
from spacy_deid.io.records import FatalError
from spacy_deid.engines.local import resume_fingerprint, run_file_for, sanitize_file
from spacy_deid.io.atomic import write_json


@Language.component("test_mask_ents", assigns=["doc._.deid_text"])
def _mask_ents(doc):
    if "EXPLODE" in doc.text:
        raise RuntimeError("boom on purpose")
    for ent in doc.ents:
        add_edit(doc, ent.start, ent.end, "PHI", f"[{ent.label_}]")
    return doc


@pytest.fixture()
def nlp():
    from spacy_deid.io.readers import phi_patterns_v1

    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("span_ruler", config={"spans_key": None, "annotate_ents": True})
    ruler.add_patterns(phi_patterns_v1())
    nlp.add_pipe("test_mask_ents")
    return nlp


def _write(path: Path, lines):
    with path.open("wb") as fh:
        for line in lines:
            fh.write(line if isinstance(line, bytes) else line.encode("utf-8"))
            fh.write(b"\n")


def _read(path: Path):
    return [json.loads(l) for l in path.read_text(encoding="utf-8").splitlines()]


BAD_AND_GOOD = [
    json.dumps({"id": "a", "text": "Seen on 03/14/2019, call 555-123-4567.", "patient_id": "p1", "label": "Cardiology"}),
    "{not json",
    json.dumps({"id": "b"}),
    json.dumps({"id": "c", "text": 42}),
    json.dumps({"id": "d", "text": "   "}),
    b'{"id": "e", "text": "caf\xe9"}',
    json.dumps(["a list"]),
    json.dumps({"text": "no id here, seen 2019-03-14"}),
    json.dumps({"id": "f", "text": "EXPLODE this record"}),
    json.dumps({"id": "g", "text": "Emoji \U0001F600 and control \x07 chars, seen 3/14."}),
    json.dumps({"id": "a", "text": "Duplicate id, fine."}),
]


def test_every_line_gives_one_record_in_order(nlp, tmp_path):
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _write(inp, BAD_AND_GOOD)
    stats = sanitize_file(nlp, inp, out, batch_size=3)
    recs = _read(out)
    assert len(recs) == len(BAD_AND_GOOD) == stats.n_in
    assert [r["status"] for r in recs] == ["ok", "error", "error", "error", "error", "error", "error", "ok", "error", "ok", "ok"]
    assert recs[0]["deid_text"] == "Seen on [DATE], call [PHONE]."
    assert recs[0]["patient_id"] == "p1" and recs[0]["label"] == "Cardiology"
    assert {"start": 8, "end": 18, "reason": "PHI", "category": None, "method": None, "replacement": "[DATE]"} in recs[0]["edits"]
    assert "text" not in recs[0]  # the original text is never written
    assert "invalid JSON" in recs[1]["error"] and recs[1]["id"] == 2
    assert "missing 'text'" in recs[2]["error"] and recs[2]["id"] == "b"
    assert "must be a string" in recs[3]["error"]
    assert "empty" in recs[4]["error"]
    assert "UTF-8" in recs[5]["error"]
    assert "JSON object" in recs[6]["error"]
    assert recs[7]["id"] == "line-8" and recs[7]["deid_text"] == "no id here, seen [DATE]"
    assert "RuntimeError" in recs[8]["error"] and "'f'" in recs[8]["error"] and "boom" not in recs[8]["error"]
    assert recs[10]["duplicate_id"] is True
    assert stats.n_ok == 4 and stats.n_error == 7


def test_failing_record_does_not_drop_its_batch(nlp, tmp_path):
    lines = [json.dumps({"id": str(i), "text": "EXPLODE" if i == 5 else f"note {i} seen 3/14"}) for i in range(12)]
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _write(inp, lines)
    sanitize_file(nlp, inp, out, batch_size=4)
    recs = _read(out)
    assert [r["id"] for r in recs] == [str(i) for i in range(12)]
    assert [r["status"] for r in recs].count("error") == 1 and recs[5]["status"] == "error"


def test_resume_continues_without_duplicates(nlp, tmp_path):
    lines = [json.dumps({"id": str(i), "text": f"note {i} on 2019-03-{i % 28 + 1:02d}"}) for i in range(50)]
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _write(inp, lines)
    sanitize_file(nlp, inp, out)
    full = out.read_bytes()
    out.unlink()
    # simulate a run killed after 20 records, mid-way through writing the 21st
    partial = tmp_path / "out.jsonl.partial"
    head = b"".join(full.splitlines(keepends=True)[:20])
    partial.write_bytes(head + b'{"id": "20", "deid_te')
    write_json(run_file_for(out), resume_fingerprint(inp, nlp))
    stats = sanitize_file(nlp, inp, out, resume=True)
    assert stats.n_resumed == 20
    assert out.read_bytes() == full
    assert not partial.exists()


def test_previous_output_untouched_until_success(nlp, tmp_path):
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    out.write_text("previous\n")
    _write(inp, [json.dumps({"id": "1", "text": "fine"})])

    def broken_lines():
        raise KeyboardInterrupt

    import spacy_deid.engines.local as mod

    orig = mod.iter_lines
    mod.iter_lines = lambda *a, **k: (_ for _ in broken_lines())
    try:
        with pytest.raises(KeyboardInterrupt):
            sanitize_file(nlp, inp, out)
    finally:
        mod.iter_lines = orig
    assert out.read_text() == "previous\n"


def test_fatal_errors(nlp, tmp_path):
    with pytest.raises(FatalError, match="Input file not found"):
        sanitize_file(nlp, tmp_path / "missing.jsonl", tmp_path / "o.jsonl")
    inp = tmp_path / "in.jsonl"
    _write(inp, [json.dumps({"id": "1", "text": "x"})])
    with pytest.raises(FatalError, match="Pipeline not found"):
        sanitize_file(str(tmp_path / "no_pipeline"), inp, tmp_path / "o.jsonl")


def _cli(*args, cwd=None):
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    return subprocess.run([sys.executable, "-m", "spacy_deid", *args], capture_output=True, text=True, env=env, cwd=cwd)


def test_cli_init_and_sanitize(tmp_path, small_corpus):
    root = Path(__file__).resolve().parents[1]
    model = tmp_path / "model"
    res = _cli("init", str(root / "spacy_deid" / "configs" / "frequency.cfg"), str(small_corpus), str(model))
    assert res.returncode == 0, res.stderr
    out = tmp_path / "out.jsonl"
    res = _cli("sanitize", str(model), str(small_corpus), str(out))
    assert res.returncode == 0, res.stderr
    n_in = sum(1 for _ in small_corpus.open())
    assert len(_read(out)) == n_in
    # fatal errors: one line, no traceback, non-zero exit
    res = _cli("sanitize", str(tmp_path / "nope"), str(small_corpus), str(out))
    assert res.returncode != 0 and "Traceback" not in res.stderr + res.stdout
    assert "Pipeline not found" in res.stdout + res.stderr
    res = _cli("sanitize", str(model), str(tmp_path / "missing.jsonl"), str(out))
    assert res.returncode != 0 and "Traceback" not in res.stderr + res.stdout
    assert "missing.jsonl" in res.stdout + res.stderr


def test_import_needs_no_torch_or_transformers():
    """spacy_deid (and every component module it registers) imports no heavy
    library itself: with torch, transformers, floret, sklearn and ray blocked it
    still imports (thinc falls back to numpy). spaCy's own spacy.blank() loads
    other plugins' entry points, so it is not part of this check."""
    code = (
        "import sys, importlib.abc\n"
        "class Block(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name.split('.')[0] in ('torch', 'transformers', 'spacy_transformers', 'floret', 'sklearn', 'ray'):\n"
        "            raise ImportError('blocked ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import spacy_deid, spacy_deid.cli, spacy_deid.engines.local\n"
        "print('ok')\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "ok"


class _NoHandlerPipe:
    """Like spaCy 3.8's Cython ner: takes no error handler, raises from pipe()."""

    def set_error_handler(self, handler):
        raise AttributeError("'EntityRecognizer' object has no attribute 'error_handler'")

    def __call__(self, doc):
        if "EXPLODE" in doc.text:
            raise RuntimeError("ner failed on purpose")
        return doc

    def pipe(self, docs, batch_size=128):
        for doc in docs:
            yield self(doc)


@Language.factory("test_no_handler")
def _make_no_handler(nlp, name):
    return _NoHandlerPipe()


def test_component_without_error_handler_does_not_end_the_run(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("test_no_handler")
    nlp.add_pipe("test_mask_ents")
    lines = [json.dumps({"id": str(i), "text": "EXPLODE" if i in (3, 11) else f"note {i}"}) for i in range(20)]
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _write(inp, lines)
    sanitize_file(nlp, inp, out, batch_size=4)
    recs = _read(out)
    assert [r["id"] for r in recs] == [str(i) for i in range(20)]
    assert [i for i, r in enumerate(recs) if r["status"] == "error"] == [3, 11]
    assert "RuntimeError" in recs[3]["error"] and "on purpose" not in recs[3]["error"]  # class, not message


# ------------------------------------------- bad input: a clear error, nothing lost
def _previous(out: Path) -> bytes:
    out.write_bytes(b'{"id": "old", "deid_text": "a good previous output", "status": "ok"}\n')
    return out.read_bytes()


@pytest.fixture()
def saved_model(tmp_path, nlp):
    from spacy_deid.util import save_pipeline

    model = tmp_path / "model"
    save_pipeline(nlp, model)
    return model


CODE_THIS = str(Path(__file__).resolve())


def _cli_here(*args):
    """The CLI in a subprocess that registers this file's components first."""
    code = (
        "import runpy, sys; runpy.run_path(sys.argv.pop(1)); from spacy_deid.cli import main; main(sys.argv[1:])"
    )
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    return subprocess.run([sys.executable, "-c", code, CODE_THIS, *args], capture_output=True, text=True, env=env)


@pytest.mark.parametrize(
    "option",
    [["--batch-size", "0"], ["--max-chars", "-1"], ["--n-process", "0"], ["--chunk-records", "0"], ["--gpu-id", "-2"]],
)
def test_out_of_range_options_are_refused(tmp_path, option):
    from typer.testing import CliRunner

    from spacy_deid.cli import app

    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _write(inp, [json.dumps({"id": "1", "text": "seen 2019-03-14"})])
    before = _previous(out)
    res = CliRunner().invoke(app, ["sanitize", str(tmp_path / "model"), str(inp), str(out), *option])
    assert res.exit_code != 0
    assert option[0] in res.output and "Traceback" not in res.output
    assert out.read_bytes() == before


def test_python_api_refuses_out_of_range_options(tmp_path, nlp):
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _write(inp, [json.dumps({"id": "1", "text": "seen 2019-03-14"})])
    before = _previous(out)
    for kwargs in ({"batch_size": 0}, {"max_chars": -1}, {"n_process": 0}):
        with pytest.raises(FatalError, match="must be at least"):
            sanitize_file(nlp, inp, out, **kwargs)
    assert out.read_bytes() == before


def test_every_record_failed_exits_non_zero_and_keeps_previous_output(tmp_path, saved_model):
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _write(inp, [json.dumps({"id": str(i), "text": f"EXPLODE note {i}"}) for i in range(5)])
    before = _previous(out)
    res = _cli_here("sanitize", str(saved_model), str(inp), str(out))
    assert res.returncode != 0
    assert "Every one of the 5 records failed" in " ".join((res.stdout + res.stderr).split())
    assert "Traceback" not in res.stdout + res.stderr
    assert out.read_bytes() == before
    assert not (tmp_path / "out.jsonl.partial").exists()
    # some records ok: the output is written (with error records naming the others)
    _write(inp, [json.dumps({"id": "1", "text": "EXPLODE"}), json.dumps({"id": "2", "text": "fine"})])
    res = _cli_here("sanitize", str(saved_model), str(inp), str(out))
    assert res.returncode == 0, res.stdout + res.stderr
    assert [r["status"] for r in _read(out)] == ["error", "ok"]


def test_output_equal_to_input_is_refused(tmp_path, nlp):
    inp = tmp_path / "in.jsonl"
    _write(inp, [json.dumps({"id": "1", "text": "seen 2019-03-14"})])
    before = inp.read_bytes()
    with pytest.raises(FatalError, match="is the input"):
        sanitize_file(nlp, inp, inp)
    (tmp_path / "link.jsonl").symlink_to(inp)
    with pytest.raises(FatalError, match="is the input"):
        sanitize_file(nlp, inp, tmp_path / "link.jsonl")
    assert inp.read_bytes() == before


def _interrupted(tmp_path, nlp, texts):
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _write(inp, [json.dumps({"id": str(i), "text": t}) for i, t in enumerate(texts)])
    sanitize_file(nlp, inp, out)
    full = out.read_bytes()
    out.unlink()
    partial = tmp_path / "out.jsonl.partial"
    partial.write_bytes(b"".join(full.splitlines(keepends=True)[:3]))
    write_json(run_file_for(out), resume_fingerprint(inp, nlp))
    return inp, out, partial


def test_resume_refuses_a_changed_input(tmp_path, nlp):
    texts = [f"note {i} seen 2019-03-{i + 1:02d}" for i in range(8)]
    inp, out, partial = _interrupted(tmp_path, nlp, texts)
    # same ids, other texts
    _write(inp, [json.dumps({"id": str(i), "text": t.upper()}) for i, t in enumerate(texts)])
    kept = partial.read_bytes()
    with pytest.raises(FatalError, match="input changed"):
        sanitize_file(nlp, inp, out, resume=True)
    assert partial.read_bytes() == kept and not out.exists()


def test_resume_refuses_another_pipeline(tmp_path, nlp):
    inp, out, partial = _interrupted(tmp_path, nlp, [f"note {i} seen 2019-03-14" for i in range(8)])
    other = spacy.blank("en")
    other.add_pipe("test_mask_ents")
    with pytest.raises(FatalError, match="another pipeline"):
        sanitize_file(other, inp, out, resume=True)
    stats = sanitize_file(nlp, inp, out, resume=True)  # the same pipeline continues
    assert stats.n_resumed == 3


def test_pipeline_without_deid_component_is_refused(tmp_path, nlp):
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _write(inp, [json.dumps({"id": "1", "text": "seen 2019-03-14"})])
    before = _previous(out)
    with pytest.raises(FatalError, match="no enabled de-identification component"):
        sanitize_file(spacy.blank("en"), inp, out)
    with nlp.select_pipes(disable=["test_mask_ents"]):
        with pytest.raises(FatalError, match="no enabled de-identification component"):
            sanitize_file(nlp, inp, out)
    blank = tmp_path / "blank"
    spacy.blank("en").to_disk(blank)
    res = _cli_here("sanitize", str(blank), str(inp), str(out))
    assert res.returncode != 0 and "no enabled de-identification component" in " ".join(res.stdout.split())
    assert out.read_bytes() == before


@Language.component("test_leaky_error", assigns=["doc._.deid_text"])
def _leaky_error(doc):
    if "Zebulon" in doc.text:
        raise ValueError(f"cannot handle {doc.text!r}")  # a message quoting the document
    return doc


def test_error_records_and_messages_hold_no_document_text(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("test_leaky_error")
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _write(inp, [json.dumps({"id": "1", "text": "Mr Zebulon Quaxley seen today"}), json.dumps({"id": "2", "text": "ok"})])
    sanitize_file(nlp, inp, out)
    data = out.read_text()
    assert "Zebulon" not in data and "Quaxley" not in data
    err = _read(out)[0]
    assert err["status"] == "error" and "ValueError" in err["error"] and "line 1" in err["error"]


def test_keep_text_output_is_owner_only(tmp_path, nlp):
    import stat

    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _write(inp, [json.dumps({"id": "1", "text": "seen 2019-03-14"})])
    out.write_text("old\n")
    os.chmod(out, 0o644)
    sanitize_file(nlp, inp, out, keep_text=True)
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert _read(out)[0]["text"] == "seen 2019-03-14"


def test_n_process_2_after_warm_torch_calls(tmp_path, mlm_dir, small_corpus):
    """A fork after torch ran its thread pool used to hang in the child."""
    code = f"""
import spacy, spacy_deid
from spacy_deid.io.records import read_jsonl_list
texts = [r["text"] for r in read_jsonl_list({str(small_corpus)!r})[:24]]
nlp = spacy.blank("en")
nlp.add_pipe("mlm_resampler", config={{"model": {str(mlm_dir)!r}}})
nlp.initialize()
list(nlp.pipe(texts[:8]))
out = list(nlp.pipe(texts, n_process=2, batch_size=4))
print(len(out))
"""
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=240)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip().splitlines()[-1] == "24"
