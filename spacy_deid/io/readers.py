"""Registered readers and shared policies (exposed as entry points in setup.cfg)."""
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Union

import srsly
from spacy.language import Language
from spacy.training import Example
from spacy.util import registry

from spacy_deid.resources import asset_path
from spacy_deid.io.records import FatalError, iter_records
from spacy_deid.util import Record, make_doc


@registry.readers("spacy_deid.io.records.v1")
def records_reader_v1(path: Optional[Union[str, Path]] = None, limit: int = 0) -> Optional[Callable[[], Iterator[Record]]]:
    """Stream the valid records of one of our JSONL files.

    Used as ``[initialize.components.NAME.corpus]`` so components learn corpus
    statistics from an explicit corpus (not from spaCy's dummy examples). Invalid
    lines are skipped here (``sanitize`` reports them); the file is re-read on
    every call, so memory stays constant.

    path (Optional[Union[str, Path]]): the JSONL file; None (``paths.corpus`` unset)
        gives None, and the component asking for it raises a clear config error.
    limit (int): read at most this many records (0: all).
    RETURNS (Optional[Callable[[], Iterator[dict]]]): a fresh stream on every call.
    """
    if path is None:
        return None
    path = Path(path)
    if not path.exists():
        raise FatalError(f"Corpus not found: {path}")

    def read() -> Iterator[Record]:
        return iter_records(path, limit=limit)

    return read


def spans_to_entities(record: Record, doc) -> List:
    """Align a record's gold spans with a Doc's tokens; a clear error when a span
    does not align with token boundaries or spans overlap."""
    ents = []
    last_end = -1
    for sp in sorted(record.get("spans") or [], key=lambda s: (s["start"], s["end"])):
        if sp["start"] < last_end:
            raise ValueError(
                f"Record {record.get('id')!r}: overlapping gold spans at characters "
                f"{sp['start']}-{sp['end']} (label {sp['label']})"
            )
        span = doc.char_span(sp["start"], sp["end"], label=sp["label"], alignment_mode="expand")
        if span is None:
            raise ValueError(
                f"Record {record.get('id')!r}: gold span {sp['start']}-{sp['end']} "
                f"(label {sp['label']}) does not align with tokens"
            )
        ents.append(span)
        last_end = sp["end"]
    return ents


def record_to_example(nlp: Language, record: Record, label_map: Optional[Dict[str, str]] = None) -> Example:
    """One gold Example: the reference Doc carries the record's spans as entities."""
    predicted = make_doc(nlp, record)
    reference = make_doc(nlp, record)
    spans = record.get("spans") or []
    if label_map:
        spans = [dict(s, label=label_map[s["label"]]) for s in spans if label_map.get(s["label"])]
    ents = spans_to_entities(dict(record, spans=spans), reference)
    from spacy.util import filter_spans

    filtered = filter_spans(ents)  # "expand" alignment can make adjacent spans touch
    reference.ents = filtered
    return Example(predicted, reference)


@registry.readers("spacy_deid.examples.v1")
def examples_reader_v1(
    path: Union[str, Path], limit: int = 0, label_map: Optional[Dict[str, str]] = None
) -> Callable[[Language], Iterator[Example]]:
    """Gold NER Examples from one of our JSONL files (for ``[corpora.train]``).

    path (Union[str, Path]): JSONL with ``text`` and ``spans``.
    limit (int): at most this many records (0: all).
    label_map (Optional[Dict[str, str]]): rename labels; labels mapped to an empty
        string are dropped.
    RETURNS (Callable[[Language], Iterator[Example]]): the corpus reader.
    """
    path = Path(path)

    def read(nlp: Language) -> Iterator[Example]:
        if not path.exists():
            raise FatalError(f"Corpus not found: {path}")
        for rec in iter_records(path, limit=limit):
            yield record_to_example(nlp, rec, label_map)

    return read


@registry.misc("spacy_deid.term_list.v1")
def term_list_v1(path: Optional[str] = None, terms: Iterable[str] = ()) -> List[str]:
    """A term list from a file (one term or phrase per line, ``#`` comments) and/or
    inline terms. Terms are matched case-insensitively by the components.

    path (Optional[str]): a text file, or None.
    terms (Iterable[str]): extra inline terms.
    RETURNS (List[str]): the terms, deduplicated, in first-seen order.
    """
    out: List[str] = []
    if path:
        try:
            p = asset_path(path)
        except FileNotFoundError:
            raise FatalError(f"Term list not found: {path}") from None
        for line in p.read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                out.append(line)
    out.extend(t.strip() for t in terms if t and t.strip())
    seen = set()
    return [t for t in out if not (t.lower() in seen or seen.add(t.lower()))]


@registry.misc("spacy_deid.phi_patterns.v1")
def phi_patterns_v1(path: Optional[str] = None) -> List[dict]:
    """Span-ruler patterns for structured PHI: a JSONL file of patterns, or the
    ones shipped with the package (``spacy_deid.detect.patterns``) when no path is given."""
    if path:
        try:
            p = asset_path(path)
        except FileNotFoundError:
            raise FatalError(f"PHI pattern file not found: {path}") from None
        return list(srsly.read_jsonl(p))
    from spacy_deid.detect.patterns import PHI_PATTERNS

    return list(PHI_PATTERNS)
