"""``python -m spacy_deid evaluate`` and ``sweep``: metrics, the privacy-utility curve, the report."""
import json
from pathlib import Path
from typing import List, Optional

import typer
from wasabi import msg

from spacy_deid.cli.app import app, fatal, parse_overrides, run_guarded
from spacy_deid.io.atomic import write_json


@app.command("evaluate")
def evaluate_cmd(
    gold: Path = typer.Argument(..., help="Original JSONL (with gold 'spans' for privacy metrics)"),
    sanitized: Path = typer.Argument(..., help="Output of sanitize"),
    report: Optional[Path] = typer.Option(None, "--report", help="Directory for metrics.json, plots and report.html"),
    sweep: Optional[Path] = typer.Option(None, "--sweep", help="Points written by `sweep`, drawn as the trade-off curve"),
    classify: bool = typer.Option(True, "--classify/--no-classify", help="Label classification F1 and same-cluster share"),
    n_examples: int = typer.Option(3, "--n-examples", min=0, help="Notes shown in the report (as placeholders by category; original text only with --show-original)"),
    seed: int = typer.Option(0, "--seed", help="Seed of the classification split and clustering"),
    examples: str = typer.Option("shapes", "--examples", help="How the report shows its example notes: 'shapes' (each edit as [CATEGORY], every other word as its shape: shareable) or 'original' (before and after side by side: the original text with its edits highlighted beside the sanitised text; local review, or a corpus without real identifiers such as mtsamples)"),
    show_original: bool = typer.Option(False, "--show-original", help="Same as --examples original"),
    pipeline: Optional[str] = typer.Option(None, "--pipeline", help="The pipeline that sanitised it: its profile, config and version are stamped on the report"),
):
    """Privacy (leakage, entity recall, cross-patient PHI) and utility of a sanitised corpus."""
    from spacy_deid.eval.report import evaluate_files, load_pairs, write_report

    if examples not in ("shapes", "original"):
        fatal(f"--examples must be 'shapes' or 'original', got {examples!r}")
    show_original = show_original or examples == "original"
    metrics = run_guarded(evaluate_files, gold, sanitized, classify=classify, seed=seed, pipeline=pipeline)
    points = json.loads(sweep.read_text()) if sweep is not None and sweep.is_file() else None
    priv = metrics.get("privacy")
    if priv:
        a = priv["leakage_all"]
        msg.info(f"PHI tokens leaked: {a['leaked']}/{a['n']} ({a['leak_rate']:.2%} at place, {a['anywhere_rate']:.2%} anywhere); entity recall {priv['entity_recall']['ALL']['recall']:.2%}")
    det = metrics.get("detection")
    if det:
        tok, strict = det["token"]["binary"], det["entity"]["overall"].get("strict")
        msg.info(f"token-level PHI detection: precision {tok['precision']:.2%}, recall {tok['recall']:.2%}, F1 {tok['f1']:.2%}"
                 + (f"; entity-level strict F1 {strict['f1']:.2%}" if strict else ""))
    msg.info(f"non-PHI tokens kept: {metrics['utility']['non_phi']['kept_share']:.2%}")
    cl = metrics["utility"].get("classification")
    if cl:
        msg.info(f"label macro-F1 raw {cl['macro_f1_raw']:.3f} vs sanitised {cl['macro_f1_sanitized']:.3f}")
    if report is None:
        print(json.dumps(metrics, indent=2))
        return
    pairs, _ = run_guarded(load_pairs, gold, sanitized)
    path = write_report(metrics, report, pairs=pairs, sweep_points=points, n_examples=n_examples, show_original=show_original)
    msg.good(f"Report: {path}")


@app.command(
    "sweep",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def sweep_cmd(
    ctx: typer.Context,
    config: Path = typer.Argument(..., help="Pipeline config"),
    corpus: Path = typer.Argument(..., help="Corpus JSONL with gold spans"),
    output: Path = typer.Argument(..., help="Points JSON for `evaluate --sweep`"),
    setting: List[str] = typer.Option(..., "--set", help="section.key=v1,v2,... (repeatable; one curve per key)"),
    limit: int = typer.Option(200, "--limit", min=0, help="Records of the corpus used per point (0: all)"),
    fit_corpus: Optional[Path] = typer.Option(None, "--fit-corpus", help="Fit the corpus statistics on this corpus (default: the scored records)"),
    ner: Optional[Path] = typer.Option(None, "--ner", help="Trained PHI NER pipeline sourced in front of every point"),
):
    """Fit and sanitise over a grid of settings: the privacy-utility curve.

    Extra options override the config for every point: --paths.mlm models/mlm
    """
    from spacy_deid.eval.sweep import parse_grid, run_sweep

    try:
        grid = parse_grid(setting)
    except ValueError as err:
        fatal(str(err))
    points = run_guarded(run_sweep, config, corpus, grid, parse_overrides(ctx.args), limit, fit_corpus, ner)
    write_json(output, points)
    for p in points:
        msg.text(f"{p['setting']:<28} leak {p['leak_rate']:.3f}  kept {p['kept_share']:.3f}")
    msg.good(f"{len(points)} points -> {output}")
