"""Sanitise a JSONL corpus with a pipeline: streaming, ordered, nothing lost.

Every input line gives exactly one output line, in input order: ``status: ok`` with
the sanitised text and the edits (original char offsets), or ``status: error``
with a message naming the record. The original text is never written unless the
caller asks for it (``keep_text``).

The per-record logic (``process_lines``) is shared by both engines: the local one
here (one process, or ``n_process`` through spaCy's multiprocessing) and the Ray
Data one (``spacy_deid.engines.ray``), whose workers run it on their blocks.

Long records: a text longer than ``max_chars`` (default 10,000,000 characters)
gets an error record naming it, at once (no tokenisation); a text longer than
``piece_chars`` (default: the pipeline's ``nlp.max_length``, 1,000,000 in spaCy)
is cut at paragraph, line or space boundaries into pieces that are processed as
separate Docs and joined back into ONE output record (``"pieces": n``, edit
offsets are into the whole text). Document-level components (doc_swapper) then
see each piece as a document.
"""
import contextlib
import json
import os
import itertools
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any, Deque, Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple, Union

from spacy.language import Language
from spacy.tokens import Doc

from spacy_deid.edits import KEEP, render, segment_record
from spacy_deid.engines.checks import (
    check_deid_pipeline,
    check_paths,
    compare_fingerprints,
    run_fingerprint,
)
from spacy_deid.io.atomic import write_json
from spacy_deid.util import check_pipeline_vectors, make_doc, memory_zone
from spacy_deid.io.records import (
    PASS_THROUGH,
    AtomicJSONLWriter,
    FatalError,
    LineResult,
    count_records,
    iter_lines,
    iter_raw_lines,
    open_input,
    parse_line,
)

# Above this many characters a record gets an error record instead of being
# processed: at ~200k chars/s (tokenizer + span_ruler on one core) 10 M characters
# is about a minute of work for one record; raise it with --max-chars (0: no limit).
DEFAULT_MAX_CHARS = 10_000_000


