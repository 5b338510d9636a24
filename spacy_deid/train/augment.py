"""Label-aligned augmentation of gold PHI data (Filtered BERT; neighbour pseudonyms;
case variants).

Two augmentations, each usable as a registered spaCy augmenter
(``[corpora.train.augmenter]``) and from the command line (``augment_file``):

- ``spacy_deid.filtered_mlm.v1`` (Filtered BERT): replace ``n`` (paper: 5) words
  outside the gold entities by MLM predictions that pass the similarity filter;
- ``spacy_deid.neighbor_pseudonyms.v1`` (neighbour pseudonyms): replace the tokens inside the
  gold entities by a random one of their N nearest neighbours in a vocabulary of
  frequent corpus words.

Both replace single tokens with single tokens through the edit model
(``add_edit`` + ``render_doc``), so every gold entity keeps its label and token
count and its character offsets are re-computed exactly. A replacement that the
tokenizer would split or merge with its neighbours in context is dropped (checked
on the rendered text), never allowed to shift the gold labels. An augmenter yields
the original example and one augmented example: the augmented set is the size of
the training set, as in the paper (``level`` < 1 augments a random share).

Case variants (``spacy_deid.case_variants.v1``, ``augment --case-variants``) add an
ALL-CAPS and an all-lower-case copy of each example with the same character offsets,
so a NER learns names and places from context rather than from capital letters (real
notes are often typed in one case).
"""
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import numpy
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import filter_spans, minibatch, registry

from spacy_deid.edits import MLM, SURROGATE, add_edit, render, render_doc
from spacy_deid.io.records import PASS_THROUGH, AtomicJSONLWriter, FatalError, iter_records
from spacy_deid.io.readers import examples_reader_v1, spans_to_entities
from spacy_deid.components.similarity_filter import CosineFilter, NeighborPseudonymizer, apply_case, candidate_vocabulary, has_letter
from spacy_deid.util import Record

METHODS = ("filtered_mlm", "neighbor_pseudonyms")
CASES = ("upper", "lower")


# ---------------------------------------------------------------------------
# aligned replacement
# ---------------------------------------------------------------------------


def replace_tokens(
    doc: Doc,
    replacements: Dict[int, str],
    make_doc: Callable[[str], Doc],
    label: str,
    audit: Optional[dict] = None,
) -> Tuple[Doc, Dict[int, str]]:
    """Render a copy of ``doc`` with some tokens replaced, keeping gold entities aligned.

    Each replacement is one edit over one token. The rendered text is re-tokenised
    with ``make_doc``; when a replacement does not come out as exactly one token
    with the original's whitespace (e.g. it would be split, or glued to a
    neighbour by a tokenizer exception), the replacements of that
    whitespace-delimited chunk are dropped and the text rendered again.

    doc (Doc): the gold document (its ``ents`` are the gold entities); not modified.
    replacements (Dict[int, str]): token index -> new token text.
    make_doc (Callable[[str], Doc]): the tokenizer, usually ``nlp.make_doc``.
    label (str): the edits' reason (``MLM`` or ``SURROGATE``).
    audit (Optional[dict]): audit data for the edits.
    RETURNS (Tuple[Doc, Dict[int, str]]): the new Doc (same tokens count, same
        entity token spans and labels) and the replacements actually applied.
    """
    bad_index = [i for i in replacements if not 0 <= i < len(doc)]
    if bad_index:
        raise IndexError(f"replacement token index {bad_index[0]} out of range for {len(doc)} tokens")
    todo = {i: w for i, w in replacements.items() if w and w != doc[i].text and not any(c.isspace() for c in w)}
    while True:
        work = doc.copy()
        if "deid" in work.spans:
            del work.spans["deid"]
        for i in sorted(todo):
            add_edit(work, i, i + 1, label, todo[i], audit=dict(audit) if audit else None)
        new_doc = render_doc(work, make_doc=make_doc)
        bad = _first_misaligned(doc, new_doc, todo)
        if bad is None:
            break
        lo, hi = _chunk(doc, bad)
        dropped = [i for i in todo if lo <= i < hi]
        if not dropped:  # cannot happen: an untouched chunk tokenises as before
            raise RuntimeError("augmentation changed the tokenisation of an untouched chunk")
        for i in dropped:
            del todo[i]
    old = [(e.start, e.end, e.label_) for e in doc.ents]
    new = [(e.start, e.end, e.label_) for e in new_doc.ents]
    if old != new:  # pragma: no cover - guaranteed by the alignment check above
        raise RuntimeError("augmentation moved a gold entity")
    return new_doc, todo


