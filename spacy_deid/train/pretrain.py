"""Pretrain the corpus masked language model (DataSifterText's "Construct BERT on documents").

``pretrain_mlm(corpus, out_dir, ...)`` is the pure function behind
``python -m spacy_deid pretrain``:

1. the corpus is de-identified first, by a pipeline fitted with the same settings
   as the de-identification pipeline (``mask_config``, by default the ``default``
   profile: detectors and rarity; or an already fitted ``mask_pipeline`` directory;
   the resampling and swap components are left out): every edited span and PHI entity
   becomes the tokenizer's ``[UNK]`` special token, so rare identifiers never reach
   the tokenizer or the model, and ``[UNK]`` is never a prediction target nor a
   sampled word (a readable placeholder such as ``[LOW_FREQ]`` would be split into
   ordinary tokens the model learns to predict);
2. a WordPiece tokenizer is trained with ``tokenizers`` on the training part;
3. a masked LM (``ModernBertForMaskedLM`` by default, or ``BertForMaskedLM``) is trained from scratch (hyperparameters in a .cfg file,
   ``spacy_deid/configs/pretrain_cpu.cfg`` / ``spacy_deid/configs/pretrain_gpu.cfg``), with a progress bar,
   periodic checkpoints and ``resume``;
4. held-out masked-token top-1/top-5 accuracy and perplexity go to ``metrics.json``;
   model and full tokenizer files are written with ``save_pretrained``.

Determinism: weights are initialised from ``seed``; the batch order of an epoch and
the masked positions of a step are functions of (seed, epoch) and (seed, step), so a
resumed run continues exactly as the uninterrupted run would have.
"""
import json
import math
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import numpy

from spacy_deid.io.atomic import atomic_dir, write_text
from spacy_deid.io.records import FatalError, iter_records
from spacy_deid.util import TRAINED_TIER

PAD, UNK, CLS, SEP, MASK = "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"
SPECIAL_TOKENS = [PAD, UNK, CLS, SEP, MASK]
CHECKPOINT_DIR = "checkpoint"

DEFAULT_PRETRAIN_CONFIG: Dict[str, Dict[str, Any]] = {
    "model": {
        # "modernbert" (pre-layer-norm, rotary positions, GeGLU) or "bert"
        "architecture": "modernbert",
        "hidden_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "intermediate_size": 512,
        "hidden_dropout_prob": 0.0,
        "attention_probs_dropout_prob": 0.0,
    },
    "tokenizer": {"vocab_size": 12000, "min_frequency": 2, "lowercase": True},
    "training": {
        "seq_len": 64,
        "batch_size": 64,
        "lr": 0.002,
        "warmup_steps": 100,
        "weight_decay": 0.01,
        "max_steps": 700,
        "max_minutes": 0.0,
        "masking": "whole_word",
        "mlm_probability": 0.15,
        "content_mask_probability": 0.4,
        "other_mask_probability": 0.05,
        "grad_clip": 1.0,
        "checkpoint_every": 200,
        "seed": 0,
        "heldout_fraction": 0.05,
        "max_heldout_docs": 200,
        "max_train_docs": 0,
    },
    "eval": {"batch_size": 64, "content_mask_probability": 0.15, "pppl_positions": 2000},
}
MASKING_MODES = ("whole_word", "token")


# ---------------------------------------------------------------------------
# Config


def load_pretrain_config(config: Union[None, str, Path, Dict[str, Any]] = None) -> Dict[str, Dict[str, Any]]:
    """The pretraining hyperparameters: the defaults, updated by a .cfg file or dict.

    config (Union[None, str, Path, dict]): a thinc/spaCy-style .cfg file with the
        sections [model], [tokenizer], [training], [eval], or the same as a dict.
    RETURNS (Dict[str, Dict[str, Any]]): the merged config.
    """
    out = {section: dict(values) for section, values in DEFAULT_PRETRAIN_CONFIG.items()}
    if config is None:
        return out
    if isinstance(config, (str, Path)):
        from thinc.api import Config

        from spacy_deid.resources import config_path

        try:
            path = config_path(config)
        except FileNotFoundError as err:
            raise FatalError(f"Pretrain config: {err}") from None
        loaded: Dict[str, Any] = dict(Config().from_disk(path))
    else:
        loaded = dict(config)
    for section, values in loaded.items():
        if section not in out:
            raise FatalError(f"Unknown pretrain config section [{section}] (known: {', '.join(out)})")
        for key, value in dict(values).items():
            if key not in out[section]:
                raise FatalError(f"Unknown pretrain setting {section}.{key}")
            out[section][key] = value
    return out


# ---------------------------------------------------------------------------
# Frequency masking of the corpus


def load_mask_pipeline(
    corpus: Union[str, Path],
    mask_pipeline: Optional[Union[str, Path]] = None,
    mask_config: Optional[Union[str, Path]] = None,
    overrides: Optional[Dict[str, Any]] = None,
):
    """The pipeline that masks the corpus before pretraining.

    corpus (Union[str, Path]): the corpus (fits ``mask_config`` on it).
    mask_pipeline (Optional[Union[str, Path]]): a fitted pipeline directory.
    mask_config (Optional[Union[str, Path]]): a config fitted on ``corpus`` here
        (e.g. spacy_deid/configs/frequency.cfg, or the full pipeline's config: only the
        components before ``mlm_resampler`` are built and run).
    overrides (Optional[Dict[str, Any]]): config overrides for ``mask_config``.
    RETURNS (Optional[Language]): the pipeline, or None when neither is given.
    """
    if mask_pipeline is not None:
        import spacy

        import spacy_deid  # noqa: F401

        path = Path(mask_pipeline)
        if not path.exists():
            raise FatalError(f"Mask pipeline not found: {path}")
        nlp = spacy.load(path)
        keep = _upstream_of_mlm(nlp.pipe_names, lambda n: nlp.get_pipe_meta(n).factory)
        for name in [n for n in nlp.pipe_names if n not in keep]:
            nlp.remove_pipe(name)
        return nlp
    if mask_config is not None:
        from spacy_deid.engines.fit import init_pipeline, load_config

        from spacy_deid.resources import config_path

        try:
            mask_config = config_path(mask_config)
        except FileNotFoundError as err:
            raise FatalError(f"Mask config not found: {err}") from None
        overrides = dict(overrides or {})
        config = load_config(mask_config, corpus, overrides)
        names = list(config["nlp"]["pipeline"])
        keep = _upstream_of_mlm(names, lambda n: config["components"].get(n, {}).get("factory"))
        if len(keep) < len(names):
            # the full pipeline's config (e.g. datasifter.cfg): build only the
            # de-identification steps; the resampler needs the model trained here
            overrides["nlp.pipeline"] = keep
        return init_pipeline(mask_config, corpus, None, overrides)
    return None




