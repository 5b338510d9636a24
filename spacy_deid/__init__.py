"""spacy-deid: spaCy components that de-identify clinical free text.

Importing the package registers the components and functions with spaCy's
registries (they are also exposed as entry points, so configs load without it).
Heavy libraries (torch, transformers, floret) are imported lazily by the
components that need them, never here.
"""
from .about import __version__
from .edits import SPAN_KEY, add_edit, get_edits, install_extensions, render, render_doc, resolve_edits
from . import registry  # noqa: F401  (registers readers and policies)
from . import patterns, similarity, augment  # noqa: F401  (PHI ents filter, similarity_filter, augmenters)
from . import frequency  # noqa: F401  (frequency_masker)
from . import mlm  # noqa: F401  (mlm_resampler)
from . import keyphrases, swap  # noqa: F401  (doc_swapper and its keyphrase policies)

install_extensions()

__all__ = [
    "__version__",
    "SPAN_KEY",
    "add_edit",
    "get_edits",
    "install_extensions",
    "render",
    "render_doc",
    "resolve_edits",
]
