"""doc_swapper: fit, partner choice, replacement methods, order, serialisation."""
import json
import random
from pathlib import Path

import numpy as np
import pytest
import spacy
from spacy.language import Language

import spacy_deid  # noqa: F401
from spacy_deid.edits import SWAP, add_edit, get_edits, render
from spacy_deid.policies.keyphrases import rake_keyphrases, textrank_keyphrases
from spacy_deid.io.readers import records_reader_v1
from spacy_deid.components.doc_swapper import DocSwapper, rendered_to_original, stable_key
from spacy_deid.util import make_doc

TOPICS = {
    "Cardiology": [
        "chest pain", "coronary artery disease", "atrial fibrillation", "cardiac catheterization",
        "ejection fraction", "mitral valve regurgitation", "elevated troponin", "anterior wall ischemia",
    ],
    "Orthopedics": [
        "knee replacement", "rotator cuff tear", "lumbar spine stenosis", "fracture fixation",
        "limited motion", "physical therapy", "ankle sprain", "hip arthroplasty",
    ],
    "Dermatology": [
        "skin lesion", "basal cell carcinoma", "contact dermatitis", "topical steroid cream",
        "itchy rash", "biopsy specimen", "melanoma screening", "psoriasis plaques",
    ],
}
TEMPLATES = [
    "The patient reports {0}. History of {1}. Examination reveals {2} with {3}. Plan: {4}.",
    "Seen today for {0} and {1}. Known {2}. Findings: {3}. Follow up regarding {4}.",
]
RARE = "Quixotlbr"  # one unique, letters-only surname per document: must never be saved


def make_records(n_per_topic=20, seed=0, labels=True):
    rng = random.Random(seed)
    records = []
    for topic, phrases in TOPICS.items():
        for _ in range(n_per_topic):
            i = len(records)
            text = rng.choice(TEMPLATES).format(*rng.sample(phrases, 5))
            text += f" Seen by Dr {RARE}{chr(97 + i % 26)}{chr(97 + i // 26)}."
            rec = {"id": f"note-{i}", "patient_id": f"p{i // 2}", "text": text}
            if labels:
                rec["label"] = topic
            records.append(rec)
    rng.shuffle(records)
    return records


