"""mlm_resampler and MLMSampler: the schedule, sampling, privacy filter, serialization.

A tiny masked LM (1 layer, hidden 32) is pretrained here on generated notes: no download.
"""
import shutil
from pathlib import Path

import numpy
import pytest
import spacy
from spacy.language import Language
from spacy.tokens import Span

import spacy_deid  # noqa: F401
from spacy_deid.edits import LOW_FREQ, MLM, add_edit, get_edits
from spacy_deid.components.mlm_resampler import (
    MLMSampler,
    datasifter_mask,
    doc_key,
    fuses_punct,
    mask_probability,
    spread_weights,
    stable_key,
)

@pytest.fixture(scope="module")
def texts(small_records):
    return [r["text"] for r in small_records[:12]]


def make_nlp(model, **cfg):
    nlp = spacy.blank("en")
    nlp.add_pipe("mlm_resampler", config={"model": str(model), **cfg})
    nlp.initialize()
    return nlp


def edits_of(doc):
    return [(s.start, s.end, s.label_, s._.deid_replacement, (s._.deid_audit or {}).get("candidates")) for s in get_edits(doc)]


class SeqRng:
    """A stand-in generator whose random() returns fixed values (schedule tests)."""

    def __init__(self, value):
        self.value = value
        self.calls = 0

    def random(self):
        self.calls += 1
        return self.value


def flags(n, on=()):
    return [i in set(on) for i in range(n)]


# --------------------------------------------------------------------------- schedule


def test_mask_probability_formula():
    assert mask_probability(1.2, False, 0.5, 0.75) == pytest.approx(0.1)
    assert mask_probability(1.2, True, 0.5, 0.75) == pytest.approx(0.4)
    assert mask_probability(0.05, False, 0.5, 0.75) == pytest.approx(1 - 0.75 * 0.05)
    assert mask_probability(1.2, False, 0.5, 1.0) == 0.0  # clipped, not negative
    assert mask_probability(0.0, False) == 1.0


def test_coef_resets_after_a_mask_and_decays_by_step():
    # p_t = 0.1 + 0.0375 t after t unmasked tokens; with random() == 0.5 the first
    # mask falls where p > 0.5, i.e. t = 11, and again 12 tokens after the reset.
    n = 30
    masked = datasifter_mask(flags(n, range(n)), flags(n), flags(n), flags(n), SeqRng(0.5), max_passes=1)
    assert [i for i, m in enumerate(masked) if m] == [11, 23]


def test_coef_floor_is_coef_min():
    n = 100
    all_on = flags(n, range(n))
    # p never exceeds 1 - 0.75 * 0.05 = 0.9625: a draw of 0.97 never masks
    masked = datasifter_mask(all_on, flags(n), flags(n), flags(n), SeqRng(0.97), max_passes=1)
    assert not any(masked)
    # a draw of 0.96 masks exactly when coef has reached the floor (23 decays)
    masked = datasifter_mask(all_on, flags(n), flags(n), flags(n), SeqRng(0.96), max_passes=1)
    assert [i for i, m in enumerate(masked) if m][:2] == [23, 47]


def test_focus_terms_use_p_w():
    n = 3
    masked = datasifter_mask(flags(n, range(n)), flags(n), flags(n, [0]), flags(n), SeqRng(0.3), max_passes=1)
    assert masked[0]  # focus: p = 1 - 0.5 * 1.2 = 0.4 > 0.3; other first token p = 0.1


def test_mask_fraction_cap_and_forced():
    n = 10
    masked = datasifter_mask(flags(n, range(n)), flags(n), flags(n), flags(n), SeqRng(0.0))
    assert sum(masked) == 5 and masked[:5] == [True] * 5
    masked = datasifter_mask(flags(n, range(n)), flags(n), flags(n), flags(n, [7, 8, 9]), SeqRng(0.0))
    assert sum(masked) == 5 and all(masked[7:])  # forced count towards the cap
    masked = datasifter_mask(flags(n, range(n)), flags(n), flags(n), flags(n, range(8)), SeqRng(0.0))
    assert sum(masked) == 8  # forced tokens are never un-masked by the cap


def test_terminates_when_nothing_is_eligible():
    n = 20
    rng = SeqRng(0.0)
    masked = datasifter_mask(flags(n, range(n)), flags(n, range(n)), flags(n), flags(n, [3]), rng)
    assert [i for i, m in enumerate(masked) if m] == [3] and rng.calls == 0
    # p is 0 for every token whatever coef: no pass is even started
    rng = SeqRng(0.0)
    masked = datasifter_mask(flags(n, range(n)), flags(n), flags(n), flags(n), rng, p_n=25.0)
    assert not any(masked) and rng.calls == 0
    assert datasifter_mask([], [], [], [], rng) == []
    # one eligible token left after it is masked: the loop ends below the cap
    masked = datasifter_mask(flags(n, range(n)), flags(n, range(1, n)), flags(n), flags(n), numpy.random.default_rng(0))
    assert masked == flags(n, [0])


