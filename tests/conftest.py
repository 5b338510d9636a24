"""Shared fixtures. The whole suite runs offline: no model or data is fetched."""
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import pytest  # noqa: E402

# Tiny model settings shared by the test files (imported from here as a sibling
# module, like fault_components): trained once per session by the fixtures below.
TINY_VECTORS = dict(dim=16, bucket=2000, epoch=10, k=3, minn=3, maxn=5, word_list=True, show_progress=False)
TINY_MLM = {
    "model": {"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 64},
    "tokenizer": {"vocab_size": 800, "min_frequency": 2},
    "training": {"seq_len": 64, "batch_size": 16, "max_steps": 4, "warmup_steps": 1, "checkpoint_every": 0,
                 "max_train_docs": 120},
}


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
        if item.get_closest_marker("gpu") is not None:
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
    from spacy_deid.io.records import read_jsonl_list

    return read_jsonl_list(small_corpus)


@pytest.fixture(scope="session")
def vec_dir(tmp_path_factory, small_corpus):
    """Tiny floret vectors of the session corpus (read-only for the tests)."""
    from spacy_deid.train.vectors import train_vectors

    out = tmp_path_factory.mktemp("tiny_vectors")
    train_vectors(small_corpus, out, seed=0, **TINY_VECTORS)
    return out


@pytest.fixture(scope="session")
def mlm_dir(tmp_path_factory, small_corpus):
    """A tiny masked LM pretrained on the session corpus (read-only for the tests)."""
    from spacy_deid.train.pretrain import pretrain_mlm

    out = tmp_path_factory.mktemp("tiny_mlm")
    pretrain_mlm(small_corpus, out, TINY_MLM, no_mask=True, show_progress=False)
    return out
