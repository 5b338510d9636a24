"""indexed_span_ruler: spaCy's span_ruler, with its token patterns indexed by their first token.

spaCy's ``Matcher`` starts every pattern at every token and evaluates the Python
predicates (``REGEX``, ``IN``) of every pattern's first token there: with the
few hundred shipped PHI patterns that is most of the time of a pipeline without
its NER. This ruler finds the same spans (the same ``(label, id, start, end)``
set as ``span_ruler`` with the same patterns, then the same filters and the same
annotations: it is a ``SpanRuler``) by running, for each group of patterns that
share a first token, a ``Matcher`` of that group only on the windows where the
group can match:

- a pattern's first token (when it is not optional) is a literal (``TEXT``,
  ``ORTH`` or ``LOWER``, a string or an ``IN`` list: looked up by the token's
  lower-case form), a ``REGEX`` on ``TEXT`` or ``LOWER``, or a ``LIKE_URL`` /
  ``LIKE_EMAIL`` flag: the *gate* of its group. Which gates a word opens is
  computed once per word string and cached;
- a window starts at a token that opens the gate and is as long as the group's
  longest pattern; a ``*``/``+`` token makes it as long as the run of tokens
  that may match that token (its literal/regex constraints, others assumed true),
  so no match is cut short. Overlapping windows of a group are merged;
- patterns with an optional first token or no usable gate run on the whole Doc.

Every match found in a window is a match of the Doc, and every match of the Doc
starts where its group's gate opens and ends inside that window, so the matches
are exactly those of ``span_ruler``. Phrase patterns use spaCy's ``PhraseMatcher``
as before. Saved with ``span_ruler``'s own ``patterns.jsonl``.
"""
import json
import re
import warnings
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from spacy.attrs import ORTH
from spacy.language import Language
from spacy.matcher import Matcher
from spacy.pipeline.span_ruler import DEFAULT_SPANS_KEY, SpanRuler
from spacy.tokens import Doc, Span

# Words whose gates are cached (cleared when full; the cache is a dict of word hash -> gate ids).
CACHE_SIZE = 200_000
LITERAL_KEYS = ("TEXT", "ORTH", "LOWER")
UNBOUNDED = None
# Windows of a group this close are matched as one (a Matcher call costs about as
# much as matching a few dozen tokens with a group's few patterns).
MERGE_GAP = 8


def _max_repeats(op: Optional[str]) -> Optional[int]:
    """How many tokens a pattern token with this operator spans at most (None: unbounded)."""
    if op in (None, "1", "!", "?"):
        return 1
    if op in ("+", "*"):
        return UNBOUNDED
    m = re.fullmatch(r"\{(\d*)(,?)(\d*)\}", op)
    if m is None:
        return UNBOUNDED
    lo, comma, hi = m.groups()
    if not comma:
        return int(lo)
    return int(hi) if hi else UNBOUNDED


def _norm_spec(spec: Dict[str, Any]) -> Dict[str, Any]:
    return {str(k).upper(): v for k, v in spec.items()}


class _TokenCheck:
    """An over-approximation of a token pattern's test on one word: its literal
    and regex constraints on TEXT/ORTH/LOWER are checked, every other constraint
    is taken as met (so a word it rejects can never match the pattern token)."""

    def __init__(self, spec: Dict[str, Any]):
        self.tests: List[Tuple[str, Callable[[str], bool]]] = []
        for key, value in _norm_spec(spec).items():
            if key not in LITERAL_KEYS:
                continue
            field = "lower" if key == "LOWER" else "text"
            if isinstance(value, str):
                self.tests.append((field, value.__eq__))
            elif isinstance(value, dict):
                for op, arg in value.items():
                    op = str(op).upper()
                    if op == "IN" and isinstance(arg, (list, tuple)):
                        self.tests.append((field, set(arg).__contains__))
                    elif op == "NOT_IN" and isinstance(arg, (list, tuple)):
                        self.tests.append((field, (lambda s, vals=frozenset(arg): s not in vals)))
                    elif op == "REGEX" and isinstance(arg, str):
                        self.tests.append((field, (lambda s, rx=re.compile(arg): rx.search(s) is not None)))

    def __call__(self, text: str, lower: str) -> bool:
        for field, test in self.tests:
            if not test(lower if field == "lower" else text):
                return False
        return True


def _gate(spec: Dict[str, Any]) -> Optional[Tuple[str, Any]]:
    """The cheapest necessary condition of a first pattern token: ('lower', {words}),
    ('regex', (field, pattern)) or ('flag', name); None when there is none."""
    spec = _norm_spec(spec)
    for key in LITERAL_KEYS:
        value = spec.get(key)
        if isinstance(value, str):
            return ("lower", [value.lower()])
        if isinstance(value, dict) and isinstance(value.get("IN", value.get("in")), (list, tuple)):
            return ("lower", sorted({str(v).lower() for v in value.get("IN", value.get("in"))}))
    for flag in ("LIKE_URL", "LIKE_EMAIL"):
        if spec.get(flag) is True:
            return ("flag", flag.lower())
    for key in ("TEXT", "ORTH", "LOWER"):
        value = spec.get(key)
        if isinstance(value, dict) and isinstance(value.get("REGEX", value.get("regex")), str):
            return ("regex", ["lower" if key == "LOWER" else "text", value.get("REGEX", value.get("regex"))])
    return None


