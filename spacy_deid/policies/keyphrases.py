"""Keyphrase policies for the doc_swapper: RAKE and TextRank on spaCy tokens.

Both are registered (``spacy_deid.rake.v1``, ``spacy_deid.textrank.v1``) and return
a callable ``Doc -> List[Keyphrase]``: the document's distinct phrases, best first,
each with every occurrence as a token ``Span`` of the doc it ran on
(``Keyphrase.spans``). The doc_swapper
runs them on the *rendered* (already sanitised) text and maps the spans back to the
original tokens itself, so these functions know nothing about edits.

Why hand-written and not a library:
- RAKE: the maintained packages (rake-nltk, multi-rake) tokenise with NLTK or their
  own regexes and their own stop lists; we need phrases as spaCy token spans and the
  pipeline's stop words, which is a few lines on top of the Doc.
- TextRank: ``pytextrank`` 3.3.0 installs cleanly with our pins (checked with
  ``pip install --dry-run -c constraints.txt``), but it cannot run on our pipelines:
  it keeps only tokens whose ``pos_`` is in ``pos_kept`` (our default pipeline has no
  tagger, so its graph is empty), it builds phrases from ``doc.noun_chunks`` (which
  raises E029 without a dependency parser) and it pulls GitPython, icecream, graphviz
  and pandas into the runtime. TextRank itself is a co-occurrence graph plus PageRank,
  which we compute with a scipy sparse matrix and numpy power iteration.
"""
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from spacy.tokens import Doc, Span
from spacy.util import registry

KeyphrasePolicy = Callable[[Doc], List["Keyphrase"]]


@dataclass
class Keyphrase:
    """One distinct phrase of a document.

    doc (Doc): the document the phrase was found in.
    key (Tuple[str, ...]): the phrase's lower-cased words (occurrences are grouped by it).
    score (float): the policy's score; higher is better.
    bounds (List[Tuple[int, int]]): token ``[start, end)`` of every occurrence, in
        document order (``spans`` makes the Span objects on demand: a long note
        has hundreds of candidates and only the top few are used).
    """

    doc: Doc
    key: Tuple[str, ...]
    score: float
    bounds: List[Tuple[int, int]] = field(default_factory=list)

    @property
    def spans(self) -> List[Span]:
        """Every occurrence as a token Span, in document order."""
        return [self.doc[s:e] for s, e in self.bounds]

    @property
    def first(self) -> Span:
        """The first occurrence."""
        start, end = self.bounds[0]
        return self.doc[start:end]

    @property
    def text(self) -> str:
        """The text of the first occurrence."""
        return self.first.text


class _Tokens:
    """Per-token attributes read once with ``Doc.to_array`` (no Token objects: making
    one per token per pass dominated the cost on long notes). ``n_letters`` counts
    letters: a token without any (a number, a symbol) is never part of a phrase,
    as a number is rarely a keyphrase and is what upstream masking removes."""

    def __init__(self, doc: Doc, pos: bool = False, lemma: bool = False) -> None:
        from spacy.attrs import IS_ALPHA, IS_PUNCT, IS_SPACE, IS_STOP, LEMMA, LOWER, POS

        attrs = [LOWER, IS_STOP, IS_PUNCT, IS_SPACE, IS_ALPHA] + ([POS] if pos else []) + ([LEMMA] if lemma else [])
        array = doc.to_array(attrs) if len(doc) else None
        strings = doc.vocab.strings
        self.n = len(doc)
        cols = array.T.tolist() if array is not None else [[] for _ in attrs]
        self.lower: List[str] = [strings[h] for h in cols[0]]
        self.is_stop: List[bool] = [bool(v) for v in cols[1]]
        self.is_punct: List[bool] = [bool(v) for v in cols[2]]
        self.is_space: List[bool] = [bool(v) for v in cols[3]]
        self.is_alpha: List[bool] = [bool(v) for v in cols[4]]
        self.pos: List[int] = cols[5] if pos else []
        self.lemma: List[str] = [strings[h].lower() for h in cols[-1]] if lemma else []
        letters: Dict[str, int] = {}
        self.n_letters: List[int] = [
            letters[w] if w in letters else letters.setdefault(w, sum(map(str.isalpha, w))) for w in self.lower
        ]


def _candidate_runs(flags: Sequence[bool], max_words: int) -> List[Tuple[int, int]]:
    """Maximal runs ``[start, end)`` of consecutive candidate tokens (``flags``).

    Line breaks are whitespace tokens in spaCy, so a run never crosses a line
    (headings, list items). Runs longer than ``max_words`` are dropped, as in common
    RAKE implementations: they are usually lists, not phrases.
    """
    runs: List[Tuple[int, int]] = []
    start: Optional[int] = None
    for i, flag in enumerate(flags):
        if flag:
            if start is None:
                start = i
        elif start is not None:
            runs.append((start, i))
            start = None
    if start is not None:
        runs.append((start, len(flags)))
    return [(s, e) for s, e in runs if e - s <= max_words]


