"""Property tests of the surrogates: dates keep their format and intervals and are
always valid, names keep their shape and never equal the original, identifiers
keep format and length, and everything is consistent under the same key."""
import datetime as dt
import re

import pytest

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from spacy_deid.surrogates.dates import MONTHS, DateShifter, parse_date, shift_date
from spacy_deid.surrogates.keys import Keyer
from spacy_deid.surrogates.names import NameSurrogates, name_lists
from spacy_deid.surrogates.numbers import age_surrogate, phone_like, same_shape, zip_surrogate
from spacy_deid.surrogates.places import PlaceSurrogates

KEYER = Keyer(b"property-test-salt")
DATES = st.dates(min_value=dt.date(1930, 1, 1), max_value=dt.date(2060, 12, 31))
SHIFTS = st.integers(min_value=-400, max_value=400)


def _fmt_mdy(d, pad, sep, year4):
    m, day = (f"{d.month:02d}", f"{d.day:02d}") if pad else (str(d.month), str(d.day))
    y = str(d.year) if year4 else f"{d.year % 100:02d}"
    return f"{m}{sep}{day}{sep}{y}"


def _ordinal(n):
    return "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


FORMATS = {
    # name: (writer, regex that the shifted text must match)
    "iso": (lambda d: d.isoformat(), r"\d{4}-\d{2}-\d{2}"),
    "mdy_slash": (lambda d: _fmt_mdy(d, False, "/", True), r"\d{1,2}/\d{1,2}/\d{4}"),
    "mdy_pad": (lambda d: _fmt_mdy(d, True, "/", True), r"\d{2}/\d{2}/\d{4}"),
    "mdy_dash_yy": (lambda d: _fmt_mdy(d, False, "-", False), r"\d{1,2}-\d{1,2}-\d{2}"),
    "d_mon_y": (lambda d: f"{d.day}-{d:%b}-{d.year}", r"\d{1,2}-[A-Z][a-z]{2}-\d{4}"),
    "month_day_year": (lambda d: f"{d:%B} {d.day}, {d.year}", r"[A-Z][a-z]+ \d{1,2}, \d{4}"),
    "upper_ordinal": (lambda d: f"{d:%B}".upper() + f" {d.day}{_ordinal(d.day).upper()}, {d.year}", r"[A-Z]+ \d{1,2}(ST|ND|RD|TH), \d{4}"),
    "weekday_full": (lambda d: f"{d:%A}, {d:%B} {d.day}, {d.year}", r"[A-Z][a-z]+day, [A-Z][a-z]+ \d{1,2}, \d{4}"),
}


@settings(max_examples=300, deadline=None)
@given(DATES, SHIFTS, st.sampled_from(sorted(FORMATS)))
def test_date_shift_keeps_format_and_is_valid(date, days, fmt):
    assume(days != 0)
    writer, pattern = FORMATS[fmt]
    text = writer(date)
    if fmt == "mdy_pad" and not re.search(r"(^|\D)0\d", text):
        pattern = r"\d{1,2}/\d{1,2}/\d{4}"  # "10/12/2019" does not show whether it pads
    result = shift_date(text, days)
    assert result.action == "shift", text
    assert re.fullmatch(pattern, result.text), (text, result.text)
    parsed = parse_date(result.text)
    assert parsed is not None, result.text  # a valid calendar date
    expected = date + dt.timedelta(days=days)
    if fmt == "mdy_dash_yy":
        assert parsed[0].replace(year=expected.year) == expected or parsed[0] == expected
    else:
        assert parsed[0] == expected
    if fmt == "weekday_full":
        assert result.text.split(",")[0] == f"{expected:%A}"  # weekday recomputed


@settings(max_examples=200, deadline=None)
@given(st.dates(min_value=dt.date(2000, 1, 1), max_value=dt.date(2000, 12, 31)), SHIFTS,
       st.sampled_from(["{m}/{d}", "{mon} {d}{suf}", "in {mon_l}"]))
def test_yearless_dates_round_trip_in_their_format(date, days, template):
    text = template.format(m=date.month, d=date.day, mon=f"{date:%B}", suf=_ordinal(date.day), mon_l=f"{date:%B}".lower())
    result = shift_date(text, days)
    assert result.action == "shift"
    if template == "in {mon_l}":
        assert re.fullmatch(r"in [a-z]+", result.text) and result.text[3:] in MONTHS
        return
    parsed = parse_date(result.text)
    assert parsed is not None and parsed[1]  # still yearless
    assert (parsed[0].month, parsed[0].day) == ((date + dt.timedelta(days=days)).month, (date + dt.timedelta(days=days)).day)


