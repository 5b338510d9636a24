"""phi_gazetteer: names, US places and hospitals from shipped lists, with context rules.

Writes ``doc.spans[spans_key]`` (default ``"phi_gazetteer"``) with the labels
``NAME``, ``CITY``, ``STATE``, ``COUNTY`` and ``HOSPITAL``, which
``spacy_deid.detect.labels`` maps to the NAME, LOCATION and ORGANIZATION
categories. What is matched and when is in ``spacy_deid.detect.gazetteers``.

The lists are read in ``initialize`` (shipped ones by default; add your own
with ``[initialize.components.phi_gazetteer.lists]`` and ``labels``) and saved
with the pipeline as hashes of their lower-case tokens (spaCy's ``Token.lower``),
so a saved pipeline holds no list text, a user's own staff or ward list included.
"""
import re
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Tuple

import srsly
from spacy.language import Language
from spacy.pipeline import Pipe
from spacy.tokens import Doc, Span
from spacy.util import filter_spans
from thinc.api import Config

from spacy_deid.detect.gazetteers import (
    CLINICAL_TERMS,
    CREDENTIALS,
    DEPARTMENT_WORDS,
    EPONYM_HEADS,
    COMMON_WORDS,
    DEFAULT_LISTS,
    CALENDAR_WORDS,
    CITY,
    COMPANY_WORDS,
    Gazetteer,
    GazetteerIndex,
    GazetteerLists,
    HOSPITAL,
    HOSPITAL_NAME_WORDS,
    HOSPITAL_WORDS,
    NAME,
    PLACE_LABELS,
    PATIENT_WORDS,
    ROLES,
    TITLES,
    load_lists,
)
from spacy_deid.detect.gazetteers import EMIT_ZIPF, MIDDLE_INITIAL, date_word, has_title_before, is_mixed_case, is_role, shorthand_token, zipf
from spacy_deid.detect.gazetteers import _CLOCK_TIME, _CONTACT_CUE_WORDS, _ORG_FIELDS, _RESIDENT_WORDS, _SIZE_WORDS, _UNIT_AFTER_HOSPITAL, _starts_sentence, is_title_word, trade_words
from spacy_deid.detect.labels import category_of, make_label_map
from spacy_deid.detect.patterns import _SHORTHAND_MD, MONTH_DAY_NOT_10, STREET_PREFIXES, STREET_SUFFIXES
from spacy_deid.surrogates.names import NAME_PARTICLES
from spacy_deid.surrogates.places import BUILDING_SIDES, is_not_phi_place
from spacy_deid.util import memory_zone, pipe_each

# categories whose entities are names: they start with no lower-case stop word in mixed-case text
_NAMED = frozenset({"NAME", "LOCATION", "ORGANIZATION"})
_WEEKDAY_NAMES = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
_WEEKDAY_FORMS = _WEEKDAY_NAMES | frozenset("mon tue tues wed thu thur thurs fri sat sun".split())
# categories whose operators keep what reads as no PHI (ages under 90, durations, bare years)
_KEPT_BY_FORM = frozenset({"DATE", "AGE"})
# the categories the pattern ruler finds by their form, which win over a NER entity of another
# ("now 92" as a DATE holds the age 92, which the date operator would keep)
_STRUCTURED = frozenset({"CONTACT", "ID", "AGE"})
# articles that open a hyphenated surname ("Al-Farsi", "el-Sayed", "Abu-Zaid")
_HYPHEN_ARTICLES = frozenset("al el abu ibn bin abd ben".split())
# the words a letter opens and closes with, beside the names they greet or sign
_LETTER_WORDS = frozenset("dear thank thanks sincerely regards cordially respectfully yours truly".split())
# clinical shorthand that joins two phrases: no name, place or organisation runs across one
# ("from siefield w/ ulcerative colitis flare", "smith s/p fall")
_NAME_ENDING_PREPOSITIONS = frozenset("in at from on to with for near by into".split())
_PHRASE_JOINERS = frozenset("w/ w/o s/p c/o h/o r/o d/t f/u a/w".split())
_NAME_PARTICLES = NAME_PARTICLES | frozenset("st st. mc mac".split())
# words after which a note goes on past a place or organisation's name: time words, "via",
# verbs of coming and going ("went to ferncliff last week", "to icu, went to or", "arrived
# from pinecrest via ambulance", "transferred to sjmc tonight"); a NER trained on tidy notes
# runs the name on over them in single-case notes
_AFTER_PLACE_WORDS = frozenset("""
today tonight yesterday tomorrow overnight now last this next earlier later recently morning
evening afternoon am pm via went came left arrived returned followed transferred vs vs. versus
prior previously formerly currently
""".split())
_TIME_UNITS = frozenset("""
min mins minute minutes hr hrs hour hours d day days wk wks week weeks mo mos month months yr yrs year years
""".split())
# stop words that may stand inside a place or organisation's name ("bank of america",
# "eye and ear infirmary", "hospital for special surgery" after a kind word only)
_INNER_STOP_WORDS = frozenset("of and & the 's ’s".split())
# a specialty's name ("Cardiology", "Psychiatry", "Pediatrics", "Orthopedics", "Surgery";
# not "Corporation", "Foundation", "Electronics")
_SPECIALTY_NAME = re.compile(r"(ology|ologic|ological|iatry|iatric|iatrics|pedics|stetrics|surgery)$")
# prepositions before a town ("lives in somerville", "drove from lowell")
_TOWN_PREPOSITIONS = frozenset("in from near to".split())
# verbs and nouns of work before "at" and a workplace ("works at", "a cook at", "shift at")
_WORK_WORDS = frozenset("""
work works worked working employed job jobs shift shifts cook chef cashier waiter waitress bartender janitor
custodian dishwasher mechanic volunteer volunteers volunteered intern interned manager owner
""".split())
# the services and units of a hospital: a letterhead's department, no organisation's name
_SERVICE_WORDS = frozenset("medicine nursing service services team unit department dept division program section ward".split())
# the departments and units of a hospital after its name ("Lawrence General emergency department")
_UNIT_TAIL_WORDS = (DEPARTMENT_WORDS | _SERVICE_WORDS | frozenset("room floor wing icu ed er or".split())) - frozenset(
    "health medical".split()
)
# below this Zipf frequency a capitalised word no dictionary has is rare enough to make a
# name of the capitalised words beside it (nationalities are more frequent: "Czech" 3.95)
_RARE_ZIPF = 3.5
# the first words of a form's fields ("Name: John Smith Phone: ...", "Date of Birth:")
# the words of a nurse's shift or post after a signature ("k. lee rn, night shift", "float pool")
_SHIFT_WORDS = frozenset("day days night nights evening evenings shift shifts float pool charge per diem travel".split())
# quote marks around a nickname, and the words before one ("aka "sonny"", "goes by "bunny"")
_QUOTES = frozenset({'"', "'", "“", "”", "‘", "’", "``", "''"})
_NICKNAME_CUES = frozenset("aka a.k.a. a.k.a nicknamed nickname alias".split())
_NICKNAME_BIGRAMS = frozenset({("goes", "by"), ("go", "by"), ("known", "as"), ("prefers", "to"), ("called", "himself"), ("called", "herself"), ("calls", "himself"), ("calls", "herself")})
# the words inside a phone number's entity ("555-1234, ext 22", "x45", "pager")
_CONTACT_WORDS = _CONTACT_CUE_WORDS | frozenset("ext x extension or".split())
# a month/day that no pain score (x/10) is, and the words that make one a count ("1/2 tab")
_MONTH_DAY_NOT_10 = re.compile(MONTH_DAY_NOT_10)
# the titles of a patient named with an age after ("pt mr. abernathy 98"; no "dr")
_PATIENT_TITLES = frozenset("mr mrs ms miss".split())
# a saturation's words or the day after a value ("pt mr. jones 96 sat on ra", "93 today.")
_READING_AFTER = frozenset("sat sats spo2 o2 today".split())
_UNITS_AFTER = frozenset("ft feet m meters metres steps hrs hr hours min mins minutes sec secs yds yards ml cc kcal cal "
                         "calories units".split())
_COUNTED_AFTER = frozenset("""
tab tabs tablet tablets pill pills dose doses of bottles cores units amp amps vial vials strength bottle times x
""".split())
_FIELD_WORDS = frozenset("date phone tel fax email address dob mrn age sex gender id ssn".split())
_FOR_AFTER = frozenset("hospital hospitals institute center centre school college university foundation society home".split())



DEFAULT_CONFIG_STR = """
[phi_gazetteer]
spans_key = "phi_gazetteer"
min_zipf = 3.0
filter_ents = true
rejected_key = "phi_ner_rejected"
address_anchors_key = "phi_patterns"
patterns_key = "phi_patterns"
"""
DEFAULT_CONFIG = Config().from_str(DEFAULT_CONFIG_STR)


def _pieces(doc: Doc, ent: Span, drop: Callable[[int], bool], break_after: Callable[[int], bool] = lambda i: False) -> List[Span]:
    """The runs of ``ent``'s tokens that ``drop`` keeps, each ending too after a token
    ``break_after`` marks, with ``ent``'s label (``ent`` itself when nothing is cut)."""
    out: List[Span] = []
    start = ent.start
    for i in range(ent.start, ent.end):
        if drop(i):
            if start < i:
                out.append(Span(doc, start, i, label=ent.label))
            start = i + 1
        elif break_after(i):
            out.append(Span(doc, start, i + 1, label=ent.label))
            start = i + 1
    if start < ent.end:
        out.append(ent if start == ent.start else Span(doc, start, ent.end, label=ent.label))
    return out


def _outside_longer(run: Span, entities) -> List[Span]:
    """The parts of an address run that no longer NER entity covers: the replacer
    takes the longest span, so where an entity longer than the run overlaps it the
    run's other words would be left ("1987" of "1987 74 diakou street" when the NER
    has "74 diakou street / suite 680")."""
    longer = [e for e in entities if e.start < run.end and run.start < e.end and len(e) >= len(run)]
    if not longer:
        return [run]
    covered = {i for e in longer for i in range(e.start, e.end)}
    return [piece for piece in _pieces(run.doc, run, covered.__contains__) if any(c.isalnum() for c in piece.text)]


# the sides of a ward after its number ("7 south"), which a date's trimming leaves
_COMPASS_SIDES = frozenset("north south east west n s e w".split())


