"""The reversible key file: which surrogate stands for which original.

Written only when the user asks (``sanitize --key-file PATH``), only at the path
they give (never inside a pipeline directory, never the output file), created
with mode 0600 and encrypted as a whole with Fernet (``cryptography``) under the
key the user supplies (``$SPACY_DEID_KEY``: a passphrase or a Fernet key). An
honest broker with the key reads it back with :func:`read_key_file`; without the
key it is opaque bytes.

One entry per PHI edit of the output: the record ``id``, the edit's original
``start``/``end``, ``category``, ``method``, the ``replacement`` written in the
output and the ``original`` text it replaced.
"""
import json
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Union

FORMAT = "spacy-deid-keyfile/1"


def key_entries(out: Dict[str, Any], text: str) -> List[Dict[str, Any]]:
    """The key-file entries of one output record (``text``: the record's original)."""
    entries = []
    for edit in out.get("edits") or []:
        if edit.get("category") is None:
            continue
        entries.append(
            {
                "id": out.get("id"),
                "start": edit["start"],
                "end": edit["end"],
                "category": edit["category"],
                "method": edit.get("method"),
                "replacement": edit.get("replacement"),
                "original": text[edit["start"] : edit["end"]],
            }
        )
    return entries


def check_key_file_path(
    key_file: Union[str, Path], output_path: Union[str, Path], pipeline: Optional[Union[str, Path]] = None
) -> Path:
    """RAISES (ValueError): the key file would be the output (or its partial file)
    or inside the pipeline directory. RETURNS (Path): the resolved key-file path."""
    path = Path(key_file).resolve()
    out = Path(output_path).resolve()
    if path == out or path.name.startswith(out.name + ".") and path.parent == out.parent:
        raise ValueError(f"--key-file {key_file}: must not be the output file or beside it under its name")
    if pipeline is not None and Path(pipeline).is_dir():
        pipe_dir = Path(pipeline).resolve()
        if pipe_dir == path or pipe_dir in path.parents:
            raise ValueError(f"--key-file {key_file}: must not be inside the pipeline directory {pipeline}")
    return path


def write_key_file(path: Union[str, Path], entries: Iterable[Dict[str, Any]], key: bytes) -> Path:
    """Encrypt ``entries`` with the Fernet ``key`` and write them to ``path``
    atomically, created 0600."""
    from cryptography.fernet import Fernet

    from spacy_deid.io.atomic import write_bytes

    payload = json.dumps({"format": FORMAT, "entries": list(entries)}, ensure_ascii=False).encode("utf8")
    return write_bytes(path, Fernet(key).encrypt(payload), private=True)


def read_key_file(path: Union[str, Path], key: bytes) -> List[Dict[str, Any]]:
    """The entries of a key file written by :func:`write_key_file`.

    RAISES (ValueError): a wrong key or a file that is not a key file.
    """
    from cryptography.fernet import Fernet, InvalidToken

    try:
        data = json.loads(Fernet(key).decrypt(Path(path).read_bytes()))
    except InvalidToken:
        raise ValueError(f"{path}: wrong key, or not a spacy-deid key file") from None
    if data.get("format") != FORMAT:
        raise ValueError(f"{path}: not a spacy-deid key file")
    return data["entries"]
