"""similarity_filter: Filtered BERT's similarity filter and neighbour pseudonyms.

Two policies over one embedding (the pipeline's floret ``nlp.vocab.vectors``, so
every word has a vector):

- ``CosineFilter`` (``spacy_deid.cosine_filter.v1``): given an original word and MLM
  candidates in the MLM's order, return the first candidate whose cosine similarity
  to the original exceeds ``epsilon`` (paper: 0), trying at most ``max_tries``
  candidates; when none passes, the fallback decides: ``"mask"`` (no word: the
  caller writes its placeholder), ``"best"`` (the highest-scoring candidate tried)
  or ``"none"`` (no word, the caller skips the position: used by the augmenters).
- ``NeighborPseudonymizer``: a PHI word is replaced by a random one of its N nearest
  neighbours (cosine) in a candidate vocabulary of frequent corpus words (never an
  item below the frequency cut), with one precomputed normalised matrix and
  batched numpy queries.

The ``similarity_filter`` component runs after ``mlm_resampler``: it reads the MLM
edits (label ``MLM``, ``span._.deid_audit["candidates"]``), applies the filter and
records its choice as an overriding ``MLM`` edit over the same tokens. In surrogate
mode it also replaces every PHI token (``doc.ents`` and ``PHI`` edits) that no
replacer upstream has decided (a ``phi_replacer`` surrogate, date shift, mask or
KEEP stands) by a neighbour (method ``SURROGATE``; the reason and PHI category of
the entity or edit it replaces): realistic words instead of placeholders, the same
original giving the same surrogate within a document, or across a corpus when
keyed by a salted hash (the salt is read from an environment variable, so it is
never written to the config).
"""
import functools
import hashlib
import re
import warnings
import zlib
from dataclasses import dataclass
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

import numpy
import srsly
from spacy import util
from spacy.strings import hash_string
from spacy.language import Language
from spacy.pipeline import Pipe
from spacy.tokens import Doc, Span
from spacy.util import registry
from spacy.vocab import Vocab

from spacy_deid.detect.labels import category_of, make_label_map
from spacy_deid.edits import MLM, PHI, SURROGATE, add_edit, get_edits
from spacy_deid.surrogates.keys import read_salt
from spacy_deid.util import RecordsReader, detector_flagged_words, require_corpus, upstream_allows

FALLBACKS = ("mask", "best", "none")
CHOICES = ("first", "most_similar", "in_document")
NUMERIC_MODES = ("shape", "keep")
CONSISTENCY = ("doc", "corpus")


# ---------------------------------------------------------------------------
# vectors
# ---------------------------------------------------------------------------


def word_vectors(vectors, words: Sequence[str]) -> numpy.ndarray:
    """The vectors of ``words`` as a float32 numpy array (one row per word).

    In floret mode every non-empty string has a vector. In default mode a word
    missing from the table gets a zero row (``Vectors.get_batch`` would return an
    arbitrary row for it), and a zero row never passes a cosine filter.

    vectors (spacy.vectors.Vectors): the table, usually ``nlp.vocab.vectors``.
    words (Sequence[str]): the words.
    RETURNS (numpy.ndarray): shape ``(len(words), width)``.
    """
    width = vectors.shape[1] if vectors.shape[0] else 0
    out = numpy.zeros((len(words), width), dtype="float32")
    if not words or width == 0:
        return out
    from thinc.backends import get_array_ops

    ops = get_array_ops(vectors.data)
    if vectors.mode == "floret":
        present = [i for i, w in enumerate(words) if w]
        if present:
            out[present] = ops.to_numpy(vectors.get_batch([words[i] for i in present]))
        return out
    rows = vectors.find(keys=list(words))
    keep = numpy.asarray([r >= 0 for r in rows], dtype=bool)
    if keep.any():
        out[keep] = ops.to_numpy(vectors.data[numpy.asarray(rows)[keep]])
    return out


def normalize_rows(matrix: numpy.ndarray) -> numpy.ndarray:
    """Rows scaled to unit length; zero rows stay zero (their cosine is 0)."""
    norms = numpy.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (matrix / norms).astype("float32", copy=False)


def has_letter(word: str) -> bool:
    return any(c.isalpha() for c in word)


# Letters, optionally joined by one apostrophe or hyphen ("o'neil", "smith-jones"),
# optionally ending in a period ("dr.", "r."). Emails, URLs, IDs and numbers are
# not words: they are redrawn by shape instead of neighbour search.
_WORD_RE = re.compile(r"^[^\W\d_]+(?:['\u2019-][^\W\d_]+)*\.?$")


def is_wordlike(word: str) -> bool:
    """Whether neighbour search applies to ``word`` (see ``_WORD_RE``)."""
    return bool(_WORD_RE.match(word))


def apply_case(template: str, word: str) -> str:
    """Give ``word`` the capitalisation pattern of ``template`` (UPPER, Title, lower)."""
    letters = [c for c in template if c.isalpha()]
    if not letters:
        return word
    if len(letters) > 1 and all(c.isupper() for c in letters):
        return word.upper()
    if letters[0].isupper():
        return word[:1].upper() + word[1:].lower()
    return word.lower()


