"""Word items of the frequency_masker, as 64-bit hashes.

Every item is a ``uint64`` key computed with numpy from spaCy's token attribute
arrays (``Doc.to_array``), so no per-token Python string work is done on the hot
path and nothing but hashes is ever stored. Kinds:

- ``text``: the token text, case-folded by default (spaCy's ``LOWER`` hash, i.e.
  ``spacy.strings.hash_string(text.lower())``), or ``ORTH`` without case folding.
- ``pos`` / ``dep``: the token text together with its POS tag / dependency label
  (the same word in another syntactic position is a separate item).
- ``pattern``: a word with the shape of an adjacent number, e.g. ``MRN``
  ``:`` ``123456`` gives the item (``mrn``, ``:``, ``dddddd``) that covers the three
  tokens. Only words that have a number (a token with a digit) within
  ``pattern_window`` tokens, with nothing but symbols in between, get one; both
  sides are looked at (``5 mg`` and ``MRN: 123456``).
- ``ngram``: word strings, ``ngram_n`` consecutive words (punctuation and
  whitespace skipped), covering those words.
- ``stem``: the word's lemma (when an upstream component sets ``token.lemma``) or a
  light suffix-stripping stem, pooling inflections.

Tokens that are whitespace or punctuation are never items: they are always kept.
"""
from dataclasses import dataclass, field
from typing import Dict, List, Sequence, Tuple

import numpy as np
from spacy.attrs import DEP, IS_PUNCT, IS_SPACE, LEMMA, LOWER, ORTH, POS, SHAPE
from spacy.strings import hash_string
from spacy.tokens import Doc

ITEM_KINDS = ("text", "pos", "dep", "pattern", "ngram", "stem")
UNIGRAM_KINDS = ("text", "pos", "dep", "stem")
SPAN_KINDS = ("pattern", "ngram")

_U = np.uint64
_M1 = _U(0xBF58476D1CE4E5B9)
_M2 = _U(0x94D049BB133111EB)
_GOLDEN = _U(0x9E3779B97F4A7C15)
_S30, _S27, _S31 = _U(30), _U(27), _U(31)



def mix64(x: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser over a uint64 array (a bijection with good
    avalanche), used to combine hashes. numpy wraps uint64 arithmetic silently
    for arrays, which is what we want here.

    x (np.ndarray): uint64 values.
    RETURNS (np.ndarray): mixed uint64 values.
    """
    x = x ^ (x >> _S30)
    x = x * _M1
    x = x ^ (x >> _S27)
    x = x * _M2
    return x ^ (x >> _S31)


def combine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """An order-dependent combination of two uint64 hash arrays of one length:
    ``combine(a, b) != combine(b, a)``."""
    return mix64(a ^ (mix64(b) + _GOLDEN))


def salted(a: np.ndarray, salt: str) -> np.ndarray:
    """``a`` combined with a kind's salt (precomputed, so no scalar arithmetic)."""
    return mix64(a ^ _SALT_MIXED[salt])


# Per-kind salts: the same string gives different keys in different kinds.
_SALT_MIXED = {
    name: (mix64(np.array([hash_string(f"spacy_deid.components.frequency_masker.{name}")], dtype=_U)) + _GOLDEN)[0]
    for name in ITEM_KINDS + ("pattern_left",)
}


def full_shape(text: str) -> str:
    """The shape of a string without spaCy's run-length cut (spaCy's ``SHAPE``
    writes ``dddd`` for any run of 4+ digits; a pattern item needs the length,
    ``dddddd`` for a 6-digit number)."""
    out = []
    for ch in text:
        if ch.isdigit():
            out.append("d")
        elif ch.isalpha():
            out.append("X" if ch.isupper() else "x")
        else:
            out.append(ch)
    return "".join(out)


# A light English suffix stripper for inflections only. Hand-written because the
# only stemmers in reach are NLTK's and snowballstemmer's Porter implementations,
# new dependencies for one optional item kind; pooling the regular inflections
# (plural -s/-es/-ies, -ed, -ing) is what pooling inflections needs, and a pipeline with a
# lemmatizer uses the lemma instead. Derivational suffixes (-ly, -ment) are left
# alone: stripping them conflates unrelated words ("family" -> "fami").
def light_stem(word: str) -> str:
    """Strip one regular English inflectional suffix.

    word (str): a lower-cased word.
    RETURNS (str): its stem; words that are short or not alphabetic are returned unchanged.
    """
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"  # studies -> study
    if word.endswith("sses"):
        return word[:-2]  # classes -> class
    if word.endswith(("ches", "shes", "xes", "zes")):
        return word[:-2]  # patches -> patch, boxes -> box
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]  # notes -> note (not status, diagnosis, class)
    for suffix in ("ing", "ed"):
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            # undouble a final consonant (stopped -> stop); keep 4+ letters so
            # short words are not conflated ("noted" stays, not "not")
            if len(stem) > 4 and stem[-1] == stem[-2] and stem[-1] not in "aeiouls":
                stem = stem[:-1]
            return stem if len(stem) >= 4 else word
    return word