def test_whitespace_is_not_counted():
    countable = [True, False, True, False, True, True]
    masked = datasifter_mask(countable, flags(6), flags(6), flags(6), SeqRng(0.0))
    assert sum(masked) == 2 and not masked[1] and not masked[3]


def test_schedule_with_real_rng_spreads_masks():
    n = 400
    rng = numpy.random.default_rng(1)
    masked = datasifter_mask(flags(n, range(n)), flags(n), flags(n), flags(n), rng)
    assert sum(masked) == 200
    runs = max(len(r) for r in "".join("x" if m else "." for m in masked).split("."))
    assert runs < 10  # the reset after each mask keeps masks apart


def test_stable_keys():
    assert stable_key("note-1") == stable_key("note-1") != stable_key("note-2")
    nlp = spacy.blank("en")
    a, b = nlp("same text"), nlp("same text")
    assert doc_key(a) == doc_key(b)
    a._.deid_record = {"id": "x"}
    assert doc_key(a) != doc_key(b)


# --------------------------------------------------------------------------- sampler


def test_sampler_errors(tmp_path, mlm_dir):
    with pytest.raises(ValueError, match="not found"):
        MLMSampler.from_path(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="config.json"):
        MLMSampler.from_path(tmp_path / "empty")
    from transformers import AutoModel

    base = AutoModel.from_pretrained(str(mlm_dir))  # the encoder without its MLM head
    base.save_pretrained(str(tmp_path / "base"))
    for f in ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        shutil.copy(mlm_dir / f, tmp_path / "base" / f)
    with pytest.raises(ValueError, match="not a masked language model"):
        MLMSampler.from_path(tmp_path / "base")


def test_a_loaded_model_is_never_compiled(mlm_dir):
    # transformers drops reference_compile=False when it saves the config: a reloaded
    # ModernBERT would compile its layers again in every process on a GPU
    import json

    assert json.loads((mlm_dir / "config.json").read_text()).get("reference_compile") is None
    assert MLMSampler.from_path(mlm_dir).model.config.reference_compile is False


@pytest.mark.parametrize("architecture", ["modernbert", "bert"])
def test_head_on_masked_rows_matches_the_whole_model(tmp_path, mlm_dir, architecture):
    # the sampler projects only the rows it needs; it must give the model's own logits
    import torch

    from spacy_deid.train.pretrain import build_model

    sampler = MLMSampler.from_path(mlm_dir)
    cfg = {"architecture": architecture, "hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2,
           "intermediate_size": 64}
    model = build_model(cfg, len(sampler.tokenizer), 64, sampler.tokenizer.pad_token_id, seed=1)
    model.save_pretrained(str(tmp_path / "m"))
    sampler.tokenizer.save_pretrained(str(tmp_path / "m"))
    loaded = MLMSampler.from_path(tmp_path / "m")
    assert loaded._fast_path is not None
    assert type(loaded.model).__name__.lower().startswith(architecture)
    ids = torch.tensor([[2, 10, 11, 4, 12, 3, 0, 0], [2, 4, 13, 14, 15, 16, 17, 3]])
    att = (ids != 0).long()
    rows, cols = torch.tensor([0, 1, 1]), torch.tensor([3, 1, 5])
    with torch.inference_mode():
        fast = loaded.allowed_logits(ids, att, rows, cols)
        loaded._fast_path = None
        whole = loaded.allowed_logits(ids, att, rows, cols)
    assert fast.shape == whole.shape == (3, len(loaded._allowed_t))
    assert torch.allclose(fast, whole, atol=1e-4)


def test_sampler_candidates_contract(mlm_dir, texts):
    sampler = MLMSampler.from_path(mlm_dir)
    nlp = spacy.blank("en")
    docs = [nlp(t) for t in texts[:3]]
    targets = [[i for i in range(0, len(d), 3)] for d in docs]
    space = next(t.i for t in docs[0] if t.is_space)
    targets[0].append(space)
    rngs = [numpy.random.default_rng(i) for i in range(3)]
    out = sampler.candidates(docs, targets, n_candidates=6, rng=rngs, top_k=40)
    assert [len(o) for o in out] == [len(t) for t in targets]
    assert out[0][-1] == []  # whitespace target
    special = set(sampler.tokenizer.all_special_tokens)
    n = 0
    for doc, tgt, cands in zip(docs, targets, out):
        for t, cs in zip(tgt, cands):
            if doc[t].is_space:
                continue
            assert 1 <= len(cs) <= 6
            assert len({c.casefold() for c in cs}) == len(cs)
            for c in cs:
                n += 1
                assert c.casefold() != doc[t].text.casefold()
                assert not c.startswith("##") and c not in special and c.strip() == c and c
    assert n > 50
    again = sampler.candidates(docs, targets, n_candidates=6, rng=[numpy.random.default_rng(i) for i in range(3)], top_k=40)
    assert again == out
    greedy = sampler.candidates(docs[:1], targets[:1], n_candidates=3, temperature=0)
    assert greedy == sampler.candidates(docs[:1], targets[:1], n_candidates=3, temperature=0, rng=numpy.random.default_rng(9))