@dataclass
class SanitizeStats:
    n_in: int = 0
    n_ok: int = 0
    n_error: int = 0
    n_resumed: int = 0
    n_duplicate_ids: int = 0
    n_edits: int = 0
    n_split: int = 0
    errors_by_kind: Dict[str, int] = field(default_factory=dict)
    # wall seconds per phase (local: process; ray: scan, start, process, merge)
    timings: Dict[str, float] = field(default_factory=dict)

    def count(self, out: Dict[str, Any]) -> None:
        """Add one output record to the counts."""
        self.n_in += 1
        if out.get("duplicate_id"):
            self.n_duplicate_ids += 1
        if out["status"] == "ok":
            self.n_ok += 1
            self.n_edits += len(out["edits"])
            if out.get("pieces"):
                self.n_split += 1
        else:
            self.n_error += 1
            kind = error_kind(out["error"])
            self.errors_by_kind[kind] = self.errors_by_kind.get(kind, 0) + 1

    def merge(self, other: "SanitizeStats") -> None:
        for name in ("n_in", "n_ok", "n_error", "n_duplicate_ids", "n_edits", "n_split"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for kind, n in other.errors_by_kind.items():
            self.errors_by_kind[kind] = self.errors_by_kind.get(kind, 0) + n


def error_kind(message: str) -> str:
    """A short kind for an error message (the part after the record's name)."""
    kind = message.split(":")[1].strip() if ":" in message else message
    return kind[:60]


class DuplicateIds:
    """Flags a record whose id was already seen among the earlier *valid* records.

    Kept apart from processing so that both engines flag the same records: the
    local engine flags as it writes, the Ray engine when it merges the shards, and
    ``--resume`` first replays the ids of the records already written. Memory is
    one set entry per distinct id (ids, never text).
    """

    def __init__(self) -> None:
        self.seen: Set[str] = set()

    def check(self, record_id: Optional[str]) -> bool:
        """True when ``record_id`` was seen before; remembers it."""
        if record_id is None:
            return False
        if record_id in self.seen:
            return True
        self.seen.add(record_id)
        return False

    def replay(self, lines: Iterable[LineResult]) -> None:
        """Remember the ids of already-written records (for resume)."""
        for res in lines:
            self.check(record_key(res))


def record_key(res: LineResult) -> Optional[str]:
    """The id a line contributes to duplicate detection (valid records only)."""
    return res.record_id if res.record is not None else None


def config_factories(path: Path) -> Optional[Set[str]]:
    """The factory names of a pipeline directory's components (None: no config)."""
    from spacy.util import load_config

    if not (path / "config.cfg").is_file():
        return None
    components = load_config(path / "config.cfg", interpolate=False).get("components", {})
    return {str(c["factory"]) for c in components.values() if isinstance(c, dict) and "factory" in c}


@contextlib.contextmanager
def entry_point_factories_only(names: Optional[Set[str]]) -> Iterator[None]:
    """While loading a pipeline, let spaCy import only the factory entry points
    its config names: ``Language()`` imports every package that registers a
    factory by entry point, and spacy-transformers brings torch and transformers
    (about 5 s of a sanitize run's start) into a pipeline that has no transformer.
    ``names`` None: spaCy's own behaviour."""
    from spacy import util

    registry = util.registry._entry_point_factories
    if names is None or not hasattr(registry, "get_entry_point"):
        yield
        return
    get_all = registry.get_all

    def named_only() -> Dict[str, Any]:
        found = {name: registry.get_entry_point(name) for name in sorted(names)}
        return {name: func for name, func in found.items() if func is not None}

    registry.get_all = named_only
    try:
        yield
    finally:
        registry.get_all = get_all


def load_pipeline(name_or_path: Union[str, Path], gpu_id: int = -1) -> Language:
    """Load a pipeline directory or an installed pipeline package by name."""
    import spacy

    if gpu_id >= 0:
        spacy.require_gpu(gpu_id)
    target = str(name_or_path)
    path = Path(target)
    if not path.exists() and not spacy.util.is_package(target):
        raise FatalError(f"Pipeline not found: {target} (neither a directory nor an installed package)")
    try:
        with entry_point_factories_only(config_factories(path) if path.is_dir() else None):
            nlp = spacy.load(target)
    except OSError as err:
        raise FatalError(f"Cannot load pipeline {target}: {err}") from None
    try:
        check_pipeline_vectors(nlp)
    except ValueError as err:
        raise FatalError(f"Pipeline {target}: {err}") from None
    return nlp


def import_code(code_path: Optional[Union[str, Path]]) -> None:
    """Import a Python file with custom components (spaCy's ``--code``)."""
    if code_path:
        from spacy.cli._util import import_code as _import_code

        if not Path(code_path).is_file():
            raise FatalError(f"Code file not found: {code_path}")
        _import_code(str(code_path))


def doc_to_output(doc: Doc, record: Dict[str, Any], keep_text: bool = False) -> Dict[str, Any]:
    """The output record of one processed document."""
    return docs_to_output([doc], [0], record, keep_text=keep_text)


def docs_to_output(
    docs: Sequence[Doc], offsets: Sequence[int], record: Dict[str, Any], keep_text: bool = False
) -> Dict[str, Any]:
    """The output record of a document processed as one or more pieces.

    docs (Sequence[Doc]): the processed pieces, in text order.
    offsets (Sequence[int]): the character offset of each piece in the record's text.
    record (dict): the input record (pass-through fields are copied).
    keep_text (bool): also write the original text.
    RETURNS (dict): the output record; edit offsets are into the whole text.
    """
    texts: List[str] = []
    edits: List[Dict[str, Any]] = []
    for doc, offset in zip(docs, offsets):
        rendering = render(doc)
        texts.append(rendering.text)
        edits.extend(segment_record(seg, offset) for seg in rendering.segments if seg.method != KEEP)
    out: Dict[str, Any] = {"id": record["id"], "deid_text": "".join(texts), "edits": edits, "status": "ok"}
    if len(docs) > 1:
        out["pieces"] = len(docs)
    for key in PASS_THROUGH:
        if record.get(key) is not None:
            out[key] = record[key]
    if keep_text:
        out["text"] = record["text"]
    return out


def error_output(res: LineResult, message: str, record: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    out: Dict[str, Any] = {"id": res.record_id if res.record_id is not None else res.line_no, "line": res.line_no}
    out["status"] = "error"
    out["error"] = message
    if record is not None:
        for key in PASS_THROUGH:
            if record.get(key) is not None:
                out[key] = record[key]
    return out


def split_text(text: str, piece_chars: int) -> List[Tuple[int, str]]:
    """Cut ``text`` into pieces of at most ``piece_chars`` characters.

    Each cut is at the last paragraph break, else line break, else space in the
    second half of the window (so a PHI span is rarely cut), else hard. The pieces
    concatenate back to ``text``.

    RETURNS (List[Tuple[int, str]]): (char offset, piece) pairs.
    """
    if piece_chars <= 0 or len(text) <= piece_chars:
        return [(0, text)]
    pieces = []
    start = 0
    while len(text) - start > piece_chars:
        end = start + piece_chars
        lo = start + piece_chars // 2
        for sep in ("\n\n", "\n", " "):
            pos = text.rfind(sep, lo, end)
            if pos > start:
                end = pos + len(sep)
                break
        pieces.append((start, text[start:end]))
        start = end
    pieces.append((start, text[start:]))
    return pieces


def _make_doc(nlp: Language, record: Dict[str, Any], index: int, text: Optional[str] = None, part: int = 0) -> Doc:
    return make_doc(nlp, record, text, _index=index, **({"_part": part} if part else {}))


def set_error_handlers(nlp: Language, handler) -> None:
    """Set ``handler`` on every component that can take one.

    ``Language.set_error_handler`` stops at the first component that cannot: the
    Cython parser-based components (``ner``, ``parser``) of spaCy 3.8 have no
    ``error_handler`` slot and raise AttributeError. Those keep spaCy's default
    (raise); an exception there reaches ``process_lines``'s retry path.
    """
    for _, proc in nlp.pipeline:
        setter = getattr(proc, "set_error_handler", None)
        if setter is None:
            continue
        try:
            setter(handler)
        except AttributeError:
            pass


class _KeepGoing:
    """spaCy error handler that lets the stream go on (the failed docs are detected
    by their missing index and retried alone). A module-level class, not a closure,
    so that the pipeline stays picklable for ``n_process`` under spawn/forkserver.
    It never logs document text."""

    def __call__(self, proc_name, proc, docs, exc) -> None:
        return None


def _raise(proc_name, proc, docs, exc):
    raise exc


@dataclass
class _Pending:
    index: int
    res: LineResult
    offsets: List[int] = field(default_factory=list)
    texts: List[str] = field(default_factory=list)
    docs: Dict[int, Doc] = field(default_factory=dict)
    error: Optional[str] = None


def process_lines(
    nlp: Language,
    lines: Iterable[LineResult],
    batch_size: int = 64,
    n_process: int = 1,
    keep_text: bool = False,
    stats: Optional[SanitizeStats] = None,
    duplicates: Optional[DuplicateIds] = None,
    flag_duplicates: bool = True,
    max_chars: int = DEFAULT_MAX_CHARS,
    piece_chars: Optional[int] = None,
) -> Iterator[Dict[str, Any]]:
    """Turn a stream of input lines into output records, one per line, in order.

    Valid records stream through ``nlp.pipe``; a record a component fails on is
    dropped by spaCy's error handler, detected by its missing index, and retried
    alone so that it gets either its output or an error record naming it.

    nlp (Language): the pipeline.
    lines (Iterable[LineResult]): parsed input lines (``records.iter_lines``).
    batch_size (int): ``nlp.pipe`` batch size.
    n_process (int): processes for ``nlp.pipe``.
    keep_text (bool): also write the original text.
    stats (Optional[SanitizeStats]): counts are added here.
    duplicates (Optional[DuplicateIds]): ids seen so far (resume replays them).
    flag_duplicates (bool): add ``duplicate_id: true``; the Ray engine flags when merging.
    max_chars (int): longer texts get an error record (0: no limit).
    piece_chars (Optional[int]): longer texts are processed in pieces; None: ``nlp.max_length``.
    YIELDS (dict): one output record per input line.
    """
    stats = stats if stats is not None else SanitizeStats()
    duplicates = duplicates if duplicates is not None else DuplicateIds()
    piece_chars = nlp.max_length if piece_chars is None else piece_chars
    set_error_handlers(nlp, _KeepGoing())
    pending: Deque[_Pending] = deque()

    stream = iter(lines)
    counter = itertools.count()

    def feed() -> Iterator[Doc]:
        # resumable: after a component raised, a new feed() goes on where this stopped
        for res in stream:
            index = next(counter)
            item = _Pending(index, res)
            pending.append(item)
            if res.record is None:
                continue
            text = res.record["text"]
            if max_chars and len(text) > max_chars:
                item.error = (
                    f"record {res.key!r}: text too long ({len(text):,} characters > max_chars "
                    f"{max_chars:,}); split the record or raise --max-chars (0: no limit)"
                )
                continue
            pieces = split_text(text, piece_chars)
            item.offsets = [off for off, _ in pieces]
            item.texts = [piece for _, piece in pieces] if len(pieces) > 1 else []
            try:
                docs = [_make_doc(nlp, res.record, index, piece, part) for part, (_, piece) in enumerate(pieces)]
            except Exception as exc:  # the tokenizer failed: no doc to send, name the record
                item.error = f"record {res.key!r} (line {res.line_no}): tokenizer: {type(exc).__name__}"
                continue
            yield from docs

    def finish(item: _Pending, docs: Optional[List[Doc]], message: Optional[str] = None) -> Dict[str, Any]:
        res = item.res
        if res.record is None:
            out = error_output(res, res.error or "invalid record")
        elif docs is None:
            out = error_output(res, message or item.error or "processing failed", res.record)
        else:
            out = docs_to_output(docs, item.offsets, res.record, keep_text=keep_text)
        if flag_duplicates and duplicates.check(record_key(res)):
            out["duplicate_id"] = True
        stats.count(out)
        return out

    def retry_alone(item: _Pending) -> Dict[str, Any]:
        res = item.res
        if res.record is None or item.error is not None:
            return finish(item, None)
        texts = item.texts or [res.record["text"]]
        set_error_handlers(nlp, _raise)
        try:
            docs = list(nlp.pipe([_make_doc(nlp, res.record, -1, t, part) for part, t in enumerate(texts)]))
            return finish(item, docs)
        except Exception as exc:  # one bad record never stops the run
            # the class only: an exception's message may quote the document
            return finish(item, None, f"record {res.key!r} (line {res.line_no}): {type(exc).__name__}")
        finally:
            set_error_handlers(nlp, _KeepGoing())

    while True:
        try:
            for doc in nlp.pipe(feed(), batch_size=batch_size, n_process=n_process):
                meta = doc._.deid_record
                index, part = meta["_index"], meta.get("_part", 0)
                while pending and pending[0].index < index:
                    yield retry_alone(pending.popleft())
                item = pending[0]
                item.docs[part] = doc
                if len(item.docs) == len(item.offsets):
                    pending.popleft()
                    yield finish(item, [item.docs[p] for p in range(len(item.offsets))])
            break
        except FatalError:
            raise
        except Exception:
            # A component that takes no error handler (spaCy's Cython ner/parser)
            # raised and ended nlp.pipe: every record in flight is retried alone
            # (the culprit gets its error record), then the stream goes on.
            if not pending:
                raise  # nothing in flight: the error is not a component's
            while pending:
                yield retry_alone(pending.popleft())
    while pending:  # records dropped at the end of the stream, and trailing bad lines
        yield retry_alone(pending.popleft())


def process_in_zones(nlp: Language, lines: Iterable[LineResult], zone_records: int, **kwargs: Any) -> Iterator[Dict[str, Any]]:
    """``process_lines`` in spaCy memory zones of ``zone_records`` lines (0: one
    stream, no zone). Without zones every new string of the corpus (names, MRNs,
    phone numbers) stays in ``nlp.vocab`` for the rest of the run, so memory grows
    with the number of distinct tokens: +37 MB and 79k strings over 20,000 notes,
    against a plateau with zones (README, "Scale and faults"). Lines still stream
    one at a time; output records are plain Python values, safe after a zone ends.
    Components with cross-document state (the doc_swapper's pools) see each zone
    as a stream of its own.
    """
    if zone_records <= 0:
        yield from process_lines(nlp, lines, **kwargs)
        return
    it = iter(lines)
    for first in it:
        block = itertools.chain([first], islice(it, zone_records - 1))
        with memory_zone(nlp):
            yield from process_lines(nlp, block, **kwargs)


# ---------------------------------------------------------------- n_process > 1
# spaCy's own ``nlp.pipe(n_process=...)`` tokenises in the parent and ships every
# Doc to a child and back as bytes; for pipelines whose components are cheap next
# to that round trip (the frequency masker) it was 3.7x SLOWER than one process
# (README, "Scale and faults"). Here the parent only reads raw lines and writes
# output: worker processes parse, tokenise and run the pipeline on blocks of lines
# (the Ray actors' scheme, with the standard library's ProcessPoolExecutor).
_WORKER: Dict[str, Any] = {}


def _worker_init(nlp: Language, options: Dict[str, Any]) -> None:
    _WORKER["nlp"] = nlp
    _WORKER["options"] = options


def _worker_run(block: List[Tuple[int, bytes]]) -> List[Tuple[Optional[str], Dict[str, Any]]]:
    nlp = _WORKER["nlp"]
    lines = [parse_line(raw, line_no) for line_no, raw in block]
    with memory_zone(nlp):  # the block's strings and lexemes are freed after it
        outs = process_lines(nlp, lines, flag_duplicates=False, **_WORKER["options"])
        return [(record_key(res), out) for res, out in zip(lines, outs)]


def process_raw_in_pool(
    nlp: Language,
    raw_lines: Iterable[Tuple[int, bytes]],
    n_process: int,
    stats: SanitizeStats,
    duplicates: DuplicateIds,
    block_records: int = 32,
    **options: Any,
) -> Iterator[Dict[str, Any]]:
    """Output records of (line number, raw bytes) input lines, in order, computed by
    ``n_process`` worker processes that each hold the pipeline (inherited on fork,
    pickled on spawn). At most ``2 * n_process + 1`` blocks are in flight, so memory
    stays bounded. Duplicate ids are flagged here, in input order."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    from spacy.util import minibatch

    died = (
        "A sanitize worker process died (out of memory, or killed); the output written so far is kept: "
        "rerun with --resume"
    )

    def settle(future) -> Iterator[Dict[str, Any]]:
        try:
            results = future.result()
        except BrokenProcessPool:
            raise FatalError(died) from None
        for rid, out in results:
            if duplicates.check(rid):
                out["duplicate_id"] = True
            stats.count(out)
            yield out

    ctx = multiprocessing.get_context()
    with ProcessPoolExecutor(n_process, mp_context=ctx, initializer=_worker_init, initargs=(nlp, options)) as pool:
        pending: Deque[Any] = deque()
        for block in minibatch(raw_lines, size=block_records):
            try:
                pending.append(pool.submit(_worker_run, list(block)))
            except BrokenProcessPool:
                # the pool noticed the dead worker before its block was settled:
                # the blocks finished before it are still written, in order
                while pending:
                    yield from settle(pending.popleft())
                raise FatalError(died) from None
            if len(pending) > 2 * n_process:
                yield from settle(pending.popleft())
        while pending:
            yield from settle(pending.popleft())


def _check_resume(output_path: Path, input_path: Path, done: int) -> DuplicateIds:
    """Replay the ids of the ``done`` records already written, and check that the
    partial output belongs to this input (its last record has the id of input
    record ``done``), so a stale partial file is never continued."""
    duplicates = DuplicateIds()
    if not done:
        return duplicates
    last: Optional[LineResult] = None
    for res in islice(iter_lines(input_path), done):
        duplicates.check(record_key(res))
        last = res
    partial = output_path.with_name(output_path.name + ".partial")
    last_line = _last_line(partial)
    try:
        written_id = json.loads(last_line).get("id")
    except (ValueError, AttributeError):
        written_id = None
    expected = None
    if last is not None:
        if last.record is not None:
            expected = last.record["id"]
        else:
            expected = last.record_id if last.record_id is not None else last.line_no
    if last is None or written_id != expected:
        raise FatalError(
            f"{partial} does not belong to {input_path} (record {done} is {written_id!r} there, "
            f"{expected!r} in the input): rerun without --resume"
        )
    return duplicates


def _last_line(path: Path) -> str:
    with path.open("rb") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        block = 1 << 16
        data = b""
        pos = size
        while pos > 0:
            step = min(block, pos)
            pos -= step
            fh.seek(pos)
            data = fh.read(step) + data
            if data.count(b"\n") >= 2 or pos == 0:
                break
        lines = data.rstrip(b"\n").split(b"\n")
        return lines[-1].decode("utf-8", errors="replace")


def sanitize_file(
    pipeline: Union[str, Path, Language],
    input_path: Union[str, Path],
    output_path: Union[str, Path],
    batch_size: int = 64,
    n_process: int = 1,
    gpu_id: int = -1,
    resume: bool = False,
    keep_text: bool = False,
    show_progress: Optional[bool] = None,
    max_chars: int = DEFAULT_MAX_CHARS,
    piece_chars: Optional[int] = None,
    zone_records: int = 10_000,
    operators: Optional[Dict[str, str]] = None,
    key_file: Optional[Union[str, Path]] = None,
    key: Optional[str] = None,
) -> SanitizeStats:
    """Sanitise ``input_path`` into ``output_path`` (JSONL), atomically.

    pipeline (Union[str, Path, Language]): a loaded pipeline, a directory or a package name.
    input_path (Union[str, Path]): input JSONL.
    output_path (Union[str, Path]): output JSONL; written as ``OUT.partial`` and renamed.
    batch_size (int): ``nlp.pipe`` batch size.
    n_process (int): worker processes, each with the pipeline (``process_raw_in_pool``).
    gpu_id (int): GPU to use, -1 for CPU.
    resume (bool): continue an interrupted run from ``OUT.partial``.
    keep_text (bool): also write the original text (off by default: privacy); the
        output file is then created readable by the owner only (0600).
    show_progress (Optional[bool]): progress bar; None: only on a terminal.
    max_chars (int): texts longer than this get an error record (0: no limit).
    piece_chars (Optional[int]): texts longer than this are processed in pieces;
        None: the pipeline's ``nlp.max_length``.
    zone_records (int): one process: records per spaCy memory zone (bounded vocab
        memory; 0: none). With ``n_process`` > 1 each block is a zone.
    operators (Optional[Dict[str, str]]): operator override of the pipeline's
        phi_replacer, e.g. ``{"NAME": "mask", "*": "surrogate"}``.
    key_file (Optional[Union[str, Path]]): write the encrypted surrogate -> original
        key file there (``spacy_deid.surrogates.keyfile``); never with ``resume``.
    key (Optional[str]): the key file's key; None: ``$SPACY_DEID_KEY``.
    RETURNS (SanitizeStats): counts of records in, ok, error.
    """
    input_path = Path(input_path)
    output_path = Path(output_path)
    check_options(batch_size=batch_size, n_process=n_process, max_chars=max_chars, zone_records=zone_records)
    if piece_chars is not None and piece_chars < 1:
        raise FatalError(f"piece_chars must be at least 1, got {piece_chars}")
    if not input_path.is_file():
        raise FatalError(f"Input file not found: {input_path}")
    check_paths(input_path, output_path)
    fernet = None
    if key_file is not None:
        from spacy_deid.surrogates.keyfile import check_key_file_path
        from spacy_deid.surrogates.operators import read_key

        if resume:
            raise FatalError("--key-file cannot be combined with --resume (the entries of the interrupted run are gone)")
        key_file = check_key_file_path(key_file, output_path, None if isinstance(pipeline, Language) else pipeline)
        fernet = read_key(key)
    nlp = pipeline if isinstance(pipeline, Language) else load_pipeline(pipeline, gpu_id=gpu_id)
    if operators:
        set_operators(nlp, operators)
    check_deid_pipeline(nlp, str(pipeline) if not isinstance(pipeline, Language) else "")
    fingerprint = resume_fingerprint(input_path, pipeline, keep_text, max_chars, piece_chars, operators)
    entries: List[Dict[str, Any]] = []
    writer = AtomicJSONLWriter(output_path, resume=resume, private=keep_text)
    run_file = run_file_for(output_path)
    try:
        if writer.done:
            stored = json.loads(run_file.read_text(encoding="utf-8")) if run_file.is_file() else None
            compare_fingerprints(stored, fingerprint, writer.partial)
        else:
            write_json(run_file, fingerprint)
        duplicates = _check_resume(output_path, input_path, writer.done)
    except BaseException:
        writer.close()
        raise
    stats = SanitizeStats(n_resumed=writer.done)
    if show_progress is None:
        show_progress = sys.stderr.isatty()
    progress = None
    if show_progress:
        from tqdm import tqdm

        progress = tqdm(total=count_records(input_path), initial=writer.done, unit="doc", desc="sanitize")
    t0 = time.perf_counter()
    fh = None
    try:
        # the key file needs each record's original text: it is taken from the
        # output record here and dropped again unless the caller asked for it
        with_text = keep_text or key_file is not None
        options = dict(batch_size=batch_size, keep_text=with_text, max_chars=max_chars, piece_chars=piece_chars)
        if n_process > 1:
            fh = open_input(input_path)
            raw = islice(iter_raw_lines(fh), writer.done, None)
            outputs = process_raw_in_pool(nlp, raw, n_process, stats, duplicates, **options)
        else:
            lines = iter_lines(input_path, skip=writer.done)
            outputs = process_in_zones(nlp, lines, zone_records, stats=stats, duplicates=duplicates, **options)
        for out in outputs:
            if key_file is not None and out["status"] == "ok":
                from spacy_deid.surrogates.keyfile import key_entries

                entries.extend(key_entries(out, out["text"] if keep_text else out.pop("text")))
            writer.write(out)
            if progress is not None:
                progress.update(1)
    except BaseException:
        writer.close()
        raise
    finally:
        if progress is not None:
            progress.close()
        if fh is not None:
            fh.close()
    if stats.n_in and not stats.n_ok and not stats.n_resumed:
        writer.discard()
        run_file.unlink(missing_ok=True)
        raise FatalError(
            f"Every one of the {stats.n_in} records failed (errors by kind: {json.dumps(stats.errors_by_kind)}); "
            f"{output_path} was left as it was"
        )
    writer.commit()
    run_file.unlink(missing_ok=True)
    if key_file is not None:
        from spacy_deid.surrogates.keyfile import write_key_file

        write_key_file(key_file, entries, fernet)
    stats.timings["process_s"] = time.perf_counter() - t0
    return stats


def set_operators(nlp: Language, operators: Dict[str, str]) -> None:
    """Apply an operator override to every phi_replacer of ``nlp``.

    RAISES (FatalError): the pipeline has no phi_replacer.
    """
    replacers = [proc for name, proc in nlp.pipeline if nlp.get_pipe_meta(name).factory == "phi_replacer"]
    if not replacers:
        raise FatalError("--operators needs a pipeline with a phi_replacer (the default and datasifter profiles have one)")
    for proc in replacers:
        proc.set_operators(operators)


def run_file_for(output_path: Union[str, Path]) -> Path:
    """Where a run keeps its fingerprint beside ``OUT.partial`` (removed on success)."""
    output_path = Path(output_path)
    return output_path.with_name(output_path.name + ".partial.run.json")


def resume_fingerprint(
    input_path: Union[str, Path],
    pipeline: Union[str, Path, Language],
    keep_text: bool = False,
    max_chars: int = DEFAULT_MAX_CHARS,
    piece_chars: Optional[int] = None,
    operators: Optional[Dict[str, str]] = None,
) -> Dict[str, Any]:
    """What ``--resume`` requires unchanged: the input's bytes, the pipeline, the options."""
    options = {"keep_text": keep_text, "max_chars": max_chars, "piece_chars": piece_chars, "operators": operators or None}
    return run_fingerprint(input_path, pipeline, options)


def check_options(**values: int) -> None:
    """Refuse a numeric option out of range (the CLI checks them too; this guards
    the Python API): batch_size, n_process >= 1; max_chars, zone_records >= 0.

    RAISES (FatalError): a value is out of range.
    """
    minimum = {"batch_size": 1, "n_process": 1, "max_chars": 0, "zone_records": 0, "num_workers": 1, "chunk_records": 1}
    for name, value in values.items():
        low = minimum[name]
        if value is None or value < low:
            raise FatalError(f"{name.replace('_', '-')} must be at least {low}, got {value}")
