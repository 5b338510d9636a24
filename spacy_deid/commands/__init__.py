"""CLI commands of the larger parts; each module adds commands to spacy_deid.cli.app."""
