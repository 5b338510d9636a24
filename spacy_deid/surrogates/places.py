"""Surrogates of places and organisations of the same kind.

A city becomes a city, a street address a street address, a hospital a hospital
(its kind word is kept: "... Medical Center" stays "... Medical Center"), a
company a company. Names come from Faker's locale providers, seeded by a keyed
hash of (scope, kind, original), so the same place gets the same surrogate in
the same scope. US states and countries are not PHI under Safe Harbor (only
subdivisions smaller than a state are) and are kept.
"""
import re
from functools import lru_cache
from typing import Optional

from spacy_deid.surrogates.keys import Keyer
from spacy_deid.surrogates.names import case_like
from spacy_deid.surrogates.numbers import same_shape, zip_surrogate

ORG_KINDS = (
    "medical center", "health center", "health system", "hospital center", "memorial hospital",
    "hospital", "clinic", "clinics", "health", "healthcare", "medical group", "rehabilitation center",
    "rehab", "nursing home", "care center", "university", "college", "school", "institute",
    "center", "centre", "infirmary", "pharmacy", "laboratory", "labs", "associates", "practice",
    # (organisations of other kinds keep theirs too: "bangor savings bank" -> "... bank", not a
    # hospital's name)
    "bank", "church", "shelter", "academy", "court", "jail", "foundation", "services", "department",
    "police department", "inc", "llc", "company",
    # (and the kinds the gazetteer ends a name with after a town or a place: "holmes county
    # electric" -> "... Electric", "pulaski state prison" -> "... State Prison")
    "electric", "energy", "prison", "inn", "mission", "imaging", "home care", "hospice", "police", "ambulance",
    "ems", "group", "partners", "program", "manor", "gardens", "high school", "middle school", "elementary",
    "credit union", "food bank", "pharmacies", "nursing & rehab", "nursing and rehab",
)
_ORG_KIND_RE = re.compile(r"(?i)\b(" + "|".join(re.escape(k) for k in sorted(ORG_KINDS, key=len, reverse=True)) + r")\b\.?$")
_STREET_RE = re.compile(
    r"(?i)^\s*\d+[A-Za-z]?\s+.*\b(st|street|ave|avenue|rd|road|blvd|boulevard|dr|drive|ln|lane|way|ct|court|"
    r"pl|place|pkwy|parkway|ter|terrace|cir|circle|hwy|highway|sq|square)\b\.?"
)
# descriptor words kept after the kind word: "Gallagher Community Hospital" ->
# "<surrogate> Community Hospital", "Kellyburgh Dialysis Center" -> "<surrogate> Dialysis Center"
ORG_DESCRIPTORS = frozenset(
    """community general memorial regional medical health rehabilitation rehab dialysis senior children's
    childrens women's womens veterans university county city state mercy baptist methodist presbyterian
    lutheran catholic adventist cancer heart eye surgical surgery specialty specialty care nursing
    behavioral psychiatric mental orthopedic pediatric family urgent primary ambulatory outpatient
    long-term acute skilled assisted living and & of the""".split()
)
_UNIT_RE = re.compile(r"(?i)^\s*(apt|apartment|suite|ste|unit|room|rm|bldg|building|floor|fl|#)\.?\s*#?\s*[A-Za-z]?\d+[A-Za-z]?\s*$")
_ZIP_RE = re.compile(r"^\s*\d{5}(?:-\d{4})?\s*$")
_STATE_ZIP_RE = re.compile(r"^([A-Za-z][A-Za-z .]*?)(\s+)(\d{5}(?:-\d{4})?)$")


@lru_cache(maxsize=4)
def _faker(locale: str):
    from faker import Faker

    return Faker(locale)


@lru_cache(maxsize=4)
def _not_phi(locale: str) -> frozenset:
    """US states (names and postal codes) and countries: kept under Safe Harbor."""
    fake = _faker(locale)
    address = fake.provider("faker.providers.address")
    words = set()
    for attr in ("states", "states_abbr", "countries"):
        for value in getattr(address, attr, ()) or ():
            words.add(str(value).lower())
    words.update({"usa", "us", "u.s.", "u.s.a.", "united states", "america", "united states of america",
                  "europe", "asia", "africa", "north america", "south america", "australia", "antarctica"})
    return frozenset(words)


def is_not_phi_place(text: str, locale: str = "en_US") -> bool:
    """A US state or a country (or continent): not PHI under Safe Harbor. A
    two-letter state code counts only in upper case ("GA", not "ga")."""
    core = text.strip().strip(".,")
    if len(core) <= 2:
        return core.isupper() and core.lower() in _not_phi(locale)
    return core.lower() in _not_phi(locale)


# a ward: a building's name, a floor, perhaps a side ("Farr 2", "WOXLEY 10 NORTH", "blake 7")
BUILDING_SIDES = ("north", "south", "east", "west", "northeast", "northwest", "southeast", "southwest")
_WARD_RE = re.compile(rf"(?i)^([^\W\d_][\w'\-]*(?:\s+[^\W\d_][\w'\-]*)?)\s+(\d{{1,2}}[a-z]?)(\s+(?:{'|'.join(BUILDING_SIDES)}))?$")


