"""The edit model: non-destructive edits on the original Doc's coordinates.

Every component records what it wants changed as a span of the *original* Doc in
one span group, ``doc.spans["deid"]``. The span label is the *reason*, i.e. what
found it (``NER``, ``PATTERN``, ``GAZETTEER``, ``LOW_FREQ``, ``BLACKLIST``, ``MLM``,
``SWAP``...), the replacement string is in the ``Span._.deid_replacement``
extension, the PHI *category* (``NAME``, ``DATE``, ``AGE``, ``LOCATION``,
``ORGANIZATION``, ``CONTACT``, ``ID``, ``OTHER``; None for edits of non-PHI words)
in ``Span._.deid_category``, the *method* that wrote the replacement
(``SURROGATE``, ``DATE_SHIFT``, ``MASK``, ``REDACT``, ``HASH``, ``ENCRYPT``,
``KEEP``, ``RESAMPLE``, ``SWAP``) in ``Span._.deid_method``, and optional audit data (which
component, a swap partner's id...) in ``Span._.deid_audit``. Nothing in the original text is
changed: ``doc._.deid_text`` renders the sanitised text from the original plus the
edits, so every change keeps its character offsets.

Overlap rule (documented in the README): edits are applied per token, and each
token shows the replacement of the *latest added* edit that covers it. A run of
consecutive tokens won by the same edit emits that edit's replacement once; the
whitespace after the run's last token is kept. Consequences: a downstream
component overrides an upstream decision simply by adding an edit over the same
tokens (the older edit stays in the span group as audit trail), and no original
token covered by *any* edit survives rendering, even when a later edit covers only
part of an earlier one (the uncovered part still shows the earlier replacement).

Every edit gets its own id (``Span.id``, a per-doc sequence number kept by the span
group's serialisation), and its replacement and audit live in ``doc.user_data``
under that id. spaCy keys plain ``Span._`` values by character offsets only, so two
edits over the same tokens would otherwise share one replacement and one audit,
and an overriding edit would erase the audit trail of the edit it overrides.
"""
import re
from dataclasses import dataclass
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from spacy.tokens import Doc, Span

SPAN_KEY = "deid"

# Reasons (what found an edit) used by the shipped components; any string label is accepted.
LOW_FREQ = "LOW_FREQ"
BLACKLIST = "BLACKLIST"
PATTERN = "PATTERN"
NER = "NER"
GAZETTEER = "GAZETTEER"
PHI = "PHI"  # an entity of doc.ents whose detector is not known
MLM = "MLM"
SWAP = "SWAP"
SURROGATE = "SURROGATE"

# PHI categories: every detector label maps to one of these (detect/labels.py).
CATEGORIES = ("NAME", "DATE", "AGE", "LOCATION", "ORGANIZATION", "CONTACT", "ID", "OTHER")

# Methods (what wrote an edit's replacement). KEEP restores the original words
# (a later component decided they are not PHI): it renders them as they were and
# is left out of output records.
KEEP = "KEEP"
METHODS = ("SURROGATE", "DATE_SHIFT", "MASK", "REDACT", "HASH", "ENCRYPT", "KEEP", "RESAMPLE", "SWAP")


def install_extensions() -> None:
    """Register the ``deid_`` extensions. Idempotent; never uses ``force=True``."""
    if not Span.has_extension("deid_replacement"):
        Span.set_extension(
            "deid_replacement", getter=_getter("replacement"), setter=_setter("replacement")
        )
    if not Span.has_extension("deid_audit"):
        Span.set_extension("deid_audit", getter=_getter("audit"), setter=_setter("audit"))
    if not Span.has_extension("deid_category"):
        Span.set_extension("deid_category", getter=_getter("category"), setter=_setter("category"))
    if not Span.has_extension("deid_method"):
        Span.set_extension("deid_method", getter=_getter("method"), setter=_setter("method"))
    if not Doc.has_extension("deid_text"):
        Doc.set_extension("deid_text", getter=render_text)
    if not Doc.has_extension("deid_record"):
        # Pass-through fields of the input record (id, patient_id, label): the
        # doc_swapper and the sanitize writer need them, the text never goes here.
        Doc.set_extension("deid_record", default=None)


_NEXT_ID = ("deid", "next_edit_id")


def _edit_key(span: Span, field: str) -> tuple:
    # Spans made by add_edit carry a non-zero id; any other span (id 0) falls back
    # to spaCy's own keying by character offsets.
    if span.id:
        return ("deid", field, span.id)
    return ("deid", field, span.start_char, span.end_char)


def _getter(field: str) -> Callable[[Span], object]:
    def get(span: Span) -> object:
        return span.doc.user_data.get(_edit_key(span, field))

    return get


def _setter(field: str) -> Callable[[Span, object], None]:
    def set_(span: Span, value: object) -> None:
        span.doc.user_data[_edit_key(span, field)] = value

    return set_


