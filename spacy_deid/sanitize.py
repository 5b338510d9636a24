"""Sanitise a JSONL corpus with a pipeline: streaming, ordered, nothing lost.

Every input line gives exactly one output line, in input order: ``status: ok`` with
the sanitised text and the edits (original char offsets), or ``status: error``
with a message naming the record. The original text is never written unless the
caller asks for it (``keep_text``).
"""
import sys
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Deque, Dict, Iterable, Iterator, Optional, Tuple, Union

from spacy.language import Language
from spacy.tokens import Doc

from .edits import edits_as_records, render
from .records import PASS_THROUGH, AtomicJSONLWriter, FatalError, LineResult, count_records, iter_lines


@dataclass
class SanitizeStats:
    n_in: int = 0
    n_ok: int = 0
    n_error: int = 0
    n_resumed: int = 0
    n_duplicate_ids: int = 0
    n_edits: int = 0
    errors_by_kind: Dict[str, int] = field(default_factory=dict)


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
        return spacy.load(target)
    except OSError as err:
        raise FatalError(f"Cannot load pipeline {target}: {err}") from None


def doc_to_output(doc: Doc, record: Dict[str, Any], keep_text: bool = False) -> Dict[str, Any]:
    """The output record of one processed document."""
    rendering = render(doc)
    out: Dict[str, Any] = {"id": record["id"], "deid_text": rendering.text}
    out["edits"] = edits_as_records(doc)
    out["status"] = "ok"
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


def _make_doc(nlp: Language, record: Dict[str, Any], index: int) -> Doc:
    doc = nlp.make_doc(record["text"])
    doc._.deid_record = {k: record[k] for k in ("id", *PASS_THROUGH) if record.get(k) is not None}
    doc._.deid_record["_index"] = index
    return doc


def process_lines(
    nlp: Language,
    lines: Iterable[LineResult],
    batch_size: int = 64,
    n_process: int = 1,
    keep_text: bool = False,
    stats: Optional[SanitizeStats] = None,
) -> Iterator[Dict[str, Any]]:
    """Turn a stream of input lines into output records, one per line, in order.

    Valid records stream through ``nlp.pipe``; a record a component fails on is
    dropped by spaCy's error handler, detected by its missing index, and retried
    alone so that it gets either its output or an error record naming it.
    """
    stats = stats or SanitizeStats()
    failures: Dict[str, str] = {}

    def on_error(proc_name, proc, docs, exc):  # never logs document text
        failures["last"] = f"{proc_name}: {type(exc).__name__}: {exc}"

    nlp.set_error_handler(on_error)
    pending: Deque[Tuple[int, LineResult]] = deque()
    seen_ids: set = set()

    def feed() -> Iterator[Doc]:
        for index, res in enumerate(lines):
            pending.append((index, res))
            if res.record is None:
                continue
            yield _make_doc(nlp, res.record, index)

    def finish(res: LineResult, doc: Optional[Doc], message: Optional[str] = None) -> Dict[str, Any]:
        stats.n_in += 1
        if res.record is None:
            out = error_output(res, res.error or "invalid record")
        elif doc is None:
            out = error_output(res, message or "processing failed", res.record)
        else:
            out = doc_to_output(doc, res.record, keep_text=keep_text)
            stats.n_edits += len(out["edits"])
            if res.record_id is not None:
                if res.record_id in seen_ids:
                    out["duplicate_id"] = True
                    stats.n_duplicate_ids += 1
                seen_ids.add(res.record_id)
        if out["status"] == "ok":
            stats.n_ok += 1
        else:
            stats.n_error += 1
            kind = out["error"].split(":")[1].strip() if ":" in out["error"] else out["error"]
            stats.errors_by_kind[kind[:60]] = stats.errors_by_kind.get(kind[:60], 0) + 1
        return out

    def retry_alone(res: LineResult) -> Dict[str, Any]:
        assert res.record is not None
        nlp.set_error_handler(_raise)
        try:
            doc = next(iter(nlp.pipe([_make_doc(nlp, res.record, -1)])))
            return finish(res, doc)
        except Exception as exc:  # one bad record never stops the run
            return finish(res, None, f"record {res.key!r}: {type(exc).__name__}: {exc}")
        finally:
            nlp.set_error_handler(on_error)

    pipe = nlp.pipe(feed(), batch_size=batch_size, n_process=n_process)
    for doc in pipe:
        index = doc._.deid_record["_index"]
        while pending and pending[0][0] < index:
            _, res = pending.popleft()
            yield finish(res, None) if res.record is None else retry_alone(res)
        _, res = pending.popleft()
        yield finish(res, doc)
    while pending:  # records dropped at the end of the stream, and trailing bad lines
        _, res = pending.popleft()
        yield finish(res, None) if res.record is None else retry_alone(res)


def _raise(proc_name, proc, docs, exc):
    raise exc


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
) -> SanitizeStats:
    """Sanitise ``input_path`` into ``output_path`` (JSONL), atomically.

    pipeline (Union[str, Path, Language]): a loaded pipeline, a directory or a package name.
    input_path (Union[str, Path]): input JSONL.
    output_path (Union[str, Path]): output JSONL; written as ``OUT.partial`` and renamed.
    batch_size (int): ``nlp.pipe`` batch size.
    n_process (int): processes for ``nlp.pipe``.
    gpu_id (int): GPU to use, -1 for CPU.
    resume (bool): continue an interrupted run from ``OUT.partial``.
    keep_text (bool): also write the original text (off by default: privacy).
    show_progress (Optional[bool]): progress bar; None: only on a terminal.
    RETURNS (SanitizeStats): counts of records in, ok, error.
    """
    input_path = Path(input_path)
    if not input_path.is_file():
        raise FatalError(f"Input file not found: {input_path}")
    nlp = pipeline if isinstance(pipeline, Language) else load_pipeline(pipeline, gpu_id=gpu_id)
    writer = AtomicJSONLWriter(output_path, resume=resume)
    stats = SanitizeStats(n_resumed=writer.done)
    if show_progress is None:
        show_progress = sys.stderr.isatty()
    progress = None
    if show_progress:
        from tqdm import tqdm

        progress = tqdm(total=count_records(input_path), initial=writer.done, unit="doc", desc="sanitize")
    try:
        lines = iter_lines(input_path, skip=writer.done)
        for out in process_lines(nlp, lines, batch_size=batch_size, n_process=n_process, keep_text=keep_text, stats=stats):
            writer.write(out)
            if progress is not None:
                progress.update(1)
    except BaseException:
        writer.close()
        raise
    finally:
        if progress is not None:
            progress.close()
    writer.commit()
    return stats
