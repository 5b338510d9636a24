"""The Ray Data engine: the same pipeline, the same per-record logic, on a cluster.

``sanitize_file_ray`` is ``sanitize.sanitize_file`` scaled out:

1. The driver scans the input once (bytes only, no JSON parsing) and cuts it into
   chunks of ``chunk_records`` records (``records.scan_chunks``); the chunk table
   goes into ``OUT.shards/manifest.json`` with a fingerprint of the input.
2. Ray Data reads the chunks (a ``Datasource`` with one read task per chunk: rows
   ``index, line_no, raw`` — raw bytes, so a non-UTF-8 or invalid JSON line is a row
   like any other and becomes an error record downstream, never a failed read).
3. ``map_batches`` with an actor class (``SanitizeWorker``, ``concurrency`` =
   ``num_workers``, ``num_gpus`` per actor when asked) loads the pipeline once per
   actor (a directory or an installed package) and runs ``sanitize.process_lines``
   on each block: the local engine's logic, so a record a component raises on
   gets an error record and the block goes on.
4. The driver writes each returned block as a shard ``shard-FIRST-END.jsonl``
   (header line + one output line per record) by temporary file + rename, so a
   shard on disk is always complete. Shards come back in completion order.
5. The merge streams the shards in record order into ``OUT`` (atomic, as the local
   engine), flags duplicate ids (they need the whole stream, so they are not
   flagged on the workers), checks that every record is there exactly once, and
   removes the shard directory.

``--resume`` after a crash or ``kill -9``: the manifest is checked against the
input and the options, complete shards are kept, only the records they do not
cover are read and processed again, then the merge runs. The output is the same
as an uninterrupted run's (and as the local engine's, for a pipeline without
cross-document state; the doc_swapper pools documents per worker).

Ray is an optional extra (``pip install 'spacy-deid[ray]'``), imported here
lazily. Without ``address`` (and without ``RAY_ADDRESS``) a local Ray is started
and shut down; with one, the driver connects to that cluster. Paths (input,
pipeline directory, ``--code`` file) are made absolute and must be readable from
every node (shared storage); shards are written by the driver only.
"""
import functools
import json
import logging
import os
import sys
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from spacy_deid.engines.checks import check_deid_pipeline, check_deid_pipeline_dir, check_paths, compare_fingerprints, run_fingerprint
from spacy_deid.io.atomic import atomic_file, write_json
from spacy_deid.util import memory_zone
from spacy_deid.io.records import AtomicJSONLWriter, Chunk, FatalError, dumps, parse_line, scan_chunks
from spacy_deid.engines.local import (
    DEFAULT_MAX_CHARS,
    DuplicateIds,
    SanitizeStats,
    check_options,
    import_code,
    load_pipeline,
    process_lines,
    record_key,
    set_operators,
)

RAY_INSTALL_HINT = "pip install 'spacy-deid[ray]'"
MANIFEST_VERSION = 1
SHARD_PREFIX = "shard-"
# Read tasks only slice bytes out of the file: they ask for no CPU, so that they
# can run next to actors that hold all the CPUs (2 actors on 2 cores).
READ_TASK_CPUS = 0


def require_ray():
    """Import Ray (with Ray Data), or a clear error naming the extra to install."""
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError as err:
        raise FatalError(f"The Ray engine needs Ray Data ({err.name or 'ray'} is not installed): {RAY_INSTALL_HINT}") from None
    return ray