@dataclass(frozen=True)
class Segment:
    """One resolved, non-overlapping edit, in original token and char coordinates.

    start (int): first token index.
    end (int): token index after the last token.
    start_char (int): char offset of the first token.
    end_char (int): char offset after the last token (trailing whitespace excluded).
    label (str): the reason of the winning edit.
    replacement (str): what the segment renders as.
    category (Optional[str]): the PHI category of the winning edit (None: not PHI).
    method (Optional[str]): what wrote the replacement.
    """

    start: int
    end: int
    start_char: int
    end_char: int
    label: str
    replacement: str
    category: Optional[str] = None
    method: Optional[str] = None


def add_edit(
    doc: Doc,
    start: int,
    end: int,
    label: str,
    replacement: str,
    audit: Optional[dict] = None,
    *,
    category: Optional[str] = None,
    method: Optional[str] = None,
) -> Span:
    """Record an edit over tokens ``doc[start:end]``.

    doc (Doc): the original document.
    start (int): first token index.
    end (int): token index after the last token.
    label (str): the reason (what found it), e.g. ``"LOW_FREQ"``, ``"NER"``.
    replacement (str): the string that replaces the tokens' text.
    audit (Optional[dict]): JSON-serialisable audit data (never original text).
    category (Optional[str]): the PHI category (one of ``CATEGORIES``); None for
        an edit of a word that is not PHI (resampling, swapping).
    method (Optional[str]): what wrote the replacement (one of ``METHODS``).
    RETURNS (Span): the span added to ``doc.spans["deid"]``.
    """
    if category is not None and category not in CATEGORIES:
        raise ValueError(f"Unknown PHI category {category!r}; expected one of {', '.join(CATEGORIES)}")
    if not 0 <= start < end <= len(doc):
        raise ValueError(f"Edit [{start}, {end}) out of range for a doc of {len(doc)} tokens")
    if not isinstance(replacement, str):
        raise TypeError(f"Edit replacement must be a str, got {type(replacement).__name__}")
    edit_id = doc.user_data.get(_NEXT_ID, 1)
    doc.user_data[_NEXT_ID] = edit_id + 1
    span = Span(doc, start, end, label=label, span_id=edit_id)
    span._.deid_replacement = replacement
    if audit is not None:
        span._.deid_audit = audit
    if category is not None:
        span._.deid_category = category
    if method is not None:
        span._.deid_method = method
    group = doc.spans[SPAN_KEY] if SPAN_KEY in doc.spans else None
    if group is None:
        doc.spans[SPAN_KEY] = [span]
    else:
        group.append(span)
    return span


def get_edits(doc: Doc) -> List[Span]:
    """All recorded edits in the order they were added (the audit trail)."""
    if SPAN_KEY not in doc.spans:
        return []
    return list(doc.spans[SPAN_KEY])


def edited_tokens(doc: Doc) -> List[bool]:
    """A per-token flag: True where any edit covers the token."""
    flags = [False] * len(doc)
    for span in get_edits(doc):
        for i in range(span.start, span.end):
            flags[i] = True
    return flags


def resolve_edits(doc: Doc) -> List[Segment]:
    """Resolve overlapping edits into non-overlapping segments (module docstring rule).

    RETURNS (List[Segment]): segments sorted by position, never overlapping.
    """
    edits = get_edits(doc)
    if not edits:
        return []
    owner: Dict[int, int] = {}
    for idx, span in enumerate(edits):  # later edits overwrite earlier ones
        for i in range(span.start, span.end):
            owner[i] = idx
    segments: List[Segment] = []
    positions = sorted(owner)
    run_start = positions[0]
    for pos, nxt in zip(positions, positions[1:] + [None]):
        if nxt is not None and nxt == pos + 1 and owner[nxt] == owner[pos]:
            continue
        span = edits[owner[pos]]
        replacement = span._.deid_replacement
        segments.append(
            Segment(
                start=run_start,
                end=pos + 1,
                start_char=doc[run_start].idx,
                end_char=doc[pos].idx + len(doc[pos].text),
                label=span.label_,
                replacement="" if replacement is None else replacement,
                category=span._.deid_category,
                method=span._.deid_method,
            )
        )
        if nxt is not None:
            run_start = nxt
    return segments


@dataclass
class Rendering:
    """The sanitised text and the map from original to new character offsets."""

    text: str
    segments: List[Segment]
    # (orig_start_char, orig_end_char, new_start_char, new_end_char) per segment
    spans: List[Tuple[int, int, int, int]]

    def map_start(self, char: int) -> int:
        """New offset of an original *start* offset (a position inside a segment
        maps to the start of the segment's replacement)."""
        return self._map(char, is_end=False)

    def map_end(self, char: int) -> int:
        """New offset of an original *end* offset (a position inside a segment maps
        to the end of the segment's replacement)."""
        return self._map(char, is_end=True)

    def _map(self, char: int, is_end: bool) -> int:
        shift = 0
        for o_start, o_end, n_start, n_end in self.spans:
            if char < o_start or (is_end and char == o_start):
                break
            if char < o_end or (not is_end and char == o_start):
                return n_end if is_end else n_start
            if char == o_end:
                return n_end
            shift = n_end - o_end
        return char + shift


