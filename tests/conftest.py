"""Shared fixtures. The whole suite runs offline: no model or data is fetched."""
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import pytest  # noqa: E402


def _has_gpu() -> bool:
    try:
        import torch

        return torch.cuda.is_available()
    except Exception:
        return False


def pytest_collection_modifyitems(config, items):
    if _has_gpu():
        return
    skip_gpu = pytest.mark.skip(reason="no CUDA GPU on this machine")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip_gpu)


@pytest.fixture(scope="session")
def small_corpus(tmp_path_factory):
    """A generated corpus of 300 notes of 60 patients (path to the JSONL)."""
    from spacy_deid.synth import generate_corpus

    path = tmp_path_factory.mktemp("corpus") / "small.jsonl"
    generate_corpus(path, n_docs=300, n_patients=60, seed=13, show_progress=False)
    return path


@pytest.fixture(scope="session")
def small_records(small_corpus):
    from spacy_deid.records import read_jsonl_list

    return read_jsonl_list(small_corpus)
