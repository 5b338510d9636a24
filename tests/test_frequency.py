"""frequency_masker: item kinds, counting units, threshold choice, term lists,
confidence list, output modes, PHI entities, serialisation, privacy of the saved
pipeline, bad input, config."""
import pickle
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
import spacy
import srsly
from spacy.language import Language
from spacy.tokens import Span

import spacy_deid  # noqa: F401
from spacy_deid.edits import get_edits
from spacy_deid.stats.counts import ConfidenceList, DistinctCounter
from spacy_deid.stats.items import ItemExtractor, full_shape, light_stem
from spacy_deid.util import make_doc

ROOT = Path(__file__).resolve().parent.parent


def rec(i, text, patient=None):
    r = {"id": f"r{i}", "text": text}
    if patient is not None:
        r["patient_id"] = patient
    return r


def fitted(records, config=None, **init_kwargs):
    nlp = spacy.blank("en")
    fm = nlp.add_pipe("frequency_masker", config=config or {})
    fm.initialize(nlp=nlp, corpus=lambda: iter(records), **init_kwargs)
    return nlp, fm


def masked_words(nlp, text):
    doc = nlp(text)
    flags = [False] * len(doc)
    for span in get_edits(doc):
        for i in range(span.start, span.end):
            flags[i] = True
    return [t.text for t, f in zip(doc, flags) if f]


# 6 patients share the common words; each patient has one private word
BASE = [rec(i, f"Patient stable today. Seen by Dr. Smith. Code{i % 6} noted.", f"p{i % 6}") for i in range(18)]


# ---------------------------------------------------------------- registration
def test_import_registers_factory():
    assert "frequency_masker" in Language.factories
    from importlib.metadata import entry_points

    eps = {ep.name: ep.value for ep in entry_points(group="spacy_factories")}
    assert eps.get("frequency_masker") == "spacy_deid.components.frequency_masker:make_frequency_masker"


def test_not_initialized_is_a_clear_error():
    nlp = spacy.blank("en")
    nlp.add_pipe("frequency_masker")
    with pytest.raises(ValueError, match="not initialized"):
        nlp("hello")


def test_bad_config_values():
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match="Unknown frequency item kind"):
        nlp.add_pipe("frequency_masker", config={"kinds": ["words"]})
    with pytest.raises(ValueError, match="mode"):
        nlp.add_pipe("frequency_masker", name="b", config={"mode": "blur"})
    with pytest.raises(ValueError, match="placeholder"):
        nlp.add_pipe("frequency_masker", name="c", config={"placeholder": "[{name}]"})
    with pytest.raises(ValueError, match="keep_fraction"):
        nlp.add_pipe("frequency_masker", name="d", config={"keep_fraction": 1.5})


# ---------------------------------------------------------------- item kinds
def test_text_kind_case_folding():
    records = [rec(i, "Alpha beta" if i % 2 else "ALPHA Beta", f"p{i}") for i in range(6)]
    nlp, _ = fitted(records, {"k": 4})
    assert masked_words(nlp, "alpha BETA gamma") == ["gamma"]
    nlp, _ = fitted(records, {"k": 4, "case_fold": False})
    # case-sensitive: each spelling is in only 3 patients
    assert masked_words(nlp, "Alpha beta") == ["Alpha", "beta"]


def test_rare_word_masked_frequent_kept_punct_kept():
    nlp, fm = fitted(BASE, {"k": 3})
    doc = nlp("Seen by Dr. Smith. Code1 noted. Zyx99 today!")
    # Code1 is in one patient's notes only (3 notes): rare by patient
    assert doc._.deid_text == "Seen by Dr. Smith. [LOW_FREQ] noted. [LOW_FREQ] today!"
    assert fm.k == 3 and fm.stats["n_units"] == 6


def test_a_middle_initial_between_rare_words_goes_with_them():
    nlp, fm = fitted(BASE + [rec(99 + j, "c x a i", f"p{j}") for j in range(6)], {"k": 3})
    # "c" is a common letter of the corpus; between two rare names it is an initial
    assert masked_words(nlp, "Seen by Fredrik c Sommerseth today.") == ["Fredrik", "c", "Sommerseth"]
    assert masked_words(nlp, "Seen by Fredrik c. Sommerseth today.") == ["Fredrik", "c.", "Sommerseth"]
    # not over a line break, nor "x" (times), "a" or "i"
    assert masked_words(nlp, "Seen by Fredrik c\nSommerseth today.") == ["Fredrik", "Sommerseth"]
    assert masked_words(nlp, "Zosyn x Cefepime, Zosyn a Cefepime") == ["Zosyn", "Cefepime", "Zosyn", "Cefepime"]


