"""Shipped span_ruler patterns for structured PHI (dates, phones, emails, IDs, ZIPs...).

Token patterns written against spaCy's English tokenizer, which splits
``2019-03-14`` and ``555-123-4567`` on hyphens between digits but keeps
``03/14/2019`` and ``555.123.4567`` whole. Used by
``@misc = "spacy_deid.phi_patterns.v1"`` (no path) and written to
``spacy_deid/assets/phi_patterns.jsonl`` for the project workflow with
``python scripts/write_phi_patterns.py spacy_deid/assets/phi_patterns.jsonl``.

Cue words: many identifiers are only recognisable by the word before them
(``MRN: 1860694``, ``Fax: 923-426-6095``, ``Job #: 640487``), but the PHI is the
value alone. Such patterns carry ``"id": "value"``; the ents filter
``spacy_deid.phi_ents_filter.v1`` resolves overlapping matches on the full match
(so ``Fax: 923-...`` beats the bare phone pattern) and then trims a ``value`` span
to its first..last token containing a digit (an opening parenthesis or ``+``
directly before the first digit token is kept).
"""
from typing import Callable, Dict, Iterable, List

from spacy.tokens import Span
from spacy.util import filter_spans, registry

_D = lambda n: {"TEXT": {"REGEX": rf"^\d{{{n}}}$"}}  # noqa: E731  exactly n digits
_HY = {"TEXT": {"IN": ["-", "–"]}}
_MONTHS = [
    "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december", "jan", "feb", "mar", "apr",
    "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
]
_MON_RE = "jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec"
_ID_CUES = ["mrn", "mr", "mrn#", "mr#", "pid"]
_STATES = [
    "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS", "KY", "LA",
    "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC", "ND", "OH", "OK",
    "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY", "DC",
]
_STATE_NAMES = [
    "Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado", "Connecticut", "Delaware", "Florida",
    "Georgia", "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa", "Kansas", "Kentucky", "Louisiana", "Maine",
    "Maryland", "Massachusetts", "Michigan", "Minnesota", "Mississippi", "Missouri", "Montana", "Nebraska",
    "Nevada", "New Hampshire", "New Jersey", "New Mexico", "New York", "North Carolina", "North Dakota", "Ohio",
    "Oklahoma", "Oregon", "Pennsylvania", "Rhode Island", "South Carolina", "South Dakota", "Tennessee", "Texas",
    "Utah", "Vermont", "Virginia", "Washington", "West Virginia", "Wisconsin", "Wyoming", "District of Columbia",
]
_PUNCT_OPT = {"TEXT": {"IN": ["#", ":", ".", "No", "no", "number", "Number", "is", "at"]}, "OP": "*"}
_VALUE = {"TEXT": {"REGEX": r"^[A-Za-z]{0,4}\d[\dA-Za-z\-]{2,}$"}}  # an ID token with a digit
_ALNUM_D = {"TEXT": {"REGEX": r"^[A-Za-z0-9]*\d[A-Za-z0-9]*$"}}
# an ID, possibly split on hyphens by the tokenizer: 9288-84246 -> 9288 - 84246
_ID_VALUE = [_VALUE, {"TEXT": "-", "OP": "?"}, {**_ALNUM_D, "OP": "?"}, {"TEXT": "-", "OP": "?"}, {**_ALNUM_D, "OP": "?"}]
_YEAR = {"TEXT": {"REGEX": r"^(19[2-9]\d|20[0-4]\d)$"}}  # not 1900/1915: shift times
_AGE_NUM = {"TEXT": {"REGEX": r"^(\d|[1-9]\d|1[01]\d)$"}}

# Phone number shapes (no cue), reused after cue words for FAX.
_PHONES: List[List[Dict]] = [
    [{"TEXT": "("}, _D(3), {"TEXT": ")"}, _D(3), _HY, _D(4)],
    [_D(3), _HY, _D(3), _HY, _D(4)],
    [{"TEXT": {"REGEX": r"^\d{3}\.\d{3}\.\d{4}$"}}],
    [{"TEXT": {"REGEX": r"^\+?1?\d{10}$"}}],
    [{"TEXT": {"REGEX": r"^\+1$"}}, {"TEXT": {"REGEX": r"^\(?\d{3}\)?$"}}, {"TEXT": {"REGEX": r"^[\d\-\.]{7,8}$"}}],
    [{"TEXT": {"REGEX": r"^\+1$"}}, {"TEXT": "("}, _D(3), {"TEXT": ")"}, _D(3), _HY, _D(4)],
]


def _cue(words: List[str], value: List[Dict], label: str) -> Dict:
    """A pattern: cue word(s), optional ``#``/``:``/``No``..., then the value."""
    cue = [{"LOWER": w} for w in words]
    return {"label": label, "id": "value", "pattern": [*cue, _PUNCT_OPT, *value]}


