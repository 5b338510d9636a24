"""Tests for the synthetic clinical-note generator (spacy_deid.synth)."""
import json
import os
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest
import spacy

from spacy_deid.synth import NOTE_TYPES, PHI_LABELS, SPECIALTIES, STYLES, generate_corpus, generate_records
from spacy_deid.synth.generator import recase

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("synth") / "corpus.jsonl"
    stats = generate_corpus(path, 500, 100, seed=0, show_progress=False, style="mixed")
    records = [json.loads(line) for line in path.read_text(encoding="utf8").splitlines()]
    return path, stats, records


def test_same_seed_is_byte_identical_other_seed_differs(tmp_path):
    a, b, c = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    generate_corpus(a, 120, 30, seed=7, show_progress=False)
    generate_corpus(b, 120, 30, seed=7, show_progress=False)
    generate_corpus(c, 120, 30, seed=8, show_progress=False)
    assert a.read_bytes() == b.read_bytes()
    assert a.read_bytes() != c.read_bytes()
    # Only the final files are left: the temp file was moved into place.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl", "b.jsonl", "c.jsonl"]


def test_independent_of_hash_seed():
    """A child process with another PYTHONHASHSEED writes the same records."""
    # The child loads spacy_deid.synth without the package's __init__ (which imports
    # spaCy): the generator needs only Faker, and the test stays fast.
    code = (
        "import json, sys, types; pkg = types.ModuleType('spacy_deid'); "
        f"pkg.__path__ = [{str(REPO / 'spacy_deid')!r}]; sys.modules['spacy_deid'] = pkg; "
        "from spacy_deid.synth import generate_records; "
        "sys.stdout.write(json.dumps(list(generate_records(40, 10, seed=3))))"
    )
    hash_seed = "1" if os.environ.get("PYTHONHASHSEED") != "1" else "2"
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    res = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=True)
    assert json.loads(res.stdout) == list(generate_records(40, 10, seed=3))


def test_record_format(corpus):
    _, _, records = corpus
    assert len(records) == 500
    width = len(records[0]["id"]) - len("note-")
    for i, rec in enumerate(records):
        assert set(rec) == {"id", "patient_id", "note_type", "label", "style", "text", "spans"}
        assert rec["style"] in STYLES
        assert rec["id"] == f"note-{i + 1:0{width}d}"
        assert rec["patient_id"].startswith("pt-")
        assert rec["note_type"] in NOTE_TYPES
        assert rec["label"] in SPECIALTIES
        assert isinstance(rec["text"], str) and rec["text"].strip()


def test_spans_match_text_sorted_and_on_word_boundaries(corpus):
    _, _, records = corpus
    for rec in records:
        text, prev_end = rec["text"], 0
        for sp in rec["spans"]:
            s, e = sp["start"], sp["end"]
            assert set(sp) == {"start", "end", "label", "text"}
            assert sp["label"] in PHI_LABELS
            assert 0 <= s < e <= len(text)
            assert text[s:e] == sp["text"], rec["id"]
            assert s >= prev_end, f"{rec['id']}: overlapping or unsorted spans"
            prev_end = e
            # Never inside a word; punctuation stays outside (a phone may open with "(").
            assert s == 0 or not text[s - 1].isalnum(), (rec["id"], sp)
            assert e == len(text) or not text[e].isalnum(), (rec["id"], sp)
            assert text[s].isalnum() or (text[s] == "(" and sp["label"] in ("PHONE", "FAX")), (rec["id"], sp)
            assert text[e - 1].isalnum(), (rec["id"], sp)


