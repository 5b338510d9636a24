"""doc_swapper: DataSifterText keyphrase swapping between similar documents.

From "DataSifterText: Partially Synthetic Text Generation for Sensitive Clinical
Notes" (keyphrase swapping, the second half of its algorithm). After masking and
resampling, each document swaps keyphrases with a similar document of its cluster,
so content can no longer be tied to one patient while the note's topic is kept.

- ``initialize`` fits D(W) on an explicit corpus, in two streaming passes: the text
  of each document *as rendered after the upstream components* is hashed
  (scikit-learn ``HashingVectorizer``, stateless, so no vocabulary exists anywhere)
  and document frequencies are summed per chunk; hashed chunks are spilled to a
  temporary directory. Features in fewer than ``min_df`` documents are dropped
  (cut-off applied before anything is stored), idf weights come from the summed
  document frequencies (the formula of ``TfidfTransformer``), and ``MiniBatchKMeans``
  is fitted with ``partial_fit`` over the spilled chunks. Time is linear in the
  corpus and memory is bounded by the chunk size and the init sample.
- ``pipe`` assigns each document to its nearest centroid and buffers it in its
  cluster's pool. A pool is processed when it holds ``pool_size`` documents, when
  the reorder buffer exceeds ``max_buffer`` documents (then the pool of the oldest
  waiting document is processed, whatever its size) and at the end of the stream.
  Documents are yielded in input order (``sanitize`` relies on it), so the latency
  of a document is at most ``max_buffer`` documents and memory is bounded by
  ``max_buffer`` documents, not by the corpus.
- Partner choice, as the seed: among min(``sample_size``, n_c - 1) documents sampled
  from the same pool (never the document itself), cosine distance in D(W), a random
  one of the closest ``closest_fraction`` (at least one).
- Methods: ``("rake_keyphrase", q)`` and ``("textrank", q)`` replace each of the top-q
  phrases of the document (every occurrence) by the phrase of the same rank of the
  partner; ``("rake_index", 1)`` replaces everything from the first occurrence of the
  top RAKE phrase to the end by the partner's text from its top RAKE phrase to its
  end; ``("none", 0)`` does nothing. Every change is an edit with reason ``SWAP``
  whose replacement is the partner's text *as rendered after upstream edits* (so
  what moves between documents is already sanitised); the partner's id is in
  ``span._.deid_audit["partner"]``, never in the text.
- Keyphrases and D(W) are computed on the rendered text; the phrase positions are
  mapped back to the original tokens through the rendering's offsets. A phrase
  that touches an upstream edit segment swaps the whole segment.
- Labels and patient ids stay with their documents (L* = L): ``doc._.deid_record``
  is never touched. Random choices use a numpy Generator seeded from ``seed`` and a
  stable hash (blake2b) of the document id, so runs are reproducible.
"""
import math
import tempfile
from bisect import bisect_right
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Deque, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np
import srsly
from spacy import util
from spacy.language import Language
from spacy.pipeline import Pipe
from spacy.tokens import Doc
from spacy.vocab import Vocab
from thinc.api import Config

from spacy_deid.edits import SWAP, Rendering, add_edit, render
from spacy_deid.policies.keyphrases import Keyphrase, KeyphrasePolicy
from spacy_deid.util import RecordsReader, memory_zone, pipe_upstream, require_corpus, stable_key, upstream_pipes

METHODS = ("rake_keyphrase", "rake_index", "textrank", "none")
# Words of two or more letters: numbers (MRNs, dates) never become features, so not
# even their hashes can end up in the saved state.
TOKEN_PATTERN = r"(?u)\b[^\W\d_]{2,}\b"
STATE_VERSION = 1

DEFAULT_CONFIG_STR = """
[doc_swapper]
method = "rake_keyphrase"
q = 3
n_clusters = null
k_candidates = [2, 4, 8, 16, 32]
n_features = 262144
min_df = 5
sample_size = 1000
closest_fraction = 0.1
pool_size = 1000
max_buffer = 5000
fit_batch_size = 2000
n_epochs = 3
init_sample = 5000
seed = 0

[doc_swapper.rake]
@misc = "spacy_deid.rake.v1"
max_words = 4
min_chars = 3

[doc_swapper.textrank]
@misc = "spacy_deid.textrank.v1"
window = 3
max_words = 4
"""
DEFAULT_CONFIG = Config().from_str(DEFAULT_CONFIG_STR)["doc_swapper"]


