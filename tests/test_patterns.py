"""The shipped structured-PHI patterns and their ents filter (cue words trimmed)."""
import json

import pytest
import spacy

import spacy_deid  # noqa: F401
from spacy_deid.detect.patterns import PHI_PATTERNS, write_patterns


@pytest.fixture(scope="module")
def nlp():
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe(
        "span_ruler",
        name="phi_ruler",
        config={"spans_key": None, "annotate_ents": True, "ents_filter": {"@misc": "spacy_deid.phi_ents_filter.v1"}},
    )
    ruler.add_patterns(PHI_PATTERNS)
    return nlp


def ents(nlp, text):
    return [(e.text, e.label_) for e in nlp(text).ents]


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Seen on 03/14/2019, call 555-123-4567.", [("03/14/2019", "DATE"), ("555-123-4567", "PHONE")]),
        ("no id here, seen 2019-03-14", [("2019-03-14", "DATE")]),
        ("Tel (950) 478-1919 | Fax: (923) 426-6095", [("(950) 478-1919", "PHONE"), ("(923) 426-6095", "FAX")]),
        ("faxed to 228.328.3088 today", [("228.328.3088", "FAX")]),
        ("MR #: 1860694 and MRN 183946530", [("1860694", "MRN"), ("183946530", "MRN")]),
        ("Medical Record Number: 0001860694", [("0001860694", "MRN")]),
        ("Order ID: 9288-84246", [("9288-84246", "IDNUM")]),
        ("Medicaid #W044107445", [("W044107445", "IDNUM")]),
        ("Jacquelinemouth, NH 03592-1234", [("03592-1234", "ZIP")]),
        ("Springfield, Illinois 62704", [("62704", "ZIP")]),
        ("Albany, New York 12207-1234", [("12207-1234", "ZIP")]),
        ("port sherryside, ri 02888 tel", [("02888", "ZIP")]),
        ("albany, new york 12207", [("12207", "ZIP")]),
        ("heparin given in 10000 units", []),
        ("a 42 y/o woman, age 45, a 96-year-old", [("96", "AGE")]),
        ("serial number 24-85466-P41 noted", [("24-85466-P41", "DEVICE")]),
        ("diagnosed in 2011 (2013) and 2/2013", [("2/2013", "DATE")]),
        ("email jane.doe@med.org or https://mychart.example.org", [("jane.doe@med.org", "EMAIL"), ("https://mychart.example.org", "URL")]),
        ("see http://kvhospital.org/patients today", [("http://kvhospital.org/patients", "URL")]),
        ("portal www.kv-hosp.org/nephrology/clinic?id=5.", [("www.kv-hosp.org/nephrology/clinic?id=5", "URL")]),
        ("SSN 123-45-6789", [("123-45-6789", "SSN")]),
    ],
)
def test_structured_phi(nlp, text, expected):
    assert ents(nlp, text) == expected


def test_no_false_positives_on_scores_and_vitals(nlp):
    assert ents(nlp, "Pain 6/10, BP 147/67, shift (0700-1900), 3 tablets, score 98/52") == []


def test_a_shift_before_a_date_is_no_phone_number(nlp):
    # the loose phone pattern took "0700-1900 12-31-18" as one international number
    assert ents(nlp, "NURSING NOTE 0700-1900 12-31-18") == [("12-31-18", "DATE")]
    assert ents(nlp, "call 0161 496 0754 today") == [("0161 496 0754", "PHONE")]


def variants(text):
    return [(text, str), (text.upper(), str.upper), (text.lower(), str.lower)]