class PlaceSurrogates:
    """Keyed same-kind surrogates of locations and organisations.

    keyer (Keyer): the salted hash.
    locale (str): the Faker locale.
    """

    def __init__(self, keyer: Keyer, locale: str = "en_US") -> None:
        self.keyer = keyer
        self.locale = locale

    def _seeded(self, *parts: object):
        fake = _faker(self.locale)
        fake.seed_instance(self.keyer.integer(*parts))
        return fake

    def kind_of_location(self, text: str, label: str = "") -> str:
        """``zip``, ``unit``, ``state`` (a state or country: not PHI), ``street``,
        ``facility``, ``ward`` (a NER ward written as a building, a floor and a side) or ``city``."""
        lab = label.upper()
        if lab in ("ZIP", "ZIP_CODE") or _ZIP_RE.match(text):
            return "zip"
        if _UNIT_RE.match(text):
            return "unit"
        if is_not_phi_place(text, self.locale):
            return "state"
        if lab in ("STREET", "STREET_ADDRESS", "ADDRESS") or _STREET_RE.match(text):
            return "street"
        # a detector's state or country label counts for a state code in any case ("quincy ma
        # 02169"), not for a town it mislabels ("in Houston, Texas" with Houston as a STATE)
        if lab in ("STATE", "COUNTRY") and text.strip().strip(".,").lower() in _not_phi(self.locale):
            return "state"
        if lab in ("HOSPITAL", "FAC") or _ORG_KIND_RE.search(text.strip()):
            return "facility"
        if lab == "WARD" and _WARD_RE.match(text.strip()):
            return "ward"
        return "city"

    def location(self, text: str, scope: str, label: str = "") -> Optional[str]:
        """The surrogate of a location; None when it is not PHI (a state, a country).
        An address written in comma-separated parts ("12 Main St, Boston, MA 02139")
        is replaced part by part: street, city, state kept, ZIP reduced."""
        if "," in text.strip().strip(","):
            return self._parts(text, scope)
        kind = self.kind_of_location(text, label)
        if kind == "zip":
            return zip_surrogate(text)
        if kind == "unit":  # "Apt. 681" -> "Apt. 273": the designator stays
            return re.sub(r"[A-Za-z]?\d+[A-Za-z]?\s*$", lambda m: same_shape(m.group(0), self.keyer, scope, "unit"), text)
        if kind == "state":
            return None
        if kind == "facility":
            return self.organization(text, scope, label)
        for attempt in range(8):
            fake = self._seeded("place", kind, scope, text.lower(), attempt)
            if kind == "ward":
                # a ward reads as one: a building's name, the floor's shape, the side kept
                # ("WOXLEY 10 NORTH" -> "BARTON 47 NORTH")
                m = _WARD_RE.match(text.strip())
                new = f"{fake.last_name()} {same_shape(m.group(2), self.keyer, scope, 'ward')}{m.group(3) or ''}"
                if new.lower() != text.strip().lower():
                    return case_like(new, text, title=False)
                continue
            if kind == "street":
                new = fake.street_address()
                if not re.search(r"(?i)\b(apt|suite)\b", text):
                    new = re.sub(r"\s+(Apt\.|Suite)\s+\S+$", "", new)
            else:
                new = fake.city()
            if new.lower() != text.strip().lower():
                return case_like(new, text, title=False)
        return same_shape(text, self.keyer, scope, "place")

    def _parts(self, text: str, scope: str) -> Optional[str]:
        pieces = re.split(r"(,\s*)", text)
        out = []
        changed = False
        for piece in pieces:
            core = piece.strip()
            if not core or core.startswith(","):
                out.append(piece)
                continue
            m = _STATE_ZIP_RE.match(core)
            if m and m.group(1).lower() in _not_phi(self.locale):
                new = f"{m.group(1)}{m.group(2)}{zip_surrogate(m.group(3))}"
            else:
                new = self.location(core, scope)
            changed |= new is not None and new != core
            out.append(piece if new is None else piece.replace(core, new))
        return "".join(out) if changed else None

    def organization(self, text: str, scope: str, label: str = "") -> str:
        """The surrogate of an organisation: a hospital keeps its kind word and the
        descriptors before it ("... Community Hospital", "... Dialysis Center")."""
        stripped = text.strip()
        m = _ORG_KIND_RE.search(stripped)
        kind = m.group(0) if m else ""
        if m:
            words = stripped[: m.start()].split()
            while words and words[-1].lower() in ORG_DESCRIPTORS:
                kind = f"{words.pop()} {kind}"
            kind = kind if words else m.group(0)  # a name made of descriptors only keeps the kind word
        for attempt in range(8):
            fake = self._seeded("org", scope, stripped.lower(), attempt)
            if m:
                stem = fake.last_name() if fake.random.random() < 0.5 else fake.city()
                new = f"{stem} {kind}"
            elif label.upper() in ("HOSPITAL",):
                new = f"{fake.last_name()} {fake.random.choice(['Hospital', 'Medical Center', 'Memorial Hospital'])}"
            else:
                new = fake.company()
            if new.lower() != stripped.lower():
                lead = text[: len(text) - len(text.lstrip())]
                trail = text[len(text.rstrip()) :]
                return lead + case_like(new, stripped, title=False) + trail
        return same_shape(text, self.keyer, scope, "org")

