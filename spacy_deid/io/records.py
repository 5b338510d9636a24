"""Our JSONL contract: reading input records robustly and writing output atomically.

Input record: ``{"id", "text", "patient_id"?, "label"?, "spans"?}``, one per line.
Reading never raises on a bad line: every line yields a ``LineResult`` that is either
a valid record or an error naming the line and the problem, so N input lines give
N output records.
"""
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Dict, Iterator, List, Optional, Tuple, Union

from spacy_deid.io.atomic import fsync_dir, open_new

PASS_THROUGH = ("patient_id", "label", "note_type")


class FatalError(Exception):
    """A problem that stops a whole run (missing pipeline, unreadable input).
    The CLI prints it as one line and exits non-zero."""


@dataclass
class LineResult:
    """One input line: ``record`` when valid, else ``error``.

    line_no (int): 1-based line number in the input file.
    record_id (Optional[str]): the record's id, or ``None`` when it has none.
    record (Optional[dict]): the validated record.
    error (Optional[str]): why the line cannot be processed.
    """

    line_no: int
    record_id: Optional[str]
    record: Optional[Dict[str, Any]] = None
    error: Optional[str] = None

    @property
    def key(self) -> str:
        """The id used in output and error messages: the record id or ``line N``."""
        return self.record_id if self.record_id is not None else f"line {self.line_no}"


def validate_record(obj: Any, line_no: int, require_text: bool = True) -> LineResult:
    """Check one parsed JSON value against the input contract."""
    if not isinstance(obj, dict):
        return LineResult(line_no, None, error=f"line {line_no}: expected a JSON object, got {type(obj).__name__}")
    rid = obj.get("id")
    if rid is not None and not isinstance(rid, (str, int)):
        return LineResult(line_no, None, error=f"line {line_no}: 'id' must be a string or integer")
    rid = None if rid is None else str(rid)
    where = f"record {rid!r} (line {line_no})" if rid is not None else f"line {line_no}"
    text = obj.get("text")
    if require_text:
        if text is None:
            return LineResult(line_no, rid, error=f"{where}: missing 'text'")
        if not isinstance(text, str):
            return LineResult(line_no, rid, error=f"{where}: 'text' must be a string, got {type(text).__name__}")
        if not text.strip():
            return LineResult(line_no, rid, error=f"{where}: 'text' is empty")
    pid = obj.get("patient_id")
    if pid is not None and not isinstance(pid, (str, int)):
        return LineResult(line_no, rid, error=f"{where}: 'patient_id' must be a string or integer")
    spans = obj.get("spans")
    if spans is not None:
        if not isinstance(spans, list):
            return LineResult(line_no, rid, error=f"{where}: 'spans' must be a list")
        for sp in spans:
            if not isinstance(sp, dict) or not all(
                isinstance(sp.get(k), int) for k in ("start", "end")
            ) or not isinstance(sp.get("label"), str):
                return LineResult(line_no, rid, error=f"{where}: each span needs integer 'start'/'end' and a string 'label'")
            if isinstance(text, str) and not 0 <= sp["start"] < sp["end"] <= len(text):
                return LineResult(line_no, rid, error=f"{where}: span [{sp['start']}, {sp['end']}) is outside the text")
    rec = dict(obj)
    rec["id"] = rid if rid is not None else f"line-{line_no}"
    if pid is not None:
        rec["patient_id"] = str(pid)
    return LineResult(line_no, rid, record=rec)