@pytest.mark.parametrize(
    "text,expected",
    [
        ("seen 3-24-17 for f/u", [("3-24-17", "DATE")]),
        ("seen on 3-24 by md, admitted 12-28, started tues 2-14", [("3-24", "DATE"), ("12-28", "DATE"), ("2-14", "DATE")]),
        ("echo 04.05.2019, again 4.5.19 and 2019.03.14; mri 03-2019", [("04.05.2019", "DATE"), ("4.5.19", "DATE"), ("2019.03.14", "DATE"), ("03-2019", "DATE")]),
        ("extubated on 10/12, reintubated Mon 10/14", [("10/12", "DATE"), ("10/14", "DATE")]),
        ("Line placed 10/12 at 1400", [("10/12 at 1400", "DATE")]),
        ("Last BM 10/12, CXR 10/14 clear, intubated 3/2", [("10/12", "DATE"), ("10/14", "DATE"), ("3/2", "DATE")]),
        ("h/o etoh, last drink 12/24 per wife; hd 3/14, appt 4/22", [("12/24", "DATE"), ("3/14", "DATE"), ("4/22", "DATE")]),
        ("fam mtg 10/15 @ 2pm, to micu 3/14 for resp distress", [("10/15", "DATE"), ("3/14", "DATE")]),
        ("family meeting held 10/3 with team, tee scheduled 12/9", [("10/3", "DATE"), ("12/9", "DATE")]),
        ("plan for tee tomorrow 12/9; fell on 2/2", [("12/9", "DATE"), ("2/2", "DATE")]),
        ("s/p skateboard accident 5/1, 51a filed 6/8, o2 delivered 10/3; injury 3/4 thickness",
         [("5/1", "DATE"), ("6/8", "DATE"), ("10/3", "DATE")]),
        # a return visit, a birthday, a specimen sent, the last bm whatever its day; not a count
        ("rtc 6/3. birthday 12/3, anti-gbm sent 12/1, last bm 10/10; cx sent 2/4 bottles", [("6/3", "DATE"), ("12/3", "DATE"), ("12/1", "DATE"), ("10/10", "DATE")]),
        ("HOME ON CHRISTMAS EVE. OVER NEW YEAR'S, on new years eve", [("CHRISTMAS EVE", "DATE"), ("NEW YEAR'S", "DATE"), ("new years eve", "DATE")]),
        ("pt traveling 6/15-6/30, then 1-1/2 hours away", [("6/15-6/30", "DATE")]),
        ("pt admitted to ccu 9/7 s/p arrest; transferred from micu 3/2; sent to floor 1/10 pain", [("9/7", "DATE"), ("3/2", "DATE")]),
        # a month past its day needs no cue: no score or count is more than its whole
        ("pedestrian struck 12/6, dispo likely 11/4. bcx 11/3 pending", [("12/6", "DATE"), ("11/4", "DATE"), ("11/3", "DATE")]),
        # but a ventilator's or a pupil's setting, a ratio's word or a day that is not past
        ("on bipap 12/6, pupils 3/2 brisk, ps 10/5 peep 5, strength 4/3, given 6/10 here", []),
        ("a nit-occlude 6/5 flex coil; right atrial pressure was 10/7 mmHg", []),
        ("on pressure support 10/5, tolerating. weaned 12/5 -> 10/5. currently 10/5 and sats 98", []),
        ("biceps 3/2, patellar 2/1. stools 3/2. kids 3/2. 7/3: pt stable", []),
        # nor after a drug, a lab, a score or a body part
        ("insulin: nph 12/6, regular ss. wbc 12/6, pain 8/4 after dilaudid. radial 2/1, diminished. bp 9/6?", []),
        ("lisinopril/hctz 10/5. lantus 12/6. jp x2 12/8, serosang. phq-9/gad-7 12/6, improved", []),
        ("Telephone Note\nTuesday, March 12, 2024\nPatient called", [("Tuesday, March 12, 2024", "DATE")]),
        ("Admitted in March of 2022", [("March of 2022", "DATE")]),
        ("MI in March of '99", [("March of '99", "DATE")]),
        ("seen April 4 '23", [("April 4 '23", "DATE")]),
        ("Surgery in March.", [("March", "DATE")]),
        ("Scheduled for the 5th of March", [("5th of March", "DATE")]),
        ("Seen March third and again on the twenty-fourth of March", [("March third", "DATE"), ("twenty-fourth of March", "DATE")]),
        ("Fell on the third of May, seen March twenty first", [("third of May", "DATE"), ("March twenty first", "DATE")]),
        ("Visited on the 15th of January 2022?", [("15th of January 2022", "DATE")]),
        ("Seen on Oct. 13th, 2022 and on Apr. 2nd", [("Oct. 13th, 2022", "DATE"), ("Apr. 2nd", "DATE")]),
        ("Seen 1978-07-13 07:00:28", [("1978-07-13 07:00:28", "DATE")]),
        ("Call 555-123-4567 x45 or 345-899-3560x4587", [("555-123-4567 x45", "PHONE"), ("345-899-3560x4587", "PHONE")]),
        ("Pager 1234, beeper #5-1234", [("1234", "PAGER"), ("5-1234", "PAGER")]),
        ("Spoke w/ son Jim @ 555-1234", [("555-1234", "PHONE")]),
        ("Case mgmt: Julie x4-5678", [("x4-5678", "PHONE")]),
        # an extension alone after its cue; a joint's extension in degrees is none
        ("call wound nurse at EXT 455 re: supplies; knee flex 120 ext 0", [("455", "PHONE")]),
        ("Ids mrn#1234567 acct#7654321, born in 1924", [("mrn#1234567", "MRN"), ("acct#7654321", "IDNUM"), ("1924", "DATE")]),
        ("Call if any changes: 508 555 1234.", [("508 555 1234", "PHONE")]),
        ("Sister (617) 555 0199 at home", [("(617) 555 0199", "PHONE")]),
        ("Website:\nhttps://www.uearly.se/\n\nAddress:\nBrucker", [("https://www.uearly.se/", "URL")]),
        ("MRN: 765-4321, case #JH-998877, EM-123456", [("765-4321", "MRN"), ("JH-998877", "IDNUM"), ("EM-123456", "IDNUM")]),
        ("Patient ID: 98765", [("98765", "IDNUM")]),
        ("MRN: 12345-JS, MRN 87342GH, MRN: UCSF-20210930-567, policy number HP-1234-5678",
         [("12345-JS", "MRN"), ("87342GH", "MRN"), ("UCSF-20210930-567", "MRN"), ("HP-1234-5678", "IDNUM")]),
        ("Card 4111 1111 1111 1111", [("4111 1111 1111 1111", "IDNUM")]),
        ("A 93yo man, 91 y/o, age 95", [("93yo", "AGE"), ("91", "AGE"), ("95", "AGE")]),
        ("A ninety-four year old woman, one hundred and two years old", [("ninety-four", "AGE"), ("one hundred and two", "AGE")]),
        ("Pt is 101, daughter is 70; pt turned 95 last week, 100th birthday", [("101", "AGE"), ("95", "AGE"), ("100th birthday", "AGE")]),
        ("A woman in her 90s, a man in his mid 90's, hr 90's-100's", [("90s", "AGE"), ("90", "AGE")]),
        ("Lives at 90 Whitchurch Road, Suite 377", [("90 Whitchurch Road", "STREET"), ("Suite 377", "STREET")]),
        ("Zip 02114", [("02114", "ZIP")]),
        # postal codes of other countries after their cue
        ("ZIP : 394 13; my zip code is 880; postcode 53-320", [("394 13", "ZIP"), ("880", "ZIP"), ("53-320", "ZIP")]),
        ("Postal code B0J 2H0, post code SW1A 1AA", [("B0J 2H0", "ZIP"), ("SW1A 1AA", "ZIP")]),
        # digit groups of any national form after a phone cue, seven digits or more
        ("Phone: 0378 3549890; Mobile: (72) 754-186", [("0378 3549890", "PHONE"), ("(72) 754-186", "PHONE")]),
        ("Desk: 51 516 33 75; phone 617-555-0199 x45", [("51 516 33 75", "PHONE"), ("617-555-0199 x45", "PHONE")]),
        ("Went home 10 12 2019, phone 2 3", []),
        ("Author: cchavez71, user: cwhite, over Christmas, on Labor Day", [("cchavez71", "USERNAME"), ("cwhite", "USERNAME"), ("Christmas", "DATE"), ("Labor Day", "DATE")]),
        ("Lives at 9629 Richard Lake", [("9629 Richard Lake", "STREET")]),
        ("From 789 Maple St., New Orleans and 12 Elm Ave., Boston", [("789 Maple St.", "STREET"), ("12 Elm Ave.", "STREET")]),
        ("Office at 2200 Route 9, then 45 Rte. 1A and 1200 State Highway 101", [("2200 Route 9", "STREET"), ("45 Rte. 1A", "STREET"), ("1200 State Highway 101", "STREET")]),
        ("Lives at Friedhofstrasse 33, moved from Rue de la Paix 12", [("Friedhofstrasse 33", "STREET"), ("Rue de la Paix 12", "STREET")]),
        ("Sent to 52 Rua Joaquim, then 22 Avda. Alameda", [("52 Rua Joaquim", "STREET"), ("22 Avda. Alameda", "STREET")]),
        # a prefix with its period, more countries' prefixes, "via" before an article
        ("Sent to ul. Cicha 86, then Trg Revolucije 17, then Via dei Fiorentini 17",
         [("ul. Cicha 86", "STREET"), ("Trg Revolucije 17", "STREET"), ("Via dei Fiorentini 17", "STREET")]),
        ("Gave 40 via peg 60 ml/hr", []),
        # a value in the 60s is no house number before "dr" (a doctor)
        ("Map 60s. Cards fellow dr Bianchi aware", []),
        # a note's own date after its name
        ("Phone note 3/7: called back; NPN 10/28", [("3/7", "DATE"), ("10/28", "DATE")]),
        # the day after a shift, not the shift, not a score
        ("Addendum 7p-7a 4/5 - pt slept; progress note 0700 - 1900 10/28; 7a-7p 4/10 pain",
         [("4/5", "DATE"), ("10/28", "DATE")]),
        ("Tel 0688 872 49 99 or 60-56-85-91 or (08) 8747 6301", [("0688 872 49 99", "PHONE"), ("60-56-85-91", "PHONE"), ("(08) 8747 6301", "PHONE")]),
        ("Call 001-518-640-0854 on Tuesday", [("001-518-640-0854", "PHONE"), ("Tuesday", "DATE")]),
        ("Son's cell is six one seven five five five one two three four", [("six one seven five five five one two three four", "PHONE")]),
        # licences, plates, vehicles, devices and clinicians' numbers after their cue
        ("Drivers license S530-4412-9921 copied", [("S530-4412-9921", "IDNUM")]),
        ("License plate 7ABC123 noted", [("7ABC123", "IDNUM")]),
        ("VIN 1HGCM82633A004352 on car", [("1HGCM82633A004352", "IDNUM")]),
        ("Pacemaker serial no PJN552211 checked", [("PJN552211", "IDNUM")]),
        ("NPI 1902837465 for Dr. Chen, DEA AB1234563", [("1902837465", "IDNUM"), ("AB1234563", "IDNUM")]),
        ("Certificate no. RN-445522 on file", [("RN-445522", "IDNUM")]),
        ("Group # 12345, employee 4471", [("12345", "IDNUM"), ("4471", "IDNUM")]),
    ],
)
def test_forms_in_every_case(nlp, text, expected):
    for variant, case in variants(text):
        assert ents(nlp, variant) == [(case(t), label) for t, label in expected], variant