# ---------------------------------------------------------------------------
# the Filtered BERT policy
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class FilterChoice:
    """The filter's decision for one original word.

    word (Optional[str]): the chosen candidate, None when the caller must fall back.
    index (Optional[int]): its index in the candidate list.
    similarity (Optional[float]): its cosine similarity to the original (for
        ``"mask"``/``"none"``: the best similarity tried, or None if none was tried).
    passed (bool): whether the word exceeded ``epsilon``.
    tries (int): how many candidates were scored.
    fallback (Optional[str]): the fallback used, None when a candidate passed.
    """

    word: Optional[str]
    index: Optional[int]
    similarity: Optional[float]
    passed: bool
    tries: int
    fallback: Optional[str] = None


def _word_before(doc: Doc, i: int) -> Optional[int]:
    """The index of the last non-space token before ``doc[i]``, or None."""
    k = i - 1
    while k >= 0 and doc[k].is_space:
        k -= 1
    return k if k >= 0 else None


def _word_after(doc: Doc, i: int) -> Optional[int]:
    """The index of the first non-space token from ``doc[i]`` on, or None."""
    k = i
    while k < len(doc) and doc[k].is_space:
        k += 1
    return k if k < len(doc) else None


class CosineFilter:
    """Filtered BERT's similarity filter (the paper's section 2.3.1).

    A candidate passes when ``cos(v(original), v(candidate)) > epsilon``. Candidates
    are tried in the order given (the MLM's order). Empty candidates, candidates
    with whitespace and, with ``skip_identical``, the original itself (ignoring
    case: it would be no replacement, and undo a mask) are skipped without counting
    as a try.

    epsilon (float): the similarity a candidate must exceed (paper: 0).
    max_tries (int): at most this many candidates are scored.
    fallback (str): ``"mask"``, ``"best"`` or ``"none"`` (see the module docstring).
    skip_identical (bool): never return the original word.
    choose (str): ``"first"`` (the paper): the first candidate, in the MLM's order,
        whose similarity exceeds ``epsilon``; ``"most_similar"``: the most similar
        of the tried candidates that exceed it (closer in meaning, less varied);
        ``"in_document"``: the most similar of those that the note itself uses
        elsewhere, else the most similar (the note keeps its own vocabulary: what
        it is about survives the resampling; nothing of another note comes in).
    """

    def __init__(
        self,
        epsilon: float = 0.0,
        max_tries: int = 10,
        fallback: str = "mask",
        skip_identical: bool = True,
        choose: str = "first",
    ) -> None:
        if choose not in CHOICES:
            raise ValueError(f"choose must be one of {CHOICES}, got {choose!r}")
        if fallback not in FALLBACKS:
            raise ValueError(f"fallback must be one of {FALLBACKS}, got {fallback!r}")
        if max_tries < 1:
            raise ValueError(f"max_tries must be at least 1, got {max_tries}")
        if not -1.0 <= epsilon < 1.0:
            raise ValueError(f"epsilon must be in [-1, 1), got {epsilon}")
        self.epsilon = float(epsilon)
        self.max_tries = int(max_tries)
        self.fallback = fallback
        self.skip_identical = skip_identical
        self.choose = choose

    def tried(self, original: str, candidates: Sequence[str]) -> List[int]:
        """Indices of the candidates that will be scored, in order."""
        out: List[int] = []
        low = original.lower()
        for i, cand in enumerate(candidates):
            if len(out) >= self.max_tries:
                break
            if not cand or any(c.isspace() for c in cand):
                continue
            if self.skip_identical and cand.lower() == low:
                continue
            out.append(i)
        return out

    def decide(
        self,
        candidates: Sequence[str],
        tried: Sequence[int],
        sims: Sequence[float],
        present: Optional[Set[str]] = None,
        avoid: Optional[Set[str]] = None,
    ) -> FilterChoice:
        """The decision given the similarities of the tried candidates (``present``:
        the lower-case words of the note, for ``choose = "in_document"``; ``avoid``:
        lower-case words never chosen, the words next to the replaced one: "seen seen"
        reads as a typing error)."""
        if avoid:
            keep = [n for n, i in enumerate(tried) if candidates[i].lower() not in avoid]
            if len(keep) < len(tried):
                tried, sims = [tried[n] for n in keep], [sims[n] for n in keep]
        if self.choose == "in_document" and present and tried:
            inside = [n for n, i in enumerate(tried) if sims[n] > self.epsilon and candidates[i].lower() in present]
            if inside:
                best = max(inside, key=lambda n: sims[n])
                return FilterChoice(candidates[tried[best]], tried[best], float(sims[best]), True, len(tried))
        if self.choose in ("most_similar", "in_document") and tried and max(sims) > self.epsilon:
            best = int(numpy.argmax(sims))
            return FilterChoice(candidates[tried[best]], tried[best], float(sims[best]), True, len(tried))
        for n, (i, s) in enumerate(zip(tried, sims), start=1):
            if s > self.epsilon:
                return FilterChoice(candidates[i], i, float(s), True, n)
        if not tried:
            return FilterChoice(None, None, None, False, 0, self.fallback)
        best = int(numpy.argmax(sims))
        if self.fallback == "best":
            i = tried[best]
            return FilterChoice(candidates[i], i, float(sims[best]), False, len(tried), "best")
        return FilterChoice(None, None, float(sims[best]), False, len(tried), self.fallback)

    def select(self, original: str, candidates: Sequence[str], vectors) -> FilterChoice:
        """Filter one word's candidates (see ``select_batch``)."""
        return self.select_batch([(original, candidates)], vectors)[0]

    def select_batch(
        self,
        items: Sequence[Tuple[str, Sequence[str]]],
        vectors,
        present: Optional[Sequence[Set[str]]] = None,
        neighbours: Optional[Sequence[Tuple[Set[str], int]]] = None,
    ) -> List[FilterChoice]:
        """Filter many words at once: one vector lookup for all unique strings.

        items (Sequence[Tuple[str, Sequence[str]]]): (original, candidates) pairs.
        vectors (spacy.vectors.Vectors): the table (floret: every word has a vector).
        present (Optional[Sequence[Set[str]]]): per item, the lower-case words of its note.
        neighbours (Optional[Sequence[Tuple[Set[str], int]]]): per item, the lower-case
            words next to it that stay, and the index of the item right before it (-1:
            none); no item gets the word of a neighbour, kept or chosen.
        RETURNS (List[FilterChoice]): one decision per item.
        """
        tried = [self.tried(orig, cands) for orig, cands in items]
        uniq: Dict[str, int] = {}
        for (orig, cands), idx in zip(items, tried):
            for w in (orig, *(cands[i] for i in idx)):
                uniq.setdefault(w, len(uniq))
        mat = normalize_rows(word_vectors(vectors, list(uniq)))
        out = []
        for k, ((orig, cands), idx) in enumerate(zip(items, tried)):
            if idx:
                q = mat[uniq[orig]]
                sims = mat[[uniq[cands[i]] for i in idx]] @ q
                # a zero vector (unknown word, default-mode table) never passes
                if not q.any():
                    sims = numpy.full(len(idx), -1.0, dtype="float32")
            else:
                sims = numpy.zeros(0, dtype="float32")
            avoid: Optional[Set[str]] = None
            if neighbours is not None:
                kept_words, before = neighbours[k]
                avoid = set(kept_words)
                if 0 <= before < len(out) and out[before].word:
                    avoid.add(out[before].word.lower())
            out.append(self.decide(cands, idx, [float(s) for s in sims], present[k] if present is not None else None, avoid))
        return out


