"""The DataSifterText tier on a labelled corpus: utility kept, words changed, fluency.

One run fits a profile (default ``datasifter``) on N notes of a corpus, sanitises those
notes and measures, beside the raw text:

- specialty macro-F1 of a TF-IDF classifier trained and tested on sanitised text, as a
  ratio to raw (``spacy_deid.eval.utility.classification_f1``);
- DataSifterText's same-cluster share (``same_cluster_share``: K-means on the raw notes,
  the share of sanitised notes assigned to their original's cluster);
- the share of content words changed (tokens that are not stop words, punctuation or
  whitespace and have a letter, covered by an edit whose replacement differs);
- the bigram cross-entropy ratio: an interpolated Kneser-Ney bigram model is fitted on
  OTHER raw notes of the corpus (never the evaluated ones), and the per-token
  cross-entropy of the sanitised notes is divided by that of their raw versions;
- words replaced by punctuation (an edit whose original has a letter and whose
  replacement has no letter or digit; target 0), by a placeholder such as ``[OTHER]``
  or ``[MASK]``, and words removed (empty replacement).

    .venv/bin/python benchmarks/bench_datasifter.py --data DATA/mtsamples.jsonl \\
        --mlm MLM_DIR --vectors VECTORS_DIR --limit 2000 --out benchmarks/results/datasifter.json

``--mlm`` is a local masked-LM directory (``python -m spacy_deid pretrain``); ``--vectors``
a floret vectors directory (``python -m spacy_deid vectors``; trained on the evaluated
notes into ``--work`` when not given). ``--set components.mlm_resampler.top_k=20``
overrides any config value (several allowed). No document text is printed or stored.
"""
import argparse
import itertools
import json
import math
import os
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, Dict, Iterable, List, Sequence, Tuple

from spacy_deid.io.atomic import write_json
from spacy_deid.util import parse_key_values, text_key

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TARGETS = {
    "f1_ratio_min": 0.90,
    "same_cluster_min": 0.87,
    "content_changed_min": 0.30,
    "bigram_ce_ratio_max": 1.25,
    "words_to_punct_max": 0,
}
# A placeholder such as "[OTHER]" or "[MASK]" (no word was found for the position).
PLACEHOLDER = re.compile(r"^\[[A-Z_]+\]$")
# Lower-cased words and single punctuation marks: the bigram model's tokens.
BIGRAM_TOKEN = re.compile(r"[^\W_]+|[^\w\s]")


# ---------------------------------------------------------------------------
# Bigram cross-entropy


class KneserNeyBigram:
    """Interpolated Kneser-Ney bigram model (absolute discount ``d``), with an
    unknown-word token for words seen fewer than ``min_count`` times in the fit
    texts and a uniform floor so every token has a probability. Written here: the
    libraries that have one (nltk.lm) are not dependencies and are orders of
    magnitude slower on a corpus of this size."""

    UNK, BOS = "<unk>", "<s>"

    def __init__(self, texts: Iterable[str], d: float = 0.75, min_count: int = 2):
        docs = [self.tokens(t) for t in texts]
        self.n_texts = len(docs)
        counts = Counter(w for doc in docs for w in doc)
        self.vocab = {w for w, c in counts.items() if c >= min_count} | {self.UNK}
        self.d = d
        self.bigrams: Counter = Counter()
        for doc in docs:
            seq = [self.BOS] + [self.norm(w) for w in doc]
            self.bigrams.update(zip(seq, seq[1:]))
        self.history: Counter = Counter()
        self.followers: Counter = Counter()
        continuation: Counter = Counter()
        for (v, w), c in self.bigrams.items():
            self.history[v] += c
            self.followers[v] += 1
            continuation[w] += 1
        total = sum(continuation.values())
        size = len(self.vocab)
        self.p_cont = {w: 0.99 * continuation[w] / total + 0.01 / size for w in self.vocab}
        self.floor = 0.01 / size

    @staticmethod
    def tokens(text: str) -> List[str]:
        return BIGRAM_TOKEN.findall(text.lower())

    def norm(self, w: str) -> str:
        return w if w in self.vocab else self.UNK

    def cross_entropy(self, text: str) -> Tuple[float, int]:
        """(total -log2 P over the tokens of ``text``, number of tokens)."""
        seq = [self.BOS] + [self.norm(w) for w in self.tokens(text)]
        total = 0.0
        for v, w in zip(seq, seq[1:]):
            pc = self.p_cont.get(w, self.floor)
            cv = self.history.get(v, 0)
            if cv:
                p = max(self.bigrams.get((v, w), 0) - self.d, 0.0) / cv + self.d * self.followers[v] / cv * pc
            else:
                p = pc
            total -= math.log2(p)
        return total, len(seq) - 1


