"""RAKE and TextRank policies (spacy_deid.policies.keyphrases) on known texts."""
import numpy as np
import pytest
import spacy
from spacy.tokens import Doc
from spacy.util import registry

import spacy_deid  # noqa: F401
from spacy_deid.policies.keyphrases import pagerank, rake_keyphrases, textrank_keyphrases

# The abstract used as the worked example by both Rose et al. 2010 (RAKE) and
# Mihalcea & Tarau 2004 (TextRank).
ABSTRACT = (
    "Compatibility of systems of linear constraints over the set of natural numbers. "
    "Criteria of compatibility of a system of linear Diophantine equations, strict inequations, "
    "and nonstrict inequations are considered. Upper bounds for components of a minimal set of "
    "solutions and algorithms of construction of minimal generating sets of solutions for all "
    "types of systems are given. These criteria and the corresponding algorithms for constructing "
    "a minimal supporting set of solutions can be used in solving all the considered types of "
    "systems and systems of mixed types."
)


@pytest.fixture(scope="module")
def nlp():
    return spacy.blank("en")


def test_rake_reproduces_the_papers_scores(nlp):
    # Rose et al. 2010, table 1.2: the scores of the top candidates of this abstract.
    phrases = rake_keyphrases(nlp(ABSTRACT), max_words=5)
    got = [(" ".join(p.key), round(p.score, 2)) for p in phrases[:5]]
    assert got == [
        ("minimal generating sets", 8.67),
        ("linear diophantine equations", 8.5),
        ("minimal supporting set", 7.67),
        ("minimal set", 4.67),
        ("linear constraints", 4.5),
    ]
    assert {" ".join(p.key) for p in phrases if round(p.score, 2) == 4.0} >= {
        "natural numbers",
        "strict inequations",
        "nonstrict inequations",
        "upper bounds",
    }


def test_rake_spans_are_token_spans_with_all_occurrences(nlp):
    doc = nlp("Chest pain at rest. Chest pain on exertion. Mild nausea.")
    phrases = rake_keyphrases(doc)
    top = {p.key: p for p in phrases}[("chest", "pain")]
    assert [(s.start, s.end) for s in top.spans] == [(0, 2), (5, 7)]
    assert all(s.doc is doc for s in top.spans)
    assert top.text == "Chest pain"
    scores = [p.score for p in phrases]
    assert scores == sorted(scores, reverse=True)


def test_rake_splits_at_the_pipelines_stop_words():
    nlp = spacy.blank("en")
    assert [p.key for p in rake_keyphrases(nlp("severe chest pain"))] == [("severe", "chest", "pain")]
    nlp.vocab["chest"].is_stop = True  # the pipeline's stop list decides
    keys = {p.key for p in rake_keyphrases(nlp("severe chest pain"), min_chars=1)}
    assert keys == {("severe",), ("pain",)}


def test_rake_no_keyphrase(nlp):
    assert rake_keyphrases(nlp("It is 12 and 14, or 7.")) == []
    assert rake_keyphrases(nlp("")) == []
    assert textrank_keyphrases(nlp("It is 12 and 14, or 7.")) == []


def test_rake_max_words_and_min_chars(nlp):
    doc = nlp("left heart catheterization selective coronary angiography. ab.")
    assert rake_keyphrases(doc, max_words=6)[0].key == tuple(
        "left heart catheterization selective coronary angiography".split()
    )
    assert rake_keyphrases(doc, max_words=4) == []  # the run is longer than 4; "ab" is too short


def test_ties_are_ranked_by_first_occurrence(nlp):
    doc = nlp("alpha. beta. gamma.")
    assert [p.key for p in rake_keyphrases(doc)] == [("alpha",), ("beta",), ("gamma",)]


def test_pagerank_matches_networkx():
    nx = pytest.importorskip("networkx")
    rng = np.random.default_rng(3)
    edges = []
    for _ in range(40):
        u, v = (int(x) for x in rng.integers(0, 12, size=2))
        if u != v:
            edges.append((u, v, float(rng.integers(1, 4))))
    graph = nx.Graph()
    graph.add_nodes_from(range(13))  # node 12 is isolated (dangling)
    for u, v, w in edges:
        if graph.has_edge(u, v):
            graph[u][v]["weight"] += w
        else:
            graph.add_edge(u, v, weight=w)
    expected = nx.pagerank(graph, alpha=0.85, tol=1e-10, max_iter=1000, weight="weight")
    got = pagerank(13, edges, damping=0.85, tol=1e-10, max_iter=1000)
    assert got.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(got, [expected[i] for i in range(13)], atol=1e-8)


def test_textrank_on_the_papers_abstract(nlp):
    # Without a tagger (our default pipelines) the candidates are non-stop
    # alphabetic tokens; the abstract's compound keywords still come out on top.
    top = [" ".join(p.key) for p in textrank_keyphrases(nlp(ABSTRACT))[:5]]
    for phrase in ("linear diophantine equations", "minimal supporting set", "minimal generating sets"):
        assert phrase in top
    rake_top = [" ".join(p.key) for p in rake_keyphrases(nlp(ABSTRACT), max_words=5)[:5]]
    assert len(set(top) & set(rake_top)) >= 3


def test_textrank_hub_word_ranks_first(nlp):
    # "fracture" co-occurs with every other content word: it is the hub of the graph.
    doc = nlp("fracture. femur fracture. tibia fracture. wrist fracture. fracture care.")
    phrases = textrank_keyphrases(doc, window=2)
    singles = {p.key: p.score for p in phrases if len(p.key) == 1}
    assert max(singles, key=singles.get) == ("fracture",)
    assert len({p.key for p in phrases}) == len(phrases)


def test_textrank_uses_pos_when_the_doc_is_tagged(nlp):
    words = ["The", "patient", "reports", "severe", "pain", "and", "takes", "ibuprofen", "daily", "."]
    pos = ["DET", "NOUN", "VERB", "ADJ", "NOUN", "CCONJ", "VERB", "NOUN", "ADV", "PUNCT"]
    tagged = Doc(nlp.vocab, words=words, pos=pos)
    keys = {p.key for p in textrank_keyphrases(tagged)}
    assert keys == {("patient",), ("severe", "pain"), ("ibuprofen",)}  # verbs and adverbs are out
    untagged = Doc(nlp.vocab, words=words)
    keys = {p.key for p in textrank_keyphrases(untagged)}
    assert ("patient", "reports", "severe", "pain") in keys  # fallback: non-stop alphabetic tokens


def test_policies_are_registered_and_configurable(nlp):
    rake = registry.resolve({"p": {"@misc": "spacy_deid.rake.v1", "max_words": 5}})["p"]
    assert [" ".join(p.key) for p in rake(nlp(ABSTRACT))][0] == "minimal generating sets"
    textrank = registry.resolve({"p": {"@misc": "spacy_deid.textrank.v1", "window": 2}})["p"]
    assert textrank(nlp(ABSTRACT))
    with pytest.raises(ValueError):
        registry.resolve({"p": {"@misc": "spacy_deid.textrank.v1", "window": 1}})
    with pytest.raises(ValueError):
        registry.resolve({"p": {"@misc": "spacy_deid.rake.v1", "max_words": 0}})
