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
from spacy_deid.engines.local import sanitize_file


@Language.component("test_mask_ents")
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
    assert "boom on purpose" in recs[8]["error"] and "'f'" in recs[8]["error"]
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
    res = _cli("init", str(root / "spacy_deid" / "configs" / "base.cfg"), str(small_corpus), str(model))
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
    assert "ner failed on purpose" in recs[3]["error"]
