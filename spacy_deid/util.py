"""Small helpers shared by the components."""
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple

from spacy.language import Language
from spacy.tokens import Doc

Record = Dict[str, Any]
RecordsReader = Callable[[], Iterable[Record]]


def make_doc(nlp: Language, record: Record) -> Doc:
    """Tokenise a record's text and attach its pass-through fields (no text)."""
    doc = nlp.make_doc(record["text"])
    doc._.deid_record = {k: record[k] for k in ("id", "patient_id", "label", "note_type") if record.get(k) is not None}
    return doc


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
