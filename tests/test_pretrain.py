"""MLM pretraining: config, corpus masking, tokenizer + model, determinism, resume, CLI."""
import json
from pathlib import Path

import numpy
import pytest
import spacy
from spacy.tokens import Span

import spacy_deid  # noqa: F401
from spacy_deid.edits import LOW_FREQ, add_edit
from spacy_deid.train.pretrain import (
    DEFAULT_PRETRAIN_CONFIG,
    load_pretrain_config,
    mask_batch,
    masked_text,
    pretrain_mlm,
    split_records,
)
from spacy_deid.io.records import FatalError

ROOT = Path(__file__).resolve().parents[1]
TINY = {
    "model": {"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 64},
    "tokenizer": {"vocab_size": 600, "min_frequency": 2},
    "training": {"seq_len": 32, "batch_size": 8, "max_steps": 4, "warmup_steps": 1, "checkpoint_every": 2,
                 "max_train_docs": 60},
}


def weights(path):
    from safetensors.numpy import load_file

    return load_file(str(Path(path) / "model.safetensors"))


def same_weights(a, b):
    wa, wb = weights(a), weights(b)
    return wa.keys() == wb.keys() and all(numpy.array_equal(wa[k], wb[k]) for k in wa)


def test_cpu_config_is_the_default():
    assert load_pretrain_config(ROOT / "spacy_deid" / "configs" / "pretrain_cpu.cfg") == load_pretrain_config(None)
    gpu = load_pretrain_config(ROOT / "spacy_deid" / "configs" / "pretrain_gpu.cfg")
    assert gpu["model"]["hidden_size"] > DEFAULT_PRETRAIN_CONFIG["model"]["hidden_size"]
    large = load_pretrain_config(ROOT / "spacy_deid" / "configs" / "pretrain_cpu_large.cfg")
    assert large["model"]["num_hidden_layers"] > DEFAULT_PRETRAIN_CONFIG["model"]["num_hidden_layers"]
    assert large["training"]["max_minutes"] > 0  # a budget ends its runs
    with pytest.raises(FatalError, match="Unknown pretrain setting"):
        load_pretrain_config({"training": {"learning_rate": 1.0}})
    with pytest.raises(FatalError, match="not found"):
        load_pretrain_config(ROOT / "spacy_deid" / "configs" / "nope.cfg")


def test_masked_text_hides_edits_and_entities():
    nlp = spacy.blank("en")
    doc = nlp("Seen by Dr. Zyx Qor on 12/03 for a check up.")
    add_edit(doc, 3, 5, LOW_FREQ, "[LOW_FREQ]")
    doc.ents = [Span(doc, 6, 7, label="DATE")]
    assert masked_text(doc) == "Seen by Dr. [UNK] on [UNK] for a check up."


def test_split_is_by_patient():
    records = [{"id": f"n{i}", "patient_id": f"p{i % 7}", "text": f"note {i}"} for i in range(70)]
    train, held = split_records(records, 0.3, 0, seed=0)
    assert train and held and len(train) + len(held) == 70
    assert not {r["patient_id"] for r in train} & {r["patient_id"] for r in held}
    assert split_records(records, 0.3, 0, seed=0) == (train, held)


def test_split_drops_held_out_duplicates():
    # one transcription listed under several ids (mtsamples does this): a held-out copy of
    # a training note would measure memory, not context
    records = [{"id": f"n{i}", "text": f"note {i % 20}"} for i in range(80)]
    records += [{"id": f"u{i}", "text": f"unique note {i}"} for i in range(40)]
    train, held = split_records(records, 0.3, 0, seed=0)
    train_texts = {r["text"] for r in train}
    assert held and not any(r["text"] in train_texts for r in held)
    assert len({r["text"] for r in held}) == len(held)
    # without patient ids, the copies of a text are one group: some repeated texts are held out
    assert any(r["id"].startswith("n") for r in held)
    # with patient ids, a copy held out under another patient is dropped
    by_patient = [dict(r, patient_id=f"p{i}") for i, r in enumerate(records)]
    train, held = split_records(by_patient, 0.3, 0, seed=0)
    train_texts = {r["text"] for r in train}
    assert held and not any(r["text"] in train_texts for r in held)
    assert len({r["text"] for r in held}) == len(held)


def test_mask_batch_rates():
    rng = numpy.random.default_rng(0)
    ids = rng.integers(5, 500, size=(64, 64))
    ids[:, 0] = 2
    inputs, labels = mask_batch(ids, [0, 1, 2, 3, 4], 4, 500, 0.15, rng)
    picked = labels != -100
    assert 0.12 < picked.mean() < 0.18 and not picked[:, 0].any()
    assert 0.7 < (inputs[picked] == 4).mean() < 0.9
    assert (labels[picked] == ids[picked]).all() and (inputs[~picked] == ids[~picked]).all()


@pytest.fixture(scope="module")
def trained(tmp_path_factory, small_corpus):
    out = tmp_path_factory.mktemp("pre") / "a"
    metrics = pretrain_mlm(small_corpus, out, TINY, no_mask=True, show_progress=False)
    return out, metrics


def test_pretrain_outputs(trained):
    out, metrics = trained
    for name in ("config.json", "model.safetensors", "tokenizer.json", "vocab.txt", "tokenizer_config.json", "metrics.json"):
        assert (out / name).exists(), name
    on_disk = json.loads((out / "metrics.json").read_text())
    assert on_disk["steps"] == 4 and on_disk["heldout_docs"] >= 1
    held = on_disk["heldout"]
    assert held["n_masked"] > 0 and 0 <= held["top1"] <= held["top5"] <= 1 and held["perplexity"] > 1
    assert "top1" in on_disk["heldout_unigram_baseline"]
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(out))
    assert "[UNK]" in tok.tokenize("seen [UNK] today")  # the placeholder stays one special token
    from spacy_deid.components.mlm_resampler import MLMSampler

    assert MLMSampler.from_path(out).window_size == 32