def test_pattern_kind_masks_rare_word_number_shape():
    records = [rec(i, f"MRN: {100000 + i}. Bed {i}.", f"p{i}") for i in range(8)]
    records += [rec(100, "Ward: 1234567.", "p0")]
    ex = ItemExtractor(["pattern"], pattern_window=2)
    nlp = spacy.blank("en")
    items = ex(nlp.make_doc("MRN: 123456 and 5 mg"))
    spans = [(s[2].tolist(), s[3].tolist()) for s in items.spans]
    # MRN : 123456 (tokens 0-2, right side), 123456 and? no: "and" is a word after a number
    covered = sorted((a, b) for st, en in spans for a, b in zip(st, en))
    assert (0, 3) in covered  # MRN + ':' + 123456
    assert (4, 6) in covered  # 5 mg (left side of "mg")
    nlp, _ = fitted(records, {"k": 3, "kinds": ["pattern"]})
    # "MRN: dddddd" is frequent: pattern keeps it (the number alone is for the text kind)
    assert masked_words(nlp, "MRN: 654321.") == []
    doc = nlp("Ward: 7654321.")
    # punctuation is never masked: two edits around the colon
    assert [(e.label_, e.text) for e in get_edits(doc)] == [("PATTERN", "Ward"), ("PATTERN", "7654321")]
    assert doc._.deid_text == "[PATTERN]: [PATTERN]."


def test_full_shape_keeps_lengths():
    assert full_shape("123456") == "dddddd"
    assert full_shape("A1-b") == "Xd-x"


def test_ngram_kind_masks_rare_word_string():
    records = [rec(i, "chest pain and shortness of breath", f"p{i}") for i in range(5)]
    records += [rec(9, "pain chest", "p9")]
    nlp, _ = fitted(records, {"k": 3, "kinds": ["text", "ngram"], "ngram_n": 2})
    assert masked_words(nlp, "chest pain") == []
    # every word is frequent, the bigram "pain chest" is not
    assert masked_words(nlp, "pain chest") == ["pain", "chest"]


def test_stem_kind_pools_inflections():
    assert light_stem("studies") == "study"
    assert light_stem("patches") == "patch"
    assert light_stem("notes") == "note"
    assert light_stem("stopped") == "stop"
    assert light_stem("status") == "status"
    assert light_stem("noted") == "noted"  # stem would be 3 letters: left alone
    records = [rec(i, "fracture" if i % 2 else "fractures", f"p{i}") for i in range(6)]
    nlp, _ = fitted(records, {"k": 4, "kinds": ["stem"]})
    assert masked_words(nlp, "fractures fracture") == []
    nlp, _ = fitted(records, {"k": 4, "kinds": ["text"]})
    assert masked_words(nlp, "fractures fracture") == ["fractures", "fracture"]


def test_pos_kind_needs_a_tagger():
    nlp = spacy.blank("en")
    fm = nlp.add_pipe("frequency_masker", config={"kinds": ["text", "pos"]})
    with pytest.raises(ValueError, match="token.pos"):
        fm.initialize(nlp=nlp, corpus=lambda: iter(BASE))
    nlp = spacy.blank("en")
    fm = nlp.add_pipe("frequency_masker", config={"kinds": ["dep"]})
    with pytest.raises(ValueError, match="parser"):
        fm.initialize(nlp=nlp, corpus=lambda: iter(BASE))


def test_pos_kind_separates_syntactic_positions():
    @Language.component("test_fake_tagger", assigns=["token.pos"])
    def fake_tagger(doc):
        for t in doc:  # "report" is a VERB after "to", a NOUN elsewhere
            t.pos_ = "VERB" if t.i and doc[t.i - 1].lower_ == "to" else "NOUN"
        return doc

    records = [rec(i, "the report", f"p{i}") for i in range(5)] + [rec(9, "to report", "p9")]
    nlp = spacy.blank("en")
    nlp.add_pipe("test_fake_tagger")
    fm = nlp.add_pipe("frequency_masker", config={"k": 3, "kinds": ["text", "pos"]})
    fm.initialize(nlp=nlp, corpus=lambda: iter(records))
    assert masked_words(nlp, "the report") == []
    assert masked_words(nlp, "to report") == ["to", "report"]


