"""Utility and cross-document privacy measures over (gold, output) record pairs.

- ``classification_f1``: macro-F1 of a TF-IDF + logistic-regression classifier of a
  record label (e.g. the mtsamples specialty), by grouped k-fold cross-validation
  (copies of a text in one fold), on raw text and on sanitised text (train on
  sanitised, test on sanitised).
- ``same_cluster_share``: DataSifterText's utility measure: fit TF-IDF + MiniBatch
  K-means on the raw texts, assign raw and sanitised texts, and report the share
  of documents whose sanitised version falls in the cluster of its original.
- ``entity_recall``: the share of gold PHI entities none of whose tokens survive.
- ``cross_patient_rate``: the share of sanitised documents that contain a PHI
  string of *another* patient that their own original text does not contain
  (the swapper must not move PHI between patients).

scikit-learn is imported inside the functions (heavy import, lazily).
"""
import re
from collections import defaultdict
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from spacy_deid.eval.metrics import TOKEN_RE, _word_in, survives
from spacy_deid.util import text_key

Pair = Tuple[dict, dict]


def _ok(pairs: Iterable[Pair]) -> List[Pair]:
    return [(g, o) for g, o in pairs if o.get("status", "ok") == "ok"]


def classification_f1(
    pairs: Sequence[Pair], label_key: str = "label", n_folds: int = 5, seed: int = 0, min_per_label: int = 5
) -> Optional[dict]:
    """Macro-F1 of a label classifier (TF-IDF uni+bigrams, class-balanced logistic
    regression) on raw vs sanitised text, by grouped, stratified k-fold
    cross-validation: each record is predicted once, by the model of the folds it
    is not in, and macro-F1 is taken over all predictions (raw and sanitised use
    the same folds).

    Copies of one text (mtsamples files a transcription under several specialties:
    2,357 texts under 4,966 ids) always fall in the same fold, so no note is
    classified by a model trained on its own copy. One 75/25 split of 2,000 notes
    made the ratio swing between 0.83 and 0.90 with the seed alone; pooled k-fold
    predictions move it by about 0.01.

    Labels with fewer than ``min_per_label`` records are dropped (they cannot be
    both trained and tested). RETURNS None when fewer than two labels remain.
    """
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score
    from sklearn.model_selection import StratifiedGroupKFold

    pairs = [(g, o) for g, o in _ok(pairs) if g.get(label_key)]
    counts: Dict[str, int] = defaultdict(int)
    for g, _ in pairs:
        counts[g[label_key]] += 1
    pairs = [(g, o) for g, o in pairs if counts[g[label_key]] >= min_per_label]
    labels = sorted({g[label_key] for g, _ in pairs})
    if len(labels) < 2:
        return None
    y = np.array([str(g[label_key]) for g, _ in pairs], dtype=object)
    groups = [text_key(g["text"]) for g, _ in pairs]
    n_splits = max(2, min(int(n_folds), len(set(groups))))
    folds = list(StratifiedGroupKFold(n_splits=n_splits, shuffle=True, random_state=seed).split(y, y, groups))
    out: Dict[str, Any] = {"n_docs": len(pairs), "n_folds": n_splits, "n_labels": len(labels), "n_texts": len(set(groups))}
    for name, texts in (("raw", [g["text"] for g, _ in pairs]), ("sanitized", [o["deid_text"] for _, o in pairs])):
        pred = np.empty(len(pairs), dtype=object)
        for train, test in folds:
            vec = TfidfVectorizer(sublinear_tf=True, min_df=2, max_features=50000, ngram_range=(1, 2))
            x_train = vec.fit_transform([texts[i] for i in train])
            # balanced class weights: macro-F1 over imbalanced labels (mtsamples: 1,088
            # Surgery notes, 6 Hospice notes) otherwise mostly rewards the large classes
            clf = LogisticRegression(max_iter=2000, C=10.0, class_weight="balanced", random_state=seed)
            clf.fit(x_train, y[train])
            pred[test] = clf.predict(vec.transform([texts[i] for i in test]))
        out[f"macro_f1_{name}"] = float(f1_score(list(y), list(pred), average="macro"))
    out["ratio"] = out["macro_f1_sanitized"] / out["macro_f1_raw"] if out["macro_f1_raw"] else 0.0
    return out


def same_cluster_share(pairs: Sequence[Pair], n_clusters: int = 0, seed: int = 0) -> Optional[dict]:
    """DataSifterText's same-cluster share (K = number of labels when 0 and the
    records have labels, else sqrt(n/2) capped to 50)."""
    import numpy as np
    from sklearn.cluster import MiniBatchKMeans
    from sklearn.feature_extraction.text import TfidfVectorizer

    pairs = _ok(pairs)
    if len(pairs) < 4:
        return None
    if n_clusters <= 0:
        labels = {g.get("label") for g, _ in pairs if g.get("label")}
        n_clusters = len(labels) if len(labels) >= 2 else int(min(50, max(2, (len(pairs) / 2) ** 0.5)))
    n_clusters = min(n_clusters, len(pairs) - 1)
    vec = TfidfVectorizer(sublinear_tf=True, min_df=2, max_features=50000)
    x_raw = vec.fit_transform([g["text"] for g, _ in pairs])
    km = MiniBatchKMeans(n_clusters=n_clusters, random_state=seed, n_init=3, batch_size=1024)
    raw = km.fit_predict(x_raw)
    san = km.predict(vec.transform([o["deid_text"] for _, o in pairs]))
    return {"k": int(n_clusters), "share": float(np.mean(raw == san)), "n_docs": len(pairs)}