def _upstream_of_mlm(names: List[str], factory_of: Callable[[str], Optional[str]]) -> List[str]:
    """The pipe names of the de-identification steps: the detectors (NER,
    patterns, gazetteers), rarity and the replacer, without ``TRAINED_TIER``."""
    return [name for name in names if factory_of(name) not in TRAINED_TIER]


def masked_text(doc, placeholder: str = UNK) -> str:
    """The text of ``doc`` with every edit and every entity replaced by ``placeholder``.

    doc (Doc): a document processed by the mask pipeline.
    placeholder (str): what each edited run of tokens becomes.
    RETURNS (str): the masked text (original whitespace kept).
    """
    hidden = [False] * len(doc)
    if "deid" in doc.spans:
        for span in doc.spans["deid"]:
            for i in range(span.start, span.end):
                hidden[i] = True
    for ent in doc.ents:
        for i in range(ent.start, ent.end):
            hidden[i] = True
    pieces: List[str] = []
    for tok in doc:
        if hidden[tok.i]:
            # One placeholder per run; whitespace inside a run is dropped with it.
            if tok.i == 0 or not hidden[tok.i - 1]:
                pieces.append(placeholder)
            if tok.i + 1 == len(doc) or not hidden[tok.i + 1]:
                pieces.append(tok.whitespace_)
        else:
            pieces.append(tok.text_with_ws)
    return "".join(pieces)


def masked_texts(records: Iterable[Dict[str, Any]], nlp=None, batch_size: int = 64) -> Iterator[str]:
    """The texts to pretrain on: masked by ``nlp`` when given, else raw."""
    if nlp is None:
        for rec in records:
            yield rec["text"]
        return
    from spacy_deid.util import make_doc

    def with_gold(rec: Dict[str, Any]):
        # Gold PHI spans, when the corpus has them, are hidden like detected PHI:
        # an identifier shared by many patients (a doctor's name) passes the
        # frequency rule, and the model must not learn it to sample it elsewhere.
        doc = make_doc(nlp, rec)
        if rec.get("spans"):
            from spacy.util import filter_spans

            from spacy_deid.io.readers import spans_to_entities

            try:
                doc.ents = filter_spans(spans_to_entities(rec, doc))
            except ValueError:  # malformed gold spans: the mask pipeline still runs
                pass
        return doc

    for doc in nlp.pipe((with_gold(rec) for rec in records), batch_size=batch_size):
        yield masked_text(doc)


def split_records(
    records: Sequence[Dict[str, Any]], heldout_fraction: float, max_heldout: int, seed: int
) -> Tuple[List[Dict[str, Any]], List[Dict[str, Any]]]:
    """Split by patient (by text when there is no patient id) with a stable hash, so no
    patient's context is both trained on and evaluated; a held-out note whose text
    (case and spacing aside) is also a training note's, or another held-out note's,
    is dropped (one is kept when every held-out note is a duplicate)."""
    from spacy_deid.util import stable_key, text_key

    if heldout_fraction <= 0 or len(records) < 2:
        return list(records), []
    train, held = [], []
    for rec in records:
        # Without a patient id, copies of one text (mtsamples lists a transcription under
        # several specialties) form one group: they fall on the same side.
        group = rec.get("patient_id") or text_key(rec.get("text", ""))
        u = (stable_key(("split", seed, group)) % 1_000_000) / 1_000_000
        (held if u < heldout_fraction else train).append(rec)
    if not held:  # tiny corpora: hold out at least one document
        held.append(train.pop())
    if not train:
        train.append(held.pop())
    # A note whose text is also in the training part (corpora such as mtsamples list
    # one transcription under several specialties) would measure memory, not context.
    seen = {text_key(rec.get("text", "")) for rec in train}
    unique: List[Dict[str, Any]] = []
    for rec in held:
        key = text_key(rec.get("text", ""))
        if key not in seen:
            seen.add(key)
            unique.append(rec)
    held = unique or held[:1]
    if max_heldout and len(held) > max_heldout:
        held = held[:max_heldout]
    return train, held


# ---------------------------------------------------------------------------
# Tokenizer and data


def train_tokenizer(texts: Sequence[str], vocab_size: int, min_frequency: int, lowercase: bool, max_len: int):
    """Train a WordPiece tokenizer; RETURNS a ``BertTokenizerFast``."""
    import tempfile

    from tokenizers import BertWordPieceTokenizer
    from transformers import BertTokenizerFast

    wp = BertWordPieceTokenizer(lowercase=lowercase, clean_text=True, strip_accents=None)
    # The placeholder is a special token; keep it out of the subword statistics.
    stream = (t.replace(UNK, " ") for t in texts)
    wp.train_from_iterator(
        stream,
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        special_tokens=SPECIAL_TOKENS,
        show_progress=False,
    )
    # The trainer numbers tokens in hash-map order (random per run); write the
    # vocabulary in a canonical order so the same corpus gives the same ids.
    trained = wp.get_vocab()
    vocab = SPECIAL_TOKENS + sorted(t for t in trained if t not in SPECIAL_TOKENS)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "vocab.txt").write_text("".join(t + "\n" for t in vocab), encoding="utf8")
        tok = BertTokenizerFast(
            vocab_file=str(Path(tmp) / "vocab.txt"),
            do_lower_case=lowercase,
            model_max_length=max_len,
        )
    return tok


def encode_blocks(tokenizer, texts: Sequence[str], seq_len: int) -> numpy.ndarray:
    """Concatenate the documents (a [SEP] after each) and cut them into blocks of
    ``seq_len`` ids, each ``[CLS] ... [SEP]``; the last partial block is padded.
    Full blocks waste no compute on padding."""
    inner = seq_len - 2
    stream: List[int] = []
    sep = tokenizer.sep_token_id
    backend = tokenizer.backend_tokenizer  # no per-text length warning, batched in Rust
    for start in range(0, len(texts), 256):
        for enc in backend.encode_batch(list(texts[start : start + 256]), add_special_tokens=False):
            if enc.ids:
                stream.extend(enc.ids)
                stream.append(sep)
    n_blocks = max(1, math.ceil(len(stream) / inner))
    out = numpy.full((n_blocks, seq_len), tokenizer.pad_token_id, dtype=numpy.int64)
    for b in range(n_blocks):
        chunk = stream[b * inner : (b + 1) * inner]
        out[b, 0] = tokenizer.cls_token_id
        out[b, 1 : 1 + len(chunk)] = chunk
        out[b, 1 + len(chunk)] = sep
    return out


