"""phi_replacer: the last component of a de-identification pipeline.

It merges what the detectors found — ``doc.ents`` (a PHI NER; reason ``NER``),
``doc.spans["phi_patterns"]`` (the pattern ruler; ``PATTERN``) and
``doc.spans["phi_gazetteer"]`` (the gazetteers; ``GAZETTEER``) — resolves
overlaps (longest span first, then the more specific detector), maps every
detector label to a PHI category with the label map (an unmapped label is not
PHI: a general NER's ``CARDINAL`` or ``QUANTITY`` is left alone), and applies
the operator of each category (``spacy_deid.surrogates.operators``): realistic
surrogates by default, dates shifted by one keyed shift per patient, or mask,
redact, hash, encrypt, keep.

Words that upstream components edited without a PHI category (the
frequency_masker's ``LOW_FREQ`` / ``BLACKLIST`` runs) are re-written with the
operator of ``OTHER``. What HIPAA Safe Harbor does not count as PHI is kept, even
where an upstream component had edited it: ages under 90, bare years, durations
and relative dates, US states and countries; so are eponyms ("Parkinson's
disease", "Wells criteria") and, among rarity edits, numbers that read as
measurements (``keep_measurements``).

Surrogates are keyed by a secret salt read from an environment variable (never
stored in the pipeline): names by patient (``patient_id`` of the record; the
document without one; the corpus for clinicians), dates by patient, identifiers,
contacts, places and organisations by the corpus.
"""
import datetime as dt
import re
import warnings
from typing import Dict, FrozenSet, Iterable, Iterator, List, Optional, Tuple

from spacy.language import Language
from spacy.pipeline import Pipe
from spacy.tokens import Doc, Span

from spacy_deid.detect.gazetteers import after_personal_title, contact_head, is_mixed_case
from spacy_deid.detect.labels import category_of, make_label_map
from spacy_deid.detect.patterns import _WEEKDAYS
from spacy_deid.edits import BLACKLIST, GAZETTEER, KEEP, LOW_FREQ, NER, PATTERN, PHI, add_edit, get_edits
from spacy_deid.surrogates.dates import DateShift, DateShifter
from spacy_deid.surrogates.keys import SALT_ENV, Keyer, read_salt
from spacy_deid.surrogates.names import NameSurrogates
from spacy_deid.surrogates.numbers import age_surrogate, phone_like, same_shape
from spacy_deid.surrogates.operators import (
    DEFAULT_OPERATORS,
    KEY_ENV,
    Encryptor,
    keyed_hash,
    mask,
    merge_operators,
    operator_for,
    read_key,
    validate_operators,
)
from spacy_deid.surrogates.places import PlaceSurrogates, is_not_phi_place
from spacy_deid.util import pipe_each

DEFAULT_SOURCES = {"ents": NER, "phi_patterns": PATTERN, "phi_gazetteer": GAZETTEER}
# more specific detectors first when two spans have the same length
DEFAULT_PRIORITY = [PATTERN, NER, GAZETTEER]
DEFAULT_REWRITE = [LOW_FREQ, BLACKLIST, PATTERN, PHI]
CLINICIAN_LABELS = ["DOCTOR", "STAFF", "HCW", "USERNAME"]
_CONTACT_PHONE = ("PHONE", "FAX", "PAGER", "PHONE_NUMBER", "FAX_NUMBER")

DEFAULT_CONFIG = {
    # empty: the built-in table (DEFAULT_OPERATORS); a default dict here would be
    # merged into every user table by spaCy, so that "*" could never win over it
    "operators": {},
    "label_map": {},
    "use_default_labels": True,
    "sources": dict(DEFAULT_SOURCES),
    "priority": list(DEFAULT_PRIORITY),
    "rewrite_reasons": list(DEFAULT_REWRITE),
    "clinician_labels": list(CLINICIAN_LABELS),
    "keep_measurements": True,
    "date_shift_min": -365,
    "date_shift_max": 365,
    "salt_env": SALT_ENV,
    "key_env": KEY_ENV,
    "locale": "en_US",
}


