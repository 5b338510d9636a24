"""phi_gazetteer: names, places and hospitals in any case, ambiguous words only in context."""
import pytest
import spacy

import spacy_deid  # noqa: F401
from spacy_deid.detect.gazetteers import GazetteerLists, read_common_words
from spacy_deid.detect.labels import DEFAULT_LABEL_MAP, category_of
from spacy_deid.resources import asset_path


@pytest.fixture(scope="module")
def nlp():
    nlp = spacy.blank("en")
    nlp.add_pipe("phi_gazetteer")
    nlp.initialize()
    return nlp


def found(nlp, text):
    doc = nlp(text)
    return [(s.text, s.label_) for s in doc.spans["phi_gazetteer"]]


def variants(text):
    return [text, text.upper(), text.lower()]


def assert_found_in_every_case(nlp, text, expected, labels=None):
    """``text`` as written, in UPPER and in lower case gives ``expected`` (as written), its
    UPPER copy, and its lower-case copy (of ``labels`` only, when given)."""
    for variant, want in zip(variants(text), (expected, [(t.upper(), l) for t, l in expected], [(t.lower(), l) for t, l in expected])):
        assert [sp for sp in found(nlp, variant) if labels is None or sp[1] in labels] == want, variant


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Dr Green aware of sbp 85.", [("Green", "NAME")]),
        ("Spoke with daughter Rose who will call back.", [("Rose", "NAME")]),
        ("Wife May at bedside.", [("May", "NAME")]),
        ("Np Kowalczyk made aware.", [("Kowalczyk", "NAME")]),
        ("Talked with Mark from case management.", [("Mark", "NAME")]),
        ("Grace Smith, RN", [("Grace Smith", "NAME")]),
        ("Seen by John Smith today.", [("John Smith", "NAME")]),
        ("Dianne L. called.", [("Dianne L.", "NAME")]),
        ("Pt lives in Mobile, AL.", [("Mobile", "CITY"), ("AL", "STATE")]),
        ("Lives in Atlanta, GA and works in Macon.", [("Atlanta", "CITY"), ("GA", "STATE"), ("Macon", "CITY")]),
        ("Pt from Boston.", [("Boston", "CITY")]),
        ("Son lives in Cook County.", [("Cook County", "COUNTY")]),
        ("Seen at St. Luke's Hospital.", [("St. Luke's Hospital", "HOSPITAL")]),
        ("Seen at Denver General Hospital.", [("Denver General Hospital", "HOSPITAL")]),
        ("Transferred to MGH for cath.", [("MGH", "HOSPITAL")]),
        ("Followed at Lahey Clinic.", [("Lahey Clinic", "HOSPITAL")]),
        ("Jack B. called.", [("Jack B.", "NAME")]),
        ("Seen at Cedars-Sinai Medical Center.", [("Cedars-Sinai Medical Center", "HOSPITAL")]),
        ("Admitted to Mount Sinai.", [("Mount Sinai", "HOSPITAL")]),
        ("Works at Streetcred Software Inc.", [("Streetcred Software Inc.", "ORG")]),
        ("Moved to Barnesville.", [("Barnesville", "CITY")]),
        ("Seen at Mercy Hospital of Kathyton.", [("Mercy Hospital of Kathyton", "HOSPITAL")]),
        ("Admitted to New York Presbyterian Hospital.", [("New York Presbyterian Hospital", "HOSPITAL")]),
        ("Lives in Brooks Assisted Living.", [("Brooks Assisted Living", "HOSPITAL")]),
    ],
)
def test_forms_in_every_case(nlp, text, expected):
    for variant, case in zip(variants(text), (str, str.upper, str.lower)):
        assert found(nlp, variant) == [(case(t), label) for t, label in expected], variant


@pytest.mark.parametrize(
    "text",
    [
        "Normal saline given, brown stool, will monitor, may need CT. Green sputum. Temp rose to 38.5.",
        "Transfer to ICU. Went to OR. Arrived from OSH. Sent to ED.",
        "Pt's hospital course was notable; the hospital; general surgery consulted.",
        "Burns to legs, visual fields intact, Cheyne Stokes breathing, grace period.",
        "TIA vs CVA, MS changes, pt will mark site, may walk with PT.",
        "Hx of Parkinson's disease, Gleason score 7, Framingham risk score, Barrett's esophagus.",
        "Referred to hematology; seen in the community clinic; back in April.",
        "Review of systems negative; support group; IV solutions; lab data.",
        "Proton pump inhibitor at bedside, gland enlarged, 2 visual fields, support.",
        "NECK:, Supple. Carina midline, inferior Vena cava patent. Moved to Gurney, max assist.",
    ],
)
def test_ordinary_words_are_not_taken(nlp, text):
    for variant in variants(text):
        assert found(nlp, variant) == [], variant


def test_named_places_after_at_from_to_in_mixed_case_text(nlp):
    assert found(nlp, "Treated at UCLA, then seen at NYU Langone; John Doe came from Baylor.") == [
        ("UCLA", "HOSPITAL"), ("NYU Langone", "HOSPITAL"), ("John Doe", "NAME"), ("Baylor", "HOSPITAL")]
    assert found(nlp, "Went from HOME to ICU at 0800, at baseline, at Day 3.") == []


def test_names_by_their_form(nlp):
    assert found(nlp, "Billing to Hanne I. Kreutzmann and Ravil G Yefimov; my name is Rubija.") == [
        ("Hanne I. Kreutzmann", "NAME"), ("Ravil G Yefimov", "NAME"), ("Rubija", "NAME")]
    assert found(nlp, "Given ASA. Pt in A fib, Vitamin D level, Hepatitis B Vaccine.") == []


def test_acronyms_in_mixed_case_text_are_not_names(nlp):
    assert found(nlp, "Per ADA guidelines, ELISA negative.") == []
    assert found(nlp, "Daughter Ada called.") == [("Ada", "NAME")]


def test_labels_map_to_categories(nlp):
    doc = nlp("Dr Green sent pt from Boston, Cook County, Texas to St. Luke's Hospital.")
    cats = {category_of(s.label_, DEFAULT_LABEL_MAP) for s in doc.spans["phi_gazetteer"]}
    assert cats == {"NAME", "LOCATION", "ORGANIZATION"}


def test_common_words_list_keeps_ordinary_words_only():
    common = read_common_words(asset_path("gazetteers/common_words.tsv"), 3.0)
    assert {"will", "rose", "brown", "fields", "heart", "tia"} <= common
    assert not {"john", "boston", "garcia"} & common


@pytest.mark.parametrize(
    "text,expected",
    [
        # names of other locales: alone when no English word, after a cue or before a word
        # no list has when English text uses them ("philippe", "magnus")
        ("Spoke with Idris about dispo.", [("Idris", "NAME")]),
        ("Philippe Guernon visited.", [("Philippe Guernon", "NAME")]),
        ("Wife Ingrid at bedside.", [("Ingrid", "NAME")]),
        ("Daughter Magnus called.", [("Magnus", "NAME")]),
    ],
)
def test_names_of_other_locales(nlp, text, expected):
    for variant, case in zip(variants(text), (str, str.upper, str.lower)):
        assert found(nlp, variant) == [(case(t), label) for t, label in expected], variant


@pytest.mark.parametrize(
    "text",
    [
        # words that some locale lists as a name: dictionary, clinical and stop words are none
        "The pia was coagulated; dura mater intact; 5 mm assist port were placed.",
        "Laser used to create rosette; ortho tri-cyclen; laparoscopic roux-en-y bypass.",
        "Red rubber robinson catheters were placed; pt will xarelto held.",
        "Pt is Muslim, speaks Danish; visited France last year; LIMA to LAD.",
    ],
)
def test_words_of_other_locales_name_lists_are_not_taken(nlp, text):
    for variant in variants(text):
        assert found(nlp, variant) == [], variant


def test_common_words_flags_other_locales_names_as_ordinary_but_not_dictionary_words():
    from spacy_deid.detect.gazetteers import dictionary_words
    from spacy.strings import get_string_id

    path = asset_path("gazetteers/common_words.tsv")
    assert {"philippe", "france", "tri"} <= read_common_words(path, 3.0, ordinary_only=True)
    assert not {"philippe", "france"} & read_common_words(path, 3.0, dictionary_only=True)
    assert get_string_id("magnus") not in dictionary_words() and get_string_id("rose") in dictionary_words()


def test_surnames_coordinated_with_a_word_no_list_has_in_mixed_case_text(nlp):
    assert found(nlp, "Our 3 founders: Monjeau, Graves and Reed. Usamov and Bowers were engineers.") == [
        ("Monjeau", "NAME"), ("Graves", "NAME"), ("Reed", "NAME"), ("Usamov", "NAME"), ("Bowers", "NAME")]
    # listed names alone, words of a note, drugs: no names
    assert found(nlp, "Stool Brown and White noted. Pt on Zosyn and Vanco, Eliquis and Bell.") == []
    assert found(nlp, "our 3 founders: monjeau, graves and reed.") == []


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Pt Earl Washburn found seated, diaphoretic", [("Earl Washburn", "NAME")]),
        ("Lives in Waco (Ray Dupree owns it).", [("Waco", "CITY"), ("Ray Dupree", "NAME")]),
        # in single-case text a misspelling after such a word is as likely: no name
        ("pt max assit x2 to chair. hope pateint improves. PT EARL WASHBURN FOUND", []),
        # a clinical term a surname list has too is no name after a weak cue; an eponym without
        # its hyphen is none either
        ("PLACEMENT CONFIRMED BY KUB. SAH HUNT HESS 3", []),
        # after a role word it is a name still
        ("REPORT GIVEN TO RN FOLEY AT BEDSIDE", [("FOLEY", "NAME")]),
        # a first name taken alone goes on over a surname that is an ordinary word where the name ends
        ("immunization administration\nella-mae tucker, 4 y/o", [("ella-mae tucker", "NAME")]),
        # a modal before a typo, a first name before a dictionary's word or a drug: no name
        ("pt will ambulte today. mark ecchymosis on arm, ray xarelto", []),
        # in mixed-case text the two words share their case (the surname found is one wherever)
        ("Gave Summer Delacroix the forms. Plans for summer Delacroix trip.", [("Summer Delacroix", "NAME"), ("Delacroix", "NAME")]),
        ("Plans for summer Delacroix trip.", [])
    ],
)
def test_an_ordinary_first_name_before_a_word_no_dictionary_has(nlp, text, expected):
    assert found(nlp, text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # two or three words that no kind of facility has before a two-word hospital ending
        ("TTE\nGULF COAST MEDICAL CENTER ECHO LAB", [("GULF COAST MEDICAL CENTER", "HOSPITAL")]),
        ("seen at good shepherd health system", [("good shepherd health system", "HOSPITAL")]),
        ("from a large academic medical center; PT FROM OUTSIDE TERTIARY CARE CENTER", []),
        ("pt to cardiac care center. the community health center", []),
        ("SPINE SURGERY MEDICAL CENTER", []),
        # "X Regional" ends a hospital's name where the words end
        ("S/P TPA AT MILFORD REGIONAL. milford regional ed", [("MILFORD REGIONAL", "HOSPITAL"), ("milford regional", "HOSPITAL")]),
        ("Complex Regional Pain Syndrome Type I.", []),
        # an organ is no surname of a clinic's name
        ("I SAW HER TODAY IN THE KIDNEY CLINIC. HER EGFR", []),
        # triage and transport words after "at" name no hospital
        ("nihss 9 at triage, facial droop l. care transferred at lz 1510", []),
    ],
)
def test_hospitals_named_by_ordinary_words_and_regional(nlp, text, expected):
    assert found(nlp, text) == expected


def test_index_of_one_word_entries_is_what_the_tokenizer_makes_of_them():
    """The index reads words of letters only without the tokenizer, special cases apart
    ("theres" is split by it): the same index as tokenizing every entry."""
    import spacy_deid.detect.gazetteers as G

    nlp = spacy.blank("en")
    lists = G.load_lists(G.DEFAULT_LISTS, {}, G.COMMON_WORDS, G.CLINICAL_TERMS, 3.0)
    fast = G.GazetteerIndex.from_lists(lists, nlp.make_doc)
    slow = G.GazetteerIndex.from_lists(lists, lambda text: nlp.make_doc(text))  # no tokenizer rules to read
    assert fast.single == slow.single and fast.multi == slow.multi


def test_a_ner_ward_takes_the_side_of_its_building(nlp):
    doc = _with_ents(nlp, "PT MOVED TO WOXLEY 10 NORTH TOMORROW.", [("WOXLEY 10", "WARD")])
    assert [(e.text, e.label_) for e in doc.ents] == [("WOXLEY 10 NORTH", "WARD")]
    doc = _with_ents(nlp, "pt moved to ellison 8 north wing", [("ellison", "WARD")])
    assert [(e.text, e.label_) for e in doc.ents] == [("ellison", "WARD")]  # no floor, no side


def test_user_list_and_label(tmp_path):
    wards = tmp_path / "wards.txt"
    wards.write_text("# wards\nfarr 10\nblake 7\n", encoding="utf-8")
    nlp = spacy.blank("en")
    nlp.add_pipe("phi_gazetteer")
    nlp.config["initialize"]["components"]["phi_gazetteer"] = {"lists": {"wards": str(wards)}, "labels": {"wards": "WARD"}}
    nlp.initialize()
    assert found(nlp, "moved to FARR 10 overnight") == [("FARR 10", "WARD")]
    with pytest.raises(ValueError):
        GazetteerLists(lists={"x": ["a"]}, labels={})


def test_round_trip(nlp, tmp_path):
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    text = "DR GREEN SPOKE WITH WIFE MAY; PT FROM BOSTON, TRANSFERRED TO MGH."
    assert found(loaded, text) == found(nlp, text) != []
    gaz = spacy.blank("en").add_pipe("phi_gazetteer")
    gaz.from_bytes(nlp.get_pipe("phi_gazetteer").to_bytes())
    assert gaz.is_initialized


def test_saved_pipeline_holds_no_list_text(tmp_path):
    staff = tmp_path / "staff.txt"
    staff.write_text("zorblatt quenwick\n", encoding="utf-8")
    nlp = spacy.blank("en")
    nlp.add_pipe("phi_gazetteer")
    nlp.config["initialize"]["components"]["phi_gazetteer"] = {"lists": {"staff": str(staff)}, "labels": {"staff": "STAFF"}}
    nlp.initialize()
    nlp.to_disk(tmp_path / "p")
    blob = b"".join(p.read_bytes() for p in (tmp_path / "p").rglob("*") if p.is_file()).lower()
    assert b"zorblatt" not in blob and b"kowalczyk" not in blob and b"garcia" not in blob
    assert found(spacy.load(tmp_path / "p"), "per ZORBLATT QUENWICK") == [("ZORBLATT QUENWICK", "STAFF")]


def test_not_initialized_says_so():
    nlp = spacy.blank("en")
    nlp.add_pipe("phi_gazetteer")
    with pytest.raises(ValueError, match="initialize"):
        nlp("text")


def test_unknown_town_after_a_location_cue(nlp):
    doc = nlp("She lives in Tollinsby with her family; he moved to karvelport. Lives in a house.")
    spans = [(s.text, s.label_) for s in doc.spans["phi_gazetteer"]]
    assert ("Tollinsby", "CITY") in spans and ("karvelport", "CITY") in spans
    assert not [t for t, _ in spans if t in ("a", "house", "with")]


def _with_ents(nlp, text, ents):
    """A Doc of ``text`` with NER entities (text, label) set, then the gazetteer run."""
    from spacy.tokens import Span

    doc = nlp.make_doc(text)
    spans = []
    for ent_text, label in ents:
        start = text.index(ent_text)
        spans.append(doc.char_span(start, start + len(ent_text), label=label, alignment_mode="expand"))
    doc.ents = spans
    return nlp.get_pipe("phi_gazetteer")(doc)


@pytest.mark.parametrize(
    "text,ent,kept",
    [
        ("Hello I moved here last year.", ("Hello I moved", "HOSPITAL"), False),
        ("Please block my card now.", ("card", "DOCTOR"), False),
        ("We love the volunteer community orchestra.", ("volunteer community orchestra", "HOSPITAL"), False),
        ("Is it done yet?", ("yet?", "DATE"), False),
        ("Transferred to Mercy for cath.", ("Mercy", "HOSPITAL"), True),
        ("TRANSFERRED TO MERCY FOR CATH.", ("MERCY", "HOSPITAL"), True),
        ("Dr. Green aware of sbp 85.", ("Green", "DOCTOR"), True),
        ("Spoke with Kowalczyk today.", ("Kowalczyk", "DOCTOR"), True),
        ("seen on march 3rd", ("march 3rd", "DATE"), True),
        ("Lives at 12 Oak Road.", ("12 Oak Road", "STREET"), True),
        ("Seen at the Gravemoor Center.", ("Gravemoor Center", "HOSPITAL"), True),
        ("MRN 889911 noted.", ("889911", "MEDICALRECORD"), True),
        ("I want to add more.", ("add", "HOSPITAL"), False),
        # clinical words by their endings, inflected ordinary words (lemmas in the dictionary)
        ("ADMITTED FROM SIEFIELD W/ ULCERATIVE COLITIS.", ("ULCERATIVE COLITIS", "PATIENT"), False),
        ("having denied any pain", ("having denied", "PATIENT"), False),
        ("SLURRED SPEECH SINCE AM", ("SLURRED", "DOCTOR"), False),
        # after a bare "from"/"at"/"to" in a single-case note, only a listed place that is no clinical word
        ("MASS 4 CM FROM NIPPLE.", ("NIPPLE", "CITY"), False),
        ("pt here from mobile today", ("mobile", "CITY"), True),
        # an age no person reaches is a unit or postal code
        ("apt. 595 lappeenranta", ("595", "AGE"), False),
        ("pt is 97 yo", ("97", "AGE"), True),
        # an identifier has a digit
        ("WORKS AT HOME DEPOT AS A CASHIER", ("CASHIER", "DEVICE"), False),
        ("PACER SERIAL PJN123456", ("PJN123456", "DEVICE"), True),
        # a measurement is no date
        ("MASS 4 CM FROM NIPPLE.", ("MASS 4 CM", "DATE"), False),
        ("SEEN 4/12 BY SURGERY", ("4/12", "DATE"), True),
        # a possessive before an eponym's head is no hospital or doctor
        ("taken down through scarpa's fascia to the", ("scarpa's fascia", "HOSPITAL"), False),
        ("berry's ligament was freed", ("berry's ligament", "DOCTOR"), False),
        ("Seen at St. Luke's Hospital.", ("St. Luke's Hospital", "HOSPITAL"), True),
        # a contact has its kind's form
        ("seen by Dr. Patel in New York City on March 15", ("New York City", "PHONE"), False),
        ("call 617-555-0199 now", ("617-555-0199", "PHONE"), True),
        ("son's cell is six one seven five five", ("six one seven five five", "PHONE"), True),
        ("write to Presbyterian today", ("Presbyterian", "EMAIL"), False),
        ("write to jo@example.org today", ("jo@example.org", "EMAIL"), True),
        # the subject after "re:" is no name unless a list has it
        ("pt tearful re: new dx, expressed hope", ("new dx", "PATIENT"), False),
        ("tel enc re: abnl mammogram, needs dx mammo", ("abnl", "PATIENT"), False),
        ("son called re: kowalczyk visit", ("kowalczyk", "PATIENT"), True),
        # a faith is no name
        ("PT IS ROMAN CATHOLIC, ORIGINALLY FROM AZORES", ("ROMAN CATHOLIC", "PATIENT"), False),
        # numbers with no date's shape are no date: scores, times, durations; dates of every shape stay
        ("IMPROVED AERATION. PRAM SCORE 4. TOLERATING PO.", ("SCORE 4. TOLERATING PO", "DATE"), False),
        ("rash. ESI 3. Triage RN", ("ESI 3", "DATE"), False),
        ("off pressors since 1000. +2 pedal edema", ("1000", "DATE"), False),
        ("converted to sinus 3/6.", ("3/6", "DATE"), True),
        ("s/p ileocecectomy in 74', pna", ("74'", "DATE"), True),
        ("nissen at baystate in '09 (aborted)", ("'09", "DATE"), True),
        ("wound clinic on the 14th.", ("the 14th", "DATE"), True),
        ("served in the army 2009-2015", ("2009-2015", "DATE"), True),
        # a number alone, or one before a unit, is no date
        ("WHITE COUNT DOWN TO 14 FROM 19. ON ZOSYN", ("14", "DATE"), False),
        ("BNP 1880 (from 3240).", ("3240", "DATE"), False),
        ("wound 2 x 2.1 cm, tunneling 3 cm at 12", ("tunneling 3", "DATE"), False),
        # a hyphenated eponym is no one
        ("TO-DRY, JACKSON-PRATT LUQ 60 ML", ("JACKSON", "DOCTOR"), False),
        # a decimal is a value, no place or organisation
        ("WBC 16.2 (FROM 12.1), CR 1.4", ("12.1", "LOCATION"), False),
        ("82.4 kg (from 86.1 on admit)", ("86.1", "ORGANIZATION"), False),
        # a device's setting or an event at a clock time, no ward or street; streets stay
        ("rt note: on trach collar 35% 10l, sats 95", ("trach collar 35", "WARD"), False),
        ("NIGHT EVENTS:\n2330 RAPID RESPONSE CALLED FOR SBP 70S", ("2330 RAPID RESPONSE", "STREET"), False),
        ("LIVES AT 2330 PINE ST WITH WIFE", ("2330 PINE ST", "STREET"), True),
        # a count is no name
        ("came for cabg x3, pod 2", ("x3", "DOCTOR"), False),
        # a kind of nurse before a credential, an eponym without its hyphen, a dose's number
        ("REPORT GIVEN TO CHARGE RN KELLY.", ("CHARGE", "DOCTOR"), False),
        ("PT 49 F, SAH HUNT HESS 3, FISHER 3", ("HUNT HESS", "PATIENT"), False),
        ("0500 K 3.2, 40 MEQ KCL VIA NGT.", ("40 MEQ KCL", "STREET"), False),
    ],
)
def test_ner_entities_that_cannot_be_phi_by_their_form_are_dropped(nlp, text, ent, kept):
    doc = _with_ents(nlp, text, [ent])
    assert bool(doc.ents) == kept, [(e.text, e.label_) for e in doc.ents]
    assert bool(doc.spans.get("phi_ner_rejected", [])) == (not kept)



