"""mlm_resampler: DataSifterText masking and masked-LM resampling.

For each document the component masks tokens by the DataSifterText schedule
(``datasifter_mask``) and fills every mask with a word *sampled* from a masked
language model's distribution P(w_t | W_i). Each resampled token becomes an edit
(label ``MLM``) whose replacement is the first candidate; the ranked candidate
list is kept in ``span._.deid_audit["candidates"]`` so a downstream
``similarity_filter`` can pick another candidate by adding an overriding edit.

The model is any local Hugging Face masked-LM directory with a WordPiece (BERT
style) tokenizer: the small one ``python -m spacy_deid pretrain`` trains on the
frequency-masked corpus, or a clinical BERT a user has. ``MLMSampler`` is the
model-facing half (batched windows, sampling without replacement, privacy
rejection) and is usable on its own; torch and transformers are imported lazily.

Multi-wordpiece words: a masked word is replaced by ONE ``[MASK]`` token whatever
its number of wordpieces, and the sample for it is drawn from the whole-word part
of the vocabulary (no ``##`` continuation pieces, no special tokens). So every
replacement is one vocabulary word, the model sees one mask per masked word, and
the schedule's "one token, one mask" is the same for short and long words.
"""
import functools
import math
import re
import shutil
import tempfile
import weakref
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import numpy
import srsly
from spacy.language import Language
from spacy.pipeline import Pipe
from spacy.attrs import IS_PUNCT, IS_SPACE, IS_STOP, LOWER, ORTH
from spacy.tokens import Doc
from spacy.util import ensure_path, minibatch

from spacy_deid.edits import MLM, add_edit, get_edits
from spacy_deid.util import RecordsReader, require_corpus, stable_key

Reject = Callable[[str], bool]
RngLike = Union[numpy.random.Generator, Sequence[numpy.random.Generator], None]

MODEL_DIR = "model"
SPREAD_FILE = "spread.msgpack"
# Tokens tried after the top_k ones, in rank order, when none of the top_k passes
# (the shape, stop-word and inflection rules can reject most of the top_k).
FALLBACK_TOKENS = 200
# Model files written by save_pretrained that to_bytes packs (no checkpoints, no data).
_MODEL_FILE_SUFFIXES = (".json", ".txt", ".safetensors", ".model")

# What the cap ``max_mask_fraction`` is a share of: the maskable content words
# (tokens neither protected nor stop word/punctuation/whitespace, plus forced
# tokens), or every non-whitespace token (DataSifterText's T).
MASK_FRACTION_OF = ("content", "tokens")

DEFAULT_CONFIG: Dict[str, Any] = {
    "model": None,
    "p_w": 0.5,
    "p_n": 0.75,
    "coef_start": 1.2,
    "coef_step": 0.05,
    "coef_min": 0.05,
    "max_mask_fraction": 0.5,
    "mask_fraction_of": "content",
    "max_passes": 100,
    "protected_terms": [],
    "protected_terms_file": None,
    "protect_stop_words": True,
    "protect_punct": True,
    "focus_terms": [],
    "focus_terms_file": None,
    "spread_ref": None,
    "spread_min": 0.05,
    "spread_min_count": 5,
    "spread_raise": "every_pass",
    "resample_upstream": True,
    "resample_ents": True,
    "keep_upstream_categories": [],
    "n_candidates": 8,
    "temperature": 1.0,
    "top_k": 50,
    "seed": 0,
    "batch_size": 64,
    "window_size": 128,
    "context": 32,
    "match_case": True,
    "keep_shape": True,
    "keep_inflection": True,
    "device": None,
}


# ---------------------------------------------------------------------------
# The DataSifterText schedule (pure functions, unit-tested on their own)


def mask_probability(coef: float, focus: bool, p_w: float = 0.5, p_n: float = 0.75) -> float:
    """DataSifterText's masking probability of one unprotected token.

    coef (float): the current spreading coefficient.
    focus (bool): whether the token is a focus term (DataSifterText's "whitelist").
    p_w (float): the focus-term parameter.
    p_n (float): the parameter of every other token.
    RETURNS (float): p = 1 - p_w * coef (focus) or 1 - p_n * coef, clipped to [0, 1].
    """
    p = 1.0 - (p_w if focus else p_n) * coef
    return min(1.0, max(0.0, p))


RAISE_WEIGHTS = ("exhausted", "every_pass")


def datasifter_mask(
    countable: Sequence[bool],
    protected: Sequence[bool],
    focus: Sequence[bool],
    forced: Sequence[bool],
    rng: numpy.random.Generator,
    *,
    cap_base: Optional[Sequence[bool]] = None,
    weights: Optional[Sequence[float]] = None,
    p_w: float = 0.5,
    p_n: float = 0.75,
    coef_start: float = 1.2,
    coef_step: float = 0.05,
    coef_min: float = 0.05,
    max_mask_fraction: float = 0.5,
    max_passes: int = 100,
    raise_weights: str = "every_pass",
) -> List[bool]:
    """Choose the tokens to mask in one document (the DataSifterText masking loop, terminating).

    Passes run over the document; in each pass every countable token that is not
    yet masked is masked with probability ``mask_probability(coef, ...)`` (0 for
    protected tokens). ``coef`` starts at ``coef_start``, is reset to it after
    each mask and drops by ``coef_step`` after each unmasked token, never below
    ``coef_min``; it carries over from one pass to the next as in the seed. A
    token masked earlier (or forced) counts as a mask for the spreading rule.

    Differences from the seed, on purpose: masking stops as soon as
    ``floor(max_mask_fraction * T)`` tokens of ``cap_base`` are masked (the seed
    finishes the pass and can overshoot), and passes stop when no token is
    eligible any more (DataSifterText's ``while`` never ends when too few tokens can be
    masked); ``max_passes`` is a last bound. Forced tokens (edited upstream) are
    always masked and count towards the cap, but are never un-masked by it.

    countable (Sequence[bool]): tokens the schedule walks over (whitespace is not).
    cap_base (Optional[Sequence[bool]]): the tokens T of the cap, and the only
        masks that count towards it (the resampler passes the maskable content
        words, so the cap is a share of the words that can be resampled); None:
        the countable tokens.
    protected (Sequence[bool]): never masked by the schedule (p = 0).
    focus (Sequence[bool]): focus terms (p = 1 - p_w * coef).
    forced (Sequence[bool]): always masked.
    rng (numpy.random.Generator): the document's random generator.
    weights (Optional[Sequence[float]]): per token, a factor in (0, 1] on its
        probability in the first pass, doubled (up to 1) when ``raise_weights``
        says: the resampler's spread weighting, where words of few notes are
        masked later, never excluded; None: 1 for every token.
    raise_weights (str): when the weights are doubled: "exhausted", after a pass
        that leaves no maskable token of full weight unmasked (the words of few
        notes are masked at their low weight until the words of many cannot
        fill the cap any more); "every_pass", after every pass.
    RETURNS (List[bool]): per token, whether it is masked.
    """
    if raise_weights not in RAISE_WEIGHTS:
        raise ValueError(f"raise_weights must be one of {', '.join(RAISE_WEIGHTS)}, got {raise_weights!r}")
    n = len(countable)
    masked = [bool(forced[i]) for i in range(n)]
    base = countable if cap_base is None else cap_base
    total = sum(1 for c in base if c)
    cap = int(math.floor(max_mask_fraction * total + 1e-9))
    n_masked = sum(1 for i in range(n) if masked[i] and base[i])
    coef = coef_start
    # Tokens that can ever be masked: p at the lowest coef is the highest p.
    can_mask = {
        f: mask_probability(coef_min, f, p_w, p_n) > 0.0 for f in (False, True)
    }  # p is highest at the lowest coef: a token that cannot be masked there never can
    n_eligible = sum(
        1 for i in range(n) if countable[i] and not protected[i] and not masked[i] and can_mask[bool(focus[i])]
    )
    order = [i for i in range(n) if countable[i]]
    passes = 0
    boost = 1.0
    while n_masked < cap and n_eligible > 0 and passes < max_passes:
        passes += 1
        if weights is not None and passes > 1:
            # "exhausted": only once no maskable token of full weight is left unmasked
            if raise_weights == "every_pass" or not any(
                not masked[i] and not protected[i] and can_mask[bool(focus[i])] and weights[i] * boost >= 1.0
                for i in order
            ):
                boost *= 2.0
        for i in order:
            if masked[i]:
                coef = coef_start
                continue
            p = 0.0 if protected[i] else mask_probability(coef, bool(focus[i]), p_w, p_n)
            if weights is not None:
                p *= min(1.0, weights[i] * boost)
            if p > 0.0 and rng.random() < p:
                masked[i] = True
                n_masked += bool(base[i])
                n_eligible -= 1
                coef = coef_start
                if n_masked >= cap:
                    return masked
            elif coef > coef_min:
                coef = max(coef_min, coef - coef_step)
    return masked