@Language.factory("phi_replacer", default_config=DEFAULT_CONFIG)
def make_phi_replacer(
    nlp: Language,
    name: str,
    operators: Dict[str, str],
    label_map: Dict[str, Optional[str]],
    use_default_labels: bool,
    sources: Dict[str, str],
    priority: List[str],
    rewrite_reasons: List[str],
    clinician_labels: List[str],
    keep_measurements: bool,
    date_shift_min: int,
    date_shift_max: int,
    salt_env: str,
    key_env: str,
    locale: str,
) -> "PhiReplacer":
    """Build the phi_replacer (see the module docstring for the arguments)."""
    return PhiReplacer(
        nlp.vocab,
        name=name,
        operators=operators,
        label_map=label_map,
        use_default_labels=use_default_labels,
        sources=sources,
        priority=priority,
        rewrite_reasons=rewrite_reasons,
        clinician_labels=clinician_labels,
        keep_measurements=keep_measurements,
        date_shift_min=date_shift_min,
        date_shift_max=date_shift_max,
        salt_env=salt_env,
        key_env=key_env,
        locale=locale,
    )


class PhiReplacer(Pipe):
    """Replace detected PHI per category (see the module docstring).

    operators (Dict[str, str]): category -> operator, ``*`` for every other category;
        categories it does not cover get the built-in ``DEFAULT_OPERATORS``.
    label_map (Dict[str, Optional[str]]): detector label -> category overrides (null: not PHI).
    use_default_labels (bool): start from ``spacy_deid.detect.labels.DEFAULT_LABEL_MAP``.
    sources (Dict[str, str]): where detections are read -> their reason: ``ents``
        for ``doc.ents``, any other key a span group (a missing group is skipped).
    priority (List[str]): reasons, most specific first (breaks ties of equal length).
    rewrite_reasons (List[str]): upstream edit reasons re-written with the OTHER operator.
    clinician_labels (List[str]): name labels whose surrogates are consistent across the corpus.
    keep_measurements (bool): keep a rare number that cannot be an identifier (a
        decimal, ratio or time such as ``4.44``, ``157/89``, ``07:19``, or at most
        four digits) where an upstream rarity edit covers it alone, with no digits
        joined to it (a phone number split by the tokenizer stays edited).
    date_shift_min (int): smallest date shift in days.
    date_shift_max (int): largest date shift in days (0 is never used).
    salt_env (str): environment variable of the secret salt.
    key_env (str): environment variable of the key of the ``encrypt`` operator.
    locale (str): Faker locale of the surrogate lists.
    """

    def __init__(
        self,
        vocab,
        name: str = "phi_replacer",
        *,
        operators: Optional[Dict[str, str]] = None,
        label_map: Optional[Dict[str, Optional[str]]] = None,
        use_default_labels: bool = True,
        sources: Optional[Dict[str, str]] = None,
        priority: Optional[List[str]] = None,
        rewrite_reasons: Optional[List[str]] = None,
        clinician_labels: Optional[List[str]] = None,
        keep_measurements: bool = True,
        date_shift_min: int = -365,
        date_shift_max: int = 365,
        salt_env: str = SALT_ENV,
        key_env: str = KEY_ENV,
        locale: str = "en_US",
    ) -> None:
        self.vocab = vocab
        self.name = name
        self.operators = dict(DEFAULT_OPERATORS if operators is None else operators)
        validate_operators(self.operators)
        self.label_map = make_label_map(label_map, use_defaults=use_default_labels)
        self.sources = dict(DEFAULT_SOURCES if sources is None else sources)
        self.priority = list(DEFAULT_PRIORITY if priority is None else priority)
        self.rewrite_reasons = set(DEFAULT_REWRITE if rewrite_reasons is None else rewrite_reasons)
        self.clinician_labels = {l.upper() for l in (CLINICIAN_LABELS if clinician_labels is None else clinician_labels)}
        self.keep_measurements = keep_measurements
        self.salt_env = salt_env
        self.key_env = key_env
        self.locale = locale
        salt, from_env = read_salt(salt_env)
        if not from_env:
            # a warning on stderr: stdout belongs to the user's program
            warnings.warn(
                f"[{name}] ${salt_env} is unset: a random salt is used, so surrogates and date shifts "
                f"are consistent within this run only",
                stacklevel=2,
            )
        self._salt = salt
        self.keyer = Keyer(salt)
        self.dates = DateShifter(self.keyer, date_shift_min, date_shift_max)
        self.names = NameSurrogates(self.keyer, locale)
        self.places = PlaceSurrogates(self.keyer, locale)
        self._encryptor: Optional[Encryptor] = None
        self._check_key()

    # -- configuration

    def set_operators(self, override: Dict[str, str]) -> None:
        """Apply an operator override (``*`` in it replaces every other entry)."""
        table = merge_operators(self.operators, override)
        validate_operators(table)
        self.operators = table
        self._check_key()

    def _check_key(self) -> None:
        if any(op == "encrypt" for op in self.operators.values()) and self._encryptor is None:
            self._encryptor = Encryptor(read_key(None, self.key_env))

    def operator(self, category: str) -> str:
        """The operator applied to ``category``."""
        return operator_for(self.operators, category)

    # -- detections

    def detections(self, doc: Doc) -> List[Tuple[Span, str, str]]:
        """The PHI spans of ``doc``, overlaps resolved: (span, reason, category)."""
        found: List[Tuple[Span, str, str]] = []
        for source, reason in self.sources.items():
            if source == "ents":
                spans: Iterable[Span] = doc.ents
            elif source in doc.spans:
                spans = doc.spans[source]
            else:
                continue
            for span in spans:
                category = category_of(span.label_, self.label_map)
                if category == "AGE" and not any(c.isdigit() for c in span.text) and age_surrogate(span.text) is None:
                    continue  # no number, no age: another detector's span of it may win ("\n-RW", a sign-off)
                if category is not None:
                    found.append((span, reason, category))
        rank = {r: i for i, r in enumerate(self.priority)}
        found.sort(key=lambda t: (-(t[0].end - t[0].start), rank.get(t[1], len(rank)), t[0].start))
        taken = set()
        chosen = []
        for span, reason, category in found:
            free = [i for i in range(span.start, span.end) if i not in taken]
            if len(free) < span.end - span.start:
                # a span that overlaps a longer or surer one keeps the words it alone found, when
                # they are one run at its edge ("DR. NAKAMURA JUNE 8": "NAKAMURA JUNE" a name, "JUNE
                # 8" a date; "NAKAMURA" is still the name): else the name went out as it came in
                one_run = bool(free) and free[-1] - free[0] + 1 == len(free)
                at_edge = one_run and (free[0] == span.start or free[-1] == span.end - 1)
                # (names of the rules only: what a date's or a place's span alone holds is rarely one
                # itself, nor what a NER's name ran over, "Creatinine" of "Creatinine, July 7")
                if category != "NAME" or reason == NER or not at_edge or not any(doc[i].is_alpha and not doc[i].is_stop and len(doc[i]) > 1 for i in free):
                    continue
                span = Span(doc, free[0], free[-1] + 1, label=span.label)
            if category == "ID":
                span = _whole_word(span, taken)
            elif category == "ORGANIZATION":
                span = _with_kind_words(span, taken)
            taken.update(range(span.start, span.end))
            chosen.append((span, reason, category))
        # the weekday right before a date goes with it, so the shift rewrites both: a weekday
        # kept beside a shifted date tells the real one ("planned thurs 10/8")
        for k, (span, reason, category) in enumerate(chosen):
            w = span.start - 1
            if w >= 1 and doc[w].text == ",":
                w -= 1
            if w >= 1 and doc[w].lower_ == "d" and _glued_wed(doc, w - 1):
                w -= 1  # "Wed", which the tokenizer reads as "we'd"
            if category == "DATE" and w >= 0 and w not in taken and _dated_weekday(doc, w) \
                    and any(c.isdigit() for c in span.text):
                taken.update(range(w, span.start))
                chosen[k] = (Span(doc, w, span.end, label=span.label), reason, category)
        chosen.sort(key=lambda t: t[0].start)
        return chosen

    # -- scopes

    def patient_scope(self, doc: Doc) -> str:
        """The scope of a document's patient: its record's ``patient_id``, else the
        record's ``id``, else (a Doc made without a record) a keyed hash of its text."""
        record = doc._.deid_record or {}
        if record.get("patient_id") is not None:
            return f"patient:{record['patient_id']}"
        if record.get("id") is not None:
            return f"doc:{record['id']}"
        return f"text:{self.keyer.hexdigest(doc.text)}"

    # -- replacement

    def surrogate(
        self, span: Span, category: str, patient_scope: str, patients: FrozenSet[str] = frozenset()
    ) -> Tuple[Optional[str], str]:
        """The replacement of one PHI span and its method; (None, KEEP) when the
        span is not PHI under Safe Harbor. ``patients``: the names (lower case) the note
        also labels as the patient's, which keep the patient's scope wherever they stand."""
        text = span.text
        label = span.label_.upper()
        op = self.operator(category)
        # Safe Harbor: these are not PHI, whatever the operator
        if category == "AGE":
            new_age = age_surrogate(text)
            if new_age is None:
                return None, KEEP
        if category == "DATE":
            # a detector may leave the apostrophe of a year out ("'94" as "94"): the year is
            # shifted as "'94" is, the apostrophe staying where it is
            before = span.doc.text[span.start_char - 1 : span.start_char] if span.start_char else ""
            apostrophe = before in ("'", "’") and text.isdigit() and len(text) == 2
            shifted = self.dates.shift(before + text if apostrophe else text, patient_scope)
            if apostrophe and shifted.action == "shift":
                shifted = DateShift("shift", shifted.text[1:], precision=shifted.precision)
            if shifted.action == "keep":
                if text.isdigit() and len(text) == 4 and _over_89_at_birth(span, int(text)):
                    return mask(category), "MASK"  # "born 1924" in a note of 2016: the year tells the age
                return None, KEEP
            if shifted.date is not None and not shifted.yearless and _over_89_at_birth(span, shifted.date.year):
                # Safe Harbor: a birth date of someone over 89 is aggregated into "90 or older",
                # so it is not written back, shifted or not ("dob 28-dec-1907" in a 2014 note)
                return mask(category), "MASK"
        if category in ("NAME", "LOCATION", "ORGANIZATION") and _eponym(span):
            return None, KEEP
        if category == "ORGANIZATION" and is_not_phi_place(text, self.locale):
            # a state or country a NER took for a hospital ("returned from Guatemala"): no PHI,
            # as when it is called a place, and no hospital's surrogate in its stead
            return None, KEEP
        if category == "LOCATION":
            new_place = self.places.location(text, "corpus", label)
            if new_place is None:  # a state, a country
                return None, KEEP
        if op not in ("surrogate", "shift"):
            return self._plain(op, text, category)
        if category == "DATE":
            if shifted.action == "shift":
                return shifted.text, "DATE_SHIFT"
            return mask(category), "MASK"  # not a date we can write back validly
        if category == "AGE":
            return new_age, "SURROGATE"
        if category == "NAME":
            clinician = self._clinician(span) and text.lower() not in patients
            scope = "corpus" if clinician else patient_scope
            return self.names.replace(text, scope, surname=after_personal_title(span.doc, span.start)), "SURROGATE"
        if category in ("LOCATION", "ORGANIZATION"):
            new = new_place if category == "LOCATION" else self.places.organization(text, "corpus", label)
            # the period of an abbreviation that ends a sentence too stays ("on pleasant st. incision")
            if text.endswith(".") and not new.endswith("."):
                new += "."
            return new, "SURROGATE"
        if category == "CONTACT":
            return self._contact(text, label), "SURROGATE"
        if category == "ID":
            return same_shape(text, self.keyer, "corpus", "id"), "SURROGATE"
        return self._other(text, label), "SURROGATE"

    def _contact(self, text: str, label: str) -> str:
        # an e-mail or web address in an ALL CAPS note is written in capitals too
        cased = str.upper if text.isupper() else str
        if "@" in text:
            fake = self.places._seeded("email", text.lower())
            return cased(f"{fake.user_name()}@example.{fake.random.choice(['com', 'org', 'net'])}")
        if label in ("URL", "DOMAIN_NAME") or "://" in text or text.lower().startswith("www."):
            return cased(self.places._seeded("url", text.lower()).url().rstrip("/"))
        if label == "IP_ADDRESS" or text.count(".") == 3 and text.replace(".", "").isdigit():
            return self.places._seeded("ip", text).ipv4_public()
        if label in _CONTACT_PHONE or sum(c.isdigit() for c in text) >= 7:
            return phone_like(text, self.keyer, "corpus")
        return same_shape(text, self.keyer, "corpus", "contact")

    def _other(self, text: str, label: str) -> str:
        if label == "PROFESSION":
            return self.places._seeded("job", text.lower()).job()
        return same_shape(text, self.keyer, "corpus", "other")

    def _plain(self, op: str, text: str, category: str) -> Tuple[Optional[str], str]:
        """keep, mask, redact, hash or encrypt ``text`` of ``category``."""
        if op == "keep":
            return None, KEEP
        if op == "redact":
            return "", "REDACT"
        if op == "hash":
            return keyed_hash(text, self._salt), "HASH"
        if op == "encrypt":
            assert self._encryptor is not None
            return self._encryptor.encrypt(text), "ENCRYPT"
        return mask(category), "MASK"

    def _clinician(self, span: Span) -> bool:
        """A name written as a clinician's: by its label or the words around it."""
        return span.label_.upper() in self.clinician_labels or _clinician_context(span)

    def _rewrite(self, text: str) -> Tuple[Optional[str], str]:
        """The OTHER operator on an upstream edit of non-PHI-category words."""
        op = self.operator("OTHER")
        if op == "surrogate":
            return same_shape(text, self.keyer, "corpus", "other"), "SURROGATE"
        return self._plain(op, text, "OTHER")

    def __call__(self, doc: Doc) -> Doc:
        """Add one edit per PHI span and per re-written upstream edit."""
        upstream = get_edits(doc)
        edited = [False] * len(doc)
        for span in upstream:
            for i in range(span.start, span.end):
                edited[i] = True
        patient_scope = self.patient_scope(doc)
        covered = [False] * len(doc)
        detections = list(self.detections(doc))
        # one person, one surrogate in a note: a name the NER calls the patient once and a
        # doctor once ("Re: Winifred Ashby" ... "cc: Winifred Ashby (patient)") keeps the
        # patient's scope both times (a clinician named once without a title keeps theirs)
        patients = frozenset(
            span.text.lower() for span, _, category in detections
            if category == "NAME" and span.label_.upper() == "PATIENT" and not _clinician_context(span)
        )
        for span, reason, category in detections:
            for i in range(span.start, span.end):
                covered[i] = True
            replacement, method = self.surrogate(span, category, patient_scope, patients)
            audit = {"component": self.name, "label": span.label_}
            if replacement is None:
                if any(edited[span.start : span.end]):
                    add_edit(doc, span.start, span.end, reason, span.text, audit, category=category, method=KEEP)
                continue
            add_edit(doc, span.start, span.end, reason, replacement, audit, category=category, method=method)
        eponyms: Optional[List[bool]] = None
        for span in upstream:
            if span.label_ not in self.rewrite_reasons or span._.deid_category not in (None, "OTHER"):
                continue
            for run_start, run_end, taken in _split_runs(covered, span.start, span.end):
                if taken:  # a PHI span of this component covers it
                    continue
                if span.label_ == PHI:
                    # an entity that the label map or Safe Harbor says is not PHI
                    piece = doc[run_start:run_end]
                    add_edit(doc, run_start, run_end, span.label_, piece.text, {"component": self.name}, method=KEEP)
                    continue
                if eponyms is None:
                    eponyms = _eponym_tokens(doc)
                for start, end, eponym in _split_runs(eponyms, run_start, run_end):
                    self._rewrite_run(doc, start, end, span.label_, keep=eponym)
        return doc

    def _rewrite_run(self, doc: Doc, start: int, end: int, reason: str, keep: bool = False) -> None:
        """Re-write one run of an upstream rarity edit with the OTHER operator, or
        keep it: an eponym, a rare measurement, a state or country."""
        piece = doc[start:end]
        if keep or (self.keep_measurements and end - start == 1 and _measurement(doc, start)):
            replacement, method = None, KEEP
        elif is_not_phi_place(piece.text, self.locale):  # "GA", "Brazil": not PHI
            replacement, method = None, KEEP
        else:
            replacement, method = self._rewrite(piece.text)
        audit = {"component": self.name}
        if replacement is None:
            add_edit(doc, start, end, reason, piece.text, audit, category="OTHER", method=KEEP)
        else:
            add_edit(doc, start, end, reason, replacement, audit, category="OTHER", method=method)

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        """Process a stream of Docs; a failing Doc goes to the error handler alone."""
        return pipe_each(self, stream)

    def initialize(self, get_examples=None, *, nlp: Optional[Language] = None) -> None:
        """Nothing is fitted: the replacer has no corpus statistics."""
        return None