def test_spans_align_with_spacy_tokens(corpus):
    _, _, records = corpus
    nlp = spacy.blank("en")
    # Whole documents for a sample...
    for rec in records[:60]:
        doc = nlp.make_doc(rec["text"])
        for sp in rec["spans"]:
            span = doc.char_span(sp["start"], sp["end"])
            assert span is not None, (rec["id"], sp, rec["text"][max(0, sp["start"] - 20): sp["end"] + 20])
            assert span.text == sp["text"]
    # ...and every span of the corpus in its whitespace-delimited context, which is
    # all spaCy's tokenizer looks at (it splits on whitespace first), at a fraction of the cost.
    for rec in records:
        text = rec["text"]
        for sp in rec["spans"]:
            lo = max(text.rfind(" ", 0, sp["start"]), text.rfind("\n", 0, sp["start"])) + 1
            his = [i for i in (text.find(" ", sp["end"]), text.find("\n", sp["end"])) if i >= 0]
            hi = min(his) if his else len(text)
            doc = nlp.make_doc(text[lo:hi])
            assert doc.char_span(sp["start"] - lo, sp["end"] - lo) is not None, (rec["id"], sp, text[lo:hi])


def test_every_phi_label_occurs(corpus):
    _, stats, records = corpus
    counts = Counter(sp["label"] for rec in records for sp in rec["spans"])
    missing = [lab for lab in PHI_LABELS if counts[lab] == 0]
    assert not missing, f"labels never generated: {missing}"
    assert len(PHI_LABELS) == 23


def test_note_types_and_specialties(corpus):
    _, _, records = corpus
    types = Counter(rec["note_type"] for rec in records)
    assert len(NOTE_TYPES) >= 6 and set(types) == set(NOTE_TYPES)
    specs = Counter(rec["label"] for rec in records)
    assert len(specs) >= 8
    assert all(rec["label"] == "Radiology" for rec in records if rec["note_type"] == "radiology_report")