def bigram_ce(model: KneserNeyBigram, texts: Sequence[str]) -> float:
    """Per-token cross-entropy (bits) of ``texts`` under ``model``."""
    bits = n = 0
    for t in texts:
        b, k = model.cross_entropy(t)
        bits += b
        n += k
    return bits / max(1, n)


# ---------------------------------------------------------------------------
# Per-document change statistics


def is_content(tok) -> bool:
    return not (tok.is_stop or tok.is_punct or tok.is_space) and any(c.isalpha() for c in tok.text)


def change_stats(doc) -> Dict[str, int]:
    """Content words and how many changed; words replaced by punctuation, by a
    placeholder or removed; MLM edits and how many of them kept the original's
    coarse shape."""
    from spacy_deid.components.mlm_resampler import coarse_shape
    from spacy_deid.edits import resolve_edits

    changed = [False] * len(doc)
    out = Counter()
    for seg in resolve_edits(doc):
        original = doc[seg.start : seg.end].text
        if seg.replacement.strip().casefold() == original.strip().casefold():
            continue
        for i in range(seg.start, seg.end):
            changed[i] = True
        if any(c.isalpha() for c in original):
            if not seg.replacement.strip():
                out["words_removed"] += 1
            elif not any(c.isalnum() for c in seg.replacement):
                out["words_to_punct"] += 1
            elif PLACEHOLDER.match(seg.replacement.strip()):
                out["words_to_placeholder"] += 1
        if seg.label == "MLM":
            out["mlm_edits"] += 1
            out["mlm_same_shape"] += coarse_shape(original) == coarse_shape(seg.replacement)
    for tok in doc:
        if is_content(tok):
            out["content_words"] += 1
            out["content_changed"] += changed[tok.i]
    out["tokens"] = sum(1 for t in doc if not t.is_space)
    out["tokens_changed"] = sum(1 for t in doc if changed[t.i] and not t.is_space)
    return dict(out)


# ---------------------------------------------------------------------------
# The run


def split_notes(records: List[dict], limit: int, bigram_notes: int, seed: int) -> Tuple[List[dict], List[dict]]:
    """A seeded sample of ``limit`` notes to sanitise, and up to ``bigram_notes`` of
    the others (no text twice, none that is also evaluated) to fit the bigram model on."""
    import numpy

    order = numpy.random.default_rng(seed).permutation(len(records))
    evaluated = [records[i] for i in sorted(order[:limit])]
    # A note whose text is also evaluated (mtsamples lists one transcription under
    # several specialties) would make the raw text look more predictable than it is.
    seen = {text_key(r["text"]) for r in evaluated}
    others = []
    for i in order[limit:]:
        key = text_key(records[i]["text"])
        if len(others) < bigram_notes and key not in seen:
            seen.add(key)
            others.append(records[i])
    return evaluated, others


