"""Shipped span_ruler patterns for structured PHI (dates, phones, emails, IDs, ZIPs...).

Token patterns written against spaCy's English tokenizer, which splits
``2019-03-14`` and ``555-123-4567`` on hyphens between digits but keeps
``03/14/2019`` and ``555.123.4567`` whole. Used by
``@misc = "spacy_deid.phi_patterns.v1"`` (no path) and written to
``spacy_deid/assets/phi_patterns.jsonl`` for the project workflow with
``python scripts/write_phi_patterns.py spacy_deid/assets/phi_patterns.jsonl``.

Cue words: many identifiers are only recognisable by the word before them
(``MRN: 1860694``, ``Fax: 923-426-6095``, ``Job #: 640487``), but the PHI is the
value alone. Such patterns carry ``"id": "value"``; the ents filter
``spacy_deid.phi_ents_filter.v1`` resolves overlapping matches on the full match
(so ``Fax: 923-...`` beats the bare phone pattern) and then trims a ``value`` span
to its first..last token containing a digit (an opening parenthesis or ``+``
directly before the first digit token is kept).
"""
import functools
import re
from typing import Callable, Dict, Iterable, List

from spacy.tokens import Span, Token
from spacy.util import filter_spans, registry

_D = lambda n: {"TEXT": {"REGEX": rf"^\d{{{n}}}$"}}  # noqa: E731  exactly n digits
_HY = {"TEXT": {"IN": ["-", "–"]}}
_MONTHS = [
    "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december", "jan", "feb", "mar", "apr",
    "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
]
_MON_RE = "jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec"
_ID_CUES = ["mrn", "mr", "mrn#", "mr#", "pid"]
_STATES = [
    "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS", "KY", "LA",
    "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC", "ND", "OH", "OK",
    "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY", "DC",
]
_STATE_NAMES = [
    "Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado", "Connecticut", "Delaware", "Florida",
    "Georgia", "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa", "Kansas", "Kentucky", "Louisiana", "Maine",
    "Maryland", "Massachusetts", "Michigan", "Minnesota", "Mississippi", "Missouri", "Montana", "Nebraska",
    "Nevada", "New Hampshire", "New Jersey", "New Mexico", "New York", "North Carolina", "North Dakota", "Ohio",
    "Oklahoma", "Oregon", "Pennsylvania", "Rhode Island", "South Carolina", "South Dakota", "Tennessee", "Texas",
    "Utah", "Vermont", "Virginia", "Washington", "West Virginia", "Wisconsin", "Wyoming", "District of Columbia",
]
# between a cue and its value, in any letter case ("MRN IS 12345", "ZIP CODE IS 880")
_PUNCT_OPT = {"LOWER": {"IN": ["#", ":", ".", "no", "number", "is", "at"]}, "OP": "*"}
_VALUE = {"TEXT": {"REGEX": r"^[A-Za-z]{0,4}\d[\dA-Za-z\-]{2,}$"}}  # an ID token with a digit
_ALNUM_D = {"TEXT": {"REGEX": r"^[A-Za-z0-9]*\d[A-Za-z0-9]*$"}}
# an ID, possibly split on hyphens by the tokenizer: 9288-84246 -> 9288 - 84246
_ID_VALUE = [_VALUE, {"TEXT": "-", "OP": "?"}, {**_ALNUM_D, "OP": "?"}, {"TEXT": "-", "OP": "?"}, {**_ALNUM_D, "OP": "?"}]
_DECADE_SIDE = {"LOWER": {"IN": ["mid", "early", "late", "upper"]}, "OP": "?"}
# ages of 90 and over only: younger ages are not PHI under HIPAA Safe Harbor
_AGE_NUM = {"TEXT": {"REGEX": r"^(9\d|1[01]\d)$"}}
_MONTH_NUM = r"(0?[1-9]|1[0-2])"
_DAY_NUM = r"(0?[1-9]|[12]\d|3[01])"
_TIME = {"TEXT": {"REGEX": r"(?i)^(([01]?\d|2[0-3]):[0-5]\d(:[0-5]\d)?([ap]m?)?|([01]\d|2[0-3])[0-5]\d(h|hrs?)?)$"}}
_APOS = {"TEXT": {"IN": ["'", "’", "`", "‘"]}}
# "'99", "'23" (the tokenizer splits the apostrophe off) and four-digit years
_YEARISH = [[_APOS, {"TEXT": {"REGEX": r"^\d{2}$"}}], [{"TEXT": {"REGEX": r"^(1[89]|20)\d\d$"}}]]
_FULL_MONTHS = _MONTHS[:12]
# days of a month as words, one token ("third") or a tens word and a unit ("twenty-fourth",
# which the tokenizer splits at the hyphen)
_UNIT_ORDINALS = "first second third fourth fifth sixth seventh eighth ninth".split()
_ORDINAL_WORDS = [
    [{"LOWER": {"IN": _UNIT_ORDINALS + """tenth eleventh twelfth thirteenth fourteenth fifteenth sixteenth
        seventeenth eighteenth nineteenth twentieth thirtieth""".split()}}],
    [{"LOWER": {"IN": ["twenty", "thirty"]}}, {"TEXT": "-", "OP": "?"}, {"LOWER": {"IN": _UNIT_ORDINALS}}],
]
# abbreviated months that stand alone after "in", "since"... ("in oct"): not "jan", "mar", "dec"
_MONTH_ALONE_ABBREVIATIONS = ["feb", "feb.", "apr", "apr.", "jun", "jun.", "jul", "jul.", "aug", "aug.", "sep", "sep.", "sept", "sept.", "oct", "oct.", "nov", "nov."]
# a month name, its abbreviation with its period as one token ("Oct.") or two in single-case
# text ("oct" "."): the optional _DOT after it
# (a tilde glued to it is "about": "~feb 20" is one token for the tokenizer)
_MONTH = {"LOWER": {"IN": _MONTHS + [m + "." for m in _MONTHS[12:]] + ["~" + m for m in _MONTHS]}}
_DOT = {"TEXT": ".", "OP": "?"}
_DAY_MONTH_ABBREVIATIONS = [m for m in _MONTHS[12:] if m not in ("mar", "dec")] + ["jan.", "feb.", "apr.", "jun.", "jul.", "aug.", "sep.", "sept.", "oct.", "nov."]
_URL_START = {"TEXT": {"REGEX": r"(?i)^(https?://|www\.)\w"}}
_URL_PART = {"TEXT": {"REGEX": r"^[\w\-/?=&%#.~]*[\w/]$"}}
_WEEKDAYS = [
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun",
]
# words before a month/day with no year ("on 10/12") that make it read as a date,
# not a score or a ratio ("pain 6/10", "bp 120/80")
_DATE_CUES = [
    "on", "since", "dated", "date", "dos", "doa", "admitted", "admit", "adm", "discharged", "dc'd", "d/c'd",
    "as", "starting", "started", "began", "due", "of", "seen", "surgery", "born", *_WEEKDAYS,
]
# weaker cues: a denominator of 10 after them is a pain score ("from 8/10 to 4/10")
_DATE_CUES_WEAK = ["from", "to", "thru", "through", "until", "till", "by", "last", "next", "before", "after", "and", "-"]
# what ICU notes date with a month/day ("last bm 10/12", "cxr 10/14", "intubated 3/2"): after
# them too a denominator of 10 is left alone
_EVENT_CUES = [
    "bm", "cxr", "ct", "cta", "mri", "echo", "tte", "tee", "ekg", "ecg", "eeg", "egd", "kub", "intubated",
    "extubated", "reintubated", "placed", "inserted", "removed", "changed", "transfused", "drawn", "collected",
    "done", "performed", "stopped", "resumed",
    # events a note dates by their noun ("last drink 12/24", "hd 10/12", "appt 4/22"); not the
    # nouns that counts follow ("cx 2/4 bottles", "bx 3/12 cores", "dose 1/2 tab", "chemo cycle 2/6")
    "drink", "appt", "appointment", "visit", "fall", "hd", "dialysis", "cath", "picc", "trach", "peg",
    "transfusion", "vaccine", "admission",
    # meetings and the days around them ("fam mtg held 10/3", "tee scheduled 12/9", "tomorrow 12/9")
    "meeting", "mtg", "held", "scheduled", "sched", "today", "tomorrow", "yesterday", "tonight",
    # a note's own date after its name ("phone note 3/7", "npn 10/28", "addendum 4/2")
    "note", "npn", "addendum",
    # what is drawn, taught, missed or repaired on a day ("labs 10/3:", "education class 11/12",
    # "missed tx 6/12")
    "labs", "lab", "class", "tx", "session", "diagnosed", "dx'd",
    # injuries, filings and deliveries on a day ("skateboard accident 5/1", "51a filed 6/8",
    # "o2 delivered 10/3")
    "accident", "mvc", "mva", "assault", "assaulted", "filed", "delivered",
    # a return visit, a birthday, a specimen sent on a day ("rtc 6/3", "birthday 12/3", "anti-gbm
    # sent 12/1")
    "rtc", "birthday", "bday", "anniversary", "sent",
    "trached",
]
# what a plan or a chart dates ("anticipate d/c 6/4", "soc 1/11" (home care's start of care),
# "ortho f/u 12/3", "ppm placement 1/9", "pickup resumes 6/2", "progress 8/2"): a dose's fraction
# follows them too ("resume 1/2 dose", "d/c 1/2 tab"), so not after them
_PLAN_CUES = [
    "d/c", "dc", "discharge", "soc", "f/u", "fu", "followup", "follow-up", "placement",
    "resumes", "resume", "anticipate", "anticipated", "expected", "planned", "progress",
]
# of those, the nouns no score follows: after them a denominator of 10 is a day too ("last visit
# 1/10", "cxr 3/10"; "pain 6/10", "pain after BM 6/10", "CT done 8/10 pain" stay)
_EVENT_NOUNS = [
    "cxr", "mri", "echo", "tte", "tee", "ekg", "ecg", "eeg", "egd", "kub", "appt", "appointment",
    "visit", "hd", "dialysis", "cath", "picc", "trach", "transfusion", "vaccine", "admission", "meeting", "mtg",
    "scheduled", "sched", "note", "npn", "addendum", "labs", "class", "session",
]
# hospital units a patient is moved to or from
_CARE_UNITS = ["icu", "micu", "sicu", "ccu", "cvicu", "csru", "nicu", "picu", "tsicu", "ed", "er", "floor", "pacu", "or", "rehab", "stepdown"]
# "2/2" is nursing shorthand for "secondary to" ("lasix stopped 2/2 hypotension"): a date
# only after a strong date cue ("on 2/2")
_SHORTHAND_MD = frozenset({"2/2"})
_MD = {"TEXT": {"REGEX": rf"^{_MONTH_NUM}/{_DAY_NUM}$"}}
# a month/day whose day is no pain score's denominator (x/10)
MONTH_DAY_NOT_10 = rf"^{_MONTH_NUM}/(0?[1-9]|1[1-9]|2\d|3[01])$"
_MD_NOT_10 = {"TEXT": {"REGEX": MONTH_DAY_NOT_10}}
# ... and no fraction a dose is written with ("1/2", "3/4")
_MD_NO_FRACTION = {"TEXT": {"REGEX": r"^(?!(1/2|1/3|2/3|1/4|3/4)$)" + MONTH_DAY_NOT_10[1:]}}
# a phone number's last group, an extension glued on or not: "4567", "4567x45"
_LAST4 = {"TEXT": {"REGEX": r"(?i)^\d{4}(x\d{1,5})?$"}}
_EXT_TAILS: List[List[Dict]] = [
    [],
    [{"TEXT": {"REGEX": r"(?i)^x\d{1,5}$"}}],
    [{"LOWER": {"IN": ["x", "ext", "ext.", "extension"]}}, {"TEXT": ".", "OP": "?"}, {"TEXT": {"REGEX": r"^\d{1,5}$"}}],
]
# street suffixes of addresses (public: a place entity with one is no person, see detect/gazetteers.py)
STREET_SUFFIXES = [
    "street", "st", "road", "rd", "avenue", "ave", "av", "lane", "ln", "drive", "dr", "boulevard", "blvd",
    "highway", "hwy", "parkway", "pkwy", "terrace", "court", "circle", "trail", "route", "rte", "pike",
    "way", "plaza", "square", "turnpike", "tpke", "expressway",
]
# the abbreviated suffixes with their period, one token before a comma ("789 Maple St., New Orleans";
# not "dr.": "seen 2 times dr. smith")
_DOTTED_SUFFIXES = ["st.", "rd.", "ave.", "av.", "ln.", "blvd.", "hwy.", "pkwy.", "rte.", "tpke."]
# the words before a street's name in other countries ("rue", "rua", "calle", "avda.", "ul.")
STREET_PREFIXES = [
    "rue", "rua", "calle", "avenida", "avda", "strada", "viale", "piazza", "carrer", "calea", "avenue", "ul", "ulica",
    "paseo", "trg", "praça", "largo", "travessa", "avinguda", "carrera", "camino", "corso", "piazzale", "vicolo",
]
# Italian and Spanish articles after "via" ("via dei fiorentini 17"): "via" alone is a route of
# giving ("gave 40 via peg 60 ml/hr")
_VIA_ARTICLES = ["dei", "delle", "della", "del", "degli", "di", "dello", "de"]
# endings of street names written in one word in other countries ("friedhofstrasse",
# "hafnarstraeti", "fagradalsbraut", "breivangvegen", "sahantie", "koskikatu", "þorsteinsgata")
_STREET_ENDINGS = "|".join([
    "strasse", "straße", "weg", "gasse", "gade", "vej", "gatan", "vägen", "laan", "straat", "plein", "utca",
    "ulica", "allee", "straeti", "stræti", "braut", "vegen", "veien", "[^\\W\\d_]{2}tie", "katu", "gata", "stræde",
    "platz", "plads", "torget", "markt",
])
# the street words written apart after the name ("augsburger strasse", "stensås terrasse")
_STREET_WORDS_AFTER = ["strasse", "straße", "gasse", "allee", "weg", "straat", "laan", "terrasse", "vej", "gade", "gatan", "platz"]
# state codes that are also English words or common abbreviations in lower case (public:
# the gazetteers' "town, st" rule reads them too)
WORD_STATE_CODES = frozenset("in or me ok hi oh al la ma pa de co id mo md mt wa ga va".split())