@registry.misc("spacy_deid.cosine_filter.v1")
def cosine_filter_v1(
    epsilon: float = 0.0, max_tries: int = 10, fallback: str = "mask", skip_identical: bool = True, choose: str = "first"
) -> CosineFilter:
    """The Filtered BERT similarity filter as a registered policy.

    epsilon (float): cosine similarity a candidate must exceed (paper: 0).
    max_tries (int): candidates scored at most.
    fallback (str): ``"mask"`` (placeholder), ``"best"`` (best candidate tried) or
        ``"none"`` (skip the position).
    skip_identical (bool): never return the original word.
    choose (str): ``"first"`` passing candidate in the MLM's order (the paper), the
        ``"most_similar"`` passing one, or ``"in_document"``: the most similar passing
        one that the note uses elsewhere, else the most similar.
    RETURNS (CosineFilter): the policy.
    """
    return CosineFilter(
        epsilon=epsilon, max_tries=max_tries, fallback=fallback, skip_identical=skip_identical, choose=choose
    )


# ---------------------------------------------------------------------------
# neighbour pseudonyms
# ---------------------------------------------------------------------------


def _digest(word: str, salt: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(word.encode("utf8"), key=salt[:64], digest_size=8).digest(), "little")


def shape_surrogate(word: str, rng: numpy.random.Generator) -> str:
    """Redraw every digit and letter of ``word`` keeping its shape (case, length,
    punctuation): ``03/14/2019`` -> ``71/02/5538``, ``AB1234`` -> ``QX9051``. Never
    returns ``word`` itself when it has a digit or letter."""
    if not any(c.isalnum() for c in word):
        return word
    lower, upper = "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    for _ in range(20):
        out = []
        for c in word:
            if c.isdigit():
                out.append(str(rng.integers(10)))
            elif c.isalpha():
                out.append((upper if c.isupper() else lower)[rng.integers(26)])
            else:
                out.append(c)
        new = "".join(out)
        if new != word:
            return new
    return word  # pragma: no cover - 20 identical draws of >= 1 alnum char