def mask_batch(
    ids: numpy.ndarray,
    special_ids: Sequence[int],
    mask_id: int,
    vocab_size: int,
    probability: float,
    rng: numpy.random.Generator,
    random_replace: bool = True,
) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """BERT masking: pick ``probability`` of the non-special positions; of those 80 %
    become [MASK], 10 % a random id, 10 % stay (all [MASK] when not
    ``random_replace``). Written here rather than using transformers' collator so the
    masks come from an explicit per-step generator (exact ``--resume``).

    RETURNS (Tuple[numpy.ndarray, numpy.ndarray]): inputs and labels (-100: not scored).
    """
    inputs = ids.copy()
    labels = numpy.full_like(ids, -100)
    candidate = ~numpy.isin(ids, numpy.asarray(special_ids))
    picked = (rng.random(ids.shape) < probability) & candidate
    if not picked.any() and candidate.any():  # never a batch without a target
        flat = numpy.flatnonzero(candidate)
        picked.flat[flat[rng.integers(len(flat))]] = True
    labels[picked] = ids[picked]
    if random_replace:
        u = rng.random(ids.shape)
        to_mask = picked & (u < 0.8)
        to_random = picked & (u >= 0.8) & (u < 0.9)
        inputs[to_mask] = mask_id
        low = len(SPECIAL_TOKENS)
        inputs[to_random] = rng.integers(low, max(low + 1, vocab_size), size=int(to_random.sum()))
    else:
        inputs[picked] = mask_id
    return inputs, labels


# ---------------------------------------------------------------------------
# Whole-word masking, as the resampler masks: one [MASK] per word


def vocab_tables(tokenizer) -> Dict[str, numpy.ndarray]:
    """Per vocabulary id: ``cont`` (a ``##`` continuation piece), ``whole`` (a piece
    the resampler may emit: not special, not a continuation), ``alpha`` (has a
    letter) and ``stop`` (a spaCy English stop word).

    A word is *content* when its first piece has a letter and it is not a stop word
    (every stop word is one piece in a trained vocabulary, so a word of several
    pieces is content when its first piece has a letter).
    """
    from spacy.lang.en.stop_words import STOP_WORDS

    size = len(tokenizer)
    tokens = tokenizer.convert_ids_to_tokens(list(range(size)))
    prefix = getattr(tokenizer.backend_tokenizer.model, "continuing_subword_prefix", "##") or "##"
    special = set(tokenizer.all_special_ids)
    cont = numpy.array([bool(t) and t.startswith(prefix) for t in tokens], dtype=bool)
    whole = numpy.array([i not in special and bool(t) and not cont[i] for i, t in enumerate(tokens)], dtype=bool)
    alpha = numpy.array([any(c.isalpha() for c in (t or "")) for t in tokens], dtype=bool) & ~cont
    alpha[list(special)] = False
    stop = numpy.array([(t or "").lower() in STOP_WORDS for t in tokens], dtype=bool) & whole
    return {"cont": cont, "whole": whole, "alpha": alpha, "stop": stop}


def word_layout(ids: numpy.ndarray, tables: Dict[str, numpy.ndarray], special_ids: Sequence[int]):
    """Words of a batch of blocks.

    RETURNS (Tuple[numpy.ndarray, ...]): per position ``start`` (first piece of a
    word), ``content`` (start of a content word), ``n_pieces`` (pieces of the word
    that starts there, 0 elsewhere), ``word`` (a global word index per position)
    and ``member`` (a piece of a word that starts inside the block).
    """
    special = numpy.isin(ids, numpy.asarray(list(special_ids)))
    cont = tables["cont"][ids] & ~special
    start = ~special & ~cont
    local = numpy.cumsum(start, axis=1)
    orphan = cont & (local == 0)  # pieces of a word cut by the block boundary
    member = (start | cont) & ~orphan
    word = numpy.cumsum(start.ravel()).reshape(ids.shape)
    counts = numpy.bincount(word[member], minlength=int(word.max()) + 1)
    n_pieces = numpy.where(start, counts[word], 0)
    content = start & tables["alpha"][ids] & ((n_pieces > 1) | ~tables["stop"][ids])
    return start, content, n_pieces, word, member


# kinds of the positions of a whole-word masked batch
NOT_MASKED, CONTENT_SINGLE, CONTENT_MULTI, OTHER_MASKED = 0, 1, 2, 3


def mask_whole_words(
    ids: numpy.ndarray,
    tables: Dict[str, numpy.ndarray],
    special_ids: Sequence[int],
    mask_id: int,
    pad_id: int,
    content_probability: float,
    other_probability: float,
    rng: numpy.random.Generator,
) -> Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """Mask whole words the way the resampler does: a chosen word becomes ONE
    ``[MASK]`` whatever its number of pieces (its other pieces are removed and the
    block is shifted left and padded), content words with ``content_probability``,
    other words (stop words, punctuation, numbers) with ``other_probability``.

    The label of a masked one-piece word is its id; a masked word of several pieces
    has no label (-100): the resampler can only emit one-piece words, so the model
    only learns to predict those, while it still sees one mask per word.

    RETURNS (Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]): inputs, labels
    (-100: not scored) and the kind of each position (``NOT_MASKED``,
    ``CONTENT_SINGLE``, ``CONTENT_MULTI``, ``OTHER_MASKED``).
    """
    start, content, n_pieces, word, member = word_layout(ids, tables, special_ids)
    u = rng.random(ids.shape)
    chosen = start & (u < numpy.where(content, content_probability, other_probability))
    if not chosen.any() and start.any():  # never a batch without a target
        flat = numpy.flatnonzero(start)
        chosen.flat[flat[rng.integers(len(flat))]] = True
    picked_words = numpy.zeros(int(word.max()) + 2, dtype=bool)
    picked_words[word[chosen]] = True
    drop = member & ~start & picked_words[word]
    inputs = numpy.where(chosen, mask_id, ids)
    labels = numpy.where(chosen & (n_pieces == 1), ids, -100)
    kinds = numpy.full(ids.shape, NOT_MASKED, dtype=numpy.int8)
    kinds[chosen & ~content] = OTHER_MASKED
    kinds[chosen & content & (n_pieces == 1)] = CONTENT_SINGLE
    kinds[chosen & content & (n_pieces > 1)] = CONTENT_MULTI
    if drop.any():
        out_in = numpy.full_like(ids, pad_id)
        out_lab = numpy.full_like(ids, -100)
        out_kind = numpy.zeros_like(kinds)
        for r in range(ids.shape[0]):
            keep = ~drop[r]
            n = int(keep.sum())
            out_in[r, :n] = inputs[r, keep]
            out_lab[r, :n] = labels[r, keep]
            out_kind[r, :n] = kinds[r, keep]
        inputs, labels, kinds = out_in, out_lab, out_kind
    return inputs, labels, kinds


