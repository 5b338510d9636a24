"""Quality of the frequency_masker: PHI token leakage per label and share of
non-PHI tokens kept, measured with spacy_deid.eval.metrics.

Corpora (each is both the fit corpus and the evaluated corpus, as in a one-shot
de-identification run):
- a generated corpus (2,000 notes, 300 patients; made here when --corpus is not
  given; written to corpus/gen_2000_300.jsonl), counted by distinct patient, for k in {2,3,5,10} and keep_fraction in
  {0.8,0.9}, plus item-kind variants at k=5 and the phi_ruler (spacy_deid/configs/base.cfg
  patterns) upstream;
- synth_dataset_v2.jsonl and synthetic_clinical_queries.jsonl (no patient_id:
  counted by document);
- mtsamples.jsonl (no gold PHI: the over-masking rate = share of word tokens masked).

Usage:
    python benchmarks/bench_frequency_quality.py --data DATA --out benchmarks/results/frequency_quality.json
"""
import argparse
import json
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

import spacy

import spacy_deid  # noqa: F401
from spacy_deid.eval.metrics import evaluate_pairs
from spacy_deid.io.records import read_jsonl_list
from spacy_deid.engines.local import doc_to_output
from spacy_deid.util import make_doc
from spacy_deid.io.atomic import write_json


def run_setting(records: List[dict], config: Dict, whitelist: List[str], phi_ruler: bool = False) -> dict:
    """Fit a frequency_masker on ``records``, sanitise them, evaluate."""
    nlp = spacy.blank("en")
    if phi_ruler:
        from spacy_deid.io.readers import phi_patterns_v1

        ruler = nlp.add_pipe(
            "span_ruler",
            name="phi_ruler",
            config={"spans_key": None, "annotate_ents": True, "overwrite": False,
                    "ents_filter": {"@misc": "spacy.first_longest_spans_filter.v1"}},
        )
        ruler.add_patterns(phi_patterns_v1())
    fm = nlp.add_pipe("frequency_masker", config=config)
    t0 = time.perf_counter()
    fm.initialize(nlp=nlp, corpus=lambda: iter(records), whitelist=whitelist)
    fit_s = time.perf_counter() - t0
    docs = nlp.pipe((make_doc(nlp, r) for r in records), batch_size=256)
    outputs = [doc_to_output(doc, rec) for doc, rec in zip(docs, records)]
    report = evaluate_pairs(zip(records, outputs))
    report["k"] = fm.k
    report["fit_s"] = round(fit_s, 2)
    report["kept_share_fit"] = fm.stats.get("kept_share")
    return report


def fmt_row(name: str, rep: dict, labels: List[str]) -> str:
    cells = [name, str(rep["k"])]
    for label in labels:
        lab = rep["phi"].get(label)
        cells.append("-" if lab is None else f"{100 * lab['leak_rate']:.1f}")
    cells.append(f"{100 * rep['phi_all']['leak_rate']:.1f}")
    cells.append(f"{100 * rep['phi_all']['anywhere_rate']:.1f}")
    cells.append(f"{100 * rep['non_phi']['kept_share']:.1f}")
    return "| " + " | ".join(cells) + " |"


def table(title: str, rows: Dict[str, dict]) -> str:
    labels = sorted({lab for rep in rows.values() for lab in rep["phi"]})
    head = ["setting", "k", *labels, "all PHI", "all PHI, anywhere", "non-PHI kept"]
    lines = [f"**{title}** (leak rate % per gold label, at place; non-PHI kept %)", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += [fmt_row(name, rep, labels) for name, rep in rows.items()]
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True, help="folder with the corpora (synth_dataset_v2.jsonl, ...)")
    ap.add_argument("--corpus", type=Path, default=None, help="generated corpus JSONL (made when absent)")
    ap.add_argument("--whitelist", type=Path, default=Path("spacy_deid/assets/whitelist.txt"), help="whitelist file")
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/frequency_quality.json"), help="JSON results")
    ap.add_argument("--quick", action="store_true", help="only the generated corpus, k in {2,5}")
    args = ap.parse_args(argv)

    from spacy_deid.io.readers import term_list_v1

    whitelist = term_list_v1(str(args.whitelist)) if args.whitelist.exists() else []
    corpus = args.corpus
    if corpus is None:
        from spacy_deid.synth import generate_corpus

        corpus = Path("corpus/gen_2000_300.jsonl")  # corpus/ is git-ignored
        if not corpus.exists():
            generate_corpus(corpus, n_docs=2000, n_patients=300, seed=0, show_progress=False)
    results: Dict[str, Dict[str, dict]] = {}

    gen = read_jsonl_list(corpus)
    rows: Dict[str, dict] = {}
    ks = [2, 5] if args.quick else [2, 3, 5, 10]
    for k in ks:
        rows[f"text, k={k}"] = run_setting(gen, {"k": k}, whitelist)
        print(f"gen k={k} done", file=sys.stderr)
    if not args.quick:
        for frac in (0.8, 0.9):
            rows[f"text, keep_fraction={frac}"] = run_setting(gen, {"keep_fraction": frac}, whitelist)
        for kinds in (["text", "pattern"], ["text", "ngram"], ["stem"], ["text", "pattern", "ngram"]):
            rows[f"{'+'.join(kinds)}, k=5"] = run_setting(gen, {"k": 5, "kinds": kinds}, whitelist)
        rows["text, k=5, count by document"] = run_setting(gen, {"k": 5, "count_unit": "document"}, whitelist)
        rows["text, k=5, raw occurrences"] = run_setting(gen, {"k": 5, "count_unit": "occurrence"}, whitelist)
        rows["phi_ruler + text, k=5"] = run_setting(gen, {"k": 5}, whitelist, phi_ruler=True)
    results[f"generated ({len(gen)} notes)"] = rows

    if not args.quick:
        for name in ("synth_dataset_v2.jsonl", "synthetic_clinical_queries.jsonl", "mtsamples.jsonl"):
            path = args.data / name
            if not path.exists():
                print(f"skip {path}: not found", file=sys.stderr)
                continue
            recs = read_jsonl_list(path)
            rows = {}
            for k in (2, 3, 5, 10):
                rows[f"text, k={k}, by document"] = run_setting(recs, {"k": k, "count_unit": "document"}, whitelist)
            for frac in (0.8, 0.9):
                rows[f"text, keep_fraction={frac}, by document"] = run_setting(
                    recs, {"keep_fraction": frac, "count_unit": "document"}, whitelist
                )
            results[f"{name} ({len(recs)} records)"] = rows
            print(f"{name} done", file=sys.stderr)

    write_json(args.out, results, indent=1)
    for title, rows in results.items():
        print(table(title, rows))
        print()


if __name__ == "__main__":
    main()