def test_windows_cover_every_target_once(mlm_dir):
    sampler = MLMSampler.from_path(mlm_dir, window_size=16, context=8)
    rng = numpy.random.default_rng(0)
    lens = [int(x) for x in rng.integers(1, 4, size=300)]
    is_target = [bool(x) for x in rng.random(300) < 0.4]
    windows = sampler._windows(lens, is_target)
    assert len(windows) > 5
    seen = []
    for a, b, ca, cb in windows:
        assert a <= ca < cb <= b and sum(lens[a:b]) <= 14
        seen.extend(w for w in range(ca, cb) if is_target[w])
    assert sorted(seen) == [i for i, t in enumerate(is_target) if t]
    # a long doc through a small window gets candidates for every target
    nlp = spacy.blank("en")
    doc = nlp(" ".join(["the patient was seen in clinic today and feels well"] * 20))
    targets = [list(range(0, len(doc), 2))]
    out = sampler.candidates([doc], targets, n_candidates=2)
    assert all(out[0])


# --------------------------------------------------------------------------- component


def test_component_edits(mlm_dir, texts):
    nlp = make_nlp(mlm_dir, n_candidates=5)
    docs = list(nlp.pipe(texts[:4]))
    for doc in docs:
        edits = get_edits(doc)
        assert edits and all(e.label_ == MLM and len(e) == 1 for e in edits)
        for e in edits:
            cands = e._.deid_audit["candidates"]
            assert e._.deid_replacement == cands[0] and len(cands) <= 5
            assert cands[0].casefold() != e.text.casefold()
            assert not e[0].is_stop and not e[0].is_punct  # protected by default
        countable = sum(1 for t in doc if not t.is_space)
        assert len(edits) <= countable // 2
        assert doc._.deid_text != doc.text


def test_words_fused_with_punctuation_are_not_resampled(mlm_dir):
    # mtsamples wrote line breaks as commas: "asthma.,MEDICATIONS" is one token, and a
    # one-word replacement would drop the punctuation and the section header
    text = "history of asthma.,MEDICATIONS: albuterol daily.,ALLERGIES: none, s/p cabg 32.,PROCEDURE: left knee scope"
    nlp = make_nlp(mlm_dir, p_w=1.0, p_n=1.0, max_mask_fraction=1.0)
    doc = nlp(text)
    edited = {doc[i].text for e in get_edits(doc) for i in range(e.start, e.end)}
    fused = {",MEDICATIONS", ",ALLERGIES", "32.,PROCEDURE"}
    assert fused <= {t.text for t in doc} and all(fuses_punct(w) for w in fused)
    assert edited and not edited & fused
    assert not fuses_punct("x-ray") and not fuses_punct("b.i.d.") and not fuses_punct("Dr.")
    loose = make_nlp(mlm_dir, p_w=1.0, p_n=1.0, max_mask_fraction=1.0, protect_punct=False)
    doc = loose(text)
    assert {doc[i].text for e in get_edits(doc) for i in range(e.start, e.end)} & fused


def test_symbols_and_the_age_unit_are_not_resampled(mlm_dir):
    """'=' and '+' are no punctuation to spaCy but are never resampled ("3 + 4 = 7"); with
    the shipped protected terms the unit of an age stays ("73-year-old", "66 years old")."""
    text = "gleason score 3 + 4 = 7 in a 73-year-old man, his father 66 years old, tumor < 5 mm"
    kept = {"+", "=", "<", "year", "years", "old", "-"}

    def masked_words(nlp):
        doc = nlp.make_doc(text)
        masked, _ = nlp.get_pipe("mlm_resampler").plan(doc, numpy.random.default_rng(0))
        return {t.text for t, m in zip(doc, masked) if m}

    # p = 1 for every token that is not protected
    shipped = make_nlp(mlm_dir, p_w=0.0, p_n=0.0, max_mask_fraction=1.0, protected_terms_file="mlm_protected_terms.txt")
    assert masked_words(shipped) and not masked_words(shipped) & kept
    loose = make_nlp(mlm_dir, p_w=0.0, p_n=0.0, max_mask_fraction=1.0)
    assert masked_words(loose) & kept == {"year", "years", "old"}