# the words that make a date a birth date ("dob", "date of birth", "born on")
_BIRTH_CUES = frozenset("dob d.o.b d.o.b. birth born birthdate birthday bday".split())
_YEAR = re.compile(r"(?<!\d)(1[89]\d\d|2[01]\d\d)(?!\d)")


def _over_89_at_birth(span: Span, year: int) -> bool:
    """``span`` is a birth date (a birth cue in the four tokens before it) whose ``year``
    is more than 89 years before the note's latest other year (the current year
    when the note has none)."""
    doc = span.doc
    if not any(t.lower_.rstrip(":") in _BIRTH_CUES for t in doc[max(0, span.start - 4) : span.start]):
        return False
    others = [int(m.group(1)) for m in _YEAR.finditer(doc.text) if not span.start_char <= m.start() < span.end_char]
    reference = max(others) if others else dt.date.today().year
    return reference - year > 89


_MEASUREMENT = re.compile(r"(?i)^(\d{1,4}|\d+(?:[.,:/]\d+)+)(%|'?s|[a-z]{1,3})?$")
# a value of a range ("80-90", "94-97%", "100-120/60-70", "0.1-0.15"): groups of three digits at most
_RANGE_VALUE = re.compile(r"(?i)^\d{1,3}(?:[.,/]\d{1,3})*(%|'?s|[a-z]{1,3})?$")
_JOINERS = {"-", "–", ".", "(", ")", "/", "#", "+"}


