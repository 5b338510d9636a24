"""Shipped span_ruler patterns for structured PHI (dates, phones, emails, IDs, ZIPs...).

Token patterns written against spaCy's English tokenizer, which splits
``2019-03-14`` and ``555-123-4567`` on hyphens between digits but keeps
``03/14/2019`` and ``555.123.4567`` whole. Used by
``@misc = "spacy_deid.phi_patterns.v1"`` (no path) and written to
``assets/phi_patterns.jsonl`` for the project workflow.
"""
from typing import Dict, List

_D = lambda n: {"TEXT": {"REGEX": rf"^\d{{{n}}}$"}}  # noqa: E731  exactly n digits
_HY = {"TEXT": {"IN": ["-", "–"]}}
_MONTHS = [
    "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december", "jan", "feb", "mar", "apr",
    "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
]
_ID_CUES = ["mrn", "mr", "mrn#", "mr#", "acct", "account", "id", "fin", "csn", "pid"]

PHI_PATTERNS: List[Dict] = [
    # DATE
    {"label": "DATE", "pattern": [{"TEXT": {"REGEX": r"^\d{1,2}/\d{1,2}(/\d{2,4})?$"}}]},
    {"label": "DATE", "pattern": [{"TEXT": {"REGEX": r"^\d{4}/\d{1,2}/\d{1,2}$"}}]},
    {"label": "DATE", "pattern": [_D(4), _HY, {"TEXT": {"REGEX": r"^\d{1,2}$"}}, _HY, {"TEXT": {"REGEX": r"^\d{1,2}$"}}]},
    {"label": "DATE", "pattern": [{"TEXT": {"REGEX": r"^\d{1,2}$"}}, _HY, {"TEXT": {"REGEX": r"^\d{1,2}$"}}, _HY, _D(4)]},
    {"label": "DATE", "pattern": [{"LOWER": {"IN": _MONTHS}}, {"TEXT": {"REGEX": r"^\d{1,2}(st|nd|rd|th)?$"}}, {"TEXT": ",", "OP": "?"}, _D(4)]},
    {"label": "DATE", "pattern": [{"LOWER": {"IN": _MONTHS}}, {"TEXT": {"REGEX": r"^\d{1,2}(st|nd|rd|th)?$"}}]},
    {"label": "DATE", "pattern": [{"LOWER": {"IN": _MONTHS}}, _D(4)]},
    {"label": "DATE", "pattern": [{"TEXT": {"REGEX": r"^\d{1,2}$"}}, {"LOWER": {"IN": _MONTHS}}, _D(4)]},
    # PHONE / FAX (a cue word decides FAX)
    {"label": "PHONE", "pattern": [{"TEXT": "("}, _D(3), {"TEXT": ")"}, _D(3), _HY, _D(4)]},
    {"label": "PHONE", "pattern": [_D(3), _HY, _D(3), _HY, _D(4)]},
    {"label": "PHONE", "pattern": [{"TEXT": {"REGEX": r"^\d{3}\.\d{3}\.\d{4}$"}}]},
    {"label": "PHONE", "pattern": [{"TEXT": {"REGEX": r"^\+?1?\d{10}$"}}]},
    {"label": "PHONE", "pattern": [{"TEXT": {"REGEX": r"^\+1$"}}, {"TEXT": {"REGEX": r"^\(?\d{3}\)?$"}}, {"TEXT": {"REGEX": r"^[\d\-\.]{7,8}$"}}]},
    {"label": "FAX", "pattern": [{"LOWER": "fax"}, {"TEXT": ":", "OP": "?"}, _D(3), _HY, _D(3), _HY, _D(4)]},
    # EMAIL / URL
    {"label": "EMAIL", "pattern": [{"LIKE_EMAIL": True}]},
    {"label": "URL", "pattern": [{"LIKE_URL": True, "TEXT": {"REGEX": r"[/.]"}}]},
    # SSN
    {"label": "SSN", "pattern": [_D(3), _HY, _D(2), _HY, _D(4)]},
    # MRN / IDs after a cue word, in several formats
    {"label": "MRN", "pattern": [{"LOWER": {"IN": _ID_CUES}}, {"TEXT": {"IN": ["#", ":", "no", "No", "."]}, "OP": "*"}, {"TEXT": {"REGEX": r"^[A-Z]{0,3}\d[\d\-]{3,}$"}}]},
    {"label": "MRN", "pattern": [{"LOWER": {"IN": _ID_CUES}}, {"TEXT": {"IN": ["#", ":"]}, "OP": "*"}, {"TEXT": {"REGEX": r"^\d{2,3}$"}}, _HY, {"TEXT": {"REGEX": r"^\d{2,4}$"}}, _HY, {"TEXT": {"REGEX": r"^\d{2,4}$"}}]},
    {"label": "IDNUM", "pattern": [{"TEXT": {"REGEX": r"^(?=.*\d)[A-Z0-9]{2,}[-]?\d{5,}$"}}]},
    # ZIP after a state abbreviation
    {"label": "ZIP", "pattern": [{"TEXT": {"REGEX": r"^[A-Z]{2}$"}}, {"TEXT": {"REGEX": r"^\d{5}$"}}, {"TEXT": "-", "OP": "?"}, {"TEXT": {"REGEX": r"^\d{4}$"}, "OP": "?"}]},
    # AGE over 89 (HIPAA): "93-year-old", "age 93", "93 yo"
    {"label": "AGE", "pattern": [{"TEXT": {"REGEX": r"^(9\d|1[01]\d)$"}}, _HY, {"LOWER": {"IN": ["year", "yr"]}}, _HY, {"LOWER": "old"}]},
    {"label": "AGE", "pattern": [{"LOWER": {"IN": ["age", "aged"]}}, {"TEXT": {"REGEX": r"^(9\d|1[01]\d)$"}}]},
    {"label": "AGE", "pattern": [{"TEXT": {"REGEX": r"^(9\d|1[01]\d)$"}}, {"LOWER": {"IN": ["yo", "y/o", "yrs", "years"]}}]},
]