@contextmanager
def ray_session(address: Optional[str] = None, num_cpus: Optional[int] = None, quiet: bool = True) -> Iterator[Any]:
    """Use the running Ray session, connect to ``address`` (or ``RAY_ADDRESS``), or
    start a local Ray; only a session started here is shut down at the end.

    address (Optional[str]): ``"auto"``, ``"ray://host:10001"``, ``"host:6379"``; None:
        ``RAY_ADDRESS`` when set, else a new local Ray.
    num_cpus (Optional[int]): CPUs of a new local Ray (None: all).
    quiet (bool): no Ray Data progress bars or INFO logs (ours are shown instead).
    """
    ray = require_ray()
    from ray.data import DataContext

    if quiet:
        for name in ("ray", "ray.data"):
            logging.getLogger(name).setLevel(logging.WARNING)
    started = False
    if not ray.is_initialized():
        kwargs: Dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": not quiet}
        if address is None and not os.environ.get("RAY_ADDRESS"):
            kwargs.update(include_dashboard=False, num_cpus=num_cpus)
        else:
            kwargs["address"] = address
        try:
            ray.init(**kwargs)
        except (ConnectionError, ValueError, RuntimeError) as err:
            raise FatalError(f"Cannot start or reach Ray ({address or os.environ.get('RAY_ADDRESS') or 'local'}): {err}") from None
        started = True
    ctx = DataContext.get_current()
    saved = (ctx.enable_progress_bars, ctx.enable_operator_progress_bars, ctx.execution_options.preserve_order)
    if quiet:
        ctx.enable_progress_bars = False
        ctx.enable_operator_progress_bars = False
    try:
        yield ray
    finally:
        ctx.enable_progress_bars, ctx.enable_operator_progress_bars, ctx.execution_options.preserve_order = saved
        if started:
            ray.shutdown()


# ---------------------------------------------------------------------- reading


@functools.lru_cache(maxsize=None)
def _datasource_class():
    """The Datasource class (defined lazily: Ray is an optional import)."""
    require_ray()
    from ray.data.block import BlockMetadata
    from ray.data.datasource import Datasource, ReadTask

    def read_chunk(path: str, start: int, end: int, first_line: int, first_index: int, skip: Tuple[Tuple[int, int], ...]):
        """One read task: the rows of a chunk, minus the record ranges in ``skip``.

        Defined here, with no reference to spacy_deid, so that cloudpickle ships it
        by value: a read task's worker process then never imports spaCy (imported,
        every reader held ~300 MB). Line rules as ``records.iter_raw_lines``: a line
        ends at b"\\n", blank lines (bytes.strip() empty) are not records, a trailing
        \\r\\n is cut; ``test_ray_output_equals_local_output`` holds the two together.
        """
        import pyarrow as pa

        index, line_no, raw = [], [], []
        i = first_index
        with open(path, "rb") as fh:
            fh.seek(start)
            remaining = end - start
            n = first_line
            while remaining > 0:
                data = fh.readline(remaining)
                if not data:
                    break
                remaining -= len(data)
                if data.strip():
                    if not any(lo <= i < hi for lo, hi in skip):
                        index.append(i)
                        line_no.append(n)
                        raw.append(data.rstrip(b"\r\n"))
                    i += 1
                n += 1
        # large_binary: a single record may be tens of MB
        yield pa.table(
            {
                "index": pa.array(index, pa.int64()),
                "line_no": pa.array(line_no, pa.int64()),
                "raw": pa.array(raw, pa.large_binary()),
            }
        )

    class JSONLinesChunks(Datasource):
        """Reads chosen chunks of a JSONL file as raw lines (one read task per chunk)."""

        def __init__(self, path: str, chunks: Sequence[Chunk], skip: Sequence[Tuple[int, int]] = ()):
            super().__init__()
            self.path = path
            self.chunks = list(chunks)
            self.skip = tuple(sorted(skip))

        def estimate_inmemory_data_size(self) -> Optional[int]:
            return sum(c.end - c.start for c in self.chunks)

        def get_read_tasks(self, parallelism: int, per_task_row_limit: Optional[int] = None, data_context=None) -> List[Any]:
            tasks = []
            for chunk in self.chunks:
                skip = tuple((lo, hi) for lo, hi in self.skip if lo < chunk.index + chunk.n and hi > chunk.index)
                meta = BlockMetadata(num_rows=None, size_bytes=chunk.end - chunk.start, exec_stats=None, input_files=(self.path,))
                args = (self.path, chunk.start, chunk.end, chunk.line_no, chunk.index, skip)
                tasks.append(ReadTask(functools.partial(read_chunk, *args), meta))
            return tasks

        def get_name(self) -> str:
            return "ReadJSONLines"

    return JSONLinesChunks


def read_lines_dataset(
    path: Union[str, Path], chunks: Sequence[Chunk], skip: Sequence[Tuple[int, int]] = (), concurrency: int = 2
):
    """A Ray Dataset of the raw lines of ``chunks`` (columns index, line_no, raw).

    Read tasks take no CPU (they would starve behind actors that hold all CPUs),
    so ``concurrency`` caps how many run at once: reading is cheap, and without a
    cap Ray starts one worker process per chunk at the same moment.
    """
    ray = require_ray()
    source = _datasource_class()(str(Path(path).resolve()), chunks, skip)
    return ray.data.read_datasource(
        source, override_num_blocks=max(1, len(chunks)), num_cpus=READ_TASK_CPUS, concurrency=max(1, concurrency)
    )


