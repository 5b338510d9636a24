"""``python -m spacy_deid split``: patient-grouped splits of a corpus."""
from pathlib import Path
from typing import List

import typer
from wasabi import msg

from spacy_deid.cli.app import app, fatal, run_guarded


@app.command("split")
def split_cmd(
    corpus: Path = typer.Argument(..., help="Corpus JSONL"),
    out_dir: Path = typer.Argument(..., help="Directory for NAME.jsonl files"),
    split: List[str] = typer.Option(["train:200", "dev:100", "test:0"], "--split", help="NAME:N_NOTES (repeatable, in order; 0 = the rest)"),
    seed: int = typer.Option(0, "--seed", help="Seed of the patient shuffle"),
):
    """Split a corpus into train/dev/test by patient (no patient in two splits)."""
    from spacy_deid.io.splits import split_file

    sizes = []
    for s in split:
        name, _, n = s.partition(":")
        if not name or not n.isdigit():
            fatal(f"--split {s!r} must look like NAME:N")
        sizes.append((name, int(n)))
    counts = run_guarded(split_file, corpus, out_dir, sizes, seed)
    msg.good(", ".join(f"{k}: {v}" for k, v in counts.items()) + f" -> {out_dir}")