def _first_misaligned(doc: Doc, new_doc: Doc, todo: Dict[int, str]) -> Optional[int]:
    """The first original token whose re-tokenised counterpart differs, or None."""
    for i, tok in enumerate(doc):
        if i >= len(new_doc):
            return max(0, len(doc) - 1)
        want = todo.get(i, tok.text)
        got = new_doc[i]
        if got.text != want or got.whitespace_ != tok.whitespace_:
            return i
    if len(new_doc) != len(doc):
        return len(doc) - 1
    return None


def _chunk(doc: Doc, i: int) -> Tuple[int, int]:
    """Token range of the whitespace-delimited chunk around token ``i`` (and the
    previous token's chunk: a mismatch can show one token late)."""
    lo = max(0, i - 1)
    while lo > 0 and not doc[lo - 1].whitespace_:
        lo -= 1
    hi = i + 1
    while hi < len(doc) and not doc[hi - 1].whitespace_:
        hi += 1
    return lo, hi


def entity_tokens(doc: Doc, labels: Optional[Iterable[str]] = None) -> List[int]:
    """Indices of the tokens inside the entities of ``doc`` (optionally some labels)."""
    keep = set(labels) if labels else None
    return [
        i
        for ent in doc.ents
        if keep is None or ent.label_ in keep
        for i in range(ent.start, ent.end)
        if not doc[i].is_space
    ]


def mlm_targets(doc: Doc, n: int, rng: numpy.random.Generator, skip_stop: bool = True) -> List[int]:
    """Up to ``2n`` random positions eligible for MLM replacement (so that ``n``
    can succeed when the filter rejects some): alphabetic tokens of two or more
    characters outside every entity (optionally not stop words), in random order."""
    eligible = [
        t.i
        for t in doc
        if t.ent_iob_ not in ("B", "I") and t.is_alpha and len(t.text) > 1 and not (skip_stop and t.is_stop)
    ]
    if not eligible or n <= 0:
        return []
    k = min(len(eligible), 2 * n)
    return [eligible[j] for j in rng.choice(len(eligible), size=k, replace=False)]


# ---------------------------------------------------------------------------
# the two augmentations, batched over documents
# ---------------------------------------------------------------------------


def pseudonymize_docs(
    docs: Sequence[Doc],
    pseudonymizer: NeighborPseudonymizer,
    rng: numpy.random.Generator,
    make_doc: Callable[[str], Doc],
    labels: Optional[Iterable[str]] = None,
) -> List[Tuple[Doc, int]]:
    """Neighbour pseudonyms for the gold entity tokens of several documents.

    RETURNS (List[Tuple[Doc, int]]): per document, the augmented Doc and the
        number of tokens replaced.
    """
    positions = [entity_tokens(doc, labels) for doc in docs]
    words = [[doc[i].text for i in pos] for doc, pos in zip(docs, positions)]
    surr = pseudonymizer.surrogates(words, [rng] * len(docs))
    out = []
    audit = {"method": "neighbor_pseudonyms", "n_neighbors": pseudonymizer.n_neighbors}
    for doc, pos, subs in zip(docs, positions, surr):
        repl = {i: s for i, s in zip(pos, subs) if s is not None}
        new_doc, applied = replace_tokens(doc, repl, make_doc, SURROGATE, audit)
        out.append((new_doc, len(applied)))
    return out


