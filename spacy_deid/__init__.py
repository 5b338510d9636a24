"""spacy-deid: spaCy components that de-identify clinical free text.

Importing the package registers the components and functions with spaCy's
registries (they are also exposed as entry points, so configs load without it).
Heavy libraries (torch, transformers, floret) are imported lazily by the
components that need them, never here.
"""
from spacy_deid.about import __version__
from spacy_deid.engines.fit import init_pipeline
from spacy_deid.edits import SPAN_KEY, add_edit, get_edits, install_extensions, render, render_doc, resolve_edits
from spacy_deid.io import readers  # noqa: F401  (registers readers and term lists)
from spacy_deid.detect import patterns  # noqa: F401  (PHI patterns and the ents filter)
from spacy_deid.policies import keyphrases  # noqa: F401  (RAKE and TextRank policies)
from spacy_deid.components import frequency_masker, mlm_resampler, similarity_filter, doc_swapper, phi_replacer  # noqa: F401
from spacy_deid.components import indexed_ruler, phi_gazetteer  # noqa: F401
from spacy_deid.train import augment  # noqa: F401  (registered augmenters)

install_extensions()

# A process forked after torch ran (nlp.pipe(n_process=2), sanitize --n-process)
# gets one torch thread: the parent's thread pool does not survive a fork.
import os as _os  # noqa: E402

from spacy_deid.engines.checks import torch_threads_after_fork as _torch_after_fork  # noqa: E402

if hasattr(_os, "register_at_fork"):
    _os.register_at_fork(after_in_child=_torch_after_fork)

__all__ = [
    "__version__",
    "SPAN_KEY",
    "add_edit",
    "get_edits",
    "init_pipeline",
    "install_extensions",
    "render",
    "render_doc",
    "resolve_edits",
]