def main(argv=None) -> Dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="Labelled corpus JSONL (e.g. mtsamples.jsonl)")
    parser.add_argument("--mlm", type=Path, required=True, help="Masked-LM directory (python -m spacy_deid pretrain)")
    parser.add_argument("--vectors", type=Path, default=None, help="floret vectors directory (trained when absent)")
    parser.add_argument("--config", default="datasifter", help="Profile config: a shipped name or a .cfg path")
    parser.add_argument("--limit", type=int, default=2000, help="Notes sanitised and evaluated")
    parser.add_argument("--bigram-notes", type=int, default=2000, help="Other notes the bigram model is fitted on")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--set", dest="sets", action="append", default=[], help="Config override KEY=VALUE (JSON value)")
    parser.add_argument(
        "--sweep",
        action="append",
        default=[],
        help="COMPONENT.ATTRIBUTE=V1,V2,... (JSON values): after the main run, sanitise the same notes again with "
        "the fitted pipeline's attribute set to each value (e.g. mlm_resampler.temperature=0.5,0.7); several "
        "--sweep options make a grid. Components are not refitted, so a sweep point approximates a run with that setting",
    )
    parser.add_argument(
        "--point",
        action="append",
        default=[],
        help="One more setting to measure after the main run: COMPONENT.ATTRIBUTE=VALUE[;COMPONENT.ATTRIBUTE=VALUE...]",
    )
    parser.add_argument("--work", type=Path, default=None, help="Work directory (subset corpus, vectors)")
    parser.add_argument("--out", type=Path, default=None, help="Results JSON")
    args = parser.parse_args(argv)

    import spacy_deid  # noqa: F401
    from spacy_deid.engines.fit import init_pipeline
    from spacy_deid.io.records import iter_records
    from spacy_deid.resources import config_path

    t_start = time.perf_counter()
    records = [r for r in iter_records(args.data) if r.get("text")]
    evaluated, others = split_notes(records, args.limit, args.bigram_notes, args.seed)
    work = args.work or Path(tempfile.mkdtemp(prefix="bench_datasifter_"))
    work.mkdir(parents=True, exist_ok=True)
    corpus = work / "notes.jsonl"
    with corpus.open("w", encoding="utf8") as fh:
        for r in evaluated:
            fh.write(json.dumps(r) + "\n")
    timings: Dict[str, float] = {}
    vectors = args.vectors
    if vectors is None:
        from spacy_deid.train.vectors import train_vectors

        t = time.perf_counter()
        vectors = train_vectors(corpus, work / "vectors", seed=args.seed, k=3, count_by="patient", show_progress=False)
        timings["vectors_s"] = round(time.perf_counter() - t, 1)
    overrides = {"paths.mlm": str(args.mlm), "paths.vectors": str(vectors), **parse_key_values(args.sets)}
    cfg = config_path(args.config)
    t = time.perf_counter()
    nlp = init_pipeline(cfg, corpus, None, overrides)
    timings["init_s"] = round(time.perf_counter() - t, 1)
    settings = sweep_settings(args.sweep) + [point_setting(p) for p in args.point]
    for setting in settings:  # a wrong name stops the run now, not after half an hour of measuring
        for path in setting:
            _attribute(nlp, path)

    bigram_model = KneserNeyBigram(r["text"] for r in others) if others else None
    measured, checks, run_timings = measure(nlp, evaluated, bigram_model, args.seed)
    timings.update(run_timings)
    mlm_cfg = dict(nlp.config["components"].get("mlm_resampler", {}))
    mlm_cfg.pop("model", None)
    result = {
        "data": args.data.name,
        "config": str(args.config),
        "overrides": parse_key_values(args.sets),
        "mlm_resampler": mlm_cfg,
        "mlm_metrics": _mlm_metrics(args.mlm),
        "n_docs": len(evaluated),
        "seed": args.seed,
        "pipeline": nlp.pipe_names,
        "measured": measured,
        "targets": TARGETS,
        "meets_targets": checks,
        "sweep": [],
        "timings": timings,
        "cpu_count": os.cpu_count(),
        "command": "python " + " ".join([Path(sys.argv[0]).name] + (argv if argv is not None else sys.argv[1:])),
    }

    def save() -> None:
        # after every setting: a long run that stops keeps what it measured
        result["timings"]["total_s"] = round(time.perf_counter() - t_start, 1)
        if args.out:
            write_json(args.out, result, indent=1)

    print(f"{len(evaluated)} notes: {summary(measured)}", flush=True)
    save()
    for setting in settings:
        previous = {path: set_attribute(nlp, path, value) for path, value in setting.items()}
        point, point_checks, point_timings = measure(nlp, evaluated, bigram_model, args.seed)
        result["sweep"].append({"setting": setting, "measured": point, "meets_targets": point_checks, "timings": point_timings})
        print(f"  {json.dumps(setting)}: {summary(point)}", flush=True)
        save()
        for path, value in previous.items():
            set_attribute(nlp, path, value)
    return result


def measure(nlp, evaluated: List[dict], bigram_model, seed: int) -> Tuple[Dict[str, Any], Dict[str, bool], Dict[str, float]]:
    """Sanitise ``evaluated`` with ``nlp`` and measure it (module docstring)."""
    from spacy_deid.eval.utility import classification_f1, same_cluster_share
    from spacy_deid.util import make_doc

    timings: Dict[str, float] = {}
    t = time.perf_counter()
    stats: Counter = Counter()
    pairs = []
    for rec, doc in zip(evaluated, nlp.pipe((make_doc(nlp, r) for r in evaluated), batch_size=64)):
        stats.update(change_stats(doc))
        pairs.append((rec, {"deid_text": doc._.deid_text}))
    timings["sanitize_s"] = round(time.perf_counter() - t, 1)

    t = time.perf_counter()
    f1 = classification_f1(pairs, seed=seed)
    cluster = same_cluster_share(pairs, seed=seed)
    bigram = None
    if bigram_model is not None:
        raw_ce = bigram_ce(bigram_model, [g["text"] for g, _ in pairs])
        san_ce = bigram_ce(bigram_model, [o["deid_text"] for _, o in pairs])
        bigram = {"fit_notes": bigram_model.n_texts, "raw_bits": raw_ce, "sanitized_bits": san_ce, "ratio": san_ce / raw_ce}
    timings["metrics_s"] = round(time.perf_counter() - t, 1)
    content_changed = stats["content_changed"] / max(1, stats["content_words"])
    measured = {
        "f1": f1,
        "same_cluster": cluster,
        "content_words": stats["content_words"],
        "content_changed_share": content_changed,
        "tokens_changed_share": stats["tokens_changed"] / max(1, stats["tokens"]),
        "bigram_cross_entropy": bigram,
        "words_to_punct": stats["words_to_punct"],
        "words_removed": stats["words_removed"],
        "words_to_placeholder": stats["words_to_placeholder"],
        "mlm_edits": stats["mlm_edits"],
        "mlm_same_coarse_shape": stats["mlm_same_shape"] / max(1, stats["mlm_edits"]),
    }
    checks = {
        "f1_ratio": bool(f1 and f1["ratio"] >= TARGETS["f1_ratio_min"]),
        "same_cluster": bool(cluster and cluster["share"] >= TARGETS["same_cluster_min"]),
        "content_changed": content_changed >= TARGETS["content_changed_min"],
        "bigram_ce_ratio": bool(bigram and bigram["ratio"] <= TARGETS["bigram_ce_ratio_max"]),
        "words_to_punct": stats["words_to_punct"] <= TARGETS["words_to_punct_max"],
    }
    return measured, checks, timings


