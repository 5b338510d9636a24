"""The typer app, its shared helpers, and the core commands (generate, init, sanitize).

Each command is a thin typer shell around a pure function of the package. Fatal
problems (missing pipeline, unreadable input) end with a one-line error and a
non-zero exit, never a traceback. The other modules of ``spacy_deid.cli`` add
their commands to ``app``.
"""
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


def _print_version(value: bool) -> None:
    if value:
        from spacy_deid.about import __version__

        typer.echo(f"spacy-deid {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    version: bool = typer.Option(
        False, "--version", callback=_print_version, is_eager=True, help="Print the version of spacy-deid and exit"
    ),
) -> None:
    """De-identify clinical free text with spaCy (spacy-deid)."""



def fatal(message: str, code: int = 1) -> "typer.Exit":
    """Print a one-line error (no traceback) and exit non-zero."""
    msg.fail(message)
    raise typer.Exit(code)


def run_guarded(func, *args, user_errors: tuple = (), **kwargs):
    """Call ``func``; turn our FatalError, missing files and the given
    ``user_errors`` (e.g. ValueError of a config) into one-line errors."""
    from spacy_deid.io.records import FatalError

    try:
        return func(*args, **kwargs)
    except FatalError as err:
        fatal(str(err))
    except FileNotFoundError as err:
        fatal(f"File not found: {err.filename}" if err.filename else str(err))
    except user_errors as err:
        fatal(f"{type(err).__name__}: {err}")


# The engine options of `init` and `sanitize`, written once.
ENGINE_OPTION = typer.Option("local", "--engine", help="local (this machine; sanitize also takes --n-process) or ray (Ray Data: needs the 'ray' extra of spacy-deid)")
CODE_OPTION = typer.Option(None, "--code", help="Python file with custom components (imported first, by every Ray worker too)")
RAY_ADDRESS_OPTION = typer.Option(None, "--address", help="Ray cluster address (default: RAY_ADDRESS, else a local Ray)")
RAY_WORKERS_OPTION = typer.Option(2, "--num-workers", min=1, help="Ray actors, each with its own copy of the pipeline")
RAY_GPUS_OPTION = typer.Option(0.0, "--num-gpus-per-worker", min=0.0, help="GPUs per Ray actor (0: CPU; 0.5: two actors share a GPU)")
RAY_CHUNK_OPTION = typer.Option(1000, "--chunk-records", min=1, help="Ray: records per block (sanitize: also per shard, the resume granularity)")


def engine_kwargs(engine: str, address: Optional[str], num_workers: int, num_gpus_per_worker: float,
                  chunk_records: int, code_path: Optional[Path]) -> Dict[str, object]:
    """Check ``--engine``; the keyword arguments of the Ray functions (for the
    local engine: none, after importing the ``--code`` file here)."""
    if engine not in ("local", "ray"):
        fatal(f"--engine must be 'local' or 'ray', got {engine!r}")
    if engine == "local":
        from spacy_deid.engines.local import import_code

        run_guarded(import_code, code_path)
        return {}
    return {"address": address, "num_workers": num_workers, "num_gpus_per_worker": num_gpus_per_worker,
            "chunk_records": chunk_records, "code_path": code_path}


def parse_overrides(args: List[str]) -> Dict[str, object]:
    """spaCy-style config overrides from extra CLI args (``--section.key value``)."""
    from spacy.cli._util import parse_config_overrides

    return parse_config_overrides(args)


@app.command("generate")
def generate_cmd(
    output: Path = typer.Argument(..., help="Output JSONL file"),
    n_docs: int = typer.Option(2000, "--n-docs", min=1, help="Number of notes"),
    n_patients: int = typer.Option(300, "--n-patients", min=1, help="Number of distinct patients"),
    seed: int = typer.Option(0, "--seed", help="Random seed (same seed, same file)"),
    style: str = typer.Option("prose", "--style", help="prose (tidy notes), upper / lower (telegraphic ICU nursing notes in ALL CAPS / lower case), or mixed (each note draws one)"),
):
    """Write a synthetic clinical corpus with gold PHI spans."""
    from spacy_deid.synth import generate_corpus

    try:
        stats = generate_corpus(output, n_docs=n_docs, n_patients=n_patients, seed=seed, style=style)
    except ValueError as err:
        fatal(str(err))
    msg.good(f"Wrote {stats['n_docs']} notes of {stats['n_patients']} patients, {stats['n_spans']} PHI spans to {output}")