def write_jsonl(path: Path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf8")
    return path


SMALL = {
    "n_clusters": 3,
    "min_df": 2,
    "pool_size": 1000,
    "max_buffer": 5000,
    "fit_batch_size": 16,
    "init_sample": 40,
    "seed": 0,
}


def build(corpus_path, records_limit=0, upstream=None, **config):
    nlp = spacy.blank("en")
    if upstream:
        nlp.add_pipe(upstream)
    swapper = nlp.add_pipe("doc_swapper", config={**SMALL, **config})
    swapper.initialize(lambda: [], nlp=nlp, corpus=records_reader_v1(corpus_path, limit=records_limit))
    return nlp, swapper


@pytest.fixture(scope="module")
def records():
    return make_records()


@pytest.fixture(scope="module")
def corpus_path(tmp_path_factory, records):
    return write_jsonl(tmp_path_factory.mktemp("swap") / "corpus.jsonl", records)


@pytest.fixture(scope="module")
def fitted(corpus_path):
    return build(corpus_path)


def run(nlp, records, batch_size=8):
    return list(nlp.pipe((make_doc(nlp, r) for r in records), batch_size=batch_size))


def swaps(doc):
    return [e for e in get_edits(doc) if e.label_ == SWAP]


# ------------------------------------------------------------------ fit


def test_fit_state_clusters_follow_topics(fitted, records):
    nlp, swapper = fitted
    assert swapper.cfg["fitted"] and swapper.cfg["n_docs"] == len(records) and swapper.cfg["k_rule"] == "config"
    assert swapper.centers.shape == (3, swapper.kept.size)
    clusters = swapper.predict([r["text"] for r in records])
    by_topic = {}
    for rec, c in zip(records, clusters):
        by_topic.setdefault(rec["label"], set()).add(int(c))
    assert all(len(cs) == 1 for cs in by_topic.values())  # each topic is one cluster
    assert len(set().union(*by_topic.values())) == 3


def test_idf_is_tfidf_transformers_and_assign_is_nearest_centroid(fitted, records):
    from sklearn.feature_extraction.text import TfidfTransformer
    from sklearn.metrics import pairwise_distances_argmin

    _, swapper = fitted
    counts = swapper._hasher().transform([r["text"] for r in records])
    expected = TfidfTransformer().fit(counts).idf_[swapper.kept]
    np.testing.assert_allclose(swapper.idf, expected, rtol=1e-6)
    df = np.bincount(counts.tocsr().indices, minlength=counts.shape[1])
    assert set(swapper.kept.tolist()) == set(np.flatnonzero(df >= 2).tolist())  # min_df cut
    rows = swapper.transform([r["text"] for r in records])
    np.testing.assert_array_equal(swapper.assign(rows), pairwise_distances_argmin(rows, swapper.centers))


def test_k_rule_labels_and_silhouette(tmp_path):
    path = write_jsonl(tmp_path / "l.jsonl", make_records(12))
    _, swapper = build(path, n_clusters=None)
    assert (swapper.cfg["n_clusters"], swapper.cfg["k_rule"]) == (3, "labels")
    path = write_jsonl(tmp_path / "u.jsonl", make_records(12, labels=False))
    _, swapper = build(path, n_clusters=None, k_candidates=[2, 3, 4, 6])
    assert swapper.cfg["k_rule"] == "silhouette" and swapper.cfg["n_clusters"] in (2, 3, 4, 6)


def test_k_larger_than_corpus_is_a_clear_error(tmp_path):
    path = write_jsonl(tmp_path / "c.jsonl", make_records(2))
    with pytest.raises(ValueError, match=r"n_clusters = 10 is larger than the number of documents in the corpus \(6\)"):
        build(path, n_clusters=10)


def test_empty_corpus_and_missing_corpus_are_clear_errors(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("", encoding="utf8")
    with pytest.raises(ValueError, match="corpus is empty"):
        build(path)
    nlp = spacy.blank("en")
    swapper = nlp.add_pipe("doc_swapper")
    with pytest.raises(ValueError, match="initialize needs a corpus"):
        swapper.initialize(lambda: [], nlp=nlp)
    with pytest.raises(ValueError, match="not initialized"):
        run(nlp, make_records(1))


def test_min_df_too_high_is_a_clear_error(tmp_path):
    path = write_jsonl(tmp_path / "c.jsonl", make_records(2))
    with pytest.raises(ValueError, match="lower min_df"):
        build(path, min_df=100)


@pytest.mark.parametrize(
    "config",
    [{"method": "shuffle"}, {"method": "rake_index", "q": 3}, {"q": 0}, {"closest_fraction": 0},
     {"pool_size": 10, "max_buffer": 5}, {"n_clusters": 0}],
)
def test_bad_config_values(config):
    nlp = spacy.blank("en")
    with pytest.raises(ValueError):
        nlp.add_pipe("doc_swapper", config=config)


# ------------------------------------------------------------------ partner choice


def test_choose_partner_never_self_and_in_the_closest_fraction():
    swapper = DocSwapper(spacy.blank("en").vocab, sample_size=1000, closest_fraction=0.1)
    sim = np.random.default_rng(0).random(51)
    sim[7] = 1.0  # itself
    close = set(np.argsort(-np.delete(sim, 7))[:5].tolist())  # 10 % of 50 others
    close = {i + (i >= 7) for i in close}  # back to pool positions
    chosen = {swapper.choose_partner(7, sim, np.random.default_rng([0, s])) for s in range(300)}
    assert 7 not in chosen and chosen == close  # all of the closest 10 %, nothing else


def test_choose_partner_samples_at_most_sample_size():
    swapper = DocSwapper(spacy.blank("en").vocab, sample_size=20, closest_fraction=0.1)
    sim = np.linspace(0, 1, 500)  # the higher the index, the closer
    for s in range(50):
        rng = np.random.default_rng([1, s])
        sampled = np.sort(np.random.default_rng([1, s]).choice(np.delete(np.arange(500), 0), 20, replace=False))
        partner = swapper.choose_partner(0, sim, rng)
        assert partner in sampled[-2:]  # the closest 2 (10 %) of the 20 sampled


def test_one_document_has_no_partner():
    swapper = DocSwapper(spacy.blank("en").vocab)
    with pytest.raises(ValueError, match="no partner"):
        swapper.choose_partner(0, np.ones(1), np.random.default_rng(0))


def test_partners_are_in_the_same_cluster_and_audited(fitted, records):
    nlp, swapper = fitted
    cluster_of = dict(zip((r["id"] for r in records), swapper.predict([r["text"] for r in records])))
    docs = run(nlp, records)
    n_swapped = 0
    for doc in docs:
        edits = swaps(doc)
        n_swapped += bool(edits)
        for edit in edits:
            partner = edit._.deid_audit["partner"]
            assert partner != doc._.deid_record["id"]
            assert cluster_of[partner] == cluster_of[doc._.deid_record["id"]]
            assert set(edit._.deid_audit) == {"partner", "method", "rank"}
    assert n_swapped >= 0.9 * len(docs)


# ------------------------------------------------------------------ methods


@pytest.mark.parametrize("method,policy", [("rake_keyphrase", rake_keyphrases), ("textrank", textrank_keyphrases)])
def test_keyphrase_methods_swap_the_top_q_phrases(corpus_path, records, method, policy):
    nlp, swapper = build(corpus_path, method=method, q=2)
    originals = {r["id"]: nlp.make_doc(r["text"]) for r in records}
    for doc in run(nlp, records):
        edits = swaps(doc)
        if not edits:
            continue
        partner = originals[edits[0]._.deid_audit["partner"]]
        mine = policy(originals[doc._.deid_record["id"]])[:2]
        theirs = policy(partner)[:2]
        for edit in edits:
            rank = edit._.deid_audit["rank"]
            assert edit._.deid_audit["method"] == method
            assert edit._.deid_replacement == theirs[rank - 1].text
            assert edit.text.lower().split() == list(mine[rank - 1].key)
        # every occurrence of a swapped phrase is replaced
        for rank, phrase in enumerate(mine, 1):
            if phrase.text != theirs[rank - 1].text:
                assert sorted((e.start, e.end) for e in edits if e._.deid_audit["rank"] == rank) == [
                    (s.start, s.end) for s in phrase.spans
                ]
        text = doc._.deid_text
        for rank, phrase in enumerate(theirs, 1):
            assert phrase.text in text


def test_rake_index_replaces_the_tail(corpus_path, records):
    nlp, _ = build(corpus_path, method="rake_index", q=1)
    originals = {r["id"]: r["text"] for r in records}
    n = 0
    for doc in run(nlp, records):
        edits = swaps(doc)
        if not edits:
            continue
        n += 1
        (edit,) = edits
        partner_text = originals[edit._.deid_audit["partner"]]
        partner_top = rake_keyphrases(nlp.make_doc(partner_text))[0].first
        assert edit.end == len(doc)
        assert edit.start == rake_keyphrases(doc)[0].first.start
        assert edit._.deid_replacement == partner_text[partner_top.start_char :]
        assert doc._.deid_text == doc.text[: doc[edit.start].idx] + partner_text[partner_top.start_char :]
    assert n >= 0.9 * len(records)


def test_none_method_needs_no_fit_and_changes_nothing(records):
    nlp = spacy.blank("en")
    swapper = nlp.add_pipe("doc_swapper", config={"method": "none", "q": 0})
    swapper.initialize(lambda: [], nlp=nlp)  # no corpus needed
    docs = run(nlp, records)
    assert all(not get_edits(d) for d in docs)
    assert [d._.deid_record["id"] for d in docs] == [r["id"] for r in records]


def test_doc_without_keyphrase_is_not_swapped(fitted, records):
    nlp, _ = fitted
    empty = {"id": "empty-1", "text": "It is 12 and 14, or 7.", "label": "Cardiology"}
    docs = run(nlp, records[:10] + [empty] + records[10:20])
    assert docs[10]._.deid_record["id"] == "empty-1" and not swaps(docs[10])
    for doc in docs:  # and nobody got it as a partner with something to swap
        assert all(e._.deid_audit["partner"] != "empty-1" for e in swaps(doc))


def test_single_doc_call_and_one_document_pool_do_not_swap(fitted, records):
    nlp, swapper = fitted
    doc = nlp(records[0]["text"])
    assert not get_edits(doc)
    (alone,) = swapper.swap_docs([make_doc(nlp, records[0])])
    assert not get_edits(alone)
    # a cluster with a single document in the stream: that document stays as it is
    cluster_of = swapper.predict([r["text"] for r in records])
    first = [r for r, c in zip(records, cluster_of) if c == 0][:1]
    others = [r for r, c in zip(records, cluster_of) if c != 0]
    docs = run(nlp, first + others)
    assert not get_edits(docs[0]) and any(swaps(d) for d in docs[1:])


def test_swap_docs_uses_the_list_as_pool(fitted, records):
    nlp, swapper = fitted
    docs = swapper.swap_docs([make_doc(nlp, r) for r in records[:30]])
    ids = {r["id"] for r in records[:30]}
    partners = {e._.deid_audit["partner"] for d in docs for e in swaps(d)}
    assert partners and partners <= ids


# ------------------------------------------------------------------ upstream edits


@Language.component("test_mask_therapy", assigns=["doc._.deid_text"])
def _mask_therapy(doc):
    """An upstream stand-in: replaces 'physical' and the rare surname by placeholders."""
    for tok in doc:
        if tok.lower_ == "physical":
            add_edit(doc, tok.i, tok.i + 1, "LOW_FREQ", "[MASKED]")
        elif tok.text.startswith("Quixotl"):
            add_edit(doc, tok.i, tok.i + 1, "PHI", "[NAME]")
    return doc


def test_runs_on_rendered_text_and_moves_only_sanitised_text(tmp_path):
    records = make_records(20, seed=4)
    path = write_jsonl(tmp_path / "c.jsonl", records)
    nlp, swapper = build(path, upstream="test_mask_therapy", q=8)
    docs = run(nlp, records)
    seen_segment_swap = False
    for doc in docs:
        for edit in swaps(doc):
            assert "physical" not in edit._.deid_replacement.lower()
            assert RARE not in edit._.deid_replacement
            if any(t.lower_ == "physical" for t in edit):
                seen_segment_swap = True  # the phrase "[MASKED] therapy" covered the upstream segment
        assert "physical" not in doc._.deid_text.lower() and RARE not in doc._.deid_text
    assert seen_segment_swap


def test_fit_through_upstream_leaves_no_corpus_strings_in_the_vocab(tmp_path):
    records = make_records(6, seed=5)
    path = write_jsonl(tmp_path / "c.jsonl", records)
    nlp, swapper = build(path, upstream="test_mask_therapy")
    assert swapper.is_fitted
    names = [r["text"].split()[-1].rstrip(".") for r in records]
    assert not any(name in nlp.vocab.strings for name in names)
    assert "troponin" not in nlp.vocab.strings


def test_rendered_to_original_maps_through_segments():
    nlp = spacy.blank("en")
    doc = nlp.make_doc("John Smith has chest pain today")
    add_edit(doc, 0, 2, "PHI", "[NAME]")
    add_edit(doc, 5, 6, "LOW_FREQ", "")
    rendering = render(doc)
    text = rendering.text
    assert text == "[NAME] has chest pain "
    find = lambda s: (text.index(s), text.index(s) + len(s))  # noqa: E731
    assert rendered_to_original(doc, rendering, *find("chest pain")) == (3, 5)
    assert rendered_to_original(doc, rendering, *find("[NAME]")) == (0, 2)
    assert rendered_to_original(doc, rendering, *find("NAME] has")) == (0, 3)
    assert rendered_to_original(doc, rendering, *find("has")) == (2, 3)
    assert rendered_to_original(doc, rendering, *find("pain")) == (4, 5)


# ------------------------------------------------------------------ streaming


@pytest.mark.parametrize("pool_size,max_buffer,batch_size", [(1000, 5000, 8), (4, 4, 3), (3, 7, 5), (2, 2, 64)])
def test_order_is_preserved_and_buffer_is_bounded(corpus_path, records, pool_size, max_buffer, batch_size):
    nlp, swapper = build(corpus_path, pool_size=pool_size, max_buffer=max_buffer)
    pool_sizes = []
    original = swapper._process_pool

    def spy(pool, handler):
        pool_sizes.append(len(pool))
        return original(pool, handler)

    swapper._process_pool = spy
    docs = run(nlp, records, batch_size=batch_size)
    assert [d._.deid_record["id"] for d in docs] == [r["id"] for r in records]
    assert max(pool_sizes) <= pool_size and sum(pool_sizes) == len(records)
    assert sum(bool(swaps(d)) for d in docs) >= 0.5 * len(docs)
    for doc in docs:  # labels and patient ids stay with their documents (L* = L)
        rec = next(r for r in records if r["id"] == doc._.deid_record["id"])
        assert (doc._.deid_record["label"], doc._.deid_record["patient_id"]) == (rec["label"], rec["patient_id"])


def test_bounded_window_keeps_partners_near(corpus_path, records):
    nlp, _ = build(corpus_path, pool_size=4, max_buffer=6)
    position = {r["id"]: i for i, r in enumerate(records)}
    for doc in run(nlp, records):
        for edit in swaps(doc):
            gap = abs(position[edit._.deid_audit["partner"]] - position[doc._.deid_record["id"]])
            assert gap <= 6  # partners come from the reorder window


def test_a_failing_document_is_isolated(corpus_path, records):
    def policy(doc):
        if "Quixotlbrcb" in doc.text:  # one specific document
            raise RuntimeError("boom")
        return rake_keyphrases(doc)

    nlp, swapper = build(corpus_path)
    swapper.rake = policy
    failures = []
    swapper.set_error_handler(lambda name, proc, docs, e: failures.extend(d._.deid_record["id"] for d in docs))
    docs = run(nlp, records)
    bad = [r["id"] for r in records if "Quixotlbrcb" in r["text"]]
    assert failures == bad
    assert [d._.deid_record["id"] for d in docs] == [r["id"] for r in records if r["id"] not in bad]


# ------------------------------------------------------------------ determinism and serialisation


def edit_log(docs):
    return [
        (d._.deid_record["id"], e.start, e.end, e._.deid_replacement, e._.deid_audit["partner"])
        for d in docs
        for e in swaps(d)
    ]


def test_deterministic_for_a_seed(corpus_path, records):
    nlp_a, swapper_a = build(corpus_path)
    nlp_b, swapper_b = build(corpus_path)
    assert swapper_a.to_bytes() == swapper_b.to_bytes()
    assert edit_log(run(nlp_a, records)) == edit_log(run(nlp_b, records, batch_size=5))
    nlp_c, _ = build(corpus_path, seed=1)
    assert edit_log(run(nlp_c, records)) != edit_log(run(nlp_a, records))


def test_stable_key_does_not_depend_on_the_process():
    import os
    import subprocess
    import sys

    code = "from spacy_deid.components.doc_swapper import stable_key; print(stable_key('id:note-1'))"
    env = dict(os.environ, PYTHONHASHSEED="12345")  # str hash() would change with it
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert out == f"{stable_key('id:note-1')}\n"


def test_bytes_and_disk_round_trip(fitted, records, tmp_path):
    nlp, swapper = fitted
    data = swapper.to_bytes()
    nlp2 = spacy.blank("en")
    loaded = nlp2.add_pipe("doc_swapper", config=SMALL).from_bytes(data)
    np.testing.assert_array_equal(loaded.centers, swapper.centers)
    assert edit_log(run(nlp2, records)) == edit_log(run(nlp, records))
    nlp.to_disk(tmp_path / "p")
    nlp3 = spacy.load(tmp_path / "p")
    assert edit_log(run(nlp3, records)) == edit_log(run(nlp, records))


def test_saved_state_holds_no_vocabulary_or_text(corpus_path, records, tmp_path):
    from spacy_deid.engines.fit import init_pipeline

    config = Path(__file__).parent.parent / "spacy_deid" / "configs" / "swap.cfg"
    overrides = {f"components.doc_swapper.{k}": v for k, v in SMALL.items()}
    nlp = init_pipeline(config, corpus_path, tmp_path / "out", overrides=overrides)
    swapper = nlp.get_pipe("doc_swapper")
    assert swapper.is_fitted
    # what a blank English pipeline saves anyway (tokenizer exceptions, config keys)
    spacy.blank("en").to_disk(tmp_path / "blank")
    baseline = b"".join(p.read_bytes() for p in (tmp_path / "blank").rglob("*") if p.is_file()).lower()
    baseline += config.read_bytes().lower()  # our config's own keys ("closest_fraction")
    blobs = [swapper.to_bytes()] + [p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file()]
    words = {w.strip(".:,").lower() for r in records for w in r["text"].split()}
    words = {w for w in words if len(w) > 2 and w.encode() not in baseline}
    assert sum(w.startswith(RARE.lower()) for w in words) == len(records) and "troponin" in words
    for blob in blobs:
        low = blob.lower()
        assert [w for w in words if w.encode() in low] == []
    # rare words are not even stored as hashed features (cut before saving)
    rare = swapper._hasher().transform([r["text"].split()[-1] for r in records]).indices
    assert rare.size == len(records) and not set(rare.tolist()) & set(swapper.kept.tolist())


def test_sanitize_file_through_the_swapper(fitted, records, tmp_path):
    from spacy_deid.engines.local import sanitize_file

    nlp, _ = fitted
    bad = {"id": "bad-1", "text": 5}
    lines = records[:20] + [bad] + records[20:]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf8")
    stats = sanitize_file(nlp, src, tmp_path / "out.jsonl", batch_size=7, show_progress=False)
    out = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text(encoding="utf8").splitlines()]
    assert [o["id"] for o in out] == [r["id"] for r in lines]  # one output per line, in order
    assert out[20]["status"] == "error" and stats.n_ok == len(records)
    assert sum(any(e["reason"] == SWAP for e in o["edits"]) for o in out if o["status"] == "ok") >= 0.9 * len(records)
    assert all(o["label"] == r["label"] for o, r in zip(out, lines) if o["status"] == "ok")
