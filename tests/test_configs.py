"""Config tests: every shipped config parses and resolves, and the default
pipeline with the NER stays in sync with the one without."""
import shlex
from pathlib import Path

import pytest
from spacy import util

import spacy_deid  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "spacy_deid" / "configs"


@pytest.mark.parametrize("name", sorted(p.name for p in CONFIGS.glob("*.cfg") if not p.name.startswith("pretrain")))
def test_config_parses(name):
    config = util.load_config(CONFIGS / name, interpolate=False)
    assert config["nlp"]["lang"] == "en"
    for comp in config["nlp"]["pipeline"]:
        assert comp in config["components"], f"{name}: {comp} has no [components.{comp}] block"


def test_default_ner_is_default_plus_ner():
    base = util.load_config(CONFIGS / "default.cfg", interpolate=False)
    ner = util.load_config(CONFIGS / "default_ner.cfg", interpolate=False)
    assert ner["nlp"]["pipeline"] == ["tok2vec", "ner", *base["nlp"]["pipeline"]]
    for comp in base["nlp"]["pipeline"]:
        assert ner["components"][comp] == base["components"][comp], comp
    assert ner["initialize"] == base["initialize"]


def test_default_pipeline_builds_without_initialize():
    """All factories of the default pipeline resolve from entry points (no --code)."""
    config = util.load_config(CONFIGS / "default.cfg", overrides={"paths.mlm": "/nonexistent/mlm"}, interpolate=False)
    nlp = util.load_model_from_config(config, auto_fill=True, validate=True)
    assert nlp.pipe_names == ["phi_ruler", "frequency_masker", "mlm_resampler", "similarity_filter", "doc_swapper"]


@pytest.mark.parametrize(
    "overrides",
    [{}, {"vars.corpus": "/data/my notes.jsonl", "vars.out": "/data/deid out", "vars.ner_pipeline": "/models/my ner"}],
)
def test_project_yml_lists_survive_variable_interpolation(overrides):
    """weasel's interpolation once joined a leading bare "${vars.corpus}" dep with
    the next item ("corpus.jsonl, out/mlm"), so `deid_assemble` always failed with
    a missing dependency: every command keeps as many deps/outputs/script lines as
    project.yml writes, each a path of its own."""
    import yaml
    from weasel.util import load_project_config

    raw = {c["name"]: c for c in yaml.safe_load((ROOT / "project.yml").read_text())["commands"]}
    loaded = load_project_config(ROOT, overrides=overrides)
    for cmd in loaded["commands"]:
        for key in ("deps", "outputs", "script"):
            assert len(cmd.get(key, [])) == len(raw[cmd["name"]].get(key, [])), (cmd["name"], key, cmd.get(key))
        for path in cmd.get("deps", []) + cmd.get("outputs", []):
            assert ", " not in path and "${" not in path, (cmd["name"], path)
        # a user's path with spaces stays one argument (weasel splits scripts with shlex)
        for line in cmd.get("script", []):
            for token in shlex.split(line):
                if token.startswith(("/data/", "/models/")):
                    assert " " in token, (cmd["name"], line)
