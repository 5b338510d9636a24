"""Synthetic clinical notes with gold PHI spans.

How it works: a ``Cohort`` draws persistent identities (patients, a shared pool of
doctors and nurses, a small pool of hospitals) with one seeded ``Faker("en_US")`` and
one ``random.Random``. Each note is written by a ``_Note`` context into a ``_Writer``
that appends text pieces and records a span for every PHI piece, so offsets are exact
by construction and spans come out sorted and non-overlapping. Sentences come from
template strings with ``{slot}`` fields: ALL-CAPS slots write PHI (``{PT}``, ``{DATE}``,
``{MRN}``...), lower-case slots insert clinical content drawn from the vocabularies of
the note's specialty (``{dx}``, ``{med}``...), and a capitalised content slot
(``{Dx}``) capitalises its first letter. Sections are chosen, ordered and filled at
random per note type, so the corpus is not a handful of fixed templates.

Only ``random.Random`` and the seeded Faker instance supply randomness, and every
choice is made from a list, so output is identical across runs and processes for a
seed (independent of PYTHONHASHSEED).
"""
import datetime as dt
import operator
import random
import re
from dataclasses import dataclass
from typing import Callable, Dict, Iterator, List, Optional, Tuple

from faker import Faker

from spacy_deid.synth import vocab as V

PHI_LABELS: List[str] = [
    "PATIENT", "DOCTOR", "USERNAME", "HOSPITAL", "ORGANIZATION", "DATE", "AGE", "PHONE", "FAX", "EMAIL",
    "URL", "MRN", "SSN", "IDNUM", "DEVICE", "STREET", "CITY", "STATE", "ZIP", "COUNTRY", "PROFESSION",
    "LOCATION_OTHER", "WARD",
]
NOTE_TYPES: List[str] = [
    "discharge_summary", "progress_note", "nursing_note", "radiology_report", "consult_note", "operative_note",
    "ed_note", "icu_nursing_note",
]
_PROSE_TYPES = NOTE_TYPES[:-1]
_NOTE_TYPE_WEIGHTS = [18, 22, 13, 14, 12, 10, 11]
_ABBREV = frozenset(V.TOKENIZER_ABBREV_STEMS)
_SAINTS = ["Mary", "Joseph", "Luke", "Francis", "Vincent", "Elizabeth", "Anne", "John", "Michael", "Patrick",
           "Catherine", "Jude", "Anthony", "Agnes", "Clare", "Margaret", "Raphael", "Peter"]
_PCP_SPECIALTIES = ["Internal Medicine", "Family Medicine"]


def _safe(s: str) -> bool:
    """True when a surrogate can end a sentence and still align with spaCy tokens."""
    last = s.rsplit(" ", 1)[-1]
    return bool(s) and s == s.strip() and last not in _ABBREV and len(last) > 1 and last[-1].isalnum()


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


# ---- identities ---------------------------------------------------------------


@dataclass
class Doctor:
    first: str
    last: str
    middle: str
    specialty: str
    username: str
    pager: str
    email: str
    nurse: bool = False


@dataclass
class Hospital:
    name: str
    slug: str
    street: str
    city: str
    state: Tuple[str, str]
    zip: str
    phone: str
    fax: str


@dataclass
class Patient:
    pid: str
    first: str
    last: str
    middle: str
    female: bool
    dob: dt.date
    mrn: str
    ssn: str
    street: str
    city: str
    state: Tuple[str, str]
    zip: str
    phone: str
    email: str
    username: str
    profession: str
    employer: str
    country: str
    insurer: str
    member_id: str
    specialty: str
    others: List[str]
    pcp: Doctor
    hospital: Hospital
    contact: Tuple[str, str, str, str]  # relation, first, last, phone
    device: Optional[Tuple[str, str]]  # model, serial
    comorbid: List[str]
    history: List[str]
    home_meds: List[V.Med]
    allergies: List[Tuple[str, str]]
    next_date: dt.date = dt.date(2015, 1, 1)
    n_notes: int = 0
    visits: int = 0