def test_faithful_candidate_rules():
    from spacy_deid.components.mlm_resampler import coarse_shape, digit_shape, faithful, inflection

    assert [coarse_shape(w) for w in ("Smith", "12/03", "--", "3rd")] == ["word", "number", "punct", "word"]
    assert [inflection(w) for w in ("swelling", "noted", "lesions", "mass", "sinus", "diagnosis", "pain", "ring")] == [
        "ing", "ed", "s", "", "", "", "", ""]
    # "need"/"proceed" are no past tense, "bring"/"thing" no -ing form ("may need" read "may needed")
    assert [inflection(w) for w in ("need", "proceed", "bring", "thing", "agreed", "using")] == ["", "", "", "", "", "ing"]
    assert not faithful("need", "needed", set()) and faithful("need", "want", set())
    assert digit_shape("12/03") == "dd/dd"
    stops = {"the", "and", "of"}
    assert faithful("pain", "ache", stops)
    assert not faithful("pain", ",", stops)  # never punctuation for a word
    assert not faithful("pain", "the", stops)  # never a stop word for a content word
    assert faithful("the", "and", stops)  # a stop word (forced upstream) may become another
    assert not faithful("pain", "120", stops)
    assert faithful("120", "135", stops) and not faithful("120", "13", stops) and not faithful("120", "1200", stops)
    assert faithful("1.5", "2.0", stops) and not faithful("1.5", "15", stops)
    assert not faithful("lesions", "mass", stops) and faithful("lesions", "nodules", stops)
    assert not faithful("swelling", "swollen", stops) and faithful("noted", "observed", stops)
    assert faithful("swelling", "pain", stops, keep_inflection=False)


def test_keep_shape(mlm_dir, texts):
    from spacy_deid.components.mlm_resampler import faithful

    nlp = make_nlp(mlm_dir, n_candidates=6)
    stops = nlp.get_pipe("mlm_resampler").stop_words
    edits = [e for d in nlp.pipe(texts[:4]) for e in get_edits(d)]
    assert len(edits) > 20
    for e in edits:
        assert all(faithful(e.text, c, stops) for c in e._.deid_audit["candidates"])
    loose = make_nlp(mlm_dir, n_candidates=6, keep_shape=False)
    cands = [(e.text, c) for d in loose.pipe(texts[:4]) for e in get_edits(d) for c in e._.deid_audit["candidates"]]
    assert any(not faithful(t, c, stops) for t, c in cands)  # the tiny model does break the rules


def test_a_word_is_never_replaced_by_punctuation_or_a_stop_word(mlm_dir, texts):
    """The model's favourite is rigged to be a comma, then a stop word: neither is
    ever emitted for a content word."""
    for word in (",", "the"):
        nlp = make_nlp(mlm_dir, n_candidates=4)
        rig(nlp, word)
        edits = [e for d in nlp.pipe(texts[:3]) for e in get_edits(d)]
        assert edits
        for e in edits:
            assert all(c.casefold() != word for c in e._.deid_audit["candidates"])
            assert any(ch.isalnum() for ch in e._.deid_replacement)
        loose = make_nlp(mlm_dir, n_candidates=4, keep_shape=False)
        rig(loose, word)
        firsts = [e._.deid_replacement.casefold() for d in loose.pipe(texts[:3]) for e in get_edits(d)]
        assert sum(f == word for f in firsts) / len(firsts) > 0.9  # the rig works


def test_cap_is_a_share_of_maskable_content_words(mlm_dir, texts):
    from spacy_deid.components.mlm_resampler import doc_rngs

    for fraction in (0.2, 0.5):
        nlp = make_nlp(mlm_dir, max_mask_fraction=fraction)
        comp = nlp.get_pipe("mlm_resampler")
        for text in texts[:4]:
            doc = nlp.make_doc(text)
            masked, forced = comp.plan(doc, doc_rngs(0, doc)[0])
            content = [not (t.is_stop or t.is_punct or t.is_space) for t in doc]
            assert sum(masked) == int(fraction * sum(content) + 1e-9)
            assert not any(m and not c for m, c in zip(masked, content))  # stop words, punctuation: protected
    nlp = make_nlp(mlm_dir, max_mask_fraction=0.5, mask_fraction_of="tokens")
    doc = nlp.make_doc(texts[0])
    masked, _ = nlp.get_pipe("mlm_resampler").plan(doc, doc_rngs(0, doc)[0])
    n_content = sum(1 for t in doc if not (t.is_stop or t.is_punct or t.is_space))
    assert sum(masked) == min(n_content, int(0.5 * sum(1 for t in doc if not t.is_space)))
    with pytest.raises(ValueError, match="mask_fraction_of"):
        make_nlp(mlm_dir, mask_fraction_of="words")