@pytest.mark.parametrize(
    "text",
    [
        "Pain went from 8/10 to 4/10, BP 120/80, RR 18, sat 94% on 2L",
        "Blood cx 2/4 bottles, strength 4/5, pain after BM 6/10, CT done 8/10 pain",
        "Last dose 1/2 tab, chemo cycle 2/6, bx 3/12 cores, bcx 1/2 positive",
        "GCS 14/15, 1/15 nodes, 2/14 cores positive, 1/20 items, bp 120/80/15",
        "Glucose 220 250 1200 300, intake 250 300 1000 ml",
        "A 42 y/o man, age 45, 89 yo, 74 year old woman, since 2007, in '99",
        "Gave 2 mg PO, 3 times a day, q4h, 1-2 tabs, 10-12 breaths, ratio 1:2, head CT x2",
        "Pt may walk in the hallway; dec UOP; MAR reviewed; 2 head CT done",
        "Room number 5, ID consult, tube number 2, record 3 of 4",
        "Both lung fields clear, 2 visual fields, 3 point turn, 4 way stop",
        "Signed consent, user friendly, in the new year, covid19 and spo2 fine",
        "GCS 15, 5 mg/kg, INR 1.2, 1400 kcal, 0700-1900 shift, 100 mL/hr",
        "BP 120 80 HR 60, vitals 120 80 60 95 18, glucose 120 135 150 160",
        "Dl 2 of fluid, plate 3 of 4, serial 2 views, vin 12 pts",
        "Tube feeds at 40 via PEG 60 ml/hr, gave 2 via NGT",
        "Second dose given, third time this week, on the fourth day, first of many",
        "One or two tabs, five to six times, one two three four five six",
        "Pt is 95% on RA, ninety minutes, a hundred times, pt is 98.6 F, turned q2h",
        "Version 1.2.3, k 3.5, ph 7.35, 13.5.40 values, 10-12 breaths, 2-20 units",
        "Repositioned every 1 to 1-1/2 hours",
        "On 2-3 L NC, started 2-3 days ago, on 1-2 tabs, rr 12-18, since 2-3 weeks, on 4-6 x daily, seen 2-3 times",
        "In case 2 of 3, group 2 patients, employee 3 days, case 12 done",
        "Lasix held 2/2 low bp, stopped 2/2 hypotension, bicarb 2/2 acidosis",
    ],
)
def test_hard_negatives_are_not_flagged(nlp, text):
    for variant, _ in variants(text):
        assert ents(nlp, variant) == [], variant