@Language.factory(
    "doc_swapper",
    default_config=DEFAULT_CONFIG,
    requires=[],
    assigns=["doc.spans"],
)
def make_doc_swapper(
    nlp: Language,
    name: str,
    method: str,
    q: int,
    n_clusters: Optional[int],
    k_candidates: List[int],
    n_features: int,
    min_df: int,
    sample_size: int,
    closest_fraction: float,
    pool_size: int,
    max_buffer: int,
    fit_batch_size: int,
    n_epochs: int,
    init_sample: int,
    seed: int,
    rake: KeyphrasePolicy,
    textrank: KeyphrasePolicy,
) -> "DocSwapper":
    """Create a doc_swapper (see the module docstring and the README section "doc_swapper").

    method (str): "rake_keyphrase", "rake_index", "textrank" or "none".
    q (int): number of top phrases swapped (must be 1 for "rake_index"; ignored for "none").
    n_clusters (Optional[int]): K; None: the number of distinct record labels in the
        corpus, or, without labels, the best silhouette among ``k_candidates``.
    k_candidates (List[int]): the K values tried by the silhouette sweep.
    n_features (int): hashing space of D(W).
    min_df (int): features in fewer documents are dropped before anything is stored.
    sample_size (int): partner candidates sampled per document (DataSifterText's 1,000).
    closest_fraction (float): the partner is drawn among this share of closest candidates.
    pool_size (int): documents buffered per cluster before its pool is processed.
    max_buffer (int): documents held for reordering; when exceeded, the oldest
        document's pool is processed early. Must be >= pool_size.
    fit_batch_size (int): documents per chunk in initialize (and per k-means step).
    n_epochs (int): passes of MiniBatchKMeans.partial_fit over the spilled chunks.
    init_sample (int): documents reservoir-sampled for k-means++ init and the K sweep.
    seed (int): seed of every random choice.
    rake (KeyphrasePolicy): the RAKE policy (``spacy_deid.rake.v1``).
    textrank (KeyphrasePolicy): the TextRank policy (``spacy_deid.textrank.v1``).
    RETURNS (DocSwapper): the component.
    """
    return DocSwapper(
        nlp.vocab,
        name=name,
        tokenizer=nlp.tokenizer,
        stop_words=nlp.Defaults.stop_words,
        method=method,
        q=q,
        n_clusters=n_clusters,
        k_candidates=k_candidates,
        n_features=n_features,
        min_df=min_df,
        sample_size=sample_size,
        closest_fraction=closest_fraction,
        pool_size=pool_size,
        max_buffer=max_buffer,
        fit_batch_size=fit_batch_size,
        n_epochs=n_epochs,
        init_sample=init_sample,
        seed=seed,
        rake=rake,
        textrank=textrank,
    )


def token_starts(doc: Doc) -> List[int]:
    """Character offset of every token (read with ``to_array``: no Token objects)."""
    from spacy.attrs import IDX

    return doc.to_array(IDX).reshape(-1).tolist() if len(doc) else []


def rendered_to_original(
    doc: Doc, rendering: Rendering, start_char: int, end_char: int, starts: Optional[List[int]] = None
) -> Tuple[int, int]:
    """The original tokens ``[start, end)`` whose rendered text is ``[start_char, end_char)``.

    A boundary inside an edit segment's replacement extends to the whole segment;
    a boundary in kept text maps to the original token containing that character.

    doc (Doc): the original document.
    rendering (Rendering): ``render(doc)``.
    start_char (int): start offset in the rendered text.
    end_char (int): end offset (exclusive) in the rendered text, > start_char.
    starts (Optional[List[int]]): ``token_starts(doc)``, when already computed.
    RETURNS (Tuple[int, int]): the original token range.
    """
    if starts is None:
        starts = token_starts(doc)
    start_tok: Optional[int] = None
    shift = 0
    for seg, (_, o_end, n_start, n_end) in zip(rendering.segments, rendering.spans):
        if start_char < n_start:
            break
        if n_start <= start_char < n_end:
            start_tok = seg.start
            break
        shift = n_end - o_end
    if start_tok is None:
        start_tok = max(0, bisect_right(starts, start_char - shift) - 1)
    end_tok: Optional[int] = None
    shift = 0
    for seg, (_, o_end, n_start, n_end) in zip(rendering.segments, rendering.spans):
        if end_char <= n_start:
            break
        if n_start < end_char <= n_end:
            end_tok = seg.end
            break
        shift = n_end - o_end
    if end_tok is None:
        end_tok = bisect_right(starts, end_char - shift - 1)
    return start_tok, max(end_tok, start_tok + 1)