class NeighborPseudonymizer:
    """Replace words by a random one of their N nearest neighbours (word-level automatic pseudonymization).

    The candidate vocabulary is a list of frequent corpus words (lower-cased, with
    letters and no digits). Its normalised vector matrix is computed once; queries
    are batched (a matrix product per block of queries, ``argpartition`` for the top
    N). A word is never its own surrogate. Tokens with digits (dates, phones, IDs)
    are redrawn by shape (``numeric="shape"``) or left alone (``"keep"``: then no
    surrogate is returned for them); tokens without letters or digits
    (punctuation) are their own surrogate.

    Consistency: within one call of ``surrogates`` for a document the same original
    (ignoring case) gets the same surrogate. With ``consistency="corpus"`` the
    choice is a keyed hash of the original (``salt``), so the same original gets the
    same surrogate in every document and run with the same salt and vocabulary,
    and no table of originals is kept.

    vectors (spacy.vectors.Vectors): the embedding (floret).
    candidates (Sequence[str]): the candidate vocabulary (frequent words only).
    n_neighbors (int): N, the number of nearest neighbours to choose from.
    numeric (str): ``"shape"`` or ``"keep"`` for tokens with digits.
    consistency (str): ``"doc"`` or ``"corpus"``.
    salt (Optional[bytes]): the key of the corpus-level hash (needed for ``corpus``).
    block_size (int): queries per matrix product (bounds memory).
    """

    def __init__(
        self,
        vectors,
        candidates: Sequence[str],
        n_neighbors: int = 100,
        *,
        numeric: str = "shape",
        consistency: str = "doc",
        salt: Optional[bytes] = None,
        block_size: int = 512,
    ) -> None:
        if n_neighbors < 1:
            raise ValueError(f"n_neighbors must be at least 1, got {n_neighbors}")
        if numeric not in NUMERIC_MODES:
            raise ValueError(f"numeric must be one of {NUMERIC_MODES}, got {numeric!r}")
        if consistency not in CONSISTENCY:
            raise ValueError(f"consistency must be one of {CONSISTENCY}, got {consistency!r}")
        if consistency == "corpus" and not salt:
            raise ValueError("consistency='corpus' needs a salt")
        seen: Set[str] = set()
        self.candidates: List[str] = []
        for w in candidates:
            w = w.lower()
            if is_wordlike(w) and w not in seen:
                seen.add(w)
                self.candidates.append(w)
        self.index = {w: i for i, w in enumerate(self.candidates)}
        self.vectors = vectors
        self.n_neighbors = int(n_neighbors)
        self.numeric = numeric
        self.consistency = consistency
        self.salt = salt
        self.block_size = block_size
        self._matrix: Optional[numpy.ndarray] = None
        self._warned_small = False

    @property
    def matrix(self) -> numpy.ndarray:
        """The normalised candidate matrix, computed on first use."""
        if self._matrix is None:
            self._matrix = normalize_rows(word_vectors(self.vectors, self.candidates))
        return self._matrix

    def nearest(self, words: Sequence[str], n: Optional[int] = None) -> List[List[str]]:
        """The ``n`` nearest candidates of each word, most similar first.

        The word itself (ignoring case) is excluded. When ``n`` exceeds the
        vocabulary, all candidates are returned (a warning is emitted once).

        words (Sequence[str]): query words.
        n (Optional[int]): neighbours per word (default: ``n_neighbors``).
        RETURNS (List[List[str]]): one list per word.
        """
        n = self.n_neighbors if n is None else n
        if not words:
            return []
        n_cand = len(self.candidates)
        if n_cand == 0:
            return [[] for _ in words]
        if n >= n_cand and not self._warned_small:
            warnings.warn(
                f"n_neighbors={n} is not smaller than the candidate vocabulary ({n_cand} words): "
                f"every candidate is a neighbour"
            )
            self._warned_small = True
        lows = [w.lower() for w in words]
        queries = normalize_rows(word_vectors(self.vectors, lows))
        matrix = self.matrix
        out: List[List[str]] = []
        for start in range(0, len(lows), self.block_size):
            block = lows[start : start + self.block_size]
            sims = queries[start : start + self.block_size] @ matrix.T
            for r, w in enumerate(block):
                row = sims[r]
                if w in self.index:
                    row[self.index[w]] = -numpy.inf  # a word is never its own surrogate
                kk = min(n, n_cand - (1 if w in self.index else 0))
                if kk <= 0:
                    out.append([])
                    continue
                top = numpy.argpartition(-row, kk - 1)[:kk] if kk < n_cand else numpy.arange(n_cand)
                top = top[numpy.argsort(-row[top], kind="stable")]
                out.append([self.candidates[i] for i in top if numpy.isfinite(row[i])])
        return out

    def _rng_for(self, word: str, rng: numpy.random.Generator) -> numpy.random.Generator:
        if self.consistency == "corpus":
            assert self.salt is not None
            return numpy.random.default_rng(_digest(word.lower(), self.salt))
        return rng

    def surrogates(
        self, docs_words: Sequence[Sequence[str]], rngs: Sequence[numpy.random.Generator]
    ) -> List[List[Optional[str]]]:
        """Surrogates for the PHI words of several documents (one batched query).

        docs_words (Sequence[Sequence[str]]): per document, the words to replace.
        rngs (Sequence[numpy.random.Generator]): one generator per document (unused
            for the choice in ``corpus`` consistency, which is keyed by the salt).
        RETURNS (List[List[Optional[str]]]): per document, per word, the surrogate
            with the original's capitalisation, or None when there is none (no
            candidate; digits with ``numeric="keep"``).
        """
        query = sorted({w.lower() for words in docs_words for w in words if is_wordlike(w)})
        neigh = dict(zip(query, self.nearest(query)))
        out: List[List[Optional[str]]] = []
        for words, rng in zip(docs_words, rngs):
            memo: Dict[str, Optional[str]] = {}
            res: List[Optional[str]] = []
            for w in words:
                low = w.lower()
                if low not in memo:
                    memo[low] = self._choose(w, neigh, rng)
                s = memo[low]
                res.append(None if s is None else (apply_case(w, s) if is_wordlike(w) else s))
            out.append(res)
        return out

    def _choose(self, word: str, neigh: Dict[str, List[str]], rng: numpy.random.Generator) -> Optional[str]:
        if not any(c.isalnum() for c in word):
            return word  # punctuation is not identifying: keep it
        if not is_wordlike(word):
            if self.numeric == "keep":
                return None
            return shape_surrogate(word, self._rng_for(word, rng))
        options = neigh.get(word.lower()) or []
        if not options:
            return None
        r = self._rng_for(word, rng)
        return options[int(r.integers(len(options)))]