def filtered_mlm_docs(
    docs: Sequence[Doc],
    sampler: Any,
    policy: CosineFilter,
    vectors: Any,
    rng: numpy.random.Generator,
    make_doc: Callable[[str], Doc],
    n: int = 5,
    n_candidates: int = 10,
    temperature: float = 1.0,
    top_k: int = 50,
    skip_stop: bool = True,
) -> List[Tuple[Doc, int]]:
    """Filtered BERT: replace ``n`` non-entity words of each document by MLM
    candidates that pass the similarity filter.

    docs (Sequence[Doc]): gold documents (``ents`` are the gold entities).
    sampler (MLMSampler): ``candidates(docs, targets, n_candidates, rng, temperature, top_k)``.
    policy (CosineFilter): the filter; a position whose candidates all fail is
        skipped (the next random position is tried), whatever the fallback.
    vectors (spacy.vectors.Vectors): the filter's embedding.
    rng (numpy.random.Generator): positions and sampling.
    make_doc (Callable[[str], Doc]): the tokenizer.
    n (int): words replaced per document (paper: 5).
    n_candidates (int): MLM candidates drawn per position.
    RETURNS (List[Tuple[Doc, int]]): per document, the augmented Doc and the
        number of words replaced.
    """
    targets = [sorted(mlm_targets(doc, n, rng, skip_stop)) for doc in docs]
    order = [list(rng.permutation(len(t))) for t in targets]
    if any(targets):
        cands = sampler.candidates(
            list(docs), targets, n_candidates=n_candidates, rng=rng, temperature=temperature, top_k=top_k
        )
    else:
        cands = [[] for _ in docs]
    items: List[Tuple[str, List[str]]] = []
    where: List[Tuple[int, int]] = []
    stop_words = _stop_words(docs[0].lang_) if (skip_stop and docs) else frozenset()
    for d, (doc, tgt, cand) in enumerate(zip(docs, targets, cands)):
        for j, (i, cs) in enumerate(zip(tgt, cand)):
            # a content word is never replaced by a stop word ("the", "was")
            clean = [c for c in cs if isinstance(c, str) and has_letter(c) and c.lower() not in stop_words]
            items.append((doc[i].text, clean))
            where.append((d, j))
    choices = policy.select_batch(items, vectors) if items else []
    chosen: Dict[Tuple[int, int], Any] = dict(zip(where, choices))
    out = []
    for d, (doc, tgt) in enumerate(zip(docs, targets)):
        repl: Dict[int, str] = {}
        for j in order[d]:
            if len(repl) >= n:
                break
            ch = chosen.get((d, j))
            if ch is None or not ch.passed or ch.word is None:
                continue
            i = tgt[j]
            # sentence-initial words keep their capital; otherwise the MLM's form
            repl[i] = apply_case(doc[i].text, ch.word) if doc[i].text[:1].isupper() else ch.word
        new_doc, applied = replace_tokens(doc, repl, make_doc, MLM, {"filtered": True})
        out.append((new_doc, len(applied)))
    return out


def _stop_words(lang: str) -> frozenset:
    from spacy.util import get_lang_class

    try:
        return frozenset(get_lang_class(lang).Defaults.stop_words)
    except Exception:  # an unknown language code: no stop list
        return frozenset()


# ---------------------------------------------------------------------------
# resources (loaded lazily, once)
# ---------------------------------------------------------------------------


def load_pseudonymizer(
    vectors_dir: Union[str, Path],
    make_doc: Callable[[str], Doc],
    n_neighbors: int = 100,
    min_count: int = 0,
    max_candidates: int = 50000,
    numeric: str = "shape",
) -> NeighborPseudonymizer:
    """A neighbour pseudonymiser on a vectors directory made by ``spacy_deid vectors``
    (its vectors and its frequent-word list)."""
    from spacy.lang.en.stop_words import STOP_WORDS

    from spacy_deid.train.vectors import load_frequent_words, load_vectors

    vectors = load_vectors(vectors_dir)
    words = load_frequent_words(vectors_dir, min_count=min_count)
    cands = candidate_vocabulary(words, make_doc=make_doc, exclude=STOP_WORDS, max_candidates=max_candidates)
    return NeighborPseudonymizer(vectors, cands, n_neighbors, numeric=numeric)