def test_dep_kind_separates_dependency_labels():
    @Language.component("test_fake_parser", assigns=["token.dep"])
    def fake_parser(doc):
        for t in doc:  # a word is "nsubj" at the start of a doc, "dobj" elsewhere
            t.dep_ = "nsubj" if t.i == 0 else "dobj"
        return doc

    records = [rec(i, "pain stops", f"p{i}") for i in range(5)] + [rec(9, "stops pain", "p9")]
    nlp = spacy.blank("en")
    nlp.add_pipe("test_fake_parser")
    fm = nlp.add_pipe("frequency_masker", config={"k": 3, "kinds": ["dep"]})
    fm.initialize(nlp=nlp, corpus=lambda: iter(records))
    assert masked_words(nlp, "pain stops") == []
    assert masked_words(nlp, "stops pain") == ["stops", "pain"]


# ---------------------------------------------------------------- counting units
def test_counting_units():
    # "Zed" appears 4 times, in 4 documents of 2 patients
    records = [rec(i, "Zed common", "pA" if i < 2 else "pB") for i in range(4)]
    records += [rec(10 + i, "common", f"q{i}") for i in range(4)]
    nlp, _ = fitted(records, {"k": 3, "count_unit": "patient"})
    assert masked_words(nlp, "Zed") == ["Zed"]
    nlp, _ = fitted(records, {"k": 3, "count_unit": "document"})
    assert masked_words(nlp, "Zed") == []
    once = [rec(0, "Zed Zed Zed", "p0")] + [rec(i, "common", f"p{i}") for i in range(1, 4)]
    nlp, _ = fitted(once, {"k": 3, "count_unit": "occurrence"})
    assert masked_words(nlp, "Zed") == []
    nlp, _ = fitted(once, {"k": 3, "count_unit": "document"})
    assert masked_words(nlp, "Zed") == ["Zed"]


def test_distinct_counter_non_contiguous_patients_and_cap():
    c = DistinctCounter("patient", cap=3, flush_size=4)
    k = lambda *xs: np.array(xs, dtype=np.uint64)  # noqa: E731
    for unit, keys in [(0, k(1, 2)), (1, k(1)), (0, k(1, 2)), (2, k(1, 3)), (0, k(2)), (3, k(1)), (1, k(3))]:
        c.add(keys, unit)
    keys, counts = c.result()
    assert dict(zip(keys.tolist(), counts.tolist())) == {1: 3, 2: 1, 3: 2}  # key 1 capped at 3 (4 patients)


def test_too_small_corpus_is_a_clear_error():
    records = [rec(i, "some text", f"p{i % 2}") for i in range(10)]
    with pytest.raises(ValueError, match="2 distinct patients, fewer than k=5"):
        fitted(records, {"k": 5})
    with pytest.raises(ValueError, match="empty"):
        fitted([], {"k": 1})


def test_initialize_needs_a_corpus():
    nlp = spacy.blank("en")
    nlp.add_pipe("frequency_masker")
    with pytest.raises(ValueError, match="needs a corpus"):
        nlp.initialize()


# ---------------------------------------------------------------- threshold
def test_keep_fraction_chooses_largest_k_meeting_it():
    # word w_j appears in j distinct patients (j = 1..10): tokens at count >= k
    records = []
    for p in range(10):
        words = [f"w{j}" for j in range(1, 11) if p < j]
        records.append(rec(p, " ".join(words), f"p{p}"))
    n_total = sum(range(1, 11))  # 55 word tokens
    kept = {k: sum(j for j in range(k, 11)) / n_total for k in range(1, 11)}
    for frac in (0.5, 0.8, 0.95):
        nlp, fm = fitted(records, {"keep_fraction": frac, "k_min": 2, "k_max": 10})
        expected = max(k for k in range(2, 11) if kept[k] >= frac)
        assert fm.k == expected, (frac, fm.k)
        assert fm.stats["kept_share"] == pytest.approx(kept[expected])
        assert fm.stats["k_source"] == "keep_fraction"
    # unreachable: the privacy floor k_min wins
    nlp, fm = fitted(records, {"keep_fraction": 1.0, "k_min": 3, "k_max": 10})
    assert fm.k == 3


