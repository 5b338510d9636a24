"""De-identification metrics over (gold record, output record) pairs.

Pure functions over records: a gold record is ``{"id", "text", "spans": [{start, end,
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

Standard detection scores (``detection_scores``): token- and entity-level
precision, recall and F1 per PHI category, the measures de-identification tools
are compared by.

Gold entities are the gold ``spans`` with their labels mapped to PHI categories
(``spacy_deid.detect.labels``; a gold label the map does not know counts as
``OTHER``: every gold span is PHI). Predicted entities are the output records'
edits that carry a category (an edit with no category, such as a resampled
non-PHI word, predicts nothing).

- **Token level** (i2b2 style): the ``\\w+`` tokens of the original text; a token
  is gold PHI of a category when a gold entity overlaps it, predicted PHI of a
  category when a predicted entity overlaps it. ``binary``: PHI or not, whatever
  the category; per category: a true positive needs the same category.
- **Entity level** (SemEval 2013 task 9.1, computed by ``nervaluate``) over
  character spans, four ways: ``strict`` (same boundaries and category),
  ``exact`` (same boundaries, any category), ``partial`` (overlapping
  boundaries, any category; a partial match counts one half) and ``ent_type``
  (overlapping boundaries, same category).

Precision = TP / predicted, recall = TP / gold, F1 = their harmonic mean; a
measure with nothing to divide by is 0.
"""
import bisect
import re
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from spacy_deid.edits import CATEGORIES

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
    index = SpanIndex(gold.get("spans") or [])
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


class SpanIndex:
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


ENTITY_SCHEMES = ("strict", "exact", "partial", "ent_type")

DEFINITIONS: Dict[str, str] = {
    "token binary": "Every \\w+ token of the original text: gold PHI when a gold span overlaps it, predicted PHI "
                    "when an edit with a PHI category overlaps it. Precision = TP/predicted, recall = TP/gold, "
                    "F1 = 2PR/(P+R).",
    "token per category": "As token binary, but a true positive needs the gold and predicted categories to agree.",
    "entity strict": "A predicted entity is correct when its character boundaries and category equal a gold entity's.",
    "entity exact": "Correct when the boundaries equal a gold entity's, whatever the category.",
    "entity partial": "Correct when the boundaries equal, half-correct when they overlap, whatever the category.",
    "entity ent_type": "Correct when the spans overlap and the categories agree.",
    "leak rate": "Share of gold PHI tokens whose text survives at its place in the output (not fully covered by "
                 "edits, or drawn back by a replacement). It also counts what a profile keeps on purpose: ages "
                 "under 90, states and the year of a shifted date (not identifiers under HIPAA Safe Harbor) and "
                 "the kind words of a surrogate (the 'General Hospital' of 'X General Hospital'); token-level "
                 "detection recall measures what the detectors miss.",
    "anywhere rate": "Share of gold PHI tokens whose text occurs as a word anywhere in the sanitised note.",
    "non-PHI kept": "Share of the tokens outside gold spans that survive at their place.",
}


def _prf(tp: int, n_pred: int, n_gold: int) -> Dict[str, float]:
    precision = tp / n_pred if n_pred else 0.0
    recall = tp / n_gold if n_gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "tp": tp, "predicted": n_pred, "gold": n_gold}


def gold_entities(gold: dict, label_map: Mapping[str, str]) -> List[dict]:
    """The gold spans of a record as ``{"start", "end", "label": CATEGORY}``."""
    return [
        {"start": int(s["start"]), "end": int(s["end"]), "label": label_map.get(str(s["label"]).upper(), "OTHER")}
        for s in gold.get("spans") or []
    ]


def predicted_entities(output: dict) -> List[dict]:
    """The edits of an output record that carry a PHI category, as ``{"start", "end", "label": CATEGORY}``."""
    return [
        {"start": int(e["start"]), "end": int(e["end"]), "label": e["category"]}
        for e in output.get("edits") or []
        if e.get("category") in CATEGORIES
    ]


def token_scores(pairs: Iterable[Tuple[dict, dict]], label_map: Optional[Mapping[str, str]] = None) -> dict:
    """Token-level precision, recall and F1: ``{"binary": {...}, "categories": {CATEGORY: {...}}}``."""
    from spacy_deid.detect.labels import make_label_map

    label_map = make_label_map() if label_map is None else label_map
    tp = n_pred = n_gold = 0
    per: Dict[str, List[int]] = {c: [0, 0, 0] for c in CATEGORIES}  # tp, predicted, gold
    for gold, output in pairs:
        if output.get("status", "ok") != "ok":
            continue
        gold_index = SpanIndex(gold_entities(gold, label_map))
        pred_index = SpanIndex(predicted_entities(output))
        for start, end in tokens(gold["text"]):
            g = gold_index.label_at(start, end)
            p = pred_index.label_at(start, end)
            n_gold += g is not None
            n_pred += p is not None
            tp += g is not None and p is not None
            if g is not None:
                per[g][2] += 1
            if p is not None:
                per[p][1] += 1
            if g is not None and g == p:
                per[g][0] += 1
    return {
        "binary": _prf(tp, n_pred, n_gold),
        "categories": {c: _prf(*v) for c, v in per.items() if v[1] or v[2]},
    }


def entity_scores(pairs: Sequence[Tuple[dict, dict]], label_map: Optional[Mapping[str, str]] = None) -> dict:
    """Entity-level scores with nervaluate: ``{"overall": {scheme: {...}},
    "categories": {CATEGORY: {scheme: {...}}}}``, each with precision, recall,
    f1 and nervaluate's counts (correct, incorrect, partial, missed, spurious)."""
    from nervaluate import Evaluator

    from spacy_deid.detect.labels import make_label_map

    label_map = make_label_map() if label_map is None else label_map
    ok = [(g, o) for g, o in pairs if o.get("status", "ok") == "ok"]
    # nervaluate's spans are inclusive at both ends; ours end one character later
    true = [[dict(e, end=e["end"] - 1) for e in gold_entities(g, label_map)] for g, _ in ok]
    pred = [[dict(e, end=e["end"] - 1) for e in predicted_entities(o)] for _, o in ok]
    if not ok:
        return {"overall": {}, "categories": {}}
    results = Evaluator(true, pred, tags=list(CATEGORIES), loader="dict").evaluate()

    def as_dict(result) -> dict:
        fields = ("precision", "recall", "f1", "correct", "incorrect", "partial", "missed", "spurious", "possible", "actual")
        return {f: getattr(result, f) for f in fields}

    return {
        "overall": {s: as_dict(results["overall"][s]) for s in ENTITY_SCHEMES},
        "categories": {
            tag: {s: as_dict(by_scheme[s]) for s in ENTITY_SCHEMES}
            for tag, by_scheme in sorted(results["entities"].items())
        },
    }


def detection_scores(pairs: Sequence[Tuple[dict, dict]], label_map: Optional[Mapping[str, str]] = None) -> dict:
    """Token- and entity-level scores of a sanitised corpus against its gold spans."""
    return {"token": token_scores(pairs, label_map), "entity": entity_scores(pairs, label_map)}
