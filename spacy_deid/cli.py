"""Command-line interface: ``python -m spacy_deid COMMAND`` (or ``spacy-deid COMMAND``).

Each command is a thin typer shell around a pure function of the package. Fatal
problems (missing pipeline, unreadable input) end with a one-line error and a
non-zero exit, never a traceback. Commands of the larger parts live in
``spacy_deid/commands/`` and register themselves on ``app``.
"""
import importlib
import json
import os
import sys
from pathlib import Path
from typing import Dict, List, Optional

import typer
from wasabi import msg

# No model or data is ever fetched at run time: fail fast on a wrong local path
# instead of retrying a hub lookup for ~45 s.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

app = typer.Typer(
    name="spacy_deid",
    help="De-identify clinical free text with spaCy (spacy-deid).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# Modules under spacy_deid/commands that add commands to `app` when imported.
COMMAND_MODULES: List[str] = []


def fatal(message: str, code: int = 1) -> "typer.Exit":
    """Print a one-line error (no traceback) and exit non-zero."""
    msg.fail(message)
    raise typer.Exit(code)


def run_guarded(func, *args, **kwargs):
    """Call ``func``; turn our FatalError and missing files into one-line errors."""
    from .records import FatalError

    try:
        return func(*args, **kwargs)
    except FatalError as err:
        fatal(str(err))
    except FileNotFoundError as err:
        fatal(f"File not found: {err.filename}")


def parse_overrides(args: List[str]) -> Dict[str, object]:
    """spaCy-style config overrides from extra CLI args (``--section.key value``)."""
    from spacy.cli._util import parse_config_overrides

    return parse_config_overrides(args)


@app.command("generate")
def generate_cmd(
    output: Path = typer.Argument(..., help="Output JSONL file"),
    n_docs: int = typer.Option(2000, "--n-docs", help="Number of notes"),
    n_patients: int = typer.Option(300, "--n-patients", help="Number of distinct patients"),
    seed: int = typer.Option(0, "--seed", help="Random seed (same seed, same file)"),
):
    """Write a synthetic clinical corpus with gold PHI spans (Faker surrogates)."""
    from .synth import generate_corpus

    try:
        stats = generate_corpus(output, n_docs=n_docs, n_patients=n_patients, seed=seed)
    except ValueError as err:
        fatal(str(err))
    msg.good(f"Wrote {stats['n_docs']} notes of {stats['n_patients']} patients, {stats['n_spans']} PHI spans to {output}")


@app.command(
    "init",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def init_cmd(
    ctx: typer.Context,
    config_path: Path = typer.Argument(..., help="Pipeline config (.cfg)"),
    corpus: Path = typer.Argument(..., help="Corpus JSONL the corpus statistics are fitted on"),
    output_dir: Path = typer.Argument(..., help="Directory the fitted pipeline is saved to"),
):
    """Build the pipeline of CONFIG, fit all corpus statistics on CORPUS, save it.

    Extra options override the config, spaCy-style: --components.frequency_masker.k 5
    """
    from .pipeline import init_pipeline

    overrides = parse_overrides(ctx.args)
    if not config_path.is_file():
        fatal(f"Config not found: {config_path}")
    if not corpus.is_file():
        fatal(f"Corpus not found: {corpus}")
    nlp = run_guarded(init_pipeline, config_path, corpus, output_dir, overrides)
    msg.good(f"Saved pipeline {nlp.pipe_names} to {output_dir}")


@app.command("sanitize")
def sanitize_cmd(
    pipeline: str = typer.Argument(..., help="Pipeline directory or installed package name"),
    input_path: Path = typer.Argument(..., help="Input JSONL ({id, text, patient_id?, label?})"),
    output_path: Path = typer.Argument(..., help="Output JSONL ({id, deid_text, edits, status})"),
    batch_size: int = typer.Option(64, "--batch-size", help="Documents per nlp.pipe batch"),
    n_process: int = typer.Option(1, "--n-process", help="Processes for nlp.pipe"),
    gpu_id: int = typer.Option(-1, "--gpu-id", help="GPU id, -1 for CPU"),
    resume: bool = typer.Option(False, "--resume", help="Continue an interrupted run"),
    keep_text: bool = typer.Option(False, "--keep-text", help="Also write the ORIGINAL text (not private!)"),
):
    """Sanitise a JSONL corpus: one output record per input line, in order."""
    from .sanitize import sanitize_file

    stats = run_guarded(
        sanitize_file,
        pipeline,
        input_path,
        output_path,
        batch_size=batch_size,
        n_process=n_process,
        gpu_id=gpu_id,
        resume=resume,
        keep_text=keep_text,
    )
    extra = f" ({stats.n_resumed} from the interrupted run)" if stats.n_resumed else ""
    msg.good(f"{stats.n_ok} ok, {stats.n_error} errors{extra} -> {output_path}")
    if stats.n_error:
        msg.warn(f"Errors by kind: {json.dumps(stats.errors_by_kind)}")


@app.command("demo")
def demo_cmd(
    out_dir: Path = typer.Option(Path("demo_output"), "--out", help="Output directory"),
    n_docs: int = typer.Option(1000, "--n-docs", help="Notes to generate"),
    n_patients: int = typer.Option(150, "--n-patients", help="Patients"),
    seed: int = typer.Option(0, "--seed"),
    config: Path = typer.Option(Path("configs/default.cfg"), "--config"),
):
    """The main job on the embedded synthetic corpus: generate, fit, sanitise, report."""
    from .demo import run_demo

    report = run_guarded(run_demo, out_dir, n_docs=n_docs, n_patients=n_patients, seed=seed, config=config)
    msg.good(f"Results in {out_dir}: {report}")


def _load_command_modules() -> None:
    for name in COMMAND_MODULES:
        importlib.import_module(name)


def main(argv: Optional[List[str]] = None) -> None:
    _load_command_modules()
    if argv is not None:
        sys.argv = [sys.argv[0], *argv]
    app()
