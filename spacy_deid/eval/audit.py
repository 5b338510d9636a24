"""Audit artefacts for the identifiers of a corpus, before anything is shared.

``sensitive_tokens`` lists the tokens of a corpus that must not leave with a
pipeline, a model, a report or a log: tokens that are **rare** (counted for fewer
than ``k`` patients, documents or occurrences, and not common English) and tokens
**detected as PHI** (by the ``default`` profile's detectors fitted on the corpus:
patterns, gazetteers with context, and a NER when one is given; plus the gold
spans when the corpus has them). ``scan`` reads every byte of files, directories
and archives (wheels, zips, tarballs: their members too) and reports where such a
token occurs: the file, the archive member and the byte offset, and where the
token is in the corpus (record id and character offset), never the surrounding
text and never the token itself (a short digest names it).

Matching is by whole words, case-insensitively, after undoing JSON ``\\uXXXX``
escapes. Files that are not text (model weights, vectors) are read as the
printable runs of their bytes (what ``strings`` prints), and only tokens of at
least ``binary_min_length`` characters are looked for there: short words occur
in random bytes by chance.
"""
import hashlib
import io
import re
import tarfile
import zipfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple, Union

from spacy_deid.io.records import FatalError, iter_records
from spacy_deid.util import memory_zone

RARE = "rare"
PHI = "phi"

_WORD = re.compile(r"\w+")
_PRINTABLE_RUN = re.compile(rb"[\x20-\x7e\x80-\xff]{6,}")
_JSON_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
# common English (zipf frequency >= this) is never "rare": a word like "daughter"
# said of one patient only is no identifier
COMMON_ZIPF = 3.0
# a detected word this common ("street", "hospital", "dr") names no one by itself
DETECTED_COMMON_ZIPF = 5.0


@dataclass
class Sensitive:
    """A token of the corpus that must not leave in an artefact.

    kind (str): ``"phi"`` (a detector or a gold span flagged it) or ``"rare"``.
    n_units (int): patients (documents, occurrences) it was counted for.
    record_id (str): the first record it occurs in.
    char (int): its character offset there.
    """

    kind: str
    n_units: int
    record_id: str
    char: int


@dataclass
class Finding:
    """A sensitive token found in an artefact (no text: a digest names the token)."""

    path: str
    member: Optional[str]
    offset: int
    count: int
    kind: str
    token_id: str
    record_id: str
    char: int
    n_units: int

    def where(self) -> str:
        return f"{self.path}!{self.member}" if self.member else self.path


@dataclass
class AuditReport:
    """The result of a scan: findings, and how much was read."""

    findings: List[Finding] = field(default_factory=list)
    n_files: int = 0
    n_bytes: int = 0
    n_sensitive: int = 0


def token_id(token: str) -> str:
    """A short, stable digest that names a token without printing it."""
    return hashlib.sha256(token.encode("utf8")).hexdigest()[:10]


def _public_words() -> Set[str]:
    """The words of the package's shipped lists (public by construction)."""
    import spacy_deid

    words: Set[str] = set()
    root = Path(spacy_deid.__file__).parent / "assets"
    for path in root.rglob("*"):
        if path.is_file() and path.suffix in (".txt", ".jsonl", ".json", ".tsv", ".csv"):
            words.update(w.lower() for w in _WORD.findall(path.read_text(encoding="utf8", errors="ignore")))
    return words


def _keep(word: str, min_length: int) -> bool:
    if word.isdigit():
        return len(word) >= 5  # record numbers, phone pieces; not "12"
    return len(word) >= min_length and not word.isdigit()


