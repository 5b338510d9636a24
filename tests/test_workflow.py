"""Slow end-to-end test: the `all` workflow of project.yml on a tiny generated
corpus, then the packaged wheel installed into a fresh venv and loaded by name."""
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from spacy_deid.synth import generate_records

ROOT = Path(__file__).resolve().parents[1]

TINY_VARS = {
    "n_docs": 160,
    "n_patients": 40,
    "ner_train_docs": 40,
    "ner_dev_docs": 20,
    "mlm_steps": 30,
    "ner_steps": 100,
    "sweep_k": "2,5",
    "sweep_p_n": "0.75",
    "sweep_limit": 40,
    "package_name": "deid_e2e",
}


def _env():
    return dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    proj = tmp_path_factory.mktemp("project")
    shutil.copy(ROOT / "project.yml", proj / "project.yml")
    # deps of the steps that name package files (configs and assets are package data)
    shutil.copytree(ROOT / "spacy_deid", proj / "spacy_deid", ignore=shutil.ignore_patterns("__pycache__"))
    args = [sys.executable, "-m", "spacy", "project", "run", "all", str(proj)]
    for key, value in TINY_VARS.items():
        args += [f"--vars.{key}", str(value)]
    res = subprocess.run(args, cwd=proj, capture_output=True, text=True, env=_env(), timeout=1500)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    return proj


@pytest.mark.slow
def test_all_workflow_outputs_and_metrics(project):
    for rel in (
        "corpus/generated.jsonl",
        "corpus/test.jsonl",
        "models/mlm/config.json",
        "models/vectors",
        "training/ner/model-best",
        "models/deid/config.cfg",
        "reports/sanitized.jsonl",
        "reports/sweep.json",
        "reports/metrics.json",
        "reports/report.html",
        "reports/leakage.png",
        "reports/tradeoff.png",
    ):
        assert (project / rel).exists(), rel
    n_test = sum(1 for _ in (project / "corpus/test.jsonl").open())
    outs = [json.loads(l) for l in (project / "reports/sanitized.jsonl").open()]
    assert len(outs) == n_test and all(o["status"] == "ok" for o in outs)
    assert all("text" not in o for o in outs)
    m = json.loads((project / "reports/metrics.json").read_text())
    leak = m["privacy"]["leakage_all"]
    assert leak["n"] > 100
    assert 0.0 <= leak["leak_rate"] < 0.5  # the full pipeline removes most PHI even when tiny
    assert 0.0 < m["utility"]["non_phi"]["kept_share"] <= 1.0
    assert m["privacy"]["cross_patient"]["rate"] < 0.2
    assert len(m["tradeoff"]) == 2  # the default profile sweeps k only (p_n is a datasifter setting)
    # a rerun skips what did not change
    res = subprocess.run(
        [sys.executable, "-m", "spacy", "project", "run", "evaluate", str(project), "--vars.package_name", "deid_e2e"],
        cwd=project, capture_output=True, text=True, env=_env(),
    )
    assert res.returncode == 0 and "Skipping" in res.stdout + res.stderr


@pytest.mark.slow
def test_packaged_wheel_loads_by_name_in_fresh_venv(project, tmp_path):
    wheels = list((project / "packages").glob("*/dist/*.whl"))
    assert len(wheels) == 1, wheels
    assert len(list((project / "packages").glob("*/dist/*.tar.gz"))) == 1  # the sdist too
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    # The fresh venv sees our installed dependencies through a .pth file (a full
    # reinstall of torch & co. would take minutes); the pipeline package itself is
    # installed into it from the wheel, without dependencies.
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n" + str(ROOT) + "\n")
    res = subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheels[0])], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    code = (
        "import spacy, json\n"
        "nlp = spacy.load('en_deid_e2e')\n"
        "print(json.dumps({'pipes': nlp.pipe_names, 'path': str(nlp.path)}))\n"
        "docs = list(nlp.pipe(['Seen by Dr Quibbleworth on 03/14/2019, call 555-123-4567.'] * 3))\n"
        "print(json.dumps({'ok': all('555-123-4567' not in d._.deid_text for d in docs)}))\n"
    )
    res = subprocess.run([str(py), "-c", code], capture_output=True, text=True, env=_env(), cwd=tmp_path)
    assert res.returncode == 0, res.stderr[-3000:]
    lines = [json.loads(l) for l in res.stdout.strip().splitlines()]
    assert lines[0]["pipes"][-1] == "phi_replacer" and "ner" in lines[0]["pipes"]  # the default profile
    assert "site-packages" in lines[0]["path"]  # loaded from the installed package
    pkg = Path(lines[0]["path"])
    assert (pkg / "vocab" / "vectors").exists()
    assert lines[1]["ok"]


