"""Command-line interface: ``python -m spacy_deid COMMAND`` (or ``spacy-deid COMMAND``).

``app`` (in ``cli/app.py``) holds the shared helpers and the core commands; each
other module here adds its commands to ``app`` when imported below.
"""
import sys
from typing import List, Optional

from spacy_deid.cli.app import app
from spacy_deid.cli import augment, data, evaluate, package, pretrain, privacy, vectors  # noqa: F401  (register commands)


def main(argv: Optional[List[str]] = None) -> None:
    """Run the CLI (``argv`` without the program name; None: ``sys.argv``)."""
    if argv is not None:
        sys.argv = [sys.argv[0], *argv]
    app()