# ---------------------------------------------------------------- term lists
def test_whitelist_and_blacklist_tokens_and_phrases():
    nlp, _ = fitted(
        BASE,
        {"k": 3},
        whitelist=["Zyx99", "rare phrase here"],
        blacklist=["Smith", "seen by"],
    )
    doc = nlp("Rare PHRASE here. zyx99. Seen by Dr. Smith today. Qqq.")
    got = [(e.label_, e.text) for e in get_edits(doc)]
    assert got == [("BLACKLIST", "Seen by"), ("BLACKLIST", "Smith"), ("LOW_FREQ", "Qqq")]


# ---------------------------------------------------------------- confidence list
def test_confidence_list_update_and_use(tmp_path):
    state = tmp_path / "conf.json"
    frequent = [rec(i, "Alpha common", f"p{i}") for i in range(4)]
    fitted(frequent, {"k": 3}, confidence_path=str(state))
    data = srsly.read_json(state)
    assert data["n_runs"] == 1
    raw = state.read_text()
    assert "alpha" not in raw.lower() and "common" not in raw.lower()
    assert len(data["items"]) == 2 and set(data["items"].values()) == {1}
    # second run: Alpha is rare now, but it was above k in 100% of earlier runs
    rare_now = [rec(i, "Beta common", f"p{i}") for i in range(4)] + [rec(9, "Alpha", "p9")]
    nlp, _ = fitted(rare_now, {"k": 3, "confidence_min_share": 0.8}, confidence_path=str(state))
    assert masked_words(nlp, "Alpha Beta Gamma") == ["Gamma"]
    data = srsly.read_json(state)
    assert data["n_runs"] == 2
    assert sorted(data["items"].values()) == [1, 1, 2]  # alpha (run 1), beta (run 2), common (both)
    # without the list, Alpha is masked
    nlp, _ = fitted(rare_now, {"k": 3})
    assert masked_words(nlp, "Alpha") == ["Alpha"]
    # the score needs >= min_share: Alpha is at 1/2 after run 2
    third = [rec(i, "common", f"p{i}") for i in range(4)] + [rec(9, "Alpha", "p9")]
    nlp, _ = fitted(third, {"k": 3, "confidence_min_share": 0.8}, confidence_path=str(state))
    assert masked_words(nlp, "Alpha") == ["Alpha"]


def test_confidence_bonus_and_settings_mismatch(tmp_path):
    state = tmp_path / "c.json"
    lst = ConfidenceList(state, {"kinds": ["text"]})
    lst.update(np.array([5, 6], dtype=np.uint64))
    lst.update(np.array([5], dtype=np.uint64))
    lst.save()
    again = ConfidenceList(state, {"kinds": ["text"]})
    assert again.n_runs == 2
    assert again.scores(np.array([5, 6, 7], dtype=np.uint64)).tolist() == [1.0, 0.5, 0.0]
    with pytest.raises(ValueError, match="other item settings"):
        ConfidenceList(state, {"kinds": ["stem"]})
    # bonus: an item at count 2 with score 1.0 and bonus 1 reaches k=3
    state2 = tmp_path / "c2.json"
    fitted([rec(i, "Alpha", f"p{i}") for i in range(4)], {"k": 3}, confidence_path=str(state2))
    records = [rec(0, "Alpha", "p0"), rec(1, "Alpha", "p1"), rec(2, "x", "p2"), rec(3, "y", "p3")]
    cfg = {"k": 3, "confidence_min_share": 2.0, "confidence_bonus": 1.0}
    nlp, _ = fitted(records, cfg, confidence_path=str(state2))
    assert masked_words(nlp, "Alpha") == []