# ---------------------------------------------------------------------- workers


def _contiguous_runs(index: Sequence[int]) -> List[Tuple[int, int]]:
    """(start, stop) positions of the runs of consecutive record indices."""
    runs = []
    start = 0
    for pos in range(1, len(index) + 1):
        if pos == len(index) or index[pos] != index[pos - 1] + 1:
            runs.append((start, pos))
            start = pos
    return runs


def _load_worker_pipeline(
    pipeline: str, code_path: Optional[str], use_gpu: bool, operators: Optional[Dict[str, str]]
) -> Any:
    """What a worker does before its first record: import the user's code and our
    components, load the pipeline, set the operators, check it de-identifies."""
    import_code(code_path)
    import spacy_deid  # noqa: F401  (registers our components and readers)

    # Ray sets CUDA_VISIBLE_DEVICES to the GPU(s) of this actor: it is GPU 0 here.
    nlp = load_pipeline(pipeline, gpu_id=0 if use_gpu else -1)
    if operators:
        set_operators(nlp, operators)
    check_deid_pipeline(nlp, str(pipeline))
    return nlp


def _why_workers_cannot_load(ray: Any, pipeline: str, code_path: Optional[str], operators: Optional[Dict[str, str]]) -> Optional[str]:
    """After a failed run: load the pipeline once more in a task of the cluster (the
    workers' environment) and return why it fails, or None. Ray reports an actor
    that died in its constructor in several ways (ActorDiedError with the cause, or a
    scheduling error that names none), so the cause is asked for, not parsed."""

    def probe() -> Optional[str]:
        try:
            _load_worker_pipeline(pipeline, code_path, False, operators)
        except Exception as err:  # noqa: BLE001  (any load failure is the answer)
            return f"{type(err).__name__}: {_first_line(err, first=True)}"
        return None

    try:
        return ray.get(ray.remote(num_cpus=0, max_retries=0)(probe).remote(), timeout=300)
    except Exception:  # noqa: BLE001  (the probe is a diagnosis; its own failure says nothing)
        return None


class SanitizeWorker:
    """The ``map_batches`` actor: loads the pipeline once, sanitises blocks.

    Returns one row per run of consecutive records: ``first``, ``end`` (record
    range), ``header`` (JSON: ids for the duplicate check, counts) and ``body``
    (the output JSONL of those records, not yet flagged for duplicate ids).
    """

    def __init__(
        self,
        pipeline: str,
        code_path: Optional[str] = None,
        use_gpu: bool = False,
        batch_size: int = 64,
        keep_text: bool = False,
        max_chars: int = DEFAULT_MAX_CHARS,
        piece_chars: Optional[int] = None,
        operators: Optional[Dict[str, str]] = None,
    ):
        self.nlp = _load_worker_pipeline(pipeline, code_path, use_gpu, operators)
        self.batch_size = batch_size
        self.keep_text = keep_text
        self.max_chars = max_chars
        self.piece_chars = piece_chars

    def __call__(self, batch: Dict[str, Any]) -> Dict[str, List[Any]]:
        index = [int(i) for i in batch["index"]]
        line_no = [int(n) for n in batch["line_no"]]
        raw = batch["raw"]
        out: Dict[str, List[Any]] = {"first": [], "end": [], "header": [], "body": []}
        for start, stop in _contiguous_runs(index):
            lines = [parse_line(bytes(raw[k]), line_no[k]) for k in range(start, stop)]
            stats = SanitizeStats()
            with memory_zone(self.nlp):  # the block's strings and lexemes are freed after it
                body = [
                    dumps(rec)
                    for rec in process_lines(
                        self.nlp,
                        lines,
                        batch_size=self.batch_size,
                        keep_text=self.keep_text,
                        stats=stats,
                        flag_duplicates=False,
                        max_chars=self.max_chars,
                        piece_chars=self.piece_chars,
                    )
                ]
            header = {"first": index[start], "end": index[stop - 1] + 1, "ids": [record_key(r) for r in lines], "stats": asdict(stats)}
            out["first"].append(index[start])
            out["end"].append(index[stop - 1] + 1)
            out["header"].append(json.dumps(header))
            out["body"].append("".join(line + "\n" for line in body))
        return out


