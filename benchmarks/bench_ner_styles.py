"""Recall of a trained PHI NER on notes of every writing style and case.

Scores the ``ner`` of a pipeline trained by ``spacy train spacy_deid/configs/ner_tok2vec.cfg``
(the ``train_ner`` step; the pattern ruler is left out unless ``--with-ruler``) on:

- held-out generated notes of each style (``prose``, ``upper``, ``lower``), generated
  with a seed the training notes did not use;
- labelled JSONL sets given with ``--data`` (e.g. ``synth_dataset_v2.jsonl``,
  ``synthetic_clinical_queries.jsonl``), as written and in UPPER and lower copies.

Gold and predicted labels are mapped to the PHI categories by
``spacy_deid.detect.labels.DEFAULT_LABEL_MAP`` (unmapped = not PHI). Per set: the share
of gold PHI tokens inside a predicted PHI entity (any category; what a replacer
would remove), that share by category, and entity precision / recall / F1 (same
start, end and category). Predicted entities of a category the set never annotates
(e.g. AGE under 90, PROFESSION in a set of HIPAA identifiers only) are not counted
as false positives. Prints one table and writes JSON; never prints note text.

Usage:
    python benchmarks/bench_ner_styles.py --ner training/ner/model-best \\
        --data DATA/synth_dataset_v2.jsonl DATA/synthetic_clinical_queries.jsonl \\
        --out benchmarks/results/ner_styles.json
"""
import argparse
import json
import time
from collections import Counter
from pathlib import Path
from typing import Dict, List, Tuple

from spacy_deid.io.atomic import write_json

CASES = ("as_written", "upper", "lower")


def score(nlp, records: List[dict], label_map: Dict[str, str]) -> dict:
    """Token recall (overall, by category) and entity P/R/F1 of ``nlp`` on gold records."""
    from spacy_deid.detect.labels import category_of

    gold_tok: Counter = Counter()
    found_tok: Counter = Counter()
    tp = fp = fn = 0
    gold_cats = {category_of(sp["label"], label_map) for r in records for sp in r["spans"]} - {None}
    docs = nlp.pipe((r["text"] for r in records), batch_size=64)
    for rec, doc in zip(records, docs):
        pred = {(e.start_char, e.end_char, category_of(e.label_, label_map)) for e in doc.ents}
        pred = {p for p in pred if p[2] in gold_cats}
        covered = set()
        for s, e, _ in pred:
            covered.update(range(s, e))
        gold = set()
        for sp in rec["spans"]:
            cat = category_of(sp["label"], label_map)
            if cat is None:
                continue
            gold.add((sp["start"], sp["end"], cat))
            span = doc.char_span(sp["start"], sp["end"], alignment_mode="expand")
            for tok in span if span is not None else []:
                if not (tok.is_punct or tok.is_space):
                    gold_tok[cat] += 1
                    found_tok[cat] += int(tok.idx in covered)
        tp += len(gold & pred)
        fp += len(pred - gold)
        fn += len(gold - pred)
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    n_gold = sum(gold_tok.values())
    return {
        "docs": len(records),
        "phi_tokens": n_gold,
        "token_recall": round(sum(found_tok.values()) / n_gold, 4) if n_gold else None,
        "token_recall_by_category": {c: round(found_tok[c] / gold_tok[c], 4) for c in sorted(gold_tok)},
        "ents_p": round(p, 4),
        "ents_r": round(r, 4),
        "ents_f": round(2 * p * r / (p + r), 4) if p + r else 0.0,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ner", required=True, help="trained NER pipeline directory (training/ner/model-best)")
    ap.add_argument("--data", nargs="*", default=[], help="labelled JSONL sets")
    ap.add_argument("--n-generated", type=int, default=150, help="held-out generated notes per style")
    ap.add_argument("--seed", type=int, default=1000, help="seed of the held-out generated notes")
    ap.add_argument("--limit", type=int, default=0, help="at most this many records of each --data set (0: all)")
    ap.add_argument("--with-ruler", action="store_true", help="keep the pipeline's pattern ruler")
    ap.add_argument("--out", type=Path, default=None, help="JSON results file")
    args = ap.parse_args()

    import spacy

    from spacy_deid.detect.labels import DEFAULT_LABEL_MAP
    from spacy_deid.io.records import read_jsonl_list
    from spacy_deid.synth import generate_records
    from spacy_deid.synth.generator import recase

    nlp = spacy.load(args.ner)
    keep = {"tok2vec", "ner"} | ({"phi_ruler"} if args.with_ruler else set())
    disabled = [n for n in nlp.pipe_names if n not in keep]
    for name in disabled:
        nlp.disable_pipe(name)
    sets: List[Tuple[str, List[dict]]] = []
    n_pat = max(1, args.n_generated // 5)
    for style in ("prose", "upper", "lower"):
        sets.append((f"generated/{style}", list(generate_records(args.n_generated, n_pat, seed=args.seed, style=style))))
    for path in args.data:
        recs = read_jsonl_list(path)
        if args.limit:
            recs = recs[: args.limit]
        for case in CASES:
            cased = recs if case == "as_written" else [dict(r, text=recase(r["text"], case)) for r in recs]
            sets.append((f"{Path(path).stem}/{case}", cased))
    results = {"ner": str(args.ner), "components": [n for n in nlp.pipe_names if n not in disabled], "sets": {}}
    print(f"{'set':45s} {'docs':>5s} {'tok_rec':>8s} {'ents_p':>7s} {'ents_r':>7s} {'ents_f':>7s}  by category (token recall)")
    for name, recs in sets:
        t0 = time.perf_counter()
        res = score(nlp, recs, DEFAULT_LABEL_MAP)
        res["seconds"] = round(time.perf_counter() - t0, 1)
        results["sets"][name] = res
        cats = " ".join(f"{c}={v:.3f}" for c, v in res["token_recall_by_category"].items())
        print(f"{name:45s} {res['docs']:5d} {res['token_recall'] or 0:8.3f} {res['ents_p']:7.3f} {res['ents_r']:7.3f} "
              f"{res['ents_f']:7.3f}  {cats}", flush=True)
    if args.out:
        write_json(args.out, results, indent=2)


if __name__ == "__main__":
    main()
