"""Saved artefacts: one atomic writer, pipelines without corpus strings, a NER
kept with the vectors it was trained with."""
import os
import stat

import pytest
import spacy
import srsly
from spacy.training import Example

from spacy_deid.io.atomic import atomic_dir, atomic_file, open_new, write_text
from spacy_deid.util import (
    check_pipeline_vectors,
    check_sourced_vectors,
    save_pipeline,
    strip_pipeline,
)


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_atomic_file_keeps_previous_on_error(tmp_path):
    path = tmp_path / "out.txt"
    write_text(path, "old")
    with pytest.raises(RuntimeError):
        with atomic_file(path) as fh:
            fh.write("new, half written")
            raise RuntimeError("boom")
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]  # no temporary file left


def test_private_files_are_owner_only(tmp_path):
    old = os.umask(0o022)
    try:
        write_text(tmp_path / "a", "x", private=True)
        write_text(tmp_path / "b", "x")
        with open_new(tmp_path / "c") as fh:
            fh.write("x")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "a") == 0o600
    assert _mode(tmp_path / "b") == 0o644
    assert _mode(tmp_path / "c") == 0o600
    (tmp_path / "d").write_text("x")
    os.chmod(tmp_path / "d", 0o644)
    with open_new(tmp_path / "d") as fh:  # an existing world-readable file is made private
        fh.write("y")
    assert _mode(tmp_path / "d") == 0o600


def test_atomic_dir_replaces_or_keeps(tmp_path):
    target = tmp_path / "model"
    with atomic_dir(target) as tmp:
        (tmp / "a").write_text("1")
    with pytest.raises(ValueError):
        with atomic_dir(target) as tmp:
            (tmp / "b").write_text("2")
            raise ValueError("failed save")
    assert sorted(p.name for p in target.iterdir()) == ["a"]
    with atomic_dir(target) as tmp:
        (tmp / "c").write_text("3")
    assert sorted(p.name for p in target.iterdir()) == ["c"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]


def _corpus_words(records):
    words = set()
    for rec in records:
        words.update(w for w in rec["text"].split() if w.isalpha() and len(w) > 3)
    return words


def test_save_pipeline_keeps_no_corpus_strings(tmp_path, small_corpus, small_records):
    from spacy_deid.edits import render
    from spacy_deid.engines.fit import init_pipeline

    nlp = init_pipeline("frequency", small_corpus, None)
    ruler = nlp.add_pipe("span_ruler", config={"spans_key": "titles"})
    ruler.add_patterns([{"label": "TITLE", "pattern": "Dr."}])
    texts = [r["text"] for r in small_records[:80]]
    before = [render(d).text for d in nlp.pipe(texts)]
    nlp.to_disk(tmp_path / "plain")
    stats = save_pipeline(nlp, tmp_path / "stripped")
    plain = set(srsly.read_json(tmp_path / "plain" / "vocab" / "strings.json"))
    kept = set(srsly.read_json(tmp_path / "stripped" / "vocab" / "strings.json"))
    assert stats["strings_after"] == len(kept) < stats["strings_before"] == len(plain)
    corpus = _corpus_words(small_records[:80]) - set(spacy.blank("en").vocab.strings)
    assert corpus & plain, "the unstripped pipeline holds corpus words (what this test guards against)"
    assert not corpus & kept
    assert {"TITLE"} <= kept
    loaded = spacy.load(tmp_path / "stripped")
    assert [render(d).text for d in loaded.pipe(texts)] == before
    assert [[(s.start, s.end, s.label_) for s in d.spans["titles"]] for d in loaded.pipe(texts)] == [
        [(s.start, s.end, s.label_) for s in d.spans["titles"]] for d in nlp.pipe(texts)
    ]