@pytest.mark.parametrize(
    "text,ent,expected",
    [
        ("went to ferncliff last week for dialysis", ("ferncliff last week for dialysis", "HOSPITAL"), "ferncliff"),
        ("ARRIVED FROM PINECREST VIA AMBULANCE", ("PINECREST VIA AMBULANCE", "HOSPITAL"), "PINECREST"),
        ("transferred to sjmc tonight", ("sjmc tonight", "HOSPITAL"), "sjmc"),
        ("followed at larkfield general for ckd", ("larkfield general for ckd", "HOSPITAL"), "larkfield general"),
        ("seen at hospital for special surgery", ("hospital for special surgery", "HOSPITAL"), "hospital for special surgery"),
        ("works at bank of america now", ("bank of america now", "ORGANIZATION"), "bank of america"),
    ],
)
def test_places_end_before_time_words_and_stop_words(nlp, text, ent, expected):
    doc = _with_ents(nlp, text, [ent])
    assert [e.text for e in doc.ents] == [expected]

def test_ner_entities_lose_edge_punctuation_and_are_kept_unfiltered_when_asked():
    nlp = spacy.blank("en")
    nlp.add_pipe("phi_gazetteer")
    nlp.initialize()
    doc = _with_ents(nlp, "Call Mary? She knows.", [("Mary?", "PATIENT")])
    assert [(e.text, e.label_) for e in doc.ents] == [("Mary", "PATIENT")]
    doc = _with_ents(nlp, "Diagnosed with MS like Anna S., seen today.", [("like Anna S.", "PATIENT")])
    assert [e.text for e in doc.ents] == ["Anna S."]
    doc = _with_ents(nlp, "PT LIKE ANNA S. SEEN", [("ANNA S.", "PATIENT")])
    assert [e.text for e in doc.ents] == ["ANNA S."]
    doc = _with_ents(nlp, "Seen by Dr. van der Berg today.", [("van der Berg", "DOCTOR")])
    assert [e.text for e in doc.ents] == ["van der Berg"]
    # a name or place ends before clinical shorthand
    doc = _with_ents(nlp, "ADMITTED FROM SIEFIELD W/ ULCERATIVE COLITIS FLARE", [("SIEFIELD W/ ULCERATIVE COLITIS FLARE", "HOSPITAL")])
    assert [e.text for e in doc.ents] == ["SIEFIELD"]
    # nor ends with a clinical verb; a one-word name stays whole
    doc = _with_ents(nlp, "DR HAISHAM PAGED. NO NEW ORDERS", [("HAISHAM PAGED", "DOCTOR")])
    assert [e.text for e in doc.ents] == ["HAISHAM"]
    doc = _with_ents(nlp, "KUB ORDERED, ABD SOFT", [("KUB", "PATIENT")])
    assert not doc.ents
    # nor begins with a role or patient word (a name of the gazetteer that crosses its end takes it over)
    doc = _with_ents(nlp, "IN A 71YO FEMALE, MARY S., WITH AFIB", [("FEMALE, MARY", "DOCTOR")])
    assert not doc.ents and [s.text for s in doc.spans["phi_gazetteer"]] == ["MARY S."]
    doc = _with_ents(nlp, "IN A 71YO FEMALE, ZIELO, WITH AFIB", [("FEMALE, ZIELO", "DOCTOR")])
    assert [e.text for e in doc.ents] == ["ZIELO"]
    off = spacy.blank("en")
    off.add_pipe("phi_gazetteer", config={"filter_ents": False})
    off.initialize()
    doc = _with_ents(off, "Please block my card now.", [("card", "DOCTOR")])
    assert [e.text for e in doc.ents] == ["card"] and "phi_ner_rejected" not in doc.spans


@pytest.mark.parametrize(
    "text,expected",
    [
        ("previously treated at methodist hospital on april 12", [("methodist hospital", "HOSPITAL")]),
        ("evaluated at elm clinic on jan 15th", [("elm clinic", "HOSPITAL")]),
        ("treated at children's hospital yesterday", [("children's hospital", "HOSPITAL")]),
        ("followed at pain clinic", []),
        ("seen at the wound clinic today", []),
        ("treated at cardiology clinic", []),
        ("went to the clinic", []),
        # a word that names one hospital, alone or first, after a transfer cue
        ("85 yo m admitted from holy family w/ ant mi", [("holy family", "HOSPITAL")]),
        ("admitted from kindred. admitted from ed. admitted from home. admitted from osh.", [("kindred", "HOSPITAL")]),
        ("awaiting bed at kindred if trach'd, at the mercy of the disease", [("kindred", "HOSPITAL")]),
        # a side of the compass and a landscape word name a region, with no cue too
        ("neurology f/u south shore hospital stroke clinic", [("south shore hospital stroke clinic", "HOSPITAL")]),
        ("pain in the south side, left lower lobe", []),
    ],
)
def test_hospitals_named_by_ordinary_words_after_a_cue_in_every_case(nlp, text, expected):
    assert_found_in_every_case(nlp, text, expected)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("f/u w/ dr sharnette myrnson in am.", [("sharnette myrnson", "NAME")]),
        ("site c/d/i. zoick fields, rn covering", [("zoick fields", "NAME")]),
        ("report given to bestyn zaello. abd soft", [("bestyn zaello", "NAME")]),
        ("pt: violet grollwick is a 90 yo", [("violet grollwick", "NAME")]),
        ("pt rose from bed", []),
        ("dr haisham paged. no new orders", [("haisham", "NAME")]),
        ("a 45-year-old male, michael smith, who presented", [("michael smith", "NAME")]),
        ("a 71yo female, mary s., with afib", [("mary s.", "NAME")]),
        ("pt: 79 yo m", []),
        # a listed name that is a stop word before an ordinary word is the verb
        ("pt's daughter nancy will bring in clothes", [("nancy", "NAME")]),
        # police, educators and counsellors are roles before a name
        (". state police trooper rice called, diabetes educator holly paged", [("rice", "NAME"), ("holly", "NAME")]),
        # a name first in its sentence and told of something
        ("until march 20. sandy aware of plan", [("sandy", "NAME")]),
        ("very anxious. frank is hcp", [("frank", "NAME")]),
        # a listed name that is a role word too, after a personal title
        ("on 4l. ho dr friend paged x2. pt's friend at bedside", [("friend", "NAME")]),
        # a landmark's word that is a surname, after a personal title; "law" after any title
        ("seen by dr temple today. fr. lake visited, prayed w/ family at the lake", [("temple", "NAME"), ("lake", "NAME")]),
        ("pcp dr chapel-ford aware. 16 fr foley placed, dr office called, dr school note given", [("chapel-ford", "NAME")]),
        ("np law made aware. son in law at bedside", [("law", "NAME")]),
        # a first name that starts a sentence and does what visitors do
        ("lytes pending. bill called at 2100. visibly upset. ray asking that", [("bill", "NAME"), ("ray", "NAME")]),
        ("min secretions. grace (wife) at bedside", [("grace", "NAME")]),
        ("labs called. pharmacy called. pain upset stomach", []),
        ("family aware. team aware. md aware. ortho notified. pharmacy paged. ho aware", []),
        # a relatives' plural lists their names, ordinary words too
        ("wife at bedside, brothers art and bill, who live nearby", [("art", "NAME"), ("bill", "NAME")]),
        ("brothers called, kids will visit, parents at bedside", []),
        ("spoke with dr john may called back", [("john may", "NAME")]),
        # a saint's initial names a hospital
        ("st. e's to fax records", [("st. e's", "HOSPITAL")]),
        # a legal form names a company whatever its words; a company word that is no legal
        # form still needs a name
        ("recorded for think computer corporation last year", [("think computer corporation", "ORG")]),
        ("3 round stones inc called", [("3 round stones inc", "ORG")]),
        ("galorath incorporated is new", [("galorath incorporated", "ORG")]),
        ("the insurance company called", []),
        # a building trade names a firm after a name ("kc roofing"), not alone
        ("working days for kc roofing & gutter. does landscaping and roofing work", [("kc roofing", "ORG")]),
        ("pt owns a small roofing co. mrn to follow", []),
        # an employer in parentheses after work or a trade
        ("injured at work (shawmut construction) 8/30, coal miner (consol energy)", [("shawmut construction", "ORG"), ("consol energy", "ORG")]),
        ("at work (night shift), retired teacher (elementary)", []),
        # an employer after its cue: a word no dictionary has, or a company word at the end
        ("i work for rapid cycle solutions", [("rapid cycle solutions", "ORG")]),
        ("worked at mbta x 20 yrs", [("mbta", "ORG")]),
        ("works at a bank, works for the city, retired from teaching", []),
        ("works at home as a cashier", []),
        # "home" starts a firm's name only when one or two more words end the phrase
        ("pt works at home depot, mother at bedside", [("home depot", "ORG")]),
        ("works at home mostly. works at home now. works at home office.", []),
        # one ordinary word after a cue of employment that ends the phrase
        ("nephew works at fidelity, reachable by cell", [("fidelity", "ORG")]),
        ("lost job at dunkin' donuts in november", [("dunkin' donuts", "ORG")]),
        ("works at night. retired from teaching. worked at the bank. retired from navy. works for herself.", []),
        # a trade before "at" or "for" names its employer
        ("a truck driver for fedex, who developed chest pain", [("fedex", "ORG")]),
        ("retired, was a mailman for usps. a freshman at bu, admitted", [("usps", "ORG"), ("bu", "ORG")]),
        ("was a nurse at bedside, a worker for the city", []),
        # a firm named by its place ("associates of" alone names none)
        ("seen by cardiology associates of worcester", [("associates of worcester", "ORG")]),
        ("pt prefers home w/ vna of greater lowell.", [("vna of greater lowell", "ORG")]),
        ("supported w/ neo. new england organ bank notified", [("new england organ bank", "HOSPITAL")]),
        ("seen by the associates of the pt", []),
        # a stay somewhere names the place, not an ordinary word
        ("per wife pt was at brigham last month", [("brigham", "HOSPITAL")]),
        ("pt was at baseline, was at goal", []),
        # the name in parentheses after a kind of facility
        ("from nursing home (sunny acres), lives w/ daughter", [("sunny acres", "HOSPITAL")]),
        ("d/c to rehab (snf) in am, back to home (with wife)", []),
        # the value of a pharmacy or employer field
        ("pharmacy: rite aid\nallergies: nkda", [("rite aid", "ORG")]),
        ("pharmacy: stop and shop pharmacy, haroldhaven", [("stop and shop pharmacy", "ORG"), ("haroldhaven", "CITY")]),
        ("employer: young logistics", [("young logistics", "ORG")]),
        ("pharmacy: unknown. employer: retired, employer: self employed, employer: teacher", []),
        # after a pharmacy cue any name is a pharmacy's, a generic word none
        ("fills prescriptions at the rite aid today", [("rite aid", "ORG")]),
        ("meds filled at the pharmacy today", []),
        # a surname joined to a name by a hyphen is the name's ("weeks" alone is no name)
        ("alvir spent a year at weeks-rivas as the assistant", [("weeks-rivas", "NAME")]),
        ("in 1971, mayo-walters invested heavily", [("mayo-walters", "NAME")]),
        ("hx of stevens-johnson syndrome", []),
        # a modal verb after a first name is no surname ("will" is one in the lists)
        ("son mark will call back later", [("mark", "NAME")]),
        # in single-case notes, a word no list has after "at", "@" or "from" is a hospital's short
        # name; a relative's town after "son in", "sister from"
        ("pcp dr. abrams @ bmc aware", [("abrams", "NAME"), ("bmc", "HOSPITAL")]),
        ("arrived from nebh this am, to fax records", [("nebh", "HOSPITAL")]),
        ("son arrives from ny tonight", []),
        ("INR TODAY 4.1 DRAWN AT MT AUBURN LAB.", [("MT", "HOSPITAL"), ("AUBURN", "CITY")]),
        ("son in newton, sister from hyannis", [("newton", "CITY"), ("hyannis", "CITY")]),
        ("son in law at bedside, daughter in bed", []),
        # a writer's initials first on a line before a credential; a subject line's ordinary word
        # is no name; an attorney is a title
        ("vss, report given\njs rn", [("js", "NAME")]),
        ("- jm, rn\npt rn aware", [("jm", "NAME")]),
        ("resident paged re: low uop", []),
        ("guardian is atty. mark feldman", [("mark feldman", "NAME")]),
        # a size joined to its number is no name; an instrument's eponym is none
        ("a 22-french 3-way foley was placed", []),
        ("grasped with an allis clamp, then mayo scissors and a lahey tenaculum", []),
        ("skin incised with a #10 bard parker blade", []),
        ("a jackson-pratt drain was placed in the cul-de-sac", []),
        ("using a french cone tip catheter, 15 cm proximal to the valve", []),
        ("calibrated from 8 to 12 french, testes already de-torsed", []),
        ("have you been to a david lange concert before", [("david lange", "NAME")]),
        # a listed place joined to a place by a hyphen is part of its name ("newton" alone is a unit)
        ("pcp dr. abernathy at newton-wellesley", [("abernathy", "NAME"), ("newton-wellesley", "CITY")]),
        # "w/" alone takes a thing ("w/ walker"); after a verb of talking, a person
        ("ambulates w/ walker, oob w/ cane", []),
        ("spoke w/ walker re: plan", [("walker", "NAME")]),
        ("case mgr holly to follow up", [("holly", "NAME")]),
        # an admission's opening line names where the patient is from
        ("67 yo m from revere, pcp dr. lieberman", [("revere", "CITY"), ("lieberman", "NAME")]),
        # a contact's cue word after a name is no part of it
        ("hcp is niece bernadette o'malley ph 781 555 2200", [("bernadette o'malley", "NAME")]),
        # the rest of a hyphenated name goes with it
        ("called pt's brother abdul rahman al-farsi at home", [("abdul rahman al-farsi", "NAME")]),
        ("spoke with pt's wife mei-ling", [("mei-ling", "NAME")]),
        # a manor is a home's name's last word
        ("nursing home resident (kittredge manor), admitted with uti", [("kittredge manor", "HOSPITAL")]),
        # a state before a comma has no surname after it; a title after a title is none
        ("son rick called from florida, will be here wednesday", [("rick", "NAME"), ("florida", "STATE")]),
        ("chaplain fr. tom visited, 16 fr foley placed", [("tom", "NAME")]),
    ],
)
def test_names_hospitals_and_companies_in_telegraphic_notes(nlp, text, expected):
    assert_found_in_every_case(nlp, text, expected)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("enjoys walking at wheeler lake on weekends", [("wheeler lake", "LOCATION_OTHER")]),
        ("volunteers at the yoder creek trail. fills", [("yoder creek trail", "LOCATION_OTHER")]),
        ("walks at the dog park daily", []),
        ("he fell at the grand canyon on monday", [("grand canyon", "LOCATION_OTHER")]),
        ("pt from the valley, lives on an island", []),
        ("lives near the river", []),
        ("she fell at zion national park on monday", [("zion national park", "LOCATION_OTHER")]),
        ("senior at lincoln high school, plays", [("lincoln high school", "LOCATION_OTHER")]),
        ("brought by ems from dudley sq on monday", [("dudley sq", "LOCATION_OTHER")]),
        ("wound 2 cm sq at sacrum, lives near the square", []),
        # a high school named short
        ("plays soccer at roosevelt high.", [("roosevelt high", "LOCATION_OTHER")]),
        ("bp at times high. sugars at night high. glucose at home high, 300s", []),
        ("walks at the local park daily", []),
        ("swims in the public pool at the city park", []),
        # a word no dictionary holds after a travel or home word and a place preposition
        ("fell while hiking at yosemite last week", [("yosemite", "LOCATION_OTHER")]),
        ("was skiing in vail over the holidays", [("vail", "LOCATION_OTHER")]),
        ("lives in southie with wife", [("southie", "CITY")]),
        # on the way from a town, ordinary word or not
        ("mother will drive from providence tonight, driving from work", [("providence", "CITY")]),
        # a trip's ends; not a unit's or a test's ("returned from or", "back from mri")
        ("recent flight from phoenix. flew to denver. returned from or. back from mri.", [("phoenix", "CITY"), ("denver", "CITY")]),
        ("lives in house with wife, trip to the ed, lives at home", []),
        ("traveled to pacu, lives in assisted living, hiking in march", []),
    ],
)
def test_named_landmarks_after_a_place_cue(nlp, text, expected):
    assert_found_in_every_case(nlp, text, expected)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("last seen at cedar sinai on july 12th", [("cedar sinai", "HOSPITAL")]),
        ("post-op course at methodist hospital", [("methodist hospital", "HOSPITAL")]),
        ("who presented at cedar sinai on 11/15/2022", [("cedar sinai", "HOSPITAL")]),
        ("pt presented at cedar-sinai today", [("cedar-sinai", "HOSPITAL")]),
        ("consulted at baylor on nov 5", [("baylor", "HOSPITAL")]),
        ("evaluated at bedside, assessed at rest, presented at 0800", []),
        ("transferred to a community hospital", []),
        ("treated at home today", []),
    ],
)
def test_hospitals_named_by_a_word_that_names_one(nlp, text, expected):
    assert_found_in_every_case(nlp, text, expected)


@pytest.mark.parametrize(
    "text,ent",
    [
        ("ADMITTED W/ UROSEPSIS. NEURO: A+OX3", ("UROSEPSIS", "PATIENT")),
        ("here w/ choledocholithiasis.. neuro: lethargic", ("choledocholithiasis", "PATIENT")),
        ("PAIN CONTROLLED W/ PERCOCET", ("PERCOCET", "PATIENT")),
        ("keep family, wean vent as tol", ("wean", "DOCTOR")),
        ("D/C FOLEY IN AM", ("FOLEY", "PATIENT")),
        ("58 YO ASIAN MALE ADMITTED WITH CP", ("ASIAN MALE", "DOCTOR")),
        ("Venous Doppler of the right leg.", ("Doppler", "DOCTOR")),
        ("Dissected with Metzenbaum scissors and Bovie cautery.", ("Metzenbaum", "DOCTOR")),
    ],
)
def test_clinical_words_are_no_names_of_a_ner(nlp, text, ent):
    doc = _with_ents(nlp, text, [ent])
    assert not doc.ents, [(e.text, e.label_) for e in doc.ents]


