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