# ---------------------------------------------------------------- output modes, PHI
@pytest.mark.parametrize(
    "config,expected",
    [
        ({}, "Seen by [LOW_FREQ] today. [DATE] ok"),
        ({"placeholder": "[MASK]"}, "Seen by [MASK] today. [MASK] ok"),
        ({"mode": "same_length"}, "Seen by **** **** today. ********** ok"),
        ({"mode": "remove"}, "Seen by  today.  ok"),
    ],
)
def test_output_modes_and_phi_entities(config, expected):
    records = [rec(i, "Seen by today ok", f"p{i}") for i in range(3)]
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("span_ruler", config={"spans_key": None, "annotate_ents": True})
    ruler.add_patterns([{"label": "DATE", "pattern": [{"SHAPE": "dd/dd/dddd"}]}])
    fm = nlp.add_pipe("frequency_masker", config={"k": 3, **config})
    fm.initialize(nlp=nlp, corpus=lambda: iter(records))
    doc = nlp("Seen by Xavi Qorb today. 01/02/2020 ok")
    assert doc._.deid_text == expected
    phi = [e for e in get_edits(doc) if e.label_ == "PHI"]
    assert len(phi) == 1 and phi[0]._.deid_audit["entity"] == "DATE"


def test_phi_entity_wins_over_whitelist():
    nlp, fm = fitted(BASE, {"k": 3}, whitelist=["Smith"])
    doc = nlp.make_doc("Dr. Smith")
    doc.ents = [Span(doc, 1, 2, label="DOCTOR")]
    doc = fm(doc)
    assert doc._.deid_text == "Dr. [DOCTOR]"


# ---------------------------------------------------------------- bad input
def test_bad_input_no_crash():
    nlp, _ = fitted(BASE, {"k": 3, "kinds": ["text", "pattern", "ngram", "stem"]})
    one_mb = "Smith " * 166_666 + "abcd"  # 1,000,000 characters: spaCy's default max_length
    texts = ["", "   ", "\n\n\t", "😀 naïve café 東京 \u200b", "a\x00b\x07c\x1b[0m", one_mb]
    docs = list(nlp.pipe(texts))
    assert len(docs) == len(texts)
    assert docs[0]._.deid_text == "" and docs[1]._.deid_text == "   "
    assert "Smith" not in docs[3]._.deid_text
    # the bigram "smith smith" is rare: the whole document is one masked run
    assert len(docs[5]) == 166_667 and docs[5]._.deid_text == "[LOW_FREQ]"


def test_pipe_isolates_a_failing_doc():
    nlp, fm = fitted(BASE, {"k": 3})
    errors = []
    fm.set_error_handler(lambda name, proc, docs, exc: errors.append(len(docs)))
    docs = [nlp.make_doc("Seen today"), nlp.make_doc("bad"), nlp.make_doc("Qqq")]
    original = fm.decide
    fm.decide = lambda doc: (_ for _ in ()).throw(RuntimeError("boom")) if doc.text == "bad" else original(doc)
    out = list(fm.pipe(docs))
    assert [d.text for d in out] == ["Seen today", "Qqq"] and errors == [1]
    assert [len(get_edits(d)) for d in out] == [0, 1]


# ---------------------------------------------------------------- serialisation and privacy
@pytest.fixture(scope="module")
def fitted_small(small_records):
    nlp = spacy.blank("en")
    fm = nlp.add_pipe("frequency_masker", config={"k": 3})
    fm.initialize(nlp=nlp, corpus=lambda: iter(small_records), blacklist=["Mercy Hospital"])
    return nlp, fm


