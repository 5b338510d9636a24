"""Corpus statistics on Ray Data: ``python -m spacy_deid init ... --engine ray``.

``init_pipeline_ray`` builds the pipeline of a config like ``pipeline.init_pipeline``
and calls spaCy's ``nlp.initialize()``; while it runs, the ``initialize`` of the
components that learn corpus statistics is swapped for a Ray Data version:

- ``frequency_masker`` — map: each actor holds the pipeline's *upstream*
  components (the ones before the masker, already initialized: sent as
  ``nlp.to_bytes`` without the masker and what follows), runs them on a block of
  records and returns, per block, only hashed item keys (``ItemExtractor``):
  per patient the distinct keys (``count_unit = patient``), or key counts
  (``document``/``occurrence``): ``FrequencyMasker.count_block``. No text leaves
  a worker. Reduce: on the driver, ``FrequencyMasker.fit_counts`` sums the blocks
  and applies the cut-offs; with ``keep_fraction`` (choosing k needs a second
  corpus pass) that pass runs on the driver.
- ``doc_swapper`` — the expensive part is rendering each record through the
  upstream components (masking, MLM resampling): that runs on the actors, in
  corpus order (``preserve_order``); hashing, idf and the MiniBatchKMeans fit then
  run on the driver, in the swapper's own ``initialize``, from the rendered texts.
  Assigning documents to clusters happens in the swapper's ``pipe``, i.e. on the
  workers of ``sanitize --engine ray``.

The result is the local engine's, for the same data and seed (a test compares
the saved pipelines), except the diagnostic ``stats.counter_peak_pairs`` of the
masker when the corpus has more (item, patient) pairs than the counter's buffer
(it depends on the order the pairs arrive in).

Both engines run the masker's own public fit: ``count_block`` (map, here on the
actors) and ``fit_counts`` (reduce, checks, k, allowed items, confidence list, on
the driver), as ``FrequencyMasker.initialize`` does; ``tests/test_ray.py`` proves
both engines agree.
"""
import functools
import json
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, Union

import numpy as np
from spacy.language import Language

from spacy_deid.io.records import FatalError, iter_lines, parse_line, scan_chunks
from spacy_deid.detect.gazetteers import COMMON_WORDS
from spacy_deid.engines.local import import_code
from spacy_deid.util import memory_zone

RECORDS_READER = "spacy_deid.io.records.v1"


# ---------------------------------------------------------------------- workers


class UpstreamWorker:
    """The ``map_batches`` actor of ``init --engine ray``.

    Rebuilds the pipeline from its config, loads the state of the components
    before ``name`` (``nlp.to_bytes`` of the driver, mid-initialize) and runs them
    on each block of records (``util.pipe_upstream``).

    task "frequency": one row per block: ``units`` (JSON list of unit ids),
    ``keys`` (uint64 bytes), ``offsets`` (int64 bytes: the keys of unit i are
    ``keys[offsets[i]:offsets[i+1]]``), ``counts`` (int64 bytes, non-patient units),
    ``n_docs``, ``n_words``, ``n_no_patient``.
    task "render": one row per record: ``index``, ``text`` (rendered by the
    upstream components, i.e. already sanitised), ``label``.
    """

    def __init__(self, config_str: str, nlp_bytes: bytes, name: str, exclude: List[str], task: str,
                 code_path: Optional[str] = None, use_gpu: bool = False):
        import spacy
        from spacy import util
        from thinc.api import Config

        import_code(code_path)
        import spacy_deid  # noqa: F401

        if use_gpu:
            spacy.require_gpu(0)
        nlp = util.load_model_from_config(Config().from_str(config_str), auto_fill=False, validate=False)
        nlp.from_bytes(nlp_bytes, exclude=exclude)
        self.nlp = nlp
        self.name = name
        self.task = task
        self.proc = nlp.get_pipe(name)

    def _records(self, batch) -> Tuple[List[int], List[Dict[str, Any]]]:
        index, records = [], []
        for i, ln, raw in zip(batch["index"], batch["line_no"], batch["raw"]):
            res = parse_line(bytes(raw), int(ln))
            if res.record is not None:  # as spacy_deid.io.records.v1: invalid lines are skipped
                index.append(int(i))
                records.append(res.record)
        return index, records

    def __call__(self, batch: Dict[str, Any]) -> Dict[str, List[Any]]:
        from spacy_deid.util import pipe_upstream

        index, records = self._records(batch)
        with memory_zone(self.nlp):
            docs = pipe_upstream(self.nlp, self.name, records)
            if self.task == "render":
                out: Dict[str, List[Any]] = {"index": [], "text": [], "label": []}
                for i, doc in zip(index, docs):
                    out["index"].append(i)
                    out["text"].append(doc._.deid_text)
                    out["label"].append(json.dumps((doc._.deid_record or {}).get("label")))
                return out
            return self._count(index, docs)

    def _count(self, index: List[int], docs) -> Dict[str, List[Any]]:
        block = self.proc.count_block(docs, first_index=index[0] if index else 0)
        return {
            "units": [json.dumps(block.units)],
            "keys": [np.ascontiguousarray(block.keys, dtype="<u8").tobytes()],
            "offsets": [block.offsets.astype("<i8").tobytes()],
            "counts": [block.counts.astype("<i8").tobytes()],
            "n_docs": [block.n_docs],
            "n_words": [block.n_words],
            "n_no_patient": [block.n_no_patient],
        }