# The public vocabulary neighbour surrogates are drawn from (wordfreq's English
# list): a saved pipeline keeps the hashes of its candidates, and the words are
# found again here when it is loaded.
PUBLIC_VOCABULARY_SIZE = 200_000


@functools.lru_cache(maxsize=1)
def public_vocabulary() -> Tuple[str, ...]:
    """The lower-cased words of the public vocabulary, most frequent first."""
    from wordfreq import top_n_list

    return tuple(w.lower() for w in top_n_list("en", PUBLIC_VOCABULARY_SIZE))


def words_of_hashes(hashes: Sequence[int]) -> List[str]:
    """The public-vocabulary words of ``hashes``, in the order of ``hashes``."""
    if not hashes:
        return []
    wanted = {int(h) for h in hashes}
    found = {}
    for w in public_vocabulary():
        h = hash_string(w)
        if h in wanted:
            found[h] = w
    return [found[int(h)] for h in hashes if int(h) in found]


def gold_phi_words(records: Iterable[dict]) -> set:
    """Lower-cased ``\\w+`` words inside the records' gold PHI spans (when given)."""
    import re

    words: set = set()
    for rec in records:
        text = rec.get("text") or ""
        for sp in rec.get("spans") or []:
            words.update(w.lower() for w in re.findall(r"\w+", text[sp["start"] : sp["end"]]))
    return words


def shareable_frequent_words(
    nlp: Language, name: str, corpus: RecordsReader, min_count: int, count_by: str = "patient"
) -> Tuple[Dict[str, int], int]:
    """The corpus words a fitted component may store, with their counts.

    A word is kept when at least ``min_count`` patients (documents, occurrences:
    ``count_by``) have it, it belongs to the public vocabulary (the pipeline
    then stores its hash, never a corpus string), it is inside no gold PHI span
    of the corpus (a doctor's name or username shared by many patients), no
    detector before component ``name`` flags it anywhere in the corpus (a
    clinician's name used for many patients is not rare, but a gazetteer or the
    NER sees it after "Dr."), and every upstream ``is_allowed`` accepts it (a
    listed name or place is refused). Counting runs on a scratch vocab: the
    corpus' rare strings never reach the pipeline's StringStore.

    nlp (Language): the pipeline being initialised (its tokenizer, its detectors).
    name (str): the component asking; the detectors before it are run.
    corpus (RecordsReader): the records.
    min_count (int): fewest counting units.
    count_by (str): "patient", "doc" or "occurrence".
    RETURNS (Tuple[Dict[str, int], int]): {word: count}, most frequent first,
        and the number of counting units in the corpus.
    """
    from spacy_deid.train.vectors import count_words, scratch_tokenizer

    counter = count_words(corpus(), scratch_tokenizer(nlp), count_by=count_by)
    frequent = counter.frequent(max(min_count, 1))
    banned = gold_phi_words(corpus()) | detector_flagged_words(nlp, name, corpus())
    allows = upstream_allows(nlp, name)
    public = set(public_vocabulary())
    words = {
        w: c for w, c in frequent.items() if w in public and w not in banned and all(ok(w) for ok in allows)
    }
    return words, counter.n_units


