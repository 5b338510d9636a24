"""Streaming corpus counts and the confidence list of the frequency_masker.

Counting (``DistinctCounter``)
------------------------------
Items are uint64 hashes. Three units:

- ``occurrence``: every occurrence counts (the patent's literal definition).
- ``document``: an item counts once per document.
- ``patient``: an item counts once per distinct ``patient_id``.

Memory: counts are kept in numpy arrays (sorted keys + counts, 16 bytes per
distinct item), never in Python dicts or sets. New keys are buffered and merged
every ``flush_size`` keys with ``np.unique``. For distinct units the counter keeps
deduplicated (item, unit) pairs (12 bytes each), and only until an item reaches
``cap`` distinct units: such an item is moved to a "saturated" array (8 bytes)
and later pairs of it are dropped on arrival. ``cap`` is the largest threshold the
component can ask about (``k``, or ``k_max`` when k is chosen from
``keep_fraction``), so counts are exact below ``cap`` and read as ``cap`` above.
This works whether or not a patient's records are contiguous in the corpus (no
per-item Python set of patients, no assumption on order), and bounds memory by
``12 * sum(min(count, cap))`` bytes over the distinct items: rare items, which
dominate the vocabulary, cost at most a few pairs; frequent items cost 8 bytes.

Confidence list (``ConfidenceList``)
--------------------------------------------------
A JSON state file (via srsly) with, per hashed item key (hex, never text), in how
many earlier de-identification runs the item was at or above the threshold, and
the number of runs. Score = runs above / runs. Items that were never above the
threshold are not stored. It is updated at the end of each ``initialize`` (one
de-identification event = one fit on a corpus).
"""
from pathlib import Path
from typing import List, Optional, Tuple, Union

import numpy as np
import srsly

from spacy_deid.io.atomic import atomic_file

_U = np.uint64
COUNT_UNITS = ("patient", "document", "occurrence")


