"""Date shifting that keeps each date's own format.

Every date of a patient is moved by the same number of days (a keyed hash of the
patient id), so intervals between a patient's dates are kept exactly, and the
shifted date is written the way the original was: ``7/22`` stays month/day
without a year, ``3-24-17`` keeps its hyphens and two-digit year,
``13-Feb-2018`` its abbreviated month, ``March 3rd`` its ordinal suffix,
``in march`` its lower case, ``FEB`` its upper case, zero padding is kept per
field. A weekday written next to a full date is recomputed from the shifted
date; a weekday without a year moves by the same shift (so it stays consistent
with the shifted dates of the note).

Hand-written rather than built on dateparser: dateparser returns a datetime but
not the format the text was written in, and the whole point here is to write the
new date back in that format. Parsing is deliberately strict: a text whose
fields do not make a valid calendar date is never "shifted" into another invalid
one (the caller masks it).

Not PHI under HIPAA Safe Harbor, and therefore kept: a bare year (``2021``,
``1990s``) and durations or relative expressions (``3 days``, ``last week``).
"""
import datetime as dt
import re
from dataclasses import dataclass
from typing import List, Optional, Tuple

MONTHS = [
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
]
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

_MONTH_RE = re.compile(
    r"\b(january|february|march|april|may|june|july|august|september|october|november|december|"
    r"sept|jan|feb|mar|apr|jun|jul|aug|sep|oct|nov|dec)\b",
    re.IGNORECASE,
)
_WEEKDAY_RE = re.compile(
    r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
    r"tues|thurs|mon|tue|wed|thu|fri|sat|sun)\b",
    re.IGNORECASE,
)
# a number, with an ordinal suffix or a year apostrophe; numbers of a clock time are skipped
_NUM_RE = re.compile(r"(?<![\d:])('?)(\d+)(st|nd|rd|th|ST|ND|RD|TH)?(?![\d:])")
_RELATIVE_RE = re.compile(
    r"\b(days?|weeks?|months?|years?|yrs?|hours?|hrs?|minutes?|mins?|ago|today|yesterday|tomorrow|"
    r"tonight|morning|evening|night|daily|weekly|monthly|yearly|annually|prior|previous|last|next|"
    r"recent(ly)?|now|currently|postop|post-op|pod)\b",
    re.IGNORECASE,
)
_TIME_RE = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?", re.IGNORECASE)
_APOSTROPHE_YEAR_RE = re.compile(r"^\s*(['’])(\d{2})\s*$")
_YEAR_ONLY_RE = re.compile(r"^\s*(?:['’]?\d{2}|\d{4})['’]?s?\s*$")
_NUMERIC_SEP_RE = re.compile(r"^\s*(\d{1,4})\s*([/\-.])\s*(\d{1,4})(?:\s*([/\-.])\s*(\d{1,4}))?\s*$")

# yearless dates are computed in a leap year so that 2/29 is valid
_YEARLESS = 2000


@dataclass(frozen=True)
class DateShift:
    """The outcome of shifting one date text.

    action (str): ``"shift"`` (``text`` is the shifted date), ``"keep"`` (not
        PHI: a bare year, a duration, numbers that cannot be a date) or ``"unknown"`` (not a valid date the
        shifter can write back; the caller masks it).
    text (Optional[str]): the shifted text for ``"shift"``.
    date (Optional[datetime.date]): the shifted date (``"day"`` and ``"month"`` precision).
    precision (Optional[str]): ``"day"``, ``"month"``, ``"weekday"`` or ``"year"`` (a
        year written with an apostrophe, "'99").
    yearless (bool): the date was written without a year.
    """

    action: str
    text: Optional[str] = None
    date: Optional[dt.date] = None
    precision: Optional[str] = None
    yearless: bool = False


def _case_like(word: str, original: str) -> str:
    """``word`` in the case pattern of ``original`` (UPPER, lower, Title)."""
    if original.isupper() and len(original) > 1:
        return word.upper()
    if original.islower():
        return word.lower()
    return word[:1].upper() + word[1:].lower()


def _index_in(names: List[str], word: str) -> int:
    """The index of the full name that ``word`` (full or abbreviated) starts."""
    w = word.lower()
    for i, name in enumerate(names):
        if name.startswith(w[:3]):
            return i
    raise ValueError(word)