def test_unknown_names_of_a_ner_stay_in_single_case_notes(nlp):
    doc = _with_ents(nlp, "SON ZIELO CALLED AT 2030", [("ZIELO", "PATIENT")])
    assert [e.text for e in doc.ents] == ["ZIELO"]
    doc = _with_ents(nlp, "talked with baustelle tauski from the blood bank", [("baustelle tauski", "PATIENT")])
    assert [e.text for e in doc.ents] == ["baustelle tauski"]


@pytest.mark.parametrize(
    "text,ent,expected",
    [
        ("DR JOHN PARK AWARE OF K 3.1", ("JOHN PARK AWARE", "DOCTOR"), "JOHN PARK"),
        ("wife ann here, updated", ("ann here", "PATIENT"), "ann"),
        ("SPOKE WITH DR ZIELONKA TODAY RE PLAN", ("ZIELONKA TODAY", "DOCTOR"), "ZIELONKA"),
        # a verb ends a name with what follows it, an irregular past tense as well
        ("JENNIFER BROWN BROUGHT CLOTHES FOR PT", ("JENNIFER BROWN BROUGHT CLOTHES", "PATIENT"), "JENNIFER BROWN"),
        ("wife mary took pt home", ("mary took pt", "PATIENT"), "mary"),
        ("SON ZIELO CALLED BACK TWICE", ("ZIELO CALLED BACK", "PATIENT"), "ZIELO"),
        # a listed name that is also a word stays ("GRACE", "PARK"), and mixed case is left alone
        ("DAUGHTER MARY GRACE CALLED", ("MARY GRACE", "PATIENT"), "MARY GRACE"),
        ("Seen by Dr. Tilda Aware today.", ("Tilda Aware", "DOCTOR"), "Tilda Aware"),
        ("PATIENT: HARRISON, CODY L  MRN 6734439", ("HARRISON, CODY L", "PATIENT"), "HARRISON, CODY L"),
        ("patient: harrison, cody a  mrn 6734439", ("harrison, cody a", "PATIENT"), "harrison, cody a"),
    ],
)
def test_a_ner_name_in_single_case_notes_ends_before_an_ordinary_word(nlp, text, ent, expected):
    doc = _with_ents(nlp, text, [ent])
    assert [e.text for e in doc.ents] == [expected]


def test_clinical_words_after_a_cue_are_no_names(nlp):
    for text in ("here w/ choledocholithiasis.. neuro: lethargic", "ADMITTED W/ UROSEPSIS."):
        assert found(nlp, text) == [], text
    assert found(nlp, "paged dr pernford at 0815") == [("pernford", "NAME")]


def test_short_line_bounds_stop_at_the_word_limit():
    from spacy_deid.detect.gazetteers import _short_line_bounds

    nlp = spacy.blank("en")
    doc = nlp("pt resting comfortably, vss.\ngrace smith rn\nplan: continue current care and monitor")
    i = [t.text for t in doc].index("smith")
    start, end = _short_line_bounds(doc, i, 5)
    assert doc[start:end].text.strip() == "grace smith rn"
    # the first and last lines have more than 3 words: no bounds, whichever word asks
    assert _short_line_bounds(doc, 1, 3) is None and _short_line_bounds(doc, len(doc) - 1, 3) is None
    assert _short_line_bounds(doc, len(doc) - 1, 6) is not None


@pytest.mark.parametrize(
    "text,ent,expected",
    [
        # a person of the lists that a NER labels a hospital or runs on: the person wins
        ("Did Jennifer Brown have a fever overnight?", ("Did Jennifer Brown have", "HOSPITAL"), ("Jennifer Brown", "NAME")),
        ("DID JENNIFER BROWN HAVE A FEVER?", ("DID JENNIFER BROWN HAVE", "HOSPITAL"), ("JENNIFER BROWN", "NAME")),
        ("List the vitals of Thomas Anderson.", ("Thomas Anderson", "HOSPITAL"), ("Thomas Anderson", "NAME")),
        ("Case discussed with Michael Smith today.", ("Michael Smith today", "DOCTOR"), ("Michael Smith", "DOCTOR")),
        ("Pt's friend Jennifer Brown brought clothes", ("Jennifer Brown brought clothes", "PATIENT"), ("Jennifer Brown", "PATIENT")),
        ("Seen by Dr. Mary Ann Garcia today.", ("Mary Ann Garcia today", "DOCTOR"), ("Mary Ann Garcia", "DOCTOR")),
        # a kind word, a street, or words the lists do not place: the entity says more than the lists
        ("Transferred to John Muir Medical Center.", ("John Muir Medical Center", "HOSPITAL"), ("John Muir Medical Center", "HOSPITAL")),
        ("Lives on Jennifer Brown Road.", ("Jennifer Brown Road", "STREET"), ("Jennifer Brown Road", "STREET")),
        ("FARMER AT WEST ASHLEY POLICE DEPARTMENT", ("WEST ASHLEY POLICE DEPARTMENT", "HOSPITAL"), ("WEST ASHLEY POLICE DEPARTMENT", "HOSPITAL")),
        ("Covered by Harvard Pilgrim.", ("Harvard Pilgrim", "DOCTOR"), ("Harvard Pilgrim", "DOCTOR")),
        # a hospital a NER ends before its possessive and hospital word runs on over them
        ("seen at brigham and women's hospital on march 22nd", ("brigham and women", "HOSPITAL"), ("brigham and women's hospital", "HOSPITAL")),
        ("mary k., admitted to georgetown med on nov 11th", ("georgetown", "HOSPITAL"), ("georgetown med", "HOSPITAL")),
        # a "person" ending in a hospital word is a hospital
        ("admitted to md anderson cancer center on nov 11th", ("anderson cancer center", "DOCTOR"), ("anderson cancer center", "HOSPITAL")),
        # a hospital or place ends before a date after it
        ("admitted at orlando health april 2023 (mrn 765432)", ("orlando health april", "HOSPITAL"), ("orlando health", "HOSPITAL")),
        ("TREATED AT HARTFORD HOSPITAL, MARCH 15TH 2023.", ("HARTFORD HOSPITAL, MARCH 15TH", "HOSPITAL"), ("HARTFORD HOSPITAL", "HOSPITAL")),
        # a hospital word inside another entity is not taken
        ("seen at lahey clinic today", ("lahey clinic", "HOSPITAL"), ("lahey clinic", "HOSPITAL")),
    ],
)
def test_a_ner_entity_is_bounded_and_labelled_by_the_lists(nlp, text, ent, expected):
    doc = _with_ents(nlp, text, [ent])
    assert [(e.text, e.label_) for e in doc.ents] == [expected]


@pytest.mark.parametrize(
    "text,expected",
    [
        # a state code that is also a word names a state only at the end of its phrase
        ("presented with fatigue and jaundice, in addition to a rash", []),
        ("fatigue and jaundice, or chills", []),
        ("moved to tollinsby, or 97201 last year", [("tollinsby", "CITY"), ("or", "STATE")]),
        ("pt from kesterfield, in.", [("kesterfield", "CITY"), ("in", "STATE")]),
        # one that is no English word of use is one after any town ("atlanta, ga and")
        ("lives in atlanta, ga and works in macon, ga", [("atlanta", "CITY"), ("ga", "STATE"), ("macon", "CITY"), ("ga", "STATE")]),
        # a state code without a comma ends its phrase: a town of ordinary words before it is one
        ("lives alone in enterprise al. son lives in salem nh, not", [("enterprise", "CITY"), ("al", "STATE"), ("salem", "CITY"), ("nh", "STATE")]),
        ("f/u boston id clinic", [("boston", "CITY")]),
        # a patient word starts a description unless a comma follows it
        ("a 35-year-old male firefighter with asthma", []),
        ("a 50 yo female zumba instructor", []),
        ("a 45 yo male, zielo kowalczyk, who presented", [("zielo kowalczyk", "NAME")]),
    ],
)
def test_word_state_codes_and_patient_words_in_every_case(nlp, text, expected):
    assert_found_in_every_case(nlp, text, expected)


def test_only_relatives_plurals_vouch_for_ordinary_words_as_names(nlp):
    doc = _with_ents(nlp, "husband says coworkers also sick w/ flu", [("also sick", "PATIENT")])
    assert [e.text for e in doc.ents] == []


def test_a_dose_is_no_entity_and_a_place_ends_before_prior(nlp):
    doc = _with_ents(nlp, "PT ANXIOUS, MSO4 2MG. SISTER AT BEDSIDE", [("2MG", "ZIP")])
    assert [e.text for e in doc.ents] == []
    doc = _with_ents(nlp, "was living at hebrew rehab prior to adm", [("hebrew rehab prior", "HOSPITAL")])
    assert [e.text for e in doc.ents] == ["hebrew rehab"]
    # a kind of dwelling alone is no place ("spaulding house" stays)
    doc = _with_ents(nlp, "CLEANING GUTTERS AT SON'S HOUSE. D/C TO SPAULDING HOUSE", [("HOUSE", "HOSPITAL"), ("SPAULDING HOUSE", "HOSPITAL")])
    assert [e.text for e in doc.ents] == ["SPAULDING HOUSE"]


def test_a_ner_age_or_date_run_over_a_name_is_cut_before_it(nlp):
    # (what is left, an age under 90 in ordinary words, is no date either)
    doc = _with_ents(nlp, "A 6-YEAR-OLD MALE, MICHAEL SMITH, WHO VISITED", [("6-YEAR-OLD MALE, MICHAEL SMITH", "DATE")])
    assert [(e.text, e.label_) for e in doc.ents] == []
    doc = _with_ents(nlp, "epilepsy, lisa m., treated at home", [("epilepsy, lisa m., treated", "DATE")])
    assert not doc.ents and [s.text for s in doc.spans["phi_gazetteer"]] == ["lisa m."]
    # a name, place or organisation is cut where a name crosses its edge
    doc = _with_ents(nlp, "PATIENTS OVER 70 LIKE MICHAEL S., SEEN AT", [("LIKE MICHAEL", "DOCTOR")])
    assert not doc.ents and [s.text for s in doc.spans["phi_gazetteer"]] == ["MICHAEL S."]
    # (the verb form after what is left is no part of a place in single-case notes)
    doc = _with_ents(nlp, "A 72YO FEMALE NAMED MARY J., DIAGNOSED", [("72YO FEMALE NAMED MARY", "STREET")])
    assert [(e.text, e.label_) for e in doc.ents] == [("72YO FEMALE", "STREET")]
    # a name and an initial the lists know, labelled a hospital, is a name
    doc = _with_ents(nlp, "STAGE 3 COPD, PATRICIA G., WHO PRESENTED", [("PATRICIA G.", "HOSPITAL")])
    assert [(e.text, e.label_) for e in doc.ents] == [("PATRICIA G.", "NAME")]


@pytest.mark.parametrize(
    "text,expected",
    [
        # what a named clinic or centre is for stands between its name and the hospital word
        ("dr. bowman, danland dialysis center, fax", [("bowman", "NAME"), ("danland dialysis center", "HOSPITAL")]),
        ("he fell at the hernandez senior center on thursday", [("hernandez senior center", "HOSPITAL")]),
        ("oncology, atkinson rehabilitation hospital, 10/23/2010", [("atkinson rehabilitation hospital", "HOSPITAL")]),
        ("referred to kesterfield cancer institute", [("kesterfield cancer institute", "HOSPITAL")]),
        ("services with sarahview rehabilitation and nursing center", [("sarahview rehabilitation and nursing center", "HOSPITAL")]),
        ("visiting nurse: huber gardens assisted living.", [("huber gardens assisted living", "HOSPITAL")]),
        # a place prefix starts a hospital's name; a pharmacy is named like a company
        ("step-down unit, port sherryside general hospital", [("port sherryside general hospital", "HOSPITAL")]),
        ("fills prescriptions at the costco pharmacy", [("costco pharmacy", "ORG")]),
        # what a clinic is for alone names none
        ("seen in the pain clinic; at the dialysis center; pt's cancer center appt", []),
        ("will institute fall precautions, called pharmacy re: dose", []),
    ],
)
def test_hospitals_with_what_they_are_for_in_every_case(nlp, text, expected):
    assert_found_in_every_case(nlp, text, expected)




def test_a_transfer_cue_hospital_takes_its_hospital_word(nlp):
    assert ("uw med", "HOSPITAL") in found(nlp, "stan m., seen at uw med on july 4th")
    # "med" alone is no hospital word: "pain med" stays
    assert found(nlp, "gave pain med at 0800") == []


@pytest.mark.parametrize(
    "text,expected",
    [
        # a place and a hospital word name a hospital
        ("Seen by Dr. Adams at Chicago Med, 2/14/2022", [("Adams", "NAME"), ("Chicago Med", "HOSPITAL")]),
        ("Who visited our New York Clinic on Monday", [("New York Clinic", "HOSPITAL")]),
        ("Presented to our Dallas facility today", [("Dallas facility", "HOSPITAL")]),
        # a short name of a large city is a place wherever it stands
        ("Pt is from NYC, last seen in May", [("NYC", "CITY")]),
        # the value of a pharmacy field names an organisation, up to punctuation or a stop word
        ("Pharmacy: Stop and Shop Pharmacy, Lake Kevin", [("Stop and Shop Pharmacy", "ORG"), ("Lake Kevin", "CITY")]),
        ("Pharmacy: Walgreens on 12 Elm St", [("Walgreens", "ORG")]),
        ("Pharmacy: unknown, mail order", []),
        # a verb cue takes its object right after it, not after a comma
        ("Daughter Grace called, will call back.", [("Grace", "NAME")]),
    ],
)
def test_places_with_hospital_words_and_cues_in_every_case(nlp, text, expected):
    for variant, case in zip(variants(text), (str, str.upper, str.lower)):
        assert found(nlp, variant) == [(case(t), label) for t, label in expected], variant


@pytest.mark.parametrize(
    "text,expected",
    [
        # an initial after a personal title is a name, with the name words after it
        ("Copd in pt, Mr. W., who was seen", [("W.", "NAME")]),
        ("Seen by Dr. A. Kowalczyk today", [("A. Kowalczyk", "NAME")]),
        ("Dr. J. K. called", [("J. K.", "NAME")]),
        # "mr" (mitral regurgitation) before a word is no title
        ("Mild mr. a fib noted", []),
        # the surname notes give an unknown patient; DOE after no name is dyspnea on exertion
        ("For Jane Doe, dob: 1/2/1990", [("Jane Doe", "NAME")]),
        ("Pt c/o doe and orthopnea", []),
    ],
)
def test_titled_initials_and_placeholder_names_in_every_case(nlp, text, expected):
    for variant, case in zip(variants(text), (str, str.upper, str.lower)):
        assert found(nlp, variant) == [(case(t), label) for t, label in expected], variant


@pytest.fixture(scope="module")
def address_nlp():
    """The pattern ruler (the STREET / ZIP anchors) before the gazetteer, as the profiles run them."""
    from spacy_deid.detect.patterns import PHI_PATTERNS

    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("span_ruler", name="phi_ruler", config={"spans_key": "phi_patterns"})
    nlp.add_pipe("phi_gazetteer")
    nlp.initialize()  # (a span_ruler's initialize clears its patterns: they come after it)
    ruler.add_patterns(PHI_PATTERNS)
    return nlp


def _address_spans(nlp, text):
    """The address runs the gazetteer adds (the pattern ruler's anchor is there)."""
    doc = nlp(text)
    assert any(s.label_ in ("STREET", "ZIP") for s in doc.spans["phi_patterns"])
    return [(s.text, s.label_) for s in doc.spans["phi_gazetteer"] if s.label_ in ("STREET", "ZIP", "CITY")]


@pytest.mark.parametrize(
    "text,expected",
    [
        # a foreign street and town around the unit the patterns know, over line breaks
        ("address: 6750 koskikatu 25 apt. 864\n   lappeenranta\n   53650",
         [("6750 koskikatu 25 apt. 864", "STREET"), ("lappeenranta", "CITY"), ("53650", "ZIP")]),
        # a house number before a street the patterns found; a country stays (not PHI)
        ("lives at 17151 2450 crown st, uruguay 64677 since may",
         [("17151 2450 crown st", "STREET"), ("64677", "ZIP")]),
        # an ordinary or clinical word ends the address; the sentence's period does too: the
        # pattern's "12 oak road" is all
        ("lives at 12 oak road with wife. lasix 40 mg daily", []),
        ("LIVES AT 12 OAK ROAD. LASIX 40 MG DAILY", []),
        # a state code in any case stays, the postal code after it is the address's
        ("next of kin: son, 44 elm st, quincy ma 02169.", [("quincy", "CITY"), ("02169", "ZIP")]),
        # a place the lists know stays theirs
        ("lives at 12 oak road, 02139 boston", [("12 oak road, 02139", "STREET"), ("boston", "CITY")]),
        # a foreign street word and the house number before it
        ("billing address: 11 via goffredo mameli 149 suite 268", [("11 via goffredo mameli 149 suite 268", "STREET")]),
        # a contact line after the address is no town
        ("018 robert fields, pereztown, ri 02860\ntel 833.800.8402  fax: 671.637.3070", [("pereztown", "CITY"), ("02860", "ZIP")]),
        # an address block: the street line above a unit line, a town of ordinary words on its
        # own line before the country
        # (a country of two words stays, the postal code after it is the address's)
        ("Matthew Abramov\n   20789 Allika 46\n   Suite 501\n   Grand Rapids\n   United States 21959",
         [("20789 Allika 46", "STREET"), ("Grand Rapids", "CITY"), ("21959", "ZIP")]),
        (">3369 24 Clarke Avenue\n>Apt. 805\n>Pines Beach\n>Sweden 34694",
         [("3369 24 Clarke Avenue", "STREET"), ("Apt. 805", "STREET"), ("Pines Beach", "CITY"), ("34694", "ZIP")]),
        # a street word written apart after the name
        ("> 03220 Augsburger Strasse 36\n> Suite 960", [("03220 Augsburger Strasse 36", "STREET"), ("Suite 960", "STREET")]),
    ],
)
def test_address_runs_complete_the_pieces_the_patterns_found(address_nlp, text, expected):
    assert _address_spans(address_nlp, text) == expected


def test_no_town_line_or_street_line_outside_an_address_block(address_nlp):
    # the line after a unit line is a town only before a country, state or postal code line
    found = _address_spans(address_nlp, "pt lives at 12 main st\napt 4\ngood appetite\nbp 120/80")
    assert found == [("apt 4", "STREET")]
    found = _address_spans(address_nlp, "Vitals stable\nHR 88 RR 14\nSuite 4 visited")
    assert not [t for t, _ in found if "HR" in t or "Vitals" in t]


def test_address_runs_leave_names_and_can_be_turned_off(address_nlp):
    # a name before the address stays the name the lists found
    found = _address_spans(address_nlp, "sophie lang 3482 oak road apt 5")
    assert found == [("3482 oak road apt 5", "STREET")]
    nlp = spacy.blank("en")
    from spacy_deid.detect.patterns import PHI_PATTERNS

    ruler = nlp.add_pipe("span_ruler", name="phi_ruler", config={"spans_key": "phi_patterns"})
    nlp.add_pipe("phi_gazetteer", config={"address_anchors_key": ""})
    nlp.initialize()
    ruler.add_patterns(PHI_PATTERNS)
    assert _address_spans(nlp, "address: 6750 koskikatu 25 apt. 864\n   lappeenranta") == []