def word_spread(
    nlp: Language, name: str, corpus: RecordsReader, min_count: int = 5
) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """How widely each word is spread over the corpus' patients.

    Only words a fitted component may store are counted in (those of
    ``similarity_filter.shareable_frequent_words``: at least ``min_count``
    patients, public vocabulary, never in PHI): the table is saved with the
    pipeline as hashes and shares.

    RETURNS (Tuple[numpy.ndarray, numpy.ndarray]): the words' ``LOWER`` hashes
        (sorted, uint64) and their shares of the patients (float32).
    """
    from spacy.strings import hash_string

    from spacy_deid.components.similarity_filter import shareable_frequent_words

    words, n_units = shareable_frequent_words(nlp, name, corpus, min_count, count_by="patient")
    pairs = sorted((hash_string(w), c / max(n_units, 1)) for w, c in words.items())
    hashes = numpy.array([h for h, _ in pairs], dtype=numpy.uint64)
    shares = numpy.array([c for _, c in pairs], dtype=numpy.float32)
    return hashes, shares


def spread_weights(
    lower: numpy.ndarray, hashes: numpy.ndarray, shares: numpy.ndarray, spread_ref: float, spread_min: float
) -> numpy.ndarray:
    """Per token, the factor on its masking probability: its word's share of the
    patients over ``spread_ref``, clipped to [spread_min, 1] (a word missing from
    the table gets ``spread_min``).

    lower (numpy.ndarray): the tokens' ``LOWER`` hashes.
    RETURNS (numpy.ndarray): the weights (float).
    """
    found = numpy.zeros(len(lower), dtype=numpy.float64)
    if len(hashes) and len(lower):
        idx = numpy.searchsorted(hashes, lower)
        idx = numpy.minimum(idx, len(hashes) - 1)
        hit = hashes[idx] == lower
        found[hit] = shares[idx[hit]]
    return numpy.clip(found / spread_ref, spread_min, 1.0)


# A token that fuses a word with punctuation other than an inner hyphen, apostrophe
# or period: ",MEDICATIONS" and "32.,PROCEDURE" in notes whose line breaks became
# commas, "s/p", "(left)". A one-word replacement would drop its punctuation (and the
# number fused to it), so with protect_punct such a token is never resampled.
FUSED_PUNCT = re.compile(r"[^\w\s'.\-]|^[.\-]|[.\-]{2}")


def fuses_punct(text: str) -> bool:
    """Whether ``text`` has a letter and punctuation that is not inside a word."""
    return any(c.isalpha() for c in text) and FUSED_PUNCT.search(text) is not None


def coarse_shape(text: str) -> str:
    """"word" (has a letter), "number" (has a digit, no letter) or "punct"."""
    if any(c.isalpha() for c in text):
        return "word"
    if any(c.isdigit() for c in text):
        return "number"
    return "punct"


def inflection(word: str) -> str:
    """The inflection the suffix of ``word`` tells: "ing", "ed", "s" or "".

    Only suffixes that say something are read: "-ing" on 5+ letters after a vowel
    (not "bring", "thing"), "-ed" on 4+ but not "-eed" (need, proceed), "-s" on 4+
    letters but not "-ss", "-us", "-is" (mass, sinus, diagnosis).
    """
    w = word.lower()
    if len(w) >= 5 and w.endswith("ing") and any(c in "aeiouy" for c in w[:-3]):
        return "ing"
    if len(w) >= 4 and w.endswith("ed") and not w.endswith("eed"):
        return "ed"
    if len(w) >= 4 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return "s"
    return ""


def digit_shape(text: str) -> str:
    """``text`` with every digit written as "d" (same digit count and separators)."""
    return "".join("d" if c.isdigit() else c for c in text)


def faithful(
    original: str, candidate: str, stop_words: Iterable[str] = (), keep_inflection: bool = True
) -> bool:
    """Whether ``candidate`` may replace ``original`` (a masked token).

    Same coarse shape (``coarse_shape``): a word only by a word, a number only by a
    number of the same ``digit_shape`` (so the same digit count), never a word by
    punctuation; a content word (not in ``stop_words``, lower-cased) never by a
    stop word; with ``keep_inflection``, a word only by a word of the same
    ``inflection`` (-s, -ed, -ing or none).
    """
    shape, form, low = _traits(original)
    c_shape, c_form, c_low = _traits(candidate)
    if c_shape != shape:
        return False
    if shape == "number":
        return c_form == form
    if shape == "word":
        if c_low in stop_words and low not in stop_words:
            return False
        if keep_inflection and c_form != form:
            return False
    return True


@functools.lru_cache(maxsize=200_000)
def _traits(text: str) -> Tuple[str, str, str]:
    """``faithful``'s view of a word, computed once per string (the sampler checks the
    same vocabulary words for every target): its coarse shape, its digit shape (a
    number) or inflection (a word), and its lower case."""
    shape = coarse_shape(text)
    form = digit_shape(text) if shape == "number" else inflection(text) if shape == "word" else ""
    return shape, form, text.lower()


def read_terms(name_or_path: Optional[str]) -> List[str]:
    """The terms of a term-list file (a shipped asset's name or a path): one term or
    phrase per line, '#' starts a comment. None: no terms."""
    if not name_or_path:
        return []
    from spacy_deid.resources import asset_path

    terms = []
    for line in asset_path(name_or_path).read_text(encoding="utf8").splitlines():
        term = line.split("#", 1)[0].strip()
        if term:
            terms.append(term)
    return terms


