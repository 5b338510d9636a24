"""The README is for users: short, its Python examples run as written, its links
resolve, and no file of the repository speaks of the team's working notes."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MAX_README_LINES = 300


def python_blocks(text: str):
    """The fenced ```python blocks of a Markdown text, in order."""
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def test_readme_is_short():
    n_lines = len(README.read_text(encoding="utf8").splitlines())
    assert n_lines <= MAX_README_LINES, f"README.md has {n_lines} lines (at most {MAX_README_LINES})"


def test_readme_keeps_its_two_commands():
    text = README.read_text(encoding="utf8")
    assert "make demo" in text and "make test" in text


@pytest.mark.parametrize("index", range(len(python_blocks(README.read_text(encoding="utf8")))))
def test_readme_python_block_runs(index, tmp_path):
    """Each Python block runs as written in an empty directory, in a fresh interpreter."""
    code = python_blocks(README.read_text(encoding="utf8"))[index]
    script = tmp_path / f"readme_block_{index}.py"
    script.write_text(code, encoding="utf8")
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"README Python block {index} failed:\n{code}\n{result.stderr[-3000:]}"


def test_readme_has_python_blocks():
    assert python_blocks(README.read_text(encoding="utf8")), "README.md shows no Python example"


def test_doc_links_resolve():
    """Every relative link of README.md and docs/*.md points to a file of the repository."""
    for page in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf8")):
            if "://" in target:
                continue
            assert (page.parent / target).exists(), f"{page.relative_to(ROOT)} links to a missing {target}"


# Words of the team's working notes that users never see. Built from pieces so
# that this file does not match itself.
FORBIDDEN = [
    re.compile(r"\bseeds? (0\d\d|lines?\b)", re.I),
    re.compile(r"\bclaims?\b", re.I),
    re.compile(r"\b" + "SP" + r"EC\b"),
    re.compile("SP" + r"EC\.md|" + "DES" + r"IGN\.md"),
    re.compile(r"\bissues?[ -]#?\d+", re.I),
    re.compile(r"\bthe seed's\b", re.I),
    re.compile(r"\ble" + r"nt\b", re.I),
    re.compile(r"\.\./sha" + "red|/work/sha" + "red"),
]


def tracked_text_files():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        pytest.skip("not a git checkout")
    for name in out.stdout.splitlines():
        path = ROOT / name
        if path.suffix in {".py", ".md", ".cfg", ".yml", ".yaml", ".txt", ".toml", ".json", ".jsonl", ".html", ""} and path.is_file():
            yield path


def test_no_file_speaks_of_working_notes():
    hits = []
    for path in tracked_text_files():
        try:
            text = path.read_text(encoding="utf8")
        except UnicodeDecodeError:
            continue
        for pattern in FORBIDDEN:
            for match in pattern.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                hits.append(f"{path.relative_to(ROOT)}:{line}: {match.group(0)!r}")
    assert not hits, "working-note words in the repository:\n" + "\n".join(hits[:50])