def render(doc: Doc) -> Rendering:
    """Render the sanitised text of ``doc`` from its original text and its edits."""
    text = doc.text
    segments = resolve_edits(doc)
    pieces: List[str] = []
    spans: List[Tuple[int, int, int, int]] = []
    cursor = 0
    out_len = 0
    for seg in segments:
        kept = text[cursor : seg.start_char]
        pieces.append(kept)
        out_len += len(kept)
        pieces.append(seg.replacement)
        spans.append((seg.start_char, seg.end_char, out_len, out_len + len(seg.replacement)))
        out_len += len(seg.replacement)
        cursor = seg.end_char
    pieces.append(text[cursor:])
    return Rendering(text="".join(pieces), segments=segments, spans=spans)


def render_text(doc: Doc) -> str:
    """Getter of ``doc._.deid_text``."""
    if SPAN_KEY not in doc.spans or not len(doc.spans[SPAN_KEY]):
        return doc.text
    return render(doc).text


def edits_as_records(doc: Doc) -> List[dict]:
    """The resolved edits as JSON records: original char offsets, the ``reason``,
    the PHI ``category`` (None: not PHI), the ``method`` and the replacement (the
    output contract of ``sanitize``). ``KEEP`` segments (words a later component
    restored) change nothing and are left out."""
    return [segment_record(s) for s in resolve_edits(doc) if s.method != KEEP]


def segment_record(seg: Segment, offset: int = 0) -> dict:
    """One resolved edit as a JSON record; ``offset`` is added to its char offsets
    (a document processed in pieces reports offsets into the whole text)."""
    return {
        "start": seg.start_char + offset,
        "end": seg.end_char + offset,
        "reason": seg.label,
        "category": seg.category,
        "method": seg.method,
        "replacement": seg.replacement,
    }


def map_char_spans(
    rendering: Rendering, spans: Iterable[Tuple[int, int, str]]
) -> List[Tuple[int, int, str]]:
    """Carry (start, end, label) char spans of the original text to the rendered text."""
    out = []
    for start, end, label in spans:
        new_start, new_end = rendering.map_start(start), rendering.map_end(end)
        if new_end > new_start:
            out.append((new_start, new_end, label))
    return out


def render_doc(
    doc: Doc,
    make_doc: Optional[Callable[[str], Doc]] = None,
    span_keys: Sequence[str] = (),
) -> Doc:
    """Build a new Doc from the edits, carrying entity spans to the new offsets.

    The entities of ``doc.ents`` (e.g. gold PHI) and the spans of ``span_keys`` are
    mapped through the rendering; an entity boundary inside an edited segment moves
    to that segment's replacement boundary, so labels survive and offsets are exact.
    The ``deid`` group itself is not carried over: the new Doc has no edits.

    doc (Doc): the original document with edits.
    make_doc (Optional[Callable[[str], Doc]]): tokenizer for the new text, usually
        ``nlp.make_doc``; without it the text is split on whitespace.
    span_keys (Sequence[str]): span groups to carry over in addition to ``ents``.
    RETURNS (Doc): the rendered document.
    """
    rendering = render(doc)
    new_doc = make_doc(rendering.text) if make_doc is not None else _whitespace_doc(doc, rendering)
    ents = map_char_spans(rendering, [(e.start_char, e.end_char, e.label_) for e in doc.ents])
    new_ents = []
    for start, end, label in ents:
        span = new_doc.char_span(start, end, label=label, alignment_mode="expand")
        if span is not None:
            new_ents.append(span)
    from spacy.util import filter_spans

    new_doc.ents = filter_spans(new_ents)
    for key in span_keys:
        if key == SPAN_KEY or key not in doc.spans:
            continue
        mapped = map_char_spans(
            rendering, [(s.start_char, s.end_char, s.label_) for s in doc.spans[key]]
        )
        new_doc.spans[key] = [
            sp
            for sp in (
                new_doc.char_span(s, e, label=l, alignment_mode="expand") for s, e, l in mapped
            )
            if sp is not None
        ]
    for key in ("deid_record",):
        if doc.has_extension(key):
            new_doc._.set(key, doc._.get(key))
    return new_doc


def _whitespace_doc(doc: Doc, rendering: Rendering) -> Doc:
    """Split the rendered text on whitespace (used when no tokenizer is given).

    Char-exact: a single space after a word becomes that token's trailing
    whitespace, any other whitespace run becomes a token of its own (as spaCy does).
    """
    words: List[str] = []
    spaces: List[bool] = []
    for tok in re.findall(r"\S+|\s+", rendering.text):
        if tok == " " and words and not spaces[-1] and not words[-1].isspace():
            spaces[-1] = True
        else:
            words.append(tok)
            spaces.append(False)
    return Doc(doc.vocab, words=words, spaces=spaces)