def _month_index(word: str) -> int:
    return _index_in(MONTHS, word)


def _month_name(index: int, original: str, abbreviated: bool) -> str:
    full = MONTHS[index]
    if not abbreviated:
        name = full
    elif original.lower() == "sept":
        name = "sept" if index == 8 else full[:3]
    else:
        name = full[:3]
    return _case_like(name, original)


def _is_abbreviated(text: str, field: "_Field") -> bool:
    """Whether a month name is written abbreviated; "May" is both, so it counts as
    abbreviated only with an abbreviation's company ("May.", "13-May-2018")."""
    word = field.text.lower()
    if word != "may":
        return word not in MONTHS
    return text[field.end : field.end + 1] in (".", "-") or text[field.start - 1 : field.start] == "-"


def _weekday_index(word: str) -> int:
    return _index_in(WEEKDAYS, word)


def _weekday_name(index: int, original: str) -> str:
    full = WEEKDAYS[index]
    if len(original) > 4 or original.lower() == full:
        name = full
    else:
        name = full[: len(original)] if len(original) >= 3 else full[:3]
    return _case_like(name, original)


def _ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def _number_like(value: int, original: str) -> str:
    """``value`` with the zero padding of ``original`` (``07`` -> ``03``)."""
    return str(value).zfill(len(original)) if original.startswith("0") else str(value)


def _year_like(value: int, original: str) -> str:
    return f"{value % 100:02d}" if len(original) <= 2 else str(value)


def _full_year(text: str) -> int:
    value = int(text)
    if len(text) <= 2:
        # two-digit years: 00-49 -> 2000s, 50-99 -> 1900s
        return 2000 + value if value < 50 else 1900 + value
    return value


def _safe_date(year: int, month: int, day: int) -> Optional[dt.date]:
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


@dataclass
class _Field:
    start: int
    end: int
    kind: str  # "day", "month_num", "month_name", "year", "weekday"
    text: str
    suffix: str = ""


def _replace_fields(text: str, fields: List[_Field], values: dict) -> str:
    out = []
    cursor = 0
    for f in sorted(fields, key=lambda f: f.start):
        out.append(text[cursor : f.start])
        out.append(values[id(f)])
        cursor = f.end
    out.append(text[cursor:])
    return "".join(out)


# A holiday names a day of the year ("since New Year's Day", "over christmas"). A
# floating one (Memorial Day: the last Monday of May) is taken at a usual date of it: the
# shift is random anyway, and what is written back is a date about as far from it.
# (month, day), keyed by the words without possessives ("new year day", "mother day").
_HOLIDAYS = {
    "new year": (1, 1), "new year day": (1, 1), "new year eve": (12, 31), "christmas": (12, 25),
    "christmas day": (12, 25), "christmas eve": (12, 24), "xmas": (12, 25), "xmas eve": (12, 24), "thanksgiving": (11, 25),
    "thanksgiving day": (11, 25), "easter": (4, 5), "easter sunday": (4, 5), "halloween": (10, 31),
    "hanukkah": (12, 15), "labor day": (9, 4), "memorial day": (5, 28), "independence day": (7, 4),
    "fourth of july": (7, 4), "veterans day": (11, 11), "veteran day": (11, 11), "columbus day": (10, 10),
    "presidents day": (2, 18), "president day": (2, 18), "mother day": (5, 12), "mothers day": (5, 12),
    "father day": (6, 16), "fathers day": (6, 16), "valentine day": (2, 14), "valentines day": (2, 14),
}
_POSSESSIVE_RE = re.compile(r"\s*['’]s\b|['’]")


def _shift_holiday(text: str, days: int) -> Optional[DateShift]:
    """A holiday's name shifted as its day of the year ("New Year's Day" -> "January 14",
    in the holiday's case), or None when ``text`` names none."""
    core = text.rstrip(".")  # a sentence's period the tokenizer left on ("NEW YEAR'S.") stays
    tail = text[len(core):]
    key = " ".join(_POSSESSIVE_RE.sub(" ", core.lower()).split()).replace("new years", "new year")
    if key not in _HOLIDAYS:
        return None
    month, day = _HOLIDAYS[key]
    new = dt.date(_YEARLESS, month, day) + dt.timedelta(days=days)
    words = [w for w in text.split() if w[:1].isalpha()]
    sample = text if text.isupper() or text.islower() else (words[0] if words else text)
    return DateShift("shift", f"{_month_name(new.month - 1, sample, False)} {new.day}{tail}", date=new, precision="day", yearless=True)


