"""Floret vectors: training, spaCy's floret conversion, the frequency rule, the CLI."""
import json
from collections import defaultdict
from pathlib import Path

import numpy
import pytest
import spacy
from typer.testing import CliRunner

from spacy_deid.train.vectors import (
    FREQUENT_WORDS_FILE,
    RARE_TOKEN,
    WordCounter,
    count_words,
    load_frequent_words,
    scratch_tokenizer,
    train_vectors,
)

from conftest import TINY_VECTORS as TINY


def _patient_counts(records, tokenize):
    units = defaultdict(set)
    for rec in records:
        for t in tokenize(rec["text"]):
            if not t.is_space:
                units[t.text.lower()].add(rec.get("patient_id") or rec["id"])
    return {w: len(u) for w, u in units.items()}


def test_roundtrip_floret_mode_every_word_has_a_vector(vec_dir):
    nlp = spacy.load(vec_dir)
    vectors = nlp.vocab.vectors
    assert vectors.mode == "floret"
    assert vectors.shape == (2000, 16)
    unseen = "Zyxwvutqx"  # never in the corpus
    doc = nlp(f"The patient denies {unseen}")
    assert all(t.has_vector for t in doc)
    v = doc[-1].vector
    assert v.shape == (16,) and numpy.linalg.norm(v) > 0
    # the same word gets the same vector, a related form a similar one
    a, b, c = vectors.get_batch(["denies", "denies", "Zyxwvutqx"])
    assert numpy.allclose(a, b)
    assert not numpy.allclose(a, c)


def test_vectors_dir_works_as_initialize_vectors(vec_dir):
    from thinc.api import Config

    cfg = Config().from_str(
        """
        [nlp]
        lang = "en"
        pipeline = []
        [components]
        [training]
        [initialize]
        vectors = "VEC"
        """.replace("VEC", str(vec_dir))
    )
    nlp = spacy.util.load_model_from_config(cfg, auto_fill=True)
    nlp.initialize()  # loads [initialize] vectors as `spacy train` / `spacy assemble` do
    assert nlp.vocab.vectors.mode == "floret"
    assert nlp("unseenwordqq")[0].has_vector


def test_frequency_rule_no_rare_word_is_stored(vec_dir, small_records):
    counts = _patient_counts(small_records, scratch_tokenizer(spacy.blank("en")))
    stored = json.loads((vec_dir / FREQUENT_WORDS_FILE).read_text())
    assert stored["k"] == 3 and stored["count_by"] == "patient"
    assert stored["words"], "nothing passed the frequency rule"
    for w, c in zip(stored["words"], stored["counts"]):
        assert counts[w] >= 3 and c == counts[w]
    assert RARE_TOKEN.lower() not in stored["words"]
    base = {s.lower() for s in spacy.blank("en").vocab.strings}  # in every blank pipeline
    rare = [w for w, c in counts.items() if c == 1 and w.isalpha() and len(w) > 4 and w not in base]
    assert rare
    # No rare word anywhere in the saved directory (strings, config, meta...).
    blob = "\n".join(
        p.read_bytes().decode("utf8", errors="ignore").lower() for p in Path(vec_dir).rglob("*") if p.is_file()
    )
    leaked = [w for w in rare if f'"{w}"' in blob]
    assert not leaked, leaked[:5]
    assert load_frequent_words(vec_dir, min_count=10) == [w for w, c in zip(stored["words"], stored["counts"]) if c >= 10]


def test_same_seed_same_vectors_other_seed_differs(tmp_path, small_corpus):
    small = dict(TINY, epoch=1)
    a = train_vectors(small_corpus, tmp_path / "a", seed=1, limit=80, **small)
    b = train_vectors(small_corpus, tmp_path / "b", seed=1, limit=80, **small)
    c = train_vectors(small_corpus, tmp_path / "c", seed=2, limit=80, **small)
    va = (a / "vocab" / "vectors").read_bytes()
    assert va == (b / "vocab" / "vectors").read_bytes()
    assert va != (c / "vocab" / "vectors").read_bytes()


def test_word_counter_counts_once_per_patient():
    c = WordCounter("patient")
    c.add(["Smith", "smith", "pain"], "p1")
    c.add(["Smith", "pain"], "p1")
    c.add(["pain"], "p2")
    assert c.counts["smith"] == 1 and c.counts["pain"] == 2
    assert c.frequent(2) == {"pain": 2}
    occ = WordCounter("occurrence")
    occ.add(["Smith", "smith"], "p1")
    assert occ.counts["smith"] == 2
    with pytest.raises(ValueError):
        WordCounter("token")


def test_count_words_falls_back_to_doc_without_patient_id():
    nlp = spacy.blank("en")
    recs = [{"id": "a", "text": "fever and cough"}, {"id": "b", "text": "fever"}]
    counter = count_words(recs, nlp.make_doc, count_by="patient")
    assert counter.counts["fever"] == 2 and counter.counts["cough"] == 1


def test_scratch_tokenizer_keeps_corpus_strings_out_of_the_vocab():
    nlp = spacy.blank("en")
    tok = scratch_tokenizer(nlp)
    words = [t.text for t in tok("Mr. Qqzzyx went to St. Mary's on 03/04/2019.")]
    assert words == [t.text for t in nlp.make_doc("Mr. Qqzzyx went to St. Mary's on 03/04/2019.")]
    fresh = spacy.blank("en")
    fresh_tok = scratch_tokenizer(fresh)
    fresh_tok("Wwqqxxzz is rare")
    assert "Wwqqxxzz" not in fresh.vocab.strings


def test_cli_vectors_and_errors(tmp_path, small_corpus):
    from spacy_deid.cli import app

    runner = CliRunner()
    out = tmp_path / "v"
    res = runner.invoke(
        app,
        ["vectors", str(small_corpus), str(out), "--dim", "8", "--bucket", "500", "--epoch", "1", "--limit", "40", "--k", "2"],
    )
    assert res.exit_code == 0, res.output
    assert spacy.load(out).vocab.vectors.shape == (500, 8)
    res = runner.invoke(app, ["vectors", str(tmp_path / "missing.jsonl"), str(out)])
    assert res.exit_code != 0 and "Corpus not found" in res.output and "Traceback" not in res.output
    res = runner.invoke(app, ["vectors", str(small_corpus), str(out), "--minn", "4", "--maxn", "2"])
    assert res.exit_code != 0 and "minn" in res.output


def test_empty_corpus_is_a_clear_error(tmp_path):
    from spacy_deid.io.records import FatalError

    p = tmp_path / "empty.jsonl"
    p.write_text(json.dumps({"id": "x", "text": "   "}) + "\n")
    with pytest.raises(FatalError, match="No text"):
        train_vectors(p, tmp_path / "o", **TINY)
