"""Building and fitting pipelines from configs (the `init` command's pure function)."""
from pathlib import Path
from typing import Any, Dict, Optional, Union

from spacy.language import Language


def load_config(
    config_path: Union[str, Path],
    corpus: Optional[Union[str, Path]] = None,
    overrides: Optional[Dict[str, Any]] = None,
    ner: Optional[Union[str, Path]] = None,
):
    """Load a config with overrides; ``corpus`` sets ``paths.corpus``; ``ner``
    adds the NER of a trained pipeline in front (:func:`add_ner`).

    Overrides of a component that the config does not have are left out with a
    warning (one command line serves both profiles: ``--components.mlm_resampler.p_n``
    only applies to ``datasifter``).
    """
    from spacy import util
    from wasabi import msg

    from spacy_deid.resources import config_path as resolve_config

    path = resolve_config(config_path)
    overrides = dict(overrides or {})
    if corpus is not None:
        overrides.setdefault("paths.corpus", str(corpus))
    config = util.load_config(path, interpolate=False)
    for key in [k for k in overrides if k.startswith("components.")]:
        component = key.split(".")[1]
        if component not in config["components"]:
            msg.warn(f"Override {key} left out: {path.name} has no component {component!r}")
            overrides.pop(key)
    config = util.load_config(path, overrides=overrides, interpolate=False)
    if ner is not None:
        config = add_ner(config, ner)
    return config


def add_ner(config, ner: Union[str, Path]):
    """Source the NER of a trained pipeline (its ``ner`` and the embedding
    components before it: ``tok2vec`` or ``transformer``) in front of the
    config's pipeline, so a config never holds a hand-kept copy of a NER block.
    Without vectors of its own the config takes the trained pipeline's when its
    NER reads static vectors (the shipped NER config reads none: nothing to take).

    RAISES (ValueError): ``ner`` is not a pipeline directory with a ``ner``.
    """
    from spacy import util

    from spacy_deid.util import uses_static_vectors

    ner_dir = Path(ner)
    if not (ner_dir / "config.cfg").is_file():
        raise ValueError(f"--ner {ner}: not a trained pipeline directory (no config.cfg)")
    names = util.load_config(ner_dir / "config.cfg", interpolate=False)["nlp"]["pipeline"]
    if "ner" not in names:
        raise ValueError(f"--ner {ner}: the pipeline has no 'ner' component ({', '.join(names)})")
    sourced = [n for n in names[: names.index("ner") + 1] if n not in config["components"]]
    config["nlp"]["pipeline"] = [*sourced, *config["nlp"]["pipeline"]]
    for name in sourced:
        config["components"][name] = {"source": str(ner_dir)}
    if config["initialize"].get("vectors") in (None, "null") and any(uses_static_vectors(ner_dir, n) for n in sourced):
        config["initialize"]["vectors"] = str(ner_dir)
    return config


def stamp_meta(nlp: Language, config_path: Union[str, Path]) -> None:
    """Record in the pipeline's meta the spacy-deid version that built it and its
    profile (the config's name: ``default``, ``datasifter`` or the user's file)."""
    from spacy_deid.about import __version__
    from spacy_deid.resources import config_path as resolve_config

    nlp.meta["spacy_deid"] = {"version": __version__, "profile": resolve_config(config_path).stem}


def init_pipeline(
    config_path: Union[str, Path],
    corpus: Union[str, Path],
    output_dir: Optional[Union[str, Path]] = None,
    overrides: Optional[Dict[str, Any]] = None,
    ner: Optional[Union[str, Path]] = None,
) -> Language:
    """Build the pipeline of a config, fit every corpus statistic on ``corpus``
    (each component's ``initialize`` gets it via ``[initialize.components]``),
    and save it to ``output_dir``. Components sourced from a trained pipeline keep
    their weights (they are not re-initialised), as in ``spacy assemble``.

    config_path (Union[str, Path]): the .cfg file, or a shipped config's name ("default").
    corpus (Union[str, Path]): the corpus JSONL, set as ``paths.corpus``.
    output_dir (Optional[Union[str, Path]]): where to save; None: do not save.
    overrides (Optional[Dict[str, Any]]): config overrides, e.g. {"components.frequency_masker.k": 5}.
    ner (Optional[Union[str, Path]]): a trained pipeline whose tok2vec + ner go first.
    RETURNS (Language): the fitted pipeline.
    """
    from spacy import util
    from spacy.training.initialize import get_sourced_components

    import spacy_deid  # noqa: F401  (registers the components for --code-less configs)
    from spacy_deid.util import check_sourced_vectors

    config = load_config(config_path, corpus, overrides, ner)
    nlp = util.load_model_from_config(config, auto_fill=True)
    config = config.interpolate()
    sourced = get_sourced_components(config)
    nlp._link_components()
    with nlp.select_pipes(disable=[*sourced]):
        nlp.initialize()
    check_sourced_vectors(nlp, {name: cfg["source"] for name, cfg in sourced.items() if isinstance(cfg.get("source"), str)})
    stamp_meta(nlp, config_path)
    if output_dir is not None:
        from spacy_deid.util import save_pipeline

        save_pipeline(nlp, output_dir)
    return nlp
