"""similarity_filter: the cosine filter policy, neighbour search, surrogates, the component."""
import warnings

import numpy
import pytest
import spacy
from spacy.strings import StringStore
from spacy.vectors import Vectors

import spacy_deid  # noqa: F401
from spacy_deid.edits import KEEP, MLM, PHI, SURROGATE, add_edit, get_edits, render
from spacy_deid.components.similarity_filter import (
    CosineFilter,
    NeighborPseudonymizer,
    apply_case,
    candidate_vocabulary,
    cosine_filter_v1,
    is_wordlike,
    shape_surrogate,
    word_vectors,
)
from spacy_deid.train.vectors import FREQUENT_WORDS_FILE



def table(words):
    """Hand-made default-mode vectors: {word: vector}."""
    strings = StringStore()
    keys = [strings.add(w) for w in words]
    return Vectors(strings=strings, data=numpy.asarray(list(words.values()), dtype="f"), keys=keys)


VEC = table(
    {
        "denies": [1.0, 0.0, 0.0],
        "denied": [0.9, 0.1, 0.0],
        "reports": [-1.0, 0.0, 0.0],
        "mg": [0.0, 1.0, 0.0],
        "refuses": [0.5, -0.5, 0.0],
        "zero": [0.0, 0.0, 0.0],
    }
)


# -- the filter policy ------------------------------------------------------


def test_filter_returns_first_candidate_above_epsilon_in_mlm_order():
    f = CosineFilter(epsilon=0.0, max_tries=10)
    ch = f.select("denies", ["reports", "mg", "refuses", "denied"], VEC)
    # reports: -1, mg: 0 (not > 0), refuses: 0.707 -> first to pass, though denied scores higher
    assert ch.word == "refuses" and ch.index == 2 and ch.passed and ch.tries == 3
    assert ch.similarity == pytest.approx(0.7071, abs=1e-3)
    assert f.select("denies", ["mg"], VEC).passed is False  # 0 does not exceed epsilon=0
    assert CosineFilter(epsilon=-0.1).select("denies", ["mg"], VEC).word == "mg"
    assert CosineFilter(epsilon=0.8).select("denies", ["refuses", "denied"], VEC).word == "denied"


def test_filter_can_choose_the_most_similar_passing_candidate():
    f = cosine_filter_v1(choose="most_similar")
    ch = f.select("denies", ["reports", "mg", "refuses", "denied"], VEC)
    assert ch.word == "denied" and ch.index == 3 and ch.passed and ch.tries == 4
    # nothing passes: the fallback, as with "first"
    assert CosineFilter(choose="most_similar").select("denies", ["reports", "mg"], VEC).word is None
    with pytest.raises(ValueError, match="choose"):
        CosineFilter(choose="best")


def test_filter_can_prefer_a_candidate_the_note_already_uses():
    f = cosine_filter_v1(choose="in_document")
    items = [("denies", ["reports", "mg", "refuses", "denied"])] * 3
    notes = [{"pt", "refuses", "meds"}, {"pt", "reports", "meds"}, {"pt"}]
    got = [c.word for c in f.select_batch(items, VEC, notes)]
    # "refuses" is in the first note and passes; "reports" is in the second but does not
    # pass (similarity -1): the most similar passing one then, as without a note
    assert got == ["refuses", "denied", "denied"]
    assert f.select("denies", ["reports", "mg", "refuses", "denied"], VEC).word == "denied"


def test_filter_never_repeats_a_neighbour():
    f = cosine_filter_v1(choose="most_similar")
    items = [("denies", ["denied", "refuses"]), ("denies", ["denied", "refuses"])]
    # the first item has "denied" kept right after it; the second follows the first
    got = f.select_batch(items, VEC, None, [({"denied"}, -1), (set(), 0)])
    assert [c.word for c in got] == ["refuses", "denied"]
    got = f.select_batch(items, VEC, None, [(set(), -1), (set(), 0)])
    assert [c.word for c in got] == ["denied", "refuses"]


def test_filter_max_tries_and_fallbacks():
    cands = ["reports", "mg", "denied"]
    mask = CosineFilter(max_tries=2, fallback="mask").select("denies", cands, VEC)
    assert mask.word is None and not mask.passed and mask.tries == 2 and mask.fallback == "mask"
    assert mask.similarity == pytest.approx(0.0)  # best similarity tried, for the audit
    best = CosineFilter(max_tries=2, fallback="best").select("denies", cands, VEC)
    assert best.word == "mg" and not best.passed and best.fallback == "best"
    none = cosine_filter_v1(max_tries=2, fallback="none").select("denies", cands, VEC)
    assert none.word is None and none.fallback == "none"
    with pytest.raises(ValueError):
        CosineFilter(fallback="keep")
    with pytest.raises(ValueError):
        CosineFilter(max_tries=0)