def _trim(doc: Doc, start: int, end: int, drop: Callable, keep: int = 0) -> Tuple[int, int]:
    """``(start, end)`` without the tokens at either edge that ``drop`` or that hold no
    letter or digit, keeping ``keep`` tokens at least."""
    def edge(t) -> bool:
        return drop(t) or not any(c.isalnum() for c in t.text)

    while end - start > keep and edge(doc[start]):
        start += 1
    while end - start > keep and edge(doc[end - 1]):
        end -= 1
    return start, end


def _has_digit(text: str) -> bool:
    return any(c.isdigit() for c in text)


def _date_starts(doc: Doc, i: int) -> bool:
    """A month name with a day or year after it starts at ``doc[i]`` ("april 2023",
    "MARCH 15TH", "oct. 13th"): a date, no part of a name before it."""
    if doc[i].lower_.rstrip(".") not in CALENDAR_WORDS or doc[i].lower_ in _WEEKDAY_NAMES:
        return False
    k = i + 1
    if k < len(doc) and doc[k].text == ".":
        k += 1
    return k < len(doc) and doc[k].text[:1].isdigit() and len(doc[k].text) <= 6


def _before_colon(doc: Doc, end: int) -> bool:
    """``doc[end]`` is a colon, or "of" and a word before one: the words before end a
    field's label ("Date of Birth:", "Phone:"), no name."""
    n = len(doc)
    return end < n and (doc[end].text == ":" or (
        end + 2 < n and doc[end].lower_ == "of" and doc[end + 1].is_alpha and doc[end + 2].text == ":"
    ))


def _without_field_label(doc: Doc, span: Span) -> Span:
    """A NAME span without the field label its last word starts ("John Smith Date" of
    "Name: John Smith Date of Birth: ..."): a capitalised word of a name of two words or
    more is no part of it before a colon, or before "of", a word and a colon."""
    if span.label_ != NAME or len(span) < 2 or not doc[span.end - 1].is_title:
        return span
    if _before_colon(doc, span.end) and doc[span.end].text != ":" or (
        doc[span.end - 1].lower_ in _FIELD_WORDS and _before_colon(doc, span.end)
    ):
        return Span(doc, span.start, span.end - 1, label=span.label)
    return span


def _run(doc: Doc, k: int, step: int, max_words: int, word: Callable, joiner: Callable) -> int:
    """From ``doc[k]`` on (``step`` 1: the end of the run; -1: its start): up to ``max_words``
    tokens that ``word`` accepts on one line, tokens that ``joiner`` accepts only between two of
    them; ``k`` (or ``k + 1`` going back) when there is none."""
    n = len(doc)
    edge = k if step > 0 else k + 1  # the run's open end, as far as it has gone
    words = 0
    while 0 <= k < n and words < max_words:
        t = doc[k]
        if words and "\n" in (doc[k - 1].whitespace_ if step > 0 else t.whitespace_):
            break
        if word(t):
            words += 1
            k += step
            edge = k if step > 0 else k + 1
        elif words and joiner(t):
            k += step
        else:
            break
    return edge


def _line_of(doc: Doc, k: int) -> Optional[Tuple[int, int]]:
    """The token bounds of the first line that has a word or number from ``doc[k]`` on
    (space tokens and line breaks skipped), or None when there is none."""
    n = len(doc)
    while k < n and doc[k].is_space:
        k += 1
    if k >= n:
        return None
    start = k
    while start > 0 and not doc[start - 1].is_space and "\n" not in doc[start - 1].whitespace_:
        start -= 1
    end = k
    while end < n and not doc[end].is_space:
        end += 1
        if "\n" in doc[end - 1].whitespace_:
            break
    return start, end


@Language.factory("phi_gazetteer", default_config=DEFAULT_CONFIG["phi_gazetteer"], assigns=["doc.spans"])
def make_phi_gazetteer(
    nlp: Language, name: str, spans_key: str, min_zipf: float, filter_ents: bool, rejected_key: str,
    address_anchors_key: str, patterns_key: str,
) -> "PhiGazetteer":
    """Create a phi_gazetteer (see the module docstring).

    spans_key (str): the span group the matches are written to.
    min_zipf (float): a list entry whose Zipf frequency as an English word is at
        least this is an ordinary word ("will", "rose") and is taken only in context.
    filter_ents (bool): drop the entities of an upstream NER that cannot be PHI
        of their category by their form (``Gazetteer.plausible_entity``: "Hello I
        moved" as a HOSPITAL, "card" as a DOCTOR); they go to ``doc.spans[rejected_key]``.
    rejected_key (str): the span group of the dropped entities (for review).
    address_anchors_key (str): the span group whose STREET and ZIP spans (the pattern
        ruler's) are completed with the address parts around them
        (``Gazetteer.address_runs``: "6750 koskikatu 25 apt. 864 / lappeenranta");
        "" completes none. The NER's STREET and ZIP entities are completed too.
    patterns_key (str): the span group of the pattern ruler, whose contacts and
        identifiers (e-mail, URL, IP address, phone, SSN, record and licence numbers)
        win over a NER entity of another category that holds one ("acct # 55012833
        billing aware" as a STREET, an e-mail as a HOSPITAL): the entity keeps only
        its words outside them; "" turns this off.
    RETURNS (PhiGazetteer): the component.
    """
    return PhiGazetteer(
        nlp, name=name, spans_key=spans_key, min_zipf=min_zipf, filter_ents=filter_ents, rejected_key=rejected_key,
        address_anchors_key=address_anchors_key, patterns_key=patterns_key,
    )