@pytest.mark.slow
def test_deid_workflow_on_a_users_corpus_without_gold_spans(tmp_path):
    """`deid` as a user runs it on a fresh clone (no `all` run before): their own JSONL
    (absolute path outside the project, no gold spans) and an output directory; the
    workflow generates training notes and trains the PHI NER itself."""
    fresh = tmp_path / "clone"
    fresh.mkdir()
    shutil.copy(ROOT / "project.yml", fresh / "project.yml")
    shutil.copytree(ROOT / "spacy_deid", fresh / "spacy_deid", ignore=shutil.ignore_patterns("__pycache__"))
    corpus = tmp_path / "my notes.jsonl"
    with corpus.open("w") as dst:
        for rec in generate_records(60, 15, seed=99, style="mixed"):
            rec.pop("spans")
            dst.write(json.dumps(rec) + "\n")
    out = tmp_path / "deid out"
    args = [sys.executable, "-m", "spacy", "project", "run", "deid", str(fresh),
            f"--vars.corpus={corpus}", f"--vars.out={out}", "--vars.mlm_steps=20"]
    for key, value in TINY_VARS.items():
        if key != "mlm_steps":
            args += [f"--vars.{key}", str(value)]
    res = subprocess.run(args, cwd=fresh, capture_output=True, text=True, env=_env(), timeout=900)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    outs = [json.loads(l) for l in (out / "sanitized.jsonl").open()]
    assert len(outs) == 60 and all(o["status"] == "ok" and "text" not in o for o in outs)
    m = json.loads((out / "metrics.json").read_text())
    assert m["has_gold_spans"] is False and "privacy" not in m
    assert 0.0 < m["utility"]["non_phi"]["kept_share"] < 1.0
    assert (out / "report.html").exists() and (out / "pipeline" / "config.cfg").exists()
    assert (fresh / "training/ner/model-best").exists()  # trained by the workflow itself
    # a second run reuses the NER: every step is up to date
    res = subprocess.run(args, cwd=fresh, capture_output=True, text=True, env=_env(), timeout=900)
    assert res.returncode == 0 and "Skipping 'train_ner'" in res.stdout + res.stderr


def test_deid_workflow_trains_its_own_ner():
    """`deid` makes the PHI NER it uses (on generated notes of every style, with case
    variants) before it assembles the pipeline, so it needs no `all` run first."""
    import srsly

    proj = srsly.read_yaml(ROOT / "project.yml")
    deid = proj["workflows"]["deid"]
    for step in ("generate", "split", "augment", "train_ner"):
        assert step in deid and deid.index(step) < deid.index("deid_assemble"), step
    cmds = {c["name"]: c for c in proj["commands"]}
    assert proj["vars"]["ner_pipeline"] in cmds["train_ner"]["outputs"]
    assert proj["vars"]["ner_pipeline"] in [d.replace("${vars.ner_pipeline}", proj["vars"]["ner_pipeline"])
                                            for d in cmds["deid_assemble"]["deps"]]
    assert "--case-variants" in cmds["augment"]["script"][0]
    assert "--style ${vars.style}" in cmds["generate"]["script"][0] and proj["vars"]["style"] == "mixed"


def test_ner_config_reads_no_static_vectors():
    """The PHI NER runs the same under any pipeline's vectors: it reads none."""
    from spacy.util import load_config

    from spacy_deid.resources import config_path

    cfg = load_config(config_path("ner_tok2vec.cfg"))
    assert cfg["components"]["tok2vec"]["model"]["embed"]["include_static_vectors"] is False
    assert cfg["initialize"]["vectors"] is None
