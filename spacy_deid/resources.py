"""Configs and assets shipped inside the package, found by name or by path.

``config_path("default")`` is ``spacy_deid/configs/default.cfg`` wherever the
package is installed; a path to an existing file is returned as it is, so every
command takes either a shipped name or a user's own file.
"""
from pathlib import Path
from typing import List, Optional, Union

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


def skip_for_profile(out_dir: Union[str, Path], profile: Optional[str], variable: str, what: str) -> Optional[Path]:
    """For a workflow step that trains a model only some profiles use: when
    ``profile`` (a config name or path) does not read ``${variable}``, write
    ``out_dir/NOT_NEEDED.txt`` saying so and return its path (the step's output
    exists, so a rerun skips it); otherwise remove such a note of an earlier
    profile and return None (train). ``profile`` None: always train."""
    out = Path(out_dir)
    note = out / "NOT_NEEDED.txt"
    if profile is not None and not config_reads(profile, variable):
        out.mkdir(parents=True, exist_ok=True)
        note.write_text(f"The profile {profile} uses no {what}: nothing was trained.\n", encoding="utf8")
        return note
    note.unlink(missing_ok=True)
    return None