# Phone number shapes (no cue), reused after cue words for FAX.
_PHONE_BASES: List[List[Dict]] = [
    [{"TEXT": "("}, _D(3), {"TEXT": ")"}, _D(3), _HY, _LAST4],
    # "(617) 555 0199": the area code in parentheses, the groups apart
    [{"TEXT": "("}, _D(3), {"TEXT": ")"}, _D(3), _LAST4],
    # "(617)555-0137": no space after the parenthesis, which the tokenizer leaves on the exchange
    [{"TEXT": "("}, {"TEXT": {"REGEX": r"^\d{3}\)\d{3}$"}}, _HY, _LAST4],
    [_D(3), _HY, _D(3), _HY, _LAST4],
    [{"TEXT": {"REGEX": r"(?i)^\d{3}\.\d{3}\.\d{4}(x\d{1,5})?$"}}],
    [{"TEXT": {"REGEX": r"^\+?1?\d{10}$"}}],
    [{"TEXT": {"REGEX": r"^\+\d{10,14}$"}}],
    [{"TEXT": {"REGEX": r"^\+1$"}}, {"TEXT": {"REGEX": r"^\(?\d{3}\)?$"}}, {"TEXT": {"REGEX": r"^[\d\-\.]{7,8}$"}}],
    [{"TEXT": {"REGEX": r"^\+1$"}}, {"TEXT": "("}, _D(3), {"TEXT": ")"}, _D(3), _HY, _LAST4],
    [{"TEXT": {"REGEX": r"^\+?1$"}}, _HY, _D(3), _HY, _D(3), _HY, _LAST4],
]
# every shape with an optional extension after it ("x45", "ext. 45")
_PHONES: List[List[Dict]] = [base + tail for base in _PHONE_BASES for tail in _EXT_TAILS]
# seven digits or an internal extension, only after a cue word: "pager 5-1234", "beeper #4321"
_SHORT_PHONES: List[List[Dict]] = [
    [_D(3), _HY, _LAST4],
    [{"TEXT": {"REGEX": r"(?i)^x?\d{3,7}$"}}],
    [{"TEXT": {"REGEX": r"(?i)^x?\d$"}}, _HY, _D(4)],
]
# a US number written with spaces: "508 555 1234" (area code and exchange start with 2-9;
# checked by ``_spaced_phone_ok``: no list of numbers or measurement)
SPACED_PHONE_ID = "spaced_phone"
_SPACED_PHONE = [{"TEXT": {"REGEX": r"^[2-9]\d\d$"}}, {"TEXT": {"REGEX": r"^[2-9]\d\d$"}}, _LAST4]
# phone numbers written in other national forms ("0688 872 49 99", "60-56-85-91",
# "(08) 8747 6301", "+46 (0)8 928 571 38"): digit groups, checked by ``_loose_phone_ok``
_GROUP = {"TEXT": {"REGEX": r"(?i)^(\(?\+?\d{1,7}\)?|\(?0\)\d{1,4}|\d{1,4}\)\d{2,4}|\d{4}x\d{1,5})$"}}
_SEP = {"TEXT": {"IN": ["-", ".", "(", ")"]}, "OP": "?"}
_JOIN = {"TEXT": {"IN": ["-", "."]}}
_LEAD = {"TEXT": {"REGEX": r"^(\(?0\d{0,4}\)?|\+\d{1,7}|\(0\)\d{1,4})$"}}
# three to six groups that start with 0, + or "(", any separators; or four to six
# groups joined by "-" or "." (a separator is always followed by a group)
_LOOSE_PHONES: List[List[Dict]] = [
    *([{"TEXT": "(", "OP": "?"}, _LEAD] + [_SEP, _GROUP] * (n - 1) for n in range(3, 7)),
    *([_GROUP] + [_JOIN, _GROUP] * (n - 1) for n in range(4, 7)),
]
DIGIT_WORDS = "zero oh one two three four five six seven eight nine".split()
_UNIT_NUMBER_WORDS = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty".split()
_AGE_WORDS = frozenset(["ninety", "hundred", "and", "a", *_UNIT_NUMBER_WORDS])
_DOTTED_PHONE = {"TEXT": {"REGEX": r"^\+?\d{2,4}(\.\d{2,4}){3,5}$"}}
LOOSE_PHONE_ID = "loose_phone"
# digit groups of any national form after a phone cue ("Phone: 0378 3549890", "(72) 754-186",
# "51 516 33 75"): seven digits or more in two to six groups
CUED_PHONE_ID = "cued_phone"
# a month/day with a day past 12 and no cue ("fam mtg 10/15", "to micu 3/14"): a date unless
# a score or a count reads it as a ratio (``reads_as_ratio``)
BARE_MD_ID = "bare_month_day"
# a month/day whose month is past its day ("bcx 11/3 pending", "pedestrian struck 12/6,"): no
# score or count is more than its whole, so a date unless what is measured or dosed comes before
# it or a ratio's word or a setting stands beside it ("nph 12/6,", "bipap 12/6", "pupils 3/2
# brisk"; checked in ``_descending_date``)
DESCENDING_MD_ID = "descending_month_day"
_DATE_FOLLOWERS = frozenset("pending am pm noon @ w/ s/p x".split())
# what is measured, dosed or scored, before a value written like a month/day ("wbc 12/6", "nph 10/5")
_MEASURED_WORDS = frozenset("""
nph regular insulin wbc hgb hb hct plt bp sbp dbp map fs bs bg bgm glucose accuchek accucheck pain murmur radial
pedal dp pt pulses pulse output sense sensing pacer gcs phq gad score scores grade i/o io ins outs intake tubes
tube jp drain drains ct chest flexion extension strength motor lue rue lle rle step steps level levels ratio
dose doses units unit dosing sliding scale ss k mg phos ca na cr bun inr basal bolus lantus levemir humalog novolog
toujeo tresiba basaglar humulin novolin admelog apidra fiasp
""".split())
_CLOCK = re.compile(r"^([01]?\d|2[0-3])[0-5]\d$")
_DESCENDING_MD = {"TEXT": {"REGEX": r"^(0?[2-9]|1[0-2])/(0?[1-9]|1[01])$"}}
_SETTING_WORDS = frozenset("""
bipap cpap ps psv peep ipap epap vent vented settings setting avaps niv nippv ac simv prvc cvp pap pa rap pcwp
wedge pupils pupil perrl perrla brisk sluggish reactive nonreactive mm cm h2o fio2 % ie i:e rate rr tv
support pressure pressures weaned wean weaning trial -> > currently flexion extension abduction titrated
biceps triceps patellar achilles brachioradialis reflex reflexes dtr dtrs motor grip strength eyes
stools stool kids children meals shift shifts nurse charge schedule
""".split())
# the month/days that name a nurse's shift ("7/3: pt stable", "11/7 shift"), no day without a cue
_SHIFT_MDS = frozenset({"7/3", "11/7", "7/7", "3/11"})