_LONE_DAY_RE = re.compile(r"^(\d{1,2})(st|nd|rd|th)$", re.IGNORECASE)


def _shift_lone_day(text: str, days: int) -> Optional[DateShift]:
    """A day of the month written alone ("on the 15th"): the month is not known,
    so the day moves by the shift within a 28-day month ("15th" +13 -> "28th"),
    in the original's case; None for any other text."""
    m = _LONE_DAY_RE.match(text.strip())
    if m is None or not 1 <= int(m.group(1)) <= 31:
        return None
    day = (int(m.group(1)) - 1 + days) % 28 + 1
    return DateShift("shift", f"{day}{_case_like(_ordinal(day), m.group(2))}", precision="day", yearless=True)


# a range of two numeric dates ("6/15-6/30", "3/4 - 3/9/19")
_NUMERIC_RANGE_RE = re.compile(r"^(\d{1,2}/\d{1,2}(?:/\d{2,4})?)(\s*[-–]\s*)(\d{1,2}/\d{1,2}(?:/\d{2,4})?)$")


def shift_date(text: str, days: int) -> DateShift:
    """Shift the date written in ``text`` by ``days`` days, in its own format.

    text (str): the text of one date span (``"3/14/2019"``, ``"March 3rd"``...).
    days (int): the shift in days (negative: earlier).
    RETURNS (DateShift): what to do with the span (see :class:`DateShift`).
    """
    named_day = _shift_holiday(text, days) or _shift_lone_day(text, days)
    if named_day is not None:
        return named_day
    span = _NUMERIC_RANGE_RE.match(text)
    if span is not None:  # "6/15-6/30": each end moves by the shift
        first, second = shift_date(span.group(1), days), shift_date(span.group(3), days)
        if first.action == second.action == "shift":
            return DateShift("shift", f"{first.text}{span.group(2)}{second.text}", date=first.date,
                             precision=first.precision, yearless=first.yearless)
        return DateShift("unknown")
    months = list(_MONTH_RE.finditer(text))
    weekdays = list(_WEEKDAY_RE.finditer(text))
    numbers = list(_NUM_RE.finditer(text))
    if len(months) > 1 or len(weekdays) > 1:
        return DateShift("unknown")
    if not months:
        if not numbers and weekdays:
            return _shift_weekday_only(text, weekdays[0], days)
        if not numbers:
            # durations, relative days and clock times are not dates of the patient
            keep = _RELATIVE_RE.search(text) or _TIME_RE.search(text) or not text.strip()
            return DateShift("keep" if keep else "unknown")
        stripped = _TIME_RE.sub("", _WEEKDAY_RE.sub("", text)).strip(" ,.@")
        stripped = re.sub(r"\s+(at|@)\s*$", "", stripped)
        if _YEAR_ONLY_RE.match(text) and _is_year_text(text):
            apostrophe = _APOSTROPHE_YEAR_RE.match(text)
            if apostrophe is None:
                return DateShift("keep")  # "2019": a year alone is no identifier (Safe Harbor)
            # "MI in '99": notes write a patient's own history this way, and de-identification
            # gold marks it; moved by the shift in whole years, at least one
            years = round(days / 365.25) or (1 if days > 0 else -1)
            new = (int(apostrophe.group(2)) + years) % 100
            return DateShift("shift", f"{apostrophe.group(1)}{new:02d}", precision="year", yearless=False)
        match = _NUMERIC_SEP_RE.match(stripped)
        if match is None:
            if _RELATIVE_RE.search(text):
                return DateShift("keep")
            return DateShift("unknown")
        return _shift_numeric(text, numbers, weekdays, days)
    return _shift_named(text, months[0], numbers, weekdays, days)


