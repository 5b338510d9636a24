"""Evaluation: entity recall, cross-patient PHI, utility measures, report files."""
import html
import json
import random
import re
import stat

import pytest

from spacy_deid.eval.report import evaluate_files, write_report, load_pairs
from spacy_deid.eval.sweep import parse_grid
from spacy_deid.eval.utility import classification_f1, cross_patient_rate, entity_recall, same_cluster_share


def _gold(i, pid, text, spans, label=None):
    return {"id": str(i), "patient_id": pid, "text": text, "label": label, "spans": [{"start": s, "end": e, "label": l} for s, e, l in spans]}


def test_entity_recall_counts_partial_leaks():
    g = _gold(1, "p1", "Seen by John Smith on 03/14.", [(8, 18, "PATIENT"), (22, 27, "DATE")])
    full = {"status": "ok", "deid_text": "Seen by [P] on [D].", "edits": [{"start": 8, "end": 18, "replacement": "[P]"}, {"start": 22, "end": 27, "replacement": "[D]"}]}
    partial = {"status": "ok", "deid_text": "Seen by [P] Smith on 03/14.", "edits": [{"start": 8, "end": 12, "replacement": "[P]"}]}
    assert entity_recall([(g, full)])["ALL"]["recall"] == 1.0
    r = entity_recall([(g, partial)])
    assert r["PATIENT"]["removed"] == 0 and r["DATE"]["removed"] == 0 and r["ALL"]["n"] == 2


def test_cross_patient_rate_ignores_shared_strings():
    a = _gold(1, "p1", "Patient Quentin Ablewhite at Mercy Hospital.", [(8, 25, "PATIENT"), (29, 43, "HOSPITAL")])
    b = _gold(2, "p2", "Patient Rosalind Brackett at Mercy Hospital.", [(8, 26, "PATIENT"), (30, 44, "HOSPITAL")])
    clean = [(a, {"status": "ok", "deid_text": "Patient [P] at Mercy Hospital."}), (b, {"status": "ok", "deid_text": "Patient [P] at Mercy Hospital."})]
    assert cross_patient_rate(clean)["docs_with_foreign_phi"] == 0  # the shared hospital is no leak
    moved = [(a, {"status": "ok", "deid_text": "Patient Rosalind Brackett at X."}), clean[1]]
    res = cross_patient_rate(moved)
    assert res["docs_with_foreign_phi"] == 1 and res["rate"] == 0.5 and res["rate_unique"] == 0.5
    assert cross_patient_rate([({"id": "x", "text": "t"}, {"status": "ok", "deid_text": "t"})]) is None


def test_cross_patient_rate_counts_a_surrogate_that_matches_a_name_as_coincidence():
    a = _gold(1, "p1", "Patient Quentin Ablewhite seen.", [(8, 25, "PATIENT")])
    b = _gold(2, "p2", "Patient Rosalind Brackett seen.", [(8, 25, "PATIENT")])
    # the surrogate of a's name happens to be b's name: written by the operator, not moved
    surrogate = {"status": "ok", "deid_text": "Patient Rosalind Brackett seen.",
                 "edits": [{"start": 8, "end": 25, "method": "SURROGATE", "replacement": "Rosalind Brackett"}]}
    res = cross_patient_rate([(a, surrogate), (b, {"status": "ok", "deid_text": "Patient X seen."})])
    assert res["docs_with_foreign_phi"] == 0 and res["docs_with_surrogate_coincidence"] == 1
    swapped = dict(surrogate, edits=[dict(surrogate["edits"][0], method="SWAP")])
    assert cross_patient_rate([(a, swapped), (b, {"status": "ok", "deid_text": "Patient X seen."})])["docs_with_foreign_phi"] == 1


def test_classification_and_cluster_on_generated(small_records):
    pairs = [(r, {"status": "ok", "deid_text": r["text"]}) for r in small_records]
    cl = classification_f1(pairs)
    assert cl is not None and cl["macro_f1_raw"] == cl["macro_f1_sanitized"] and cl["macro_f1_raw"] > 0.3
    sc = same_cluster_share(pairs)
    assert sc["share"] == 1.0  # identical text falls in the same cluster
    garbled = [(r, {"status": "ok", "deid_text": "lorem ipsum dolor " * 5}) for r in small_records]
    assert classification_f1(garbled)["macro_f1_sanitized"] < cl["macro_f1_raw"]


