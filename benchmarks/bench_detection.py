"""PHI detection at the default operating point, per category and per letter case, beside Presidio.

For each evaluation set, as written, in UPPER case and in lower case (copies made
in memory, gold spans kept), the default profile is fitted on the set itself (as a
user's ``deid`` run would: frequency counts on the notes being de-identified;
``--ner`` adds a trained PHI NER) and run on it. Token-level measures (spaCy's
English tokenizer, words only: punctuation and spaces are not counted):

- ``phi_removed``: share of gold PHI tokens that do not survive. With a
  ``phi_replacer`` in the pipeline a token is removed when an edit covers it and
  renders differently from the original text; without one, when any detection
  (``doc.ents``, a detector's span group, an edit) covers it.
- ``other_kept``: share of the other words left as they were.
- ``recall``: ``phi_removed`` per PHI category (gold labels mapped with
  ``spacy_deid.detect.labels``).
- ``by_source``: share of PHI tokens and of other words each detector covers
  (what finds PHI, what costs text).

Under HIPAA Safe Harbor ages under 90, years alone, states and countries are not
PHI: such gold spans (AGE under 90, a DATE that is a bare year, a LOCATION that is
a state or country as ``phi_replacer`` decides it) count as other words, to be
kept; so do titles inside gold names ("Dr.", "Mrs.") and the names of states and
countries inside longer gold places ("..., Cyprus"). Stop words inside gold spans
("the corner of X and Y") are counted neither as PHI nor as other words.

Hard negatives (records with ``hard_negative: true``, no PHI) are run through a
pipeline fitted on another corpus (held-out generated notes) and give
``words_kept``. Held-out generated notes of every style (``python -m spacy_deid generate --style mixed`` with a
seed the workflow does not use) are evaluated like the sets.

Presidio (analyzer with its default recognizers and spaCy's small English model)
runs in ``benchmarks/.venv-peers`` on the same texts; a token is removed when any
of its results covers it.

Usage:
    python benchmarks/bench_detection.py --data synth=DATA/synth_dataset_v2.jsonl \\
        --data queries=DATA/synthetic_clinical_queries.jsonl --generated 300 \\
        --out benchmarks/results/detection.json [--ner PATH] [--no-presidio]
"""
import argparse
import functools
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from spacy_deid.util import parse_key_values

ROOT = Path(__file__).resolve().parents[1]
PEERS_PY = ROOT / "benchmarks" / ".venv-peers" / "bin" / "python"
CASES = ("as_written", "upper", "lower")
_BARE_YEAR = re.compile(r"^\W*('?\d{2}'?|\d{4})\W*$")
_NUMBER = re.compile(r"\d+")


def case_copy(records: Sequence[dict], case: str) -> List[dict]:
    """Copies of ``records`` in a letter case; characters whose case form has
    another length ("ß") are kept, so every gold offset stays valid."""
    if case == "as_written":
        return [dict(r) for r in records]
    fn = str.upper if case == "upper" else str.lower
    out = []
    for r in records:
        text = "".join(c2 if len(c2 := fn(c)) == 1 else c for c in r["text"])
        spans = [{**s, "text": text[s["start"] : s["end"]]} for s in r.get("spans", [])]
        out.append({**r, "text": text, "spans": spans})
    return out


TITLES = frozenset("dr dr. mr mr. mrs mrs. ms ms. miss prof prof. doctor".split())


@functools.lru_cache(maxsize=1)
def _places():
    """The replacer's place classifier (its "state" kind: US states and postal
    codes, countries, continents), so the benchmark and the product agree."""
    from spacy_deid.surrogates.places import PlaceSurrogates

    return PlaceSurrogates(keyer=None)


def gold_category(span: dict, label_map: Dict[str, str]) -> Optional[str]:
    """The PHI category of a gold span, None when it is not PHI (unmapped label,
    an age under 90, a year alone, a state or country)."""
    from spacy_deid.detect.labels import category_of

    cat = category_of(span["label"], label_map)
    if cat == "DATE" and _BARE_YEAR.match(span["text"]):
        return None
    # the gold label counts: a lower-case postal code ("kathyton, ri 02887") is a state
    # only by its label, as it is for the replacer, which gets the NER's label
    if cat == "LOCATION" and _places().kind_of_location(span["text"], span["label"]) == "state":
        return None
    if cat == "AGE":
        nums = [int(n) for n in _NUMBER.findall(span["text"])]
        if not nums or max(nums) < 90:
            return None
    return cat