@functools.lru_cache(maxsize=1)
def _drug_names() -> frozenset:
    """The shipped one-word drug names (``gazetteers/drug_names.txt``): a value after one is a dose."""
    # (imported here: the gazetteer module imports this one)
    from spacy_deid.detect.gazetteers import read_term_file
    from spacy_deid.resources import asset_path

    return frozenset(read_term_file(asset_path("gazetteers/drug_names.txt")))


# a month-day written with a hyphen after a strong date cue ("seen on 3-24", "admitted 12-28"),
# which a dose, flow or count reads the same as ("on 2-3 l nc", "started 2-3 days ago")
MD_HYPHEN_ID = "month_day_hyphen"
_MD_HYPHEN_CUES = [
    "on", "since", "dated", "date", "dos", "doa", "admitted", "admit", "adm", "discharged", "dc'd", "d/c'd",
    "started", "starting", "began", "born", "seen", *_WEEKDAYS,
]
# what follows a range that is an amount, not a date
_AMOUNT_AFTER = frozenset("""
l lpm liters liter nc fm times x days day d weeks week wks wk months month mos hours hour hrs hr minutes min mins
doses dose episodes tabs tab tablets puffs units u mg mcg g ml cc % am pm
""".split())
_MD_LATE = {"TEXT": {"REGEX": rf"^{_MONTH_NUM}/(1[3-9]|2\d|3[01])$"}}
# units after a number
_UNIT_WORDS = frozenset("mg mcg g gm kg ml cc l units u iu meq mmol mmhg bpm cal kcal mm cm min hr hrs".split())
# of those, the units no street's first word is ("1800 G St", "12 Cal Ave")
_DOSE_UNITS = _UNIT_WORDS - {"g", "l", "u", "cal", "min"}
# words before or after a ratio of that form: "gcs 14/15", "1/15 nodes", "3/14 cores positive"
_RATIO_WORDS = frozenset("""
gcs apgar apgars score scores scale strength power grade of ratio x nodes node lymph cores core bottles
bottle vials specimens samples blocks slides fragments positive negative tabs tablets doses cycles
fractions sessions points pts items questions criteria correct errors ribs teeth beats tof twitches way
ns nss saline tab dose hr hour cap caps amp pill pills
""".split())
LAST_ID = "last"  # the value is the match's last token
WORDS_ID = "number_words"  # the value is the match's leading number words ("ninety-four" of "ninety-four year old")
# an identifier after its cue, in any of the shapes record numbers take ("12345-JS",
# "87342GH", "UCSF-20210930-567", "APL-876-98", "1234-5678", "#AB-987654"); the
# cue words are trimmed off, the whole value kept
ID_VALUE_ID = "id_value"
# what follows an orthopaedic plate or a tag that is no licence plate's group ("plate x 6",
# "plate 6 mm", "plate w/ 6 screws")
_NOT_PLATE_WORDS = sorted(set("""x w w/ mm cm in hole holes screw screws pin pins lbs kg mg ml cc y yr yrs wk wks mo mos d
day days hr hrs left right rt lt lat med ant post""".split()))
# a record's number in groups after "#" (checked in ``phi_ents_filter``: six digits or more, no
# phone number with its country code)
HASH_ID = "hash_number"
# a value of letters and digit groups after a one-word cue and its "#" or ":" ("PLATE KLM 482")
AFTER_CUE_ID = "after_cue"
# a street after an address's cue: from its house number to its end
STREET_VALUE_ID = "street_value"
_ID_RUN_CUES = [
    "mrn", "mr", "mrn#", "mr#", "pid", "id", "record", "number", "acct", "account", "policy", "member",
    # licences, plates, vehicles, devices, clinicians' and plans' numbers ("DRIVERS LICENSE S530-4412-9921",
    # "LICENSE PLATE 7ABC123", "vin 1HGCM82633A004352", "SERIAL NO PJN552211", "npi 1902837465")
    "license", "licence", "lic", "dl", "plate", "vin", "serial", "npi", "dea", "certificate", "cert", "badge",
    "passport", "medicaid", "medicare", "subscriber", "beneficiary", "group", "employee", "case",
]
_ID_HEAD = {"TEXT": {"REGEX": r"(?i)^(#?[a-z]{0,6}\d[a-z0-9]*(-[a-z0-9]+)*|#?[a-z]{1,6}(-[a-z0-9]*\d[a-z0-9]*)+)$"}}
_ID_TAIL = [{"TEXT": {"IN": ["-", "/"]}}, {"TEXT": {"REGEX": r"(?i)^[a-z0-9]{1,12}$"}}]
_ID_RUNS = [[_ID_HEAD, *(_ID_TAIL * n)] for n in range(4)]
# the cues after which any digit groups are a phone number ("home 10 12 2019" is a date)
_STRONG_PHONE_CUES = [["phone"], ["ph"], ["tel"], ["telephone"], ["cell"], ["mobile"], ["desk"]]
_PHONE_CUES = [["phone"], ["ph"], ["tel"], ["telephone"], ["cell"], ["mobile"], ["call"], ["contact"], ["number"], ["home"], ["work"], ["@"]]
_PAGER_CUES = [["pager"], ["pgr"], ["beeper"], ["beep"]]


def _usps_suffixes() -> List[str]:
    """The USPS street suffixes shipped in ``assets/gazetteers/street_suffixes.txt``."""
    from spacy_deid.resources import ASSET_DIR

    path = ASSET_DIR / "gazetteers" / "street_suffixes.txt"
    return sorted(
        line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip() and not line.startswith("#")
    )


_POSTAL_CUES = (["zip"], ["zip", "code"], ["zipcode"], ["postal", "code"], ["postcode"], ["post", "code"])
_POSTAL_FORMS = (
    [_D(5), {"TEXT": "-", "OP": "?"}, {"TEXT": {"REGEX": r"^\d{4}$"}, "OP": "?"}],
    [{"TEXT": {"REGEX": r"^\d{3,6}$"}}, {"TEXT": {"REGEX": r"^(\d{2,3}|[A-Za-z]{2})$"}, "OP": "?"}],
    [{"TEXT": {"REGEX": r"^\d{2,3}$"}}, _HY, {"TEXT": {"REGEX": r"^\d{3,4}$"}}],
    [{"TEXT": {"REGEX": r"^[A-Za-z]{1,2}\d[A-Za-z\d]?$"}}, {"TEXT": {"REGEX": r"^\d[A-Za-z]{2}$|^\d[A-Za-z]\d$"}}],
)


def _cue(words: List[str], value: List[Dict], label: str) -> Dict:
    """A pattern: cue word(s), optional ``#``/``:``/``No``..., then the value."""
    cue = [{"LOWER": w} for w in words]
    return {"label": label, "id": "value", "pattern": [*cue, _PUNCT_OPT, *value]}