@dataclass
class DocItems:
    """The items of one document.

    n_tokens (int): tokens in the Doc.
    lower (np.ndarray): LOWER hash per token (for the term lists).
    word_idx (np.ndarray): Doc indices of the countable tokens (not whitespace, not punctuation).
    unigrams (List[Tuple[str, np.ndarray]]): (kind, keys aligned with ``word_idx``).
    spans (List[Tuple[str, np.ndarray, np.ndarray, np.ndarray]]): (kind, keys, start, end)
        with Doc token indices, end exclusive.
    """

    n_tokens: int
    lower: np.ndarray
    nonspace_idx: np.ndarray
    word_idx: np.ndarray
    unigrams: List[Tuple[str, np.ndarray]] = field(default_factory=list)
    spans: List[Tuple[str, np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=list)

    def all_keys(self) -> np.ndarray:
        """Every item key of the document (with repeats)."""
        parts = [k for _, k in self.unigrams] + [s[1] for s in self.spans]
        if not parts:
            return np.empty(0, dtype=_U)
        return np.concatenate(parts) if len(parts) > 1 else parts[0]


# The syntactic kinds: the Doc annotation each needs, and what provides it.
_SYNTACTIC = {"pos": ("POS", "POS tags", "a tagger/morphologizer"), "dep": ("DEP", "dependency labels", "a parser")}


class ItemExtractor:
    """Computes the enabled word items of a Doc as uint64 keys.

    kinds (Sequence[str]): enabled kinds, a subset of ``ITEM_KINDS``.
    case_fold (bool): fold case for the token text (``LOWER`` instead of ``ORTH``).
    ngram_n (int): words per n-gram.
    pattern_window (int): how many tokens from a word a number may be.
    stem_source (str): ``"lemma"`` (token.lemma from an upstream lemmatizer),
        ``"stem"`` (the light suffix stripper) or ``"auto"`` (lemma when the Doc
        has lemmas, else the stemmer).
    """

    def __init__(
        self,
        kinds: Sequence[str],
        case_fold: bool = True,
        ngram_n: int = 2,
        pattern_window: int = 2,
        stem_source: str = "auto",
    ):
        unknown = [k for k in kinds if k not in ITEM_KINDS]
        if unknown:
            raise ValueError(f"Unknown frequency item kind(s) {unknown}; choose from {list(ITEM_KINDS)}")
        if not kinds:
            raise ValueError("frequency_masker needs at least one item kind")
        if ngram_n < 2:
            raise ValueError(f"ngram_n must be >= 2, got {ngram_n}")
        if pattern_window < 1:
            raise ValueError(f"pattern_window must be >= 1, got {pattern_window}")
        if stem_source not in ("auto", "lemma", "stem"):
            raise ValueError(f"stem_source must be 'auto', 'lemma' or 'stem', got {stem_source!r}")
        self.kinds = tuple(k for k in ITEM_KINDS if k in kinds)
        self.case_fold = case_fold
        self.ngram_n = ngram_n
        self.pattern_window = pattern_window
        self.stem_source = stem_source
        attrs = [ORTH, LOWER, IS_SPACE, IS_PUNCT]
        if "pattern" in self.kinds:
            attrs.append(SHAPE)
        if "pos" in self.kinds:
            attrs.append(POS)
        if "dep" in self.kinds:
            attrs.append(DEP)
        if "stem" in self.kinds:
            attrs.append(LEMMA)
        self.attrs = attrs
        self._col = {a: i for i, a in enumerate(attrs)}
        # Caches keyed by hashes only (never text). They are cleared after
        # initialize and never serialised: they may hold hashes of rare words.
        self._shape_flags: Dict[int, Tuple[bool, bool]] = {}
        self._full_shape: Dict[int, int] = {}
        self._stem: Dict[int, int] = {}

    def __getstate__(self) -> dict:
        # pickling a pipeline must not carry the caches (hashes of rare words)
        state = dict(self.__dict__)
        state["_shape_flags"], state["_full_shape"], state["_stem"] = {}, {}, {}
        return state

    def clear_caches(self) -> None:
        self._shape_flags.clear()
        self._full_shape.clear()
        self._stem.clear()

    def settings(self) -> dict:
        """What defines the keys (a confidence list must match it)."""
        return {
            "kinds": list(self.kinds),
            "case_fold": self.case_fold,
            "ngram_n": self.ngram_n,
            "pattern_window": self.pattern_window,
            "stem_source": self.stem_source,
        }

    def __call__(self, doc: Doc) -> DocItems:
        n = len(doc)
        if n == 0:
            empty = np.empty(0, dtype=np.int64)
            return DocItems(0, np.empty(0, dtype=_U), empty, empty)
        arr = doc.to_array(self.attrs)
        col = self._col
        lower = arr[:, col[LOWER]]
        base = lower if self.case_fold else arr[:, col[ORTH]]
        is_space = arr[:, col[IS_SPACE]].astype(bool)
        is_punct = arr[:, col[IS_PUNCT]].astype(bool)
        nonspace_idx = np.flatnonzero(~is_space)
        word_mask = ~(is_space | is_punct)
        word_idx = np.flatnonzero(word_mask)
        items = DocItems(n, lower, nonspace_idx, word_idx)
        wbase = base[word_idx]
        for kind in self.kinds:
            if kind == "text":
                items.unigrams.append(("text", wbase))
            elif kind in _SYNTACTIC:
                attr, what, component = _SYNTACTIC[kind]
                if not doc.has_annotation(attr):
                    raise ValueError(
                        f"frequency_masker item kind '{kind}' needs {what}, but this Doc has none: "
                        f"add {component} before frequency_masker or disable the kind"
                    )
                label = arr[word_idx, col[POS if kind == "pos" else DEP]]
                items.unigrams.append((kind, combine(salted(wbase, kind), label)))
            elif kind == "stem":
                items.unigrams.append(("stem", self._stems(doc, arr, word_idx, lower)))
            elif kind == "ngram":
                self._ngrams(items, wbase, word_idx)
            elif kind == "pattern":
                self._patterns(doc, items, arr, base, nonspace_idx)
        return items

    # -- stems -----------------------------------------------------------------
    def _stems(self, doc: Doc, arr: np.ndarray, word_idx: np.ndarray, lower: np.ndarray) -> np.ndarray:
        use_lemma = self.stem_source == "lemma" or (self.stem_source == "auto" and doc.has_annotation("LEMMA"))
        if use_lemma:
            if not doc.has_annotation("LEMMA"):
                raise ValueError(
                    "frequency_masker stem_source 'lemma' needs lemmas: add a lemmatizer before "
                    "frequency_masker, or use stem_source 'stem'"
                )
            lemma = arr[word_idx, self._col[LEMMA]]
            return salted(lemma, "stem")
        wl = lower[word_idx]
        uniq, inv = np.unique(wl, return_inverse=True)
        cache = self._stem
        strings = doc.vocab.strings
        out = np.empty(len(uniq), dtype=_U)
        for i, h in enumerate(uniq.tolist()):
            s = cache.get(h)
            if s is None:
                s = hash_string(light_stem(strings[h]))
                cache[h] = s
            out[i] = s
        return salted(out[inv], "stem")

    # -- n-grams ---------------------------------------------------------------
    def _ngrams(self, items: DocItems, wbase: np.ndarray, word_idx: np.ndarray) -> None:
        n = self.ngram_n
        m = len(wbase) - n + 1
        if m <= 0:
            return
        keys = salted(wbase[:m], "ngram")
        for off in range(1, n):
            keys = combine(keys, wbase[off : off + m])
        items.spans.append(("ngram", keys, word_idx[:m], word_idx[n - 1 : n - 1 + m] + 1))

    # -- word patterns ------------------------------------------------------------
    def _shape_info(self, doc: Doc, arr: np.ndarray, nonspace_idx: np.ndarray):
        """Per non-space token: has a letter, has a digit, and a shape hash that
        keeps number lengths."""
        shapes = arr[nonspace_idx, self._col[SHAPE]]
        uniq, inv = np.unique(shapes, return_inverse=True)
        strings = doc.vocab.strings
        flags = np.empty((len(uniq), 2), dtype=bool)
        cache = self._shape_flags
        for i, h in enumerate(uniq.tolist()):
            f = cache.get(h)
            if f is None:
                s = strings[h]
                f = (any(c in "xX" for c in s), "d" in s)
                cache[h] = f
            flags[i] = f
        has_alpha = flags[inv, 0]
        has_digit = flags[inv, 1]
        shape_key = shapes.copy()
        digit_pos = np.flatnonzero(has_digit)
        if len(digit_pos):
            orths = arr[nonspace_idx[digit_pos], self._col[ORTH]]
            fcache = self._full_shape
            vals = []
            for h in orths.tolist():
                v = fcache.get(h)
                if v is None:
                    v = hash_string(full_shape(strings[h]))
                    fcache[h] = v
                vals.append(v)
            shape_key[digit_pos] = np.array(vals, dtype=_U)
        return has_alpha, has_digit, shape_key

    def _patterns(self, doc: Doc, items: DocItems, arr: np.ndarray, base: np.ndarray, nonspace_idx: np.ndarray) -> None:
        m = len(nonspace_idx)
        if m < 2:
            return
        has_alpha, has_digit, shape_key = self._shape_info(doc, arr, nonspace_idx)
        if not has_digit.any():
            return
        word = has_alpha & ~has_digit
        symbol = ~has_alpha & ~has_digit
        nbase = base[nonspace_idx]
        for side, salt in (("right", "pattern"), ("left", "pattern_left")):
            found = np.zeros(m, dtype=bool)  # anchor already has its pattern on this side
            between_ok = np.ones(m, dtype=bool)
            key = salted(nbase, salt)
            for off in range(1, self.pattern_window + 1):
                if off >= m:
                    break
                # anchors a (a + off in range on the right, a - off on the left)
                if side == "right":
                    anchors = np.arange(0, m - off)
                    target = anchors + off
                else:
                    anchors = np.arange(off, m)
                    target = anchors - off
                key[anchors] = combine(key[anchors], shape_key[target])
                hit = word[anchors] & between_ok[anchors] & has_digit[target] & ~found[anchors]
                if hit.any():
                    a = anchors[hit]
                    t = target[hit]
                    lo = np.minimum(a, t)
                    hi = np.maximum(a, t)
                    items.spans.append(("pattern", key[a].copy(), nonspace_idx[lo], nonspace_idx[hi] + 1))
                    found[a] = True
                between_ok[anchors] &= symbol[target]