def test_classification_keeps_copies_of_a_text_in_one_fold():
    # Texts without any word shared with their label: only a copy of the same text
    # in the training folds could tell the label (memory, not utility). mtsamples
    # files one transcription under several ids.
    rng = random.Random(0)
    vocab = [f"w{i}" for i in range(3000)]
    records = []
    for i in range(90):
        text = " ".join(rng.sample(vocab, 30))
        for copy in range(3):
            records.append({"id": f"{i}-{copy}", "label": "abc"[i % 3], "text": text})
    pairs = [(r, {"status": "ok", "deid_text": r["text"]}) for r in records]
    cl = classification_f1(pairs)
    assert cl["n_docs"] == 270 and cl["n_texts"] == 90 and cl["n_folds"] == 5
    assert cl["macro_f1_raw"] < 0.6  # chance is 1/3; a split that separates copies scores ~1


def test_evaluate_files_and_report(tmp_path, small_corpus, small_records):
    outs = []
    for r in small_records:
        edits = [{"start": s["start"], "end": s["end"], "label": "PHI", "replacement": "[X]"} for s in r["spans"][::2]]
        text = r["text"]
        for e in sorted(edits, key=lambda e: -e["start"]):
            text = text[: e["start"]] + "[X]" + text[e["end"] :]
        outs.append({"id": r["id"], "status": "ok", "deid_text": text, "edits": edits})
    outs.append({"id": 999999, "line": 999, "status": "error", "error": "bad"})
    san = tmp_path / "san.jsonl"
    san.write_text("\n".join(json.dumps(o) for o in outs) + "\n")
    m = evaluate_files(small_corpus, san, classify=False)
    assert m["n_docs"] == len(small_records) and m["n_error_records"] == 1
    leak = m["privacy"]["leakage_all"]["leak_rate"]
    assert 0.2 < leak < 0.8  # every other span masked
    assert m["utility"]["non_phi"]["kept_share"] == 1.0
    pairs, _ = load_pairs(small_corpus, san)
    points = [{"series": "k", "setting": "k=2", "leak_rate": 0.1, "kept_share": 0.9}, {"series": "k", "setting": "k=5", "leak_rate": 0.05, "kept_share": 0.8}]
    path = write_report(m, tmp_path / "rep", pairs=pairs, sweep_points=points)
    page = path.read_text()
    assert "LOCAL REVIEW ONLY" not in page and "tradeoff.png" in page and "[PHI]" in page
    # shareable by default: no original text of an edited span, whatever n_examples
    path = write_report(m, tmp_path / "all", pairs=pairs, n_examples=len(pairs))
    page = path.read_text()
    shared = "".join(o["deid_text"] for _, o in pairs)  # what the sanitised output shows anyway
    edited = {r["text"][e["start"]:e["end"]] for r, o in pairs for e in o["edits"]}
    assert not [t for t in edited if t not in shared and html.escape(t) in page]
    words = {w for r, _ in pairs[:len(pairs)] for w in r["text"].split() if w.isalpha() and len(w) > 5}
    examples = page.split("<h2>Examples</h2>", 1)[1].split("</p>", 1)[1].split("<h2>", 1)[0]
    shown = set(re.findall(r"[A-Za-z]+", examples))
    assert words and examples.strip() and not words & shown  # not even the words the pipeline kept
    # --show-original: a banner, the original text, owner-only file
    path = write_report(m, tmp_path / "orig", pairs=pairs, n_examples=2, show_original=True)
    page = path.read_text()
    assert "LOCAL REVIEW ONLY" in page
    assert html.escape(pairs[0][0]["text"][pairs[0][1]["edits"][0]["start"]:pairs[0][1]["edits"][0]["end"]]) in page
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    with pytest.raises(ValueError):
        write_report(m, tmp_path / "neg", pairs=pairs, n_examples=-1)
    for f in ("metrics.json", "leakage.png", "tradeoff.png"):
        assert (tmp_path / "rep" / f).stat().st_size > 0
    assert json.loads((tmp_path / "rep" / "metrics.json").read_text())["tradeoff"][1]["setting"] == "k=5"


def test_parse_grid():
    assert parse_grid(["components.frequency_masker.k=2,3", "x.mode=mask,remove"]) == {"components.frequency_masker.k": [2, 3], "x.mode": ["mask", "remove"]}


def test_split_by_patient_keeps_patients_whole(small_records):
    from spacy_deid.io.splits import split_by_patient

    parts = split_by_patient(small_records, [("train", 100), ("dev", 50), ("test", 0)], seed=1)
    assert sum(len(v) for v in parts.values()) == len(small_records)
    pids = {name: {r["patient_id"] for r in recs} for name, recs in parts.items()}
    assert not (pids["train"] & pids["dev"]) and not (pids["train"] & pids["test"]) and not (pids["dev"] & pids["test"])
    assert len(parts["train"]) >= 100 and len(parts["dev"]) >= 50
    assert split_by_patient(small_records, [("a", 10), ("b", 0)], seed=1) == split_by_patient(small_records, [("a", 10), ("b", 0)], seed=1)