# ---------------------------------------------------------------------- shards


@dataclass
class Shard:
    first: int
    end: int
    path: Path


def shard_dir_for(output_path: Union[str, Path]) -> Path:
    output_path = Path(output_path)
    return output_path.with_name(output_path.name + ".shards")


def list_shards(shard_dir: Path) -> List[Shard]:
    """The complete shards of a run (temporary files are ignored), by first record."""
    shards = []
    if not shard_dir.is_dir():
        return shards
    for path in shard_dir.glob(f"{SHARD_PREFIX}*.jsonl"):
        try:
            first, end = (int(x) for x in path.stem[len(SHARD_PREFIX):].split("-"))
        except ValueError:
            continue
        shards.append(Shard(first, end, path))
    return sorted(shards, key=lambda s: (s.first, -s.end))


def write_shard(shard_dir: Path, first: int, end: int, header: str, body: str, private: bool = False) -> Path:
    """Write a shard atomically (a shard on disk is complete); ``private``: 0600."""
    path = shard_dir / f"{SHARD_PREFIX}{first:012d}-{end:012d}.jsonl"
    try:
        with atomic_file(path, private=private) as fh:
            fh.write(header + "\n")
            fh.write(body)
    except OSError as err:
        raise FatalError(f"Cannot write shard {path}: {err.strerror or err}; rerun with --resume when fixed") from None
    return path


def covered_ranges(shards: Sequence[Shard]) -> List[Tuple[int, int]]:
    """The union of the shards' record ranges, as sorted disjoint ranges."""
    out: List[Tuple[int, int]] = []
    for s in sorted(shards, key=lambda s: s.first):
        if out and s.first <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], s.end))
        else:
            out.append((s.first, s.end))
    return out