# ---------------------------------------------------------------------------
# Seeds and devices


def doc_key(doc: Doc) -> int:
    """The stable key of a document: its record id when it has one, else its text."""
    record = doc._.deid_record if Doc.has_extension("deid_record") else None
    if record and record.get("id") is not None:
        return stable_key(("id", record["id"]))
    return stable_key(("text", doc.text))


def doc_rngs(seed: int, doc: Doc) -> Tuple[numpy.random.Generator, numpy.random.Generator]:
    """The document's two generators (schedule, sampling), from the seed and its key."""
    seq = numpy.random.SeedSequence([int(seed) & 0xFFFFFFFF, doc_key(doc)])
    a, b = seq.spawn(2)
    return numpy.random.default_rng(a), numpy.random.default_rng(b)


def current_torch_device() -> str:
    """``cuda:N`` when thinc's current ops are CupyOps (``spacy.prefer_gpu`` /
    ``require_gpu`` / ``--gpu-id``), else ``cpu``."""
    from thinc.api import get_current_ops

    ops = get_current_ops()
    if type(ops).__name__ == "CupyOps":
        try:
            import cupy

            return f"cuda:{cupy.cuda.runtime.getDevice()}"
        except Exception:  # cupy present but no device query: the default GPU
            return "cuda"
    return "cpu"


# ---------------------------------------------------------------------------
# The model-facing sampler


def _check_model_dir(path: Path) -> None:
    if not path.exists():
        raise ValueError(f"MLM model directory not found: {path}")
    if not path.is_dir():
        raise ValueError(f"MLM model path is not a directory: {path}")
    if not (path / "config.json").exists():
        raise ValueError(
            f"{path} is not a Hugging Face model directory (no config.json). Point the "
            f"component at a local masked-LM directory, e.g. the output of `python -m spacy_deid pretrain`."
        )


def mlm_head(model: Any) -> Optional[Tuple[Any, Any, Any, Any]]:
    """(encoder, transform, decoder, bias) of a BERT- or ModernBERT-style masked LM,
    else None.

    Projecting every position onto the vocabulary costs more than the encoder of
    a small model, and only the masked positions and whole-word rows are needed:
    for ``BertForMaskedLM`` layouts (``cls.predictions``) and ``ModernBertForMaskedLM``
    ones (``head`` + ``decoder``) the head can run on those alone (the sampler and
    pretraining do); any other masked LM runs whole.
    """
    base = getattr(model, getattr(model, "base_model_prefix", ""), None)
    if base is None:
        return None
    predictions = getattr(getattr(model, "cls", None), "predictions", None)
    if predictions is not None and all(hasattr(predictions, a) for a in ("transform", "decoder", "bias")):
        return base, predictions.transform, predictions.decoder, predictions.bias
    head, decoder = getattr(model, "head", None), getattr(model, "decoder", None)
    if head is not None and getattr(decoder, "bias", None) is not None and hasattr(decoder, "weight"):
        return base, head, decoder, decoder.bias
    return None



def eager(model: Any) -> Any:
    """Turn off ModernBERT's ``torch.compile`` of a loaded model: transformers does not
    save ``reference_compile=False`` with the config, and on CUDA a reloaded model would
    compile its layers again in every process (seconds per process, more on a fresh
    machine), for no gain on our short inference batches."""
    if hasattr(model.config, "reference_compile"):
        model.config.reference_compile = False
    return model

