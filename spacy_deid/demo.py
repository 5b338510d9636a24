"""The main job on the embedded synthetic corpus (``make demo``).

generate → init (fit corpus statistics of the config) → sanitize → a summary
report. It runs on a fresh machine with nothing downloaded: the corpus is made by
our generator, every statistic is fitted on it.
"""
import json
import time
from pathlib import Path
from typing import Any, Dict, Union

from wasabi import msg


def run_demo(
    out_dir: Union[str, Path],
    n_docs: int = 1000,
    n_patients: int = 150,
    seed: int = 0,
    config: Union[str, Path] = "configs/default.cfg",
) -> Path:
    """Run the demo and return the path of its report (``summary.json``)."""
    from .pipeline import init_pipeline
    from .records import FatalError, iter_records
    from .sanitize import sanitize_file
    from .synth import generate_corpus

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    config = Path(config)
    if not config.is_file():
        raise FatalError(f"Config not found: {config}")
    timings: Dict[str, float] = {}

    corpus = out_dir / "corpus.jsonl"
    t0 = time.perf_counter()
    stats = generate_corpus(corpus, n_docs=n_docs, n_patients=n_patients, seed=seed)
    timings["generate_s"] = time.perf_counter() - t0
    msg.good(f"Generated {stats['n_docs']} notes, {stats['n_spans']} gold PHI spans -> {corpus}")

    model_dir = out_dir / "pipeline"
    t0 = time.perf_counter()
    nlp = init_pipeline(config, corpus, model_dir)
    timings["init_s"] = time.perf_counter() - t0
    msg.good(f"Fitted pipeline {nlp.pipe_names} -> {model_dir}")

    sanitized = out_dir / "sanitized.jsonl"
    t0 = time.perf_counter()
    sstats = sanitize_file(nlp, corpus, sanitized)
    timings["sanitize_s"] = time.perf_counter() - t0
    msg.good(f"Sanitised {sstats.n_ok} notes ({sstats.n_error} errors) -> {sanitized}")

    report: Dict[str, Any] = {"config": str(config), "pipeline": nlp.pipe_names, "timings": timings}
    report["corpus"] = stats
    try:
        from .eval.metrics import evaluate_pairs

        gold = {r["id"]: r for r in iter_records(corpus)}
        with sanitized.open(encoding="utf-8") as fh:
            outs = [json.loads(line) for line in fh]
        report["metrics"] = evaluate_pairs((gold[o["id"]], o) for o in outs if o.get("status") == "ok")
    except ImportError:
        report["metrics"] = None
    path = out_dir / "summary.json"
    path.write_text(json.dumps(report, indent=2), encoding="utf-8")
    return path
