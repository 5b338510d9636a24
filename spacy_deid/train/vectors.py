"""Floret vectors trained on the corpus (the similarity filter's embedding).

``train_vectors`` tokenises the corpus with spaCy's English tokenizer, applies the
frequency rule to the training text (an item seen for fewer than ``k`` patients is
replaced by ``[RARE]`` before floret sees it, so no rare identifier gets a trained
vector; optionally a masking pipeline, e.g. spacy_deid/configs/frequency.cfg, masks the text
first exactly as for the MLM pretraining), trains floret in ``floret`` mode (subword hashing: every word, seen or not,
has a vector) and converts the ``.floret`` table with spaCy's own ``init vectors
--mode floret`` path (``spacy.training.initialize.convert_vectors``). The output is
a spaCy pipeline directory usable as ``[initialize] vectors = ${paths.vectors}``.

With ``word_list`` it also writes ``deid_frequent_words.json``: the lower-cased
public-vocabulary words of the de-identified training text that passed the frequency rule, with
their counts (the candidate vocabulary of ``augment --method neighbor_pseudonyms``);
without it the directory holds no word of the corpus: a floret table holds hashed
n-gram rows, not words, and the saved StringStore only the language's own strings.
"""
import random
import shutil
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Set, Tuple, Union

import srsly
from spacy.tokens import Doc

from spacy_deid.io.atomic import atomic_dir, write_json
from spacy_deid.io.records import FatalError, iter_records
from spacy_deid.util import Record, pipeline_strings, strip_saved_strings

RARE_TOKEN = "[RARE]"
FREQUENT_WORDS_FILE = "deid_frequent_words.json"
FLORET_FILE = "vectors.floret"
COUNT_BY = ("patient", "doc", "occurrence")


def _unit_key(record: Record, index: int, count_by: str) -> Union[str, int]:
    if count_by == "patient" and record.get("patient_id") is not None:
        return f"p:{record['patient_id']}"
    if count_by in ("patient", "doc"):
        return f"d:{record.get('id', index)}"
    return index


class WordCounter:
    """Count lower-cased word items once per patient (or document, or occurrence).

    A word is counted once per counting unit: the patient (records without a
    ``patient_id`` count as their own patient), the document, or every occurrence.
    Per-patient counting is the project's reading of the patent: a name repeated in
    one patient's notes is still rare.

    count_by (str): ``"patient"``, ``"doc"`` or ``"occurrence"``.
    """

    def __init__(self, count_by: str = "patient") -> None:
        if count_by not in COUNT_BY:
            raise ValueError(f"count_by must be one of {COUNT_BY}, got {count_by!r}")
        self.count_by = count_by
        self.counts: Dict[str, int] = defaultdict(int)
        # word -> units that counted it (a set, since one patient's records need
        # not be contiguous in the file).
        self._units: Dict[str, Set] = defaultdict(set)
        self._all_units: Set = set()

    @property
    def n_units(self) -> int:
        """The counting units seen (patients, documents or records)."""
        return len(self._all_units)

    def add(self, words: Iterable[str], unit: Union[str, int]) -> None:
        self._all_units.add(unit)
        if self.count_by == "occurrence":
            for w in words:
                self.counts[w.lower()] += 1
            return
        for w in {w.lower() for w in words}:
            units = self._units[w]
            if unit not in units:
                units.add(unit)
                self.counts[w] += 1

    def frequent(self, k: int) -> Dict[str, int]:
        """The words counted at least ``k`` times, most frequent first."""
        items = [(w, c) for w, c in self.counts.items() if c >= k]
        items.sort(key=lambda wc: (-wc[1], wc[0]))
        return dict(items)


def scratch_tokenizer(nlp) -> Callable[[str], Doc]:
    """A copy of ``nlp``'s tokenizer on a throw-away vocab.

    Tokenising adds every token's string to the vocab's StringStore, which is
    saved with the pipeline (``vocab/strings.json``): counting a corpus with
    ``nlp.make_doc`` would write its rare identifiers into the saved pipeline.
    """
    from spacy.tokenizer import Tokenizer
    from spacy.vocab import Vocab

    return Tokenizer(Vocab()).from_bytes(nlp.tokenizer.to_bytes())


def count_words(
    records: Iterable[Record],
    make_doc: Callable[[str], Doc],
    count_by: str = "patient",
) -> WordCounter:
    """Count the non-space tokens of a record stream (see ``WordCounter``)."""
    counter = WordCounter(count_by)
    for i, rec in enumerate(records):
        doc = make_doc(rec["text"])
        counter.add((t.text for t in doc if not t.is_space), _unit_key(rec, i, counter.count_by))
    return counter