def _measurement(doc: Doc, i: int) -> bool:
    """Token ``i`` is a number that reads as a measurement, not part of an
    identifier: measurement-shaped (a unit, percent or decade's "s" may be glued on:
    "2l", "94%", "90s"), and no digit token joined to it directly or through ``-``,
    ``.``, ``(``... without a space (``555-1234`` is one number), unless what is
    joined is a range of small values (``80-90``, ``100-120/60-70``); a clitic after
    a number ("90" + "'s") too."""
    text = doc[i].text
    if text.lower() in ("'s", "’s"):
        return i > 0 and not doc[i - 1].whitespace_ and doc[i - 1].text[:1].isdigit()
    if not _MEASUREMENT.match(text):
        return False
    if not _joined_digits(doc, i, -1) and not _joined_digits(doc, i, 1):
        return True
    return _small_range(doc, i)


def _small_range(doc: Doc, i: int) -> bool:
    """Token ``i`` is in a run of numbers joined by hyphens without spaces that is a range
    of small values: two or three numbers of at most three digits per group, not a
    date's three plain numbers ("3-24-17") nor a phone's or SSN's groups (four digits)."""
    start = end = i
    while start >= 2 and doc[start - 1].text in ("-", "–") and not doc[start - 2].whitespace_ \
            and not doc[start - 1].whitespace_:
        start -= 2
    while end + 2 < len(doc) and doc[end + 1].text in ("-", "–") and not doc[end].whitespace_ \
            and not doc[end + 1].whitespace_:
        end += 2
    values = [doc[k].text for k in range(start, end + 1, 2)]
    if not 2 <= len(values) <= 3 or not all(_RANGE_VALUE.match(v) for v in values):
        return False
    return not (len(values) == 3 and all(v.isdigit() for v in values))


