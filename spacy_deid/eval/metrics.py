"""De-identification metrics over (gold record, output record) pairs.

Pure functions, no spaCy: a gold record is ``{"id", "text", "spans": [{start, end,
label}]}``; an output record is what ``sanitize`` writes: ``{"id", "status",
"deid_text", "edits": [{start, end, label, replacement}]}`` with the edits'
``start``/``end`` in the *original* text's characters (non-overlapping, as
``edits_as_records`` resolves them).

Tokens are the regex ``\\w+`` matches of the original text (so punctuation never
counts, and the tokenisation does not depend on the pipeline under test). A gold
PHI token is one that overlaps a gold span; the others are non-PHI tokens.

- **survives** (a token's text is still at its place in the output): the token is
  not fully covered by edits, or an edit covering it has a replacement that
  contains the token's text as a word (case-insensitively; e.g. an MLM that drew
  the original word back). ``leak rate`` = surviving PHI tokens / PHI tokens, per
  gold label; ``non-PHI kept share`` = surviving non-PHI tokens / non-PHI tokens;
  ``over-masking`` = 1 - kept share.
- **anywhere** (stricter): the PHI token's text occurs as a word anywhere in the
  output text (``deid_text``), wherever it came from. Short tokens (e.g. ``12`` of
  a date) match often by chance; ``min_chars`` filters them out when wanted.

Records whose output has ``status`` other than ``"ok"`` are counted in
``n_errors`` and excluded (they produced no text, so they leak nothing).
"""
import bisect
import re
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

TOKEN_RE = re.compile(r"\w+")


@dataclass
class LabelCounts:
    """Counts of one PHI label (or of all labels)."""

    n: int = 0
    leaked: int = 0
    leaked_anywhere: int = 0

    def add(self, other: "LabelCounts") -> None:
        self.n += other.n
        self.leaked += other.leaked
        self.leaked_anywhere += other.leaked_anywhere

    def as_dict(self) -> dict:
        return {
            "n": self.n,
            "leaked": self.leaked,
            "leak_rate": self.leaked / self.n if self.n else 0.0,
            "leaked_anywhere": self.leaked_anywhere,
            "anywhere_rate": self.leaked_anywhere / self.n if self.n else 0.0,
        }


@dataclass
class PairCounts:
    """Counts of one (gold, output) pair, or of many summed."""

    phi: Dict[str, LabelCounts] = field(default_factory=dict)
    non_phi: int = 0
    non_phi_kept: int = 0
    n_docs: int = 0
    n_errors: int = 0

    def add(self, other: "PairCounts") -> None:
        for label, counts in other.phi.items():
            self.phi.setdefault(label, LabelCounts()).add(counts)
        self.non_phi += other.non_phi
        self.non_phi_kept += other.non_phi_kept
        self.n_docs += other.n_docs
        self.n_errors += other.n_errors

    def as_dict(self) -> dict:
        total = LabelCounts()
        for counts in self.phi.values():
            total.add(counts)
        kept = self.non_phi_kept / self.non_phi if self.non_phi else 1.0
        return {
            "n_docs": self.n_docs,
            "n_errors": self.n_errors,
            "phi": {label: self.phi[label].as_dict() for label in sorted(self.phi)},
            "phi_all": total.as_dict(),
            "non_phi": {"n": self.non_phi, "kept": self.non_phi_kept, "kept_share": kept, "over_masking": 1.0 - kept},
        }


def tokens(text: str) -> List[Tuple[int, int]]:
    """The ``\\w+`` tokens of ``text`` as (start, end) character offsets."""
    return [m.span() for m in TOKEN_RE.finditer(text)]


def _word_in(word: str, text: str) -> bool:
    """``word`` occurs in ``text`` as a whole ``\\w+`` token, case-insensitively."""
    if not word or not text:
        return False
    pattern = r"(?<!\w)" + re.escape(word) + r"(?!\w)"
    return re.search(pattern, text, flags=re.IGNORECASE) is not None