def candidate_vocabulary(
    words: Iterable[str],
    make_doc: Optional[Callable[[str], Doc]] = None,
    exclude: Iterable[str] = (),
    max_candidates: int = 0,
    min_length: int = 2,
) -> List[str]:
    """Filter frequent words into a surrogate vocabulary.

    Keeps lower-cased words with letters and no digits, at least ``min_length``
    characters, not in ``exclude`` (by default the caller passes stop words: a
    surrogate "the" for a name is useless), that the tokenizer keeps as one token
    (so a surrogate never changes the token count of a gold entity).

    words (Iterable[str]): frequent words, most frequent first.
    make_doc (Optional[Callable[[str], Doc]]): the tokenizer (None: no check).
    exclude (Iterable[str]): words never used.
    max_candidates (int): keep at most this many (0: all).
    min_length (int): shortest word kept.
    RETURNS (List[str]): the candidates.
    """
    excl = {w.lower() for w in exclude}
    out: List[str] = []
    seen: Set[str] = set()
    for w in words:
        w = w.lower()
        if w in seen or w in excl or len(w) < min_length or not is_wordlike(w):
            continue
        if make_doc is not None and len(make_doc(w)) != 1:
            continue
        seen.add(w)
        out.append(w)
        if max_candidates and len(out) >= max_candidates:
            break
    return out


# ---------------------------------------------------------------------------
# the component
# ---------------------------------------------------------------------------

DEFAULT_CONFIG = {
    "policy": {"@misc": "spacy_deid.cosine_filter.v1", "epsilon": 0.0, "max_tries": 10, "fallback": "mask"},
    "placeholder": "[MASK]",
    "filter_labels": [MLM],
    "surrogates": False,
    "surrogate_labels": [PHI],
    "surrogate_ents": True,
    "n_neighbors": 100,
    "min_count": 5,
    "count_by": "patient",
    "max_candidates": 50000,
    "numeric": "shape",
    "consistency": "doc",
    "salt_env": "SPACY_DEID_SALT",
    "seed": 0,
}


@Language.factory(
    "similarity_filter",
    default_config=DEFAULT_CONFIG,
    assigns=["doc.spans"],
)
def make_similarity_filter(
    nlp: Language,
    name: str,
    policy: CosineFilter,
    placeholder: str,
    filter_labels: List[str],
    surrogates: bool,
    surrogate_labels: List[str],
    surrogate_ents: bool,
    n_neighbors: int,
    min_count: int,
    count_by: str,
    max_candidates: int,
    numeric: str,
    consistency: str,
    salt_env: Optional[str],
    seed: int,
) -> "SimilarityFilter":
    """Create a similarity_filter (see ``SimilarityFilter``)."""
    return SimilarityFilter(
        nlp.vocab,
        name=name,
        policy=policy,
        placeholder=placeholder,
        filter_labels=filter_labels,
        surrogates=surrogates,
        surrogate_labels=surrogate_labels,
        surrogate_ents=surrogate_ents,
        n_neighbors=n_neighbors,
        min_count=min_count,
        count_by=count_by,
        max_candidates=max_candidates,
        numeric=numeric,
        consistency=consistency,
        salt_env=salt_env,
        seed=seed,
    )


