"""Config tests: every shipped config parses and resolves, the datasifter profile
is the default profile plus its privacy tier, and a trained NER is sourced by
``init --ner`` (no config holds a copy of a NER block)."""
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


def test_datasifter_is_default_plus_privacy_tier():
    base = util.load_config(CONFIGS / "default.cfg", interpolate=False)
    ds = util.load_config(CONFIGS / "datasifter.cfg", interpolate=False)
    assert ds["nlp"]["pipeline"] == [*base["nlp"]["pipeline"], "mlm_resampler", "similarity_filter", "doc_swapper"]
    for comp in base["nlp"]["pipeline"]:
        assert ds["components"][comp] == base["components"][comp], comp
        assert ds["initialize"]["components"].get(comp) == base["initialize"]["components"].get(comp), comp


def test_no_config_copies_a_ner_block():
    """The NER comes from a trained pipeline via `init --ner`, never from a copied block."""
    for name in ("default.cfg", "datasifter.cfg"):
        config = util.load_config(CONFIGS / name, interpolate=False)
        assert not {"tok2vec", "ner", "transformer"} & set(config["components"]), name


def test_default_profile_keeps_text():
    """default: patterns into their own span group, phi_replacer last, no resampling."""
    config = util.load_config(CONFIGS / "default.cfg", interpolate=False)
    pipeline = config["nlp"]["pipeline"]
    assert pipeline[-1] == "phi_replacer"
    assert not {"mlm_resampler", "similarity_filter", "doc_swapper"} & set(pipeline)
    ruler = config["components"]["phi_ruler"]
    assert ruler["spans_key"] == "phi_patterns" and ruler["annotate_ents"] is False


@pytest.mark.parametrize("name", ["default", "datasifter"])
def test_profile_builds_without_initialize(name):
    """All factories of a profile resolve from entry points (no --code)."""
    config = util.load_config(CONFIGS / f"{name}.cfg", overrides={"paths.mlm": "/nonexistent/mlm"}, interpolate=False)
    nlp = util.load_model_from_config(config, auto_fill=True, validate=True)
    assert nlp.pipe_names == config["nlp"]["pipeline"]


def test_init_ner_sources_tok2vec_and_ner(tmp_path):
    """`init --ner PATH` puts the trained pipeline's tok2vec + ner before phi_ruler."""
    import spacy

    from spacy_deid.engines.fit import load_config

    ner = spacy.blank("en")
    ner.add_pipe("tok2vec")
    ner_pipe = ner.add_pipe("ner")
    ner_pipe.add_label("PATIENT")
    ner.add_pipe("span_ruler", name="phi_ruler")
    ner.initialize()
    ner.to_disk(tmp_path / "ner")
    config = load_config("default", overrides={"components.mlm_resampler.p_n": 0.5}, ner=tmp_path / "ner")
    assert config["nlp"]["pipeline"][:3] == ["tok2vec", "ner", "phi_ruler"]
    assert config["components"]["ner"] == {"source": str(tmp_path / "ner")}
    assert config["components"]["phi_ruler"]["factory"] == "indexed_span_ruler"  # ours, not the NER's
    nlp = util.load_model_from_config(config, auto_fill=True)
    assert nlp.pipe_names[:3] == ["tok2vec", "ner", "phi_ruler"]
    with pytest.raises(ValueError, match="no 'ner'"):
        spacy.blank("en").to_disk(tmp_path / "blank")
        load_config("default", ner=tmp_path / "blank")


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


@pytest.mark.parametrize("workflow", ["all", "deid", "gpu"])
def test_each_workflow_step_finds_its_deps(workflow):
    """weasel stops a workflow at a step whose dependency is missing: every dep is
    a file of the repository, the user's corpus, or an output of an earlier step of
    the same workflow (the `gpu` workflow ran `evaluate` without `sweep`, whose
    reports/sweep.json `evaluate` reads)."""
    from weasel.util import load_project_config

    project = load_project_config(ROOT, overrides={"vars.corpus": "/data/notes.jsonl"})
    commands = {c["name"]: c for c in project["commands"]}
    made = set()
    for step in project["workflows"][workflow]:
        for dep in commands[step].get("deps", []):
            dep = dep.rstrip("/")
            produced = any(dep == out or dep.startswith(out + "/") for out in made)
            assert produced or dep == "/data/notes.jsonl" or (ROOT / dep).exists(), (workflow, step, dep)
        made |= {out.rstrip("/") for out in commands[step].get("outputs", [])}