def _whole_word(span: Span, taken: set) -> Span:
    """An identifier's span grown to the whole written word: the tokenizer splits a
    trailing letter off as a unit ("JK44719M" -> "JK44719" "M", "lot 3J92K"), which
    would go out as it came in."""
    doc, start, end = span.doc, span.start, span.end
    while end < len(doc) and end not in taken and not doc[end - 1].whitespace_ and doc[end].text.isalnum():
        end += 1
    while start > 0 and start - 1 not in taken and not doc[start - 1].whitespace_ and doc[start - 1].text.isalnum():
        start -= 1
    return span if (start, end) == (span.start, span.end) else Span(doc, start, end, label=span.label)


# words that end an organisation's name by saying what kind it is: a detector that found
# "Na'Nizhoozhi" or "Humana" leaves "Center", "Gold Plus" behind ("[ORG] Center")
_ORG_KIND_WORDS = frozenset("""
center centre services service care program programs high school manor inn lodge mission pharmacy
drug drugs clinic clinics plan prime plus gold advantage select choice transit group associates institute
foundation society network partners agency project coalition alliance ministries ministry academy
healthcare rx mutual assurance casualty supplemental
""".split())


def _with_kind_words(span: Span, taken: set) -> Span:
    """An organisation's span grown over up to three words of its kind right after it, on its
    line ("Na'Nizhoozhi" + "Center", "TRICARE" + "PRIME", "Humana" + "Gold Plus")."""
    doc, end = span.doc, span.end
    while end < len(doc) and end - span.end < 3 and end not in taken and "\n" not in doc[end - 1].whitespace_ \
            and doc[end].lower_ in _ORG_KIND_WORDS:
        end += 1
    return span if end == span.end else Span(doc, span.start, end, label=span.label)


