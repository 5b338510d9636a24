"""``spacy-deid strip`` and ``spacy-deid audit``: what leaves with a pipeline, a model or a report."""
from pathlib import Path
from typing import List, Optional

import typer
from wasabi import msg

from spacy_deid.cli.app import app, fatal, run_guarded


@app.command("strip")
def strip_cmd(
    pipeline: Path = typer.Argument(..., help="A saved pipeline directory (e.g. the model-best of `spacy train`)"),
    output: Optional[Path] = typer.Argument(None, help="Where to save the stripped copy (default: in place)"),
):
    """Save PIPELINE again with a StringStore that holds only what its components
    need (labels, the language's own strings): `spacy train` keeps every string of
    the training notes in vocab/strings.json."""
    from spacy_deid.util import strip_pipeline

    stats = run_guarded(strip_pipeline, pipeline, output, user_errors=(ValueError, OSError))
    msg.good(
        f"Strings kept: {stats['strings_after']} of {stats['strings_before']} -> {output if output is not None else pipeline}"
    )


@app.command(
    "audit",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def audit_cmd(
    ctx: typer.Context,
    artefacts: List[Path] = typer.Argument(..., help="Files or directories to scan: pipelines, wheels, models, vectors, reports, logs"),
    corpus: Path = typer.Option(..., "--corpus", help="The corpus JSONL whose identifiers must not be in the artefacts"),
    k: int = typer.Option(5, "--k", min=1, help="A token counted for fewer than k units is rare"),
    count_by: str = typer.Option("patient", "--count-by", help="Counting unit for --k: patient, doc or occurrence"),
    detect: bool = typer.Option(True, "--detect/--no-detect", help="Also look for what the detectors of --config flag as PHI"),
    config: str = typer.Option("default", "--config", help="De-identification config whose detectors run on the corpus"),
    min_length: int = typer.Option(4, "--min-length", min=1, help="Shortest word looked for (numbers: 5 digits)"),
    binary_min_length: int = typer.Option(6, "--binary-min-length", min=1, help="Shortest word looked for in non-text bytes (weights, vectors)"),
):
    """Scan ARTEFACTS for tokens of the corpus that are rare or detected as PHI.

    Prints where each one is (file, archive member, byte offset; its record and
    offset in the corpus), never the text around it nor the token; exits 1 when
    anything is found. Extra options override the config: --paths.ner PATH
    """
    from spacy_deid.cli.app import parse_overrides
    from spacy_deid.eval.audit import audit, format_finding
    from spacy_deid.train.vectors import COUNT_BY

    if count_by not in COUNT_BY:
        fatal(f"--count-by must be one of {', '.join(COUNT_BY)}, got {count_by!r}")
    report = run_guarded(
        audit, artefacts, corpus, k=k, count_by=count_by, detect=detect, config=config,
        overrides=parse_overrides(ctx.args), min_length=min_length, binary_min_length=binary_min_length,
        user_errors=(ValueError,),
    )
    for finding in report.findings:
        msg.text(format_finding(finding))
    where = f"{report.n_files} files, {report.n_bytes:,} bytes; {report.n_sensitive} sensitive tokens of {corpus}"
    if report.findings:
        n_tokens = len({f.token_id for f in report.findings})
        fatal(f"{n_tokens} corpus tokens found in {len({f.where() for f in report.findings})} files ({where})")
    msg.good(f"Nothing found ({where})")
