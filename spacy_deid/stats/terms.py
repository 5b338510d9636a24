"""Whitelist/blacklist matching on hashes (case-insensitive, tokens and phrases).

Why not spaCy's PhraseMatcher: its patterns are Docs built from the terms' clear
text, so the terms would live in the vocab's StringStore and be written with the
pipeline (``vocab/strings.json``), and a blacklist can hold exactly what must not
leak (names of well-known patients, a ward's nickname). Here each term is
tokenised once by the pipeline's own tokenizer and kept as the tuple of its
tokens' ``LOWER`` hashes; matching compares hash arrays (numpy for one-token
terms, a first-token prefilter then tuple comparison for phrases).
"""
from typing import Callable, Dict, Iterable, List, Sequence, Tuple

import numpy as np
from spacy.tokens import Doc

_U = np.uint64


class HashedTerms:
    """A set of terms as sequences of ``LOWER`` hashes.

    singles (np.ndarray): sorted uint64 hashes of one-token terms.
    phrases (Dict[int, List[Tuple[int, ...]]]): multi-token terms by their first token's hash.
    """

    def __init__(self, singles: np.ndarray = None, phrases: Dict[int, List[Tuple[int, ...]]] = None):
        self.singles = np.unique(np.asarray(singles if singles is not None else [], dtype=_U))
        self.phrases: Dict[int, List[Tuple[int, ...]]] = {int(k): [tuple(p) for p in v] for k, v in (phrases or {}).items()}
        self._firsts = np.array(sorted(self.phrases), dtype=_U)

    @classmethod
    def from_terms(cls, terms: Iterable[str], make_doc: Callable[[str], Doc]) -> "HashedTerms":
        """Tokenise each term with ``make_doc`` (call inside a memory zone so the
        terms do not stay in the StringStore) and keep only hashes."""
        singles: List[int] = []
        phrases: Dict[int, List[Tuple[int, ...]]] = {}
        for term in terms:
            if not term or not term.strip():
                continue
            doc = make_doc(term.strip())
            seq = tuple(int(t.lower) for t in doc if not t.is_space)
            if not seq:
                continue
            if len(seq) == 1:
                singles.append(seq[0])
            else:
                bucket = phrases.setdefault(seq[0], [])
                if seq not in bucket:
                    bucket.append(seq)
        for bucket in phrases.values():
            bucket.sort(key=len, reverse=True)  # longest match first
        return cls(np.array(singles, dtype=_U), phrases)

    def __len__(self) -> int:
        return len(self.singles) + sum(len(v) for v in self.phrases.values())

    def match(self, lower: np.ndarray, nonspace_idx: Sequence[int]) -> np.ndarray:
        """Tokens covered by a term.

        lower (np.ndarray): ``LOWER`` hash per Doc token.
        nonspace_idx (Sequence[int]): Doc indices of the non-whitespace tokens
            (phrases match across whitespace tokens such as double spaces).
        RETURNS (np.ndarray): bool per Doc token.
        """
        out = np.zeros(len(lower), dtype=bool)
        if len(lower) == 0:
            return out
        if len(self.singles):
            pos = np.searchsorted(self.singles, lower)
            pos[pos == len(self.singles)] = 0
            out |= self.singles[pos] == lower
        if len(self._firsts):
            seq = lower[nonspace_idx]
            pos = np.searchsorted(self._firsts, seq)
            pos[pos == len(self._firsts)] = 0
            cand = np.flatnonzero(self._firsts[pos] == seq)
            if len(cand):
                seq_list = seq.tolist()
                m = len(seq_list)
                for i in cand.tolist():
                    for phrase in self.phrases[seq_list[i]]:
                        n = len(phrase)
                        if i + n <= m and tuple(seq_list[i : i + n]) == phrase:
                            out[nonspace_idx[i] : nonspace_idx[i + n - 1] + 1] = True
                            break
        return out

    def to_dict(self) -> dict:
        return {
            "singles": [int(h) for h in self.singles.tolist()],
            "phrases": [list(p) for v in self.phrases.values() for p in v],
        }

    @classmethod
    def from_dict(cls, data: dict) -> "HashedTerms":
        phrases: Dict[int, List[Tuple[int, ...]]] = {}
        for p in data.get("phrases", []):
            phrases.setdefault(int(p[0]), []).append(tuple(int(x) for x in p))
        for bucket in phrases.values():
            bucket.sort(key=len, reverse=True)
        return cls(np.array(data.get("singles", []), dtype=_U), phrases)