def test_saved_pipeline_holds_no_phi_and_no_rare_item(fitted_small, small_records, tmp_path):
    """Fit on a generated corpus (module fixture), save, and scan every byte."""
    k = 3
    nlp, fm = fitted_small
    # what must not leak, computed independently: gold PHI values and below-k words
    patients = defaultdict(set)
    tok = spacy.blank("en")
    for r in small_records:
        for t in tok.make_doc(r["text"]):
            if not (t.is_punct or t.is_space):
                patients[t.lower_].add(r["patient_id"])
    rare = {w for w, ps in patients.items() if len(ps) < k}
    phi = {s["text"] for r in small_records for s in r["spans"]}
    assert rare and phi
    # hashes of rare items are not stored either
    rare_hashes = np.array([tok.vocab.strings[w] for w in rare], dtype=np.uint64)
    assert not np.isin(rare_hashes, fm.allowed).any()
    # Strings of 4+ bytes: shorter ones (a 2-digit age, "Li") occur by chance in the
    # binary hash array and in spaCy's own base vocabulary.
    needles = {v.encode("utf-8").lower() for v in phi | rare if len(v.encode("utf-8")) >= 4}
    # Strings already in the bytes of the same pipeline *before* fitting come from
    # spaCy and the config ("adam" of the optimizer, "stem" of stem_source), not from
    # the corpus; they are left out.
    blank = spacy.blank("en")
    blank.add_pipe("frequency_masker", config={"k": k})
    blank.to_disk(tmp_path / "blank")
    baseline = b"\n".join(
        [p.read_bytes() for p in (tmp_path / "blank").rglob("*") if p.is_file()] + [blank.to_bytes(), pickle.dumps(blank)]
    ).lower()
    needles = sorted(n for n in needles if n not in baseline)
    assert len(needles) > 200
    nlp.to_disk(tmp_path / "m")
    blobs = {str(p): p.read_bytes() for p in (tmp_path / "m").rglob("*") if p.is_file()}
    blobs["to_bytes"] = nlp.to_bytes()
    blobs["pickle"] = pickle.dumps(nlp)
    everything = b"\n".join(blob.lower() for blob in blobs.values())  # one scan per needle
    hits = [n for n in needles if n in everything]
    where = {name: [n for n in hits if n in blob.lower()] for name, blob in blobs.items()}
    assert not hits, f"protected strings in the saved pipeline: { {k: len(v) for k, v in where.items() if v} }"


def test_serialization_round_trip(fitted_small, small_records, tmp_path):
    nlp, fm = fitted_small
    text = small_records[0]["text"]
    nlp.to_disk(tmp_path / "m")
    expected_bytes = nlp.to_bytes()
    nlp2 = spacy.load(tmp_path / "m")
    nlp3 = spacy.blank("en")
    nlp3.add_pipe("frequency_masker", config={"k": 3})
    nlp3.from_bytes(expected_bytes)
    nlp4 = pickle.loads(pickle.dumps(nlp))
    with nlp.memory_zone():  # the fixture's vocab must stay free of document strings
        want = nlp(text)._.deid_text
    assert want != text
    for other in (nlp2, nlp3, nlp4):
        assert other(text)._.deid_text == want
        assert other.get_pipe("frequency_masker").k == 3
    assert np.array_equal(nlp2.get_pipe("frequency_masker").allowed, fm.allowed)
    # settings that change the meaning of the keys refuse the saved items
    nlp5 = spacy.blank("en")
    nlp5.add_pipe("frequency_masker", config={"k": 3, "case_fold": False})
    with pytest.raises(ValueError, match="re-fit"):
        nlp5.from_bytes(expected_bytes)


def test_config_init_pipeline_and_load(small_corpus, small_records, tmp_path):
    from spacy_deid.engines.fit import init_pipeline
    from spacy_deid.engines.local import doc_to_output

    out = tmp_path / "pipe"
    init_pipeline(ROOT / "spacy_deid/configs/frequency.cfg", small_corpus, out, overrides={
        "paths.whitelist": str(ROOT / "spacy_deid/assets/whitelist.txt"),
        "paths.blacklist": str(ROOT / "spacy_deid/assets/blacklist.txt"),
        "components.frequency_masker.k": 2,
    })
    nlp = spacy.load(out)
    fm = nlp.get_pipe("frequency_masker")
    assert fm.k == 2 and len(fm.whitelist) > 10
    record = small_records[0]
    output = doc_to_output(nlp(make_doc(nlp, record)), record)
    assert output["status"] == "ok" and output["edits"]
    assert output["deid_text"] != record["text"]


def test_removal_never_creates_a_blacklisted_phrase():
    """mode='remove': dropping a rare word between two words must not leave a
    blacklisted two-word phrase contiguous in the output (found by hypothesis)."""
    import spacy

    corpus = [{"id": str(i), "patient_id": f"p{i}", "text": "section medications given today"} for i in range(4)]
    corpus.append({"id": "x", "patient_id": "px", "text": "section Zyxwvut medications given today"})
    nlp = spacy.blank("en")
    masker = nlp.add_pipe("frequency_masker", config={"k": 2, "mode": "remove"})
    masker.initialize(nlp=nlp, corpus=lambda: iter(corpus), blacklist=["section medications"])
    out = nlp("section Zyxwvut medications given today")._.deid_text
    words = out.lower().split()
    assert "zyxwvut" not in words
    assert not any(a == "section" and b == "medications" for a, b in zip(words, words[1:])), out
    assert "given today" in out