def test_spans_filter_writes_a_span_group():
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("span_ruler", name="phi_ruler", config={
        "spans_key": "phi_patterns", "annotate_ents": False, "overwrite": True,
        "spans_filter": {"@misc": "spacy_deid.phi_ents_filter.v1"}})
    ruler.add_patterns(PHI_PATTERNS)
    doc = nlp("MRN: 1860694, fax 617-555-1212 on 03/14/2019")
    assert [(s.text, s.label_) for s in doc.spans["phi_patterns"]] == [
        ("1860694", "MRN"), ("617-555-1212", "FAX"), ("03/14/2019", "DATE")]
    assert list(doc.ents) == []


def test_existing_entities_win_over_matches():
    nlp = spacy.blank("en")
    nlp.add_pipe("span_ruler", name="pre", config={"spans_key": None, "annotate_ents": True})
    nlp.get_pipe("pre").add_patterns([{"label": "PATIENT", "pattern": [{"TEXT": "555"}]}])
    ruler = nlp.add_pipe("span_ruler", name="phi_ruler", config={
        "spans_key": None, "annotate_ents": True, "overwrite": False,
        "ents_filter": {"@misc": "spacy_deid.phi_ents_filter.v1"}})
    ruler.add_patterns(PHI_PATTERNS)
    assert ents(nlp, "call 555-123-4567 on 03/14/2019") == [("555", "PATIENT"), ("03/14/2019", "DATE")]


