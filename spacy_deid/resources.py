"""Configs and assets shipped inside the package, found by name or by path.

``config_path("default")`` is ``spacy_deid/configs/default.cfg`` wherever the
package is installed; a path to an existing file is returned as it is, so every
command takes either a shipped name or a user's own file.
"""
from pathlib import Path
from typing import List, Union

PACKAGE_DIR = Path(__file__).parent
CONFIG_DIR = PACKAGE_DIR / "configs"
ASSET_DIR = PACKAGE_DIR / "assets"


def shipped_configs() -> List[str]:
    """Names of the shipped configs (``default``, ``datasifter``...)."""
    return sorted(p.stem for p in CONFIG_DIR.glob("*.cfg"))


def _resolve(name_or_path: Union[str, Path], directory: Path, suffix: str, what: str) -> Path:
    path = Path(name_or_path)
    if path.is_file():
        return path
    # a shipped name may sit in a sub-folder ("gazetteers/first_names.txt")
    for candidate in (directory / path, directory / path.name, directory / f"{path.name}{suffix}"):
        if candidate.is_file():
            return candidate
    shipped = sorted(p.name for p in directory.iterdir() if p.is_file() and not p.name.startswith(("_", ".")))
    raise FileNotFoundError(
        f"{what} not found: {name_or_path} (neither a file nor a shipped {what.lower()}; "
        f"shipped: {', '.join(shipped)})"
    )


def config_path(name_or_path: Union[str, Path]) -> Path:
    """A config file: an existing path, or the name of a shipped config
    (``"default"``, ``"default.cfg"``)."""
    return _resolve(name_or_path, CONFIG_DIR, ".cfg", "Config")


def asset_path(name_or_path: Union[str, Path]) -> Path:
    """An asset file (patterns, term lists, gazetteers): an existing path, or the
    name of a shipped asset (``"whitelist.txt"``)."""
    return _resolve(name_or_path, ASSET_DIR, "", "Asset")


def config_reads(name_or_path: Union[str, Path], variable: str) -> bool:
    """Whether a config (shipped name or path) reads ``${variable}`` anywhere
    (e.g. ``paths.mlm``: the profile needs a masked LM)."""
    return "${" + variable + "}" in config_path(name_or_path).read_text(encoding="utf8")


def write_not_needed(out_dir: Union[str, Path], profile: Union[str, Path], what: str) -> Path:
    """Stand in for a model a profile does not use: ``out_dir`` with a note saying
    so (a workflow step's output exists, and a later run of the step is skipped)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    note = out / "NOT_NEEDED.txt"
    note.write_text(f"The profile {profile} uses no {what}: nothing was trained.\n", encoding="utf8")
    return note
