"""Where the DataSifterText tier loses specialty F1: each kind of edit left out in turn.

Fits the profile as ``bench_datasifter.py`` does (same notes, same seed), sanitises
the notes once, then re-renders each note with one kind of edit left out and scores
the specialty classifier (``spacy_deid.eval.utility.classification_f1``) on each
rendering, as a ratio to raw text:

- all edits (the sanitised text);
- no SWAP edits (keyphrases of a similar note);
- no MLM edits of widely spread words (in at least ``spread_ref`` of the patients, the
  resampler's own table);
- no MLM edits of the other words (topical words, and rare words the masker forced);
- no MLM edits at all.

    python benchmarks/bench_datasifter_edits.py --data DATA/mtsamples.jsonl --mlm MLM_DIR \\
        --vectors VECTORS_DIR --limit 2000 --work WORK --out OUT.json

No document text is printed or stored.
"""
import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Callable, Dict, List, Sequence, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_datasifter import split_notes  # noqa: E402

from spacy_deid.io.atomic import write_json  # noqa: E402
from spacy_deid.util import parse_key_values  # noqa: E402

Edit = Tuple[int, int, str, str, bool]  # start_char, end_char, reason, replacement, widely spread


def render(text: str, edits: Sequence[Edit], keep: Callable[[Edit], bool]) -> str:
    """``text`` with the kept edits applied; a later edit wins where two overlap
    (the rule of ``spacy_deid.edits.resolve_edits``)."""
    chosen = [e for e in edits if keep(e)]
    owner: List[int] = [-1] * len(text)
    for k, e in enumerate(chosen):
        for c in range(e[0], e[1]):
            owner[c] = k
    out: List[str] = []
    c = 0
    while c < len(text):
        k = owner[c]
        if k < 0:
            out.append(text[c])
            c += 1
            continue
        out.append(chosen[k][3])
        while c < len(text) and owner[c] == k:
            c += 1
    return "".join(out)


VARIANTS: Dict[str, Callable[[Edit], bool]] = {
    "all edits": lambda e: True,
    "no SWAP": lambda e: e[2] != "SWAP",
    "no MLM of widely spread words": lambda e: not (e[2] == "MLM" and e[4]),
    "no MLM of other words": lambda e: not (e[2] == "MLM" and not e[4]),
    "no MLM": lambda e: e[2] != "MLM",
}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--mlm", type=Path, required=True)
    parser.add_argument("--vectors", type=Path, required=True)
    parser.add_argument("--config", default="datasifter")
    parser.add_argument("--limit", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--set", dest="sets", action="append", default=[], help="Config override KEY=VALUE (JSON value)")
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)

    import numpy

    import spacy_deid  # noqa: F401
    from spacy_deid.components.mlm_resampler import spread_weights
    from spacy_deid.edits import get_edits
    from spacy_deid.engines.fit import init_pipeline
    from spacy_deid.eval.utility import classification_f1
    from spacy_deid.io.records import iter_records
    from spacy_deid.resources import config_path
    from spacy_deid.util import make_doc

    records = [r for r in iter_records(args.data) if r.get("text")]
    evaluated, _ = split_notes(records, args.limit, 0, args.seed)
    args.work.mkdir(parents=True, exist_ok=True)
    corpus = args.work / "notes.jsonl"
    with corpus.open("w", encoding="utf8") as fh:
        for r in evaluated:
            fh.write(json.dumps(r) + "\n")
    overrides = {"paths.mlm": str(args.mlm), "paths.vectors": str(args.vectors), **parse_key_values(args.sets)}
    nlp = init_pipeline(config_path(args.config), corpus, None, overrides)
    mlm = nlp.get_pipe("mlm_resampler")
    ref = mlm.spread_ref or 0.1
    rows = []
    kinds: Counter = Counter()
    t = time.perf_counter()
    for rec, doc in zip(evaluated, nlp.pipe((make_doc(nlp, r) for r in evaluated), batch_size=64)):
        lower = numpy.array([tok.lower for tok in doc], dtype=numpy.uint64)
        spread = spread_weights(lower, mlm.spread_hashes, mlm.spread_shares, ref, 1e-6) >= 1.0
        edits = []
        for sp in get_edits(doc):
            wide = bool(spread[sp.start : sp.end].all())
            edits.append((sp.start_char, sp.end_char, sp.label_, sp._.deid_replacement or "", wide))
            kinds[f"{sp.label_}{' (widely spread)' if wide and sp.label_ == 'MLM' else ''}"] += 1
        rows.append((rec, doc.text, edits))
    sanitize_s = round(time.perf_counter() - t, 1)
    result = {"data": args.data.name, "config": args.config, "overrides": parse_key_values(args.sets), "n_docs": len(rows),
              "edit_records": dict(kinds), "sanitize_s": sanitize_s, "variants": {}}
    for name, keep in VARIANTS.items():
        f1 = classification_f1([(rec, {"deid_text": render(text, edits, keep)}) for rec, text, edits in rows], seed=args.seed)
        result["variants"][name] = f1
        print(f"{name}: F1 ratio {f1['ratio']:.3f} ({f1['macro_f1_sanitized']:.3f} / {f1['macro_f1_raw']:.3f})", flush=True)
    result["command"] = "python " + " ".join([Path(sys.argv[0]).name] + (argv if argv is not None else sys.argv[1:]))
    if args.out:
        write_json(args.out, result, indent=1)
    return result


if __name__ == "__main__":
    main()