def test_cap_base_counts_only_its_tokens():
    n = 10
    base = flags(n, range(0, n, 2))  # 5 tokens count: the cap of 0.4 is 2 of them
    masked = datasifter_mask(flags(n, range(n)), flags(n), flags(n), flags(n), SeqRng(0.0), cap_base=base,
                             max_mask_fraction=0.4)
    assert sum(m and b for m, b in zip(masked, base)) == 2 and masked[:3] == [True] * 3


def test_phi_replaced_upstream_keeps_its_replacement(mlm_dir):
    """Edits of a kept category (PHI already replaced by its operator) are masked
    in the model input but not resampled; rare words (category OTHER) are."""

    @Language.component("test_phi_and_rare")
    def mark(doc):
        add_edit(doc, 2, 4, "NER", "Anna Berg", category="NAME", method="SURROGATE")
        add_edit(doc, 6, 7, LOW_FREQ, "[OTHER]", category="OTHER", method="MASK")
        return doc

    nlp = spacy.blank("en")
    nlp.add_pipe("test_phi_and_rare")
    nlp.add_pipe("mlm_resampler", config={"model": str(mlm_dir), "max_mask_fraction": 0.0,
                                          "keep_upstream_categories": ["NAME", "DATE"]})
    nlp.initialize()
    doc = nlp("Seen by Zyxwell Qorbin today with zorbitol for the usual review of the chart")
    assert {e.start for e in get_edits(doc) if e.label_ == MLM} == {6}
    assert "Anna Berg" in doc._.deid_text and "[OTHER]" not in doc._.deid_text
    assert "Zyxwell" not in doc._.deid_text and "zorbitol" not in doc._.deid_text
    mlm = [e for e in get_edits(doc) if e.label_ == MLM]
    assert mlm[0]._.deid_method == "RESAMPLE"


def test_upstream_edits_and_entities_are_resampled(mlm_dir):
    @Language.component("test_mark_upstream")
    def mark(doc):
        add_edit(doc, 1, 3, LOW_FREQ, "[LOW_FREQ]")
        doc.ents = [Span(doc, 5, 6, label="PATIENT")]
        return doc

    nlp = spacy.blank("en")
    nlp.add_pipe("test_mark_upstream")
    nlp.add_pipe("mlm_resampler", config={"model": str(mlm_dir), "max_mask_fraction": 0.0})
    nlp.initialize()
    doc = nlp("Seen by Zyxwell Qorbin today with Smith for the usual review of the chart")
    mlm = {e.start for e in get_edits(doc) if e.label_ == MLM}
    assert mlm == {1, 2, 5}  # nothing else: the cap is 0, forced tokens only
    assert "[LOW_FREQ]" not in doc._.deid_text and "Zyxwell" not in doc._.deid_text
    nlp.get_pipe("mlm_resampler").resample_upstream = False
    nlp.get_pipe("mlm_resampler").resample_ents = False
    doc = nlp("Seen by Zyxwell Qorbin today with Smith for the usual review of the chart")
    assert not [e for e in get_edits(doc) if e.label_ == MLM]


def rig(nlp, word):
    """Make ``word`` the model's favourite at every position (huge output bias)."""
    sampler = nlp.get_pipe("mlm_resampler").sampler
    wid = sampler.tokenizer.convert_tokens_to_ids(word)
    assert sampler.vocab[wid] == word
    with sampler.torch.no_grad():
        sampler.model.get_output_embeddings().bias[wid] += 1000.0
    return wid


def test_privacy_filter_with_rigged_model(mlm_dir, texts):
    word = "patient"
    nlp = make_nlp(mlm_dir, n_candidates=4)
    rig(nlp, word)
    docs = list(nlp.pipe(texts[:3]))
    from spacy_deid.components.mlm_resampler import faithful

    stops = nlp.get_pipe("mlm_resampler").stop_words
    firsts = [
        e._.deid_replacement.casefold()
        for d in docs
        for e in get_edits(d)
        if e.text.casefold() != word and faithful(e.text, word, stops)
    ]
    assert firsts and sum(f == word for f in firsts) / len(firsts) > 0.9  # the rig works

    class Frequency:
        """An upstream frequency_masker stand-in: the rigged word is below k."""

        def __init__(self):
            self.asked = 0

        def __call__(self, doc):
            return doc

        def is_allowed(self, w):
            self.asked += 1
            return w.casefold() != word

    freq = Frequency()

    @Language.factory("test_below_k")
    def make_below_k(nlp, name):
        return freq

    nlp2 = spacy.blank("en")
    nlp2.add_pipe("test_below_k")
    nlp2.add_pipe("mlm_resampler", config={"model": str(mlm_dir), "n_candidates": 4})
    nlp2.initialize()
    rig(nlp2, word)
    docs = list(nlp2.pipe(texts[:3]))
    assert freq.asked > 0
    emitted = [c.casefold() for d in docs for e in get_edits(d) for c in e._.deid_audit["candidates"]]
    assert emitted and word not in emitted