def load_sampler(model: Union[str, Path], device: str = "cpu") -> Any:
    """The MLM sampler on a local Hugging Face masked-LM directory (e.g. `pretrain`'s)."""
    path = Path(model)
    if not path.exists():
        raise FatalError(f"MLM directory not found: {path}")
    from spacy_deid.components.mlm_resampler import MLMSampler  # lazy: imports torch/transformers

    return MLMSampler.from_path(str(path), device=device)


def _to_example(nlp: Language, new_doc: Doc) -> Example:
    return Example(nlp.make_doc(new_doc.text), new_doc)


def _augmenter(
    level: float, seed: int, load: Callable[[Language], Any], rewrite: Callable[[Language, Any, Doc, Any], Doc],
) -> Callable[[Language, Example], Iterator[Example]]:
    """A spaCy augmenter: each example, then (for a ``level`` share of them) a
    copy whose reference Doc ``rewrite(nlp, state, doc, rng)`` made. ``load(nlp)``
    builds the state (models, vectors) on first use."""
    rng = numpy.random.default_rng(seed)
    state: List[Any] = []

    def augment(nlp: Language, example: Example) -> Iterator[Example]:
        yield example
        if level < 1.0 and rng.random() >= level:
            return
        if not state:
            state.append(load(nlp))
        yield _to_example(nlp, rewrite(nlp, state[0], example.reference, rng))

    return augment


@registry.augmenters("spacy_deid.neighbor_pseudonyms.v1")
def neighbor_pseudonyms_augmenter_v1(
    vectors: str,
    n_neighbors: int = 100,
    level: float = 1.0,
    seed: int = 0,
    min_count: int = 0,
    numeric: str = "shape",
    labels: Optional[List[str]] = None,
) -> Callable[[Language, Example], Iterator[Example]]:
    """Augmenter: the original example, then a copy whose gold entity tokens are
    replaced by random ones of their N nearest neighbours.

    vectors (str): a directory made by ``python -m spacy_deid vectors``.
    n_neighbors (int): N (paper: up to 200 keeps NER F1).
    level (float): share of examples that get an augmented copy (1.0: all).
    seed (int): seed of the choices.
    min_count (int): a stricter frequency cut on the candidate vocabulary.
    numeric (str): ``"shape"`` (redraw digits of dates/IDs) or ``"keep"``.
    labels (Optional[List[str]]): only these entity labels (None: all).
    RETURNS (Callable[[Language, Example], Iterator[Example]]): the augmenter.
    """
    def load(nlp: Language) -> NeighborPseudonymizer:
        return load_pseudonymizer(vectors, nlp.make_doc, n_neighbors, min_count, numeric=numeric)

    def rewrite(nlp: Language, pseudonymizer: NeighborPseudonymizer, doc: Doc, rng) -> Doc:
        (new_doc, _), = pseudonymize_docs([doc], pseudonymizer, rng, nlp.make_doc, labels)
        return new_doc

    return _augmenter(level, seed, load, rewrite)