PHI_PATTERNS: List[Dict] = [
    # DATE (bare "6/10" is left alone: pain scores and ratios look the same)
    {"label": "DATE", "pattern": [{"TEXT": {"REGEX": r"^\d{1,2}/\d{1,2}/\d{2,4}$"}}]},
    {"label": "DATE", "pattern": [{"TEXT": {"REGEX": r"^\d{4}/\d{1,2}/\d{1,2}$"}}]},
    {"label": "DATE", "pattern": [{"TEXT": {"REGEX": r"^(0?[1-9]|1[0-2])/(19|20)\d\d$"}}]},
    {"label": "DATE", "pattern": [_D(4), _HY, {"TEXT": {"REGEX": r"^\d{1,2}$"}}, _HY, {"TEXT": {"REGEX": r"^\d{1,2}$"}}]},
    {"label": "DATE", "pattern": [{"TEXT": {"REGEX": r"^\d{1,2}$"}}, _HY, {"TEXT": {"REGEX": r"^\d{1,2}$"}}, _HY, _D(4)]},
    {"label": "DATE", "pattern": [{"TEXT": {"REGEX": r"^\d{1,2}$"}}, _HY, {"TEXT": {"REGEX": rf"(?i)^({_MON_RE})-\d{{2,4}}$"}}]},
    {"label": "DATE", "pattern": [{"TEXT": {"REGEX": rf"(?i)^\d{{1,2}}-({_MON_RE})-\d{{2,4}}$"}}]},
    {"label": "DATE", "pattern": [{"LOWER": {"IN": _MONTHS}}, {"TEXT": {"REGEX": r"^\d{1,2}(st|nd|rd|th)?$"}}, {"TEXT": ",", "OP": "?"}, _D(4)]},
    {"label": "DATE", "pattern": [{"LOWER": {"IN": _MONTHS}}, {"TEXT": {"REGEX": r"^\d{1,2}(st|nd|rd|th)?$"}}]},
    {"label": "DATE", "pattern": [{"LOWER": {"IN": _MONTHS}}, _D(4)]},
    {"label": "DATE", "pattern": [{"TEXT": {"REGEX": r"^\d{1,2}$"}}, {"LOWER": {"IN": _MONTHS}}, _D(4)]},
    {"label": "DATE", "id": "value", "pattern": [{"LOWER": {"IN": ["on", "since", "until", "dated"]}}, {"TEXT": {"REGEX": r"^(0?[1-9]|1[0-2])/(0?[1-9]|[12]\d|3[01])$"}}]},
    # a bare year after a cue: "in 1999", "since 2007", "(2013)"
    {"label": "DATE", "id": "value", "pattern": [{"LOWER": {"IN": ["in", "since", "until", "during", "from", "(", "circa"]}}, _YEAR]},
    # PHONE; FAX when a fax cue comes first
    *({"label": "PHONE", "pattern": p} for p in _PHONES),
    *(_cue(["fax"], p, "FAX") for p in _PHONES),
    *(_cue(["faxed", "to"], p, "FAX") for p in _PHONES),
    # EMAIL / URL
    {"label": "EMAIL", "pattern": [{"LIKE_EMAIL": True}]},
    {"label": "URL", "pattern": [{"LIKE_URL": True, "TEXT": {"REGEX": r"[/.]"}}]},
    # SSN
    {"label": "SSN", "pattern": [_D(3), _HY, _D(2), _HY, _D(4)]},
    # MRN / IDs after a cue word, in several formats
    {"label": "MRN", "id": "value", "pattern": [{"LOWER": {"IN": _ID_CUES}}, {"TEXT": {"IN": ["#", ":", "no", "No", "."]}, "OP": "*"}, {"TEXT": {"REGEX": r"^[A-Z]{0,3}\d[\d\-]{3,}$"}}]},
    {"label": "MRN", "id": "value", "pattern": [{"LOWER": {"IN": _ID_CUES}}, {"TEXT": {"IN": ["#", ":"]}, "OP": "*"}, {"TEXT": {"REGEX": r"^\d{2,3}$"}}, _HY, {"TEXT": {"REGEX": r"^\d{2,4}$"}}, _HY, {"TEXT": {"REGEX": r"^\d{2,4}$"}}]},
    _cue(["medical", "record", "number"], [_VALUE], "MRN"),
    _cue(["unit", "no"], [{"TEXT": {"REGEX": r"^\d{2,}$"}}, {"TEXT": {"REGEX": r"^\d{2,}$"}, "OP": "?"}], "MRN"),
    *(
        _cue(cue, _ID_VALUE, "IDNUM")
        for cue in (["accession"], ["account", "no"], ["encounter"], ["job"], ["member", "id"], ["order", "id"],
                    ["visit"], ["medicaid"], ["medicare"], ["insurance"], ["health", "plan"], ["policy"],
                    ["csn"], ["fin"], ["acct"], ["account"])
    ),
    {"label": "IDNUM", "pattern": [{"TEXT": {"REGEX": r"^(?=.*\d)[A-Z0-9]{2,}[-]?\d{5,}$"}}]},
    # DEVICE serial and lot numbers
    _cue(["serial", "number"], [{"TEXT": {"REGEX": r"^[A-Za-z0-9]*\d[A-Za-z0-9]*$"}}, {"TEXT": "-", "OP": "?"}, {"TEXT": {"REGEX": r"^[A-Za-z0-9]+$"}, "OP": "?"}, {"TEXT": "-", "OP": "?"}, {"TEXT": {"REGEX": r"^[A-Za-z0-9]+$"}, "OP": "?"}], "DEVICE"),
    _cue(["lot", "number"], [_VALUE], "DEVICE"),
    # ZIP after a state abbreviation or name
    {"label": "ZIP", "id": "value", "pattern": [{"TEXT": {"IN": _STATES}}, _D(5), {"TEXT": "-", "OP": "?"}, {"TEXT": {"REGEX": r"^\d{4}$"}, "OP": "?"}]},
    {"label": "ZIP", "id": "value", "pattern": [{"TEXT": {"IN": [n for n in _STATE_NAMES if " " not in n]}}, _D(5), {"TEXT": "-", "OP": "?"}, {"TEXT": {"REGEX": r"^\d{4}$"}, "OP": "?"}]},
    *[
        {"label": "ZIP", "id": "value", "pattern": [*({"TEXT": w} for w in name.split()), _D(5), {"TEXT": "-", "OP": "?"}, {"TEXT": {"REGEX": r"^\d{4}$"}, "OP": "?"}]}
        for name in _STATE_NAMES
        if " " in name
    ],
    # AGE: "93-year-old", "age 93", "93 yo", "42 y/o", "54 year old" (the number only)
    {"label": "AGE", "id": "value", "pattern": [_AGE_NUM, _HY, {"LOWER": {"IN": ["year", "yr"]}}, _HY, {"LOWER": "old"}]},
    {"label": "AGE", "id": "value", "pattern": [_AGE_NUM, {"LOWER": {"IN": ["year", "yr"]}}, {"LOWER": "old"}]},
    {"label": "AGE", "id": "value", "pattern": [{"LOWER": {"IN": ["age", "aged"]}}, {"TEXT": ":", "OP": "?"}, _AGE_NUM]},
    {"label": "AGE", "id": "value", "pattern": [_AGE_NUM, {"LOWER": {"IN": ["yo", "y/o", "yrs", "years"]}}]},
    {"label": "AGE", "id": "value", "pattern": [_AGE_NUM, {"LOWER": "y"}, {"TEXT": "/"}, {"LOWER": "o"}]},
]