@app.command(
    "init",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def init_cmd(
    ctx: typer.Context,
    config_path: Path = typer.Argument(..., help="Pipeline config: a .cfg file or a shipped name (default, datasifter, ...)"),
    corpus: Path = typer.Argument(..., help="Corpus JSONL the corpus statistics are fitted on"),
    output_dir: Path = typer.Argument(..., help="Directory the fitted pipeline is saved to"),
    engine: str = ENGINE_OPTION,
    address: Optional[str] = RAY_ADDRESS_OPTION,
    num_workers: int = RAY_WORKERS_OPTION,
    num_gpus_per_worker: float = RAY_GPUS_OPTION,
    chunk_records: int = RAY_CHUNK_OPTION,
    code_path: Optional[Path] = CODE_OPTION,
    ner: Optional[Path] = typer.Option(None, "--ner", help="Trained PHI NER pipeline: its tok2vec (or transformer) + ner are sourced in front"),
):
    """Build the pipeline of CONFIG, fit all corpus statistics on CORPUS, save it.

    Extra options override the config, spaCy-style: --components.frequency_masker.k 5
    """
    from spacy_deid.engines.fit import init_pipeline

    from spacy_deid.resources import config_path as resolve_config

    overrides = parse_overrides(ctx.args)
    config_path = run_guarded(resolve_config, config_path)
    if not corpus.is_file():
        fatal(f"Corpus not found: {corpus}")
    if ner is not None and not (ner / "config.cfg").is_file():
        fatal(f"--ner {ner}: not a trained pipeline directory (no config.cfg)")
    ray_kwargs = engine_kwargs(engine, address, num_workers, num_gpus_per_worker, chunk_records, code_path)
    if engine == "ray":
        from spacy_deid.engines.ray_stats import init_pipeline_ray

        nlp = run_guarded(
            init_pipeline_ray, config_path, corpus, output_dir, overrides,
            ner=None if ner is None else ner.resolve(), **ray_kwargs,
        )
    else:
        nlp = run_guarded(init_pipeline, config_path, corpus, output_dir, overrides, ner, user_errors=(ValueError,))
    msg.good(f"Saved pipeline {nlp.pipe_names} to {output_dir}")


@app.command("sanitize")
def sanitize_cmd(
    pipeline: str = typer.Argument(..., help="Pipeline directory or installed package name"),
    input_path: Path = typer.Argument(..., help="Input JSONL ({id, text, patient_id?, label?})"),
    output_path: Path = typer.Argument(..., help="Output JSONL ({id, deid_text, edits, status})"),
    batch_size: int = typer.Option(64, "--batch-size", min=1, help="Documents per nlp.pipe batch"),
    n_process: int = typer.Option(1, "--n-process", min=1, help="Processes for nlp.pipe"),
    gpu_id: int = typer.Option(-1, "--gpu-id", min=-1, help="GPU id, -1 for CPU"),
    resume: bool = typer.Option(False, "--resume", help="Continue an interrupted run (refused when the input or the pipeline changed)"),
    keep_text: bool = typer.Option(False, "--keep-text", help="Also write the ORIGINAL text (not private! the file is created readable by you only)"),
    max_chars: int = typer.Option(10_000_000, "--max-chars", min=0, help="Texts longer than this get an error record (0: no limit)"),
    code_path: Optional[Path] = CODE_OPTION,
    engine: str = ENGINE_OPTION,
    address: Optional[str] = RAY_ADDRESS_OPTION,
    num_workers: int = RAY_WORKERS_OPTION,
    num_gpus_per_worker: float = RAY_GPUS_OPTION,
    chunk_records: int = RAY_CHUNK_OPTION,
    operators: Optional[str] = typer.Option(None, "--operators", help="Operator per PHI category, e.g. 'NAME=mask,ID=hash' ('*=mask': every category): surrogate, shift, mask, redact, hash, encrypt, keep"),
    key_file: Optional[Path] = typer.Option(None, "--key-file", help="Write the encrypted surrogate -> original key file here (0600; key in $SPACY_DEID_KEY)"),
):
    """Sanitise a JSONL corpus: one output record per input line, in order."""
    from spacy_deid.engines.local import sanitize_file
    from spacy_deid.surrogates.operators import parse_operators

    ray_kwargs = engine_kwargs(engine, address, num_workers, num_gpus_per_worker, chunk_records, code_path)
    table = run_guarded(parse_operators, operators, user_errors=(ValueError,)) if operators else None
    if engine == "ray" and key_file:
        fatal("--key-file is not available with --engine ray: use --engine local")
    if engine == "ray":
        from spacy_deid.engines.ray import sanitize_file_ray

        stats = run_guarded(
            sanitize_file_ray, pipeline, input_path, output_path, batch_size=batch_size, resume=resume,
            keep_text=keep_text, max_chars=max_chars, operators=table, **ray_kwargs,
        )
    else:
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
            max_chars=max_chars,
            operators=table,
            key_file=key_file,
            user_errors=(ValueError,),
        )
    extra = f" ({stats.n_resumed} from the interrupted run)" if stats.n_resumed else ""
    msg.good(f"{stats.n_ok} ok, {stats.n_error} errors{extra} -> {output_path}")
    if stats.n_error:
        msg.warn(f"Errors by kind: {json.dumps(stats.errors_by_kind)}")
