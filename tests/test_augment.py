"""Augmenters: label alignment, filtered MLM, neighbour pseudonyms, the reader, the CLI."""
import json

import numpy
import pytest
import spacy
from spacy.training import Example
from typer.testing import CliRunner

import spacy_deid  # noqa: F401
from spacy_deid.train.augment import (
    augment_file,
    entity_tokens,
    filtered_mlm_docs,
    gold_doc,
    load_pseudonymizer,
    mlm_targets,
    pseudonymize_docs,
    replace_tokens,
)
from spacy_deid.io.records import FatalError, read_jsonl_list
from spacy_deid.components.similarity_filter import CosineFilter
from spacy_deid.train.vectors import load_vectors

@pytest.fixture(scope="module")
def gold(small_corpus, tmp_path_factory):
    path = tmp_path_factory.mktemp("gold") / "gold.jsonl"
    recs = read_jsonl_list(small_corpus)[:12]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


nlp = spacy.blank("en")


def assert_aligned(old, new):
    """Same token count, same entity token spans and labels, exact char offsets."""
    assert len(new) == len(old)
    assert [(e.start, e.end, e.label_) for e in new.ents] == [(e.start, e.end, e.label_) for e in old.ents]
    for e in new.ents:
        assert new.text[e.start_char : e.end_char] == e.text
    retok = nlp.make_doc(new.text)
    assert [t.text for t in retok] == [t.text for t in new]


class FakeSampler:
    """Stand-in for MLMSampler.candidates (same signature)."""

    def __init__(self, words):
        self.words = words
        self.calls = []

    def candidates(self, docs, targets, n_candidates=10, rng=None, temperature=1.0, top_k=50, reject=None):
        self.calls.append([list(t) for t in targets])
        return [[list(self.words[:n_candidates]) for _ in t] for t in targets]


# -- alignment ----------------------------------------------------------------


def test_replace_tokens_keeps_entities_at_edges_and_drops_glued_replacements():
    doc = nlp.make_doc("Smith saw Dr. Jones (MRN 1234) today, Jones")
    doc.ents = [doc.char_span(0, 5, "PATIENT"), doc.char_span(14, 19, "DOCTOR"), doc.char_span(38, 43, "DOCTOR")]
    repl = {0: "Qwerty", 3: "Abc", 6: "9999", 10: "Zed", 8: "x y"}  # "x y" has a space: refused
    new, applied = replace_tokens(doc, repl, nlp.make_doc, "SURROGATE")
    assert_aligned(doc, new)
    assert applied == {0: "Qwerty", 3: "Abc", 6: "9999", 10: "Zed"}
    assert new.text == "Qwerty saw Dr. Abc (MRN 9999) today, Zed"
    assert [e.text for e in new.ents] == ["Qwerty", "Abc", "Zed"]
    # "can't" would be split in two tokens: dropped, the rest still applied
    new2, applied2 = replace_tokens(doc, {0: "can't", 3: "Abc"}, nlp.make_doc, "SURROGATE")
    assert applied2 == {3: "Abc"} and new2.text.startswith("Smith saw Dr. Abc")
    assert_aligned(doc, new2)
    # a replacement glued to its neighbour must not change the tokenisation:
    # "Dr" + "." would become the single token "Dr." (a tokenizer exception)
    glued = nlp.make_doc("Seen by Smith. Smith left.")
    glued.ents = [glued.char_span(8, 13, "DOCTOR"), glued.char_span(15, 20, "DOCTOR")]
    assert len(nlp.make_doc("Seen by Dr.")) == 3
    new3, applied3 = replace_tokens(glued, {2: "Dr", 4: "Doe"}, nlp.make_doc, "SURROGATE")
    assert applied3 == {4: "Doe"} and new3.text == "Seen by Smith. Doe left."
    assert_aligned(glued, new3)
    assert "deid" not in doc.spans  # the gold doc is never modified
    with pytest.raises(IndexError):
        replace_tokens(doc, {11: "x"}, nlp.make_doc, "SURROGATE")