def test_filter_skips_identical_empty_and_multiword_candidates():
    f = CosineFilter(max_tries=1)
    ch = f.select("denies", ["DENIES", "", "two words", "denied"], VEC)
    assert ch.word == "denied" and ch.index == 3 and ch.tries == 1
    assert CosineFilter(skip_identical=False).select("denies", ["denies"], VEC).word == "denies"


def test_filter_empty_candidates_and_unknown_words():
    f = CosineFilter(fallback="best")
    empty = f.select("denies", [], VEC)
    assert empty.word is None and empty.tries == 0 and empty.similarity is None
    # unknown words have zero vectors in a default-mode table: never similar
    assert CosineFilter().select("qqq", ["denied"], VEC).passed is False
    assert CosineFilter().select("denies", ["zero", "qqq"], VEC).passed is False
    # words with no letters are scored like any other string
    batch = CosineFilter().select_batch([("12", ["13"]), (",", [";"]), ("denies", ["denied"])], VEC)
    assert [c.passed for c in batch] == [False, False, True]


def test_filter_on_floret_vectors_every_word_scores(vec_dir):
    vectors = spacy.load(vec_dir).vocab.vectors
    f = CosineFilter(epsilon=0.999999, fallback="best")
    # unseen words and numbers still have vectors (floret): every candidate is scored
    ch = f.select("Qqzzyxw", ["Qqzzyxv", "12/03/2019"], vectors)
    assert ch.tries == 2 and ch.similarity is not None and -1.0 <= ch.similarity < 0.999999
    v = word_vectors(vectors, ["Qqzzyxw", "Qqzzyxv", "12/03/2019"])
    assert numpy.all(numpy.linalg.norm(v, axis=1) > 0)
    cos = [float(v[0] @ v[i] / numpy.linalg.norm(v[0]) / numpy.linalg.norm(v[i])) for i in (1, 2)]
    assert ch.similarity == pytest.approx(max(cos), abs=1e-5)
    assert ch.word == ["Qqzzyxv", "12/03/2019"][int(numpy.argmax(cos))]


# -- neighbour search --------------------------------------------------------


def brute_force(vectors, word, cands, n):
    m = word_vectors(vectors, cands)
    q = word_vectors(vectors, [word.lower()])[0]
    sims = (m / numpy.linalg.norm(m, axis=1, keepdims=True)) @ (q / numpy.linalg.norm(q))
    order = [cands[i] for i in numpy.argsort(-sims, kind="stable") if cands[i] != word.lower()]
    return order[:n]


def test_nearest_matches_brute_force_and_excludes_self(vec_dir):
    vectors = spacy.load(vec_dir).vocab.vectors
    cands = [w for w in __import__("json").loads((vec_dir / FREQUENT_WORDS_FILE).read_text())["words"] if is_wordlike(w)]
    p = NeighborPseudonymizer(vectors, cands, n_neighbors=7, block_size=2)
    queries = ["Patient", "Qqzzyxw", "hospital", cands[5]]
    got = p.nearest(queries)
    for q, nb in zip(queries, got):
        assert len(nb) == 7
        assert q.lower() not in nb
        assert set(nb) == set(brute_force(vectors, q, p.candidates, 7))
        sims = [float(word_vectors(vectors, [w])[0] @ word_vectors(vectors, [q.lower()])[0] /
                      numpy.linalg.norm(word_vectors(vectors, [w])[0])) for w in nb]
        assert sims == sorted(sims, reverse=True)


