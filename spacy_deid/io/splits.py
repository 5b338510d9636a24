"""Splitting a corpus by patient, so no patient's notes are in two splits
(a PHI NER evaluated on notes of patients it was trained on would look better
than it is: names recur within a patient's notes)."""
from pathlib import Path
from typing import Dict, List, Sequence, Tuple, Union

from spacy_deid.io.records import FatalError, iter_records, write_jsonl_atomic


def split_by_patient(records: Sequence[dict], sizes: Sequence[Tuple[str, int]], seed: int = 0) -> Dict[str, List[dict]]:
    """Assign whole patients to splits, in the order given, until each split has
    at least its size in notes (0: everything left). Records without a
    ``patient_id`` are their own group.

    records (Sequence[dict]): the corpus.
    sizes (Sequence[Tuple[str, int]]): e.g. ``[("ner_train", 200), ("ner_dev", 100), ("test", 0)]``.
    seed (int): shuffles the patients.
    RETURNS (Dict[str, List[dict]]): records per split, in corpus order.
    """
    import numpy as np

    groups: Dict[str, List[int]] = {}
    for i, rec in enumerate(records):
        groups.setdefault(str(rec.get("patient_id", f"\0doc{i}")), []).append(i)
    keys = sorted(groups)
    order = np.random.default_rng(seed).permutation(len(keys))
    assigned: Dict[str, List[int]] = {name: [] for name, _ in sizes}
    it = iter(order.tolist())
    for name, size in sizes:
        for j in it:
            assigned[name].extend(groups[keys[j]])
            if size and len(assigned[name]) >= size:
                break
    empty = [name for name, idx in assigned.items() if not idx]
    if empty:
        raise FatalError(f"Corpus too small for the requested splits: {', '.join(empty)} got no patient")
    return {name: [records[i] for i in sorted(idx)] for name, idx in assigned.items()}


def split_file(path: Union[str, Path], out_dir: Union[str, Path], sizes: Sequence[Tuple[str, int]], seed: int = 0) -> Dict[str, int]:
    """Split a JSONL file into ``OUT_DIR/NAME.jsonl`` files; RETURNS counts per split."""
    records = list(iter_records(path))
    if not records:
        raise FatalError(f"No valid record in {path}")
    out = {}
    for name, recs in split_by_patient(records, sizes, seed).items():
        out[name] = write_jsonl_atomic(Path(out_dir) / f"{name}.jsonl", recs)
    return out