def test_pretrain_is_deterministic_and_resumes_exactly(trained, tmp_path, small_corpus):
    out, _ = trained
    again = tmp_path / "b"
    pretrain_mlm(small_corpus, again, TINY, no_mask=True, show_progress=False)
    assert same_weights(out, again)
    assert (out / "vocab.txt").read_text() == (again / "vocab.txt").read_text()
    # interrupted after 3 of 4 steps (checkpoints every 2), then resumed
    resumed = tmp_path / "c"
    part = pretrain_mlm(small_corpus, resumed, TINY, no_mask=True, show_progress=False, stop_after_steps=3)
    assert part["interrupted"] and not (resumed / "model.safetensors").exists()
    metrics = pretrain_mlm(small_corpus, resumed, TINY, no_mask=True, show_progress=False, resume=True)
    assert metrics["resumed_from_step"] == 3
    assert same_weights(out, resumed)
    other = tmp_path / "d"
    pretrain_mlm(small_corpus, other, TINY, no_mask=True, show_progress=False, seed=1)
    assert not same_weights(out, other)


def test_pretrain_masks_rare_identifiers(tmp_path, small_records):
    """With the masking step, a name seen for one patient only never reaches the
    tokenizer or the model."""
    pytest.importorskip("spacy_deid.components.frequency_masker")
    from spacy_deid.train.pretrain import load_mask_pipeline, masked_texts

    records = [dict(r) for r in small_records[:60]]
    records[0]["text"] = records[0]["text"] + " Seen with Qwertyzane twice."
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in records))
    cfg = tmp_path / "mask.cfg"
    cfg.write_text(
        "[paths]\ncorpus = null\n[nlp]\nlang = \"en\"\npipeline = [\"frequency_masker\", \"mlm_resampler\"]\n"
        "[components]\n[components.mlm_resampler]\nfactory = \"mlm_resampler\"\n"
        "[components.frequency_masker]\nfactory = \"frequency_masker\"\nk = 3\n[initialize]\n"
        "[initialize.components]\n[initialize.components.frequency_masker]\n"
        "[initialize.components.frequency_masker.corpus]\n@readers = \"spacy_deid.io.records.v1\"\n"
        "path = ${paths.corpus}\n"
    )
    nlp = load_mask_pipeline(corpus, mask_config=cfg)
    assert nlp.pipe_names == ["frequency_masker"]  # the resampler (no model yet) is left out
    texts = list(masked_texts(records, nlp))
    assert "[UNK]" in texts[0] and not any("qwertyzane" in t.lower() for t in texts)
    assert "Qwertyzane" in records[0]["text"]