def _masked_texts(records: Iterable[Record], nlp) -> Iterator[Tuple[Record, str]]:
    """Yield (record, masked text): every edit and entity of the mask pipeline
    becomes ``[RARE]`` (the MLM pretraining's rule, ``pretrain.masked_text``)."""
    from spacy.util import minibatch

    from spacy_deid.train.pretrain import masked_text
    from spacy_deid.util import make_doc

    for batch in minibatch(records, size=256):
        docs = nlp.pipe((make_doc(nlp, r) for r in batch), batch_size=64)
        for rec, doc in zip(batch, docs):
            yield rec, masked_text(doc, placeholder=RARE_TOKEN)


def train_vectors(
    corpus_jsonl: Union[str, Path],
    out_dir: Union[str, Path],
    *,
    dim: int = 100,
    seed: int = 0,
    mask_pipeline: Optional[Union[str, Path]] = None,
    mask_config: Optional[Union[str, Path]] = None,
    k: int = 5,
    count_by: str = "patient",
    model: str = "cbow",
    epoch: int = 10,
    lr: float = 0.1,
    minn: int = 3,
    maxn: int = 5,
    bucket: int = 50000,
    hash_count: int = 2,
    threads: int = 1,
    limit: int = 0,
    keep_floret: bool = False,
    word_list: bool = False,
    show_progress: bool = True,
) -> Path:
    """Train floret vectors on a JSONL corpus and save them as a spaCy pipeline dir.

    corpus_jsonl (Union[str, Path]): records with ``text`` (and ``patient_id``).
    out_dir (Union[str, Path]): output directory (a spaCy pipeline with vectors only).
    dim (int): vector width.
    seed (int): shuffles the training documents. floret's Python API exposes no
        seed for unsupervised training; with ``threads=1`` its run is deterministic
        for a given input, so the same seed gives the same vectors.
    mask_pipeline (Optional[Union[str, Path]]): a fitted masking pipeline (e.g.
        frequency_masker): its edits and entities become ``[RARE]`` in the training
        text, as for the MLM pretraining.
    mask_config (Optional[Union[str, Path]]): a masking config (e.g.
        spacy_deid/configs/frequency.cfg) fitted on the corpus here, instead of ``mask_pipeline``.
    k (int): the frequency rule: items counted for fewer than ``k`` units are
        replaced by ``[RARE]`` in the training text (0 or 1: keep everything).
    count_by (str): counting unit for ``k``: ``patient``, ``doc`` or ``occurrence``.
    model (str): floret ``cbow`` or ``skipgram``.
    epoch (int): training epochs.
    lr (float): learning rate. 0.1, not floret's 0.05: on a few hundred notes, cbow
        vectors trained at 0.05 collapse towards one direction (mean pairwise cosine
        of frequent words 0.96 on 300 generated notes, dim 16; 0.14 at 0.1), which
        makes a cosine filter at epsilon 0 pass everything.
    minn (int): shortest character n-gram.
    maxn (int): longest character n-gram.
    bucket (int): rows of the hashed table.
    hash_count (int): hashes per n-gram (floret: 1 to 4).
    threads (int): floret threads (more than 1 is faster but not deterministic).
    limit (int): read at most this many records (0: all).
    keep_floret (bool): keep floret's ``vectors.floret`` text table in ``out_dir``.
    word_list (bool): also write ``deid_frequent_words.json``, the frequent words of
        the (de-identified) training text that are in the public vocabulary
        (``similarity_filter.public_vocabulary``), with their counts: the candidate
        vocabulary of neighbour pseudonyms (``augment --method neighbor_pseudonyms``).
        Off by default: a vectors directory then holds no word of the corpus.
    show_progress (bool): progress bars (tokenising, floret's own progress line).
    RETURNS (Path): ``out_dir``.
    """
    import floret  # lazy: heavy C extension, only needed here
    import spacy
    from spacy.training.initialize import convert_vectors
    from tqdm import tqdm

    corpus_jsonl = Path(corpus_jsonl)
    out_dir = Path(out_dir)
    if not corpus_jsonl.exists():
        raise FatalError(f"Corpus not found: {corpus_jsonl}")
    if model not in ("cbow", "skipgram"):
        raise ValueError(f"model must be 'cbow' or 'skipgram', got {model!r}")
    if not 1 <= minn <= maxn:
        raise ValueError(f"need 1 <= minn <= maxn, got minn={minn}, maxn={maxn}")
    nlp = spacy.blank("en")  # holds the vectors: never tokenises the corpus
    tokenize = scratch_tokenizer(nlp)
    records: Iterable[Record] = iter_records(corpus_jsonl, limit=limit)
    texts: Iterable[Tuple[Record, str]]
    if mask_pipeline is not None or mask_config is not None:
        from spacy_deid.train.pretrain import load_mask_pipeline

        mask_nlp = load_mask_pipeline(corpus_jsonl, mask_pipeline=mask_pipeline, mask_config=mask_config)
        texts = _masked_texts(records, mask_nlp)
    else:
        texts = ((r, r["text"]) for r in records)

    counter = WordCounter(count_by)
    with tempfile.TemporaryDirectory(prefix="deid-floret-") as tmp, atomic_dir(out_dir) as out_tmp:
        tokenised = Path(tmp) / "tokens.txt"
        # Pass 1: tokenise once (to a scratch file) and count.
        n_docs = 0
        with tokenised.open("w", encoding="utf8") as fh:
            for i, (rec, text) in enumerate(tqdm(texts, desc="tokenise", unit="doc", disable=not show_progress)):
                words = [t.text for t in tokenize(text) if not t.is_space]
                if not words:
                    continue
                counter.add(words, _unit_key(rec, i, count_by))
                fh.write(" ".join(words) + "\n")
                n_docs += 1
        if n_docs == 0:
            raise FatalError(f"No text to train vectors on in {corpus_jsonl}")
        frequent = counter.frequent(max(k, 1))
        # Pass 2: the frequency rule, then a seeded shuffle of the documents.
        lines = tokenised.read_text(encoding="utf8").splitlines()
        if k > 1:
            lines = [" ".join(w if w.lower() in frequent else RARE_TOKEN for w in ln.split(" ")) for ln in lines]
        random.Random(seed).shuffle(lines)
        train_txt = Path(tmp) / "train.txt"
        train_txt.write_text("\n".join(lines) + "\n", encoding="utf8")
        del lines
        fl_model = floret.train_unsupervised(
            str(train_txt),
            model=model,
            mode="floret",
            dim=dim,
            epoch=epoch,
            lr=lr,
            minn=minn,
            maxn=maxn,
            bucket=bucket,
            hashCount=hash_count,
            minCount=1,  # the frequency rule was applied above, per patient
            thread=threads,
            verbose=2 if show_progress else 0,
        )
        floret_path = Path(tmp) / FLORET_FILE
        fl_model.save_floret_vectors(str(floret_path))
        # spaCy's own `init vectors --mode floret` conversion.
        convert_vectors(nlp, floret_path, truncate=0, prune=-1, mode="floret", name="spacy_deid_floret")
        nlp.to_disk(out_tmp)
        strip_saved_strings(out_tmp, pipeline_strings(nlp))
        if keep_floret:
            shutil.copyfile(floret_path, out_tmp / FLORET_FILE)
        if word_list:
            # neighbour surrogates are drawn from this list: public words only,
            # as for the similarity_filter's candidates
            from spacy_deid.components.similarity_filter import public_vocabulary

            public = set(public_vocabulary())
            listed = {w: c for w, c in frequent.items() if w in public}
            write_json(
                out_tmp / FREQUENT_WORDS_FILE,
                {"k": max(k, 1), "count_by": count_by, "words": list(listed), "counts": list(listed.values())},
            )
        write_json(
            out_tmp / "deid_vectors.json",
            {
                "dim": dim,
                "seed": seed,
                "k": k,
                "count_by": count_by,
                "model": model,
                "epoch": epoch,
                "lr": lr,
                "minn": minn,
                "maxn": maxn,
                "bucket": bucket,
                "hash_count": hash_count,
                "n_docs": n_docs,
                "masked_with": str(mask_pipeline or mask_config) if (mask_pipeline or mask_config) else None,
            },
        )
    return out_dir


def load_frequent_words(vectors_dir: Union[str, Path], min_count: int = 0) -> List[str]:
    """The candidate vocabulary written by ``train_vectors`` (most frequent first).

    vectors_dir (Union[str, Path]): a directory made by ``train_vectors``.
    min_count (int): a stricter cut than the one used at training (0: none).
    RETURNS (List[str]): lower-cased words.
    """
    path = Path(vectors_dir) / FREQUENT_WORDS_FILE
    if not path.exists():
        raise FatalError(
            f"{path} not found: make the vectors directory with `python -m spacy_deid vectors --word-list`"
        )
    data = srsly.read_json(path)
    return [w for w, c in zip(data["words"], data["counts"]) if c >= min_count]


def load_vectors(vectors_dir: Union[str, Path]):
    """The ``Vectors`` table of a vectors directory (a spaCy pipeline dir).

    RETURNS (spacy.vectors.Vectors): the table (floret mode for ours).
    """
    import spacy

    vectors_dir = Path(vectors_dir)
    if not (vectors_dir / "vocab").exists():
        raise FatalError(f"Not a vectors directory (no vocab/): {vectors_dir}")
    return spacy.load(vectors_dir).vocab.vectors