def sensitive_tokens(
    corpus: Union[str, Path],
    k: int = 5,
    count_by: str = "patient",
    detect: bool = True,
    config: Union[str, Path] = "default",
    overrides: Optional[Dict] = None,
    min_length: int = 4,
    limit: int = 0,
) -> Dict[str, Sensitive]:
    """The tokens of ``corpus`` that are rare or detected as PHI (module docstring).

    corpus (Union[str, Path]): the corpus JSONL.
    k (int): a token counted for fewer than ``k`` units is rare.
    count_by (str): ``patient``, ``doc`` or ``occurrence``.
    detect (bool): also run the detectors of ``config`` fitted on the corpus.
    config (Union[str, Path]): the de-identification config whose detectors run
        (its resampling and swap components are left out).
    overrides (Optional[Dict]): config overrides (e.g. a NER: ``paths.ner``).
    min_length (int): shortest word looked for (digits: 5).
    limit (int): read at most this many records (0: all).
    RETURNS (Dict[str, Sensitive]): lower-cased token -> what it is.
    """
    import spacy
    from spacy.lang.en.stop_words import STOP_WORDS
    from wordfreq import zipf_frequency

    from spacy_deid.resources import asset_path
    from spacy_deid.train.vectors import WordCounter, scratch_tokenizer, _unit_key

    if not Path(corpus).is_file():
        raise FatalError(f"Corpus not found: {corpus}")
    public = _public_words()
    whitelist = {w.strip().lower() for w in asset_path("whitelist.txt").read_text(encoding="utf8").splitlines()}
    tokenize = scratch_tokenizer(spacy.blank("en"))
    counter = WordCounter(count_by)
    first: Dict[str, Tuple[str, int]] = {}
    for i, rec in enumerate(iter_records(corpus, limit=limit)):
        words = []
        for tok in tokenize(rec["text"]):
            for m in _WORD.finditer(tok.text):
                w = m.group().lower()
                words.append(w)
                if w not in first:
                    first[w] = (str(rec["id"]), tok.idx + m.start())
        counter.add(words, _unit_key(rec, i, count_by))
    out: Dict[str, Sensitive] = {}

    def common(word: str, zipf: float) -> bool:
        return word in STOP_WORDS or word in whitelist or word in public or zipf_frequency(word, "en") >= zipf

    for word, n in counter.counts.items():
        if n < k and _keep(word, min_length) and not common(word, COMMON_ZIPF):
            out[word] = Sensitive(RARE, n, *first[word])
    for word, (rid, char) in _detected(corpus, detect, config, overrides, limit).items():
        if _keep(word, min_length) and not common(word, DETECTED_COMMON_ZIPF):
            out[word] = Sensitive(PHI, counter.counts.get(word, 0), rid, char)
    return out


def _detected(
    corpus: Union[str, Path], detect: bool, config: Union[str, Path], overrides: Optional[Dict], limit: int
) -> Dict[str, Tuple[str, int]]:
    """Words inside gold spans and (``detect``) inside what the detectors flag."""
    found: Dict[str, Tuple[str, int]] = {}

    def add(text: str, start: int, end: int, rid: str) -> None:
        for m in _WORD.finditer(text[start:end]):
            found.setdefault(m.group().lower(), (rid, start + m.start()))

    records = list(iter_records(corpus, limit=limit))
    for rec in records:
        for sp in rec.get("spans") or []:
            add(rec["text"], sp["start"], sp["end"], str(rec["id"]))
    if not detect:
        return found
    from spacy_deid.train.pretrain import load_mask_pipeline
    from spacy_deid.util import flagged_spans, make_doc

    nlp = load_mask_pipeline(corpus, mask_config=config, overrides=overrides)
    with memory_zone(nlp):
        docs = nlp.pipe((make_doc(nlp, rec) for rec in records), batch_size=64)
        for rec, doc in zip(records, docs):
            rid = str(rec["id"])
            for s in flagged_spans(doc):
                add(rec["text"], s.start_char, s.end_char, rid)
    return found


# ------------------------------------------------------------------- scanning
def _is_text(data: bytes) -> bool:
    head = data[:65536]
    if b"\0" in head:
        return False
    try:
        head.decode("utf8")
        return True
    except UnicodeDecodeError as err:
        return err.start > len(head) - 4  # a character cut at the end of the sample