def test_note_lengths(corpus):
    _, _, records = corpus
    by_type = defaultdict(list)
    for rec in records:
        by_type[rec["note_type"]].append(len(rec["text"].split()))
    for note_type, lengths in by_type.items():
        lengths.sort()
        median = lengths[len(lengths) // 2]
        if note_type == "icu_nursing_note":  # telegraphic: shorter
            assert 100 <= median <= 400 and lengths[0] >= 50, (note_type, median, lengths[0])
            continue
        assert 150 <= median <= 600, (note_type, median)
        assert lengths[0] >= 80 and lengths[-1] <= 800, (note_type, lengths[0], lengths[-1])


def test_patients_distribution_and_name_recurrence(corpus):
    _, _, records = corpus
    notes_per_patient = Counter(rec["patient_id"] for rec in records)
    assert len(notes_per_patient) == 100
    assert min(notes_per_patient.values()) >= 1
    assert max(notes_per_patient.values()) >= 3 * (500 / 100) * 0.5  # uneven: some patients have many notes
    # A patient's name recurs across that patient's own notes (prose notes and ICU notes
    # give a patient different names: the ICU notes invent theirs).
    names = defaultdict(list)  # (patient_id, prose?) -> list of sets of name tokens per note
    for rec in records:
        toks = {t.strip(",").lower() for sp in rec["spans"] if sp["label"] == "PATIENT" for t in sp["text"].split()}
        names[rec["patient_id"], rec["style"] == "prose"].append(toks)
    multi = [key for key, notes in names.items() if len(notes) >= 3]
    assert multi
    recurring = 0
    for pid in multi:
        counts = Counter(t for toks in names[pid] for t in toks)
        if counts and counts.most_common(1)[0][1] >= 2:
            recurring += 1
    assert recurring >= 0.9 * len(multi)
    # Doctors come from a shared pool, so some doctor names recur across patients.
    doc_patients = defaultdict(set)
    for rec in records:
        for sp in rec["spans"]:
            if sp["label"] == "DOCTOR":
                doc_patients[sp["text"].split()[-1].lower()].add(rec["patient_id"])
    assert max(len(v) for v in doc_patients.values()) >= 5


def test_summary_stats(corpus):
    path, stats, records = corpus
    assert stats["n_docs"] == 500
    assert stats["n_patients"] == 100
    assert stats["n_spans"] == sum(len(r["spans"]) for r in records)
    assert stats["labels"] == dict(Counter(sp["label"] for r in records for sp in r["spans"]))
    assert stats["note_types"] == dict(Counter(r["note_type"] for r in records))
    assert stats["specialties"] == dict(Counter(r["label"] for r in records))
    assert stats["styles"] == dict(Counter(r["style"] for r in records))


def test_generate_records_matches_file(corpus):
    path, _, records = corpus
    assert list(generate_records(500, 100, seed=0, style="mixed"))[:20] == records[:20]


def test_one_patient_one_note(tmp_path):
    stats = generate_corpus(tmp_path / "x" / "one.jsonl", 1, 1, seed=0, show_progress=False)
    assert stats["n_docs"] == 1 and stats["n_patients"] == 1
    (rec,) = [json.loads(x) for x in (tmp_path / "x" / "one.jsonl").read_text().splitlines()]
    assert rec["patient_id"] == "pt-0001" and rec["spans"]


@pytest.mark.parametrize(
    "n_docs,n_patients,match",
    [(0, 1, "n_docs"), (-5, 1, "n_docs"), (10, 0, "n_patients"), (5, 6, "cannot exceed")],
)
def test_invalid_arguments(tmp_path, n_docs, n_patients, match):
    with pytest.raises(ValueError, match=match):
        generate_records(n_docs, n_patients)
    with pytest.raises(ValueError, match=match):
        generate_corpus(tmp_path / "bad.jsonl", n_docs, n_patients, show_progress=False)
    assert not list(tmp_path.iterdir())


# ---- styles -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def icu_records():
    return {style: list(generate_records(150, 40, seed=5, style=style)) for style in ("upper", "lower")}


@pytest.mark.parametrize("style", ["prose", "upper", "lower", "mixed"])
def test_style_is_deterministic_per_seed(style):
    a = list(generate_records(30, 10, seed=11, style=style))
    b = list(generate_records(30, 10, seed=11, style=style))
    c = list(generate_records(30, 10, seed=12, style=style))
    assert a == b and a != c
    if style != "mixed":
        assert {r["style"] for r in a} == {style}


def test_prose_is_unchanged_by_the_style_option():
    plain = [{k: v for k, v in r.items() if k != "style"} for r in generate_records(20, 5, seed=2)]
    assert plain == [{k: v for k, v in r.items() if k != "style"} for r in generate_records(20, 5, seed=2, style="prose")]


def test_mixed_draws_every_style(corpus):
    _, _, records = corpus
    styles = Counter(r["style"] for r in records)
    assert set(styles) == set(STYLES)
    assert min(styles.values()) >= 0.15 * len(records) and styles["prose"] >= 0.4 * len(records)
    assert all((r["note_type"] == "icu_nursing_note") == (r["style"] != "prose") for r in records)


def test_case_of_each_style(icu_records):
    for style, recs in icu_records.items():
        for rec in recs:
            text = rec["text"]
            assert text == (text.upper() if style == "upper" else text.lower()), rec["id"]
            for sp in rec["spans"]:
                assert text[sp["start"]:sp["end"]] == sp["text"]


def test_icu_spans_exact_and_token_aligned(icu_records):
    nlp = spacy.blank("en")
    for recs in icu_records.values():
        for rec in recs:
            doc = nlp.make_doc(rec["text"])
            prev = 0
            for sp in rec["spans"]:
                assert sp["label"] in PHI_LABELS
                assert sp["start"] >= prev
                prev = sp["end"]
                span = doc.char_span(sp["start"], sp["end"])
                assert span is not None and span.text == sp["text"], (rec["id"], sp)


def _contexts(recs, label, before=25):
    out = []
    for rec in recs:
        for sp in rec["spans"]:
            if sp["label"] == label:
                out.append((rec["text"][max(0, sp["start"] - before):sp["start"]].lower(), sp["text"].lower(),
                            rec["text"][sp["end"]:sp["end"] + 20].lower()))
    return out


def test_icu_forms_present(icu_records):
    import re

    recs = icu_records["lower"]
    docs = _contexts(recs, "DOCTOR")
    assert any(b.endswith("dr ") and a.startswith(" aware") for b, _, a in docs)
    assert any(a.startswith(", rn") for _, _, a in docs)
    assert any(b.endswith("np ") and a.startswith(" made aware") for b, _, a in docs)
    assert any(b.endswith("talked with ") and a.startswith(" from ") for b, _, a in docs)
    rels = _contexts(recs, "PATIENT")
    for rel in ("wife ", "daughter ", "son "):
        assert any(b.endswith(rel) for b, _, _ in rels), rel
    assert any(a.startswith(" lives in ") for _, _, a in rels)
    common = {w.lower() for w in ("green", "small", "rose", "pat", "may", "grace", "mark", "will", "hope", "frank")}
    assert sum(t in common or t.split()[0] in common for _, t, _ in docs + rels) >= 10
    hosps = _contexts(recs, "HOSPITAL")
    for lead in ("transfer to ", "followed at ", "went to ", "arrived from "):
        assert any(b.endswith(lead) for b, _, _ in hosps), lead
    assert any(len(t) <= 4 and " " not in t for _, t, _ in hosps)  # abbreviations
    assert _contexts(recs, "WARD")
    dates = [t for _, t, _ in _contexts(recs, "DATE")]
    assert any(re.fullmatch(r"\d{1,2}-\d{1,2}-\d\d", t) for t in dates)
    assert any(re.fullmatch(r"\d{1,2}/\d{1,2}", t) for t in dates)
    assert any(re.fullmatch(r"[a-z]+ of \d{4}", t) for t in dates)
    assert any(re.fullmatch(r"[a-z]+ \d{1,2}", t) for t in dates)  # lower-case month names
    years = _contexts(recs, "DATE", before=1)
    assert any(b == "'" and re.fullmatch(r"\d\d", t) for b, t, _ in years)
    assert any(a.startswith("'") and re.fullmatch(r"\d\d", t) for _, t, a in years)
    phones = _contexts(recs, "PHONE")
    assert any(re.search(r" x\d+$", t) for _, t, _ in phones)
    assert any(b.endswith(("pager #", "pager ", "pg ", "beeper ", "beeper #")) for b, _, _ in phones)
    ages = [int(t) for _, t, _ in _contexts(recs, "AGE")]
    assert sum(a >= 90 for a in ages) >= 0.15 * len(ages)


def test_icu_names_are_invented():
    """Names of the ICU notes come from the generator's syllables, not Faker's name lists."""
    from faker import Faker

    from spacy_deid.synth import vocab as V

    prov = Faker("en_US").provider("faker.providers.person")
    real = {n.lower() for n in list(prov.first_names) + list(prov.last_names)}
    allowed = {w.lower() for w in V.COMMON_WORD_FIRST_F + V.COMMON_WORD_FIRST_M + V.COMMON_WORD_SURNAMES}
    words = set()
    for rec in generate_records(80, 20, seed=3, style="lower"):
        for sp in rec["spans"]:
            if sp["label"] in ("PATIENT", "DOCTOR"):
                words.update(w.strip(".,") for w in sp["text"].split() if len(w.strip(".,")) > 2)
    assert len(words) > 50
    leaked = (words & real) - allowed
    assert len(leaked) <= 0.03 * len(words), sorted(leaked)


def test_apply_case_keeps_offsets():
    text = "Straße Dr. Green, ﬁle"
    for style in ("upper", "lower"):
        out = recase(text, style)
        assert len(out) == len(text)
        assert out.startswith("STRA" if style == "upper" else "stra")
    assert recase(text, "prose") == text


def test_invalid_style():
    with pytest.raises(ValueError, match="style"):
        generate_records(5, 2, style="shouty")


def test_generate_cli_style(tmp_path):
    from typer.testing import CliRunner

    from spacy_deid.cli import app

    out = tmp_path / "g.jsonl"
    res = CliRunner().invoke(app, ["generate", str(out), "--n-docs", "6", "--n-patients", "3", "--style", "upper"])
    assert res.exit_code == 0, res.output
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert {r["style"] for r in recs} == {"upper"} and all(r["text"].isupper() for r in recs)
    res = CliRunner().invoke(app, ["generate", str(out), "--n-docs", "6", "--n-patients", "3", "--style", "bad"])
    assert res.exit_code != 0