def _group(doc: Doc, runs: Iterable[Tuple[int, int]], lower: Sequence[str], word_score: Sequence[float]) -> List[Keyphrase]:
    """Group runs by their lower-cased words, score each distinct phrase as the sum
    of its words' scores and rank: score descending, then first occurrence (so ties
    are deterministic)."""
    phrases: Dict[Tuple[str, ...], Keyphrase] = {}
    for s, e in runs:
        key = tuple(lower[s:e])
        if key not in phrases:
            phrases[key] = Keyphrase(doc=doc, key=key, score=float(sum(word_score[s:e])))
        phrases[key].bounds.append((s, e))
    return sorted(phrases.values(), key=lambda p: (-p.score, p.bounds[0][0]))


def rake_keyphrases(doc: Doc, max_words: int = 4, min_chars: int = 3) -> List[Keyphrase]:
    """RAKE (Rose et al. 2010) on a Doc's tokens.

    Candidates are the maximal runs of words between stop words (``token.is_stop``,
    i.e. the pipeline language's stop list), punctuation, whitespace, numbers and
    line breaks. Each word scores deg(w) / freq(w), where freq(w) counts the word's
    occurrences in candidates and deg(w) sums the lengths of the candidates it occurs
    in; a phrase scores the sum of its words' scores.

    doc (Doc): the document.
    max_words (int): candidates with more words are dropped.
    min_chars (int): candidates with fewer letters in all are dropped.
    RETURNS (List[Keyphrase]): distinct phrases, best first.
    """
    t = _Tokens(doc)
    flags = [
        not (t.is_stop[i] or t.is_punct[i] or t.is_space[i]) and t.n_letters[i] > 0 for i in range(t.n)
    ]
    runs = [(s, e) for s, e in _candidate_runs(flags, max_words) if sum(t.n_letters[s:e]) >= min_chars]
    freq: Dict[str, int] = {}
    deg: Dict[str, int] = {}
    for s, e in runs:
        n = e - s
        for w in t.lower[s:e]:
            freq[w] = freq.get(w, 0) + 1
            deg[w] = deg.get(w, 0) + n
    scores = {w: deg[w] / freq[w] for w in freq}
    word_score = [scores.get(w, 0.0) for w in t.lower]
    return _group(doc, runs, t.lower, word_score)


def pagerank(
    n_nodes: int,
    edges: Sequence[Tuple[int, int, float]],
    damping: float = 0.85,
    max_iter: int = 100,
    tol: float = 1.0e-6,
):
    """PageRank of an undirected weighted graph by power iteration.

    Same definition as ``networkx.pagerank`` (weighted, uniform teleport, dangling
    nodes spread uniformly; ``tol`` is per node, as there), so the two agree.

    n_nodes (int): number of nodes.
    edges (Sequence[Tuple[int, int, float]]): undirected (u, v, weight) edges;
        repeated edges add up.
    damping (float): the damping factor.
    max_iter (int): iteration cap.
    tol (float): stop when the L1 change is below ``n_nodes * tol``.
    RETURNS (numpy.ndarray): one score per node, summing to 1.
    """
    import numpy as np
    from scipy import sparse

    if n_nodes == 0:
        return np.zeros(0)
    if edges:
        rows = np.array([u for u, v, _ in edges] + [v for u, v, _ in edges], dtype=np.int64)
        cols = np.array([v for u, v, _ in edges] + [u for u, v, _ in edges], dtype=np.int64)
        data = np.array([w for _, _, w in edges] * 2, dtype=np.float64)
    else:
        rows = cols = np.zeros(0, dtype=np.int64)
        data = np.zeros(0)
    adj = sparse.csr_matrix((data, (rows, cols)), shape=(n_nodes, n_nodes))
    out_weight = np.asarray(adj.sum(axis=1)).ravel()
    dangling = out_weight == 0
    inv = np.zeros(n_nodes)
    inv[~dangling] = 1.0 / out_weight[~dangling]
    # transition[u, v] = w(u, v) / out(u); scores flow along rows, so use the transpose
    transition_t = (sparse.diags(inv) @ adj).T.tocsr()
    x = np.full(n_nodes, 1.0 / n_nodes)
    for _ in range(max_iter):
        x_new = damping * (transition_t @ x + x[dangling].sum() / n_nodes) + (1.0 - damping) / n_nodes
        if np.abs(x_new - x).sum() < n_nodes * tol:
            return x_new
        x = x_new
    return x


DEFAULT_POS_KEPT = ("NOUN", "PROPN", "ADJ")