@registry.augmenters("spacy_deid.filtered_mlm.v1")
def filtered_mlm_augmenter_v1(
    model: str,
    vectors: str,
    n: int = 5,
    n_candidates: int = 10,
    epsilon: float = 0.0,
    max_tries: int = 10,
    level: float = 1.0,
    seed: int = 0,
    temperature: float = 1.0,
    top_k: int = 50,
    device: str = "cpu",
) -> Callable[[Language, Example], Iterator[Example]]:
    """Augmenter: the original example, then a copy where ``n`` words outside the
    gold entities are replaced by filtered MLM predictions (Filtered BERT).

    model (str): a local Hugging Face masked-LM directory.
    vectors (str): a directory made by ``python -m spacy_deid vectors``.
    n (int): words replaced per example (paper: 5).
    n_candidates (int): MLM candidates drawn per position.
    epsilon (float): the filter's similarity threshold (paper: 0).
    max_tries (int): candidates scored per position.
    level (float): share of examples that get an augmented copy (1.0: all).
    seed (int): seed of positions and sampling.
    temperature (float): MLM sampling temperature.
    top_k (int): MLM sampling top-k.
    device (str): ``"cpu"`` or ``"cuda"``.
    RETURNS (Callable[[Language, Example], Iterator[Example]]): the augmenter.
    """
    policy = CosineFilter(epsilon=epsilon, max_tries=max_tries, fallback="none")

    def load(nlp: Language) -> Tuple[Any, Any]:
        from spacy_deid.train.vectors import load_vectors

        return load_sampler(model, device), load_vectors(vectors)

    def rewrite(nlp: Language, models: Tuple[Any, Any], doc: Doc, rng) -> Doc:
        sampler, table = models
        (new_doc, _), = filtered_mlm_docs(
            [doc], sampler, policy, table, rng, nlp.make_doc,
            n=n, n_candidates=n_candidates, temperature=temperature, top_k=top_k,
        )
        return new_doc

    return _augmenter(level, seed, load, rewrite)


def case_variant(record: Record, case: str, make_doc: Callable[[str], Doc]) -> Optional[Record]:
    """A copy of ``record`` with its text in ``case`` (``upper`` or ``lower``) and the
    same gold offsets (``text[start:end] == span["text"]`` still holds), or None when
    a span would no longer fall on token boundaries (a tokenizer exception of the
    other case, e.g. "co." in lower case) or the text does not change.

    RETURNS (Optional[Record]): ``{"id": "<id>-<case>", "source_id", "augmented":
        "case_<case>", pass-through fields, "text", "spans"}``.
    """
    from spacy_deid.synth.generator import recase

    if case not in CASES:
        raise ValueError(f"case must be one of {', '.join(CASES)}, got {case!r}")
    text = recase(record["text"], case)
    if text == record["text"]:
        return None
    doc = make_doc(text)
    spans = []
    for sp in record.get("spans") or []:
        if doc.char_span(sp["start"], sp["end"]) is None:
            return None
        spans.append(dict(sp, text=text[sp["start"]:sp["end"]]))
    rec: Record = {"id": f"{record['id']}-{case}", "source_id": record.get("source_id", record["id"]),
                   "augmented": f"case_{case}"}
    for key in PASS_THROUGH:
        if record.get(key) is not None:
            rec[key] = record[key]
    rec.update(text=text, spans=spans)
    return rec


@registry.augmenters("spacy_deid.case_variants.v1")
def case_variants_augmenter_v1(cases: List[str] = list(CASES)) -> Callable[[Language, Example], Iterator[Example]]:
    """Augmenter: the original example, then a copy of it in each of ``cases``
    (``upper``, ``lower``) with the same gold entities.

    cases (List[str]): the cases of the copies.
    RETURNS (Callable[[Language, Example], Iterator[Example]]): the augmenter.
    """
    bad = [c for c in cases if c not in CASES]
    if bad:
        raise ValueError(f"case_variants: unknown case {bad[0]!r} (use {', '.join(CASES)})")

    def augment(nlp: Language, example: Example) -> Iterator[Example]:
        yield example
        ref = example.reference
        record = {"id": "x", "text": ref.text,
                  "spans": [{"start": e.start_char, "end": e.end_char, "label": e.label_} for e in ref.ents]}
        for case in cases:
            rec = case_variant(record, case, nlp.make_doc)
            if rec is not None:
                yield Example(nlp.make_doc(rec["text"]), gold_doc(nlp.make_doc, rec))

    return augment