def _words(data: bytes, binary_min_length: int) -> Iterator[Tuple[str, int]]:
    """(lower-cased word, byte offset) of the words of a file's bytes."""
    if _is_text(data):
        text = data.decode("utf8", errors="replace")
        if "\\u" in text:
            text = _JSON_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)
        for m in _WORD.finditer(text):
            yield m.group().lower(), m.start()
        return
    for run in _PRINTABLE_RUN.finditer(data):
        text = run.group().decode("utf8", errors="ignore")
        for m in _WORD.finditer(text):
            if len(m.group()) >= binary_min_length:
                yield m.group().lower(), run.start() + m.start()


def _members(path: Path, data: bytes) -> Iterator[Tuple[Optional[str], bytes]]:
    """The file itself, or the members of a zip (wheel) or tar archive."""
    if zipfile.is_zipfile(io.BytesIO(data)):
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            for info in zf.infolist():
                if not info.is_dir():
                    yield info.filename, zf.read(info)
        return
    if path.name.endswith((".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz")):
        try:
            with tarfile.open(fileobj=io.BytesIO(data)) as tf:
                for info in tf.getmembers():
                    if info.isfile():
                        fh = tf.extractfile(info)
                        if fh is not None:
                            yield info.name, fh.read()
            return
        except tarfile.TarError:
            pass
    yield None, data


def iter_files(paths: Sequence[Union[str, Path]]) -> Iterator[Path]:
    """Every regular file under ``paths`` (files and directories), sorted."""
    for p in paths:
        p = Path(p)
        if p.is_dir():
            yield from sorted(f for f in p.rglob("*") if f.is_file() and not f.is_symlink())
        elif p.is_file():
            yield p
        else:
            raise FatalError(f"Artefact not found: {p}")


def scan(
    paths: Sequence[Union[str, Path]], sensitive: Dict[str, Sensitive], binary_min_length: int = 6
) -> AuditReport:
    """Find the ``sensitive`` tokens in every file under ``paths``.

    paths (Sequence[Union[str, Path]]): files, directories, wheels, zips, tarballs.
    sensitive (Dict[str, Sensitive]): from ``sensitive_tokens``.
    binary_min_length (int): shortest token looked for in non-text bytes.
    RETURNS (AuditReport): one finding per (file, member, token), with the count
        and the first byte offset.
    """
    report = AuditReport(n_sensitive=len(sensitive))
    for path in iter_files(paths):
        data = path.read_bytes()
        for member, blob in _members(path, data):
            report.n_files += 1
            report.n_bytes += len(blob)
            hits: Dict[str, List[int]] = defaultdict(list)
            for word, offset in _words(blob, binary_min_length):
                if word in sensitive:
                    hits[word].append(offset)
            for word, offsets in sorted(hits.items(), key=lambda kv: kv[1][0]):
                s = sensitive[word]
                report.findings.append(
                    Finding(str(path), member, offsets[0], len(offsets), s.kind, token_id(word), s.record_id, s.char, s.n_units)
                )
    return report


def audit(
    artefacts: Sequence[Union[str, Path]], corpus: Union[str, Path], binary_min_length: int = 6, **options
) -> AuditReport:
    """``sensitive_tokens(corpus, **options)`` looked for in ``artefacts`` (``scan``)."""
    for p in artefacts:
        if not Path(p).exists():
            raise FatalError(f"Artefact not found: {p}")
    return scan(artefacts, sensitive_tokens(corpus, **options), binary_min_length=binary_min_length)


def format_finding(f: Finding) -> str:
    """One line naming where a token was found and where it is in the corpus."""
    unit = "unit" if f.n_units == 1 else "units"
    return (
        f"{f.where()} @ byte {f.offset} (x{f.count}): {f.kind} token #{f.token_id} "
        f"({f.n_units} {unit}; corpus record {f.record_id!r}, char {f.char})"
    )