# ---------------------------------------------------------------------------
# Model


ARCHITECTURES = ("modernbert", "bert")


def build_model(cfg: Dict[str, Any], vocab_size: int, seq_len: int, pad_id: int, seed: int):
    """A freshly initialised masked LM (weights from ``seed``).

    ``cfg["architecture"]`` picks the model: ``"modernbert"`` (``ModernBertForMaskedLM``:
    pre-layer-norm, rotary positions, gated MLP) or ``"bert"`` (``BertForMaskedLM``:
    post-layer-norm). On a few thousand CPU steps the post-LN BERT stays on the
    unigram plateau (held-out content-word top-1 0.02 after 1,500 steps on
    mtsamples) where ModernBERT of the same size learns context within a few hundred
    (0.16 after 750); both load with ``AutoModelForMaskedLM``. The other keys are
    BERT's names (``hidden_dropout_prob`` becomes ModernBERT's embedding and MLP
    dropout, ``attention_probs_dropout_prob`` its attention dropout).
    """
    import torch

    cfg = dict(cfg)
    arch = cfg.pop("architecture", "modernbert")
    if arch not in ARCHITECTURES:
        raise FatalError(f"model.architecture must be one of {', '.join(ARCHITECTURES)}, got {arch!r}")
    torch.manual_seed(seed)
    if arch == "bert":
        from transformers import BertConfig, BertForMaskedLM

        return BertForMaskedLM(
            BertConfig(vocab_size=vocab_size, max_position_embeddings=seq_len, pad_token_id=pad_id, **cfg)
        )
    from transformers import ModernBertConfig, ModernBertForMaskedLM

    hidden_dropout = float(cfg.pop("hidden_dropout_prob", 0.0))
    attention_dropout = float(cfg.pop("attention_probs_dropout_prob", 0.0))
    config = ModernBertConfig(
        vocab_size=vocab_size,
        max_position_embeddings=seq_len,
        pad_token_id=pad_id,
        # ModernBERT's defaults are ids of its own 50k vocabulary; ours come from the tokenizer
        bos_token_id=None,
        eos_token_id=None,
        cls_token_id=None,
        sep_token_id=None,
        # every layer attends to the whole window (a training block is short)
        global_attn_every_n_layers=1,
        local_attention=2 * seq_len,
        embedding_dropout=hidden_dropout,
        mlp_dropout=hidden_dropout,
        attention_dropout=attention_dropout,
        # no torch.compile: CPU training and inference run eagerly
        reference_compile=False,
        **cfg,
    )
    config._attn_implementation = "sdpa"
    return ModernBertForMaskedLM(config)


def mlm_parts(model) -> Tuple[Callable[..., Any], Callable[[Any], Any], Any]:
    """(encode, project, output bias) of a masked LM made by ``build_model``:
    ``encode(input_ids=, attention_mask=)`` gives the last hidden states,
    ``project(hidden rows)`` the vocabulary logits of those rows only (projecting
    every position onto the vocabulary costs more than a small encoder)."""
    from spacy_deid.components.mlm_resampler import mlm_head

    parts = mlm_head(model)
    if parts is None:
        raise FatalError(f"Not a masked LM of pretrain: {type(model).__name__}")
    base, transform, decoder, bias = parts
    return (lambda **kw: base(**kw)[0]), (lambda h: decoder(transform(h))), bias


def init_output_bias(
    model, blocks: numpy.ndarray, special_ids: Sequence[int], counts: Optional[numpy.ndarray] = None
) -> None:
    """Start the output bias at the log unigram frequencies of the training targets.

    Adam moves a parameter by about ``lr`` per step, so a zero-initialised bias
    needs thousands of steps just to learn word frequencies (log-frequency gaps of
    5-10 nats); starting from the prior, the first steps go to context instead.
    ``counts`` (per vocabulary id) are the expected targets when given (whole-word
    masking: content words are chosen far more often than others), else every
    token of ``blocks`` counts once. Add-one smoothing keeps unseen tokens finite;
    special tokens get the lowest value.
    """
    import torch

    vocab_size = model.config.vocab_size
    if counts is None:
        counts = numpy.bincount(blocks.ravel(), minlength=vocab_size)[:vocab_size].astype(numpy.float64)
    counts = numpy.asarray(counts, dtype=numpy.float64)[:vocab_size].copy()
    counts[numpy.asarray(list(special_ids), dtype=numpy.int64)] = 0
    log_prior = numpy.log((counts + 1.0) / (counts.sum() + vocab_size))
    with torch.no_grad():
        mlm_parts(model)[2].copy_(torch.from_numpy(log_prior.astype(numpy.float32)))


def mlm_loss(model, inputs, labels, attention):
    """Cross-entropy at the scored positions only: projecting every position onto
    the vocabulary costs more than a small encoder, and unscored rows are wasted."""
    import torch

    encode, project, _ = mlm_parts(model)
    hidden = encode(input_ids=inputs, attention_mask=attention)
    keep = labels != -100
    logits = project(hidden[keep])
    return torch.nn.functional.cross_entropy(logits.float(), labels[keep])