@pytest.mark.parametrize(
    "text,ent,expected",
    [
        # a name ends before a number: the phone after it is no part of the name
        ("SPOKE W/ SON JIM @ 555-1234, WILL CALL BACK", ("JIM @ 555-1234", "PATIENT"), [("JIM", "PATIENT")]),
        # a name the lists found after a role word is a person's, whatever the NER called it
        ("PT'S DAUGHTER (KAREN) CALLED FOR UPDATE", ("KAREN", "HOSPITAL"), [("KAREN", "NAME")]),
        # the role word is no part of the name, "in law" neither
        ("daughter in law cathy is hcp", ("law cathy", "PATIENT"), [("cathy", "PATIENT")]),
        # a role word alone is no name
        ("son will in to visit this pm", ("son", "PATIENT"), []),
        # consulting services and shorthand are no names
        ("neph (dr bhatt) following, hd in am", ("neph", "PATIENT"), []),
        ("MET WITH CASE MANAGER RE: DISPO.", ("DISPO", "PATIENT"), []),
        # an organisation that starts with a title and the name after it is that person
        ("rn kelly gave report at 1900", ("rn kelly gave report", "HOSPITAL"), [("kelly", "NAME")]),
        # a word, an initial and a word make a person, no hospital
        ("janka m. szász\nnetwork administrator", ("janka m. szász", "HOSPITAL"), [("janka m. szász", "NAME")]),
        ("seen at st. m. hospital", ("st. m. hospital", "HOSPITAL"), [("st. m. hospital", "HOSPITAL")]),
        # a trade is no name
        ("pt is retired carpenter from dorchester", ("carpenter", "PATIENT"), []),
        ("WORKS AS A COOK AT DINER", ("COOK", "PATIENT"), []),
        ("SPOKE WITH DR COOK", ("COOK", "DOCTOR"), [("COOK", "DOCTOR")]),
        # a ratio is no date; a role's possessive is no name; a hospital's lab is no hospital
        ("PAIN 6/10, GIVEN 2/3 OF DOSE.", ("2/3", "DATE"), []),
        ("DAUGHTER'S CELL (508) 555-0173", ("'S CELL", "PATIENT"), []),
        ("went to cath lab", ("cath lab", "HOSPITAL"), []),
        # a phone number's groups are no date
        ("call son if any changes: 508 555 1234.", ("508 555 1234", "DATE"), []),
        # ordinary words after a verb are a service, no name; after a title they are one
        ("PLATE NOTED BY SECURITY", ("SECURITY", "DOCTOR"), []),
        ("called pharmacy re dose", ("pharmacy", "PATIENT"), []),
        ("seen by dr young", ("young", "DOCTOR"), [("young", "DOCTOR")]),
        ("brother flying in from ireland", ("flying", "PATIENT"), []),
        # a place across a line break is one address line per piece
        ("apt. 297\n tystberga\n sweden", ("297\n tystberga", "STREET"), [("297", "STREET"), ("tystberga", "STREET")]),
        # a trade is no organisation; the town before it stays a town
        ("pt is retired boston police officer", ("boston police officer", "HOSPITAL"), [("boston", "CITY")]),
        ("WORKED AS A POLICE OFFICER", ("POLICE OFFICER", "ORG"), []),
        # a state alone is no hospital (it is kept: not PHI)
        ("daughter (lisa) in from california", ("california", "HOSPITAL"), [("california", "STATE")]),
        # a kind of facility names no one
        ("FROM NURSING HOME (SUNNY ACRES)", ("NURSING HOME", "HOSPITAL"), []),
        ("dob 1/2/31", ("dob", "PATIENT"), []),
        ("pt ssn is 078051120 per registration", ("ssn", "CITY"), []),
        # a role word inside a name entity parts two people; a language is no name
        ("PT'S FAMILY: WIFE GRACE, SONS TIM & PAUL", ("GRACE, SONS TIM", "PATIENT"), [("GRACE", "PATIENT"), ("TIM", "PATIENT")]),
        ("pt speaks portuguese, son translates", ("speaks portuguese", "PATIENT"), []),
        # in mixed-case text, a capital only as a sentence's first word makes no name
        ("Doppler Color Flow Imaging is Normal.  Pulmonary outflow is normal.", ("Pulmonary outflow", "PATIENT"), []),
        ("Seen Today By Cardiology. John smith called.", ("John smith", "PATIENT"), [("John smith", "PATIENT")]),
        # a hospital ends before "vs."
        ("pt to go to hebrew senior life vs. home", ("hebrew senior life vs. home", "HOSPITAL"), [("hebrew senior life", "HOSPITAL")]),
        # ICU shorthand is no name, however rare in English ("meds", "gtts", "plts")
        ("meds filled at cvs", ("meds filled", "HOSPITAL"), []),
        ("titrating gtts per team", ("gtts", "DOCTOR"), []),
        # a modal before a verb ends a name; one alone before a verb's base form is none
        # ("may" is a name before what a modal never takes: "daughter may visiting")
        ("son mark will call back later", ("mark will", "PATIENT"), [("mark", "PATIENT")]),
        ("daughter may visit", ("may visit", "PATIENT"), []),
        ("daughter may visiting today", ("may", "PATIENT"), [("may", "PATIENT")]),
        ("DAUGHTER NANCY MAY BE IN TOMORROW", ("NANCY MAY BE", "PATIENT"), [("NANCY", "PATIENT")]),
        # initials and a listed name before a credential are a person, not a hospital
        ("J. SMITH, RN", ("J. SMITH", "HOSPITAL"), [("J. SMITH", "NAME")]),
        ("note by k lee rn", ("k lee", "HOSPITAL"), [("k lee", "NAME")]),
        ("J. SMITH MEDICAL CENTER, RN", ("J. SMITH MEDICAL CENTER", "HOSPITAL"), [("J. SMITH MEDICAL CENTER", "HOSPITAL")]),
        # a place ends before a number of time units and, in single-case notes, before a verb form
        ("pt was at mt auburn 2 weeks ago", ("mt auburn 2 weeks ago", "HOSPITAL"), [("mt auburn", "HOSPITAL")]),
        ("sister from revere visited today", ("revere visited", "HOSPITAL"), [("revere", "CITY")]),
        # a listed town the NER calls a hospital, with no hospital word, gets a town's label
        ("BROTHER FRANK FROM WORCESTER AT BS", ("WORCESTER", "HOSPITAL"), [("WORCESTER", "CITY")]),
        ("pt seen at north shore med for f/u", ("north shore med", "HOSPITAL"), [("north shore med", "HOSPITAL")]),
        ("i want to go home to chelsea.", ("go home", "HOSPITAL"), []),
        ("PT WAS AT MT AUBURN 3 DAYS", ("MT AUBURN 3 DAYS", "HOSPITAL"), [("MT AUBURN", "HOSPITAL")]),
        ("hx of tx at dfci, onc dr. lipman", ("dfci, onc", "HOSPITAL"), [("dfci", "HOSPITAL")]),
        ("wife drove in from worcester", ("drove", "PATIENT"), []),
        ("cm to call vna", ("call vna", "HOSPITAL"), []),
        # sutures, blades and tooth numbers are no dates, places or contacts; a recovery room no hospital
        ("2-D ECHOCARDIOGRAM: NORMAL", ("2-D ECHOCARDIOGRAM", "DATE"), []),
        ("PT ON 2-3 L NC SINCE 3-24", ("2-3", "DATE"), []),
        ("UOP 30-50 CC/HR", ("UOP 30-50", "DATE"), []),
        ("HR 80-90'S NSR", ("80-90", "DATE"), []),
        ("temp 99.1 po, wbc 12-14, lactate 2.1", ("12-14", "DATE"), []),
        ("heels elevated, 1-2 assist oob to chair", ("1-2 assist oob", "DATE"), []),
        ("address:\n\n69 Roheline 43\n Apt. 305", ("69 Roheline 43", "DATE"), [("69 Roheline 43", "DATE")]),
        ("extubated 12-14, reintubated 12-16", ("12-14", "DATE"), [("12-14", "DATE")]),
        ("seen on the 12th, again in march", ("12th", "DATE"), [("12th", "DATE")]),
        ("SEEN ON 3-24 BY MD", ("3-24", "DATE"), [("3-24", "DATE")]),
        ("SEEN 2/3/2019 FOR 2-D ECHO", ("2/3/2019", "DATE"), [("2/3/2019", "DATE")]),
        ("closed with running #3-0 vicryl and staples", ("3-0 vicryl", "DATE"), []),
        ("closed with #0 vicryl suture", ("0 vicryl suture", "STREET"), []),
        ("a #15 blade was used", ("15 blade", "STREET"), []),
        ("teeth #2 and #19 extracted", ("19", "PHONE"), []),
        ("transferred to recovery room in stable condition", ("recovery room", "HOSPITAL"), []),
        ("seen by dr. silk today", ("silk", "DOCTOR"), [("silk", "DOCTOR")]),
        ("0 monocryl suture. using a #3 cannula", ("using a", "PATIENT"), []),
        # in single-case notes, very common words the lists hold as names need a cue
        ("GENERAL ANESTHESIA WAS ADMINISTERED", ("GENERAL ANESTHESIA", "PATIENT"), []),
        ("GOOD HEMOSTASIS WAS NOTED", ("GOOD HEMOSTASIS", "PATIENT"), []),
        ("BLOOD LOSS LESS THAN 5 ML", ("LESS", "PATIENT"), []),
        ("SEEN BY DR YOUNG TODAY", ("YOUNG", "DOCTOR"), [("YOUNG", "DOCTOR")]),
        ("WILL SMITH CALLED", ("WILL SMITH", "PATIENT"), [("WILL SMITH", "PATIENT")]),
        ("MARK IS A VERY GOOD FRIEND", ("MARK", "PATIENT"), [("MARK", "PATIENT")]),
        ("MARK MUSLIJA 99 ELM", ("MARK MUSLIJA", "PATIENT"), [("MARK MUSLIJA", "PATIENT")]),
        ("daughter may visit", ("may", "PATIENT"), []),
        # a role word alone does not make unlisted words a name; a title does
        ("WIFE CAN BE REACHED AT HOME", ("CAN", "PATIENT"), []),
        ("PARTNER REQUESTS UPDATES BY PHONE ONLY", ("REQUESTS UPDATES", "DOCTOR"), []),
        ("SPOKE W/ DR. BAKER RE: MRI", ("BAKER", "DOCTOR"), [("BAKER", "DOCTOR")]),
        ("son luc driving up from hyannis", ("luc driving", "PATIENT"), [("luc", "PATIENT")]),
        # "re:" inside a sentence means "about": no header field names the drug
        ("d/w dr green re: heparin gtt", ("heparin", "DOCTOR"), []),
        ("RE: JOHN SMITH", ("JOHN SMITH", "PATIENT"), [("JOHN SMITH", "PATIENT")]),
        # shorthand with digits and an ordinal of a thing are no dates
        ("Cath 11/14 showed 3VD.", ("3VD", "DATE"), []),
        ("PT ON CMV 500X14 PEEP 8 FIO2 50%", ("CMV 500X14 PEEP 8 FIO2 50", "DATE"), []),
        ("LIVES IN 2ND FLR APT", ("2ND", "DATE"), []),
        ("seen on the 2nd of may", ("2nd", "DATE"), [("2nd", "DATE")]),
        ("seen 3pm today", ("3pm", "DATE"), [("3pm", "DATE")]),
        ("lasix held 2/2 hypotension", ("2/2", "DATE"), []),
        ("admitted 3rd from rehab, echo 13TH EF 35%", ("3rd", "DATE"), [("3rd", "DATE")]),
        ("nursing note 7p-7a 10/14 pt stable", ("7p-7a 10/14", "DATE"), [("10/14", "DATE")]),
        # a verb after a name in a single-case note ends it; a clinical word in "-s" does not
        ("son luc checks on him daily", ("luc checks", "PATIENT"), [("luc", "PATIENT")]),
        # a bare number is no date, nor a value with its unit a phone number; four digits are
        ("cc from each side, approximately 50 cc in the pouch", ("approximately 50", "DATE"), []),
        ("mi in '99, cabg in 2001", ("99", "DATE"), [("99", "DATE")]),
        ("How can we reach you? You can call 33 93 31", ("33 93 31", "DATE"), [("33 93 31", "DATE")]),
        ("tourniquet inflated to 250 mmhg", ("250 mmhg", "PHONE"), []),
        ("a #24 French foley was placed", ("24 French foley", "STREET"), []),
        # a house number and names that a NER calls a phone number are a street
        ("The office is at 78 Victor Hugo u. 97.", ("78 Victor Hugo", "PHONE"), [("78 Victor Hugo", "STREET")]),
        ("Please update the billing address with 54 Soo 36", ("54 Soo 36", "DATE"), [("54 Soo 36", "DATE")]),
        ("a #24-french foley, from 12 o'clock", ("24-french", "PHONE"), []),
        ("page covering md, beeper 2234", ("2234", "PAGER"), [("2234", "PAGER")]),
        ("number 531-4123 EXT 985.", ("EXT 985", "PHONE"), [("EXT 985", "PHONE")]),
        ("CALL ME ON ( 64 ) 3591 - 3246 ?", ("64", "PHONE"), [("64", "PHONE")]),
        # in mixed-case text a lower-case verb or stop word ends a capitalised name
        ("Records from Salem Hospital reviewed today.", ("Salem Hospital reviewed", "HOSPITAL"), [("Salem Hospital", "HOSPITAL")]),
        ("FAITH, RN FROM IV TEAM PLACED 20G", ("IV TEAM", "HOSPITAL"), []),
        ("rural health clinic\ndale hoffstetter, 62", ("rural health clinic", "HOSPITAL"), []),
        # a very common word a name list has names no hospital; "general" ends one
        ("UPON AWAKENING FROM GENERAL ANESTHESIA. PLAN", ("GENERAL ANESTHESIA", "HOSPITAL"), []),
        ("TRANSFERRED FROM LOWELL GENERAL FOR CATH", ("LOWELL GENERAL", "HOSPITAL"), [("LOWELL GENERAL", "HOSPITAL")]),
        ("URETHRA WAS IDENTIFIED AT THE DISTAL TIP, WHICH WAS", ("DISTAL TIP", "HOSPITAL"), []),
        ("INSURANCE: TUFTS HEALTH PLAN, MEMBER ID", ("TUFTS HEALTH PLAN", "HOSPITAL"), [("TUFTS HEALTH PLAN", "HOSPITAL")]),
        ("COVERED BY BLUE CROSS BLUE SHIELD. PHARMACY", ("BLUE CROSS BLUE SHIELD", "HOSPITAL"), [("BLUE CROSS BLUE SHIELD", "HOSPITAL")]),
        # a hospital the NER calls a person is not cut at a word in -s
        ("CC: JONATHANMOUTH VETERANS AFFAIRS CLINIC, FAX", ("JONATHANMOUTH VETERANS AFFAIRS CLINIC", "DOCTOR"), [("JONATHANMOUTH VETERANS AFFAIRS CLINIC", "HOSPITAL")]),
        ("Lives at 45 Main street with his wife.", ("45 Main street", "STREET"), [("45 Main street", "STREET")]),
        # a letter's greeting and closing are no part of a name; a credential is no title
        ("Dear Dr. Whitfield, Thank you for", ("Whitfield, Thank", "DOCTOR"), [("Whitfield", "DOCTOR")]),
        ("Sincerely, Elena Petrova, MD", ("Sincerely, Elena Petrova", "DOCTOR"), [("Elena Petrova", "DOCTOR")]),
        ("Julie Tran, PA-C. Anesthesia: General.", ("C. Anesthesia", "DOCTOR"), []),
        # a dose in units is no date
        ("transitioned to glargine 20 u qhs", ("glargine 20", "DATE"), []),
        # a vital sign's value, a range or a supply is no age
        ("CV: SBP 90-110, LASIX", ("90", "AGE"), []),
        ("samples at dc, 90-day supply", ("90", "AGE"), []),
        ("a 92-year-old woman", ("92", "AGE"), [("92", "AGE")]),
        ("HPI: 92 M with cp", ("92", "AGE"), [("92", "AGE")]),
        # a train of four, a share of a lung field: no dates
        ("W/ CISATRACURIUM, TOF 1/4. CV", ("1/4", "DATE"), []),
        ("CRACKLES 1/2 WAY UP BILAT", ("1/2", "DATE"), []),
        ("CV: SR 60s w/ 1st deg AVB", ("60s", "DATE"), []),
        ("moved here in the 60s", ("60s", "DATE"), [("60s", "DATE")]),
    ],
)
def test_ner_entities_of_nursing_notes_are_mended(nlp, text, ent, expected):
    doc = _with_ents(nlp, text, [ent])
    assert [(e.text, e.label_) for e in doc.ents] == expected


@pytest.mark.parametrize(
    "text,ent,expected",
    [
        # an e-mail, IP address or id the patterns found is theirs: the NER entity holding
        # it keeps only what is left ("ADDRESS" is no date, "billing aware" no street)
        ("email daughter at jane.doe88@gmail.com with update", ("jane.doe88@gmail.com", "HOSPITAL"), []),
        ("IP ADDRESS 192.168.10.45 LOGGED IN", ("ADDRESS 192.168.10.45", "DATE"), []),
        ("acct # 55012833 billing aware", ("55012833 billing aware", "STREET"), []),
        # an age the patterns found is no part of a date; nor is a street
        ("pt born 1924, now 92 yo", ("now 92", "DATE"), []),
        ("pt's address 45 elm street, apt 2b, springfield", ("address 45 elm street, apt 2b", "DATE"), []),
        # a name beside a phone number stays the name
        ("son jim 617-555-0199 called", ("jim 617-555-0199", "PATIENT"), [("jim", "PATIENT")]),
        # an entity of the same category stays whole
        ("call 617-555-0199 x204", ("617-555-0199 x204", "PHONE"), [("617-555-0199 x204", "PHONE")]),
    ],
)
def test_structured_identifiers_of_the_patterns_win_over_the_ner(address_nlp, text, ent, expected):
    doc = address_nlp.make_doc(text)
    address_nlp.get_pipe("phi_ruler")(doc)
    start = text.index(ent[0])
    doc.ents = [doc.char_span(start, start + len(ent[0]), label=ent[1], alignment_mode="expand")]
    doc = address_nlp.get_pipe("phi_gazetteer")(doc)
    assert [(e.text, e.label_) for e in doc.ents] == expected


def test_structured_identifiers_can_be_left_to_the_ner():
    from spacy_deid.detect.patterns import PHI_PATTERNS

    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("span_ruler", name="phi_ruler", config={"spans_key": "phi_patterns"})
    nlp.add_pipe("phi_gazetteer", config={"patterns_key": ""})
    nlp.initialize()
    ruler.add_patterns(PHI_PATTERNS)
    doc = ruler(nlp.make_doc("acct # 55012833 billing aware"))
    doc.ents = [doc.char_span(7, 29, label="STREET")]
    # (not cut around the account number; "aware" ends a place in single-case notes)
    assert [e.text for e in nlp.get_pipe("phi_gazetteer")(doc).ents] == ["55012833 billing"]


def test_an_employer_in_mixed_case_text_is_named_by_its_capitals(nlp):
    assert found(nlp, "She works for Lending Club since May.") == [("Lending Club", "ORG")]
    assert found(nlp, "She works for a bank since may.") == []


@pytest.mark.parametrize(
    "text,expected",
    [
        # a corner of two streets, one with a street word, a number or a name no dictionary has, is one place
        ("lives on the corner of elm and main st with wife", [("corner of elm and main st", "STREET")]),
        ("Lives on corner of Elm St. and Main", [("corner of Elm St. and Main", "STREET")]),
        ("the corner of dalbraut 99 and frederikke coves.", [("corner of dalbraut 99 and frederikke coves", "STREET")]),
        ("found at the intersection of 5th and main, confused", [("intersection of 5th and main", "STREET")]),
        # a crossing after a word of place, one street numbered or with a street word
        ("triggered by driving past 6th and broadway where he", [("6th and broadway", "STREET")]),
        ("assaulted near center st and 8th ave w in town", [("center st and 8th ave w", "STREET")]),
        ("found at 7th st and mcdowell. phoenix fire", [("7th st and mcdowell", "STREET")]),
        # two numbers alone, or none, name no streets
        ("seen at 2nd and 3rd visits, pt at rest and sleeping, off 2 and on 3", []),
        ("fills at cvs route 9 and mail-order via insurer", []),
        # corners of the body are no streets
        ("mass at the corner of the eye and lid", []),
        ("lesion at corner of mouth and upper lip", []),
    ],
)
def test_cross_streets_of_a_corner(nlp, text, expected):
    streets = [sp for sp in found(nlp, text) if sp[1] == "STREET"]
    assert streets == expected


