"""The PHI NER experiments of Filtered BERT augmentation and neighbour pseudonyms.

Trains the PHI NER of ``spacy_deid/configs/ner_tok2vec.cfg`` (or ``ner_trf.cfg``) on a
low-resource split without augmentation, with filtered-MLM augmentation and with
neighbour pseudonyms at several N, then scores every model on a held-out generated
split and on ``synthetic_clinical_queries.jsonl`` (labels mapped, see ``SCQ_MAP``).
Every step is a subprocess running a project command, and the exact command lines
are appended to ``OUT/commands.sh``; a finished step (its output exists) is skipped,
so an interrupted sweep resumes.

    python scripts/ner_experiments.py run --train corpus/ner_train.jsonl \
        --dev corpus/ner_dev.jsonl --test corpus/test.jsonl \
        --scq DATA/synthetic_clinical_queries.jsonl \
        --vectors vectors --mlm mlm --out training/ner_sweep \
        --variants baseline,nb10,nb50,nb100,nb200,filtered_mlm
    python scripts/ner_experiments.py report training/ner_sweep > reports/ner_sweep.md

Variants: ``baseline`` (no augmentation), ``nbN`` (neighbour pseudonyms, N
neighbours), ``filtered_mlm`` (Filtered BERT, n = 5 words per note). Augmented sets
hold every original note plus one augmented copy (the paper's "size of the training
set"). All runs get the same number of updates (``--max-steps`` batches of
``--batch-words`` words): equal compute, so an augmented run sees each note about
half as often as the baseline.
"""
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

import typer

from spacy_deid.io.atomic import write_json

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False)

PY = sys.executable

# synthetic_clinical_queries labels -> coarse categories shared with ours. The
# queries annotate HIPAA identifiers only: no AGE under 90, no PROFESSION, so our
# AGE/PROFESSION predictions are dropped before scoring, not counted as errors.
SCQ_MAP: Dict[str, str] = {
    "NAME": "NAME",
    "GEOGRAPHIC_LOCATION": "LOCATION",
    "DATE": "DATE",
    "MEDICAL_RECORD_NUMBER": "ID",
    "HEALTH_PLAN_BENEFICIARY_NUMBER": "ID",
    "SOCIAL_SECURITY_NUMBER": "ID",
    "UNIQUE_IDENTIFIER": "ID",
    "ACCOUNT_NUMBER": "ID",
    "CERTIFICATE_LICENSE_NUMBER": "ID",
    "PHONE_NUMBER": "CONTACT",
    "FAX_NUMBER": "CONTACT",
    "EMAIL_ADDRESS": "CONTACT",
    "IP_ADDRESS": "CONTACT",
}
# our labels (the generator's, i2b2-style) -> the same coarse categories
OURS_MAP: Dict[str, str] = {
    "PATIENT": "NAME",
    "DOCTOR": "NAME",
    "USERNAME": "NAME",
    "HOSPITAL": "LOCATION",
    "CITY": "LOCATION",
    "STREET": "LOCATION",
    "STATE": "LOCATION",
    "ZIP": "LOCATION",
    "COUNTRY": "LOCATION",
    "LOCATION_OTHER": "LOCATION",
    "ORGANIZATION": "LOCATION",
    "DATE": "DATE",
    "MRN": "ID",
    "IDNUM": "ID",
    "SSN": "ID",
    "DEVICE": "ID",
    "PHONE": "CONTACT",
    "FAX": "CONTACT",
    "EMAIL": "CONTACT",
    "URL": "CONTACT",
    "AGE": "",
    "PROFESSION": "",
}


def sh(cmd: List[str], log: Path, env_note: str = "") -> None:
    """Run a command, appending its exact line to ``commands.sh``."""
    line = " ".join(shlex.quote(c) for c in cmd)
    with log.open("a", encoding="utf8") as fh:
        fh.write(line + "\n")
    print(f"$ {line}", flush=True)
    t0 = time.time()
    subprocess.run(cmd, check=True)
    print(f"  ({time.time() - t0:.0f} s)", flush=True)


