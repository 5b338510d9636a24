"""spacy-deid audit: finds the corpus' rare and detected identifiers in any file,
archive member or binary blob, and says where without printing them."""
import json
import zipfile

import pytest

from spacy_deid.eval.audit import PHI, RARE, audit, scan, sensitive_tokens, token_id


@pytest.fixture(scope="module")
def planted_corpus(tmp_path_factory, small_records):
    """The session corpus, without gold spans, with invented identifiers planted:
    a clinician's surname in notes of many patients (not rare: only a detector
    sees it), a record number of one patient (rare)."""
    path = tmp_path_factory.mktemp("audit") / "corpus.jsonl"
    with path.open("w") as fh:
        for i, rec in enumerate(small_records[:120]):
            text = rec["text"]
            if i % 3 == 0:
                text += " Seen with Dr. Quorvath today."
            if i == 7:
                text += " MRN 88123457 on file."
            fh.write(json.dumps({"id": rec["id"], "patient_id": rec["patient_id"], "text": text}) + "\n")
    return path


def test_rare_and_detected_tokens(planted_corpus):
    tokens = sensitive_tokens(planted_corpus, k=5)
    assert tokens["88123457"].n_units == 1  # rare, and a pattern sees a record number
    assert tokens["quorvath"].kind == PHI and tokens["quorvath"].n_units >= 5  # frequent, but a name
    assert "patient" not in tokens and "the" not in tokens  # common words are not identifiers
    rare_only = sensitive_tokens(planted_corpus, k=5, detect=False)
    assert "quorvath" not in rare_only and rare_only["88123457"].kind == RARE


def test_scan_finds_tokens_in_text_archives_and_binary(tmp_path, planted_corpus):
    tokens = sensitive_tokens(planted_corpus, k=5, detect=False)
    tokens_all = dict(tokens, quorvath=sensitive_tokens(planted_corpus, k=5)["quorvath"])
    art = tmp_path / "art"
    (art / "vocab").mkdir(parents=True)
    (art / "vocab" / "strings.json").write_text(json.dumps(["the", "88123457"]))
    (art / "cfg").write_text(json.dumps({"words": ["Quorvath"]}, ensure_ascii=True))
    (art / "weights.bin").write_bytes(b"\x00\x01\x02" * 50 + b"QUORVATH" + b"\x00" * 40)
    with zipfile.ZipFile(art / "pkg-0.1-py3-none-any.whl", "w") as zf:
        zf.writestr("pkg/model/vocab.txt", "[PAD]\nquorvath\nheart\n")
    (art / "clean.txt").write_text("a clean note about the heart")
    report = scan([art], tokens_all)
    where = {(f.path.rsplit("/", 1)[-1], f.member, f.token_id) for f in report.findings}
    assert where == {
        ("strings.json", None, token_id("88123457")),
        ("cfg", None, token_id("quorvath")),
        ("weights.bin", None, token_id("quorvath")),
        ("pkg-0.1-py3-none-any.whl", "pkg/model/vocab.txt", token_id("quorvath")),
    }
    assert scan([art / "clean.txt"], tokens_all).findings == []


def test_cli_exit_codes_and_no_token_printed(tmp_path, planted_corpus):
    from typer.testing import CliRunner

    from spacy_deid.cli import app

    leaky = tmp_path / "leaky.json"
    leaky.write_text(json.dumps({"note": "MRN 88123457"}))
    clean = tmp_path / "clean.txt"
    clean.write_text("nothing here")
    res = CliRunner().invoke(app, ["audit", str(leaky), str(clean), "--corpus", str(planted_corpus), "--no-detect"])
    assert res.exit_code == 1
    assert "leaky.json" in res.output and token_id("88123457") in res.output
    assert "88123457" not in res.output.replace(token_id("88123457"), "")
    res = CliRunner().invoke(app, ["audit", str(clean), "--corpus", str(planted_corpus), "--no-detect"])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, ["audit", str(tmp_path / "missing"), "--corpus", str(planted_corpus)])
    assert res.exit_code != 0 and "not found" in res.output and "Traceback" not in res.output


def test_audit_of_a_fitted_pipeline_finds_nothing(tmp_path, planted_corpus):
    """The default profile fitted on the corpus and saved: no identifier in it."""
    from spacy_deid.engines.fit import init_pipeline

    init_pipeline("default", planted_corpus, tmp_path / "pipeline")
    report = audit([tmp_path / "pipeline"], planted_corpus, k=5)
    assert report.n_files > 3 and report.n_sensitive > 10
    assert report.findings == []
