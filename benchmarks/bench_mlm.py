"""Throughput and quality of the mlm_resampler vs nlpaug's ContextualWordEmbsAug.

One run reports both systems on the same notes with the same local masked-LM directory:

    .venv/bin/python benchmarks/bench_mlm.py --model MODEL_DIR \
        --data DATA/mtsamples.jsonl --n-docs 500 --out benchmarks/results/mlm.json

- ours: a blank English pipeline with ``mlm_resampler`` (DataSifterText schedule, all
  masks of a batch of documents filled by batched forward passes over windows);
- nlpaug: ``ContextualWordEmbsAug(action="substitute")`` with ``aug_p`` set to the mask
  rate ours reached, run in ``benchmarks/.venv-peers`` (nlpaug is not a dependency of the
  package) as a subprocess; it stops after ``--nlpaug-max-seconds`` and its throughput is
  computed on the notes it finished.

Throughput is input tokens (spaCy tokens, whitespace excluded) per second over whole
notes, and replaced tokens per second. nlpaug only augments the head of a long input
(what fits the model), so by default it gets each note in pieces of about one model
window of words (``--nlpaug-chunk-words``) and covers whole notes as ours does; it
fills one mask per forward pass (batched across inputs).
Quality: the share of resampled tokens that keep the original's coarse shape
(word / number / punctuation). Model quality (held-out masked-token accuracy,
perplexity) is in the model directory's metrics.json, written by ``pretrain``.
No document text is printed or stored.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from spacy_deid.io.atomic import write_json

ROOT = Path(__file__).resolve().parents[1]

NLPAUG_SCRIPT = r'''
import json, sys, time, difflib, os
os.environ.setdefault("HF_HUB_OFFLINE", "1"); os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
import nlpaug.augmenter.word as naw
args = json.loads(sys.argv[1])
texts = [json.loads(l)["text"] for l in open(args["data"], encoding="utf8") if l.strip()]
texts = texts[args["skip"]: args["skip"] + args["n_docs"]]
aug = naw.ContextualWordEmbsAug(model_path=args["model"], model_type="bert", action="substitute",
    aug_p=args["aug_p"], aug_max=None, top_k=args["top_k"], device="cpu", batch_size=args["batch_size"])
def pieces(text):
    # whole-note mode: pieces of N words, so every part of the note fits the model
    # (nlpaug itself only augments the head of a long input)
    n = args["chunk_words"]
    if n <= 0:
        return [text]
    words = text.split()
    return [" ".join(words[i:i + n]) for i in range(0, len(words), n)] or [text]
def baseline(text):
    # nlpaug returns the tokenizer's decoding (lower-cased, re-spaced): compare with
    # the decoding of the unchanged input, so only substitutions count
    head, tail = aug.split_text(text)[0][:2]
    return head + (" " + tail if tail else "")
aug.augment(pieces(texts[0])[:2])  # warm-up, not timed
done, changed, t0 = 0, 0, time.perf_counter()
for text in texts:
    parts = pieces(text)
    for start in range(0, len(parts), args["batch_size"]):
        batch = parts[start:start + args["batch_size"]]
        out = aug.augment(batch)
        t_pause = time.perf_counter()
        for a, b in zip(batch, out):
            ops = difflib.SequenceMatcher(a=baseline(a).split(), b=b.split(), autojunk=False).get_opcodes()
            changed += sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag == "replace")
        t0 += time.perf_counter() - t_pause  # the counting is not nlpaug's time
    done += 1
    if time.perf_counter() - t0 > args["max_seconds"]:
        break
print(json.dumps({"n_docs": done, "seconds": time.perf_counter() - t0, "changed_tokens_approx": changed,
                  "chunk_words": args["chunk_words"]}))
'''


def run_ours(model: Path, records, batch_size: int, seed: int, window_size: int, keep_shape: bool):
    import spacy

    import spacy_deid  # noqa: F401
    from spacy_deid.edits import MLM, get_edits
    from spacy_deid.components.mlm_resampler import coarse_shape
    from spacy_deid.util import make_doc

    nlp = spacy.blank("en")
    config = {"model": str(model), "seed": seed, "window_size": window_size, "keep_shape": keep_shape}
    nlp.add_pipe("mlm_resampler", config=config)
    nlp.initialize()
    list(nlp.pipe([make_doc(nlp, r) for r in records[:4]]))  # warm-up (model load), not timed
    docs = [make_doc(nlp, r) for r in records]
    t0 = time.perf_counter()
    docs = list(nlp.pipe(docs, batch_size=batch_size))
    seconds = time.perf_counter() - t0
    n_tokens = [sum(1 for t in d if not t.is_space) for d in docs]
    n_masks = same_shape = 0
    for d in docs:
        for e in get_edits(d):
            if e.label_ != MLM:
                continue
            n_masks += 1
            same_shape += coarse_shape(e.text) == coarse_shape(e._.deid_replacement)
    sampler = nlp.get_pipe("mlm_resampler").sampler
    return {
        "n_docs": len(docs),
        "n_tokens": sum(n_tokens),
        "seconds": round(seconds, 3),
        "tokens_per_s": round(sum(n_tokens) / seconds, 1),
        "replaced_tokens": n_masks,
        "replaced_per_s": round(n_masks / seconds, 1),
        "mask_rate": round(n_masks / max(1, sum(n_tokens)), 4),
        "same_coarse_shape": round(same_shape / max(1, n_masks), 4),
        "window_size": sampler.window_size,
        "windows_batch_size": sampler.batch_size,
    }, n_tokens


def run_nlpaug(python: Path, model: Path, data: Path, skip: int, n_docs: int, aug_p: float, max_seconds: float,
               batch_size: int, top_k: int, chunk_words: int):
    args = {"model": str(model), "data": str(data), "skip": skip, "n_docs": n_docs, "aug_p": aug_p,
            "max_seconds": max_seconds, "batch_size": batch_size, "top_k": top_k, "chunk_words": chunk_words}
    proc = subprocess.run([str(python), "-c", NLPAUG_SCRIPT, json.dumps(args)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"nlpaug run failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, required=True, help="Local HF masked-LM directory (e.g. from pretrain)")
    parser.add_argument("--data", type=Path, required=True,
                        help="JSONL notes")
    parser.add_argument("--n-docs", type=int, default=500, help="Notes to process")
    parser.add_argument("--skip", type=int, default=0, help="Skip the first N notes")
    parser.add_argument("--batch-size", type=int, default=64, help="Docs per nlp.pipe batch (ours)")
    parser.add_argument("--window-size", type=int, default=128, help="Window size (clamped to the model)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep-shape", action="store_true", help="Ours with keep_shape = true")
    parser.add_argument("--peers-python", type=Path, default=ROOT / "benchmarks" / ".venv-peers" / "bin" / "python",
                        help="Python of the venv with nlpaug")
    parser.add_argument("--nlpaug-max-seconds", type=float, default=300.0,
                        help="Stop nlpaug after this long (throughput from the notes it finished)")
    parser.add_argument("--nlpaug-batch-size", type=int, default=32)
    parser.add_argument("--nlpaug-chunk-words", type=int, default=-1,
                        help="Give nlpaug each note in pieces of N words so it covers whole notes "
                             "(-1: fit the model's window, about 0.6 words per wordpiece; 0: whole notes, "
                             "nlpaug then augments only the head)")
    parser.add_argument("--skip-nlpaug", action="store_true", help="Measure ours only")
    parser.add_argument("--out", type=Path, default=None, help="Write the results JSON here")
    args = parser.parse_args()

    sys.path.insert(0, str(ROOT))
    from spacy_deid.io.records import iter_records

    records = list(iter_records(args.data, limit=args.skip + args.n_docs))[args.skip:]
    load_before = os.getloadavg()
    ours, tokens_per_doc = run_ours(args.model, records, args.batch_size, args.seed, args.window_size, args.keep_shape)
    result = {"data": args.data.name, "model": str(args.model), "cpu_count": os.cpu_count(), "ours": ours}
    print(f"ours:   {ours['tokens_per_s']:>9.1f} tokens/s  {ours['replaced_per_s']:>8.1f} replaced/s  "
          f"({ours['n_docs']} notes, {ours['seconds']:.1f}s, mask rate {ours['mask_rate']:.3f}, "
          f"same coarse shape {ours['same_coarse_shape']:.3f})")
    if not args.skip_nlpaug:
        chunk = args.nlpaug_chunk_words
        if chunk < 0:
            chunk = max(8, int(0.6 * (ours["window_size"] - 2)))
        peer = run_nlpaug(args.peers_python, args.model, args.data, args.skip, args.n_docs, ours["mask_rate"],
                          args.nlpaug_max_seconds, args.nlpaug_batch_size, 50, chunk)
        n_tok = sum(tokens_per_doc[: peer["n_docs"]])
        peer["n_tokens"] = n_tok
        peer["tokens_per_s"] = round(n_tok / peer["seconds"], 1)
        peer["replaced_per_s_approx"] = round(peer["changed_tokens_approx"] / peer["seconds"], 1)
        result["nlpaug"] = peer
        result["ratio_tokens_per_s"] = round(ours["tokens_per_s"] / peer["tokens_per_s"], 2)
        result["ratio_replaced_per_s"] = round(ours["replaced_per_s"] / max(1e-9, peer["replaced_per_s_approx"]), 2)
        print(f"nlpaug: {peer['tokens_per_s']:>9.1f} tokens/s  {peer['replaced_per_s_approx']:>8.1f} replaced/s "
              f"(approx; {peer['n_docs']} notes, {peer['seconds']:.1f}s)")
        print(f"ratio:  {result['ratio_tokens_per_s']}x tokens/s, {result['ratio_replaced_per_s']}x replaced/s")
    result["loadavg_before"] = [round(x, 2) for x in load_before]
    result["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
    if args.out:
        write_json(args.out, result, indent=2)
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
