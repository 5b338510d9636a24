"""indexed_span_ruler finds exactly the spans of spaCy's span_ruler with the same patterns."""
import pickle
import random

import pytest
import spacy

import spacy_deid  # noqa: F401
from spacy_deid.components.indexed_ruler import IndexedSpanRuler
from spacy_deid.detect.patterns import PHI_PATTERNS
from spacy_deid.synth import STYLES, generate_records


def spans(ruler, doc):
    return sorted((s.label_, s.id_, s.start, s.end) for s in ruler.match(doc))


def pair(patterns, **config):
    nlp = spacy.blank("en")
    plain = nlp.add_pipe("span_ruler", name="plain", config=config)
    indexed = nlp.add_pipe("indexed_span_ruler", name="indexed", config=config)
    plain.add_patterns(patterns)
    indexed.add_patterns(patterns)
    return nlp, plain, indexed


@pytest.fixture(scope="module")
def shipped():
    return pair(PHI_PATTERNS)


@pytest.mark.parametrize("style", STYLES)
def test_shipped_patterns_same_spans_on_generated_notes(shipped, style):
    nlp, plain, indexed = shipped
    records = list(generate_records(n_docs=60, n_patients=10, seed=11, style=style))
    n_spans = 0
    for rec in records:
        doc = nlp.make_doc(rec["text"])
        expected = spans(plain, doc)
        assert spans(indexed, doc) == expected, rec["id"]
        n_spans += len(expected)
    assert n_spans > 100  # the notes exercise the patterns


def test_shipped_patterns_same_annotations_through_filters():
    """As a pipeline component (filters, ents), not only its matches."""
    config = {"spans_key": "phi", "spans_filter": {"@misc": "spacy_deid.phi_ents_filter.v1"}, "annotate_ents": True,
              "ents_filter": {"@misc": "spacy_deid.phi_ents_filter.v1"}}
    nlp, plain, indexed = pair(PHI_PATTERNS, **config)
    text = "Seen on 03/14/2019 by Dr. Smith, call (617) 555-0199 or fax 617.555.0100; MRN: 1234567, 96 yo, ZIP 02115."
    a, b = plain(nlp.make_doc(text)), indexed(nlp.make_doc(text))
    assert [(s.start, s.end, s.label_) for s in a.spans["phi"]] == [(s.start, s.end, s.label_) for s in b.spans["phi"]]
    assert [(e.start, e.end, e.label_) for e in a.ents] == [(e.start, e.end, e.label_) for e in b.ents]
    assert len(b.ents) >= 4


# every kind of first token the index handles (and some it does not), fillers repeated without bound
CRAFTED = [
    {"label": "A", "pattern": [{"LOWER": "dr"}, {"TEXT": {"IN": [".", ":"]}, "OP": "*"}, {"IS_TITLE": True}]},
    {"label": "B", "id": "x", "pattern": [{"TEXT": "Fax"}, {"TEXT": {"IN": ["#", ":", "no"]}, "OP": "*"}, {"TEXT": {"REGEX": r"^\d+$"}, "OP": "+"}]},
    {"label": "C", "pattern": [{"TEXT": "(", "OP": "?"}, {"TEXT": {"REGEX": r"^\d{3}$"}}, {"TEXT": ")", "OP": "?"}, {"SHAPE": "ddd"}]},
    {"label": "D", "pattern": [{"LOWER": {"IN": ["Since", "on"]}}, {"LOWER": {"REGEX": "^(mon|tue)"}, "OP": "{1,3}"}]},
    {"label": "E", "pattern": [{"LIKE_EMAIL": True}]},
    {"label": "F", "pattern": [{"IS_ALPHA": True}, {"TEXT": "@"}]},
    {"label": "G", "pattern": [{"TEXT": {"NOT_IN": ["a", "b"]}}, {"LOWER": "x"}, {"LOWER": "x", "OP": "!"}]},
    {"label": "H", "pattern": [{"TEXT": {"REGEX": "(?i)^b"}}, {"OP": "*"}, {"LOWER": "end"}]},
    {"label": "I", "pattern": [{"ORTH": "x", "OP": "*"}, {"LOWER": "y"}]},
    {"label": "J", "pattern": "Fax no"},
]
WORDS = ["Dr", "dr", ".", ":", "Smith", "fax", "Fax", "#", "no", "123", "4567", "(", ")", "555", "since", "Since", "on",
         "Monday", "tue", "mon", "a@b.org", "@", "word", "a", "b", "x", "X", "y", "Bob", "end", "END", "the"]


def test_crafted_patterns_same_spans_on_random_docs():
    nlp, plain, indexed = pair(CRAFTED)
    rng = random.Random(0)
    n_spans = 0
    for _ in range(400):
        words = [rng.choice(WORDS) for _ in range(rng.randint(0, 40))]
        doc = spacy.tokens.Doc(nlp.vocab, words=words)
        expected = spans(plain, doc)
        assert spans(indexed, doc) == expected, words
        n_spans += len(expected)
    assert n_spans > 1000
    assert {lab for lab, *_ in expected} <= {p["label"] for p in CRAFTED}


def test_index_follows_pattern_changes_and_serialisation(tmp_path):
    nlp, plain, indexed = pair(CRAFTED[:2])
    doc = spacy.tokens.Doc(nlp.vocab, words=["dr", ".", "Smith", "on", "mon", "Fax", "#", "12"])
    assert [s[0] for s in spans(indexed, doc)] == ["A", "B"]
    indexed.add_patterns([CRAFTED[3]])
    assert [s[0] for s in spans(indexed, doc)] == ["A", "B", "D"]
    indexed.remove("A")
    assert [s[0] for s in spans(indexed, doc)] == ["B", "D"]
    indexed.remove_by_id("x")
    assert [s[0] for s in spans(indexed, doc)] == ["D"]
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    ruler = loaded.get_pipe("indexed")
    assert isinstance(ruler, IndexedSpanRuler)
    doc2 = spacy.tokens.Doc(loaded.vocab, words=["on", "mon", "tue"])
    assert spans(ruler, doc2) == [("D", "", 0, 2), ("D", "", 0, 3)]
    again = pickle.loads(pickle.dumps(ruler))
    assert spans(again, doc2) == spans(ruler, doc2)


def test_profiles_use_the_indexed_ruler(tmp_path):
    from spacy import util

    from spacy_deid.engines.fit import load_config

    config = load_config("default")
    nlp = util.load_model_from_config(config, auto_fill=True)
    assert isinstance(nlp.get_pipe("phi_ruler"), IndexedSpanRuler)