def _is_year_text(text: str) -> bool:
    digits = re.sub(r"\D", "", text)
    return len(digits) == 4 and 1800 <= int(digits) <= 2199 or len(digits) == 2 and ("'" in text or "’" in text)


def _shift_weekday_only(text: str, match: "re.Match", days: int) -> DateShift:
    idx = (_weekday_index(match.group(0)) + days) % 7
    new = _weekday_name(idx, match.group(0))
    return DateShift("shift", text[: match.start()] + new + text[match.end() :], precision="weekday", yearless=True)


def _weekday_field(weekdays) -> List[_Field]:
    return [_Field(w.start(), w.end(), "weekday", w.group(0)) for w in weekdays]


def _finish(text: str, fields: List[_Field], new: dt.date, yearless: bool, days: int, precision: str) -> DateShift:
    values = {}
    # zero padding: a field written "07", or an ISO date (year first), pads every field
    year_first = fields and fields[0].kind == "year" and any(f.kind == "month_num" for f in fields)
    padded = year_first or any(f.kind in ("day", "month_num") and f.text.startswith("0") for f in fields)
    for f in fields:
        if f.kind == "day":
            suffix = _case_like(_ordinal(new.day), f.suffix) if f.suffix else ""
            values[id(f)] = _number_like(new.day, "00" if padded else f.text) + suffix
        elif f.kind == "month_num":
            values[id(f)] = _number_like(new.month, "00" if padded else f.text)
        elif f.kind == "month_name":
            values[id(f)] = _month_name(new.month - 1, f.text, _is_abbreviated(text, f))
        elif f.kind == "year":
            values[id(f)] = ("'" if f.suffix == "'" else "") + _year_like(new.year, f.text)
        elif f.kind == "weekday":
            if yearless:
                idx = (_weekday_index(f.text) + days) % 7
            else:
                idx = new.weekday()
            values[id(f)] = _weekday_name(idx, f.text)
    return DateShift("shift", _replace_fields(text, fields, values), date=new, precision=precision, yearless=yearless)


def _shift_numeric(text: str, numbers, weekdays, days: int) -> DateShift:
    vals = [m.group(2) for m in numbers]
    if any(m.group(1) or m.group(3) for m in numbers):
        return DateShift("unknown")
    fields = [_Field(m.start(2), m.end(2), "", m.group(2)) for m in numbers]
    if len(vals) == 3:
        a, b, c = vals
        if len(a) == 4:  # 2018-02-13, 2018/2/13
            kinds = ("year", "month_num", "day")
        elif len(c) in (2, 4) and len(a) <= 2 and len(b) <= 2:
            # US order month/day/year; day/month/year only when the first field cannot be a month
            kinds = ("day", "month_num", "year") if int(a) > 12 and int(b) <= 12 else ("month_num", "day", "year")
        else:
            return DateShift("unknown")
    elif len(vals) == 2:
        a, b = vals
        if len(b) == 4 and len(a) <= 2:  # 03/2019
            kinds = ("month_num", "year")
        elif len(a) == 4 and len(b) <= 2:  # 2019-03
            kinds = ("year", "month_num")
        elif len(a) <= 2 and len(b) <= 2:  # 7/22
            kinds = ("month_num", "day")
        else:
            return DateShift("unknown")
    else:
        return DateShift("unknown")
    for f, kind in zip(fields, kinds):
        f.kind = kind
    by_kind = {f.kind: int(f.text) for f in fields}
    four_digits = any(len(f.text) == 4 for f in fields)
    if not four_digits and (not 1 <= by_kind["month_num"] <= 12 or not 1 <= by_kind.get("day", 1) <= 31):
        # no reading makes it a date and no field is a year: a measurement such as
        # "31/14/21 mmHg" or "42/40/40 pounds" that a date pattern caught
        return DateShift("keep")
    return _shift_fields(text, fields + _weekday_field(weekdays), days)