PHI_PATTERNS: List[Dict] = [
    # DATE (bare "6/10" is left alone: pain scores and ratios look the same)
    {"label": "DATE", "pattern": [{"TEXT": {"REGEX": r"^\d{1,2}/\d{1,2}/\d{2,4}$"}}]},
    {"label": "DATE", "pattern": [{"TEXT": {"REGEX": r"^\d{4}/\d{1,2}/\d{1,2}$"}}]},
    {"label": "DATE", "pattern": [{"TEXT": {"REGEX": r"^(0?[1-9]|1[0-2])/(19|20)\d\d$"}}]},
    {"label": "DATE", "pattern": [_D(4), _HY, {"TEXT": {"REGEX": r"^\d{1,2}$"}}, _HY, {"TEXT": {"REGEX": r"^\d{1,2}$"}}]},
    {"label": "DATE", "pattern": [{"TEXT": {"REGEX": r"^\d{1,2}$"}}, _HY, {"TEXT": {"REGEX": r"^\d{1,2}$"}}, _HY, _D(4)]},
    {"label": "DATE", "pattern": [{"TEXT": {"REGEX": r"^\d{1,2}$"}}, _HY, {"TEXT": {"REGEX": rf"(?i)^({_MON_RE})-\d{{2,4}}$"}}]},
    {"label": "DATE", "pattern": [{"TEXT": {"REGEX": rf"(?i)^\d{{1,2}}-({_MON_RE})-\d{{2,4}}$"}}]},
    {"label": "DATE", "pattern": [_MONTH, _DOT, {"TEXT": {"REGEX": r"(?i)^\d{1,2}(st|nd|rd|th)?$"}}, {"TEXT": ",", "OP": "?"}, _D(4)]},
    {"label": "DATE", "pattern": [_MONTH, _DOT, {"TEXT": {"REGEX": r"(?i)^\d{1,2}(st|nd|rd|th)?$"}}]},
    {"label": "DATE", "pattern": [_MONTH, _DOT, _D(4)]},
    {"label": "DATE", "pattern": [{"TEXT": {"REGEX": r"^\d{1,2}$"}}, _MONTH, _DOT, _D(4)]},
    # dotted: "04.05.2019", "4.5.19", "2019.03.14"; month and year: "03-2019"
    {"label": "DATE", "pattern": [{"TEXT": {"REGEX": rf"^{_MONTH_NUM}\.{_DAY_NUM}\.(\d\d|(19|20)\d\d)$"}}]},
    {"label": "DATE", "pattern": [{"TEXT": {"REGEX": rf"^{_DAY_NUM}\.{_MONTH_NUM}\.(19|20)\d\d$"}}]},
    {"label": "DATE", "pattern": [{"TEXT": {"REGEX": rf"^(19|20)\d\d\.{_MONTH_NUM}\.{_DAY_NUM}$"}}]},
    {"label": "DATE", "pattern": [{"TEXT": {"REGEX": rf"^{_MONTH_NUM}$"}}, _HY, {"TEXT": {"REGEX": r"^(19|20)\d\d$"}}]},
    # month-day with a hyphen after a strong cue: "seen on 3-24", "admitted 12-28"
    {"label": "DATE", "id": MD_HYPHEN_ID, "pattern": [
        {"LOWER": {"IN": _MD_HYPHEN_CUES}}, {"TEXT": {"REGEX": rf"^{_MONTH_NUM}$"}}, _HY, {"TEXT": {"REGEX": rf"^{_DAY_NUM}$"}},
    ]},
    # m-d-yy: "3-24-17"
    {"label": "DATE", "pattern": [{"TEXT": {"REGEX": rf"^{_MONTH_NUM}$"}}, _HY, {"TEXT": {"REGEX": rf"^{_DAY_NUM}$"}}, _HY, _D(2)]},
    # a date with its time: "1978-07-13 07:00:28", "03/14/2019 14:30"
    {"label": "DATE", "pattern": [_D(4), _HY, {"TEXT": {"REGEX": r"^\d{1,2}$"}}, _HY, {"TEXT": {"REGEX": r"^\d{1,2}$"}}, {"LOWER": {"IN": ["at", "@"]}, "OP": "?"}, _TIME]},
    {"label": "DATE", "pattern": [{"TEXT": {"REGEX": r"^\d{1,2}/\d{1,2}/\d{2,4}$"}}, {"LOWER": {"IN": ["at", "@"]}, "OP": "?"}, _TIME]},
    # month/day with no year: with a day past 12 it can be nothing else (checked in
    # ``phi_ents_filter`` for scores and counts); else only where it reads as a date: after
    # a date cue, or with a time
    {"label": "DATE", "id": BARE_MD_ID, "pattern": [_MD_LATE]},
    {"label": "DATE", "id": DESCENDING_MD_ID, "pattern": [_DESCENDING_MD]},
    {"label": "DATE", "id": "value", "pattern": [{"LOWER": {"IN": _DATE_CUES}}, {"LOWER": "the", "OP": "?"}, _MD]},
    {"label": "DATE", "id": "value", "pattern": [{"LOWER": {"IN": _DATE_CUES_WEAK + _EVENT_CUES}}, _MD_NOT_10]},
    {"label": "DATE", "id": "value", "pattern": [{"LOWER": {"IN": _EVENT_NOUNS}}, _MD]},
    {"label": "DATE", "id": "value", "pattern": [{"LOWER": {"IN": _PLAN_CUES}}, _MD_NO_FRACTION]},
    # a scan and the part scanned before its day ("ct chest 10/9:", "MRI BRAIN 3/2")
    {"label": "DATE", "id": "value", "pattern": [
        {"LOWER": {"IN": ["ct", "cta", "mri", "mra", "pet", "xr", "us", "ultrasound"]}},
        {"LOWER": {"IN": ["chest", "head", "abd", "abdomen", "pelvis", "neck", "brain", "spine"]}},
        _MD_NOT_10,
    ]},
    # the shorthands the tokenizer splits in capitals ("ANTICIPATE D/C 6/4", "F/U 12/3") and
    # "wed", which it reads as "we'd" ("f/u wed 9/11")
    {"label": "DATE", "id": "value", "pattern": [{"LOWER": {"IN": ["d", "f"]}}, {"TEXT": "/"}, {"LOWER": {"IN": ["c", "u"]}}, _MD_NO_FRACTION]},
    {"label": "DATE", "id": "value", "pattern": [{"LOWER": "we"}, {"LOWER": "d", "SPACY": True}, _MD]},
    {"label": "DATE", "id": "value", "pattern": [{"LOWER": "as"}, {"LOWER": "of"}, _MD]},
    # a move to or from a unit on a day ("admitted to ccu 9/7", "transferred from micu 3/2")
    {"label": "DATE", "id": "value", "pattern": [
        {"LOWER": {"IN": ["admitted", "admit", "transferred", "transfer", "tx'd", "xfer", "xferred", "arrived", "returned", "sent", "came"]}},
        {"LOWER": {"IN": ["to", "from"]}}, {"LOWER": {"IN": _CARE_UNITS}}, _MD_NOT_10,
    ]},
    # the last bowel movement is dated, whatever its day ("last bm 10/10"; "pain after bm 6/10")
    {"label": "DATE", "id": "value", "pattern": [{"LOWER": "last"}, {"LOWER": "bm"}, _MD]},
    # a note's time, then its day ("ICU NSG NOTE 0700 10/21")
    {"label": "DATE", "id": "last", "pattern": [{"TEXT": {"REGEX": r"^[012]\d[0-5]\d$"}}, _MD_NO_FRACTION]},
    # a shift, then the day it is on: "npn 7p-7a 4/5", "progress note 0700 - 1900 10/28" (the
    # day alone is the date; not a score: "4/10")
    {"label": "DATE", "id": "last", "pattern": [{"TEXT": {"REGEX": r"(?i)^\d{1,2}[ap]m?-\d{1,2}[ap]m?$"}}, _MD_NOT_10]},
    {"label": "DATE", "id": "last", "pattern": [
        {"TEXT": {"REGEX": r"^[012]\d[0-5]\d$"}}, _HY, {"TEXT": {"REGEX": r"^[012]\d[0-5]\d$"}}, _MD_NOT_10,
    ]},
    {"label": "DATE", "pattern": [_MD, {"LOWER": {"IN": ["at", "@"]}, "OP": "?"}, _TIME]},
    {"label": "DATE", "pattern": [_MD, _HY, _MD]},
    # month (and day) with a two-digit or written year: "april '23", "march of 2022", "march of '99"
    *(
        {"label": "DATE", "pattern": [_MONTH, _DOT, *mid, *year]}
        for mid in ([], [{"LOWER": "of"}], [{"TEXT": {"REGEX": r"(?i)^\d{1,2}(st|nd|rd|th)?$"}}, {"TEXT": ",", "OP": "?"}])
        for year in _YEARISH
    ),
    # day before the month: "5 march", "the 5th of march"
    {"label": "DATE", "pattern": [{"TEXT": {"REGEX": rf"(?i)^{_DAY_NUM}(st|nd|rd|th)?$"}}, {"LOWER": "of", "OP": "?"}, {"LOWER": {"IN": _FULL_MONTHS}}]},
    # an ordinal day of an abbreviated month ("since 12th of aug", "3RD OF SEPT.")
    {"label": "DATE", "pattern": [
        {"TEXT": {"REGEX": rf"(?i)^{_DAY_NUM}(st|nd|rd|th)$"}}, {"LOWER": "of"}, {"TEXT": {"REGEX": rf"(?i)^({_MON_RE})\.?$"}},
    ]},
    {"label": "DATE", "pattern": [{"TEXT": {"REGEX": rf"(?i)^{_DAY_NUM}(st|nd|rd|th)?$"}}, {"LOWER": "of", "OP": "?"}, {"LOWER": {"IN": _FULL_MONTHS}}, {"TEXT": ",", "OP": "?"}, _D(4)]},
    # ... and before an abbreviated month: "VISIT 5 JAN", "12 feb." ("mar" is a medication record
    # and "dec" a decrease in nursing notes: "per mar", "bs 2 dec": those two need a year)
    {"label": "DATE", "pattern": [
        {"TEXT": {"REGEX": rf"(?i)^{_DAY_NUM}(st|nd|rd|th)?$"}}, {"LOWER": {"IN": _DAY_MONTH_ABBREVIATIONS}}, _DOT,
    ]},
    {"label": "DATE", "pattern": [{"TEXT": {"REGEX": rf"^{_DAY_NUM}$"}}, _MONTH, _DOT, {"TEXT": ",", "OP": "?"}, *_YEARISH[0]]},
    # an ordinal day after a date's cue and "the", before punctuation or a time ("next visit the
    # 14th.", "on the 3rd at 2pm"; not "on the 2nd floor")
    {"label": "DATE", "id": "value", "pattern": [
        {"LOWER": {"IN": ["on", "by", "until", "since", "before", "after", "visit", "appt", "appointment", "thru", "through"]}},
        {"LOWER": "the"}, {"TEXT": {"REGEX": rf"(?i)^{_DAY_NUM}(st|nd|rd|th)$"}},
        {"LOWER": {"IN": [".", ",", ";", ")", "at", "@", "and", "or"]}},
    ]},
    # a day written as a word: "march third", "the twenty-fourth of march", "third of march"
    *(
        {"label": "DATE", "pattern": pattern}
        for ordinal in _ORDINAL_WORDS
        for pattern in (
            [{"LOWER": {"IN": _FULL_MONTHS}}, *ordinal],
            [*ordinal, {"LOWER": "of"}, {"LOWER": {"IN": _FULL_MONTHS}}],
        )
    ),
    # a month alone where it reads as one: "in march", "since january", "last december", "every
    # november", and its abbreviation ("in oct", "(was 17 in Aug)"; not "jan", "mar", "dec": a
    # name, the medication record, "decreased")
    {"label": "DATE", "id": "month", "pattern": [
        {"LOWER": {"IN": ["in", "since", "during", "until", "early", "late", "mid", "last", "next", "this", "by", "before", "after", "every"]}},
        {"LOWER": {"IN": _FULL_MONTHS + _MONTH_ALONE_ABBREVIATIONS}},
    ]},
    # ... and after words of time a modal follows too ("mammo due march"; not "due may be")
    {"label": "DATE", "id": "month", "pattern": [
        {"LOWER": {"IN": ["due", "till", "til", "thru", "through", "around"]}},
        {"LOWER": {"IN": [m for m in _FULL_MONTHS + _MONTH_ALONE_ABBREVIATIONS if m != "may"]}},
    ]},
    # holidays name a day of the year: "christmas", "labor day", "new year's eve"
    {"label": "DATE", "pattern": [{"LOWER": {"IN": ["christmas", "thanksgiving", "easter", "halloween", "hanukkah", "xmas"]}}]},
    {"label": "DATE", "pattern": [{"LOWER": {"IN": ["christmas", "xmas"]}}, {"LOWER": "eve"}]},
    {"label": "DATE", "pattern": [
        {"LOWER": {"IN": ["labor", "memorial", "independence", "veterans", "columbus", "presidents", "mother", "father", "valentine"]}},
        {"LOWER": {"IN": ["'s", "’s"]}, "OP": "?"},
        {"LOWER": "day"},
    ]},
    # ("YEAR'S." is one token for the tokenizer; "new years eve")
    {"label": "DATE", "pattern": [{"LOWER": "new"}, {"LOWER": {"REGEX": r"^year(['’]s|s)\.?$"}}, {"LOWER": {"IN": ["day", "eve"]}, "OP": "?"}]},
    {"label": "DATE", "pattern": [{"LOWER": "new"}, {"LOWER": "year"}, {"LOWER": {"IN": ["'s", "’s"]}}, {"LOWER": {"IN": ["day", "eve"]}, "OP": "?"}]},
    {"label": "DATE", "pattern": [{"LOWER": "new"}, {"LOWER": "year"}, {"LOWER": {"IN": ["day", "eve"]}}]},
    # a weekday written out: "on Tuesday", "SATURDAY", or shortened where no other word is
    # ("to floor Tues", "trach/peg thurs", "ANGIO WED"; not "mon", "sat", "sun"; "wed" in lower
    # case is "we" "d" for the tokenizer)
    {"label": "DATE", "pattern": [{"LOWER": {"IN": _WEEKDAYS[:7] + ["tue", "tues", "wed", "thu", "thur", "thurs", "fri"]}}]},
    # a weekday with its date: "mon 10/12" (the date patterns take the rest)
    {"label": "DATE", "pattern": [{"LOWER": {"IN": _WEEKDAYS}}, {"TEXT": ",", "OP": "?"}, _MONTH, _DOT, {"TEXT": {"REGEX": r"(?i)^\d{1,2}(st|nd|rd|th)?$"}}]},
    # ... and its year, so that the weekday's match (as long as the date's) leaves no year
    # behind ("Tuesday, March 12, 2024")
    *(
        {"label": "DATE", "pattern": [
            {"LOWER": {"IN": _WEEKDAYS}}, {"TEXT": ",", "OP": "?"}, _MONTH, _DOT, {"TEXT": {"REGEX": r"(?i)^\d{1,2}(st|nd|rd|th)?$"}},
            {"TEXT": ",", "OP": "?"}, *year,
        ]}
        for year in _YEARISH
    ),
    # PHONE; FAX when a fax cue comes first
    *({"label": "PHONE", "pattern": p} for p in _PHONES),
    *({"label": "PHONE", "id": LOOSE_PHONE_ID, "pattern": p} for p in _LOOSE_PHONES),
    {"label": "PHONE", "pattern": [_DOTTED_PHONE]},
    # a number read out digit by digit: "six one seven five five five one two three four"
    {"label": "PHONE", "pattern": [{"LOWER": {"IN": DIGIT_WORDS}, "OP": "{7,11}"}]},
    {"label": "PHONE", "id": SPACED_PHONE_ID, "pattern": _SPACED_PHONE},
    # an internal extension with its exchange digit, no cue needed ("julie x4-5678")
    {"label": "PHONE", "pattern": [{"TEXT": {"REGEX": r"(?i)^x\d{1,2}$"}}, _HY, _D(4)]},
    *(_cue(["fax"], p, "FAX") for p in _PHONES),
    *(_cue(["faxed", "to"], p, "FAX") for p in _PHONES),
    *(_cue(cue, p, "PHONE") for cue in _PHONE_CUES for p in _SHORT_PHONES[:1]),
    *({"label": "PHONE", "id": CUED_PHONE_ID, "pattern": [
        *({"LOWER": w} for w in cue), _PUNCT_OPT, {"IS_SPACE": True, "OP": "?"}, {"TEXT": "(", "OP": "?"}, _GROUP,
        *([_SEP, _GROUP] * (n - 1))]}
      for cue in _STRONG_PHONE_CUES for n in range(2, 7)),
    *(_cue(cue, p, "PAGER") for cue in _PAGER_CUES for p in _SHORT_PHONES + _PHONES),
    # an internal extension alone after its cue ("at ext 455", "EXTENSION 2231"); three digits
    # or more: a joint's extension in degrees is one or two ("flex 120 ext 0", "ext -10")
    *(_cue(cue, [{"TEXT": {"REGEX": r"^\d{3,5}$"}}], "PHONE") for cue in (["ext"], ["ext."], ["extension"])),
    # EMAIL / URL
    {"label": "EMAIL", "pattern": [{"LIKE_EMAIL": True}]},
    {"label": "URL", "pattern": [{"LIKE_URL": True, "TEXT": {"REGEX": r"[/.]"}}]},
    # a URL spaCy's LIKE_URL misses in capitals, which the tokenizer then splits at "/" and "-"
    # ("HTTP://KVHOSPITAL.ORG/PATIENTS", "WWW.KV-HOSP.ORG"): the scheme or www. token and
    # every token written against it, up to the last one that is part of a path
    {"label": "URL", "pattern": [_URL_START]},
    # (not over a line break, which the tokenizer makes a token of its own: "https://x.se/\n\naddress:")
    {"label": "URL", "pattern": [
        dict(_URL_START, SPACY=False), {"SPACY": False, "IS_SPACE": False, "OP": "*"}, _URL_PART,
    ]},
    # SSN
    {"label": "SSN", "pattern": [_D(3), _HY, _D(2), _HY, _D(4)]},
    # its last four digits, which a registration or benefits note checks a patient by ("SSN last 4
    # 6620", "last four of SSN: 6620"), and a number masked all but them ("xxx-xx-6620")
    {"label": "SSN", "id": LAST_ID, "pattern": [
        {"LOWER": {"IN": ["ssn", "ss#", "ssn#", "social", "ss"]}}, {"LOWER": "security", "OP": "?"},
        {"LOWER": {"IN": ["#", "number", "no", ":", "-", "(", ","]}, "OP": "*"}, {"LOWER": "last"},
        {"LOWER": {"IN": ["4", "four"]}}, {"LOWER": {"IN": ["digits", "digit", ":", "#", "-", "is", "=", "of", "ssn", ")", "):"]}, "OP": "*"}, _D(4),
    ]},
    {"label": "SSN", "id": LAST_ID, "pattern": [
        {"LOWER": "last"}, {"LOWER": {"IN": ["4", "four"]}}, {"LOWER": {"IN": ["digits", "digit"]}, "OP": "?"},
        {"LOWER": "of"}, {"LOWER": {"IN": ["ssn", "social", "ss#"]}}, {"LOWER": "security", "OP": "?"},
        {"LOWER": {"IN": ["number", "no", ":", "#", "-", "is", "="]}, "OP": "*"}, _D(4),
    ]},
    {"label": "SSN", "pattern": [{"TEXT": {"REGEX": r"(?i)^(xxx|\*\*\*)-?(xx|\*\*)-?\d{4}$"}}]},
    {"label": "SSN", "pattern": [{"TEXT": {"REGEX": r"(?i)^xxx$"}}, _HY, {"TEXT": {"REGEX": r"(?i)^xx-\d{4}$"}}]},
    # ("***-**-1234" is four tokens: "*", "*", "*", "-**-1234")
    {"label": "SSN", "pattern": [{"TEXT": "*"}, {"TEXT": "*"}, {"TEXT": "*"}, {"TEXT": {"REGEX": r"^-\*\*-\d{4}$"}}]},
    # MRN / IDs after a cue word, in several formats
    {"label": "MRN", "id": "value", "pattern": [{"LOWER": {"IN": _ID_CUES}}, {"TEXT": {"IN": ["#", ":", "no", "No", "."]}, "OP": "*"}, {"TEXT": {"REGEX": r"^[A-Z]{0,3}\d[\d\-]{3,}$"}}]},
    {"label": "MRN", "id": "value", "pattern": [{"LOWER": {"IN": _ID_CUES}}, {"TEXT": {"IN": ["#", ":"]}, "OP": "*"}, {"TEXT": {"REGEX": r"^\d{2,3}$"}}, _HY, {"TEXT": {"REGEX": r"^\d{2,4}$"}}, _HY, {"TEXT": {"REGEX": r"^\d{2,4}$"}}]},
    _cue(["medical", "record", "number"], [_VALUE], "MRN"),
    _cue(["unit", "no"], [{"TEXT": {"REGEX": r"^\d{2,}$"}}, {"TEXT": {"REGEX": r"^\d{2,}$"}, "OP": "?"}], "MRN"),
    *(
        _cue(cue, _ID_VALUE, "IDNUM")
        for cue in (["accession"], ["account", "no"], ["encounter"], ["job"], ["member", "id"], ["order", "id"],
                    ["visit"], ["medicaid"], ["medicare"], ["insurance"], ["health", "plan"], ["policy"],
                    ["csn"], ["fin"], ["acct"], ["account"])
    ),
    {"label": "IDNUM", "pattern": [{"TEXT": {"REGEX": r"(?i)^(?=.*\d)[a-z0-9]{2,}[-]?\d{5,}$"}}]},
    # letters and digits: "CHI-789012", "em-123456", "SMH12345"
    {"label": "IDNUM", "pattern": [{"TEXT": {"REGEX": r"(?i)^[a-z]{1,5}-\d{4,}[a-z]?$"}}]},
    {"label": "IDNUM", "pattern": [{"TEXT": {"REGEX": r"(?i)^[a-z]{2,4}\d{5,}$"}}]},
    # digits in two groups, not a phone number: "987-654321"
    {"label": "IDNUM", "pattern": [{"TEXT": {"REGEX": r"^\d{2,4}$"}}, _HY, {"TEXT": {"REGEX": r"^\d{5,9}$"}}]},
    # after an ID cue: "id: 98765", "case #jh-998877", "mrn 765-4321"
    *(
        _cue(cue, [{"TEXT": {"REGEX": r"(?i)^[a-z]{0,5}-?\d{4,}[a-z]?$"}}], "IDNUM")
        for cue in (["id"], ["i", "d"], ["case"], ["patient", "id"], ["site", "id"], ["license"], ["lic"], ["dl"], ["passport"], ["acct"], ["ref"])
    ),
    *(
        _cue([c], [_D(3), _HY, _D(4)], "MRN")
        for c in _ID_CUES
    ),
    # a record's number after "#", three groups or more that are no phone number ("pcr #
    # 2023-0809-0412", "case # 21-2-04418-7")
    *(
        {"label": "IDNUM", "id": HASH_ID, "pattern": [{"TEXT": "#"}, first, _HY, {"TEXT": {"REGEX": r"^\d{1,8}$"}}, _HY, last,
                                                      {"TEXT": "-", "OP": "?"}, {"TEXT": {"REGEX": r"^\d{1,8}$"}, "OP": "?"}]}
        for first, last in (
            ({"TEXT": {"REGEX": r"^(\d{1,2}|\d{4,8})$"}}, {"TEXT": {"REGEX": r"^\d{1,8}$"}}),
            ({"TEXT": {"REGEX": r"^\d{3}$"}}, {"TEXT": {"REGEX": r"^(\d{1,3}|\d{5,8})$"}}),
        )
    ),
    # grouped card numbers: "4111 1111 1111 1111", "3782 822463 10005"
    {"label": "IDNUM", "pattern": [_D(4), _D(4), _D(4), _D(4)]},
    {"label": "IDNUM", "pattern": [_D(4), _HY, _D(4), _HY, _D(4), _HY, _D(4)]},
    {"label": "IDNUM", "pattern": [_D(4), _D(6), _D(5)]},
    # a year of birth (not PHI alone; the replacer masks one that tells an age over 89)
    {"label": "DATE", "id": "value", "pattern": [
        {"LOWER": {"IN": ["born", "dob", "d.o.b.", "birth"]}}, {"LOWER": {"IN": ["in", ":", "year"]}, "OP": "*"},
        {"TEXT": {"REGEX": r"^(18|19|20)\d\d$"}},
    ]},
    # a record number written against its cue: "mrn#1234567", "acct#7654321"
    {"label": "MRN", "pattern": [{"TEXT": {"REGEX": r"(?i)^(mrn|mr|pid)#\d{4,}$"}}]},
    {"label": "IDNUM", "pattern": [{"TEXT": {"REGEX": r"(?i)^(acct|acc|id|ssn|member|policy)#\d{4,}$"}}]},
    # IP addresses
    {"label": "IP_ADDRESS", "pattern": [{"TEXT": {"REGEX": r"^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$"}}]},
    {"label": "IP_ADDRESS", "pattern": [{"TEXT": {"REGEX": r"(?i)^[0-9a-f]{1,4}(:[0-9a-f]{0,4}){4,7}$"}}]},
    *(
        {"label": "IDNUM" if cue not in ("mrn", "mr", "mrn#", "mr#", "record") else "MRN", "id": ID_VALUE_ID,
         "pattern": [*({"LOWER": w} for w in cue_words), _PUNCT_OPT, *run]}
        for cue in _ID_RUN_CUES
        for run in _ID_RUNS
        for cue_words in ([cue], ["i", "d"]) if cue == "id" or cue_words == [cue]
    ),
    # user names after their cue: "signed: cchavez71", "user jdoe", "login: t.hernand"
    *(
        {"label": "USERNAME", "id": LAST_ID, "pattern": [*({"LOWER": w} for w in cue), *sep, value]}
        for cue in (["username"], ["user"], ["userid"], ["login"], ["signed"], ["entered", "by"], ["author"],
                    ["dictated", "by"], ["transcribed", "by"])
        # a user name with a digit after the cue, any user name after "cue:"
        for sep, value in (
            ([{"TEXT": {"IN": [":", "#"]}, "OP": "?"}], {"TEXT": {"REGEX": r"(?i)^[a-z][a-z._\-]*\d[a-z0-9._\-]*$"}}),
            ([{"TEXT": ":"}], {"TEXT": {"REGEX": r"(?i)^[a-z][a-z0-9._\-]{2,30}$"}}),
        )
    ),
    # DEVICE serial and lot numbers
    _cue(["serial", "number"], [{"TEXT": {"REGEX": r"^[A-Za-z0-9]*\d[A-Za-z0-9]*$"}}, {"TEXT": "-", "OP": "?"}, {"TEXT": {"REGEX": r"^[A-Za-z0-9]+$"}, "OP": "?"}, {"TEXT": "-", "OP": "?"}, {"TEXT": {"REGEX": r"^[A-Za-z0-9]+$"}, "OP": "?"}], "DEVICE"),
    _cue(["lot", "number"], [_VALUE], "DEVICE"),
    # a licence plate written in two groups after its cue ("PT PLATE KLM 482", "plate # 7 XYZ")
    *(
        {"label": "VEHICLE", "id": AFTER_CUE_ID, "pattern": [
            {"LOWER": {"IN": ["license", "licence", "lic", "lic.", "vehicle", "car", "truck", "auto", "pt", "pt's", "patient's", "his", "her", "their"]}},
            {"LOWER": {"IN": ["plate", "plates", "tag"]}}, {"TEXT": {"IN": ["#", ":"]}, "OP": "?"}, *groups]}
        for groups in (
            [{"TEXT": {"REGEX": r"(?i)^[a-z]{2,4}$"}, "IS_STOP": False, "LOWER": {"NOT_IN": _NOT_PLATE_WORDS}},
             {"TEXT": {"REGEX": r"(?i)^\d{1,4}[a-z]{0,2}$"}, "LOWER": {"NOT_IN": _NOT_PLATE_WORDS}}],
            [{"TEXT": {"REGEX": r"(?i)^\d{1,4}$"}}, {"TEXT": {"REGEX": r"(?i)^[a-z]{2,4}\d{0,3}$"}, "IS_STOP": False, "LOWER": {"NOT_IN": _NOT_PLATE_WORDS}}],
        )
    ),
    # a vaccine's or a device's lot after "lot" alone: letters and digits ("lot 3J92K", "lot: Y7731")
    _cue(["lot"], [{"TEXT": {"REGEX": r"^(?=.*\d)(?=.*[A-Za-z])[A-Za-z0-9]{4,}$|^\d{5,}$"}}], "DEVICE"),
    # ZIP after a state abbreviation or name
    # (in any letter case: "ri 02888", "NEBRASKA 68008")
    {"label": "ZIP", "id": "value", "pattern": [{"TEXT": {"IN": _STATES}}, _D(5), {"TEXT": "-", "OP": "?"}, {"TEXT": {"REGEX": r"^\d{4}$"}, "OP": "?"}]},
    # lower case: not the codes that are English words ("given in 10000 units")
    {"label": "ZIP", "id": "value", "pattern": [{"LOWER": {"IN": sorted({s.lower() for s in _STATES} - WORD_STATE_CODES)}}, _D(5), {"TEXT": "-", "OP": "?"}, {"TEXT": {"REGEX": r"^\d{4}$"}, "OP": "?"}]},
    {"label": "ZIP", "id": "value", "pattern": [{"LOWER": {"IN": sorted({n.lower() for n in _STATE_NAMES if " " not in n})}}, _D(5), {"TEXT": "-", "OP": "?"}, {"TEXT": {"REGEX": r"^\d{4}$"}, "OP": "?"}]},
    *[
        {"label": "ZIP", "id": "value", "pattern": [*({"LOWER": w.lower()} for w in name.split()), _D(5), {"TEXT": "-", "OP": "?"}, {"TEXT": {"REGEX": r"^\d{4}$"}, "OP": "?"}]}
        for name in _STATE_NAMES
        if " " in name
    ],
    # AGE: "93-year-old", "age 93", "93 yo", "42 y/o", "54 year old" (the number only)
    {"label": "AGE", "id": "value", "pattern": [_AGE_NUM, _HY, {"LOWER": {"IN": ["year", "yr"]}}, _HY, {"LOWER": "old"}]},
    {"label": "AGE", "id": "value", "pattern": [_AGE_NUM, {"LOWER": {"IN": ["year", "yr"]}}, {"LOWER": "old"}]},
    {"label": "AGE", "id": "value", "pattern": [{"LOWER": {"IN": ["age", "aged"]}}, {"TEXT": ":", "OP": "?"}, _AGE_NUM]},
    {"label": "AGE", "id": "value", "pattern": [_AGE_NUM, {"LOWER": {"IN": ["yo", "y/o", "yrs", "years"]}}]},
    {"label": "AGE", "id": "value", "pattern": [_AGE_NUM, {"LOWER": "y"}, {"TEXT": "/"}, {"LOWER": "o"}]},
    {"label": "AGE", "id": "value", "pattern": [_AGE_NUM, {"LOWER": {"IN": ["y.o", "y.o.", "yr", "yrs", "y"]}}]},
    # an age over 89 in words ("ninety-four year old", "one hundred and two years old", "NINETY FOUR YO")
    *(
        {"label": "AGE", "id": WORDS_ID, "pattern": [*head, *tail, *unit]}
        for head in ([{"LOWER": "ninety"}], [{"LOWER": {"IN": ["one", "a"]}, "OP": "?"}, {"LOWER": "hundred"}, {"LOWER": "and", "OP": "?"}])
        for tail in ([], [_HY, {"LOWER": {"IN": _UNIT_NUMBER_WORDS}}], [{"LOWER": {"IN": _UNIT_NUMBER_WORDS}}])
        for unit in (
            [{"LOWER": {"IN": ["year", "yr"]}}, _HY, {"LOWER": "old"}], [{"LOWER": {"IN": ["year", "yr", "years", "yrs"]}}, {"LOWER": "old"}],
            [{"LOWER": {"IN": ["yo", "y/o", "y.o", "y.o."]}}],
        )
    ),
    # a decade of life over 89 ("in her 90s", "IN HIS MID 90'S"): the decade tells the age; not
    # a value's ("sats mid 90s", "sbp upper 90s")
    {"label": "AGE", "id": "value", "pattern": [
        {"LOWER": {"IN": ["her", "his", "their"]}}, _DECADE_SIDE, {"TEXT": {"REGEX": r"(?i)^(9|1[01])0'?s$"}},
    ]},
    {"label": "AGE", "id": "value", "pattern": [
        {"LOWER": {"IN": ["her", "his", "their"]}}, _DECADE_SIDE, {"TEXT": {"REGEX": r"^(9|1[01])0$"}}, {"LOWER": {"IN": ["'s", "’s"]}},
    ]},
    # the age a sentence gives ("pt is 101, daughter is 70", "turned 95 last week", "her 100th birthday")
    {"label": "AGE", "id": "value", "pattern": [
        {"LOWER": {"IN": ["pt", "patient", "she", "he"]}}, {"LOWER": "is"}, _AGE_NUM, {"LOWER": {"IN": [",", ".", ";", "and", "with", "but"]}},
    ]},
    {"label": "AGE", "id": "value", "pattern": [{"LOWER": "turned"}, _AGE_NUM]},
    {"label": "AGE", "pattern": [{"TEXT": {"REGEX": r"(?i)^(9\d|1[01]\d)(st|nd|rd|th)$"}}, {"LOWER": {"IN": ["birthday", "bday"]}}]},
    # glued: "93yo", "93y", "93F"
    {"label": "AGE", "pattern": [{"TEXT": {"REGEX": r"(?i)^(9\d|1[01]\d)(yo|y/o|y\.o\.?|yrs?|y|[mf])$"}}]},
    {"label": "AGE", "pattern": [{"TEXT": {"REGEX": r"(?i)^(9\d|1[01]\d)y$"}}, {"TEXT": "/"}, {"LOWER": "o"}]},
    # ZIP and postal codes of other countries after their cue ("zip 02114-1234", "my zip code is
    # 880", "postal code 394 13", "ZIP: 7412 SL", "postcode B0J 2H0", "53-320")
    *(_cue(cue, form, "ZIP") for cue in _POSTAL_CUES for form in _POSTAL_FORMS),
    # STREET: "90 whitchurch road", "1600 n. main st.", then "suite 377", "apt 4b", "po box 12"
    {"label": "STREET", "pattern": [
        # a house number, a letter after it but "s" ("map 60s. cards fellow dr bianchi")
        {"TEXT": {"REGEX": r"(?i)^\d{1,6}[a-rt-z]?$"}},
        {"TEXT": {"REGEX": r"(?i)^([nsew]\.?|north|south|east|west)$"}, "OP": "?"},
        # a saint's or a mountain's street: "88 st. botolph st", "12 mt. vernon st"
        {"LOWER": {"IN": ["st", "st.", "saint", "mt", "mt.", "ft", "ft."]}, "OP": "?"},
        {"TEXT": ".", "OP": "?"},
        {"TEXT": {"REGEX": r"(?i)^([a-z][a-z'\-]+|\d+(st|nd|rd|th))$"}, "IS_STOP": False, "OP": "{1,3}"},
        {"LOWER": {"IN": STREET_SUFFIXES + _DOTTED_SUFFIXES}},
        {"TEXT": ".", "OP": "?"},
    ]},
    # the short suffixes that are also clinical shorthand ("ct", "pl", "cir", "ter": "24 hr head ct")
    # after an address's cue: "Residence: 4 Chestnut Ct", "lives at 12 oak ct"
    *(
        {"label": "STREET", "id": STREET_VALUE_ID, "pattern": [
            *cue, {"TEXT": ":", "OP": "?"}, {"TEXT": {"REGEX": r"(?i)^\d{1,6}[a-z]?$"}},
            {"TEXT": {"REGEX": r"(?i)^([nsew]\.?|north|south|east|west)$"}, "OP": "?"},
            {"TEXT": {"REGEX": r"(?i)^[a-z][a-z'\-]+$"}, "IS_STOP": False, "OP": "{1,3}"},
            {"LOWER": {"IN": ["ct", "ct.", "pl", "pl.", "cir", "cir.", "ter", "ter.", "cres", "hts"]}},
        ]}
        for cue in (
            [{"LOWER": {"IN": ["residence", "address", "addr", "home"]}}],
            [{"LOWER": {"IN": ["lives", "living", "resides", "moved", "home", "house", "apartment"]}}, {"LOWER": {"IN": ["at", "to"]}}],
        )
    ),
    # any USPS suffix after a house number of two or more digits: "9629 richard lake", "018 robert fields"
    {"label": "STREET", "pattern": [
        {"TEXT": {"REGEX": r"(?i)^\d{2,6}[a-z]?$"}},
        {"TEXT": {"REGEX": r"(?i)^([nsew]\.?|north|south|east|west)$"}, "OP": "?"},
        {"TEXT": {"REGEX": r"(?i)^[a-z][a-z'\-]+$"}, "IS_STOP": False, "OP": "{1,3}"},
        {"LOWER": {"IN": _usps_suffixes()}},
    ]},
    {"label": "STREET", "pattern": [
        {"LOWER": {"IN": ["apt", "apartment", "suite", "ste", "unit", "psc", "box", "bldg", "building"]}},
        {"LOWER": {"IN": [".", "box", "#", "no", "no."]}, "OP": "*"},
        {"TEXT": {"REGEX": r"(?i)^\d{1,5}[a-z]?$"}},
    ]},
    # a post office box says "box" ("po box 12", "P.O. Box 77"; "PO 120 QD" is a dose by mouth)
    {"label": "STREET", "pattern": [
        {"LOWER": {"IN": ["po", "p.o.", "p.o", "pob"]}}, {"TEXT": ".", "OP": "?"}, {"LOWER": "box"},
        {"LOWER": {"IN": ["#", "no", "no."]}, "OP": "?"}, {"TEXT": {"REGEX": r"(?i)^\d{1,5}[a-z]?$"}},
    ]},
    {"label": "STREET", "pattern": [{"LOWER": {"IN": ["apo", "fpo", "dpo"]}}, {"LOWER": {"IN": ["aa", "ae", "ap"]}}, _D(5)]},
    # a numbered road after the house number: "2200 route 9", "45 rte. 1a", "1200 state highway 101"
    {"label": "STREET", "pattern": [
        {"TEXT": {"REGEX": r"(?i)^\d{1,6}[a-z]?$"}},
        {"LOWER": {"IN": ["state", "us", "u.s.", "county", "old"]}, "OP": "?"},
        {"LOWER": {"IN": ["route", "rte", "rt", "highway", "hwy"]}},
        {"TEXT": ".", "OP": "?"},
        {"TEXT": {"REGEX": r"(?i)^\d{1,4}[a-z]?$"}},
    ]},
    # streets written the European way: "rue de la paix 12", "ul. cicha 86", "friedhofstrasse 33"
    {"label": "STREET", "pattern": [
        {"LOWER": {"IN": STREET_PREFIXES}},
        {"TEXT": ".", "OP": "?"},
        {"IS_ALPHA": True, "OP": "{1,3}"},
        {"TEXT": {"REGEX": r"(?i)^\d{1,5}[a-z]?$"}},
    ]},
    {"label": "STREET", "pattern": [
        {"LOWER": "via"},
        {"LOWER": {"IN": _VIA_ARTICLES}},
        {"IS_ALPHA": True, "OP": "{1,3}"},
        {"TEXT": {"REGEX": r"(?i)^\d{1,5}[a-z]?$"}},
    ]},
    # ... with the house number first: "52 rua joaquim de oliveira", "22 avda. alameda" ("via"
    # is no such word here: "gave 40 via peg 60 ml/hr")
    {"label": "STREET", "pattern": [
        {"TEXT": {"REGEX": r"(?i)^\d{1,5}[a-z]?$"}},
        {"LOWER": {"IN": [w for w in STREET_PREFIXES if w != "avenue"]}},
        {"TEXT": ".", "OP": "?"},
        {"IS_ALPHA": True, "IS_STOP": False, "OP": "{1,3}"},
    ]},
    {"label": "STREET", "pattern": [
        {"TEXT": {"REGEX": rf"(?i)^[^\W\d_]{{2,}}({_STREET_ENDINGS})$"}},
        {"TEXT": {"REGEX": r"(?i)^\d{1,5}[a-z]?$"}},
    ]},
    # ... with the street word apart: "augsburger strasse 36", "stensås terrasse 38"
    {"label": "STREET", "pattern": [
        {"IS_ALPHA": True, "IS_STOP": False},
        {"LOWER": {"IN": _STREET_WORDS_AFTER}},
        {"TEXT": {"REGEX": r"(?i)^\d{1,5}[a-z]?$"}},
    ]},
]