def textrank_keyphrases(
    doc: Doc,
    window: int = 3,
    pos_kept: Sequence[str] = DEFAULT_POS_KEPT,
    damping: float = 0.85,
    max_iter: int = 100,
    tol: float = 1.0e-6,
    max_words: int = 4,
) -> List[Keyphrase]:
    """TextRank (Mihalcea and Tarau 2004) on a Doc's tokens.

    Graph nodes are the distinct lower-cased candidate words (lemmas when the doc has
    them); two nodes are linked, with weight = number of co-occurrences, when their
    tokens occur within ``window`` tokens of each other. Candidate words are the
    non-stop tokens whose POS is in ``pos_kept`` when the doc has POS tags; **in a
    pipeline without a tagger** (our default, a blank pipeline) they are the non-stop
    alphabetic tokens instead. Nodes are ranked by PageRank; phrases are maximal runs
    of adjacent candidate tokens (as in the paper's post-processing), scored by the
    sum of their words' ranks.

    doc (Doc): the document.
    window (int): co-occurrence window in tokens (2 links only neighbours).
    pos_kept (Sequence[str]): coarse POS tags of candidate words when tagged.
    damping (float): PageRank damping factor.
    max_iter (int): PageRank iteration cap.
    tol (float): PageRank tolerance.
    max_words (int): phrases with more words are dropped.
    RETURNS (List[Keyphrase]): distinct phrases, best first.
    """
    from spacy.parts_of_speech import IDS as POS_IDS

    has_pos = doc.has_annotation("POS")
    has_lemma = doc.has_annotation("LEMMA")
    t = _Tokens(doc, pos=has_pos, lemma=has_lemma)
    kept_pos = {POS_IDS[p] for p in pos_kept if p in POS_IDS}
    flags = []
    for i in range(t.n):
        if t.is_stop[i] or t.is_punct[i] or t.is_space[i]:
            flags.append(False)
        elif has_pos:
            flags.append(t.pos[i] in kept_pos and t.n_letters[i] > 0)
        else:
            flags.append(t.is_alpha[i])
    keys = [t.lemma[i] if has_lemma and t.lemma[i] else t.lower[i] for i in range(t.n)]
    candidates = [i for i in range(t.n) if flags[i]]
    if not candidates:
        return []
    index: Dict[str, int] = {}
    for i in candidates:
        index.setdefault(keys[i], len(index))
    edge_weight: Dict[Tuple[int, int], float] = {}
    for a, i in enumerate(candidates):
        u = index[keys[i]]
        for j in candidates[a + 1 :]:
            if j - i >= window:
                break
            v = index[keys[j]]
            if u != v:
                pair = (u, v) if u < v else (v, u)
                edge_weight[pair] = edge_weight.get(pair, 0.0) + 1.0
    ranks = pagerank(
        len(index), [(u, v, w) for (u, v), w in edge_weight.items()], damping=damping, max_iter=max_iter, tol=tol
    )
    word_score = [float(ranks[index[keys[i]]]) if flags[i] else 0.0 for i in range(t.n)]
    # Phrases are grouped by their surface words (what is swapped), scored by node keys.
    return _group(doc, _candidate_runs(flags, max_words), t.lower, word_score)


@registry.misc("spacy_deid.rake.v1")
def rake_v1(max_words: int = 4, min_chars: int = 3) -> KeyphrasePolicy:
    """The RAKE keyphrase policy (see ``rake_keyphrases``).

    max_words (int): candidates with more words are dropped.
    min_chars (int): candidates with fewer letters are dropped.
    RETURNS (Callable[[Doc], List[Keyphrase]]): the policy.
    """
    if max_words < 1:
        raise ValueError(f"spacy_deid.rake.v1: max_words must be >= 1, got {max_words}")

    def policy(doc: Doc) -> List[Keyphrase]:
        return rake_keyphrases(doc, max_words=max_words, min_chars=min_chars)

    return policy


@registry.misc("spacy_deid.textrank.v1")
def textrank_v1(
    window: int = 3,
    pos_kept: List[str] = list(DEFAULT_POS_KEPT),
    damping: float = 0.85,
    max_iter: int = 100,
    tol: float = 1.0e-6,
    max_words: int = 4,
) -> KeyphrasePolicy:
    """The TextRank keyphrase policy (see ``textrank_keyphrases``).

    window (int): co-occurrence window in tokens.
    pos_kept (List[str]): POS tags of candidate words when the doc is tagged.
    damping (float): PageRank damping factor.
    max_iter (int): PageRank iteration cap.
    tol (float): PageRank tolerance.
    max_words (int): phrases with more words are dropped.
    RETURNS (Callable[[Doc], List[Keyphrase]]): the policy.
    """
    if window < 2:
        raise ValueError(f"spacy_deid.textrank.v1: window must be >= 2, got {window}")
    if not 0.0 < damping < 1.0:
        raise ValueError(f"spacy_deid.textrank.v1: damping must be in (0, 1), got {damping}")
    kept = tuple(pos_kept)

    def policy(doc: Doc) -> List[Keyphrase]:
        return textrank_keyphrases(
            doc, window=window, pos_kept=kept, damping=damping, max_iter=max_iter, tol=tol, max_words=max_words
        )

    return policy