def train_file(variant: str, args: dict, out: Path, log: Path) -> Path:
    """The training JSONL of a variant (made with `python -m spacy_deid augment`)."""
    if variant == "baseline":
        return Path(args["train"])
    path = out / "data" / f"{variant}.jsonl"
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    cmd = [PY, "-m", "spacy_deid", "augment", str(args["train"]), str(path), "--vectors", str(args["vectors"]),
           "--seed", str(args["seed"])]
    if variant.startswith("nb"):
        cmd += ["--method", "neighbor_pseudonyms", "--neighbors", variant[2:]]
    elif variant == "filtered_mlm":
        if not args.get("mlm"):
            raise typer.BadParameter("filtered_mlm needs --mlm")
        cmd += ["--method", "filtered_mlm", "--model", str(args["mlm"]), "--n", "5"]
    else:
        raise typer.BadParameter(f"unknown variant {variant!r}")
    sh(cmd, log)
    return path


@app.command("run")
def run(
    train: Path = typer.Option(..., help="Low-resource gold training split (JSONL)"),
    dev: Path = typer.Option(..., help="Gold dev split (model selection)"),
    test: Path = typer.Option(..., help="Held-out gold split"),
    vectors: Path = typer.Option(..., help="Vectors dir (spacy_deid vectors)"),
    out: Path = typer.Option(..., help="Output directory"),
    scq: Optional[Path] = typer.Option(None, help="synthetic_clinical_queries.jsonl"),
    mlm: Optional[Path] = typer.Option(None, help="MLM dir (filtered_mlm)"),
    config: Path = typer.Option(Path("spacy_deid/configs/ner_tok2vec.cfg"), help="NER config"),
    variants: str = typer.Option("baseline,nb10,nb50,nb100,nb200,filtered_mlm", help="Comma-separated variants"),
    max_steps: int = typer.Option(500, help="Updates per run (same for all variants)"),
    batch_words: int = typer.Option(1000, help="Words per batch"),
    eval_frequency: int = typer.Option(100, help="Steps between dev evaluations"),
    dev_limit: int = typer.Option(40, help="Dev notes used for model selection (0: all)"),
    test_limit: int = typer.Option(0, help="Test notes scored (0: all)"),
    seed: int = typer.Option(0, help="Seed of augmentation and training"),
    width: int = typer.Option(64, help="tok2vec width (tok2vec config only)"),
    depth: int = typer.Option(2, help="tok2vec depth (tok2vec config only)"),
    extra: str = typer.Option("", help="Extra `spacy train` overrides, e.g. '--paths.transformer mlm'"),
):
    """Augment, train and evaluate every variant (resumable)."""
    out.mkdir(parents=True, exist_ok=True)
    log = out / "commands.sh"
    args = dict(train=train, vectors=vectors, mlm=mlm, seed=seed)
    for variant in [v.strip() for v in variants.split(",") if v.strip()]:
        data = train_file(variant, args, out, log)
        model_dir = out / variant
        if not (model_dir / "model-best").exists():
            cmd = [PY, "-m", "spacy", "train", str(config), "--output", str(model_dir),
                   "--paths.train", str(data), "--paths.dev", str(dev),
                   "--training.max_steps", str(max_steps), "--training.eval_frequency", str(eval_frequency),
                   "--training.batcher.size", str(batch_words), "--corpora.dev.limit", str(dev_limit),
                   "--system.seed", str(seed), "--nlp.disabled", '["phi_ruler"]']
            if "tok2vec" in config.name:
                cmd += ["--paths.vectors", str(vectors),
                        "--components.tok2vec.model.encode.width", str(width),
                        "--components.tok2vec.model.encode.depth", str(depth)]
            cmd += shlex.split(extra)
            sh(cmd, log)
        scores = out / f"{variant}.scores.json"
        if not scores.exists():
            cmd = [PY, __file__, "evaluate", str(model_dir / "model-best"), str(test), "--output", str(scores),
                   "--limit", str(test_limit)]
            if scq is not None:
                cmd += ["--scq", str(scq)]
            sh(cmd, log)