@dataclass
class _Entry:
    """A buffered document: its position in the stream, cluster and D(W) row."""

    seq: int
    doc: Doc
    cluster: int
    vector: Any  # 1 x n_kept CSR row, L2-normalised
    rendering: Optional[Rendering]  # the upstream-edited text (computed once, used for D(W) and phrases)
    key: int
    ref: Any  # what the audit calls the document (record id, index or stream position)
    done: bool = False
    failed: bool = False


class DocSwapper(Pipe):
    """Swap keyphrases between similar documents (DataSifterText lines 32-50)."""

    def __init__(
        self,
        vocab: Vocab,
        name: str = "doc_swapper",
        *,
        tokenizer: Optional[Callable[[str], Doc]] = None,
        stop_words: Iterable[str] = (),
        method: str = "rake_keyphrase",
        q: int = 3,
        n_clusters: Optional[int] = None,
        k_candidates: Sequence[int] = (2, 4, 8, 16, 32),
        n_features: int = 2**18,
        min_df: int = 5,
        sample_size: int = 1000,
        closest_fraction: float = 0.1,
        pool_size: int = 1000,
        max_buffer: int = 5000,
        fit_batch_size: int = 2000,
        n_epochs: int = 3,
        init_sample: int = 5000,
        seed: int = 0,
        rake: Optional[KeyphrasePolicy] = None,
        textrank: Optional[KeyphrasePolicy] = None,
    ) -> None:
        """Initialise the component; see ``make_doc_swapper`` for the arguments."""
        if method not in METHODS:
            raise ValueError(f"[{name}] method must be one of {', '.join(METHODS)}; got {method!r}")
        if method in ("rake_keyphrase", "textrank") and q < 1:
            raise ValueError(f"[{name}] q must be >= 1 for method {method!r}; got {q}")
        if method == "rake_index" and q != 1:
            raise ValueError(f"[{name}] method 'rake_index' is defined for q = 1 only (seed: (RAKE index, 1)); got {q}")
        if n_clusters is not None and n_clusters < 1:
            raise ValueError(f"[{name}] n_clusters must be >= 1 or null; got {n_clusters}")
        if not 0.0 < closest_fraction <= 1.0:
            raise ValueError(f"[{name}] closest_fraction must be in (0, 1]; got {closest_fraction}")
        if sample_size < 1 or pool_size < 2 or fit_batch_size < 1 or n_epochs < 1 or init_sample < 2:
            raise ValueError(
                f"[{name}] need sample_size >= 1, pool_size >= 2, fit_batch_size >= 1, n_epochs >= 1 "
                f"and init_sample >= 2"
            )
        if max_buffer < pool_size:
            raise ValueError(f"[{name}] max_buffer ({max_buffer}) must be >= pool_size ({pool_size})")
        if min_df < 1 or n_features < 2:
            raise ValueError(f"[{name}] min_df must be >= 1 and n_features >= 2")
        if seed < 0:
            raise ValueError(f"[{name}] seed must be >= 0; got {seed}")
        self.vocab = vocab
        self.name = name
        self.tokenizer = tokenizer
        # Only stop words that the token pattern can produce: sklearn warns about the others.
        import re

        self.stop_words = sorted(w for w in set(stop_words) if re.fullmatch(TOKEN_PATTERN, w))
        self.method = method
        self.q = q
        self.n_clusters = n_clusters
        self.k_candidates = [int(k) for k in k_candidates]
        self.n_features = n_features
        self.min_df = min_df
        self.sample_size = sample_size
        self.closest_fraction = closest_fraction
        self.pool_size = pool_size
        self.max_buffer = max_buffer
        self.fit_batch_size = fit_batch_size
        self.n_epochs = n_epochs
        self.init_sample = init_sample
        self.seed = seed
        self.rake = rake
        self.textrank = textrank
        # Fitted state: hashed feature indices kept, their idf weights, the centroids.
        self.cfg: Dict[str, Any] = {"fitted": False}
        self.kept: Optional[np.ndarray] = None
        self.idf: Optional[np.ndarray] = None
        self.centers: Optional[np.ndarray] = None
        self._hasher_obj = None
        self._tfidf_obj = None
        self._centers64 = None

    # ----------------------------------------------------------------- D(W)
    @property
    def is_fitted(self) -> bool:
        return bool(self.cfg.get("fitted"))

    def _hasher(self):
        if self._hasher_obj is None:
            from sklearn.feature_extraction.text import HashingVectorizer

            self._hasher_obj = HashingVectorizer(
                n_features=self.n_features,
                alternate_sign=False,
                norm=None,
                lowercase=True,
                token_pattern=TOKEN_PATTERN,
                stop_words=self.stop_words or None,
                dtype=np.float64,
            )
        return self._hasher_obj

    @staticmethod
    def _make_tfidf(idf: np.ndarray):
        from sklearn.feature_extraction.text import TfidfTransformer

        tfidf = TfidfTransformer(norm="l2", use_idf=True, smooth_idf=True)
        # idf_ is set from the document frequencies summed over chunks (fit would
        # need the whole matrix at once); same formula as TfidfTransformer.fit.
        tfidf.idf_ = idf.astype(np.float64)
        return tfidf

    def _tfidf(self):
        if self._tfidf_obj is None:
            self._tfidf_obj = self._make_tfidf(self.idf)
        return self._tfidf_obj

    def _require_fitted(self) -> None:
        if not self.is_fitted:
            raise ValueError(
                f"[{self.name}] is not initialized: fit it on a corpus with nlp.initialize() "
                f"(config: [initialize.components.{self.name}.corpus]) or load a fitted pipeline."
            )

    def transform(self, texts: Sequence[str]):
        """D(W) rows of texts: hashed counts, kept features, tf-idf, L2-normalised.

        texts (Sequence[str]): the texts.
        RETURNS (scipy.sparse.csr_matrix): one row per text (an all-zero row when a
            text has no kept feature).
        """
        self._require_fitted()
        counts = self._hasher().transform(texts)
        return self._tfidf().transform(counts[:, self.kept])

    def assign(self, rows) -> np.ndarray:
        """Nearest centroid of D(W) rows (Euclidean, as ``MiniBatchKMeans.predict``)."""
        self._require_fitted()
        if self._centers64 is None:
            centers = self.centers.astype(np.float64)
            self._centers64 = (centers.T.copy(), (centers**2).sum(axis=1))
        centers_t, center_sq = self._centers64
        dots = np.asarray(rows @ centers_t)
        row_sq = np.asarray(rows.multiply(rows).sum(axis=1)).ravel()
        return np.argmin(row_sq[:, None] - 2.0 * dots + center_sq[None, :], axis=1)

    def predict(self, texts: Sequence[str]) -> np.ndarray:
        """The cluster of each text (used by the utility measure)."""
        return self.assign(self.transform(texts))

    # ----------------------------------------------------------------- fit
    def initialize(
        self,
        get_examples: Optional[Callable[[], Iterable[Any]]] = None,
        *,
        nlp: Optional[Language] = None,
        corpus: Optional[RecordsReader] = None,
    ) -> None:
        """Fit D(W) and the K-means clusters on ``corpus`` (two streaming passes).

        The text of each record is rendered by the components before this one (so
        the representation is learned on sanitised text). spaCy's ``get_examples``
        is ignored: corpus statistics never come from its dummy examples.

        get_examples (Optional[Callable]): ignored.
        nlp (Optional[Language]): the pipeline (runs the upstream components).
        corpus (Optional[Callable[[], Iterable[dict]]]): the records reader.
        """
        if self.method == "none":
            self.cfg = {"fitted": False, "method": "none"}
            return
        corpus = require_corpus(corpus, self.name)
        if nlp is not None and upstream_pipes(nlp, self.name):
            # Tokenising the corpus adds its strings to the vocab, which is saved with
            # the pipeline: the memory zone drops them again after the fit.
            with memory_zone(nlp):
                self._fit(self._corpus_texts(nlp, corpus))
        else:
            self._fit(self._corpus_texts(nlp, corpus))

    def _corpus_texts(self, nlp: Optional[Language], corpus: RecordsReader) -> Iterator[Tuple[str, Any]]:
        """(rendered text, label) of every corpus record."""
        if nlp is None or not upstream_pipes(nlp, self.name):
            # Nothing edits upstream: the rendered text is the record's text (skip tokenising).
            for rec in corpus():
                yield rec["text"], rec.get("label")
        else:
            for doc in pipe_upstream(nlp, self.name, corpus()):
                yield doc._.deid_text, (doc._.deid_record or {}).get("label")

    def _fit(self, items: Iterable[Tuple[str, Any]]) -> None:
        from scipy import sparse
        from sklearn.cluster import MiniBatchKMeans, kmeans_plusplus

        rng = np.random.default_rng(self.seed)
        hasher = self._hasher()
        df = np.zeros(self.n_features, dtype=np.int64)
        labels: set = set()
        n_docs = 0
        reservoir: List[Any] = []
        with tempfile.TemporaryDirectory(prefix="deid_swap_") as tmp:
            # Pass 1: hash, sum document frequencies, spill chunks, reservoir-sample rows.
            chunk_paths: List[Path] = []
            for chunk in util.minibatch(items, size=self.fit_batch_size):
                texts = [text for text, _ in chunk]
                labels.update(label for _, label in chunk if label is not None)
                counts = hasher.transform(texts).tocsr()
                counts.sum_duplicates()
                df += np.bincount(counts.indices, minlength=self.n_features)
                path = Path(tmp) / f"chunk{len(chunk_paths):06d}.npz"
                sparse.save_npz(path, counts, compressed=False)
                chunk_paths.append(path)
                for r in range(counts.shape[0]):  # Algorithm R: a uniform sample of rows
                    t = n_docs + r
                    if t < self.init_sample:
                        reservoir.append(counts[r])
                    else:
                        j = int(rng.integers(0, t + 1))
                        if j < self.init_sample:
                            reservoir[j] = counts[r]
                n_docs += counts.shape[0]
            if n_docs == 0:
                raise ValueError(f"[{self.name}] the corpus is empty: initialize needs at least one document")
            if self.n_clusters is not None and self.n_clusters > n_docs:
                raise ValueError(
                    f"[{self.name}] n_clusters = {self.n_clusters} is larger than the number of "
                    f"documents in the corpus ({n_docs}); lower n_clusters or use a larger corpus"
                )
            kept = np.flatnonzero(df >= self.min_df).astype(np.int32)
            if kept.size == 0:
                raise ValueError(
                    f"[{self.name}] no word occurs in min_df = {self.min_df} documents of the corpus "
                    f"({n_docs} documents); lower min_df"
                )
            # TfidfTransformer's smooth idf: ln((1 + n) / (1 + df)) + 1
            idf = (np.log((1.0 + n_docs) / (1.0 + df[kept])) + 1.0).astype(np.float32)
            tfidf = self._make_tfidf(idf)
            sample = tfidf.transform(sparse.vstack(reservoir).tocsr()[:, kept])
            k, k_rule = self._choose_k(sample, n_docs, len(labels))
            # k-means++ on the uniform sample, so a corpus sorted by topic does not
            # bias the initial centroids towards its first chunk.
            init, _ = kmeans_plusplus(sample, n_clusters=k, random_state=self.seed) if sample.shape[0] >= k else (None, None)
            km = MiniBatchKMeans(
                n_clusters=k,
                init=init if init is not None else "k-means++",
                n_init=1,
                batch_size=self.fit_batch_size,
                compute_labels=False,
                random_state=self.seed,
            )
            # Pass 2: MiniBatchKMeans.partial_fit over the spilled chunks, in a seeded
            # random chunk order per epoch. Rows of a first step < k are pooled.
            for _ in range(self.n_epochs):
                pending = []
                n_pending = 0
                for idx in rng.permutation(len(chunk_paths)):
                    rows = tfidf.transform(sparse.load_npz(chunk_paths[idx]).tocsr()[:, kept])
                    pending.append(rows)
                    n_pending += rows.shape[0]
                    if hasattr(km, "cluster_centers_") or n_pending >= k:
                        km.partial_fit(sparse.vstack(pending).tocsr())
                        pending, n_pending = [], 0
                if pending:
                    km.partial_fit(sparse.vstack(pending).tocsr())
        # Only now is the state replaced: a failed fit leaves the component as it was.
        self.kept, self.idf, self.centers = kept, idf, km.cluster_centers_.astype(np.float32)
        self._tfidf_obj = self._centers64 = None
        self.cfg = {
            "fitted": True,
            "version": STATE_VERSION,
            "method": self.method,
            "n_features": self.n_features,
            "token_pattern": TOKEN_PATTERN,
            "min_df": self.min_df,
            "n_docs": int(n_docs),
            "n_clusters": int(k),
            "k_rule": k_rule,
            "n_kept": int(kept.size),
        }

    def _choose_k(self, sample, n_docs: int, n_labels: int) -> Tuple[int, str]:
        """K from the config; else the number of distinct labels (>= 2) in the corpus;
        else the best silhouette (cosine) of MiniBatchKMeans over ``k_candidates`` on
        the init sample; 1 when no candidate fits the sample."""
        if self.n_clusters is not None:
            return int(self.n_clusters), "config"
        if n_labels >= 2:
            return min(n_labels, n_docs), "labels"
        from sklearn.cluster import MiniBatchKMeans
        from sklearn.metrics import silhouette_score

        best_k, best_score = 1, -np.inf
        n = sample.shape[0]
        for k in sorted(set(self.k_candidates)):
            if not 2 <= k <= n - 1:
                continue
            labels = MiniBatchKMeans(n_clusters=k, n_init=3, random_state=self.seed).fit_predict(sample)
            if len(set(labels.tolist())) < 2:
                continue
            score = silhouette_score(sample, labels, metric="cosine", random_state=self.seed)
            if score > best_score:
                best_k, best_score = k, score
        return best_k, "silhouette"

    # ----------------------------------------------------------------- runtime
    def __call__(self, doc: Doc) -> Doc:
        """A single document has no partner: it is returned unchanged. Swapping
        needs a pool, which ``nlp.pipe`` (or ``swap_docs``) provides."""
        return doc

    def _entries(self, docs: Sequence[Doc], seq0: int) -> List[_Entry]:
        """Render, vectorise and assign a batch of documents."""
        renderings = [render(doc) for doc in docs]
        rows = self.transform([r.text for r in renderings])
        clusters = self.assign(rows)
        out = []
        for i, doc in enumerate(docs):
            record = doc._.deid_record or {}
            if record.get("id") is not None:
                ref = record["id"]
                key = stable_key(f"id:{ref}")
            elif record.get("_index") is not None:
                ref = record["_index"]
                key = stable_key(f"index:{ref}")
            else:
                ref = seq0 + i
                key = stable_key(f"seq:{ref}")
            out.append(_Entry(seq0 + i, doc, int(clusters[i]), rows[i], renderings[i], key, ref))
        return out

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        """Swap within per-cluster pools of the stream; yield in input order.

        stream (Iterable[Doc]): the documents.
        batch_size (int): documents vectorised together.
        YIELDS (Doc): the documents, in input order, with SWAP edits.
        """
        if self.method == "none":
            yield from stream
            return
        self._require_fitted()
        error_handler = self.get_error_handler()
        queue: Deque[_Entry] = deque()
        pools: Dict[int, List[_Entry]] = {}
        seq = 0
        for docs in util.minibatch(stream, size=batch_size):
            try:
                entries = self._entries(docs, seq)
            except Exception:  # isolate the failing doc, never drop the others
                entries = []
                for i, doc in enumerate(docs):
                    try:
                        entries.extend(self._entries([doc], seq + i))
                    except Exception as e:
                        error_handler(self.name, self, [doc], e)
            seq += len(docs)
            for entry in entries:
                queue.append(entry)
                pool = pools.setdefault(entry.cluster, [])
                pool.append(entry)
                if len(pool) >= self.pool_size:
                    self._process_pool(pools.pop(entry.cluster), error_handler)
                yield from self._ready(queue)
                while len(queue) > self.max_buffer:
                    # the oldest document (queue[0], never done after _ready) is still
                    # waiting: process its cluster's pool now, whatever its size
                    self._process_pool(pools.pop(queue[0].cluster), error_handler)
                    yield from self._ready(queue)
        while queue:
            if not queue[0].done:
                self._process_pool(pools.pop(queue[0].cluster), error_handler)
            yield from self._ready(queue)

    @staticmethod
    def _ready(queue: Deque[_Entry]) -> Iterator[Doc]:
        while queue and queue[0].done:
            entry = queue.popleft()
            if not entry.failed:
                yield entry.doc

    def swap_docs(self, docs: Sequence[Doc]) -> List[Doc]:
        """Process a list of documents as one pool per cluster (no pool size, no
        reorder window): each document's partner is drawn from the list.

        docs (Sequence[Doc]): the documents.
        RETURNS (List[Doc]): the same documents, with SWAP edits.
        """
        if self.method == "none":
            return list(docs)
        self._require_fitted()
        entries = self._entries(list(docs), 0)
        pools: Dict[int, List[_Entry]] = {}
        for entry in entries:
            pools.setdefault(entry.cluster, []).append(entry)
        for pool in pools.values():
            self._process_pool(pool, self.get_error_handler())
        return [e.doc for e in entries if not e.failed]

    def _policy(self) -> KeyphrasePolicy:
        policy = self.textrank if self.method == "textrank" else self.rake
        if policy is None:
            from spacy_deid.policies.keyphrases import rake_v1, textrank_v1

            policy = textrank_v1() if self.method == "textrank" else rake_v1()
        return policy

    def _process_pool(self, pool: List[_Entry], error_handler: Callable) -> None:
        """Choose partners within one cluster's pool and record the swaps."""
        from scipy import sparse

        policy = self._policy()
        prepared: List[Optional[Tuple[Rendering, Doc, List[Keyphrase]]]] = []
        for entry in pool:
            try:
                rendering = entry.rendering
                if rendering.segments:
                    if self.tokenizer is None:
                        raise ValueError(f"[{self.name}] needs a tokenizer to re-tokenise edited text")
                    rdoc = self.tokenizer(rendering.text)
                else:
                    rdoc = entry.doc
                prepared.append((rendering, rdoc, policy(rdoc)))
            except Exception as e:
                entry.failed = True
                prepared.append(None)
                error_handler(self.name, self, [entry.doc], e)
        alive = [i for i, p in enumerate(prepared) if p is not None]
        if len(alive) >= 2:
            matrix = sparse.vstack([pool[i].vector for i in alive]).tocsr()
            similarity = np.asarray((matrix @ matrix.T).todense())
        for pos, i in enumerate(alive):
            entry = pool[i]
            try:
                if len(alive) >= 2:
                    partner_pos = self.choose_partner(pos, similarity[pos], np.random.default_rng([self.seed, entry.key]))
                    j = alive[partner_pos]
                    self._swap(entry, prepared[i], pool[j], prepared[j])
            except Exception as e:
                entry.failed = True
                error_handler(self.name, self, [entry.doc], e)
        for entry in pool:
            entry.done = True
            entry.rendering = entry.vector = None  # only the Doc waits for its turn to be yielded

    def choose_partner(self, index: int, similarity: np.ndarray, rng: np.random.Generator) -> int:
        """DataSifterText's partner choice for document ``index`` of a pool.

        Samples min(sample_size, n - 1) other documents, computes their cosine
        distance (1 - cosine similarity of L2-normalised D(W) rows; a document with
        no kept feature is at distance 1 from all), keeps the closest
        ``closest_fraction`` (at least one; ties broken by pool position) and draws
        one of them uniformly.

        index (int): position of the document in the pool.
        similarity (numpy.ndarray): cosine similarity of the document to every pool member.
        rng (numpy.random.Generator): the document's generator.
        RETURNS (int): position of the partner in the pool (never ``index``).
        """
        n = similarity.shape[0]
        others = np.delete(np.arange(n), index)
        if others.size == 0:
            raise ValueError("a pool of one document has no partner")
        if others.size > self.sample_size:
            others = np.sort(rng.choice(others, size=self.sample_size, replace=False))
        distance = 1.0 - similarity[others]
        n_close = max(1, int(math.ceil(self.closest_fraction * others.size)))
        closest = others[np.lexsort((others, distance))[:n_close]]
        return int(closest[rng.integers(0, n_close)])

    def _swap(self, entry: _Entry, mine, partner_entry: _Entry, theirs) -> None:
        """Record the SWAP edits of ``entry`` with its partner (method-specific)."""
        rendering, rdoc, phrases = mine
        _, partner_rdoc, partner_phrases = theirs
        doc = entry.doc
        audit_base = {"partner": partner_entry.ref, "method": self.method}
        if not phrases or not partner_phrases:
            return  # documented: a document (or partner) with no keyphrase is not swapped
        starts = token_starts(doc)
        if self.method == "rake_index":
            start_char = phrases[0].first.start_char
            start, _ = rendered_to_original(doc, rendering, start_char, start_char + 1, starts)
            replacement = partner_rdoc.text[partner_phrases[0].first.start_char :]
            add_edit(doc, start, len(doc), SWAP, replacement, audit=dict(audit_base, rank=1))
            return
        taken = np.zeros(len(doc), dtype=bool)
        for rank in range(min(self.q, len(phrases), len(partner_phrases))):
            replacement = partner_phrases[rank].text
            for span in phrases[rank].spans:
                if span.text == replacement:
                    continue  # the same phrase: nothing would change
                start, end = rendered_to_original(doc, rendering, span.start_char, span.end_char, starts)
                if taken[start:end].any():
                    continue  # two rendered phrases inside one upstream segment: first one wins
                taken[start:end] = True
                add_edit(doc, start, end, SWAP, replacement, audit=dict(audit_base, rank=rank + 1))

    # ----------------------------------------------------------------- serialisation
    def _state(self) -> Dict[str, Any]:
        if not self.is_fitted:
            return {}
        return {"kept": self.kept, "idf": self.idf, "centers": self.centers}

    def _set_state(self, cfg: Dict[str, Any], arrays: Dict[str, Any]) -> None:
        self.cfg = dict(cfg)
        self._tfidf_obj = self._centers64 = None
        if self.is_fitted:
            if cfg.get("n_features") != self.n_features or cfg.get("token_pattern") != TOKEN_PATTERN:
                raise ValueError(
                    f"[{self.name}] saved state was fitted with n_features={cfg.get('n_features')}; "
                    f"the config says {self.n_features}"
                )
            self.kept = np.asarray(arrays["kept"], dtype=np.int32)
            self.idf = np.asarray(arrays["idf"], dtype=np.float32)
            self.centers = np.asarray(arrays["centers"], dtype=np.float32)
        else:
            self.kept = self.idf = self.centers = None

    def to_bytes(self, *, exclude: Iterable[str] = tuple()) -> bytes:
        """Serialise the fitted state: hashed feature indices, idf weights and
        centroids (msgpack; no vocabulary, no text, no pickle)."""
        return srsly.msgpack_dumps({"cfg": self.cfg, "arrays": self._state()})

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = tuple()) -> "DocSwapper":
        """Load the state written by ``to_bytes``."""
        data = srsly.msgpack_loads(bytes_data)
        self._set_state(data["cfg"], data["arrays"])
        return self

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> None:
        """Save ``cfg`` (JSON) and ``state`` (msgpack arrays) to a directory."""
        path = util.ensure_path(path)
        serializers = {
            "cfg": lambda p: srsly.write_json(p, self.cfg),
            "state": lambda p: p.write_bytes(srsly.msgpack_dumps(self._state())),
        }
        util.to_disk(path, serializers, exclude)

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> "DocSwapper":
        """Load a directory written by ``to_disk``."""
        path = util.ensure_path(path)
        data: Dict[str, Any] = {}
        deserializers = {
            "cfg": lambda p: data.__setitem__("cfg", srsly.read_json(p)),
            "state": lambda p: data.__setitem__("arrays", srsly.msgpack_loads(p.read_bytes())),
        }
        util.from_disk(path, deserializers, exclude)
        self._set_state(data.get("cfg", {"fitted": False}), data.get("arrays", {}))
        return self