def test_phi_entity_text_is_never_sampled(mlm_dir):
    word = "patient"

    @Language.component("test_phi_clinic")
    def phi(doc):
        doc.ents = [Span(doc, i, i + 1, label="HOSPITAL") for i, t in enumerate(doc) if t.lower_ == word]
        return doc

    nlp = spacy.blank("en")
    nlp.add_pipe("test_phi_clinic")
    nlp.add_pipe("mlm_resampler", config={"model": str(mlm_dir)})
    nlp.initialize()
    rig(nlp, word)
    doc = nlp("She was seen at the Patient ward today and the plan was reviewed with the family again")
    cands = [c.casefold() for e in get_edits(doc) for c in e._.deid_audit["candidates"]]
    assert cands and word not in cands


def test_weights_mask_widely_spread_words_first():
    """Half the tokens at weight 1, half at 0.05, cap 25%: the masks fall on the
    weighted-up half (about half would without weights)."""
    n = 400
    heavy = [i % 2 == 0 for i in range(n)]
    weights = [1.0 if h else 0.05 for h in heavy]
    share = []
    for seed in range(5):
        rng = numpy.random.default_rng(seed)
        masked = datasifter_mask(
            flags(n, range(n)), flags(n), flags(n), flags(n), rng, weights=weights, max_mask_fraction=0.25
        )
        assert sum(masked) == 100
        share.append(sum(m and h for m, h in zip(masked, heavy)) / sum(masked))
        unweighted = datasifter_mask(
            flags(n, range(n)), flags(n), flags(n), flags(n), numpy.random.default_rng(seed), max_mask_fraction=0.25
        )
        assert sum(m and h for m, h in zip(unweighted, heavy)) / sum(unweighted) < 0.65
    assert min(share) > 0.85
    # a low weight delays a word, never excludes it: past the heavy half the cap is still reached
    masked = datasifter_mask(flags(n, range(n)), flags(n), flags(n), flags(n), numpy.random.default_rng(0), weights=weights, max_mask_fraction=0.75)
    assert sum(masked) == 300


def test_spread_weights_lookup():
    hashes = numpy.array([10, 20, 30], dtype=numpy.uint64)
    shares = numpy.array([0.5, 0.02, 0.1], dtype=numpy.float32)
    lower = numpy.array([20, 10, 99, 30, 5], dtype=numpy.uint64)
    w = spread_weights(lower, hashes, shares, spread_ref=0.1, spread_min=0.05)
    assert w.tolist() == pytest.approx([0.2, 1.0, 0.05, 1.0, 0.05])
    assert spread_weights(lower, hashes[:0], shares[:0], 0.1, 0.05).tolist() == [0.05] * 5


def spread_of(comp, word):
    from spacy.strings import hash_string

    h = numpy.uint64(hash_string(word))
    hit = comp.spread_hashes == h
    return float(comp.spread_shares[hit][0]) if hit.any() else None


def test_spread_is_learned_from_the_corpus_without_identifiers(tmp_path, mlm_dir, small_records):
    """initialize counts each word's share of the patients; a word of a gold PHI span,
    a word the upstream detectors flag and a word of too few patients are not stored,
    and the table survives to_disk / to_bytes."""
    records = [dict(r) for r in small_records[:60]]
    # a clinician "Wellington" (a public word) in many notes, flagged only by a pattern
    for r in records[:30]:
        r["text"] += " Seen by Dr. Wellington today."
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("span_ruler", name="phi_ruler", config={"spans_key": "phi_patterns"})
    ruler.add_patterns([{"label": "DOCTOR", "pattern": [{"LOWER": "dr."}, {"IS_TITLE": True}]}])
    nlp.add_pipe("mlm_resampler", config={"model": str(mlm_dir), "spread_ref": 0.1, "spread_min_count": 3})
    patients = {r.get("patient_id", r["id"]) for r in records}
    with_patient = {r.get("patient_id", r["id"]) for r in records if " the " in f" {r['text'].lower()} "}
    nlp.get_pipe("mlm_resampler").initialize(nlp=nlp, corpus=lambda: iter(records))
    comp = nlp.get_pipe("mlm_resampler")
    assert spread_of(comp, "the") == pytest.approx(len(with_patient) / len(patients), abs=1e-6)
    assert spread_of(comp, "wellington") is None  # flagged by a detector
    gold = {r["text"][s["start"] : s["end"]].lower() for r in records for s in r.get("spans") or []}
    assert not any(spread_of(comp, w) is not None for w in gold if w.isalpha())
    n = len(comp.spread_hashes)
    assert n > 50
    assert not any(h in set(nlp.vocab.strings) for h in ["wellington"])
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert loaded.get_pipe("mlm_resampler").spread_hashes.tolist() == comp.spread_hashes.tolist()
    other = spacy.blank("en").add_pipe("mlm_resampler", config={"spread_ref": 0.1})
    other.from_bytes(comp.to_bytes())
    assert other.spread_shares.tolist() == comp.spread_shares.tolist()