def test_pretrain_requires_a_masking_step(tmp_path, small_corpus):
    with pytest.raises(FatalError, match="frequency-masking"):
        pretrain_mlm(small_corpus, tmp_path / "x", TINY, show_progress=False)
    with pytest.raises(FatalError, match="Corpus not found"):
        pretrain_mlm(tmp_path / "none.jsonl", tmp_path / "x", TINY, no_mask=True)


def test_cli_errors(tmp_path, small_corpus):
    from typer.testing import CliRunner

    from spacy_deid.cli import app

    runner = CliRunner()
    res = runner.invoke(app, ["pretrain", str(tmp_path / "none.jsonl"), str(tmp_path / "o")])
    assert res.exit_code != 0 and "Corpus not found" in res.output
    res = runner.invoke(app, ["pretrain", str(small_corpus), str(tmp_path / "o"), "--mask-config", str(tmp_path / "x.cfg")])
    assert res.exit_code != 0 and "onfig not found" in res.output


def test_gold_phi_spans_are_hidden_from_pretraining():
    """A frequent identifier (a doctor's name shared by many patients) passes the
    frequency rule; gold spans hide it from the MLM's training text all the same."""
    import spacy

    from spacy_deid.train.pretrain import masked_texts

    nlp = spacy.blank("en")
    text = "Seen by Dr Quillfeather today."
    recs = [{"id": "1", "text": text, "spans": [{"start": 11, "end": 23, "label": "DOCTOR"}]}, {"id": "2", "text": text}]
    hidden, plain = list(masked_texts(recs, nlp))
    assert "Quillfeather" not in hidden and "Seen by Dr" in hidden
    assert plain == text


# --------------------------------------------------------------------------- whole-word masking and metrics


@pytest.fixture(scope="module")
def tok(small_records):
    from spacy_deid.train.pretrain import train_tokenizer

    return train_tokenizer([r["text"] for r in small_records[:80]], 700, 2, True, 64)


def test_whole_word_masking_is_one_mask_per_word(tok):
    from spacy_deid.train.pretrain import (
        CONTENT_MULTI, CONTENT_SINGLE, NOT_MASKED, OTHER_MASKED, mask_whole_words, vocab_tables, word_layout,
    )

    tables = vocab_tables(tok)
    # three one-piece content words of the trained vocabulary
    one = [t for t in sorted(tok.get_vocab()) if t.isalpha() and len(t) > 3 and not tables["stop"][tok.convert_tokens_to_ids(t)]]
    words = ["the", one[0], "was", "zzqx", one[1], ",", "and", one[2]]
    pieces = [len(tok(w, add_special_tokens=False)["input_ids"]) for w in words]
    ids = [tok.cls_token_id]
    for w in words:
        ids.extend(tok(w, add_special_tokens=False)["input_ids"])
    ids.append(tok.sep_token_id)
    assert pieces[3] > 1 and pieces[1] == pieces[4] == pieces[7] == 1  # an unseen word has several pieces
    block = numpy.array([ids + [tok.pad_token_id] * 4])
    special = tok.all_special_ids
    start, content, n_pieces, _, _ = word_layout(block, tables, special)
    assert int(start.sum()) == len(words)
    assert content[0][start[0]].tolist() == [False, True, False, True, True, False, False, True]
    inputs, labels, kinds = mask_whole_words(block, tables, special, tok.mask_token_id, tok.pad_token_id, 1.0, 0.0,
                                             numpy.random.default_rng(0))
    row = inputs[0]
    # every content word is one [MASK]; the word of several pieces lost its other pieces
    assert int((row == tok.mask_token_id).sum()) == 4
    assert int((row != tok.pad_token_id).sum()) == len(ids) - (pieces[3] - 1)
    assert set(kinds[0][row == tok.mask_token_id].tolist()) == {CONTENT_SINGLE, CONTENT_MULTI}
    assert int((kinds[0] == CONTENT_MULTI).sum()) == 1
    scored = labels[0] != -100
    assert int(scored.sum()) == 3 and (kinds[0][scored] == CONTENT_SINGLE).all()  # several pieces: no label
    assert (kinds[0][row != tok.mask_token_id] == NOT_MASKED).all()
    _, _, kinds = mask_whole_words(block, tables, special, tok.mask_token_id, tok.pad_token_id, 0.0, 1.0,
                                   numpy.random.default_rng(0))
    assert int((kinds[0] == OTHER_MASKED).sum()) == 4  # the, was, ",", and