def test_sweep_fits_on_the_fit_corpus_and_scores_the_first_records(tmp_path):
    """Counts over the whole corpus make fewer items rare than counts over the
    scored sample, so fitting on the whole corpus can only keep more text."""
    from pathlib import Path

    from spacy_deid.eval.sweep import run_sweep
    from spacy_deid.io.records import write_jsonl_atomic
    from spacy_deid.synth import generate_records

    corpus = tmp_path / "c.jsonl"
    write_jsonl_atomic(corpus, list(generate_records(40, 10, seed=3)))
    config = Path(__file__).resolve().parent.parent / "spacy_deid" / "configs" / "frequency.cfg"
    grid = {"components.frequency_masker.k": [3]}
    own = run_sweep(config, corpus, grid, limit=10)
    full = run_sweep(config, corpus, grid, limit=10, fit_corpus=corpus)
    assert own[0]["n_docs"] == full[0]["n_docs"] == 10
    assert full[0]["kept_share"] > own[0]["kept_share"]


def test_report_escapes_everything(tmp_path):
    text = "Pt <script>alert(1)</script> & Dr <b>Zed</b> seen"
    start = text.index("Dr <b>Zed</b>")
    gold = {"id": "<i>x</i>", "text": text}
    out = {"id": "<i>x</i>", "status": "ok", "deid_text": text[:start] + "[NAME] seen", "edits": [
        {"start": start, "end": start + len("Dr <b>Zed</b>"), "label": "<u>PATTERN</u>", "category": "<u>NAME</u>"}]}
    metrics = {"n_docs": 1, "n_error_records": 0, "gold": "<g>", "sanitized": "<s>", "utility": {"non_phi": {"kept_share": 1.0}}}
    for show in (False, True):
        page = write_report(metrics, tmp_path / str(show), pairs=[(gold, out)], show_original=show).read_text()
        for raw in ("<script>", "<b>Zed", "<u>", "<i>x", "<g>", "<s>"):
            assert raw not in page
        assert ("Zed" in page) is show


def test_examples_original_shows_before_and_after(tmp_path):
    from typer.testing import CliRunner

    from spacy_deid.cli import app

    text = "Seen by Dr Quimby on 03/14/2021 for chest pain."
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"id": "n1", "text": text}) + "\n")
    after = "Seen by Dr Aldana on 04/02/2021 for chest pain."
    san = tmp_path / "san.jsonl"
    san.write_text(json.dumps({"id": "n1", "status": "ok", "deid_text": after, "edits": [
        {"start": 11, "end": 17, "category": "NAME", "replacement": "Aldana"},
        {"start": 21, "end": 31, "category": "DATE", "replacement": "04/02/2021"}]}) + "\n")
    runner = CliRunner()
    res = runner.invoke(app, ["evaluate", str(gold), str(san), "--report", str(tmp_path / "o"), "--no-classify", "--examples", "original"])
    assert res.exit_code == 0, res.output
    page = (tmp_path / "o" / "report.html").read_text()
    before_html, after_html = page.split("before (edits highlighted)", 1)[1].split("after (sanitised)", 1)
    assert "Quimby" in before_html and "Quimby" not in after_html and after in after_html
    assert "LOCAL REVIEW ONLY" in page
    res = runner.invoke(app, ["evaluate", str(gold), str(san), "--report", str(tmp_path / "s"), "--no-classify"])
    page = (tmp_path / "s" / "report.html").read_text()
    assert res.exit_code == 0 and "Quimby" not in page and "Aldana" not in page and "[NAME]" in page
    res = runner.invoke(app, ["evaluate", str(gold), str(san), "--report", str(tmp_path / "b"), "--examples", "raw"])
    assert res.exit_code != 0 and "--examples" in res.output


def test_cli_refuses_negative_n_examples(tmp_path, small_corpus):
    from typer.testing import CliRunner

    from spacy_deid.cli import app

    san = tmp_path / "san.jsonl"
    san.write_text("")
    res = CliRunner().invoke(app, ["evaluate", str(small_corpus), str(san), "--report", str(tmp_path / "r"), "--n-examples", "-1"])
    assert res.exit_code != 0 and "--n-examples" in res.output
    assert not (tmp_path / "r").exists()
