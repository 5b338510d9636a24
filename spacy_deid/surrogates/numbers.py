"""Surrogates of numbers: identifiers, phone numbers, ages, ZIP codes.

Identifiers (MRN, SSN, account, device, phone, fax, pager) keep their format and
length: every digit becomes a keyed digit and every letter a keyed letter of the
same case, separators stay, so ``(617) 555-0142`` stays a phone number and
``MRN 00123-A`` an MRN of the same shape. Ages over 89 become ``90+`` and ZIP
codes keep their first three digits only where the HIPAA Safe Harbor population
rule allows (else ``000``).
"""
import re
from typing import Optional

from spacy_deid.surrogates.keys import Keyer

_DIGITS = "0123456789"
_LETTERS = "abcdefghijklmnopqrstuvwxyz"

# Three-digit ZIP prefixes of areas with 20,000 people or fewer (US Census 2000),
# which HIPAA Safe Harbor requires to be written 000.
RESTRICTED_ZIP3 = frozenset(
    {"036", "059", "063", "102", "203", "556", "592", "790", "821", "823", "830", "831", "878", "879", "884", "890", "893"}
)

_WORD_AGES = {
    "ninety": 90, "hundred": 100,
}
_AGE_RE = re.compile(r"\d+")


def same_shape(text: str, keyer: Keyer, scope: str, kind: str = "id") -> str:
    """A keyed string of ``text``'s shape: digits -> digits, letters -> letters of
    the same case, everything else kept; never equal to ``text`` when it has a
    digit or letter. A leading non-zero digit stays non-zero (no ``0`` where a
    number cannot start)."""
    if not any(c.isalnum() for c in text):
        return text
    for attempt in range(16):
        digest = keyer.digest(kind, scope, text, attempt)
        out = []
        for i, c in enumerate(text):
            b = digest[i % len(digest)] ^ (i // len(digest)) * 31
            if c.isdigit() and c.isascii():
                if c != "0" and (i == 0 or not text[i - 1].isdigit()):
                    out.append(_DIGITS[1 + b % 9])
                else:
                    out.append(_DIGITS[b % 10])
            elif c.isalpha() and c.isascii():
                new = _LETTERS[b % 26]
                out.append(new.upper() if c.isupper() else new)
            else:
                out.append(c)
        candidate = "".join(out)
        if candidate != text:
            return candidate
    return text[::-1] if text[::-1] != text else text + "0"


_DIGIT_NAMES = "zero one two three four five six seven eight nine".split()
_DIGIT_OF_WORD = {**{w: str(i) for i, w in enumerate(_DIGIT_NAMES)}, "oh": "0"}


def phone_like(text: str, keyer: Keyer, scope: str) -> str:
    """A phone/fax/pager number of the same format whose area code and exchange
    start with 2-9 (a North American number shape); other formats: :func:`same_shape`.
    A number read out digit by digit ("six one seven ...") gets digit words."""
    words = text.split()
    if words and all(w.lower() in _DIGIT_OF_WORD for w in words):
        new_digits = phone_like("".join(_DIGIT_OF_WORD[w.lower()] for w in words), keyer, scope)
        out = [_DIGIT_NAMES[int(d)] for d in new_digits]
        return " ".join(w.upper() if text.isupper() else w for w in out)
    digits = [i for i, c in enumerate(text) if c.isdigit()]
    new = list(same_shape(text, keyer, scope, "phone"))
    for i, c in enumerate(text):
        if c.isalpha():
            new[i] = c  # "x45", "ext 45", "pager": the letters of a number identify nobody
    if len(digits) in (10, 11):
        first = digits[len(digits) - 10]
        for pos in (first, digits[len(digits) - 7]):
            if new[pos] in "01":
                new[pos] = str(2 + int(new[pos]) * 3)
        if len(digits) == 11:
            new[digits[0]] = text[digits[0]]  # the country code stays
    return "".join(new)


def age_value(text: str) -> Optional[int]:
    """The age written in ``text`` (digits, or "ninety..."/"hundred..."), or None."""
    m = _AGE_RE.search(text)
    if m:
        return int(m.group(0))
    low = text.lower()
    for word, value in _WORD_AGES.items():
        if word in low:
            return value
    return None


# a bare year ("diagnosed in 2020" with "2020" labelled AGE by a NER) is no age, and a year
# alone is not PHI under Safe Harbor; other large numbers stay edited (a NER's "AGE" on a
# piece of a phone number or address is still PHI)
_BARE_YEAR = re.compile(r"^\s*(19|20)\d\d\s*$")


def age_surrogate(text: str) -> Optional[str]:
    """``"90+"`` for an age of 90 or more (in the text's own words: "93" -> "90+",
    "ninety-three" -> "90+"), None for a younger age (not PHI: kept) and for a
    bare year ("2020": not PHI either)."""
    value = age_value(text)
    if value is None or value < 90 or _BARE_YEAR.match(text):
        return None
    m = _AGE_RE.search(text)
    if m:
        rest = text[m.end() :]
        if rest[:1] in ("s", "'") and rest.rstrip("'s") == "":
            return text[: m.start()] + "90+"  # a decade of life ("in her 90s" -> "in her 90+"; not "90+s")
        return text[: m.start()] + "90+" + rest
    return "90+"


_US_ZIP = re.compile(r"^\d{5}(?:-?\d{4})?$")


def zip_surrogate(text: str) -> str:
    """A ZIP code reduced per Safe Harbor: the first three digits kept and the rest
    zeroed (``02139-4307`` -> ``02100-0000``), or all zeros where the three-digit
    area is restricted. Safe Harbor's three digits are a US ZIP's ("02139",
    "02139-4307"): of another country's postal code they name almost the whole code ("6280" would
    stay "6280", "880" itself), so every digit of any other code is zeroed."""
    if not _US_ZIP.match(text.strip()):
        return "".join("0" if c.isdigit() else c for c in text)
    digits = [c for c in text if c.isdigit()]
    keep3 = "".join(digits[:3])
    out = []
    seen = 0
    for c in text:
        if c.isdigit():
            out.append(c if seen < 3 and keep3 not in RESTRICTED_ZIP3 and len(keep3) == 3 else "0")
            seen += 1
        else:
            out.append(c)
    return "".join(out)