def _joined_digits(doc: Doc, i: int, step: int) -> bool:
    j = i
    while True:
        left, right = (j - 1, j) if step < 0 else (j, j + 1)
        if left < 0 or right >= len(doc) or doc[left].whitespace_:
            return False
        j += step
        if any(c.isdigit() for c in doc[j].text):
            return True
        if doc[j].text not in _JOINERS:
            return False


# Words after which a name is an eponym, not a person ("Parkinson's disease",
# "Framingham Risk Score", "Wells criteria", "Chaddock reflex").
EPONYM_HEADS = frozenset(
    """disease diseases syndrome syndromes sign signs score scores scale criteria criterion reflex test tests
    maneuver manoeuvre classification grade grading stage staging index ratio risk rule rules procedure
    operation repair fracture palsy disorder lymphoma sarcoma tumor tumour ulcer phenomenon triad law equation level category specimen
    formula method technique catheter tube trial study protocol questionnaire inventory algorithm position
    incision node nodes cell cells body bodies dementia chorea anemia anaemia factor deficiency point hernia
    cyst esophagus ataxia dystrophy encephalopathy thyroiditis tetralogy anomaly malformation block sequence
    effect curve""".split()
)


def _eponym_tokens(doc: Doc) -> List[bool]:
    """Per token of ``doc``: part of an eponym (a head word such as
    reflex or score, and up to two capitalised words right before it, ``'s`` and
    ``-`` skipped: "Chaddock reflex", "Framingham Risk Score", "Lou Gehrig's disease")."""
    flags = [False] * len(doc)
    single_case = not is_mixed_case(doc)
    for i, token in enumerate(doc):
        if token.lower_ not in EPONYM_HEADS or contact_head(doc, i):
            continue
        flags[i] = True
        # in ALL CAPS or lower-case text capitals tell nothing: one word before a head
        # that names eponyms only ("chaddock reflex", "FRAMINGHAM RISK SCORE"), not a
        # generic one ("zorvathy test")
        strong = single_case and token.lower_ in STRONG_EPONYM_HEADS
        j, taken = i - 1, 0
        while j >= 0 and taken < 2:
            tok = doc[j]
            if tok.lower_ in ("'s", "’s", "-", "–"):
                flags[j] = True
            elif (tok.text[:1].isupper() and not single_case) or (
                strong and tok.is_alpha and not tok.is_stop and (taken == 0 or doc[j + 1].lower_ in ("risk", "'s", "’s"))
            ):
                flags[j] = True
                taken += 1
            else:
                break
            j -= 1
    return flags


