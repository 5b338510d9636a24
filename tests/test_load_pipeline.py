"""load_pipeline imports only the factory entry points the pipeline's config names."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from spacy import util

import spacy_deid  # noqa: F401
from spacy_deid.engines.local import config_factories, entry_point_factories_only, load_pipeline

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def saved(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("indexed_span_ruler", name="phi_ruler").add_patterns([{"label": "X", "pattern": [{"LOWER": "x"}]}])
    nlp.add_pipe("sentencizer")
    nlp.to_disk(tmp_path / "p")
    return tmp_path / "p"


def test_config_factories(saved, tmp_path):
    assert config_factories(saved) == {"indexed_span_ruler", "sentencizer"}
    assert config_factories(tmp_path) is None


def test_registry_restored_and_pipeline_works(saved):
    registry = util.registry._entry_point_factories
    before = registry.get_all
    with entry_point_factories_only({"indexed_span_ruler", "no_such_factory"}):
        assert registry.get_all != before
        assert set(registry.get_all()) <= {"indexed_span_ruler"}  # no other package's factories
    assert registry.get_all == before
    with pytest.raises(RuntimeError):
        with entry_point_factories_only(set()):
            raise RuntimeError("boom")
    assert registry.get_all == before
    nlp = load_pipeline(saved)
    doc = nlp("a x b")
    assert [(s.label_, s.text) for s in doc.spans["ruler"]] == [("X", "x")]


@pytest.mark.skipif(importlib.util.find_spec("spacy_transformers") is None, reason="spacy-transformers not installed")
def test_transformers_not_imported_for_a_pipeline_without_one(saved):
    code = (
        "import sys; from spacy_deid.engines.local import load_pipeline; load_pipeline(sys.argv[1]); "
        "print('spacy_transformers' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code, str(saved)], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip().splitlines()[-1] == "False"
    # spaCy's own behaviour imports it (what the context manager avoids)
    plain = "import sys, spacy, spacy_deid; spacy.load(sys.argv[1]); print('spacy_transformers' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", plain, str(saved)], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip().splitlines()[-1] == "True"
