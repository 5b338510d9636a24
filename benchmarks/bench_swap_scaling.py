"""Scaling of the doc_swapper: fit and swap time and peak memory against corpus size.

Corpora of N documents are made from mtsamples: record i is mtsamples record
i mod 4,966; every copy after the first has its sentences shuffled (seeded), so
documents differ while their vocabulary stays clinical. They are generated on the
fly (nothing is written to disk except the fit's own spilled chunks).

Each (N, phase) runs in a fresh subprocess so that its peak RSS (ru_maxrss) is its
own:
- fit: ``initialize`` on the N documents (hashing, idf, MiniBatchKMeans.partial_fit,
  K = 40 fixed so every N fits the same model size); the state is saved for swap;
- swap: ``nlp.pipe`` over the same N documents with the fitted state
  (tokenisation + swapper; the tokeniser's share is timed separately).
The fitted exponent b of time = a * N^b is reported for wall time and for the
process's CPU time (less sensitive to other jobs on a shared machine; target:
b <= 1.15), and the
peak RSS above the process's RSS before the work ("working memory"), which must not
grow with N: the swapper holds at most ``max_buffer`` documents.

Usage:
    python benchmarks/bench_swap_scaling.py --data DATA/mtsamples.jsonl \
        --sizes 10000 30000 100000 --out benchmarks/results/swap_scaling.json
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, Iterator, List

from spacy_deid.io.atomic import write_json

ROOT = Path(__file__).resolve().parent.parent
SENTENCE = re.compile(r"(?<=[.!?])\s+")


def rss_mb() -> float:
    """Current resident set size (Linux /proc)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


def peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def perturbed(records: List[dict], n: int, seed: int) -> Iterator[dict]:
    """N records: copies of ``records``, sentences shuffled from the second copy on."""
    import numpy as np

    for i in range(n):
        base = records[i % len(records)]
        copy = i // len(records)
        text = base["text"]
        if copy:
            sentences = SENTENCE.split(text)
            np.random.default_rng([seed, i]).shuffle(sentences)
            text = " ".join(sentences)
        yield {"id": f"{base['id']}#{copy}", "label": base["label"], "text": text}


def swapper_config(args) -> Dict:
    return {
        "method": args.method,
        "q": args.q,
        "n_clusters": 40,
        "pool_size": args.pool_size,
        "max_buffer": args.max_buffer,
        "seed": args.seed,
    }


def worker(args) -> Dict:
    import spacy

    import spacy_deid  # noqa: F401
    from spacy_deid.edits import SWAP, get_edits
    from spacy_deid.io.records import read_jsonl_list
    from spacy_deid.util import make_doc

    records = [{"id": r["id"], "label": r["label"], "text": r["text"]} for r in read_jsonl_list(args.data)]
    nlp = spacy.blank("en")
    swapper = nlp.add_pipe("doc_swapper", config=swapper_config(args))
    state = Path(args.state)
    if args.phase == "swap":
        swapper.from_disk(state)
    before = rss_mb()
    t0 = time.perf_counter()
    c0 = time.process_time()
    out: Dict = {"phase": args.phase, "n": args.n}
    if args.phase == "fit":
        swapper.initialize(lambda: [], nlp=nlp, corpus=lambda: perturbed(records, args.n, args.seed))
        out["seconds"] = time.perf_counter() - t0
        swapper.to_disk(state)
        out["n_kept_features"] = swapper.cfg["n_kept"]
    else:
        tok_s = 0.0

        def docs():
            nonlocal tok_s
            for rec in perturbed(records, args.n, args.seed):
                t = time.perf_counter()
                doc = make_doc(nlp, rec)
                tok_s += time.perf_counter() - t
                yield doc

        n_out = n_swapped = 0
        with nlp.memory_zone():  # as sanitize would: the stream's strings do not pile up
            for doc in nlp.pipe(docs(), batch_size=256):
                n_out += 1
                n_swapped += any(e.label_ == SWAP for e in get_edits(doc))
        out["seconds"] = time.perf_counter() - t0
        out["tokenizer_seconds"] = tok_s
        out["swapper_seconds"] = out["seconds"] - tok_s
        out["docs_out"] = n_out
        out["docs_swapped_share"] = n_swapped / max(1, n_out)
    out["cpu_seconds"] = time.process_time() - c0
    out["load_average_1min_end"] = os.getloadavg()[0]  # other jobs on a shared machine
    out["rss_before_mb"] = before
    out["peak_rss_mb"] = peak_rss_mb()
    out["working_mb"] = out["peak_rss_mb"] - before
    return out


def exponent(ns: List[int], ts: List[float]) -> float:
    import numpy as np

    return float(np.polyfit(np.log(ns), np.log(ts), 1)[0])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="mtsamples.jsonl")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000, 30000, 100000], help="corpus sizes N")
    parser.add_argument("--method", default="rake_keyphrase", help="swap method")
    parser.add_argument("--q", type=int, default=3, help="swap q")
    parser.add_argument("--pool-size", type=int, default=1000, help="doc_swapper pool_size")
    parser.add_argument("--max-buffer", type=int, default=5000, help="doc_swapper max_buffer")
    parser.add_argument("--seed", type=int, default=0, help="seed")
    parser.add_argument("--out", type=Path, default=None, help="write the results as JSON here")
    parser.add_argument("--worker", action="store_true", help="internal: run one phase")
    parser.add_argument("--phase", choices=["fit", "swap"], help="internal")
    parser.add_argument("--n", type=int, help="internal")
    parser.add_argument("--state", help="internal")
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args)))
        return 0
    rows = []
    for n in args.sizes:
        with tempfile.TemporaryDirectory(prefix="swap_scaling_") as tmp:
            for phase in ("fit", "swap"):
                cmd = [
                    sys.executable, __file__, "--worker", "--phase", phase, "--n", str(n), "--state", tmp,
                    "--data", str(args.data), "--method", args.method, "--q", str(args.q),
                    "--pool-size", str(args.pool_size), "--max-buffer", str(args.max_buffer), "--seed", str(args.seed),
                ]
                proc = subprocess.run(cmd, capture_output=True, text=True)
                if proc.returncode != 0:
                    print(proc.stderr[-3000:], file=sys.stderr)
                    return proc.returncode
                row = json.loads(proc.stdout.strip().splitlines()[-1])
                rows.append(row)
                extra = (
                    f" (tokenizer {row['tokenizer_seconds']:.1f}s, swapper {row['swapper_seconds']:.1f}s)"
                    if phase == "swap"
                    else ""
                )
                print(
                    f"N={n:>7} {phase:4s} {row['seconds']:8.1f}s (cpu {row['cpu_seconds']:.1f}s){extra}  peak RSS {row['peak_rss_mb']:.0f} MB "
                    f"(working {row['working_mb']:.0f} MB)",
                    flush=True,
                )
    report: Dict = {"sizes": args.sizes, "config": {k: v for k, v in vars(args).items() if k in ("method", "q", "pool_size", "max_buffer", "seed")}, "rows": rows}
    if len(args.sizes) >= 2:
        for phase, key in (("fit", "seconds"), ("fit", "cpu_seconds"), ("swap", "seconds"), ("swap", "cpu_seconds"), ("swap", "swapper_seconds")):
            sel = [r for r in rows if r["phase"] == phase]
            report[f"exponent_{phase}_{key}"] = round(exponent([r["n"] for r in sel], [r[key] for r in sel]), 3)
            print(f"exponent {phase} {key}: {report[f'exponent_{phase}_{key}']}")
    if args.out:
        write_json(args.out, report, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