def test_spread_needs_a_corpus(mlm_dir):
    nlp = spacy.blank("en")
    nlp.add_pipe("mlm_resampler", config={"model": str(mlm_dir), "spread_ref": 0.1})
    with pytest.raises(ValueError, match="corpus"):
        nlp.initialize()
    with pytest.raises(ValueError, match="spread_ref"):
        spacy.blank("en").add_pipe("mlm_resampler", config={"spread_ref": 2.0})


def test_frequency_masker_blacklist_is_respected(mlm_dir, small_records):
    """The real frequency_masker upstream: a blacklisted, frequent word is rigged to
    be the model's favourite and is still never emitted."""
    pytest.importorskip("spacy_deid.components.frequency_masker")
    word = "patient"
    nlp = spacy.blank("en")
    nlp.add_pipe("frequency_masker", config={"k": 2})
    nlp.add_pipe("mlm_resampler", config={"model": str(mlm_dir)})
    records = small_records[:40]
    nlp.get_pipe("frequency_masker").initialize(nlp=nlp, corpus=lambda: iter(records), blacklist=[word])
    nlp.get_pipe("mlm_resampler").initialize(nlp=nlp)
    rig(nlp, word)
    docs = list(nlp.pipe(r["text"] for r in records[:3]))
    cands = [c.casefold() for d in docs for e in get_edits(d) if e.label_ == MLM for c in e._.deid_audit["candidates"]]
    assert cands and word not in cands


def test_determinism_by_seed(mlm_dir, texts):
    a = [edits_of(d) for d in make_nlp(mlm_dir, seed=3).pipe(texts[:4])]
    b = [edits_of(d) for d in make_nlp(mlm_dir, seed=3).pipe(texts[:4])]
    c = [edits_of(d) for d in make_nlp(mlm_dir, seed=4).pipe(texts[:4])]
    assert a == b and a != c
    nlp = make_nlp(mlm_dir, seed=3)
    one_by_one = [edits_of(nlp(t)) for t in texts[:4]]
    assert [[e[:2] for e in d] for d in one_by_one] == [[e[:2] for e in d] for d in a]  # same masks
    same = sum(x == y for d1, d2 in zip(one_by_one, a) for x, y in zip(d1, d2))
    assert same / sum(len(d) for d in a) > 0.95  # same samples (floating point of batching aside)