def _pattern_gates(pattern: List[Dict[str, Any]]) -> Optional[List[Tuple[str, Any]]]:
    """Where a match of the pattern may start: the gates of its first token and,
    while that token is optional ("?"), of the next ones; None when one of them
    has no gate or is repeated or negated (the pattern then runs on the whole Doc)."""
    out: List[Tuple[str, Any]] = []
    for spec in pattern:
        spec = _norm_spec(spec)
        op = spec.get("OP")
        if op not in (None, "1", "?"):
            return None
        gate = _gate(spec)
        if gate is None:
            return None
        out.append(gate)
        if op != "?":
            return out
    return None  # every token optional


class _Group:
    """Token patterns that share a first token: their Matcher and their window bounds."""

    def __init__(self, vocab, validate: bool, fuzzy_compare: Callable):
        self.matcher = Matcher(vocab, validate=validate, fuzzy_compare=fuzzy_compare)
        self.fixed_len = 0  # the longest bounded pattern
        self.tails: List[List[Tuple[Optional[int], _TokenCheck]]] = []  # unbounded patterns after token 0

    def add(self, key: str, pattern: List[Dict[str, Any]]) -> None:
        self.matcher.add(key, [pattern])
        steps = [(_max_repeats(_norm_spec(t).get("OP")), t) for t in pattern]
        if all(n is not UNBOUNDED for n, _ in steps):
            self.fixed_len = max(self.fixed_len, sum(n for n, _ in steps))
        else:
            self.tails.append([(n, _TokenCheck(t)) for n, t in steps[1:]])

    def window_end(self, start: int, words: Sequence[Tuple[str, str]]) -> int:
        """An end no match of this group starting at ``start`` goes beyond."""
        n = len(words)
        end = min(n, start + self.fixed_len)
        for tail in self.tails:
            lo, hi = start + 1, start + 1  # where the next pattern token may start
            for reps, check in tail:
                if reps is not UNBOUNDED:
                    hi += reps  # (lo stays: an earlier start only widens the search)
                    continue
                far = hi
                for q in range(lo, min(hi, n) + 1):
                    r = q
                    while r < n and check(*words[r]):
                        r += 1
                    far = max(far, r)
                hi = far
                if hi >= n:
                    break
            end = max(end, min(n, hi))
        return end


