"""Speed of the whole de-identification pipeline, per component, beside the limit and a peer.

One run measures, on each data set given:
- the bare tokenizer (``nlp.make_doc``): the ceiling every figure is a ratio of;
- every component of the pipeline in turn (``proc.pipe`` on the previous step's docs);
- rendering (``doc._.deid_text`` and the edit records) ;
- the whole pipeline with rendering, ``n_process`` 1 and 2;
- ``spacy-deid sanitize`` end to end, ``--n-process`` 1 and 2 (a subprocess: JSON reading and writing included);
- Presidio (analyzer + anonymizer), run in the benchmark venv ``benchmarks/.venv-peers``
  (setup: see bench_frequency_speed.py), when that venv exists;
- the peak resident memory of the whole-pipeline and sanitize runs.

Tokens are spaCy tokens of the bare tokenizer (whitespace excluded), for every system.

    python benchmarks/bench_pipeline_speed.py --pipeline models/deid \\
        --data mtsamples=DATA/mtsamples.jsonl --limit 800 \\
        --generated 400 --out benchmarks/results/pipeline_speed.json

``--pipeline`` is a fitted pipeline directory; or give ``--config NAME`` and
``--fit-corpus PATH`` to fit a shipped config (``default``, ``datasifter``...) first.
``--generated N`` adds N generated notes in each style of the generator.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from spacy_deid.io.atomic import write_json

ROOT = Path(__file__).resolve().parent.parent
PEERS_PY = ROOT / "benchmarks" / ".venv-peers" / "bin" / "python"


def read_texts(path: Path, limit: int) -> List[Dict[str, Any]]:
    out = []
    with open(path, encoding="utf8") as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("text"):
                out.append({k: rec[k] for k in ("id", "patient_id", "text") if k in rec})
            if limit and len(out) >= limit:
                break
    return out


def generated_sets(n: int, seed: int) -> Dict[str, List[Dict[str, Any]]]:
    """n generated notes per style of the generator (one set when it has no styles)."""
    from spacy_deid.synth import STYLES, generate_records

    sets = {}
    for style in STYLES:
        recs = list(generate_records(n_docs=n, n_patients=max(1, n // 6), seed=seed, style=style))
        sets[f"generated_{style}"] = [
            {"id": r["id"], "patient_id": r.get("patient_id"), "text": r["text"]} for r in recs
        ]
    return sets


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def per_component(nlp, records: List[Dict[str, Any]], batch_size: int) -> Dict[str, Any]:
    from spacy_deid.edits import edits_as_records

    texts = [r["text"] for r in records]
    docs: List[Any] = []

    def tokenize() -> None:
        docs[:] = [nlp.make_doc(t) for t in texts]

    # the best of three passes: the first one also fills the vocab (a slower tokenizer would flatter every ratio)
    t_tok = min(timed(tokenize) for _ in range(3))
    n_tokens = sum(sum(1 for tok in d if not tok.is_space) for d in docs)
    for doc, rec in zip(docs, records):
        doc._.deid_record = {k: v for k, v in rec.items() if k != "text"}
    steps = {"tokenizer": {"seconds": round(t_tok, 3), "tokens_per_s": round(n_tokens / t_tok)}}
    for name, proc in nlp.pipeline:
        if not hasattr(proc, "pipe"):
            t = timed(lambda: docs.__setitem__(slice(None), [proc(d) for d in docs]))
        else:
            t = timed(lambda: docs.__setitem__(slice(None), list(proc.pipe(docs, batch_size=batch_size))))
        steps[name] = {"seconds": round(t, 3), "tokens_per_s": round(n_tokens / max(t, 1e-9))}
    t = timed(lambda: [(d._.deid_text, edits_as_records(d)) for d in docs])
    steps["render"] = {"seconds": round(t, 3), "tokens_per_s": round(n_tokens / max(t, 1e-9))}
    return {"n_docs": len(docs), "n_tokens": n_tokens, "steps": steps}


def whole_pipeline(pipeline: str, data: Path, n_process: int, batch_size: int) -> Dict[str, Any]:
    """The whole pipeline + rendering in a fresh process (so peak memory is its own)."""
    code = f"""