def in_sorted(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Membership of ``keys`` in a sorted uint64 array (vectorised)."""
    if len(sorted_keys) == 0 or len(keys) == 0:
        return np.zeros(len(keys), dtype=bool)
    pos = np.searchsorted(sorted_keys, keys)
    pos[pos == len(sorted_keys)] = 0
    return sorted_keys[pos] == keys


def lookup_counts(keys_sorted: np.ndarray, counts: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Counts of ``keys`` in a (sorted keys, counts) table; 0 for unknown keys."""
    if len(keys_sorted) == 0:
        return np.zeros(len(keys), dtype=np.int64)
    pos = np.searchsorted(keys_sorted, keys)
    pos[pos == len(keys_sorted)] = 0
    hit = keys_sorted[pos] == keys
    return np.where(hit, counts[pos], 0)


class DistinctCounter:
    """Counts items per unit, streaming, with bounded memory (module docstring).

    unit (str): ``"patient"``, ``"document"`` or ``"occurrence"``.
    cap (int): counts are exact up to ``cap``; larger counts read as ``cap``.
    flush_size (int): buffered keys before a merge.
    """

    def __init__(self, unit: str, cap: int, flush_size: int = 2_000_000):
        if unit not in COUNT_UNITS:
            raise ValueError(f"count_unit must be one of {list(COUNT_UNITS)}, got {unit!r}")
        if cap < 1:
            raise ValueError(f"cap must be >= 1, got {cap}")
        self.unit = unit
        self.cap = int(cap)
        self.flush_size = flush_size
        self._buf_keys: List[np.ndarray] = []
        self._buf_units: List[np.ndarray] = []
        self._buf_weights: List[np.ndarray] = []
        self._buffered = 0
        # occurrence/document mode: sorted keys + counts
        self._keys = np.empty(0, dtype=_U)
        self._counts = np.empty(0, dtype=np.int64)
        # patient mode: deduplicated pairs of unsaturated items + saturated keys
        self._pair_keys = np.empty(0, dtype=_U)
        self._pair_units = np.empty(0, dtype=np.uint32)
        self._saturated = np.empty(0, dtype=_U)
        self.peak_pairs = 0

    def add(self, keys: np.ndarray, unit: int = 0) -> None:
        """Add one document's item keys.

        keys (np.ndarray): uint64 item keys of the document (repeats allowed).
        unit (int): the document's unit id (patient index); ignored unless
            counting by patient.
        """
        if len(keys) == 0:
            return
        if self.unit != "occurrence":
            keys = np.unique(keys)
        if self.unit == "patient":
            if len(self._saturated):
                keys = keys[~in_sorted(self._saturated, keys)]
                if len(keys) == 0:
                    return
            self._buf_units.append(np.full(len(keys), unit, dtype=np.uint32))
        else:
            self._buf_weights.append(np.ones(len(keys), dtype=np.int64))
        self._buf_keys.append(keys)
        self._buffered += len(keys)
        if self._buffered >= self.flush_size:
            self.flush()

    def add_counts(self, keys: np.ndarray, counts: np.ndarray) -> None:
        """Add counts made elsewhere (by document or occurrence: a block's distinct
        keys with their counts), e.g. by a worker process.

        keys (np.ndarray): uint64 item keys.
        counts (np.ndarray): int64 count of each key.
        """
        if self.unit == "patient":
            raise ValueError("counting by patient needs each unit's keys: use add(keys, unit)")
        if len(keys) == 0:
            return
        self._buf_keys.append(np.asarray(keys, dtype=_U))
        self._buf_weights.append(np.asarray(counts, dtype=np.int64))
        self._buffered += len(keys)
        if self._buffered >= self.flush_size:
            self.flush()

    def flush(self) -> None:
        """Merge the buffer into the compact arrays."""
        if not self._buf_keys:
            return
        keys = np.concatenate(self._buf_keys)
        units = np.concatenate(self._buf_units) if self._buf_units else None
        added = np.concatenate(self._buf_weights) if self._buf_weights else None
        self._buf_keys, self._buf_units, self._buf_weights, self._buffered = [], [], [], 0
        if self.unit != "patient":
            all_keys = np.concatenate([self._keys, keys])
            weights = np.concatenate([self._counts, added])
            uniq, inv = np.unique(all_keys, return_inverse=True)
            self._keys = uniq
            self._counts = np.bincount(inv, weights=weights, minlength=len(uniq)).astype(np.int64)
            return
        assert units is not None
        keep = ~in_sorted(self._saturated, keys)
        pk = np.concatenate([self._pair_keys, keys[keep]])
        pu = np.concatenate([self._pair_units, units[keep]])
        order = np.lexsort((pu, pk))
        pk, pu = pk[order], pu[order]
        if len(pk):
            first = np.ones(len(pk), dtype=bool)
            first[1:] = (pk[1:] != pk[:-1]) | (pu[1:] != pu[:-1])
            pk, pu = pk[first], pu[first]
        uniq, start, cnt = np.unique(pk, return_index=True, return_counts=True)
        full = cnt >= self.cap
        if full.any():
            self._saturated = np.union1d(self._saturated, uniq[full])
            drop = np.repeat(full, cnt)
            pk, pu = pk[~drop], pu[~drop]
        self._pair_keys, self._pair_units = pk, pu
        self.peak_pairs = max(self.peak_pairs, len(pk))

    def result(self) -> Tuple[np.ndarray, np.ndarray]:
        """The counts: (sorted uint64 keys, int64 counts capped at ``cap``)."""
        self.flush()
        if self.unit != "patient":
            return self._keys, np.minimum(self._counts, self.cap)
        uniq, cnt = np.unique(self._pair_keys, return_counts=True)
        keys = np.concatenate([uniq, self._saturated])
        counts = np.concatenate([cnt.astype(np.int64), np.full(len(self._saturated), self.cap, dtype=np.int64)])
        order = np.argsort(keys, kind="stable")
        return keys[order], counts[order]

    def nbytes(self) -> int:
        """Bytes held by the compact arrays (excluding the buffer)."""
        return int(
            self._keys.nbytes + self._counts.nbytes + self._pair_keys.nbytes + self._pair_units.nbytes + self._saturated.nbytes
        )


class ConfidenceList:
    """Per-item share of earlier runs in which the item was above the threshold.

    path (Union[str, Path]): the JSON state file (created on the first save).
    settings (dict): the item settings the keys were made with; a state file made
        with other settings is refused (its keys would mean other items).
    """

    VERSION = 1

    def __init__(self, path: Union[str, Path], settings: dict):
        self.path = Path(path)
        self.settings = dict(settings)
        self.n_runs = 0
        self.keys = np.empty(0, dtype=_U)
        self.n_above = np.empty(0, dtype=np.int64)
        if self.path.exists():
            self._load()

    def _load(self) -> None:
        try:
            data = srsly.read_json(self.path)
        except ValueError as err:
            raise ValueError(f"Confidence list {self.path} is not valid JSON: {err}") from None
        if not isinstance(data, dict) or data.get("version") != self.VERSION:
            raise ValueError(f"Confidence list {self.path}: unknown format (expected version {self.VERSION})")
        if data.get("settings") != self.settings:
            raise ValueError(
                f"Confidence list {self.path} was made with other item settings {data.get('settings')}, "
                f"this component uses {self.settings}; use a new state file"
            )
        self.n_runs = int(data["n_runs"])
        items = data.get("items") or {}
        keys = np.array([int(k, 16) for k in items], dtype=_U)
        n_above = np.array(list(items.values()), dtype=np.int64)
        order = np.argsort(keys)
        self.keys, self.n_above = keys[order], n_above[order]

    def scores(self, keys: np.ndarray) -> np.ndarray:
        """The share of earlier runs in which each key was above the threshold
        (0.0 for keys not in the list or when there were no earlier runs)."""
        if self.n_runs == 0:
            return np.zeros(len(keys), dtype=np.float64)
        return lookup_counts(self.keys, self.n_above, keys) / float(self.n_runs)

    def update(self, above_keys: np.ndarray) -> None:
        """Record one run: ``above_keys`` were at or above the threshold."""
        above_keys = np.unique(np.asarray(above_keys, dtype=_U))
        keys = np.concatenate([self.keys, above_keys])
        weights = np.concatenate([self.n_above, np.ones(len(above_keys), dtype=np.int64)])
        uniq, inv = np.unique(keys, return_inverse=True)
        self.keys = uniq
        self.n_above = np.bincount(inv, weights=weights, minlength=len(uniq)).astype(np.int64)
        self.n_runs += 1

    def save(self) -> None:
        """Write the state file atomically (temporary file + rename)."""
        data = {
            "version": self.VERSION,
            "settings": self.settings,
            "n_runs": self.n_runs,
            "items": {format(int(k), "016x"): int(n) for k, n in zip(self.keys.tolist(), self.n_above.tolist())},
        }
        with atomic_file(self.path) as fh:
            fh.write(srsly.json_dumps(data, indent=0))


def load_confidence(path: Optional[Union[str, Path]], settings: dict) -> Optional[ConfidenceList]:
    """A ConfidenceList for ``path``, or None when no path is configured."""
    if not path:
        return None
    return ConfidenceList(path, settings)
