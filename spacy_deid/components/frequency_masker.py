"""frequency_masker: the patent's low-frequency de-identification (patent "Free text de-identification").

Every *word item* whose corpus count is below a threshold ``k`` is masked, every
blacklisted term is masked, whitelisted terms are kept, and the PHI entities an
upstream span_ruler/NER put in ``doc.ents`` are always masked. Counts are learned
in ``initialize`` from an explicit corpus (a registered reader of our JSONL), by
distinct patient by default.

How item kinds combine: a countable token (not whitespace, not punctuation) is
masked when *any* enabled item that covers it is below the threshold. Hence:
``pos``/``dep`` items are finer than ``text`` (a frequent word in a rare
syntactic position is masked); ``pattern`` and ``ngram`` items only add masking
over their tokens; ``stem`` items pool inflections, so they are useful *instead
of* ``text`` (with both enabled, ``text`` decides, since a word is never more
frequent than its stem). Precedence per token: PHI entity > blacklist >
whitelist > low-frequency (``LOW_FREQ`` for text/pos/dep/stem/ngram items,
``PATTERN`` for word-pattern items).

Common words: with ``common_min_zipf`` set (the profiles set 3.0; the component
alone counts every word, as the patent does), every English word at
or above that Zipf frequency in the shipped ``gazetteers/common_words.tsv``
(wordfreq's list less the names and places that are not also ordinary words,
plus clinical abbreviations) is kept like a whitelisted term, so a word such as
"ambulate" or "erythema" is never masked for being rare in a small corpus, while
a rare name or an unknown token still is. Names that are ordinary words ("rose",
"brown") are left to the detectors upstream (the gazetteer's context rules).

What is stored (``to_disk``/``to_bytes``/pickle): the sorted uint64 hashes of
the items at or above the threshold, the term lists as hashes, the settings and
counts of the fit (no text, no rare item, not even hashed).
"""
import itertools
import logging
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple

import numpy as np
import srsly
from spacy.language import Language
from spacy.pipeline import Pipe
from spacy.tokens import Doc
from thinc.api import Config

from spacy_deid.detect.gazetteers import _CLOCK_TIME, COMMON_WORDS, MIDDLE_INITIAL, ending_pattern, shift_hours
from spacy_deid.edits import BLACKLIST, LOW_FREQ, PATTERN, PHI, add_edit
from spacy_deid.stats.counts import COUNT_UNITS, DistinctCounter, in_sorted, load_confidence, lookup_counts
from spacy_deid.stats.items import ITEM_KINDS, ItemExtractor
from spacy_deid.stats.terms import HashedTerms
from spacy_deid.util import RecordsReader, memory_zone, pipe_each, pipe_upstream, require_corpus

logger = logging.getLogger("spacy_deid")

MODES = ("placeholder", "same_length", "remove")

DEFAULT_CONFIG_STR = """
[frequency_masker]
kinds = ["text"]
case_fold = true
ngram_n = 2
pattern_window = 2
stem_source = "auto"
count_unit = "patient"
k = 5
keep_fraction = null
k_min = 2
k_max = 50
confidence_min_share = 0.8
confidence_min_runs = 1
confidence_bonus = 0.0
mode = "placeholder"
placeholder = "[{label}]"
mask_char = "*"
common_min_zipf = null
dictionary_min_zipf = null
clinical_forms = null
"""
DEFAULT_CONFIG = Config().from_str(DEFAULT_CONFIG_STR)

# Reason codes in the per-token decision array.
_KEEP, _LOW, _PAT, _BLACK = 0, 1, 2, 3
# the clitics of English contractions, tokens of their own ("I'm" -> "I", "'m")
_CONTRACTIONS = frozenset("'m 's 're 've 'll 'd n't".split())
# a nursing shift written as one token ("7p-7a", "11P-7A.", "7a-3p"), a range of vital signs
# by decades ("80s-90s", "120S-180S", "bp 120s/70s"), a hospital, postoperative or newborn's day
# ("HD2", "POD#1", "dol3") and a ventilator's volume by rate ("ac 500x16"): shorthand of nursing
# notes that identifies no one
_NURSING_SHORTHAND = re.compile(
    r"(?i)^(\d{1,2}[ap]m?-\d{1,2}[ap]m?|\d{2,3}'?s[-/]\d{2,3}'?s|(hd|pod|dol)#?\d{1,2}|\d{3}x\d{1,2})\.?$"
)
_REASONS = {_LOW: LOW_FREQ, _PAT: PATTERN, _BLACK: BLACKLIST}


_SIGNED_DIGIT = re.compile(r"^[+-]\d$")


def never_rare_form(doc: Doc, i: int) -> bool:
    """Whether ``doc[i]`` is a form of nursing notes that identifies no one, rare or not: the
    clock times of a shift (``_clock_shift``), and a signed score ("rass -2", "+1 edema", "-3
    station"; not a country's code before a phone number: "+1 (617) 555-1212")."""
    if _SIGNED_DIGIT.match(doc[i].text):
        nxt = doc[i + 1] if i + 1 < len(doc) else None
        return nxt is None or not (nxt.text.startswith("(") or nxt.like_num or nxt.text[0].isdigit())
    return _clock_shift(doc, i)