def parse_line(raw: bytes, line_no: int, require_text: bool = True) -> LineResult:
    """Decode and validate one raw input line (bytes, newline stripped or not)."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        return LineResult(line_no, None, error=f"line {line_no}: not valid UTF-8 (byte {err.start})")
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as err:
        return LineResult(line_no, None, error=f"line {line_no}: invalid JSON ({err.msg} at column {err.colno})")
    return validate_record(obj, line_no, require_text=require_text)


def iter_raw_lines(fh: IO[bytes], line_no: int = 1) -> Iterator[Tuple[int, bytes]]:
    """The non-blank lines of a binary stream as (1-based line number, raw bytes
    without the line break). Both engines number lines with this function, so an
    error record names the same line whichever engine wrote it.

    fh (IO[bytes]): a binary stream, positioned at the start of line ``line_no``.
    line_no (int): the number of the first line read.
    """
    for line_no, raw in enumerate(fh, start=line_no):
        if raw.strip():
            yield line_no, raw.rstrip(b"\r\n")


def open_input(path: Union[str, Path]) -> IO[bytes]:
    """Open an input file for reading, with a one-line fatal error."""
    path = Path(path)
    try:
        return path.open("rb")
    except OSError as err:
        raise FatalError(f"Cannot read input file {path}: {err.strerror or err}") from None


def iter_lines(path: Union[str, Path], skip: int = 0) -> Iterator[LineResult]:
    """Stream the lines of a JSONL file as ``LineResult``s, in constant memory.

    Blank lines are skipped (they are not records). ``skip`` drops the first
    ``skip`` records (used by ``--resume``).
    """
    with open_input(path) as fh:
        for n, (line_no, raw) in enumerate(iter_raw_lines(fh), start=1):
            if n <= skip:
                continue
            yield parse_line(raw, line_no)


@dataclass
class Chunk:
    """A run of consecutive records of an input file, by byte range.

    start (int): byte offset of the chunk's first line.
    end (int): byte offset after its last line.
    line_no (int): 1-based line number of its first line.
    index (int): 0-based record index of its first record.
    n (int): number of records (non-blank lines).
    """

    start: int
    end: int
    line_no: int
    index: int
    n: int

    def to_list(self) -> List[int]:
        return [self.start, self.end, self.line_no, self.index, self.n]

    @classmethod
    def from_list(cls, values: List[int]) -> "Chunk":
        return cls(*[int(v) for v in values])


def scan_chunks(path: Union[str, Path], records_per_chunk: int = 1000, max_bytes: int = 64 << 20) -> List[Chunk]:
    """Cut an input file into chunks of at most ``records_per_chunk`` records (and
    about ``max_bytes`` bytes), streaming: one pass over the bytes, no JSON parsing.
    The Ray engine reads each chunk as one block and names its output shard by the
    chunk's record range.

    RETURNS (List[Chunk]): the chunks, in file order; empty for an empty file.
    """
    chunks: List[Chunk] = []
    with open_input(path) as fh:
        pos = 0
        start = line_start = 0
        first_line = 1
        index = n = size = 0
        for line_no, raw in enumerate(fh, start=1):
            line_start, pos = pos, pos + len(raw)
            if not raw.strip():
                if n == 0:  # leading blank lines belong to the next chunk
                    start, first_line = pos, line_no + 1
                continue
            n += 1
            size += len(raw)
            if n >= records_per_chunk or size >= max_bytes:
                chunks.append(Chunk(start, pos, first_line, index, n))
                index += n
                n = size = 0
                start, first_line = pos, line_no + 1
        if n:
            chunks.append(Chunk(start, pos, first_line, index, n))
    return chunks


def iter_records(path: Union[str, Path], limit: int = 0) -> Iterator[Dict[str, Any]]:
    """Only the valid records of a JSONL file (for corpus statistics)."""
    for i, res in enumerate(r for r in iter_lines(path) if r.record is not None):
        if limit and i >= limit:
            break
        yield res.record  # type: ignore[misc]


def count_records(path: Union[str, Path]) -> int:
    """The number of non-blank lines (= records, valid or not)."""
    with open_input(path) as fh:
        return sum(1 for _ in iter_raw_lines(fh))


# Characters that json.dumps(ensure_ascii=False) writes raw but that Unicode-aware
# line splitters (Python's str.splitlines, older JavaScript) treat as line breaks:
# escaped, so one record is one line for every reader. They can only occur inside
# JSON strings, so a plain replace is safe.
_LINE_BREAKS = {"\u0085": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_LINE_BREAK_RE = re.compile("[\u0085\u2028\u2029]")


def dumps(record: Dict[str, Any]) -> str:
    """One JSONL line: UTF-8 text kept readable, line-break characters escaped."""
    line = json.dumps(record, ensure_ascii=False)
    return _LINE_BREAK_RE.sub(lambda m: _LINE_BREAKS[m.group()], line)


class AtomicJSONLWriter:
    """Write JSONL to ``PATH.partial`` and rename it to ``PATH`` on success.

    The previous output (if any) stays untouched until the run completes, and an
    interrupted run leaves ``PATH.partial`` for ``--resume``: on resume, a torn last
    line is cut off and the number of complete records is reported so the reader
    can skip that many input records. ``private`` creates the file 0600 (for
    output that holds original text).
    """

    def __init__(self, path: Union[str, Path], resume: bool = False, flush_every: int = 64, private: bool = False):
        self.path = Path(path)
        self.private = private
        self.partial = self.path.with_name(self.path.name + ".partial")
        self.flush_every = flush_every
        self.done = 0
        self._pending = 0
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if resume and self.partial.exists():
                self.done = self._repair_partial()
                self._fh: IO[str] = self._open(self.partial, "a", private=private)
            else:
                self._fh = self._open(self.partial, "w", private=private)
        except OSError as err:
            raise FatalError(f"Cannot write output {self.path}: {err.strerror or err}") from None

    def _repair_partial(self) -> int:
        data = self.partial.read_bytes()
        cut = data.rfind(b"\n") + 1
        if cut != len(data):
            with self.partial.open("r+b") as fh:
                fh.truncate(cut)
        return data[:cut].count(b"\n")

    @staticmethod
    def _open(path: Path, mode: str, private: bool = False) -> IO[str]:
        return open_new(path, private=private, append=mode == "a")

    def write(self, record: Dict[str, Any]) -> None:
        """Append one record."""
        self.write_line(dumps(record))

    def write_line(self, line: str) -> None:
        """Append one already serialised record (no line break)."""
        try:
            self._fh.write(line + "\n")
            self._pending += 1
            if self._pending >= self.flush_every:
                self._fh.flush()
                self._pending = 0
        except OSError as err:
            self._abort()
            raise FatalError(
                f"Cannot write output {self.partial}: {err.strerror or err}; "
                f"{self.path} was left untouched, rerun with --resume when fixed"
            ) from None
        self.done += 1

    def commit(self) -> None:
        """Flush, fsync and rename ``PATH.partial`` to ``PATH`` (atomic on POSIX)."""
        try:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()
            os.replace(self.partial, self.path)
        except OSError as err:
            self._abort()
            raise FatalError(
                f"Cannot finish output {self.path}: {err.strerror or err}; "
                f"{self.path} was left untouched, rerun with --resume when fixed"
            ) from None
        fsync_dir(self.path.parent)

    def _abort(self) -> None:
        # Closing flushes the buffer, which fails again on a full disk: the file is
        # closed anyway, and what reached it is repaired by --resume.
        try:
            self._fh.close()
        except OSError:
            pass

    def discard(self) -> None:
        """Close and remove the partial file: the run produced nothing to keep."""
        self.close()
        try:
            self.partial.unlink()
        except OSError:
            pass

    def close(self) -> None:
        """Close without committing (the partial file stays for --resume)."""
        if not self._fh.closed:
            try:
                self._fh.flush()
            except OSError:
                pass
            self._abort()


def write_jsonl_atomic(path: Union[str, Path], records, private: bool = False) -> int:
    """Write an iterable of records atomically; return how many were written."""
    writer = AtomicJSONLWriter(path, private=private)
    try:
        for rec in records:
            writer.write(rec)
    except BaseException:
        writer.close()
        raise
    writer.commit()
    return writer.done


def read_jsonl_list(path: Union[str, Path]) -> List[Dict[str, Any]]:
    """Read all valid records of a small JSONL file into memory."""
    return list(iter_records(path))