def test_two_names_with_a_middle_initial_between_are_one_name(nlp):
    """The NER finds "mijail" and "adomo" apart: the initial between them goes with them."""
    doc = _with_ents(nlp, "user: mijail c adomo, lóa f. sigmundsdóttir", [("mijail", "PATIENT"), ("adomo", "PATIENT"),
                                                                          ("lóa", "PATIENT"), ("sigmundsdóttir", "PATIENT")])
    spans = [(s.text, s.label_) for s in doc.spans["phi_gazetteer"] if s.label_ == "NAME"]
    assert ("mijail c adomo", "NAME") in spans and ("lóa f. sigmundsdóttir", "NAME") in spans
    # "a" between names is no initial, nor is a letter over a line break
    doc = _with_ents(nlp, "mijail a adomo\nmijail c\nadomo", [("mijail", "PATIENT"), ("adomo", "PATIENT")])
    assert not any(len(s) > 1 for s in doc.spans["phi_gazetteer"] if s.label_ == "NAME")


@pytest.mark.parametrize(
    "text,ents,expected",
    [
        # particles and a surname after a name the NER found
        ("As commenter Paul van der Voet points out", [("Paul", "PERSON")], ("Paul van der Voet", "NAME")),
        ("Unlike the van Gijn novel", [("Gijn", "PERSON")], ("van Gijn", "NAME")),
        # listed names coordinated with a name found
        ("Our founders: Eklund, Warren and Bailey.", [("Eklund", "PERSON")], ("Warren", "NAME")),
        ("on this list? sousa and ball were engineers", [("sousa", "PERSON")], ("ball", "NAME")),
        # a first name and a surname that end there
        ("parents john and barb king at bedside", [("john", "PERSON")], ("barb king", "NAME")),
    ],
)
def test_names_beside_the_names_found(nlp, text, ents, expected):
    doc = _with_ents(nlp, text, ents)
    assert expected in [(s.text, s.label_) for s in doc.spans["phi_gazetteer"]]


@pytest.mark.parametrize(
    "text,ents",
    [
        # a word a phrase goes on from, a stop word, a clinical term are no coordinated names
        ("pt seen by dr smith and green sputum noted", [("smith", "DOCTOR")]),
        ("called dr jones and will call back", [("jones", "DOCTOR")]),
        # in mixed-case text a lower-case word is no name
        ("Seen by Dr. Smith and rose from bed.", [("Smith", "DOCTOR")]),
    ],
)
def test_no_names_beside_the_names_found(nlp, text, ents):
    doc = _with_ents(nlp, text, ents)
    found_names = [s.text.lower() for s in doc.spans["phi_gazetteer"] if s.label_ == "NAME"]
    assert not {"green", "will", "rose"} & set(found_names), found_names


@pytest.mark.parametrize(
    "text,expected",
    [
        # a first name that is an ordinary word, alone and first in its sentence: the note's own
        # name makes it one in mixed-case text
        ("Name: Chase Meadows\nChase is a 98 yo gentleman.", [("Chase Meadows", "NAME"), ("Chase", "NAME")]),
        ("Daughter Grace Kowalczyk called. Grace will call back.", [("Grace Kowalczyk", "NAME"), ("Grace", "NAME")]),
        # not a lower-case word, nor a modal before its verb
        ("Spoke with Will Smith. Will follow up in am; chase the cultures.", [("Will Smith", "NAME")]),
        # in single-case text a word no list has, not an ordinary one
        ("pt: pelson, ruby. pelson slept well, chase cultures", [("pelson", "NAME"), ("ruby", "NAME"), ("pelson", "NAME")]),
    ],
)
def test_a_found_name_is_taken_again_where_it_stands_alone(nlp, text, expected):
    assert found(nlp, text) == expected


@pytest.mark.parametrize(
    "text,ents,expected",
    [
        # where a person works: capitalised words after the person and "of" / "from"
        ("Awards went to Yuito Hirai of Reed Elsevier last year.", [("Yuito Hirai", "PATIENT")], ["Reed Elsevier"]),
        ("Zoe Young of Inrix Traffic spoke first.", [("Zoe Young", "PATIENT")], ["Inrix Traffic"]),
        # ... and a possessive before a person
        ("The winners were Consumer Reports's Impi Nummelin and others.", [("Impi Nummelin", "PATIENT")],
         ["Consumer Reports"]),
        # a department, a clinical service, a state and a field's label are no organisation
        ("Seen by Dr. Ruiz of Cardiology today.", [("Ruiz", "DOCTOR")], []),
        ("Dr. Lee from Infectious Disease agrees.", [("Lee", "DOCTOR")], []),
        ("Her son John Bell from Texas visited.", [("John Bell", "PATIENT")], []),
        ("Name: John Bell Date of Birth: 1/2/1950", [("John Bell", "PATIENT")], []),
        # in single-case text a word no dictionary has or a company word names one, to the
        # first punctuation, stop word or word notes write after a name
        ("friend mary jones of dunkin donuts visited", [("mary jones", "PATIENT")], ["dunkin donuts"]),
        ("AWARDS WENT TO YUITO HIRAI OF ELSEVIER, AND PANJIVA'S RIKU ANDOU",
         [("YUITO HIRAI", "PATIENT"), ("RIKU ANDOU", "PATIENT")], ["ELSEVIER", "PANJIVA"]),
        ("awards went to yuito hirai of reed elsevier last year.", [("yuito hirai", "PATIENT")], ["reed elsevier"]),
        ("sister ann lee from out of state called", [("ann lee", "PATIENT")], []),
        ("DAUGHTER KIM FROM HOSPICE CARE", [("KIM", "PATIENT")], []),
        ("TALKED WITH GREATHUS FROM PHARMACY. RESP: NEBS Q4H", [("GREATHUS", "PATIENT")], []),
    ],
)
def test_organisations_beside_the_people_found(nlp, text, ents, expected):
    doc = _with_ents(nlp, text, ents)
    assert [s.text for s in doc.spans["phi_gazetteer"] if s.label_ == "ORG"] == expected


def test_a_listed_town_after_a_person_and_in_or_from(nlp):
    # "revere" is an ordinary word: a town where a person lives or comes from
    doc = _with_ents(nlp, "lives w/ daughter kim in revere, mary in bed", [("kim", "PATIENT"), ("mary", "PATIENT")])
    assert [(s.text, s.label_) for s in doc.spans["phi_gazetteer"] if s.label_ == "CITY"] == [("revere", "CITY")]


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Katrina Mota\nKnowledge Agency\n55470 72 Acheron Road Apt. 12", ["Knowledge Agency"]),
        # quote marks, a rare word on the person's line, words the name lists alone took
        ("??? Linneo Medrano\n??? American Red Ball Movers\n??? 79367 Nybyvägen 65", ["American Red Ball Movers"]),
        ("katrina mota\nknowledge agency\n55470 72 acheron road apt. 12", ["knowledge agency"]),
        # a department of a letterhead stays; no address line after it, no letterhead
        ("Dr. Mary Smith\nInternal Medicine\n55 Fruit St", []),
        ("Katrina Mota\nKnowledge Agency\nThank you for the referral.", []),
    ],
)
def test_a_letterheads_organisation_between_a_person_and_an_address(address_nlp, text, expected):
    doc = address_nlp(text)
    assert [s.text for s in doc.spans["phi_gazetteer"] if s.label_ == "ORG"] == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # a rare capitalised word carries the capitalised words beside it
        ("During 1980, Nera Economic Consulting invested heavily.", [("Nera Economic Consulting", "ORG")]),
        ("according to the Roadify Transit website.", [("Roadify Transit", "HOSPITAL")]),
        # ... a part a detector found does too
        ("During 2008, Sp Capital Iq invested heavily.", [("Sp Capital Iq", "ORG")]),
        # not a nationality, a country, an eponym's head, a field's label or a sentence's first word
        ("The Czech Border Force detained him.", []),
        ("The orchestra serves Southern Austria.", []),
        ("He had a Bankart Lesion repaired.", []),
        ("Nera Economic Horizons invested heavily.", []),
        # (a trade word at its end names a firm wherever it stands)
        ("Nera Economic Consulting invested heavily.", [("Nera Economic Consulting", "ORG")]),
        ("Name: Mary Green Phone: 555-1234", [("Mary Green", "NAME")]),
        # nor in single-case text
        ("during 1980, nera economic consulting invested heavily.", []),
    ],
)
def test_a_name_of_capitalised_words_is_taken_whole(nlp, text, expected):
    assert [(t, label) for t, label in found(nlp, text) if label != "DATE"] == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # a region's code after a comma, past a town the lists took for a person or a hospital
        ("to 50541 Mlýnská 1540 Apt. 5\nTrancoso\n, GU\n Portugal 44674", ("GU", "CITY")),
        ("19902 Dobrovského 1394 Apt. 066\nSt Georges, QC 54256", ("QC 54256", "STREET")),
    ],
)
def test_address_runs_take_region_codes(address_nlp, text, expected):
    doc = address_nlp(text)
    assert expected in [(s.text, s.label_) for s in doc.spans["phi_gazetteer"]]


def test_a_us_state_after_a_comma_is_no_region_code(address_nlp):
    doc = address_nlp("ADDRESS: 6581 SPENCER GATEWAY, EAST MARY, RI 02816")
    assert not [s for s in doc.spans["phi_gazetteer"] if "RI" in s.text.split()]


@pytest.mark.parametrize(
    "text,mixed",
    [
        # prose with few capitals (4% of its letters) still capitalises its sentences and names
        ("The title refers to 1668 Glyn St street in Highveld. It was on this street that many of the "
         "clubs where the band first played were situated. These early shows on Marina Fort Street were "
         "important to them.", True),
        # a lower-case note with a few acronyms is no mixed-case text, nor an all-caps one
        ("pt c/o CP overnight, HR 88, given asa and ntg with relief, family at bedside, plan cath in am", False),
        ("PT C/O CP OVERNIGHT, HR 88, GIVEN ASA", False),
        ("Pt seen. Daughter Mary at bedside.", True),
    ],
)
def test_mixed_case_is_told_by_capitalised_words_when_capitals_are_few(text, mixed):
    from spacy_deid.detect.gazetteers import is_mixed_case

    assert is_mixed_case(spacy.blank("en")(text)) is mixed


@pytest.mark.parametrize(
    "text,expected",
    [
        ("These early shows on Marina Fort Street were important.", [("Marina Fort Street", "STREET")]),
        ("She lives off Elm Road now.", [("Elm Road", "STREET")]),
        # not after a sentence's ordinary first word, nor with a clinical term, nor in single case
        ("Main Street was closed. Drive Home safely.", []),
        # in single-case text after a place's preposition, with a street word that is no other word
        ("these early shows on marina fort street were important.", [("marina fort street", "STREET")]),
        ("PT LIVES ON ELM STREET", [("ELM STREET", "STREET")]),
        # a sentence's first word after "St." is no saint's name
        ("lives in Framingham on Pleasant St. Pt is retired.", [("Pleasant St.", "STREET")]),
        # a numbered street; "rt" and its number after a place's preposition
        ("found down on 3rd ave near the shelter", [("3rd ave", "STREET")]),
        ("santyl at the pharmacy on rt 113. rt 2 lpm via nc, iv in rt 20g", [("rt 113", "STREET")]),
        ("to walmart pharmacy on airline hwy, discount card", [("airline hwy", "STREET")]),
        ("mvc on the highway, restrained", []),
        ("back on sex drive meds, on the road to recovery", []),
        # "st" after a street's name; before a capitalised name it is a saint
        ("pt prefers the one on essex st. will send msg", [("essex st", "STREET")]),
        ("Pharmacy (Walgreens, Main St) did not have it.", [("Main St", "STREET")]),
        ("Transferred from Boston St. Elizabeth's today.", []),
        # a numbered road or interstate
        ("She was driving on Route 93 when rear-ended.", [("Route 93", "STREET")]),
        ("MVC ON RTE 9 EASTBOUND, THEN I-95.", [("RTE 9", "STREET"), ("I-95", "STREET")]),
        ("route: iv. route of administration changed", []),
    ],
)
def test_streets_named_without_a_house_number(nlp, text, expected):
    assert [(t, label) for t, label in found(nlp, text) if label == "STREET"] == expected


@pytest.mark.parametrize(
    "text",
    [
        # a cue's country is no hospital (not PHI), nor a clinical word's ending after one
        "Hi, I will be travelling to Austria next week, so I need my card.",
        "The patient was escorted on the cart to the Postanesthesia Care Unit. She did well.",
        # "general" in lower case in mixed-case text ends no hospital's name
        "She was placed supine. Adequate general endotracheal anesthesia was induced.",
        # eponyms, sizes and clinical words are no organisation's name
        "A 27-French Olympus rectoscope was passed. Cheyne Stokes breathing noted.",
        "She presented to Labor and Delivery Triage at 40 weeks. Conscious Sedation was used.",
        # capitalised diagnoses and times after a preposition
        "She recovered from Community Acquired Pneumonia last year. Pain was worse at Night Time.",
        "He was admitted for Total Knee Arthroplasty. He listed songs for Entertainment Weekly.",
    ],
)
def test_mixed_case_rules_leave_countries_and_clinical_words(nlp, text):
    assert [(t, label) for t, label in found(nlp, text) if label in ("HOSPITAL", "ORG", "NAME")] == []


@pytest.mark.parametrize(
    "text,expected",
    [
        # after a trade, a verb of work or a person and "at": a place of work of ordinary words
        ("He was previously a line cook at Legal Sea Foods. Lives alone.", [("Legal Sea Foods", "ORG")]),
        ("Her psychiatrist is Dr. Naomi Brandt at Riverside Community Care.",
         [("Naomi Brandt", "NAME"), ("Riverside Community Care", "HOSPITAL")]),
    ],
)
def test_a_place_of_work_of_ordinary_capitalised_words(nlp, text, expected):
    assert found(nlp, text) == expected


def test_a_ner_phone_of_two_house_numbers_and_a_street_word_is_a_street(nlp):
    from spacy_deid.detect.gazetteers import is_mixed_case

    doc = _with_ents(nlp, "704 1436 redbud drive\ncite essanaouber", [("704 1436 redbud drive", "PHONE")])
    gaz = nlp.get_pipe("phi_gazetteer")._gazetteer
    assert gaz.numbered_street(doc[0:4], is_mixed_case(doc))
    assert not gaz.numbered_street(nlp.make_doc("617 555 1234 today")[0:4], False)


@pytest.mark.parametrize(
    "text,expected",
    [
        # after a cue of employment, words that say more than a kind of workplace, in any case
        ("i work for chemical abstracts service", [("chemical abstracts service", "ORG")]),
        ("I WORK FOR CHEMICAL ABSTRACTS SERVICE", [("CHEMICAL ABSTRACTS SERVICE", "ORG")]),
        ("works at grocery store", []),
        ("works at family farm", []),
        ("works at the car wash on main", []),
        ("retired from teaching", []),
        ("Both worked for short time but then seemed to lose effect", []),
    ],
)
def test_an_employer_of_ordinary_words_after_a_cue_of_employment(nlp, text, expected):
    assert found(nlp, text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Destiny: Remember me, Maria? When I came back.", [("Maria", "NAME")]),
        ("Thank you, Grace.", [("Grace", "NAME")]),
        # a month, a lower-case word, single-case text: no one addressed
        ("Given tylenol, May 3.", []),
        ("thank you, grace.", []),
        # a field's value, a very common word
        ("ANESTHESIA: , General. FINDINGS: none.", []),
    ],
)
def test_a_first_name_someone_is_addressed_by(nlp, text, expected):
    assert found(nlp, text) == expected


@pytest.mark.parametrize(
    "text,ents,label",
    [
        # a dictionary's word after a weak cue is no name; a street's "st." starts no saint's hospital
        ("pt called triage line c/o ha", [], "NAME"),
        ("pt prefers cvs on essex st. will send msg", [], "HOSPITAL"),
    ],
)
def test_no_name_or_hospital_of_ordinary_words_after_weak_cues(nlp, text, ents, label):
    doc = _with_ents(nlp, text, ents)
    assert [s.text for s in doc.spans["phi_gazetteer"] if s.label_ == label] == []


def test_ner_places_of_counts_and_lower_case_tails_are_refused_or_trimmed(nlp):
    # "12 stairs to enter": a count of things is no street
    doc = _with_ents(nlp, "2nd floor apt, 12 stairs to enter", [("12 stairs", "STREET")])
    assert [e.text for e in doc.ents] == []
    # a mixed-case hospital ends on its capitalised words
    doc = _with_ents(nlp, "He presented to the Lawrence General emergency department on Monday.",
                     [("Lawrence General emergency department", "HOSPITAL")])
    assert [e.text for e in doc.ents] == ["Lawrence General"]


def test_a_ner_person_that_is_a_listed_town_after_in_is_a_town(nlp):
    # "somerville" as a DOCTOR after "in": a town's surrogate, not a person's
    doc = _with_ents(nlp, "lives alone in 2nd floor apt in somerville, niece tasha", [("somerville", "DOCTOR")])
    assert [(e.text, e.label_) for e in doc.ents] == [("somerville", "CITY")]
    # a listed name stays a person ("in jordan" may be either: the NER's word stands)
    doc = _with_ents(nlp, "spoke with dr jordan in clinic", [("jordan", "DOCTOR")])
    assert [(e.text, e.label_) for e in doc.ents] == [("jordan", "DOCTOR")]


def test_an_obstetric_history_is_no_username(nlp):
    doc = _with_ents(nlp, "OB NOTE: G2P1 at 39+2 wks.", [("G2P1", "USERNAME")])
    assert [e.text for e in doc.ents] == []


@pytest.mark.parametrize(
    "text,expected",
    [
        # a hospital's abbreviation before its unit, after "in", "at", "to"
        ("pt seen in bmc ed 2 days ago", [("bmc", "HOSPITAL")]),
        ("SENT TO NWH ICU OVERNIGHT", [("NWH", "HOSPITAL")]),
        # not a clinical abbreviation or an ordinary word before a unit
        ("pt seen in gi clinic, then to the ed, then in cath lab", []),
        # a pharmacy's name after "pharmacy"
        ("confirmed w/ outpt pharmacy cvs in woburn", [("cvs", "ORG"), ("woburn", "CITY")]),
        ("my pharmacy (stop & shop in malden) did not have it", [("stop & shop", "ORG"), ("malden", "CITY")]),
        # an ordinary or clinical word after "pharmacy" is none
        ("pharmacy called back, pharmacy is aware, pharmacy consult placed", []),
    ],
)
def test_places_of_care_named_by_a_short_word_beside_their_service(nlp, text, expected):
    assert found(nlp, text) == expected


def test_an_interpreter_is_a_role_before_a_name(nlp):
    assert found(nlp, "russian interpreter irina present via phone") == [("irina", "NAME")]


@pytest.mark.parametrize(
    "text,expected",
    [
        # a titled name goes on over a hyphenated first name's second part and a listed surname
        # that is a common word, where the name ends after it
        ("seen by dr hyun-woo park, no changes", [("hyun-woo park", "NAME")]),
        ("Seen by Dr. Mei-Ling Young.", [("Mei-Ling Young", "NAME")]),
        # not over a modal before its verb
        ("dr smith will see pt", [("smith", "NAME")]),
    ],
)
def test_a_titled_name_goes_on_over_a_common_surname_where_it_ends(nlp, text, expected):
    assert found(nlp, text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # agencies of care at home and in the community, named by a place or a name before them
        ("vna through boston home care, meals on wheels", [("boston home care", "HOSPITAL")]),
        ("Referred to Elder Services of the Merrimack Valley.", [("Elder Services", "HOSPITAL"), ("Merrimack Valley", "CITY")]),
        # the kind of care alone names no agency
        ("pt needs home care. discharged to home health. He left the surgery center.", []),
    ],
)
def test_agencies_of_care_at_home(nlp, text, expected):
    assert found(nlp, text) == expected


def test_a_device_after_hyphenated_names_is_an_eponym(nlp):
    assert found(nlp, "pt using passy-muir valve during day, miami j collar on") == []