@registry.readers("spacy_deid.augmented_examples.v1")
def augmented_examples_reader_v1(
    path: str,
    augmenter: Optional[Callable[[Language, Example], Iterator[Example]]] = None,
    limit: int = 0,
    label_map: Optional[Dict[str, str]] = None,
) -> Callable[[Language], Iterator[Example]]:
    """Gold NER Examples from our JSONL, passed through an augmenter (as
    ``spacy.Corpus.v1`` does for .spacy files): use it as ``[corpora.train]`` with
    ``[corpora.train.augmenter]``.

    path (str): JSONL with ``text`` and ``spans``.
    augmenter (Optional[Callable]): a registered augmenter, or None.
    limit (int): at most this many records (0: all).
    label_map (Optional[Dict[str, str]]): rename labels (empty string: drop).
    RETURNS (Callable[[Language], Iterator[Example]]): the reader.
    """
    read = examples_reader_v1(path, limit=limit, label_map=label_map)

    def stream(nlp: Language) -> Iterator[Example]:
        for eg in read(nlp):
            if augmenter is None:
                yield eg
            else:
                yield from augmenter(nlp, eg)

    return stream


# ---------------------------------------------------------------------------
# the file-level function behind `python -m spacy_deid augment`
# ---------------------------------------------------------------------------


def gold_doc(make_doc: Callable[[str], Doc], record: Record) -> Doc:
    """The record's text with its gold spans as ``doc.ents`` (a clear error naming
    the record on overlapping or misaligned spans)."""
    doc = make_doc(record["text"])
    doc.ents = filter_spans(spans_to_entities(record, doc))
    return doc


def augmented_record(record: Record, new_doc: Doc, source: Doc, method: str, n_replaced: int, index: int) -> Record:
    """The output record of an augmented document: own id, ``source_id``,
    ``augmented`` = method, the record's gold spans carried to the new text."""
    rendering = render(_edited_copy(source, new_doc))
    spans = []
    for sp in sorted(record.get("spans") or [], key=lambda s: (s["start"], s["end"])):
        start, end = rendering.map_start(sp["start"]), rendering.map_end(sp["end"])
        if end <= start:
            continue
        out = {k: v for k, v in sp.items() if k not in ("start", "end", "text")}
        out.update(start=start, end=end, text=new_doc.text[start:end])
        spans.append(out)
    rec: Record = {"id": f"{record['id']}-aug{index}", "source_id": record["id"], "augmented": method}
    for key in PASS_THROUGH:
        if record.get(key) is not None:
            rec[key] = record[key]
    rec.update(text=new_doc.text, spans=spans, n_replaced=n_replaced)
    return rec


def _edited_copy(source: Doc, new_doc: Doc) -> Doc:
    """The source Doc with one edit per token whose text changed (tokens are 1:1)."""
    work = source.copy()
    if "deid" in work.spans:
        del work.spans["deid"]
    for a, b in zip(source, new_doc):
        if a.text != b.text:
            add_edit(work, a.i, a.i + 1, "AUG", b.text)
    return work