def _clock_shift(doc: Doc, i: int) -> bool:
    """Whether ``doc[i]`` is a clock time no year can be: one with a leading zero ("0700",
    "0345"), or an end of a shift between two clock times ("0700-1900", "1900 - 0700"; see
    ``shift_hours``). A nursing note's header or timing; "2000-2010", two years, stays a rare item."""
    text = doc[i].text
    if not _CLOCK_TIME.match(text):
        return False
    if any(
        a >= 0 and b < len(doc) and doc[a + 1].text in {"-", "–"} and shift_hours(doc[a].text, doc[b].text)
        for a, b in ((i - 2, i), (i, i + 2))
    ):
        return True
    # alone, not a group of a phone number or an id ("(617)555-0137", "0137-22")
    joined = (i > 0 and not doc[i - 1].whitespace_ and not doc[i - 1].is_space) or (not doc[i].whitespace_ and i + 1 < len(doc) and not doc[i + 1].is_punct)
    return text[0] == "0" and not joined and not (i > 0 and doc[i - 1].text in {"-", "–", "/", "."}) \
        and not (i + 1 < len(doc) and doc[i + 1].text in {"-", "–", "/"})


@dataclass
class _Fit:
    """What one fit found (kept by ``initialize``)."""

    k: int
    k_source: str
    kept_share: Optional[float]
    allowed: np.ndarray
    n_docs: int
    n_units: int
    unit_name: str
    n_words: int
    n_items: int
    peak_pairs: int


@dataclass
class BlockCounts:
    """The item counts of a block of documents (``FrequencyMasker.count_block``):
    hashes and numbers only, no text. Blocks counted anywhere (this process,
    worker processes, Ray actors) are reduced by ``FrequencyMasker.fit_counts``.

    units (List[str]): counting by patient: the block's unit ids, in first-seen order.
    keys (np.ndarray): uint64; by patient: the distinct keys of each unit, concatenated
        (unit i: ``keys[offsets[i]:offsets[i + 1]]``); otherwise the distinct keys.
    offsets (np.ndarray): int64 unit boundaries in ``keys`` (by patient).
    counts (np.ndarray): int64 count per key (not by patient).
    n_docs (int): documents in the block.
    n_words (int): word tokens in the block.
    n_no_patient (int): documents without a patient id (each is its own unit).
    """

    units: List[str]
    keys: np.ndarray
    offsets: np.ndarray
    counts: np.ndarray
    n_docs: int
    n_words: int
    n_no_patient: int


# Which upstream annotation each kind needs (checked in initialize).
_NEEDS = {"pos": ("token.pos", "a tagger or morphologizer"), "dep": ("token.dep", "a parser")}


@Language.factory(
    "frequency_masker",
    default_config=DEFAULT_CONFIG["frequency_masker"],
    assigns=["doc.spans"],
)
def make_frequency_masker(
    nlp: Language,
    name: str,
    kinds: List[str],
    case_fold: bool,
    ngram_n: int,
    pattern_window: int,
    stem_source: str,
    count_unit: str,
    k: Optional[int],
    keep_fraction: Optional[float],
    k_min: int,
    k_max: int,
    confidence_min_share: float,
    confidence_min_runs: int,
    confidence_bonus: float,
    mode: str,
    placeholder: str,
    mask_char: str,
    common_min_zipf: Optional[float] = None,
    dictionary_min_zipf: Optional[float] = None,
    clinical_forms: Optional[str] = None,
) -> "FrequencyMasker":
    """Create a frequency_masker (see the module docstring and the README section "frequency_masker").

    kinds (List[str]): enabled word-item kinds: text, pos, dep, pattern, ngram, stem.
    case_fold (bool): count the token text case-insensitively.
    ngram_n (int): words per n-gram item.
    pattern_window (int): max distance (tokens) between a word and the number of its pattern item.
    stem_source (str): "auto" (lemma if the Doc has lemmas, else the light stemmer), "lemma", "stem".
    count_unit (str): "patient" (distinct patient_id; a record without one is its own
        unit), "document" or "occurrence".
    k (Optional[int]): the threshold: items counted fewer than k times are masked
        (symbols, the clitics of contractions and nursing shifts are never rare). Ignored when
        keep_fraction is set.
    keep_fraction (Optional[float]): choose k from the corpus: the largest k in
        [k_min, k_max] that keeps at least this share of the corpus' word tokens.
    k_min (int): the lowest k keep_fraction may choose (a privacy floor).
    k_max (int): the highest k keep_fraction may choose (also the count cap).
    confidence_min_share (float): with a confidence list, items above the threshold
        in at least this share of earlier runs are kept even if rare now (> 1: never).
    confidence_min_runs (int): earlier runs needed before the confidence list is used.
    confidence_bonus (float): add ``round(score * bonus)`` to an item's count.
    mode (str): "placeholder", "same_length" (mask_char per character) or "remove".
    placeholder (str): placeholder template; ``{label}`` is the reason or the entity label.
    mask_char (str): the character of the same-length mask.
    common_min_zipf (Optional[float]): English words at or above this Zipf
        frequency are never rare (read in initialize from ``common_words``); None: off.
    dictionary_min_zipf (Optional[float]): lower-case dictionary words (the
        ordinary-word flag of ``common_words``: "hemorrhoids", not "ucla") at or
        above this Zipf frequency are never rare either; None: off.
    clinical_forms (Optional[str]): a file of endings of clinical words (shipped
        asset name, e.g. ``gazetteers/clinical_forms.txt``, or a path): a rare word
        with one ("rivaroxaban", "cellulitis") is kept; None: off.
    RETURNS (FrequencyMasker): the component.
    """
    return FrequencyMasker(
        nlp.vocab,
        name=name,
        kinds=kinds,
        case_fold=case_fold,
        ngram_n=ngram_n,
        pattern_window=pattern_window,
        stem_source=stem_source,
        count_unit=count_unit,
        k=k,
        keep_fraction=keep_fraction,
        k_min=k_min,
        k_max=k_max,
        confidence_min_share=confidence_min_share,
        confidence_min_runs=confidence_min_runs,
        confidence_bonus=confidence_bonus,
        mode=mode,
        placeholder=placeholder,
        mask_char=mask_char,
        common_min_zipf=common_min_zipf,
        dictionary_min_zipf=dictionary_min_zipf,
        clinical_forms=clinical_forms,
    )