def _score(examples) -> dict:
    from spacy.scorer import Scorer

    s = Scorer.score_spans(examples, "ents")
    per = {k: {m: round(v[m], 4) for m in "prf"} for k, v in (s["ents_per_type"] or {}).items()}
    for eg in examples:  # support: gold entities per label
        for e in eg.reference.ents:
            per.setdefault(e.label_, {"p": 0.0, "r": 0.0, "f": 0.0})
            per[e.label_]["n"] = per[e.label_].get("n", 0) + 1
    return {"p": round(s["ents_p"] or 0.0, 4), "r": round(s["ents_r"] or 0.0, 4), "f": round(s["ents_f"] or 0.0, 4),
            "per_type": per}


def _relabel(doc, mapping: Dict[str, str]):
    from spacy.tokens import Span

    doc.ents = [Span(doc, e.start, e.end, label=mapping[e.label_]) for e in doc.ents if mapping.get(e.label_)]
    return doc


@app.command("evaluate")
def evaluate(
    model: Path = typer.Argument(..., help="Trained pipeline"),
    test: Path = typer.Argument(..., help="Gold JSONL (our labels)"),
    output: Path = typer.Option(..., help="Scores JSON"),
    scq: Optional[Path] = typer.Option(None, help="synthetic_clinical_queries.jsonl"),
    limit: int = typer.Option(0, help="At most this many test notes (0: all)"),
):
    """Per-label P/R/F1: NER alone and NER + phi_ruler, on the test split and on
    the clinical queries (coarse labels, see SCQ_MAP/OURS_MAP)."""
    import spacy
    from spacy.training import Example

    import spacy_deid  # noqa: F401
    from spacy_deid.io.records import iter_records
    from spacy_deid.io.readers import record_to_example

    nlp = spacy.load(model)
    if "phi_ruler" in nlp.disabled:
        nlp.enable_pipe("phi_ruler")
    ruler = nlp.get_pipe("phi_ruler")
    if not len(ruler.patterns):
        # trained with the ruler disabled (model selection on the NER alone): spaCy
        # does not initialize a disabled component, so add the shipped patterns here
        from spacy_deid.io.readers import phi_patterns_v1

        ruler.add_patterns(phi_patterns_v1())
    gold = [record_to_example(nlp, r) for r in iter_records(test, limit=limit)]
    result: dict = {"model": str(model), "test": str(test), "n_test": len(gold)}
    t0 = time.time()
    for name, disable in (("ner", ["phi_ruler"]), ("ner+ruler", [])):
        with nlp.select_pipes(disable=disable):
            preds = list(nlp.pipe((eg.predicted for eg in gold), batch_size=32))
        egs = [Example(p, eg.reference) for p, eg in zip(preds, gold)]
        result[f"test/{name}"] = _score(egs)
        if scq is not None:
            recs = list(iter_records(scq))
            q_gold = [record_to_example(nlp, r, label_map=SCQ_MAP) for r in recs]
            with nlp.select_pipes(disable=disable):
                q_pred = [_relabel(d, OURS_MAP) for d in nlp.pipe((eg.predicted for eg in q_gold), batch_size=64)]
            q_egs = [Example(p, eg.reference) for p, eg in zip(q_pred, q_gold)]
            res = _score(q_egs)
            neg = [len(p.ents) for p, r in zip(q_pred, recs) if r.get("hard_negative")]
            res["hard_negative_fp_per_query"] = round(sum(neg) / max(len(neg), 1), 4)
            res["n_queries"] = len(recs)
            result[f"scq/{name}"] = res
    result["eval_seconds"] = round(time.time() - t0, 1)
    meta = json.loads((model / "meta.json").read_text())
    result["dev_ents_f"] = meta.get("performance", {}).get("ents_f")
    write_json(output, result, indent=2)
    print(json.dumps({k: v for k, v in result.items() if "/" in k and "per_type" not in k}, default=str)[:2000])