class Cohort:
    """The persistent identities shared by a corpus: patients, doctors, nurses, hospitals."""

    def __init__(self, n_patients: int, rng: random.Random, fake: Faker) -> None:
        self.rng = rng
        self.fake = fake
        r = rng
        # A corpus lives in a region: two or three neighbouring states.
        self.states = r.sample(V.US_STATES, 3)
        self.state_weights = [6, 2, 1]
        n_hosp = max(8, min(18, 6 + n_patients // 40))
        self.hospitals = [self._hospital(i) for i in range(n_hosp)]
        self.hosp_weights = [1.0 / (i + 1) ** 0.8 for i in range(n_hosp)]
        n_doc = max(12, n_patients // 5)
        specs = _PCP_SPECIALTIES * 2 + V.CLINICAL_SPECIALTIES + [V.RADIOLOGY, "Anesthesiology"]
        self.doctors = [self._doctor(specs[i % len(specs)]) for i in range(n_doc)]
        self.nurses = [self._doctor("Nursing", nurse=True) for _ in range(max(6, n_patients // 8))]
        self.by_spec: Dict[str, List[Doctor]] = {}
        for d in self.doctors:
            self.by_spec.setdefault(d.specialty, []).append(d)
        self.pcps = [d for d in self.doctors if d.specialty in _PCP_SPECIALTIES]
        self.spec_weights = [1.0 / (1 + 0.15 * i) for i in range(len(V.CLINICAL_SPECIALTIES))]
        width = max(4, len(str(n_patients)))
        self.patients = [self._patient(f"pt-{i + 1:0{width}d}") for i in range(n_patients)]

    # -- small draws
    def name_part(self, kind: str) -> str:
        f = {"first_f": self.fake.first_name_female, "first_m": self.fake.first_name_male,
             "last": self.fake.last_name, "city": self.fake.city}[kind]
        for _ in range(20):
            s = f()
            if _safe(s) and re.fullmatch(r"[A-Za-z][A-Za-z' -]*[A-Za-z]", s):
                return s
        return {"first_f": "Anna", "first_m": "Paul", "last": "Miller", "city": "Springfield"}[kind]

    def first(self, female: Optional[bool] = None) -> str:
        if female is None:
            female = self.rng.random() < 0.5
        return self.name_part("first_f" if female else "first_m")

    def digits(self, n: int) -> str:
        return "".join(str(self.rng.randrange(10)) for _ in range(n))

    def phone(self) -> str:
        r = self.rng
        return f"{r.randint(201, 989)}{r.randint(201, 989)}{r.randint(0, 9999):04d}"

    def street(self) -> str:
        for _ in range(20):
            s = self.fake.street_address()
            if _safe(s):
                return s
        return f"{self.rng.randint(1, 999)} Main Street"

    def zip_for(self, state: Tuple[str, str]) -> str:
        try:
            return self.fake.zipcode_in_state(state[0])
        except Exception:  # pragma: no cover - states without zip ranges in Faker
            return f"{self.rng.randint(10000, 99999)}"

    def org(self) -> str:
        r = self.rng
        x = r.random()
        if x < 0.55:
            return f"{self.name_part('last')} {r.choice(V.ORG_SUFFIXES)}"
        if x < 0.75:
            return f"{self.name_part('last')} and {self.name_part('last')} {r.choice(['LLC', 'Associates', 'Group'])}"
        if x < 0.9:
            return f"{self.name_part('city')} {r.choice(['Public Schools', 'Water Department', 'Police Department', 'Housing Authority', 'Fire Department'])}"
        return f"{self.name_part('last')}-{self.name_part('last')}"

    def place(self, templates: List[str]) -> str:
        return self.rng.choice(templates).format(last=self.name_part("last"), city=self.name_part("city"),
                                                 first=self.rng.choice(_SAINTS))

    def state(self) -> Tuple[str, str]:
        return self.rng.choices(self.states, weights=self.state_weights)[0]

    # -- identities
    def _hospital(self, i: int) -> Hospital:
        r = self.rng
        state = self.states[0] if i < 4 else self.state()
        city = self.name_part("city")
        name = r.choice(V.HOSPITAL_TEMPLATES).format(city=city, last=self.name_part("last"), first=r.choice(_SAINTS))
        words = [w for w in re.sub(r"[^a-z ]", "", name.lower()).split() if w not in ("of", "the", "st")]
        slug = "".join(words)
        if len(slug) > 20:
            slug = "".join(w[0] for w in words[:-1]) + words[-1]
        return Hospital(name, slug or f"hosp{i}", self.street(), city, state, self.zip_for(state), self.phone(), self.phone())

    def _doctor(self, specialty: str, nurse: bool = False) -> Doctor:
        r = self.rng
        female = r.random() < (0.8 if nurse else 0.5)
        first, last = self.first(female), self.name_part("last")
        middle = r.choice("ABCDEFGHJKLMNPRSTW")
        user = re.sub(r"[^a-z]", "", (first[0] + last).lower())[:8] + (str(r.randint(1, 99)) if r.random() < 0.6 else "")
        email = re.sub(r"[^a-z.]", "", f"{first}.{last}".lower()) + "@" + r.choice(["hospital.org", "med.org", "health.org"])
        return Doctor(first, last, middle, specialty, user, self.phone(), email, nurse)

    def _patient(self, pid: str) -> Patient:
        r = self.rng
        female = r.random() < 0.5
        first, last = self.first(female), self.name_part("last")
        # Ages 18-104 at the first visit, with a tail above 89 (PHI under HIPAA).
        age = r.choice([r.randint(18, 50), r.randint(45, 80), r.randint(60, 89), r.randint(86, 104)])
        first_visit = dt.date(2010, 1, 1) + dt.timedelta(days=r.randint(0, 13 * 365))
        dob = first_visit - dt.timedelta(days=age * 365 + r.randint(0, 364))
        state = self.state()
        hosp = self.rng.choices(self.hospitals, weights=self.hosp_weights)[0]
        spec = r.choices(V.CLINICAL_SPECIALTIES, weights=self.spec_weights)[0]
        others = [s for s in r.sample(V.CLINICAL_SPECIALTIES, 3) if s != spec][:2]
        relation = r.choice(V.RELATIONS)
        rel_female = V.RELATION_FEMALE[relation]
        contact = (relation, self.first(rel_female), last if r.random() < 0.6 else self.name_part("last"),
                   self.phone())
        email_user = re.sub(r"[^a-z0-9._]", "", r.choice([f"{first}.{last}", f"{first[0]}{last}", f"{last}{first[0]}",
                                                          f"{first}{r.randint(1, 99)}"]).lower())
        n_meds = r.randint(2, 6)
        spec_v = V.SPECIALTIES[spec]
        return Patient(
            pid=pid, first=first, last=last, middle=r.choice("ABCDEFGHJKLMNPRSTW"), female=female, dob=dob,
            mrn=self.digits(r.choice([7, 7, 8, 9])), ssn=f"{r.randint(101, 665)}-{r.randint(10, 99)}-{r.randint(1000, 9999)}",
            street=self.street(), city=self.name_part("city"), state=state, zip=self.zip_for(state), phone=self.phone(),
            email=f"{email_user}@{r.choice(V.EMAIL_DOMAINS)}", username=email_user.replace(".", "")[:10] + str(r.randint(1, 999)),
            profession=r.choice(V.PROFESSIONS), employer=self.org(), country=r.choice(V.COUNTRIES),
            insurer=r.choice(V.INSURERS), member_id=r.choice(["", "W", "XJH", "MA"]) + self.digits(r.choice([8, 9, 10])),
            specialty=spec, others=others, pcp=r.choice(self.pcps), hospital=hosp, contact=contact,
            device=(r.choice(V.DEVICE_MODELS), self._serial()) if r.random() < 0.25 else None,
            comorbid=r.sample(V.COMORBIDITIES, r.randint(2, 6)), history=r.sample(spec_v["history"], 2),
            home_meds=r.sample(V.GENERAL_MEDS, n_meds) + r.sample(spec_v["meds"], 2),
            allergies=[(a, r.choice(V.REACTIONS)) for a in r.sample(V.ALLERGENS, r.choice([0, 0, 1, 1, 2, 3]))],
            next_date=first_visit,
        )

    def _serial(self) -> str:
        r = self.rng
        # Serials end in a digit: "AB12C." would stay one spaCy token before a period.
        letters = "ABCDEFGHJKLMNPRSTVWXYZ"
        form = r.randrange(4)
        if form == 0:
            return "".join(r.choice(letters) for _ in range(3)) + self.digits(6)
        if form == 1:
            return f"{self.digits(2)}-{self.digits(5)}-{r.choice(letters)}{self.digits(2)}"
        if form == 2:
            return f"{r.choice(letters)}{r.choice(letters)}{self.digits(3)}{r.choice(letters)}{self.digits(4)}"
        return "SN" + self.digits(8)


# ---- writer ---------------------------------------------------------------------


class _Writer:
    """Appends text pieces; PHI pieces also become spans (start, end, label)."""

    __slots__ = ("parts", "n", "spans")

    def __init__(self) -> None:
        self.parts: List[str] = []
        self.n = 0
        self.spans: List[Tuple[int, int, str]] = []

    def lit(self, s: str) -> None:
        self.parts.append(s)
        self.n += len(s)

    def phi(self, label: str, s: str) -> None:
        self.spans.append((self.n, self.n + len(s), label))
        self.parts.append(s)
        self.n += len(s)

    def text(self) -> str:
        return "".join(self.parts)


_TPL_RE = re.compile(r"\{(\w+)\}")
_TPL_CACHE: Dict[str, List[str]] = {}


def _compile(tpl: str) -> List[str]:
    parts = _TPL_CACHE.get(tpl)
    if parts is None:
        parts = _TPL_RE.split(tpl)
        _TPL_CACHE[tpl] = parts
    return parts


def _fmt_phone(digits: str, style: int) -> str:
    a, b, c = digits[:3], digits[3:6], digits[6:]
    return [f"({a}) {b}-{c}", f"{a}-{b}-{c}", f"{a}.{b}.{c}", f"{a}-{b}-{c}"][style % 4]


def _fmt_date(d: dt.date, style: int) -> str:
    m, day, y = d.month, d.day, d.year
    if style == 8 and day == 8:
        style = 3  # "March 8)" would hit spaCy's "8)" emoticon exception
    return [
        f"{m:02d}/{day:02d}/{y}", f"{m}/{day}/{y}", f"{m}/{day}/{y % 100:02d}", f"{V.MONTHS[m - 1]} {day}, {y}",
        f"{V.MONTHS_ABBR[m - 1]} {day}, {y}", f"{y}-{m:02d}-{day:02d}", f"{m}/{day}", f"{day}-{V.MONTHS_ABBR[m - 1]}-{y}",
        f"{V.MONTHS[m - 1]} {day}", f"{m:02d}/{day:02d}/{y}",
    ][style]


# ---- the note context: slots ------------------------------------------------------


class _Note:
    """Per-note state: who, where, when, what; slot methods write or return content."""

    def __init__(self, gen: "Generator", pt: Patient, note_type: str, label: str, date: dt.date) -> None:
        c = gen.cohort
        r = gen.rng
        self.gen, self.c, self.r, self.pt, self.note_type, self.label = gen, c, r, pt, note_type, label
        self.spec = pt.specialty if label == V.RADIOLOGY else label
        self.S = V.SPECIALTIES[self.spec]
        self.date = date
        self.los = r.randint(1, 9)
        self.admit = date - dt.timedelta(days=self.los) if note_type == "discharge_summary" else date - dt.timedelta(days=r.randint(0, 4))
        self.hosp = pt.hospital if r.random() < 0.85 else r.choice(c.hospitals)
        pool = c.by_spec.get(label) or c.doctors
        self.att = r.choice(pool)
        self.cons = r.choice(c.by_spec.get(self.spec) or c.doctors)
        self.other_dr = r.choice(c.doctors)
        self.nurse = r.choice(c.nurses)
        self.dx = r.choice(self.S["diagnoses"])
        self.dx2 = r.choice(self.S["diagnoses"])
        self.sxs = r.sample(self.S["symptoms"], 3)
        self.complaint = r.choice(self.S["complaints"])
        self.date_style = r.randrange(10)  # a note tends to keep one date style
        self.phone_style = r.randrange(4)
        self.he, self.his, self.him = ("she", "her", "her") if pt.female else ("he", "his", "him")
        self.hstyle = r.choice([0, 0, 1, 2])
        self.main_proc: Optional[str] = None
        self.w = _Writer()
        self._pick: Dict[str, List[str]] = {}

    # -- rendering helpers
    def say(self, tpl: str) -> None:
        w = self.w
        parts = _compile(tpl)
        for i, p in enumerate(parts):
            if i % 2 == 0:
                if p:
                    w.lit(p)
            elif p.isupper():
                _PHI_SLOTS[p](self)
            else:
                s = _CONTENT_SLOTS[p.lower()](self)
                w.lit(_cap(s) if p[0].isupper() else s)

    def say_some(self, pool: List[str], k_min: int, k_max: int, sep: str = " ") -> None:
        k = min(len(pool), self.r.randint(k_min, k_max))
        for i, tpl in enumerate(self.r.sample(pool, k)):
            if i:
                self.w.lit(sep)
            self.say(tpl)

    def header(self, name: str, inline: Optional[bool] = None) -> None:
        """A section header in one of the note's header styles, after a blank line."""
        if self.w.n:
            self.w.lit("\n\n")
        style = self.hstyle
        h = name.upper() if style != 2 else name
        if inline is None:
            inline = self.r.random() < 0.5
        self.w.lit(h + (": " if inline else ":\n"))

    def fresh(self, key: str, pool: list):
        """Draw from pool without repeating within the note while possible."""
        left = self._pick.get(key)
        if not left:
            left = list(pool)
            self.r.shuffle(left)
            self._pick[key] = left
        return left.pop()

    def pdate(self, lo: int = 30, hi: int = 2000) -> dt.date:
        return self.date - dt.timedelta(days=self.r.randint(lo, hi))

    def fdate(self, lo: int = 5, hi: int = 90) -> dt.date:
        return self.date + dt.timedelta(days=self.r.randint(lo, hi))

    def age_at(self, d: dt.date) -> int:
        b = self.pt.dob
        return d.year - b.year - ((d.month, d.day) < (b.month, b.day))

    # -- PHI writers
    def w_date(self, d: dt.date, style: Optional[int] = None) -> None:
        if style is None:
            style = self.date_style if self.r.random() < 0.7 else self.r.randrange(10)
        self.w.phi("DATE", _fmt_date(d, style))

    def w_full_date(self, d: dt.date) -> None:
        """A date that always shows the year (headers)."""
        style = self.date_style if self.date_style not in (6, 8) else 0
        self.w.phi("DATE", _fmt_date(d, style))

    def w_phone(self, digits: str, label: str = "PHONE") -> None:
        style = self.phone_style if self.r.random() < 0.7 else self.r.randrange(4)
        self.w.phi(label, _fmt_phone(digits, style))

    def w_doctor(self, d: Doctor, form: Optional[int] = None) -> None:
        w = self.w
        if form is None:
            form = self.r.randrange(7)
        if d.nurse:
            form = 7 + form % 2
        if form == 0:
            w.lit("Dr. ")
            w.phi("DOCTOR", d.last)
        elif form == 1:
            w.lit("Dr. ")
            w.phi("DOCTOR", f"{d.first} {d.last}")
        elif form == 2:
            w.phi("DOCTOR", f"{d.first} {d.last}")
            w.lit(", MD")
        elif form == 3:
            w.phi("DOCTOR", f"{d.first} {d.middle}. {d.last}")
            w.lit(", M.D.")
        elif form == 4:
            w.lit("Dr. ")
            w.phi("DOCTOR", f"{d.first[0]}. {d.last}")
        elif form == 5:
            w.phi("DOCTOR", f"{d.last.upper()}, {d.first.upper()}")
            w.lit(" MD")
        elif form == 6:
            w.lit("Dr. ")
            w.phi("DOCTOR", d.last)
        elif form == 7:
            w.phi("DOCTOR", f"{d.first} {d.last}")
            w.lit(", RN")
        else:
            w.phi("DOCTOR", d.first)
            w.lit(" RN")

    def w_patient(self, form: int) -> None:
        p, w = self.pt, self.w
        if form == 0:
            w.phi("PATIENT", f"{p.first} {p.last}")
        elif form == 1:
            w.lit("Ms. " if p.female else "Mr. ")
            w.phi("PATIENT", p.last)
        elif form == 2:
            w.phi("PATIENT", p.first)
        elif form == 3:
            w.phi("PATIENT", f"{p.last.upper()}, {p.first.upper()}")
        elif form == 4:
            w.phi("PATIENT", f"{p.last}, {p.first} {p.middle}")
        else:
            w.phi("PATIENT", f"{p.first} {p.middle}. {p.last}")

    def w_address(self, street: str, city: str, state: Tuple[str, str], zipc: str, newline: bool = False) -> None:
        w = self.w
        w.phi("STREET", street)
        w.lit("\n" if newline else ", ")
        w.phi("CITY", city)
        w.lit(", ")
        w.phi("STATE", state[0] if self.r.random() < 0.8 else state[1])
        w.lit(" ")
        w.phi("ZIP", zipc)

    def w_mrn(self) -> None:
        m, r, w = self.pt.mrn, self.r, self.w
        form = r.randrange(6)
        if form == 0:
            w.lit("MRN: ")
            w.phi("MRN", m)
        elif form == 1:
            w.lit("MR# ")
            w.phi("MRN", f"{m[:2]}-{m[2:5]}-{m[5:]}")
        elif form == 2:
            w.lit("Medical Record Number: ")
            w.phi("MRN", m.zfill(10))
        elif form == 3:
            w.lit("MRN ")
            w.phi("MRN", m)
        elif form == 4:
            w.lit("Unit No: ")
            w.phi("MRN", f"{m[:3]} {m[3:]}")
        else:
            w.lit("MR #: ")
            w.phi("MRN", m)

    def w_idnum(self) -> None:
        r, w = self.r, self.w
        kind = r.randrange(6)
        lead = ["Accession #: ", "Encounter #: ", "Account No. ", "Order ID: ", "CSN: ", "Visit #: "][kind]
        w.lit(lead)
        w.phi("IDNUM", [f"A{self.c.digits(8)}", f"E{self.c.digits(9)}", self.c.digits(10), f"{self.c.digits(4)}-{self.c.digits(5)}",
                        self.c.digits(11), f"V{self.c.digits(7)}"][kind])

    def w_url(self) -> None:
        h, r = self.hosp, self.r
        self.w.phi("URL", r.choice([f"https://mychart.{h.slug}.org", f"www.{h.slug}.org", f"https://www.{h.slug}.org/patients",
                                    f"http://{h.slug}.org/{self.spec.split()[0].lower()}", f"portal.{h.slug}.com"]))


# PHI slot writers (ALL-CAPS names).
def _pt_any(n: _Note) -> None:
    n.w_patient(n.r.choice([0, 1, 1, 1, 2, 5]))


def _pt_ref(n: _Note) -> None:
    form = n.r.choice([1, 1, 1, 2, 0])
    n.w_patient(form)


def _rel_name(n: _Note) -> None:
    _, f, l, _ = n.pt.contact
    n.w.phi("PATIENT", f if n.r.random() < 0.4 else f"{f} {l}")


def _age(n: _Note) -> None:
    a = n.age_at(n.date)
    form = n.r.randrange(4)
    if form <= 1:
        n.w.phi("AGE", str(a))
        n.w.lit("-year-old")
    elif form == 2:
        n.w.phi("AGE", str(a))
        n.w.lit(" year old")
    else:
        n.w.phi("AGE", str(a))
        n.w.lit(" y/o")


def _age_n(n: _Note) -> None:
    n.w.phi("AGE", str(n.age_at(n.date)))


def _fam_age(n: _Note) -> None:
    n.w.phi("AGE", str(n.r.randint(38, 97)))


def _addr(n: _Note) -> None:
    p = n.pt
    n.w_address(p.street, p.city, p.state, p.zip)


def _hosp_addr(n: _Note) -> None:
    h = n.hosp
    n.w_address(h.street, h.city, h.state, h.zip)


def _org(n: _Note) -> None:
    x = n.r.random()
    n.w.phi("ORGANIZATION", n.pt.employer if x < 0.5 else (n.pt.insurer if x < 0.75 else n.r.choice(V.PHARMACIES)))


def _device(n: _Note) -> None:
    dev = n.pt.device or (n.r.choice(V.DEVICE_MODELS), n.c._serial())
    n.w.lit(f"{dev[0]} (serial number ")
    n.w.phi("DEVICE", dev[1])
    n.w.lit(")")


def _hosp_other(n: _Note) -> None:
    others = [h for h in n.c.hospitals if h is not n.hosp] or n.c.hospitals
    n.w.phi("HOSPITAL", n.r.choice(others).name)


def _clinic(n: _Note) -> None:
    n.w.phi("HOSPITAL", n.c.place(V.CLINICS).removeprefix("the "))


def _facility(n: _Note) -> None:
    n.w.phi("HOSPITAL", n.c.place(V.NURSING_HOMES).removeprefix("the "))


def _locother(n: _Note) -> None:
    s = n.r.choice(V.LANDMARKS) if n.r.random() < 0.5 else n.c.place(V.LOCATION_OTHER_TEMPLATES)
    if s.startswith("the "):
        n.w.lit("the ")
        s = s[4:]
    n.w.phi("LOCATION_OTHER", s)


def _month_year(n: _Note) -> None:
    d = n.pdate(60, 3000)
    n.w.phi("DATE", f"{V.MONTHS[d.month - 1]} {d.year}" if n.r.random() < 0.6 else f"{d.month}/{d.year}")


def _holiday(n: _Note) -> None:
    h = n.r.choice(V.HOLIDAYS)
    if h.startswith("the "):
        n.w.lit("the ")
        h = h[4:]
    n.w.phi("DATE", h)


def _article_for(num: int) -> str:
    return "an " if str(num).startswith("8") or num in (11, 18) else "a "


def _a_age_n(n: _Note) -> None:
    a = n.age_at(n.date)
    n.w.lit(_article_for(a))
    n.w.phi("AGE", str(a))


def _city(n: _Note) -> None:
    n.w.phi("CITY", n.pt.city if n.r.random() < 0.7 else n.c.name_part("city"))


def _state(n: _Note) -> None:
    st = n.pt.state if n.r.random() < 0.7 else n.c.state()
    n.w.phi("STATE", st[1] if n.r.random() < 0.6 else st[0])


_PHI_SLOTS: Dict[str, Callable[[_Note], None]] = {
    "PT": _pt_ref,
    "PT_ANY": _pt_any,
    "PT_FULL": lambda n: n.w_patient(n.r.choice([0, 0, 5])),
    "PT_FIRST": lambda n: n.w_patient(2),
    "REL_NAME": _rel_name,
    "REL_PHONE": lambda n: n.w_phone(n.pt.contact[3]),
    "ATT": lambda n: n.w_doctor(n.att),
    "PCP": lambda n: n.w_doctor(n.pt.pcp),
    "CONS": lambda n: n.w_doctor(n.cons),
    "DR": lambda n: n.w_doctor(n.other_dr),
    "DR_NEW": lambda n: n.w_doctor(n.r.choice(n.c.doctors)),
    "NURSE": lambda n: n.w_doctor(n.nurse),
    "ATT_USER": lambda n: n.w.phi("USERNAME", n.att.username),
    "NURSE_USER": lambda n: n.w.phi("USERNAME", n.nurse.username),
    "PT_USER": lambda n: n.w.phi("USERNAME", n.pt.username),
    "ATT_EMAIL": lambda n: n.w.phi("EMAIL", n.att.email),
    "PAGER": lambda n: n.w_phone(n.att.pager),
    "CONS_PAGER": lambda n: n.w_phone(n.cons.pager),
    "DATE": lambda n: n.w_date(n.date),
    "HDATE": lambda n: n.w_full_date(n.date),
    "ADMIT": lambda n: n.w_date(n.admit),
    "HADMIT": lambda n: n.w_full_date(n.admit),
    "PDATE": lambda n: n.w_date(n.pdate()),
    "RDATE": lambda n: n.w_date(n.pdate(1, 20)),
    "INDATE": lambda n: n.w_date(n.admit + dt.timedelta(days=n.r.randint(0, max(0, (n.date - n.admit).days)))),
    "FDATE": lambda n: n.w_date(n.fdate()),
    "PYEAR": lambda n: n.w.phi("DATE", str(n.pdate(365, 6000).year)),
    "PMONTHYEAR": _month_year,
    "DOB": lambda n: n.w_full_date(n.pt.dob),
    "DAY": lambda n: n.w.phi("DATE", n.r.choice(V.WEEKDAYS)),
    "HOLIDAY": _holiday,
    "AGE": _age,
    "AGE_N": _age_n,
    "A_AGE_N": _a_age_n,
    "FAM_AGE": _fam_age,
    "MRN": lambda n: n.w_mrn(),
    "SSN": lambda n: n.w.phi("SSN", n.pt.ssn),
    "IDNUM": lambda n: n.w_idnum(),
    "MEMBER_ID": lambda n: n.w.phi("IDNUM", n.pt.member_id),
    "PHONE": lambda n: n.w_phone(n.pt.phone),
    "HOSP_PHONE": lambda n: n.w_phone(n.hosp.phone),
    "FAX": lambda n: n.w_phone(n.hosp.fax, "FAX"),
    "EMAIL": lambda n: n.w.phi("EMAIL", n.pt.email),
    "URL": lambda n: n.w_url(),
    "HOSP": lambda n: n.w.phi("HOSPITAL", n.hosp.name),
    "HOSP_OTHER": _hosp_other,
    "CLINIC": _clinic,
    "FACILITY": _facility,
    "ORG": _org,
    "EMPLOYER": lambda n: n.w.phi("ORGANIZATION", n.pt.employer),
    "INSURER": lambda n: n.w.phi("ORGANIZATION", n.pt.insurer),
    "PHARMACY": lambda n: n.w.phi("ORGANIZATION", n.r.choice(V.PHARMACIES)),
    "ADDRESS": _addr,
    "HOSP_ADDRESS": _hosp_addr,
    "STREET": lambda n: n.w.phi("STREET", n.pt.street),
    "CITY": _city,
    "STATE": _state,
    "ZIP": lambda n: n.w.phi("ZIP", n.pt.zip),
    "COUNTRY": lambda n: n.w.phi("COUNTRY", n.pt.country),
    "PROFESSION": lambda n: n.w.phi("PROFESSION", n.pt.profession),
    "LOCOTHER": _locother,
    "DEVICE": _device,
}


# Content slots (lower-case names) return strings.
def _med(n: _Note, pool: Optional[List[V.Med]] = None) -> str:
    name, doses, route, freqs = n.r.choice(pool or n.S["meds"])
    return f"{name} {n.r.choice(doses)} {route} {n.r.choice(freqs)}"


def _lab(n: _Note, pool: Optional[List[V.Lab]] = None) -> str:
    name, unit, lo, hi, dec = n.r.choice(pool or n.S["labs"])
    v = n.r.uniform(lo, hi)
    val = f"{v:.{dec}f}" if dec else str(int(round(v)))
    return f"{name} {val}" + (f" {unit}" if unit else "")


def _vitals(n: _Note) -> str:
    r = n.r
    t = r.choice([36.4, 36.7, 36.9, 37.1, 37.4, 37.8, 38.3, 38.9])
    hr, sbp, dbp, rr, sat = r.randint(58, 124), r.randint(94, 178), r.randint(48, 98), r.randint(12, 28), r.randint(86, 100)
    o2 = r.choice(["room air", "room air", "2 L nasal cannula", "4 L nasal cannula", "50 percent Venti mask"])
    form = r.randrange(3)
    if form == 0:
        return f"T {t} C, HR {hr}, BP {sbp}/{dbp}, RR {rr}, SpO2 {sat}% on {o2}"
    if form == 1:
        return f"temperature {t}, pulse {hr}, blood pressure {sbp}/{dbp}, respiratory rate {rr}, oxygen saturation {sat} percent on {o2}"
    return f"Tmax {t}, heart rate {hr} to {hr + r.randint(3, 20)}, BP {sbp}/{dbp}, RR {rr}, O2 sat {sat}% {o2}"


_CONTENT_SLOTS: Dict[str, Callable[[_Note], str]] = {
    "dx": lambda n: n.dx,
    "dx2": lambda n: n.dx2,
    "anydx": lambda n: n.fresh("dx", n.S["diagnoses"]),
    "sx": lambda n: n.sxs[0],
    "sx2": lambda n: n.sxs[1],
    "sx3": lambda n: n.sxs[2],
    "complaint": lambda n: n.complaint,
    "onset": lambda n: n.r.choice(V.SYMPTOM_ONSET),
    "severity": lambda n: n.r.choice(V.SEVERITY),
    "better": lambda n: n.r.choice(V.MODIFIERS_BETTER),
    "worse": lambda n: n.r.choice(V.MODIFIERS_WORSE),
    "pmh": lambda n: n.fresh("pmh", n.pt.comorbid + V.COMORBIDITIES[:3]),
    "hist": lambda n: n.fresh("hist", n.pt.history),
    "proc": lambda n: n.main_proc or n.fresh("proc", n.S["procedures"]),
    "psh": lambda n: n.fresh("psh", V.SURGICAL_HISTORY),
    "imaging": lambda n: n.fresh("img", n.S["imaging"]),
    "finding": lambda n: n.fresh("find", n.S["img_findings"]),
    "exam": lambda n: n.fresh("exam", n.S["exam"]),
    "plan": lambda n: n.fresh("plan", n.S["plans"]),
    "med": lambda n: _med(n, [n.fresh("med", n.S["meds"])]),
    "homemed": lambda n: _med(n, [n.fresh("homemed", n.pt.home_meds)]),
    "painmed": lambda n: n.r.choice(V.PAIN_MEDS),
    "medname": lambda n: n.r.choice(n.S["meds"])[0],
    "lab": _lab,
    "glab": lambda n: _lab(n, V.GENERAL_LABS),
    "rosneg": lambda n: n.fresh("ros", V.ROS_NEGATIVES),
    "allergen": lambda n: n.r.choice(V.ALLERGENS),
    "reaction": lambda n: n.r.choice(V.REACTIONS),
    "diet": lambda n: n.r.choice(V.DIETS),
    "activity": lambda n: n.r.choice(V.ACTIVITY),
    "code": lambda n: n.r.choice(V.CODE_STATUS),
    "dispo": lambda n: n.r.choice(V.DISPOSITIONS),
    "condition": lambda n: n.r.choice(V.CONDITION),
    "interval": lambda n: n.r.choice(V.FOLLOWUP_INTERVALS),
    "relation": lambda n: n.pt.contact[0],
    "anyrel": lambda n: n.r.choice(V.RELATIONS),
    "labname": lambda n: n.r.choice(n.S["labs"])[0],
    "glabname": lambda n: n.r.choice(V.GENERAL_LABS)[0],
    "fammember": lambda n: n.fresh("fam", V.FAMILY_MEMBERS),
    "famcond": lambda n: n.fresh("famc", V.FAMILY_CONDITIONS),
    "pain": lambda n: str(n.r.randint(2, 10)),
    "descriptor": lambda n: n.r.choice(V.PAIN_DESCRIPTORS),
    "vitals": _vitals,
    "unit": lambda n: n.S["unit"],
    "spec": lambda n: n.spec,
    "side": lambda n: n.r.choice(["left", "right"]),
    "he": lambda n: n.he,
    "his": lambda n: n.his,
    "him": lambda n: n.him,
    "sexword": lambda n: n.r.choice(["woman", "female", "lady"] if n.pt.female else ["man", "male", "gentleman"]),
    "precaution": lambda n: n.fresh("prec", V.RETURN_PRECAUTIONS),
    "los": lambda n: str(n.los),
    "hd": lambda n: str(n.r.randint(2, 8)),
    "num": lambda n: str(n.r.randint(2, 6)),
    "packs": lambda n: str(n.r.choice([10, 15, 20, 30, 40, 50, 60])),
    "drinks": lambda n: str(n.r.randint(1, 14)),
    "time": lambda n: f"{n.r.randint(0, 23):02d}:{n.r.randint(0, 59):02d}",
    "triage": lambda n: n.r.choice(V.ED_TRIAGE),
    "arrival": lambda n: n.r.choice(V.ARRIVAL),
    "anesthesia": lambda n: n.r.choice(V.ANESTHESIA),
    "ebl": lambda n: n.r.choice(V.EBL),
    "devmodel": lambda n: (n.pt.device or (n.r.choice(V.DEVICE_MODELS), ""))[0],
    "countryreason": lambda n: n.r.choice(V.COUNTRY_REASONS),
    "ivf": lambda n: str(n.r.choice([500, 800, 1000, 1200, 1500, 2000])),
}


# ---- sentence pools -----------------------------------------------------------------

HPI_OPENERS = [
    "{PT_FULL} is {AGE_PHRASE} with a history of {pmh}, {pmh}, and {hist} who presents with {complaint}.",
    "{PT} is {AGE_PHRASE} with {hist} who was referred by {PCP} for evaluation of {complaint}.",
    "The patient is {AGE_PHRASE} with {pmh} and {hist} who presented to the {HOSP} emergency department on {ADMIT} with {sx}.",
    "This is {AGE_PHRASE} with a past medical history significant for {pmh} presenting with {onset} of {sx}.",
    "{PT_FIRST} is a pleasant {AGE} {sexword} known to our service for {hist} who presents with {sx} for {onset}.",
    "Patient is {A_AGE_N} year old {sexword} with PMH of {pmh} and {pmh} presenting with {complaint}.",
    "{PT}, age {AGE_N}, was transferred from {HOSP_OTHER} on {ADMIT} for further management of {dx}.",
    "{PT} is {A_AGE_N} yo {sexword} who was in {his} usual state of health until {onset} ago, when {he} developed {sx}.",
    "{PT_FULL} ({AGE_N} y/o {sexword}) with {hist} and {pmh} is admitted with {dx}.",
    "We were asked to see {PT}, {AGE_PHRASE} with {pmh}, for {complaint}.",
]
HPI_BODY = [
    "{He} reports {sx} that began {onset} ago.",
    "The symptoms are {severity} and worse with {worse}, improved with {better}.",
    "{He} also notes {sx2}.",
    "{He} additionally endorses {sx3} over the past {onset}.",
    "{He} denies {rosneg}, {rosneg}, or {rosneg}.",
    "{He} was last seen by {PCP} on {PDATE}, at which time {he} was at {his} baseline.",
    "Of note, {he} was admitted to {HOSP} in {PMONTHYEAR} for {dx2}.",
    "{His} {relation}, {REL_NAME}, brought {him} in after noticing {sx2}.",
    "In the emergency department, vital signs were {vitals}.",
    "Initial labs were notable for {lab} and {glab}.",
    "{Imaging} showed {finding}.",
    "{He} was given {medname} with some improvement.",
    "{He} reports adherence to {his} home medications, including {homemed}.",
    "{He} ran out of {medname} about {onset} ago.",
    "{He} recently returned from {COUNTRY}, where {he} was visiting family.",
    "The pain is {descriptor}, rated {pain}/10, and does not radiate.",
    "{He} had a similar episode on {PDATE} that resolved spontaneously.",
    "There were no sick contacts and no recent travel.",
    "{He} underwent {proc} in {PYEAR} at {HOSP_OTHER}.",
    "Outpatient records from {CLINIC} were reviewed.",
    "The history was obtained from the patient and {his} {relation}, who is at the bedside.",
    "{He} was seen in the {spec} clinic by {DR} on {PDATE} and started on {medname}.",
    "Review of the chart shows {finding} on imaging from {PDATE}.",
    "{He} fell at {LOCOTHER} on {DAY} and was unable to get up without help.",
    "Symptoms began while {he} was at work as a {PROFESSION}.",
    "EMS found {him} at home on {STREET} with {sx}.",
    "{He} presented to urgent care on {RDATE} and was told to come to the emergency department.",
    "{He} has lost about {num} pounds over the past {onset}.",
    "Symptoms have limited {his} ability to walk more than one block.",
    "{He} tried over-the-counter remedies without relief.",
    "The {relation} reports that {he} has been more tired than usual since {HOLIDAY}.",
    "A rapid response was called on the floor on {RDATE} for {sx2}.",
]
PMH_LINES = ["{Pmh}", "{Pmh}", "{Hist}", "{Pmh}, diagnosed in {PYEAR}", "{Hist}, followed by {DR}", "{Pmh}, well controlled",
             "{Pmh}", "{Hist}", "Status post {proc} ({PYEAR})", "{Psh} in {PYEAR}"]
ALLERGY_NONE = ["No known drug allergies.", "NKDA.", "No known allergies."]
# Social history: groups of alternatives; a note picks a few groups, one line each.
SOCIAL_GROUPS = [
    ["Lives alone in {CITY}, {STATE}.", "Lives with {his} {relation} in {CITY}.", "Lives at {ADDRESS}.",
     "Was living at {FACILITY} prior to admission.", "Lives in a second-floor apartment in {CITY} with {his} {relation}."],
    ["Works as a {PROFESSION} at {EMPLOYER}.", "Retired {PROFESSION}.", "Formerly employed by {EMPLOYER} for {num} years.",
     "Currently unemployed; previously a {PROFESSION}.", "{He} is a {PROFESSION} and works night shifts."],
    ["{He} {countryreason} {COUNTRY}.", "Originally from {COUNTRY}; speaks English and {his} native language."],
    ["Former smoker with a {packs} pack-year history, quit in {PYEAR}.", "Smokes about half a pack per day for {num} decades.",
     "Never smoker.", "Current smoker, 1 pack per day.", "Quit smoking in {PYEAR}."],
    ["Drinks {drinks} alcoholic beverages per week.", "Denies alcohol use.", "Drinks socially.",
     "History of heavy alcohol use, sober since {PYEAR}."],
    ["Denies illicit drug use.", "Occasional marijuana use.", "No history of injection drug use."],
    ["Insurance: {INSURER}, member ID {MEMBER_ID}.", "Covered by {INSURER}."],
    ["Emergency contact is {his} {relation}, {REL_NAME}, at {REL_PHONE}.", "Health care proxy: {relation} {REL_NAME}."],
    ["Enjoys walking at {LOCOTHER} on weekends.", "Volunteers at {LOCOTHER}.", "Goes fishing at {LOCOTHER}."],
    ["Fills prescriptions at the {PHARMACY} on {STREET}.", "Pharmacy: {PHARMACY}, {CITY}."],
    ["Independent in activities of daily living and drives.", "Uses a cane at baseline.", "Uses a walker at home."],
    ["Has a {anyrel} who lives in {CITY} and visits weekly.", "Married, with {num} grown children.", "Widowed.",
     "Divorced, lives near {his} {anyrel}."],
]
FAMILY = [
    "{Fammember} with {famcond}, diagnosed at age {FAM_AGE}.",
    "{Fammember} died at age {FAM_AGE} of {famcond}.",
    "Family history is noncontributory.",
    "No family history of {famcond}.",
    "{Fammember} with {famcond}.",
    "{Fammember} had {famcond}.",
]
ROS = [
    "A complete 12-point review of systems was negative except as noted in the HPI.",
    "Positive for {sx2}. Negative for {rosneg}, {rosneg}, {rosneg}, and {rosneg}.",
    "Constitutional: denies {rosneg}. Cardiovascular: denies {rosneg}. Respiratory: denies {rosneg}. GI: denies {rosneg}.",
    "All other systems reviewed and negative.",
    "Unable to obtain a full review of systems due to the patient's mental status.",
]
HOSPITAL_COURSE = [
    "{PT} was admitted to the {unit} under the care of {ATT}.",
    "{He} was started on {med} with gradual improvement.",
    "{Imaging} on hospital day {hd} demonstrated {finding}.",
    "{CONS} from {spec} was consulted; recommendations included: {plan}.",
    "{He} underwent {proc} on {INDATE} without complications.",
    "The course was complicated by {dx2}, which was managed with {med}.",
    "Labs were trended daily; by discharge {lab}.",
    "{His} home {medname} was held on admission and resumed prior to discharge.",
    "{He} was evaluated by physical therapy, who recommended {dispo}.",
    "Pain was controlled with oral medications by hospital day {hd}.",
    "{He} remained hemodynamically stable throughout the admission.",
    "Repeat {glab} was improved.",
    "A family meeting was held on {INDATE} with {his} {relation}, {REL_NAME}, and goals of care were reviewed.",
    "On the day of discharge {he} was afebrile, ambulating, and tolerating {diet}.",
    "{His} diet was advanced to {diet} without difficulty.",
    "Case management arranged services with {FACILITY}.",
    "Blood cultures from {ADMIT} remained negative.",
    "Telemetry was discontinued after 48 hours without events.",
    "{He} was transitioned from IV to oral therapy on {INDATE}.",
    "The differential also included {anydx}, which was considered less likely.",
    "Interrogation of {his} {DEVICE} showed normal function.",
]
PROBLEM_PLANS = [
    "{Plan}.", "Continue {med}.", "Start {med}.", "Hold {medname} for now.", "Trend {labname}; most recent {lab}.", "Follow up {imaging}.",
    "Discussed with {CONS}; {plan}.", "Monitor for {sx2}.", "Check {glabname} in the morning.", "{Plan}, per {spec}.",
    "Consider {proc} if no improvement.", "Goal {glab}.",
]
GENERAL_PLAN = [
    "DVT prophylaxis: {dvt}.", "Diet: {diet}.", "Code status: {code}.", "Disposition: anticipate {dispo} in {num} days.",
    "Activity: {activity}.", "Contact: {relation} {REL_NAME}, {REL_PHONE}.", "GI prophylaxis: not indicated.",
    "Lines: peripheral IV.", "Dispo: pending clinical improvement.",
]
_CONTENT_SLOTS["dvt"] = lambda n: n.r.choice(["heparin subcutaneous", "enoxaparin", "SCDs", "on therapeutic anticoagulation",
                                              "ambulation"])
FOLLOWUP = [
    "Follow up with {PCP} in {interval}.",
    "Follow up with {ATT} in the {spec} clinic on {FDATE} at {time}.",
    "Appointment with {CONS} at {CLINIC} on {FDATE}; the office can be reached at {HOSP_PHONE}.",
    "Please call {HOSP_PHONE} to schedule follow-up with {DR_NEW} within {interval}.",
    "Labs to be drawn on {FDATE} with results faxed to {FAX}.",
    "Repeat {imaging} in {interval}.",
    "Home health nursing through {FACILITY} to start on {FDATE}.",
    "Follow up in {interval} with {DR_NEW}.",
]
INSTRUCTIONS_PHI = [
    "Results and messages are available on the patient portal at {URL}.",
    "Questions may be directed to the {spec} nurse line at {HOSP_PHONE}.",
    "The patient prefers to be contacted by email at {EMAIL} and by phone at {PHONE}.",
    "Educational materials about {dx} were provided and can also be found at {URL}.",
    "Please return to the emergency department or call {PHONE_ANY} for {precaution} or {precaution}.",
    "Portal username: {PT_USER}.",
]
_PHI_SLOTS["PHONE_ANY"] = lambda n: n.w_phone(n.hosp.phone if n.r.random() < 0.5 else n.att.pager)
SIGNATURE = [
    "Electronically signed by {ATT} on {HDATE} at {time}.",
    "Signed: {ATT} ({ATT_USER}) {HDATE} {time}",
    "Dictated by: {ATT_USER}\nD: {DATE} T: {DATE}\nJob #: {JOBID}",
    "Attending attestation: I saw and examined the patient with the resident and agree with the plan as documented above. {ATT}",
    "{ATT}\nPager {PAGER}",
    "Electronically signed: {ATT}, {spec}, {HOSP}, {HDATE} {time}. Contact: {ATT_EMAIL}",
    "Author: {ATT_USER}. Service: {spec}. Cosigned by {DR}.",
]
_PHI_SLOTS["JOBID"] = lambda n: n.w.phi("IDNUM", n.c.digits(6))
CC_LINES = [
    "cc: {PCP}, {CLINIC}, fax {FAX}",
    "cc: {PCP}; {DR_NEW}",
    "Copy to: {PCP} at {CLINIC}",
]


# ---- note-type builders ----------------------------------------------------------------


class Generator:
    """Writes one record at a time for a cohort; all randomness from ``rng`` and ``fake``."""

    def __init__(self, n_docs: int, n_patients: int, seed: int = 0, style: str = "prose") -> None:
        if style not in STYLES and style != "mixed":
            raise ValueError(f"style must be one of {', '.join(STYLES)} or mixed, got {style!r}")
        try:
            n_docs, n_patients = operator.index(n_docs), operator.index(n_patients)
        except TypeError:
            raise ValueError(f"n_docs and n_patients must be integers, got {n_docs!r} and {n_patients!r}") from None
        if n_docs < 1:
            raise ValueError(f"n_docs must be at least 1, got {n_docs}")
        if n_patients < 1:
            raise ValueError(f"n_patients must be at least 1, got {n_patients}")
        if n_patients > n_docs:
            raise ValueError(f"n_patients ({n_patients}) cannot exceed n_docs ({n_docs}): every patient needs a note")
        self.n_docs, self.n_patients, self.seed, self.style = n_docs, n_patients, seed, style
        self._icu_cohort: Optional[IcuCohort] = None
        self.rng = random.Random(seed)
        self.fake = Faker("en_US")
        self.fake.seed_instance(seed)
        self.cohort = Cohort(n_patients, self.rng, self.fake)

    def icu_cohort(self) -> "IcuCohort":
        """The invented identities of the ICU notes, made on first use."""
        if self._icu_cohort is None:
            self._icu_cohort = IcuCohort(self.rng)
        return self._icu_cohort

    def _assign(self) -> List[int]:
        """Patient index of each note: everyone gets one, the rest go to a skewed few."""
        r, n_p = self.rng, self.n_patients
        order = list(range(n_p))
        extra = self.n_docs - n_p
        if extra:
            # Heavy-tailed but capped: a few patients have dozens of notes, none dominates.
            weights = [min(r.paretovariate(1.3), 25.0) for _ in range(n_p)]
            order += r.choices(range(n_p), weights=weights, k=extra)
        r.shuffle(order)
        return order

    def records(self) -> Iterator[dict]:
        width = max(6, len(str(self.n_docs)))
        for i, p_idx in enumerate(self._assign()):
            pt = self.cohort.patients[p_idx]
            yield self._note(f"note-{i + 1:0{width}d}", pt)

    def _note(self, note_id: str, pt: Patient) -> dict:
        r = self.rng
        style = self.style if self.style != "mixed" else r.choices(STYLES, weights=_MIXED_WEIGHTS)[0]
        if style == "prose":
            note_type = r.choices(_PROSE_TYPES, weights=_NOTE_TYPE_WEIGHTS)[0]
        else:
            note_type = ICU_NOTE_TYPE
        if note_type == "radiology_report":
            label = V.RADIOLOGY
        else:
            label = pt.specialty if (r.random() < 0.75 or not pt.others) else r.choice(pt.others)
        # A patient's notes move forward in time; consecutive notes may share an admission.
        date = pt.next_date
        pt.next_date = date + dt.timedelta(days=r.choice([0, 1, 1, 2, 3, 7, 14, 30, 60, 120, 240]))
        pt.visits += 1
        n = _Note(self, pt, note_type, label, date)
        _BUILDERS[note_type](n)
        text = recase(n.w.text(), style)
        spans = [{"start": s, "end": e, "label": lab, "text": text[s:e]} for s, e, lab in n.w.spans]
        return {"id": note_id, "patient_id": pt.pid, "note_type": note_type, "label": label, "style": style,
                "text": text, "spans": spans}


def _age_phrase(n: _Note, cap: bool = False) -> None:
    art = _article_for(n.age_at(n.date))
    n.w.lit(_cap(art) if cap else art)
    _age(n)
    n.w.lit(" " + _CONTENT_SLOTS["sexword"](n))


_PHI_SLOTS["AGE_PHRASE"] = _age_phrase
_PHI_SLOTS["CAP_AGE_PHRASE"] = lambda n: _age_phrase(n, cap=True)


# -- shared section writers
def _letterhead(n: _Note) -> None:
    n.say("{HOSP}\n{HOSP_ADDRESS}\nTel {HOSP_PHONE}" + n.r.choice([" | Fax {FAX}", "  Fax: {FAX}"]) +
          (" | {URL}" if n.r.random() < 0.5 else ""))
    n.w.lit("\n\n")


def _id_block(n: _Note, title: str, extra: List[str]) -> None:
    r = n.r
    if r.random() < 0.3:
        _letterhead(n)
    n.w.lit(title + "\n")
    fields = [r.choice(["Patient: {PT_HEADER}", "Name: {PT_HEADER}", "PATIENT NAME: {PT_HEADER}"]), "{MRN}",
              r.choice(["DOB: {DOB}", "Date of Birth: {DOB}"])]
    optional = [("Age: {AGE_N}", 0.3), ("{IDNUM}", 0.35), ("SSN: {SSN}", 0.08), ("Phone: {PHONE}", 0.15),
                ("Address: {ADDRESS}", 0.12), ("PCP: {PCP}", 0.35), ("Insurance: {INSURER} #{MEMBER_ID}", 0.08),
                ("Location: {HOSP}, {unit}", 0.3)]
    fields += [f for f, p in optional if r.random() < p]
    fields += extra
    r.shuffle(fields)
    sep = r.choice(["\n", "\n", "    "])
    for i, f in enumerate(fields):
        if i:
            n.w.lit(sep)
        n.say(f)


_PHI_SLOTS["PT_HEADER"] = lambda n: n.w_patient(n.r.choice([3, 3, 4, 0]))


def _hpi(n: _Note, k_min: int = 3, k_max: int = 7, name: str = "History of Present Illness") -> None:
    n.header(name, inline=n.r.random() < 0.3)
    n.say(n.r.choice(HPI_OPENERS))
    n.w.lit(" ")
    n.say_some(HPI_BODY, k_min, k_max)


def _list_section(n: _Note, name: str, items: List[str]) -> None:
    n.header(name, inline=False)
    style = n.r.randrange(3)
    for i, it in enumerate(items):
        if i:
            n.w.lit("\n")
        n.w.lit([f"{i + 1}. ", "- ", ""][style])
        n.say(it)


def _pmh(n: _Note) -> None:
    items = n.r.sample(PMH_LINES, n.r.randint(3, 6))
    if n.pt.device and n.r.random() < 0.5:
        items.append("{Devmodel} in place, serial number {DEVICE_SERIAL}")
    if n.r.random() < 0.5:
        _list_section(n, n.r.choice(["Past Medical History", "PMH"]), items)
    else:
        n.header(n.r.choice(["Past Medical History", "PMH"]), inline=True)
        for i, it in enumerate(items):
            if i:
                n.w.lit(", ")
            n.say(it)
        n.w.lit(".")


_PHI_SLOTS["DEVICE_SERIAL"] = lambda n: n.w.phi("DEVICE", (n.pt.device or ("", n.c._serial()))[1])


def _meds(n: _Note, name: str = "Medications", spec_k: int = 0) -> None:
    r = n.r
    meds = r.sample(n.pt.home_meds, min(len(n.pt.home_meds), r.randint(2, 6))) + r.sample(n.S["meds"], spec_k)
    lines, seen = [], []
    for m in meds:
        if m[0] not in seen:
            seen.append(m[0])
            lines.append(_cap(_med(n, [m])))
    n.header(name, inline=False)
    style = r.randrange(3)
    n.w.lit("\n".join([f"{i + 1}. ", "- ", ""][style] + line for i, line in enumerate(lines)))


def _allergies(n: _Note) -> None:
    n.header("Allergies", inline=True)
    if not n.pt.allergies:
        n.w.lit(n.r.choice(ALLERGY_NONE))
        return
    n.w.lit("; ".join(f"{_cap(a)} ({rx})" for a, rx in n.pt.allergies) + ".")


def _social(n: _Note, k_min: int = 2, k_max: int = 5) -> None:
    n.header(n.r.choice(["Social History", "Social"]), inline=n.r.random() < 0.6)
    groups = sorted(n.r.sample(range(len(SOCIAL_GROUPS)), n.r.randint(k_min, k_max)))
    for i, g in enumerate(groups):
        if i:
            n.w.lit(" ")
        n.say(n.r.choice(SOCIAL_GROUPS[g]))


def _family(n: _Note) -> None:
    n.header("Family History", inline=True)
    n.say_some(FAMILY, 1, 3)


def _ros(n: _Note) -> None:
    n.header("Review of Systems", inline=True)
    n.say(n.r.choice(ROS))


def _exam(n: _Note, k_min: int = 4, k_max: int = 8) -> None:
    n.header(n.r.choice(["Physical Examination", "Physical Exam", "Exam"]), inline=False)
    n.w.lit("Vitals: ")
    n.say("{vitals}")
    systems = list(V.EXAM_NORMAL)
    chosen = sorted(n.r.sample(range(len(systems)), n.r.randint(k_min, k_max)))
    for si in chosen:
        sysname = systems[si]
        n.w.lit(f"\n{sysname}: " + n.r.choice(V.EXAM_NORMAL[sysname]) + ".")
    n.w.lit("\n" + n.r.choice(["Pertinent findings: ", "Focused exam: ", "Notable for "]))
    n.say(n.r.choice(["{exam}.", "{exam} and {exam}.", "{exam}, {exam}, and {exam}."]))


def _labs(n: _Note) -> None:
    n.header(n.r.choice(["Labs", "Laboratory Data", "Pertinent Results"]), inline=n.r.random() < 0.4)
    if n.r.random() < 0.4:
        n.say("On {RDATE}: ")
    k = n.r.randint(3, 7)
    labs = [_lab(n, V.GENERAL_LABS) for _ in range(k - 2)] + [_lab(n) for _ in range(2)]
    n.w.lit(_cap(", ".join(labs)) + ".")
    if n.r.random() < 0.3:
        n.say(" Micro: blood cultures from {RDATE} with no growth to date.")


def _imaging(n: _Note) -> None:
    n.header(n.r.choice(["Imaging", "Radiology", "Studies"]), inline=n.r.random() < 0.5)
    for i in range(n.r.randint(1, 2)):
        if i:
            n.w.lit("\n")
        n.say(n.r.choice(["{Imaging} ({RDATE}): {finding}.", "{Imaging} {RDATE} showed {finding}.",
                          "{Imaging}: {finding}; also {finding}.", "{Imaging} from {HOSP_OTHER} on {PDATE}: {finding}."]))


def _assessment_plan(n: _Note, name: str = "Assessment and Plan") -> None:
    r = n.r
    n.header(name, inline=False)
    n.say(r.choice(["{CAP_AGE_PHRASE} with {hist} admitted with {dx}.",
                    "{PT} is {AGE_PHRASE} with {pmh} here with {dx}, {condition_word}.",
                    "In summary, this is {AGE_PHRASE} with {dx} in the setting of {hist}.",
                    "{AGE_N} yo with {pmh} and {hist}, presenting with {sx}, most consistent with {dx}."]))
    problems = [n.dx] + [d for d in r.sample(n.S["diagnoses"], 2) if d != n.dx][:r.randint(0, 2)]
    problems += r.sample(n.pt.comorbid, min(len(n.pt.comorbid), r.randint(1, 2)))
    for i, prob in enumerate(problems):
        n.w.lit(f"\n\n{i + 1}. " if r.random() < 0.6 else f"\n\n# ")
        n.w.lit(_cap(prob) + ": ")
        n.say_some(PROBLEM_PLANS, 1, 3)
    if r.random() < 0.7:
        n.w.lit("\n\n")
        n.say_some(GENERAL_PLAN, 2, 4, sep="\n")


_CONTENT_SLOTS["condition_word"] = lambda n: n.r.choice(["improving", "clinically stable", "slowly improving", "worsening",
                                                        "at baseline", "hemodynamically stable"])


def _signature(n: _Note) -> None:
    n.w.lit("\n\n")
    n.say(n.r.choice(SIGNATURE))
    if n.r.random() < 0.3:
        n.w.lit("\n")
        n.say(n.r.choice(CC_LINES))


# -- note types
def _discharge_summary(n: _Note) -> None:
    r = n.r
    _id_block(n, r.choice(["DISCHARGE SUMMARY", "Discharge Summary", "HOSPITAL DISCHARGE SUMMARY"]),
              ["Admission Date: {HADMIT}", "Discharge Date: {HDATE}", "Attending: {ATT}", "Service: {spec}"])
    n.header("Admission Diagnosis", inline=True)
    n.say("{Dx}")
    n.header("Discharge Diagnoses", inline=False)
    n.say("1. {Dx}\n2. {Dx2}")
    if r.random() < 0.5:
        n.say("\n3. {Pmh}")
    if r.random() < 0.6:
        n.header("Procedures", inline=True)
        n.say(r.choice(["{Proc} on {INDATE}.", "{Proc} ({INDATE}) by {CONS}.", "None."]))
    _hpi(n, 3, 5)
    if r.random() < 0.6:
        _pmh(n)
    if r.random() < 0.3:
        _social(n, 1, 3)
    n.header(r.choice(["Hospital Course", "Brief Hospital Course", "Hospital Course by Problem"]), inline=False)
    n.say_some(HOSPITAL_COURSE, 5, 10)
    if r.random() < 0.65:
        _labs(n)
    if r.random() < 0.4:
        _imaging(n)
    _meds(n, r.choice(["Discharge Medications", "Medications on Discharge"]), spec_k=r.randint(1, 3))
    if r.random() < 0.5:
        _allergies(n)
    n.header("Discharge Condition", inline=True)
    n.say("{Condition}.")
    n.header("Discharge Disposition", inline=True)
    n.say(r.choice(["{Dispo}.", "{Dispo}: {FACILITY}.", "Home with {his} {relation}."]))
    n.header(r.choice(["Discharge Instructions", "Patient Instructions"]), inline=False)
    n.say_some(["{instruction}", "{instruction}", "Diet: {diet}.", "Activity: {activity}."] + INSTRUCTIONS_PHI, 2, 5)
    n.header("Follow-up", inline=False)
    n.say_some(FOLLOWUP, 1, 3, sep="\n")
    _signature(n)


_CONTENT_SLOTS["instruction"] = lambda n: n.fresh("instr", V.INSTRUCTIONS)


def _progress_note(n: _Note) -> None:
    r = n.r
    title = r.choice(["PROGRESS NOTE", "Daily Progress Note", f"{n.spec.upper()} PROGRESS NOTE", "Hospital Medicine Progress Note"])
    if r.random() < 0.6:
        _id_block(n, title, ["Date of Service: {HDATE}", "Hospital Day: {hd}"])
    else:
        n.say(title + "\n{PT_HEADER}, {MRN}, {HDATE}")
    n.header(r.choice(["Subjective", "Interval History", "Overnight Events"]), inline=r.random() < 0.5)
    n.say_some(["{PT} reports {severity} {sx}.", "No acute events overnight.", "{He} slept poorly because of {sx2}.",
                "Tolerating {diet}.", "Pain is {pain}/10, controlled with {painmed}.", "{His} {relation} is at the bedside.",
                "{He} walked with physical therapy today.", "{He} denies {rosneg} or {rosneg}.",
                "Nursing reports {sx3} overnight.", "{He} asks when {he} can go home.", "{He} spoke with {REL_NAME} by phone.",
                "Seen and examined on rounds with {ATT}.", "{He} reports {sx2} is {condition_word}.",
                "Appetite is fair.", "{He} had {num} bowel movements yesterday.", "Off oxygen since {DAY}."], 3, 6)
    n.header("Objective", inline=False)
    n.say("Vitals: {vitals}.")
    if r.random() < 0.6:
        n.say(r.choice([" I/O: {ivf} in, {ivf} out.", " Weight {num}0 kg.", " Net negative {num}00 mL."]))
    n.say("\nGeneral: {generalexam}. ")
    n.say_some(["Exam notable for {exam}.", "Lungs: {lungs}.", "Heart: {heart}.", "Also {exam}.", "Abdomen: {abd}.",
                "Extremities: {extremities}.", "Neuro: {neuro}."], 2, 5)
    if r.random() < 0.85:
        n.w.lit("\nLabs: ")
        n.say("{lab}, {glab}, {glab}.")
    if r.random() < 0.5:
        n.w.lit("\n")
        n.say("{Imaging} {RDATE}: {finding}.")
    if r.random() < 0.4:
        _meds(n, "Current Medications", spec_k=2)
    _assessment_plan(n)
    _signature(n)


_CONTENT_SLOTS["generalexam"] = lambda n: n.r.choice(V.EXAM_NORMAL["General"])
_CONTENT_SLOTS["lungs"] = lambda n: n.r.choice(V.EXAM_NORMAL["Lungs"])
_CONTENT_SLOTS["heart"] = lambda n: n.r.choice(V.EXAM_NORMAL["Cardiovascular"])
_CONTENT_SLOTS["abd"] = lambda n: n.r.choice(V.EXAM_NORMAL["Abdomen"])
_CONTENT_SLOTS["extremities"] = lambda n: n.r.choice(V.EXAM_NORMAL["Extremities"])
_CONTENT_SLOTS["neuro"] = lambda n: n.r.choice(V.EXAM_NORMAL["Neurologic"])


def _nursing_note(n: _Note) -> None:
    r = n.r
    shift = r.choice(["0700-1900", "1900-0700", "day shift", "night shift", "0700-1530"])
    n.say(r.choice(["NURSING NOTE", "Nursing Progress Note", "RN Shift Assessment"]) + f" ({shift})\n")
    n.say(r.choice(["{PT_HEADER}    {MRN}    {HDATE}", "Patient: {PT_HEADER}\nDate: {HDATE}\nUnit: {unit}, {HOSP}",
                    "{HDATE} {time}  {PT_HEADER}  Room {num}1{num}"]))
    n.header("Assessment", inline=False)
    n.say("General: {nursing_assess}. ")
    n.say(r.choice(["VS: {vitals}.", "Vital signs stable: {vitals}."]))
    n.say(" Pain {pain}/10 {descriptor} pain, {painmed} given with relief.")
    systems = list(V.NURSING_SYSTEMS)
    for si in sorted(r.sample(range(len(systems)), r.randint(4, len(systems)))):
        name = systems[si]
        n.w.lit(f"\n{name}: " + r.choice(V.NURSING_SYSTEMS[name]) + ".")
    if r.random() < 0.6:
        n.say("\nI/O: {ivf} mL in, {ivf} mL out.")
    n.header(r.choice(["Interventions", "Care Provided", "Shift Summary"]), inline=False)
    acts = r.sample(V.NURSING_ACTIONS, r.randint(5, 9))
    if r.random() < 0.5:
        n.w.lit("\n".join("- " + a for a in acts))
    else:
        n.w.lit(" ".join(acts))
    if r.random() < 0.5:
        n.w.lit(" ")
        n.say("Administered {med} as ordered.")
    if r.random() < 0.7:
        n.header(r.choice(["Education", "Patient Teaching"]), inline=True)
        n.w.lit(" ".join(r.sample(V.NURSING_EDUCATION, r.randint(1, 3))))
        n.say(r.choice([" Teaching provided to the patient.", " {His} {relation} participated.",
                        " Written materials given; more information at {URL}.", ""]))
    n.header(r.choice(["Psychosocial", "Family/Social"]), inline=True)
    n.say_some(["{His} {relation} {REL_NAME} visited and can be reached at {REL_PHONE}.",
                "{PT} is tearful about {his} diagnosis of {dx}; chaplain referral placed.",
                "{He} prefers to be called {PT_FIRST}.", "Updated {relation} by phone at {REL_PHONE}.",
                "Interpreter used; {he} emigrated from {COUNTRY} and speaks limited English.",
                "{He} is worried about missing work at {EMPLOYER}.",
                "{He} asked about returning to {LOCOTHER} for {his} grandchild's game on {DAY}.",
                "Social work consulted regarding discharge to {FACILITY}."], 1, 3)
    n.header("Plan", inline=True)
    n.say_some(["Continue plan of care.", "Will notify {ATT} of any changes.", "{Plan}.", "Monitor for {sx2}.",
                "Reinforce {activity}.", "MD {DR} aware of {glab}.", "Possible discharge {DAY}."], 2, 3)
    n.w.lit("\n\n")
    n.say(r.choice(["{NURSE}", "Signed: {NURSE} ({NURSE_USER}) {time}", "{NURSE}, {HDATE} {time}"]))


_CONTENT_SLOTS["nursing_assess"] = lambda n: n.r.choice(V.NURSING_ASSESS)


def _radiology_report(n: _Note) -> None:
    r = n.r
    region = n.S["region"]
    study = r.choice(n.S["imaging"])
    if r.random() < 0.3:
        _letterhead(n)
    n.say(r.choice(["RADIOLOGY REPORT", "DIAGNOSTIC IMAGING REPORT", "Radiology Report"]) + "\n")
    n.say(r.choice(["Patient: {PT_HEADER}  {MRN}  DOB: {DOB}", "{PT_HEADER}\n{MRN}\nAge: {AGE_N}"]))
    n.w.lit("\n")
    n.say("{IDNUM}")
    n.header("Exam", inline=True)
    n.w.lit(study.upper() if r.random() < 0.5 else _cap(study))
    n.header("Date of Exam", inline=True)
    n.say("{HDATE} {time}")
    if r.random() < 0.6:
        n.header("Ordering Physician", inline=True)
        n.say("{ATT}")
    n.header(r.choice(["Clinical History", "Indication", "Clinical Indication"]), inline=True)
    n.say(r.choice(["{CAP_AGE_PHRASE} with {sx}.", "{Complaint}. Evaluate for {dx}.", "{Dx}, follow-up.",
                    "History of {hist}, now with {sx}.", "{Complaint}; rule out {anydx}."]))
    for extra in r.sample(["History of {hist}.", "Known {pmh}.", "Status post {proc}.", "Symptoms for {onset}.",
                           "Referred by {PCP}.", "Per the requisition: {sx2}.", "Question of {anydx}."], r.randint(1, 3)):
        n.w.lit(" ")
        n.say(extra)
    n.header("Comparison", inline=True)
    n.say(r.choice(["None.", "{Imaging} dated {PDATE}.", "Outside study from {HOSP_OTHER} dated {PDATE}.",
                    "Prior exam of {PDATE}."]))
    n.header("Technique", inline=True)
    n.w.lit(" ".join(r.sample(V.RADIOLOGY_TECHNIQUE[region], min(2, len(V.RADIOLOGY_TECHNIQUE[region])))))
    n.w.lit(" " + " ".join(r.sample(V.RADIOLOGY_EXTRA, r.randint(1, 2))))
    n.header("Findings", inline=False)
    finds = r.sample(n.S["img_findings"], r.randint(2, 4))
    normals = r.sample(V.RADIOLOGY_NORMAL[region], min(len(V.RADIOLOGY_NORMAL[region]), r.randint(5, 9)))
    sents = [f"There is {f}." if f.startswith(("a ", "an ")) else _cap(f) + "." for f in finds] + normals
    r.shuffle(sents)
    n.w.lit(" ".join(sents))
    if n.pt.device and r.random() < 0.5:
        n.say(" A {DEVICE} is noted.")
    n.header("Impression", inline=False)
    for i, f in enumerate(finds):
        n.w.lit(("\n" if i else "") + f"{i + 1}. " + _cap(f) + ".")
    for j, rec in enumerate(r.sample(V.RADIOLOGY_RECS, r.randint(0, 2))):
        n.w.lit(f"\n{len(finds) + 1 + j}. " + rec)
    if r.random() < 0.4:
        n.w.lit("\n\n")
        n.say(r.choice(["Critical result communicated to {ATT} by telephone on {DATE} at {time} by {ATT_USER}.",
                        "Findings discussed with {DR} at {time} on {DATE}.",
                        "Preliminary report issued by resident {DR_NEW}."]))
    n.w.lit("\n\n")
    rad = n.c.by_spec.get(V.RADIOLOGY) or n.c.doctors
    rad_dr = r.choice(rad)
    n.w.lit("Electronically signed by ")
    n.w_doctor(rad_dr)
    n.say(r.choice([" on {HDATE} {time}.", ", Radiologist, {HDATE}.", " ({HDATE})"]))


def _consult_note(n: _Note) -> None:
    r = n.r
    title = r.choice([f"{n.spec.upper()} CONSULTATION", "CONSULT NOTE", f"{n.spec} Consult Note", "INPATIENT CONSULTATION"])
    _id_block(n, title, ["Date of Consultation: {HDATE}", "Requesting Physician: {DR}", "Consultant: {ATT}"])
    n.header("Reason for Consultation", inline=True)
    n.say(r.choice(["{Complaint}; evaluate for {dx}.", "Assistance with management of {dx}.", "{Dx}.",
                    "Recommendations regarding {anydx} in a patient with {hist}.", "Abnormal {imaging} showing {finding}."]))
    _hpi(n, 3, 6)
    _pmh(n)
    _meds(n, r.choice(["Home Medications", "Medications Prior to Admission"]))
    _allergies(n)
    _social(n)
    if r.random() < 0.6:
        _family(n)
    if r.random() < 0.6:
        _ros(n)
    _exam(n)
    if r.random() < 0.8:
        _labs(n)
    if r.random() < 0.6:
        _imaging(n)
    n.header(r.choice(["Impression", "Assessment"]), inline=False)
    n.say(r.choice(["{CAP_AGE_PHRASE} with {hist} and {pmh}, now with {dx}.",
                    "{PT} presents with {sx} most consistent with {dx}; {anydx} is also on the differential.",
                    "Findings are consistent with {dx}."]))
    n.header("Recommendations", inline=False)
    recs = r.sample(n.S["plans"], r.randint(3, 6))
    for i, rec in enumerate(recs):
        n.w.lit(("\n" if i else "") + f"{i + 1}. " + _cap(rec) + ".")
    if r.random() < 0.6:
        n.w.lit(f"\n{len(recs) + 1}. ")
        n.say(r.choice(["We will follow along with you.", "Will discuss at the {spec} conference on {DAY}.",
                        "Please page {CONS} at {CONS_PAGER} with questions.",
                        "Outpatient follow-up at {CLINIC} in {interval}."]))
    n.w.lit("\n\n")
    n.say(r.choice(["Thank you for this interesting consult. Please call with questions.",
                    "Thank you for involving us in the care of {PT}.", "Discussed with the primary team and {ATT}."]))
    _signature(n)


def _operative_note(n: _Note) -> None:
    r = n.r
    proc = n.main_proc = r.choice(n.S["procedures"])
    title = r.choice(["OPERATIVE NOTE", "OPERATIVE REPORT", "PROCEDURE NOTE", "BRIEF OP NOTE"])
    _id_block(n, title, ["Date of Procedure: {HDATE}"])
    n.header("Preoperative Diagnosis", inline=True)
    n.say("{Dx}.")
    n.header("Postoperative Diagnosis", inline=True)
    n.say(r.choice(["Same.", "{Dx}.", "Same as above."]))
    n.header(r.choice(["Procedure", "Procedure Performed", "Operation"]), inline=True)
    n.w.lit(_cap(proc) + ".")
    n.header("Surgeon", inline=True)
    n.say("{ATT}")
    if r.random() < 0.7:
        n.header("Assistant", inline=True)
        n.say(r.choice(["{DR}", "{DR_NEW}, PA-C", "{DR}, resident"]))
    n.header("Anesthesia", inline=True)
    n.say("{Anesthesia}" + (", by {DR_NEW}" if r.random() < 0.4 else ""))
    n.header("Estimated Blood Loss", inline=True)
    n.say("{Ebl}.")
    for hdr, pool in (("Specimens", V.SPECIMENS), ("Drains", V.DRAINS), ("Complications", V.COMPLICATIONS)):
        if r.random() < 0.75:
            n.header(hdr, inline=True)
            n.w.lit(_cap(r.choice(pool)) + ".")
    if r.random() < 0.3 or n.pt.device:
        n.header("Implants", inline=True)
        n.say(r.choice(["{DEVICE}.", "{Devmodel2}, lot number {LOTNUM}.", "{DEVICE}; implant card given to the patient."]))
    n.header(r.choice(["Indications", "Indications for Procedure"]), inline=False)
    n.say_some(["{PT} is {AGE_PHRASE} with {dx} who was seen in clinic by {ATT} on {PDATE}.",
                "{He} has {sx} despite {medname}.", "{Imaging} showed {finding}.",
                "Risks, benefits, and alternatives of {proc} were discussed with the patient and {his} {relation}, and consent was obtained.",
                "{He} elected to proceed.", "Given {hist}, cardiology clearance was obtained from {DR} on {RDATE}."], 3, 5)
    n.header(r.choice(["Description of Procedure", "Procedure in Detail", "Details of the Operation"]), inline=False)
    gen = list(V.OP_GENERIC)
    steps = gen[:2] + r.sample(gen[2:5], 2) + r.sample(n.S["ops"], min(len(n.S["ops"]), r.randint(3, 6))) + r.sample(gen[5:], 3)
    n.w.lit(" ".join(steps))
    if r.random() < 0.6:
        n.w.lit(" ")
        n.say(r.choice(["{ATT} was present and scrubbed for the entire procedure.",
                        "The findings were discussed with the {relation} in the waiting room.",
                        "The patient was extubated in the operating room and transferred to the PACU."]))
    n.header("Disposition", inline=True)
    n.say(r.choice(["PACU, then {unit}.", "{Dispo} when criteria are met.", "Admit to {unit} for overnight observation."]))
    n.header("Plan", inline=True)
    n.say_some(["{Plan}.", "{Plan}.", "Follow up with {ATT} in {interval}.", "Resume {medname} on {FDATE}."], 2, 3)
    _signature(n)


_CONTENT_SLOTS["devmodel2"] = lambda n: n.r.choice(V.DEVICE_MODELS)
_PHI_SLOTS["LOTNUM"] = lambda n: n.w.phi("DEVICE", n.c._serial())


def _ed_note(n: _Note) -> None:
    r = n.r
    title = r.choice(["EMERGENCY DEPARTMENT NOTE", "ED Provider Note", "EMERGENCY DEPARTMENT ENCOUNTER", "ED Physician Documentation"])
    _id_block(n, title, ["Arrival: {HDATE} {time}", "Triage: {triage}", "Arrival Mode: {Arrival}"])
    n.header("Chief Complaint", inline=True)
    n.say("{Complaint}")
    _hpi(n, 2, 5)
    if r.random() < 0.6:
        _pmh(n)
    if r.random() < 0.6:
        _meds(n)
    _allergies(n)
    if r.random() < 0.7:
        _social(n, 1, 3)
    if r.random() < 0.5:
        _ros(n)
    _exam(n, 3, 6)
    if r.random() < 0.7:
        _labs(n)
    if r.random() < 0.5:
        _imaging(n)
    n.header(r.choice(["ED Course", "ED Course and Medical Decision Making", "MDM"]), inline=False)
    n.w.lit(" ".join(r.sample(V.ED_COURSE, r.randint(2, 4))))
    n.w.lit(" ")
    n.say_some(["Differential diagnosis includes {dx}, {anydx}, and {anydx}.", "Received {med} in the ED.",
                "Discussed with {CONS} from {spec}, who will see the patient.", "{He} was reassessed at {time} and felt better.",
                "Old records from {HOSP_OTHER} were requested by fax at {FAX}.",
                "Spoke with {his} {relation} {REL_NAME} at {REL_PHONE}, who confirmed the history.",
                "Police from {CITY} accompanied the patient.", "Poison control was contacted."], 1, 3)
    n.header(r.choice(["Diagnosis", "Clinical Impression", "ED Diagnosis"]), inline=True)
    n.say("{Dx}.")
    n.header("Disposition", inline=True)
    n.say(r.choice(["Admit to {spec} under {ATT}, {unit}.", "Discharged home with {his} {relation} in stable condition.",
                    "Transfer to {HOSP_OTHER} for a higher level of care; accepting physician {DR_NEW}.",
                    "Observation, {unit}.", "Admitted to the {unit}."]))
    if r.random() < 0.5:
        n.header("Discharge Instructions", inline=False)
        n.say_some(["{instruction}", "Return for {precaution} or {precaution}.", "Follow up with {PCP} in {interval}."]
                   + INSTRUCTIONS_PHI, 1, 3)
    _signature(n)


_BUILDERS: Dict[str, Callable[[_Note], None]] = {
    "discharge_summary": _discharge_summary,
    "progress_note": _progress_note,
    "nursing_note": _nursing_note,
    "radiology_report": _radiology_report,
    "consult_note": _consult_note,
    "operative_note": _operative_note,
    "ed_note": _ed_note,
}


# ---- ICU nursing progress notes: telegraphic, ALL CAPS or all lower case ------------------

STYLES: List[str] = ["prose", "upper", "lower"]
"""``prose``: tidy title-case notes of every note type; ``upper`` / ``lower``: telegraphic
ICU nursing progress notes written in ALL CAPS / all lower case; ``mixed`` draws
one per note (half prose, a quarter each of upper and lower)."""
ICU_NOTE_TYPE = "icu_nursing_note"
# mixed: half tidy prose of every note type, a quarter ICU notes in each case
_MIXED_WEIGHTS = [2, 1, 1]


def invented_name(r: random.Random, kind: str) -> str:
    """A name made of syllables, so it belongs to no list of real people or places.

    kind: ``first_f``, ``first_m``, ``last`` or ``place``.
    """
    stem = "".join(r.choice(V.NAME_ONSETS) + r.choice(V.NAME_VOWELS) + r.choice(V.NAME_CODAS)
                   for _ in range(1 if kind.startswith("first") or r.random() < 0.75 else 2))
    end = {"first_f": V.FIRST_ENDINGS_F, "first_m": V.FIRST_ENDINGS_M, "last": V.SURNAME_ENDINGS,
           "place": V.PLACE_ENDINGS}[kind]
    name = stem + r.choice(end)
    # Collapse a vowel clash at the join ("ea" + "a"...) and triple letters.
    name = re.sub(r"([aeiouy])[aeiouy]+(?=[aeiouy])", r"\1", name)
    name = re.sub(r"(.)\1\1+", r"\1\1", name)
    return _cap(name)


@dataclass
class IcuPerson:
    first: str
    last: str
    female: bool


@dataclass
class IcuHospital:
    name: str
    short: str  # the one-word name ("Kellton")
    abbr: str  # the initials ("KGH")


@dataclass
class IcuIdentity:
    """A patient's identity in the ICU notes: invented names, relatives, home town, age."""

    person: IcuPerson
    relatives: List[Tuple[str, IcuPerson]]
    city: str
    hospital: IcuHospital
    age: int


class IcuCohort:
    """Invented identities for the ICU notes, drawn on first use from the generator's rng."""

    def __init__(self, r: random.Random) -> None:
        self.r = r
        self.cities = [invented_name(r, "place") for _ in range(12)]
        self.hospitals = [self._hospital() for _ in range(10)]
        self.staff = [self.person(r.random() < 0.7) for _ in range(24)]
        self.wards = [self._ward() for _ in range(6)]
        self.by_patient: Dict[str, IcuIdentity] = {}

    def first(self, female: bool) -> str:
        r = self.r
        if r.random() < 0.3:
            return r.choice(V.COMMON_WORD_FIRST_F if female else V.COMMON_WORD_FIRST_M)
        return invented_name(r, "first_f" if female else "first_m")

    def last(self) -> str:
        return self.r.choice(V.COMMON_WORD_SURNAMES) if self.r.random() < 0.25 else invented_name(self.r, "last")

    def person(self, female: bool) -> IcuPerson:
        return IcuPerson(self.first(female), self.last(), female)

    def _hospital(self) -> IcuHospital:
        r = self.r
        place, last = invented_name(r, "place"), invented_name(r, "last")
        name = r.choice(V.ICU_HOSPITAL_FORMS).format(place=place, last=last)
        short = last if name.startswith("St.") or name.startswith(last) else place
        words = [w for w in re.findall(r"[A-Za-z]+", name) if w not in ("St", "s")]
        abbr = ("S" if name.startswith("St.") else "") + "".join(w[0] for w in words).upper()
        if len(abbr) < 3:
            abbr += "H"
        return IcuHospital(name, short, abbr)

    def _ward(self) -> str:
        r = self.r
        return r.choice(V.ICU_WARD_FORMS).format(last=invented_name(r, "last"), n=r.randint(2, 12))

    def identity(self, pt: Patient, age: int) -> IcuIdentity:
        got = self.by_patient.get(pt.pid)
        if got is None:
            r = self.r
            rels = []
            for rel in r.sample(V.RELATIONS, 3):
                fem = V.RELATION_FEMALE[rel]
                rels.append((rel, self.person(r.random() < 0.5 if fem is None else fem)))
            # A share of ICU patients is over 89 (an identifier under HIPAA).
            icu_age = age if r.random() < 0.6 else r.randint(90, 104)
            got = IcuIdentity(self.person(pt.female), rels, r.choice(self.cities), r.choice(self.hospitals), icu_age)
            self.by_patient[pt.pid] = got
        return got


def _ordinal(day: int) -> str:
    return f"{day}{'th' if 10 <= day % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(day % 10, 'th')}"


def _icu_date(n: _Note, d: dt.date) -> None:
    """Dates as nurses type them: 3-24-17, 10/12, march 24, "in march of 2022", 24th."""
    m, day, y = d.month, d.day, d.year
    forms = [f"{m}-{day}-{y % 100:02d}", f"{m}/{day}", f"{m}/{day}/{y % 100:02d}", f"{V.MONTHS[m - 1]} {day}",
             f"{V.MONTHS[m - 1]} of {y}", f"{V.MONTHS_ABBR[m - 1]} {day}", f"{m}-{day}", f"{m}/{day}/{y}", _ordinal(day)]
    form = n.r.randrange(len(forms))
    if form == 4:
        n.w.lit("in ")
    n.w.phi("DATE", forms[form])


def _icu_year(n: _Note) -> None:
    """A past year, often abbreviated: '99 or 74'."""
    y = n.pdate(365, 9000).year
    form = n.r.randrange(3)
    if form == 0:
        n.w.lit("'")
        n.w.phi("DATE", f"{y % 100:02d}")
    elif form == 1:
        n.w.phi("DATE", f"{y % 100:02d}")
        n.w.lit("'")
    else:
        n.w.phi("DATE", str(y))


def _icu_phone(n: _Note) -> None:
    """Phone numbers, some with an extension ("x45", "ext 120") or without area code."""
    r, d = n.r, n.c.phone()
    forms = [f"{d[:3]}-{d[3:6]}-{d[6:]} x{r.randint(2, 9999)}", f"{d[3:6]}-{d[6:]}", f"({d[:3]}) {d[3:6]}-{d[6:]}",
             f"{d[3:6]}-{d[6:]} ext {r.randint(10, 999)}", f"{d[:3]}.{d[3:6]}.{d[6:]}", f"{d[:3]}-{d[3:6]}-{d[6:]}"]
    n.w.phi("PHONE", r.choice(forms))


def _icu_pager(n: _Note) -> None:
    r = n.r
    n.w.lit(r.choice(["pager #", "pager ", "pg ", "beeper ", "beeper #"]))
    n.w.phi("PHONE", r.choice([n.c.digits(5), f"{r.randint(1, 9)}-{n.c.digits(4)}", n.c.digits(4)]))


def _icu_staff(n: _Note) -> IcuPerson:
    return n.r.choice(n.icu_c.staff)


def _icu_staff_name(n: _Note, p: IcuPerson) -> None:
    r = n.r
    n.w.phi("DOCTOR", r.choice([p.last, p.last, p.first, f"{p.first} {p.last}", f"{p.first[0]}. {p.last}"]))


def _icu_role_name(n: _Note) -> None:
    """A clinician's name after or before a role word: "dr x aware", "x, rn", "np x made aware"."""
    r, w = n.r, n.w
    p = _icu_staff(n)
    form = r.randrange(10)
    if form == 0:
        w.lit(r.choice(["Dr ", "Dr. ", "dr "]))
        w.phi("DOCTOR", p.last)
        w.lit(" " + r.choice(["aware", "made aware", "notified", "in to see pt", "paged"]))
    elif form == 1:
        w.phi("DOCTOR", r.choice([p.first, f"{p.first} {p.last}", p.last]))
        w.lit(", RN " + r.choice(["aware", "to follow", "covering"]))
    elif form == 2:
        w.lit(r.choice(["NP ", "PA ", "resident ", "intern ", "fellow "]))
        w.phi("DOCTOR", r.choice([p.first, p.last]))
        w.lit(" " + r.choice(["made aware", "aware", "notified", "at bedside"]))
    elif form == 3:
        w.lit("talked with ")
        w.phi("DOCTOR", r.choice([p.first, f"{p.first} {p.last}"]))
        w.lit(f" from {r.choice(V.ICU_DEPTS)}")
    elif form == 4:
        w.lit("MD ")
        w.phi("DOCTOR", p.last)
        w.lit(" notified of ")
        w.lit(r.choice(["low UO", "SBP 80s", "K 3.2", "temp 101.4", "new afib"]))
    elif form == 5:
        w.lit("paged Dr ")
        w.phi("DOCTOR", p.last)
        w.lit(" at ")
        w.lit(f"{r.randint(0, 23):02d}{r.choice(['00', '15', '30', '45'])}")
    elif form == 6:
        w.lit(r.choice(["covering for ", "report given to ", "care turned over to "]))
        w.phi("DOCTOR", r.choice([p.first, f"{p.first} {p.last}"]))
        w.lit(r.choice([", RN", " RN", ""]))
    elif form == 7:
        w.lit("per Dr ")
        w.phi("DOCTOR", p.last)
        w.lit(", " + r.choice(["hold tube feeds", "cont current plan", "no further w/u tonight", "ok to transfuse 1u prbc"]))
    elif form == 8:
        w.lit(r.choice(["attending ", "renal fellow ", "cards fellow ", "surgery resident "]))
        w.phi("DOCTOR", p.last)
        w.lit(" " + r.choice(["aware", "in to see pt", "will follow"]))
    else:
        w.lit(r.choice(["SW ", "CM ", "chaplain ", "RT "]))
        w.phi("DOCTOR", p.first)
        w.lit(" " + r.choice(["following", "in to see family", "aware"]))


def _icu_family(n: _Note) -> None:
    """Relatives after relation words: "wife x", "daughter x called", "son x lives in y"."""
    r, w, ident = n.r, n.w, n.icu
    rel, p = r.choice(ident.relatives)
    form = r.randrange(8)
    name = p.first if r.random() < 0.75 else f"{p.first} {p.last}"
    w.lit(rel + " ")
    w.phi("PATIENT", name)
    if form == 0:
        w.lit(" called, " + r.choice(["updated by RN", "questions answered", "will visit in am"]))
    elif form == 1:
        w.lit(" lives in ")
        if r.random() < 0.6:
            w.phi("CITY", ident.city)
        else:
            w.phi("STATE", r.choice(V.US_STATES)[1])
        w.lit(", " + r.choice(["will be in tomorrow", "updated by phone", "is HCP", "flying in tonight"]))
    elif form == 2:
        w.lit(" in to visit, " + r.choice(["updated at bedside", "very supportive", "tearful", "asking appropriate questions"]))
    elif form == 3:
        w.lit(" is HCP, can be reached at ")
        _icu_phone(n)
    elif form == 4:
        w.lit(" " + r.choice(["aware of plan", "at bedside", "left for the night", "requesting family mtg"]))
    elif form == 5:
        w.lit(" called at ")
        w.lit(f"{r.randint(0, 23):02d}{r.choice(['00', '10', '30', '45'])}")
        w.lit(", number ")
        _icu_phone(n)
    elif form == 6:
        w.lit(" and " + r.choice(["grandkids", "family", "friends"]) + " visited")
    else:
        w.lit(" " + r.choice(["works at ", "drove in from ", "staying at "]))
        if r.random() < 0.5:
            w.phi("CITY", r.choice(n.icu_c.cities))
        else:
            w.phi("HOSPITAL", n.icu_c.hospitals[r.randrange(len(n.icu_c.hospitals))].short)


def _icu_hosp(n: _Note, h: Optional[IcuHospital] = None) -> None:
    r = n.r
    h = h or r.choice(n.icu_c.hospitals)
    n.w.phi("HOSPITAL", r.choice([h.abbr, h.abbr, h.short, h.name]))


def _icu_hosp_phrase(n: _Note) -> None:
    """A hospital by abbreviation or one-word name after "transfer to", "followed at"..."""
    r, w = n.r, n.w
    lead = r.choice(["transfer to ", "transferred from ", "followed at ", "went to ", "arrived from ", "pt seen at ",
                     "records requested from ", "plan for rehab at ", "has PCP at ", "d/c to "])
    w.lit(lead)
    _icu_hosp(n, n.icu.hospital if r.random() < 0.5 else None)
    tail = r.choice(["", "", " ED", " for w/u", " on "])
    w.lit(tail)
    if tail == " on ":
        _icu_date(n, n.pdate(1, 40))


def _icu_ward(n: _Note) -> None:
    r, w = n.r, n.w
    w.lit(r.choice(["transfer to ", "will go to ", "bed assigned on ", "came up from ", "pt moved to "]))
    w.phi("WARD", r.choice(n.icu_c.wards))
    if r.random() < 0.4:
        w.lit(r.choice([" when bed available", " tomorrow", " this am"]))


def _icu_pt(n: _Note) -> None:
    r, p = n.r, n.icu.person
    form = r.randrange(5)
    if form == 0:
        n.w.phi("PATIENT", f"{p.first} {p.last}")
    elif form == 1:
        n.w.lit("Mrs. " if p.female and r.random() < 0.5 else ("Ms. " if p.female else "Mr. "))
        n.w.phi("PATIENT", p.last)
    elif form == 2:
        n.w.phi("PATIENT", p.first)
    elif form == 3:
        n.w.phi("PATIENT", f"{p.last}, {p.first}")
    else:
        n.w.phi("PATIENT", p.last)


def _icu_age(n: _Note) -> None:
    r, w = n.r, n.w
    form = r.randrange(4)
    w.phi("AGE", str(n.icu.age))
    w.lit([" yo", " y/o", " yo ", " year old "][form] + ("" if form < 2 else ("F" if n.pt.female else "M")))


_PHI_SLOTS.update({
    "I_PT": _icu_pt,
    "I_AGE": _icu_age,
    "I_ROLE": _icu_role_name,
    "I_FAMILY": _icu_family,
    "I_HOSP_PHRASE": _icu_hosp_phrase,
    "I_HOSP": _icu_hosp,
    "I_WARD": _icu_ward,
    "I_PHONE": _icu_phone,
    "I_PAGER": _icu_pager,
    "I_DATE": lambda n: _icu_date(n, n.date),
    "I_PDATE": lambda n: _icu_date(n, n.pdate(1, 900)),
    "I_YEAR": _icu_year,
    "I_MRN": lambda n: n.w.phi("MRN", n.pt.mrn),
    "I_STAFF": lambda n: _icu_staff_name(n, _icu_staff(n)),
})
_CONTENT_SLOTS.update({
    "icu_hx": lambda n: n.fresh("icu_hx", V.ICU_HX),
    "icu_unit": lambda n: n.r.choice(V.ICU_UNITS),
    "hhmm": lambda n: f"{n.r.randint(0, 23):02d}{n.r.choice(['00', '15', '30', '45'])}",
})

ICU_OPENERS = [
    "{I_AGE} admitted {I_DATE} from {I_HOSP} w/ {dx}, {icu_hx}.",
    "pt is {I_AGE} w/ {icu_hx}, {icu_hx}. admitted to {icu_unit} w/ {dx}.",
    "{I_PT} is a {I_AGE} s/p {proc} on {I_PDATE}, {icu_hx}.",
    "{I_AGE} transferred from {I_HOSP} on {I_DATE} for mgmt of {dx}.",
    "pt {I_PT}, {I_AGE}, {icu_hx}, here w/ {dx}.",
    "{I_PT} ({I_AGE}) arrived from {I_HOSP} at {hhmm}, {icu_hx}.",
]
ICU_EVENTS = [
    "{I_ROLE}.", "{I_ROLE}.", "{I_ROLE}.", "{I_FAMILY}.", "{I_FAMILY}.", "{I_HOSP_PHRASE}.", "{I_HOSP_PHRASE}.", "{I_WARD}.",
    "hx of MI in {I_YEAR}, CABG {I_YEAR}.", "last admit {I_PDATE} for {dx2}.", "dx w/ {pmh} in {I_YEAR}.",
    "seen in clinic {I_PDATE}, f/u {I_DATE}.", "pt states lives alone, {I_FAMILY}.", "ok to page {I_STAFF} at {I_PAGER}.",
    "pls call {I_PHONE} w/ questions.", "outpt cardiologist {I_STAFF}, {I_PHONE}.", "HCP form on chart, {I_FAMILY}.",
    "echo {I_PDATE} EF 35%.", "plan d/c {I_DATE} if stable.", "MRN {I_MRN}.",
]


def _icu_nursing_note(n: _Note) -> None:
    """A telegraphic ICU nursing progress note: systems, events, family, plan."""
    r, w = n.r, n.w
    n.icu_c = n.gen.icu_cohort()
    n.icu = n.icu_c.identity(n.pt, n.age_at(n.date))
    w.lit(r.choice(V.ICU_TITLES) + " " + r.choice(V.ICU_SHIFTS))
    if r.random() < 0.5:
        w.lit(" ")
        _icu_date(n, n.date)
    if r.random() < 0.4:
        w.lit(r.choice(["  pt: ", "  re: ", "  name: ", " - "]))
        _icu_pt(n)
    w.lit("\n")
    n.say(r.choice(ICU_OPENERS))
    sep = r.choice([".\n", ". ", "\n"])
    systems = [s for s in V.ICU_SYSTEM_ORDER if r.random() < 0.8]
    for name in systems:
        items = r.sample(V.ICU_SYSTEMS[name], min(len(V.ICU_SYSTEMS[name]), r.randint(1, 3)))
        w.lit(sep if w.parts[-1][-1:] not in ("\n", " ") else "")
        w.lit(f"{name}: ")
        for i, item in enumerate(items):
            if i:
                w.lit(", ")
            n.say(item)
        if r.random() < 0.3:
            w.lit(". ")
            n.say(r.choice(["{I_ROLE}", "{I_ROLE}", "labs sent at {hhmm}"]))
    w.lit("\n" + r.choice(["Social: ", "Family: ", "Soc: ", "Dispo: "]))
    n.say_some(ICU_EVENTS, 4, 7)
    w.lit("\n" + r.choice(["Plan: ", "A/P: ", "P: "]))
    w.lit(", ".join(r.sample(V.ICU_PLANS, r.randint(2, 4))))
    if r.random() < 0.5:
        w.lit(", ")
        n.say(r.choice(["{I_ROLE}", "f/u w/ Dr {I_STAFF} in am", "{I_HOSP_PHRASE}", "{I_WARD}"]))
    w.lit(".")
    if r.random() < 0.6:
        w.lit("\n")
        p = _icu_staff(n)
        w.phi("DOCTOR", r.choice([p.first, f"{p.first} {p.last}", f"{p.first[0]}. {p.last}"]))
        w.lit(r.choice([", RN", " RN", ", RN BSN", ""]))


def recase(text: str, case: str) -> str:
    """``text`` in ``case`` (``upper``, ``lower``; anything else: unchanged), keeping
    every character offset: a character whose case mapping changes its length
    ("ß" -> "SS") is left as written, so gold spans keep their offsets."""
    if case not in ("upper", "lower"):
        return text
    out = text.upper() if case == "upper" else text.lower()
    if len(out) == len(text):
        return out
    f = str.upper if case == "upper" else str.lower
    return "".join(f(ch) if len(f(ch)) == 1 else ch for ch in text)


_BUILDERS[ICU_NOTE_TYPE] = _icu_nursing_note
