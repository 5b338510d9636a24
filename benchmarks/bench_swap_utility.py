"""Utility of the doc_swapper on mtsamples (DataSifterText's measures).

For each variant the whole corpus is sanitised in one run (fit on the corpus, then
``nlp.pipe`` over it, as a one-shot release), then:
- same-cluster share (DataSifterText's utility measure): the share of sanitised
  documents that fall in the same cluster as their original. The reference
  clustering is one doc_swapper D(W) + MiniBatchKMeans fitted on the raw text
  (K = the 40 specialty labels), used for every variant;
- specialty classification macro-F1 (and accuracy): TF-IDF + LogisticRegression
  (balanced class weights) trained on the
  variant's text of a fixed 80 % split (seeded permutation) and tested on the
  variant's text of the other 20 % ("san->san"), and on the raw test text
  ("san->raw": a model trained on released data, used on real notes). Note:
  mtsamples lists most transcriptions under two specialties (4,759 of 4,966
  records share their text with another record), so the labels are ambiguous,
  scores are low for every variant and identical texts fall on both sides of the
  split;
- the share of word tokens covered by SWAP edits and of documents with a swap.

Variants: raw; doc_swapper with each method; frequency_masker alone and
frequency_masker + doc_swapper (the masker's default config, spacy_deid/configs/frequency.cfg),
when the frequency_masker is importable. The mlm_resampler needs a masked-LM
directory and is not part of this benchmark (see bench_datasifter.py).

Usage:
    python benchmarks/bench_swap_utility.py --data DATA/mtsamples.jsonl \
        --out benchmarks/results/swap_utility.json
"""
import argparse
import json
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

import numpy as np
import spacy

import spacy_deid  # noqa: F401
from spacy_deid.edits import SWAP, get_edits
from spacy_deid.io.records import read_jsonl_list
from spacy_deid.util import make_doc
from spacy_deid.io.atomic import write_json

ROOT = Path(__file__).resolve().parent.parent


def swapper_config(method: str, q: int, seed: int) -> dict:
    return {"method": method, "q": q, "n_clusters": None, "seed": seed}


def sanitise(records: List[dict], method: Optional[str], q: int, upstream: bool, seed: int, corpus_path: Path) -> Dict:
    """Fit the variant's pipeline on ``records`` and sanitise them; texts in input order."""
    if upstream:
        from spacy_deid.engines.fit import init_pipeline

        assets = ROOT / "spacy_deid" / "assets"
        overrides = {"paths.whitelist": str(assets / "whitelist.txt"), "paths.blacklist": str(assets / "blacklist.txt")}
        nlp = init_pipeline(ROOT / "spacy_deid" / "configs" / "frequency.cfg", corpus=corpus_path, overrides=overrides)
    else:
        nlp = spacy.blank("en")
    t0 = time.perf_counter()
    if method is not None:
        swapper = nlp.add_pipe("doc_swapper", config=swapper_config(method, q, seed))
        swapper.initialize(lambda: [], nlp=nlp, corpus=lambda: iter(records))
    fit_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    texts, n_swap_tokens, n_tokens, n_docs_swapped = [], 0, 0, 0
    for doc in nlp.pipe((make_doc(nlp, r) for r in records), batch_size=256):
        texts.append(doc._.deid_text)
        swapped = [e for e in get_edits(doc) if e.label_ == SWAP]
        covered = set()
        for e in swapped:
            covered.update(range(e.start, e.end))
        n_swap_tokens += sum(1 for i in covered if not doc[i].is_space and not doc[i].is_punct)
        n_tokens += sum(1 for t in doc if not t.is_space and not t.is_punct)
        n_docs_swapped += bool(swapped)
    pipe_s = time.perf_counter() - t0
    return {
        "texts": texts,
        "fit_s": round(fit_s, 2),
        "pipe_s": round(pipe_s, 2),
        "swapped_token_share": round(n_swap_tokens / max(1, n_tokens), 4),
        "docs_swapped_share": round(n_docs_swapped / max(1, len(records)), 4),
    }