def test_mlm_targets_avoid_entities_and_stop_words():
    doc = nlp.make_doc("The patient Smith denies chest pain and fever today")
    doc.ents = [doc.char_span(12, 17, "PATIENT")]
    rng = numpy.random.default_rng(0)
    tgt = mlm_targets(doc, 2, rng)
    assert len(tgt) == 4 and len(set(tgt)) == 4
    assert 2 not in tgt and all(not doc[i].is_stop and doc[i].is_alpha for i in tgt)
    assert mlm_targets(nlp.make_doc("12 / 34 ,"), 5, rng) == []  # no word with letters
    assert mlm_targets(doc, 0, rng) == []


def test_entity_tokens_by_label():
    doc = nlp.make_doc("Smith on 03/04/2019")
    doc.ents = [doc.char_span(0, 5, "PATIENT"), doc.char_span(9, 19, "DATE")]
    assert entity_tokens(doc) == [0, 2]
    assert entity_tokens(doc, ["DATE"]) == [2]


# -- neighbour pseudonyms -------------------------------------------------------


def test_neighbor_pseudonyms_replace_every_entity_word(vec_dir, gold):
    p = load_pseudonymizer(vec_dir, nlp.make_doc, n_neighbors=5)
    assert p.candidates
    docs = [gold_doc(nlp.make_doc, r) for r in read_jsonl_list(gold)]
    out = pseudonymize_docs(docs, p, numpy.random.default_rng(0), nlp.make_doc)
    n_changed = 0
    for doc, (new, n) in zip(docs, out):
        assert_aligned(doc, new)
        for e_old, e_new in zip(doc.ents, new.ents):
            for a, b in zip(e_old, e_new):
                if any(c.isalnum() for c in a.text):
                    n_changed += a.text != b.text
                else:
                    assert a.text == b.text  # punctuation kept
        # nothing outside the entities changes
        inside = set(entity_tokens(doc))
        assert all(doc[i].text == new[i].text for i in range(len(doc)) if i not in inside)
        assert n == sum(doc[i].text != new[i].text for i in inside)
    assert n_changed > 0.9 * sum(len(d.ents) for d in docs)


def test_neighbor_augmenter_yields_original_and_aligned_copy(vec_dir, gold):
    from spacy.util import registry

    make = registry.augmenters.get("spacy_deid.neighbor_pseudonyms.v1")
    augment = make(vectors=str(vec_dir), n_neighbors=10, seed=1)
    from spacy_deid.io.readers import record_to_example

    rec = read_jsonl_list(gold)[0]
    eg = record_to_example(nlp, rec)
    out = list(augment(nlp, eg))
    assert len(out) == 2 and out[0] is eg
    new = out[1]
    assert isinstance(new, Example) and new.text != eg.text
    assert_aligned(eg.reference, new.reference)
    assert [t.text for t in new.predicted] == [t.text for t in new.reference]
    none = make(vectors=str(vec_dir), level=0.0)
    assert len(list(none(nlp, eg))) == 1


# -- filtered MLM ----------------------------------------------------------------