@pytest.mark.parametrize(
    "text,expected",
    [
        # a trade of manual or service work before "at"/"for", and driving for a firm, in single case
        ("NOW LINE COOK AT OLIVE GARDEN. LEGAL ISSUES NONE", [("OLIVE GARDEN", "ORG")]),
        ("mail carrier for usps in pawtucket", [("usps", "ORG"), ("pawtucket", "CITY")]),
        ("NOW DRIVES FOR UBER ~60 HRS/WK", [("UBER", "ORG")]),
        ("baby delivered for non-reassuring fetal tracing", []),
        # a kind of workplace names none
        ("works as a cook at family restaurant. nurse at grocery store", []),
        # churches, parishes, schools and police by the word that ends their name
        ("ATTENDS ST. MICHAEL'S PARISH. ON DISABILITY", [("ST. MICHAEL'S PARISH", "ORG")]),
        ("3rd grade at longfellow elementary in portland", [("longfellow elementary", "ORG"), ("portland", "CITY")]),
        ("BIB CAMBRIDGE POLICE AFTER CALLING 911", [("CAMBRIDGE POLICE", "ORG")]),
        ("pt goes to church. called police. the catholic church", []),
    ],
)
def test_workplaces_churches_schools_and_police(nlp, text, expected):
    assert found(nlp, text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # the value of a facility, school or insurance field, to an id's words
        ("Receiving Facility: Kindred Transitional Care of Peabody", [("Kindred Transitional Care of Peabody", "ORG")]),
        ("COPAY. INS: HARVARD PILGRIM MEMBER ID 123", [("HARVARD PILGRIM", "ORG")]),
        ("SCHOOL: LINCOLN HIGH", [("LINCOLN HIGH", "ORG")]),
        # a public plan or a kind of place names no one, and a field's label is no hospital
        ("ins: medicare part a. insurance: self pay. facility: home. Facility: nursing home", []),
        ("REFERRING HOSPITAL: see below", []),
    ],
)
def test_facility_school_and_insurance_fields(nlp, text, expected):
    assert found(nlp, text) == expected


def test_scores_and_signs_named_after_people_are_no_names(nlp):
    text = "SKIN: BRADEN 13. CXR: KERLEY B LINES. KNEE: MCMURRAY NEG, LACHMAN NEG. per opioid agreement"
    assert found(nlp, text) == []


@pytest.mark.parametrize(
    "text,expected",
    [
        # a listed town right after a hospital or organisation names its branch
        ("OUTPT HD AT DAVITA REVERE MWF", [("DAVITA", "HOSPITAL"), ("REVERE", "CITY")]),
        # a word, "of" and a listed place after a cue: a facility's branch
        ("dementia, admitted from sunrise of wellesley", [("sunrise of wellesley", "HOSPITAL")]),
        # not a direction or a kind of place before "of"
        ("moved to north of boston. from home of daughter", [("boston", "CITY")]),
    ],
)
def test_branches_named_by_their_town(nlp, text, expected):
    assert found(nlp, text) == expected


def test_an_organisation_ends_before_a_comma_and_a_role(nlp):
    doc = _with_ents(nlp, "pt works nights at market basket, girlfriend yesenia coming", [("market basket, girlfriend yesenia coming", "ORGANIZATION")])
    assert [(e.text, e.label_) for e in doc.ents] == [("market basket", "ORGANIZATION")]


@pytest.mark.parametrize(
    "text,ent,kept",
    [
        ("COMPLETED 11TH GRADE AT SCHOOL", ("11TH GRADE", "DATE"), False),
        ("SEEN ON THE 11TH, GRADE 2 EDEMA", ("11TH", "DATE"), True),
    ],
)
def test_an_ordinal_of_a_thing_inside_a_date_entity_is_no_date(nlp, text, ent, kept):
    assert bool(_with_ents(nlp, text, [ent]).ents) == kept


def test_godparents_are_roles_and_a_specialty_clinic_of_a_common_word_is_no_hospital(nlp):
    assert found(nlp, "close to godmother fatima. d/c w/ hand clinic f/u, lives in brooks assisted living") == [("fatima", "NAME"), ("brooks assisted living", "HOSPITAL")]


@pytest.mark.parametrize(
    "text,ent,kept",
    [
        # doses and scores with a clinical word are no date; a date with a month stays
        ("meds: atorvastatin 40, omeprazole 20. sh: none", ("atorvastatin 40, omeprazole 20", "DATE"), False),
        ("SKIN: BRADEN 13, COCCYX STAGE II", ("BRADEN 13", "DATE"), False),
        ("started lisinopril march 3 2021", ("march 3 2021", "DATE"), True),
        # a clinical abbreviation without its number refuses nothing (an address the NER called a date)
        ("SEND A NEW ONE TO 27 2711 QUEENS SQ, KOSTELEC TODAY", ("27 2711 QUEENS SQ, KOSTELEC", "DATE"), True),
    ],
)
def test_doses_and_scores_are_no_dates(nlp, text, ent, kept):
    assert bool(_with_ents(nlp, text, [ent]).ents) == kept


@pytest.mark.parametrize(
    "text,expected",
    [
        # "st" before an ECG's words is no saint, and a dictionary's word after a name is no surname
        ("ecg w/ st dep v4-v6, ST ELEV in II", []),
        ("transferred from st elizabeths today", [("st elizabeths", "HOSPITAL")]),
        ("pe: lungs cta, no jvd, no le edema.", []),  # ("le": lower extremity, a clinical term)
    ],
)
def test_ecg_segments_and_dictionary_words_after_a_name(nlp, text, expected):
    assert found(nlp, text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # schools after what a social history writes before them, with a kind word and a name of three words
        ("Oldest attends Madison Park High School.", [("Madison Park High School", "LOCATION_OTHER")]),
        ("Graduated Dean Technical High School in 2008.", [("Dean Technical High School", "LOCATION_OTHER")]),
        ("Sib attends Little Sprouts Daycare.", [("Little Sprouts Daycare", "LOCATION_OTHER")]),
        ("Attends high school, plays soccer.", []),
        ("Attends church weekly.", []),
        # a facility named "village", an agency of visiting nurses after a town
        ("Referrals sent to Windsor Village and others.", [("Windsor Village", "HOSPITAL")]),
        ("Home with services via Norwell VNA.", [("Norwell VNA", "ORG")]),
        ("The VNA will visit tomorrow.", []),
    ],
)
def test_schools_villages_and_visiting_nurses_in_every_case(nlp, text, expected):
    assert_found_in_every_case(nlp, text, expected)


@pytest.mark.parametrize(
    "text,expected",
    [
        # cities of the world, with and without accents, anywhere; one that is a name after a place cue
        ("Pt immigrated from Lagos in 2019.", [("Lagos", "CITY")]),
        ("Family in Budapest, visiting from Koln.", [("Budapest", "CITY"), ("Koln", "CITY")]),
        ("Born in Port-au-Prince, Haiti.", [("Port-au-Prince", "CITY")]),
        ("Grew up in Guatemala City.", [("Guatemala City", "CITY")]),
        ("Son Lagos called.", [("Lagos", "NAME")]),
        # countries stay, and so does the coma scale
        ("Travelled to Mexico last year.", []),
        ("Glasgow coma scale 15.", []),
    ],
)
def test_world_cities(nlp, text, expected):
    assert_found_in_every_case(nlp, text, expected)


def test_drug_names_are_ordinary_words_never_names():
    common = read_common_words(asset_path("gazetteers/common_words.tsv"), 8.0, ordinary_only=True)
    drugs = {w for w in (asset_path("gazetteers/drug_names.txt").read_text(encoding="utf-8").split("\n")) if w and not w.startswith("#")}
    assert {"apixaban", "torsemide", "eliquis", "orapred", "ticagrelor"} <= drugs <= common | read_common_words(asset_path("gazetteers/common_words.tsv"), 2.5)
    names = set()
    for key in ("first_names", "last_names"):
        names |= set(asset_path(f"gazetteers/{key}.txt").read_text(encoding="utf-8").split("\n"))
    assert not drugs & names  # "allegra", "kendrick" stay names


@pytest.mark.parametrize(
    "text,expected",
    [
        # an insurer named by what follows it, whatever its words
        ("Pt has Blue Cross Blue Shield PPO, deductible met.", [("Blue Cross Blue Shield PPO", "ORG")]),
        ("medicare a/b and tufts health plan supplement.", [("tufts health plan", "ORG")]),
        ("Pt also has MVP Medicare supplement.", [("MVP Medicare supplement", "ORG")]),
        ("His health plan requires auth.", []),
        ("Dental PPO, no vision plan.", []),
        # fields of agencies
        ("DME: Lincare", [("Lincare", "ORG")]),
        ("Hospice: pending", []),
    ],
)
def test_insurers_and_agency_fields_in_every_case(nlp, text, expected):
    assert_found_in_every_case(nlp, text, expected)


@pytest.mark.parametrize(
    "text,expected",
    [
        # a header field's value after a caller's or contact's label is a name
        ("CALLER: WILL BAKER (HUSBAND) REPORTS", [("WILL BAKER", "NAME")]),
        ("caller: will baker (husband) reports", [("will baker", "NAME")]),
        ("HCP: son, aware", []),
    ],
)
def test_callers_and_contacts_named_after_their_field(nlp, text, expected):
    assert found(nlp, text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # a modal verb before a verb or its shorthand is no one's name, after a role word too
        ("daughter will bring specimen to lab", []),
        ("CLOSE TO DAUGHTER. WILL F/U W/ PCP", []),
        ("SW WILL ARRANGE CAB VOUCHER", []),
        ("son will called back", [("will", "NAME")]),
        ("dr will aware", [("will", "NAME")]),
        ("DAUGHTER NANCY WILL BRING IN CLOTHES", [("NANCY", "NAME")]),
    ],
)
def test_a_modal_before_a_verb_is_no_name(nlp, text, expected):
    assert found(nlp, text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # named by "of" after what they are
        ("Neuro clinic at Our Lady of the Lake in 1 wk", [("Our Lady of the Lake", "HOSPITAL")]),
        # a hospital or clinic named by a place after "of", with the kind words before it
        ("CHILDREN'S HOSPITAL OF PHILADELPHIA\nDISCHARGE SUMMARY", [("CHILDREN'S HOSPITAL OF PHILADELPHIA", "HOSPITAL")]),
        ("dr. halvorsen, physicians' clinic of iowa, fax. clinic of origin, hospital of choice",
         [("halvorsen", "NAME"), ("physicians' clinic of iowa", "HOSPITAL")]),
        ("Pt prefers Hospice of the Western Reserve.", [("Hospice of the Western Reserve", "HOSPITAL")]),
        ("graduated college of nursing", []),
        # a town of two ordinary words after "in"; an insurer before its member's number
        ("owned salon in garden grove, sold it", [("garden grove", "CITY")]),
        ("insurance florida blue id xjf882041937", [("florida blue", "ORG")]),
        ("insurance approved today", []),
        # with no colon and no member's number, a name of two to four words that ends its phrase
        ("untreated. insurance nebraska total care. plan", [("nebraska total care", "ORG")]),
        # a longer insurer's name; a public plan's word beside a word no dictionary has; one such word
        ("AT BEDSIDE. INS BLUE CROSS BLUE SHIELD OF TEXAS. ALLERGIES", [("BLUE CROSS BLUE SHIELD OF TEXAS", "ORG")]),
        ("pcp aware. ins aarp medicare complete. ins humana. ins active. insurance medicare advantage.",
         [("aarp medicare complete", "ORG"), ("humana", "ORG")]),
        # congregations named by a denomination
        ("driving to first baptist w/o issue. attends grace lutheran church. pt is baptist, a southern baptist",
         [("first baptist", "ORG"), ("grace lutheran church", "ORG")]),
        # a kind of role, no name ("house officer"); a first name before a credential stays one
        ("TO FOLLOW. PAGED HOUSE OFFICER BEEPER 3. spoke w/ grace rn", [("grace", "NAME")]),
        ("ed md note\npt here", []),
        ("i/o 2L pos. -N. BRADY RN", [("BRADY", "NAME")]),
        # a service goes with the whole hyphened town
        ("f/u w/ dr feldman at newton-wellesley cardiology.", [("feldman", "NAME"), ("newton-wellesley cardiology", "ORG")]),
        # clinical words no name list holds as names ("lada", latent autoimmune diabetes; "ab", antibody)
        ("type 1 vs lada (gad65 ab pending)", []),
        # a side of the compass and a landscape word or "end" after a word of place; a cue of three words
        ("growing up in the north end. lives in the south shore area. at the west end of the hall, pain in the south side",
         [("north end", "LOCATION_OTHER"), ("south shore", "LOCATION_OTHER")]),
        ("grew up in mattapan", [("mattapan", "CITY")]),
        # a scan's or an antigen's letters after a comma are no state ("CT'S", "CA 19-9")
        ("PLAN: DANGLE, CT'S TO WATER SEAL. painless jaundice, CA 19-9 412", []),
        # a small town of the postal list only where the note says it is a place
        ("drains: penrose 0.25 inch. lives in mattapan w/ dtr, mom in moncks corner.", [("mattapan", "CITY"), ("moncks corner", "CITY")]),
        # a town of two ordinary words after "to"; a prison by its name
        ("~2 hr to rapid city. dad at lieber correctional. change to short stay", [("rapid city", "CITY"), ("lieber correctional", "ORG")]),
        ("insurance pending approval. insurance company notified. insurance medicare part b.", []),
        # a credential ends a name after a field's cue
        ("crew: fox emt-b arrived", [("fox", "NAME")]),
    ],
)
def test_names_by_of_towns_insurers_and_crews(nlp, text, expected):
    assert found(nlp, text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # hyphenated eponyms name scores, drains and procedures; double-barrelled surnames stay
        ("sah, hunt-hess 3, fisher 4", []),
        ("JACKSON-PRATT LUQ 60 ML", []),
        ("s/p roux-en-y gastric bypass", []),
        ("dr smith-jones aware", [("smith-jones", "NAME")]),
        # scores and weights of clinical shorthand, credentials
        ("gcs 15, glasgow 6 on arrival", []),
        ("wt 94.2 kg (edw 91.0)", []),
    ],
)
def test_hyphenated_eponyms_and_shorthand_are_no_names(nlp, text, expected):
    assert found(nlp, text) == expected


@pytest.mark.parametrize(
    "text,ent,expected",
    [
        # a date's entity loses the words around it that are no date's
        ("SERVED IN ARMY 1990-2012, 2 DEPLOYMENTS", ("ARMY 1990-2012", "DATE"), [("1990-2012", "DATE")]),
        ("SEEN AT VA PTSD CLINIC UNTIL 2019, LOST", ("UNTIL 2019", "DATE"), [("2019", "DATE")]),
        ("seen early march 2019 by pcp", ("early march 2019", "DATE"), [("early march 2019", "DATE")]),
        # numbers among ordinary words are no date; an address's words no list has stay
        ("f w/ sah, hunt-hess 3, fisher 4, s/p coiling", ("3, fisher 4, s", "DATE"), []),
        ("Please update the billing address with 54 Soo 36", ("54 Soo 36", "DATE"), [("54 Soo 36", "DATE")]),
        # measurements, ranges and times are no contact
        ("evd open at 10 cmh2o, draining 8-12 ml/hr", ("10 cmh2o, draining 8-12 ml", "PHONE"), []),
        ("bs log 140-210, pt admits", ("140-210", "PHONE"), []),
        ("THE RESTAURANT IS AT 5521 119 COUNTESS CLOSE", ("5521 119 COUNTESS CLOSE", "PHONE"), [("5521 119 COUNTESS CLOSE", "PHONE")]),
        ("ativan 1 mg po x1 at 2200 w/ good effect", ("2200", "PHONE"), []),
        ("call 617-555-0120 ext 4418 today", ("617-555-0120 ext 4418", "PHONE"), [("617-555-0120 ext 4418", "PHONE")]),
    ],
)
def test_dates_and_contacts_of_a_ner_by_their_form(nlp, text, ent, expected):
    doc = _with_ents(nlp, text, [ent])
    assert [(e.text, e.label_) for e in doc.ents] == expected


@pytest.mark.parametrize(
    "text,person,expected",
    [
        # the organisation a clinician signs with, after the credentials (and a specialty)
        ("pt resting.\nn. osei, md, psychiatry, northwestern memorial", "n. osei", ("northwestern memorial", "ORG")),
        ("pt stable.\na. sorensen rn, legacy emanuel", "a. sorensen", ("legacy emanuel", "ORG")),
        ("fever.\nDr. Ann Kim, MD, Cardiology, Lakeside Heart Group", "Ann Kim", ("Lakeside Heart Group", "ORG")),
        # a shift, a ward, a role, a department or a credential is none
        ("plan as above.\nj. smith rn, charge nurse", "j. smith", None),
        ("plan.\nk. lee rn, micu", "k. lee", None),
        ("ok.\n- m. jones, rn, night shift", "m. jones", None),
        ("ok.\nT. Ruiz, RN, BSN, 7 South", "T. Ruiz", None),
        ("ok.\nr. patel md, internal medicine", "r. patel", None),
        ("seen.\nE. BROUSSARD, MD, PAGER 4-1187", "E. BROUSSARD", None),
        # not on a line the name does not open
        ("called by n. osei, md, psychiatry, northwestern memorial", "n. osei", None),
    ],
)
def test_the_organisation_a_clinician_signs_with(nlp, text, person, expected):
    doc = _with_ents(nlp, text, [(person, "DOCTOR")])
    orgs = [(s.text, s.label_) for s in doc.spans["phi_gazetteer"] if s.label_ == "ORG"]
    assert orgs == ([expected] if expected else [])


@pytest.mark.parametrize(
    "text,expected",
    [
        # initials joined to a credential by a slash, first or last on a line
        ("lactate 0800.\njl/rn", [("jl", "NAME")]),
        # after a dash, last in the note
        ("re: dispo to rehab. - jm", [("jm", "NAME")]),
        ("plan: cont. - DEB", [("DEB", "NAME")]),
        ("plan: cont abx - prn. will f/u - iv", []),
        ("plan as above. mk/rn", [("mk", "NAME")]),
        ("SITTER.\nAW/RN.", [("AW", "NAME")]),
        ("eval by pt/ot today, sw/rn meeting", []),
        # a sign-off glued to its dash, last in the note
        ("d/w pt.\n-RW", [("-RW", "NAME")]),
        ("pt resting.\n-ok", []),
        # a dictated report's initials, alone on their line or before its "D:" field
        ("Dictated by the attending.\nRP/JLW\nD: 03/04/19", [("RP", "NAME"), ("JLW", "NAME")]),
        ("pending recheck.\nmo/kr", [("mo", "NAME"), ("kr", "NAME")]),
        ("clinic may 11.\nsv/dmr  d: 04/13/16  t: 04/14/16", [("sv", "NAME"), ("dmr", "NAME")]),
        ("Signed by the attending\nAL/TS  D: 03/05/19", [("AL", "NAME"), ("TS", "NAME")]),
        ("CHEST\nPA/LAT\nno acute process\nRN/MD\niv/po abx\nYes/No\n", []),
        # nicknames in quotes after a name, a role or "goes by"
        ('wife patricia ("pat") at bedside', [("patricia", "NAME"), ("pat", "NAME")]),
        ('NOTE. GIRLFRIEND "BUNNY" CALLED', [("BUNNY", "NAME")]),
        ('PT GOES BY "SONNY". CALM.', [("SONNY", "NAME")]),
        ('pt states "i feel fine"', []),
        # a role word no dictionary has is a cue, no name
        ("found by girlfriend april at home", [("april", "NAME")]),
    ],
)
def test_initials_before_a_slash_credential_and_nicknames(nlp, text, expected):
    assert [sp for sp in found(nlp, text) if sp[1] == "NAME"] == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # care homes named by ordinary and landscape words after going, staying or sending
        ("Dispo: Back to Maple Grove when cx neg", [("Maple Grove", "HOSPITAL")]),
        (
            "REFERRALS SENT TO CEDAR CREST, THE WILLOWS, ARBOR TERRACE.",
            [("CEDAR CREST", "HOSPITAL"), ("WILLOWS", "HOSPITAL"), ("ARBOR TERRACE", "HOSPITAL")],
        ),
        ("snf progress note - maple ridge\ndos 3/4", [("maple ridge", "HOSPITAL")]),
        ("walks to the park daily, back to the floor", []),
        # funeral homes, heart and wound centres, firms by their trade word
        ("yoon pronounced. keohane funeral home notified.", [("keohane funeral home", "HOSPITAL")]),
        ("works at a body shop (hall's auto).", [("hall's auto", "ORG")]),
        # the town after a street's address; shorthand between commas is none
        ("D/C BACK TO GOLDEN AGE MANOR, 1200 RIVER RD, BATON ROUGE.", [("GOLDEN AGE MANOR", "HOSPITAL"), ("BATON ROUGE", "CITY")]),
        ("bp 120/80, hr 88, st, mobile", []),
    ],
)
def test_care_homes_funeral_homes_and_towns_after_a_street(nlp, text, expected):
    assert [sp for sp in found(nlp, text) if sp[1] != "NAME"] == expected


