"""Packaging a fitted pipeline and starting a project of one's own.

``package_meta`` writes the ``meta.json`` that ``spacy package --meta-path``
builds an installable pipeline from: licence, author and description, and a
``requirements`` entry naming the spacy-deid version the pipeline was built
with, so ``pip install`` of the pipeline brings a plugin that can load it.
``copy_project`` copies the shipped ``spacy project`` template (the ``all``,
``deid`` and ``gpu`` workflows) and the shipped configs into a directory.
"""
import re
import shutil
from pathlib import Path
from typing import Any, Dict, Optional, Union

import srsly

from spacy_deid.about import __version__
from spacy_deid.resources import CONFIG_DIR, PACKAGE_DIR

PROJECT_TEMPLATE = PACKAGE_DIR / "project" / "project.yml"
PLUGIN = "spacy-deid"


def plugin_requirement() -> str:
    """The requirement a packaged pipeline names: this version of the plugin or newer."""
    return f"{PLUGIN}>={__version__}"


def package_meta(
    pipeline_dir: Union[str, Path],
    *,
    name: Optional[str] = None,
    version: Optional[str] = None,
    author: Optional[str] = None,
    email: Optional[str] = None,
    url: Optional[str] = None,
    license: Optional[str] = None,
    description: Optional[str] = None,
) -> Dict[str, Any]:
    """The saved pipeline's ``meta.json`` completed for packaging.

    Given fields replace the saved ones; ``requirements`` keeps the pipeline's
    other requirements and names ``spacy-deid>=VERSION`` (this plugin's version)
    instead of any spacy-deid entry it had; ``spacy_deid_version`` records the
    version the pipeline was built with.

    pipeline_dir (Union[str, Path]): a saved pipeline (``init`` output).
    RETURNS (Dict[str, Any]): the meta, ready for ``spacy package --meta-path``.
    RAISES (FileNotFoundError): no ``meta.json`` in ``pipeline_dir``.
    """
    meta_file = Path(pipeline_dir) / "meta.json"
    if not meta_file.is_file():
        raise FileNotFoundError(2, "No pipeline meta.json", str(meta_file))
    meta = dict(srsly.read_json(meta_file))
    given = {"name": name, "version": version, "author": author, "email": email, "url": url,
             "license": license, "description": description}
    meta.update({key: value for key, value in given.items() if value is not None})
    if not meta.get("description"):
        pipes = ", ".join(meta.get("pipeline", []))
        meta["description"] = f"Clinical note de-identification pipeline built with spacy-deid ({pipes})"
    others = [req for req in meta.get("requirements", []) if not re.match(rf"{PLUGIN}\b", req.replace("_", "-"))]
    meta["requirements"] = [plugin_requirement(), *others]
    meta["spacy_deid_version"] = __version__
    return meta


def write_package_meta(pipeline_dir: Union[str, Path], output: Union[str, Path], **fields: Any) -> Dict[str, Any]:
    """Write :func:`package_meta` of ``pipeline_dir`` to ``output`` (a JSON file)."""
    meta = package_meta(pipeline_dir, **fields)
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, meta)
    return meta


def copy_project(dest: Union[str, Path], force: bool = False) -> Path:
    """Copy the ``spacy project`` template and the shipped configs to ``dest``.

    The copy reads its configs from ``dest/configs`` (edit them there), so
    ``python -m spacy project run deid DEST --vars.corpus=...`` works from any
    directory once spacy-deid is installed.

    dest (Union[str, Path]): the new project directory (created).
    force (bool): overwrite an existing ``project.yml`` and configs.
    RETURNS (Path): the written ``project.yml``.
    RAISES (FileExistsError): ``dest`` already holds a ``project.yml`` and not ``force``.
    """
    dest = Path(dest)
    target = dest / "project.yml"
    if target.exists() and not force:
        raise FileExistsError(f"{target} exists (pass force to overwrite)")
    text = PROJECT_TEMPLATE.read_text(encoding="utf8")
    text, n = re.subn(r'^(\s*configs:\s*)"[^"]*"', r'\1"configs"', text, count=1, flags=re.M)
    if n != 1:
        raise ValueError(f"{PROJECT_TEMPLATE} has no vars.configs entry")
    (dest / "configs").mkdir(parents=True, exist_ok=True)
    for cfg in sorted(CONFIG_DIR.glob("*.cfg")):
        shutil.copyfile(cfg, dest / "configs" / cfg.name)
    target.write_text(text, encoding="utf8")
    return target