def test_serialization_round_trip_carries_the_model(tmp_path, mlm_dir, texts):
    model_copy = tmp_path / "model_src"
    shutil.copytree(mlm_dir, model_copy)
    nlp = make_nlp(model_copy, seed=5)
    expected = [edits_of(nlp(t)) for t in texts[:2]]
    nlp.to_disk(tmp_path / "pipe")
    shutil.rmtree(model_copy)  # the saved pipeline must not need it
    model_dir = tmp_path / "pipe" / "mlm_resampler" / "model"
    names = {p.name for p in model_dir.iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json", "vocab.txt"} <= names
    assert not any(p.is_dir() for p in model_dir.iterdir())  # no checkpoints
    loaded = spacy.load(tmp_path / "pipe")
    comp = loaded.get_pipe("mlm_resampler")
    assert comp._sampler is None  # lazy
    assert [edits_of(loaded(t)) for t in texts[:2]] == expected
    # saving a loaded (lazy) pipeline again, and bytes
    loaded.to_disk(tmp_path / "pipe2")
    assert (tmp_path / "pipe2" / "mlm_resampler" / "model" / "model.safetensors").exists()
    data = nlp.get_pipe("mlm_resampler").to_bytes()
    other = spacy.blank("en").add_pipe("mlm_resampler", config={"seed": 5})
    other.from_bytes(data)
    assert [edits_of(other(spacy.blank("en")(t))) for t in texts[:2]] == expected


def test_missing_model_is_a_clear_error(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("mlm_resampler")
    with pytest.raises(ValueError, match="has no model"):
        nlp.initialize()
    nlp = spacy.blank("en")
    nlp.add_pipe("mlm_resampler", config={"model": str(tmp_path / "nope")})
    with pytest.raises(ValueError, match="not found"):
        nlp.initialize()


def test_nothing_eligible_adds_nothing(mlm_dir):
    nlp = make_nlp(mlm_dir)
    doc = nlp("and the of , . to it")
    assert get_edits(doc) == []
    doc = nlp("")
    assert get_edits(doc) == []


def test_config_file_loads(mlm_dir):
    from spacy_deid.engines.fit import load_config

    root = Path(__file__).resolve().parents[1]
    config = load_config(root / "spacy_deid" / "configs" / "mlm.cfg", overrides={"components.mlm_resampler.model": str(mlm_dir)})
    nlp = spacy.util.load_model_from_config(config, auto_fill=True)
    assert "mlm_resampler" in nlp.pipe_names
    assert nlp.get_pipe("mlm_resampler").model_path == str(mlm_dir)


@pytest.mark.gpu
def test_gpu_matches_cpu_masks(mlm_dir, texts):
    spacy.require_gpu(0)
    try:
        gpu = make_nlp(mlm_dir, seed=2)
        assert str(gpu.get_pipe("mlm_resampler").sampler.device).startswith("cuda")
        g = [edits_of(d) for d in gpu.pipe(texts[:3])]
    finally:
        from thinc.api import NumpyOps, set_current_ops

        set_current_ops(NumpyOps())
    c = [edits_of(d) for d in make_nlp(mlm_dir, seed=2, device="cpu").pipe(texts[:3])]
    assert [[e[:2] for e in d] for d in g] == [[e[:2] for e in d] for d in c]


def test_term_list_files(mlm_dir, tmp_path):
    from spacy_deid.components.mlm_resampler import doc_rngs, read_terms

    shipped = read_terms("mlm_focus_terms.txt")
    assert "wife" in shipped and not any(t.startswith("#") for t in shipped)
    assert "history" in read_terms("mlm_protected_terms.txt") and read_terms(None) == []
    focus = tmp_path / "focus.txt"
    focus.write_text("# comment\nfever\ndry cough  # trailing comment\n")
    assert read_terms(str(focus)) == ["fever", "dry cough"]
    text = "Fever and dry cough noted with fatigue, nausea, headache, rash, fever and mild chest pain"
    nlp = make_nlp(mlm_dir, focus_terms_file=str(focus), protected_terms_file="mlm_protected_terms.txt",
                   max_mask_fraction=0.3, p_w=0.0)  # p_w = 0: a focus term is masked at once
    comp = nlp.get_pipe("mlm_resampler")
    doc = nlp.make_doc(text + ". History: plan reviewed.")
    masked, _ = comp.plan(doc, doc_rngs(0, doc)[0])
    words = [t.lower_ for t, m in zip(doc, masked) if m]
    assert {"fever", "dry", "cough"} <= set(words)  # the focus terms take the cap first
    assert not {"history", "plan", "chest"} & set(words)  # protected terms
    with pytest.raises(FileNotFoundError):
        make_nlp(mlm_dir, focus_terms_file=str(tmp_path / "none.txt"))


def test_term_lists_inside_memory_zones(mlm_dir, texts):
    """The term lists are hashes: built inside one memory zone and matched in the
    next (as sanitize processes documents), they need no string of a zone."""
    from spacy_deid.components.mlm_resampler import doc_rngs

    nlp = make_nlp(mlm_dir, protected_terms_file="mlm_protected_terms.txt", focus_terms=["blood pressure"])
    comp = nlp.get_pipe("mlm_resampler")
    for text in (texts[0], "Blood pressure stable. History reviewed, plan unchanged for the patient today."):
        with nlp.memory_zone():
            doc = nlp(text)
            assert get_edits(doc)
            masked, _ = comp.plan(doc, doc_rngs(0, doc)[0])
            assert not any(m and t.lower_ in ("history", "plan", "patient") for t, m in zip(doc, masked))


def test_weights_are_raised_only_when_the_heavy_words_are_spent():
    """Cap 45% with half the tokens at full weight: "exhausted" keeps the light
    half at its low weight while heavy tokens are left, so fewer light tokens are
    masked than when the weights double after every pass; both reach the cap."""
    n = 400
    heavy = [i % 2 == 0 for i in range(n)]
    weights = [1.0 if h else 0.05 for h in heavy]
    light = {"exhausted": [], "every_pass": []}
    for seed in range(5):
        for mode in light:
            masked = datasifter_mask(
                flags(n, range(n)), flags(n), flags(n), flags(n), numpy.random.default_rng(seed),
                weights=weights, max_mask_fraction=0.45, raise_weights=mode,
            )
            assert sum(masked) == 180
            light[mode].append(sum(m and not h for m, h in zip(masked, heavy)))
    assert sum(light["exhausted"]) < 0.6 * sum(light["every_pass"])
    with pytest.raises(ValueError, match="raise_weights"):
        datasifter_mask(flags(4, range(4)), flags(4), flags(4), flags(4), numpy.random.default_rng(0), raise_weights="sometimes")