def _fingerprint(path: Path) -> Dict[str, Any]:
    st = path.stat()
    return {"path": str(path.resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _clear_shard_dir(shard_dir: Path) -> None:
    """Remove our files from a shard directory (never anything else)."""
    if not shard_dir.is_dir():
        return
    for path in shard_dir.iterdir():
        if path.name.startswith(SHARD_PREFIX) or path.name.startswith("manifest.json"):
            path.unlink()
    try:
        shard_dir.rmdir()
    except OSError:
        pass


def _prepare_manifest(
    shard_dir: Path, input_path: Path, options: Dict[str, Any], chunk_records: int, resume: bool, fingerprint: Dict[str, Any]
) -> Dict[str, Any]:
    manifest_path = shard_dir / "manifest.json"
    if resume and manifest_path.is_file():
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        if manifest.get("version") != MANIFEST_VERSION:
            raise FatalError(f"{shard_dir} belongs to an older run: rerun without --resume")
        compare_fingerprints(manifest.get("fingerprint"), fingerprint, shard_dir)
        return manifest
    _clear_shard_dir(shard_dir)
    try:
        shard_dir.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise FatalError(f"Cannot write output {shard_dir}: {err.strerror or err}") from None
    chunks = scan_chunks(input_path, records_per_chunk=chunk_records)
    manifest = {
        "version": MANIFEST_VERSION,
        "input": _fingerprint(input_path),
        "options": options,
        "fingerprint": fingerprint,
        "n_records": sum(c.n for c in chunks),
        "chunks": [c.to_list() for c in chunks],
    }
    try:
        write_json(manifest_path, manifest, indent=None)
    except OSError as err:
        raise FatalError(f"Cannot write output {manifest_path}: {err.strerror or err}") from None
    return manifest


def merge_shards(shard_dir: Path, output_path: Path, n_records: int, private: bool = False) -> SanitizeStats:
    """Stream the shards in record order into ``output_path`` (atomically), flag
    duplicate ids, and check that each of the ``n_records`` records is there once.
    When every record failed, nothing is written (the previous output stays).

    RETURNS (SanitizeStats): the counts of the whole output.
    """
    stats = SanitizeStats()
    duplicates = DuplicateIds()
    writer = AtomicJSONLWriter(output_path, private=private)
    expected = 0
    try:
        for shard in list_shards(shard_dir):
            if shard.end <= expected:  # wholly covered by an earlier shard
                continue
            if shard.first > expected:
                break
            with shard.path.open("r", encoding="utf-8") as fh:
                header = json.loads(fh.readline())
                skip = expected - shard.first
                exact = skip == 0
                if exact:
                    part = SanitizeStats(**header["stats"])
                    part.n_duplicate_ids = 0
                    stats.merge(part)
                for k, line in enumerate(fh):
                    if k < skip:
                        continue
                    line = line.rstrip("\n")
                    if duplicates.check(header["ids"][k]):
                        rec = json.loads(line)
                        rec["duplicate_id"] = True
                        line = dumps(rec)
                        stats.n_duplicate_ids += 1
                    if not exact:
                        stats.count(json.loads(line))
                    writer.write_line(line)
            expected = shard.end
        if expected != n_records:
            raise FatalError(
                f"Records {expected} to {n_records} are missing from {shard_dir}; rerun with --resume to process them"
            )
    except BaseException:
        writer.close()
        raise
    if stats.n_in and not stats.n_ok:
        writer.discard()
        raise FatalError(
            f"Every one of the {stats.n_in} records failed (errors by kind: {json.dumps(stats.errors_by_kind)}); "
            f"{output_path} was left as it was"
        )
    writer.commit()
    return stats


# ---------------------------------------------------------------------- driver


def sanitize_file_ray(
    pipeline: Union[str, Path],
    input_path: Union[str, Path],
    output_path: Union[str, Path],
    *,
    address: Optional[str] = None,
    num_workers: int = 2,
    num_gpus_per_worker: float = 0.0,
    num_cpus_per_worker: float = 1.0,
    batch_size: int = 64,
    resume: bool = False,
    keep_text: bool = False,
    show_progress: Optional[bool] = None,
    max_chars: int = DEFAULT_MAX_CHARS,
    piece_chars: Optional[int] = None,
    chunk_records: int = 1000,
    code_path: Optional[Union[str, Path]] = None,
    keep_shards: bool = False,
    operators: Optional[Dict[str, str]] = None,
) -> SanitizeStats:
    """Sanitise ``input_path`` into ``output_path`` on Ray Data (module docstring).

    pipeline (Union[str, Path]): a pipeline directory (readable from every node) or
        the name of a pipeline package installed on every node.
    input_path (Union[str, Path]): input JSONL (readable from every node).
    output_path (Union[str, Path]): output JSONL, written by the driver.
    address (Optional[str]): Ray address; None: ``RAY_ADDRESS`` or a local Ray.
    num_workers (int): actors, each with its own copy of the pipeline.
    num_gpus_per_worker (float): GPUs per actor (0: CPU; fractions share a GPU).
    num_cpus_per_worker (float): CPUs per actor.
    batch_size (int): ``nlp.pipe`` batch size inside an actor.
    resume (bool): keep the complete shards of an interrupted run.
    keep_text (bool): also write the original text (off by default: privacy).
    show_progress (Optional[bool]): progress bar; None: only on a terminal.
    max_chars (int): texts longer than this get an error record (0: no limit).
    piece_chars (Optional[int]): texts longer than this are processed in pieces.
    chunk_records (int): records per block (and per shard: the resume granularity).
    code_path (Optional[Union[str, Path]]): Python file with custom components,
        imported by every actor before loading the pipeline (spaCy's ``--code``).
    operators (Optional[Dict[str, str]]): operator override of the pipeline's
        phi_replacer, applied by every actor.
    keep_shards (bool): keep ``OUT.shards/`` after the merge.
    RETURNS (SanitizeStats): counts of the whole output (``n_resumed``: records
        taken from the shards of the interrupted run).
    """
    import spacy

    input_path = Path(input_path)
    output_path = Path(output_path)
    if not input_path.is_file():
        raise FatalError(f"Input file not found: {input_path}")
    pipeline_arg = str(pipeline)
    if Path(pipeline_arg).exists():
        pipeline_arg = str(Path(pipeline_arg).resolve())
    elif not spacy.util.is_package(pipeline_arg):
        raise FatalError(f"Pipeline not found: {pipeline_arg} (neither a directory nor an installed package)")
    code_arg = None
    if code_path:
        if not Path(code_path).is_file():
            raise FatalError(f"Code file not found: {code_path}")
        code_arg = str(Path(code_path).resolve())
    check_options(batch_size=batch_size, max_chars=max_chars, num_workers=num_workers, chunk_records=chunk_records)
    check_paths(input_path, output_path)
    check_deid_pipeline_dir(pipeline_arg)
    shard_dir = shard_dir_for(output_path)
    timings: Dict[str, float] = {}
    t0 = time.perf_counter()
    options = {"pipeline": pipeline_arg, "keep_text": keep_text, "max_chars": max_chars, "piece_chars": piece_chars}
    if operators:
        options["operators"] = operators  # a resumed run must use the same operators
    fingerprint = run_fingerprint(input_path, pipeline_arg, options)
    manifest = _prepare_manifest(shard_dir, input_path, options, chunk_records, resume, fingerprint)
    chunks = [Chunk.from_list(c) for c in manifest["chunks"]]
    n_records = int(manifest["n_records"])
    covered = covered_ranges(list_shards(shard_dir))
    n_resumed = sum(hi - lo for lo, hi in covered)
    todo = [c for c in chunks if not any(lo <= c.index and c.index + c.n <= hi for lo, hi in covered)]
    timings["scan_s"] = time.perf_counter() - t0

    if todo:
        if show_progress is None:
            show_progress = sys.stderr.isatty()
        progress = None
        if show_progress:
            from tqdm import tqdm

            progress = tqdm(total=n_records, initial=n_resumed, unit="doc", desc="sanitize (ray)")
        try:
            t0 = time.perf_counter()
            with ray_session(address) as ray:
                timings["start_s"] = time.perf_counter() - t0
                t0 = time.perf_counter()
                ds = read_lines_dataset(input_path, todo, skip=covered, concurrency=num_workers)
                ds = ds.map_batches(
                    SanitizeWorker,
                    fn_constructor_kwargs={
                        "pipeline": pipeline_arg,
                        "code_path": code_arg,
                        "use_gpu": num_gpus_per_worker > 0,
                        "batch_size": batch_size,
                        "keep_text": keep_text,
                        "max_chars": max_chars,
                        "piece_chars": piece_chars,
                        "operators": operators,
                    },
                    batch_size=None,  # one block (= one chunk) per call
                    batch_format="numpy",
                    compute=ray.data.ActorPoolStrategy(size=num_workers),
                    # Ray calls num_cpus together with num_gpus experimental: GPU actors ask for GPUs only.
                    num_gpus=num_gpus_per_worker or None,
                    num_cpus=None if num_gpus_per_worker else num_cpus_per_worker,
                )
                try:
                    for row in ds.iter_rows():
                        write_shard(shard_dir, int(row["first"]), int(row["end"]), row["header"], row["body"], private=keep_text)
                        if progress is not None:
                            progress.update(int(row["end"]) - int(row["first"]))
                except FatalError:
                    raise
                except ray.exceptions.RayError as err:
                    # a record's own failure never gets here (process_lines gives it an
                    # error record): this is a worker that could not start or died
                    cause = _why_workers_cannot_load(ray, pipeline_arg, code_arg, operators)
                    why = f"; the workers cannot load the pipeline: {cause}" if cause else ""
                    raise FatalError(
                        f"Ray run failed ({type(err).__name__}: {_first_line(err)}){why}; complete shards are kept in "
                        f"{shard_dir}, rerun with --resume"
                    ) from None
                timings["process_s"] = time.perf_counter() - t0
        finally:
            if progress is not None:
                progress.close()
    t0 = time.perf_counter()
    stats = merge_shards(shard_dir, output_path, n_records, private=keep_text)
    timings["merge_s"] = time.perf_counter() - t0
    stats.n_resumed = n_resumed
    stats.timings = timings
    if not keep_shards:
        _clear_shard_dir(shard_dir)
    return stats


def _first_line(err: BaseException, first: bool = False) -> str:
    """One line of an error's message (the last one, where Ray puts the cause under
    its traceback; the first with ``first``), at most 300 characters."""
    text = [line for line in str(err).strip().splitlines() if line.strip()]
    return (text[0] if first else text[-1])[:300] if text else type(err).__name__