class MLMSampler:
    """Batched masked-LM sampling of whole-word replacements.

    model (transformers.PreTrainedModel): a masked LM (``AutoModelForMaskedLM``).
    tokenizer (transformers.PreTrainedTokenizerFast): its WordPiece tokenizer.
    device (str): torch device, e.g. "cpu" or "cuda:0".
    window_size (int): wordpieces per window, [CLS] and [SEP] included; clamped to
        what the model's position embeddings allow.
    context (int): wordpieces of context on each side of a window's core when a
        document is split into several windows.
    batch_size (int): windows per forward pass.
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        device: str = "cpu",
        window_size: int = 128,
        context: int = 32,
        batch_size: int = 64,
    ):
        import torch

        if not getattr(tokenizer, "is_fast", False):
            raise ValueError("MLMSampler needs a fast (Rust) tokenizer: tokenizer.json or vocab.txt of a BERT-style model")
        backend = tokenizer.backend_tokenizer
        if type(backend.model).__name__ != "WordPiece":
            raise ValueError(
                f"MLMSampler supports WordPiece (BERT-style) tokenizers only, got {type(backend.model).__name__}"
            )
        if tokenizer.mask_token_id is None:
            raise ValueError("The tokenizer has no mask token: not a masked language model")
        self.torch = torch
        self.device = torch.device(device)
        self.model = model.to(self.device).eval()
        self.tokenizer = tokenizer
        max_pos = getattr(model.config, "max_position_embeddings", None) or window_size
        tok_max = getattr(tokenizer, "model_max_length", None)
        limits = [window_size, max_pos] + ([tok_max] if tok_max and tok_max < 100_000 else [])
        self.window_size = max(8, int(min(limits)))
        self.context = max(0, int(context))
        self.batch_size = max(1, int(batch_size))
        self.continuation_prefix = getattr(backend.model, "continuing_subword_prefix", "##") or "##"
        normalizer = backend.normalizer
        self.lowercases = bool(normalizer is not None and normalizer.normalize_str("Ab") == "ab")
        vocab_size = int(model.get_output_embeddings().weight.shape[0])
        self.vocab: List[str] = [
            tok if tok is not None else "" for tok in tokenizer.convert_ids_to_tokens(list(range(vocab_size)))
        ]
        special = set(tokenizer.all_special_ids)
        special.update(i for i, t in tokenizer.added_tokens_decoder.items() if t.special)
        bracketed = re.compile(r"^\[[^\]]+\]$|^<[^>]+>$")  # [unused12], [UNK], <s>...
        allowed = numpy.array(
            [
                i not in special
                and bool(tok.strip())
                and not tok.startswith(self.continuation_prefix)
                and not bracketed.match(tok)
                for i, tok in enumerate(self.vocab)
            ],
            dtype=bool,
        )
        if not allowed.any():
            raise ValueError("The model's vocabulary has no whole-word token to sample")
        self.n_allowed = int(allowed.sum())
        # Sampling happens in "allowed space": logits are computed for the whole-word
        # tokens only (in a WordPiece vocabulary a third or more are ## pieces).
        self.allowed_ids = numpy.flatnonzero(allowed).astype(numpy.int64)
        self._allowed_t = torch.from_numpy(self.allowed_ids).to(self.device)
        self._piece_cache: Dict[str, List[int]] = {}
        self._fast_path = mlm_head(self.model)

    # -- loading and saving

    @classmethod
    def from_path(cls, path: Union[str, Path], device: str = "cpu", **kwargs: Any) -> "MLMSampler":
        """Load a local Hugging Face masked-LM directory (offline).

        path (Union[str, Path]): the directory (config.json, weights, tokenizer files).
        device (str): torch device.
        RETURNS (MLMSampler): the sampler.
        """
        path = Path(path)
        _check_model_dir(path)
        import os

        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from transformers import AutoModelForMaskedLM, AutoTokenizer
        from transformers.utils import logging as hf_logging

        verbosity = hf_logging.get_verbosity()
        hf_logging.set_verbosity_error()  # the missing-weights warning becomes our error below
        try:
            model, info = AutoModelForMaskedLM.from_pretrained(
                str(path), local_files_only=True, output_loading_info=True
            )
        except (ValueError, OSError, KeyError) as err:
            raise ValueError(f"{path} is not a loadable masked language model: {err}") from None
        finally:
            hf_logging.set_verbosity(verbosity)
        missing = [k for k in info.get("missing_keys", []) if not k.endswith("position_ids")]
        if missing:
            raise ValueError(
                f"{path} is not a masked language model: its weights lack the MLM head "
                f"({len(missing)} missing, e.g. {missing[0]})"
            )
        eager(model)
        try:
            tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True, use_fast=True)
        except (ValueError, OSError) as err:
            raise ValueError(f"{path} has no usable tokenizer: {err}") from None
        return cls(model, tokenizer, device=device, **kwargs)

    def save(self, path: Union[str, Path]) -> None:
        """Write the model and the full tokenizer files with ``save_pretrained``."""
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        self.model.save_pretrained(str(path))
        self.tokenizer.save_pretrained(str(path))

    # -- the forward pass

    def allowed_logits(self, input_ids: Any, attention_mask: Any, rows: Any, cols: Any) -> Any:
        """Logits of the whole-word tokens (``allowed_ids``) at the (row, column)
        positions of a padded batch. Call under ``torch.inference_mode()``."""
        torch = self.torch
        if self._fast_path is not None:
            base, transform, decoder, bias = self._fast_path
            hidden = base(input_ids=input_ids, attention_mask=attention_mask)[0]
            h = transform(hidden[rows, cols])
            # weights are sliced per batch (cheap) so an edited head is always seen
            weight = torch.index_select(decoder.weight, 0, self._allowed_t)
            return torch.nn.functional.linear(h, weight, torch.index_select(bias, 0, self._allowed_t))
        out = self.model(input_ids=input_ids, attention_mask=attention_mask)
        return torch.index_select(out.logits[rows, cols], 1, self._allowed_t)

    def _pieces(self, words: List[str]) -> List[List[int]]:
        cache = self._piece_cache
        todo = [w for w in dict.fromkeys(words) if w not in cache]
        if todo:
            if len(cache) > 200_000:  # bounded: a long run must not grow without end
                cache.clear()
            encoded = self.tokenizer(todo, add_special_tokens=False)["input_ids"]
            unk = self.tokenizer.unk_token_id
            for w, ids in zip(todo, encoded):
                cache[w] = list(ids) if ids else ([unk] if unk is not None else [])
        return [cache[w] for w in words]

    def _context_pieces(self) -> int:
        # At most a quarter of the window on each side, so the core (the part whose
        # masks a window predicts) keeps at least half of it: small windows would
        # otherwise need one forward pass per couple of words.
        return min(self.context, (self.window_size - 2) // 4)

    def _windows(self, lens: List[int], is_target: List[bool]) -> List[Tuple[int, int, int, int]]:
        """Split a document's words into windows (start, end, core_start, core_end).

        Each target word lies in exactly one window's core; the core has context
        on both sides where the document allows, so masks near a core's edge
        still see both neighbours. Windows whose core holds no target are skipped.
        """
        n = len(lens)
        room = self.window_size - 2
        if sum(lens) <= room:
            return [(0, n, 0, n)] if any(is_target) else []
        context = self._context_pieces()
        core_room = max(1, room - 2 * context)
        n_before = [0]
        for flag in is_target:
            n_before.append(n_before[-1] + bool(flag))
        out = []
        i = 0
        while i < n:
            j, size = i, 0
            while j < n and (j == i or size + lens[j] <= core_room):
                size += lens[j]
                j += 1
            if n_before[j] > n_before[i]:
                budget = room - size
                a, left = i, 0
                while a > 0 and left + lens[a - 1] <= budget // 2:
                    a -= 1
                    left += lens[a]
                b, right = j, 0
                while b < n and left + right + lens[b] <= budget:
                    right += lens[b]
                    b += 1
                while a > 0 and left + right + lens[a - 1] <= budget:
                    a -= 1
                    left += lens[a]
                out.append((a, b, i, j))
            i = j
        return out

    def _topk_at_masks(
        self, docs: Sequence[Doc], targets: Sequence[Sequence[int]], keep: int
    ) -> Tuple[Dict[Tuple[int, int], int], numpy.ndarray, numpy.ndarray]:
        """Run the model once per batch of windows over all docs; return, per mask
        (doc index, token index), a row of the ``keep`` best allowed vocabulary ids
        and their logits."""
        torch = self.torch
        cls_id, sep_id = self.tokenizer.cls_token_id, self.tokenizer.sep_token_id
        pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        mask_id = self.tokenizer.mask_token_id
        max_piece = max(1, self.window_size - 2 - 2 * self._context_pieces())
        windows: List[Tuple[List[int], List[Tuple[int, int]]]] = []
        for di, (doc, tgt) in enumerate(zip(docs, targets)):
            orths, spaces = doc.to_array([ORTH, IS_SPACE]).T if len(doc) else ((), ())
            tgt_set = {t for t in tgt if 0 <= t < len(doc) and not spaces[t]}
            if not tgt_set:
                continue
            strings = doc.vocab.strings
            tok_idx = [i for i in range(len(doc)) if not spaces[i]]
            is_target = [i in tgt_set for i in tok_idx]
            # target words are masked whatever their pieces: tokenise the others only
            words = [strings[int(orths[i])] for i, m in zip(tok_idx, is_target) if not m]
            known = iter(self._pieces(words))
            pieces = [[mask_id] if m else next(known) for m in is_target]
            pieces = [p[:max_piece] for p in pieces]
            lens = [len(p) for p in pieces]
            for a, b, ca, cb in self._windows(lens, is_target):
                ids = [cls_id]
                masks = []
                for w in range(a, b):
                    if ca <= w < cb and is_target[w]:
                        masks.append((len(ids), tok_idx[w]))
                    ids.extend(pieces[w])
                ids.append(sep_id)
                windows.append((ids, [(pos, di, tok) for pos, tok in masks]))
        index: Dict[Tuple[int, int], int] = {}
        n_masks = sum(len(m) for _, m in windows)
        top_vals = numpy.full((n_masks, keep), -numpy.inf, dtype=numpy.float32)
        top_ids = numpy.zeros((n_masks, keep), dtype=numpy.int64)
        order = sorted(range(len(windows)), key=lambda w: len(windows[w][0]))
        row = 0
        for batch in minibatch(order, size=self.batch_size):
            width = max(len(windows[w][0]) for w in batch)
            ids_arr = numpy.full((len(batch), width), pad_id, dtype=numpy.int64)
            att_arr = numpy.zeros((len(batch), width), dtype=numpy.int64)
            rows, cols = [], []
            for r, w in enumerate(batch):
                ids, masks = windows[w]
                ids_arr[r, : len(ids)] = ids
                att_arr[r, : len(ids)] = 1
                for pos, di, tok in masks:
                    rows.append(r)
                    cols.append(pos)
                    index[(di, tok)] = row + len(rows) - 1
            if not rows:
                continue
            with torch.inference_mode():
                logits = self.allowed_logits(
                    torch.from_numpy(ids_arr).to(self.device),
                    torch.from_numpy(att_arr).to(self.device),
                    torch.tensor(rows, device=self.device),
                    torch.tensor(cols, device=self.device),
                ).float()
                vals, idx = torch.topk(logits, k=keep, dim=-1)
            top_vals[row : row + len(rows)] = vals.cpu().numpy()
            top_ids[row : row + len(rows)] = self.allowed_ids[idx.cpu().numpy()]
            row += len(rows)
        return index, top_vals, top_ids

    # -- sampling

    def _case_like(self, word: str, original: str) -> str:
        if not self.lowercases or not word:
            return word
        if len(original) > 1 and original.isupper():
            return word.upper()
        if original[:1].isupper():
            return word[:1].upper() + word[1:]
        return word

    def candidates(
        self,
        docs: List[Doc],
        targets: List[List[int]],
        n_candidates: int = 10,
        rng: RngLike = None,
        temperature: float = 1.0,
        top_k: int = 50,
        reject: Union[Reject, Sequence[Optional[Reject]], None] = None,
        match_case: bool = True,
        keep_shape: bool = False,
        keep_inflection: bool = False,
        stop_words: Iterable[str] = (),
    ) -> List[List[List[str]]]:
        """Sample replacement words for target tokens of many documents.

        All targets of a document are masked at once (one ``[MASK]`` per word);
        the documents' windows go through the model in batches of ``batch_size``.
        For each target, up to ``n_candidates`` distinct whole words are drawn
        without replacement from the model's distribution restricted to its
        ``top_k`` best whole-word tokens (Gumbel-top-k, i.e. successive sampling
        without replacement, at ``temperature``; ``temperature <= 0`` ranks
        greedily). A word is skipped when it equals the original token
        (case-insensitively), is a special token or a ``##`` fragment, repeats an
        earlier candidate, or when ``reject(word)`` is True. When the ``top_k``
        tokens yield no candidate at all, the next ``FALLBACK_TOKENS`` best tokens
        are tried in order, so an empty list means that even those were all
        rejected.

        docs (List[Doc]): the documents.
        targets (List[List[int]]): per doc, the token indices to resample
            (whitespace tokens get an empty list).
        n_candidates (int): candidates per target.
        rng (Union[Generator, Sequence[Generator], None]): one generator for all
            docs, or one per doc (reproducible per doc whatever the batch); None:
            ``numpy.random.default_rng(0)``.
        temperature (float): softmax temperature.
        top_k (int): sample among this many best whole-word tokens.
        reject (Union[Callable[[str], bool], Sequence[Optional[Callable]], None]):
            privacy filter, one for all docs or one per doc.
        match_case (bool): with a lower-casing tokenizer, give a candidate the
            original's case pattern (Title, UPPER).
        keep_shape (bool): only faithful candidates (``faithful``): the original's
            coarse shape, a number's digit shape, no stop word for a content word.
        keep_inflection (bool): with ``keep_shape``, also the original's
            inflection (``inflection``: -s, -ed, -ing or none).
        stop_words (Iterable[str]): the stop words of the ``keep_shape`` rule.
        RETURNS (List[List[List[str]]]): per doc, per target, the ranked candidates.
        """
        if len(targets) != len(docs):
            raise ValueError(f"targets has {len(targets)} entries for {len(docs)} docs")
        if rng is None or isinstance(rng, numpy.random.Generator):
            shared = rng if rng is not None else numpy.random.default_rng(0)
            rngs = [shared] * len(docs)
        else:
            rngs = list(rng)
            if len(rngs) != len(docs):
                raise ValueError(f"{len(rngs)} generators for {len(docs)} docs")
        if reject is None or callable(reject):
            rejects = [reject] * len(docs)
        else:
            rejects = list(reject)
        top_k = max(1, min(int(top_k), self.n_allowed))
        keep = min(self.n_allowed, top_k + FALLBACK_TOKENS)
        index, top_vals, top_ids = self._topk_at_masks(docs, targets, keep)
        vocab = self.vocab
        stops = frozenset(w.lower() for w in stop_words)
        out: List[List[List[str]]] = []
        for di, (doc, tgt) in enumerate(zip(docs, targets)):
            r, rej = rngs[di], rejects[di]
            doc_out: List[List[str]] = []
            rows = [index.get((di, t)) for t in tgt]
            valid = [m for m in rows if m is not None]
            if temperature > 0 and valid:
                # Gumbel-top-k: ranking logits/T + Gumbel noise is sampling without
                # replacement in proportion to softmax(logits/T); one draw per doc.
                keys = top_vals[valid, :top_k].astype(numpy.float64) / temperature
                keys += r.gumbel(size=keys.shape)
                ranks = numpy.argsort(-keys, axis=1, kind="stable")
            k = -1
            for t, m in zip(tgt, rows):
                if m is None:
                    doc_out.append([])
                    continue
                k += 1
                original = doc[t].text
                orig_key = original.casefold()
                vals, ids = top_vals[m], top_ids[m]
                ranked = ranks[k] if temperature > 0 else numpy.arange(top_k)
                chosen: List[str] = []
                seen = {orig_key}
                for pool in (ranked, numpy.arange(top_k, keep)):
                    for j in pool:
                        if len(chosen) >= n_candidates or not numpy.isfinite(vals[j]):
                            break
                        word = vocab[int(ids[j])]
                        if match_case:
                            word = self._case_like(word, original)
                        key = word.casefold()
                        if key in seen:
                            continue
                        seen.add(key)
                        if keep_shape and not faithful(original, word, stops, keep_inflection):
                            continue
                        if rej is not None and rej(word):
                            continue
                        chosen.append(word)
                    if chosen:
                        break
                doc_out.append(chosen)
            out.append(doc_out)
        return out


def _decide_check(proc: Any, make_doc: Callable[[str], Doc]) -> Callable[[str], bool]:
    """``is_allowed`` for a frequency_masker that only has ``decide(doc)``: the word
    is tokenised alone and allowed when no token of it would be masked. A word the
    masker cannot judge (an error) is refused: privacy first. Answers are cached
    (the masker's counts are fixed once fitted; the words are vocabulary entries)."""
    cache: Dict[str, bool] = {}

    def is_allowed(word: str) -> bool:
        hit = cache.get(word)
        if hit is None:
            try:
                codes = proc.decide(make_doc(word))
                hit = not bool(numpy.asarray(codes).any())
            except Exception:
                hit = False
            if len(cache) > 100_000:
                cache.clear()
            cache[word] = hit
        return hit

    return is_allowed


# ---------------------------------------------------------------------------
# The component


@Language.factory(
    "mlm_resampler",
    default_config=DEFAULT_CONFIG,
    requires=["doc.spans", "doc.ents"],
    assigns=["doc.spans"],
)
def make_mlm_resampler(
    nlp: Language,
    name: str,
    model: Optional[str],
    p_w: float,
    p_n: float,
    coef_start: float,
    coef_step: float,
    coef_min: float,
    max_mask_fraction: float,
    mask_fraction_of: str,
    max_passes: int,
    protected_terms: List[str],
    protected_terms_file: Optional[str],
    protect_stop_words: bool,
    protect_punct: bool,
    focus_terms: List[str],
    focus_terms_file: Optional[str],
    spread_ref: Optional[float],
    spread_min: float,
    spread_min_count: int,
    spread_raise: str,
    resample_upstream: bool,
    resample_ents: bool,
    keep_upstream_categories: List[str],
    n_candidates: int,
    temperature: float,
    top_k: int,
    seed: int,
    batch_size: int,
    window_size: int,
    context: int,
    match_case: bool,
    keep_shape: bool,
    keep_inflection: bool,
    device: Optional[str],
) -> "MLMResampler":
    """Create the mlm_resampler (see ``MLMResampler`` and the README section "mlm_resampler")."""
    return MLMResampler(
        nlp.vocab,
        name=name,
        nlp=nlp,
        model=model,
        p_w=p_w,
        p_n=p_n,
        coef_start=coef_start,
        coef_step=coef_step,
        coef_min=coef_min,
        max_mask_fraction=max_mask_fraction,
        mask_fraction_of=mask_fraction_of,
        max_passes=max_passes,
        protected_terms=protected_terms,
        protected_terms_file=protected_terms_file,
        protect_stop_words=protect_stop_words,
        protect_punct=protect_punct,
        focus_terms=focus_terms,
        focus_terms_file=focus_terms_file,
        spread_ref=spread_ref,
        spread_min=spread_min,
        spread_min_count=spread_min_count,
        spread_raise=spread_raise,
        resample_upstream=resample_upstream,
        resample_ents=resample_ents,
        keep_upstream_categories=keep_upstream_categories,
        n_candidates=n_candidates,
        temperature=temperature,
        top_k=top_k,
        seed=seed,
        batch_size=batch_size,
        window_size=window_size,
        context=context,
        match_case=match_case,
        keep_shape=keep_shape,
        keep_inflection=keep_inflection,
        device=device,
    )


class MLMResampler(Pipe):
    """Mask tokens by the DataSifterText schedule and resample them with a masked LM.

    Every masked token gets an ``MLM`` edit whose replacement is the first
    sampled candidate and whose audit is ``{"candidates": [...]}``. Tokens edited
    upstream (frequency_masker, PHI) and entity tokens are always masked
    (``resample_upstream`` / ``resample_ents``). Candidates are rejected when an
    upstream component with an ``is_allowed(word) -> bool`` method (the
    frequency_masker) says False, or when they are a PHI entity (or one of its
    tokens) or an upstream-edited token of the same document.
    """

    def __init__(
        self,
        vocab,
        name: str = "mlm_resampler",
        *,
        nlp: Optional[Language] = None,
        model: Optional[str] = None,
        p_w: float = 0.5,
        p_n: float = 0.75,
        coef_start: float = 1.2,
        coef_step: float = 0.05,
        coef_min: float = 0.05,
        max_mask_fraction: float = 0.5,
        mask_fraction_of: str = "content",
        max_passes: int = 100,
        protected_terms: Iterable[str] = (),
        protected_terms_file: Optional[str] = None,
        protect_stop_words: bool = True,
        protect_punct: bool = True,
        focus_terms: Iterable[str] = (),
        focus_terms_file: Optional[str] = None,
        spread_ref: Optional[float] = None,
        spread_min: float = 0.05,
        spread_min_count: int = 5,
        spread_raise: str = "every_pass",
        resample_upstream: bool = True,
        resample_ents: bool = True,
        keep_upstream_categories: Iterable[str] = (),
        n_candidates: int = 8,
        temperature: float = 1.0,
        top_k: int = 50,
        seed: int = 0,
        batch_size: int = 64,
        window_size: int = 128,
        context: int = 32,
        match_case: bool = True,
        keep_shape: bool = True,
        keep_inflection: bool = True,
        device: Optional[str] = None,
    ):
        if not 0.0 <= max_mask_fraction <= 1.0:
            raise ValueError(f"[{name}] max_mask_fraction must be in [0, 1], got {max_mask_fraction}")
        if mask_fraction_of not in MASK_FRACTION_OF:
            raise ValueError(
                f"[{name}] mask_fraction_of must be one of {', '.join(MASK_FRACTION_OF)}, got {mask_fraction_of!r}"
            )
        if n_candidates < 1:
            raise ValueError(f"[{name}] n_candidates must be >= 1, got {n_candidates}")
        if coef_step < 0 or coef_min < 0:
            raise ValueError(f"[{name}] coef_step and coef_min must be >= 0")
        if spread_ref is not None and not 0.0 < spread_ref <= 1.0:
            raise ValueError(f"[{name}] spread_ref must be in (0, 1] or null, got {spread_ref}")
        if not 0.0 < spread_min <= 1.0:
            raise ValueError(f"[{name}] spread_min must be in (0, 1], got {spread_min}")
        if spread_raise not in RAISE_WEIGHTS:
            raise ValueError(f"[{name}] spread_raise must be one of {', '.join(RAISE_WEIGHTS)}, got {spread_raise!r}")
        self.vocab = vocab
        self.name = name
        self.model_path = model
        self.schedule = dict(
            p_w=p_w,
            p_n=p_n,
            coef_start=coef_start,
            coef_step=coef_step,
            coef_min=coef_min,
            max_mask_fraction=max_mask_fraction,
            max_passes=max_passes,
        )
        self.mask_fraction_of = mask_fraction_of
        self.protected_terms = list(protected_terms or []) + read_terms(protected_terms_file)
        self.focus_terms = list(focus_terms or []) + read_terms(focus_terms_file)
        self.protect_stop_words = protect_stop_words
        self.spread_ref = spread_ref
        self.spread_min = spread_min
        self.spread_min_count = spread_min_count
        self.spread_raise = spread_raise
        # LOWER hash -> share of the corpus' patients whose notes hold the word
        # (learned by initialize when spread_ref is set; sorted arrays for lookup)
        self.spread_hashes = numpy.zeros(0, dtype=numpy.uint64)
        self.spread_shares = numpy.zeros(0, dtype=numpy.float32)
        self.protect_punct = protect_punct
        self.resample_upstream = resample_upstream
        self.resample_ents = resample_ents
        self.keep_upstream_categories = set(keep_upstream_categories or ())
        self.n_candidates = n_candidates
        self.temperature = temperature
        self.top_k = top_k
        self.seed = seed
        self.batch_size = batch_size
        self.window_size = window_size
        self.context = context
        self.match_case = match_case
        self.keep_shape = keep_shape
        self.keep_inflection = keep_inflection
        self.device = device
        self._nlp_ref = weakref.ref(nlp) if nlp is not None else None
        self._sampler: Optional[MLMSampler] = None
        self._bundled: Optional[Path] = None  # model dir of a loaded pipeline (from_disk)
        self._matchers: Optional[Tuple[Any, Any]] = None
        self._filters: Optional[Tuple[Any, List[Callable[[str], bool]]]] = None
        self._stop_words: Optional[frozenset] = None

    # -- model

    @property
    def model_source(self) -> Optional[Path]:
        """Where the model is loaded from: the copy inside a loaded pipeline, else
        the configured ``model`` path."""
        if self._bundled is not None:
            return self._bundled
        return Path(self.model_path) if self.model_path else None

    @property
    def sampler(self) -> MLMSampler:
        """The loaded sampler (loaded on first use)."""
        if self._sampler is None:
            source = self.model_source
            if source is None:
                raise ValueError(
                    f"[{self.name}] has no model: set [components.{self.name}] model = \"DIR\" "
                    f"(a local masked-LM directory, e.g. from `python -m spacy_deid pretrain`)"
                )
            self._sampler = MLMSampler.from_path(
                source,
                device=self.device or current_torch_device(),
                window_size=self.window_size,
                context=self.context,
                batch_size=self.batch_size,
            )
        return self._sampler

    def initialize(
        self,
        get_examples: Optional[Callable[[], Iterable[Any]]] = None,
        *,
        nlp: Optional[Language] = None,
        model: Optional[str] = None,
        corpus: Optional[RecordsReader] = None,
    ) -> None:
        """Load (and so validate) the model; with ``spread_ref`` set, learn from
        ``corpus`` how widely each word is spread over the patients' notes. The
        model itself is pretrained separately (``python -m spacy_deid pretrain``).

        model (Optional[str]): a model directory overriding the component's ``model``.
        corpus (Optional[Callable[[], Iterable[dict]]]): the records the spread of
            words is counted on (``spacy_deid.io.records.v1``); needed when
            ``spread_ref`` is set.
        """
        if nlp is not None:
            self._nlp_ref = weakref.ref(nlp)
        if model is not None:
            self.model_path = str(model)
            self._bundled = None
            self._sampler = None
        self._matchers = None
        self._filters = None
        _ = self.sampler
        self.spread_hashes = numpy.zeros(0, dtype=numpy.uint64)
        self.spread_shares = numpy.zeros(0, dtype=numpy.float32)
        if self.spread_ref is not None:
            if nlp is None:
                raise ValueError(f"[{self.name}] initialize needs nlp (for its tokenizer) when spread_ref is set")
            corpus = require_corpus(corpus, self.name)
            self.spread_hashes, self.spread_shares = word_spread(
                nlp, self.name, corpus, min_count=self.spread_min_count
            )

    @property
    def stop_words(self) -> frozenset:
        """The stop words of the pipeline's language (the ``keep_shape`` rule)."""
        if self._stop_words is None:
            from spacy.util import get_lang_class

            try:
                words = get_lang_class(self.vocab.lang or "en").Defaults.stop_words
            except Exception:  # a language spaCy does not know: its lexemes' flags
                words = {lex.text for lex in self.vocab if lex.is_stop}
            self._stop_words = frozenset(w.lower() for w in words)
        return self._stop_words

    # -- term lists and the privacy filter

    def _term_matchers(self) -> Tuple[Any, Any]:
        """(protected, focus) as ``HashedTerms``: terms kept as ``LOWER`` hashes, so
        matching needs no string in the vocab (a PhraseMatcher's pattern strings
        would not survive the memory zone a document is processed in, where the
        matchers may be built)."""
        if self._matchers is None:
            from spacy_deid.stats.terms import HashedTerms

            nlp = self._nlp_ref() if self._nlp_ref is not None else None
            make_doc = nlp.make_doc if nlp is not None else (lambda t: Doc(self.vocab, words=t.split()))
            self._matchers = (
                HashedTerms.from_terms(self.protected_terms, make_doc),
                HashedTerms.from_terms(self.focus_terms, make_doc),
            )
        return self._matchers

    def _upstream_filters(self) -> List[Callable[[str], bool]]:
        """The word-level privacy checks of the components before this one.

        A component with ``is_allowed(word) -> bool`` is asked directly (the method
        the frequency_masker is expected to expose: False for an item below k or
        blacklisted). A frequency_masker without it is asked through its per-token
        ``decide(doc)`` on the word alone (0 = kept); see ``_decide_check``.
        """
        nlp = self._nlp_ref() if self._nlp_ref is not None else None
        if nlp is None:
            return []
        upstream = []
        for pipe_name, proc in nlp.pipeline:
            if pipe_name == self.name:
                break
            upstream.append((pipe_name, proc))
        key = tuple((pipe_name, id(proc)) for pipe_name, proc in upstream)
        if self._filters is not None and self._filters[0] == key:
            return self._filters[1]  # keeps the per-word caches across documents
        out = []
        for pipe_name, proc in upstream:
            is_allowed = getattr(proc, "is_allowed", None)
            if callable(is_allowed):
                out.append(is_allowed)
            elif callable(getattr(proc, "decide", None)) and hasattr(proc, "allowed"):
                out.append(_decide_check(proc, nlp.make_doc))
        self._filters = (key, out)
        return out

    def doc_reject(self, doc: Doc, forced: Sequence[bool]) -> Reject:
        """The privacy filter for one document's candidates.

        doc (Doc): the document.
        forced (Sequence[bool]): the tokens edited upstream.
        RETURNS (Callable[[str], bool]): True for a word that must not be emitted.
        """
        banned = set()
        for ent in doc.ents:
            banned.add(ent.text.casefold())
            banned.update(t.text.casefold() for t in ent)
        banned.update(doc[i].text.casefold() for i, f in enumerate(forced) if f)
        allowed_checks = self._upstream_filters()

        def reject(word: str) -> bool:
            if word.casefold() in banned:
                return True
            return any(not ok(word) for ok in allowed_checks)

        return reject

    # -- processing

    def plan(self, doc: Doc, rng: numpy.random.Generator) -> Tuple[List[bool], List[bool]]:
        """The masked and forced flags of ``doc`` (schedule plus upstream edits).

        RETURNS (Tuple[List[bool], List[bool]]): (masked, forced) per token.
        """
        return self._plan(doc, rng)[:2]

    def _plan(self, doc: Doc, rng: numpy.random.Generator) -> Tuple[List[bool], List[bool], List[bool]]:
        """(masked, forced, kept) per token; ``kept``: forced tokens whose latest
        upstream edit has a category of ``keep_upstream_categories`` (masked in the
        model's input, not resampled: that edit's replacement stays)."""
        n = len(doc)
        forced = [False] * n
        kept = [False] * n
        if self.resample_upstream:
            for span in get_edits(doc):  # in order: the latest edit of a token wins
                if span.label_ != MLM:
                    keep = span._.deid_category in self.keep_upstream_categories
                    for i in range(span.start, span.end):
                        forced[i] = True
                        kept[i] = keep
        if self.resample_ents:
            for ent in doc.ents:
                for i in range(ent.start, ent.end):
                    forced[i] = True
        protected_m, focus_m = self._term_matchers()
        attrs = doc.to_array([IS_STOP, IS_PUNCT, IS_SPACE]).astype(bool).reshape((n, 3))
        prot = numpy.zeros(n, dtype=bool)
        if self.protect_stop_words:
            prot |= attrs[:, 0]
        if self.protect_punct:
            prot |= attrs[:, 1] | attrs[:, 2]
            # and symbols spaCy does not call punctuation ("=", "+", "<"): "3 + 4 = 7" keeps its signs
            prot |= numpy.fromiter(
                (fuses_punct(t.text) or not any(c.isalnum() for c in t.text) for t in doc), dtype=bool, count=n
            )
        lower = doc.to_array([LOWER]).astype(numpy.uint64).reshape(-1) if n else numpy.zeros(0, dtype=numpy.uint64)
        nonspace = numpy.flatnonzero(~attrs[:, 2])
        if len(protected_m):
            prot |= protected_m.match(lower, nonspace)
        protected = prot.tolist()
        focus = focus_m.match(lower, nonspace).tolist() if len(focus_m) else [False] * n
        countable = (~attrs[:, 2]).tolist()
        cap_base = None
        if self.mask_fraction_of == "content":
            cap_base = [c and (f or not p) for c, f, p in zip(countable, forced, protected)]
        weights = None
        if self.spread_ref is not None:
            weights = spread_weights(
                lower, self.spread_hashes, self.spread_shares, self.spread_ref, self.spread_min
            ).tolist()
        masked = datasifter_mask(
            countable, protected, focus, forced, rng, cap_base=cap_base, weights=weights, raise_weights=self.spread_raise, **self.schedule
        )
        return masked, forced, kept

    def _process(self, docs: List[Doc]) -> None:
        """Plan, sample and only then add the edits of a batch (nothing is added
        when sampling fails, so a retry doc by doc cannot duplicate edits)."""
        targets: List[List[int]] = []
        rngs: List[numpy.random.Generator] = []
        rejects: List[Reject] = []
        whitespace: List[List[int]] = []
        kept_tokens: List[List[bool]] = []
        for doc in docs:
            schedule_rng, sample_rng = doc_rngs(self.seed, doc)
            masked, forced, kept = self._plan(doc, schedule_rng)
            targets.append([i for i, m in enumerate(masked) if m and not doc[i].is_space])
            # A whitespace token inside an upstream edit would otherwise still show
            # the upstream placeholder between two resampled words.
            whitespace.append([i for i, f in enumerate(forced) if f and not kept[i] and doc[i].is_space])
            kept_tokens.append(kept)
            rngs.append(sample_rng)
            rejects.append(self.doc_reject(doc, forced))
        if any(targets):
            cands = self.sampler.candidates(
                docs,
                targets,
                n_candidates=self.n_candidates,
                rng=rngs,
                temperature=self.temperature,
                top_k=self.top_k,
                reject=rejects,
                match_case=self.match_case,
                keep_shape=self.keep_shape,
                keep_inflection=self.keep_inflection,
                stop_words=self.stop_words,
            )
        else:
            cands = [[] for _ in docs]
        for doc, tgt, doc_cands, spaces, kept in zip(docs, targets, cands, whitespace, kept_tokens):
            for i, cand in zip(tgt, doc_cands):
                # none: a forced token keeps its upstream replacement; a kept one
                # (PHI already replaced by its category's operator) always does
                if cand and not kept[i]:
                    add_edit(doc, i, i + 1, MLM, cand[0], audit={"candidates": list(cand)}, method="RESAMPLE")
            for i in spaces:
                add_edit(doc, i, i + 1, MLM, doc[i].text, audit={"candidates": []})

    def __call__(self, doc: Doc) -> Doc:
        self._process([doc])
        return doc

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        """Process docs in batches: one forward pass per batch of windows of many docs."""
        error_handler = self.get_error_handler()
        for docs in minibatch(stream, size=batch_size):
            try:
                self._process(docs)
                yield from docs
            except Exception:  # isolate the failing doc, never drop the others
                for doc in docs:
                    try:
                        yield self(doc)
                    except Exception as e:
                        error_handler(self.name, self, [doc], e)

    # -- serialization: the model travels inside the pipeline

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> None:
        """Write ``cfg.json`` and the model (``model/``, save_pretrained files)."""
        path = ensure_path(path)
        path.mkdir(parents=True, exist_ok=True)
        target = path / MODEL_DIR
        has_model = self._sampler is not None or self.model_source is not None
        if self._sampler is not None:
            self._sampler.save(target)
        elif self.model_source is not None:
            source = self.model_source
            if source.resolve() != target.resolve():
                # Load and re-save rather than copying the folder: only model and
                # tokenizer files are written (a pretrain dir also holds checkpoints).
                self.sampler.save(target)
        srsly.write_json(path / "cfg.json", {"has_model": has_model, "version": 1})
        srsly.write_msgpack(path / SPREAD_FILE, self._spread_data())

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> "MLMResampler":
        """Point the component at the model inside ``path``; it is loaded on first use."""
        path = ensure_path(path)
        cfg = srsly.read_json(path / "cfg.json") if (path / "cfg.json").exists() else {}
        if cfg.get("has_model") and (path / MODEL_DIR / "config.json").exists():
            self._bundled = path / MODEL_DIR
            self._sampler = None
        if (path / SPREAD_FILE).exists():
            self._set_spread(srsly.read_msgpack(path / SPREAD_FILE))
        return self

    def _spread_data(self) -> Dict[str, Any]:
        """The spread table as msgpack-able lists (hashes of public words, shares)."""
        return {"hashes": self.spread_hashes.tolist(), "shares": self.spread_shares.tolist()}

    def _set_spread(self, data: Dict[str, Any]) -> None:
        self.spread_hashes = numpy.array(data.get("hashes") or [], dtype=numpy.uint64)
        self.spread_shares = numpy.array(data.get("shares") or [], dtype=numpy.float32)

    def to_bytes(self, *, exclude: Iterable[str] = tuple()) -> bytes:
        """The model files packed with msgpack (no pickle)."""
        files: Dict[str, bytes] = {}
        with tempfile.TemporaryDirectory() as tmp:
            if self._sampler is not None or self.model_source is not None:
                self.sampler.save(tmp)
                for f in sorted(Path(tmp).iterdir()):
                    if f.is_file() and f.suffix in _MODEL_FILE_SUFFIXES:
                        files[f.name] = f.read_bytes()
        return srsly.msgpack_dumps({"version": 1, "model_files": files, "spread": self._spread_data()})

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = tuple()) -> "MLMResampler":
        """Restore the model from ``to_bytes`` output (loaded at once, then the
        temporary files are removed)."""
        data = srsly.msgpack_loads(bytes_data)
        self._set_spread(data.get("spread") or {})
        files = data.get("model_files") or {}
        if files:
            tmp = tempfile.mkdtemp(prefix="deid_mlm_")
            try:
                for name, content in files.items():
                    (Path(tmp) / Path(name).name).write_bytes(content)
                self._bundled = Path(tmp)
                self._sampler = None
                _ = self.sampler
            finally:
                self._bundled = None
                shutil.rmtree(tmp, ignore_errors=True)
        return self
