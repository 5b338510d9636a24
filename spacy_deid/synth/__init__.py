"""Synthetic clinical notes with gold PHI spans: the project's embedded default data.

Public API::

    generate_records(n_docs, n_patients, seed=0, style="prose") -> Iterator[dict]
    generate_corpus(out_path, n_docs, n_patients, seed=0, show_progress=True, style="prose") -> dict

Each record: ``{"id", "patient_id", "note_type", "label", "style", "text", "spans"}`` where
``label`` is the note's medical specialty, ``style`` how it is written (``prose``: tidy
title-case notes of every type; ``upper`` / ``lower``: telegraphic ICU nursing progress
notes in ALL CAPS / all lower case) and ``spans`` are the gold PHI spans
``{"start", "end", "label", "text"}`` (0-based, end-exclusive, sorted, non-overlapping,
on token boundaries, punctuation kept outside). Output is byte-identical for the same
``(n_docs, n_patients, seed, style)``; ``style="mixed"`` draws the style of each note.
"""
import json
from pathlib import Path
from typing import Dict, Iterator, Union

from spacy_deid.io.atomic import atomic_file
from spacy_deid.synth.generator import NOTE_TYPES, PHI_LABELS, STYLES, Generator
from spacy_deid.synth.vocab import ALL_SPECIALTIES

__all__ = ["generate_records", "generate_corpus", "PHI_LABELS", "NOTE_TYPES", "SPECIALTIES", "STYLES"]

SPECIALTIES = ALL_SPECIALTIES


def generate_records(n_docs: int, n_patients: int, seed: int = 0, style: str = "prose") -> Iterator[dict]:
    """Yield ``n_docs`` synthetic notes for ``n_patients`` patients.

    n_docs (int): number of notes, at least 1.
    n_patients (int): number of distinct patients, 1 <= n_patients <= n_docs; every
        patient gets at least one note, the rest are spread unevenly.
    seed (int): seed for ``random.Random`` and the ``Faker`` instance.
    style (str): ``prose``, ``upper``, ``lower``, or ``mixed`` (each note draws one).
    RETURNS (Iterator[dict]): the records, ids ``note-000001``... in order.
    """
    # Validate eagerly (not on first ``next``), so bad arguments fail at the call.
    gen = Generator(n_docs, n_patients, seed, style)
    return gen.records()


def generate_corpus(
    out_path: Union[str, Path],
    n_docs: int,
    n_patients: int,
    seed: int = 0,
    show_progress: bool = True,
    style: str = "prose",
) -> dict:
    """Write a synthetic corpus as JSONL, atomically, and return summary statistics.

    The file is written through ``spacy_deid.io.atomic.atomic_file``, so a reader
    never sees a partial corpus.

    out_path (Union[str, Path]): the JSONL file to write; parent folders are created.
    n_docs (int): number of notes.
    n_patients (int): number of patients (<= n_docs).
    seed (int): random seed; the same arguments give a byte-identical file.
    show_progress (bool): show a tqdm progress bar (hidden automatically when stderr
        is not a terminal).
    style (str): ``prose``, ``upper``, ``lower``, or ``mixed``.
    RETURNS (dict): ``{"n_docs", "n_patients", "n_spans", "labels": {PHI label: count},
        "note_types": {type: count}, "specialties": {label: count}, "styles": {style: count}}``.
    """
    records = generate_records(n_docs, n_patients, seed, style)
    out_path = Path(out_path)
    labels: Dict[str, int] = {}
    note_types: Dict[str, int] = {}
    specialties: Dict[str, int] = {}
    styles: Dict[str, int] = {}
    patients = set()
    n_spans = 0
    if show_progress:
        from tqdm import tqdm

        records = tqdm(records, total=n_docs, desc="generate", unit="doc", disable=None)
    with atomic_file(out_path) as f:
        for rec in records:
            f.write(json.dumps(rec, ensure_ascii=False))
            f.write("\n")
            patients.add(rec["patient_id"])
            note_types[rec["note_type"]] = note_types.get(rec["note_type"], 0) + 1
            specialties[rec["label"]] = specialties.get(rec["label"], 0) + 1
            styles[rec["style"]] = styles.get(rec["style"], 0) + 1
            for sp in rec["spans"]:
                labels[sp["label"]] = labels.get(sp["label"], 0) + 1
            n_spans += len(rec["spans"])
    return {
        "n_docs": n_docs,
        "n_patients": len(patients),
        "n_spans": n_spans,
        "labels": dict(sorted(labels.items())),
        "note_types": dict(sorted(note_types.items())),
        "specialties": dict(sorted(specialties.items())),
        "styles": dict(sorted(styles.items())),
    }