def augment_file(
    gold_jsonl: Union[str, Path],
    out_jsonl: Union[str, Path],
    method: Optional[str],
    *,
    model: Optional[Union[str, Path]] = None,
    vectors: Optional[Union[str, Path]] = None,
    n: int = 5,
    n_neighbors: int = 100,
    seed: int = 0,
    epsilon: float = 0.0,
    max_tries: int = 10,
    n_candidates: int = 10,
    temperature: float = 1.0,
    top_k: int = 50,
    min_count: int = 0,
    numeric: str = "shape",
    device: str = "cpu",
    batch_size: int = 16,
    limit: int = 0,
    case_variants: Sequence[str] = (),
    show_progress: bool = False,
) -> Dict[str, int]:
    """Write every gold record and one augmented copy of it, and case variants of both.

    Output order: each original record (unchanged) followed by its augmented copy
    ``{"id": "<id>-aug1", "source_id": "<id>", "augmented": method, "text", "spans",
    "n_replaced", pass-through fields}``; spans are the original's, re-computed for
    the new text (``text[start:end] == span["text"]``). With ``case_variants``, each
    written record is followed by its copies in those cases (``case_variant``).

    gold_jsonl (Union[str, Path]): records with ``text`` and ``spans``.
    out_jsonl (Union[str, Path]): output JSONL (written atomically).
    method (str): ``"filtered_mlm"`` or ``"neighbor_pseudonyms"``.
    model (Optional[Union[str, Path]]): MLM directory (filtered_mlm).
    vectors (Optional[Union[str, Path]]): vectors directory (both methods).
    n (int): words replaced per document (filtered_mlm).
    n_neighbors (int): N (neighbor_pseudonyms).
    seed (int): random seed (same seed, same output).
    case_variants (Sequence[str]): cases (``upper``, ``lower``) of extra copies;
        with ``method=None`` only those copies are added.
    RETURNS (Dict[str, int]): counts: records, augmented, unchanged, replaced,
        case_variants (copies written), case_skipped (copies left out because their
        spans would misalign; a note already in a case gets no copy in it).
    """
    import spacy
    from tqdm import tqdm

    from spacy_deid.synth.generator import recase
    from spacy_deid.train.vectors import load_vectors

    bad_case = [c for c in case_variants if c not in CASES]
    if bad_case:
        raise FatalError(f"Unknown case {bad_case[0]!r}: use {', '.join(CASES)}")
    if method is None and not case_variants:
        raise FatalError("Nothing to do: give --method and/or --case-variants")
    if method is not None and method not in METHODS:
        raise FatalError(f"Unknown method {method!r}: use one of {', '.join(METHODS)}")
    if method is not None and vectors is None:
        raise FatalError("--vectors is required (a directory made by `python -m spacy_deid vectors`)")
    if method == "filtered_mlm" and model is None:
        raise FatalError("--model is required for filtered_mlm (a local masked-LM directory)")
    nlp = spacy.blank("en")
    rng = numpy.random.default_rng(seed)
    if method == "neighbor_pseudonyms":
        pseudo = load_pseudonymizer(vectors, nlp.make_doc, n_neighbors, min_count, numeric=numeric)
    elif method == "filtered_mlm":
        sampler = load_sampler(model, device)  # type: ignore[arg-type]
        vecs = load_vectors(vectors)
        policy = CosineFilter(epsilon=epsilon, max_tries=max_tries, fallback="none")
    stats = {"records": 0, "augmented": 0, "unchanged": 0, "replaced": 0, "case_variants": 0, "case_skipped": 0}

    def write(rec: Record) -> None:
        writer.write(rec)
        for case in case_variants:
            variant = case_variant(rec, case, nlp.make_doc)
            if variant is None:
                # a note already in that case needs no copy; any other None would misalign
                stats["case_skipped"] += int(recase(rec["text"], case) != rec["text"])
            else:
                writer.write(variant)
                stats["case_variants"] += 1

    writer = AtomicJSONLWriter(out_jsonl)
    try:
        records = iter_records(gold_jsonl, limit=limit)
        for batch in minibatch(tqdm(records, desc="augment", unit="doc", disable=not show_progress), size=batch_size):
            try:
                docs = [gold_doc(nlp.make_doc, rec) for rec in batch]
            except ValueError as err:
                raise FatalError(str(err)) from None
            if method is None:
                for rec in batch:
                    write(rec)
                    stats["records"] += 1
                continue
            if method == "neighbor_pseudonyms":
                results = pseudonymize_docs(docs, pseudo, rng, nlp.make_doc)
            else:
                results = filtered_mlm_docs(
                    docs, sampler, policy, vecs, rng, nlp.make_doc,
                    n=n, n_candidates=n_candidates, temperature=temperature, top_k=top_k,
                )
            for rec, doc, (new_doc, n_rep) in zip(batch, docs, results):
                write(rec)
                write(augmented_record(rec, new_doc, doc, method, n_rep, 1))
                stats["records"] += 1
                stats["augmented"] += 1
                stats["unchanged"] += int(n_rep == 0)
                stats["replaced"] += n_rep
    except BaseException:
        writer.close()
        raise
    writer.commit()
    return stats