import json, resource, sys, time
sys.path.insert(0, {str(ROOT)!r})
import spacy, spacy_deid
from spacy_deid.edits import edits_as_records
nlp = spacy.load({pipeline!r})
recs = [json.loads(l) for l in open({str(data)!r}, encoding='utf8')]
texts = [r['text'] for r in recs]
n_tokens = sum(sum(1 for t in nlp.make_doc(x) if not t.is_space) for x in texts)
list(nlp.pipe(texts[:8]))  # warm call in the same process
t0 = time.perf_counter()
out = [(d._.deid_text, edits_as_records(d)) for d in nlp.pipe(texts, batch_size={batch_size}, n_process={n_process})]
t = time.perf_counter() - t0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss + resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({{"seconds": round(t, 3), "tokens_per_s": round(n_tokens / t), "peak_rss_mb": round(rss / 1024)}}))
"""
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    if res.returncode != 0:
        return {"error": res.stderr.strip().splitlines()[-1] if res.stderr.strip() else f"exit {res.returncode}"}
    return json.loads(res.stdout.strip().splitlines()[-1])


def run_child(cmd: List[str]) -> Tuple[int, float, int]:
    """Run ``cmd``; RETURNS its exit status, wall seconds and peak resident memory (KiB, its own)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, time.perf_counter() - t0, usage.ru_maxrss


def sanitize_cli(pipeline: str, data: Path, n_tokens: int, batch_size: int, n_process: int = 1) -> Dict[str, Any]:
    """``spacy-deid sanitize`` in a fresh process, end to end; ``startup_seconds``: the
    same command on a one-record file (process start, imports, pipeline loading)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.jsonl"
        one = Path(tmp) / "one.jsonl"
        with open(data, encoding="utf8") as f:
            one.write_text(f.readline(), encoding="utf8")

        def cmd(path: Path) -> List[str]:
            return [sys.executable, "-m", "spacy_deid", "sanitize", pipeline, str(path), str(out),
                    "--batch-size", str(batch_size), "--n-process", str(n_process)]

        rc, t_start, _ = run_child(cmd(one))
        if rc != 0:
            return {"error": f"exit {rc}"}
        rc, t, rss = run_child(cmd(data))
        if rc != 0:
            return {"error": f"exit {rc}"}
        return {"seconds": round(t, 3), "tokens_per_s": round(n_tokens / t), "peak_rss_mb": round(rss / 1024),
                "startup_seconds": round(t_start, 3), "n_process": n_process,
                "note": "end to end: process start, pipeline loading, JSON reading and writing"}


PRESIDIO_WORKER = """
import json, sys, time
sys.path.insert(0, {bench!r})
from peers import presidio_engines
batch, anonymizer = presidio_engines()
texts = [json.loads(l)['text'] for l in open({data!r}, encoding='utf8')]
list(batch.analyze_iterator(texts[:4], language='en'))
t0 = time.perf_counter()
for text, results in zip(texts, batch.analyze_iterator(texts, language='en', batch_size=32)):
    anonymizer.anonymize(text=text, analyzer_results=results)