@settings(max_examples=100, deadline=None)
@given(st.lists(DATES, min_size=2, max_size=6), st.text(min_size=1, max_size=12))
def test_one_shift_per_patient_keeps_every_interval(dates, patient):
    shifter = DateShifter(KEYER, -365, 365)
    shifted = [parse_date(shifter.shift(d.isoformat(), f"patient:{patient}").text)[0] for d in dates]
    for (a, b), (sa, sb) in zip(zip(dates, dates[1:]), zip(shifted, shifted[1:])):
        assert (b - a).days == (sb - sa).days
    assert shifter.days_for(f"patient:{patient}") != 0


def test_a_shift_is_never_whole_weeks():
    """A shift of 7k days would leave every weekday as written ("seen on Tuesday")."""
    shifter = DateShifter(KEYER, -365, 365)
    days = {shifter.days_for(f"patient:{i}") for i in range(2000)}
    assert all(d % 7 for d in days) and len(days) > 300
    assert min(days) < -300 and max(days) > 300
    assert {DateShifter(KEYER, 7, 7).days_for(f"patient:{i}") for i in range(5)} == {7}  # no other value


def test_a_shift_is_never_a_whole_year():
    """A shift of 365 or 366 days would keep a birthday's month and day ("DOB 12/14/1994" ->
    "12/14/1995") and leave every date without a year as written ("seen on 3/28")."""
    shifter = DateShifter(KEYER, -366, 366)
    days = {shifter.days_for(f"patient:{i}") for i in range(5000)}
    assert not days & {365, 366, -365, -366} and len(days) > 500
    yearless = shift_date("3/28", next(d for d in days if abs(d) > 300)).text
    assert yearless != "3/28"


@given(st.sampled_from(["2021", "1990s", "3 days", "2 weeks ago", "today", "10:30", "31/14/21", "42/40/40"]))
def test_years_and_durations_are_kept(text):
    assert shift_date(text, 30).action == "keep"


@given(st.sampled_from(["02/30/2018", "Feb 30, 2019", "00/12/2019", "08/23/207", "11/31"]))
def test_invalid_dates_are_never_written_back(text):
    assert shift_date(text, 30).action == "unknown"


@pytest.mark.parametrize(
    "text,days,expected",
    [
        ("New Year's Day", 13, "January 14"),
        ("MEMORIAL DAY", 13, "JUNE 10"),
        ("christmas", 13, "january 7"),
        # a sentence's period stays; "new years" is "new year's"
        ("NEW YEAR'S.", 3, "JANUARY 4."),
        # each end of a range of days
        ("6/15-6/30", 3, "6/18-7/3"),
        ("new years eve", 1, "january 1"),
        ("xmas eve", 1, "december 25"),
        ("Mother’s Day", -2, "May 10"),
    ],
)
def test_a_holiday_is_shifted_as_its_day_of_the_year(text, days, expected):
    shifted = shift_date(text, days)
    assert (shifted.action, shifted.text, shifted.yearless) == ("shift", expected, True)


@pytest.mark.parametrize("text,days,expected", [("15th", 13, "28th"), ("1ST", 13, "14TH"), ("31st", 13, "16th"), ("2nd", -3, "27th")])
def test_a_lone_day_of_the_month_moves_within_a_28_day_month(text, days, expected):
    shifted = shift_date(text, days)
    assert (shifted.action, shifted.text) == ("shift", expected)


@pytest.mark.parametrize("text,days,expected", [("'99", 13, "'00"), ("'99", -13, "'98"), ("’05", 400, "’06"), ("'05", -800, "'03")])
def test_a_year_with_an_apostrophe_moves_by_whole_years(text, days, expected):
    shifted = shift_date(text, days)
    assert (shifted.action, shifted.text) == ("shift", expected)


FIRST = st.sampled_from(sorted(name_lists()[0][:200] + name_lists()[1][:200]))
LAST = st.sampled_from(sorted(name_lists()[2][:300]))


@settings(max_examples=200, deadline=None)
@given(FIRST, LAST, st.sampled_from(["{f} {l}", "{l}, {f}", "{F} {L}", "{fl} {ll}", "{i}. {l}", "Dr. {f} {l}"]), st.text(min_size=1, max_size=8))
def test_names_keep_shape_and_never_equal_the_original(first, last, template, scope):
    names = NameSurrogates(KEYER)
    text = template.format(f=first, l=last, F=first.upper(), L=last.upper(), fl=first.lower(), ll=last.lower(), i=first[0])
    new = names.replace(text, scope)
    assert new.lower() != text.lower()
    old_parts, new_parts = re.findall(r"[A-Za-z']+\.?|,", text), re.findall(r"[A-Za-z']+\.?|,", new)
    assert len(old_parts) == len(new_parts)
    for o, n in zip(old_parts, new_parts):
        if o in (",", "Dr."):
            assert n == o
            continue
        assert o.isupper() == n.isupper() and o.islower() == n.islower()
        assert (len(o.rstrip(".")) == 1) == (len(n.rstrip(".")) == 1)  # initials stay initials
        if len(o.rstrip(".")) > 1:
            assert o.lower() != n.lower()
    assert names.replace(text, scope) == new  # consistent under the same key and scope