class IndexedSpanRuler(SpanRuler):
    """A ``SpanRuler`` that runs each group of token patterns only where it can
    match (see the module docstring); same matches, same output."""

    def __init__(self, *args, **kwargs):
        self._index: Optional[Dict[str, Any]] = None
        super().__init__(*args, **kwargs)

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_index"] = None  # rebuilt where it is used
        return state

    # any change of the patterns drops the index (rebuilt at the next call)
    def clear(self) -> None:
        self._index = None
        super().clear()

    def add_patterns(self, patterns) -> None:
        self._index = None
        super().add_patterns(patterns)

    def remove(self, label: str) -> None:
        self._index = None
        super().remove(label)

    def remove_by_id(self, pattern_id: str) -> None:
        self._index = None
        super().remove_by_id(pattern_id)

    def _build_index(self) -> Dict[str, Any]:
        vocab = self.nlp.vocab
        groups: Dict[str, _Group] = {}
        gates: Dict[str, List[Tuple[str, Any]]] = {}
        whole = Matcher(vocab, validate=self.validate, fuzzy_compare=self.matcher_fuzzy_compare)
        n_whole = 0
        for entry in self._patterns:
            pattern = entry["pattern"]
            if not isinstance(pattern, list) or not pattern:
                continue
            key = repr((entry["label"], entry.get("id", "")))
            gate = _pattern_gates(pattern)
            if gate is None:
                whole.add(key, [pattern])
                n_whole += 1
                continue
            gkey = json.dumps(gate, sort_keys=True)
            if gkey not in groups:
                groups[gkey] = _Group(vocab, self.validate, self.matcher_fuzzy_compare)
                gates[gkey] = gate
            groups[gkey].add(key, pattern)
        names = list(groups)
        by_word: Dict[str, List[int]] = {}
        regexes: List[Tuple[int, str, Any]] = []
        flags: List[Tuple[int, str]] = []
        for gid, gkey in enumerate(names):
            for kind, arg in gates[gkey]:
                if kind == "lower":
                    for word in arg:
                        by_word.setdefault(word, []).append(gid)
                elif kind == "regex":
                    regexes.append((gid, arg[0], re.compile(arg[1])))
                else:
                    flags.append((gid, arg))
        return {
            "groups": [groups[k] for k in names],
            "by_word": {w: tuple(g) for w, g in by_word.items()},
            "regexes": regexes,
            "flags": flags,
            "whole": whole if n_whole else None,
            "cache": {},
        }

    def _gates_of(self, index: Dict[str, Any], orth: int) -> Tuple[Tuple[int, ...], str, str]:
        cache = index["cache"]
        hit = cache.get(orth)
        if hit is not None:
            return hit
        lex = self.nlp.vocab[orth]
        text, lower = lex.orth_, lex.lower_
        opened = list(index["by_word"].get(lower, ()))
        for gid, field, rx in index["regexes"]:
            if rx.search(lower if field == "lower" else text) is not None:
                opened.append(gid)
        for gid, flag in index["flags"]:
            if getattr(lex, flag):
                opened.append(gid)
        if len(cache) >= CACHE_SIZE:
            cache.clear()
        hit = (tuple(sorted(set(opened))), text, lower)
        cache[orth] = hit
        return hit

    def _token_matches(self, doc: Doc) -> List[Tuple[int, int, int]]:
        if self._index is None:
            self._index = self._build_index()
        index = self._index
        groups: List[_Group] = index["groups"]
        matches: List[Tuple[int, int, int]] = []
        if index["whole"] is not None:
            matches.extend(index["whole"](doc))
        if not groups or len(doc) == 0:
            return matches
        info = [self._gates_of(index, orth) for orth in doc.to_array(ORTH).tolist()]
        starts: Dict[int, List[int]] = {}
        for i, (opened, _, _) in enumerate(info):
            for gid in opened:
                starts.setdefault(gid, []).append(i)
        if not starts:
            return matches
        words = [(text, lower) for _, text, lower in info]
        for gid, positions in starts.items():
            group = groups[gid]
            windows: List[List[int]] = []
            for p in positions:
                end = group.window_end(p, words)
                if windows and p < windows[-1][1] + MERGE_GAP:
                    windows[-1][1] = max(windows[-1][1], end)
                else:
                    windows.append([p, end])
            for start, end in windows:
                matches.extend((m, s + start, e + start) for m, s, e in group.matcher(doc[start:end]))
        return matches

    def match(self, doc: Doc):
        """The spans of every pattern match (as ``SpanRuler.match``)."""
        self._require_patterns()
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="\\[W036")
            matches = self._token_matches(doc) + list(self.phrase_matcher(doc))
        deduplicated = set(
            Span(doc, start, end, label=self._match_label_id_map[m_id]["label"], span_id=self._match_label_id_map[m_id]["id"])
            for m_id, start, end in matches
            if start != end
        )
        return sorted(deduplicated)


@Language.factory(
    "indexed_span_ruler",
    assigns=["doc.spans"],
    default_config={
        "spans_key": DEFAULT_SPANS_KEY,
        "spans_filter": None,
        "annotate_ents": False,
        "ents_filter": {"@misc": "spacy.first_longest_spans_filter.v1"},
        "phrase_matcher_attr": None,
        "matcher_fuzzy_compare": {"@misc": "spacy.levenshtein_compare.v1"},
        "validate": False,
        "overwrite": True,
        "scorer": {"@scorers": "spacy.overlapping_labeled_spans_scorer.v1", "spans_key": DEFAULT_SPANS_KEY},
    },
    default_score_weights={
        f"spans_{DEFAULT_SPANS_KEY}_f": 1.0,
        f"spans_{DEFAULT_SPANS_KEY}_p": 0.0,
        f"spans_{DEFAULT_SPANS_KEY}_r": 0.0,
        f"spans_{DEFAULT_SPANS_KEY}_per_type": None,
    },
)
def make_indexed_span_ruler(
    nlp: Language,
    name: str,
    spans_key: Optional[str],
    spans_filter: Optional[Callable[[Iterable[Span], Iterable[Span]], Iterable[Span]]],
    annotate_ents: bool,
    ents_filter: Callable[[Iterable[Span], Iterable[Span]], Iterable[Span]],
    phrase_matcher_attr: Optional[Union[int, str]],
    matcher_fuzzy_compare: Callable,
    validate: bool,
    overwrite: bool,
    scorer: Optional[Callable],
) -> IndexedSpanRuler:
    """Create an indexed_span_ruler: the arguments are those of spaCy's ``span_ruler``."""
    return IndexedSpanRuler(
        nlp,
        name,
        spans_key=spans_key,
        spans_filter=spans_filter,
        annotate_ents=annotate_ents,
        ents_filter=ents_filter,
        phrase_matcher_attr=phrase_matcher_attr,
        matcher_fuzzy_compare=matcher_fuzzy_compare,
        validate=validate,
        overwrite=overwrite,
        scorer=scorer,
    )


__all__ = ["IndexedSpanRuler", "make_indexed_span_ruler"]
