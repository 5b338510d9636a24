"""How the replaced text reads: dates, names, punctuation, and what stays of texts without PHI.

On a corpus with gold PHI spans (e.g. ``spacy-deid generate`` notes), every record
goes through a fitted pipeline; with ``--oracle`` the gold spans are given to it as
``doc.ents`` (a perfect NER), so the numbers measure the replacement, not the
detection. Measured:

Gold labels are read through the default label map (``DATE_TIME`` is a date,
``PERSON`` a name...).

- ``dates.valid_same_format``: of the gold dates written as a full calendar day,
  the share whose covering edit is a valid date in the format of the text it
  replaced (same separators, field order, month-name style and case); a date no
  edit covers counts as a miss (``valid_same_format_of_replaced`` leaves the
  misses of detection out);
- ``dates.intervals_kept``: of the pairs of dated (with a year) gold dates of one
  patient, the share whose interval in days is the same after replacement;
- ``names.consistent``: of the patient names written at least twice for one patient
  (clinician names: in the corpus), the share that always get the same surrogate;
- ``punctuation_only``: edits that replace words with punctuation only.

With ``--texts PATH`` (records without PHI, e.g. the hard negatives of a query set,
``--texts-filter hard_negative``) the share of their words kept and of texts left
unchanged.

    python benchmarks/bench_surrogates.py --pipeline PIPE --corpus notes.jsonl --oracle \\
        --texts queries.jsonl --texts-filter hard_negative --out results/surrogates.json
"""
import argparse
import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Dict, Iterable, List, Optional

import spacy
from spacy.tokens import Doc

import spacy_deid  # noqa: F401
from spacy_deid.detect.labels import DEFAULT_LABEL_MAP
from spacy_deid.edits import KEEP, resolve_edits
from spacy_deid.surrogates.dates import parse_date
from spacy_deid.io.atomic import write_json

_WORD = re.compile(r"\w+")


def date_skeleton(text: str) -> str:
    """The format of a date text: digit runs -> 9, month/weekday words -> their case
    pattern, everything else kept."""
    out = re.sub(r"\d+", "9", text)
    return re.sub(r"[A-Za-z]+", lambda m: "A" if m.group(0).isupper() else "a" if m.group(0).islower() else "Aa", out)


def run(nlp, records: List[dict], oracle: bool) -> Iterable[Doc]:
    def docs():
        for rec in records:
            doc = nlp.make_doc(rec["text"])
            doc._.deid_record = {k: rec[k] for k in ("id", "patient_id") if rec.get(k) is not None}
            if oracle:
                ents = [doc.char_span(s["start"], s["end"], label=s["label"], alignment_mode="expand") for s in rec.get("spans", [])]
                doc.ents = spacy.util.filter_spans([e for e in ents if e is not None])
            yield doc

    return nlp.pipe(docs(), batch_size=64)


