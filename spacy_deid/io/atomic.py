"""The one way spacy-deid writes files: atomically, and private when asked.

A reader never sees a half-written file, and a failed or interrupted write leaves
the previous file (or directory) byte-identical:

- ``atomic_file(path)``: a context manager yielding a handle on a temporary file in
  the same folder; on success it is flushed, fsynced and renamed over ``path``; on
  an exception it is removed and ``path`` is untouched.
- ``atomic_dir(path)``: the same for a directory (a pipeline, a model): the caller
  fills a temporary sibling directory, which replaces ``path`` on success.
- ``open_new(path, private=True)``: a plain handle on a new or truncated file,
  created with mode 0600 (owner only) when ``private``: for files that hold original
  text (``--keep-text`` output, key files), whose permissions must be right from
  the first byte, not fixed afterwards.
- ``write_text`` / ``write_bytes`` / ``write_json``: whole-file writes through
  ``atomic_file``.

Permissions: a non-private file gets the usual ``0666 & ~umask``; a private one
gets 0600 whatever the umask.
"""
import contextlib
import json
import os
import shutil
import threading
import uuid
from pathlib import Path
from typing import IO, Any, Iterator, Union

PathLike = Union[str, Path]

PRIVATE_MODE = 0o600


def _umask() -> int:
    # os.umask can only be read by setting it: done under a lock, restored at once.
    with _UMASK_LOCK:
        mask = os.umask(0)
        os.umask(mask)
    return mask


_UMASK_LOCK = threading.Lock()


def file_mode(private: bool) -> int:
    """The permission bits a new file gets: 0600 when ``private``, else 0666 & ~umask."""
    return PRIVATE_MODE if private else 0o666 & ~_umask()


def _tmp_sibling(path: Path, suffix: str = ".tmp") -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}{suffix}")


def fsync_dir(path: PathLike) -> None:
    """Make a rename in ``path`` durable (best effort: not every platform can open a dir)."""
    try:
        fd = os.open(str(path), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def open_new(path: PathLike, mode: str = "w", private: bool = True, encoding: str = "utf-8", append: bool = False) -> IO:
    """Open ``path`` for writing, created with 0600 (``private``) or the usual mode.

    An existing file is truncated (or appended to with ``append``) and its
    permissions are set again, so a private file never stays world-readable.

    path (PathLike): the file.
    mode (str): ``"w"`` (text) or ``"wb"`` (binary).
    private (bool): readable and writable by the owner only.
    encoding (str): text encoding (text mode).
    append (bool): keep the content and write at the end.
    RETURNS (IO): the open handle.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb', got {mode!r}")
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
    perm = file_mode(private)
    fd = os.open(str(path), flags, perm)
    try:
        if private:
            os.fchmod(fd, PRIVATE_MODE)
        if mode == "wb":
            return os.fdopen(fd, "ab" if append else "wb")
        return os.fdopen(fd, "a" if append else "w", encoding=encoding, newline="")
    except BaseException:
        os.close(fd)
        raise


@contextlib.contextmanager
def atomic_file(path: PathLike, mode: str = "w", private: bool = False, encoding: str = "utf-8") -> Iterator[IO]:
    """Write ``path`` through a temporary file renamed over it on success.

    path (PathLike): the target file; its folder is created.
    mode (str): ``"w"`` (text) or ``"wb"`` (binary).
    private (bool): the file is created 0600.
    encoding (str): text encoding.
    YIELDS (IO): the handle to write to.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _tmp_sibling(path)
    fh = open_new(tmp, mode, private=private, encoding=encoding)
    try:
        yield fh
        fh.flush()
        os.fsync(fh.fileno())
        fh.close()
        os.replace(tmp, path)
    except BaseException:
        fh.close()
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(path.parent)


@contextlib.contextmanager
def atomic_dir(path: PathLike, private: bool = False) -> Iterator[Path]:
    """Fill a temporary directory that replaces ``path`` on success.

    On success an existing ``path`` is moved aside, the new directory renamed into
    place, and the old one removed; on an exception the temporary directory is
    removed and ``path`` is untouched.

    path (PathLike): the target directory; its parent is created.
    private (bool): the directory is created 0700.
    YIELDS (Path): the temporary directory to write into.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _tmp_sibling(path, ".tmpdir")
    tmp.mkdir(mode=0o700 if private else 0o777)
    try:
        yield tmp
        old = None
        if path.exists():
            old = _tmp_sibling(path, ".old")
            os.replace(path, old)
        os.replace(tmp, path)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    fsync_dir(path.parent)


def write_text(path: PathLike, text: str, private: bool = False) -> Path:
    """Write a whole text file atomically (UTF-8)."""
    with atomic_file(path, "w", private=private) as fh:
        fh.write(text)
    return Path(path)


def write_bytes(path: PathLike, data: bytes, private: bool = False) -> Path:
    """Write a whole binary file atomically."""
    with atomic_file(path, "wb", private=private) as fh:
        fh.write(data)
    return Path(path)


def write_json(path: PathLike, data: Any, private: bool = False, indent: int = 2) -> Path:
    """Write JSON atomically (UTF-8, non-ASCII kept)."""
    return write_text(path, json.dumps(data, indent=indent, ensure_ascii=False) + "\n", private=private)
