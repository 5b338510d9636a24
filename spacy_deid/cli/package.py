"""``spacy-deid meta`` (the meta.json of a packaged pipeline) and
``spacy-deid project`` (a copy of the workflow template)."""
from pathlib import Path
from typing import Optional

import typer
from wasabi import msg

from spacy_deid.cli.app import app, run_guarded


@app.command("meta")
def meta_cmd(
    pipeline: Path = typer.Argument(..., help="Saved pipeline directory (init output)"),
    output: Path = typer.Argument(..., help="meta.json to write, for `spacy package --meta-path`"),
    name: Optional[str] = typer.Option(None, "--name", help="Package name (without the language prefix)"),
    version: Optional[str] = typer.Option(None, "--version", help="Package version"),
    author: Optional[str] = typer.Option(None, "--author", help="Author"),
    email: Optional[str] = typer.Option(None, "--email", help="Author's e-mail"),
    url: Optional[str] = typer.Option(None, "--url", help="Home page"),
    license: Optional[str] = typer.Option(None, "--license", help="Licence of the packaged pipeline"),
    description: Optional[str] = typer.Option(None, "--description", help="One-line description"),
):
    """Write the meta.json of a packaged pipeline: licence, author, description,
    and the spacy-deid version it needs in its requirements."""
    from spacy_deid.packaging import write_package_meta

    meta = run_guarded(
        write_package_meta, pipeline, output, name=name, version=version, author=author, email=email,
        url=url, license=license, description=description,
    )
    msg.good(f"Wrote {output} (requirements: {', '.join(meta['requirements'])})")


@app.command("project")
def project_cmd(
    dest: Path = typer.Argument(..., help="New project directory"),
    force: bool = typer.Option(False, "--force", help="Overwrite an existing project.yml and configs"),
):
    """Copy the `spacy project` workflows (all, deid, gpu) and the shipped configs to DEST."""
    from spacy_deid.packaging import copy_project

    target = run_guarded(copy_project, dest, force, user_errors=(FileExistsError,))
    msg.good(f"Wrote {target} and {dest / 'configs'}")
    msg.text(f"Run: python -m spacy project run deid {dest} --vars.corpus=NOTES.jsonl --vars.out=OUT --vars.ner_pipeline=NER_DIR")