@pytest.mark.parametrize(
    "text,ent,expected",
    [
        # a contact ends before a comma and a word; hours of a session are no contact or date
        ("endo: fs q1h 180-250, ag closed at 0300", ("180-250, ag closed", "PHONE"), []),
        ("hd via l avf 2200-0200, 2.5l removed", ("2200-0200", "PHONE"), []),
        (
            "lives at 79063 63 rue de kairouan, cite el farik",
            ("79063 63 rue de kairouan, cite el farik", "PHONE"),
            [("79063 63 rue de kairouan, cite el farik", "PHONE")],
        ),
        ("resp: proned 1600-1200 (20h)", ("1600-1200", "DATE"), []),
        ("SERVED 2000-2010 IN ARMY", ("2000-2010", "DATE"), [("2000-2010", "DATE")]),
        ("call 617-555-0120, ext 4418 today", ("617-555-0120, ext 4418", "PHONE"), [("617-555-0120, ext 4418", "PHONE")]),
        # a modal ends a name ("would", "could" too)
        ("attending dr. goldfarb would discuss in am", ("goldfarb would discuss", "DOCTOR"), [("goldfarb", "DOCTOR")]),
    ],
)
def test_contacts_and_hours_of_a_ner_by_their_form(nlp, text, ent, expected):
    doc = _with_ents(nlp, text, [ent])
    assert [(e.text, e.label_) for e in doc.ents] == expected


@pytest.mark.parametrize(
    "text,ents,expected",
    [
        # a month/day right after a person or hospital dates the visit; not a score or a count
        ("f/u dr abdullah 1/12, pulm", [("abdullah", "DOCTOR")], [("1/12", "DATE")]),
        ("from saint francis hospital 10/4 s/p fall", [("saint francis hospital", "HOSPITAL")], [("10/4", "DATE")]),
        ("dr smith 8/10 pain. gave mary 1/2 tab", [("smith", "DOCTOR"), ("mary", "PATIENT")], []),
        # an age over 89 between commas after a person
        ("SOCIAL: WIFE GLORIA, 90, AT BEDSIDE", [("GLORIA", "PATIENT")], [("90", "AGE")]),
        ("SOCIAL: WIFE GLORIA, 60, AT BEDSIDE", [("GLORIA", "PATIENT")], []),
        ("SOCIAL: WIFE MAY (92) IN TO VISIT", [("MAY", "PATIENT")], [("92", "AGE")]),
        ("SOCIAL: WIFE MAY (92 BEDS) IN TO VISIT", [("MAY", "PATIENT")], []),
        # an age over 89 right after a person or the patient's word where a phrase ends
        ("RES E. STROUD 94 @ OAK TERRACE", [("E. STROUD", "PATIENT")], [("94", "AGE")]),
        ("pt lester grimes 90, chf. pt thaddeus wolfe 97 expired", [("lester grimes", "PATIENT"), ("thaddeus wolfe", "PATIENT")],
         [("90", "AGE"), ("97", "AGE")]),
        # a bare number after the patient's word is a value; a doctor's, a clock time: none
        ("T-MAX PT 101 @ 0400. glucose 48, pt 95. PT 100, OT 100 TODAY", [], []),
        ("paged dr smith 0100, no new orders. dr lee 100. Mary Jones 104, Apt 3",
         [("smith", "DOCTOR"), ("lee", "DOCTOR"), ("Mary Jones", "PATIENT")], []),
        ("pt thaddeus wolfe 98 expired 0612. pt 100 units", [("thaddeus wolfe", "PATIENT")], [("98", "AGE")]),
        ("Mr. Jones 101, fever. resident jones 104, bed b", [("Jones", "PATIENT"), ("jones", "PATIENT")], []),
        # before a verb of the note's first line; after a title after the patient's word; after a
        # title and two names below a fever's 100
        ("pt minerva toll 98 lives w/ dtr. res mr. hughes 92 d/c o2. pt mr. jones 96 sat on ra. pt mrs. smith 91 from 2l nc",
         [("minerva toll", "PATIENT"), ("hughes", "PATIENT"), ("jones", "PATIENT"), ("smith", "PATIENT")],
         [("98", "AGE")]),
        # a value after the name: on oxygen, a unit, a position, a field, a change
        ("pt mr. jones 95 on ra. pt john smith 98 pounds. ms. irma kovac 97 sitting. pt john smith 92: afib. "
         "pt mr. doe 92 from 88", [("jones", "PATIENT"), ("john smith", "PATIENT"), ("irma kovac", "PATIENT"),
                                    ("doe", "PATIENT")], []),
        ("pt mr. abernathy 98, end stage chf. ms. irma kovac 96 found on floor", [("abernathy", "PATIENT"), ("irma kovac", "PATIENT")],
         [("98", "AGE"), ("96", "AGE")]),
        ("Mrs. Ann Lee 101 degrees. mr. lee 99, no fever. ms. irma kovac 96 kg", [("Ann Lee", "PATIENT"), ("lee", "PATIENT"), ("irma kovac", "PATIENT")], []),
        # a measure, a percentage, an age under 90, a dose: none
        ("pt 100% on ra, sats 95. hr 92, pt 94.5 kg. pt jones 60, chf. dr lee 100 mg", [("jones", "PATIENT"), ("lee", "DOCTOR")], []),
        # an extension after a person and a spaced "x"; not a count
        ("CASE MGR ELLIE X 7718.", [("ELLIE", "DOCTOR")], [("X 7718", "PHONE")]),
        ("wife jane x 2 visits. dr lee x 3 days", [("jane", "PATIENT"), ("lee", "DOCTOR")], []),
        ("ambulated with pt ellie x 200 ft. dr bell x 1500 feet. called dr smith x 2000", [
            ("ellie", "PATIENT"), ("bell", "DOCTOR"), ("smith", "DOCTOR")], []),
        ("diet per rd amy x 2500 kcal. called dr smith x 2400", [("amy", "DOCTOR"), ("smith", "DOCTOR")], []),
        ("dr lee x 2000 units", [("lee", "DOCTOR")], []),
    ],
)
def test_dates_and_ages_beside_people(nlp, text, ents, expected):
    doc = _with_ents(nlp, text, ents)
    assert [(s.text, s.label_) for s in doc.spans["phi_gazetteer"] if s.label_ in ("DATE", "AGE", "PHONE")] == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # a town's police or fire department; peritoneal dialysis and parkinson's are none
        ("brought in by phoenix pd after found down", [("phoenix pd", "ORG")]),
        ("BIB MESA FD", [("MESA FD", "ORG")]),
        # a town's court, police department or public office of more words
        ("escalating. albuquerque police dept officer at bedside", [("albuquerque police dept", "ORG")]),
        # a town's practice of a specialty
        ("referred by west hollywood dermatology, biopsy. lives in quincy. cardiology f/u",
         [("west hollywood dermatology", "ORG"), ("quincy", "CITY")]),
        # a county's jail and probation
        ("hx incarceration catawba county detention center. on luzerne county adult probation",
         [("catawba county detention center", "ORG"), ("luzerne county adult probation", "ORG")]),
        ("hearing in cleveland municipal court. phoenix fire gave narcan",
         [("cleveland municipal court", "ORG"), ("phoenix fire", "ORG")]),
        ("lives in boston. public health nurse", [("boston", "CITY")]),
        ("pt on pd at home, pd meds held", []),
        # an ordinary surname before a credential, an apostrophe's surname, a month ends a name
        ("cath lab.\nseen w/ jamal person, pa", [("jamal person", "NAME")]),
        ("f/u: endo dr ellen marsh jul 25", [("ellen marsh", "NAME")]),
        # romanized Japanese, Chinese and Vietnamese surnames
        ("assist: dr tanaka and dr nguyen", [("tanaka", "NAME"), ("nguyen", "NAME")]),
    ],
)
def test_town_services_and_names_of_every_origin(nlp, text, expected):
    assert found(nlp, text) == expected


def test_a_ner_name_with_an_apostrophe_is_kept(nlp):
    doc = _with_ents(nlp, "merged.\nt. o'neil rn", [("t. o'neil", "DOCTOR")])
    assert [(e.text, e.label_) for e in doc.ents] == [("t. o'neil", "DOCTOR")]


@pytest.mark.parametrize(
    "text,expected",
    [
        # the firms that carry patients or bring care, after "via"; a kind of care is none
        ("FROM HOME VIA LIFEGUARD AMBULANCE FOR ALTERED MS", [("LIFEGUARD AMBULANCE", "ORG")]),
        ("home infusion via option care, set up", [("option care", "ORG")]),
        ("d/c home via private car. via wound care. via palliative care. via ems.", []),
        ("transport via life flight network, eta 30", [("life flight", "ORG")]),
        ("arrived via helicopter flight. via private ambulance.", []),
        # a church's field, a home named with "nursing and rehab"
        ("church: first lutheran, pastor visits", [("first lutheran", "ORG")]),
        ("snf list: clear lake nursing and rehab", [("clear lake nursing and rehab", "HOSPITAL")]),
    ],
)
def test_conveyors_churches_and_nursing_homes(nlp, text, expected):
    assert [sp for sp in found(nlp, text) if sp[1] != "NAME"] == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # firms named with a word of their trade; a sentence's period starts no hospital's name
        ("During 1980, Nera Economic Consulting invested heavily.", [("Nera Economic Consulting", "ORG")]),
        ("works for kroll consulting in town", [("kroll consulting", "ORG")]),
        ("VNA SERVICES TO RESUME. HOSPICE SERVICES IN PLACE.", []),
        ("NOT GETTING BANK DOCUMENTS, TRANSFER TO OTHER BANK ACCOUNTS", []),
    ],
)
def test_firms_of_trade_words_and_sentences_apart(nlp, text, expected):
    assert [sp for sp in found(nlp, text) if sp[1] != "NAME"] == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # an initial and a name word after a role word, ordinary surnames too
        ("sw will f/u w/ oncology navigator m. best.", [("m. best", "NAME")]),
        ("case manager k. little following", [("k. little", "NAME")]),
        ("wife j. at bedside", []),
        # an initial and a name word that open a parenthesis are the person named there
        ("on call (d. white, beeper 4-4411) aware", [("d. white", "NAME")]),
        ("infection control (m. king) aware of cx", [("m. king", "NAME")]),
        ("grew (s. aureus) and (e. coli, klebsiella)", []),
    ],
)
def test_initials_and_surnames_after_a_role(nlp, text, expected):
    assert [sp for sp in found(nlp, text) if sp[1] == "NAME"] == expected


@pytest.mark.parametrize(
    "text,ents,expected",
    [
        # an organisation ends before a weekday, a shift, or a comma and a verb
        ("attending na mtgs at st. mary's church basement tues/thurs.", [("st. mary's church basement tues", "HOSPITAL")],
         [("st. mary's church basement", "HOSPITAL")]),
        ("working at ups warehouse night shift, living w/ sister", [("ups warehouse night shift", "ORGANIZATION")],
         [("ups warehouse", "ORGANIZATION")]),
        ("is a teacher at olympia high, prefers appts after 3pm", [("olympia high, prefers appts", "HOSPITAL")],
         [("olympia high", "HOSPITAL")]),
        # a blood gas is no date; a note, a pager or an office is no name
        ("abg on d/c 7.38/58/72. d/c home", [("7.38/58/72", "DATE")], []),
        ("np note f/u 2 wks", [("note", "DOCTOR")], []),
        ("called dr hill office, lasix increased", [("hill office", "DOCTOR")], [("hill", "DOCTOR")]),
        # nor after a field's word
        ("INSURANCE HUMANA MEDICARE ADVANTAGE, AUTH", [("INSURANCE HUMANA MEDICARE ADVANTAGE", "HOSPITAL")],
         [("HUMANA MEDICARE ADVANTAGE", "HOSPITAL")]),
    ],
)
def test_ner_entities_end_before_weekdays_shifts_and_office_words(nlp, text, ents, expected):
    doc = _with_ents(nlp, text, ents)
    assert [(e.text, e.label_) for e in doc.ents] == expected


def test_ok_and_pager_are_no_name_words(nlp):
    assert found(nlp, "landlord mr. sousa ok to install bars") == [("sousa", "NAME")]
    assert ("pager", "NAME") not in found(nlp, "broussard, md, pager 4-1187")


def test_firms_named_with_their_trade():
    """A trade word ends a firm's name; words that are verbs or ordinary nouns of notes are
    none ("publishing her first story", "energy level low"): a NER organisation with one
    inside is plausible, so they are left out."""
    nlp = spacy.blank("en")
    nlp.add_pipe("phi_gazetteer")
    nlp.initialize()
    assert found(nlp, "pt works for delta airlines as a mechanic") == [("delta airlines", "ORG")]
    assert found(nlp, "ENERGY LEVEL LOW. FINANCIAL CONCERNS. STAFFING SHORT. PUBLISHING HER FIRST STORY") == []
    doc = _with_ents(nlp, "BEGAN WRITING AS A TEENAGER, PUBLISHING HER FIRST STORY", [("PUBLISHING HER FIRST STORY", "ORGANIZATION")])
    assert list(doc.ents) == []
    assert found(nlp, "Insertion of arterial venous lines. Appropriate lines were then placed.") == []


def test_an_apostrophe_word_counts_in_names_only(nlp):
    doc = _with_ents(nlp, "positioned in the *** o'clock site and secured", [("*** o'clock site", "LOC")])
    assert list(doc.ents) == []


@pytest.mark.parametrize(
    "text,expected",
    [
        # a listed town after "in" and an organisation, landmark or role word ends its phrase
        ("3rd grade at jefferson elementary in normal, teacher aware", [("jefferson elementary", "ORG"), ("normal", "CITY")]),
        ("seen at jefferson elementary in normal sinus rhythm", [("jefferson elementary", "ORG")]),
        # in mixed-case text the town is capitalised
        ("Seen at Jefferson Elementary in normal, teacher", [("Jefferson Elementary", "ORG")]),
        # after a comma when it ends the line: a letterhead
        ("Attending: Dr. Ruiz\nChrist Medical Center, Oak Lawn\nPhysiatrist", [("Ruiz", "NAME"), ("Christ Medical Center", "HOSPITAL"), ("Oak Lawn", "CITY")]),
        ("Christ Medical Center, Oak Lawn residents", [("Christ Medical Center", "HOSPITAL")]),
    ],
)
def test_a_town_after_a_place_found(nlp, text, expected):
    assert found(nlp, text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # a practice's own words before its specialty: letterhead, header dash, signature, referral
        ("Cape Fear Valley Hematology & Oncology\n1638 Owen Dr", [("Cape Fear Valley Hematology & Oncology", "ORG")]),
        ("derm f/u 6/30 - coastal little acorns dermatology\nned is 72", [("coastal little acorns dermatology", "ORG")]),
        # a note's title is none
        ("Perinatal Psychiatry Intake\nNoelle, 31", []),
        ("PRESCRIBER: M. KESSLER, DO, NORTHCOAST NEUROLOGY\nNOTE: SEEN", [("NORTHCOAST NEUROLOGY", "ORG")]),
        # one ordinary word before a specialty is a kind of service ("weekend neurology", "body radiology")
        ("afib - ep cardiology\nreport given to overnight neurology. pt returned from body radiology", []),
        ("referred to riverbend pediatrics for well visits", [("riverbend pediatrics", "ORG")]),
        # a kind of practice names none
        ("referred to pediatric pulmonology. seen by outside neurology. f/u w/ interventional cardiology.", []),
        ("Dermatology Clinic Note\nconsult to neurology, from rheumatology", []),
        ("C-L Psychiatry\nRecommendations: Await pathology. seen at mayo clinic hematology 4/4", []),
        # a plan's bullets and findings are no letterheads
        ("- Appreciate neurology recs\n- Obtain cardiology consult\n- Page cardiology\nFinal pathology pending.", []),
        ("- Flat retina OU\nunable to identify pathology. admitted to adolescent psychiatry", []),
    ],
)
def test_practices_named_before_their_specialty(nlp, text, expected):
    assert_found_in_every_case(nlp, text, expected, labels={"ORG"})


@pytest.mark.parametrize(
    "text,expected",
    [
        # an organisation of ordinary words after a word that refers, enrols, insures or carries
        ("workers comp carrier great plains indemnity no. wc-77120934", [("great plains indemnity", "ORG")]),
        ("resettled by open arms refugee services, caseworker present", [("open arms refugee services", "ORG")]),
        # a place of work after a trade or a word of work in the sentence
        ("line cook, days on the dock at harbor freight lines, eats late", [("harbor freight lines", "ORG")]),
        ("losing job at tidewater call center.", [("tidewater call center", "ORG")]),
        ("former uranium miner with four corners mining, on reca", [("four corners mining", "ORG")]),
        ("works for the city. works at the front desk. works full time at back office", []),
        ("school nurse ms. pruitt asked for updated action plan. referral to coordinated specialty care program", []),
        # a kind of service or programme, a duration, "secondary to"
        ("home via taxi service. through retail pharmacy. coverage through employer plan. enrolled in weight loss"
         " program. referred to early intervention services. retired from the fire department. member of aa group.", []),
        ("hypoxia secondary to inadequate respiratory effort. cough x 2 days with increased respiratory secretions."
         " intubated for 5 days with slow recovery.", []),
        # a kind of service, school or care names none
        ("referred to physical therapy services. via home health agency. through social work services.", []),
        ("refer to addiction recovery services. enrolled in cardiac rehab program. attends high school.", []),
    ],
)
def test_organisations_after_referral_words(nlp, text, expected):
    assert_found_in_every_case(nlp, text, expected, labels={"ORG"})


@pytest.mark.parametrize(
    "text,expected",
    [
        # a sign-off after the note's last sentence; initials and credential last in the note
        ("trauma chief aware. lm rn", [("lm", "NAME")]),
        # a clinical word last is none
        ("plan to continue abx. prn", []),
        ("Pt resting comfortably in bed. FC.", []),
        ("Family at bedside. Son.", []),
        ("will cont to monitor. amb", []),
        # a grandchild's abbreviation is a role word before a name
        ("son-in-law and granddtr sierra visited", [("sierra", "NAME")]),
    ],
)
def test_sign_offs_last_in_a_note(nlp, text, expected):
    assert [sp for sp in found(nlp, text) if sp[1] == "NAME"] == expected


def test_a_finding_of_a_test_is_no_practice(nlp):
    assert found(nlp, "History of bladder tumor with abnormal cytology and erythema.") == []


@pytest.mark.parametrize(
    "text,expected",
    [
        # a listed town of two ordinary words after "lives" or "home" in a telegraphic note
        ("HX COPD. LIVES WALNUT CREEK. WIFE AWARE", [("WALNUT CREEK", "CITY")]),
        ("home walnut creek, northgate area", [("walnut creek", "CITY")]),
        # body sites and lines are no towns
        ("numbness in left hand. iv restarted in new site. cultures from center line. lives half way between", []),
    ],
)
def test_towns_of_ordinary_words_after_a_word_of_place(nlp, text, expected):
    assert [sp for sp in found(nlp, text) if sp[1] in ("CITY", "STATE")] == expected


def test_a_patient_word_is_no_trade_before_a_workplace(nlp):
    assert found(nlp, "a 14-year-old boy with multiple medical problems") == []


@pytest.mark.parametrize(
    "text,expected",
    [
        # a closing word and its comma, an em dash: a sign-off last in the note
        ("mom can be reached at home.\nthanks, hb", [("hb", "NAME")]),
        ("call back if no better 48 h. — kt", [("kt", "NAME")]),
        # a lane in single-case text after "on"
        ("rx sent to pharmacy on siegen ln. call back", [("siegen ln", "STREET")]),
    ],
)
def test_closings_and_lanes(nlp, text, expected):
    assert [sp for sp in found(nlp, text) if sp[1] in ("NAME", "STREET")] == expected