@app.command("report")
def report(
    out: Path = typer.Argument(..., help="Directory of a `run`"),
    baseline: str = typer.Option("baseline", help="Variant the others are compared with"),
    compare: str = typer.Option("", help="Variant for the per-label before/after table (default: best test F1)"),
):
    """Markdown tables: micro P/R/F1 per variant, F1 vs N, per-label before/after."""
    scores = {p.name[: -len(".scores.json")]: json.loads(p.read_text()) for p in sorted(out.glob("*.scores.json"))}
    if not scores:
        raise typer.BadParameter(f"no *.scores.json in {out}")

    def f(x):
        return f"{100 * x:.1f}"

    def order(v):
        return (0, 0) if v == baseline else ((1, int(v[2:])) if v.startswith("nb") and v[2:].isdigit() else (2, 0))

    lines = ["| variant | test NER P | R | F1 | test NER+ruler F1 | queries NER F1 | queries NER+ruler F1 | FP/hard-negative query |",
             "|---|---|---|---|---|---|---|---|"]
    for v in sorted(scores, key=order):
        s = scores[v]
        t, tr = s["test/ner"], s["test/ner+ruler"]
        q, qr = s.get("scq/ner", {}), s.get("scq/ner+ruler", {})
        lines.append(f"| {v} | {f(t['p'])} | {f(t['r'])} | {f(t['f'])} | {f(tr['f'])} | "
                     f"{f(q.get('f', 0))} | {f(qr.get('f', 0))} | {qr.get('hard_negative_fp_per_query', '')} |")
    print("\n".join(lines) + "\n")
    nbs = sorted((int(v[2:]), v) for v in scores if v.startswith("nb") and v[2:].isdigit())
    if nbs:
        print("| N | " + " | ".join(str(n) for n, _ in nbs) + " |")
        print("|---|" + "---|" * len(nbs))
        if baseline in scores:
            print(f"| baseline (no pseudonyms) | " + " | ".join(f(scores[baseline]['test/ner']['f']) for _ in nbs) + " |")
        print("| test NER F1 | " + " | ".join(f(scores[v]["test/ner"]["f"]) for _, v in nbs) + " |")
        if all("scq/ner" in scores[v] for _, v in nbs):
            print("| queries NER F1 | " + " | ".join(f(scores[v]["scq/ner"]["f"]) for _, v in nbs) + " |")
        print()
    others = [v for v in scores if v != baseline]
    if baseline in scores and others:
        cmp_v = compare or max(others, key=lambda v: scores[v]["test/ner"]["f"])
        for split in ("test/ner", "scq/ner"):
            if split not in scores[baseline] or split not in scores[cmp_v]:
                continue
            b, a = scores[baseline][split]["per_type"], scores[cmp_v][split]["per_type"]
            print(f"Per label, {split} ({baseline} -> {cmp_v}):\n")
            print("| label | P before | P after | R before | R after | F1 before | F1 after | support |")
            print("|---|---|---|---|---|---|---|---|")
            for lab in sorted(set(b) | set(a), key=lambda x: -(b.get(x, a.get(x, {})).get("n", 0))):
                x, y = b.get(lab, {}), a.get(lab, {})
                print(f"| {lab} | {f(x.get('p', 0))} | {f(y.get('p', 0))} | {f(x.get('r', 0))} | {f(y.get('r', 0))} | "
                      f"{f(x.get('f', 0))} | {f(y.get('f', 0))} | {x.get('n', y.get('n', 0))} |")
            print()


if __name__ == "__main__":
    app()