def evaluate_mlm(
    model,
    blocks: numpy.ndarray,
    tokenizer,
    probability: float,
    seed: int,
    batch_size: int,
    device: str = "cpu",
) -> Dict[str, float]:
    """Masked-token top-1 / top-5 accuracy and perplexity on held-out blocks.

    The held-out positions are all replaced by [MASK] (the situation of the
    resampler) with a fixed generator. RETURNS (Dict[str, float]).
    """
    import torch

    rng = numpy.random.default_rng(numpy.random.SeedSequence([seed, 7919]))
    special = tokenizer.all_special_ids
    vocab_size = model.config.vocab_size
    n = top1 = top5 = 0
    nll = 0.0
    encode, project, _ = mlm_parts(model)
    model.eval()
    with torch.inference_mode():
        for start in range(0, len(blocks), batch_size):
            ids = blocks[start : start + batch_size]
            inputs, labels = mask_batch(
                ids, special, tokenizer.mask_token_id, vocab_size, probability, rng, random_replace=False
            )
            inp = torch.from_numpy(inputs).to(device)
            lab = torch.from_numpy(labels).to(device)
            att = torch.from_numpy((ids != tokenizer.pad_token_id).astype(numpy.int64)).to(device)
            hidden = encode(input_ids=inp, attention_mask=att)
            keep = lab != -100
            logits = project(hidden[keep]).float()
            gold = lab[keep]
            nll += float(torch.nn.functional.cross_entropy(logits, gold, reduction="sum"))
            best = torch.topk(logits, k=min(5, logits.shape[-1]), dim=-1).indices
            top1 += int((best[:, 0] == gold).sum())
            top5 += int((best == gold[:, None]).any(dim=-1).sum())
            n += int(gold.numel())
    if n == 0:
        return {"n_masked": 0, "top1": float("nan"), "top5": float("nan"), "perplexity": float("nan")}
    return {
        "n_masked": n,
        "top1": top1 / n,
        "top5": top5 / n,
        "perplexity": math.exp(nll / n),
    }


def word_counts(
    blocks: numpy.ndarray, tables: Dict[str, numpy.ndarray], special_ids: Sequence[int]
) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """How often each one-piece word occurs in ``blocks`` (per vocabulary id), as a
    content word and as another word (stop word, punctuation, number)."""
    size = len(tables["cont"])
    content_counts = numpy.zeros(size, dtype=numpy.float64)
    other_counts = numpy.zeros(size, dtype=numpy.float64)
    for s in range(0, len(blocks), 1024):
        ids = blocks[s : s + 1024]
        start, content, n_pieces, _, _ = word_layout(ids, tables, special_ids)
        one = start & (n_pieces == 1)
        content_counts += numpy.bincount(ids[one & content], minlength=size)[:size]
        other_counts += numpy.bincount(ids[one & ~content], minlength=size)[:size]
    return content_counts, other_counts


def evaluate_content_words(
    model,
    blocks: numpy.ndarray,
    train_blocks: numpy.ndarray,
    tokenizer,
    probability: float,
    seed: int,
    batch_size: int,
    device: str = "cpu",
) -> Dict[str, Any]:
    """Top-1 / top-5 on masked held-out CONTENT words, masked as the resampler
    masks them (one ``[MASK]`` per word, ``mask_whole_words``) and predicted among
    the words it may emit for a content word (one-piece tokens with a letter that
    are not stop words: its ``keep_shape`` rule), beside a unigram baseline (the
    most frequent content words of the training blocks). ``top1_any_word`` ranks
    all one-piece tokens (punctuation and stop words included).

    A content word of several pieces counts as a miss for both (no one-piece token
    can be it). ``perplexity`` is over the one-piece masked content words, with
    the model's distribution over the content tokens and the add-one unigram
    distribution of training content words for the baseline.

    RETURNS (Dict[str, Any]): n_masked, one_piece_share, top1, top5, top1_any_word,
    perplexity and ``unigram`` {top1, top5, perplexity}.
    """
    import torch

    tables = vocab_tables(tokenizer)
    special = tokenizer.all_special_ids
    rng = numpy.random.default_rng(numpy.random.SeedSequence([seed, 104729]))
    content_vocab = tables["whole"] & tables["alpha"] & ~tables["stop"]
    whole = torch.from_numpy(tables["whole"]).to(device)
    allowed = torch.from_numpy(content_vocab).to(device)
    counts = word_counts(train_blocks, tables, special)[0]
    uni = numpy.where(content_vocab, counts + 1.0, 0.0)
    uni_logp = numpy.log(numpy.where(uni > 0, uni / uni.sum(), 1.0))
    uni_top = numpy.argsort(-counts, kind="stable")[:5]
    n = n_single = top1 = top5 = any1 = u1 = u5 = 0
    nll = unll = 0.0
    encode, project, _ = mlm_parts(model)
    model.eval()
    with torch.inference_mode():
        for start in range(0, len(blocks), batch_size):
            ids = blocks[start : start + batch_size]
            inputs, labels, kinds = mask_whole_words(
                ids, tables, special, tokenizer.mask_token_id, tokenizer.pad_token_id, probability, 0.0, rng
            )
            scored = (kinds == CONTENT_SINGLE) | (kinds == CONTENT_MULTI)
            if not scored.any():
                continue
            inp = torch.from_numpy(inputs).to(device)
            att = torch.from_numpy((inputs != tokenizer.pad_token_id).astype(numpy.int64)).to(device)
            hidden = encode(input_ids=inp, attention_mask=att)
            pos = torch.from_numpy(scored).to(device)
            raw = project(hidden[pos]).float()
            gold = torch.from_numpy(labels[scored]).to(device)  # -100 for several pieces
            any1 += int((raw.masked_fill(~whole, float("-inf")).argmax(dim=-1) == gold).sum())
            logits = raw.masked_fill(~allowed, float("-inf"))
            best = torch.topk(logits, k=min(5, logits.shape[-1]), dim=-1).indices
            top1 += int((best[:, 0] == gold).sum())
            top5 += int((best == gold[:, None]).any(dim=-1).sum())
            one = gold >= 0
            if bool(one.any()):
                logp = torch.log_softmax(logits[one], dim=-1)
                nll -= float(logp.gather(1, gold[one][:, None]).sum())
            g = labels[scored]
            u1 += int((g == uni_top[0]).sum())
            u5 += int(numpy.isin(g, uni_top).sum())
            unll -= float(uni_logp[g[g >= 0]].sum())
            n += int(scored.sum())
            n_single += int((g >= 0).sum())
    if n == 0:
        nan = float("nan")
        return {"n_masked": 0, "top1": nan, "top5": nan, "perplexity": nan, "unigram": {"top1": nan, "top5": nan, "perplexity": nan}}
    return {
        "n_masked": n,
        "mask_probability": probability,
        "one_piece_share": n_single / n,
        "top1": top1 / n,
        "top5": top5 / n,
        "top1_any_word": any1 / n,
        "perplexity": math.exp(nll / n_single) if n_single else float("nan"),
        "unigram": {
            "top1": u1 / n,
            "top5": u5 / n,
            "perplexity": math.exp(unll / n_single) if n_single else float("nan"),
        },
    }