VALUE_ID = "value"
MONTH_ID = "month"


_ID_HEAD_RE = re.compile(_ID_HEAD["TEXT"]["REGEX"])


def _loose_phone_ok(span: Span, others: List[Span]) -> bool:
    """A run of digit groups is a phone number when it has 8 to 15 digits, no
    other pattern (a date, a known phone shape) overlaps it, and it does not read
    as a list of numbers: it starts with ``0``, ``+`` or ``(``, or its groups are
    joined by ``-``/``.``."""
    digits = sum(c.isdigit() for c in span.text)
    if not 8 <= digits <= 15 or span[-1].text in {"-", ".", "("}:
        return False
    # another pattern wins unless this run holds it and is longer ("001-518-640-0854")
    for o in others:
        if o.start < span.end and span.start < o.end and not (span.start <= o.start and o.end <= span.end and len(o) < len(span)):
            return False
    groups = re.findall(r"\d+", span.text)
    if len(groups) >= 2 and all(len(g) == 4 and int(g[:2]) < 24 and int(g[2:]) < 60 for g in groups[:2]):
        return False  # a shift or a time range, alone or before a date: "0700-1900", "0700-1900 12-31-18"
    first = span[0].text
    joined = any(t.text in {"-", "."} for t in span)
    return first[:1] in {"0", "+", "("} or joined