def measure_notes(nlp, records: List[dict], oracle: bool, misses: Optional[list] = None) -> Dict:
    n_day_dates = n_valid = n_covered = 0
    shifts: Dict[str, List] = defaultdict(list)
    names: Dict[tuple, set] = defaultdict(set)
    name_counts: Dict[tuple, int] = defaultdict(int)
    n_edits = n_punct = 0
    for rec, doc in zip(records, run(nlp, records, oracle)):
        segs = [s for s in resolve_edits(doc) if s.method != KEEP]
        by_span = {(s.start_char, s.end_char): s for s in segs}
        for seg in segs:
            original = doc.text[seg.start_char : seg.end_char]
            n_edits += 1
            if _WORD.search(original) and seg.replacement and not _WORD.search(seg.replacement):
                n_punct += 1
        for span in rec.get("spans", []):
            seg = by_span.get((span["start"], span["end"]))
            original = rec["text"][span["start"] : span["end"]]
            category = DEFAULT_LABEL_MAP.get(span["label"])
            if category == "DATE":
                parsed = parse_date(original)
                if parsed is None:
                    continue
                n_day_dates += 1
                # the edit that covers the gold date (a detector may take a time or a cue with it)
                cover = [s for s in segs if s.start_char <= span["start"] and span["end"] <= s.end_char]
                seg = cover[0] if cover else None
                seg_original = doc.text[seg.start_char : seg.end_char] if seg is not None else ""
                n_covered += seg is not None
                new = parse_date(seg.replacement) if seg is not None else None
                if new is not None and date_skeleton(seg.replacement) == date_skeleton(seg_original):
                    n_valid += 1
                    if not parsed[1] and not new[1]:
                        shifts[rec.get("patient_id") or rec["id"]].append((parse_date(seg_original)[0], new[0]))
                elif misses is not None and len(misses) < 30:
                    misses.append((original, seg_original, seg.replacement if seg is not None else None))
            elif category == "NAME" and seg is not None:
                clinician = span["label"] in ("DOCTOR", "STAFF", "HCW", "USERNAME")
                scope = "corpus" if clinician else rec.get("patient_id") or rec["id"]
                key = ("clinician" if clinician else "person", scope, original.lower())
                names[key].add(seg.replacement.lower())
                name_counts[key] += 1
    pairs = kept = 0
    for dates in shifts.values():
        for (a, sa), (b, sb) in zip(dates, dates[1:]):
            pairs += 1
            kept += (b - a).days == (sb - sa).days
    repeated = [k for k, n in name_counts.items() if n >= 2]
    consistent = sum(len(names[k]) == 1 for k in repeated)
    by_label = {
        label: {
            "names": sum(k[0] == label for k in repeated),
            "consistent": sum(k[0] == label and len(names[k]) == 1 for k in repeated),
        }
        for label in ("person", "clinician")
    }
    return {
        "n_records": len(records),
        "dates": {"n_day_precision": n_day_dates, "n_replaced": n_covered,
                  "valid_same_format": n_valid / max(n_day_dates, 1),
                  "valid_same_format_of_replaced": n_valid / max(n_covered, 1),
                  "n_pairs": pairs, "intervals_kept": kept / max(pairs, 1)},
        "names": {"n_repeated": len(repeated), "consistent": consistent / max(len(repeated), 1), "by_label": by_label},
        "edits": n_edits,
        "punctuation_only": n_punct,
    }


def measure_texts(nlp, records: List[dict]) -> Dict:
    n_words = n_kept = n_unchanged = 0
    for rec, doc in zip(records, run(nlp, records, oracle=False)):
        segs = [s for s in resolve_edits(doc) if s.method != KEEP]
        n_unchanged += not segs
        for m in _WORD.finditer(rec["text"]):
            n_words += 1
            n_kept += not any(s.start_char < m.end() and m.start() < s.end_char for s in segs)
    return {"n_texts": len(records), "words_kept": n_kept / max(n_words, 1), "n_words": n_words,
            "unchanged_texts": n_unchanged / max(len(records), 1)}


def read(path: Path, limit: int = 0, only: str = "") -> List[dict]:
    out = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            if only and not rec.get(only):
                continue
            out.append(rec)
            if limit and len(out) >= limit:
                break
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pipeline", required=True, help="a fitted pipeline directory")
    ap.add_argument("--corpus", type=Path, help="records with gold spans")
    ap.add_argument("--oracle", action="store_true", help="give the gold spans to the pipeline as doc.ents")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--texts", type=Path, help="records without PHI")
    ap.add_argument("--texts-filter", default="", help="keep only records where this field is true")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    nlp = spacy.load(args.pipeline)
    result = {"pipeline": args.pipeline, "pipes": nlp.pipe_names}
    if args.corpus:
        result["notes"] = measure_notes(nlp, read(args.corpus, args.limit), args.oracle)
        result["notes"]["oracle"] = args.oracle
    if args.texts:
        result["texts"] = measure_texts(nlp, read(args.texts, 0, args.texts_filter))
    print(json.dumps(result, indent=2))
    if args.out:
        write_json(args.out, result, indent=2)


if __name__ == "__main__":
    main()