def pseudo_perplexity(
    model,
    blocks: numpy.ndarray,
    train_blocks: numpy.ndarray,
    tokenizer,
    n_positions: int,
    seed: int,
    batch_size: int,
    device: str = "cpu",
) -> Dict[str, Any]:
    """Pseudo-perplexity (Salazar et al., 2020) on held-out blocks: each scored
    wordpiece is masked ALONE and scored by the model, ``exp(mean -log p)``;
    ``n_positions`` positions are sampled (all when fewer), with the add-one
    unigram perplexity of the training pieces at the same positions as baseline.

    RETURNS (Dict[str, Any]): n_positions, pseudo_perplexity, unigram_perplexity.
    """
    import torch

    special = numpy.asarray(tokenizer.all_special_ids)
    cand = numpy.argwhere(~numpy.isin(blocks, special))
    if not len(cand) or n_positions <= 0:
        return {"n_positions": 0, "pseudo_perplexity": float("nan"), "unigram_perplexity": float("nan")}
    rng = numpy.random.default_rng(numpy.random.SeedSequence([seed, 15485863]))
    if len(cand) > n_positions:
        cand = cand[numpy.sort(rng.choice(len(cand), size=n_positions, replace=False))]
    vocab_size = model.config.vocab_size
    train = train_blocks[~numpy.isin(train_blocks, special)]
    counts = numpy.bincount(train, minlength=vocab_size)[:vocab_size].astype(numpy.float64) + 1.0
    counts[special] = 0
    uni_logp = numpy.log(numpy.where(counts > 0, counts / counts.sum(), 1.0))
    nll = 0.0
    encode, project, _ = mlm_parts(model)
    model.eval()
    with torch.inference_mode():
        for s in range(0, len(cand), batch_size):
            part = cand[s : s + batch_size]
            ids = blocks[part[:, 0]].copy()
            rows = numpy.arange(len(part))
            gold = ids[rows, part[:, 1]].copy()
            ids[rows, part[:, 1]] = tokenizer.mask_token_id
            inp = torch.from_numpy(ids).to(device)
            att = torch.from_numpy((ids != tokenizer.pad_token_id).astype(numpy.int64)).to(device)
            hidden = encode(input_ids=inp, attention_mask=att)
            h = hidden[torch.from_numpy(rows).to(device), torch.from_numpy(part[:, 1]).to(device)]
            logp = torch.log_softmax(project(h).float(), dim=-1)
            nll -= float(logp.gather(1, torch.from_numpy(gold).to(device)[:, None]).sum())
    gold_all = blocks[cand[:, 0], cand[:, 1]]
    return {
        "n_positions": int(len(cand)),
        "pseudo_perplexity": math.exp(nll / len(cand)),
        "unigram_perplexity": math.exp(-float(uni_logp[gold_all].mean())),
    }


def unigram_baseline(train_blocks: numpy.ndarray, held_blocks: numpy.ndarray, special_ids: Sequence[int]) -> Dict[str, float]:
    """Top-1/top-5 of always predicting the most frequent training tokens (no context):
    what the model must beat to have learned context."""
    special = numpy.asarray(special_ids)
    train = train_blocks[~numpy.isin(train_blocks, special)]
    held = held_blocks[~numpy.isin(held_blocks, special)]
    if not len(train) or not len(held):
        return {"top1": float("nan"), "top5": float("nan")}
    counts = numpy.bincount(train)
    order = numpy.argsort(-counts, kind="stable")[:5]
    return {
        "top1": float(numpy.mean(held == order[0])),
        "top5": float(numpy.mean(numpy.isin(held, order))),
    }


class LinearSchedule:
    """Learning-rate factor: linear warm-up over ``warmup`` steps, then linear decay
    to 0 at ``horizon`` (the last step). ``horizon`` may be moved during training
    (a time budget); it is an attribute, so the scheduler's state_dict (and so a
    checkpoint) carries it."""

    def __init__(self, warmup: int, horizon: int):
        self.warmup = int(warmup)
        self.horizon = int(horizon)

    def __call__(self, step: int) -> float:
        if step < self.warmup:
            return step / max(1, self.warmup)
        return max(0.0, (self.horizon - step) / max(1, self.horizon - self.warmup))


# ---------------------------------------------------------------------------
# Checkpoints