print(json.dumps({{"seconds": round(time.perf_counter() - t0, 3)}}))
"""


def presidio(data: Path, n_tokens: int, peers_py: Path = PEERS_PY) -> Dict[str, Any]:
    if not peers_py.exists():
        return {"error": f"{peers_py} not found (setup: see bench_frequency_speed.py)"}
    code = PRESIDIO_WORKER.format(bench=str(ROOT / "benchmarks"), data=str(data))
    res = subprocess.run([str(peers_py), "-c", code], capture_output=True, text=True)
    if res.returncode != 0:
        return {"error": res.stderr.strip().splitlines()[-1] if res.stderr.strip() else "failed"}
    t = json.loads(res.stdout.strip().splitlines()[-1])["seconds"]
    return {"seconds": t, "tokens_per_s": round(n_tokens / t)}


def fit_pipeline(config: str, corpus: Path, out: Path, overrides: List[str]) -> None:
    cmd = [sys.executable, "-m", "spacy_deid", "init", config, str(corpus), str(out), *overrides]
    subprocess.run(cmd, check=True, cwd=ROOT)


def main(argv: Optional[List[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pipeline", help="a fitted pipeline directory")
    ap.add_argument("--config", help="a shipped config name or a path, fitted on --fit-corpus first")
    ap.add_argument("--fit-corpus", type=Path)
    ap.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "deid_bench_pipeline")
    ap.add_argument("--data", action="append", default=[], help="NAME=PATH of a JSONL data set (repeatable)")
    ap.add_argument("--generated", type=int, default=0, help="generated notes per style (0: none)")
    ap.add_argument("--limit", type=int, default=800, help="records per data set (0: all)")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--no-presidio", action="store_true")
    ap.add_argument("--peers-python", type=Path, default=PEERS_PY, help="python of the benchmark venv with Presidio")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "pipeline_speed.json")
    ap.add_argument("overrides", nargs="*", help="config overrides for --config (--paths.ner X ...)")
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    sys.path.insert(0, str(ROOT))
    import spacy

    import spacy_deid  # noqa: F401  (registers the components)

    args.workdir.mkdir(parents=True, exist_ok=True)
    if args.pipeline:
        pipeline = args.pipeline
    elif args.config and args.fit_corpus:
        pipeline = str(args.workdir / "pipeline")
        fit_pipeline(args.config, args.fit_corpus, Path(pipeline), args.overrides)
    else:
        ap.error("give --pipeline DIR, or --config NAME with --fit-corpus PATH")
    sets: Dict[str, List[Dict[str, Any]]] = {}
    for item in args.data:
        name, _, path = item.partition("=")
        if not path:
            ap.error(f"--data wants NAME=PATH, got {item!r}")
        sets[name] = read_texts(Path(path), args.limit)
    if args.generated:
        sets.update(generated_sets(args.generated, seed=1))
    if not sets:
        ap.error("no data: give --data NAME=PATH and/or --generated N")

    nlp = spacy.load(pipeline)
    results: Dict[str, Any] = {"pipeline": str(pipeline), "components": nlp.pipe_names,
                               "cpu_count": os.cpu_count(), "batch_size": args.batch_size,
                               "load_average_before": [round(x, 2) for x in os.getloadavg()], "sets": {}}
    for name, records in sets.items():
        data = args.workdir / f"{name}.jsonl"
        with open(data, "w", encoding="utf8") as f:
            for r in records:
                f.write(json.dumps(r) + "\n")
        print(f"[{name}] {len(records)} records: per component ...", flush=True)
        entry = per_component(nlp, records, args.batch_size)
        tok = entry["steps"]["tokenizer"]["tokens_per_s"]
        for n_process in (1, 2):
            print(f"[{name}] whole pipeline, n_process={n_process} ...", flush=True)
            entry[f"whole_n{n_process}"] = whole_pipeline(pipeline, data, n_process, args.batch_size)
        print(f"[{name}] sanitize CLI, --n-process 1 and 2 ...", flush=True)
        entry["sanitize_cli"] = sanitize_cli(pipeline, data, entry["n_tokens"], args.batch_size)
        entry["sanitize_cli_n2"] = sanitize_cli(pipeline, data, entry["n_tokens"], args.batch_size, n_process=2)
        if not args.no_presidio:
            print(f"[{name}] presidio ...", flush=True)
            entry["presidio"] = presidio(data, entry["n_tokens"], args.peers_python)
        ratios = {}
        for key in ("whole_n1", "whole_n2", "sanitize_cli", "sanitize_cli_n2", "presidio"):
            if "tokens_per_s" in entry.get(key, {}):
                ratios[f"{key}_vs_tokenizer"] = round(entry[key]["tokens_per_s"] / tok, 4)
        if "tokens_per_s" in entry["whole_n1"] and "tokens_per_s" in entry["whole_n2"]:
            ratios["n2_vs_n1"] = round(entry["whole_n2"]["tokens_per_s"] / entry["whole_n1"]["tokens_per_s"], 3)
        if "tokens_per_s" in entry["sanitize_cli"] and "tokens_per_s" in entry["whole_n1"]:
            ratios["sanitize_vs_whole_n1"] = round(entry["sanitize_cli"]["tokens_per_s"] / entry["whole_n1"]["tokens_per_s"], 3)
        if "tokens_per_s" in entry["sanitize_cli"] and "tokens_per_s" in entry["sanitize_cli_n2"]:
            ratios["sanitize_n2_vs_n1"] = round(entry["sanitize_cli_n2"]["tokens_per_s"] / entry["sanitize_cli"]["tokens_per_s"], 3)
        if "tokens_per_s" in entry.get("presidio", {}) and "tokens_per_s" in entry["whole_n1"]:
            ratios["whole_n1_vs_presidio"] = round(entry["whole_n1"]["tokens_per_s"] / entry["presidio"]["tokens_per_s"], 2)
        entry["ratios"] = ratios
        results["sets"][name] = entry
        print(json.dumps({name: ratios}), flush=True)
    results["load_average_after"] = [round(x, 2) for x in os.getloadavg()]  # other jobs on the cores skew n_process
    write_json(args.out, results, indent=1)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