VALUE_ID = "value"


def trim_to_value(span: Span) -> Span:
    """The part of a cue+value match that is the value: from the first to the last
    token with a digit; a ``+`` right before the first one is kept, and a ``(``
    when its ``)`` is inside the value (a phone's area code)."""
    digits = [t.i for t in span if any(c.isdigit() for c in t.text)]
    if not digits:
        return span
    start, end = digits[0], digits[-1] + 1
    doc = span.doc
    if start > span.start and doc[start - 1].text == "+":
        start -= 1
    # "(950) 478-1919" keeps its parenthesis, "(2013)" does not
    if start > span.start and doc[start - 1].text == "(" and any(doc[i].text == ")" for i in range(start, end)):
        start -= 1
    return Span(doc, start, end, label=span.label_, span_id=span.id_)


def phi_ents_filter(entities: Iterable[Span], spans: Iterable[Span], prioritize_existing: bool = True) -> List[Span]:
    """Resolve the ruler's matches: longest match first among the matches (cue
    included), then ``value`` matches trimmed to their value, then merged with the
    existing entities (kept when ``prioritize_existing``: e.g. the NER's)."""
    chosen = [trim_to_value(s) if s.id_ == VALUE_ID else s for s in filter_spans(list(spans))]
    entities = list(entities)
    if not prioritize_existing:
        return filter_spans(chosen + entities)
    taken = {i for e in entities for i in range(e.start, e.end)}
    return entities + [s for s in chosen if not any(i in taken for i in range(s.start, s.end))]


@registry.misc("spacy_deid.phi_ents_filter.v1")
def phi_ents_filter_v1(prioritize_existing: bool = True) -> Callable[[Iterable[Span], Iterable[Span]], List[Span]]:
    """The span_ruler ``ents_filter`` for the shipped patterns (see the module docstring).

    prioritize_existing (bool): entities set upstream (the NER) win over matches.
    RETURNS (Callable): the filter.
    """

    def ents_filter(entities: Iterable[Span], spans: Iterable[Span]) -> List[Span]:
        return phi_ents_filter(entities, spans, prioritize_existing)

    return ents_filter


def write_patterns(path: str) -> int:
    """Write ``PHI_PATTERNS`` as span_ruler JSONL; RETURNS the number written."""
    import srsly

    srsly.write_jsonl(path, PHI_PATTERNS)
    return len(PHI_PATTERNS)