NEUTRAL = "-"  # a stop word inside a gold span: not counted


def token_gold(doc, record: dict, label_map: Dict[str, str]) -> List[Optional[str]]:
    """Per token: the PHI category of a gold span it overlaps, ``NEUTRAL`` for a
    stop word inside one, else None (see the module docstring)."""
    cats: List[Optional[str]] = [None] * len(doc)
    for span in record.get("spans", []):
        cat = gold_category(span, label_map)
        if cat is None:
            continue
        toks = [t for t in doc if t.idx < span["end"] and t.idx + len(t.text) > span["start"]]
        kept = _not_phi_places_inside(toks) if cat == "LOCATION" else set()
        for tok in toks:
            if (cat == "NAME" and tok.lower_ in TITLES) or tok.i in kept:
                continue
            cats[tok.i] = NEUTRAL if tok.is_stop else cat
    return cats


def _not_phi_places_inside(toks) -> Set[int]:
    """Token indices of states and countries (one to three words) inside a place."""
    out: Set[int] = set()
    for n in (3, 2, 1):
        for k in range(len(toks) - n + 1):
            part = toks[k : k + n]
            if any(t.i in out for t in part):
                continue
            text = " ".join(t.text for t in part)
            # a postal code after a town and a comma is a state in any case ("atlanta, ga"):
            # the lower-case copy of "Atlanta, GA" counts what the written one counts
            if n == 1 and len(text) == 2 and k > 0 and toks[k - 1].text == ",":
                text = text.upper()
            if part[0].is_alpha and _places().kind_of_location(text) == "state" and _places().kind_of_location(text, "CITY") == "state":
                out.update(t.i for t in part)
    return out


def is_word(tok) -> bool:
    return not (tok.is_punct or tok.is_space)


def detection_sources(doc) -> Dict[str, Set[int]]:
    """Token indices covered by each detector's output."""
    from spacy_deid.edits import get_edits

    out: Dict[str, Set[int]] = defaultdict(set)
    for ent in doc.ents:
        out["ents"].update(range(ent.start, ent.end))
    for key in doc.spans:
        if key == "deid":
            continue
        for span in doc.spans[key]:
            out[key].update(range(span.start, span.end))
    for edit in get_edits(doc):
        out[f"edit:{edit.label_}"].update(range(edit.start, edit.end))
    return out


def removed_tokens(doc, replacer: bool) -> Set[int]:
    """Tokens that do not survive (see the module docstring)."""
    from spacy_deid.edits import resolve_edits

    if replacer:
        gone: Set[int] = set()
        for seg in resolve_edits(doc):
            if seg.replacement != doc.text[seg.start_char : seg.end_char]:
                gone.update(range(seg.start, seg.end))
        return gone
    return set().union(*detection_sources(doc).values()) if len(doc) else set()


class Tally:
    """Token counts of one evaluation."""

    def __init__(self) -> None:
        self.phi = Counter()
        self.phi_removed = Counter()
        self.other = 0
        self.other_kept = 0
        self.src_phi = Counter()
        self.src_other = Counter()

    def add(self, doc, cats: List[Optional[str]], removed: Set[int], sources: Optional[Dict[str, Set[int]]] = None) -> None:
        for tok in doc:
            if not is_word(tok):
                continue
            cat = cats[tok.i]
            if cat == NEUTRAL:
                continue
            if cat is None:
                self.other += 1
                self.other_kept += tok.i not in removed
            else:
                self.phi[cat] += 1
                self.phi_removed[cat] += tok.i in removed
            for name, idx in (sources or {}).items():
                if tok.i in idx:
                    (self.src_other if cat is None else self.src_phi)[name] += 1

    def report(self) -> Dict[str, Any]:
        n_phi = sum(self.phi.values())
        rep: Dict[str, Any] = {
            "phi_tokens": n_phi,
            "phi_removed": round(sum(self.phi_removed.values()) / n_phi, 4) if n_phi else None,
            "other_words": self.other,
            "other_kept": round(self.other_kept / self.other, 4) if self.other else None,
            "recall": {c: round(self.phi_removed[c] / n, 4) for c, n in sorted(self.phi.items())},
            "phi_tokens_per_category": dict(sorted(self.phi.items())),
        }
        if self.src_phi or self.src_other:
            rep["by_source"] = {
                name: {
                    "phi_covered": round(self.src_phi[name] / n_phi, 4) if n_phi else None,
                    "other_covered": round(self.src_other[name] / self.other, 4) if self.other else None,
                }
                for name in sorted(set(self.src_phi) | set(self.src_other))
            }
        return rep


