"""Building and fitting pipelines from configs (the `init` command's pure function)."""
from pathlib import Path
from typing import Any, Dict, Optional, Union

from spacy.language import Language


def load_config(config_path: Union[str, Path], corpus: Optional[Union[str, Path]] = None, overrides: Optional[Dict[str, Any]] = None):
    """Load a config with overrides; ``corpus`` sets ``paths.corpus``."""
    from spacy import util

    overrides = dict(overrides or {})
    if corpus is not None:
        overrides.setdefault("paths.corpus", str(corpus))
    from spacy_deid.resources import config_path as resolve_config

    return util.load_config(resolve_config(config_path), overrides=overrides, interpolate=False)


def init_pipeline(
    config_path: Union[str, Path],
    corpus: Union[str, Path],
    output_dir: Optional[Union[str, Path]] = None,
    overrides: Optional[Dict[str, Any]] = None,
) -> Language:
    """Build the pipeline of a config, fit every corpus statistic on ``corpus``
    (each component's ``initialize`` gets it via ``[initialize.components]``),
    and save it to ``output_dir``. Components sourced from a trained pipeline keep
    their weights (they are not re-initialised), as in ``spacy assemble``.

    config_path (Union[str, Path]): the .cfg file, or a shipped config's name ("default").
    corpus (Union[str, Path]): the corpus JSONL, set as ``paths.corpus``.
    output_dir (Optional[Union[str, Path]]): where to save; None: do not save.
    overrides (Optional[Dict[str, Any]]): config overrides, e.g. {"components.frequency_masker.k": 5}.
    RETURNS (Language): the fitted pipeline.
    """
    from spacy import util
    from spacy.training.initialize import get_sourced_components

    import spacy_deid  # noqa: F401  (registers the components for --code-less configs)
    from spacy_deid.util import check_sourced_vectors

    config = load_config(config_path, corpus, overrides)
    nlp = util.load_model_from_config(config, auto_fill=True)
    config = config.interpolate()
    sourced = get_sourced_components(config)
    nlp._link_components()
    with nlp.select_pipes(disable=[*sourced]):
        nlp.initialize()
    check_sourced_vectors(nlp, {name: cfg["source"] for name, cfg in sourced.items() if isinstance(cfg.get("source"), str)})
    if output_dir is not None:
        from spacy_deid.util import save_pipeline

        save_pipeline(nlp, output_dir)
    return nlp