def block_from_row(row: Dict[str, Any]):
    """The ``BlockCounts`` of one row written by ``UpstreamWorker._count``."""
    from spacy_deid.components.frequency_masker import BlockCounts

    return BlockCounts(
        units=json.loads(row["units"]),
        keys=np.frombuffer(row["keys"], dtype="<u8").astype(np.uint64),
        offsets=np.frombuffer(row["offsets"], dtype="<i8").astype(np.int64),
        counts=np.frombuffer(row["counts"], dtype="<i8").astype(np.int64),
        n_docs=int(row["n_docs"]),
        n_words=int(row["n_words"]),
        n_no_patient=int(row["n_no_patient"]),
    )


# ---------------------------------------------------------------------- driver


@contextmanager
def _preserve_order(on: bool):
    from ray.data import DataContext

    ctx = DataContext.get_current()
    saved = ctx.execution_options.preserve_order
    ctx.execution_options.preserve_order = on
    try:
        yield
    finally:
        ctx.execution_options.preserve_order = saved


class RayStats:
    """Runs the upstream components of a component on Ray Data actors."""

    def __init__(self, *, num_workers: int = 2, num_gpus_per_worker: float = 0.0, chunk_records: int = 1000,
                 code_path: Optional[str] = None):
        self.num_workers = num_workers
        self.num_gpus_per_worker = num_gpus_per_worker
        self.chunk_records = chunk_records
        self.code_path = code_path

    def dataset(self, nlp: Language, name: str, corpus_path: Path, limit: int, task: str):
        from spacy_deid.engines.ray import read_lines_dataset, require_ray

        ray = require_ray()
        chunks = scan_chunks(corpus_path, records_per_chunk=self.chunk_records)
        skip: List[Tuple[int, int]] = []
        if limit:
            cut = _index_after_valid(corpus_path, limit)
            chunks = [c for c in chunks if c.index < cut]
            skip = [(cut, 1 << 62)]
        names = nlp.pipe_names
        exclude = names[names.index(name):]  # this component and the ones after it
        nlp_bytes = nlp.to_bytes(exclude=exclude)
        ds = read_lines_dataset(corpus_path, chunks, skip=skip, concurrency=self.num_workers)
        return ds.map_batches(
            UpstreamWorker,
            fn_constructor_kwargs={
                "config_str": nlp.config.to_str(),
                "nlp_bytes": nlp_bytes,
                "name": name,
                "exclude": exclude,
                "task": task,
                "code_path": self.code_path,
                "use_gpu": self.num_gpus_per_worker > 0,
            },
            batch_size=None,
            batch_format="numpy",
            compute=ray.data.ActorPoolStrategy(size=self.num_workers),
            num_gpus=self.num_gpus_per_worker or None,
            num_cpus=None if self.num_gpus_per_worker else 1,
        )


def _index_after_valid(path: Path, limit: int) -> int:
    """The record index after the ``limit``-th valid record (for ``limit``)."""
    n = 0
    for index, res in enumerate(iter_lines(path)):
        if res.record is not None:
            n += 1
            if n >= limit:
                return index + 1
    return 1 << 62


def corpus_source(nlp: Language, name: str) -> Tuple[Path, int]:
    """The path and limit of a component's ``[initialize.components.NAME.corpus]``
    reader; a clear error when it is not ``spacy_deid.io.records.v1``."""
    init = nlp.config.interpolate().get("initialize", {}).get("components", {}).get(name, {})
    block = init.get("corpus") if isinstance(init, dict) else None
    if not isinstance(block, dict) or block.get("@readers") != RECORDS_READER:
        raise FatalError(
            f"--engine ray reads the corpus of [{name}] with {RECORDS_READER}; this config uses "
            f"{(block or {}).get('@readers') if isinstance(block, dict) else block!r}: use --engine local"
        )
    path = Path(str(block["path"]))
    if not path.is_file():
        raise FatalError(f"Corpus not found: {path}")
    return path, int(block.get("limit") or 0)


def _fit_frequency(proc, nlp: Language, ray_stats: RayStats, *, corpus=None, whitelist=None, blacklist=None,
                   confidence_path=None, common_words=COMMON_WORDS) -> None:
    """``FrequencyMasker.initialize`` with the counting (``count_block``) on Ray
    actors and the masker's own reduce (``fit_counts``) on the driver."""
    from spacy_deid.util import require_corpus

    require_corpus(corpus, proc.name)
    path, limit = corpus_source(nlp, proc.name)

    def blocks():
        with _preserve_order(True):  # blocks in corpus order: patients numbered as the local engine does
            for row in ray_stats.dataset(nlp, proc.name, path, limit, "frequency").iter_rows():
                yield block_from_row(row)

    proc.set_common_words(common_words)
    proc.fit_counts(nlp, corpus, blocks(), whitelist=whitelist, blacklist=blacklist,
                    confidence_path=confidence_path, engine="Ray")


