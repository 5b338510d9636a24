"""Small helpers shared by the components."""
import hashlib
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Set, Tuple, Union

from spacy.language import Language
from spacy.tokens import Doc

Record = Dict[str, Any]
RecordsReader = Callable[[], Iterable[Record]]


@contextmanager
def memory_zone(nlp: Language) -> Iterator[None]:
    """``nlp.memory_zone()`` that also frees its strings when the block raises.

    spaCy up to 3.8.7 skips a zone's clean-up when an exception leaves it, and every
    later document of the same pipeline fails (explosion/spaCy#13924): a run that
    stops on a full disk or a closed output would break the pipeline for the next
    run in the same process. The exception is held while the zone closes, then raised.
    """
    error: Optional[BaseException] = None
    with nlp.memory_zone():
        try:
            yield
        except BaseException as err:  # noqa: BLE001  (re-raised below, after the zone)
            error = err
    if error is not None:
        raise error


def make_doc(nlp: Language, record: Record, text: Optional[str] = None, **extra: Any) -> Doc:
    """Tokenise a record's text (or ``text``, a piece of it) and attach the
    record's id and pass-through fields (never its text) as ``doc._.deid_record``,
    plus ``extra`` fields (e.g. the record's line index).
    """
    from spacy_deid.io.records import PASS_THROUGH

    doc = nlp.make_doc(record["text"] if text is None else text)
    doc._.deid_record = {k: record[k] for k in ("id", *PASS_THROUGH) if record.get(k) is not None}
    doc._.deid_record.update(extra)
    return doc


def text_key(text: Any) -> str:
    """A note's text with case and spacing aside: the key under which copies of one
    text (mtsamples files a transcription under several specialties) are the same."""
    return " ".join(str(text).lower().split())