def survives(start: int, end: int, text: str, edits: Sequence[dict], edit_starts: Optional[Sequence[int]] = None) -> bool:
    """Whether the original text ``text[start:end]`` survives at its place.

    start (int): token start in the original text.
    end (int): token end (exclusive).
    text (str): the original text.
    edits (Sequence[dict]): non-overlapping edits sorted by ``start``.
    edit_starts (Optional[Sequence[int]]): ``[e["start"] for e in edits]`` (pass it
        when calling many times).
    RETURNS (bool): True when the token's text is still there.
    """
    if edit_starts is None:
        edit_starts = [e["start"] for e in edits]
    # edits that may overlap [start, end): from the last one starting <= start on
    i = bisect.bisect_right(edit_starts, start) - 1
    i = max(i, 0)
    covered = 0
    replacements: List[str] = []
    while i < len(edits) and edits[i]["start"] < end:
        e = edits[i]
        lo, hi = max(start, e["start"]), min(end, e["end"])
        if hi > lo:
            covered += hi - lo
            replacements.append(e.get("replacement") or "")
        i += 1
    if covered < end - start:
        return True
    word = text[start:end]
    return any(_word_in(word, rep) for rep in replacements)


def pair_counts(gold: dict, output: dict, min_chars: int = 1) -> PairCounts:
    """Leakage and kept counts of one document.

    gold (dict): ``{"text", "spans": [{start, end, label}]}``.
    output (dict): ``{"status", "deid_text", "edits": [{start, end, replacement}]}``.
    min_chars (int): PHI tokens shorter than this are left out of the "anywhere" count
        (they still count in the at-place leakage).
    RETURNS (PairCounts): the counts.
    """
    out = PairCounts(n_docs=1)
    if output.get("status", "ok") != "ok":
        out.n_docs, out.n_errors = 0, 1
        return out
    text = gold["text"]
    edits = sorted(output.get("edits") or [], key=lambda e: (e["start"], e["end"]))
    edit_starts = [e["start"] for e in edits]
    index = _SpanIndex(gold.get("spans") or [])
    deid_text = output.get("deid_text") or ""
    for start, end in tokens(text):
        label = index.label_at(start, end)
        kept = survives(start, end, text, edits, edit_starts)
        if label is None:
            out.non_phi += 1
            out.non_phi_kept += int(kept)
            continue
        counts = out.phi.setdefault(label, LabelCounts())
        counts.n += 1
        counts.leaked += int(kept)
        word = text[start:end]
        if len(word) >= min_chars and _word_in(word, deid_text):
            counts.leaked_anywhere += 1
    return out


class _SpanIndex:
    """Gold spans sorted by start, with a running max of ends, to find the span
    overlapping a token in O(log n) (spans of raw data may nest)."""

    def __init__(self, spans: Sequence[dict]):
        self.spans = sorted(spans, key=lambda s: (s["start"], s["end"]))
        self.starts = [s["start"] for s in self.spans]
        self.max_end: List[int] = []
        m = -1
        for s in self.spans:
            m = max(m, s["end"])
            self.max_end.append(m)

    def label_at(self, start: int, end: int) -> Optional[str]:
        """The label of a gold span overlapping [start, end), or None."""
        j = bisect.bisect_left(self.starts, end) - 1  # last span starting before end
        while j >= 0 and self.max_end[j] > start:
            if self.spans[j]["end"] > start:
                return self.spans[j]["label"]
            j -= 1
        return None


def evaluate_pairs(pairs: Iterable[Tuple[dict, dict]], min_chars: int = 1) -> dict:
    """Leakage per label, the stricter anywhere-count, and the non-PHI kept share
    over many documents.

    pairs (Iterable[Tuple[dict, dict]]): (gold record, output record).
    min_chars (int): see ``pair_counts``.
    RETURNS (dict): ``{"n_docs", "n_errors", "phi": {label: {n, leaked, leak_rate,
        leaked_anywhere, anywhere_rate}}, "phi_all": {...}, "non_phi": {n, kept,
        kept_share, over_masking}}``.
    """
    total = PairCounts()
    for gold, output in pairs:
        total.add(pair_counts(gold, output, min_chars=min_chars))
    return total.as_dict()


def join_by_id(golds: Iterable[dict], outputs: Iterable[dict]) -> List[Tuple[dict, dict]]:
    """Pair gold and output records by ``id`` (outputs without a gold record are
    dropped; a gold record without output raises, since it would hide a loss).

    RETURNS (List[Tuple[dict, dict]]): the pairs in gold order.
    """
    by_id = {o["id"]: o for o in outputs}
    pairs = []
    for g in golds:
        if g["id"] not in by_id:
            raise KeyError(f"No output record for gold record {g['id']!r}")
        pairs.append((g, by_id[g["id"]]))
    return pairs