def test_linear_schedule_horizon_moves():
    from spacy_deid.train.pretrain import LinearSchedule

    s = LinearSchedule(10, 110)
    assert s(0) == 0 and s(5) == 0.5 and s(10) == 1.0 and s(60) == 0.5 and s(110) == 0.0
    s.horizon = 60
    assert s(35) == 0.5 and s(60) == 0.0


def test_metrics_report_content_words_and_pseudo_perplexity(trained):
    _, metrics = trained
    content = metrics["heldout_content"]
    assert content["n_masked"] > 0 and 0 < content["one_piece_share"] <= 1
    assert 0 <= content["top1"] <= content["top5"] <= 1 and content["perplexity"] > 1
    assert 0 <= content["unigram"]["top1"] <= content["unigram"]["top5"] <= 1
    pp = metrics["heldout_pseudo_perplexity"]
    assert pp["n_positions"] > 0 and pp["pseudo_perplexity"] > 1 and pp["unigram_perplexity"] > 1
    assert metrics["masking"] == "whole_word" and not metrics["stopped_by_budget"]


def test_time_budget_stops_training(tmp_path, small_corpus):
    cfg = {**TINY, "training": {**TINY["training"], "max_steps": 100000, "checkpoint_every": 0}}
    metrics = pretrain_mlm(small_corpus, tmp_path / "b", cfg, no_mask=True, show_progress=False, max_minutes=0.05)
    assert metrics["stopped_by_budget"] and 0 < metrics["steps"] < 100000
    assert metrics["train_seconds_this_run"] < 3 * 60 * 0.05 + 2
    assert (tmp_path / "b" / "model.safetensors").exists()
    # a budget may stop a run a step before the horizon it had last set (the horizon
    # follows the measured speed): the resumed run still trains to its own max_steps
    import torch

    opt_path = tmp_path / "b" / "checkpoint" / "optimizer.pt"
    state = torch.load(opt_path, weights_only=True)
    (schedule_state,) = state["scheduler"]["lr_lambdas"]
    schedule_state["horizon"] = metrics["steps"] + 1
    torch.save(state, opt_path)
    # resumed with more steps, a run stopped by its budget starts a new decay and trains on
    more = pretrain_mlm(small_corpus, tmp_path / "b", cfg, no_mask=True, show_progress=False, resume=True,
                        max_steps=metrics["steps"] + 3)
    assert more["resumed_from_step"] == metrics["steps"] and more["steps"] == metrics["steps"] + 3
    assert not more["stopped_by_budget"]
    with pytest.raises(FatalError, match="masking"):
        pretrain_mlm(small_corpus, tmp_path / "x", {"training": {"masking": "span"}}, no_mask=True)


@pytest.mark.parametrize("command", ["pretrain", "vectors"])
def test_a_profile_without_the_model_trains_nothing(tmp_path, command):
    """The deid workflow passes --for-profile: the default profile needs no masked
    LM and no vectors, so none is trained; the datasifter profile needs both."""
    from typer.testing import CliRunner

    from spacy_deid.cli.app import app
    from spacy_deid.resources import config_reads

    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"id": "1", "text": "Patient stable."}) + "\n")
    out = tmp_path / "model"
    res = CliRunner().invoke(app, [command, str(corpus), str(out), "--for-profile", "default"])
    assert res.exit_code == 0, res.output
    assert [p.name for p in out.iterdir()] == ["NOT_NEEDED.txt"]
    var = "paths.mlm" if command == "pretrain" else "paths.vectors"
    assert config_reads("datasifter", var) and not config_reads("default", var)