def test_filtered_mlm_with_fake_sampler_replaces_n_non_entity_words(vec_dir, gold):
    vectors = load_vectors(vec_dir)
    docs = [gold_doc(nlp.make_doc, r) for r in read_jsonl_list(gold)[:4]]
    sampler = FakeSampler(["fever", "nausea", "cough"])
    out = filtered_mlm_docs(docs, sampler, CosineFilter(epsilon=-1.0, fallback="none"), vectors,
                            numpy.random.default_rng(0), nlp.make_doc, n=3)
    for doc, (new, n) in zip(docs, out):
        assert_aligned(doc, new)
        changed = [i for i in range(len(doc)) if doc[i].text != new[i].text]
        assert n == len(changed) == 3
        assert all(doc[i].ent_iob_ == "O" and new[i].text.lower() in {"fever", "nausea", "cough"} for i in changed)
    # every target is asked for, at most 2n per doc
    assert all(len(t) <= 6 for t in sampler.calls[0])
    # nothing passes the filter: nothing is replaced (augmentation never uses an unfiltered word)
    out = filtered_mlm_docs(docs, sampler, CosineFilter(epsilon=0.99999, fallback="none"), vectors,
                            numpy.random.default_rng(0), nlp.make_doc, n=3)
    assert all(n == 0 and new.text == doc.text for doc, (new, n) in zip(docs, out))
    # empty candidate lists
    out = filtered_mlm_docs(docs, FakeSampler([]), CosineFilter(fallback="none"), vectors,
                            numpy.random.default_rng(0), nlp.make_doc)
    assert all(n == 0 for _, n in out)
    # stop-word candidates never replace a content word (unless skip_stop=False)
    out = filtered_mlm_docs(docs, FakeSampler(["the", "was"]), CosineFilter(epsilon=-1.0, fallback="none"), vectors,
                            numpy.random.default_rng(0), nlp.make_doc, n=3)
    assert all(n == 0 and new.text == doc.text for doc, (new, n) in zip(docs, out))
    out = filtered_mlm_docs(docs, FakeSampler(["the", "was"]), CosineFilter(epsilon=-1.0, fallback="none"), vectors,
                            numpy.random.default_rng(0), nlp.make_doc, n=3, skip_stop=False)
    assert all(n == 3 for _, n in out)


def test_filtered_mlm_with_real_tiny_model(vec_dir, mlm_dir, gold):
    from spacy_deid.train.augment import load_sampler

    sampler = load_sampler(mlm_dir)
    vectors = load_vectors(vec_dir)
    docs = [gold_doc(nlp.make_doc, r) for r in read_jsonl_list(gold)[:3]]
    out = filtered_mlm_docs(docs, sampler, CosineFilter(epsilon=-1.0, fallback="none"), vectors,
                            numpy.random.default_rng(0), nlp.make_doc, n=5)
    assert sum(n for _, n in out) > 0
    for doc, (new, n) in zip(docs, out):
        assert_aligned(doc, new)
        assert n <= 5


def test_filtered_mlm_augmenter_yields_original_and_aligned_copy(vec_dir, mlm_dir, gold):
    from spacy.util import registry

    from spacy_deid.io.readers import record_to_example

    make = registry.augmenters.get("spacy_deid.filtered_mlm.v1")
    augment = make(model=str(mlm_dir), vectors=str(vec_dir), n=5, epsilon=-1.0, seed=1)
    eg = record_to_example(nlp, read_jsonl_list(gold)[0])
    out = list(augment(nlp, eg))
    assert len(out) == 2 and out[0] is eg
    assert_aligned(eg.reference, out[1].reference)
    assert [t.text for t in out[1].predicted] == [t.text for t in out[1].reference]
    assert len(list(make(model=str(mlm_dir), vectors=str(vec_dir), level=0.0)(nlp, eg))) == 1