def _neighbours(span: Span) -> List[Token]:
    """The tokens right before and after ``span`` (those the doc has)."""
    doc = span.doc
    return [doc[i] for i in (span.start - 1, span.end) if 0 <= i < len(doc)]


def reads_as_ratio(span: Span) -> bool:
    """A score or count word or another number stands right before or after
    ``span`` ("1/15 nodes", "gcs 14/15", "2/3 of dose"): a ratio, no date."""
    return any(t.lower_ in _RATIO_WORDS or t.text == "/" or t.like_num for t in _neighbours(span)) \
        or after_joined_number(span.doc, span.start)


def _descending_date(span: Span) -> bool:
    """A month/day whose month is past its day that reads as a date: not after a drug, a value's
    or score's word or a slash's pair (``_MEASURED_WORDS``), no ratio (``reads_as_ratio``),
    no setting's word in the two tokens on each side ("bipap 12/6", "pupils 3/2 brisk", "10/5 peep"),
    and where a date's phrase ends."""
    month, day = (int(x) for x in span.text.split("/"))
    if month <= day or reads_as_ratio(span) or span.text in _SHIFT_MDS:
        return False
    doc = span.doc
    # not after what is measured or dosed: a drug, a value's or score's word, two things joined by
    # a slash, a count ("nph 12/6,", "lantus 12/6", "wbc 12/6,", "pain 8/4 after", "radial 2/1,",
    # "lisinopril/hctz 10/5", "rue/lue 5/4", "jp x2 12/8,")
    if span.start:
        before = doc[span.start - 1]
        low = before.lower_
        pair = span.start >= 2 and doc[span.start - 2].text == "/"
        if low in _MEASURED_WORDS or low in _drug_names() or "/" in low or pair or before.like_num \
                or re.fullmatch(r"x\d+", low) or re.search(r"-\d+$", low):
            return False
    near = range(max(span.start - 2, 0), min(span.end + 2, len(doc)))
    if any(doc[i].lower_ in _SETTING_WORDS for i in near if not span.start <= i < span.end):
        return False
    # where a date's phrase ends: punctuation, a line's end, a function word, a clock time
    # ("bcx 11/3 pending", "struck 12/6,"; not "6/5 flex coil", "pressure was 10/7 mmHg")
    if span.end >= len(doc):
        return True
    nxt = doc[span.end]
    return (nxt.is_punct and nxt.text != "?") or nxt.is_space or "\n" in doc[span.end - 1].whitespace_ or nxt.is_stop \
        or nxt.lower_ in _DATE_FOLLOWERS or _CLOCK.match(nxt.text) is not None