class SimilarityFilter(Pipe):
    """Filter the MLM's proposals by embedding similarity; optionally replace PHI
    tokens by neighbour surrogates.

    vocab (Vocab): the shared vocab; its vectors (floret) are the embedding.
    name (str): the component name.
    policy (CosineFilter): the filter (``spacy_deid.cosine_filter.v1`` or any
        object with the same ``select_batch(items, vectors)`` method).
    placeholder (str): what a filtered edit renders as when the fallback is "mask".
    filter_labels (List[str]): edit labels whose ``candidates`` audit is filtered.
    surrogates (bool): replace PHI tokens by neighbour pseudonyms.
    surrogate_labels (List[str]): edit labels whose tokens get surrogates.
    surrogate_ents (bool): also give surrogates to the tokens of ``doc.ents``.
    n_neighbors (int): N of the neighbour pseudonyms.
    min_count (int): frequency cut of the candidate vocabulary (``initialize``).
    count_by (str): counting unit of ``min_count``: patient, doc or occurrence.
    max_candidates (int): keep at most this many candidates, most frequent first.
    numeric (str): ``"shape"`` (redraw digits) or ``"keep"`` (leave the upstream
        placeholder) for PHI tokens with digits.
    consistency (str): ``"doc"`` or ``"corpus"`` (salted hash).
    salt_env (Optional[str]): environment variable holding the corpus salt.
    seed (int): seed of the per-document choices.
    """

    def __init__(
        self,
        vocab: Vocab,
        name: str = "similarity_filter",
        *,
        policy: Optional[CosineFilter] = None,
        placeholder: str = "[MASK]",
        filter_labels: Sequence[str] = (MLM,),
        surrogates: bool = False,
        surrogate_labels: Sequence[str] = (PHI,),
        surrogate_ents: bool = True,
        n_neighbors: int = 100,
        min_count: int = 5,
        count_by: str = "patient",
        max_candidates: int = 50000,
        numeric: str = "shape",
        consistency: str = "doc",
        salt_env: Optional[str] = "SPACY_DEID_SALT",
        seed: int = 0,
    ) -> None:
        if numeric not in NUMERIC_MODES:
            raise ValueError(f"[{name}] numeric must be one of {NUMERIC_MODES}, got {numeric!r}")
        if consistency not in CONSISTENCY:
            raise ValueError(f"[{name}] consistency must be one of {CONSISTENCY}, got {consistency!r}")
        if n_neighbors < 1:
            raise ValueError(f"[{name}] n_neighbors must be at least 1, got {n_neighbors}")
        self.vocab = vocab
        self.name = name
        self.policy = policy if policy is not None else CosineFilter()
        if getattr(self.policy, "fallback", "mask") == "none":
            raise ValueError(
                f"[{name}] fallback 'none' would keep an unfiltered MLM word in sanitised output: "
                f"use 'mask' or 'best'"
            )
        self.placeholder = placeholder
        self.filter_labels = set(filter_labels)
        self.surrogates = surrogates
        self.surrogate_labels = set(surrogate_labels)
        self.surrogate_ents = surrogate_ents
        # the PHI category a surrogate records for an entity of doc.ents
        self._label_map = make_label_map()
        self.n_neighbors = n_neighbors
        self.min_count = min_count
        self.count_by = count_by
        self.max_candidates = max_candidates
        self.numeric = numeric
        self.consistency = consistency
        self.salt_env = salt_env
        self.seed = seed
        self.candidates: List[str] = []
        self._pseudonymizer: Optional[NeighborPseudonymizer] = None

    # -- set-up -----------------------------------------------------------

    def initialize(
        self,
        get_examples: Optional[Callable[[], Iterable]] = None,
        *,
        nlp: Optional[Language] = None,
        corpus: Optional[RecordsReader] = None,
    ) -> None:
        """Check the vectors; in surrogate mode, learn the candidate vocabulary.

        get_examples (Optional[Callable]): unused (spaCy passes dummy examples).
        nlp (Optional[Language]): the pipeline (its tokenizer and vectors).
        corpus (Optional[Callable[[], Iterable[dict]]]): the records the frequent
            words are counted on (``spacy_deid.io.records.v1``); needed in surrogate mode.
        """
        if not self._has_vectors():
            raise ValueError(
                f"[{self.name}] needs word vectors: train them with `python -m spacy_deid vectors "
                f"CORPUS OUT_DIR` and set [initialize] vectors = ${{paths.vectors}} in the config"
            )
        self.candidates = []
        self._pseudonymizer = None
        if not self.surrogates:
            return
        from spacy.lang.en.stop_words import STOP_WORDS

        corpus = require_corpus(corpus, self.name)
        if nlp is None:
            raise ValueError(f"[{self.name}] initialize needs nlp (for its tokenizer)")
        frequent, _ = shareable_frequent_words(nlp, self.name, corpus, self.min_count, self.count_by)
        self.candidates = candidate_vocabulary(
            frequent, make_doc=nlp.make_doc, exclude=set(STOP_WORDS), max_candidates=self.max_candidates
        )
        if not self.candidates:
            warnings.warn(
                f"[{self.name}] no word passed min_count={self.min_count}: PHI tokens keep their placeholders"
            )

    def _has_vectors(self) -> bool:
        vec = self.vocab.vectors
        return vec.shape[0] > 0 and vec.shape[1] > 0

    @property
    def pseudonymizer(self) -> NeighborPseudonymizer:
        if self._pseudonymizer is None:
            salt = None
            if self.consistency == "corpus":
                salt, from_env = read_salt(self.salt_env)
                if not from_env:
                    warnings.warn(
                        f"[{self.name}] consistency='corpus' but ${self.salt_env} is unset: using a random "
                        f"salt, so surrogates are consistent within this run only"
                    )
            self._pseudonymizer = NeighborPseudonymizer(
                self.vocab.vectors,
                self.candidates,
                self.n_neighbors,
                numeric=self.numeric,
                consistency=self.consistency,
                salt=salt,
            )
        return self._pseudonymizer

    # -- processing -------------------------------------------------------

    def __call__(self, doc: Doc) -> Doc:
        self._process([doc])
        return doc

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        error_handler = self.get_error_handler()
        for docs in util.minibatch(stream, size=batch_size):
            try:
                self._process(docs)
                yield from docs
            except Exception:
                # isolate the failing doc, never drop the others
                for doc in docs:
                    try:
                        yield self(doc)
                    except Exception as e:
                        error_handler(self.name, self, [doc], e)

    def _process(self, docs: Sequence[Doc]) -> None:
        if not self._has_vectors():
            raise ValueError(f"[{self.name}] the pipeline has no vectors (was it initialized?)")
        self._filter_mlm(docs)
        if self.surrogates:
            self._add_surrogates(docs)

    def _filter_mlm(self, docs: Sequence[Doc]) -> None:
        todo: List[Tuple[Doc, object]] = []
        items: List[Tuple[str, Sequence[str]]] = []
        present: List[Set[str]] = []
        neighbours: List[Tuple[Set[str], int]] = []
        in_document = getattr(self.policy, "choose", None) == "in_document"
        for doc in docs:
            words = {t.lower_ for t in doc if t.is_alpha} if in_document else set()
            ends: Dict[int, int] = {}  # token index after a filtered span -> its item
            edits = get_edits(doc)
            owner: Dict[int, int] = {}
            for idx, span in enumerate(edits):
                for i in range(span.start, span.end):
                    owner[i] = idx
            for idx, span in enumerate(edits):
                if span.label_ not in self.filter_labels:
                    continue
                audit = span._.deid_audit
                if not isinstance(audit, dict) or audit.get("filtered") or "candidates" not in audit:
                    continue
                if not any(owner.get(i) == idx for i in range(span.start, span.end)):
                    continue  # already overridden downstream
                cands = [c for c in (audit.get("candidates") or []) if isinstance(c, str)]
                if not cands or all(doc[i].is_space for i in range(span.start, span.end)):
                    continue  # nothing to choose from: the resampler's own decision stands
                todo.append((doc, span))
                items.append((span.text, cands))
                present.append(words)
                # the words right before and after it, where no edit changes them, and the
                # item right before it: no replacement repeats its neighbour ("seen seen")
                prev_i, next_i = _word_before(doc, span.start), _word_after(doc, span.end)
                kept_words = {doc[i].lower_ for i in (prev_i, next_i) if i is not None and i not in owner}
                neighbours.append((kept_words, ends.get(prev_i + 1, -1) if prev_i is not None else -1))
                ends[span.end] = len(items) - 1
        if not items:
            return
        if isinstance(self.policy, CosineFilter):
            choices = self.policy.select_batch(items, self.vocab.vectors, present if in_document else None, neighbours)
        else:  # a user's policy takes (items, vectors)
            choices = self.policy.select_batch(items, self.vocab.vectors)
        for (doc, span), choice in zip(todo, choices):
            replacement = choice.word if choice.word is not None else self.placeholder
            sim = None if choice.similarity is None else round(float(choice.similarity), 4)
            add_edit(
                doc,
                span.start,
                span.end,
                span.label_,
                replacement,
                audit={
                    "filtered": True,
                    "similarity": sim,
                    "passed": choice.passed,
                    "tries": choice.tries,
                    "fallback": choice.fallback,
                },
            )

    def _phi_tokens(self, doc: Doc) -> Dict[int, Tuple[str, Optional[str]]]:
        """The PHI tokens to replace, each with the reason and category its
        replacement records. A token whose latest edit already has a method (a
        phi_replacer surrogate, date shift or mask, or KEEP: an age under 90 that
        the NER marked) was decided upstream and is left alone."""
        owner: Dict[int, Span] = {}
        for span in get_edits(doc):
            for i in range(span.start, span.end):
                owner[i] = span
        tokens: Dict[int, Tuple[str, Optional[str]]] = {}
        if self.surrogate_ents:
            for ent in doc.ents:
                category = category_of(ent.label_, self._label_map)
                for i in range(ent.start, ent.end):
                    tokens[i] = (PHI, category)
        for span in get_edits(doc):
            if span.label_ in self.surrogate_labels:
                for i in range(span.start, span.end):
                    tokens[i] = (span.label_, span._.deid_category or tokens.get(i, (None, None))[1])
        return {
            i: why
            for i, why in sorted(tokens.items())
            if not doc[i].is_space and (i not in owner or owner[i]._.deid_method is None)
        }

    def _doc_rng(self, doc: Doc) -> numpy.random.Generator:
        # Seeded by the document's text: the same doc gets the same surrogates
        # whatever the batch it is in (the text itself is not kept).
        return numpy.random.default_rng([self.seed, zlib.crc32(doc.text.encode("utf8"))])

    def _add_surrogates(self, docs: Sequence[Doc]) -> None:
        positions = [self._phi_tokens(doc) for doc in docs]
        words = [[doc[i].text for i in pos] for doc, pos in zip(docs, positions)]
        surr = self.pseudonymizer.surrogates(words, [self._doc_rng(d) for d in docs])
        audit = {"component": self.name, "method": "neighbors", "n_neighbors": self.n_neighbors}
        for doc, pos, subs in zip(docs, positions, surr):
            for i, s in zip(pos, subs):
                if s is not None:
                    reason, category = pos[i]
                    add_edit(doc, i, i + 1, reason, s, audit=dict(audit), category=category, method=SURROGATE)

    # -- serialisation ----------------------------------------------------

    def _cfg(self) -> dict:
        return {"candidate_hashes": [hash_string(w) for w in self.candidates]}

    def _set_cfg(self, cfg: dict) -> None:
        self.candidates = words_of_hashes(cfg.get("candidate_hashes", []))
        self._pseudonymizer = None

    def to_bytes(self, *, exclude: Iterable[str] = tuple()) -> bytes:
        return srsly.msgpack_dumps(self._cfg())

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = tuple()) -> "SimilarityFilter":
        self._set_cfg(srsly.msgpack_loads(bytes_data))
        return self

    def to_disk(self, path, *, exclude: Iterable[str] = tuple()) -> None:
        path = util.ensure_path(path)
        util.to_disk(path, {"cfg": lambda p: srsly.write_json(p, self._cfg())}, exclude)

    def from_disk(self, path, *, exclude: Iterable[str] = tuple()) -> "SimilarityFilter":
        path = util.ensure_path(path)
        util.from_disk(path, {"cfg": lambda p: self._set_cfg(srsly.read_json(p))}, exclude)
        return self