def test_similarity_filter_after_real_mlm_resampler(vec_dir, mlm_dir):
    pipe = spacy.blank("en")
    pipe.vocab.vectors = load_vectors(vec_dir)
    # p_n = 0: every eligible token is masked (up to half of the doc)
    pipe.add_pipe("mlm_resampler", config={"model": str(mlm_dir), "n_candidates": 6, "p_n": 0.0, "p_w": 0.0})
    pipe.add_pipe("similarity_filter", config={"policy": {"@misc": "spacy_deid.cosine_filter.v1", "epsilon": 0.3}})
    pipe.initialize()
    from spacy_deid.edits import get_edits

    doc = pipe.make_doc("The patient denies chest pain and was given aspirin in the emergency department today.")
    doc = pipe.get_pipe("mlm_resampler")(doc)
    # snapshot: spaCy keys span extensions by character offsets, so edits over the
    # same tokens share `span._` (the filter's audit then shows on both)
    mlm = [(e.start, e.end, e.text, list(e._.deid_audit["candidates"])) for e in get_edits(doc)
           if (e._.deid_audit or {}).get("candidates")]
    doc = pipe.get_pipe("similarity_filter")(doc)
    filt = get_edits(doc)[-len(mlm):]
    assert mlm and all((f._.deid_audit or {}).get("filtered") for f in filt)
    vec = pipe.vocab.vectors
    final = {f.start: f._.deid_replacement for f in filt}
    for (start, end, text, cands), f in zip(mlm, filt):
        assert (f.start, f.end, f.label_) == (start, end, "MLM")
        ch = CosineFilter(epsilon=0.3).select(text, cands, vec)
        if f._.deid_audit["passed"]:
            assert f._.deid_replacement in cands and f._.deid_audit["similarity"] > 0.3
            if f._.deid_replacement != ch.word:
                # the filter's own choice repeats a neighbour, kept or chosen: never taken
                around = {(final.get(i) or doc[i].text).lower() for i in (start - 1, end) if 0 <= i < len(doc)}
                assert ch.word.lower() in around
        else:
            assert ch.word is None and f._.deid_replacement == "[MASK]"


# -- reader and config -------------------------------------------------------------


def test_init_nlp_with_augmenter_in_config(vec_dir, gold, tmp_path):
    from spacy.training.initialize import init_nlp
    from spacy.util import load_config_from_str

    cfg = load_config_from_str(
        f"""
[paths]
train = "{gold}"
dev = "{gold}"
vectors = "{vec_dir}"

[nlp]
lang = "en"
pipeline = ["tok2vec","ner"]
batch_size = 8

[components]

[components.tok2vec]
factory = "tok2vec"

[components.tok2vec.model]
@architectures = "spacy.HashEmbedCNN.v2"
width = 16
depth = 1
embed_size = 500
window_size = 1
maxout_pieces = 2
subword_features = true
pretrained_vectors = null

[components.ner]
factory = "ner"

[components.ner.model]
@architectures = "spacy.TransitionBasedParser.v2"
state_type = "ner"
extra_state_tokens = false
hidden_width = 16
maxout_pieces = 2
use_upper = true
nO = null

[components.ner.model.tok2vec]
@architectures = "spacy.Tok2VecListener.v1"
width = 16
upstream = "*"

[corpora]

[corpora.train]
@readers = "spacy_deid.augmented_examples.v1"
path = ${{paths.train}}

[corpora.train.augmenter]
@augmenters = "spacy_deid.neighbor_pseudonyms.v1"
vectors = ${{paths.vectors}}
n_neighbors = 10

[corpora.dev]
@readers = "spacy_deid.examples.v1"
path = ${{paths.dev}}

[training]
max_steps = 2
eval_frequency = 1

[initialize]
vectors = ${{paths.vectors}}
"""
    )
    filled = spacy.util.load_model_from_config(cfg, auto_fill=True, validate=True).config
    nlp = init_nlp(filled)
    assert set(nlp.get_pipe("ner").labels) >= {"PATIENT", "DATE"}
    from spacy.util import resolve_dot_names

    train, _ = resolve_dot_names(nlp.config.interpolate(), ["corpora.train", "corpora.dev"])
    egs = list(train(nlp))
    assert len(egs) == 2 * 12
    for orig, aug in zip(egs[::2], egs[1::2]):
        assert_aligned(orig.reference, aug.reference)
        assert orig.text != aug.text


# -- the file-level function and the CLI -----------------------------------------------