def secondary_to(span: Span) -> bool:
    """``span`` is "2/2", nursing shorthand for "secondary to" ("lasix stopped 2/2
    hypotension"), with no strong date cue before it ("on 2/2" is a date)."""
    doc = span.doc
    return span.text in _SHORTHAND_MD and not (span.start > 0 and doc[span.start - 1].lower_ in _DATE_CUES)


def amount_after(span: Span) -> bool:
    """A unit, count word or number right after ``span`` ("on 2-3 l nc", "started 2-3 days
    ago", "on 2-4 x"): an amount, no month-day."""
    doc = span.doc
    if span.end >= len(doc):
        return False
    nxt = doc[span.end]
    return nxt.like_num or nxt.lower_ in _AMOUNT_AFTER or nxt.lower_ in _RATIO_WORDS or nxt.text in {"/", "-", ":"}


def after_joined_number(doc, i: int) -> bool:
    """``doc[i]`` is joined by a hyphen, without spaces, to a number before it: a mixed
    number ("1-1/2 hours": no month/day, whatever cue comes first), a size ("22-french"); a
    month/day before is a range of days ("6/15-6/30")."""
    return i >= 2 and doc[i - 1].text == "-" and doc[i - 2].like_num and "/" not in doc[i - 2].text \
        and not doc[i - 2].whitespace_ and not doc[i - 1].whitespace_