def _fit_swapper(proc, original: Callable, nlp: Language, ray_stats: RayStats, get_examples=None, *, corpus=None, **kwargs) -> None:
    """``DocSwapper.initialize`` fed with texts rendered by the upstream components
    on Ray, in corpus order; the fit itself is the swapper's own."""
    from spacy_deid.util import require_corpus, upstream_pipes

    if getattr(proc, "method", None) == "none" or not upstream_pipes(nlp, proc.name):
        # nothing to distribute: the swapper reads the raw texts itself
        return original(get_examples, nlp=nlp, corpus=corpus, **kwargs)
    require_corpus(corpus, proc.name)
    path, limit = corpus_source(nlp, proc.name)

    def rendered() -> Iterator[Dict[str, Any]]:
        with _preserve_order(True):
            for row in ray_stats.dataset(nlp, proc.name, path, limit, "render").iter_rows():
                yield {"text": row["text"], "label": json.loads(row["label"])}

    # nlp=None: the swapper takes each record's text as already rendered
    return original(get_examples, nlp=None, corpus=rendered, **kwargs)


def _ray_initializers() -> Dict[type, Callable]:
    from spacy_deid.components.frequency_masker import FrequencyMasker
    from spacy_deid.components.doc_swapper import DocSwapper

    return {FrequencyMasker: "frequency", DocSwapper: "swap"}


def init_pipeline_ray(
    config_path: Union[str, Path],
    corpus: Union[str, Path],
    output_dir: Optional[Union[str, Path]] = None,
    overrides: Optional[Dict[str, Any]] = None,
    *,
    address: Optional[str] = None,
    num_workers: int = 2,
    num_gpus_per_worker: float = 0.0,
    chunk_records: int = 1000,
    code_path: Optional[Union[str, Path]] = None,
    ner: Optional[Union[str, Path]] = None,
) -> Language:
    """``pipeline.init_pipeline`` with the corpus statistics computed on Ray Data.

    config_path (Union[str, Path]): the .cfg file.
    corpus (Union[str, Path]): the corpus JSONL (``paths.corpus``; readable from every node).
    output_dir (Optional[Union[str, Path]]): where to save; None: do not save.
    overrides (Optional[Dict[str, Any]]): config overrides.
    address (Optional[str]): Ray address; None: ``RAY_ADDRESS`` or a local Ray.
    num_workers (int): actors running the upstream components.
    num_gpus_per_worker (float): GPUs per actor (for an MLM upstream of the swapper).
    chunk_records (int): records per block.
    code_path (Optional[Union[str, Path]]): custom components file, imported by every actor.
    ner (Optional[Union[str, Path]]): a trained pipeline whose tok2vec + ner go first
        (readable from every node).
    RETURNS (Language): the fitted pipeline.
    """
    from spacy import util
    from spacy.training.initialize import get_sourced_components

    import spacy_deid  # noqa: F401

    from spacy_deid.engines.ray import ray_session, require_ray
    from spacy_deid.engines.fit import load_config, stamp_meta

    require_ray()
    import_code(code_path)
    code_arg = str(Path(code_path).resolve()) if code_path else None
    config = load_config(config_path, corpus, overrides, ner)
    nlp = util.load_model_from_config(config, auto_fill=True)
    sourced = get_sourced_components(config.interpolate())
    nlp._link_components()
    ray_stats = RayStats(num_workers=num_workers, num_gpus_per_worker=num_gpus_per_worker,
                         chunk_records=chunk_records, code_path=code_arg)
    kinds = _ray_initializers()
    patched = []
    for name, proc in nlp.pipeline:
        kind = next((k for cls, k in kinds.items() if isinstance(proc, cls)), None)
        if kind is None or name in sourced:
            continue
        original = proc.initialize
        if kind == "frequency":
            impl = functools.partial(_fit_frequency, proc)

            @functools.wraps(original)
            def wrapper(get_examples=None, *, nlp=None, _impl=impl, **kwargs):
                return _impl(nlp, ray_stats, **kwargs)
        else:
            impl = functools.partial(_fit_swapper, proc, original)

            @functools.wraps(original)
            def wrapper(get_examples=None, *, nlp=None, _impl=impl, **kwargs):
                return _impl(nlp, ray_stats, get_examples, **kwargs)

        proc.initialize = wrapper  # spaCy validates the settings against the wrapped signature
        patched.append(proc)
    try:
        with ray_session(address):
            with nlp.select_pipes(disable=[*sourced]):
                nlp.initialize()
    finally:
        for proc in patched:
            del proc.initialize
    from spacy_deid.util import check_sourced_vectors

    check_sourced_vectors(nlp, {name: cfg["source"] for name, cfg in sourced.items() if isinstance(cfg.get("source"), str)})
    stamp_meta(nlp, config_path)
    if output_dir is not None:
        from spacy_deid.util import save_pipeline

        save_pipeline(nlp, output_dir)
    return nlp