def test_augment_file_neighbor_pseudonyms(vec_dir, gold, tmp_path):
    out = tmp_path / "aug.jsonl"
    stats = augment_file(gold, out, "neighbor_pseudonyms", vectors=vec_dir, n_neighbors=20, seed=3)
    recs = read_jsonl_list(out)
    src = read_jsonl_list(gold)
    assert stats["records"] == stats["augmented"] == len(src) == len(recs) // 2
    for orig, aug, want in zip(recs[::2], recs[1::2], src):
        assert orig == want
        assert aug["id"] == f"{want['id']}-aug1" and aug["source_id"] == want["id"]
        assert aug["augmented"] == "neighbor_pseudonyms" and aug["patient_id"] == want["patient_id"]
        assert [s["label"] for s in aug["spans"]] == [s["label"] for s in sorted(want["spans"], key=lambda s: (s["start"], s["end"]))]
        for s in aug["spans"]:
            assert aug["text"][s["start"] : s["end"]] == s["text"]
        # token counts of every entity survive
        for a, b in zip(sorted(want["spans"], key=lambda s: s["start"]), aug["spans"]):
            assert len(nlp.make_doc(a["text"])) == len(nlp.make_doc(b["text"]))
    same = tmp_path / "same.jsonl"
    augment_file(gold, same, "neighbor_pseudonyms", vectors=vec_dir, n_neighbors=20, seed=3)
    assert same.read_bytes() == out.read_bytes()


def test_augment_file_filtered_mlm(vec_dir, mlm_dir, gold, tmp_path):
    out = tmp_path / "mlm.jsonl"
    stats = augment_file(gold, out, "filtered_mlm", model=mlm_dir, vectors=vec_dir, n=5, seed=0, epsilon=-1.0, limit=4)
    recs = read_jsonl_list(out)
    assert len(recs) == 8 and stats["replaced"] > 0
    for orig, aug in zip(recs[::2], recs[1::2]):
        assert aug["augmented"] == "filtered_mlm" and aug["n_replaced"] <= 5
        assert [(s["label"], s["text"]) for s in aug["spans"]] == [
            (s["label"], s["text"]) for s in sorted(orig["spans"], key=lambda s: (s["start"], s["end"]))
        ]
        for s in aug["spans"]:
            assert aug["text"][s["start"] : s["end"]] == s["text"]


def test_overlapping_gold_spans_name_the_record(vec_dir, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "rec-7", "text": "John Smith came", "spans": [
        {"start": 0, "end": 10, "label": "PATIENT"}, {"start": 5, "end": 10, "label": "DOCTOR"}]}) + "\n")
    with pytest.raises(FatalError, match="rec-7.*overlapping"):
        augment_file(bad, tmp_path / "o.jsonl", "neighbor_pseudonyms", vectors=vec_dir)
    assert not (tmp_path / "o.jsonl").exists()


def test_cli_augment(vec_dir, gold, tmp_path):
    from spacy_deid.cli import app

    runner = CliRunner()
    out = tmp_path / "cli.jsonl"
    res = runner.invoke(app, ["augment", str(gold), str(out), "--method", "neighbor_pseudonyms",
                              "--vectors", str(vec_dir), "--neighbors", "5", "--seed", "1"])
    assert res.exit_code == 0, res.output
    assert len(read_jsonl_list(out)) == 24
    for args, needle in [
        (["--method", "nope", "--vectors", str(vec_dir)], "Unknown method"),
        (["--method", "neighbor_pseudonyms"], "--vectors is required"),
        (["--method", "filtered_mlm", "--vectors", str(vec_dir)], "--model is required"),
        (["--method", "filtered_mlm", "--vectors", str(vec_dir), "--model", str(tmp_path / "none")], "MLM directory not found"),
        (["--method", "neighbor_pseudonyms", "--vectors", str(tmp_path)], "Not a vectors directory"),
    ]:
        res = runner.invoke(app, ["augment", str(gold), str(tmp_path / "x.jsonl"), *args])
        assert res.exit_code != 0 and needle in res.output and "Traceback" not in res.output, (args, res.output)


# -- case variants --------------------------------------------------------------