@pytest.mark.parametrize(
    "text,words",
    [
        ("Paul van der Voet", 2),
        ("PAUL VAN DER VOET", 2),
        ("de la Cruz, Maria", 2),
        ("Dr. Maria de Souza", 3),
        # a capitalised first word is a first name, not a particle
        ("Van Morrison", 2),
    ],
)
def test_the_particles_of_a_surname_go_with_it(text, words):
    new = NameSurrogates(KEYER).replace(text, "p1")
    assert len(new.split()) == words, new
    assert not {w.lower() for w in new.replace(",", "").split()} & {"van", "der", "de", "la"} or text == "Van Morrison"
    if "," in text:
        assert new.count(",") == 1 and not new[0].islower()


def test_a_name_surrogate_never_sounds_like_the_name():
    from spacy_deid.surrogates.names import _sounds_like

    assert _sounds_like("Kathy", "Cathy") and _sounds_like("Jon", "John") and _sounds_like("Smith", "Smyth")
    assert not _sounds_like("John", "Mary") and not _sounds_like("Lee", "Li")
    names = NameSurrogates(KEYER)
    for name in ("Kathy", "Cathy", "Jon", "Ann", "Smith", "Lee", "Ed", "Mary"):
        for scope in ("p1", "p2", "p3", "p4"):
            assert not _sounds_like(names.replace(name, scope), name)


@pytest.mark.parametrize("text", ["JLW", "mk", "RP", "sv"])
def test_initials_stay_initials(text):
    """A dictation line's or a sign-off's initials get other initials of their length and case."""
    new = NameSurrogates(KEYER).replace(text, "p1")
    assert len(new) == len(text) and new != text and (new.isupper() if text.isupper() else new.islower())
    assert all(a != b for a, b in zip(new.lower(), text.lower()))


def test_name_gender_follows_the_first_name():
    female, male, _ = name_lists()
    names = NameSurrogates(KEYER)
    only_f = [n for n in female if n.lower() not in {m.lower() for m in male}][:30]
    only_m = [n for n in male if n.lower() not in {f.lower() for f in female}][:30]
    assert all(names.replace(n, "s") in female for n in only_f)
    assert all(names.replace(n, "s") in male for n in only_m)


@settings(max_examples=200, deadline=None)
@given(st.from_regex(r"[A-Z]{0,3}[0-9]{4,10}(-[A-Z0-9]{1,4})?", fullmatch=True), st.text(max_size=5))
def test_identifiers_keep_format_and_length(ident, scope):
    new = same_shape(ident, KEYER, scope)
    assert new != ident and len(new) == len(ident)
    for o, n in zip(ident, new):
        assert o.isdigit() == n.isdigit() and o.isupper() == n.isupper() and (o.isalnum() or o == n)
    assert same_shape(ident, KEYER, scope) == new


@settings(max_examples=100, deadline=None)
@given(st.from_regex(r"\([0-9]{3}\) [0-9]{3}-[0-9]{4}|[0-9]{3}-[0-9]{3}-[0-9]{4}|[0-9]{3}\.[0-9]{3}\.[0-9]{4}", fullmatch=True))
def test_phones_keep_format_and_a_plausible_shape(phone):
    new = phone_like(phone, KEYER, "corpus")
    assert re.sub(r"\d", "0", new) == re.sub(r"\d", "0", phone) and new != phone
    digits = re.sub(r"\D", "", new)
    assert digits[0] not in "01" and digits[3] not in "01"


@pytest.mark.parametrize("phone", ["555-201-3344 x45", "555-201-3344 EXT 45", "pager 4471"])
def test_phone_letters_are_kept(phone):
    new = phone_like(phone, KEYER, "corpus")
    assert re.sub(r"\d", "0", new) == re.sub(r"\d", "0", phone) and new != phone


@pytest.mark.parametrize("phone", ["six one seven five five five one two three four", "FIVE FIVE FIVE OH ONE FOUR TWO"])
def test_a_number_read_out_gets_other_digit_words(phone):
    new = phone_like(phone, KEYER, "corpus")
    assert new != phone and len(new.split()) == len(phone.split()) and new.isupper() == phone.isupper()
    assert all(w.lower() in "zero one two three four five six seven eight nine".split() for w in new.split())
    assert phone_like(phone, KEYER, "corpus") == new


