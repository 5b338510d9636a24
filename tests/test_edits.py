"""The edit model: rendering, overlap resolution, offsets, new-Doc rendering, serialization."""
import pytest
import spacy
from spacy.tokens import Doc, DocBin

from spacy_deid.edits import (
    SPAN_KEY,
    add_edit,
    edits_as_records,
    get_edits,
    render,
    render_doc,
    resolve_edits,
)


@pytest.fixture(scope="module")
def nlp():
    return spacy.blank("en")


def test_no_edits_is_identity(nlp):
    doc = nlp("Patient John Smith seen on 03/14/2019 .")
    assert doc._.deid_text == doc.text
    assert render(doc).text == doc.text
    assert resolve_edits(doc) == []


def test_single_edit_renders_and_keeps_offsets(nlp):
    doc = nlp("Patient John Smith seen today.")
    add_edit(doc, 1, 3, "PHI", "[PATIENT]")
    assert doc._.deid_text == "Patient [PATIENT] seen today."
    assert edits_as_records(doc) == [{"start": 8, "end": 18, "reason": "PHI", "category": None, "method": None, "replacement": "[PATIENT]"}]
    assert doc.text[8:18] == "John Smith"


def test_later_edit_wins_on_full_overlap_and_trail_is_kept(nlp):
    doc = nlp("Seen by Dr Jones at noon")
    add_edit(doc, 3, 4, "LOW_FREQ", "[MASK]")
    add_edit(doc, 3, 4, "MLM", "Brown")
    assert doc._.deid_text == "Seen by Dr Brown at noon"
    assert [s.label_ for s in get_edits(doc)] == ["LOW_FREQ", "MLM"]  # audit trail


def test_edits_over_the_same_tokens_keep_their_own_replacement_and_audit(nlp):
    """spaCy keys plain Span._ values by offsets: without per-edit ids the
    overriding edit would overwrite the overridden edit's audit trail."""
    doc = nlp("Seen by Dr Jones at noon")
    add_edit(doc, 3, 4, "MLM", "Brown", audit={"candidates": ["Brown", "Smith"]})
    add_edit(doc, 3, 4, "MLM", "Smith", audit={"component": "similarity_filter"})
    first, second = get_edits(doc)
    assert first._.deid_replacement == "Brown" and second._.deid_replacement == "Smith"
    assert first._.deid_audit == {"candidates": ["Brown", "Smith"]}
    assert second._.deid_audit == {"component": "similarity_filter"}
    assert doc._.deid_text == "Seen by Dr Smith at noon"
    doc2 = Doc(nlp.vocab).from_bytes(doc.to_bytes())
    assert [s._.deid_audit for s in doc2.spans[SPAN_KEY]] == [first._.deid_audit, second._.deid_audit]
    add_edit(doc2, 0, 1, "MLM", "Met")  # numbering continues after a round trip
    assert len({s.id for s in doc2.spans[SPAN_KEY]}) == 3
    assert doc2._.deid_text == "Met by Dr Smith at noon"


def test_partial_overlap_never_leaks_original(nlp):
    doc = nlp("Patient John Smith seen today")
    add_edit(doc, 1, 3, "PHI", "[PATIENT]")  # John Smith
    add_edit(doc, 1, 2, "MLM", "Mary")  # only John resampled later
    text = doc._.deid_text
    assert "John" not in text and "Smith" not in text
    assert text == "Patient Mary [PATIENT] seen today"
    segs = resolve_edits(doc)
    assert [(s.start, s.end, s.label) for s in segs] == [(1, 2, "MLM"), (2, 3, "PHI")]


def test_segments_never_overlap(nlp):
    doc = nlp("a b c d e f g h")
    add_edit(doc, 0, 4, "A", "X")
    add_edit(doc, 2, 6, "B", "Y")
    add_edit(doc, 5, 8, "C", "Z")
    add_edit(doc, 1, 2, "D", "W")
    segs = resolve_edits(doc)
    for a, b in zip(segs, segs[1:]):
        assert a.end <= b.start
    covered = {i for s in segs for i in range(s.start, s.end)}
    assert covered == set(range(8))
    assert doc._.deid_text == "X W Y Z"