def _tiny_ner(records, vectors=None, static=True):
    from spacy_deid.io.readers import spans_to_entities
    from spacy.util import filter_spans

    nlp = spacy.blank("en")
    config = {}
    if vectors is not None:
        nlp.vocab.vectors = vectors
        tok2vec = {"@architectures": "spacy.HashEmbedCNN.v2", "pretrained_vectors": static, "width": 32, "depth": 1,
                   "embed_size": 500, "window_size": 1, "maxout_pieces": 2, "subword_features": True}
        config = {"model": {"@architectures": "spacy.TransitionBasedParser.v2", "state_type": "ner",
                            "extra_state_tokens": False, "hidden_width": 32, "maxout_pieces": 2, "use_upper": True,
                            "nO": None, "tok2vec": tok2vec}}
    ner = nlp.add_pipe("ner", config=config)
    examples = []
    for rec in records:
        doc = nlp.make_doc(rec["text"])
        ref = nlp.make_doc(rec["text"])
        ref.ents = filter_spans(spans_to_entities(rec, ref))
        examples.append(Example(doc, ref))
    for ex in examples:
        for ent in ex.reference.ents:
            ner.add_label(ent.label_)
    nlp.initialize(lambda: examples)
    for _ in range(2):
        nlp.update(examples)
    return nlp


def test_strip_a_trained_ner(tmp_path, small_records):
    from spacy_deid.cli import main

    records = small_records[:20]
    nlp = _tiny_ner(records)
    nlp.to_disk(tmp_path / "ner")
    labels = set(nlp.get_pipe("ner").labels)
    texts = [r["text"] for r in small_records[20:40]]
    before = [[(e.start, e.end, e.label_) for e in d.ents] for d in nlp.pipe(texts)]
    names = {r["text"][s["start"]:s["end"]] for r in records for s in r["spans"] if s["label"] in ("PATIENT", "DOCTOR", "NAME")}
    assert names & set(srsly.read_json(tmp_path / "ner" / "vocab" / "strings.json"))
    with pytest.raises(SystemExit) as exit_info:
        main(["strip", str(tmp_path / "ner"), str(tmp_path / "ner_stripped")])
    assert exit_info.value.code in (0, None)
    kept = set(srsly.read_json(tmp_path / "ner_stripped" / "vocab" / "strings.json"))
    assert labels <= kept and not names & kept
    loaded = spacy.load(tmp_path / "ner_stripped")
    assert [[(e.start, e.end, e.label_) for e in d.ents] for d in loaded.pipe(texts)] == before
    stats = strip_pipeline(tmp_path / "ner")  # in place
    assert stats["strings_after"] < stats["strings_before"]


def test_ner_with_other_vectors_is_an_error(tmp_path, small_records, vec_dir):
    from spacy.vectors import Vectors
    import numpy

    vectors = spacy.load(vec_dir).vocab.vectors
    ner = _tiny_ner(small_records[:10], vectors=vectors)
    ner.to_disk(tmp_path / "ner")
    same = spacy.blank("en")
    same.vocab.vectors = vectors
    check_sourced_vectors(same, {"ner": tmp_path / "ner"})  # the NER's own vectors: fine
    assert same.meta["spacy_deid"]["ner_vectors"]
    other = spacy.blank("en")
    other.vocab.vectors = Vectors(
        strings=other.vocab.strings, data=numpy.ones(vectors.shape, dtype="float32"), mode="floret",
        hash_count=vectors.hash_count, hash_seed=vectors.hash_seed, minn=vectors.minn, maxn=vectors.maxn,
    )
    with pytest.raises(ValueError, match="other word vectors"):
        check_sourced_vectors(other, {"ner": tmp_path / "ner"})
    # a NER on hash embeddings only runs the same under any vectors: no error
    _tiny_ner(small_records[:10], vectors=vectors, static=False).to_disk(tmp_path / "ner_hash")
    check_sourced_vectors(other, {"ner": tmp_path / "ner_hash"})
    # at load: the recorded digest must match the vectors found
    other.meta["spacy_deid"] = dict(same.meta["spacy_deid"])
    with pytest.raises(ValueError, match="not the ones its NER was trained with"):
        check_pipeline_vectors(other)
    check_pipeline_vectors(same)