def test_common_words_are_never_rare():
    """With common_min_zipf, ordinary English and clinical words are kept however
    rare in the corpus; names and unknown tokens are still masked."""
    records = [rec(i, "Patient stable today.", f"p{i}") for i in range(6)]
    text = "Patient with nausea, incision dressing dry; John Kowalczyk seen, TIA ruled out, code zq7x."
    nlp, fm = fitted(records, {"k": 3})
    assert {"nausea", "incision", "John"} <= set(masked_words(nlp, text))
    nlp, fm = fitted(records, {"k": 3, "common_min_zipf": 3.0})
    masked = masked_words(nlp, text)
    assert not {"nausea", "incision", "dressing", "TIA"} & set(masked)
    assert {"John", "Kowalczyk", "zq7x"} <= set(masked)
    assert fm.stats["n_common_words"] > 10000
    # upper case text: the same words kept (matched on the lower-case form)
    assert "NAUSEA" not in masked_words(nlp, text.upper()) and "KOWALCZYK" in masked_words(nlp, text.upper())
    fm2 = spacy.blank("en").add_pipe("frequency_masker", config={"k": 3, "common_min_zipf": 3.0})
    fm2.from_bytes(fm.to_bytes())
    assert len(fm2.common) == len(fm.common)


def test_rare_words_with_clinical_endings_are_kept_when_asked():
    text = "Started rivaroxaban for cellulitis after cholecystectomy. Seen by Dr. Zorvathy."
    nlp, _ = fitted(BASE, {"k": 3})
    assert {"rivaroxaban", "cellulitis", "cholecystectomy", "Zorvathy"} <= set(masked_words(nlp, text))
    nlp, fm = fitted(BASE, {"k": 3, "clinical_forms": "gazetteers/clinical_forms.txt"})
    # drug stems and disease/procedure endings are kept; an unknown name is still masked
    masked = masked_words(nlp, text)
    assert "Zorvathy" in masked and not {"rivaroxaban", "cellulitis", "cholecystectomy"} & set(masked)
    # short words are no clinical form ("Kitis" has too few letters before "itis")
    assert masked_words(nlp, "Kitis noted.") == ["Kitis"]
    # the setting survives a round trip
    again = spacy.blank("en").add_pipe("frequency_masker", config={"clinical_forms": "gazetteers/clinical_forms.txt"})
    again.from_bytes(fm.to_bytes())
    assert again._clinical_form is not None and again._clinical_form.match("esomeprazole")


def test_clinical_terms_are_common_whatever_their_zipf():
    from spacy_deid.detect.gazetteers import read_common_words, read_term_file
    from spacy_deid.resources import asset_path

    common = read_common_words(asset_path("gazetteers/common_words.tsv"), 3.0)
    terms = read_term_file(asset_path("gazetteers/clinical_terms.txt"))
    assert {"gerd", "egfr", "nyha", "hba1c"} <= set(terms)
    assert not [t for t in terms if t not in common]


def test_nursing_shorthand_is_never_rare():
    """Shorthand of ICU nursing notes that a corpus of other notes leaves rare ("w/",
    "npn", "serosang") is kept by a masker with the common-word list; a name is not."""
    records = [rec(i, "Patient stable today.", f"p{i}") for i in range(6)]
    text = ("npn 7p-7a: vss, sx w/ serosang drainage, ij site clean, c/o pain, case mgmt aware, kowalczyk. "
            "sbar handoff: biba, s/p orif, cga, peds aware, fob present, prior auth")
    nlp, _ = fitted(records, {"k": 3, "common_min_zipf": 3.0})
    masked = masked_words(nlp, text)
    assert not {"npn", "vss", "w/", "serosang", "ij", "c/o", "mgmt", "sbar", "handoff", "biba", "orif", "cga",
                "peds", "fob", "auth"} & set(masked)
    assert "kowalczyk" in masked


def test_inflected_dictionary_words_are_ordinary():
    """The ordinary-word flag of common_words.tsv knows inflections whose stem
    changes ("having", "began", "studies", "slurred"); names stay out."""
    from spacy_deid.detect.gazetteers import read_common_words
    from spacy_deid.resources import asset_path

    ordinary = read_common_words(asset_path("gazetteers/common_words.tsv"), 2.5, ordinary_only=True)
    assert {"having", "including", "began", "held", "studies", "identified", "slurred", "planned"} <= ordinary
    assert not {"john", "boston", "ucla"} & ordinary


