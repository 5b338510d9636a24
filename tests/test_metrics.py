"""spacy_deid.eval.metrics: small, exact cases."""
import pytest

from spacy_deid.eval.metrics import evaluate_pairs, join_by_id, pair_counts, survives, tokens

TEXT = "Seen by John Smith on 01/02/2020 at Mercy."
#       0123456789012345678901234567890123456789012
GOLD = {
    "id": "a",
    "text": TEXT,
    "spans": [
        {"start": 8, "end": 18, "label": "PATIENT"},  # John Smith
        {"start": 22, "end": 32, "label": "DATE"},  # 01/02/2020
        {"start": 36, "end": 41, "label": "HOSPITAL"},  # Mercy
    ],
}


def out(edits, deid_text, status="ok"):
    return {"id": "a", "status": status, "edits": edits, "deid_text": deid_text}


def test_tokens_are_word_runs():
    assert tokens("Dr. O'Neil, 5mg") == [(0, 2), (4, 5), (6, 10), (12, 15)]


def test_survives_rules():
    text = "John Smith"
    edits = [{"start": 0, "end": 4, "replacement": "[X]"}]
    assert not survives(0, 4, text, edits)  # fully covered
    assert survives(5, 10, text, edits)  # not covered
    assert survives(0, 4, text, [{"start": 0, "end": 2, "replacement": "[X]"}])  # partly covered
    assert survives(0, 4, text, [{"start": 0, "end": 10, "replacement": "john Doe"}])  # drawn back
    assert not survives(0, 4, text, [{"start": 0, "end": 10, "replacement": "Johnson"}])  # not as a word
    two = [{"start": 0, "end": 2, "replacement": "a"}, {"start": 2, "end": 5, "replacement": "b"}]
    assert not survives(0, 4, text, two)  # covered by two edits


def test_leakage_per_label_exact():
    # John masked, Smith kept; the date masked; Mercy masked but "Mercy" appears elsewhere
    edits = [
        {"start": 8, "end": 12, "label": "LOW_FREQ", "replacement": "[LOW_FREQ]"},
        {"start": 22, "end": 32, "label": "PHI", "replacement": "[DATE]"},
        {"start": 36, "end": 41, "label": "LOW_FREQ", "replacement": "[X]"},
    ]
    deid = "Seen by [LOW_FREQ] Smith on [DATE] at [X]. Mercy"
    c = pair_counts(GOLD, out(edits, deid)).as_dict()
    assert c["phi"]["PATIENT"] == {"n": 2, "leaked": 1, "leak_rate": 0.5, "leaked_anywhere": 1, "anywhere_rate": 0.5}
    assert c["phi"]["DATE"]["n"] == 3 and c["phi"]["DATE"]["leaked"] == 0
    assert c["phi"]["HOSPITAL"] == {"n": 1, "leaked": 0, "leak_rate": 0.0, "leaked_anywhere": 1, "anywhere_rate": 1.0}
    assert c["phi_all"]["n"] == 6 and c["phi_all"]["leaked"] == 1 and c["phi_all"]["leaked_anywhere"] == 2
    # non-PHI: Seen, by, on, at -> all kept
    assert c["non_phi"] == {"n": 4, "kept": 4, "kept_share": 1.0, "over_masking": 0.0}


def test_non_phi_kept_share_and_min_chars():
    edits = [{"start": 0, "end": 4, "label": "LOW_FREQ", "replacement": "[M]"}]  # "Seen" masked
    c = pair_counts(GOLD, out(edits, "[M] by John Smith on 01/02/2020 at Mercy.")).as_dict()
    assert c["non_phi"]["kept"] == 3 and c["non_phi"]["kept_share"] == pytest.approx(0.75)
    assert c["phi_all"]["leaked"] == 6
    # "01" and "02" are shorter than 3 characters: left out of the anywhere count only
    c3 = pair_counts(GOLD, out(edits, "[M] by John Smith on 01/02/2020 at Mercy."), min_chars=3).as_dict()
    assert c3["phi_all"]["leaked_anywhere"] == 4 and c3["phi_all"]["leaked"] == 6


def test_evaluate_pairs_sums_and_skips_errors():
    nothing = out([], TEXT)
    all_masked = out([{"start": 0, "end": len(TEXT) - 1, "label": "X", "replacement": "[M]"}], "[M].")
    failed = out([], "", status="error")
    rep = evaluate_pairs([(GOLD, nothing), (GOLD, all_masked), (GOLD, failed)])
    assert rep["n_docs"] == 2 and rep["n_errors"] == 1
    assert rep["phi_all"]["n"] == 12 and rep["phi_all"]["leaked"] == 6
    assert rep["non_phi"]["n"] == 8 and rep["non_phi"]["kept"] == 4
    assert set(rep["phi"]) == {"PATIENT", "DATE", "HOSPITAL"}


def test_no_spans_gives_over_masking():
    gold = {"id": "b", "text": "a b c d"}
    rep = evaluate_pairs([(gold, out([{"start": 0, "end": 1, "replacement": "[M]"}], "[M] b c d"))])
    assert rep["phi_all"]["n"] == 0 and rep["phi"] == {}
    assert rep["non_phi"]["over_masking"] == pytest.approx(0.25)