def test_case_variant_keeps_offsets(gold):
    from spacy_deid.train.augment import case_variant

    recs = read_jsonl_list(gold)
    for rec in recs:
        for case in ("upper", "lower"):
            var = case_variant(rec, case, nlp.make_doc)
            assert var is not None
            assert var["id"] == f"{rec['id']}-{case}" and var["source_id"] == rec["id"]
            assert var["text"] == (rec["text"].upper() if case == "upper" else rec["text"].lower())
            assert [(s["start"], s["end"], s["label"]) for s in var["spans"]] == [
                (s["start"], s["end"], s["label"]) for s in rec["spans"]]
            doc = nlp.make_doc(var["text"])
            for sp in var["spans"]:
                assert var["text"][sp["start"]:sp["end"]] == sp["text"]
                assert doc.char_span(sp["start"], sp["end"]) is not None


def test_case_variant_skips_what_would_misalign():
    from spacy_deid.train.augment import case_variant

    # "Vs." is two tokens as written, but "vs." is one spaCy token: the span would misalign.
    rec = {"id": "r", "text": "Seen by Vs. Kay", "spans": [{"start": 8, "end": 10, "label": "DOCTOR", "text": "Vs"}]}
    assert nlp.make_doc(rec["text"]).char_span(8, 10) is not None
    assert case_variant(rec, "lower", nlp.make_doc) is None
    assert case_variant(rec, "upper", nlp.make_doc)["text"] == "SEEN BY VS. KAY"
    assert case_variant({"id": "n", "text": "12 34", "spans": []}, "upper", nlp.make_doc) is None  # no change
    with pytest.raises(ValueError, match="case"):
        case_variant(rec, "title", nlp.make_doc)


def test_augment_file_case_variants_only_and_with_method(vec_dir, gold, tmp_path):
    out = tmp_path / "cv.jsonl"
    stats = augment_file(gold, out, None, case_variants=("upper", "lower"))
    recs = read_jsonl_list(out)
    assert stats["records"] == 12 and stats["case_variants"] + stats["case_skipped"] <= 24
    assert stats["case_variants"] >= 20
    assert len(recs) == 12 + stats["case_variants"]
    assert {r.get("augmented") for r in recs} == {None, "case_upper", "case_lower"}
    for r in recs:
        for sp in r["spans"]:
            assert r["text"][sp["start"]:sp["end"]] == sp["text"]
    out2 = tmp_path / "cv2.jsonl"
    stats = augment_file(gold, out2, "neighbor_pseudonyms", vectors=vec_dir, n_neighbors=5, case_variants=("lower",))
    recs = read_jsonl_list(out2)
    assert len(recs) == 24 + stats["case_variants"] and stats["case_variants"] >= 20
    assert sum(r.get("augmented") == "case_lower" and r["id"].endswith("-aug1-lower") for r in recs) >= 10
    with pytest.raises(FatalError, match="Nothing to do"):
        augment_file(gold, tmp_path / "none.jsonl", None)


def test_case_variants_augmenter(gold):
    from spacy_deid.io.readers import examples_reader_v1
    from spacy_deid.train.augment import case_variants_augmenter_v1

    aug = case_variants_augmenter_v1(["upper", "lower"])
    eg = next(iter(examples_reader_v1(str(gold))(nlp)))
    out = list(aug(nlp, eg))
    assert len(out) == 3 and out[0] is eg
    assert out[1].reference.text == eg.reference.text.upper() and out[2].reference.text == eg.reference.text.lower()
    for o in out[1:]:
        assert [(e.start_char, e.end_char, e.label_) for e in o.reference.ents] == [
            (e.start_char, e.end_char, e.label_) for e in eg.reference.ents]
    with pytest.raises(ValueError, match="unknown case"):
        case_variants_augmenter_v1(["title"])


def test_cli_augment_case_variants(gold, tmp_path):
    from spacy_deid.cli import app

    out = tmp_path / "cli_cv.jsonl"
    res = CliRunner().invoke(app, ["augment", str(gold), str(out), "--case-variants"])
    assert res.exit_code == 0, res.output
    recs = read_jsonl_list(out)
    assert len(recs) > 12 and any(r["text"].isupper() for r in recs)