def test_dictionary_words_are_common_from_their_own_zipf():
    records = [rec(i, f"Patient stable today. Code{i % 6} noted.", f"p{i % 6}") for i in range(18)]
    text = "Patient reports restlessness and hemorrhoids, seen by Zorvathy."
    nlp, _ = fitted(records, {"k": 3, "common_min_zipf": 3.0})
    assert {"restlessness", "hemorrhoids", "Zorvathy"} <= set(masked_words(nlp, text))
    nlp, _ = fitted(records, {"k": 3, "common_min_zipf": 3.0, "dictionary_min_zipf": 2.5})
    masked = set(masked_words(nlp, text))
    assert "Zorvathy" in masked and not {"restlessness", "hemorrhoids"} & masked


def test_shipped_whitelist_keeps_titles_with_their_period():
    from spacy_deid.io.readers import term_list_v1

    nlp, _ = fitted(BASE, {"k": 3}, whitelist=term_list_v1("whitelist.txt"))
    masked = masked_words(nlp, "Ms. Zorvathy and Mrs. Quill seen. MRS. QUILL.")
    assert not {"Ms.", "Mrs.", "MRS."} & set(masked) and {"Zorvathy", "Quill"} <= set(masked)


def test_a_rare_symbol_is_kept():
    """No note of the corpus writes "+" or "=": rare, but a symbol identifies no one
    and stays ("3 + 4 = 7/10" keeps its signs); the rare number is masked."""
    records = [rec(i, f"Score {i % 3} noted. Patient stable.", f"p{i % 6}") for i in range(18)]
    nlp, _ = fitted(records, {"k": 3, "ngram_n": 2})
    masked = masked_words(nlp, "Score 3 + 4 = 7/10. Patient stable.")
    assert "7/10" in masked and "=" not in masked and "+" not in masked


def test_the_clitic_of_a_contraction_is_never_rare():
    """"'m" of "I'm" is rare in transcribed notes; alone it identifies no one (it had been
    written "I[OTHER] moving out"); the rare word before it is still masked."""
    records = [rec(i, "Patient stable today.", f"p{i}") for i in range(6)]
    nlp, _ = fitted(records, {"k": 3, "common_min_zipf": 3.0})
    masked = masked_words(nlp, "I'm moving, we're sure, Kowalczyk's car")
    assert not {"'m", "'re", "'s"} & set(masked)
    assert "Kowalczyk" in masked


def test_a_nursing_shift_and_a_range_of_vitals_are_never_rare():
    """"7P-7A" opens a nursing note, "hr 80s-90s" reports vitals and "HD2" counts the days of a
    stay: they identify no one; a rare number beside them is still masked."""
    records = [rec(i, "Patient stable today.", f"p{i}") for i in range(6)]
    nlp, _ = fitted(records, {"k": 3, "common_min_zipf": 3.0})
    masked = masked_words(nlp, "NPN 7P-7A. npn 11p-7a: hr 80s-90s, SBP 120S-180S, bed 4471, HD2, POD#1, dol3, bp 120s/70s, rass -2, ac 500x16")
    assert not {"7P-7A", "11p-7a", "80s-90s", "120S-180S", "HD2", "POD#1", "dol3", "120s/70s", "-2", "500x16"} & set(masked)
    assert "4471" in masked


def test_clock_times_of_a_shift_are_never_rare():
    """"0700-1900" heads a nursing note, "0930" times a dose and "rass -2" scores sedation: no
    one's; years ("2000-2010"), the groups of a phone number ("555-0137") and its country's code
    ("+1 (617)") stay rare items."""
    records = [rec(i, "Patient stable today.", f"p{i}") for i in range(6)]
    nlp, _ = fitted(records, {"k": 3, "common_min_zipf": 3.0})
    masked = masked_words(
        nlp, "micu npn 0700-1900. npn 1900 - 0700. lasix at 0930, hd 2200-0200. served 2000-2010. call 555-0137, "
        "rass -2, tel +1 (617) 555 1212"
    )
    assert not {"0700", "1900", "0930", "2200", "0200", "-2"} & set(masked)
    assert {"2000", "2010", "0137", "+1"} <= set(masked)