# heads that follow an eponym far more often than a person's or place's name
STRONG_EPONYM_HEADS = frozenset(
    "disease diseases syndrome syndromes sign signs score scores criteria scale scales classification reflex "
    "maneuver manoeuvre palsy phenomenon triad equation formula angina arteritis thyroiditis encephalopathy".split()
)


def _split_runs(flags: List[bool], start: int, end: int) -> List[Tuple[int, int, bool]]:
    """Tokens ``[start, end)`` cut into (start, end, flag) runs of equal flags."""
    out = []
    i = start
    while i < end:
        j = i
        while j < end and flags[j] == flags[i]:
            j += 1
        out.append((i, j, flags[i]))
        i = j
    return out


# the weekdays that go with the date after them ("sat" and "sun" are saturation and sun too)
_DATED_WEEKDAYS = frozenset(_WEEKDAYS) - {"sat", "sun"}
# what stands before "sat" that is a saturation ("o2 sat 3/9" is none the less rare)
_SATURATION_BEFORE = frozenset("o2 spo2 pulse ox sao2 svo2 the in %".split())


def _glued_wed(doc: Doc, w: int) -> bool:
    """``doc[w]`` is the "We" of "Wed", which the tokenizer splits as "we'd" ("We" "d")."""
    return doc[w].lower_ == "we" and w + 1 < len(doc) and doc[w + 1].lower_ == "d" and not doc[w].whitespace_