def stable_key(value: Any) -> int:
    """A 64-bit integer of ``value`` that is the same in every process and run
    (Python's ``hash()`` of a str is salted per process, so it cannot seed anything)."""
    digest = hashlib.blake2b(str(value).encode("utf8"), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def upstream_pipes(nlp: Language, name: str) -> List[Tuple[str, Any]]:
    """The enabled pipeline components that run before component ``name``."""
    out = []
    for pipe_name, proc in nlp.pipeline:
        if pipe_name == name:
            return out
        out.append((pipe_name, proc))
    return out


def pipe_upstream(
    nlp: Language, name: str, records: Iterable[Record], batch_size: int = 256
) -> Iterator[Doc]:
    """Run the components before ``name`` over a stream of records (for the
    corpus statistics a component learns in ``initialize``)."""
    from spacy.util import minibatch

    procs = upstream_pipes(nlp, name)
    for batch in minibatch(records, size=batch_size):
        docs: Iterable[Doc] = (make_doc(nlp, rec) for rec in batch)
        for _, proc in procs:
            if hasattr(proc, "pipe"):
                docs = proc.pipe(docs, batch_size=batch_size)
            else:
                docs = (proc(d) for d in docs)
        yield from docs


def require_corpus(corpus: Optional[RecordsReader], name: str) -> RecordsReader:
    """A clear config error when a component needs a corpus in initialize."""
    if corpus is None:
        from spacy.errors import Errors  # noqa: F401

        raise ValueError(
            f"[{name}] initialize needs a corpus: add it to the config as\n"
            f"[initialize.components.{name}.corpus]\n"
            f'@readers = "spacy_deid.io.records.v1"\npath = "${{paths.corpus}}"\n'
            f"or pass it to nlp.initialize / spacy_deid init CORPUS."
        )
    return corpus


# ------------------------------------------------------------ saving pipelines
# spaCy's StringStore keeps every string the pipeline ever tokenised: saved as
# ``vocab/strings.json``, it would carry the identifiers of every note the pipeline
# (or the NER's training) saw. A saved pipeline keeps only the strings a fresh load
# needs beyond what the language and the components add again themselves.


def pipeline_strings(nlp: Language) -> Set[str]:
    """The strings a saved copy of ``nlp`` needs in its StringStore: the blank
    language's own (tokenizer exceptions, lexeme defaults), every component's
    labels (and span_ruler ids), and what a component lists in an optional
    ``required_strings()`` method. Never a string of a processed document.

    RETURNS (Set[str]): the strings to keep.
    """
    import spacy

    keep: Set[str] = set(spacy.blank(nlp.lang).vocab.strings)
    for _, proc in nlp.components:
        for attr in ("labels", "ids"):
            try:
                values = getattr(proc, attr, None)
            except Exception:  # a component whose labels need initialize
                values = None
            if values:
                keep.update(v for v in values if isinstance(v, str))
        required = getattr(proc, "required_strings", None)
        if callable(required):
            keep.update(required())
    return keep


def strip_saved_strings(path: Union[str, Path], keep: Iterable[str]) -> Tuple[int, int]:
    """Rewrite ``PATH/vocab/strings.json`` of a saved pipeline to the strings of
    ``keep`` it holds (or that ``keep`` adds).

    RETURNS (Tuple[int, int]): the number of strings before and after.
    """
    import srsly

    from spacy_deid.io.atomic import write_text

    strings_path = Path(path) / "vocab" / "strings.json"
    before: List[str] = srsly.read_json(strings_path) if strings_path.exists() else []
    kept = sorted(set(keep))
    write_text(strings_path, srsly.json_dumps(kept))
    return len(before), len(kept)


def save_pipeline(nlp: Language, path: Union[str, Path]) -> Dict[str, int]:
    """Save ``nlp`` to ``path`` (atomically: a failed save leaves the previous
    directory as it was) with a StringStore reduced to ``pipeline_strings``.
    The in-memory pipeline is not changed. Every place that saves a pipeline
    calls this instead of ``nlp.to_disk``.

    RETURNS (Dict[str, int]): ``{"strings_before", "strings_after"}``.
    """
    from spacy_deid.io.atomic import atomic_dir

    with atomic_dir(path) as tmp:
        nlp.to_disk(tmp)
        before, after = strip_saved_strings(tmp, pipeline_strings(nlp))
    return {"strings_before": before, "strings_after": after}


def strip_pipeline(path: Union[str, Path], output: Optional[Union[str, Path]] = None) -> Dict[str, int]:
    """Load a saved pipeline (e.g. a NER trained by ``spacy train``) and save it
    again with a reduced StringStore (``save_pipeline``), in place or to ``output``.

    RETURNS (Dict[str, int]): ``{"strings_before", "strings_after"}`` (before: the
        strings of the input's ``vocab/strings.json``).
    """
    import spacy
    import srsly

    import spacy_deid  # noqa: F401  (our factories)

    from spacy_deid.io.records import FatalError

    path = Path(path)
    strings_path = path / "vocab" / "strings.json"
    if not (path / "config.cfg").is_file() or not strings_path.is_file():
        raise FatalError(f"Not a saved pipeline directory (no config.cfg or vocab/strings.json): {path}")
    n_before = len(srsly.read_json(strings_path))
    nlp = spacy.load(path)
    stats = save_pipeline(nlp, output if output is not None else path)
    stats["strings_before"] = n_before
    return stats


# ------------------------------------------------------- NER and its vectors
# A NER trained with static vectors reads the rows of ITS table: under other
# vectors it runs but its F1 collapses (spaCy only warns, W113). A pipeline
# records the digest of the vectors its sourced NER was trained with, and init
# and load refuse a mismatch.
VECTORS_META_KEY = "spacy_deid"


def vectors_digest(vectors) -> Optional[str]:
    """A digest of a vectors table (mode, shape, keys, data); None when empty."""
    import hashlib

    import numpy

    if vectors.shape[0] == 0 or vectors.shape[1] == 0:
        return None
    h = hashlib.sha256()
    h.update(f"{vectors.mode}:{vectors.shape}".encode())
    if vectors.mode == "default":
        h.update(numpy.asarray(sorted(vectors.key2row.items()), dtype=numpy.uint64).tobytes())
    data = vectors.data
    if not isinstance(data, numpy.ndarray):  # cupy on GPU
        data = data.get()
    h.update(numpy.ascontiguousarray(data).tobytes())
    return h.hexdigest()


def check_sourced_vectors(nlp: Language, sources: Dict[str, Union[str, Path]]) -> None:
    """Refuse a pipeline whose sourced components (a trained NER) were trained
    with other vectors than the pipeline's, and record the NER's vectors digest
    in ``nlp.meta`` for ``check_pipeline_vectors`` at load.

    nlp (Language): the initialised pipeline.
    sources (Dict[str, Union[str, Path]]): component name -> source pipeline path.
    RAISES (ValueError): the vectors differ.
    """
    import spacy

    mine = vectors_digest(nlp.vocab.vectors)
    for name, source in sources.items():
        if not uses_static_vectors(source, name):
            continue  # hash embeddings only: it runs the same under any vectors
        source_vectors = spacy.load(source, exclude=[n for n in _pipe_names(source)]).vocab.vectors
        theirs = vectors_digest(source_vectors)
        if theirs is None:
            continue
        if theirs != mine:
            raise ValueError(
                f"The component {name!r} from {source} was trained with other word vectors than the ones "
                f"this pipeline loads ([initialize] vectors / paths.vectors): it would run with the wrong "
                f"vectors and lose most of its recall. Use the vectors it was trained with (leave paths.vectors "
                f"unset to take them from {source}), or train the NER again on these vectors."
            )
        nlp.meta.setdefault(VECTORS_META_KEY, {})["ner_vectors"] = theirs


def uses_static_vectors(source: Union[str, Path], name: str) -> bool:
    """Whether component ``name`` of the pipeline at ``source`` reads static
    vectors (``include_static_vectors``, ``pretrained_vectors`` or a ``StaticVectors``
    layer in its model)."""
    from spacy import util

    path = Path(source) if Path(source).is_dir() else util.get_package_path(str(source))
    config = util.load_config(Path(path) / "config.cfg", interpolate=False)

    def walk(block: Any) -> bool:
        if isinstance(block, dict):
            if block.get("include_static_vectors") is True or block.get("pretrained_vectors") is True:
                return True
            if any(isinstance(v, str) and "StaticVectors" in v for k, v in block.items() if k.startswith("@")):
                return True
            return any(walk(v) for v in block.values())
        return False

    return walk(config["components"].get(name, {}))


def _pipe_names(path: Union[str, Path]) -> List[str]:
    from spacy import util

    path = Path(path) if Path(path).is_dir() else util.get_package_path(str(path))
    return list(util.load_config(Path(path) / "config.cfg", interpolate=False)["nlp"]["pipeline"])


def check_pipeline_vectors(nlp: Language) -> None:
    """Refuse a loaded pipeline whose vectors are not those its NER was trained
    with (as recorded at init by ``check_sourced_vectors``).

    RAISES (ValueError): the vectors were replaced.
    """
    expected = (nlp.meta.get(VECTORS_META_KEY) or {}).get("ner_vectors")
    if expected and vectors_digest(nlp.vocab.vectors) != expected:
        raise ValueError(
            "The pipeline's word vectors are not the ones its NER was trained with (vocab/vectors was "
            "replaced?): rebuild it with `spacy-deid init ... --ner PATH` and the NER's own vectors."
        )


# ------------------------------------------------------- what detectors flag
# Reasons of edits written for what a PHI detector (not rarity) found.
DETECTOR_REASONS = ("NER", "PATTERN", "GAZETTEER", "PHI")
DETECTOR_SPAN_KEYS = ("phi_patterns", "phi_gazetteer")
# Components that learn from or move de-identified text: never detectors.
TRAINED_TIER = ("mlm_resampler", "similarity_filter", "doc_swapper")


def flagged_spans(doc: Doc) -> List[Any]:
    """The spans of ``doc`` a PHI detector flagged: entities, the detectors' span
    groups, and edits whose reason is a detector's."""
    from spacy_deid.edits import get_edits

    spans = list(doc.ents) + [s for s in get_edits(doc) if s.label_ in DETECTOR_REASONS]
    for key in DETECTOR_SPAN_KEYS:
        if key in doc.spans:
            spans.extend(doc.spans[key])
    return spans


def detector_flagged_words(nlp: Language, name: str, records: Iterable[Record], batch_size: int = 256) -> Set[str]:
    """The lower-cased words that the detectors before component ``name`` flag
    in ``records`` (the components of ``TRAINED_TIER`` are not run). Runs in a
    memory zone: no string of the records stays in the pipeline's vocab.

    RETURNS (Set[str]): the flagged words.
    """
    import re

    from spacy.util import minibatch

    from spacy_deid.surrogates.places import ORG_DESCRIPTORS, ORG_KINDS

    # the kind and descriptor words of a facility name ("Family", "Practice" of
    # "Mason Family Practice") are kept by its surrogate too: they identify nobody
    generic = ORG_DESCRIPTORS | {k for k in ORG_KINDS if " " not in k}
    procs = [(n, p) for n, p in upstream_pipes(nlp, name) if nlp.get_pipe_meta(n).factory not in TRAINED_TIER]
    words: Set[str] = set()
    word = re.compile(r"\w+")
    with memory_zone(nlp):
        for batch in minibatch(records, size=batch_size):
            docs: Iterable[Doc] = (make_doc(nlp, rec) for rec in batch)
            for _, proc in procs:
                docs = proc.pipe(docs, batch_size=batch_size) if hasattr(proc, "pipe") else (proc(d) for d in docs)
            for doc in docs:
                for span in flagged_spans(doc):
                    found = [w.lower() for w in word.findall(span.text)]
                    words.update(w for w in found if len(found) == 1 or w not in generic)
    return words


def upstream_allows(nlp: Optional[Language], name: str) -> List[Callable[[str], bool]]:
    """The ``is_allowed(word)`` checks of the components before ``name``: False
    for a word that one of them must not see emitted (below k, blacklisted, a
    name or place of a gazetteer)."""
    if nlp is None:
        return []
    return [p.is_allowed for _, p in upstream_pipes(nlp, name) if callable(getattr(p, "is_allowed", None))]


def pipe_each(proc: Any, stream: Iterable[Doc]) -> Iterator[Doc]:
    """``proc.pipe`` for a component whose work has no batch state: each Doc is
    processed alone, and one that fails goes to the component's error handler
    alone, never dropping or re-processing the rest of its batch."""
    error_handler = proc.get_error_handler()
    for doc in stream:
        try:
            out = proc(doc)
        except Exception as err:  # noqa: BLE001  (spaCy's error-handler protocol)
            error_handler(proc.name, proc, [doc], err)
            continue
        yield out


def parse_key_values(items: Iterable[str]) -> Dict[str, Any]:
    """``["a.b=5", "c=text"]`` -> ``{"a.b": 5, "c": "text"}``: each value read as
    JSON where it is JSON, else kept as a string (config overrides on a command line)."""
    import json

    out: Dict[str, Any] = {}
    for item in items:
        key, _, value = item.partition("=")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out