def test_nested_gold_spans():
    gold = {"id": "c", "text": "x Mercy General y", "spans": [
        {"start": 2, "end": 15, "label": "HOSPITAL"}, {"start": 8, "end": 15, "label": "CITY"}]}
    c = pair_counts(gold, out([], gold["text"])).as_dict()
    assert c["phi_all"]["n"] == 2 and c["non_phi"]["n"] == 2


def test_join_by_id():
    g = [{"id": 1}, {"id": 2}]
    o = [{"id": 2, "x": 1}, {"id": 1, "x": 0}, {"id": 3}]
    assert [p[1]["x"] for p in join_by_id(g, o)] == [0, 1]
    with pytest.raises(KeyError):
        join_by_id([{"id": 9}], o)


# ---- standard detection scores (token level, entity level with nervaluate)
# GOLD: John Smith (PATIENT -> NAME, 2 tokens), 01/02/2020 (DATE, 3 tokens), Mercy (HOSPITAL -> ORGANIZATION)


def test_token_scores_binary_and_per_category():
    from spacy_deid.eval.metrics import token_scores

    edits = [
        {"start": 8, "end": 18, "category": "NAME"},  # John Smith: right
        {"start": 22, "end": 27, "category": "ID"},  # 01/02 of the date, wrong category
        {"start": 0, "end": 4, "category": "OTHER"},  # "Seen": a false positive
        {"start": 33, "end": 35, "category": None},  # "at" resampled: predicts nothing
    ]
    s = token_scores([(GOLD, out(edits, "x"))])
    b = s["binary"]
    # gold PHI tokens 6; predicted tokens: Seen, John, Smith, 01, 02 = 5; TP (any category) 4
    assert (b["gold"], b["predicted"], b["tp"]) == (6, 5, 4)
    assert b["precision"] == pytest.approx(4 / 5) and b["recall"] == pytest.approx(4 / 6)
    assert b["f1"] == pytest.approx(2 * 0.8 * (4 / 6) / (0.8 + 4 / 6))
    cats = s["categories"]
    assert cats["NAME"]["precision"] == 1.0 and cats["NAME"]["recall"] == 1.0
    assert cats["DATE"]["tp"] == 0 and cats["DATE"]["gold"] == 3 and cats["DATE"]["recall"] == 0.0
    assert cats["ID"]["predicted"] == 2 and cats["ID"]["precision"] == 0.0
    assert cats["ORGANIZATION"]["gold"] == 1 and cats["ORGANIZATION"]["recall"] == 0.0
    assert cats["OTHER"]["predicted"] == 1 and cats["OTHER"]["gold"] == 0


def test_entity_scores_strict_exact_partial_type():
    from spacy_deid.eval.metrics import entity_scores

    edits = [
        {"start": 8, "end": 18, "category": "NAME"},  # exact boundaries, right category
        {"start": 22, "end": 32, "category": "ID"},  # exact boundaries, wrong category
        {"start": 36, "end": 39, "category": "ORGANIZATION"},  # "Mer": overlaps, right category
    ]
    s = entity_scores([(GOLD, out(edits, "x"))])["overall"]
    assert s["strict"]["correct"] == 1 and s["strict"]["precision"] == pytest.approx(1 / 3)
    assert s["exact"]["correct"] == 2 and s["exact"]["recall"] == pytest.approx(2 / 3)
    assert s["ent_type"]["correct"] == 2  # NAME and the overlapping ORGANIZATION
    assert s["partial"]["correct"] == 2 and s["partial"]["partial"] == 1
    assert s["partial"]["precision"] == pytest.approx((2 + 0.5) / 3)


def test_adjacent_spans_do_not_overlap_and_errors_are_skipped():
    from spacy_deid.eval.metrics import entity_scores

    gold = {"id": "d", "text": "AB", "spans": [{"start": 0, "end": 1, "label": "ID"}]}
    # predicted [1, 2) touches the gold span [0, 1) but does not overlap it
    s = entity_scores([(gold, out([{"start": 1, "end": 2, "category": "ID"}], "x")),
                       (gold, out([], "", status="error"))])["overall"]
    assert s["partial"]["correct"] == 0 and s["partial"]["partial"] == 0
    assert s["partial"]["missed"] == 1 and s["partial"]["spurious"] == 1


def test_evaluate_files_stamps_version_definitions_and_detection(tmp_path):
    import json

    from spacy_deid.about import __version__
    from spacy_deid.eval.report import evaluate_files, write_report

    gold_path, out_path = tmp_path / "gold.jsonl", tmp_path / "out.jsonl"
    gold_path.write_text(json.dumps(GOLD) + "\n")
    edits = [{"start": 8, "end": 18, "category": "NAME", "reason": "NER", "method": "SURROGATE"}]
    out_path.write_text(json.dumps(out(edits, "Seen by Ann Lee on 01/02/2020 at Mercy.")) + "\n")
    metrics = evaluate_files(gold_path, out_path, classify=False)
    assert metrics["stamp"]["spacy_deid_version"] == __version__
    assert "entity strict" in metrics["definitions"]
    assert metrics["detection"]["token"]["categories"]["NAME"]["f1"] == 1.0
    assert metrics["detection"]["entity"]["overall"]["strict"]["correct"] == 1
    page = write_report(metrics, tmp_path / "report").read_text()
    assert "Detection, token level" in page and "Definitions" in page and __version__ in page
    assert (tmp_path / "report" / "detection.png").is_file()