def test_removal_and_whitespace(nlp):
    doc = nlp("Call 555 now please")
    add_edit(doc, 1, 2, "LOW_FREQ", "")
    assert doc._.deid_text == "Call  now please"


def test_edit_validation(nlp):
    doc = nlp("one two")
    with pytest.raises(ValueError):
        add_edit(doc, 1, 5, "X", "y")
    with pytest.raises(TypeError):
        add_edit(doc, 0, 1, "X", None)


def test_render_doc_maps_entities_exactly(nlp):
    doc = nlp("Mr John Smith , aged 93 , called 555-123-4567 yesterday .")
    doc.ents = [doc.char_span(3, 13, label="PATIENT"), doc.char_span(21, 23, label="AGE")]
    add_edit(doc, 1, 3, "SURROGATE", "Bartholomew Quincy Adams")  # longer replacement
    add_edit(doc, 7, 8, "MLM", "phoned")  # outside any entity
    new = render_doc(doc, make_doc=nlp.make_doc)
    assert new.text == "Mr Bartholomew Quincy Adams , aged 93 , phoned 555-123-4567 yesterday ."
    assert [(e.text, e.label_) for e in new.ents] == [
        ("Bartholomew Quincy Adams", "PATIENT"),
        ("93", "AGE"),
    ]
    # without a tokenizer: whitespace split, still char-exact
    new2 = render_doc(doc)
    assert new2.text == new.text
    assert [(e.start_char, e.end_char) for e in new2.ents] == [(e.start_char, e.end_char) for e in new.ents]


def test_render_doc_entity_at_edges_and_shrinking(nlp):
    doc = nlp("Smith went home with Jones")
    doc.ents = [doc.char_span(0, 5, label="PATIENT"), doc.char_span(21, 26, label="DOCTOR")]
    add_edit(doc, 0, 1, "SURROGATE", "Li")
    add_edit(doc, 4, 5, "SURROGATE", "Oh")
    new = render_doc(doc, make_doc=nlp.make_doc)
    assert new.text == "Li went home with Oh"
    assert [(e.text, e.label_) for e in new.ents] == [("Li", "PATIENT"), ("Oh", "DOCTOR")]


def test_rendering_offset_map(nlp):
    doc = nlp("ab cd ef")
    add_edit(doc, 1, 2, "X", "LONGER")
    r = render(doc)
    assert r.text == "ab LONGER ef"
    assert r.map_start(0) == 0 and r.map_end(2) == 2
    assert r.map_start(3) == 3 and r.map_end(5) == 9
    assert r.map_start(6) == 10 and r.map_end(8) == 12


def _with_edits(nlp):
    doc = nlp("Patient John Smith, MRN 123456, seen.")
    add_edit(doc, 1, 3, "PHI", "[PATIENT]", audit={"component": "test"})
    add_edit(doc, 5, 6, "LOW_FREQ", "******")
    return doc


def test_doc_bytes_roundtrip_keeps_edits(nlp):
    doc = _with_edits(nlp)
    doc2 = Doc(nlp.vocab).from_bytes(doc.to_bytes())
    assert doc2._.deid_text == doc._.deid_text
    assert [(s.start, s.end, s.label_, s._.deid_replacement) for s in doc2.spans[SPAN_KEY]] == [
        (1, 3, "PHI", "[PATIENT]"),
        (5, 6, "LOW_FREQ", "******"),
    ]
    assert doc2.spans[SPAN_KEY][0]._.deid_audit == {"component": "test"}


def test_docbin_roundtrip_keeps_edits(nlp):
    doc = _with_edits(nlp)
    db = DocBin(store_user_data=True, docs=[doc])
    docs = list(DocBin().from_bytes(db.to_bytes()).get_docs(nlp.vocab))
    assert docs[0]._.deid_text == doc._.deid_text
    assert edits_as_records(docs[0]) == edits_as_records(doc)
