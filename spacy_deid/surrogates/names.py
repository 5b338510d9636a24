"""Name surrogates: Faker's locale name lists, keyed by the original.

The same original name part gets the same surrogate wherever the caller passes
the same scope (a patient's notes, or the whole corpus for clinicians), because
the choice is a keyed hash of (scope, role, lower-cased part) and not a random
draw. The surrogate keeps the original's shape: its case pattern (HELEN ->
MARIA, helen -> maria), initials (``J.`` -> ``K.``), titles and suffixes
(``Dr.``, ``Jr``) as they are, hyphenated parts part by part, and the order of
"Last, First". A first name that Faker's lists know as female (male) gets a
female (male) surrogate. Surrogates never come from the corpus and never equal
the original part.
"""
import re
from functools import lru_cache
from typing import List, Sequence, Tuple

from spacy_deid.surrogates.keys import Keyer

TITLES = {
    "dr", "mr", "mrs", "ms", "miss", "mx", "prof", "md", "phd", "rn", "np", "pa", "do", "dds", "pharmd",
    "jr", "sr", "ii", "iii", "iv", "lpn", "cnp", "aprn", "mph", "facs", "facp", "sir", "madam", "nurse",
}
# name parts: letters with inner apostrophes/periods ("O'Brien", "St."); hyphens split parts
# lower-case particles inside a name ("van der Voet", "de la Cruz"; the detectors read them too)
NAME_PARTICLES = frozenset("van von de del della der den da di du la le ten ter bin ibn al el".split())
_PART_RE = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?\.?")


@lru_cache(maxsize=4)
def name_lists(locale: str = "en_US") -> Tuple[Tuple[str, ...], Tuple[str, ...], Tuple[str, ...]]:
    """(female first names, male first names, last names) of a Faker locale."""
    from faker import Faker

    person = Faker(locale).provider("faker.providers.person")
    female = tuple(n for n in person.first_names_female if n.isalpha() and len(n) > 1)
    male = tuple(n for n in person.first_names_male if n.isalpha() and len(n) > 1)
    last = tuple(n for n in person.last_names if n.replace("-", "").isalpha() and len(n) > 1)
    return female, male, last


def _sounds_like(a: str, b: str) -> bool:
    """Two names too close for one to stand for the other: equal, one letter apart, or
    equal once "k"/"c", "ph"/"f", "y"/"i" and doubled letters are folded ("Kathy" and
    "Cathy", "Jon" and "John", "Ann" and "Anne"). Hand-written: no kept phonetic
    library is a dependency, and this is all a surrogate needs to avoid."""

    def fold(w: str) -> str:
        w = w.lower().replace("ph", "f").replace("k", "c").replace("y", "i").replace("h", "")
        return re.sub(r"(.)\1+", r"\1", w)

    a, b = a.lower(), b.lower()
    if a == b or fold(a) == fold(b):
        return True
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b)) <= 1
    short, long_ = sorted((a, b), key=len)
    return len(long_) - len(short) == 1 and any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


def case_like(word: str, original: str, title: bool = True) -> str:
    """``word`` written with the case pattern of ``original``: UPPER, lower, or
    else Title case (``title``) or as it is."""
    letters = [c for c in original if c.isalpha()]
    if len(letters) > 1 and all(c.isupper() for c in letters):
        return word.upper()
    if letters and all(c.islower() for c in letters):
        return word.lower()
    return word[:1].upper() + word[1:].lower() if title else word


class NameSurrogates:
    """Keyed, consistent, shape-keeping name surrogates.

    keyer (Keyer): the salted hash.
    locale (str): the Faker locale of the name lists.
    """

    def __init__(self, keyer: Keyer, locale: str = "en_US") -> None:
        self.keyer = keyer
        self.locale = locale
        female, male, last = name_lists(locale)
        self.female, self.male, self.last = female, male, last
        self._female = {n.lower() for n in female}
        self._male = {n.lower() for n in male}
        self._first = tuple(sorted(set(female) | set(male)))

    def is_first_name(self, word: str) -> bool:
        """Whether ``word`` is a first name of the locale lists."""
        w = word.lower()
        return w in self._female or w in self._male

    def _pool(self, role: str, part: str) -> Sequence[str]:
        if role == "last":
            return self.last
        w = part.lower()
        if w in self._female and w not in self._male:
            return self.female
        if w in self._male and w not in self._female:
            return self.male
        return self._first

    def part(self, part: str, role: str, scope: str) -> str:
        """The surrogate of one name part (``role``: ``first`` or ``last``)."""
        core = part.rstrip(".")
        dot = part[len(core) :]
        if len(core) == 1:
            letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ".replace(core.upper(), "")
            new = self.keyer.choice(letters, "initial", scope, core.lower())
            return case_like(new, core) + dot if core.isalpha() else part
        if 2 <= len(core) <= 4 and core.isalpha() and not set(core.lower()) & set("aeiouy"):
            # initials ("JLW", "mk" of a sign-off or a dictation line) stay initials, one by one
            return "".join(self.part(c, role, scope) for c in core) + dot
        pool = self._pool(role, core)
        for attempt in range(8):
            new = self.keyer.choice(pool, "name", scope, role, core.lower(), attempt)
            if not _sounds_like(new, core):
                return case_like(new, core) + dot
        return case_like("Morgan" if core.lower() != "morgan" else "Taylor", core) + dot

    def replace(self, text: str, scope: str, surname: bool = False) -> str:
        """The surrogate of a whole name span (titles, order and separators kept);
        ``surname``: a name of one word is a surname (after "Ms.", "Dr."), so "Ms.
        Jordan" gets the surrogate that "Jordan" has in "Jordan, Maria"."""
        parts = [m for m in _PART_RE.finditer(text) if m.group(0).rstrip(".").lower() not in TITLES]
        if not parts:
            return text
        # the particles of a surname ("van der" of "Paul van der Voet") go with it: the
        # surrogate surname stands for them all, and they are left out
        particle = [
            i < len(parts) - 1 and m.group(0).lower() in NAME_PARTICLES and (i > 0 or m.group(0).islower())
            for i, m in enumerate(parts)
        ]
        named = [m for m, p in zip(parts, particle) if not p]
        roles = iter(self._roles(text, named, surname))
        out: List[str] = []
        cursor = 0
        for i, m in enumerate(parts):
            out.append(text[cursor : m.start()])
            if particle[i]:
                cursor = parts[i + 1].start()  # the particle and the space after it
                continue
            out.append(self.part(m.group(0), next(roles), scope))
            cursor = m.end()
        out.append(text[cursor:])
        return "".join(out)

    def _roles(self, text: str, parts, surname: bool = False) -> List[str]:
        n = len(parts)
        if n == 1:
            return ["first" if not surname and self.is_first_name(parts[0].group(0).rstrip(".")) else "last"]
        between = text[parts[0].end() : parts[1].start()]
        if "," in between:  # "Last, First Middle"
            return ["last"] + ["first"] * (n - 1)
        # hyphenated last names ("Smith-Jones") are the parts after the last space
        last_space = text.rstrip().rfind(" ", 0, parts[-1].start() + 1)
        return ["last" if m.start() > last_space or i == n - 1 else "first" for i, m in enumerate(parts)]