def classify(train_texts, train_y, test_sets: Dict[str, List[str]], test_y, seed: int) -> Dict[str, float]:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import accuracy_score, f1_score
    from sklearn.pipeline import make_pipeline

    model = make_pipeline(
        TfidfVectorizer(sublinear_tf=True, min_df=2, max_df=0.9),
        # balanced class weights: 40 specialties from 6 to 1,088 notes each
        LogisticRegression(max_iter=2000, C=1.0, class_weight="balanced", random_state=seed),
    )
    model.fit(train_texts, train_y)
    out = {}
    for name, texts in test_sets.items():
        pred = model.predict(texts)
        out[name] = round(float(f1_score(test_y, pred, average="macro", zero_division=0)), 4)
        out[f"{name} accuracy"] = round(float(accuracy_score(test_y, pred)), 4)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="mtsamples.jsonl")
    parser.add_argument("--out", type=Path, default=None, help="write the results as JSON here")
    parser.add_argument("--limit", type=int, default=0, help="use only the first N records (0: all)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the split, the swapper and the classifier")
    parser.add_argument("--skip-frequency", action="store_true", help="skip the frequency_masker variants")
    args = parser.parse_args(argv)
    records = read_jsonl_list(args.data)
    corpus_path = args.data
    if args.limit:
        import tempfile

        records = records[: args.limit]
        corpus_path = Path(tempfile.mkdtemp(prefix="swap_utility_")) / "corpus.jsonl"
        corpus_path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf8")
    labels = np.array([r["label"] for r in records])
    order = np.random.default_rng(args.seed).permutation(len(records))
    n_train = int(0.8 * len(records))
    train_idx, test_idx = np.sort(order[:n_train]), np.sort(order[n_train:])
    raw = [r["text"] for r in records]

    # the reference clustering (on raw text) for the same-cluster share
    nlp = spacy.blank("en")
    reference = nlp.add_pipe("doc_swapper", config={"n_clusters": None, "seed": args.seed})
    reference.initialize(lambda: [], nlp=nlp, corpus=lambda: iter(records))
    raw_clusters = reference.predict(raw)

    variants = [
        ("raw", None, 0, False),
        ("swap rake_keyphrase q=1", "rake_keyphrase", 1, False),
        ("swap rake_keyphrase q=3", "rake_keyphrase", 3, False),
        ("swap rake_keyphrase q=5", "rake_keyphrase", 5, False),
        ("swap textrank q=3", "textrank", 3, False),
        ("swap rake_index 1", "rake_index", 1, False),
    ]
    if not args.skip_frequency:
        try:
            import spacy_deid.components.frequency_masker  # noqa: F401

            variants += [
                ("frequency_masker", None, 0, True),
                ("frequency_masker + swap rake_keyphrase q=3", "rake_keyphrase", 3, True),
            ]
        except ImportError as err:  # say which variants are skipped
            print(f"frequency_masker not available ({err}); its variants are skipped", file=sys.stderr)
    results = []
    for name, method, q, upstream in variants:
        if method is None and not upstream:
            out = {"texts": raw, "fit_s": 0.0, "pipe_s": 0.0, "swapped_token_share": 0.0, "docs_swapped_share": 0.0}
        else:
            out = sanitise(records, method, q, upstream, args.seed, corpus_path)
        texts = out.pop("texts")
        same = float(np.mean(reference.predict(texts) == raw_clusters))
        f1 = classify(
            [texts[i] for i in train_idx],
            labels[train_idx],
            {"san->san": [texts[i] for i in test_idx], "san->raw": [raw[i] for i in test_idx]},
            labels[test_idx],
            args.seed,
        )
        row = {"variant": name, "same_cluster_share": round(same, 4), "macro_f1": f1, **out}
        results.append(row)
        print(
            f"{name:44s} same-cluster {row['same_cluster_share']:.3f}  macro-F1 san->san {f1['san->san']:.3f} "
            f"san->raw {f1['san->raw']:.3f}  acc {f1['san->san accuracy']:.3f}/{f1['san->raw accuracy']:.3f}  swapped tokens {row['swapped_token_share']:.3f} "
            f"docs {row['docs_swapped_share']:.3f}  fit {row['fit_s']}s pipe {row['pipe_s']}s",
            flush=True,
        )
    report = {
        "data": str(args.data),
        "n_docs": len(records),
        "n_train": len(train_idx),
        "n_test": len(test_idx),
        "n_labels": int(len(set(labels.tolist()))),
        "reference_k": int(reference.cfg["n_clusters"]),
        "seed": args.seed,
        "results": results,
    }
    if args.out:
        write_json(args.out, report, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