def test_n_larger_than_vocabulary_and_empty_vocabulary():
    p = NeighborPseudonymizer(VEC, ["denies", "denied", "reports"], n_neighbors=50)
    with pytest.warns(UserWarning, match="not smaller than the candidate vocabulary"):
        nb = p.nearest(["denies", "mg"])
    assert sorted(nb[0]) == ["denied", "reports"] and len(nb[1]) == 3
    assert nb[0][0] == "denied"
    one = NeighborPseudonymizer(VEC, ["denies"], n_neighbors=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert one.nearest(["denies"]) == [[]]
        assert one.surrogates([["Denies"]], [numpy.random.default_rng(0)]) == [[None]]
    empty = NeighborPseudonymizer(VEC, [], n_neighbors=5)
    assert empty.nearest(["denies"]) == [[]]
    (out,) = empty.surrogates([["Smith", "12"]], [numpy.random.default_rng(0)])
    assert out[0] is None  # no candidate: no surrogate (the caller keeps its placeholder)
    assert out[1] != "12" and len(out[1]) == 2 and out[1].isdigit()  # numbers need no vocabulary


def test_candidates_are_words_only():
    nlp = spacy.blank("en")
    got = candidate_vocabulary(
        ["the", "Smith", "smith", "mg", "x", "12", "a@b.org", "www.x.org", "o'neil", "can't", "dr."],
        make_doc=nlp.make_doc,
        exclude={"the"},
    )
    # "can't" and "dr." are split by the tokenizer: never a surrogate
    assert got == ["smith", "mg", "o'neil"]
    assert candidate_vocabulary(["aa", "bb", "cc"], max_candidates=2) == ["aa", "bb"]


def test_surrogates_consistent_within_doc_and_case_shape():
    cands = ["denied", "reports", "refuses", "mg"]
    p = NeighborPseudonymizer(VEC, cands, n_neighbors=3)
    rng = numpy.random.default_rng(3)
    (out,) = p.surrogates([["Denies", "DENIES", "denies", ",", "03/14/2019", "03/14/2019", "AB12"]], [rng])
    assert out[0].lower() == out[1].lower() == out[2]
    assert out[0][0].isupper() and out[0][1:].islower() and out[1].isupper()
    assert out[0].lower() in p.nearest(["denies"])[0]
    assert out[3] == ","  # punctuation is its own surrogate
    assert out[4] == out[5] and out[4] != "03/14/2019" and len(out[4]) == 10 and out[4][2] == "/"
    assert out[6][:2].isalpha() and out[6][:2].isupper() and out[6][2:].isdigit()
    keep = NeighborPseudonymizer(VEC, cands, n_neighbors=3, numeric="keep")
    assert keep.surrogates([["12", "-"]], [rng]) == [[None, "-"]]


def test_corpus_consistency_is_keyed_by_the_salt():
    cands = ["denied", "reports", "refuses", "mg", "zero"]
    a = NeighborPseudonymizer(VEC, cands, n_neighbors=4, consistency="corpus", salt=b"s1")
    docs = [["Denies", "555-1234"], ["x", "denies", "555-1234"]]
    out = a.surrogates(docs, [numpy.random.default_rng(i) for i in range(2)])
    assert out[0][0].lower() == out[1][1].lower() and out[0][1] == out[1][2]
    again = NeighborPseudonymizer(VEC, cands, n_neighbors=4, consistency="corpus", salt=b"s1")
    assert again.surrogates(docs, [numpy.random.default_rng(9)] * 2) == out
    salts = {
        tuple(NeighborPseudonymizer(VEC, cands, 4, consistency="corpus", salt=s).surrogates([["555-1234"]], [None])[0])
        for s in (b"s1", b"s2", b"s3", b"s4")
    }
    assert len(salts) > 1
    with pytest.raises(ValueError, match="salt"):
        NeighborPseudonymizer(VEC, cands, consistency="corpus")


def test_helpers():
    assert apply_case("SMITH", "jones") == "JONES"
    assert apply_case("Smith", "jones") == "Jones"
    assert apply_case("smith", "Jones") == "jones"
    assert apply_case("123", "jones") == "jones"
    rng = numpy.random.default_rng(0)
    assert shape_surrogate("--", rng) == "--"
    assert shape_surrogate("7", rng) != "7"


# -- the component -----------------------------------------------------------


def filter_nlp(vectors=VEC, **cfg):
    nlp = spacy.blank("en")
    nlp.vocab.vectors = vectors
    nlp.add_pipe("similarity_filter", config=cfg)
    return nlp


def test_component_overrides_mlm_edits_with_filtered_choice():
    nlp = filter_nlp()
    nlp.initialize()
    doc = nlp.make_doc("She denies pain")
    add_edit(doc, 1, 2, MLM, "reports", audit={"candidates": ["reports", "denied", "mg"]})
    add_edit(doc, 2, 3, MLM, "reports", audit={"candidates": ["reports", "zero"]})  # none passes
    add_edit(doc, 0, 1, MLM, "She", audit={"candidates": []})  # nothing to choose: left alone
    doc = nlp.get_pipe("similarity_filter")(doc)
    edits = get_edits(doc)
    assert len(edits) == 5
    e1, e2 = edits[3], edits[4]
    assert (e1.start, e1.label_, e1._.deid_replacement) == (1, MLM, "denied")
    assert e1._.deid_audit["filtered"] is True and e1._.deid_audit["similarity"] == pytest.approx(0.9939, abs=1e-3)
    assert e2._.deid_replacement == "[MASK]" and e2._.deid_audit["fallback"] == "mask"
    assert render(doc).text == "She denied [MASK]"
    # idempotent: filtered edits are not filtered again
    nlp.get_pipe("similarity_filter")(doc)
    assert len(get_edits(doc)) == 5


def test_component_fallback_best_and_placeholder_config():
    nlp = filter_nlp(policy={"@misc": "spacy_deid.cosine_filter.v1", "fallback": "best"}, placeholder="<X>")
    nlp.initialize()
    doc = nlp.make_doc("denies")
    add_edit(doc, 0, 1, MLM, "reports", audit={"candidates": ["reports", "mg"]})
    nlp.get_pipe("similarity_filter")(doc)
    assert render(doc).text == "mg"
    with pytest.raises(ValueError, match="fallback 'none'"):
        filter_nlp(policy={"@misc": "spacy_deid.cosine_filter.v1", "fallback": "none"})


def test_component_needs_vectors():
    nlp = spacy.blank("en")
    nlp.add_pipe("similarity_filter")
    with pytest.raises(ValueError, match=r"paths.vectors"):
        nlp.initialize()


def test_surrogate_mode_needs_a_corpus(vec_dir):
    nlp = filter_nlp(spacy.load(vec_dir).vocab.vectors, surrogates=True)
    with pytest.raises(ValueError, match="needs a corpus"):
        nlp.initialize()


@pytest.fixture(scope="module")
def surrogate_nlp(vec_dir, small_corpus):
    from spacy_deid.io.readers import records_reader_v1

    nlp = spacy.blank("en")
    nlp.vocab.vectors = spacy.load(vec_dir).vocab.vectors
    ruler = nlp.add_pipe("span_ruler", name="phi_ruler", config={"spans_key": None, "annotate_ents": True})
    nlp.add_pipe("similarity_filter", config={"surrogates": True, "n_neighbors": 10, "min_count": 3})
    ruler.add_patterns([{"label": "PATIENT", "pattern": [{"LOWER": "gentry"}]},
                        {"label": "DATE", "pattern": [{"TEXT": {"REGEX": r"^\d\d/\d\d/\d{4}$"}}]}])
    nlp.get_pipe("similarity_filter").initialize(nlp=nlp, corpus=records_reader_v1(small_corpus))
    return nlp


def test_surrogate_mode_replaces_phi_consistently(surrogate_nlp):
    nlp = surrogate_nlp
    comp = nlp.get_pipe("similarity_filter")
    assert comp.candidates and all(is_wordlike(w) for w in comp.candidates)
    text = "GENTRY seen 03/14/2019. Mr. Gentry is stable, Gentry said."
    doc = nlp(text)
    surr = [e for e in get_edits(doc) if e._.deid_method == SURROGATE]
    assert [e.text for e in surr] == ["GENTRY", "03/14/2019", "Gentry", "Gentry"]
    # the reason (an entity whose detector is unknown) and the PHI category are kept
    assert [(e.label_, e._.deid_category) for e in surr] == [(PHI, "NAME"), (PHI, "DATE"), (PHI, "NAME"), (PHI, "NAME")]
    subs = [e._.deid_replacement for e in surr]
    assert subs[0].isupper() and subs[0].lower() == subs[2].lower() == subs[3].lower() != "gentry"
    assert subs[0].lower() in comp.candidates
    assert subs[1] != "03/14/2019" and subs[1][2] == "/"
    assert all(e._.deid_audit == {"component": "similarity_filter", "method": "neighbors", "n_neighbors": 10} for e in surr)
    out = doc._.deid_text
    assert "entry" not in out.lower() and "03/14/2019" not in out
    # same doc -> same surrogates, whatever the batch
    again = list(nlp.pipe(["other text", text], batch_size=2))[1]
    assert again._.deid_text == out


def test_surrogate_mode_leaves_what_a_replacer_decided(surrogate_nlp):
    # A phi_replacer upstream already wrote a surrogate (or KEEP: an age under 90
    # that a NER marked): the neighbour surrogate must not override its decision.
    nlp = surrogate_nlp
    doc = nlp.make_doc("GENTRY seen 03/14/2019.")
    doc = nlp.get_pipe("phi_ruler")(doc)
    add_edit(doc, 0, 1, "NER", "Miller", category="NAME", method=SURROGATE)
    add_edit(doc, 2, 3, "PATTERN", "03/14/2019", category="DATE", method=KEEP)
    doc = nlp.get_pipe("similarity_filter")(doc)
    assert doc._.deid_text == "Miller seen 03/14/2019."
    assert [e.label_ for e in get_edits(doc)] == ["NER", "PATTERN"]


def test_surrogate_mode_overrides_phi_edits_keeps_punctuation(surrogate_nlp):
    nlp = surrogate_nlp
    doc = nlp.make_doc("Call Smith-Jones , please")
    add_edit(doc, 1, 4, PHI, "[PHI]")  # Smith - Jones
    for _name, proc in nlp.pipeline[1:]:
        doc = proc(doc)
    words = doc._.deid_text.split()
    assert words[0] == "Call" and words[-2:] == [",", "please"]
    assert "[PHI]" not in doc._.deid_text and "-" in doc._.deid_text


def test_serialisation_roundtrip_stores_only_frequent_words(surrogate_nlp, tmp_path, small_records):
    nlp = surrogate_nlp
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    comp = loaded.get_pipe("similarity_filter")
    assert comp.candidates == nlp.get_pipe("similarity_filter").candidates
    assert loaded.vocab.vectors.mode == "floret"
    text = "GENTRY seen 03/14/2019."
    assert loaded(text)._.deid_text == nlp(text)._.deid_text
    b = nlp.get_pipe("similarity_filter").to_bytes()
    assert loaded.get_pipe("similarity_filter").from_bytes(b).candidates == comp.candidates
    # every stored candidate was seen for at least min_count patients
    from collections import defaultdict

    units = defaultdict(set)
    tok = spacy.blank("en")
    for rec in small_records:
        for t in tok.make_doc(rec["text"]):
            units[t.text.lower()].add(rec["patient_id"])
    assert all(len(units[w]) >= 3 for w in comp.candidates)
    once = {w for w, u in units.items() if len(u) == 1 and w.isalpha() and len(w) > 4}
    cfg = (tmp_path / "p" / "similarity_filter" / "cfg").read_text()
    assert not [w for w in once if f'"{w}"' in cfg]


def test_pipe_isolates_a_failing_doc():
    nlp = filter_nlp()
    nlp.initialize()
    comp = nlp.get_pipe("similarity_filter")
    good = nlp.make_doc("denies")
    add_edit(good, 0, 1, MLM, "x", audit={"candidates": ["denied"]})
    bad = nlp.make_doc("denies")
    add_edit(bad, 0, 1, MLM, "x", audit={"candidates": ["denied"]})
    seen = []
    comp.set_error_handler(lambda name, proc, docs, e: seen.append(len(docs)))
    orig = comp._filter_mlm

    def flaky(docs):
        if any(d is bad for d in docs):
            raise RuntimeError("boom")
        return orig(docs)

    comp._filter_mlm = flaky
    out = list(comp.pipe([good, bad], batch_size=2))
    assert out == [good] and seen == [1]
    assert render(good).text == "denied"


def test_candidates_exclude_what_detectors_flag_and_are_stored_as_hashes(vec_dir, small_records, tmp_path):
    """A clinician's name that is also an English word ("Baker") and appears for
    many patients is frequent, but the gazetteer flags it after "Dr.": it is no
    candidate. Listed names and places are refused; the cfg holds no word."""
    import json

    from spacy_deid.io.readers import records_reader_v1

    path = tmp_path / "corpus.jsonl"
    with path.open("w") as fh:
        for rec in small_records:
            text = rec["text"] + " Discussed with Dr. Baker and the family at home."
            fh.write(json.dumps({"id": rec["id"], "patient_id": rec["patient_id"], "text": text}) + "\n")
    nlp = spacy.blank("en")
    nlp.vocab.vectors = spacy.load(vec_dir).vocab.vectors
    gaz = nlp.add_pipe("phi_gazetteer")
    gaz.initialize(nlp=nlp)
    assert not gaz.is_allowed("Smith") and not gaz.is_allowed("boston") and gaz.is_allowed("will")
    comp = nlp.add_pipe("similarity_filter", config={"surrogates": True, "n_neighbors": 10, "min_count": 3})
    comp.initialize(nlp=nlp, corpus=records_reader_v1(path))
    assert comp.candidates and "family" in comp.candidates and "home" in comp.candidates
    assert "baker" not in comp.candidates
    assert all(gaz.is_allowed(w) for w in comp.candidates)
    cfg = comp.to_bytes()
    assert b"family" not in cfg and b"home" not in cfg
    comp.to_disk(tmp_path / "sf")
    again = nlp.get_pipe("similarity_filter").from_disk(tmp_path / "sf")
    assert again.candidates == comp.candidates