def test_a_capitalised_service_is_no_practice_without_a_letterhead_or_referral(nlp):
    text = "Follow up with Heart Failure Cardiology. Pt seen by EP Cardiology. Speech Language Pathology eval."
    assert [sp for sp in found(nlp, text) if sp[1] == "ORG"] == []


@pytest.mark.parametrize(
    "text,expected",
    [
        # words of its own before an ending only organisations have, no cue needed
        ("still subs for macon county school district a few days", [("macon county school district", "ORG")]),
        ("Enrolled in Heartland Harvest Food Bank boxes", [("Heartland Harvest Food Bank", "ORG")]),
        ("referred to tri-town community action for fuel", [("tri-town community action", "ORG")]),
        # a kind of service, a verb, a function word: none
        ("uses the local food bank. called police department. county social services. DSS social services.", []),
        ("contact social services re placement. appreciate behavioral health recs. husband uses food bank. kid attends head"
         " start. lives near senior center.", []),
        ("referred to domestic violence services. enrolled in wic program. pt has good head start on exercises.", []),
        # a court or sober house by its town or region; what happens there is no word of its name
        ("arraignment central berkshire district court mon 9/16", [("central berkshire district court", "ORG")]),
        ("license suspended (oui x2), court chelsea district court 5/2", [("chelsea district court", "ORG")]),
        ("pt to district court tomorrow. in juvenile court system. hearing at housing court 4/17", []),
    ],
)
def test_organisations_by_their_ending(nlp, text, expected):
    assert_found_in_every_case(nlp, text, expected, labels={"ORG"})


def test_a_ner_name_ends_before_a_preposition(nlp):
    """"sam in jamaica" as one PATIENT: the name is "sam", the place the lists' whole town;
    a name's part that is a preposition stays ("Lee In Sook", "Minh To Nguyen")."""
    doc = _with_ents(nlp, "lives w/ partner sam in jamaica plain. sponsor", [("sam in jamaica", "PATIENT")])
    assert [(e.text, e.label_) for e in doc.ents] == [("sam", "PATIENT")]
    assert ("jamaica plain", "CITY") in [(s.text, s.label_) for s in doc.spans["phi_gazetteer"]]
    doc = _with_ents(nlp, "Patient Lee In Sook here today. Wife Minh To Nguyen", [("Lee In Sook", "PATIENT"), ("Minh To Nguyen", "PATIENT")])
    assert [e.text for e in doc.ents] == ["Lee In Sook", "Minh To Nguyen"]


def test_a_street_number_is_no_ner_age(address_nlp):
    """The "88" of "lives 88 winter st" is the street's number, not an age under 90 kept as it is."""
    text = "pt lives 88 winter st, apt 3b. resident paged"
    doc = address_nlp.make_doc(text)
    doc = address_nlp.get_pipe("phi_ruler")(doc)
    doc.ents = [doc.char_span(text.index("88"), text.index("88") + 2, label="AGE")]
    doc = address_nlp.get_pipe("phi_gazetteer")(doc)
    assert [(e.text, e.label_) for e in doc.ents] == []


@pytest.mark.parametrize(
    "text,expected",
    [
        # a relative's nickname that is an ordinary noun, where a name ends
        ("social: wife bunny called at 2100, neighbor buzz visiting", [("bunny", "NAME"), ("buzz", "NAME")]),
        ("SOCIAL: MOM CRICKET AND DAD HERE. GRANDSON MOOSE CALLED", [("CRICKET", "NAME"), ("MOOSE", "NAME")]),
        # a thing or a state before a comma, a place or the line's end: none
        ("bitten by neighbor beagle\nmom kangaroo, tolerated well. son addict, in jail. gave dtr purse", []),
        ("Wife Taffy at bedside.", [("Taffy", "NAME")]),
        # clinical words, things, adjectives and verbs after a relative: none
        ("fh: mother stroke at 60, brother lymphoma. wife cell 617. wife present, son update given. mother alive and well.", []),
        # no name's end after the word, a plural not before a list: none
        ("wife cricket honey. sons buzz. pt aware", []),
        # what the relative is or what befell them: none
        ("wife realtor. son chaplain in icu. mother syphilis, brother homicide at 22. gf bread at lunch", []),
    ],
)
def test_relatives_nicknames_of_ordinary_nouns(nlp, text, expected):
    assert [sp for sp in found(nlp, text) if sp[1] == "NAME"] == expected


def test_relatives_nicknames_are_lowercase_words_only_in_single_case_text(nlp):
    assert [sp for sp in found(nlp, "Her wife cricket called at 2100. Plan discussed.") if sp[1] == "NAME"] == []
    assert [sp for sp in found(nlp, "Her wife Cricket called at 2100. Plan discussed.") if sp[1] == "NAME"] == [("Cricket", "NAME")]


@pytest.mark.parametrize(
    "text,expected",
    [
        # a landmark word before its name, after a site's cue or with a name no dictionary has
        ("ejected from boat on lake of the ozarks near party cove", [("lake of the ozarks", "LOCATION_OTHER")]),
        ("cleaning gutters. lake winnipesaukee june 1", [("lake winnipesaukee", "LOCATION_OTHER")]),
        ("burn at campground on lake tahoe 7/5", [("lake tahoe", "LOCATION_OTHER")]),
        # what a landmark word is for, a time, a sentence's end, a country, no name: none
        ("at camp this week. lake house. on lake of fluid. pt on heparin drip", []),
        ("FELL IN LAKE. HIT HEAD ON ROCK. pain at MT heads. at camp playing soccer. travel to cape verde", []),
        ("pressure injury on nasal bridge. pt on heparin sq. fell on icy trail. hit head on kitchen island", []),
        ("ankle and mt block. fell into lake yest. fell from camp bunk. has employer-sponsored insurance", []),
    ],
)
def test_landmarks_named_after_their_word_and_at_a_site(nlp, text, expected):
    assert [sp for sp in found(nlp, text) if sp[1] == "LOCATION_OTHER"] == expected


def test_nickname_nouns_hold_rare_nouns_and_no_words_of_clinical_notes():
    from spacy_deid.detect.gazetteers import nickname_nouns

    nouns = nickname_nouns()
    assert {"cricket", "pinky", "buzz", "taffy"} <= nouns
    # clinical words, frequent nouns, adjectives, inflected verbs, plurals, listed names: none
    assert not nouns & {"cell", "stroke", "lymphoma", "sugar", "visit", "home", "present", "alive", "died", "peaches", "rose"}
    # occupations, events and diseases by their ending
    assert not nouns & {"realtor", "soldier", "syphilis", "homicide", "funeral", "graduation"}


@pytest.mark.parametrize(
    "text,expected",
    [
        # a care home of ordinary words after the nursing note's "@", and "holy"/"sacred" hospitals after "to", "from"
        ("WOUND RN NOTE @ PINE GROVE - SEPT 3", [("PINE GROVE", "HOSPITAL")]),
        ("nn 2300-0700 @ heritage hills\nres", [("heritage hills", "HOSPITAL")]),
        ("pt back to holy family from the ed", [("holy family", "HOSPITAL")]),
        ("transfer from sacred heart 4 west", [("sacred heart", "HOSPITAL")]),
        # what "@" stands before in a note: none
        ("ambulated @ bedside @ rest. pt @ baseline @ this point. lives on dairy farm. fell on beginner trail", []),
        ("unable to fully bend knee. sob to steep hill. trip to holy land. dressing to sacred wound", []),
        ("pain @ iliac crest. bone marrow bx from iliac crest. lac @ brow ridge. pt sat @ stair landing", []),
        ("pt prays to holy spirit daily. attends mass at holy cross", []),
    ],
)
def test_care_homes_after_at_signs_and_holy_hospitals(nlp, text, expected):
    assert [sp for sp in found(nlp, text) if sp[1] in ("HOSPITAL", "LOCATION_OTHER")] == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # a practice named after the patient's doctor's word
        ("PCP: BLACKSTONE VALLEY PEDIATRICS, DR AMARAL", [("BLACKSTONE VALLEY PEDIATRICS", "ORG")]),
        ("pcp: concord pediatrics. lives hooksett", [("concord pediatrics", "ORG")]),
        # a kind of practice after it: none
        ("pcp pediatric cardiology. seen w/ peds cardiology. f/u with mohs dermatology. pcp req neurology", []),
    ],
)
def test_practices_after_the_patients_doctor(nlp, text, expected):
    assert [sp for sp in found(nlp, text) if sp[1] == "ORG"] == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        # a listed first name and a surname after the patient's word: one no list has, or any before the age
        ("sn visit - pt minerva toll 98 lives w/ dtr", [("minerva toll", "NAME")]),
        ("PT AMOS PEEL, 92, D/C TO SNF", [("AMOS PEEL", "NAME")]),
        # a common word first: a measure, no name
        ("PT ORAL TEMP 100, TYLENOL GIVEN. pt long walk 100.", []),
        # a verb or an adverb after the patient, a percentage: no surname
        ("pt will call back. pt mark improved 50%. pt grace period. pt sue pain 10/10", []),
    ],
)
def test_names_after_the_patients_word(nlp, text, expected):
    assert [sp for sp in found(nlp, text) if sp[1] == "NAME"] == expected


def test_a_drug_and_its_dose_after_a_pharmacys_colon_is_no_pharmacy(nlp):
    text = "comfort kit delivered by shore pharmacy: morphine 20mg/ml. PHARMACY: LORAZEPAM 2 MG"
    assert [sp for sp in found(nlp, text) if sp[1] == "ORG"] == []
    assert [sp for sp in found(nlp, "pharmacy: rite aid") if sp[1] == "ORG"] == [("rite aid", "ORG")]


def test_an_employer_named_after_the_word_with_a_company_word_last(nlp):
    assert [sp for sp in found(nlp, "employer acme logistics. emerg contact son") if sp[1] == "ORG"] == [("acme logistics", "ORG")]
    assert [sp for sp in found(nlp, "employer notified. employer fmla forms done. employer aware") if sp[1] == "ORG"] == []


def test_taverns_are_landmarks(nlp):
    text = "laceration at the blue moon tavern in fells point"
    assert [sp for sp in found(nlp, text) if sp[1] == "LOCATION_OTHER"] == [("blue moon tavern", "LOCATION_OTHER")]
    text = "hold on to grab bar. burn from propane grill. fell in muddy trails. drinking at irish pub"
    assert [sp for sp in found(nlp, text) if sp[1] == "LOCATION_OTHER"] == []


@pytest.mark.parametrize(
    "text,expected",
    [
        # a town of ordinary words no list has, between a word of place and a state's code
        ("pt is 37 yo m from hazard, ky bib girlfriend", [("hazard", "CITY"), ("ky", "STATE")]),
        ("home rr 2 box 41, council grove, wi 53001. dx: dementia", [("council grove", "CITY"), ("wi", "STATE")]),
        ("pt lives near valley forge, ny", [("valley forge", "CITY"), ("ny", "STATE")]),
        # not before a code that is a word or a clinical abbreviation, nor without a word of place
        ("ordered head ct, ms changes noted", []),
        ("transferred from micu, ny", []),
        # nor a code that is a clinical abbreviation too, nor a region, nor after "of" or "to"
        ("pt returned to long term nh. hx of right sided tn. sliding scale ri. hx of right ak", []),
        ("son from northern mn. pt from out of state, ny. npo as of midnight, mn", []),
        ("pt in pain, ny. pt from jail, ky. pt from bathroom, ut. pt in from work, ny.", []),
        ("mild pain, ky", []),
        ("c/o pain in lower back ny", []),
    ],
)
def test_towns_of_ordinary_words_before_a_state_code(nlp, text, expected):
    assert_found_in_every_case(nlp, text, expected, labels=("CITY", "STATE"))


@pytest.mark.parametrize(
    "text,expected",
    [
        # a crossing of two streets that each end in a street word needs no cue
        ("heat emergency at job site, 7th st & mcdowell rd, phoenix. pt 39 yom", [("7th st & mcdowell rd", "STREET")]),
        # scans, doctors and rhythms are no crossing
        ("head ct & chest ct neg. pt st & afib. seen by dr lee & dr kim", []),
        ("hilar ln and mediastinal ln enlarged. diffuse st & reciprocal st changes. speech st & dietitian rd", []),
        # a direction before a street's name after a word of place
        ("42 m assaulted outside the bar on n main st, struck w bottle", [("n main st", "STREET")]),
    ],
)
def test_crossings_and_directions_of_streets(nlp, text, expected):
    assert_found_in_every_case(nlp, text, expected, labels=("STREET",))


def test_a_person_ending_in_county_is_none(nlp):
    doc = _with_ents(nlp, "pt bib harris county sheriff on emergency detention order", [("bib harris county", "PATIENT")])
    assert [(e.text, e.label_) for e in doc.ents] == []
    assert ("harris county sheriff", "ORG") in found(nlp, "pt bib harris county sheriff on emergency detention order")


def test_an_ordinal_is_no_age_and_a_street_called_a_phone_is_a_street(nlp):
    doc = _with_ents(nlp, "heat emergency at job site, 7th st & mcdowell rd, phoenix.",
                     [("7th", "AGE"), ("st & mcdowell rd, phoenix", "PHONE")])
    assert [(e.text, e.label_) for e in doc.ents] == [("st & mcdowell rd, phoenix", "STREET")]
    doc = _with_ents(nlp, "consults: pt, ot, st & rd", [("st & rd", "PHONE")])
    assert [e.label_ for e in doc.ents] != ["STREET"]


def test_an_identifier_takes_the_pieces_glued_to_it_by_hyphens(address_nlp):
    text = "drug court, case # 24-dc-01187. aps case az-aps-2025-66102, worker. pt is 24-year-old, 24-hr urine"
    doc = address_nlp(text)
    ids = [s.text for s in doc.spans["phi_gazetteer"] if s.label_ == "IDNUM"]
    assert ids == ["24-dc-01187", "az-aps-2025-66102"]
    # the first piece of a code is no age; an age before "-year-old" is one
    doc = _with_ents(address_nlp, "case # 24-dc-01187. pt is 31-year-old", [("24", "AGE"), ("31", "AGE")])
    assert [e.text for e in doc.ents] == ["31"]


def test_a_mobility_aid_after_by_is_no_name(nlp):
    for text in ("Arrival Mode: By wheelchair from the waiting room", "pt arrived by wheelchair.", "ambulates w/ rollator, crutches"):
        assert [sp for sp in found(nlp, text) if sp[1] == "NAME"] == [], text


@pytest.mark.parametrize(
    "text,expected",
    [
        # the words of an organisation's kind after a town or a place a detector took
        ("power cut off by holmes county electric; using a heater", [("holmes county electric", "ORG")]),
        ("hh referral sent to hardin co home care, accepted", [("hardin co home care", "ORG")]),
        ("pt homeless, stays at pine street inn.", [("pine street inn", "ORG")]),
        # a word of its own before an organisation a detector took, after a cue or punctuation
        ("rx transferred to blue mountain pharmacy. next visit", [("blue mountain pharmacy", "ORG")]),
        ("snf beds: maple ridge nursing & rehab accepted", [("maple ridge nursing & rehab", "ORG")]),
    ],
)
def test_organisations_whose_middle_a_detector_took(nlp, text, expected):
    assert [sp for sp in found(nlp, text.upper()) if sp[1] in ("ORG", "HOSPITAL")] == [(t.upper(), l) for t, l in expected]
    assert [sp for sp in found(nlp, text.lower()) if sp[1] in ("ORG", "HOSPITAL")] == expected


@pytest.mark.parametrize(
    "text",
    [
        # a town and what follows it in the sentence: care, work, a role
        "daughter lives in boston care for kids. son in worcester works as nurse.",
        # a state is no firm's town
        "was in a california prison for 5 yrs. attended a georgia college. graduated from a michigan school.",
        "dtr in salem health care proxy, son in lowell high risk for falls",
        # a hospital's department, a field's or a court's word, a verb or a word of the sentence before
        "seen at mayo clinic hematology 4/4. arraignment central berkshire district court mon",
        "employer cvs pharmacy. called cvs pharmacy. rx sent to usual cvs pharmacy, new walgreens pharmacy",
    ],
)
def test_organisations_run_over_no_word_of_the_sentence(nlp, text):
    for variant in (text, text.upper()):
        spans = [sp[0].lower() for sp in found(nlp, variant) if sp[1] in ("ORG", "HOSPITAL")]
        for word in ("care", "works", "proxy", "high", "hematology", "arraignment", "employer", "called", "usual", "new",
                     "prison", "college", "school"):
            assert not any(word in sp.split() for sp in spans), (variant, spans)


@pytest.mark.parametrize(
    "text,expected",
    [
        # a writer's initials alone on the note's last line
        ("plan: temp q1h, pt/sw in am.\ntk", [("tk", "NAME")]),
        ("f/u device clinic 9/24. pt 82, nkda.\nmj\n", [("mj", "NAME")]),
        # a clinical abbreviation or an ordinary word alone there is none, nor initials before more text
        ("code status:\ndnr", []),
        ("pt stable overnight.\nok", []),
        ("plan: cont.\ntk\nreviewed with team", []),
    ],
)
def test_initials_alone_on_the_last_line(nlp, text, expected):
    assert_found_in_every_case(nlp, text, expected, labels=("NAME",))


@pytest.mark.parametrize(
    "text,expected",
    [
        # a town of ordinary words right after a word of residence and "in"
        ("moca 14/30. lives alone in spruce pine, neighbor checks daily", [("spruce pine", "CITY")]),
        ("plan d/c home. pt lives in flowery branch w/ dtr", [("flowery branch", "CITY")]),
        ("lives in spruce pine w/ wife", [("spruce pine", "CITY")]),
        # not a home, a camp, a park, a state of life or a word of every page, nor before more of the phrase
        ("lives in home w/ wife. lives in hope of cure. lives in comfort of her home", []),
        ("lives in new home w/ wife. living in camp, refuses shelter. living in state park. lives in harmony w/ wife", []),
        ("living in fields. lives in white house. lives in old town. lives in foster.", []),
        # one word alone is as often a place's noun; no street, no function word
        ("lives in convent. lives in seminary w/ students. lives in junction. lives in state road. lives in cut off", []),
        ("lives in spruce pine park", []),
    ],
)
def test_towns_of_ordinary_words_after_a_word_of_residence(nlp, text, expected):
    assert_found_in_every_case(nlp, text, expected, labels=("CITY",))


def test_the_towns_of_ordinary_words_hold_no_dwelling_or_clinical_word():
    from spacy_deid.detect.gazetteers import towns_of_words

    towns = {" ".join(w) for ws in towns_of_words().values() for w in ws}
    assert {"spruce pine", "windsor locks", "flowery branch"} <= towns
    assert not towns & {"sandwich", "new home", "old town", "state park", "state road", "cut off", "the rock"}
    assert all(len(town.split()) >= 2 for town in towns)



def test_a_pharmacy_named_without_a_colon_ends_before_a_verb_or_a_phone_number(nlp):
    for text in ("PHARMACY OMNICARE FAXED 601-555-0190.", "pharmacy omnicare called 601-555-0190"):
        orgs = [sp[0].lower() for sp in found(nlp, text) if sp[1] == "ORG"]
        assert orgs == ["omnicare"], text


def test_a_capitalised_name_goes_on_over_the_kind_of_its_organisation(nlp):
    text = "Power cut off by Holmes County Electric; using a heater. Seen by John Smith, School nurse aware."
    assert [sp for sp in found(nlp, text) if sp[1] in ("ORG", "NAME")] == [("Holmes County Electric", "ORG"), ("John Smith", "NAME")]


def test_a_modal_before_its_verb_is_no_name_the_ner_found(nlp):
    for text in ("comfort kit ordered. daughter will stay weekends.", "COMFORT KIT ORDERED. DAUGHTER WILL STAY WEEKENDS."):
        doc = _with_ents(nlp, text, [("will" if text.islower() else "WILL", "PATIENT")])
        assert [e.text for e in doc.ents] == [], text
    # a capitalised "Will" inside mixed-case text is a name; "May" before an "-ed" verb too
    doc = _with_ents(nlp, "Comfort kit ordered. Daughter Will stay weekends.", [("Will", "PATIENT")])
    assert [e.text for e in doc.ents] == ["Will"]
    doc = _with_ents(nlp, "daughter may called at 1400", [("may", "PATIENT")])
    assert [e.text for e in doc.ents] == ["may"]