def _save_checkpoint(out_dir: Path, model, tokenizer, optimizer, scheduler, step: int, seed: int) -> None:
    import torch

    # atomic: a crash mid-save leaves the previous checkpoint intact
    with atomic_dir(out_dir / CHECKPOINT_DIR) as tmp:
        model.save_pretrained(str(tmp))
        tokenizer.save_pretrained(str(tmp))
        # Optimizer moments are tensors; torch.save is read back with weights_only=True,
        # which refuses arbitrary objects (no pickle code execution).
        torch.save({"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict()}, tmp / "optimizer.pt")
        write_text(tmp / "trainer_state.json", json.dumps({"step": step, "seed": seed}))


def _load_checkpoint(out_dir: Path, device: str):
    import torch
    from transformers import AutoModelForMaskedLM

    ckpt = out_dir / CHECKPOINT_DIR
    state = json.loads((ckpt / "trainer_state.json").read_text(encoding="utf8"))
    from spacy_deid.components.mlm_resampler import eager

    model = eager(AutoModelForMaskedLM.from_pretrained(str(ckpt), local_files_only=True)).to(device)
    return model, state, torch.load(ckpt / "optimizer.pt", map_location=device, weights_only=True)


# ---------------------------------------------------------------------------
# The pure function


def pretrain_mlm(
    corpus: Union[str, Path],
    out_dir: Union[str, Path],
    config: Union[None, str, Path, Dict[str, Any]] = None,
    *,
    max_steps: Optional[int] = None,
    max_minutes: Optional[float] = None,
    seed: Optional[int] = None,
    device: str = "cpu",
    resume: bool = False,
    mask_pipeline: Optional[Union[str, Path]] = None,
    mask_config: Optional[Union[str, Path]] = None,
    mask_overrides: Optional[Dict[str, Any]] = None,
    no_mask: bool = False,
    stop_after_steps: Optional[int] = None,
    show_progress: bool = True,
    log: Optional[Callable[[str], None]] = None,
) -> Dict[str, Any]:
    """Train a WordPiece tokenizer and a masked LM on a frequency-masked corpus.

    corpus (Union[str, Path]): JSONL records with ``text`` (and ``patient_id``).
    out_dir (Union[str, Path]): where the model (save_pretrained), ``metrics.json``
        and ``checkpoint/`` are written.
    config (Union[None, str, Path, dict]): hyperparameters (see
        ``DEFAULT_PRETRAIN_CONFIG``; e.g. spacy_deid/configs/pretrain_cpu.cfg).
    max_steps (Optional[int]): overrides training.max_steps.
    max_minutes (Optional[float]): overrides training.max_minutes: a wall-clock
        budget of the training loop (0: none). The run stops at ``max_steps`` or
        when the budget is spent, whichever comes first, and the learning rate
        decays to 0 at the step the measured speed says the budget ends.
    seed (Optional[int]): overrides training.seed.
    device (str): torch device ("cpu", "cuda:0").
    resume (bool): continue from ``out_dir/checkpoint`` when it exists.
    mask_pipeline (Optional[Union[str, Path]]): fitted pipeline that masks the corpus.
    mask_config (Optional[Union[str, Path]]): config fitted on the corpus to mask it.
    mask_overrides (Optional[Dict[str, Any]]): overrides for ``mask_config``.
    no_mask (bool): train on the raw text (only for corpora without identifiers).
    stop_after_steps (Optional[int]): interrupt after this many steps of this run,
        leaving a checkpoint and no final model (continue later with ``resume``).
    show_progress (bool): tqdm progress bar with the loss.
    log (Optional[Callable[[str], None]]): receives one-line progress messages.
    RETURNS (Dict[str, Any]): the metrics also written to ``out_dir/metrics.json``.
    """
    import torch
    from tqdm import tqdm
    say = log or (lambda _m: None)
    cfg = load_pretrain_config(config)
    tr = cfg["training"]
    if max_steps is not None:
        tr["max_steps"] = int(max_steps)
    if max_minutes is not None:
        tr["max_minutes"] = float(max_minutes)
    if tr["masking"] not in MASKING_MODES:
        raise FatalError(f"training.masking must be one of {', '.join(MASKING_MODES)}, got {tr['masking']!r}")
    budget_s = max(0.0, float(tr["max_minutes"])) * 60.0
    if seed is not None:
        tr["seed"] = int(seed)
    seed = int(tr["seed"])
    seq_len = int(tr["seq_len"])
    if seq_len < 8:
        raise FatalError(f"training.seq_len must be >= 8, got {seq_len}")
    if cfg["model"]["hidden_size"] % cfg["model"]["num_attention_heads"]:
        raise FatalError("model.hidden_size must be a multiple of model.num_attention_heads")
    corpus = Path(corpus)
    if not corpus.is_file():
        raise FatalError(f"Corpus not found: {corpus}")
    if mask_pipeline is None and mask_config is None and not no_mask:
        raise FatalError("Pretraining needs the frequency-masking step: pass mask_pipeline or mask_config (or no_mask)")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    ckpt_exists = (out / CHECKPOINT_DIR / "trainer_state.json").exists()

    # 1. data: masked texts, split by patient
    records = list(iter_records(corpus, limit=int(tr["max_train_docs"]) or 0))
    if not records:
        raise FatalError(f"Corpus has no valid records: {corpus}")
    train_recs, held_recs = split_records(records, float(tr["heldout_fraction"]), int(tr["max_heldout_docs"]), seed)
    t0 = time.perf_counter()
    mask_nlp = None if no_mask else load_mask_pipeline(corpus, mask_pipeline, mask_config, mask_overrides)
    train_texts = list(masked_texts(train_recs, mask_nlp))
    held_texts = list(masked_texts(held_recs, mask_nlp))
    del mask_nlp
    mask_seconds = time.perf_counter() - t0
    say(f"Masked {len(train_texts)} training and {len(held_texts)} held-out notes in {mask_seconds:.1f}s")

    # 2. tokenizer (reused from the checkpoint on resume, so ids stay the same)
    if resume and ckpt_exists:
        from transformers import BertTokenizerFast

        tokenizer = BertTokenizerFast.from_pretrained(str(out / CHECKPOINT_DIR), local_files_only=True)
    else:
        tok_cfg = cfg["tokenizer"]
        tokenizer = train_tokenizer(
            train_texts, int(tok_cfg["vocab_size"]), int(tok_cfg["min_frequency"]), bool(tok_cfg["lowercase"]), seq_len
        )
    train_blocks = encode_blocks(tokenizer, train_texts, seq_len)
    held_blocks = encode_blocks(tokenizer, held_texts, seq_len) if held_texts else train_blocks[:0]
    del train_texts, held_texts
    say(f"{len(train_blocks)} training blocks of {seq_len}, vocabulary {len(tokenizer)}")

    # 3. model, optimizer, schedule
    torch_device = torch.device(device)
    total_steps = int(tr["max_steps"])
    model = build_model(cfg["model"], len(tokenizer), seq_len, tokenizer.pad_token_id, seed).to(torch_device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=float(tr["lr"]), weight_decay=float(tr["weight_decay"]))
    schedule = LinearSchedule(int(tr["warmup_steps"]), max(1, total_steps))
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)
    whole_word = tr["masking"] == "whole_word"
    tables = vocab_tables(tokenizer)
    prior = None
    if whole_word:
        content_counts, other_counts = word_counts(train_blocks, tables, tokenizer.all_special_ids)
        prior = float(tr["content_mask_probability"]) * content_counts + float(tr["other_mask_probability"]) * other_counts
    init_output_bias(model, train_blocks, tokenizer.all_special_ids, prior)
    start_step = 0
    if resume and ckpt_exists:
        model, state, opt_state = _load_checkpoint(out, device)
        optimizer = torch.optim.AdamW(model.parameters(), lr=float(tr["lr"]), weight_decay=float(tr["weight_decay"]))
        # Creating the scheduler resets the learning rate: restore the optimizer after it.
        schedule = LinearSchedule(int(tr["warmup_steps"]), max(1, total_steps))
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)
        optimizer.load_state_dict(opt_state["optimizer"])
        scheduler.load_state_dict(opt_state["scheduler"])
        start_step = int(state["step"])
        # The checkpoint's horizon is where the previous run meant to end: a run cut
        # by its time budget may have stopped a few steps before it. This run ends
        # at its own max_steps (or its own budget moves the horizon again).
        schedule.horizon = total_steps
        say(f"Resumed from step {start_step}")

    # 4. training
    batch_size = max(1, min(int(tr["batch_size"]), len(train_blocks)))
    steps_per_epoch = max(1, len(train_blocks) // batch_size)
    special = tokenizer.all_special_ids
    vocab_size = len(tokenizer)
    perm_cache: Dict[int, numpy.ndarray] = {}
    model.train()
    n_tokens = 0
    losses: List[float] = []
    t_train = time.perf_counter()
    bar = tqdm(
        total=total_steps,
        initial=min(start_step, total_steps),
        desc="pretrain",
        unit="step",
        disable=not show_progress,
    )
    every = int(tr["checkpoint_every"])
    ema = None
    end_step = total_steps
    if stop_after_steps is not None:
        end_step = min(total_steps, start_step + max(0, int(stop_after_steps)))
    stopped_by_budget = False
    step = start_step
    for step in range(start_step, end_step):
        if budget_s > 0 and step > start_step:
            spent = time.perf_counter() - t_train
            if spent >= budget_s:
                stopped_by_budget = True
                break
            if (step - start_step) % 10 == 0:
                # the horizon of the decay follows the measured speed of this run
                per_step = spent / (step - start_step)
                schedule.horizon = max(step + 1, min(total_steps, step + int((budget_s - spent) / per_step)))
        if step >= schedule.horizon:
            stopped_by_budget = True
            break
        epoch, pos = divmod(step, steps_per_epoch)
        if epoch not in perm_cache:
            perm_cache.clear()
            perm_cache[epoch] = numpy.random.default_rng(numpy.random.SeedSequence([seed, 1, epoch])).permutation(
                len(train_blocks)
            )
        idx = perm_cache[epoch][pos * batch_size : (pos + 1) * batch_size]
        ids = train_blocks[idx]
        rng = numpy.random.default_rng(numpy.random.SeedSequence([seed, 2, step]))
        if whole_word:
            inputs, labels, _ = mask_whole_words(
                ids,
                tables,
                special,
                tokenizer.mask_token_id,
                tokenizer.pad_token_id,
                float(tr["content_mask_probability"]),
                float(tr["other_mask_probability"]),
                rng,
            )
        else:
            inputs, labels = mask_batch(
                ids, special, tokenizer.mask_token_id, vocab_size, float(tr["mlm_probability"]), rng
            )
        attention = (inputs != tokenizer.pad_token_id).astype(numpy.int64)
        loss = mlm_loss(
            model,
            torch.from_numpy(inputs).to(torch_device),
            torch.from_numpy(labels).to(torch_device),
            torch.from_numpy(attention).to(torch_device),
        )
        loss.backward()
        if float(tr["grad_clip"]) > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), float(tr["grad_clip"]))
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        value = float(loss.detach())
        losses.append(value)
        ema = value if ema is None else 0.95 * ema + 0.05 * value
        n_tokens += int(attention.sum())
        bar.update(1)
        bar.set_postfix(loss=f"{ema:.3f}")
        if every > 0 and (step + 1) % every == 0 and step + 1 < total_steps:
            _save_checkpoint(out, model, tokenizer, optimizer, scheduler, step + 1, seed)
    else:
        step = end_step
    bar.close()
    train_seconds = time.perf_counter() - t_train
    if stopped_by_budget:
        say(f"Training budget of {tr['max_minutes']} min reached at step {step} of {total_steps}")
        end_step = total_steps = step
    if end_step > start_step:
        _save_checkpoint(out, model, tokenizer, optimizer, scheduler, end_step, seed)
    if end_step < total_steps:
        say(f"Stopped at step {end_step} of {total_steps}: continue with resume")
        return {"interrupted": True, "steps_done": end_step, "steps": total_steps}

    # 5. evaluation and save
    eval_bs = int(cfg["eval"]["batch_size"])
    metrics: Dict[str, Any] = {
        "corpus_docs": len(records),
        "train_docs": len(train_recs),
        "heldout_docs": len(held_recs),
        "masked_corpus": not no_mask,
        "vocab_size": vocab_size,
        "train_blocks": int(len(train_blocks)),
        "seq_len": seq_len,
        "steps": total_steps,
        "stopped_by_budget": stopped_by_budget,
        "masking": tr["masking"],
        "resumed_from_step": start_step,
        "train_tokens_this_run": n_tokens,
        "train_seconds_this_run": round(train_seconds, 2),
        "tokens_per_second": round(n_tokens / train_seconds, 1) if train_seconds > 0 and n_tokens else None,
        "final_loss_ema": round(ema, 4) if ema is not None else None,
        "device": str(torch_device),
        "seed": seed,
        "config": cfg,
    }
    if len(held_blocks):
        metrics["heldout"] = evaluate_mlm(
            model, held_blocks, tokenizer, float(tr["mlm_probability"]), seed, eval_bs, str(torch_device)
        )
        metrics["heldout_unigram_baseline"] = unigram_baseline(train_blocks, held_blocks, special)
        metrics["heldout_content"] = evaluate_content_words(
            model,
            held_blocks,
            train_blocks,
            tokenizer,
            float(cfg["eval"]["content_mask_probability"]),
            seed,
            eval_bs,
            str(torch_device),
        )
        metrics["heldout_pseudo_perplexity"] = pseudo_perplexity(
            model, held_blocks, train_blocks, tokenizer, int(cfg["eval"]["pppl_positions"]), seed, eval_bs, str(torch_device)
        )
        c, pp = metrics["heldout_content"], metrics["heldout_pseudo_perplexity"]
        say(
            f"Held-out content words (n={c['n_masked']}): top-1 {c['top1']:.3f}, top-5 {c['top5']:.3f}, "
            f"perplexity {c['perplexity']:.1f}; unigram top-1 {c['unigram']['top1']:.3f}, "
            f"top-5 {c['unigram']['top5']:.3f}, perplexity {c['unigram']['perplexity']:.1f}"
        )
        say(
            f"Held-out pseudo-perplexity {pp['pseudo_perplexity']:.1f} "
            f"(unigram {pp['unigram_perplexity']:.1f}, {pp['n_positions']} positions)"
        )
    model.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    write_text(out / "metrics.json", json.dumps(metrics, indent=2, sort_keys=True))
    return metrics
