"""Privacy-utility sweep: fit and run a config over a grid of one-key settings.

For each (key, value) of the grid, the pipeline of ``config`` is fitted on the
corpus with that override (and the base overrides), the corpus is sanitised, and
the PHI leak rate and non-PHI kept share are measured. One series per key, so
the curve of k and the curve of p_n are drawn side by side.
"""
import json
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

from spacy_deid.io.records import iter_records, write_jsonl_atomic
from spacy_deid.eval.metrics import evaluate_pairs


def parse_grid(specs: Sequence[str]) -> Dict[str, List[Any]]:
    """``["components.frequency_masker.k=2,3,5"]`` -> ``{"components.frequency_masker.k": [2, 3, 5]}``."""
    grid: Dict[str, List[Any]] = {}
    for spec in specs:
        if "=" not in spec:
            raise ValueError(f"Sweep setting {spec!r} must look like section.key=v1,v2,...")
        key, values = spec.split("=", 1)
        grid[key.strip()] = [json.loads(v) if v.strip()[:1].isdigit() or v.strip() in ("true", "false", "null") else v.strip() for v in values.split(",")]
    return grid


def run_sweep(
    config: Union[str, Path],
    corpus: Union[str, Path],
    grid: Dict[str, List[Any]],
    overrides: Optional[Dict[str, Any]] = None,
    limit: int = 0,
    fit_corpus: Optional[Union[str, Path]] = None,
    ner: Optional[Union[str, Path]] = None,
) -> List[dict]:
    """Fit and sanitise once per grid value; score on the first ``limit`` records.

    config: the pipeline config (the same one the workflow assembles, so that the
        curve goes through the shipped pipeline's operating point).
    corpus: records with gold spans that are sanitised and scored.
    grid: ``{config key: [values]}``, one series per key.
    overrides: config overrides applied to every point.
    limit: records of ``corpus`` scored per point (0: all).
    fit_corpus: corpus the statistics are fitted on (default: the scored records),
        e.g. the whole corpus the shipped pipeline was fitted on.
    ner: a trained pipeline whose NER is sourced in front of every point.
    Grid keys of a component the config does not have are left out with a warning.
    RETURNS (List[dict]): points ``{series, setting, leak_rate, kept_share, ...}``.
    """
    from spacy_deid.engines.fit import init_pipeline
    from spacy_deid.engines.local import sanitize_file

    from spacy_deid.engines.fit import load_config
    from wasabi import msg

    components = load_config(config)["components"]
    for key in [k for k in grid if k.startswith("components.") and k.split(".")[1] not in components]:
        msg.warn(f"Sweep setting {key} left out: the config has no component {key.split('.')[1]!r}")
        grid = {k: v for k, v in grid.items() if k != key}
    records = list(iter_records(corpus, limit=limit))
    points: List[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        sub = Path(tmp) / "corpus.jsonl"
        write_jsonl_atomic(sub, records)
        for key, values in grid.items():
            for value in values:
                fit = Path(fit_corpus) if fit_corpus is not None else sub
                nlp = init_pipeline(config, fit, None, dict(overrides or {}, **{key: value}), ner)
                out = Path(tmp) / "out.jsonl"
                sanitize_file(nlp, sub, out, show_progress=False)
                with out.open(encoding="utf-8") as fh:
                    outs = {o["id"]: o for o in map(json.loads, fh)}
                m = evaluate_pairs((r, outs[r["id"]]) for r in records)
                points.append(
                    {
                        "series": key.split(".")[-1],
                        "key": key,
                        "setting": f"{key.split('.')[-1]}={value}",
                        "value": value,
                        "leak_rate": m["phi_all"]["leak_rate"],
                        "anywhere_rate": m["phi_all"]["anywhere_rate"],
                        "kept_share": m["non_phi"]["kept_share"],
                        "n_docs": m["n_docs"],
                    }
                )
    return points