def _shift_named(text: str, month: "re.Match", numbers, weekdays, days: int) -> DateShift:
    fields = [_Field(month.start(), month.end(), "month_name", month.group(0))]
    rest = []
    for m in numbers:
        apostrophe, digits, suffix = m.group(1), m.group(2), m.group(3) or ""
        if apostrophe or len(digits) == 4:
            if suffix:
                return DateShift("unknown")
            fields.append(_Field(m.start(), m.end(2), "year", digits, suffix=apostrophe))
        else:
            rest.append((m, digits, suffix))
    years = [f for f in fields if f.kind == "year"]
    if len(years) > 1:
        return DateShift("unknown")
    if rest:
        m, digits, suffix = rest[0]
        if int(digits) == 0 or int(digits) > 31 or len(digits) > 2:
            return DateShift("unknown")
        fields.append(_Field(m.start(2), m.end(3) if suffix else m.end(2), "day", digits, suffix=suffix))
        if len(rest) == 2 and not years:
            m2, d2, s2 = rest[1]
            if s2:
                return DateShift("unknown")
            fields.append(_Field(m2.start(2), m2.end(2), "year", d2))
        elif len(rest) > 1:
            return DateShift("unknown")
    return _shift_fields(text, fields + _weekday_field(weekdays), days)


def _shift_fields(text: str, fields: List[_Field], days: int) -> DateShift:
    by_kind = {f.kind: f for f in fields}
    year_f = by_kind.get("year")
    day_f = by_kind.get("day")
    month_f = by_kind.get("month_num") or by_kind.get("month_name")
    if month_f is None:
        return DateShift("unknown")
    month = int(month_f.text) if month_f.kind == "month_num" else _month_index(month_f.text) + 1
    if not 1 <= month <= 12:
        return DateShift("unknown")
    yearless = year_f is None
    year = _YEARLESS if yearless else _full_year(year_f.text)
    if day_f is None:
        # month precision ("March 2018", "in march", "03/2019"): shift the middle of the month
        fields = [f for f in fields if f.kind != "weekday"]
        start = _safe_date(year, month, 15)
        if start is None:
            return DateShift("unknown")
        new = start + dt.timedelta(days=days)
        if new.month == start.month and (yearless or new.year == start.year):
            # a shift of a few days (or of about a year, for "in march") would write the original
            # month back ("March 1977"): move to the next (or previous) month, the same for every
            # such date of the patient
            step = 1 if days > 0 else -1
            y, m = divmod(start.year * 12 + start.month - 1 + step, 12)
            new = dt.date(y, m + 1, 15)
        return _finish(text, fields, new, yearless, days, "month")
    original = _safe_date(year, month, int(day_f.text))
    if original is None:
        return DateShift("unknown")
    new = original + dt.timedelta(days=days)
    return _finish(text, fields, new, yearless, days, "day")


def parse_date(text: str) -> Optional[Tuple[dt.date, bool]]:
    """The calendar date written in ``text`` and whether it was written without a
    year (computed in a leap year); None unless the text is a day-precision date."""
    result = shift_date(text, 0)
    if result.action != "shift" or result.precision != "day":
        return None
    return result.date, result.yearless


class DateShifter:
    """One keyed shift per patient (or per document without a patient id).

    A shift is never 0, never a whole number of weeks and never a whole year (365 or
    366 days), where the range has other values: a shift of 7k days would leave every
    weekday of the notes ("seen on Tuesday") as written, one of a year every month and
    day ("DOB 12/14/1994" -> "12/14/1995", "seen on 3/28" unchanged).

    keyer (Keyer): the salted hash.
    min_days (int): smallest shift (may be negative).
    max_days (int): largest shift; 0 is never chosen.
    """

    def __init__(self, keyer, min_days: int = -365, max_days: int = 365) -> None:
        if min_days > max_days:
            raise ValueError(f"date shift range [{min_days}, {max_days}] is empty")
        if min_days == max_days == 0:
            raise ValueError("date shift range [0, 0] would not shift any date")
        self.keyer = keyer
        self.min_days = min_days
        self.max_days = max_days
        values = [d for d in range(min_days, max_days + 1) if d != 0]
        self._values = [d for d in values if d % 7 and abs(d) not in (365, 366)] or values

    def days_for(self, scope: str) -> int:
        """The shift of ``scope`` (``patient:ID`` or ``doc:ID``), never 0."""
        return self._values[self.keyer.below(len(self._values), "date-shift", scope)]

    def shift(self, text: str, scope: str) -> DateShift:
        """Shift a date text by the shift of ``scope``."""
        return shift_date(text, self.days_for(scope))