def test_written_patterns_load_with_the_reader(tmp_path):
    from spacy_deid.io.readers import phi_patterns_v1

    path = tmp_path / "p.jsonl"
    assert write_patterns(str(path)) == len(PHI_PATTERNS)
    assert phi_patterns_v1(str(path)) == json.loads(json.dumps(PHI_PATTERNS))


@pytest.mark.parametrize(
    "text,expected",
    [
        ("SKILLED NURSING VISIT 5 JAN", [("5 JAN", "DATE")]),
        ("next visit 12 feb., rn to call", [("12 feb.", "DATE")]),
        ("seen 3rd Oct by pcp", [("3rd Oct", "DATE")]),
        ("seen 3 dec '19 at osh", [("3 dec '19", "DATE")]),
        # a medication record and a decrease are no months without a year
        ("given 2 mar doses per mar", []),
        ("bs 2 dec at bases", []),
    ],
)
def test_a_day_before_an_abbreviated_month(nlp, text, expected):
    assert ents(nlp, text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # short suffixes that are also clinical shorthand, after an address's cue only
        ("Residence: 4 Chestnut Ct, Apt 2", [("4 Chestnut Ct", "STREET"), ("Apt 2", "STREET")]),
        ("lives at 12 oak ct with wife", [("12 oak ct", "STREET")]),
        ("s/p 24 hr head ct, neg", []),
    ],
)
def test_courts_and_places_after_an_address_cue(nlp, text, expected):
    assert ents(nlp, text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        ("uti w/ esbl ~feb 20.", [("~feb 20", "DATE")]),
        ("next visit the 14th.", [("14th", "DATE")]),
        ("lives on the 2nd floor", []),
        ("2 story home at 1207 s elm pl, broken arrow", [("1207 s elm pl", "STREET")]),
    ],
)
def test_approximate_months_ordinal_days_and_homes(nlp, text, expected):
    assert ents(nlp, text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # a visit, a meeting or labs date a month/day, a denominator of 10 too
        ("last visit 1/10. labs 10/3: cr 1.2", [("1/10", "DATE"), ("10/3", "DATE")]),
        ("dialysis education class 11/12.", [("11/12", "DATE")]),
        ("pain after bm 6/10, ct done 8/10 pain", []),
        # an ordinal day of an abbreviated month; a decade of life only as someone's
        ("off meds since 12th of aug.", [("12th of aug", "DATE")]),
        ("in her mid 90s, lives alone", [("90s", "AGE")]),
        ("sats mid 90s on 2l, sbp upper 90s", []),
        # an area code's parenthesis without a space after it
        ("son rivera (617)555-0137: pt", [("(617)555-0137", "PHONE")]),
    ],
)
def test_events_ordinal_months_decades_and_phones(nlp, text, expected):
    assert ents(nlp, text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # a post office box says "box"; "po 120" is a dose by mouth
        ("mail to po box 1234 or P.O. Box 77", [("po box 1234", "STREET"), ("P.O. Box 77", "STREET")]),
        ("diltiazem gtt -> po 120 qd", []),
    ],
)
def test_post_office_boxes_and_doses_by_mouth(nlp, text, expected):
    assert ents(nlp, text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # the last four digits of an SSN, and a number masked all but them
        ("SSN last 4 6620 verified", [("6620", "SSN")]),
        ("last four of SSN: 6620. ssn xxx-xx-1234", [("6620", "SSN"), ("xxx-xx-1234", "SSN")]),
        ("last 4 days, 1234 steps", []),
        ("SSN ***-**-1234 on file; SSN (last 4): 6620", [("***-**-1234", "SSN"), ("6620", "SSN")]),
        # a lot number after "lot" alone
        ("DTaP 0.5 mL IM, lot 3J92K; lot: Y7731", [("3J92", "DEVICE"), ("Y7731", "DEVICE")]),
        ("a lot of pain, lot 2, improved a lot 24hrs later", []),
        # what a plan or chart dates, in capitals too ("D/C" is three tokens then)
        ("pt trached 11/2. ANTICIPATE D/C 6/4. soc 1/11, ortho f/u 12/3", [("11/2", "DATE"), ("6/4", "DATE"), ("1/11", "DATE"), ("12/3", "DATE")]),
        ("d/c 1/2 ns, PPM PLACEMENT 1/9", [("1/9", "DATE")]),
        # a dose's fraction after a plan's word or a time is none
        ("resume 1/2 dose. D/C 1/2 TAB. 0900 1/2 tab given. in 2015 3/4 grafts patent", []),
        ("ICU NSG NOTE 0700 10/21: PT", [("10/21", "DATE")]),
        # an abbreviated month alone after a month's cue; not "jan", "mar", "dec"
        ("(was 17 in Aug), since oct; in mar, every November", [("Aug", "DATE"), ("oct", "DATE"), ("November", "DATE")]),
        # a record's number after "#" in three groups or more, no phone number
        ("pcr # 2023-0809-0412. case # 21-2-04418-7 SEA", [("2023-0809-0412", "IDNUM"), ("21-2-04418-7", "IDNUM")]),
        ("call # 617-555-0142, room # 12-3, fx ribs # 4-5-6", [("617-555-0142", "PHONE")]),
        ("call # 1-617-555-0142", [("1-617-555-0142", "PHONE")]),
        # a licence plate in two groups after its cue; not an orthopaedic plate's holes or screws
        ("PT PLATE KLM 482. license plate # 7 XYZ", [("KLM 482", "VEHICLE"), ("7 XYZ", "VEHICLE")]),
        ("plate of 4 mm, 7 hole plate w 6 screws, plate 6 mm, ORIF with plate 2 yrs ago, skin tag left 2 cm", []),
        # a dose is no house number ("via" is a street suffix too)
        ("K 3.2, 40 MEQ KCL VIA NGT. lives at 40 main st", [("40 main st", "STREET")]),
        # shortened weekdays where no other word is
        ("tx to floor Tues, trach/peg thurs, mon q4h", [("Tues", "DATE"), ("thurs", "DATE")]),
    ],
)
def test_ssn_last_four_lots_plan_dates_and_short_months(nlp, text, expected):
    assert ents(nlp, text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # a scan and the part scanned before its day; not a pain score
        ("ct chest 10/9: stable rll consolidation", [("10/9", "DATE")]),
        ("MRI BRAIN 3/2 NEG. pain 7/10 since ct head 6/10", [("3/2", "DATE")]),
        # a month after a word of time; "may" is a modal there
        ("mammo due march. on abx thru oct.", [("march", "DATE"), ("oct", "DATE")]),
        ("due may be fine. through may rule out. spent june with family", []),
    ],
)
def test_scans_dated_and_months_after_words_of_time(nlp, text, expected):
    assert ents(nlp, text) == expected