def _spaced_phone_ok(span: Span) -> bool:
    """Three space-separated groups are a phone number unless a number or a word
    of measurement stands next to them ("glucose 220 250 1200 300", "250 300 1000 ml")."""
    return not any(t.like_num or t.lower_ in _RATIO_WORDS or t.lower_ in _UNIT_WORDS for t in _neighbours(span))


def trim_to_value(span: Span) -> Span:
    """The part of a cue+value match that is the value: from the first to the last
    token with a digit; a ``+`` right before the first one is kept, and a ``(``
    when its ``)`` is inside the value (a phone's area code)."""
    if span.id_ in (MONTH_ID, LAST_ID):  # "in march": the month alone; "user: jdoe": the name
        return Span(span.doc, span.end - 1, span.end, label=span.label_, span_id=span.id_)
    if span.id_ == WORDS_ID:  # "ninety-four year old": the number words
        end = span.start
        while end < span.end and (span.doc[end].lower_ in _AGE_WORDS or span.doc[end].text in {"-", "–"}):
            end += 1
        return Span(span.doc, span.start, end, label=span.label_, span_id=span.id_)
    if span.id_ == STREET_VALUE_ID:  # "Residence: 4 Chestnut Ct": from the house number on
        start = next(t.i for t in span if any(c.isdigit() for c in t.text))
        return Span(span.doc, start, span.end, label=span.label_, span_id=span.id_)
    if span.id_ == AFTER_CUE_ID:  # "PT PLATE KLM 482": the cue and its "#" off
        start = span.start + 1
        while start < span.end - 1 and span.doc[start].lower_ in {"#", ":", "plate", "plates", "tag"}:
            start += 1
        return Span(span.doc, start, span.end, label=span.label_, span_id=span.id_)
    if span.id_ == ID_VALUE_ID:  # cue words off, the whole value kept ("12345-JS")
        start, end = span.start, span.end
        doc = span.doc
        while start < end and not any(c.isdigit() for c in doc[start].text) and not _ID_HEAD_RE.match(doc[start].text):
            start += 1
        while end > start and doc[end - 1].text in {"-", "/"}:
            end -= 1
        return Span(doc, start, end, label=span.label_, span_id=span.id_)
    digits = [t.i for t in span if any(c.isdigit() for c in t.text)]
    if not digits:
        return span
    start, end = digits[0], digits[-1] + 1
    doc = span.doc
    if start > span.start and doc[start - 1].text == "+":
        start -= 1
    # "(950) 478-1919" keeps its parenthesis, "(2013)" does not
    if start > span.start and doc[start - 1].text == "(" and any(doc[i].text == ")" for i in range(start, end)):
        start -= 1
    return Span(doc, start, end, label=span.label_, span_id=span.id_)


def phi_ents_filter(entities: Iterable[Span], spans: Iterable[Span], prioritize_existing: bool = True) -> List[Span]:
    """Resolve the ruler's matches: longest match first among the matches (cue
    included), then ``value`` matches trimmed to their value, then merged with the
    existing entities (kept when ``prioritize_existing``: e.g. the NER's)."""
    spans = list(spans)
    spans = [s for s in spans if s.id_ != BARE_MD_ID or not reads_as_ratio(s)]
    spans = [s for s in spans if s.id_ != DESCENDING_MD_ID or _descending_date(s)]
    spans = [s for s in spans if s.id_ != MD_HYPHEN_ID or not amount_after(s)]
    # a count word after a cued month/day makes it a count ("cx sent 2/4 bottles")
    spans = [s for s in spans if not (s.label_ == "DATE" and s.id_ == VALUE_ID and s.end < len(s.doc)
                                      and s.doc[s.end].lower_ in _RATIO_WORDS)]
    spans = [s for s in spans if s.label_ != "DATE" or not any("/" in t.text and after_joined_number(s.doc, t.i) for t in s)]
    spans = [s for s in spans if s.id_ != SPACED_PHONE_ID or _spaced_phone_ok(s)]
    # a dose is no house number ("40 MEQ KCL VIA NGT": "via" is a street's suffix too; "1800 G St",
    # "12 Cal Ave" are streets)
    spans = [s for s in spans if s.label_ != "STREET" or not any(
        t.like_num and t.i + 1 < s.end and s.doc[t.i + 1].lower_ in _DOSE_UNITS for t in s)]
    # "improved a lot 24hrs later": no lot number
    spans = [s for s in spans if not (s.label_ == "DEVICE" and s.start >= 1 and s[0].lower_ == "lot"
                                      and s.doc[s.start - 1].lower_ in {"a", "quite", "whole"})]
    spans = [s for s in spans if s.id_ != HASH_ID or (
        sum(c.isdigit() for c in s.text) >= 6 and not re.search(r"#\s*1\s*-\s*\d{3}\s*-\s*\d{3}", s.text))]
    others = [s for s in spans if s.id_ != LOOSE_PHONE_ID]
    spans = others + [s for s in spans if s.id_ == LOOSE_PHONE_ID and _loose_phone_ok(s, others)]
    # the digit groups after a phone cue, where no other shape was found ("617-555-0199 x45" keeps its extension)
    shaped = [s for s in spans if s.id_ != CUED_PHONE_ID and s.label_ in {"PHONE", "FAX", "PAGER"}]
    spans = [s for s in spans if s.id_ != CUED_PHONE_ID or (
        sum(c.isdigit() for c in s.text) >= 7 and not any(o.start < s.end and s.start < o.end for o in shaped))]
    chosen = [
        trim_to_value(s) if s.id_ in (VALUE_ID, HASH_ID, MONTH_ID, LAST_ID, ID_VALUE_ID, AFTER_CUE_ID, STREET_VALUE_ID, WORDS_ID, MD_HYPHEN_ID, CUED_PHONE_ID) else s
        for s in filter_spans(spans)
    ]
    chosen = [s for s in chosen if s.label_ != "DATE" or not secondary_to(s)]
    # an identifier has at least three digits ("number 2", "id 1" are not one)
    chosen = [s for s in chosen if s.id_ != ID_VALUE_ID or (len(s) and sum(c.isdigit() for c in s.text) >= 3)]
    entities = list(entities)
    if not prioritize_existing:
        return filter_spans(chosen + entities)
    taken = {i for e in entities for i in range(e.start, e.end)}
    return entities + [s for s in chosen if not any(i in taken for i in range(s.start, s.end))]


@registry.misc("spacy_deid.phi_ents_filter.v1")
def phi_ents_filter_v1(prioritize_existing: bool = True) -> Callable[[Iterable[Span], Iterable[Span]], List[Span]]:
    """The span_ruler ``ents_filter`` for the shipped patterns (see the module docstring).

    prioritize_existing (bool): entities set upstream (the NER) win over matches.
    RETURNS (Callable): the filter (a partial of a module function: a pipeline that holds it
        pickles, for ``n_process`` > 1 under spawn).
    """
    return functools.partial(phi_ents_filter, prioritize_existing=prioritize_existing)


def write_patterns(path: str) -> int:
    """Write ``PHI_PATTERNS`` as span_ruler JSONL; RETURNS the number written."""
    import srsly

    srsly.write_jsonl(path, PHI_PATTERNS)
    return len(PHI_PATTERNS)