def entity_recall(pairs: Iterable[Pair]) -> dict:
    """Entity-level recall per label: a gold entity counts as removed when none of
    its ``\\w+`` tokens survives at its place."""
    per: Dict[str, List[int]] = defaultdict(lambda: [0, 0])
    for gold, out in _ok(pairs):
        text = gold["text"]
        edits = sorted(out.get("edits") or [], key=lambda e: (e["start"], e["end"]))
        starts = [e["start"] for e in edits]
        for sp in gold.get("spans") or []:
            toks = [m.span() for m in TOKEN_RE.finditer(text, sp["start"], sp["end"])]
            if not toks:
                continue
            removed = not any(survives(s, e, text, edits, starts) for s, e in toks)
            per[sp["label"]][0] += 1
            per[sp["label"]][1] += int(removed)
    total = [sum(v[0] for v in per.values()), sum(v[1] for v in per.values())]
    res = {label: {"n": n, "removed": r, "recall": r / n if n else 0.0} for label, (n, r) in sorted(per.items())}
    res["ALL"] = {"n": total[0], "removed": total[1], "recall": total[1] / total[0] if total[0] else 0.0}
    return res


# methods whose replacement an operator generates from keyed public lists (never from a note)
GENERATED_METHODS = frozenset({"SURROGATE", "DATE_SHIFT", "MASK", "REDACT", "HASH", "ENCRYPT"})


def _generated_spans(out: dict) -> List[Tuple[int, int]]:
    """Character ranges of the sanitised text written by a generating operator
    (the output edits carry original offsets; the shift of each is accumulated)."""
    spans = []
    delta = 0
    for e in sorted(out.get("edits") or [], key=lambda e: e["start"]):
        rep = e.get("replacement") or ""
        start = e["start"] + delta
        if e.get("method") in GENERATED_METHODS:
            spans.append((start, start + len(rep)))
        delta += len(rep) - (e["end"] - e["start"])
    return spans


def cross_patient_rate(pairs: Iterable[Pair], min_chars: int = 4, labels: Optional[Sequence[str]] = None) -> Optional[dict]:
    """Share of sanitised documents that contain another patient's PHI string.

    A PHI string (gold span text of at least ``min_chars`` characters, of the given
    ``labels`` or all) of patient A found, as whole words, in the sanitised text of a
    document of patient B != A counts when B's own original text does not contain it
    (hospitals or doctors shared by many patients are not leaks of this kind).
    Matches inside a replacement that an operator generated (``SURROGATE``,
    ``DATE_SHIFT``, ``MASK``, ``HASH``...: drawn from keyed public lists, never
    from a note) are coincidences, not moved PHI, and do not count; they are
    reported as ``docs_with_surrogate_coincidence``.
    ``rate_unique`` counts only strings that belong to exactly one other patient
    (identifying that patient); ``rate`` counts any other patients' strings (a
    shared doctor's name sampled into a note counts there).
    RETURNS None without patient ids.
    """
    pairs = [(g, o) for g, o in _ok(pairs) if g.get("patient_id") is not None]
    if not pairs:
        return None
    owners: Dict[str, set] = defaultdict(set)
    for g, _ in pairs:
        for sp in g.get("spans") or []:
            if labels and sp["label"] not in labels:
                continue
            s = g["text"][sp["start"] : sp["end"]].strip()
            if len(s) >= min_chars:
                owners[s.lower()].add(g["patient_id"])
    if not owners:
        return {"n_docs": len(pairs), "docs_with_foreign_phi": 0, "rate": 0.0}
    # one alternation regex over all PHI strings: one scan per document
    strings = sorted(owners, key=len, reverse=True)
    pattern = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(s) for s in strings) + r")(?!\w)", re.IGNORECASE)
    hits = hits_unique = coincidences = 0
    for g, o in pairs:
        found = found_unique = coincidence = False
        generated = _generated_spans(o)
        for m in pattern.finditer(o.get("deid_text") or ""):
            s = m.group(0).lower()
            others = owners.get(s, set()) - {g["patient_id"]}
            if others and not _word_in(s, g["text"]):
                if any(a < m.end() and m.start() < b for a, b in generated):
                    coincidence = True
                    continue
                found = True
                # a string of exactly one other patient identifies that patient
                found_unique = found_unique or len(owners[s]) == 1
        hits += found
        hits_unique += found_unique
        coincidences += coincidence
    return {
        "n_docs": len(pairs),
        "docs_with_foreign_phi": hits,
        "rate": hits / len(pairs),
        "docs_with_surrogate_coincidence": coincidences,
        "docs_with_unique_foreign_phi": hits_unique,
        "rate_unique": hits_unique / len(pairs),
    }