def summary(measured: Dict[str, Any]) -> str:
    """One line of the measures (no document text)."""
    f1, cluster, bigram = measured["f1"], measured["same_cluster"], measured["bigram_cross_entropy"]
    f1_txt = f"{f1['ratio']:.3f} ({f1['macro_f1_sanitized']:.3f}/{f1['macro_f1_raw']:.3f})" if f1 else "n/a"
    return (
        f"F1 ratio {f1_txt}, same cluster {cluster['share'] if cluster else float('nan'):.3f}, "
        f"content changed {measured['content_changed_share']:.3f}, "
        f"bigram CE ratio {bigram['ratio'] if bigram else float('nan'):.3f}, "
        f"words->punct {measured['words_to_punct']}, removed {measured['words_removed']}, "
        f"placeholders {measured['words_to_placeholder']}"
    )


def sweep_settings(specs: Sequence[str]) -> List[Dict[str, Any]]:
    """The grid of ``--sweep COMPONENT.ATTRIBUTE=V1,V2`` options, one dict per point."""
    axes: List[List[Tuple[str, Any]]] = []
    for spec in specs:
        path, sep, values = spec.partition("=")
        if not sep or "." not in path or not values:
            raise SystemExit(f"--sweep {spec!r}: expected COMPONENT.ATTRIBUTE=V1,V2,...")
        axis = []
        for raw in values.split(","):
            try:
                axis.append((path, json.loads(raw)))
            except json.JSONDecodeError:
                axis.append((path, raw))
        axes.append(axis)
    return [dict(point) for point in itertools.product(*axes)] if axes else []


def point_setting(spec: str) -> Dict[str, Any]:
    """One ``--point COMPONENT.ATTRIBUTE=VALUE;...`` setting."""
    setting: Dict[str, Any] = {}
    for part in filter(None, spec.split(";")):
        for path, value in sweep_settings([part])[0].items():
            setting[path] = value
    if not setting:
        raise SystemExit(f"--point {spec!r}: expected COMPONENT.ATTRIBUTE=VALUE[;...]")
    return setting


def _attribute(nlp, path: str) -> Tuple[Any, str]:
    """The object and key of ``COMPONENT.ATTR[.ATTR...]`` in a fitted pipeline; an
    attribute may be a dict's key (``mlm_resampler.schedule.max_mask_fraction``)."""
    name, *attrs = path.split(".")
    if name not in nlp.pipe_names:
        raise SystemExit(f"--sweep/--point {path}: no component {name!r} in the pipeline ({', '.join(nlp.pipe_names)})")
    if not attrs:
        raise SystemExit(f"--sweep/--point {path}: name an attribute of {name!r}")
    obj = nlp.get_pipe(name)
    for attr in attrs:
        has = attr in obj if isinstance(obj, dict) else hasattr(obj, attr)
        if not has:
            raise SystemExit(f"--sweep/--point {path}: {type(obj).__name__} has no attribute or key {attr!r}")
        if attr is not attrs[-1]:
            obj = obj[attr] if isinstance(obj, dict) else getattr(obj, attr)
    return obj, attrs[-1]


def set_attribute(nlp, path: str, value: Any) -> Any:
    """Set ``COMPONENT.ATTR[.ATTR...]`` of a fitted pipeline; RETURNS the old value."""
    obj, key = _attribute(nlp, path)
    if isinstance(obj, dict):
        old, obj[key] = obj[key], value
    else:
        old = getattr(obj, key)
        setattr(obj, key, value)
    return old


def _mlm_metrics(path: Path) -> Dict[str, Any]:
    """The held-out numbers of the model's own metrics.json (when it has one)."""
    f = path / "metrics.json"
    if not f.exists():
        return {}
    m = json.loads(f.read_text(encoding="utf8"))
    return {k: m.get(k) for k in ("steps", "heldout", "heldout_content", "heldout_pseudo_perplexity", "vocab_size")}


if __name__ == "__main__":
    main()
