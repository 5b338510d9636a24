"""Slow: the wheel built from this checkout, installed in a fresh virtual
environment, works from an empty directory as a user would run it: --version,
generate, init by a shipped config name, sanitize, evaluate, the project
template, and a packaged pipeline that installs beside the plugin.

The fresh venv sees the dependencies of the running interpreter's site-packages
(spaCy, torch...) through a path file, so nothing is downloaded; spacy-deid
itself comes only from the built wheel (the running environment's editable
install is not on that path: its import hook lives in a .pth file that a plain
path entry does not run).
"""
import json
import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


def _run(args, cwd, env, timeout=600):
    res = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert res.returncode == 0, f"{' '.join(map(str, args))}\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
    return res


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    base = tmp_path_factory.mktemp("install")
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false",
               PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PYTHONPATH", None)
    wheels = base / "wheels"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", wheels, ROOT], base, env)
    (wheel,) = wheels.glob("spacy_deid-*.whl")
    venv_dir = base / "venv"
    venv.EnvBuilder(with_pip=False).create(venv_dir)
    py = venv_dir / "bin" / "python"
    site = Path(subprocess.check_output([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True).strip())
    (site / "_parent_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _run([sys.executable, "-m", "pip", "--python", py, "install", "--no-deps", "-q", wheel], base, env)
    work = base / "empty"
    work.mkdir()
    return {"py": py, "bin": venv_dir / "bin", "env": env, "work": work, "wheels": wheels}


def test_the_plugin_comes_from_the_wheel(installed):
    res = _run([installed["py"], "-c", "import spacy_deid; print(spacy_deid.__file__)"], installed["work"], installed["env"])
    location = Path(res.stdout.strip())
    assert str(location).startswith(str(installed["bin"].parent)), location
    assert not str(location).startswith(str(ROOT))


def test_version(installed):
    from spacy_deid.about import __version__

    res = _run([installed["bin"] / "spacy-deid", "--version"], installed["work"], installed["env"])
    assert res.stdout.strip() == f"spacy-deid {__version__}"


def test_generate_init_by_name_sanitize_evaluate(installed):
    cli, work, env = installed["bin"] / "spacy-deid", installed["work"], installed["env"]
    _run([cli, "generate", "notes.jsonl", "--n-docs", "40", "--n-patients", "10"], work, env)
    _run([cli, "init", "default", "notes.jsonl", "pipeline"], work, env)
    assert (work / "pipeline" / "config.cfg").is_file()
    _run([cli, "sanitize", "pipeline", "notes.jsonl", "sanitized.jsonl"], work, env)
    lines = (work / "sanitized.jsonl").read_text().splitlines()
    assert len(lines) == 40 and all(json.loads(line)["status"] == "ok" for line in lines)
    _run([cli, "evaluate", "notes.jsonl", "sanitized.jsonl", "--report", "report"], work, env)
    assert (work / "report" / "metrics.json").is_file() and (work / "report" / "report.html").is_file()


def test_project_template_and_packaged_pipeline(installed):
    cli, work, env = installed["bin"] / "spacy-deid", installed["work"], installed["env"]
    _run([cli, "project", "myproject"], work, env)
    assert (work / "myproject" / "project.yml").is_file()
    assert (work / "myproject" / "configs" / "default.cfg").is_file()
    # the template's commands resolve in the copy (its configs var points to the copy)
    _run([installed["py"], "-m", "spacy", "project", "document", "myproject"], work, env)

    _run([cli, "generate", "fit.jsonl", "--n-docs", "30", "--n-patients", "8"], work, env)
    _run([cli, "init", "frequency", "fit.jsonl", "freq"], work, env)
    _run([cli, "meta", "freq", "packages/meta.json", "--name", "deid_tiny", "--version", "0.0.1",
          "--author", "Tester", "--license", "CC-BY-4.0"], work, env)
    _run([installed["py"], "-m", "spacy", "package", "freq", "packages", "--meta-path", "packages/meta.json",
          "--build", "wheel", "--force"], work, env)
    (pipeline_wheel,) = (work / "packages").glob("*/dist/en_deid_tiny-0.0.1-*.whl")
    # the pipeline's requirement (spacy-deid>=VERSION) is met from the plugin's wheel
    _run([sys.executable, "-m", "pip", "--python", installed["py"], "install", "-q", "--find-links",
          installed["wheels"], pipeline_wheel], work, env)
    res = _run([installed["py"], "-c", "import spacy, json; nlp = spacy.load('en_deid_tiny'); "
                "print(json.dumps(nlp.meta)); print(nlp('A note.')._.deid_text)"], work, env)
    meta = json.loads(res.stdout.splitlines()[0])
    assert meta["license"] == "CC-BY-4.0" and meta["author"] == "Tester" and meta["description"]
    assert any(req.startswith("spacy-deid>=") for req in meta["requirements"])
