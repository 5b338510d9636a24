"""Statistics of the similarity filter after the mlm_resampler, and neighbour-search speed.

    python scripts/similarity_stats.py VECTORS_DIR MLM_DIR TEST.jsonl [N_NOTES]

Prints JSON: for epsilon 0 and 0.3, the share of MLM edits whose filtered choice
passed, how often the MLM's first candidate passed, the mean tries and similarity;
the time of CosineFilter.select_batch on 2,000 items; the candidate vocabulary size
and the time of one batched nearest-neighbour query for the test notes' PHI words.
No text is printed.
"""
import json
import sys
import time

import numpy as np
import spacy

import spacy_deid  # noqa: F401  (registers the components)
from spacy_deid.train.augment import load_pseudonymizer
from spacy_deid.edits import get_edits
from spacy_deid.io.records import iter_records
from spacy_deid.util import make_doc
from spacy_deid.components.similarity_filter import CosineFilter
from spacy_deid.train.vectors import load_vectors

vec_dir, mlm_dir, test = sys.argv[1:4]
n_notes = int(sys.argv[4]) if len(sys.argv) > 4 else 30
recs = list(iter_records(test, limit=n_notes))
out = {}
for eps in (0.0, 0.3):
    nlp = spacy.blank("en")
    nlp.vocab.vectors = load_vectors(vec_dir)
    nlp.add_pipe("mlm_resampler", config={"model": mlm_dir})
    nlp.add_pipe("similarity_filter", config={"policy": {"@misc": "spacy_deid.cosine_filter.v1", "epsilon": eps, "max_tries": 8}})
    nlp.initialize()
    t0 = time.time()
    docs = list(nlp.pipe((make_doc(nlp, r) for r in recs), batch_size=16))
    dt = time.time() - t0
    audits = [e._.deid_audit for d in docs for e in get_edits(d) if (e._.deid_audit or {}).get("filtered")]
    passed = [a for a in audits if a["passed"]]
    out[f"eps={eps}"] = {
        "filtered_edits": len(audits),
        "passed_share": round(len(passed) / max(len(audits), 1), 3),
        "mean_tries_when_passed": round(float(np.mean([a["tries"] for a in passed])), 2) if passed else None,
        "mean_similarity_passed": round(float(np.mean([a["similarity"] for a in passed])), 3) if passed else None,
        "first_candidate_passed_share": round(sum(a["tries"] == 1 for a in passed) / max(len(audits), 1), 3),
        "seconds_mlm+filter": round(dt, 1),
    }
# filter cost alone
vec = load_vectors(vec_dir)
items = [(w, ["fever", "pain", "cough", "denied", "stable", "noted", "patient", "history"]) for w in
         ["denies", "reports", "shows", "pain", "Smith", "12/03/2019", "the", "aspirin"] * 250]
t0 = time.time(); CosineFilter().select_batch(items, vec); dt = time.time() - t0
out["filter_select_batch_2000_words_8_candidates_s"] = round(dt, 3)
nlp = spacy.blank("en")
p = load_pseudonymizer(vec_dir, nlp.make_doc, 100)
out["candidate_vocabulary"] = len(p.candidates)
_ = p.matrix
qs = [r["text"][s["start"]:s["end"]] for r in recs for s in r["spans"]]
words = sorted({w for q in qs for w in q.split() if w.isalpha()})
t0 = time.time(); nb = p.nearest(words); dt = time.time() - t0
out["nearest_queries"] = len(words)
out["nearest_seconds"] = round(dt, 3)
print(json.dumps(out, indent=1))
