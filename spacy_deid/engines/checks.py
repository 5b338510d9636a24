"""Checks both sanitize engines make before they write anything.

- ``check_paths``: the output is never the input (nor its partial file).
- ``check_deid_pipeline``: a pipeline must have an enabled de-identification
  component, else sanitize would write the raw text with ``status: ok``.
- ``run_fingerprint``: a digest of the input's bytes and of the pipeline, stored
  beside a partial output so that ``--resume`` refuses a changed input or another
  pipeline instead of mixing their records.
- ``torch_threads_after_fork``: a fork hook for ``n_process`` > 1 after torch ran.
"""
import hashlib
import os
import sys
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Tuple, Union

from spacy.language import Language

from spacy_deid.io.records import FatalError

# Our factories that write de-identification edits. A custom component counts when
# it is registered with ``assigns=["doc._.deid_text"]`` (it changes the rendered text).
DEID_FACTORIES = ("frequency_masker", "phi_replacer", "mlm_resampler", "similarity_filter", "doc_swapper")
DEID_ASSIGNS = "doc._.deid_text"


def is_deid_factory(factory: Optional[str]) -> bool:
    """True for a factory that writes de-identification edits."""
    if factory is None:
        return False
    if factory in DEID_FACTORIES:
        return True
    try:
        return DEID_ASSIGNS in Language.get_factory_meta(factory).assigns
    except ValueError:  # not registered
        return False


def _enabled_factories(names: Iterable[str], disabled: Iterable[str], factory_of) -> List[Tuple[str, Optional[str]]]:
    off = set(disabled)
    return [(name, factory_of(name)) for name in names if name not in off]


def check_deid_pipeline(nlp: Language, where: str = "") -> None:
    """Refuse a pipeline without an enabled de-identification component.

    RAISES (FatalError): none of the enabled components de-identifies.
    """
    factories = _enabled_factories(nlp.pipe_names, (), lambda n: nlp.get_pipe_meta(n).factory)
    _require_deid(factories, nlp.disabled, where)


def check_deid_pipeline_dir(path: Union[str, Path]) -> None:
    """``check_deid_pipeline`` from a saved pipeline's config (nothing loaded)."""
    from spacy import util

    path = Path(path) if Path(path).exists() else Path(util.get_package_path(str(path)))
    if (path / "config.cfg").is_file():
        config = util.load_config(path / "config.cfg", interpolate=False)
    else:  # an installed package: its data directory holds the config
        cfgs = sorted(path.glob("*/config.cfg"))
        if not cfgs:
            raise FatalError(f"Pipeline {path}: no config.cfg")
        config = util.load_config(cfgs[0], interpolate=False)
    comps = config["components"]
    names = list(config["nlp"]["pipeline"])
    disabled = list(config["nlp"].get("disabled") or [])

    def factory_of(name: str) -> Optional[str]:
        block = comps.get(name, {})
        return block.get("factory") or (block.get("source") and name)

    _require_deid(_enabled_factories(names, disabled, factory_of), disabled, str(path))


def _registered(factory: Optional[str]) -> bool:
    try:
        Language.get_factory_meta(factory)
        return True
    except (ValueError, TypeError):
        return False


def _require_deid(factories: List[Tuple[str, Optional[str]]], disabled: Iterable[str], where: str) -> None:
    if any(is_deid_factory(f) for _, f in factories):
        return
    if any(f is not None and not _registered(f) for _, f in factories):
        return  # a component of --code that only the workers import: they check it

    what = ", ".join(f"{n} ({f})" for n, f in factories) or "no components"
    off = list(disabled)
    extra = f"; disabled: {', '.join(off)}" if off else ""
    raise FatalError(
        f"Pipeline {where} has no enabled de-identification component (enabled: {what}{extra}): it would write "
        f"the original text. Use a pipeline made by `spacy-deid init` (e.g. the default profile)."
    )


def check_paths(input_path: Path, output_path: Path) -> None:
    """Refuse an output that is the input, or a partial/shard file of it.

    RAISES (FatalError): the paths clash.
    """
    inp = input_path.resolve()
    for candidate in (output_path, output_path.with_name(output_path.name + ".partial")):
        out = candidate.resolve()
        same = out == inp or (out.exists() and os.path.samefile(out, inp))
        if same:
            raise FatalError(f"The output {output_path} is the input {input_path}: choose another output path")


def file_digest(path: Union[str, Path], block: int = 1 << 20) -> str:
    """The SHA-256 of a file's bytes, read in blocks."""
    h = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for chunk in iter(lambda: fh.read(block), b""):
            h.update(chunk)
    return h.hexdigest()


def pipeline_digest(pipeline: Union[str, Path, Language]) -> str:
    """A digest of a pipeline: of every file of its directory (package: its data
    directory), or, for a pipeline built in memory, of its config and meta. A
    pipeline loaded from a directory is digested as that directory, so a run
    started from the CLI can be resumed in Python and the other way round."""
    import spacy

    h = hashlib.sha256()
    if isinstance(pipeline, Language) and pipeline.path is not None and Path(pipeline.path).is_dir():
        pipeline = Path(pipeline.path)
    if isinstance(pipeline, Language):
        h.update(pipeline.config.to_str().encode("utf8"))
        h.update(repr(sorted((k, str(v)) for k, v in pipeline.meta.items())).encode("utf8"))
        h.update(repr(pipeline.pipe_names).encode("utf8"))
        return "nlp:" + h.hexdigest()
    path = Path(str(pipeline))
    if not path.exists():
        path = Path(spacy.util.get_package_path(str(pipeline)))
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        h.update(str(file.relative_to(path)).encode("utf8") + b"\0")
        h.update(file_digest(file).encode())
    return "dir:" + h.hexdigest()



def run_fingerprint(input_path: Union[str, Path], pipeline: Union[str, Path, Language], options: Dict[str, Any]) -> Dict[str, Any]:
    """What a partial output must share with the run that continues it."""
    return {"input_sha256": file_digest(input_path), "pipeline": pipeline_digest(pipeline), "options": options}


def compare_fingerprints(stored: Optional[Dict[str, Any]], current: Dict[str, Any], partial: Path) -> None:
    """RAISES (FatalError): ``stored`` is missing or differs from ``current``."""
    if stored is None:
        raise FatalError(f"{partial} has no run fingerprint (an older or foreign file): rerun without --resume")
    if stored.get("input_sha256") != current["input_sha256"]:
        raise FatalError(f"The input changed since {partial} was written: rerun without --resume")
    if stored.get("pipeline") != current["pipeline"]:
        raise FatalError(f"{partial} was written with another pipeline: rerun with that one, or without --resume")
    if stored.get("options") != current["options"]:
        raise FatalError(
            f"{partial} was written with other options ({stored.get('options')}): rerun with those, or without --resume"
        )


def torch_threads_after_fork() -> None:
    """In a forked child, give torch one thread (``os.register_at_fork``).

    A child forked after torch ran its parallel kernels inherits a thread pool
    whose threads did not survive the fork: its first parallel kernel waits on
    them forever (``nlp.pipe(n_process=2)`` after one warm call hung). One thread
    per process is also what ``n_process`` wants (no oversubscription).
    """
    torch = sys.modules.get("torch")
    if torch is None:
        return
    try:
        torch.set_num_threads(1)
        torch.set_num_interop_threads(1)
    except RuntimeError:  # interop threads can only be set before first use
        pass