def _dated_weekday(doc: Doc, w: int) -> bool:
    """``doc[w]`` is a weekday that goes with the date after it: "thurs 10/8", "SUN 8/11" and
    "sat 3/9" unless a saturation's word comes first; "Wed" ("We" "d" for the tokenizer)."""
    low = doc[w].lower_.rstrip(".")
    if low in _DATED_WEEKDAYS:
        return True
    if _glued_wed(doc, w):
        return True
    return low in ("sat", "sun") and not (w > 0 and doc[w - 1].lower_ in _SATURATION_BEFORE)


def _eponym(span: Span) -> bool:
    """A name, place or organisation used as part of an eponym: followed (after
    ``'s`` or ``-``, and the other names of a hyphenated eponym: "stevens-johnson
    syndrome", "charcot-marie-tooth disease") by a word such as disease, syndrome,
    score or criteria. A hyphen between spaces is a dash, no eponym's ("by dr hunter -
    grade 2 tear")."""
    doc = span.doc
    if span.text.endswith(".") or "\n" in doc[span.end - 1].whitespace_ or any(c.isdigit() for c in span.text):
        return False  # a sentence, a line or an address ends it ("22 pleasant st. incision clean")
    j = span.end
    while j < len(doc) and doc[j].lower_ in ("'s", "’s", "'", "-", "–"):
        if doc[j].text in ("-", "–") and doc[j - 1].whitespace_ and doc[j].whitespace_:
            break
        j += 1
        if doc[j - 1].text in ("-", "–") and j + 1 < len(doc) and doc[j].is_alpha and doc[j].lower_ not in EPONYM_HEADS:
            j += 1
    return j < len(doc) and doc[j].lower_ in EPONYM_HEADS and not contact_head(doc, j)


# Cues that a name is a clinician's: a credential after it ("Lisa Montoya, RN"), or a
# title or role word before it ("Dr. Weber", "PCP: Nicole Wright", "Signed: ...").
CREDENTIALS = frozenset(
    "md m.d. m.d do d.o. rn np pa pa-c phd ph.d. cnp aprn lpn crna msw lcsw pharmd dds dmd fnp-c fnp np-c "
    "facs facp mbbs resident attending".split()
)
ROLE_CUES = frozenset(
    "dr dr. doctor pcp attending consultant physician surgeon assistant anesthesiologist anesthesia resident "
    "intern fellow nurse rn signed cosigned co-signed dictated transcribed cc provider referring ordering "
    "requesting radiologist pathologist therapist np pa".split()
)


def _clinician_context(span: Span) -> bool:
    """A name written as a clinician's: a title, role word or credential right
    before it (``:``, ``by``, ``(`` skipped) or a title in it, or a credential right
    after it (``,`` skipped)."""
    doc = span.doc
    if span[0].lower_ in ROLE_CUES:
        return True
    i = span.start - 1
    while i >= 0 and doc[i].lower_ in (":", "by", "with", "-", ".", "("):
        i -= 1
    if i >= 0 and (doc[i].lower_ in ROLE_CUES or doc[i].lower_ in CREDENTIALS):  # "..., MD (nwright)"
        return True
    j = span.end
    while j < len(doc) and doc[j].text in (",", "-"):
        j += 1
    return j < len(doc) and doc[j].lower_ in CREDENTIALS
