"""The shipped structured-PHI patterns and their ents filter (cue words trimmed)."""
import json

import pytest
import spacy

import spacy_deid  # noqa: F401
from spacy_deid.detect.patterns import PHI_PATTERNS, write_patterns


@pytest.fixture(scope="module")
def nlp():
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe(
        "span_ruler",
        name="phi_ruler",
        config={"spans_key": None, "annotate_ents": True, "ents_filter": {"@misc": "spacy_deid.phi_ents_filter.v1"}},
    )
    ruler.add_patterns(PHI_PATTERNS)
    return nlp


def ents(nlp, text):
    return [(e.text, e.label_) for e in nlp(text).ents]


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Seen on 03/14/2019, call 555-123-4567.", [("03/14/2019", "DATE"), ("555-123-4567", "PHONE")]),
        ("no id here, seen 2019-03-14", [("2019-03-14", "DATE")]),
        ("Tel (950) 478-1919 | Fax: (923) 426-6095", [("(950) 478-1919", "PHONE"), ("(923) 426-6095", "FAX")]),
        ("faxed to 228.328.3088 today", [("228.328.3088", "FAX")]),
        ("MR #: 1860694 and MRN 183946530", [("1860694", "MRN"), ("183946530", "MRN")]),
        ("Medical Record Number: 0001860694", [("0001860694", "MRN")]),
        ("Order ID: 9288-84246", [("9288-84246", "IDNUM")]),
        ("Medicaid #W044107445", [("W044107445", "IDNUM")]),
        ("Jacquelinemouth, NH 03592-1234", [("03592-1234", "ZIP")]),
        ("Springfield, Illinois 62704", [("62704", "ZIP")]),
        ("Albany, New York 12207-1234", [("12207-1234", "ZIP")]),
        ("a 42 y/o woman, age 45, a 96-year-old", [("42", "AGE"), ("45", "AGE"), ("96", "AGE")]),
        ("serial number 24-85466-P41 noted", [("24-85466-P41", "DEVICE")]),
        ("diagnosed in 2011 (2013) and 2/2013", [("2011", "DATE"), ("2013", "DATE"), ("2/2013", "DATE")]),
        ("email jane.doe@med.org or https://mychart.example.org", [("jane.doe@med.org", "EMAIL"), ("https://mychart.example.org", "URL")]),
        ("SSN 123-45-6789", [("123-45-6789", "SSN")]),
    ],
)
def test_structured_phi(nlp, text, expected):
    assert ents(nlp, text) == expected


def test_no_false_positives_on_scores_and_vitals(nlp):
    assert ents(nlp, "Pain 6/10, BP 147/67, shift (0700-1900), 3 tablets, score 98/52") == []


def test_existing_entities_win_over_matches():
    nlp = spacy.blank("en")
    nlp.add_pipe("span_ruler", name="pre", config={"spans_key": None, "annotate_ents": True})
    nlp.get_pipe("pre").add_patterns([{"label": "PATIENT", "pattern": [{"TEXT": "555"}]}])
    ruler = nlp.add_pipe("span_ruler", name="phi_ruler", config={
        "spans_key": None, "annotate_ents": True, "overwrite": False,
        "ents_filter": {"@misc": "spacy_deid.phi_ents_filter.v1"}})
    ruler.add_patterns(PHI_PATTERNS)
    assert ents(nlp, "call 555-123-4567 on 03/14/2019") == [("555", "PATIENT"), ("03/14/2019", "DATE")]


def test_written_patterns_load_with_the_reader(tmp_path):
    from spacy_deid.io.readers import phi_patterns_v1

    path = tmp_path / "p.jsonl"
    assert write_patterns(str(path)) == len(PHI_PATTERNS)
    assert phi_patterns_v1(str(path)) == json.loads(json.dumps(PHI_PATTERNS))