def fit(records: Sequence[dict], workdir: Path, config: str, overrides: Dict[str, Any], ner: Optional[str]):
    """The profile fitted on ``records`` (written to a temporary JSONL)."""
    from spacy_deid.engines.fit import init_pipeline

    corpus = workdir / "fit.jsonl"
    with corpus.open("w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    try:
        return init_pipeline(config, corpus, None, overrides, ner)
    finally:
        corpus.unlink()


def run_ours(nlp, records: Sequence[dict], label_map: Dict[str, str], sources: bool = True) -> Tally:
    from spacy_deid.util import make_doc

    replacer = "phi_replacer" in nlp.pipe_names
    tally = Tally()
    docs = nlp.pipe((make_doc(nlp, r) for r in records), batch_size=64)
    for doc, rec in zip(docs, records):
        tally.add(doc, token_gold(doc, rec, label_map), removed_tokens(doc, replacer), detection_sources(doc) if sources else None)
    return tally


PRESIDIO_WORKER = """
import json, sys
sys.path.insert(0, {bench!r})
from peers import presidio_engines
batch, _ = presidio_engines()
texts = [json.loads(l)['text'] for l in open({data!r}, encoding='utf8')]
with open({out!r}, 'w', encoding='utf8') as f:
    for results in batch.analyze_iterator(texts, language='en', batch_size=32):
        f.write(json.dumps([[r.start, r.end, r.entity_type] for r in results]) + '\\n')
"""


def run_presidio(records: Sequence[dict], workdir: Path, label_map: Dict[str, str], tokenizer) -> Optional[Tally]:
    """Presidio's analyzer on the same texts, in the peers' venv (None: no venv)."""
    if not PEERS_PY.exists():
        return None
    data, out = workdir / "presidio_in.jsonl", workdir / "presidio_out.jsonl"
    with data.open("w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps({"text": r["text"]}) + "\n")
    code = PRESIDIO_WORKER.format(bench=str(ROOT / "benchmarks"), data=str(data), out=str(out))
    try:
        subprocess.run([str(PEERS_PY), "-c", code], check=True, capture_output=True, text=True)
        results = [json.loads(line) for line in out.open(encoding="utf-8")]
    finally:
        data.unlink(missing_ok=True)
        out.unlink(missing_ok=True)
    tally = Tally()
    for rec, res in zip(records, results):
        doc = tokenizer(rec["text"])
        removed = {t.i for t in doc for s, e, _ in res if t.idx < e and t.idx + len(t.text) > s}
        tally.add(doc, token_gold(doc, rec, label_map), removed)
    return tally


def generate(n: int, seed: int, workdir: Path) -> List[dict]:
    """Held-out generated notes of every style (tidy prose, telegraphic ICU nursing notes in
    ALL CAPS and in lower case), written by the package's own CLI."""
    path = workdir / f"generated_{seed}.jsonl"
    subprocess.run(
        [sys.executable, "-m", "spacy_deid", "generate", str(path), "--n-docs", str(n),
         "--n-patients", str(max(1, n // 5)), "--seed", str(seed), "--style", "mixed"],
        check=True, cwd=ROOT, capture_output=True,
    )
    records = [json.loads(line) for line in path.open(encoding="utf-8")]
    path.unlink()
    return records


def read_records(path: str, limit: int) -> List[dict]:
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                out.append(json.loads(line))
            if limit and len(out) >= limit:
                break
    return out


def command_line(args: Sequence[str]) -> str:
    """The command as run, data files named by their file name only (no local paths)."""
    shown = [re.sub(r"=(.*/)?([^/]+\.jsonl)$", r"=DATA/\2", a) for a in args]
    return "python benchmarks/bench_detection.py " + " ".join(shown)


def fmt(rep: Dict[str, Any], cats: Sequence[str]) -> List[str]:
    cells = [f"{rep['phi_removed']:.3f}" if rep["phi_removed"] is not None else "-",
             f"{rep['other_kept']:.3f}" if rep["other_kept"] is not None else "-"]
    cells += [f"{rep['recall'][c]:.3f}" if c in rep["recall"] else "-" for c in cats]
    return cells


def markdown(results: Dict[str, Any]) -> str:
    cats = sorted({c for s in results["sets"].values() for v in s.values() for c in v["ours"]["recall"]})
    head = ["set", "case", "system", "PHI removed", "other kept", *cats]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, by_case in results["sets"].items():
        for case, entry in by_case.items():
            for system in ("ours", "presidio"):
                if entry.get(system):
                    lines.append("| " + " | ".join([name, case, system, *fmt(entry[system], cats)]) + " |")
    hn = results.get("hard_negatives")
    if hn:
        lines += ["", "| hard negatives | case | words kept (ours) | words kept (Presidio) |", "|---|---|---|---|"]
        for name, by_case in hn.items():
            for case, entry in by_case.items():
                pres = entry.get("presidio") or {}
                lines.append(f"| {name} | {case} | {entry['ours']['other_kept']:.3f} | "
                             f"{pres.get('other_kept', '-') if not pres else format(pres['other_kept'], '.3f')} |")
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", action="append", default=[], help="NAME=PATH of a JSONL set with gold spans (repeatable)")
    ap.add_argument("--generated", type=int, default=300, help="held-out generated notes (0: none)")
    ap.add_argument("--generated-seed", type=int, default=90210, help="seed of the held-out notes")
    ap.add_argument("--config", default="default", help="profile (shipped name or path)")
    ap.add_argument("--ner", help="a trained PHI NER pipeline to add (init --ner)")
    ap.add_argument("--set", dest="overrides", action="append", default=[], help="config override KEY=JSON (repeatable)")
    ap.add_argument("--cases", default=",".join(CASES), help="letter cases to run")
    ap.add_argument("--limit", type=int, default=0, help="records per set (0: all)")
    ap.add_argument("--no-presidio", action="store_true")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "detection.json")
    args = ap.parse_args(argv)
    # one salt for every run unless one is set: surrogates and date shifts, and so the rare
    # surrogate that equals what it replaces ("15th" shifted by a whole month), repeat
    os.environ.setdefault("SPACY_DEID_SALT", "bench-detection")

    import spacy

    import spacy_deid  # noqa: F401
    from spacy_deid.detect.labels import make_label_map

    label_map = make_label_map()
    overrides = parse_key_values(args.overrides)
    cases = [c for c in args.cases.split(",") if c]
    tokenizer = spacy.blank("en").tokenizer
    results: Dict[str, Any] = {
        "settings": {"config": args.config, "ner": args.ner, "overrides": overrides, "limit": args.limit,
                     "generated": args.generated, "generated_seed": args.generated_seed,
                     "command": command_line(argv if argv is not None else sys.argv[1:])},
        "sets": {},
        "hard_negatives": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        sets: Dict[str, List[dict]] = {}
        for item in args.data:
            name, _, path = item.partition("=")
            sets[name] = read_records(path, args.limit)
        held_out: List[dict] = generate(args.generated, args.generated_seed, workdir) if args.generated else []
        if held_out:
            sets["generated"] = held_out
        for name, records in sets.items():
            results["sets"][name] = {}
            for case in cases:
                variant = case_copy(records, case)
                t0 = time.perf_counter()
                nlp = fit(variant, workdir, args.config, overrides, args.ner)
                ours = run_ours(nlp, variant, label_map).report()
                ours["seconds"] = round(time.perf_counter() - t0, 1)
                entry: Dict[str, Any] = {"n_records": len(variant), "ours": ours}
                if not args.no_presidio:
                    pres = run_presidio(variant, workdir, label_map, tokenizer)
                    entry["presidio"] = pres.report() if pres is not None else None
                results["sets"][name][case] = entry
                print(f"[{name}/{case}] ours removed {ours['phi_removed']} kept {ours['other_kept']} "
                      f"recall {ours['recall']}", flush=True)
        # hard negatives through a pipeline fitted on another corpus
        negatives = {name: [r for r in recs if r.get("hard_negative")] for name, recs in sets.items()}
        negatives = {k: v for k, v in negatives.items() if v}
        if negatives:
            fit_on = held_out or generate(300, args.generated_seed + 1, workdir)
            for case in cases:
                nlp = fit(case_copy(fit_on, case), workdir, args.config, overrides, args.ner)
                for name, recs in negatives.items():
                    variant = case_copy(recs, case)
                    entry = {"n_records": len(variant), "fitted_on": "generated notes",
                             "ours": run_ours(nlp, variant, label_map).report()}
                    if not args.no_presidio:
                        pres = run_presidio(variant, workdir, label_map, tokenizer)
                        entry["presidio"] = pres.report() if pres is not None else None
                    results["hard_negatives"].setdefault(name, {})[case] = entry
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(markdown(results))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