class PhiGazetteer(Pipe):
    """Case-insensitive gazetteer of names, places and hospitals with context rules."""

    def __init__(
        self,
        nlp: Language,
        name: str = "phi_gazetteer",
        *,
        spans_key: str = "phi_gazetteer",
        min_zipf: float = 3.0,
        filter_ents: bool = True,
        rejected_key: str = "phi_ner_rejected",
        address_anchors_key: str = "phi_patterns",
        patterns_key: str = "phi_patterns",
    ):
        self.vocab = nlp.vocab
        self._nlp = nlp
        self.name = name
        self.spans_key = spans_key
        self.min_zipf = min_zipf
        self.filter_ents = filter_ents
        self.rejected_key = rejected_key
        self.address_anchors_key = address_anchors_key
        self.patterns_key = patterns_key
        self._label_map = make_label_map()
        self._gazetteer: Optional[Gazetteer] = None

    def initialize(
        self,
        get_examples=None,
        *,
        nlp: Optional[Language] = None,
        lists: Optional[Dict[str, str]] = None,
        labels: Optional[Dict[str, str]] = None,
        common_words: Optional[str] = COMMON_WORDS,
        clinical_terms: Optional[str] = CLINICAL_TERMS,
        use_default_lists: bool = True,
    ) -> None:
        """Read the term lists.

        get_examples (Optional[Callable]): ignored.
        nlp (Optional[Language]): the pipeline.
        lists (Optional[Dict[str, str]]): extra lists, key -> file (asset name or
            path), added to the shipped ones (a shipped key is replaced).
        labels (Optional[Dict[str, str]]): the label of each extra list (a list
            key that is not a shipped one needs one, e.g. ``{"wards": "WARD"}``).
        common_words (Optional[str]): word/Zipf TSV of ordinary words.
        clinical_terms (Optional[str]): clinical words that are never a name or place.
        use_default_lists (bool): start from the shipped lists.
        """
        chosen = dict(DEFAULT_LISTS) if use_default_lists else {}
        chosen.update(lists or {})
        self.set_lists(load_lists(chosen, labels or {}, common_words, clinical_terms, self.min_zipf))

    def set_lists(self, lists: GazetteerLists) -> None:
        """Use these lists (compiled with the pipeline's tokenizer inside a memory
        zone, so no list string stays in the vocab saved with the pipeline)."""
        with memory_zone(self._nlp):
            self._gazetteer = Gazetteer.from_lists(lists, self._nlp.make_doc)

    @property
    def is_initialized(self) -> bool:
        return self._gazetteer is not None

    def is_allowed(self, word: str) -> bool:
        """False for a word the lists name as a person, place or hospital, unless
        it is a very common word ("will", "mark": Zipf >= ``EMIT_ZIPF``): such a
        replacement is flagged by the gazetteer in a name or place context, so
        the resampler and the neighbour surrogates (which ask every upstream
        component this before emitting a word) must not write it."""
        if self._gazetteer is None:
            return True
        word = word.lower()
        if not self._gazetteer.tags(word) & {NAME, HOSPITAL, *PLACE_LABELS}:
            return True
        return zipf(word) >= EMIT_ZIPF

    def __call__(self, doc: Doc) -> Doc:
        """Write the gazetteer's spans to ``doc.spans[spans_key]``."""
        if self._gazetteer is None:
            raise ValueError(
                f"[{self.name}] is not initialized: call nlp.initialize() (it reads the shipped lists)"
            )
        spans = [_without_field_label(doc, sp) for sp in self._gazetteer(doc)]
        if self.filter_ents and doc.ents:
            self._split_place_lines(doc)
        doc.spans[self.spans_key] = spans
        if self.filter_ents and doc.ents:
            self._filter_ents(doc)
            self._ward_sides(doc)
            trimmed = [
                _without_field_label(doc, Span(doc, e.start, e.end, label=NAME))
                if category_of(e.label_, self._label_map) == "NAME" else e
                for e in doc.ents
            ]
            if any(len(t) < len(e) for t, e in zip(trimmed, doc.ents)):
                doc.ents = [Span(doc, t.start, t.end, label=e.label) for t, e in zip(trimmed, doc.ents)]
        if self.address_anchors_key:
            # after the NER's entities are checked: an entity refused by its form neither
            # anchors an address nor covers a part of one (">Pines Beach" as a hospital)
            anchors = [*doc.spans.get(self.address_anchors_key, []), *doc.ents]
            runs = [
                piece
                for run in self._gazetteer.address_runs(doc, anchors, spans)
                for piece in _outside_longer(run, doc.ents)
            ]
            if runs:
                doc.spans[self.spans_key] = filter_spans(spans + runs)
        # each rule reads the spans found before it: the names beside the names found, names
        # taken again, the organisations people point to, names of capitalised words taken whole
        rules = (
            self._name_neighbours, self._nicknames, self._names_again, self._vocatives, self._orgs_beside_people,
            self._capitalised_names, self._dates_and_ages_beside, self._towns_after_places, self._ids_joined,
            self._org_edges,
        )
        for rule in rules:
            extra = rule(doc)
            if extra:
                doc.spans[self.spans_key] = filter_spans(list(doc.spans[self.spans_key]) + extra)
        return doc

    def _capitalised_names(self, doc: Doc) -> List[Span]:
        """In mixed-case text, the whole of a name written in capitalised words that a
        detector found a part of, or that has a word no dictionary has: "Sp Capital" +
        "Iq", "Nera Economic Consulting", "Roadify Transit", "Inrix Traffic" (the other
        words, ordinary ones, were left beside the surrogate). A run of two to five
        capitalised words on one line, no stop word among them ("University of Nicosia",
        "Blackrock and Greatschools" are two names each); its first word starts no sentence
        unless a detector found it. A place of work after "at" is one too
        (``_cued_organisation``). Every other word
        must be free to take: no clinical term, department, calendar, title or role word,
        no eponym ("Bankart Lesion"), no field label before a colon, no word of a name or a
        pattern's span (a person's name ends where it ends: "John Smith Date of Birth").
        The run gets the label of the organisation or place found in it, ORG when the
        reason was an unknown word."""
        if not is_mixed_case(doc):
            return []
        n = len(doc)
        label_at: Dict[int, str] = {}
        blocked = set()
        for ent in doc.ents:
            cat = category_of(ent.label_, self._label_map)
            for i in range(ent.start, ent.end):
                if cat in ("ORGANIZATION", "LOCATION"):
                    label_at[i] = "ORG" if cat == "ORGANIZATION" else CITY
                else:
                    blocked.add(i)
        for key in (self.spans_key, self.patterns_key):
            for sp in doc.spans.get(key, []) if key else []:
                for i in range(sp.start, sp.end):
                    if key == self.spans_key and sp.label_ in ("ORG", HOSPITAL, CITY):
                        label_at.setdefault(i, sp.label_)
                    elif i not in label_at:
                        blocked.add(i)
        gaz = self._gazetteer
        people = {i for sp in self._people(doc) for i in range(sp.start, sp.end)}
        out: List[Span] = []
        i = 0
        while i < n:
            t = doc[i]
            if not (t.is_alpha and t.is_title) or t.is_stop or i in blocked:
                i += 1
                continue
            end = i + 1  # contiguous capitalised words on one line ("of", "and" end a run:
            # "University of Nicosia", "Blackrock and Greatschools" are two names)
            while end < n and doc[end].is_alpha and doc[end].is_title and not doc[end].is_stop \
                    and "\n" not in doc[end - 1].whitespace_ and doc[end - 1].whitespace_:
                end += 1
            start, members = i, list(range(i, end))
            i = end
            if not 2 <= len(members) <= 5 or any(k in blocked for k in members):
                continue
            found = [k for k in members if k in label_at]
            if not found and self._cued_organisation(doc, members, people):
                out.append(Span(doc, start, end, label="ORG"))
                continue
            # a rare word: no ordinary one, nor a nationality ("Czech Border Force")
            unknown = [k for k in members if k not in label_at and gaz._unknown_word(doc, k)
                       and not gaz._clinical_word(doc[k].lower_)  # "Labor and Delivery Triage"
                       and zipf(doc[k].lower_) < _RARE_ZIPF and not _starts_sentence(doc, k)]
            if not found and not unknown or len(found) == len(members):
                continue
            if _starts_sentence(doc, start) and start not in label_at:
                continue
            free = [k for k in members if k not in label_at]
            # a rare word beside names only is a person's name or an eponym ("Cheyne Stokes
            # breathing"), beside rare words only a name for the other rules: no organisation
            known = [k for k in free if k not in unknown]
            if not found and (not known or all(NAME in gaz.tags(doc[k].lower_) for k in known)):
                continue
            if any(self._not_in_name(doc, k) for k in free) or gaz.eponym_after(doc, end) \
                    or any(doc[k].lower_ in EPONYM_HEADS for k in members) \
                    or any(is_not_phi_place(doc[k : k + m].text) for k in members for m in (1, 2) if k + m <= end):
                continue
            if _before_colon(doc, end):
                continue
            label = next((label_at[k] for k in members if k in label_at), "ORG")
            out.append(Span(doc, start, end, label=label))
        return out

    def _cued_organisation(self, doc: Doc, members: List[int], people: set) -> bool:
        """Capitalised words after a trade, a verb of work or a person (``people``: token
        indices) and "at" inside a sentence that name a place of work or care, ordinary words as
        they may be ("a line cook at Legal Sea Foods", "Dr. Brandt at
        Riverside Community Care"): two words at least, not all of them department or service
        words ("from Intensive Care Unit"), none a clinical term, a specialty, a calendar, title,
        role or credential word or a size ("from Community Acquired Pneumonia"), not all listed
        names (a person: "from Mary Smith"), no eponym's head, no field's label after them. ("for"
        is no such cue: "admitted for Total Knee Arthroplasty"; an employer after "works for" is
        the employer rule's.)"""
        start, end = members[0], members[-1] + 1
        if _starts_sentence(doc, start) or start < 2 or doc[start - 1].lower_ != "at":
            return False
        gaz = self._gazetteer
        before = doc[start - 2]
        # who works or is seen there: a trade, a verb of work, a person found ("a line cook at",
        # "works at", "Dr. Brandt at"); not "recovered from Community Acquired Pneumonia"
        if not (before.lower_ in trade_words() or before.lower_ in _WORK_WORDS or before.i in people):
            return False
        words = [doc[k].lower_ for k in members]
        if any(self._never_in_name(w) for w in words):
            return False  # (a diagnosis or procedure: "from Community Acquired Pneumonia")
        if all(self._not_in_name(doc, k) for k in members) or all(NAME in gaz.tags(w) for w in words):
            return False
        if any(w in EPONYM_HEADS for w in words) or gaz.eponym_after(doc, end) or _before_colon(doc, end):
            return False
        return not is_not_phi_place(doc[start:end].text)

    def _not_in_name(self, doc: Doc, k: int) -> bool:
        """A capitalised word that no organisation's or place's name is made of: a word
        ``_never_in_name``, or a department or service of a hospital ("Internal Medicine")."""
        low = doc[k].lower_
        return self._never_in_name(low) or low in DEPARTMENT_WORDS or low in _SERVICE_WORDS

    def _never_in_name(self, low: str) -> bool:
        """A clinical term, a specialty ("Surgery", "Cardiology"), a calendar, title, role or
        credential word, a catheter's size ("27-French Olympus"): in no name of a place of work,
        even beside other words ("Riverside Community Care" may hold a department's word)."""
        return self._gazetteer.clinical_term(low) or bool(_SPECIALTY_NAME.search(low)) or low in CALENDAR_WORDS \
            or low in TITLES or is_role(low) or low in CREDENTIALS or low in _SIZE_WORDS

    def _vocatives(self, doc: Doc) -> List[Span]:
        """NAME spans, in mixed-case text: a listed first name someone is addressed by, between
        a comma after a word and the end of the sentence or another comma ("Remember me,
        Maria?", "Thank you, Grace."): capitalised, no other detector's, not a very common
        word ("ANESTHESIA: , General.")."""
        if not is_mixed_case(doc):
            return []
        gaz = self._gazetteer
        taken = self._taken(doc)
        n = len(doc)
        out: List[Span] = []
        for i in range(1, n - 1):
            t = doc[i]
            if doc[i - 1].text != "," or doc[i + 1].text not in {"?", "!", ".", ","} or i in taken:
                continue
            if i < 2 or not doc[i - 2].is_alpha:
                continue  # "ANESTHESIA: , General.": a field's value, no one addressed
            if t.is_title and "key:first_names" in gaz.tags(t.lower_) and not gaz.clinical_term(t.lower_) \
                    and t.lower_ not in CALENDAR_WORDS and zipf(t.lower_) < EMIT_ZIPF:
                out.append(Span(doc, i, i + 1, label=NAME))
        return out

    def _taken(self, doc: Doc) -> set:
        """The tokens some detector has taken so far: the NER's, the lists' and the patterns'."""
        taken = {i for sp in doc.ents for i in range(sp.start, sp.end)}
        for key in (self.spans_key, self.patterns_key):
            if key and key in doc.spans:
                taken.update(i for sp in doc.spans[key] for i in range(sp.start, sp.end))
        return taken

    def _orgs_beside_people(self, doc: Doc) -> List[Span]:
        """ORG spans the people found point to, where nothing else named the organisation:
        - the words of a name (``_name_run``) after a person and "of" or "from" (where someone
          works: "Yuito Hirai of Reed Elsevier", "mary jones of dunkin donuts"), and before a
          possessive and a person ("Consumer Reports's Impi Nummelin", "PANJIVA'S RIKU ANDOU");
        - in any letter case, a letterhead's organisation: the one short line between a
          person's line and an address line ("Katrina Mota / Knowledge Agency / 55470 72
          Acheron Road", "> Roadify Transit").
        - a listed town after a person and "in" or "from" ("daughter kim in revere").
        No word of such a name may be another detector's, a clinical term, a department,
        title, role or calendar word ("Dr. Ruiz of Cardiology", "Dr. Lee from Renal"), nor a
        state or country ("her son from Texas"); words that are all listed names are a
        person's possessive ("Lisa's Tom"), not a firm."""
        people = self._people(doc)
        if not people:
            return []
        taken = self._taken(doc)
        # the tokens only the name lists took (no NER entity, no pattern, no other list span)
        others = {i for sp in doc.ents for i in range(sp.start, sp.end)}
        for key in (self.spans_key, self.patterns_key):
            for sp in doc.spans.get(key, []) if key else []:
                if key != self.spans_key or sp.label_ != NAME:
                    others.update(range(sp.start, sp.end))
        name_only = {i for sp in doc.spans[self.spans_key] if sp.label_ == NAME for i in range(sp.start, sp.end)} - others
        mixed_case = is_mixed_case(doc)
        n = len(doc)
        out: List[Span] = []
        gaz = self._gazetteer
        for person in people:
            # where a person lives or comes from: a listed town, ordinary word or not ("daughter
            # kim in revere", "son john from quincy")
            k = person.end + 1
            if k < n and doc[person.end].lower_ in {"in", "from"} and k not in taken and CITY in gaz.tags(doc[k].lower_) \
                    and (not mixed_case or doc[k].is_title or doc[k].is_upper):
                out.append(Span(doc, k, k + 1, label=CITY))
            if person.end + 1 < n and doc[person.end].lower_ in {"of", "from"}:
                start = person.end + 1
                end = self._name_run(doc, start, 1, mixed_case)
                # words only the name lists took go with a free one ("Chinedu Oduya of Okafor Logistics")
                free = taken - name_only if any(i not in name_only for i in range(start, end)) else taken
                if end > start and self._org_words(doc, start, end, free, mixed_case) and not _before_colon(doc, end):
                    out.append(Span(doc, start, end, label="ORG"))
            if person.start >= 2 and doc[person.start - 1].lower_ in {"'s", "’s"}:
                end = person.start - 1
                start = self._name_run(doc, end - 1, -1, mixed_case)
                if start < end and self._org_words(doc, start, end, taken, mixed_case):
                    out.append(Span(doc, start, end, label="ORG"))
            letterhead = self._letterhead_org(doc, person, taken, name_only)
            if letterhead is not None:
                out.append(letterhead)
            signed = self._signature_org(doc, person, taken - name_only, mixed_case)
            if signed is not None:
                out.append(signed)
        return out

    def _org_edges(self, doc: Doc) -> List[Span]:
        """ORG spans: an organisation whose middle a detector took, with the words of its
        kind after it and a word of its own before it (``Gazetteer.org_tail`` and
        ``org_lead``): a town, place or organisation found and "electric", "home care",
        "state prison", "psychiatric group" after it ("holmes county electric", "hardin co home
        care", "pine street inn"); an organisation found and one word before it ("blue" of
        "blue mountain pharmacy", "maple" of "maple ridge nursing & rehab"). The words left
        beside the surrogate told the organisation, and read oddly there."""
        gaz = self._gazetteer
        mixed_case = is_mixed_case(doc)
        found = [
            (sp, category_of(sp.label_, self._label_map))
            for sp in [*doc.ents, *doc.spans[self.spans_key], *doc.spans.get(self.patterns_key, [])]
        ]
        taken = self._taken(doc)
        out: List[Span] = []
        for sp, category in found:
            # (a capitalised name too in mixed-case text: "Holmes County Electric", where the
            # capitalised run was taken for a person's "Holmes County")
            if category not in ("ORGANIZATION", "LOCATION") and not (mixed_case and category == "NAME"):
                continue
            if is_not_phi_place(sp.text):
                continue  # a state or country is no town of a firm ("served time in a texas prison")
            others = taken - set(range(sp.start, sp.end))
            end = gaz.org_tail(doc, sp.end, mixed_case, others)
            start = gaz.org_lead(doc, sp.start, mixed_case, others) if category == "ORGANIZATION" else sp.start
            if category == "NAME" and end == sp.end:
                continue
            if (start, end) != (sp.start, sp.end):
                out.append(Span(doc, start, end, label="ORG"))
        return out

    def _ids_joined(self, doc: Doc) -> List[Span]:
        """ID spans: a pattern's identifier with the pieces glued to it by hyphens, which the
        tokenizer split off ("case # 24-dc-01187", "aps case az-aps-2025-66102": the patterns
        took "dc-01187", "aps-2025"); pieces of letters and digits up to eight characters."""
        n = len(doc)
        out: List[Span] = []

        def piece(k: int) -> bool:
            return 0 <= k < n and doc[k].text.isalnum() and len(doc[k].text) <= 8

        for sp in doc.spans.get(self.patterns_key, []):
            if category_of(sp.label_, self._label_map) != "ID":
                continue
            start, end = sp.start, sp.end
            while start >= 2 and doc[start - 1].text == "-" and not doc[start - 1].whitespace_ \
                    and not doc[start - 2].whitespace_ and piece(start - 2):
                start -= 2
            while end + 1 < n and doc[end].text == "-" and not doc[end - 1].whitespace_ \
                    and not doc[end].whitespace_ and piece(end + 1):
                end += 2
            if (start, end) != (sp.start, sp.end):
                out.append(Span(doc, start, end, label=sp.label_))
        return out

    def _towns_after_places(self, doc: Doc) -> List[Span]:
        """CITY spans: a listed town, ordinary word or not, after "in" and an organisation,
        hospital or landmark found, or a relative's role word ("3rd grade at jefferson
        elementary in normal,", "dialysis at davita in mesa;", "hcp (niece) in hull."), one
        to three words that end the phrase (punctuation, the line's end or a stop word
        after them); in mixed-case text capitalised."""
        n = len(doc)
        taken = self._taken(doc)
        ends = {
            sp.end for sp in [*doc.ents, *doc.spans[self.spans_key]]
            if category_of(sp.label_, self._label_map) in ("ORGANIZATION", "LOCATION") and sp.label_ != CITY
        }
        mixed_case = is_mixed_case(doc)
        gaz = self._gazetteer
        out: List[Span] = []
        for i in range(1, n - 1):
            # (or a comma, when the town ends the line: a letterhead's "Christ Medical Center, Oak
            # Lawn", "golden living center, cedar rapids")
            comma = doc[i].text == "," and i in ends
            if not (doc[i].lower_ == "in" or comma) or i + 1 in taken:
                continue
            j = i - 1
            if doc[j].text == ")" and j > 0:
                j -= 1
            if not (i in ends or j + 1 in ends or doc[j].lower_ in ROLES):
                continue
            k = i + 1
            end = next((e for e in (k + 3, k + 2, k + 1) if e <= n and gaz.is_listed(doc[k:e], CITY)), None)
            while end is not None and end > k + 1 and doc[end - 1].is_space:
                end -= 1  # (the line's break the list match ran over: "Oak Lawn\n")
            if end is None or any(x in taken for x in range(k, end)) or any("\n" in t.whitespace_ for t in doc[k:end - 1]):
                continue
            if mixed_case and not all(t.is_title or t.is_upper for t in doc[k:end] if t.is_alpha):
                continue
            if end < n and "\n" not in doc[end - 1].whitespace_ and not (doc[end].is_punct or doc[end].is_stop or doc[end].is_space):
                continue  # ("in normal sinus rhythm")
            if comma and not (end == n or "\n" in doc[end - 1].whitespace_ or doc[end].is_space):
                continue
            out.append(Span(doc, k, end, label=CITY))
        return out

    def _signature_org(self, doc: Doc, person: Span, taken: set, mixed_case: bool) -> Optional[Span]:
        """The organisation a clinician signs with: on a line that opens with a person's name
        (a dash, quote or title before it), after the name's credentials and a comma, and a
        specialty or department and a comma if there is one, the words to the next comma or
        the line's end ("n. osei, md, psychiatry, northwestern memorial", "a. sorensen rn,
        legacy emanuel", "s. rich, md, children's health dallas": "dallas" a list's town).
        One to five words, none a number, a ward, a role, a department or a shift ("j. smith
        rn, charge nurse", "k. lee rn, micu", "rn, night shift" name none); a hospital's unit
        after them stays ("harlan arh ed")."""
        line = _line_of(doc, person.start)
        if line is None or any(not (doc[i].is_punct or is_title_word(doc[i])) for i in range(line[0], person.start)):
            return None
        k, end = person.end, line[1]
        credentials = 0
        while k < end and (doc[k].text in {",", "/"} or doc[k].lower_.rstrip(".") in CREDENTIALS):
            credentials += doc[k].lower_.rstrip(".") in CREDENTIALS
            k += 1
        if not credentials or doc[k - 1].text != ",":
            return None
        # a specialty or department and its comma ("psychiatry,", "internal medicine,")
        j = k
        while j < end and doc[j].is_alpha and self._not_in_name(doc, j):
            j += 1
        if j > k and j < end and doc[j].text == ",":
            k = j + 1
        stop = k
        while stop < end and doc[stop].text != "," and stop not in taken:
            stop += 1
        while stop > k and (doc[stop - 1].is_punct or doc[stop - 1].lower_ in _UNIT_AFTER_HOSPITAL):
            stop -= 1
        words = [t for t in doc[k:stop] if t.is_alpha]
        if not 1 <= len(words) <= 5 or any(
            not (t.is_alpha or t.lower_ in {"&", "-", "'s", "’s", "."}) for t in doc[k:stop]
        ) or any(t.lower_ in _SHIFT_WORDS or t.lower_.rstrip(".") in _CONTACT_WORDS for t in words):
            return None  # ("e. broussard, md, pager 4-1187": a pager, no firm)
        if mixed_case and not all(t.is_title or t.is_upper or t.lower_ in _INNER_STOP_WORDS for t in words):
            return None
        # the place in the signature vouches for ordinary words ("legacy emanuel"); not for
        # clinical terms, departments alone, or a person's name alone
        lows = [t.lower_ for t in words]
        if any(self._never_in_name(w) for w in lows) or all(self._not_in_name(doc, t.i) for t in words):
            return None
        gaz = self._gazetteer
        if self._not_in_name(doc, words[-1].i) and all(
            gaz.is_common(w) and w not in HOSPITAL_NAME_WORDS for w in lows
        ):
            return None  # a department of ordinary words ("internal medicine", "family medicine")
        if all(NAME in gaz.tags(w) for w in lows) or is_not_phi_place(doc[k:stop].text):
            return None
        return Span(doc, k, stop, label="ORG")

    def _name_run(self, doc: Doc, k: int, step: int, mixed_case: bool) -> int:
        """From ``doc[k]`` on (``step`` 1: the end of the run; -1: its start), the words of an
        organisation's name on one line: capitalised words and acronyms in mixed-case text,
        "and", "&" or "of" between two of them; in single-case text words that are no stop
        words, to the first punctuation or a word notes write after a name ("KRISTEN ROCHER OF
        BUTLER-PETERS ,", "mary jones of dunkin donuts visited"; a hyphen inside a name)."""
        if mixed_case:
            return _run(doc, k, step, 5, lambda t: t.is_alpha and (t.is_title or (t.is_upper and 2 <= len(t.text) <= 6)),
                        lambda t: t.lower_ in {"and", "&", "of"})
        after_name = self._gazetteer.after_name_word
        return _run(doc, k, step, 4, lambda t: t.is_alpha and not t.is_stop and not after_name(t),
                    lambda t: t.text == "-" and not t.whitespace_)

    def _org_words(self, doc: Doc, start: int, end: int, taken: set, mixed_case: bool = True) -> bool:
        """Whether ``doc[start:end]`` may be an organisation's name that no detector took; in
        single-case text, where capitals tell nothing, one word must be no dictionary's, or a
        company word follow a name ("OF BUTLER-PETERS", "PANJIVA'S", "of acme logistics"; not
        "of the family", "of nursing", "from pharmacy")."""
        words = [t for t in doc[start:end] if t.is_alpha and t.lower_ not in {"and", "of"}]
        if not words or any(i in taken for i in range(start, end)):
            return False
        if not mixed_case and not (
            any(not self._gazetteer._clinical_word(t.lower_) for t in words)
            or any(t.lower_ in COMPANY_WORDS for t in words) and any(t.lower_ not in COMPANY_WORDS for t in words)
        ):
            return False  # (a company word alone names none: "talked with x from pharmacy")
        if any(self._not_in_name(doc, t.i) for t in words):
            return False
        if is_not_phi_place(doc[start:end].text):
            return False
        gaz = self._gazetteer
        return not all(NAME in gaz.tags(t.lower_) for t in words) or any(t.lower_ in COMPANY_WORDS for t in words)

    def _letterhead_org(self, doc: Doc, person: Span, taken: set, name_only: set) -> Optional[Span]:
        """The organisation of a letterhead: the line after a person's line (credentials,
        quote marks and rare words aside: "??? Linneo Medrano"), one to five words, when
        the line after it holds an address (a number or P.O. box first, or a street
        found on it: "the corner of 25 Dili Gianni Street and ..."). Words the name lists
        alone took are the organisation's there ("American Red Ball Movers" had lost "Red
        Ball" to a person's surrogate); one word at least must be free."""
        gaz = self._gazetteer
        line = _line_of(doc, person.start)
        if line is None:
            return None
        for i in range(*line):
            t = doc[i]
            if not (person.start <= i < person.end or t.is_punct or t.lower_.rstrip(".") in CREDENTIALS
                    or is_title_word(t) or i in name_only or gaz._unknown_word(doc, i)):
                return None
        org = _line_of(doc, line[1])
        if org is None:
            return None
        start, end = org
        while start < end and doc[start].is_punct:
            start += 1  # "> Roadify Transit", "??? compared care"
        if not 1 <= sum(t.is_alpha for t in doc[start:end]) <= 5 or any(
            not (t.is_alpha or t.lower_ in {"&", "-", "'s", "’s", ".", ","}) for t in doc[start:end]
        ) or all(i in name_only for i in range(start, end) if doc[i].is_alpha):
            return None
        if not self._org_words(doc, start, end, taken - name_only):
            return None
        address = _line_of(doc, org[1])
        if address is None:
            return None
        k = address[0]
        while k < address[1] and doc[k].is_punct:
            k += 1
        streets = {
            i for key in (self.spans_key, self.patterns_key) if key
            for sp in doc.spans.get(key, []) if sp.label_ == "STREET" for i in range(sp.start, sp.end)
        }
        if k >= address[1] or not (
            doc[k].like_num or doc[k].lower_.rstrip(".") in {"po", "p.o", "box", "unit", "apt", "suite"}
            or any(i in streets for i in range(k, address[1]))
        ):
            return None
        return Span(doc, start, end, label="ORG")

    def _people(self, doc: Doc) -> List[Span]:
        """The names found so far: the NER's and the lists'."""
        names = [sp for sp in doc.ents if category_of(sp.label_, self._label_map) == "NAME"]
        return names + [sp for sp in doc.spans[self.spans_key] if sp.label_ == NAME]

    def _names_again(self, doc: Doc) -> List[Span]:
        """The words of a person's name found in a note, where they stand again alone in
        it ("Name: Chase Meadows ... Chase is a 98 yo gentleman": a first name that is also an
        ordinary word, first in its sentence, has no cue of its own). Taken again in
        mixed-case text where capitalised, in single-case text where no word list has the
        word; never a modal before its verb ("Will Smith ... Will call"), a title or a role
        word, nor a word inside another detector's span. A name is a person's all through
        the note: the replacer gives it the same surrogate each time."""
        names = self._people(doc)
        words = {
            t.lower_ for sp in names for t in sp
            if t.is_alpha and len(t.text) > 1 and t.lower_ not in TITLES and t.lower_ not in ROLES
            and t.lower_ not in _NAME_PARTICLES and not self._gazetteer.clinical_term(t.lower_)
        }
        if not words:
            return []
        taken = self._taken(doc)
        mixed_case = is_mixed_case(doc)
        out: List[Span] = []
        for t in doc:
            if t.i in taken or t.lower_ not in words:
                continue
            if mixed_case and not (t.is_title or t.is_upper):
                continue
            if not mixed_case and self._gazetteer.is_common(t.lower_):
                continue
            if self._gazetteer.modal_before_verb(doc, t.i):
                continue
            out.append(Span(doc, t.i, t.i + 1, label=NAME))
        return out

    def _dates_and_ages_beside(self, doc: Doc) -> List[Span]:
        """DATE and AGE spans the people and places found point to:
        - a month/day right after a person, hospital or organisation, which dates the visit
          there ("f/u dr abdullah 1/12, pulm", "from saint francis hospital 10/4 s/p"): not over
          10 ("dr x 8/10 pain"), not "2/2" (shorthand of "secondary to"), nor before a word
          that counts ("1/2 tab");
        - an age over 89 between commas or in parentheses after a person ("wife gloria, 90, at
          bedside", "wife may (92) in to visit"), or right after a patient named by two words
          after the patient's word where a phrase ends ("RES E. STROUD 94 @ OAK TERRACE", "pt
          Lester Grimes 90, CHF", "pt thaddeus wolfe 97 expired", "pt minerva toll 98 lives"),
          or, below a fever's 100, after a patient's title after that word or before two names
          ("pt mr. abernathy 98, end stage", "ms. irma kovac 96 found"); not "T-MAX PT 101", "dr
          smith 100.", "Mr. Jones 101, fever", "resident jones 104, bed b", "pt mr. jones 95 on
          ra", "96 sat", "98 pounds", "92: afib", "92 from 88", "92 d/c o2";
        - an extension of four or five digits after a person and a spaced "x" ("CASE MGR ELLIE X
          7718": the glued "x7718" is a pattern's); no clock time, distance or count ("dr bell x
          150 feet", "called dr smith x 2000")."""
        named = [
            sp for sp in [*doc.ents, *doc.spans[self.spans_key]]
            if category_of(sp.label_, self._label_map) in ("NAME", "ORGANIZATION")
        ]
        taken = self._taken(doc)
        n = len(doc)
        out: List[Span] = []
        # the patients named: after a patient's word ("RES E. STROUD", "pt lester grimes";
        # "dr smith 100." is a doctor's, "Mary Jones 104, Apt 3" an address)
        # (two words at least, a first name and a surname or an initial: "resident jones 104, bed b"
        # is a room; with a title, an age below a fever's only, after a patient's word or before
        # two names: "pt mr. abernathy 98, end stage", "ms. irma kovac 96 found on floor"; not
        # "Mr. Jones 101, fever")
        patients: Dict[int, int] = {}  # the name's end -> the highest age taken after it
        for sp in named:
            if category_of(sp.label_, self._label_map) != "NAME":
                continue
            words = sum(not t.is_punct for t in sp if t.lower_.rstrip(".") not in TITLES)
            title = sp.start if doc[sp.start].lower_.rstrip(".") in _PATIENT_TITLES else sp.start - 1
            if title > 0 and doc[title].text == "." and not doc[title - 1].whitespace_:
                title -= 1  # ("mr." split in lower case: "mr", ".")
            titled = title >= 0 and doc[title].lower_.rstrip(".") in _PATIENT_TITLES
            resident = title > 0 and doc[title - 1].lower_ in _RESIDENT_WORDS if titled else (
                sp.start > 0 and doc[sp.start - 1].lower_ in _RESIDENT_WORDS
                or doc[sp.start].lower_ in _RESIDENT_WORDS  # (a NER name with the word in it: "RES E. STROUD")
            )
            if resident and words >= 2 and not titled:
                patients[sp.end] = 125
            elif titled and (resident or words >= 2):
                patients.setdefault(sp.end, 99)
        for k, oldest in patients.items():
            # three digits at most, no clock time ("0100")
            if k >= n or k in taken or not re.match(r"^[1-9]\d{1,2}$", doc[k].text) or not 90 <= int(doc[k].text) <= oldest:
                continue
            nxt = doc[k + 1] if k + 1 < n else None
            # (no "on", "w/", ":", "d/c", "from" nor a verb's "-ing" or "-s" but "lives", as in a note's
            # first line "pt minerva toll 98 lives w/ dtr": "pt mr. jones 95 on ra", "98 pounds", "97
            # sitting", "92: afib", "92 d/c o2", "91 from 2l nc" are values)
            if nxt is None or "\n" in doc[k].whitespace_ or nxt.text in {",", ".", ";", "@"} or "\n" in nxt.text \
                    or (self._gazetteer.after_name_word(nxt) or nxt.lower_ == "lives") \
                    and nxt.lower_ not in _UNITS_AFTER | _COUNTED_AFTER | _READING_AFTER:
                out.append(Span(doc, k, k + 1, label="AGE"))
        for sp in named:
            k = sp.end
            if k >= n or k in taken:
                continue
            m = _MONTH_DAY_NOT_10.match(doc[k].text)
            if m and doc[k].text not in _SHORTHAND_MD and not (k + 1 < n and doc[k + 1].lower_ in _COUNTED_AFTER):
                out.append(Span(doc, k, k + 1, label="DATE"))
            elif category_of(sp.label_, self._label_map) == "NAME" and doc[k].text in {",", "("} and k + 2 < n \
                    and doc[k + 1].text.isdigit() and 90 <= int(doc[k + 1].text) <= 125 \
                    and (doc[k + 2].text in ({",", ".", ")", ";"} if doc[k].text == "," else {")"})
                         or doc[k + 2].lower_ in {"yo", "y/o", "years", "yrs"}):
                out.append(Span(doc, k + 1, k + 2, label="AGE"))  # ("wife may (92) in to visit")
            elif category_of(sp.label_, self._label_map) == "NAME" and doc[k].lower_ == "x" and k + 1 < n \
                    and k + 1 not in taken and re.match(r"^\d{4,5}$", doc[k + 1].text) \
                    and not _CLOCK_TIME.match(doc[k + 1].text) and doc[k + 1].text != "2400" \
                    and not (k + 2 < n and (doc[k + 2].lower_ in _COUNTED_AFTER or doc[k + 2].lower_ in _UNITS_AFTER)):
                out.append(Span(doc, k, k + 2, label="PHONE"))
        return out

    def _nicknames(self, doc: Doc) -> List[Span]:
        """NAME spans: a nickname in quotes, one or two words, after a person's name or a
        role word, or after "goes by", "aka", "nicknamed", "calls himself" ("wife patricia
        ("pat")", "girlfriend "bunny" called", "GOES BY "SONNY""); no clinical term
        nor a patient's word ("male "stable"")."""
        people = {i for sp in self._people(doc) for i in range(sp.start, sp.end)}
        gaz = self._gazetteer
        n = len(doc)
        out: List[Span] = []
        for i in range(1, n - 2):
            if doc[i].text not in _QUOTES:
                continue
            end = i + 1
            while end < n and end - i <= 3 and doc[end].is_alpha:
                end += 1
            if end == i + 1 or end - i > 3 or end >= n or doc[end].text not in _QUOTES:
                continue
            words = [t.lower_ for t in doc[i + 1 : end]]
            if any(gaz.clinical_term(w) or w in CALENDAR_WORDS for w in words):
                continue
            j = i - 1
            if doc[j].text == "(" and j > 0:
                j -= 1
            before = doc[j].lower_
            cued = before in _NICKNAME_CUES or (j > 0 and (doc[j - 1].lower_, before) in _NICKNAME_BIGRAMS)
            if not (cued or j in people or is_role(before)) or before in PATIENT_WORDS:
                continue
            out.append(Span(doc, i + 1, end, label=NAME))
        return out

    def _ward_sides(self, doc: Doc) -> None:
        """A NER ward that ends with its floor goes on over the side of the building after it
        ("WOXLEY 10" of "moved to WOXLEY 10 NORTH": the side was left beside the surrogate)."""
        ents = list(doc.ents)
        changed = False
        for k, ent in enumerate(ents):
            end = ent.end
            if ent.label_.upper() == "WARD" and end < len(doc) and doc[end - 1].like_num \
                    and doc[end].lower_ in BUILDING_SIDES and (k + 1 == len(ents) or ents[k + 1].start > end):
                ents[k] = Span(doc, ent.start, end + 1, label=ent.label)
                changed = True
        if changed:
            doc.ents = ents

    def _name_neighbours(self, doc: Doc) -> List[Span]:
        """NAME spans the names found (NER entities and the lists') leave beside them:
        - one span for two names with a middle initial or name particles between
          them, or particles and a surname ("mijail c adomo", "lóa f. sigmundsdóttir",
          "paul van der voet": the
          NER or the lists find the names, each alone, and the rest was left in the
          text), and, in mixed-case text, lower-case particles before a capitalised
          name ("the van Gijn novel");
        - a listed name joined to a name by a comma, "and" or "&" ("Eklund, Warren and
          Bailey", "sousa and ball": names that alone are ordinary words), not a stop
          word ("dr jones and will call"), a clinical term or a word a phrase goes on
          from ("dr smith and green sputum"), capitalised in mixed-case text;
        - the rest of a hyphenated name ("Al-Farsi", "Mei-Ling").
        The replacer takes the longest span, so the person gets one surrogate."""
        names = self._people(doc)
        mixed_case = is_mixed_case(doc)
        seeds = self._coordinated_surnames(doc) if mixed_case else []
        names += seeds
        if not names:
            return []
        n = len(doc)
        out: List[Span] = []
        in_name = [False] * n
        for sp in names:
            for i in range(sp.start, sp.end):
                in_name[i] = True
        starting = {sp.start: sp for sp in names}
        for left in sorted(names, key=lambda sp: sp.end):
            k = left.end
            while k < n and k - left.end < 3 and doc[k].lower_ in _NAME_PARTICLES:
                k += 1
            if k == left.end and k < n and MIDDLE_INITIAL.match(doc[k].text):
                k += 1 + (k + 1 < n and doc[k + 1].text == ".")
            right = starting.get(k)
            if k > left.end and right is None and k < n and doc[left.end].lower_ in _NAME_PARTICLES \
                    and doc[k].is_alpha and (doc[k].is_title if mixed_case else not self._gazetteer.is_common(doc[k].lower_)):
                right = doc[k : k + 1]  # the surname after the particles ("paul van der voet")
            if k > left.end and right is not None and "\n" not in doc[left.start : right.end].text:
                out.append(Span(doc, left.start, right.end, label=NAME))
        if mixed_case:
            for sp in names:
                k = sp.start
                while k > 0 and sp.start - k < 2 and doc[k - 1].is_lower and doc[k - 1].lower_ in _NAME_PARTICLES:
                    k -= 1
                if k < sp.start and doc[sp.start].is_title:
                    out.append(Span(doc, k, sp.end, label=NAME))
        out += seeds
        # the parts of a hyphenated name that a detector left out ("Abdul Rahman Al" + "-Farsi",
        # "Mei" + "-Ling"): a word joined by a hyphen with no space on either side
        for sp in names:
            start, end = sp.start, sp.end
            # an Arabic article before a hyphenated surname goes with it ("Rahman Al-Farsi")
            if end + 2 < n and doc[end].lower_ in _HYPHEN_ARTICLES and doc[end + 1].text == "-" \
                    and not doc[end].whitespace_ and not doc[end + 1].whitespace_ and doc[end + 2].is_alpha:
                end += 1
            while end + 1 < n and doc[end].text == "-" and not doc[end - 1].whitespace_ \
                    and not doc[end].whitespace_ and doc[end + 1].is_alpha:
                end += 2
            while start >= 2 and doc[start - 1].text == "-" and not doc[start - 2].whitespace_ \
                    and not doc[start - 1].whitespace_ and doc[start - 2].is_alpha:
                start -= 2
            if (start, end) != (sp.start, sp.end):
                out.append(Span(doc, start, end, label=NAME))
        # coordinated names, outwards from the names found (three rounds: "a, b and c")
        connectors = [i for i in range(1, n - 1) if doc[i].lower_ in {",", "&", "and"}]
        for _ in range(3 if connectors else 0):
            added = []
            for i in connectors:
                for k, other in ((i + 1, i - 1), (i - 1, i + 1)):
                    # a word that goes on into a phrase is no name ("dr smith and green sputum")
                    phrase = k > i and k + 1 < n and doc[k + 1].is_alpha and not doc[k + 1].is_stop \
                        and not in_name[k + 1]
                    # unless a listed surname ends the name there ("parents john and barb king at bedside")
                    full = phrase and self._coordinated_name(doc, k + 1, mixed_case) and (
                        k + 2 >= n or doc[k + 2].is_punct or doc[k + 2].is_stop
                        or self._gazetteer.after_name_word(doc[k + 2]) or "\n" in doc[k + 1].whitespace_
                    )
                    if in_name[other] and not in_name[k] and (not phrase or full) and self._coordinated_name(doc, k, mixed_case):
                        in_name[k] = True
                        added.append(Span(doc, k, k + 1 + full, label=NAME))
            if not added:
                break
            out += added
        return out

    def _coordinated_surnames(self, doc: Doc) -> List[Span]:
        """In mixed-case text, the capitalised words of a coordination ("Monjeau, Graves and
        Reed", "Usamov and Bowers") that are listed names and words no list has, one of each
        at least: people named by their surnames, which alone are ordinary words ("Brown and
        White", "Dale and White" stay)."""
        out: List[Span] = []
        n = len(doc)
        i = 0
        while i < n:
            if not (doc[i].is_title and doc[i].is_alpha):
                i += 1
                continue
            members, k = [i], i + 1
            while k + 1 < n and doc[k].lower_ in {",", "and", "&"} and doc[k + 1].is_title and doc[k + 1].is_alpha:
                members.append(k + 1)
                k += 2
            i = k
            if len(members) < 2 or not any(not doc[m].is_sent_start for m in members):
                continue
            listed = [m for m in members if NAME in self._gazetteer.tags(doc[m].lower_)]
            others = [m for m in members if m not in listed]
            # the end of a hyphenated place ("Port-au-Prince, Haiti") and a country are no surnames
            if any(m > 0 and doc[m - 1].text == "-" and not doc[m - 1].whitespace_ for m in members) \
                    or any(is_not_phi_place(doc[m].text) for m in others):
                continue
            if listed and others and all(self._gazetteer._unknown_word(doc, m) for m in others) and all(
                self._coordinated_name(doc, m, True) for m in listed
            ):
                out += [Span(doc, m, m + 1, label=NAME) for m in members]
        return out

    def _coordinated_name(self, doc: Doc, k: int, mixed_case: bool) -> bool:
        t = doc[k]
        low = t.lower_
        return (
            t.is_alpha and not t.is_stop and NAME in self._gazetteer.tags(low)
            and not self._gazetteer.clinical_term(low) and low not in TITLES
            and not is_role(low)  # "WIFE GRACE, SONS TIM"
            and (not mixed_case or t.is_title)
        )

    def _ends_place(self, doc: Doc, i: int) -> bool:
        """``doc[i]`` is no part of the place or organisation name before it."""
        t = doc[i]
        low = t.lower_
        if low in _AFTER_PLACE_WORDS:
            return True
        # a comma and clinical shorthand ("hx of tx at dfci, onc dr. x"); not a state after a town
        if low == "," and i + 1 < len(doc) and self._gazetteer.clinical_term(doc[i + 1].lower_) \
                and not self._gazetteer.tags(doc[i + 1].lower_):
            return True
        # a number of time units ("mt auburn 2 weeks ago")
        if t.like_num and i + 1 < len(doc) and doc[i + 1].lower_ in _TIME_UNITS:
            return True
        if not t.is_stop or low in _INNER_STOP_WORDS or low in _NAME_PARTICLES:
            return False
        return not (low == "for" and doc[i - 1].lower_ in _FOR_AFTER)

    def _clinical_verb(self, low: str) -> bool:
        """A clinical term that is a verb form ("paged", "ambulating"): never the end of a name."""
        return low.endswith(("ed", "ing")) and self._gazetteer.clinical_term(low)

    def _filter_ents(self, doc: Doc) -> None:
        """Drop the NER entities that cannot be PHI of their category by their
        form (into ``doc.spans[rejected_key]``); trim the kept ones; where the
        gazetteer found a name in or across one, the name decides (a person is
        written as a NAME, not as the HOSPITAL or DATE a NER trained on tidy notes
        may call it)."""
        kept, rejected = [], []
        mixed_case = is_mixed_case(doc)
        # the names the gazetteer found: where one overlaps a NER entity, the person is what
        # it is and where it ends (``_without_names``, ``Gazetteer.person_within``)
        names = [sp for sp in doc.spans[self.spans_key] if sp.label_ == NAME]
        place_starts = {sp.start for sp in doc.spans[self.spans_key] if sp.label_ in PLACE_LABELS}
        entities = self._without_names(doc, [sp for sp in names if self._gazetteer.listed_person(sp)])
        entities = self._without_structured(doc, entities)
        entities = self._without_inner_roles(doc, entities)
        changed = len(entities) != len(doc.ents) or any(a is not b for a, b in zip(entities, doc.ents))
        for ent in entities:
            category = category_of(ent.label_, self._label_map)
            if category is None:
                kept.append(ent)
                continue
            # edge tokens without a letter or digit ("Mary?", "> Suite 828") are no part of the PHI
            start, end = ent.start, ent.end
            # an entity ends at a blank line ("Cox-Castillo.\n\nPLAN: ...")
            end = next((i for i in range(start, end) if doc[i].is_space and "\n\n" in doc[i].text), end)
            # a name, place or organisation ends before clinical shorthand ("siefield w/ ulcerative colitis")
            if category in _NAMED:
                end = next((i for i in range(start + 1, end) if doc[i].lower_ in _PHRASE_JOINERS), end)
            # a name ends before a preposition that a place the lists found follows ("sam in
            # jamaica plain"; "Lee In Sook", "Minh To Nguyen" stay whole)
            if category == "NAME":
                end = next((i for i in range(start + 1, end - 1)
                            if doc[i].lower_ in _NAME_ENDING_PREPOSITIONS and i + 1 in place_starts), end)
            # a name ends before a digit or "@" ("JIM @ 555-1234": the number is a phone's)
            if category == "NAME":
                end = next(
                    (i for i in range(start + 1, end) if doc[i].text in ("@", "#") or _has_digit(doc[i].text)), end
                )
            # a contact ends before a comma and a word that is no contact's ("fs q1h 180-250, ag
            # closed", "sbp goal 140-180, nimodipine 60"; not "555-1234, ext 22")
            if category == "CONTACT" and not any(
                t.lower_.rstrip(".") in STREET_SUFFIXES or t.lower_.rstrip(".") in STREET_PREFIXES for t in doc[start:end]
            ):  # (an address the NER calls a phone goes on: "79063 63 rue de kairouan, cite el farik")
                end = next((
                    i for i in range(start + 1, end - 1)
                    if doc[i].text == "," and doc[i + 1].is_alpha and doc[i + 1].lower_.rstrip(".") not in _CONTACT_WORDS
                ), end)
            # a place or organisation ends before a time word, "via" or a stop word that no
            # name holds ("ferncliff last week for dialysis", "larkfield general for ckd")
            if category in ("LOCATION", "ORGANIZATION"):
                end = next((i for i in range(start + 1, end) if self._ends_place(doc, i)), end)
                # nor over a date after it ("orlando health april 2023", "hartford hospital, march 15th")
                end = next((i for i in range(start + 1, end) if _date_starts(doc, i)), end)
                # nor over a comma and a person's role ("market basket, girlfriend yesenia coming"),
                # or a comma and a verb ("olympia high, prefers appts")
                end = next((
                    i for i in range(start + 1, end - 1)
                    if doc[i].text == "," and (doc[i + 1].lower_ in ROLES or self._gazetteer.after_name_verb(doc[i + 1]))
                ), end)
                # nor over a weekday or a shift after it ("st. mary's church basement tues", "ups
                # warehouse night shift")
                while end - start > 1 and (doc[end - 1].lower_.rstrip(".") in _WEEKDAY_FORMS or doc[end - 1].lower_ in _SHIFT_WORDS):
                    end -= 1
            # nor, in mixed-case text, lower-case ordinary words before a name or place ("like
            # Anna S."), name particles apart ("van der Berg", "de la Cruz"); nor a role or
            # patient word before a name ("FEMALE, MARY S.", "wife ann")
            mixed = category in _NAMED and mixed_case
            while start < end and (
                not any(c.isalnum() for c in doc[start].text)
                or doc[start].lower_ in ("'s", "’s")
                or (mixed and self._leading_word(doc[start]))
                or (category in _NAMED and end - start > 1 and doc[start].lower_ in ROLES)
                # nor a field's word before an organisation ("INSURANCE HUMANA MEDICARE ADVANTAGE")
                or (category == "ORGANIZATION" and end - start > 1 and doc[start].lower_ in _ORG_FIELDS)
            ):
                start += 1
            while end > start and not any(c.isalnum() for c in doc[end - 1].text):
                end -= 1
            # in mixed-case text, nor over a lower-case stop word or verb after a capitalised
            # name ("Records from Salem Hospital reviewed", "his son, a nurse at Beverly, accompanied")
            while mixed and end - start > 1 and doc[end - 1].is_lower and doc[end - 1].lower_ not in _NAME_PARTICLES \
                    and (doc[end - 1].is_stop or self._gazetteer.after_name_word(doc[end - 1])):
                end -= 1
                while end > start + 1 and not any(c.isalnum() for c in doc[end - 1].text):
                    end -= 1
            # an organisation or place ends on its capitalised words in mixed-case text, before
            # the department or unit of it ("Lawrence General emergency department"; an eponym's
            # head or an instrument stays for the checks of form: "Scarpa's fascia")
            while mixed and category in ("ORGANIZATION", "LOCATION") and end - start > 1 and doc[end - 1].is_lower \
                    and doc[end - 1].lower_ in _UNIT_TAIL_WORDS \
                    and any(t.is_title or t.is_upper for t in doc[start : end - 1]):
                end -= 1
            # a date starts and ends with no shift or setting ("7p-7a 4/5": the shift is kept)
            if category == "DATE":
                # nor over words around it that are no date's ("SERVED IN ARMY 1990-2012", "UNTIL
                # 2019", "s/p whipple 2021": the years alone are shifted, the words stay)
                # (a word no list has stays: the NER's dates over wards and addresses are PHI
                # whatever their label, "came up from skoberg 7 south")
                start, end = _trim(doc, start, end, lambda t: shorthand_token(t.text) or (
                    t.is_alpha and not date_word(t.lower_) and (self._gazetteer.is_common(t.lower_) or self._gazetteer.clinical_term(t.lower_))
                    and t.lower_ not in _COMPASS_SIDES and t.lower_.rstrip(".") not in STREET_SUFFIXES
                ), keep=1)
            # nor over the words of a letter around a name ("Dear Dr. Whitfield, Thank you",
            # "Sincerely, Elena Petrova")
            if category == "NAME":
                start, end = _trim(doc, start, end, lambda t: t.lower_ in _LETTER_WORDS)
            # nor with a clinical verb after a name ("dr haisham paged", "x notified"); a
            # one-word entity stays whole
            while category in _NAMED and end - start > 1 and self._clinical_verb(doc[end - 1].lower_):
                end -= 1
            # in single-case notes, nor with a word notes write after a name ("DR JOHN PARK
            # AWARE", "wife ann here", "X SEEN"): a NER trained on tidy notes runs a name on
            # over the next word when capitals no longer tell where it ends; an initial stays
            while (
                category == "NAME"
                and not mixed_case
                and end - start > 1
                and len(doc[end - 1].text) > 1
                and self._gazetteer.not_name_word(doc[end - 1], mixed_case)
            ):
                end -= 1
            # in single-case notes, nor over a verb or time word and what follows it
            # ("JENNIFER BROWN BROUGHT CLOTHES", "mary took pt"): such a word ends a name
            if category == "NAME" and not mixed_case and not any(
                t.lower_ in HOSPITAL_WORDS or t.lower_ in COMPANY_WORDS for t in doc[start:end]
            ):  # (a hospital or firm the NER calls a person is one: "X VETERANS AFFAIRS CLINIC")
                end = next((k for k in range(start + 1, end) if self._gazetteer.after_name_verb(doc[k])), end)
            # nor over a modal before a verb ("son mark will call", "daughter may visit"): the
            # name ends before the modal; a modal that starts the entity stays (may is a name too)
            if category == "NAME":
                modal = next((k for k in range(start, end - 1) if self._gazetteer.modal_before_verb(doc, k)), None)
                if modal is not None:
                    end = max(modal, start + 1)
            # in single-case notes, nor a place or organisation over a verb form after it
            # ("sister from revere visited"); "med" ends a hospital's name ("north shore med")
            while category in ("LOCATION", "ORGANIZATION") and not mixed_case and end - start > 1 \
                    and self._gazetteer.after_name_word(doc[end - 1]) \
                    and not (category == "ORGANIZATION" and doc[end - 1].lower_ == "med"):
                end -= 1
            # an organisation or place runs on over a hospital word right after it ("brigham
            # and women" + "'s hospital", "georgetown" + "med")
            if category in ("ORGANIZATION", "LOCATION") and end == ent.end:
                end = self._gazetteer.hospital_tail_after(doc, end)
            label = ent.label
            # a name the lists found after a title or role word, alone in an organisation or
            # place entity or after that word at its start, is that person, whatever the NER
            # calls it ("DAUGHTER (KAREN)", "rn kelly gave report" as a HOSPITAL)
            cued = [] if category == "NAME" else [
                sp for sp in names
                if start <= sp.start and sp.end <= end and has_title_before(doc, sp.start)
                and all(not t.is_alpha or t.lower_ in TITLES or t.lower_ in ROLES for t in doc[start : sp.start])
            ]
            if cued:
                (start, end), label, category = (cued[0].start, cued[0].end), self.vocab.strings.add(NAME), "NAME"
            elif category in ("ORGANIZATION", "LOCATION") and (
                self._gazetteer.initialled_person(doc[start:end]) or self._gazetteer.signed_person(doc[start:end])
            ):
                label, category = self.vocab.strings.add(NAME), "NAME"
            elif category in ("ORGANIZATION", "LOCATION") and (place := self._gazetteer.occupation_place(doc[start:end])) is not None:
                # "retired boston police officer": a trade; the town before it stays a town
                (start, end), label, category = (place.start, place.end), place.label, "LOCATION"
            elif category == "ORGANIZATION" and self._gazetteer.is_state(doc[start:end]):
                # "in from california" as a hospital: a state (kept: not PHI under Safe Harbor)
                label, category = self.vocab.strings.add("STATE"), "LOCATION"
            elif category == "CONTACT" and not any(c.isdigit() for c in doc[start:end].text) \
                    and any(t.lower_.rstrip(".") in STREET_SUFFIXES for t in doc[start:end]) \
                    and any(t.is_alpha and not self._gazetteer.is_common(t.lower_) and not self._gazetteer.clinical_term(t.lower_)
                            and t.lower_.rstrip(".") not in STREET_SUFFIXES
                            for t in doc[start:end]):  # (a name's word: not "pt, ot, st & rd")
                # "7th st & mcdowell rd, phoenix" as a PHONE: a street, no digit a phone surrogate
                # could replace (the whole had been written back)
                label, category = self.vocab.strings.add("STREET"), "LOCATION"
            elif category == "CONTACT" and self._gazetteer.numbered_street(doc[start:end], mixed_case):
                # "78 Victor Hugo" as a PHONE: a house number and its street, which a phone
                # surrogate would write back with the street's words
                label, category = self.vocab.strings.add("STREET"), "LOCATION"
            elif category == "ORGANIZATION" and self._gazetteer.is_listed(doc[start:end], CITY):
                # "BROTHER FRANK FROM WORCESTER" as a hospital: a town, with no hospital word;
                # it gets a town's surrogate, not a hospital's
                label, category = self.vocab.strings.add(CITY), "LOCATION"
            elif category == "NAME" and start > 0 and doc[start - 1].lower_ in _TOWN_PREPOSITIONS \
                    and self._gazetteer.is_listed(doc[start:end], CITY) \
                    and not any(NAME in self._gazetteer.tags(t.lower_) for t in doc[start:end]):
                # "lives alone in 2nd floor apt in somerville" as a doctor: a listed town, no listed
                # name, after "in": a town's surrogate ("in chang" had been written)
                label, category = self.vocab.strings.add(CITY), "LOCATION"
            elif category in _NAMED and names:
                person = self._gazetteer.person_within(doc, start, end, names, category, mixed_case)
                if person is not None:
                    # the person's label decides the surrogate: a name, not a hospital's
                    (start, end), label = person, (ent.label if category == "NAME" else self.vocab.strings.add(NAME))
            # a "person" whose last word is a hospital word is a hospital ("anderson cancer
            # center" as a DOCTOR): it gets a hospital's surrogate
            if category == "NAME" and end - start > 1 and doc[end - 1].lower_ in HOSPITAL_WORDS:
                label, category = self.vocab.strings.add(HOSPITAL), "ORGANIZATION"
            span = ent if (start, end, label) == (ent.start, ent.end, ent.label) else Span(doc, start, end, label=label)
            changed = changed or span is not ent
            # (a date is checked as the NER wrote it too: its words tell a range of values from
            # a date's, "1-2 assist oob", before the trimming takes them off)
            trimmed_words = category == "DATE" and any(
                t.is_alpha for t in ent if not start <= t.i < end
            )
            if start < end and self._gazetteer.plausible_entity(doc, span, category) and (
                not trimmed_words or self._gazetteer.plausible_entity(doc, ent, category)
            ):
                kept.append(span)
            else:
                rejected.append(ent)
        if rejected or changed:
            doc.ents = kept
        if rejected:
            doc.spans[self.rejected_key] = rejected

    def _without_names(self, doc: Doc, names: List[Span]) -> List[Span]:
        """The NER entities cut where a person the lists know overlaps them
        (``names``: the gazetteer's names that ``Gazetteer.listed_person`` accepts,
        "michael smith", "lisa m."; not "Seneca Place", a street it may take for a
        name). The NER of tidy notes runs an age or date over the name after it
        ("6-YEAR-OLD MALE, MICHAEL SMITH" as a DATE, which the date operator keeps
        as an age, name and all) or stops inside a name ("LIKE MICHAEL" of "MICHAEL
        S."). An entity of a name, place or organisation is cut only where a name
        crosses its edge (one inside it is ``Gazetteer.person_within``'s); a contact
        or id is not cut (it is replaced whole, the name with it). What is left on
        either side keeps its label and is checked by its form like any entity."""
        if not names:
            return list(doc.ents)
        in_name = [False] * len(doc)
        for sp in names:
            for i in range(sp.start, sp.end):
                in_name[i] = True
        out: List[Span] = []
        for ent in doc.ents:
            category = category_of(ent.label_, self._label_map)
            if category not in _KEPT_BY_FORM and category not in _NAMED or not any(in_name[ent.start : ent.end]):
                out.append(ent)
                continue
            if category in _NAMED and not any(sp.start < ent.start < sp.end or sp.start < ent.end < sp.end for sp in names):
                out.append(ent)
                continue
            i = ent.start
            while i < ent.end:
                j = i
                while j < ent.end and in_name[j] == in_name[i]:
                    j += 1
                if not in_name[i] and any(c.isalnum() for c in doc[i:j].text):
                    out.append(Span(doc, i, j, label=ent.label))
                i = j
        return out

    def _split_place_lines(self, doc: Doc) -> None:
        """A place entity across a line break is one address line per piece ("297\n
        tystberga" of "apt. 297 / tystberga"): the address runs complete each line,
        and the replacer writes one surrogate per line, the line breaks kept."""
        out: List[Span] = []
        changed = False
        for ent in doc.ents:
            if category_of(ent.label_, self._label_map) != "LOCATION" or "\n" not in ent.text:
                out.append(ent)
                continue
            changed = True
            out += _pieces(doc, ent, lambda i: doc[i].is_space, lambda i: "\n" in doc[i].whitespace_)
        if changed:
            doc.ents = out

    def _without_inner_roles(self, doc: Doc, entities: List[Span]) -> List[Span]:
        """Name entities cut at a role word inside them ("GRACE, SONS TIM" of "WIFE
        GRACE, SONS TIM & PAUL": two people, and "SONS" is no name); a role word at the
        start is trimmed later, with the other leading words."""
        out: List[Span] = []
        for ent in entities:
            if category_of(ent.label_, self._label_map) != "NAME" or len(ent) < 3:
                out.append(ent)
                continue
            out += _pieces(doc, ent, lambda i: i > ent.start and is_role(doc[i].lower_))
        return out

    def _without_structured(self, doc: Doc, entities: List[Span]) -> List[Span]:
        """The entities cut around the contacts, identifiers and ages of the pattern
        ruler (``patterns_key``) that they hold when their own category is another,
        and dates around its streets and postal codes: a NER trained on tidy notes
        calls "ADDRESS 192.168.10.45" and "now 92" dates and "55012833 billing aware" a
        street, and the replacer, which takes the longest span, would write a date or
        a street for them (or keep "now 92" as no date). The words left on either side
        keep the entity's label and are checked by their form like any entity."""
        if not self.patterns_key or self.patterns_key not in doc.spans:
            return entities
        found = [(sp, category_of(sp.label_, self._label_map)) for sp in doc.spans[self.patterns_key]]
        found = [(sp, cat) for sp, cat in found if cat in _STRUCTURED or cat == "LOCATION"]
        if not found:
            return entities
        out: List[Span] = []
        for ent in entities:
            category = category_of(ent.label_, self._label_map)
            # contacts, ids and ages win over any other category; streets and postal codes over
            # a date or an age ("address 45 Elm Street, Apt 2B" as a DATE, the "88" of "lives 88
            # winter st" as an AGE)
            inside = [
                sp for sp, cat in found
                if ent.start < sp.end and sp.start < ent.end and cat != category
                and (cat in _STRUCTURED or category in ("DATE", "AGE"))
            ]
            if not inside:
                out.append(ent)
                continue
            taken = {i for sp in inside for i in range(sp.start, sp.end)}
            out += _pieces(doc, ent, taken.__contains__)
        return out

    def _leading_word(self, token) -> bool:
        """A lower-case ordinary word that no name starts with ("like", "with")."""
        low = token.lower_
        return token.is_lower and low not in _NAME_PARTICLES and (token.is_stop or self._gazetteer.is_common(low))

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        """Process a stream of Docs; a failing Doc goes to the error handler alone."""
        return pipe_each(self, stream)

    # ------------------------------------------------------------ serialisation
    def _data(self) -> dict:
        return {} if self._gazetteer is None else self._gazetteer.index.to_dict()

    def _load_data(self, data: dict) -> None:
        if data:
            self._gazetteer = Gazetteer(GazetteerIndex.from_dict(data))

    def to_bytes(self, *, exclude: Iterable[str] = tuple()) -> bytes:
        """The compiled lists (hashes) and settings as msgpack."""
        return srsly.msgpack_dumps({"cfg": {"min_zipf": self.min_zipf}, "data": self._data()})

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = tuple()) -> "PhiGazetteer":
        msg = srsly.msgpack_loads(bytes_data)
        self._load_data(msg["data"])
        return self

    def to_disk(self, path, *, exclude: Iterable[str] = tuple()) -> None:
        """Save the compiled lists (``lists.msgpack``: hashes only)."""
        from spacy import util

        util.to_disk(path, {"lists.msgpack": lambda p: srsly.write_msgpack(p, self._data())}, exclude)

    def from_disk(self, path, *, exclude: Iterable[str] = tuple()) -> "PhiGazetteer":
        from spacy import util

        util.from_disk(path, {"lists.msgpack": lambda p: self._load_data(srsly.read_msgpack(p))}, exclude)
        return self


__all__ = ["PhiGazetteer", "make_phi_gazetteer", "DEFAULT_CONFIG_STR"]