def test_ages_and_zips_follow_safe_harbor():
    assert age_surrogate("89") is None and age_surrogate("90") == "90+" and age_surrogate("104") == "90+"
    assert age_surrogate("90s") == "90+" and age_surrogate("90's") == "90+"  # a decade of life, not "90+s"
    assert zip_surrogate("02139") == "02100" and zip_surrogate("03601-1234") == "00000-0000"
    # other countries' shorter postal codes: no digit kept ("6280" would have stayed "6280")
    assert zip_surrogate("6280") == "0000" and zip_surrogate("880") == "000" and zip_surrogate("53-320") == "00-000"


def test_places_keep_their_kind_and_states_are_not_phi():
    places = PlaceSurrogates(KEYER)
    assert places.location("Massachusetts", "corpus", "GPE") is None
    hospital = places.organization("Mercy General Hospital", "corpus", "HOSPITAL")
    assert hospital.endswith("Hospital") and hospital != "Mercy General Hospital"
    assert places.organization("St. Luke's Medical Center", "corpus").endswith("Medical Center")
    street = places.location("12 Main Street", "corpus", "STREET")
    assert re.match(r"\d+ ", street) and street != "12 Main Street"
    assert places.location("Boston", "corpus", "CITY") == places.location("Boston", "corpus", "CITY") != "Boston"


def test_wards_read_as_wards():
    """A NER ward of a building, a floor and a side keeps its shape and its side."""
    places = PlaceSurrogates(KEYER)
    new = places.location("WOXLEY 10 NORTH", "corpus", "WARD")
    assert re.fullmatch(r"[A-Z'\-]+ \d{2} NORTH", new) and not new.startswith("WOXLEY"), new
    assert re.fullmatch(r"[a-z'\-]+ \d", places.location("ellison 8", "corpus", "WARD"))
    assert places.location("WOXLEY 10 NORTH", "corpus", "WARD") == new  # one surrogate per ward
    assert places.kind_of_location("ellison 8", "CITY") == "city"  # only a ward label makes a ward


def test_a_state_label_keeps_states_only():
    """A detector's STATE label keeps a state or a state code in any case, not a town it mislabels."""
    places = PlaceSurrogates(KEYER)
    assert places.location("ma", "corpus", "STATE") is None
    assert places.location("Texas", "corpus", "STATE") is None
    assert places.location("Houston", "corpus", "STATE") not in (None, "Houston")
    assert places.location("Mayo", "corpus", "COUNTRY") not in (None, "Mayo")


def test_addresses_are_replaced_part_by_part():
    places = PlaceSurrogates(KEYER)
    new = places.location("123 Main St, Boston, MA 02139", "corpus")
    street, city, state_zip = new.split(", ")
    assert re.match(r"\d+ ", street) and city != "Boston" and state_zip == "MA 02100"
    assert places.location("Boston, MA", "corpus").endswith(", MA")
    assert places.location("Texas, USA", "corpus") is None  # nothing below a state


def test_facilities_keep_their_descriptors_and_units_their_designator():
    places = PlaceSurrogates(KEYER)
    new = places.organization("Gallagher Community Hospital", "corpus")
    assert new.endswith(" Community Hospital") and not new.startswith("Gallagher")
    assert places.organization("Kellyburgh Dialysis Center", "corpus").endswith(" Dialysis Center")
    # organisations of other kinds keep their kind word, whatever the label
    new = places.organization("bangor savings bank", "corpus", "HOSPITAL")
    assert new.endswith(" bank") and "bangor" not in new
    unit = places.location("Apt. 681", "corpus")
    assert re.fullmatch(r"Apt\. \d{3}", unit) and unit != "Apt. 681"


def test_state_codes_are_kept_only_in_upper_case():
    from spacy_deid.surrogates.places import is_not_phi_place

    assert is_not_phi_place("GA") and is_not_phi_place("Georgia") and is_not_phi_place("Brazil")
    assert not is_not_phi_place("ga") and not is_not_phi_place("Boston")


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["March 1977", "in march", "03/2019", "Dec 2020", "january of 2022", "12/2019"]),
    st.integers(min_value=-365, max_value=365).filter(lambda d: d != 0),
)
def test_a_month_precision_date_never_keeps_its_month(text, days):
    from spacy_deid.surrogates.dates import shift_date

    result = shift_date(text, days)
    assert result.action == "shift" and result.text != text, (text, days, result.text)