class FrequencyMasker(Pipe):
    """Mask word items that are rare in the corpus, blacklisted terms and PHI entities."""

    def __init__(
        self,
        vocab,
        name: str = "frequency_masker",
        *,
        kinds: Iterable[str] = ("text",),
        case_fold: bool = True,
        ngram_n: int = 2,
        pattern_window: int = 2,
        stem_source: str = "auto",
        count_unit: str = "patient",
        k: Optional[int] = 5,
        keep_fraction: Optional[float] = None,
        k_min: int = 2,
        k_max: int = 50,
        confidence_min_share: float = 0.8,
        confidence_min_runs: int = 1,
        confidence_bonus: float = 0.0,
        mode: str = "placeholder",
        placeholder: str = "[{label}]",
        mask_char: str = "*",
        common_min_zipf: Optional[float] = None,
        dictionary_min_zipf: Optional[float] = None,
        clinical_forms: Optional[str] = None,
    ):
        self.vocab = vocab
        self.name = name
        self.extractor = ItemExtractor(list(kinds), case_fold, ngram_n, pattern_window, stem_source)
        if count_unit not in COUNT_UNITS:
            raise ValueError(f"[{name}] count_unit must be one of {list(COUNT_UNITS)}, got {count_unit!r}")
        if keep_fraction is not None:
            if not 0.0 < keep_fraction <= 1.0:
                raise ValueError(f"[{name}] keep_fraction must be in (0, 1], got {keep_fraction}")
            if not 1 <= k_min <= k_max:
                raise ValueError(f"[{name}] need 1 <= k_min <= k_max, got k_min={k_min}, k_max={k_max}")
        elif k is None or k < 1:
            raise ValueError(f"[{name}] set k >= 1 or keep_fraction, got k={k}")
        if mode not in MODES:
            raise ValueError(f"[{name}] mode must be one of {list(MODES)}, got {mode!r}")
        try:
            placeholder.format(label="X")
        except (KeyError, IndexError, ValueError) as err:
            raise ValueError(f"[{name}] bad placeholder template {placeholder!r} (only {{label}} is known): {err}") from None
        if len(mask_char) != 1:
            raise ValueError(f"[{name}] mask_char must be one character, got {mask_char!r}")
        self.count_unit = count_unit
        self.k_config = k
        self.keep_fraction = keep_fraction
        self.k_min = k_min
        self.k_max = k_max
        self.confidence_min_share = confidence_min_share
        self.confidence_min_runs = confidence_min_runs
        self.confidence_bonus = confidence_bonus
        self.mode = mode
        self.placeholder = placeholder
        self.mask_char = mask_char
        # fitted state
        self.k: Optional[int] = None
        self.allowed = np.empty(0, dtype=np.uint64)
        self.common_min_zipf = common_min_zipf
        self.dictionary_min_zipf = dictionary_min_zipf
        self.common = HashedTerms()
        self.clinical_forms = clinical_forms
        self._clinical_form = ending_pattern(clinical_forms)
        self.whitelist = HashedTerms()
        self.blacklist = HashedTerms()
        self.stats: Dict[str, Any] = {}
        self._replacements: Dict[str, str] = {}

    # ------------------------------------------------------------------ fitting
    @property
    def is_initialized(self) -> bool:
        return self.k is not None

    def _check_upstream(self, nlp: Language) -> None:
        upstream = []
        for pipe_name, _ in nlp.pipeline:
            if pipe_name == self.name:
                break
            upstream.append(pipe_name)
        assigned = set()
        for pipe_name in upstream:
            assigned.update(nlp.get_pipe_meta(pipe_name).assigns)
        needs = dict(_NEEDS)
        if "stem" in self.extractor.kinds and self.extractor.stem_source == "lemma":
            needs["stem"] = ("token.lemma", "a lemmatizer")
        for kind, (attr, what) in needs.items():
            if kind in self.extractor.kinds and attr not in assigned:
                raise ValueError(
                    f"[{self.name}] item kind '{kind}' needs {attr}: add {what} before "
                    f"'{self.name}' in the pipeline (upstream components: {upstream or 'none'}), "
                    f"or remove '{kind}' from components.{self.name}.kinds"
                )

    def initialize(
        self,
        get_examples: Optional[Callable[[], Iterable[Any]]] = None,
        *,
        nlp: Optional[Language] = None,
        corpus: Optional[RecordsReader] = None,
        whitelist: Optional[List[str]] = None,
        blacklist: Optional[List[str]] = None,
        confidence_path: Optional[str] = None,
        common_words: Optional[str] = COMMON_WORDS,
    ) -> None:
        """Count the word items of ``corpus``, choose k, keep the items at or above it.

        The corpus is streamed through the components before this one (so a
        tagger's POS or a span_ruler's entities are seen) inside ``nlp.memory_zone()``,
        so none of its strings stay in the vocab that is saved with the pipeline.

        get_examples (Optional[Callable]): ignored (spaCy's dummy examples are no corpus).
        nlp (Language): the pipeline.
        corpus (Callable[[], Iterable[dict]]): our JSONL records, e.g. ``spacy_deid.io.records.v1``.
        whitelist (Optional[List[str]]): terms always kept (``spacy_deid.term_list.v1``).
        blacklist (Optional[List[str]]): terms always masked.
        confidence_path (Optional[str]): the confidence-list state file; read before
            and updated after this fit. None: no confidence list.
        common_words (Optional[str]): the word/Zipf TSV read when ``common_min_zipf``
            is set (a shipped asset name or a path).
        """
        corpus = require_corpus(corpus, self.name)
        if nlp is None:
            raise ValueError(f"[{self.name}] initialize needs nlp (call nlp.initialize())")
        self.set_common_words(common_words)
        self.fit_counts(
            nlp, corpus, self.count_corpus(nlp, corpus), whitelist=whitelist, blacklist=blacklist,
            confidence_path=confidence_path,
        )

    def count_block(self, docs: Iterable[Doc], first_index: int = 0) -> BlockCounts:
        """Count the word items of a block of documents (the map step of a fit).

        By patient, each unit's distinct item keys; by document, the number of
        documents per key; by occurrence, the occurrences per key. A document
        without a ``patient_id`` is a unit of its own, named by its position
        (``first_index`` + its place in the block), so blocks must get disjoint
        index ranges.

        docs (Iterable[Doc]): documents already run through the upstream components.
        first_index (int): the corpus position of the block's first document.
        RETURNS (BlockCounts): hashes and counts only.
        """
        per_unit: Dict[str, List[np.ndarray]] = {}
        flat: List[np.ndarray] = []
        n_docs = n_words = n_no_patient = 0
        for doc in docs:
            items = self.extractor(doc)
            keys = items.all_keys()
            if self.count_unit == "patient":
                pid = (doc._.deid_record or {}).get("patient_id")
                if pid is None:
                    n_no_patient += 1
                    unit = srsly.json_dumps(["__doc__", first_index + n_docs])
                else:
                    unit = srsly.json_dumps(["pid", str(pid)])
                per_unit.setdefault(unit, []).append(np.unique(keys))
            else:
                flat.append(np.unique(keys) if self.count_unit == "document" else keys)
            n_docs += 1
            n_words += len(items.word_idx)
        self.extractor.clear_caches()
        empty_keys, empty_counts = np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.int64)
        if self.count_unit == "patient":
            units = list(per_unit)
            arrays = [np.unique(np.concatenate(per_unit[u])) for u in units]
            offsets = np.cumsum([0] + [len(a) for a in arrays]).astype(np.int64)
            keys = np.concatenate(arrays).astype(np.uint64) if arrays else empty_keys
            return BlockCounts(units, keys, offsets, empty_counts, n_docs, n_words, n_no_patient)
        keys, counts = np.unique(np.concatenate(flat), return_counts=True) if flat else (empty_keys, empty_counts)
        return BlockCounts([], keys.astype(np.uint64), np.zeros(1, dtype=np.int64), counts.astype(np.int64),
                           n_docs, n_words, n_no_patient)

    def count_corpus(self, nlp: Language, corpus: RecordsReader, block_size: int = 1000) -> Iterator[BlockCounts]:
        """Count ``corpus`` in this process, block by block (``count_block`` over
        the records run through the components before this one)."""
        docs = pipe_upstream(nlp, self.name, corpus())
        n = 0
        while True:
            block = list(itertools.islice(docs, block_size))
            if not block:
                return
            yield self.count_block(block, first_index=n)
            n += len(block)

    def fit_counts(
        self,
        nlp: Language,
        corpus: RecordsReader,
        blocks: Iterable[BlockCounts],
        *,
        whitelist: Optional[List[str]] = None,
        blacklist: Optional[List[str]] = None,
        confidence_path: Optional[str] = None,
        engine: str = "",
    ) -> None:
        """Fit from the counts of the corpus' blocks (the reduce step): sum them,
        check the corpus, choose k, keep the items at or above it.

        The blocks are consumed inside ``nlp.memory_zone()``, so none of the
        corpus' strings stay in the vocab; ``corpus`` is read again only to choose
        k from ``keep_fraction``.

        nlp (Language): the pipeline.
        corpus (Callable[[], Iterable[dict]]): the records the blocks were counted from.
        blocks (Iterable[BlockCounts]): ``count_block`` results, in corpus order.
        whitelist (Optional[List[str]]): terms always kept.
        blacklist (Optional[List[str]]): terms always masked.
        confidence_path (Optional[str]): the confidence-list state file, or None.
        engine (str): the engine that counted, for the log line.
        """
        self._check_upstream(nlp)
        confidence = load_confidence(confidence_path, self.extractor.settings())
        cap = self.k_max if self.keep_fraction is not None else int(self.k_config)
        try:
            with memory_zone(nlp):
                self.whitelist = HashedTerms.from_terms(whitelist or [], nlp.make_doc)
                self.blacklist = HashedTerms.from_terms(blacklist or [], nlp.make_doc)
                counter = DistinctCounter(self.count_unit, cap=cap)
                patients: Dict[str, int] = {}
                n_docs = n_words = n_no_patient = 0
                for block in blocks:
                    n_docs += block.n_docs
                    n_words += block.n_words
                    n_no_patient += block.n_no_patient
                    if self.count_unit == "patient":
                        for i, unit in enumerate(block.units):
                            unit_index = patients.setdefault(unit, len(patients))
                            counter.add(block.keys[block.offsets[i]:block.offsets[i + 1]], unit_index)
                    else:
                        counter.add_counts(block.keys, block.counts)
                keys, counts = counter.result()
                fit = self._threshold(
                    nlp, corpus, keys, counts, confidence, n_docs=n_docs, n_patients=len(patients),
                    n_words=n_words, n_no_patient=n_no_patient, peak_pairs=int(counter.peak_pairs),
                )
        finally:
            # the caches hold hashes of every word of the corpus, rare ones included
            self.extractor.clear_caches()
        self._keep(fit, confidence, engine)

    def set_common_words(self, path: Optional[str]) -> None:
        """Read the common words (at or above ``common_min_zipf``) as hashes of
        their lower-case form; none when ``common_min_zipf`` or ``path`` is None."""
        if self.common_min_zipf is None or not path:
            self.common = HashedTerms()
            return
        from spacy.strings import get_string_id

        from spacy_deid.detect.gazetteers import read_common_words
        from spacy_deid.resources import asset_path

        words = read_common_words(asset_path(path), self.common_min_zipf, dictionary_min_zipf=self.dictionary_min_zipf)
        # hashes straight from the strings: nothing enters the vocab's StringStore
        self.common = HashedTerms(np.array([get_string_id(w) for w in words], dtype=np.uint64), {})

    def _keep(self, fit: "_Fit", confidence, engine: str = "") -> None:
        """Keep what a fit found: the allowed items, k, and the stats (no text)."""
        self.allowed = fit.allowed
        self.k = fit.k
        self.stats = {
            "k": fit.k,
            "k_source": fit.k_source,
            "count_unit": self.count_unit,
            "n_docs": fit.n_docs,
            "n_units": fit.n_units,
            "n_word_tokens": fit.n_words,
            "n_items": fit.n_items,
            "n_allowed": int(len(self.allowed)),
            "kept_share": fit.kept_share,
            "n_confidence_runs": confidence.n_runs if confidence is not None else None,
            "n_common_words": int(len(self.common)),
            "counter_peak_pairs": fit.peak_pairs,
        }
        # a log line without text: the chosen k and corpus sizes only
        logger.info(
            "[%s] k=%d (from %s%s); %d documents, %d %s; %d items counted, %d kept%s",
            self.name, fit.k, fit.k_source, f", {engine} engine" if engine else "", fit.n_docs, fit.n_units,
            fit.unit_name, fit.n_items, len(self.allowed),
            "" if fit.kept_share is None else f"; share of word tokens kept {fit.kept_share:.3f}",
        )

    def _threshold(
        self, nlp, corpus, keys, counts, confidence, *, n_docs: int, n_patients: int, n_words: int,
        n_no_patient: int, peak_pairs: int,
    ) -> "_Fit":
        """From the corpus counts (``keys`` with their ``counts``, however they were
        counted: here or on Ray): check the corpus, choose k, the allowed items,
        update the confidence list."""
        n_units = {"patient": n_patients, "document": n_docs, "occurrence": n_words}[self.count_unit]
        unit_name = {"patient": "distinct patients", "document": "documents", "occurrence": "word tokens"}[self.count_unit]
        if n_docs == 0:
            raise ValueError(f"[{self.name}] the corpus is empty: nothing to count")
        if self.count_unit == "patient" and n_no_patient == n_docs:
            logger.warning("[%s] no record has a patient_id: counting by document", self.name)
        elif self.count_unit == "patient" and n_no_patient:
            logger.warning(
                "[%s] %d of %d records have no patient_id: each counts as its own patient",
                self.name, n_no_patient, n_docs,
            )
        k_needed = self.k_min if self.keep_fraction is not None else int(self.k_config)
        if n_units < k_needed:
            raise ValueError(
                f"[{self.name}] the corpus has {n_units} {unit_name}, fewer than "
                f"{'k_min' if self.keep_fraction is not None else 'k'}={k_needed}: every item would be "
                f"below the threshold and everything would be masked. Fit on a larger corpus, "
                f"lower k, or change count_unit."
            )
        adj, forced = self._adjusted_counts(keys, counts, confidence)
        kept_share = None
        if self.keep_fraction is not None:
            k, kept_share = self._choose_k(nlp, corpus, keys, adj, forced)
            k_source = "keep_fraction"
        else:
            k, k_source = int(self.k_config), "k"
        allowed = np.union1d(keys[(adj >= k) | forced], self._confidence_kept(confidence))
        if confidence is not None:
            # "above the threshold" in this run is the raw count, not the adjusted
            # one, so the list does not reinforce itself
            confidence.update(keys[counts >= k])
            confidence.save()
        return _Fit(k, k_source, kept_share, allowed, n_docs, n_units, unit_name, n_words, int(len(keys)), peak_pairs)

    def _confidence_kept(self, confidence) -> np.ndarray:
        """Keys kept because of the confidence list (score >= confidence_min_share)."""
        if confidence is None or confidence.n_runs < max(1, self.confidence_min_runs):
            return np.empty(0, dtype=np.uint64)
        share = confidence.n_above / float(confidence.n_runs)
        return confidence.keys[share >= self.confidence_min_share]

    def _adjusted_counts(self, keys, counts, confidence) -> Tuple[np.ndarray, np.ndarray]:
        """Counts with the confidence bonus added, and the keys the list forces to be kept."""
        if confidence is None or confidence.n_runs < max(1, self.confidence_min_runs):
            return counts, np.zeros(len(keys), dtype=bool)
        scores = confidence.scores(keys)
        adj = counts + np.rint(scores * self.confidence_bonus).astype(np.int64)
        return adj, scores >= self.confidence_min_share

    def _choose_k(self, nlp, corpus, keys, adj, forced) -> Tuple[int, float]:
        """The largest k in [k_min, k_max] that keeps at least
        ``keep_fraction`` of the corpus' word tokens (a second corpus pass computes
        each token's lowest covering-item count). The share kept can only fall as
        k grows, so the *smallest* k meeting a "keep at least" target would always
        be k_min; the largest one is the most private k that keeps the wanted text.
        When even k_min keeps less, k_min is used (a privacy floor) with a warning."""
        big = self.k_max + 1
        eff = np.where(forced, big, np.minimum(adj, big))
        hist = np.zeros(big + 1, dtype=np.int64)
        for doc in pipe_upstream(nlp, self.name, corpus()):
            items = self.extractor(doc)
            if not len(items.word_idx):
                continue
            tmin = np.full(items.n_tokens, big, dtype=np.int64)
            for _, ukeys in items.unigrams:
                c = lookup_counts(keys, eff, ukeys)
                np.minimum.at(tmin, items.word_idx, c)
            for _, skeys, start, end in items.spans:
                c = lookup_counts(keys, eff, skeys)
                width = end - start
                for off in range(int(width.max()) if len(width) else 0):
                    sel = width > off
                    np.minimum.at(tmin, start[sel] + off, c[sel])
            self._apply_terms(doc, items, tmin, keep_value=big, mask_value=0)
            hist += np.bincount(tmin[items.word_idx], minlength=big + 1)[: big + 1]
        total = hist.sum()
        kept_at = {k: (hist[k:].sum() / total if total else 1.0) for k in range(self.k_min, self.k_max + 1)}
        ok = [k for k, share in kept_at.items() if share >= self.keep_fraction]
        if ok:
            k = max(ok)
        else:
            k = self.k_min
            logger.warning(
                "[%s] even k_min=%d keeps only %.3f of word tokens (< keep_fraction %.3f); using k_min",
                self.name, self.k_min, kept_at[self.k_min], self.keep_fraction,
            )
        return k, float(kept_at[k])

    def _apply_terms(self, doc: Doc, items, arr: np.ndarray, keep_value, mask_value) -> None:
        """Write the whitelist (keep), blacklist and PHI-entity (mask) decisions into
        a per-token array, in increasing precedence."""
        if len(self.common):
            arr[self.common.match(items.lower, items.nonspace_idx)] = keep_value
        if len(self.whitelist):
            arr[self.whitelist.match(items.lower, items.nonspace_idx)] = keep_value
        if len(self.blacklist):
            arr[self.blacklist.match(items.lower, items.nonspace_idx)] = mask_value
        for ent in doc.ents:
            arr[ent.start : ent.end] = mask_value

    # --------------------------------------------------------------- processing
    def _require_initialized(self) -> None:
        if not self.is_initialized:
            raise ValueError(
                f"[{self.name}] is not initialized: fit it on a corpus first "
                f"(nlp.initialize with [initialize.components.{self.name}.corpus], "
                f"or python -m spacy_deid init CONFIG CORPUS OUT)"
            )

    def decide(self, doc: Doc) -> np.ndarray:
        """The per-token decision: 0 keep, 1 LOW_FREQ, 2 PATTERN, 3 BLACKLIST
        (PHI entities are handled separately and win over all of these).

        doc (Doc): the document.
        RETURNS (np.ndarray): int8 reason code per token.
        """
        items = self.extractor(doc)
        n = items.n_tokens
        reason = np.zeros(n, dtype=np.int8)
        if n == 0:
            return reason
        low = np.zeros(n, dtype=bool)
        pat = None
        allowed = self.allowed
        for _, keys in items.unigrams:
            rare = ~in_sorted(allowed, keys)
            low[items.word_idx[rare]] = True
        for kind, keys, start, end in items.spans:
            rare = ~in_sorted(allowed, keys)
            if not rare.any():
                continue
            diff = np.zeros(n + 1, dtype=np.int32)
            np.add.at(diff, start[rare], 1)
            np.add.at(diff, end[rare], -1)
            covered = np.cumsum(diff[:n]) > 0
            if kind == "pattern":
                pat = covered if pat is None else (pat | covered)
            else:
                low |= covered
        is_word = np.zeros(n, dtype=bool)
        is_word[items.word_idx] = True
        if pat is not None:
            reason[pat & is_word] = _PAT
        reason[low & is_word] = _LOW
        for i in np.nonzero(reason == _LOW)[0]:
            text = doc[int(i)].text
            if not any(c.isalnum() for c in text) or text.lower().replace("’", "'") in _CONTRACTIONS \
                    or _NURSING_SHORTHAND.match(text) or never_rare_form(doc, int(i)):
                # a symbol inside a rare n-gram ("=" of "= 7/10"), the clitic of a contraction
                # ("'m" of "I'm", rare in transcribed notes), a nursing shift ("7P-7A",
                # "11p-7a", "0700-1900") or range of vitals ("hr 80s-90s"): they identify no one
                reason[i] = _KEEP
            elif self._clinical_form is not None and self._clinical_form.match(text.lower()):
                reason[i] = _KEEP
        if len(self.common):
            reason[self.common.match(items.lower, items.nonspace_idx)] = _KEEP
        if len(self.whitelist):
            reason[self.whitelist.match(items.lower, items.nonspace_idx)] = _KEEP
        if len(self.blacklist):
            reason[self.blacklist.match(items.lower, items.nonspace_idx)] = _BLACK
            if self.mode == "remove":
                self._rematch_after_removal(doc, items, reason)
        self._mask_lone_initials(doc, reason)
        return reason

    @staticmethod
    def _mask_lone_initials(doc: Doc, reason: np.ndarray) -> None:
        """A middle initial between two removed words on one line goes with them
        ("fredrik l sommerseth", "mijail c adomo" where the names are rare or PHI
        entities): alone it is no rare word, and left it is part of a name."""
        removed = reason > 0
        for ent in doc.ents:
            removed[ent.start : ent.end] = True
        n = len(doc)
        # only a kept token right after a removed one can be such an initial
        for i in (np.flatnonzero(removed[:-2] & ~removed[1:-1]) + 1).tolist():
            if not MIDDLE_INITIAL.match(doc[i].text):
                continue
            nxt = i + 1 + (i + 2 < n and doc[i + 1].text == ".")
            if nxt < n and removed[nxt] and "\n" not in doc[i - 1 : nxt + 1].text:
                reason[i:nxt] = _LOW

    def _rematch_after_removal(self, doc: Doc, items, reason: np.ndarray) -> None:
        """Removing tokens can make a blacklisted phrase contiguous in the output
        ("section <rare word> medications" -> "section  medications"): match the
        blacklist again on the tokens that survive, until nothing new is masked."""
        ents = np.zeros(len(reason), dtype=bool)
        for ent in doc.ents:
            ents[ent.start : ent.end] = True
        while True:
            removed = (reason > 0) | ents
            survivors = [i for i in items.nonspace_idx if not removed[i]]
            hit = self.blacklist.match(items.lower, survivors) & ~removed
            if not hit.any():
                return
            reason[hit] = _BLACK

    def _replacement(self, doc: Doc, start: int, end: int, label: str) -> str:
        if self.mode == "placeholder":
            rep = self._replacements.get(label)
            if rep is None:
                rep = self._replacements[label] = self.placeholder.format(label=label)
            return rep
        if self.mode == "remove":
            return ""
        text = doc.text[doc[start].idx : doc[end - 1].idx + len(doc[end - 1])]
        return re.sub(r"\S", self.mask_char, text)

    def __call__(self, doc: Doc) -> Doc:
        """Add an edit per run of masked tokens (reason LOW_FREQ, PATTERN or
        BLACKLIST) and one per PHI entity (reason PHI, placeholder of its label)."""
        self._require_initialized()
        reason = self.decide(doc)
        n = len(reason)
        if n == 0:
            return doc
        edits: List[Tuple[int, int, str, str]] = []  # (start, end, reason, placeholder label)
        for ent in doc.ents:
            reason[ent.start : ent.end] = -1
            edits.append((ent.start, ent.end, PHI, ent.label_))
        if (reason > 0).any():
            change = np.flatnonzero(reason[1:] != reason[:-1]) + 1
            starts = np.concatenate(([0], change))
            ends = np.concatenate((change, [n]))
            vals = reason[starts]
            for s, e, v in zip(starts.tolist(), ends.tolist(), vals.tolist()):
                if v > 0:
                    edits.append((s, e, _REASONS[v], _REASONS[v]))
        if not edits:
            return doc
        edits.sort()
        for s, e, why, label in edits:
            audit = {"component": self.name, "entity": label} if why == PHI else None
            add_edit(doc, s, e, why, self._replacement(doc, s, e, label), audit=audit)
        return doc

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        """Process a stream of Docs; a failing Doc goes to the error handler alone,
        never dropping the rest of its batch (the work is vectorised within each
        Doc, so there is no batch state)."""
        return pipe_each(self, stream)

    # ------------------------------------------------------------ serialisation
    def _cfg(self) -> dict:
        return {
            "k": self.k,
            "settings": self.extractor.settings(),
            "stats": self.stats,
        }

    def _data(self) -> dict:
        return {
            "allowed": np.ascontiguousarray(self.allowed, dtype="<u8").tobytes(),
            "whitelist": self.whitelist.to_dict(),
            "common": self.common.to_dict(),
            "blacklist": self.blacklist.to_dict(),
        }

    def _load_cfg(self, cfg: dict) -> None:
        if cfg.get("settings") != self.extractor.settings():
            raise ValueError(
                f"[{self.name}] saved items were made with settings {cfg.get('settings')}, "
                f"the config says {self.extractor.settings()}: re-fit the pipeline"
            )
        self.k = cfg.get("k")
        self.stats = cfg.get("stats") or {}

    def _load_data(self, data: dict) -> None:
        self.allowed = np.frombuffer(data["allowed"], dtype="<u8").astype(np.uint64)
        self.whitelist = HashedTerms.from_dict(data.get("whitelist") or {})
        self.common = HashedTerms.from_dict(data.get("common") or {})
        self.blacklist = HashedTerms.from_dict(data.get("blacklist") or {})

    def to_bytes(self, *, exclude: Iterable[str] = tuple()) -> bytes:
        """Serialise the fitted state (hashes and settings only)."""
        return srsly.msgpack_dumps({"cfg": self._cfg(), "data": self._data()})

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = tuple()) -> "FrequencyMasker":
        msg = srsly.msgpack_loads(bytes_data)
        self._load_cfg(msg["cfg"])
        self._load_data(msg["data"])
        return self

    def to_disk(self, path, *, exclude: Iterable[str] = tuple()) -> None:
        """Save to a directory: ``cfg`` (JSON) and ``items.msgpack`` (hashes)."""
        from spacy import util

        serializers = {
            "cfg": lambda p: srsly.write_json(p, self._cfg()),
            "items.msgpack": lambda p: srsly.write_msgpack(p, self._data()),
        }
        util.to_disk(path, serializers, exclude)

    def from_disk(self, path, *, exclude: Iterable[str] = tuple()) -> "FrequencyMasker":
        from spacy import util

        deserializers = {
            "cfg": lambda p: self._load_cfg(srsly.read_json(p)),
            "items.msgpack": lambda p: self._load_data(srsly.read_msgpack(p)),
        }
        util.from_disk(path, deserializers, exclude)
        return self


__all__ = ["FrequencyMasker", "make_frequency_masker", "ITEM_KINDS", "DEFAULT_CONFIG_STR"]
