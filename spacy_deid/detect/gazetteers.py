"""Gazetteers with context: names, US places and hospitals, matched case-insensitively.

The lists (``spacy_deid/assets/gazetteers/``, sources and licences in its
``SOURCES.md``) are matched on the lower-case form of the tokens, so "JOHN
SMITH", "john smith" and "John Smith" are found alike. A list entry that is also
an ordinary English word ("will", "rose", "brown", "mobile") is *ambiguous*:
it is taken only in context:

- after a title or role word ("dr", "np", "wife", "daughter", "talked with"...),
- before a credential ("rose, rn", "green md"),
- next to another name ("mark brown": a full name),
- in a signature line (a short line of names and credentials),
- for places, before a state ("mobile, al") or after "lives in", "from"...

Hospitals are found by their form: one to four name words before a hospital word
("st. luke's hospital", "denver general", "mercy medical center"), and a short
name or abbreviation after a transfer cue ("transferred to mgh", "followed at
lahey", "arrived from osh" is not one: "osh" is a clinical term).

Everything here is pure (lists in, spans out); ``components/phi_gazetteer.py``
wraps it as a pipeline component.
"""
import functools
import re
from dataclasses import dataclass, field
from typing import Callable, Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

from spacy.attrs import LOWER
from spacy.strings import get_string_id
from spacy.tokens import Doc, Span
from spacy.util import filter_spans

from spacy_deid.detect.patterns import (
    DIGIT_WORDS, STREET_PREFIXES, STREET_SUFFIXES, WORD_STATE_CODES, after_joined_number, amount_after, reads_as_ratio, secondary_to,
)
from spacy_deid.surrogates.names import NAME_PARTICLES
from spacy_deid.surrogates.places import is_not_phi_place

# Labels written by the gazetteer (mapped to categories by detect/labels.py).
NAME, CITY, STATE, COUNTY, HOSPITAL, ORG = "NAME", "CITY", "STATE", "COUNTY", "HOSPITAL", "ORG"
# a small town's list label: a CITY only where the note says it is a place ("lives in", "from")
TOWN = "TOWN"
PLACE_LABELS = (CITY, STATE, COUNTY)

# The shipped lists: asset file name per list key.
DEFAULT_LISTS: Dict[str, str] = {
    "first_names": "gazetteers/first_names.txt",
    "last_names": "gazetteers/last_names.txt",
    "cities": "gazetteers/us_cities.txt",
    "world_cities": "gazetteers/world_cities.txt",
    "states": "gazetteers/us_states.txt",
    "counties": "gazetteers/us_counties.txt",
    "towns": "gazetteers/us_towns.txt",
}
COMMON_WORDS = "gazetteers/common_words.tsv"
PLACE_SUFFIXES = "gazetteers/place_suffixes.txt"
PLACE_PREFIXES = "gazetteers/place_prefixes.txt"
CLINICAL_TERMS = "gazetteers/clinical_terms.txt"
LIST_LABELS = {
    "first_names": NAME, "last_names": NAME, "cities": CITY, "world_cities": CITY, "states": STATE, "counties": COUNTY,
    "towns": TOWN,
}

# Context words. Hand-written: they are the forms clinical notes use to introduce
# a person, and no package lists them.
TITLES = frozenset("""
dr dr. doctor drs mr mr. mrs mrs. ms ms. miss mx prof nurse attending resident fellow intern
np rn pa md cna lpn rrt sw msw cm mgr atty attorney
fr fr. rev rev. reverend pastor rabbi imam chaplain
""".split())
# relatives and friends: before them a note writes a nickname too ("wife clover", "DTR PINKY")
KIN_ROLES = frozenset("""
wife husband son daughter mother father mom dad sister brother friend partner spouse fiance fiancee
godmother godfather godson goddaughter stepmother stepfather
girlfriend boyfriend aunt uncle niece nephew cousin grandson granddaughter grandmother grandfather
neighbor neighbour roommate stepson stepdaughter
dtr dtrs dau gdtr bro sis hubby gf bf sil dil bil mil fil granddtr granddau gdau gson grandma grandpa
stepdad stepmom stepsister stepbrother
""".split())
# ("law": the last word of "daughter in law", "son-in-law" as the tokenizer splits them)
ROLES = KIN_ROLES | frozenset("""
guardian proxy hcp caregiver son-in-law daughter-in-law
law
ex-wife ex-husband exwife exhusband
pcp cardiologist neurologist oncologist surgeon hospitalist intensivist
interpreter translator navigator poa hcpoa
sponsor coordinator landlord landlady coworker co-worker boss mentor
manager supervisor therapist aide dietitian dietician pharmacist technician
nnp educator counselor counsellor advocate trooper detective sergeant sgt deputy officer
""".split())
# the relatives' plurals: cues for the names they list ("brothers art and bill"), kept out of
# ROLES, whose words are never part of a name ("smith & sons roofing", "warner brothers"); not
# every role's plural ("coworkers also sick" names no one)
PLURAL_ROLES = frozenset("""
sons daughters brothers sisters parents nieces nephews cousins aunts uncles grandsons granddaughters
grandchildren grandkids children kids friends neighbors neighbours roommates stepsons stepdaughters
""".split())


# the patient's words before a patient's name ("pt minerva toll 98", "RES E. STROUD 94 @")
_RESIDENT_WORDS = frozenset("pt patient res resident".split())


def is_role(low: str) -> bool:
    """A role word or its plural ("son", "SONS", "daughters")."""
    return low in ROLES or (low.endswith("s") and low[:-1] in ROLES)


# words for the patient: before a name only with a comma between ("45 yo male, michael smith");
# without one they start a description ("male firefighter", "female zumba instructor")
PATIENT_WORDS = frozenset("male female gentleman woman boy girl".split())
ROLES = ROLES | PATIENT_WORDS
# two-word cues: "talked with X", "spoke to X"
CUE_BIGRAMS = frozenset(
    tuple(c.split())
    for c in (
        "talked with", "talked to", "spoke with", "spoke to", "speaking with", "discussed with", "d/w",
        # "w/" alone takes things too ("ambulates w/ walker", "oob w/ cane"): only after talk
        "spoke w/", "talked w/", "discussed w/", "met w/", "meeting w/", "mtg w/", "speaking w/", "spoken w/",
        "called by", "paged by", "seen by", "evaluated by", "examined by", "signed by", "per dr", "cc dr",
        "care of", "c/o dr", "message from", "message to", "update to", "updated by", "notified by",
        "name is", "names are", "call me", "calls me", "called me", "maiden name", "named after",
        "given to", "report to", "endorsed to", "handed to", "handoff to", "hand-off to",
        # who takes over from whom, who comes along ("covering for deb", "relieved by x")
        "covering for", "relieved by", "report from", "signed out to", "accompanied by", "visited by",
    )
)
CUE_UNIGRAMS = frozenset("called paged notified updated informed per cc by d/w name".split())
# words that name the person of a header field when a colon follows ("pt: x", "re: x")
COLON_CUES = frozenset("pt patient re resident attending nurse rn md provider caller contact hcp poa guardian proxy informant crew".split())
CREDENTIALS = frozenset("""
rn md np pa pa-c np-c do lpn cna rrt msw lcsw licsw phd dnp aprn crna rd slp pt ot mba mph facc facs
emt emt-b emt-p paramedic cwocn cwon cwcn bsn msn ccrn cen cpen faan fnp fnp-bc pharmd psyd lmsw lpc lmhc lmft
cnm crnp otr otr/l ccc-slp rph lvn rnc acnp pmhnp dds dmd ibclc cde cdces ccm
mbchb mbbs frcp frcpc mrcp facp faap facog facep fasn rdh cda cma ccma rdms rvt
""".split())
# credentials that are also common words or clinical abbreviations: only after a comma
WEAK_CREDENTIALS = frozenset("do pt ot pa rd".split())
LOCATION_CUES = frozenset(
    tuple(c.split())
    for c in (
        "lives in", "living in", "lived in", "resides in", "resident of", "moved to", "moved from",
        "born in", "native of", "home in", "is from", "originally from", "visiting from", "relocated to",
        "house in", "apartment in", "travelled to", "traveled to", "trip to", "vacation in",
        "pt from", "patient from", "family from", "family in", "in from", "drove from", "lives near",
        "immigrated from", "emigrated from", "immigrated to", "grew up in", "growing up in", "raised in",
        # an admission's opening line: "67 yo m from revere", "82 Y/O WOMAN FROM CHELSEA"
        "m from", "f from", "male from", "female from", "man from", "woman from", "gentleman from",
        "lady from", "yo from", "y/o from", "y.o. from",
        # on the way from a town ("mother will drive from providence tonight", "arriving from cork")
        "drive from", "driving from", "driven from", "arriving from", "flying from", "flew from", "coming from",
        "traveling from", "travelling from",
        # a trip's ends ("recent flight from phoenix", "flew to denver", "back from orlando")
        "flight from", "flight to", "flights to", "flying to", "flew to", "drove to", "driving to", "returned from",
        "back from", "cruise to", "trip from", "visiting in",
    )
) | frozenset(
    # where a relative lives or comes from: "son in worcester", "DTR IN WEST ROXBURY", "sister from revere"
    (role, word) for role in ROLES - PATIENT_WORDS - {"law"} for word in ("in", "from")
)
# hospital words that a place or name after "of" names ("Children's Hospital of Philadelphia")
_HOSPITALS_OF = frozenset("hospital hospitals clinic clinics".split())
# words that end a hospital's name
HOSPITAL_WORDS = frozenset("""
hospital hospitals hosp medical center centre ctr clinic clinics infirmary general memorial
healthcare health rehabilitation rehab sanatorium hospice facility manor village regional
""".split())
# hospital words that say "hospital" wherever they stand in a name ("Hospital of St. Raphael");
# "general", "memorial", "health" only end one ("Lowell General"; not "general anesthesia")
_WEAK_HOSPITAL_WORDS = frozenset("general memorial health healthcare village regional".split())
_HOSPITAL_WORDS_ANYWHERE = HOSPITAL_WORDS - _WEAK_HOSPITAL_WORDS
# words that end a company's name ("loqate inc", "careset systems", "abt associates")
COMPANY_WORDS = frozenset("""
inc inc. llc l.l.c. ltd ltd. plc corp corp. corporation incorporated llp company co. gmbh ag s.a. group holdings
technologies technology systems software solutions partners associates capital insurance investments bioscience
biosciences analytics labs laboratories markets finance pharmaceuticals pharma enterprises industries
pharmacy pharmacies logistics vna transport transportation ambulance ems
church parish synagogue temple mosque congregation elementary academy police
foods motors auto inn medflight lifeflight correctional
consulting consultants resources sons brothers bros insights networks bancorp airlines airways
communications telecom entertainment studios productions ventures properties realty brands wireless
therapeutics biotech diagnostics freight architects dynamics robotics aerospace automotive
""".split())
# building trades that end a firm's name ("kc roofing"); after ordinary words alone they say
# what a firm does ("owns a small roofing co." names none)
_BUILDING_TRADES = frozenset("""
roofing landscaping trucking hauling towing excavating paving masonry contracting contractors builders
janitorial remodeling drywall hvac
""".split())
COMPANY_WORDS = COMPANY_WORDS | _BUILDING_TRADES
# legal forms: a company's name whatever words it is made of
LEGAL_SUFFIXES = frozenset("inc inc. llc l.l.c. ltd ltd. corp corp. corporation incorporated plc gmbh llp".split())
# multi-word hospital endings, checked before the single words
HOSPITAL_TAILS: Tuple[Tuple[str, ...], ...] = tuple(
    tuple(t.split())
    for t in (
        "medical center", "medical centre", "medical ctr", "med ctr", "med center", "med centre",
        "health center", "health system",
        "health care", "rehabilitation center", "rehab center", "rehab hospital", "nursing home",
        "nursing center", "nursing facility", "care center", "regional medical center", "cancer center",
        "heart institute", "general hospital", "memorial hospital", "community hospital",
        "children's hospital", "childrens hospital", "va medical center", "medical group",
        "cancer institute", "eye institute", "research institute",
        "assisted living", "family practice", "family medicine", "internal medicine", "primary care", "urgent care",
        "skilled nursing facility", "senior living", "care facility", "medicine associates", "health plan",
        # agencies of care at home and in the community ("Boston Home Care", "riverside community
        # care", "Elder Services of the Merrimack Valley"); not "imaging center", "surgery center":
        # after a cue and "the" their first word would be read as a name
        "home care", "home health", "community care", "elder services", "senior services",
        # the funeral home a death note calls, the hospice and home infusion firms ("keohane funeral
        # home notified", "home & hospice care of ri", "via option care")
        "funeral home", "funeral homes", "funeral service", "funeral services", "hospice care", "infusion services",
        "heart and vascular", "wound care", "organ bank", "blood services",
        "nursing and rehab", "nursing & rehab", "nursing and rehabilitation", "rehab and nursing",
        "health and rehab", "health and rehabilitation", "care and rehab", "care and rehabilitation",
    )
)
# words that do not start or make a hospital's name in lower or upper case text
NOT_HOSPITAL_NAME = frozenset("""
the a an this that these those our your his her their its my outside osh local another other same
previous prior referring nearest nearby closest home any no to from at in of for with by and or
transfer transferred admitted discharged patient pt pt's patients in-patient inpatient outpatient
day days week weeks hour hours current recent last next new old first second
attends attended attend attending goes went graduated enrolled insurance ins
""".split())
# of those, the words that name one hospital rather than a kind of one ("methodist hospital",
# "cedar sinai"; not "community hospital"): a hospital's name in any letter case
DISTINCT_HOSPITAL_WORDS = frozenset("""
mercy providence samaritan sinai jewish deaconess baptist methodist presbyterian lutheran adventist
trinity shriners kindred parkland israel holy
""".split())
# of those, the words that name a hospital alone after "at", "from" or "to" ("bed at kindred";
# not the faiths: "converted to baptist")
_HOSPITAL_ALONE_WORDS = frozenset("mercy samaritan sinai deaconess shriners kindred parkland".split())
# the words of a move before "to" ("back to", "transferred to")
_MOVE_WORDS = frozenset("back transferred transfer xfer xferred sent returned discharged d/c dc'd tx'd admitted".split())
# the two words that name a hospital alone after "from" or a move's "to" ("back to holy family";
# not "from holy land", "prays to holy spirit")
_DEVOTIONAL_HOSPITALS = frozenset(tuple(c.split()) for c in (
    "holy family", "holy cross", "holy name", "holy redeemer", "holy spirit", "holy trinity", "sacred heart",
))
# words that often make a hospital's name and are ordinary words as well
HOSPITAL_NAME_WORDS = frozenset("""
st st. saint mt mt. mount memorial general central regional community university mercy providence
samaritan good sacred heart children children's childrens baptist methodist presbyterian lutheran
christian adventist veterans va county city state valley mountain lake river bay north south east
west northern southern eastern western sinai jewish deaconess women's womens beth israel faith hope
grace trinity holy cross st.mary union lakeside riverside parkland kindred shriners
gardens manor village
""".split())
# words after a name that make it an eponym, not a person or place: "parkinson's disease",
# "gleason score", "framingham risk score", "barrett's esophagus"
EPONYM_HEADS = frozenset("""
disease diseases syndrome syndromes sign signs score scores criteria scale scales classification test tests
risk equation formula procedure operation maneuver manoeuvre palsy lymphoma sarcoma tumor tumour ulcer
esophagus phenomenon reflex law rule rules grade grading stage staging index factor angina arteritis
thyroiditis encephalopathy disorder triad node nodes cell cells fracture method technique approach
position protocol regimen type catheter tube needle solution stain staining body bodies study studies
trial cohort lesion lesions repair incision osteotomy osteotomies level category specimen
clamp clamps scissors tenaculum retractor retractors forceps speculum stitch stitches suture sutures blade
scalpel dissector rongeur rongeurs curette osteotome trocar elevator drain drains
valve valves collar boot boots brace splint stockings mask
wire wires pin pins saw fundoplication deformity
fascia ligament ligaments canal pouch triangle capsule membrane diverticulum duct gland nerve artery fold fossa
""".split())
# month and weekday names are first names too ("april", "may", "june"): ordinary words here
CALENDAR_WORDS = frozenset("""
january february march april may june july august september october november december
monday tuesday wednesday thursday friday saturday sunday
jan feb mar apr jun jul aug sep sept oct nov dec
""".split())
# what a clinic or centre of a hospital is for ("pain clinic", "wound center"): no hospital's name
DEPARTMENT_WORDS = frozenset("""
pain wound eye heart cancer diabetes diabetic dialysis infusion sleep walk-in walk urgent primary care family
fertility vein spine skin foot hand breast travel weight memory stroke allergy asthma kidney liver lung
bone joint sports vascular rehab rehabilitation dental vision hearing speech behavioral mental addiction
methadone suboxone hiv std tb anticoagulation coumadin lipid hypertension transplant burn trauma imaging
lab outpatient inpatient wellness health medical surgical surgery specialty student employee prenatal
maternity women's womens children's childrens pediatric adult senior geriatric infectious disease
cardiac vascular neuro ortho oncology dermatology psychiatry counseling counselling therapy physical
occupational respiratory pulmonary renal gi ob gyn ent va community free mobile virtual tele telehealth
same-day after-hours day night emergency
""".split())
# what a named place is ("flores middle school", "wheeler lake", "delgado street shelter")
LANDMARK_WORDS = frozenset("""
school academy college university shelter trail lake creek river park mall church chapel temple mosque
synagogue library stadium arena beach mountain bridge airport station market plaza ymca ywca club cafe
restaurant diner hotel motel casino zoo museum farm ranch factory plant mill camp cemetery pond forest
canyon valley island cove glacier lighthouse pier boardwalk reservoir marina wharf aquarium resort
daycare preschool kindergarten square sq tavern
""".split())
# landmark words that are surnames too ("dr temple", "fr. lake"); not the buildings
# ("dr school note", "dr office")
_SURNAME_LANDMARKS = frozenset("""
lake river park church chapel temple beach mountain bridge farm mill pond forest valley island cove
""".split())
# words before a landmark word that say what it is for, not which it is ("dog park", "high school")
LANDMARK_GENERIC = frozenset("""
dog water theme amusement national state city county public private local nearby neighborhood
neighbourhood trailer high middle elementary primary secondary grade nursing medical law night summer
day boarding sunday bible fitness health golf country book coffee fast food farmers flea grocery
train bus gas police fire power sewage treatment nuclear
beginner intermediate advanced bunny hiking walking bike biking nature ski dairy cattle horse hog chicken poultry
family tree
""".split())
LANDMARK_CUES = frozenset("at in to from near by".split())
# landmark words written before the name ("lake tahoe", "MT RAINIER", "camp lejeune", "lake of the ozarks")
_LANDMARK_HEADS = frozenset("lake mount camp fort cape isle".split())
# schools, and what a social history writes before one ("attends little sprouts daycare",
# "GRADUATED DEAN TECHNICAL HIGH SCHOOL")
_SCHOOL_WORDS = frozenset("school academy college university daycare preschool kindergarten".split())
_SCHOOL_CUES = frozenset("attends attended attend graduated graduate enrolled".split())
# travel, leisure and home words: after one and a place preposition, a word no
# dictionary holds names a place ("hiking at yosemite", "trip to aruba", "lives in southie")
TRAVEL_CUES = frozenset(
    """trip trips travel travels traveled travelled traveling travelling vacation vacationing
    visiting visited hiking hiked skiing camping cruise flew flying lives lived living resides
    residing born stationed deployed""".split()
)
# faiths, which a NER of tidy notes may take for a name in capitals ("PT IS ROMAN CATHOLIC")
_RELIGION_WORDS = frozenset("""
catholic catholics protestant baptist methodist lutheran presbyterian episcopalian pentecostal evangelical
orthodox christian christians jewish muslim hindu buddhist sikh mormon adventist agnostic atheist
""".split())
# what follows "st" on an ECG, which is no saint ("st dep", "ST ELEV", "st segment changes")
_ST_SEGMENT_WORDS = frozenset("dep deps depr depression depressions elev elevs elevation elevations seg segment segments changes chgs abn abnl".split())
# what a clinic treats, which names no clinic ("hand clinic", "wound clinic", "pain clinic")
_CLINIC_KIND_WORDS = frozenset("""
hand hands foot feet eye eyes ear spine back wound wounds pain sleep breast heart skin memory fracture vein
voice balance bone joint stroke weight diabetes lipid headache travel infusion transplant
""".split())
# names of clinical specialties end so ("hematology clinic" is no hospital's name)
_SPECIALTY = re.compile(r"(ology|ologic|ological|iatry|iatric|iatrics|ics|ery|ation)$")

# a specialty's name ("urology", "nephrology", "psychiatry", "pediatrics"): no one's name
_SPECIALTY_WORD = re.compile(r"(ology|iatry|iatrics|pedics)$")
# the last word of a practice's name: a specialty ("neurology", "pediatrics") or a dental or
# eye practice's ("orthodontics", "retina", "midwifery")
_PRACTICE_WORD = re.compile(r"^(\w+(ology|iatry|iatrics|pedics|dontics)|midwifery|chiropractic|optometry|dentistry)$")
# words a specialty's kind is told by, no practice's own name ("pediatric pulmonology",
# "interventional cardiology", "outside neurology")
_PRACTICE_MODIFIERS = frozenset("""
interventional pediatric paediatric peds adult general internal family geriatric behavioral surgical medical clinical
radiation nuclear invasive non-invasive noninvasive sports women's womens child children's infectious critical
plastic reconstructive oral maxillofacial neuro outside local new prior previous private same other another our your
his her their outpatient inpatient hospital university academic community consult consulting consultation
comprehensive integrative functional cosmetic diagnostic medicine surgery care center centre clinic office dept
department service services team fellow attending resident f/u follow followup follow-up seen see per by via
pulmonary gi renal cardiac vascular thoracic colorectal gyn ob obgyn ent ortho urgent emergency primary
c-l cl consult-liaison liaison await awaiting pending send sent
perinatal neonatal maternal fetal reproductive developmental forensic addiction
ep bmt rad rads stat ir vir nir hem heme onc pulm neph endo id peds overnight weekend night body floor
""".split())
# words before an organisation that takes someone on, insures or carries them
_REFERRAL_CUES = frozenset("via thru through carrier payer payor payee insurer coverage enrolled enroll "
                           "resettled attends volunteers".split())
_REFERRAL_BIGRAMS = frozenset(tuple(c.split()) for c in (
    "referred to", "refer to", "referral to", "ref to", "refd to", "connect w/", "connect with", "connected with",
    "connected w/", "resettled by", "member of", "retired from", "linked to", "linked with", "enrolled in",
    "enrolled with", "comp carrier", "policy with", "insured by", "covered by", "sponsored by",
))
# the words an organisation's name ends with after such a word
_REFERRAL_TAILS = frozenset("""
services service partners mutual indemnity casualty assurance recovery action bank pantry kitchen ministries
ministry charities charity coalition alliance collective network foundation fund program programs league club
union shelter mission house inn hospice nursing co-op cooperative district court authority dept department
office choice supplemental plan rx pharmacy orthotics dental respiratory transport transit medicab lines
freight grocery diner cafe bistro coffee market foods mining masonry construction electric plumbing barbers salon
spa center centre agency project society institute associates group academy school college elementary ymca
""".split()) | COMPANY_WORDS
# spaCy's stop words that are words of a name ("tidewater call center", "four corners mining",
# "third wave coffee", "first united methodist")
_CONTENT_STOP_WORDS = frozenset("""
call first third four five six eight nine ten twelve fifteen twenty forty fifty hundred front back top full side
bottom whole
""".split())
# two-word endings only an organisation's name has ("school district", "food bank")
_ORG_ENDINGS = frozenset(tuple(c.split()) for c in (
    "school district", "public schools", "food bank", "food pantry", "community action", "legal aid",
    "credit union", "housing authority", "transit authority", "head start", "rescue mission", "soup kitchen",
    "senior center", "recovery center", "counseling center", "treatment center", "family services",
    "community services", "human services", "social services", "behavioral health", "care partners",
    "health partners", "visiting nurses",
    # courts named by their town or region ("central berkshire district court", "fitchburg housing court")
    "district court", "housing court", "superior court", "probate court", "juvenile court", "family court",
    "municipal court", "circuit court", "drug court",
))
# what a note says happens at a court, no word of its name ("arraignment central berkshire district court")
_LEGAL_EVENT_WORDS = frozenset("arraignment hearing hearings trial sentencing appearance case docket summons charge "
                               "charges petition date dates warrant court".split())
# the units of a dose after a drug's name: "20mg", "2 mg" (glued: ``_NUMBER_AND_UNIT``)
_DOSE_UNITS = frozenset("mg mcg ml g gm units unit meq".split())
# words before a place of work after a trade or a word of work ("cashier at", "mason w/")
_WORKPLACE_CUES = frozenset("at @ w/ with for from".split())
_WORK_TIMES = frozenset("dock laid fired retired owns owned".split())
# the tags of the lists of names and places: a word of a name by its list
_NAME_OR_PLACE_TAGS = frozenset({NAME, TOWN, *PLACE_LABELS, "key:first_names", "key:last_names"})
# verbs and words of findings a note writes before a service, no name's words ("appreciate
# neurology recs", "contact social services", "final pathology", "kid attends head start")
_NOTE_VERBS = frozenset("""
appreciate obtain page need needs notify consult identify contact call calls refuses refuse uses use attends attend
explore given give lives live near discuss request requests recommend recommends defer follow see seen seeing
final frozen flat adolescent underlying unclear pending epilepsy combined kid kids per await awaiting
""".split())
# kinds of service, no organisation's own words ("refer to addiction recovery services")
_SERVICE_KINDS = frozenset("""
social work case management financial counseling support legal aid protective youth veterans victim crisis
housing food meal meals transportation addiction substance treatment day respite visiting nurse home palliative
spiritual pastoral patient disability vocational employment insurance mail order specialty assistance nurse nurses
assisted living skilled long-term long term short-term adult child family senior elder outpatient intensive
partial hospitalization free low-cost sliding scale local state federal public private medicaid medicare
high middle junior grade charter boarding nursery sunday bible summer special regular alternative trade
technical vocational online night evening weekend group individual new old same different another
coordinated integrated collaborative comprehensive updated
county city town village municipal regional area district dss dcf dcfs aps cps dhs dhhs hhs
weight loss stamp stamps prevention early intervention anger management bible study wheelchair van taxi air
ground retail compounding managed employer cessation smoking genetic chaplain life child teachers electric
company fire police post office boxing cab ride rides transport
domestic violence harm reduction needle exchange pace wic snap benefits choir chair car real estate parks
church good injury crisis rape sexual assault victims veterans
""".split())
# cues before a practice's name in a sentence ("referred to coastal dermatology")
_PRACTICE_CUES = frozenset("from at to @".split())
# fields that name who a patient's doctor is, before a colon ("PCP: BLACKSTONE VALLEY PEDIATRICS";
# not "pcp req neurology")
_PRACTICE_FIELDS = frozenset("pcp pediatrician dentist".split())
# words of "-ology" that name a test's finding or a science, no practice ("abnormal cytology")
_NOT_PRACTICES = frozenset("""
cytology histology serology morphology etiology aetiology physiology pathophysiology technology methodology
biology terminology symptomatology chronology ideology
""".split())
_PRACTICE_BIGRAMS = frozenset(tuple(c.split()) for c in ("referred by", "referral from", "seen at", "care at"))
# cue before a hospital given by a short name or abbreviation
TRANSFER_CUES = frozenset(
    tuple(c.split())
    for c in (
        "transfer to", "transferred to", "transfered to", "xfer to", "xferred to", "tx to", "transfer from",
        "transferred from", "admitted from", "followed at", "f/u at", "follows at", "followed by", "arrived from", "came from",
        "went to", "sent to", "seen at", "treated at", "admitted to", "admitted at", "presented to",
        "brought to", "discharged to", "d/c to", "d/c'd to", "dc'd to", "taken to", "transported to",
        "airlifted to", "medflighted to", "flown to", "referred to", "referred from", "works at",
        "evaluated at", "assessed at", "examined at", "presented at", "hospitalized at", "hospitalised at",
        "consulted at", "managed at", "delivered at", "care at", "visit at", "appointment at", "appt at",
        # a stay somewhere ("per wife pt was at brigham last month"): what follows is a place
        # only when it is no ordinary word ("was at baseline", "was at goal" stay)
        "was at", "were at", "been at", "stayed at", "stay at", "admission at", "dialysis at", "rehab at",
        "surgery at", "procedure at", "done at", "pcp at",
    )
)
# one-word cues: weaker, a name after them must look like one (an acronym or a capitalised
# word in mixed-case text)
TRANSFER_UNIGRAMS = frozenset("at @ from to visited".split())
# in single-case notes, the one-word cues after which a word no list has is a hospital's
# short name when no other rule takes it ("PCP DR X @ BMC", "arrived from nebh"; not "to fax")
_SINGLE_CASE_UNIGRAMS = frozenset("at @ from".split())
# the last word of an organisation's name after a town, a place or an organisation's first
# words that a detector took ("holmes county" electric, "windsor" gardens, "pine street" inn):
# a kind of organisation that no sentence goes on with after a town (not "office", "plan", "rx",
# "house", "program", "care", "radiology": "wife works in boston office", "dtr in worcester
# plan to visit", "wife works in boston pathology")
ORG_TAIL_HEADS = frozenset("""
electric energy utilities inn mission ministries prison jail penitentiary pharmacy pharmacies school academy
college university church parish imaging laboratory laboratories labs hospice hospital hospitals clinic clinics
infirmary institute foundation inc llc ltd corp corporation associates partners gardens manor ambulance ems
""".split())
# the names' words of a kind between a town and that word ("pulaski" state prison, "holmes
# county" electric, "hardin co" home care)
_ORG_TAIL_INNER = frozenset("state county co co. city regional community memorial".split())
# the two words of an organisation's kind that end one after a town or a place ("hardin co" +
# "home care", "columbia" + "legal services", "whatcom" + "middle school"), besides the hospitals'
# and organisations' two-word endings (``HOSPITAL_TAILS``, ``_ORG_ENDINGS``)
_ORG_TAIL_PAIRS = frozenset(tuple(c.split()) for c in (
    "legal services", "family health", "memory care", "psychiatric group", "donor services", "middle school",
    "high school", "elementary school", "adult probation", "juvenile probation", "home health",
))
# the words of organisations' kinds, which start no name before one ("court", "employer" +)
_ORG_KIND_WORDS = ORG_TAIL_HEADS | _ORG_TAIL_INNER | HOSPITAL_WORDS | COMPANY_WORDS | _REFERRAL_TAILS | _SCHOOL_WORDS \
    | DEPARTMENT_WORDS | _SERVICE_KINDS
# the words before an organisation's name that are the sentence's, no word of the name ("to
# the", "usual", "mail-order"): beside the words a name never starts with (``NOT_HOSPITAL_NAME``)
_NOT_ORG_LEADS = frozenset("""
usual regular preferred main closest nearest same different new old another other local
retail outside pt's patient's his her their my your our
""".split())
# ordinary words that organisations are named with, before a word a detector took ("blue"
# mountain pharmacy, "maple" ridge nursing & rehab, "desert" sky family medicine, "big" bend
# hospice): colours, trees, landscape, sky and virtues. Hand-written: no package lists the words
# of firms' names; a word no dictionary has or a listed name or place is one too
_ORG_NAME_WORDS = frozenset("""
blue green red white black silver golden gold crimson scarlet azure emerald
maple cedar oak oaks pine pines elm birch willow willows aspen cypress magnolia spruce hickory walnut cherry
holly laurel juniper sycamore cottonwood palm palms redwood sequoia chestnut dogwood hawthorn linden poplar
desert prairie mountain mountains valley river rivers lake lakes bay harbor harbour coast coastal ridge hill hills
meadow meadows brook brooks creek spring springs forest woods park summit canyon mesa sierra shore shores island
islands ocean sea cliff cliffs rock rocks stone falls glen grove orchard garden field fields highland highlands
sun sunrise sunset sunny sunshine star stars sky moon rainbow dawn horizon evergreen
heritage liberty pioneer frontier harmony unity hope grace faith trinity good great greater grand royal
first second tri twin united american national northern southern eastern western central northeast northwest
southeast southwest north south east west mid upper lower crown eagle falcon hawk bear lion phoenix cardinal
""".split())
# the words an organisation's name stands after, besides punctuation and a line's start
_ORG_LEAD_CUES = frozenset("to at from via with w/ @ by thru through".split())
# the words before an employer's name ("works for rapid cycle solutions", "employed by
# Lending Club", "retired from verizon")
EMPLOYER_CUES = frozenset(
    tuple(c.split())
    for c in (
        "work for", "works for", "worked for", "working for", "work at", "works at", "worked at", "working at",
        "employed by", "employed at", "employed with", "employee of", "employee at", "job at", "job with",
        "retired from", "intern at", "interned at", "volunteers at", "volunteer at",
        # ("drives for uber"; not "delivered for": "baby delivered for non-reassuring tracing")
        "drives for", "drove for", "driving for",
    )
)
# kinds of workplace and work, besides the kinds of facility and landmark ("works at the family farm")
_WORKPLACE_WORDS = frozenset("""
store shop company firm office business restaurant bar kitchen warehouse site construction shift job jobs
family own home local place work department plant factory post government agency church school schools
car wash salon gym laundromat daycare garage bakery
short long brief time times period periods while
""".split())
# the landscape words care homes and senior residences are named with ("maple grove", "cedar
# crest", "the willows"), and the words before one ("back to", "accepted at", "d/c to")
_RESIDENCE_WORDS = frozenset("""
grove groves crest ridge terrace willows manor gardens glen meadows meadow haven heights hills park pointe
commons estates woods springs brook pines oaks landing harbor harbour acres knoll hollow vista cottages
""".split())
# landscape words that name body sites and parts of buildings too ("@ brow ridge", "@ stair landing")
_BODY_LANDFORMS = frozenset("ridge crest hollow landing park".split())
# ("@": the nursing note's "at": "WOUND RN NOTE @ PINE GROVE", "NN @ HERITAGE HILLS")
_RESIDENCE_CUES = frozenset("to at from @".split())
# landscape words that name a region after a side of the compass ("south shore", "east bay")
_REGION_WORDS = _RESIDENCE_WORDS | frozenset("shore shores bay coast valley lake lakes river country side".split())


def _region_after_side(doc: Doc, k: int) -> bool:
    """``doc[k]`` is a landscape word after a side of the compass ("south shore", "east bay")."""
    return 0 < k < len(doc) and doc[k].lower_ in _REGION_WORDS and doc[k - 1].lower_ in _SIDES
# the kinds of care a word before "care" may say ("via palliative care" names no firm)
_KINDS_OF_CARE = frozenset("palliative comfort respite personal intensive critical primary supportive hospice home private".split())
# the last words of the firms that carry patients or bring care home, after "via"
# kinds of vehicle and service, no carrier's name before a conveyor word
_VEHICLE_WORDS = frozenset("helicopter plane airplane jet commercial private medical fixed wing rotor ground critical "
                           "wheelchair chair van car taxi cab bus stretcher basic advanced als bls".split())
_CONVEYOR_WORDS = frozenset("ambulance transport transportation medflight lifeflight flight evac ems care infusion".split())
# what may follow a plural residence word after "the" ("the willows, pending bed")
_RESIDENCE_FOLLOWERS = frozenset("and or pending when if for on in at with w/ once after today tomorrow".split())
# what describes a hospital without naming it ("a large urban medical center")
_SIZE_ADJECTIVES = frozenset("""
large small big major busy academic urban rural tertiary quaternary teaching university-affiliated
regional local nearby outside level trauma community private public county federal state""".split())
# kinds of facility a note names in parentheses after them ("nursing home (sunny acres)")
_FACILITY_WORDS = frozenset("""
home rehab rehabilitation snf ltach ltc facility hospice shelter hospital clinic center centre pharmacy
living residence program
""".split())
# the words of a kind of facility, which name none ("nursing home", "assisted living facility";
# not the words hospitals are named with, "Memorial Hospital", "General Hospital")
_GENERIC_FACILITY = (
    HOSPITAL_WORDS | _FACILITY_WORDS | NOT_HOSPITAL_NAME
    | frozenset("nursing assisted skilled acute urgent care recovery room pacu floor unit team service services dept department".split())
    # the designations of a kind of clinic ("rural health clinic", "federally qualified health center")
    | frozenset("rural urban federally qualified critical access".split())
) - HOSPITAL_NAME_WORDS
# what an employer field holds when it names no employer
_NO_EMPLOYER = frozenset("retired self employed unemployed disabled disability homemaker student none unknown na".split())
# one word after an employer's cue that names no employer: times, things, the armed services
_NOT_EMPLOYERS = _NO_EMPLOYER | frozenset("""
night nights day days present least all sea desk computer length pace age risk baseline army navy military
marines airforce guard reserves church mass nursing medicine hospital hospitals clinic clinics pharmacy
""".split())
# the words before a pharmacy's name ("fills prescriptions at the cvs on main st",
# "meds filled at rite aid"): what follows is a pharmacy's name whatever its words
PHARMACY_CUES = frozenset(
    tuple(c.split())
    for c in ("prescriptions at", "prescription at", "filled at", "fills at", "refilled at", "meds at")
)
# what a pharmacy cue may be followed by that names no pharmacy
_GENERIC_PHARMACY = frozenset(
    "pharmacy pharmacies drugstore hospital clinic local same usual nearby mail order va unknown none".split()
)


@dataclass
class GazetteerLists:
    """The term lists behind the gazetteer, all lower case.

    lists (Dict[str, List[str]]): entries per list key (``first_names``,
        ``last_names``, ``cities``, ``states``, ``counties`` or a user's own key).
    labels (Dict[str, str]): the label each list writes (``NAME``, ``CITY``...).
    common (Set[str]): ordinary words: a list entry that is one is ambiguous, and
        a word after a title that is not one is taken as a name.
    clinical (Set[str]): clinical words and abbreviations (also in ``common``):
        never the name of a hospital after a transfer cue ("transfer to ICU").
    place_suffixes (Set[str]): endings of English place names ("ville", "chester").
    place_prefixes (Set[str]): words that start place names ("north", "lake").
    """

    lists: Dict[str, List[str]]
    labels: Dict[str, str]
    common: Set[str] = field(default_factory=set)
    clinical: Set[str] = field(default_factory=set)
    place_suffixes: Set[str] = field(default_factory=set)
    place_prefixes: Set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        missing = [k for k in self.lists if k not in self.labels]
        if missing:
            raise ValueError(f"gazetteer lists without a label: {missing}")


def read_term_file(path) -> List[str]:
    """Lower-case entries of a list file: one per line, ``#`` comments, a TSV's
    first column."""
    out: List[str] = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                out.append(line.split("\t", 1)[0].lower())
    return out


def read_common_words(
    path, min_zipf: float, ordinary_only: bool = False, dictionary_min_zipf: Optional[float] = None,
    dictionary_only: bool = False,
) -> Set[str]:
    """Words of ``common_words.tsv`` (word, Zipf frequency, flag: 1 a dictionary word, 2 a
    frequent word that only non-English name lists hold, read as an ordinary word; 0 another
    frequent word) at or above ``min_zipf``; with ``ordinary_only`` only ordinary words (not
    "ucla", "tylenol"), with ``dictionary_only`` only dictionary words; with
    ``dictionary_min_zipf`` also the ordinary words from that Zipf frequency on (one read for
    both cuts)."""
    out: Set[str] = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            zipf = float(cols[1] if len(cols) > 1 else 0)
            flag = cols[2] if len(cols) > 2 else "1"
            ordinary = flag != "0" and (flag == "1" or not dictionary_only)
            if (zipf >= min_zipf and (ordinary or not (ordinary_only or dictionary_only))) or (
                dictionary_min_zipf is not None and ordinary and zipf >= dictionary_min_zipf
            ):
                out.add(cols[0].lower())
    return out


@functools.lru_cache(maxsize=8)
def ending_pattern(path: Optional[str]) -> "Optional[re.Pattern]":
    """A regex matching the lower-case words of at least four letters before
    one of the endings listed in ``path`` (an asset name or a path, e.g.
    ``gazetteers/clinical_forms.txt``); None for none. A regex rather than a
    matcher: endings are suffixes of unseen words, which no term list can enumerate."""
    if not path:
        return None
    from spacy_deid.resources import asset_path

    endings = sorted(set(read_term_file(asset_path(path))), key=len, reverse=True)
    if not endings:
        return None
    return re.compile(r"^[a-z][a-z\-]{3,}(?:" + "|".join(re.escape(e) for e in endings) + r")$")


@functools.lru_cache(maxsize=1)
def dictionary_words() -> FrozenSet[int]:
    """Hashes of the lower-case dictionary words of the shipped common-word list
    (its ordinary-word flag, from Zipf 2.5: "wean", "urosepsis" is none): words
    that are not names, however rare in general English."""
    from spacy_deid.resources import asset_path

    return frozenset(get_string_id(w) for w in read_common_words(asset_path(COMMON_WORDS), 2.5, dictionary_only=True))


CLINICAL_FORMS = "gazetteers/clinical_forms.txt"
NICKNAME_NOUNS = "gazetteers/nickname_nouns.txt"


TOWNS_OF_WORDS = "gazetteers/us_towns_of_words.txt"
# the words of residence before "in" and a town ("lives in", "lives alone in", "resides in")
_RESIDENCE_VERBS = frozenset("lives live lived living resides reside resided residing".split())
# what may stand between such a word and "in" ("lives alone in", "lives independently in")
_RESIDENCE_MANNERS = frozenset("alone independently together currently now still part-time".split())


@functools.lru_cache(maxsize=1)
def towns_of_words() -> Dict[str, Tuple[Tuple[str, ...], ...]]:
    """The towns named by ordinary words (the shipped ``us_towns_of_words.txt``: "spruce pine",
    "flowery branch"), as word tuples by their first word, longest first."""
    from spacy_deid.resources import asset_path

    by_first: Dict[str, List[Tuple[str, ...]]] = {}
    for town in read_term_file(asset_path(TOWNS_OF_WORDS)):
        words = tuple(town.split())
        by_first.setdefault(words[0], []).append(words)
    return {k: tuple(sorted(v, key=len, reverse=True)) for k, v in by_first.items()}


@functools.lru_cache(maxsize=1)
def nickname_nouns() -> FrozenSet[str]:
    """The ordinary words a relative's nickname may be (the shipped ``nickname_nouns.txt``:
    rare singular nouns no clinical note writes, "clover", "pinky", "buzz")."""
    from spacy_deid.resources import asset_path

    return frozenset(read_term_file(asset_path(NICKNAME_NOUNS)))


def _purpose_word(low: str) -> bool:
    """A word for what a clinic or centre is for ("dialysis", "cardiology", "senior", "rehabilitation")."""
    return low in DEPARTMENT_WORDS or low in HOSPITAL_WORDS or _SPECIALTY.search(low) is not None


def _prev_word(doc: Doc, i: int, skip: FrozenSet[str] = frozenset({".", ",", ":", "(", "-", "'s", "’s"})) -> int:
    """Index of the nearest token before ``i`` that is not skippable punctuation (-1: none)."""
    j = i - 1
    while j >= 0 and (doc[j].lower_ in skip) and "\n" not in doc[j].text:
        j -= 1
    return j


def _words_before(doc: Doc, start: int) -> Tuple[str, str]:
    """The two words before ``doc[start]`` in lower case, punctuation and one "the" or
    "our" skipped ("transferred to the X" -> ("transferred", "to")); "" where there is none."""
    j = _prev_word(doc, start)
    if j >= 0 and doc[j].lower_ in ("the", "our"):
        j = _prev_word(doc, j)
    if j < 0:
        return "", ""
    k = _prev_word(doc, j)
    return (doc[k].lower_ if k >= 0 else ""), doc[j].lower_


_MIXED_CASE_KEY = "spacy_deid.mixed_case"


def is_mixed_case(doc: Doc) -> bool:
    """Whether ``doc`` is written in mixed case (not ALL CAPS, not all lower case).
    Read once per Doc (several components ask; it reads every character) and kept
    in ``doc.user_data``: a flag of the letter case, nothing of the text."""
    cached = doc.user_data.get(_MIXED_CASE_KEY)
    if cached is None:
        letters = [c for c in doc.text if c.isalpha()]
        share = sum(c.isupper() for c in letters) / len(letters) if letters else 0.0
        if share == 0.0 or share >= 0.6:
            cached = False
        else:
            # capitals, not all: mixed case when it capitalises words (sentences and names; prose
            # has few capitals, "It was on this street ...": 4% of its letters), not only acronyms
            # (a lower-case note: "pt c/o CP, HR 88")
            words = [t for t in doc if t.is_alpha]
            cached = bool(words) and sum(t.is_title for t in words) / len(words) >= 0.05
        doc.user_data[_MIXED_CASE_KEY] = cached
    return cached


def _starts_sentence(doc: Doc, i: int) -> bool:
    """``doc[i]`` is the first word of its sentence or line: the pipelines have no
    sentence splitter, so a period, "?", "!", ":" or a line break before it tells."""
    k = i - 1
    while k >= 0 and doc[k].is_space and "\n" not in doc[k].text:
        k -= 1
    return k < 0 or doc[k].text in {".", "?", "!", ":"} or "\n" in doc[k].text or "\n" in doc[k].whitespace_


def _lower(doc: Doc, i: int) -> str:
    return doc[i].lower_ if 0 <= i < len(doc) else ""


# words before a trade, never before a name ("a cook", "retired carpenter")
_OCCUPATION_CUES = frozenset("a an retired former unemployed".split())


@functools.lru_cache(maxsize=1)
def trade_words() -> FrozenSet[str]:
    """The head nouns of Faker's English job titles ("officer" of "Police officer",
    "teacher" of "Teacher, primary school"): an organisation or place the NER runs
    on into one is an occupation ("boston police officer"). Faker keeps the list."""
    from faker.providers.job.en_US import Provider

    return frozenset(job.split(",")[0].split()[-1].lower() for job in Provider.jobs) | frozenset(
        "nurse nurses officers teachers worker workers firefighter cop driver trucker".split()
    ) | _MANUAL_TRADES


# trades of manual and service work that Faker's (professional) job titles lack ("line cook
# at olive garden", "mail carrier for usps", "cashier at market basket")
_MANUAL_TRADES = frozenset("""
cook cooks chef carrier cashier aide aides mechanic janitor custodian waiter waitress bartender dishwasher mason
housekeeper landscaper roofer plumber carpenter electrician welder mover courier cabbie barber hairdresser
nanny babysitter guard laborer labourer fisherman farmer server bagger stocker busboy machinist
mailman postman student freshman sophomore miner logger lineman longshoreman steelworker
""".split())
# words of work before an employer in parentheses ("at work (shawmut construction)")
_WORK_BEFORE_EMPLOYER = frozenset("work works working job employer employed".split())
# denominations that name a congregation after its own name ("first baptist", "grace lutheran")
_DENOMINATIONS = frozenset("""
baptist lutheran methodist presbyterian episcopal pentecostal adventist congregational nazarene apostolic
mennonite ame evangelical
""".split())
# words of a kind of denomination, no congregation's name ("a southern baptist", "free will baptist")
_DENOMINATION_KINDS = frozenset("southern american united free will independent missionary primitive reformed "
                                "evangelical orthodox devout practicing practising raised".split())
_ORDINAL_NAMES = frozenset("first second third fourth fifth sixth seventh".split())
# ordinary words that open a congregation's name ("greater mt zion", "new hope", "holy trinity")
_CONGREGATION_WORDS = frozenset("greater new holy mt mt. mount st st. saint".split())
# what joins a trade to its employer ("driver for fedex", "nurse at faulkner")
_TRADE_JOINERS = frozenset({"at", "for"})
# modal verbs that name lists also hold ("Will", "May")
_MODALS = frozenset("will may can might shall must would could should".split())
# first names that notes write as verbs before a clinician's name ("page tauski at 8903")
_VERB_FIRST_NAMES = frozenset("page call ask tell bill chase".split())
# the verbs notes write as shorthand after a modal ("will f/u", "may d/c")
_VERB_SHORTHAND = frozenset("f/u d/c f/u. d/c'd".split())
# base forms of verbs that spaCy lists as stop words ("son mark will call back", "may be")
_BASE_STOP_VERBS = frozenset("be become call do get give go have keep make move put say see show take".split())
# a name with an apostrophe inside ("o'neil", "D'Angelo"), one token for spaCy
_APOSTROPHE_WORD = re.compile(r"^[^\W\d_]+['’][^\W\d_]{2,}$")


# A listed name or place at least this frequent as an English word ("will", "mark",
# "may", "general", "good") is used as a word far more often than as a name: a
# resampler may emit it, and in single-case notes a NER name of such words and
# ordinary ones needs a cue ("GENERAL ANESTHESIA", "GOOD HEMOSTASIS", "LESS THAN 5 ML")
EMIT_ZIPF = 5.0
# the tags of the name lists
_NAME_TAGS = frozenset({NAME, "key:first_names", "key:last_names"})


@functools.lru_cache(maxsize=100_000)
def zipf(word: str) -> float:
    """The Zipf frequency of ``word`` in English (wordfreq)."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en")


def _word_form(token) -> bool:
    """Letters only, or letters around one apostrophe ("o'neil")."""
    return token.is_alpha or _APOSTROPHE_WORD.match(token.text) is not None


def after_personal_title(doc: Doc, start: int) -> bool:
    """A personal title ("Ms.", "DR", "mr") is the word right before ``doc[start]``."""
    j = _prev_word(doc, start)
    # (a French size is no father: "16 fr foley")
    return j >= 0 and doc[j].lower_.rstrip(".") in PERSONAL_TITLES and not (doc[j].lower_.startswith("fr") and _after_number(doc, j))


def is_title_word(token) -> bool:
    """``token`` is a title ("dr", "Fr.", "REV")."""
    return token.lower_ in TITLES or token.lower_.rstrip(".") in TITLES


def has_title_before(doc: Doc, start: int, verbs: bool = True) -> bool:
    """A title, role word or two-word cue right before ``doc[start]``; not its
    possessive ("daughter's cell", "dr's orders": a thing of theirs). With
    ``verbs=False`` a verb cue ("called", "seen by", "spoke with") does not count:
    notes call and speak with services too ("called security", "spoke with pharmacy")."""
    if start > 0 and doc[start - 1].lower_ in {"'s", "’s"}:
        return False
    j = _prev_word(doc, start)
    if j < 0 or doc[j].is_space:
        return False
    w = doc[j].lower_.rstrip(".")
    if is_title_word(doc[j]) and j > 0 and doc[j - 1].like_num:
        return False  # "15 CM PROXIMAL": a unit after a number, no case manager
    if j + 1 < start and doc[j + 1].text == "-" and not doc[j].whitespace_:
        return False  # "Julie Tran, PA-C. Anesthesia": a credential's first part, no title
    if is_title_word(doc[j]) or w in ROLES or w in PLURAL_ROLES:
        return True
    # a header field: "pt: violet grollwick", "re: guy fields", "patient: ..."; "re:" heads
    # its line or sentence: inside one it means "about" ("d/w dr green re: heparin gtt")
    if w in COLON_CUES and j + 1 < start and doc[j + 1].text == ":" and (w != "re" or _starts_sentence(doc, j)):
        return True
    if not verbs:
        return False
    # a verb cue takes its object right after it: "called dr x", not "grace called, will call"
    if w in CUE_UNIGRAMS:
        return not any(doc[k].is_punct for k in range(j + 1, start))
    k = _prev_word(doc, j)
    return k >= 0 and (doc[k].lower_, doc[j].lower_) in CUE_BIGRAMS


def _role_before(doc: Doc, start: int) -> bool:
    """A relative's or carer's role word, no title, right before ``doc[start]`` ("wife x")."""
    j = _prev_word(doc, start)
    return j >= 0 and doc[j].lower_ in ROLES and not is_title_word(doc[j])


_PHONE_KINDS = frozenset({"PHONE", "FAX", "PAGER", "PHONE_NUMBER", "FAX_NUMBER", "IP_ADDRESS"})


def _digits_beside(span: Span, reach: int = 2) -> bool:
    """A token with a digit within ``reach`` tokens before or after ``span``, with only
    punctuation between."""
    doc = span.doc
    for step, k in ((-1, span.start - 1), (1, span.end)):
        for _ in range(reach):
            if not 0 <= k < len(doc):
                break
            if any(c.isdigit() for c in doc[k].text):
                return True
            if not doc[k].is_punct:
                break
            k += step
    return False


def _contact_form(span: Span) -> bool:
    """A NER contact has the form of its kind: four digits (or digits read out) in a phone,
    fax or pager number, "@" in an e-mail address, "." or "/" in a web address."""
    label = span.label_.upper()
    text = span.text
    if label in _PHONE_KINDS:
        # four digits at least, written or read out ("x2234", "five five five one two"), or an
        # extension ("EXT 985" after its number); not a value with its unit ("250 mmhg",
        # "24-french", "12 o'clock")
        if span[0].lower_.rstrip(".") in {"ext", "extension", "x"}:
            return any(c.isdigit() for c in text)
        if sum(c.isdigit() for c in text) + sum(t.lower_ in DIGIT_WORDS for t in span) >= 4:
            return True
        # a group of a number the NER cut in pieces ("( 37 ) 788 - 063"): digits beside it,
        # past punctuation only
        return _digits_beside(span)
    if label.startswith("EMAIL"):
        return "@" in text or " at " in text.lower()
    if label in {"URL", "DOMAIN_NAME"}:
        return "." in text or "/" in text
    return True


def contact_head(doc: Doc, j: int) -> bool:
    """``doc[j]`` is a contact word that labels a number after it ("carrie lindgren cell
    308-...", "pager: 4-5678"): no eponym's head word ("hurthle cell"), though it may be one."""
    if doc[j].lower_ not in _CONTACT_CUE_WORDS or j + 1 >= len(doc):
        return False
    k = j + 1 + (doc[j + 1].text in (":", "#") and j + 2 < len(doc))
    # (a phone's shape: "merkel cell 1.5 cm" stays an eponym)
    rest = doc.text[doc[k].idx : doc[k].idx + 16]
    return bool(re.match(r"^\(?\d{3}\)?[\s.-]?\d{3,4}|^\d{4,}|^x\d", rest))


def _after_number(doc: Doc, i: int) -> bool:
    """``doc[i]`` comes right after a number, or is joined to one by a hyphen: a size, unit
    or count ("12 french", "22-french foley", "3-way"), no name."""
    return (i >= 1 and doc[i - 1].like_num) or after_joined_number(doc, i)


def _hyphen_joined(doc: Doc, span: Span, word_ok: Callable[[Doc, int], bool], steps: int, spaced_right: bool) -> Span:
    """``span`` extended over up to ``steps`` words on each side that ``word_ok`` accepts and
    a hyphen joins to it ("weeks-rivas", "newton-wellesley"); on the left the word touches
    the hyphen, on the right a space before the hyphen is allowed with ``spaced_right``."""
    start, end = span.start, span.end
    for _ in range(steps):
        if not (end + 1 < len(doc) and doc[end].text == "-" and (spaced_right or not doc[end - 1].whitespace_)
                and word_ok(doc, end + 1)):
            break
        end += 2
    for _ in range(steps):
        if not (start >= 2 and doc[start - 1].text == "-" and not doc[start - 2].whitespace_ and word_ok(doc, start - 2)):
            break
        start -= 2
    return span if (start, end) == (span.start, span.end) else Span(doc, start, end, label=span.label)


def _between_hyphens(doc: Doc, i: int) -> bool:
    """``doc[i]`` is the middle of a hyphenated word ("cul-de-sac", "tete-a-tete"): no name alone."""
    return 0 < i < len(doc) - 1 and doc[i - 1].text == "-" and doc[i + 1].text == "-" \
        and not doc[i - 1].whitespace_ and not doc[i].whitespace_


def _after_patient_word(doc: Doc, start: int) -> bool:
    """A patient word ("male", "woman") right before ``doc[start]``, no comma between."""
    j = start - 1
    return j >= 0 and doc[j].lower_ in PATIENT_WORDS


def _has_credential_after(doc: Doc, end: int) -> bool:
    """A credential right after ``doc[end-1]`` ("x rn", "x, md", "x, pt")."""
    j = end
    comma = False
    while j < len(doc) and doc[j].text in {",", "-"}:
        comma = True
        j += 1
    if j >= len(doc):
        return False
    w = doc[j].lower_.rstrip(".")
    if w not in CREDENTIALS:
        return False
    return comma or w not in WEAK_CREDENTIALS


def _short_line_bounds(doc: Doc, i: int, max_words: int) -> Optional[Tuple[int, int]]:
    """The token bounds of the line of ``doc[i]``, or None when it has more than
    ``max_words`` alphabetic words (the scan stops there: prose notes have lines of
    hundreds of tokens, and only short lines are asked about)."""
    words = int(doc[i].is_alpha)
    start = i
    while start > 0 and "\n" not in doc[start - 1].text and "\n" not in doc[start - 1].whitespace_:
        start -= 1
        words += doc[start].is_alpha
        if words > max_words:
            return None
    end = i + 1
    while end < len(doc) and "\n" not in doc[end - 1].whitespace_ and "\n" not in doc[end].text:
        words += doc[end].is_alpha
        end += 1
        if words > max_words:
            return None
    return start, end


def _org_word_shape(t) -> bool:
    """A token that may be a word of an organisation's name by its shape: letters (a hyphened
    word too), no function word (spaCy's stop words that name things stay: "call", "four")."""
    low = t.lower_
    return (t.is_alpha or "-" in low and low.replace("-", "").isalpha()) and not (t.is_stop and low not in _CONTENT_STOP_WORDS)


def _thanks_before(doc: Doc, i: int) -> bool:
    """A closing's word and its comma before ``doc[i]`` ("thanks, hb", "Regards, JT")."""
    return i > 1 and doc[i - 1].text == "," and doc[i - 2].lower_ in {"thanks", "thx", "regards", "best", "sincerely", "cheers"}


# units a value's line may wrap before ("wt 70\nkg")
_UNIT_WORDS_ALONE = frozenset("kg lb lbs mg mcg ml cc mm cm ft oz in hr hrs min".split())


def _ends_sentence(doc: Doc, k: int) -> bool:
    """The last word before ``doc[k + 1]`` (spaces skipped) ends a sentence: ".", "!", ")"."""
    while k >= 0 and doc[k].is_space:
        k -= 1
    return k >= 0 and (doc[k].text in {".", "!", ")"} or len(doc[k].text) > 1 and doc[k].text.endswith("."))


def _last_word(doc: Doc, i: int) -> bool:
    """``doc[i]`` is the note's last word: only spaces and punctuation after it."""
    return i < len(doc) and all(x.is_space or x.is_punct for x in doc[i + 1:])


def _region_code(doc: Doc, k: int) -> bool:
    """``doc[k]`` is a region's code in an address: two or three letters (or one or two
    digits) after a comma,
    last on their line or before a postal code ("porto alegre / , RS / brazil 95828",
    "st georges, QC 54256"; "GU" and "NI" are clinical abbreviations elsewhere)."""
    t = doc[k]
    code = (t.is_alpha and 2 <= len(t.text) <= 3) or (t.is_digit and len(t.text) <= 2)  # ", 32" too
    if not code or k == 0 or doc[k - 1].text != ",":
        return False
    if t.is_alpha and is_not_phi_place(t.text.upper()):
        return False  # a US state ("east mary, RI 02816"): kept, not PHI
    if "\n" in t.whitespace_ or k + 1 == len(doc):
        return True
    nxt = doc[k + 1]
    return (nxt.is_space and "\n" in nxt.text) or bool(re.match(r"^\d{3,6}$", nxt.text))


def _alone_on_line(doc: Doc, span: Span) -> bool:
    """``span`` is all its line holds but punctuation ("??? Porto Alegre")."""
    bounds = _short_line_bounds(doc, span.start, len(span) + 1)
    return bounds is not None and all(
        span.start <= i < span.end or doc[i].is_punct or doc[i].is_space for i in range(*bounds)
    )


_NO_TAGS: FrozenSet[str] = frozenset()


@dataclass
class GazetteerIndex:
    """The lists compiled for matching, as hashes of lower-case token strings
    (spaCy's ``Token.lower``): what a saved pipeline stores, no list text.

    single (Dict[int, FrozenSet[str]]): one-token entry -> labels and ``key:<list>`` tags.
    multi (Dict[int, List[Tuple[Tuple[int, ...], str]]]): first token -> (all tokens, label).
    common (Set[int]): ordinary words.
    clinical (Set[int]): clinical words and abbreviations.
    """

    single: Dict[int, FrozenSet[str]]
    multi: Dict[int, List[Tuple[Tuple[int, ...], str]]]
    common: Set[int]
    clinical: Set[int] = field(default_factory=set)
    place_suffixes: Tuple[str, ...] = ()
    place_prefixes: FrozenSet[str] = frozenset()

    @classmethod
    def from_lists(cls, lists: GazetteerLists, make_doc) -> "GazetteerIndex":
        single: Dict[int, Set[str]] = {}
        multi: Dict[int, List[Tuple[Tuple[int, ...], str]]] = {}
        rules = getattr(getattr(getattr(make_doc, "__self__", None), "tokenizer", None), "rules", None)
        special = None if rules is None else {k.lower() for k in rules if k.isalpha()}
        for key, terms in lists.lists.items():
            label = lists.labels[key]
            for term in terms:
                # a word of letters only is one token, unless a special case of the tokenizer
                # splits it ("cannot", "theres"): the tokenizer costs seconds on 45,000 entries
                fast = special is not None and term.isalpha() and term.lower() not in special
                hashes = (get_string_id(term.lower()),) if fast else tuple(t.lower for t in make_doc(term))
                if len(hashes) == 1:
                    single.setdefault(hashes[0], set()).update((label, f"key:{key}"))
                elif hashes:
                    multi.setdefault(hashes[0], []).append((hashes, label))
        common = {get_string_id(w) for w in lists.common}
        clinical = {get_string_id(w) for w in lists.clinical}
        return cls(
            {h: frozenset(v) for h, v in single.items()}, multi, common, clinical,
            tuple(sorted(lists.place_suffixes)), frozenset(lists.place_prefixes),
        )

    def multi_matches(self, doc: Doc) -> List[Tuple[int, int, str]]:
        """(start, end, label) of every multi-token entry found in ``doc``."""
        out: List[Tuple[int, int, str]] = []
        lowers = doc.to_array(LOWER).tolist() if len(doc) else []
        for i, h in enumerate(lowers):
            for hashes, label in self.multi.get(h, ()):
                if tuple(lowers[i : i + len(hashes)]) == hashes:
                    out.append((i, i + len(hashes), label))
        return out

    def to_dict(self) -> dict:
        """A msgpack-able form (hashes and labels only)."""
        return {
            "single": [[h, sorted(tags)] for h, tags in self.single.items()],
            "multi": [[list(hashes), label] for entries in self.multi.values() for hashes, label in entries],
            "common": sorted(self.common),
            "clinical": sorted(self.clinical),
            "place_suffixes": list(self.place_suffixes),
            "place_prefixes": sorted(self.place_prefixes),
        }

    @classmethod
    def from_dict(cls, data: dict) -> "GazetteerIndex":
        multi: Dict[int, List[Tuple[Tuple[int, ...], str]]] = {}
        for hashes, label in data["multi"]:
            multi.setdefault(int(hashes[0]), []).append((tuple(int(h) for h in hashes), label))
        return cls(
            {int(h): frozenset(tags) for h, tags in data["single"]}, multi, {int(h) for h in data["common"]},
            {int(h) for h in data.get("clinical", [])},
            tuple(data.get("place_suffixes", ())), frozenset(data.get("place_prefixes", ())),
        )


class Gazetteer:
    """Find names, places and hospitals in a Doc with the context rules of the module docstring.

    index (GazetteerIndex): the compiled lists.
    """

    def __init__(self, index: "GazetteerIndex") -> None:
        self.index = index
        self.common = index.common
        # are there entries of a label of their own (a user's wards, staff)? (``others`` is skipped if not)
        self._other_labels = any(label not in _BUILT_IN for _, label in (e for es in index.multi.values() for e in es)) or any(
            label not in _BUILT_IN and not label.startswith("key:") for tags in index.single.values() for label in tags
        )

    @classmethod
    def from_lists(cls, lists: GazetteerLists, make_doc) -> "Gazetteer":
        """Compile the lists with the pipeline's tokenizer."""
        return cls(GazetteerIndex.from_lists(lists, make_doc))

    # ---------------------------------------------------------------- helpers
    def is_common(self, word: str) -> bool:
        """An ordinary word (or clinical term): an entry that is one needs context."""
        return get_string_id(word) in self.common

    def ordinary(self, doc: Doc, i: int, mixed_case: bool) -> bool:
        """``doc[i]`` reads as an ordinary word: a common word, a month or weekday,
        or, in mixed-case text, a short all-capitals acronym ("ADA", "ELISA"; a
        listed name only up to three letters)."""
        t = doc[i]
        if self.is_common(t.lower_) or t.lower_ in CALENDAR_WORDS:
            return True
        # a listed first name or surname in capitals is a name from four letters on ("HUNT, KARA")
        limit = 3 if NAME in self.tags(t.lower_) else 5
        return mixed_case and t.is_upper and len(t.text) <= limit

    def eponym_after(self, doc: Doc, end: int) -> bool:
        """The span ending at ``end`` names a disease, score or sign ("wilson's
        disease", "gleason score", "stevens-johnson syndrome", "framingham risk score")."""
        j = end
        n = len(doc)
        while j < n and (doc[j].lower_ in {"'s", "’s", "'", "-", "’"} or (j < end + 3 and NAME in self.tags(doc[j].lower_))):
            j += 1
        for k in range(j, min(j + 2, n)):
            low = doc[k].lower_
            # "robinson catheters", "allis clamps"
            if (low in EPONYM_HEADS or (low.endswith("s") and low[:-1] in EPONYM_HEADS)) and not contact_head(doc, k):
                return True
        return False

    def tags(self, word: str) -> FrozenSet[str]:
        """Labels (and ``key:<list key>`` tags) of a one-token list entry."""
        return self.index.single.get(get_string_id(word), _NO_TAGS)

    def _name_token(self, doc: Doc, i: int) -> bool:
        low = doc[i].lower_
        return NAME in self.tags(low) and low.rstrip(".") not in _CONTEXT_WORDS and not _after_number(doc, i) \
            and not _between_hyphens(doc, i) and not self._word_prefix(doc, i) \
            and not (i >= 1 and doc[i - 1].lower_ in STREET_LEADS)

    def _foreign_first_name(self, doc: Doc, i: int) -> bool:
        """A listed first name that is frequent in English text without being a dictionary
        word ("philippe", "magnus"): alone it needs a cue, before a word no list has it
        starts a name ("Philippe Guernon"; "will xarelto" is no name)."""
        low = doc[i].lower_
        return "key:first_names" in self.tags(low) and self.is_common(low) and get_string_id(low) not in dictionary_words()

    def _first_name_before_surname(self, doc: Doc, i: int, mixed_case: bool) -> bool:
        """A listed first name that is an ordinary word too ("earl", "dale", "summer", "ray")
        starts a name before a word of three letters or more that no dictionary has, on its
        line and in its letter case ("PT EARL WASHBURN FOUND", "Dale Unruh, 67 y/o"; "will
        ambulte", a modal before a typo, and "summer Delacroix" in mixed-case text stay)."""
        t = doc[i]
        if i + 1 >= len(doc) or "key:first_names" not in self.tags(t.lower_) or t.lower_ in _MODALS or "\n" in t.whitespace_:
            return False
        if i > 0 and doc[i - 1].lower_ in {"of", "'s", "’s"}:
            return False  # where a person works ("Yuito Hirai of Reed Elsevier"): a firm's name
        if t.lower_ in _VERB_FIRST_NAMES or (i > 0 and (doc[i - 1].lower_ == "to" or doc[i - 1].lower_ in _MODALS)):
            return False  # a verb before its object ("ok to page tauski at", "PAGE BARSTAD")
        nxt = doc[i + 1]
        if len(nxt.text) < 3 or not nxt.is_alpha:
            return False
        # (in single-case text a misspelling after such a word is as likely: "pt max assit x2")
        return mixed_case and t.is_title and nxt.is_title

    def _word_prefix(self, doc: Doc, i: int) -> bool:
        """``doc[i]`` is joined by a hyphen to an ordinary word after it that no list names
        ("de-torsed", "re-do"): a prefix, no name ("smith-jones", "mary-kate" stay names)."""
        if i + 2 >= len(doc) or doc[i + 1].text != "-" or doc[i].whitespace_ or doc[i + 1].whitespace_:
            return False
        nxt = doc[i + 2]
        return nxt.is_alpha and NAME not in self.tags(nxt.lower_) and self.is_common(nxt.lower_)

    def _unknown_word(self, doc: Doc, i: int) -> bool:
        """A word that is no ordinary word and no clinical one ("choledocholithiasis"):
        after a title it is taken as a name."""
        t = doc[i]
        return _word_form(t) and len(t.text) > 1 and not self.is_common(t.lower_) and not self.clinical_term(t.lower_) \
            and t.lower_ not in ROLES and t.lower_.rstrip(".") not in CALENDAR_WORDS and t.lower_.rstrip(".") not in CREDENTIALS \
            and not _SPECIALTY_WORD.search(t.lower_) and t.lower_ not in _AFTER_NAME_WORDS and t.lower_ not in _CONTACT_CUE_WORDS
        # (a role word or credential no dictionary has is a cue, no name: "by girlfriend april",
        # "green, rn, cwocn"; a month's
        # abbreviation starts a date: "dr ellen marsh jul 25")

    # ------------------------------------------------------------------ names
    def names(self, doc: Doc, mixed_case: bool) -> Tuple[List[Span], List[Span]]:
        """NAME spans: runs of name-list words (an initial may sit inside a run),
        taken by the rules of the module docstring; those after a title or role
        word first (they win over a place of the same length: "daughter Ada")."""
        titled_out: List[Span] = []
        out: List[Span] = []
        n = len(doc)
        i = 0
        while i < n:
            # a listed name that is a role word too, after a personal title ("ho dr friend paged")
            role_name = doc[i].lower_ in ROLES and NAME in self.tags(doc[i].lower_) and after_personal_title(doc, i) \
                or self._titled_word_name(doc, i)
            if not (self._name_token(doc, i) or self._unknown_word(doc, i) or role_name) or is_title_word(doc[i]):
                i += 1  # no name starts here, titled or not (the title test costs more); nor at
                continue  # a title after a title ("chaplain fr. tom")
            # a name first in its sentence and told of something ("... 3/20. sandy aware of plan",
            # "GRACE NOTIFIED"): the note's way of naming whom it told
            titled = has_title_before(doc, i)
            told = not titled and i + 1 < n and (
                doc[i + 1].lower_ in _TOLD_WORDS
                # or whose role the sentence gives ("frank is hcp", "GRACE IS THE POA", "grace (wife)")
                or doc[i + 1].lower_ == "is" and any(doc[k].lower_ in ROLES for k in range(i + 2, min(i + 4, n)))
                or doc[i + 1].text == "(" and i + 2 < n and doc[i + 2].lower_ in ROLES
                # a first name that does what visitors do ("bill called at 2100", "hope asking about")
                or doc[i + 1].lower_ in _VISITOR_VERBS and "key:first_names" in self.tags(doc[i].lower_)
            ) and _starts_sentence(doc, i) \
                and "\n" not in doc[i].whitespace_ and self._name_token(doc, i) and len(doc[i].text) > 2
            # (a listed name, no two-letter one: "HO AWARE" is the house officer)
            titled = titled or told
            if titled and mixed_case and doc[i].is_upper and len(doc[i].text) <= 5:
                # "per ADA", "by CMS": after a weak cue, an acronym in mixed-case text is no name
                j = _prev_word(doc, i)
                titled = doc[j].lower_.rstrip(".") not in CUE_UNIGRAMS
            # "re: low uop": a subject line names a person only with a word that is only a name
            if titled and doc[_prev_word(doc, i)].lower_ == "re" and self.ordinary(doc, i, mixed_case):
                titled = False
            # a word no list has is a name after a title, not after a patient word without a comma,
            # nor a dictionary's word after a weak cue ("pt called triage line", "paged pharmacy")
            titled_unknown = titled and not _after_patient_word(doc, i) and not (
                doc[_prev_word(doc, i)].lower_.rstrip(".") in CUE_UNIGRAMS
                and get_string_id(doc[i].lower_) in dictionary_words()
            )
            if not (self._name_token(doc, i) or role_name or (titled_unknown and self._unknown_word(doc, i))):
                i += 1
                continue
            if self.clinical_term(doc[i].lower_) and "key:first_names" not in self.tags(doc[i].lower_) \
                    and (not titled or doc[_prev_word(doc, i)].lower_.rstrip(".") in CUE_UNIGRAMS):
                i += 1  # "PLACEMENT CONFIRMED BY KUB": a clinical term that a surname list has too, after
                continue  # a weak cue or none ("RN FOLEY", "dr gleason" stay names)
            if self.modal_before_verb(doc, i) and not after_personal_title(doc, i):
                # "daughter will bring specimen", "SW WILL ARRANGE CAB", "WILL F/U W/ PCP": a
                # modal verb, after a role word too ("dr will aware" stays a name)
                i += 1
                continue
            j = i + 1
            while j < n:
                # after a title, a name may go on over words no list has ("dr sharnette myrnson")
                if doc[j].lower_.rstrip(".") in CREDENTIALS and j > i:
                    break  # "CREW: FOX EMT-B, J. RAY PARAMEDIC": the credential ends the name
                if self._name_token(doc, j) or (j < i + 3 and titled_unknown and self._unknown_word(doc, j)) or (
                    # (not a dictionary's word after it: "no le edema")
                    j == i + 1 and (self._foreign_first_name(doc, i) or self._first_name_before_surname(doc, i, mixed_case))
                    and self._unknown_word(doc, j)
                    and not self._clinical_word(doc[j].lower_)
                ):
                    j += 1
                    continue
                # a middle initial: "john a. smith", "john a smith", "Vanessa C. White"
                if _INITIAL.match(doc[j].text) and j + 1 < n:
                    nxt = j + 2 if doc[j + 1].text == "." else j + 1
                    # "lóa f. sigmundsdóttir": a word no list has after a first name's initial
                    if nxt < n and (self._name_token(doc, nxt) or (
                        "key:first_names" in self.tags(doc[i].lower_) and self._unknown_word(doc, nxt)
                    )):
                        j = nxt + 1
                        continue
                break
            # a listed name that is a modal verb ends no run before a verb's base form
            # ("DAUGHTER NANCY WILL BRING IN CLOTHES", "son jim may call"; not "JOHN MAY CALLED")
            if j - i > 1 and self.modal_before_verb(doc, j - 1):
                j -= 1
            # a surname that is an ordinary word before a credential ("seen w/ jamal person, pa")
            if j < n and doc[j].is_alpha and not doc[j].is_stop and "\n" not in doc[j - 1].whitespace_ \
                    and not self.clinical_term(doc[j].lower_) and not self.after_name_verb(doc[j]) \
                    and doc[j].lower_ not in CREDENTIALS and _has_credential_after(doc, j + 1) and self._name_token(doc, j - 1):
                j += 1

            if j == i + 1 and j < n and (doc[j].lower_ in ROLES or doc[j].lower_.rstrip(".") in TITLES) \
                    and (self.ordinary(doc, i, mixed_case) and "key:first_names" not in self.tags(doc[i].lower_)
                         or self.clinical_term(doc[i].lower_)) and not after_personal_title(doc, i) \
                    and not (i > 0 and len(doc[i - 1 - (doc[i - 1].text == "." and i > 1)].text.strip("-.")) == 1):
                i = j  # a kind of role, no name: "PAGED HOUSE OFFICER", "ED MD NOTE" ("grace rn", "-N. BRADY RN" stay)
                continue
            if not titled and i > 0 and doc[i - 1].lower_ in {"a", "an"} and self._extend_name(doc, i, j, mixed_case) == i + 1:
                i = j  # "using a french catheter", "an allis clamp": a thing ("a david lange concert" stays)
                continue
            run = [k for k in range(i, j) if _word_form(doc[k]) and len(doc[k].text) > 1]
            if self._take_run(doc, i, j, run, titled, mixed_case) and (titled or not self.eponym_after(doc, j)):
                start = i
                if not titled and _has_credential_after(doc, j):
                    # "zoick fields, rn": the words before a credential that no list has
                    while start > max(i - 2, 0) and self._unknown_word(doc, start - 1) and "\n" not in doc[start - 1].whitespace_:
                        start -= 1
                j = self._extend_name(doc, i, j, mixed_case)
                if "-".join(doc[k].lower_ for k in range(start, j) if doc[k].is_alpha) not in _HYPHENATED_EPONYMS:
                    # ("SAH HUNT HESS 3": an eponym written without its hyphen)
                    (titled_out if titled else out).append(Span(doc, start, j, label=NAME))
            i = j
        titled_out = [self._surname_after(doc, self._hyphen_partners(doc, sp)) for sp in titled_out]
        out = [self._hyphen_partners(doc, sp) for sp in out]
        # a first name taken alone is the context of a surname that is an ordinary word after it,
        # where the name ends ("patient: lorraine fish   dob", "ella-mae tucker, 4 y/o")
        out = [self._surname_after(doc, sp) if self._first_name_only(doc[sp.end - 1]) else sp for sp in out]
        return titled_out, out + self._comma_partners(doc, titled_out + out)

    def kin_nicknames(self, doc: Doc, mixed_case: bool) -> List[Span]:
        """NAME spans: a relative's or friend's nickname that is an ordinary noun no clinical
        note writes (``nickname_nouns``: "clover", "pinky"; the name rules take listed names)
        right after the relative's word, before what a person does there: a visitor's verb or
        "here", or "and" with another relative or name, or an age in parentheses ("grandson moose
        called", "dtr pinky lives in wilmington", "mom cricket and dad bear", "kids blue (14)");
        not before a comma, a place or the line's end, where things and states stand as often
        ("bitten by neighbor beagle", "mom kangaroo, tolerated well", "son addict, in jail").
        Capitalised in mixed-case text ("Wife Cricket called")."""
        nouns = nickname_nouns()
        out: List[Span] = []
        n = len(doc)
        for i in range(1, n):
            t = doc[i]
            low = t.lower_
            if low not in nouns or len(low) < 3 or (mixed_case and not t.is_title) or "\n" in doc[i - 1].whitespace_:
                continue
            kin = doc[i - 1].lower_
            if kin == "law" and i >= 3 and doc[i - 2].lower_ in {"in", "-"}:
                kin = doc[i - 3].lower_  # "son in law butch"
            plural = kin in PLURAL_ROLES
            # ("gf", "bf", "bil": gluten-free, breastfeeding, bilateral too: "gf bread", "rash bil armpit")
            if not (kin in KIN_ROLES or plural) or kin in {"gf", "bf", "bil"} or self.clinical_term(low) or NAME in self.tags(low):
                continue
            if is_role(low) or low in TITLES or low in trade_words():
                continue  # "wife pharmacist", "son chaplain", "wife realtor": what the relative is
            if self._nickname_ends(doc, i + 1, plural):
                out.append(Span(doc, i, i + 1, label=NAME))
        return out

    def patient_names(self, doc: Doc, mixed_case: bool) -> List[Span]:
        """NAME spans: a listed first name that is no common word and a surname after the
        patient's word ("pt", "res", "91 yo f"), the surname a listed one where the name ends,
        or any word before the patient's age ("pt minerva toll 98 lives w/ dtr", "pt amos peel
        92:"); not a verb after the patient ("pt mark improved 50%"), no common word first
        ("PT ORAL TEMP 100", "pt long walk 100."); capitalised in mixed-case text."""
        out: List[Span] = []
        n = len(doc)
        for i in range(1, n - 1):
            before = doc[i - 1].lower_
            patient = before in _RESIDENT_WORDS or (
                before in {"f", "m", "female", "male"} and i > 1 and doc[i - 2].lower_ in {"yo", "y/o", "yr", "year-old"}
            )
            if not patient or "\n" in doc[i - 1].whitespace_ or "\n" in doc[i].whitespace_:
                continue
            first, last = doc[i], doc[i + 1]
            if mixed_case and not (first.is_title and last.is_title):
                continue
            if not (first.is_alpha and last.is_alpha) or last.is_stop or "key:first_names" not in self.tags(first.lower_):
                continue
            if self.is_common(first.lower_):
                continue  # the lists' "oral", "long", "less": "PT ORAL TEMP 100", "pt long walk 100."
            if self.clinical_term(first.lower_) or self.clinical_term(last.lower_) or self.modal_before_verb(doc, i) \
                    or self.after_name_verb(last) or last.lower_.endswith("ly"):
                continue  # "pt rose slowly", "pt mark improved"
            k = i + 2
            if k < n and doc[k].text == ",":
                k += 1
            # the patient's age after the name: "97.", "92:", "98 lives", "84 yo" (not "50%")
            aged = k < n and (doc[k].lower_ in {"yo", "y/o"} or doc[k].text.isdigit() and 0 < int(doc[k].text) <= 125 and (
                k + 1 == n or "\n" in doc[k].whitespace_ or doc[k + 1].text in {",", ".", ":", ";", "@"}
                or doc[k + 1].lower_ in {"yo", "y/o"} or self.after_name_verb(doc[k + 1])
            ))
            # (a word no dictionary has is as likely a typo: "pt max assit x2", "PT EARL WASHBURN FOUND")
            if "key:last_names" in self.tags(last.lower_) and self._name_ends_at(doc, k) or aged:
                out.append(Span(doc, i, i + 2, label=NAME))
        return out

    def _nickname_ends(self, doc: Doc, k: int, plural: bool) -> bool:
        """Whether a relative's nickname ends before ``doc[k]`` (see ``kin_nicknames``)."""
        if k >= len(doc) or "\n" in doc[k - 1].whitespace_ or "\n" in doc[k].text:
            return False  # (a thing as often: "bitten by neighbor beagle")
        low = doc[k].lower_
        if low in {"and", "&"} and k + 1 < len(doc):
            nxt = doc[k + 1].lower_
            return nxt in KIN_ROLES or nxt in nickname_nouns() or NAME in self.tags(nxt)
        if low == "(":
            return k + 1 < len(doc) and (doc[k + 1].like_num or doc[k + 1].lower_ in ROLES)
        if plural:
            return False
        return low == "here" or low in _VISITOR_VERBS or low in _TOLD_WORDS or self.after_name_verb(doc[k])

    def _first_name_only(self, t) -> bool:
        tags = self.tags(t.lower_)
        return "key:first_names" in tags and "key:last_names" not in tags

    def _titled_word_name(self, doc: Doc, i: int) -> bool:
        """A word that names a place or a role elsewhere is a surname after a title when the
        name ends there: a landmark's word after a personal title ("dr temple aware", "fr. lake
        visited", "pcp dr chapel-ford"), "law" after any title but "in" ("np law made aware";
        "son in law" stays a role)."""
        low = doc[i].lower_
        if low == "law":
            j = _prev_word(doc, i)
            return j >= 0 and doc[j].lower_.rstrip(".") in TITLES and NAME in self.tags(low)
        return low in _SURNAME_LANDMARKS and after_personal_title(doc, i) and not self.modal_before_verb(doc, i) and (
            self._name_ends_at(doc, i + 1) or self.after_name_verb(doc[i + 1]) or doc[i + 1].lower_ in _TOLD_WORDS
        )

    @staticmethod
    def _name_ends_at(doc: Doc, k: int) -> bool:
        """Nothing but punctuation, a line's end or a stop word comes at ``doc[k]``:
        a name before it ends there ("dr hyun-woo park, no", "Dr. Mei-Ling Young.")."""
        return k >= len(doc) or not doc[k].is_alpha or doc[k].is_stop or "\n" in doc[k - 1].whitespace_

    def _surname_after(self, doc: Doc, span: Span) -> Span:
        """A titled name goes on over a listed surname that is also a common word when the
        name ends after it ("dr hyun-woo park,", "dr. mei-ling young."): alone such a
        word needs context, and the title and first name before it are that context."""
        k = span.end
        # the second part of a hyphenated first name ("hyun-woo", "Mei-Ling")
        if k + 1 < len(doc) and doc[k].text == "-" and not doc[k - 1].whitespace_ and not doc[k].whitespace_ \
                and doc[k + 1].is_alpha:
            k += 2
        if k < len(doc) and "\n" not in doc[k - 1].whitespace_ and self._surname_word(doc, k) \
                and self._name_ends_at(doc, k + 1) and not self.modal_before_verb(doc, k):
            return Span(doc, span.start, k + 1, label=span.label_)
        return span

    def _hyphen_partners(self, doc: Doc, span: Span) -> Span:
        """A taken name with a listed surname joined to it by a hyphen is one name
        ("weeks-rivas", "Mayo-Walters", "garcia- smith"), whatever the commonness of
        that surname ("weeks", "mayo": alone they are taken only in context)."""
        return _hyphen_joined(doc, span, self._surname_word, steps=1, spaced_right=True)

    def _surname_word(self, doc: Doc, k: int) -> bool:
        t = doc[k]
        return t.is_alpha and "key:last_names" in self.tags(t.lower_) and not self.clinical_term(t.lower_)

    def _comma_partners(self, doc: Doc, taken: List[Span]) -> List[Span]:
        """"HUNT, KARA", "Smith, John": a list name on the other side of a comma
        from a name that was taken is the rest of it."""
        covered = {k for sp in taken for k in range(sp.start, sp.end)}
        out: List[Span] = []
        for sp in taken:
            if self.is_state(sp):
                continue  # "called from florida, will be here": a state, no surname
            for k in (sp.start - 2, sp.end + 1):
                comma = sp.start - 1 if k < sp.start else sp.end
                if 0 <= k < len(doc) and doc[comma].text == "," and k not in covered and self._name_token(doc, k) \
                        and not self.modal_before_verb(doc, k):
                    covered.add(k)
                    out.append(Span(doc, k, k + 1, label=NAME))
        return out

    def _extend_name(self, doc: Doc, start: int, end: int, mixed_case: bool = False) -> int:
        """A taken name goes on over a surname missing from the lists ("john
        kowalczyk": one word that is no ordinary word, after a first name) and a
        trailing initial ("dianne l.")."""
        n = len(doc)
        if end - start == 1 and end < n and "key:first_names" in self.tags(doc[start].lower_) and (
            # (no dictionary's word in single-case text: "no le edema")
            self._unknown_word(doc, end) and (mixed_case or not self._clinical_word(doc[end].lower_))
            or (mixed_case and doc[start].is_title and doc[end].is_title and doc[end].is_alpha)
        ):
            end += 1
        # (no "x" before a number: "case mgr ellie x 7718" gives an extension)
        if end < n and _INITIAL.match(doc[end].text) and doc[end].lower_ not in {"a", "i"} \
                and not (doc[end].lower_ == "x" and end + 1 < n and doc[end + 1].like_num):
            end += 1
            if end < n and doc[end].text == ".":
                end += 1
        return end

    def _take_run(self, doc: Doc, start: int, end: int, run: Sequence[int], titled: bool, mixed_case: bool) -> bool:
        if titled or _has_credential_after(doc, end):
            return True
        # "maria g.", "JACK B.": a first name with an initial and its period
        if (
            end + 1 < len(doc) and _INITIAL.match(doc[end].text)
            and (doc[end].text.endswith(".") or doc[end + 1].text == ".")
            and any("key:first_names" in self.tags(doc[k].lower_) for k in run)
            and doc[end].lower_ not in {"a", "i"}
        ):
            return True
        plain = [k for k in run if not self.ordinary(doc, k, mixed_case)]
        if plain and len(run) >= 2:
            return True  # a full name with at least one word that is only a name
        if len(run) == 1:
            if plain:
                return True
            return self._signature_line(doc, start, end)
        if mixed_case and all(doc[k].is_title for k in run) and not doc[start].is_sent_start:
            return True  # "Mark Brown" in mixed-case text
        return self._signature_line(doc, start, end)

    def _signature_line(self, doc: Doc, start: int, end: int) -> bool:
        """A short line of names and credentials only ("grace smith rn")."""
        bounds = _short_line_bounds(doc, start, 5)
        if bounds is None:
            return False
        ls, le = bounds
        words = [t for t in doc[ls:le] if t.is_alpha]
        if not words or le < end:
            return False
        creds = sum(t.lower_ in CREDENTIALS for t in words)
        names = sum(NAME in self.tags(t.lower_) for t in words)
        return creds >= 1 and creds + names == len(words)

    def _place_end(self, doc: Doc, k: int, mixed_case: bool) -> int:
        """The end of a place's name that starts at ``doc[k]``: a listed place of several
        words ("new england", "fall river"), else one word that is ``_place_like``; ``k``
        for none."""
        ends = [
            k + len(hashes) for hashes, label in self.index.multi.get(doc[k].lower, ())
            if label in PLACE_LABELS and tuple(t.lower for t in doc[k : k + len(hashes)]) == hashes
        ]
        if ends:
            return max(ends)
        if doc[k].lower_ == "new" and k + 1 < len(doc) and (
            self._place_like(doc, k + 1, mixed_case) or mixed_case and doc[k].is_title and doc[k + 1].is_title
        ):
            return k + 2  # "New England", "new bradford"
        if doc[k].lower_ == "greater" and k + 1 < len(doc) and self._place_end(doc, k + 1, mixed_case) > k + 1:
            return self._place_end(doc, k + 1, mixed_case)  # "vna of greater lowell"
        return k + 1 if self._place_like(doc, k, mixed_case) else k

    def _place_like(self, doc: Doc, k: int, mixed_case: bool) -> bool:
        """A listed city or name, a word with a place-name ending, or a capitalised
        word that is no ordinary word in mixed-case text."""
        t = doc[k]
        if not t.is_alpha:
            return False
        tags = self.tags(t.lower_)
        return bool(tags & {CITY, NAME}) or self._place_by_ending(t) or self._looks_named(doc, k, mixed_case)

    def _place_by_ending(self, t) -> bool:
        """"Barnesville", "Kathyton", "Lake Stephaniechester": a word of six letters
        or more that is no ordinary word or clinical term and ends like an English
        place name (endings in ``place_suffixes.txt``)."""
        low = t.lower_
        if len(low) < 6 or not t.is_alpha or self.is_common(low) or self.tags(low) & {NAME} and not low.endswith(("ville", "ton", "burgh")):
            return False
        suffixes = self.index.place_suffixes
        return low.endswith(suffixes) and any(low.endswith(suf) and len(low) > len(suf) + 2 for suf in suffixes)

    def places_by_form(self, doc: Doc, mixed_case: bool) -> List[Span]:
        """CITY spans by form: a place-name ending ("Barnesville"), and a place
        prefix before a name or such a word ("East Mary", "Port Katherineside")."""
        out: List[Span] = []
        n = len(doc)
        for i, t in enumerate(doc):
            if t.lower_ in self.index.place_prefixes and i + 1 < n and doc[i + 1].is_alpha:
                nxt = doc[i + 1]
                if (NAME in self.tags(nxt.lower_) or self._place_by_ending(nxt)) and (not mixed_case or (t.is_title and nxt.is_title)):
                    out.append(Span(doc, i, i + 2, label=CITY))
                    continue
            if self._place_by_ending(t) and (not mixed_case or t.is_title or t.is_upper):
                out.append(Span(doc, i, i + 1, label=CITY))
        return out

    def named_streets(self, doc: Doc, mixed_case: bool) -> List[Span]:
        """STREET spans: a street named without its house number, one to three capitalised
        words before a capitalised street word in mixed-case text ("early shows on Marina
        Fort Street", "lives off Elm Road"), one to three words after "on", "off", "at"...
        in single-case text ("LIVES ON ELM STREET"). No clinical term or stop word among
        them, no sentence's first word unless no dictionary has it."""
        out: List[Span] = []
        n = len(doc)
        for i, t in enumerate(doc):
            if _INTERSTATE.match(t.text):
                out.append(Span(doc, i, i + 1, label="STREET"))
                continue
            # ("rt" is "right" too: a road only after a place's preposition, "cvs on rt 113")
            road = t.lower_ in _ROAD_WORDS or t.lower_.rstrip(".") == "rt" and _lower(doc, i - 1) in _STREET_CUES
            if road and i + 1 < n and _ROAD_NUMBER.match(doc[i + 1].text) and (not mixed_case or t.is_title or t.is_upper):
                out.append(Span(doc, i, i + 2, label="STREET"))
                continue
            low = t.lower_.rstrip(".")
            if low == "st":
                # "on essex st.", "Walgreens, Main St": a street after its name; before a
                # capitalised word "St" is a saint ("Boston St. Elizabeth's")
                nxt = i + 1 + (i + 1 < n and doc[i + 1].text == ".")
                # (a sentence's first word after the period is no saint's name: "on Pleasant St. Pt
                # states", "Elm St. She")
                saint = nxt < n and doc[nxt].is_title and not (
                    doc[nxt].is_stop or self.clinical_term(doc[nxt].lower_) or doc[nxt].lower_ in PATIENT_WORDS
                )
                if mixed_case and (not t.is_title or saint):
                    continue
            elif i == 0 or (mixed_case and not t.is_title) or low not in _NAMED_STREET_WORDS \
                    or not mixed_case and low not in _PLAIN_STREET_WORDS:
                continue
            if i == 0:
                continue
            j = i
            while j > 0 and i - j < 3 and "\n" not in doc[j - 1].whitespace_:
                w = doc[j - 1]
                if _ORDINAL.match(w.text) and j == i:
                    j -= 1  # a numbered street: "on 4th st", "3RD AVE"
                    break
                if not (w.is_alpha and (w.is_title or not mixed_case)) or w.is_stop or self.clinical_term(w.lower_) \
                        or (_starts_sentence(doc, j - 1) and self.is_common(w.lower_)):
                    break
                j -= 1
            if j < i and j > 1 and doc[j - 1].lower_ in _STREET_DIRECTIONS and _lower(doc, j - 2) in _STREET_CUES \
                    and (not mixed_case or doc[j - 1].is_title or doc[j - 1].is_upper):
                j -= 1  # a direction before the name: "on n main st", "off w. elm rd"
            if low == "st" and j > 0 and doc[j - 1].like_num:
                continue  # ("13813 3784 Archwood Avenue St": a numbered street, the address rules' own)
            # in single-case text only after a place's preposition ("lives on elm street")
            if j < i and (mixed_case or _lower(doc, j - 1) in _STREET_CUES):
                out.append(Span(doc, j, i + 1, label="STREET"))
        return out

    # ----------------------------------------------------------------- places
    def places(self, doc: Doc, mixed_case: bool = False) -> List[Span]:
        """CITY, STATE and COUNTY spans; an ambiguous one-word place needs a state
        after it or a location cue before it; after a location cue, a run of up to
        three unknown words (no ordinary word, no list entry) is taken as a CITY."""
        cands: List[Span] = []
        towns: Set[Tuple[int, int]] = set()  # (a small town of the postal list only needs context)
        for s, e, label in self.index.multi_matches(doc):
            if label == TOWN:
                towns.add((s, e))
                label = CITY
            if label in PLACE_LABELS:
                cands.append(Span(doc, s, e, label=label))
        for i, tok in enumerate(doc):
            labels = self.tags(tok.lower_)
            for label in PLACE_LABELS:
                if label in labels:
                    cands.append(Span(doc, i, i + 1, label=label))
            if TOWN in labels and not any(label in labels for label in PLACE_LABELS):
                towns.add((i, i + 1))
                cands.append(Span(doc, i, i + 1, label=CITY))
            # a town no list has ("lives in Tollinsby"): an unknown word after a cue
            if not labels and self._unknown_word(doc, i) and self._location_context(doc, Span(doc, i, i + 1)):
                end = i + 1
                while end < len(doc) and end - i < 3 and self._unknown_word(doc, end):
                    end += 1
                if not is_not_phi_place(doc[i:end].text):  # "travelled to mexico": a country
                    cands.append(Span(doc, i, end, label=CITY))
        out: List[Span] = []
        for span in cands:
            # a town's police or fire department, ordinary word or not ("brought in by phoenix pd",
            # "BIB MESA FD")
            town = (span.start, span.end) in towns  # (a small town of the postal list only)
            if span.label_ != STATE and not town:
                # ("newton-wellesley cardiology": the service goes with the whole hyphened town)
                span = self._hyphened_places(doc, span)
            service_end = _town_service_end(doc, span.end) if span.label_ != STATE else span.end
            if service_end > span.end and doc[span.end].lower_.rstrip(".") not in _TOWN_SERVICES | _TOWN_SERVICE_HEADS and (
                town or all(self.ordinary(doc, t.i, mixed_case) for t in span if t.is_alpha)
            ):
                service_end = span.end  # ("mobile medicine", "university center": a generic tail needs a head)
            if service_end > span.end:
                out.append(Span(doc, span.start, service_end, label=ORG))
                continue
            ambiguous = all(self.ordinary(doc, t.i, mixed_case) for t in span if t.is_alpha) or town
            if self.eponym_after(doc, span.end):
                continue
            if span.label_ == STATE and len(span) == 1 and ambiguous and not self._location_context(doc, span):
                continue
            if ambiguous and span.label_ != STATE and not self._location_context(doc, span) and not (
                # a town of two ordinary words after "in", "from", "near", "to" ("owned salon in
                # garden grove", "lives in broken arrow", "2 hr to rapid city"; one word needs more:
                # "in mesa", "in bend"), or after "lives" or "home" in a telegraphic note ("LIVES
                # FLOWERY BRANCH", "home walnut creek, northgate area")
                len(span) >= 2 and span.start > 0 and doc[span.start - 1].lower_ in {"in", "from", "near", "to", "lives", "home"}
                # (not where a patient goes: "back to maple grove", "d/c to sunny hill" name a home)
                and not (doc[span.start - 1].lower_ == "to" and span.start > 1
                         and (doc[span.start - 2].lower_, "to") in TRANSFER_CUES | {("back", "to"), ("return", "to"), ("returned", "to")})
            ):
                continue
            # a place and a hospital word are a hospital's name ("CHICAGO MED", "our new york
            # clinic", "dallas facility")
            end = self.hospital_tail_after(doc, span.end)
            if end > span.end:
                out.append(Span(doc, span.start, end, label=HOSPITAL))
                continue
            if span.label_ == STATE or town:
                span = self._hyphened_places(doc, span)  # (the others were joined above)
            out.append(span)
            # the state code after a town ("atlanta, ga", "BROOKLYN, NY", "salem nh"): a place in any case
            code = self._state_code_after(doc, span, bare=True) if span.label_ != STATE else None
            if code is not None:
                out.append(Span(doc, code, code + 1, label=STATE))
        return out

    def towns_before_states(self, doc: Doc, mixed_case: bool) -> List[Span]:
        """CITY spans: a town of ordinary words that no list has, between a word of place and
        a state's code ("pt from hazard, ky", "pt lives near valley forge, ny", "rr 2 box 41,
        council grove, wi 53001"): one to three words, no stop, clinical, role,
        calendar, facility or region word ("from northern mn", "out of state, ny"); only codes
        that are no word or clinical abbreviation (``_TOWN_STATE_CODES``: not "or", "ct", "ms",
        "nh", "ri", "tn"), a bare one ending its phrase, in capitals in mixed-case text; after
        "from", "near", "lives" or an address's number and comma ("in" is a state of things too:
        "pt in pain, ny")."""
        out: List[Span] = []
        n = len(doc)
        for k in range(1, n):
            t = doc[k]
            if t.lower_.rstrip(".") not in _TOWN_STATE_CODES or len(t.text.rstrip(".")) != 2 \
                    or mixed_case and not t.text[:2].isupper():
                continue
            end = k - 1 if doc[k - 1].text == "," else k
            if end == k:
                nxt = doc[k + 1] if k + 1 < n else None
                if not doc[k - 1].whitespace_ or not (
                    nxt is None or "\n" in t.whitespace_ or t.text.endswith(".") or nxt.is_punct or nxt.is_stop
                    or nxt.is_digit and len(nxt.text) == 5
                ):
                    continue
            start = end
            while start > 0 and end - start < 3 and "\n" not in doc[start - 1].whitespace_ \
                    and self._town_word(doc, start - 1, mixed_case):
                start -= 1
            if start == end or start == 0:
                continue
            before = doc[start - 1]
            # a word of place ("from", "near", "lives") or an address's number and comma before it
            if before.lower_ in {"from", "near", "lives"} \
                    or before.text == "," and start > 1 and doc[start - 2].like_num:
                out += [Span(doc, start, end, label=CITY), Span(doc, k, k + 1, label=STATE)]
        return out

    def _town_word(self, doc: Doc, i: int, mixed_case: bool) -> bool:
        """``doc[i]`` may be a word of a town's name: a word (capitalised in mixed-case text)
        that is no stop, clinical, role, title, calendar, credential or facility word."""
        t = doc[i]
        low = t.lower_
        return t.is_alpha and not t.is_stop and (t.is_title or not mixed_case) and not self.clinical_term(low) \
            and not is_role(low) and low not in TITLES and low not in CALENDAR_WORDS and low not in CREDENTIALS \
            and low not in _GENERIC_FACILITY and low not in HOSPITAL_WORDS and low not in _STATE_CODES \
            and low not in _NOT_TOWN_WORDS and low not in _UNIT_WORDS and not low.endswith("ern")

    def _hyphened_places(self, doc: Doc, span: Span) -> Span:
        """A place taken with a listed place joined to it by a hyphen is one name
        ("NEWTON-WELLESLEY", "wilkes-barre"), however ordinary that place is alone
        ("newton", "barre")."""
        return _hyphen_joined(doc, span, self._place_word, steps=len(doc), spaced_right=False)

    def _place_word(self, doc: Doc, k: int) -> bool:
        t = doc[k]
        return t.is_alpha and bool(self.tags(t.lower_) & set(PLACE_LABELS)) and not self.clinical_term(t.lower_)

    def _state_code_after(self, doc: Doc, span: Span, bare: bool = False) -> Optional[int]:
        """The index of a two-letter state code right after ``span`` and a comma
        ("mobile, al"; "fever, or chills" names no state: ``_state_code_at``), else None.
        With ``bare``, also one without the comma that ends its phrase (punctuation, the
        line's end or a stop word after it; in capitals in mixed-case text): "son lives in
        salem nh, not", "heat in commerce tx." ("boston id clinic" names no state)."""
        k = span.end + 1
        n = len(doc)
        if k < n and doc[span.end].text == ",":
            code = doc[k].lower_.rstrip(".")
            nxt = doc[k + 1] if k + 1 < n else None
            if nxt is not None and not doc[k].whitespace_ and nxt.lower_ in {"'s", "’s", "s"} or (
                nxt is not None and re.match(r"^\d{1,3}(-\d+)?$", nxt.text)  # (not a ZIP code: "mobile, al 36602")
            ):
                return None  # a scan's or an antigen's letters, no state: "DANGLE, CT'S", "jaundice, CA 19-9"
            if code in WORD_STATE_CODES:
                return k if self._state_code_at(doc, k) else None
            return k if code in _STATE_CODES and len(doc[k].text.rstrip(".")) == 2 else None
        k = span.end
        if not bare or k >= n or "\n" in doc[k - 1].whitespace_ or not doc[k - 1].whitespace_:
            return None
        code = doc[k].lower_.rstrip(".")
        if code not in _STATE_CODES or len(doc[k].text.rstrip(".")) != 2 or is_mixed_case(doc) and not doc[k].is_upper:
            return None
        if code in WORD_STATE_CODES and not self._state_code_at(doc, k):
            return None
        nxt = doc[k + 1] if k + 1 < n else None
        if nxt is None or "\n" in doc[k].whitespace_ or doc[k].text.endswith(".") or nxt.is_punct \
                or nxt.is_stop or nxt.lower_ in {"w/", "w"}:
            return k
        return None

    def landmarks(self, doc: Doc) -> List[Span]:
        """LOCATION_OTHER spans: one or two name words and a landmark word after
        "at", "in", "to", "from" or "near" ("fell at flores middle school", "walking at
        wheeler lake", "volunteers at the yoder creek trail"), in any case; names of what a
        place is for ("at the dog park", "at high school") are not taken. And a landmark
        word written before its name (``_landmark_heads``: "on lake tahoe", "LAKE WINNIPESAUKEE")."""
        out: List[Span] = self._landmark_heads(doc)
        n = len(doc)
        for i in range(1, n):
            if doc[i].lower_ not in LANDMARK_WORDS:
                continue
            end = i + 1
            while end < n and end < i + 2 and doc[end].lower_ in LANDMARK_WORDS:
                end += 1  # "creek trail", "middle school"
            j = i
            kind = 0  # a kind word after the name: one more name word, which may be a landmark's
            while j > 0 and i - j < 2 + kind and doc[j - 1].is_alpha and not doc[j - 1].is_stop \
                    and (kind or doc[j - 1].lower_ not in LANDMARK_WORDS):
                low = doc[j - 1].lower_
                if low in LANDMARK_GENERIC and j == i and (
                    self._landmark_name_word(doc, j - 2) or j >= 2 and doc[j - 2].lower_ in LANDMARK_WORDS - _SCHOOL_WORDS
                ):
                    # a kind word after a name: "zion national park", "lincoln high school",
                    # "dean technical high school", "madison park high school"
                    j -= 1
                    kind = 1
                    continue
                if low in NOT_HOSPITAL_NAME or low in DEPARTMENT_WORDS or low in LANDMARK_GENERIC or _SPECIALTY.search(low) \
                        or low.rstrip(".") in PERSONAL_TITLES:
                    break  # (a title makes a person of the word: "by dr temple", "mr park")
                j -= 1
            if j == i or doc[j].lower_ in LANDMARK_GENERIC:
                continue
            cue = _words_before(doc, j)[1]
            if cue in LANDMARK_CUES or (cue in _SCHOOL_CUES and doc[end - 1].lower_ in _SCHOOL_WORDS):
                out.append(Span(doc, j, end, label="LOCATION_OTHER"))
        # a high school named short: a listed name or town, or a word no dictionary has, and
        # "high" that ends the phrase, after "at" or a school's cue ("plays soccer at roosevelt
        # high.", "grade at mountain vista high,"; not "bp at times high.")
        for i in range(2, n):
            if doc[i].lower_ != "high" or not (i + 1 == n or doc[i + 1].is_punct or "\n" in doc[i].whitespace_):
                continue
            j = i
            while j > 0 and i - j < 2 and self._landmark_name_word(doc, j - 1) and "\n" not in doc[j - 1].whitespace_:
                j -= 1
            if j == i or _words_before(doc, j)[1] not in LANDMARK_CUES | _SCHOOL_CUES:
                continue
            if any(NAME in self.tags(doc[k].lower_) or CITY in self.tags(doc[k].lower_) or self._unknown_word(doc, k)
                   for k in range(j, i)) and not any(self.clinical_term(doc[k].lower_) for k in range(j, i)):
                out.append(Span(doc, j, i + 1, label="LOCATION_OTHER"))
        return out

    def _landmark_heads(self, doc: Doc) -> List[Span]:
        """LOCATION_OTHER spans: a landmark word of ``_LANDMARK_HEADS`` and one or two name words
        after it ("lake of the" too), every one a word of five letters or more no dictionary holds
        or a listed place ("LAKE WINNIPESAUKEE", "on lake tahoe", "camp lejeune"); capitalised in
        mixed-case text. Not "at camp playing soccer", "lake house", "fell into lake yest", "cape
        verde" (a country), "mt" (a metatarsal's too: "mt block")."""
        out: List[Span] = []
        n = len(doc)
        mixed_case = is_mixed_case(doc)
        for i in range(n - 1):
            if doc[i].lower_ not in _LANDMARK_HEADS or "\n" in doc[i].whitespace_:
                continue
            j = i + 1
            if j + 2 < n and doc[j].lower_ == "of" and doc[j + 1].lower_ == "the":
                j += 2  # "lake of the ozarks"
            end = j
            while end < n and end < j + 2 and self._landmark_name_word(doc, end) and not self.clinical_term(doc[end].lower_) \
                    and doc[end].lower_ not in CALENDAR_WORDS | LANDMARK_CUES and not (mixed_case and not doc[end].is_title):
                end += 1
                if "\n" in doc[end - 1].whitespace_:
                    break
            if end == j or end < n and (doc[end].lower_ in HOSPITAL_WORDS or doc[end].lower_ in DEPARTMENT_WORDS):
                continue  # a hospital's or its department's ("DRAWN AT MT AUBURN LAB": the hospital rules')
            # (a listed name is no sign: the name lists hold most English words, "block", "field")
            named = all(
                self._unknown_word(doc, k) and len(doc[k].text) >= 5 or self.tags(doc[k].lower_) & set(PLACE_LABELS)
                for k in range(j, end)
            )
            if named and not is_not_phi_place(doc[i:end].text):
                out.append(Span(doc, i, end, label="LOCATION_OTHER"))
        return out

    def residence_towns(self, doc: Doc, lowers: List[str], mixed_case: bool) -> List[Span]:
        """CITY spans: a town named by ordinary words (``towns_of_words``) right after a word
        of residence and "in" ("lives alone in spruce pine,", "lives in flowery branch w/
        dtr"), where the phrase ends (punctuation, the line's end, a
        function word but "of", "w/" or a state's code after it: not "lives in lake view park");
        no clinical term; capitalised in mixed-case text. The list holds towns of two words or
        more: one ordinary word alone is as often a place's noun ("lives in convent")."""
        towns = towns_of_words()
        out: List[Span] = []
        n = len(doc)
        for i in range(n - 1):
            if lowers[i] != "in" or i == 0:
                continue
            j = i - 1
            if lowers[j] in _RESIDENCE_MANNERS and j > 0:
                j -= 1
            if lowers[j] not in _RESIDENCE_VERBS:
                continue
            k = i + 1
            for words in towns.get(lowers[k], ()):
                end = k + len(words)
                if tuple(lowers[k:end]) != words or any("\n" in doc[x].whitespace_ for x in range(k, end - 1)):
                    continue
                if any(self.clinical_term(w) for w in words) or mixed_case and not all(t.is_title for t in doc[k:end]):
                    continue
                after = doc[end] if end < n else None
                if after is None or "\n" in doc[end - 1].whitespace_ or after.is_punct or after.is_space \
                        or after.is_stop and after.lower_ != "of" or after.lower_ in {"w/", "w"} \
                        or after.lower_.rstrip(".") in _STATE_CODES:
                    out.append(Span(doc, k, end, label=CITY))
                break
        return out

    def travel_places(self, doc: Doc) -> List[Span]:
        """LOCATION_OTHER spans: one or two words that no dictionary holds (no
        clinical term, stop word or month) after a travel or home word and "at",
        "in", "to", "from" or "near" ("hiking at yosemite", "TRIP TO ARUBA"), in any case."""
        out: List[Span] = []
        n = len(doc)
        dictionary = dictionary_words()
        for i in range(n - 2):
            if doc[i].lower_ not in TRAVEL_CUES or doc[i + 1].lower_ not in LANDMARK_CUES:
                continue
            j = end = i + 2
            while end < n and end < j + 2:
                t = doc[end]
                low = t.lower_
                if not t.is_alpha or len(low) < 3 or t.is_stop or low in CALENDAR_WORDS:
                    break
                if get_string_id(low) in dictionary or self.clinical_term(low):
                    break
                end += 1
            if end > j and not is_not_phi_place(doc[j:end].text):  # "trip to mexico": a country
                out.append(Span(doc, j, end, label="LOCATION_OTHER"))
        return out

    def regions(self, doc: Doc, lowers: List[str]) -> List[Span]:
        """LOCATION_OTHER spans: a side of the compass and a landscape word or "end" after a
        word of place ("grew up in the north end", "lives in the south shore area"; not "at the west
        end of the hall", "pain in the south side")."""
        out: List[Span] = []
        for k in range(2, len(doc)):
            if not (_region_after_side(doc, k) or lowers[k] == "end" and lowers[k - 1] in _SIDES):
                continue
            if k + 1 < len(doc) and lowers[k + 1] == "of":
                continue
            start = k - 1
            cue_start = start - 1 if lowers[start - 1] == "the" else start
            if self._location_context(doc, Span(doc, cue_start, k + 1)):
                out.append(Span(doc, start, k + 1, label="LOCATION_OTHER"))
        return out

    @staticmethod
    def _landmark_name_word(doc: Doc, k: int) -> bool:
        """Whether ``doc[k]`` can name a landmark: a word, no stop word, kind or department word."""
        if k < 0 or not doc[k].is_alpha or doc[k].is_stop:
            return False
        low = doc[k].lower_
        return not (low in LANDMARK_WORDS or low in LANDMARK_GENERIC or low in NOT_HOSPITAL_NAME or low in DEPARTMENT_WORDS or _SPECIALTY.search(low))

    def _location_context(self, doc: Doc, span: Span) -> bool:
        j = _prev_word(doc, span.start)
        if j >= 0:
            k = _prev_word(doc, j)
            if k >= 0 and (doc[k].lower_, doc[j].lower_) in LOCATION_CUES:
                return True
            # a cue of three words ("grew up in hull", "raised up in")
            m = _prev_word(doc, k) if k >= 0 else -1
            if m >= 0 and (doc[m].lower_, doc[k].lower_, doc[j].lower_) in LOCATION_CUES:
                return True
        # the town after a street's address ("1200 river rd, baton rouge", "88 chestnut st #2, new
        # bedford"): a number, then a street suffix, a comma before the town
        if span.start >= 3 and doc[span.start - 1].text == ",":
            k = span.start - 2
            while k > span.start - 5 and k > 0 and (doc[k].text.startswith("#") or doc[k].like_num or doc[k].lower_ in _UNIT_WORDS):
                k -= 1  # an apartment's number ("#2", "apt 4")
            if doc[k].lower_.rstrip(".") in STREET_SUFFIXES and doc[k - 1].is_alpha and any(
                doc[j].like_num for j in range(max(0, k - 5), k - 1)
            ):
                return True
        # "mobile, al" / "mobile, alabama"
        e = span.end
        if e + 1 < len(doc) and doc[e].text == ",":
            return STATE in self.tags(doc[e + 1].lower_) or self._state_code_after(doc, span) is not None
        # "lives alone in enterprise al.", "near pratt ks and": a state code, no comma, after a
        # word of place before the town
        return span.start > 0 and doc[span.start - 1].lower_ in _PLACE_PREPOSITIONS \
            and self._state_code_after(doc, span, bare=True) is not None

    @staticmethod
    def _state_code_at(doc: Doc, k: int) -> bool:
        """A state code that is also a word ("in", "or", "me") is one after "town,"
        only in capitals in mixed-case text, and in a single-case text only where no
        word follows it on its line ("portland, or 97201", "salem, or."): "jaundice,
        in addition" and "fever, or chills" name no state. A code that is a word of
        little use ("ga", "va", "pa") is one after "town," in any single-case text
        ("atlanta, ga and"), as is one with the sentence's period ("atlanta, ga.")."""
        if is_mixed_case(doc):
            return doc[k].is_upper
        code = doc[k].lower_
        if code.rstrip(".") not in _WORD_CODES_AS_WORDS or code.endswith("."):
            return True
        nxt = doc[k + 1] if k + 1 < len(doc) else None
        return nxt is None or "\n" in doc[k].whitespace_ or not nxt.is_alpha

    # -------------------------------------------------------------- hospitals
    def hospitals(self, doc: Doc, mixed_case: bool, lowers: Optional[List[str]] = None) -> List[Span]:
        """HOSPITAL spans: name words + a hospital word, or a short name after a
        transfer cue; ORG spans: name words + a company word ("loqate inc")."""
        out: List[Span] = []
        n = len(doc)
        lowers = lowers or [t.lower_ for t in doc]  # (the caller's, when it has them)
        i = 0
        while i < n:
            tail = self._hospital_tail(lowers, i)
            label = HOSPITAL
            if not tail and lowers[i] in COMPANY_WORDS:
                tail, label = 1, ORG
                while i + tail < n and lowers[i + tail] in COMPANY_WORDS:  # "software inc."
                    tail += 1
                if i + tail < n and lowers[i + tail] == "." and lowers[i + tail - 1] in {"inc", "ltd", "corp", "co"}:
                    tail += 1  # "INC." is two tokens in upper case
            if tail == 1 and lowers[i] == "regional" and i + 1 < n and doc[i + 1].is_alpha and not doc[i + 1].is_stop \
                    and lowers[i + 1] not in _UNIT_AFTER_HOSPITAL:
                tail = 0  # "Regional" ends a name where the words end ("Complex Regional Pain Syndrome")
            if not tail or (mixed_case and tail == 1 and lowers[i] in _WEAK_HOSPITAL_WORDS and doc[i].is_lower):
                # "adequate general endotracheal anesthesia": in mixed-case text such a word ends a
                # hospital's name capitalised ("Lowell General")
                i += 1
                continue
            start = self._hospital_name_start(doc, i, mixed_case)
            # "Memorial Hospital", "General Hospital": a tail that names a hospital by itself
            standalone = tail > 1 and mixed_case and doc[i].is_title and lowers[i] in HOSPITAL_NAME_WORDS
            cued = self._cued_hospital_start(doc, i, tail) if label == HOSPITAL else None
            if cued is not None:
                start, standalone = min(start, cued), True
            named = start < i and self._distinctive(doc, start, i, mixed_case)
            if not named and label == HOSPITAL and tail > 1:
                words_start = self._two_name_words(doc, i)
                if words_start is not None:
                    start, named = min(start, words_start), True
            if named and label == ORG and lowers[i] in _BUILDING_TRADES:
                named = any(doc[k].is_alpha and not self.is_common(lowers[k]) for k in range(start, i))
            if not named and label == ORG and i + tail + 1 < n and lowers[i + tail] == "of" \
                    and self._place_end(doc, i + tail + 1, mixed_case) > i + tail + 1:
                named = True  # "Cardiology Associates of New England": a firm named by its place
            if label == ORG and lowers[i] in LEGAL_SUFFIXES and not named:
                # a legal form names a company whatever its words ("think computer corporation",
                # "3 round stones inc"): up to three words before it
                start, standalone = self._legal_name_start(doc, i), True
            field_label = i + tail < n and doc[i + tail].text == ":" and all(
                self.is_common(lowers[k]) for k in range(start, i) if doc[k].is_alpha)
            if (named or (standalone and (label == HOSPITAL or start < i))) and not field_label:
                # ("Receiving Facility:", "REFERRING HOSPITAL:" are a field's label)
                end = i + tail
                # "Mercy Hospital of Simmonsburgh", "Associates of New England"
                if end + 1 < n and lowers[end] == "of":
                    place_end = self._place_end(doc, end + 1, mixed_case)
                    end = place_end if place_end > end + 1 else end
                out.append(Span(doc, start, end, label=label))
            i += tail
        for i in range(n):
            if i >= 1 and (lowers[i - 1], lowers[i]) in TRANSFER_CUES:
                span = self._after_transfer_cue(doc, i + 1, mixed_case)
            elif lowers[i] in TRANSFER_UNIGRAMS:
                span = self._after_transfer_cue(doc, i + 1, mixed_case, weak=True)
            else:
                continue
            if span is not None and not is_not_phi_place(span.text):  # "travelling to Austria"
                end = self.hospital_tail_after(doc, span.end) if span.label_ == HOSPITAL else span.end
                out.append(span if end == span.end else Span(doc, span.start, end, label=HOSPITAL))
        # "ST. E'S", "st e's": a saint's initial and its possessive name a hospital
        for i in range(n - 2):
            if lowers[i] in {"st", "st.", "saint"}:
                k = i + 1 + (doc[i + 1].text == ".")
                if k + 1 < n and len(doc[k].text) == 1 and doc[k].is_alpha and lowers[k + 1] in {"'s", "’s"}:
                    out.append(Span(doc, i, k + 2, label=HOSPITAL))
        # "Mount Sinai", "St. Mary's": a saint's or mountain's name alone (not a modal before
        # its verb: "cvs on essex st. will send")
        for i in range(n - 1):
            if lowers[i] in {"mount", "mt", "mt.", "st", "st.", "saint"}:
                k = i + 1 + (doc[i + 1].text == ".")
                if k < n and self.modal_before_verb(doc, k):
                    continue
                if k < n and self._hospital_name_word(doc, k, mixed_case) and doc[k].is_alpha \
                        and not self._clinical_word(lowers[k]) and lowers[k] not in _ST_SEGMENT_WORDS and (
                    NAME in self.tags(lowers[k]) or (mixed_case and doc[k].is_title and doc[i].is_title)
                    or not self.is_common(lowers[k])
                ):
                    end = k + 1
                    if end < n and lowers[end] in {"'s", "’s"}:
                        end += 1
                    out.append(Span(doc, i, end, label=HOSPITAL))
        out.extend(self._named_by_of(doc, lowers))
        out.extend(self._hospitals_before_unit(doc, lowers))
        out.extend(self._branches_of_places(doc, lowers, mixed_case))
        return out

    def _named_by_of(self, doc: Doc, lowers: List[str]) -> List[Span]:
        """HOSPITAL and ORG spans named by "of" and one to three words after a word that says
        what they are: "Our Lady of the Lake", "HOSPICE OF THE WESTERN RESERVE" (any words),
        "university of kansas", "college of the holy cross" (a word a list has or no
        dictionary has among them: "college of nursing" names none). No stop word but "the"
        after "of", no clinical or calendar word."""
        out: List[Span] = []
        n = len(doc)
        for i in range(n - 2):
            if lowers[i + 1] != "of":
                continue
            if lowers[i] == "lady" and i > 0 and lowers[i - 1] == "our":
                start, label, any_words = i - 1, HOSPITAL, True
            elif lowers[i] == "hospice":
                start, label, any_words = i, HOSPITAL, True
            elif lowers[i] in {"university", "college"}:
                start, label, any_words = i, ORG, False
            elif lowers[i] in _HOSPITALS_OF:
                # "CHILDREN'S HOSPITAL OF PHILADELPHIA", "physicians' clinic of iowa": the kind
                # words before it on its line go with it
                start, label, any_words = i, HOSPITAL, False
                while start > 0 and i - start < 3 and "\n" not in doc[start - 1].whitespace_ and (
                    doc[start - 1].is_alpha and not doc[start - 1].is_stop or lowers[start - 1] in {"'s", "’s", "'"}
                ):
                    start -= 1
            else:
                continue
            j = i + 2 + (i + 2 < n and lowers[i + 2] == "the")
            end = j
            while end < n and end - j < 3 and doc[end].is_alpha and not doc[end].is_stop \
                    and not self.clinical_term(lowers[end]) and lowers[end] not in CALENDAR_WORDS \
                    and lowers[end].rstrip(".") not in TITLES:
                end += 1
                if "\n" in doc[end - 1].whitespace_:
                    break
            if end > j and (any_words or any(self.tags(lowers[k]) or not self.is_common(lowers[k]) for k in range(j, end))):
                out.append(Span(doc, start, end, label=label))
        return out

    def _branches_of_places(self, doc: Doc, lowers: List[str], mixed_case: bool) -> List[Span]:
        """HOSPITAL spans: a word and "of" and a listed place after a transfer cue or "at",
        "from", "to" ("admitted from sunrise of wellesley", "VNA OF CAPE COD CALLED" after
        "from"): a facility's branch named by its town. Not a kind of facility, a direction
        or a clinical word ("from home of daughter", "north of boston")."""
        out: List[Span] = []
        n = len(doc)
        for i in range(1, n - 2):
            if lowers[i + 1] != "of" or not doc[i].is_alpha or doc[i].is_stop or lowers[i] in _GENERIC_FACILITY \
                    or lowers[i] in _COMPASS_WORDS or lowers[i] in _WORKPLACE_WORDS or self.clinical_term(lowers[i]) \
                    or not self._transfer_context(doc, i, i + 1):
                continue
            end = self._place_end(doc, i + 2, mixed_case)
            if end > i + 2 and any(self.tags(lowers[k]) & set(PLACE_LABELS) for k in range(i + 2, end)):
                out.append(Span(doc, i, end, label=HOSPITAL))
        return out

    def _hospitals_before_unit(self, doc: Doc, lowers: List[str]) -> List[Span]:
        """HOSPITAL spans: a hospital named by a short word that no list knows before its
        unit, after "in", "at", "to"... ("seen in bmc ed", "SENT TO NWH ICU", "followed at
        dfci clinic")."""
        out: List[Span] = []
        n = len(doc)
        for i in range(1, n - 1):
            if lowers[i + 1] in _UNIT_AFTER_HOSPITAL and lowers[i - 1] in _HOSPITAL_PLACE_CUES \
                    and doc[i].is_alpha and 2 <= len(lowers[i]) <= 5 and self._unknown_word(doc, i):
                out.append(Span(doc, i, i + 1, label=HOSPITAL))
        return out

    def _legal_name_start(self, doc: Doc, i: int) -> int:
        """Where the one to three words of a company's name before its legal form
        ``doc[i]`` start: words or numbers on the same line, no stop word, clinical
        term or punctuation among them (``i``: none)."""
        j = i
        while j > 0 and i - j < 3 and "\n" not in doc[j - 1].whitespace_:
            t = doc[j - 1]
            if not (t.is_alpha or t.like_num) or t.is_stop or self.clinical_term(t.lower_):
                break
            j -= 1
        return j

    def _cued_hospital_start(self, doc: Doc, i: int, tail: int) -> Optional[int]:
        """Where a hospital's name starts when a transfer or visit cue comes before
        it: one to three name words then the hospital word ("seen at elm clinic",
        "treated at methodist hospital", "EVALUATED AT VALLEY CLINIC"), or a
        named tail alone ("treated at children's hospital"). Names of departments
        ("at pain clinic", "at the cardiology clinic") are no hospital's name."""
        j = i
        words = 0
        while j > 0 and words < 3:
            t = doc[j - 1]
            low = t.lower_
            if low in {"'s", "’s", "&", "-", "."} and j - 1 > 0:
                if low == "." and len(doc[j - 2].text) > 3:
                    break  # a sentence's period ("VNA TO RESUME. HOSPICE SERVICES")
                j -= 1
                continue
            if not t.is_alpha or low in TRANSFER_UNIGRAMS or low in NOT_HOSPITAL_NAME or t.is_stop:
                break
            if _SPECIALTY.search(low) or low in DEPARTMENT_WORDS or low in _CLINIC_KIND_WORDS \
                    or get_string_id(low) in self.index.clinical:
                return None
            j -= 1
            words += 1
        if words == 0 and tail < 2:
            return None  # "at the clinic"
        before = _words_before(doc, j)
        return j if before[1] in TRANSFER_UNIGRAMS or before in TRANSFER_CUES else None

    def _hospital_tail(self, lowers: List[str], i: int) -> int:
        for tail in _TAILS_BY_FIRST.get(lowers[i], ()):
            if tuple(lowers[i : i + len(tail)]) == tail:
                if tail == ("health", "care") and lowers[i + 2 : i + 3] and lowers[i + 2] in _CARE_ROLE_WORDS:
                    return 0  # "dtr in salem health care proxy": a role, no hospital
                return len(tail)
        return 1 if lowers[i] in HOSPITAL_WORDS else 0

    def hospital_tail_after(self, doc: Doc, end: int) -> int:
        """Where a hospital's name that a detector ended at ``end`` really ends: over a
        hospital word right after it, a possessive before it ("brigham and women" +
        "'s hospital", "georgetown" + "med", "cedar falls" + "med center"), else ``end``.
        The words taken must be in no other entity."""
        lowers = [t.lower_ for t in doc[end : end + 4]]
        k = 1 if lowers[:1] in (["'s"], ["’s"]) else 0
        tail = self._hospital_tail(lowers, k) if k < len(lowers) else 0
        if not tail and lowers[k : k + 1] == ["med"]:
            tail = 1  # "uw med": only after a name a detector took for a hospital's
        if not tail or any(doc[i].ent_iob_ in ("B", "I") for i in range(end, end + k + tail)):
            return end
        return end + k + tail

    def _hospital_name_word(self, doc: Doc, k: int, mixed_case: bool) -> bool:
        t = doc[k]
        low = t.lower_
        if low == "new" and k + 1 < len(doc) and (
            (mixed_case and t.is_title and doc[k + 1].is_title) or self.tags(doc[k + 1].lower_) & {CITY, STATE}
            or doc[k + 1].lower_ == "england"
        ):
            return True  # "New York Presbyterian Hospital", "new haven hospital", "new england organ bank"
        if low in NOT_HOSPITAL_NAME or t.is_punct and low not in {"'s", "’s", "&", ".", "-"}:
            return False
        if low in {"'s", "’s", "&", "-"}:
            return True
        if low == ".":
            return k > 0 and doc[k - 1].lower_ in {"st", "mt"}
        # "port sherryside general hospital": a place prefix starts a hospital's name as a town's
        if low in HOSPITAL_NAME_WORDS or NAME in self.tags(low) or CITY in self.tags(low) or low in self.index.place_prefixes:
            return True
        if _region_after_side(doc, k):
            return True  # "south shore hospital"
        if not (t.is_alpha or "'" in t.text) or _SPECIALTY.search(low):
            return False
        if mixed_case and (t.is_title or t.is_upper) and not t.is_stop and get_string_id(low) not in self.index.clinical:
            return True
        return not self.is_common(low) and not t.is_stop

    def _distinctive(self, doc: Doc, start: int, end: int, mixed_case: bool) -> bool:
        """A hospital's name needs one word that is not generic: a name or city
        of the lists, a word that is no ordinary word, or a capitalised word in
        mixed-case text ("st. luke's", "lahey", "Mercy"; not "community", "outside")."""
        for k in range(start, end):
            t = doc[k]
            if not t.is_alpha:
                continue
            # what a clinic treats names none in single-case text, listed name or not ("hand
            # clinic", "WOUND CLINIC"; "king cancer institute" stays)
            if not mixed_case and t.lower_ in _CLINIC_KIND_WORDS:
                continue
            if (NAME in self.tags(t.lower_) or CITY in self.tags(t.lower_)) and not self.clinical_term(t.lower_):
                return True  # (an organ is no surname: "GREAT PLAINS KIDNEY CLINIC")
            if mixed_case and t.is_title:
                return True
            if not self.is_common(t.lower_) and t.lower_ not in HOSPITAL_NAME_WORDS:
                return True
            if t.lower_ in DISTINCT_HOSPITAL_WORDS:
                return True
            # a side of the compass and a landscape word name a region ("south shore hospital",
            # "north shore medical center", "east bay clinic")
            if _region_after_side(doc, k + 1):
                return True
        return False

    def _two_name_words(self, doc: Doc, i: int) -> Optional[int]:
        """Where two or three words before a hospital's two-word ending at ``doc[i]`` start
        that name one in any letter case: no kind of facility, size, stop or clinical word
        ("GULF COAST MEDICAL CENTER"; not "a large academic medical center", "THE
        COMMUNITY HEALTH CENTER", "cardiac care center"); None: not two such words."""
        k = i
        while k > 0 and i - k < 3 and "\n" not in doc[k - 1].whitespace_:
            t = doc[k - 1]
            low = t.lower_
            if not t.is_alpha or t.is_stop or low in _GENERIC_FACILITY or low in _SIZE_ADJECTIVES \
                    or low in NOT_HOSPITAL_NAME or self.clinical_term(low) or low in ROLES \
                    or _purpose_word(low):
                break
            k -= 1
        if i - k < 2 or (k > 0 and doc[k - 1].lower_ in {"a", "an", "any", "another", "each", "every"}):
            return None
        return k

    def _hospital_name_start(self, doc: Doc, i: int, mixed_case: bool) -> int:
        start = self._name_words_before(doc, i, mixed_case)
        if start == i:
            # what a named place is for may stand between its name and the hospital word
            # ("danland dialysis center", "hernandez senior center", "atkinson rehabilitation hospital")
            k, words = i, 0
            while k > 0 and words < 2 and "\n" not in doc[k - 1].whitespace_:
                if _purpose_word(doc[k - 1].lower_):
                    words += 1
                elif not (doc[k - 1].lower_ in {"and", "&"} and k > 1 and _purpose_word(doc[k - 2].lower_)):
                    break  # "and" only between two ("sarahview rehabilitation and nursing center")
                k -= 1
            if k < i:
                named = self._name_words_before(doc, k, mixed_case)
                start = named if named < k else i
        return start

    def _name_words_before(self, doc: Doc, i: int, mixed_case: bool) -> int:
        """Where the one to four hospital name words right before ``doc[i]`` start (``i``: none)."""
        start = i
        words = 0
        while start > 0 and words < 4 and "\n" not in doc[start - 1].whitespace_ and self._hospital_name_word(doc, start - 1, mixed_case):
            if doc[start - 1].text == "." and start >= 2 and len(doc[start - 2].text) > 3:
                break  # a sentence's period, not an abbreviation's ("VNA TO RESUME. HOSPICE SERVICES")
            start -= 1
            if doc[start].is_alpha:
                words += 1
        while start < i and doc[start].lower_ in {"'s", "’s", ".", "&", "-"}:  # a name does not start with "'s" or "."
            start += 1
        return start

    def _looks_named(self, doc: Doc, k: int, mixed_case: bool) -> bool:
        """An acronym or capitalised word in mixed-case text ("UCLA", "Baylor")
        that is no ordinary word and no clinical term."""
        t = doc[k]
        if not mixed_case or not t.is_alpha or get_string_id(t.lower_) in self.index.clinical:
            return False
        if self.is_common(t.lower_):
            return False
        return (t.is_upper and 2 <= len(t.text) <= 6) or (t.is_title and not t.is_sent_start)

    def _after_transfer_cue(self, doc: Doc, i: int, mixed_case: bool, weak: bool = False) -> Optional[Span]:
        """A one- to three-word name after a transfer cue ("transferred to mgh",
        "followed at lahey", "treated at UCLA", "seen at NYU Langone", "Cedars-Sinai");
        after a one-word cue ("at", "from", "to") only an acronym or a capitalised
        word in mixed-case text that no list has."""
        n = len(doc)
        if i >= n:
            return None
        if doc[i].lower_ == "the" and i + 1 < n:
            i += 1
        t = doc[i]
        if not (t.is_alpha or "&" in t.text) or len(t.text) < 2 or _SPECIALTY.search(t.lower_):
            return None
        if self.clinical_term(t.lower_):  # a listed term or a clinical word's ending ("to the postanesthesia care unit")
            return None
        # "seen at cedar sinai", "presented at good samaritan", "from beth israel": a word before
        # one that names one hospital, after any cue and in any case
        if doc[i].is_alpha and not doc[i].is_stop:
            k = i + 2 if i + 2 < n and doc[i + 1].text == "-" else i + 1  # "cedar-sinai"
            if k < n and doc[k].lower_ in DISTINCT_HOSPITAL_WORDS:
                return Span(doc, i, k + 1, label=HOSPITAL)
        if weak and t.lower_ in _HOSPITAL_ALONE_WORDS and not (i + 1 < n and doc[i + 1].lower_ == "of"):
            return Span(doc, i, i + 1, label=HOSPITAL)  # ("awaiting bed at kindred"; "at the mercy of")
        if i + 1 < n and (t.lower_, doc[i + 1].lower_) in _DEVOTIONAL_HOSPITALS and "\n" not in t.whitespace_ \
                and i > 1 and (doc[i - 1].lower_ == "from" or doc[i - 1].lower_ == "to" and doc[i - 2].lower_ in _MOVE_WORDS):
            # "pt back to holy family", "from sacred heart 4 west"; not "prays to holy spirit",
            # "devotion to sacred heart", "mass at holy cross" (a church)
            return Span(doc, i, i + 2, label=HOSPITAL)
        if weak:
            # after "at", "from", "to": only what looks named; a listed place or name is left to those rules
            if not self._looks_named(doc, i, mixed_case) or self.tags(t.lower_) or self._place_by_ending(t):
                return None
        elif t.lower_ in DISTINCT_HOSPITAL_WORDS and not is_not_phi_place(t.text):
            # a word that names one hospital, alone or first ("admitted from mercy", "transferred
            # from holy family"; "went to israel" names a country)
            end = i + 1
            if end < n and doc[end].is_alpha and not doc[end].is_stop and not self.clinical_term(doc[end].lower_) \
                    and "\n" not in t.whitespace_ and (t.lower_ == "holy" or NAME in self.tags(doc[end].lower_)):
                end += 1
            return Span(doc, i, end, label=HOSPITAL) if t.lower_ != "holy" or end > i + 1 else None
        elif not (self._looks_named(doc, i, mixed_case) or not self.is_common(t.lower_)):
            return None
        end = i + 1
        while end < n and end < i + 4:
            if doc[end].text in {"-", "&"} and end + 1 < n and doc[end + 1].is_alpha:
                end += 2
            elif doc[end].is_alpha and (self._looks_named(doc, end, mixed_case) or not self.is_common(doc[end].lower_)):
                end += 1
            else:
                break
        return Span(doc, i, end, label=HOSPITAL)

    def residences(self, doc: Doc, lowers: List[str]) -> List[Span]:
        """HOSPITAL spans: a care home or senior residence named, as they mostly are, by
        ordinary words and a landscape word ("back to maple grove", "ACCEPTED AT CEDAR
        CREST", "referrals sent to cedar crest, the willows, arbor terrace", "d/c to golden
        pond"), after a word of going, staying or sending ("to", "at", "from", "back to",
        the transfer cues) or first on a note's heading after a dash ("snf progress note -
        maple ridge"): one or two words before the landscape word, none a clinical term, a
        stop word or a calendar word; "the" and a plural one alone ("the willows"). Names
        in a list after the first go with it."""
        out: List[Span] = []
        n = len(doc)
        i = 0
        while i < n:
            cue = lowers[i] in _RESIDENCE_CUES or (
                lowers[i] == "-" and i > 0 and "note" in lowers[max(0, i - 3) : i]
            )
            if lowers[i] == "via":
                # what carries a patient or brings the care ("via lifeguard ambulance", "home
                # infusion via option care", "via boston medflight")
                span = self._residence_at(doc, lowers, i + 1, _CONVEYOR_WORDS, plural_alone=False)
                if span is not None and not any(lowers[k] in _VEHICLE_WORDS for k in range(span.start, span.end)):
                    out.append(Span(doc, span.start, span.end, label=ORG))  # ("via helicopter flight" names none)
                i += 1
                continue
            if not cue:
                i += 1
                continue
            k = i + 1
            while k < n:
                span = self._residence_at(doc, lowers, k)
                if span is not None and lowers[i] == "@" and lowers[span.end - 1] in _BODY_LANDFORMS:
                    break  # nurses write "@" before body sites: "lac @ brow ridge", "pain @ hip crest"
                if span is None:
                    break
                out.append(span)
                k = span.end
                # a list of them: "cedar crest, the willows, arbor terrace"
                if k + 1 < n and lowers[k] in {",", "and", "or", "/"}:
                    k += 1 + (lowers[k + 1] in {"and", "or"} and k + 2 < n)
                else:
                    break
            i = max(i + 1, k)
        return out

    def _residence_at(
        self, doc: Doc, lowers: List[str], k: int, tails: FrozenSet[str] = frozenset(), plural_alone: bool = True
    ) -> Optional[Span]:
        """The residence's name at ``doc[k]`` (see ``residences``), or None; one or two
        words and a word of ``tails`` (the landscape words by default)."""
        n = len(doc)
        tails = tails or _RESIDENCE_WORDS
        if k < n and lowers[k] == "the":
            if plural_alone and k + 1 < n and lowers[k + 1] in tails and lowers[k + 1].endswith("s") \
                    and not (k + 2 < n and doc[k + 2].is_alpha and lowers[k + 2] not in _RESIDENCE_FOLLOWERS):
                return Span(doc, k + 1, k + 2, label=HOSPITAL)
            return None
        for width in (2, 3):
            end = k + width
            if end > n or lowers[end - 1] not in tails:
                continue
            words = doc[k : end - 1]
            if all(
                t.is_alpha and not t.is_stop and len(t.text) > 2 and not self.clinical_term(t.lower_)
                and t.lower_ not in CALENDAR_WORDS and not _SPECIALTY.search(t.lower_)
                and t.lower_ not in _GENERIC_FACILITY and t.lower_ not in _CLINIC_KIND_WORDS
                and t.lower_ not in DEPARTMENT_WORDS and t.lower_ not in _KINDS_OF_CARE
                for t in words
            ):
                return Span(doc, k, end, label=HOSPITAL)
        return None

    def facilities_in_parentheses(self, doc: Doc, lowers: Optional[List[str]] = None) -> List[Span]:
        """HOSPITAL spans: the name in parentheses after a kind of facility ("FROM
        NURSING HOME (SUNNY ACRES)", "d/c to rehab (hebrew senior life)"), one to
        four words of any kind; not clinical terms, roles, calendar words or
        generic ones ("rehab (snf)", "home (with wife)", "facility (today)")."""
        out: List[Span] = []
        n = len(doc)
        lowers = lowers or [t.lower_ for t in doc]  # (the caller's, when it has them)
        trades = trade_words()
        for i in range(1, n - 2):
            # (or ORG spans: an employer in parentheses after work or a trade, with a word no
            # dictionary has or a company word: "at work (shawmut construction)", "COAL MINER
            # (CONSOL ENERGY)"; not "at work (night shift)")
            work = lowers[i - 1] in _WORK_BEFORE_EMPLOYER or lowers[i - 1] in trades
            if lowers[i] != "(" or not (lowers[i - 1] in _FACILITY_WORDS or work):
                continue
            end = i + 1
            while end < n and end - i <= 5 and doc[end].text != ")" and (
                doc[end].is_alpha or doc[end].text in {"&", "-", "'s", "’s", "."}
            ):
                end += 1
            if end >= n or doc[end].text != ")" or end == i + 1 or end - i > 5:
                continue
            words = [t for t in doc[i + 1 : end] if t.is_alpha]
            if words and not any(
                t.is_stop or self.clinical_term(t.lower_) or t.lower_ in ROLES or t.lower_ in CALENDAR_WORDS
                or t.lower_ in NOT_HOSPITAL_NAME or t.lower_ in _FACILITY_WORDS
                for t in words
            ):
                if not work or lowers[i - 1] in _FACILITY_WORDS:
                    out.append(Span(doc, i + 1, end, label=HOSPITAL))
                elif any(not self.is_common(t.lower_) for t in words) or len(words) > 1 and words[-1].lower_ in COMPANY_WORDS:
                    out.append(Span(doc, i + 1, end, label=ORG))
        return out

    def cross_streets(self, doc: Doc, lowers: Optional[List[str]] = None) -> List[Span]:
        """STREET spans: a corner or intersection of two streets, one span from "corner"
        to the second street ("lives on the corner of elm and main", "the corner of
        dalbraut 99 and frederikke coves": the crossing is the place, and "corner of"
        left beside a surrogate street would read as a second address).
        After "corner of" or "intersection of", one to five words or numbers on the
        line up to "and" or "&", and as many after it, to the first punctuation, stop
        word or clinical term. One of the two needs a number, a street word or a word
        no dictionary has ("elm and main st", "dalbraut 99"): the corners of the eye
        and the mouth are ordinary words; a numbered street ("5th and main") counts as a number."""
        out: List[Span] = []
        n = len(doc)
        lowers = lowers or [t.lower_ for t in doc]  # (the caller's, when it has them)

        def street_end(j: int) -> int:
            end = j
            while end < n and end - j < 5 and (end == j or "\n" not in doc[end - 1].whitespace_):
                t = doc[end]
                if lowers[end].rstrip(".") in STREET_SUFFIXES:  # "st" is a clinical term too
                    end += 1
                    continue
                if not (t.is_alpha or t.like_num or _ADDRESS_NUMBER.match(t.text) or t.text in {".", "-"}) \
                        or t.is_stop or self.clinical_term(lowers[end]) or t.text == "." and t.whitespace_:
                    break  # (a period and a space end the sentence: "7th st and mcdowell. phoenix")
                end += 1
            return end

        def trimmed(j: int, end: int) -> Span:
            while end > j and doc[end - 1].text in {".", "-"}:
                end -= 1
            return Span(doc, j, end, label="STREET")

        def numbered(street: Span) -> bool:
            return any(_ORDINAL.match(t.text) or t.lower_.rstrip(".") in STREET_SUFFIXES for t in street)

        for i in range(1, n - 2):
            corner = lowers[i] == "of" and lowers[i - 1] in {"corner", "intersection", "corners"}
            # a crossing named without "corner of", after a word of place: one street numbered
            # or with a street word ("found at 6th and broadway", "near center st and 8th ave";
            # not "at 2nd and 3rd visits": two numbers alone are no streets)
            if not corner and lowers[i] not in _CROSSING_CUES:
                continue
            j = i + 1
            end = street_end(j)
            if end == j or end + 1 >= n or lowers[end] not in {"and", "&"}:
                continue
            end2 = street_end(end + 1)
            streets = [trimmed(j, end), trimmed(end + 1, end2)]
            if not len(streets[1]):
                continue
            if corner and any(
                _ADDRESS_NUMBER.match(t.text) or _ORDINAL.match(t.text) or t.lower_.rstrip(".") in STREET_SUFFIXES
                or t.is_alpha and not (self.is_common(t.lower_) or self._clinical_word(t.lower_))
                for street in streets for t in street
            ):
                out.append(Span(doc, i - 1, streets[1].end, label="STREET"))
            elif not corner and any(numbered(sp) for sp in streets) and not (
                all(_ORDINAL.match(t.text) for t in streets[0]) and _ORDINAL.match(streets[1][0].text)
            ) and all(len(sp) <= 3 and not any(
                t.lower_ in _CROSSING_CUES or t.lower_.endswith(("ing", "ed")) or t.text == "-" for t in sp
            ) for sp in streets):  # ("by driving past 6th and ...": the street starts after "past")
                out.append(Span(doc, j, streets[1].end, label="STREET"))
        # a crossing of two streets that each end in a street word needs no cue ("job site, 7th st &
        # mcdowell rd, phoenix"): one to three words or an ordinal before each street word, none a
        # stop word or clinical term, and each street named by a word no dictionary has or by an
        # ordinal before "st" or "ave" ("head ct & chest ct", "sinus st & brief st", "1st rd & 2nd
        # rd", "dirt road & paved road", "speech st & dietitian rd")
        taken = {k for sp in out for k in range(sp.start, sp.end)}

        def named_street(a: int, b: int) -> bool:
            suffix = lowers[b - 1].rstrip(".")
            return any(
                _ORDINAL.match(doc[m].text) and suffix in {"st", "street", "ave", "avenue"}
                or doc[m].is_alpha and not self.clinical_term(lowers[m]) and not self.is_common(lowers[m])
                for m in range(a, b - 1)
            )

        for k in range(2, n - 2):
            if lowers[k] not in {"and", "&"} or k in taken or lowers[k - 1].rstrip(".") not in _CROSSING_SUFFIXES:
                continue
            start = k - 1
            while start > 0 and k - 1 - start < 3 and "\n" not in doc[start - 1].whitespace_:
                w = doc[start - 1]
                if not (w.is_alpha or _ORDINAL.match(w.text)) or w.is_stop or self.clinical_term(lowers[start - 1]) \
                        or lowers[start - 1].rstrip(".") in STREET_SUFFIXES:
                    break
                start -= 1
            second = trimmed(k + 1, street_end(k + 1))
            ends = [m for m in range(second.start + 1, second.end) if lowers[m].rstrip(".") in _CROSSING_SUFFIXES]
            if start < k - 1 and ends and lowers[second.start].rstrip(".") not in STREET_SUFFIXES \
                    and named_street(start, k) and named_street(k + 1, ends[-1] + 1):
                out.append(Span(doc, start, ends[-1] + 1, label="STREET"))
        return out

    def employers(self, doc: Doc, mixed_case: bool, lowers: Optional[List[str]] = None) -> List[Span]:
        """ORG spans: the name after an employer cue (``EMPLOYER_CUES``: "i work for
        rapid cycle solutions", "WORKS AT MBTA", "employed by Lending Club"), one to
        four words on the cue's line, to the first punctuation, stop word or time
        word ("and", "&", "of" inside). Taken when it names someone: in mixed-case
        text every word capitalised; in any text a word no dictionary has, or a
        company word at its end. Not a kind of place or a trade ("works at a bank",
        "works for the city", "works at home", "retired from teaching"). After a
        pharmacy cue (``PHARMACY_CUES``) any name is a pharmacy's ("fills
        prescriptions at the rite aid on ..."), not a generic word ("at the pharmacy")."""
        out: List[Span] = []
        n = len(doc)
        lowers = lowers or [t.lower_ for t in doc]  # (the caller's, when it has them)
        for i in range(1, n - 1):
            pharmacy = (lowers[i - 1], lowers[i]) in PHARMACY_CUES
            # a trade before "at" or "for" names where it is plied ("a truck driver for fedex",
            # "teacher at Lincoln Elementary School", "used to be a nurse at faulkner")
            trade = lowers[i] in _TRADE_JOINERS and lowers[i - 1] in trade_words()
            if not pharmacy and not trade and (lowers[i - 1], lowers[i]) not in EMPLOYER_CUES:
                continue
            j = i + 1
            if j < n and lowers[j] == "the":
                j += 1
            end = j
            while end < n and end - j < 6 and (end == j or "\n" not in doc[end - 1].whitespace_):
                t = doc[end]
                if lowers[end] in _INNER_ORG_WORDS and end > j:
                    end += 1
                    continue
                if end == j and lowers[j] == "home" and self._home_in_name(doc, j, lowers):
                    end += 1  # ("works at home depot,"; not "works at home", "works at home mostly")
                    continue
                if t.text in {"'", "’"} and end > j and not doc[end - 1].whitespace_ and end + 1 < n and doc[end + 1].is_alpha:
                    end += 1  # ("job at dunkin' donuts")
                    continue
                # a number only first ("48 factoring inc"); "x 20 yrs" is a duration
                if not (t.is_alpha or t.text in {"&", "-"} or t.like_num and end == j) or t.is_stop \
                        or lowers[end] in NOT_HOSPITAL_NAME or lowers[end] in _AFTER_NAME_WORDS or lowers[end] == "x":
                    break
                end += 1
            while end > j and (lowers[end - 1] in _INNER_ORG_WORDS or doc[end - 1].text in {"&", "-"}):
                end -= 1
            words = [t for t in doc[j:end] if t.is_alpha]
            if not words or sum(1 for t in words if t.lower_ not in _INNER_ORG_WORDS) > 4:
                continue
            if all(self.clinical_term(t.lower_) for t in words):
                continue
            named = (
                pharmacy and not all(t.lower_ in _GENERIC_PHARMACY for t in words)
                or mixed_case and all(t.is_title or t.is_upper for t in words if t.lower_ not in _INNER_ORG_WORDS)
                or any(not (self.is_common(t.lower_) or self._clinical_word(t.lower_)) for t in words)
                # a company word after a name ("rapid cycle solutions"; not "the pharmacy")
                or words[-1].lower_ in COMPANY_WORDS and any(
                    t.lower_ not in COMPANY_WORDS and t.lower_ not in _GENERIC_PHARMACY for t in words[:-1]
                )
                # after a cue of employment, words that say more than a kind of workplace or a
                # trade ("i work for chemical abstracts service", "works at home depot"; not
                # "works at grocery store", "works as night nurse")
                or (not trade or not mixed_case) and len(words) >= 2 and not all(self._workplace_kind(t.lower_) for t in words)
                # one ordinary word after a cue of employment (no trade's) that ends the phrase and
                # says no kind of workplace or time ("nephew works at fidelity, reachable"; not
                # "works at night.", "retired from teaching.", "works at a desk")
                or not trade and not pharmacy and len(words) == 1 and end == j + 1 and lowers[j - 1] != "the" and (
                    end == n or doc[end].is_punct or "\n" in doc[end - 1].whitespace_
                ) and not (self._workplace_kind(lowers[j]) or lowers[j] in _NOT_EMPLOYERS or lowers[j] in trade_words()
                           or lowers[j].endswith(("ing", "ed", "ly")) or lowers[j] in DEPARTMENT_WORDS)
            )
            if named:
                out.append(Span(doc, j, end, label=ORG))
        return out

    def _home_in_name(self, doc: Doc, j: int, lowers: List[str]) -> bool:
        """Whether "home" at ``doc[j]``, after an employer cue, starts a firm's name: one or
        two more words on the line that are no stop, time, workplace or clinical words and
        no adverb, then punctuation or the line's end ("works at home depot, ..."; "works at
        home", "works at home now", "works at home office", "works at home mostly" name none)."""
        n = len(doc)
        k = j + 1
        while k < n and k - j <= 2 and "\n" not in doc[k - 1].whitespace_ and doc[k].is_alpha and not (
            doc[k].is_stop or lowers[k] in NOT_HOSPITAL_NAME or lowers[k] in _AFTER_NAME_WORDS
            or self._workplace_kind(lowers[k]) or self.clinical_term(lowers[k]) or lowers[k].endswith("ly")
        ):
            k += 1
        return k > j + 1 and (k == n or doc[k].is_punct or "\n" in doc[k - 1].whitespace_)

    @staticmethod
    def _workplace_kind(low: str) -> bool:
        """A word that says what kind of workplace or work, or for how long, not which
        ("grocery store", "night shift", "post office", "family farm", "worked for short time")."""
        return low in LANDMARK_WORDS or low in LANDMARK_GENERIC or low in _GENERIC_FACILITY \
            or low in _WORKPLACE_WORDS or low in trade_words() or low in _INNER_ORG_WORDS or low in _TIME_SPAN_WORDS

    def fielded_orgs(self, doc: Doc) -> List[Span]:
        """ORG spans: the value of a pharmacy or employer field ("PHARMACY: STOP AND SHOP
        PHARMACY, HAROLDHAVEN", "employer: young logistics") or the pharmacy named after
        "pharmacy" without a colon ("pharmacy cvs in woburn"), up to five words, to the
        first punctuation, line end or stop word ("cvs on main st": the address is the
        street rules'); "and", "&", "of", "the" may stand inside. Fields: pharmacy,
        employer, workplace, facility, agency, school, insurance ("INS: HARVARD PILGRIM
        MEMBER ID ...", to the id's words). Any words name one, unless they say there is
        none ("unknown", "retired", "self employed", a trade, a public plan, a kind of place)."""
        out: List[Span] = []
        n = len(doc)
        for i in range(n - 2):
            if doc[i].lower_ not in _ORG_FIELDS:
                continue
            field = doc[i + 1].text == ":"
            insurer = not field and doc[i].lower_ in {"insurance", "insurer", "ins"}
            if not field and not insurer and doc[i].lower_ not in {"pharmacy", "pharm"}:
                continue
            j = i + 1 + field
            while j < n and (doc[j].is_space or not field and doc[j].lower_ in {"(", "-", "is", "="}):
                j += 1
            end = j
            # (an insurer's name may run longer: "INS BLUE CROSS BLUE SHIELD OF TEXAS")
            while end < n and end - j < (7 if insurer else 5) and (end == j or "\n" not in doc[end - 1].whitespace_):
                t = doc[end]
                if not (t.is_alpha or t.text in {"&", "-", "'s", "’s"} or t.like_num and end > j):
                    break
                if t.is_stop and t.lower_ not in _INNER_ORG_WORDS and not (end == j and t.lower_ in {"first", "our"}) \
                        or _id_word_at(doc, end):  # ("church: first lutheran", "our lady of ...")
                    break  # ("HARVARD PILGRIM MEMBER ID ...": the number is the id rules')
                # a verb's form or a phone number's first group ends it ("PHARMACY OMNICARE FAXED 601-555-0190")
                # (not "-ing": "facility: maple grove rehabilitation and nursing", "abc plumbing")
                if end > j and (t.lower_.endswith("ed") and get_string_id(t.lower_) in dictionary_words()
                                or t.like_num and end + 1 < n and doc[end + 1].text == "-" and not t.whitespace_):
                    break
                end += 1
            while end > j and doc[end - 1].lower_ in _INNER_ORG_WORDS:
                end -= 1
            words = [t.lower_ for t in doc[j:end] if t.is_alpha]
            # a public plan or a kind of place names no one ("ins: medicare", "facility: home")
            if all(w in _PUBLIC_PLANS or w in _GENERIC_FACILITY for w in words):
                continue
            # a drug and its dose after a pharmacy's name ("comfort kit delivered by shore
            # pharmacy: morphine 20mg/ml")
            if any((m := _NUMBER_AND_UNIT.match(doc[k].text)) and m.group(2).lower() in _DOSE_UNITS
                   or doc[k].like_num and k + 1 < n and doc[k + 1].lower_ in _DOSE_UNITS
                   for k in range(j, min(end + 1, n))):
                continue
            if insurer:
                # "INSURANCE FLORIDA BLUE ID XJF882041937": with no colon, an insurer's name only
                # before its member's number ("insurance approved", "insurance pending" name none),
                # or two to six words of a name that end the phrase ("insurance nebraska total
                # care."; not "insurance pending approval.", "insurance company notified.")
                # a public plan's word only beside a word no dictionary has ("ins aarp medicare
                # complete."; not "insurance medicare advantage."), one word only if no dictionary has
                # it ("ins humana."; not "ins active.")
                distinct = any(not self.is_common(w) for w in words)
                phrase_end = end == n or doc[end].is_punct or "\n" in doc[end - 1].whitespace_
                only_words = all(t.is_alpha or t.text in {"&", "-", "'s", "’s"} for t in doc[j:end])
                if words and end < n and _id_word_at(doc, end) or (2 <= len(words) <= 6 or distinct and len(words) == 1) \
                        and only_words and phrase_end and not any(
                            w in _INSURANCE_TALK or w in _PUBLIC_PLANS and not distinct or w.endswith(("ed", "ing"))
                            or self.clinical_term(w) or w in ROLES or w in TITLES for w in words
                        ):
                    out.append(Span(doc, j, end, label=ORG))
                continue
            if not field:
                # after "pharmacy" with no field's colon ("outpt pharmacy cvs in woburn", "my
                # pharmacy (stop & shop in malden)"): a word no dictionary has or words joined by
                # "&" ("pharmacy called back", "pharmacy is aware" name none)
                if words and (any(not (self.is_common(w) or self._clinical_word(w)) for w in words)
                              or any(t.text == "&" for t in doc[j:end])):
                    out.append(Span(doc, j, end, label=ORG))
                continue
            # a name: a word no dictionary has, or a pharmacy or company word at its
            # end ("walgreens", "young logistics", "stop and shop pharmacy"; not "mail order", "unknown")
            named = words and (
                any(not (self.is_common(w) or self._clinical_word(w)) for w in words)
                or words[-1] in COMPANY_WORDS or words[-1] in {"pharmacy", "pharmacies", "drug", "drugs"}
                # a field's value is a pharmacy's or employer's name, whatever its words ("rite
                # aid", "young logistics"), unless it says there is none ("unknown", "retired")
                or not all(w in _GENERIC_PHARMACY or w in _NO_EMPLOYER or w in trade_words() for w in words)
            )
            if named:
                out.append(Span(doc, j, end, label=ORG))
        return out

    # ------------------------------------------------------- name by its form
    def insurers(self, doc: Doc, lowers: List[str]) -> List[Span]:
        """ORG spans: an insurer's name, one to four words on the line before what says it is
        one ("PT HAS BLUE CROSS BLUE SHIELD PPO", "tufts health plan", "also has mvp medicare
        supplement"), whatever its words, as a legal form names a company; no stop word,
        clinical term, public plan or kind of plan among them ("his health plan", "dental ppo",
        "medicaid hmo" name no insurer)."""
        out: List[Span] = []
        n = len(doc)
        for i in range(1, n):
            tail = next((len(t) for t in _INSURER_TAILS if tuple(lowers[i : i + len(t)]) == t), 0)
            if not tail:
                continue
            j = i
            while j > 0 and i - j < 4 and "\n" not in doc[j - 1].whitespace_:
                t = doc[j - 1]
                if not t.is_alpha or t.is_stop or self.clinical_term(t.lower_) or t.lower_ in _PUBLIC_PLANS \
                        or t.lower_ in _PLAN_KINDS or t.lower_ in _ORG_FIELDS:
                    break  # (nor the field's word: "INSURANCE HUMANA MEDICARE ADVANTAGE")
                j -= 1
            if j < i:
                out.append(Span(doc, j, i + tail, label=ORG))
        return out

    def initialled_names(self, doc: Doc, mixed_case: bool) -> List[Span]:
        """In mixed-case text, "Hanne I. Kreutzmann", "Shane M Culp": two
        capitalised words that are no ordinary words around a capital initial,
        whether the lists know the names or not."""
        out: List[Span] = self._titled_initials(doc)
        if not mixed_case:
            return out
        n = len(doc)
        for i in range(1, n - 1):
            t = doc[i]
            if not (len(t.text.rstrip(".")) == 1 and t.text[0].isupper() and t.text[0].isalpha()):
                continue
            end = i + 1
            if t.text == t.text.rstrip(".") and end < n and doc[end].text == ".":
                end += 1
            if end >= n:
                continue
            a, b = doc[i - 1], doc[end]
            if all(w.is_alpha and w.is_title and len(w.text) > 1 and not self.is_common(w.lower_) for w in (a, b)):
                out.append(Span(doc, i - 1, end + 1, label=NAME))
        return out

    def _titled_initials(self, doc: Doc) -> List[Span]:
        """An initial and its period after a personal title, in any case, with the name
        words and initials after it ("MR. W., WHO WAS", "seen by dr. j. at", "Dr. A.
        Smith", "DR. J. K. CALLED"): the person's name, written short."""
        out: List[Span] = []
        n = len(doc)
        i = 1
        while i < n:
            end = self._initial_end(doc, i)
            # after a personal title; after a role word with a name word after the initial
            # ("oncology navigator m. best", "case manager k. little following"); first in
            # parentheses with a listed name word after it that the parenthesis or a comma
            # closes ("on call (d. white, beeper ...)", "infection control (m. king) aware";
            # not "(s. aureus)", "(e. coli)": no name words)
            if end == i or not (after_personal_title(doc, i) or (
                doc[i - 1].lower_.rstrip(".") in _CONTEXT_WORDS and end < n and doc[end].is_alpha
                and (self._name_token(doc, end) or self._unknown_word(doc, end))
            ) or (
                doc[i - 1].text == "(" and doc[i].text.endswith(".") and end + 1 < n and doc[end].is_alpha
                and self._name_token(doc, end) and not self.clinical_term(doc[end].lower_)
                and doc[end + 1].text in {")", ","}
            )):
                i += 1
                continue
            for _ in range(3):
                nxt = self._initial_end(doc, end)
                if nxt > end:
                    end = nxt
                elif end < n and (self._name_token(doc, end) or self._unknown_word(doc, end)):
                    end += 1
                else:
                    break
            out.append(Span(doc, i, end, label=NAME))
            i = end
        return out

    @staticmethod
    def _initial_end(doc: Doc, i: int) -> int:
        """Where an initial with its period at ``doc[i]`` ends ("W." or "W" "."), else ``i``."""
        if i >= len(doc):
            return i
        t = doc[i]
        if len(t.text.rstrip(".")) != 1 or not t.text[0].isalpha():
            return i
        if t.text.endswith("."):
            return i + 1
        return i + 2 if i + 1 < len(doc) and doc[i + 1].text == "." else i

    # ------------------------------------------------------------ user lists
    def others(self, doc: Doc) -> List[Span]:
        """Matches of lists with any other label (a user's wards, clinics, staff):
        taken wherever they occur."""
        if not self._other_labels:
            return []
        out = [Span(doc, s, e, label=label) for s, e, label in self.index.multi_matches(doc) if label not in _BUILT_IN]
        for i, tok in enumerate(doc):
            for label in self.tags(tok.lower_):
                if label not in _BUILT_IN and not label.startswith("key:"):
                    out.append(Span(doc, i, i + 1, label=label))
        return out

    # ---------------------------------------------------- a NER's entities
    def plausible_entity(self, doc: Doc, span: Span, category: str) -> bool:
        """Whether a NER entity of PHI ``category`` can be what its label says, by its
        form. A statistical NER trained on clinical notes also fires on text
        unlike its training notes ("Hello I moved" as a HOSPITAL, "card" as a
        DOCTOR); such entities are refused:
        - a name, place, organisation or date with ``?!=<>{}|[]`` in it, a name of
          more than 6 words, anything of more than 15;
        - a name that is one modal before a verb's base form in single-case text or written
          in lower case ("daughter will stay", "WIFE MAY CALL");
        - a date with no digit and no month or weekday name, or with a unit of measurement;
        - a name, place or organisation made only of ordinary words (a listed
          name that is also one, "Green", counts as a name in ALL CAPS or lower
          case text, and capitalised inside mixed-case text), without a digit (places), a hospital or company word,
          or a cue around it (a title, role word or credential for a name, a
          transfer or location cue for a place or organisation: "transferred to
          mercy" stays).
        - a number with a unit glued on ("2MG" as a ZIP), of any category; a kind of dwelling
          alone as a place or organisation ("at son's house");
        - an age whose number no person reaches ("apt. 595", a postal code "53650");
        - an identifier without a digit ("WORKS AT HOME DEPOT AS A CASHIER": no device);
        - a place of a number and one ordinary word, no street word ("12 stairs to enter");
        - a possessive before an eponym's head ("scarpa's fascia" as a hospital, "berry's
          ligament" as a doctor).
        - anything but a name with a suture material, a blade or a suture size in it
          ("#3-0 vicryl" as a date, "#0 vicryl suture" as a street);
        - a contact with no letter and fewer than four digits ("teeth #2 and #19"), or not of
          its kind's form: a phone number without a digit or digit word ("New York City" as a
          PHONE), an e-mail without "@", a web address without "." or "/".
        Other contacts are kept as found."""
        if len(span) == 1 and (m := _NUMBER_AND_UNIT.match(span.text)) and m.group(2).lower() in _MEASURE_UNITS:
            return False  # a dose or size with its unit glued on ("MSO4 2MG" as a ZIP)
        if category == "NAME" and len(span) > 1 and span[-1].lower_ in {"county", "parish"}:
            return False  # "bib harris county" as a patient: a county, whose office the lists take whole
        if category == "NAME" and len(span) == 1 and self.modal_before_verb(doc, span.start) \
                and not (is_mixed_case(doc) and span[0].is_title) and span.end < len(doc) \
                and not doc[span.end].lower_.endswith(("ing", "s")):
            # "DAUGHTER WILL STAY WEEKENDS", "daughter may visit": a modal before its verb; not a
            # capitalised "Will" in mixed-case text, nor before a verb a modal never takes ("may visiting")
            return False
        if category == "AGE":
            if len(span) == 1 and _ORDINAL.match(span.text):
                return False  # "7th st" as an age: an ordinal is a street's, a day's or a rank, no age
            numbers = re.findall(r"\d+", span.text)
            if numbers and span[0].like_num:
                j = _prev_word(doc, span.start)
                after = doc[span.end] if span.end < len(doc) else None
                # a vital sign's or lab's value, a range or a supply, no age ("SBP 90-110", "HR
                # 90'S", "90-day supply"; "in her 90s", "90 yo" stay)
                if j >= 0 and doc[j].lower_ in _VITAL_WORDS:
                    return False
                if after is not None and after.text == "-" and span.end + 1 < len(doc) and not doc[span.end - 1].whitespace_ \
                        and (doc[span.end + 1].like_num or doc[span.end + 1].lower_ in {"day", "days"}
                             or not after.whitespace_ and any(c.isdigit() for c in doc[span.end + 1].text)):
                    return False  # (nor the first piece of a code: "case # 24-dc-01187")
            return not numbers or int(numbers[0]) <= _MAX_AGE
        if category in ("ID", "CONTACT", "NAME") and _GRAVIDA_PARA.match(span.text):
            return False  # "G2P1": an obstetric history, no username or identifier
        if category == "ID":
            return any(c.isdigit() for c in span.text)  # "CASHIER" as a DEVICE: an id has a digit
        if category != "NAME" and (any(t.lower_ in _SURGICAL_WORDS for t in span) or _SUTURE_SIZE.search(span.text)):
            return False  # "#3-0 vicryl", "#15 blade", "2-0": sutures and instruments, no date or place
        if category == "CONTACT":
            if not _contact_form(span):
                return False  # "New York City" as a PHONE, "Presbyterian" as an EMAIL
            address = any(t.lower_.rstrip(".") in STREET_SUFFIXES or t.lower_ in _UNIT_WORDS for t in span)
            if not address and not any(c in span.text for c in "@/") and "www" not in span.text.lower() and any(
                t.is_alpha and t.lower_ not in DIGIT_WORDS and (t.lower_ in _MEASURE_UNITS or t.lower_ in _TIME_SPAN_WORDS)
                for t in span
            ):
                # "10 cmh2o, draining 8-12 ml", "104 x 2 days": measurements, no phone (an address
                # the NER calls a phone stays: "5521 119 COUNTESS CLOSE")
                return False
            if _NUMBER_RANGE.match(span.text) or (
                len(span) == 1 and _CLOCK_TIME.match(span.text) and span.start > 0
                and doc[span.start - 1].lower_ in {"at", "@", "since", "until", "by", "from", "to"}
            ):
                return False  # "bs log 140-210": a range; "x1 at 2200": a time
            if _clock_range(span.text):
                return False  # "hd via l avf 2200-0200": a session's hours
            # "teeth #2 and #19": a contact has a letter (an e-mail, a URL), four digits or
            # more, or is a group of a number beside it ("Phone: 88 165 40 96")
            if any(c.isalpha() for c in span.text) or sum(c.isdigit() for c in span.text) >= 4:
                return True
            before = doc[max(0, span.start - 3) : span.start]
            return _digits_beside(span) or any(t.lower_.rstrip(":.") in _CONTACT_CUE_WORDS for t in before)
        if category not in _FORM_CHECKED:
            return True
        if _ENTITY_NOISE.search(span.text):
            return False
        if category != "DATE" and "-" in doc[max(0, span.start - 2) : span.end + 2].text:
            around = re.sub(r"\s*-\s*", "-", doc[max(0, span.start - 2) : span.end + 2].text.lower())
            if any(e in around for e in _HYPHENATED_EPONYMS):
                return False  # "JACKSON-PRATT" as a doctor, "Hunt-Hess" as a person: an eponym
        if category == "LOCATION" and len(span) == 2 and span[0].is_digit and len(span[0].text) <= 3 and span[1].is_alpha \
                and self.is_common(span[1].lower_) and span[1].lower_.rstrip(".") not in STREET_SUFFIXES \
                and not self.tags(span[1].lower_):
            return False  # "12 stairs", "2 flights": a count of things, no street
        n_words = sum(1 for t in span if not (t.is_punct or t.is_space))
        if n_words > (6 if category == "NAME" else 15):
            return False
        if category == "DATE":
            if any(t.lower_ in _MEASURE_UNITS for t in span):
                return False  # "MASS 4 CM", "40 mg": a measurement
            if _PHONE_SHAPE.match(span.text):
                return False  # "508 555 1234": a phone number's groups
            if _DECIMAL_SLASH.search(span.text) or "->" in span.text:
                return False  # "abg 7.38/58/72": a blood gas, no date; "ag 24->16": a trend
            j = _prev_word(doc, span.start)
            if re.match(r"^\d0['’]?s$", span.text) and j >= 0 and (doc[j].lower_ in _VITAL_WORDS or self.clinical_term(doc[j].lower_)):
                return False  # "SR 60s", "sbp 90s": a vital sign's decade, no date
            if _clock_range(span.text):
                return False  # "proned 1600-1200": hours, no years
            if _DIMENSIONS.search(span.text) and not re.search(r"\d", _DIMENSIONS.sub("", span.text)):
                return False  # "2-D ECHOCARDIOGRAM": dimensions, no date
            if len(span) == 1 and _MONTH_DAY.match(span.text) and (reads_as_ratio(span) or secondary_to(span)):
                return False  # "GIVEN 2/3 OF DOSE", "gcs 14/15": a ratio; "held 2/2 low bp": "secondary to"
            if _SHORT_RANGE.match(span.text) and amount_after(span):
                return False  # "ON 2-3 L NC", "2/3 days": an amount
            if self._measured_range(doc, span):
                return False  # "UOP 30-50", "HR 80-90", "wbc 12-14", "1-2 assist oob": values, no date
            if _bare_amount(span, self.is_common):
                return False  # "approximately 50 cc": a bare number of three digits at most, no date
            if any(shorthand_token(t.text) for t in span):
                return False  # "3VD", "CMV 500X14 PEEP 8 FIO2 50": shorthand and settings, no date
            if len(span) == 1 and _ORDINAL.match(span.text) and span.end < len(doc) \
                    and doc[span.end].lower_.rstrip(".") in _ORDINAL_THINGS:
                return False  # "2ND FLR", "3rd degree", "1st dose": an ordinal of a thing, no day
            if len(span) == 2 and _ORDINAL.match(span[0].text) and span[1].lower_.rstrip(".") in _ORDINAL_THINGS:
                return False  # "COMPLETED 11TH GRADE" as a DATE: the thing inside the entity
            if not any(t.lower_.rstrip(".") in _CALENDAR_FORMS for t in span) and any(
                t.is_alpha and len(t.text) > 2 and t.lower_ not in PATIENT_WORDS and self.clinical_term(t.lower_)
                and t.i + 1 < span.end and doc[t.i + 1].like_num for t in span
            ):
                # "atorvastatin 40, omeprazole 20", "BRADEN 13": a clinical word and its number,
                # doses and scores, no date (an address the NER calls a date stays: "QUEENS SQ, ...")
                return False
            if not any(t.lower_.rstrip(".") in _CALENDAR_FORMS for t in span) and self._labelled_number(doc, span):
                return False  # "PRAM SCORE 4. TOLERATING PO", "ESI 3", "Aldrete 9", "since 1000" (a time)
            if span.end < len(doc) and doc[span.end].lower_ in _MEASURE_UNITS:
                return False  # "tunneling 3 cm": a measurement, its unit after the entity
            words = [t for t in span if t.is_alpha]
            if words and not any(t.lower_.rstrip(".") in _CALENDAR_FORMS for t in span) \
                    and not _DATE_SHAPE.search(doc[max(0, span.start - 1) : span.end + 1].text) \
                    and all(get_string_id(t.lower_) in dictionary_words() or self.clinical_term(t.lower_)
                            for t in words if len(t.text) > 1) \
                    and not any(t.lower_.rstrip(".") in STREET_SUFFIXES or t.lower_ in _UNIT_WORDS for t in words):
                # numbers among ordinary words, no date's shape: "hunt-hess 3, fisher 4, s/p" (the
                # NER's dates over addresses keep their words no list has and their street words:
                # "54 Soo 36", "5521 119 COUNTESS CLOSE")
                return False
            return any(c.isdigit() for c in span.text) or any(t.lower_.rstrip(".") in _CALENDAR_FORMS for t in span)
        if all(_TIMES.match(t.text) for t in span):
            return False  # "cabg x3", "bcx x2": a count, no name or id
        if category != "NAME" and any(
            t.like_num and t.i + 1 < span.end and doc[t.i + 1].lower_ in _MEASURE_UNITS and len(doc[t.i + 1]) > 1
            for t in span
        ) and not any(t.lower_.rstrip(".") in STREET_SUFFIXES for t in span):
            return False  # "40 MEQ KCL" as a street: a dose ("1800 G St NW" stays)
        if category == "NAME" and len(span) == 1 and span[0].lower_ in _NURSE_KINDS and span.end < len(doc) \
                and doc[span.end].lower_.rstrip(".") in CREDENTIALS:
            return False  # "REPORT GIVEN TO CHARGE RN KELLY": the kind of nurse, no name
        if category == "NAME" and "-".join(t.lower_ for t in span if t.is_alpha) in _HYPHENATED_EPONYMS:
            return False  # "SAH HUNT HESS 3": an eponym written without its hyphen
        if category in ("LOCATION", "ORGANIZATION") and self._clinical_words_and_numbers(span):
            return False  # "trach collar 35" as a ward, "2330 RAPID RESPONSE" as a street
        if any(_LETTER_DIGIT.match(t.text) for t in span):
            return True  # a user name, a ward, an id ("mbaldwin74", "5E")
        # (a name's word may hold an apostrophe: "t. o'neil"; a place's "o'clock" is no word of it)
        words = [t for t in span if t.is_alpha or (category == "NAME" and _APOSTROPHE_WORD.match(t.text))]
        if words and all(t.lower_.rstrip(".") in CREDENTIALS for t in words):
            return False  # "m. green, rn, cwocn": the NER's place is a credential
        if not words:
            # (a decimal is a value, no place or organisation: "WBC 16.2 (FROM 12.1)", "86.1 kg")
            return category != "NAME" and any(c.isdigit() for c in span.text) and not _DECIMAL.match(span.text)
        mixed_case = is_mixed_case(doc)
        if category == "NAME" and len(words) > 1 and any(
            _INITIAL.match(t.text) and (t.text.endswith(".") or t.lower_ not in {"a", "i"}) for t in span
        ) and any(
            NAME in self.tags(t.lower_) or not (self.is_common(t.lower_) or self.clinical_term(t.lower_))
            for t in words if not _INITIAL.match(t.text)
        ):
            return True  # "i. frank", "Jack B."; not "using a", nor "PA-C. Anesthesia"
        if category == "NAME" and words[0].is_title and _starts_sentence(doc, words[0].i) and len(words) > 1 and any(
            t.is_lower and t.lower_ not in NAME_PARTICLES and not self.tags(t.lower_) for t in words[1:]
        ):
            # "Pulmonary outflow is normal": capitalised only as a sentence's first word, with
            # lower-case words after it that no list names
            return False
        if len(words) > 1 and words[-1].lower_ in EPONYM_HEADS and doc[words[-1].i - 1].lower_ in {"'s", "’s"}:
            return False  # "scarpa's fascia" as a hospital, "berry's ligament" as a doctor: an eponym
        if category == "NAME" and all(t.lower_.rstrip(".") in _CONTEXT_WORDS for t in words):
            return False  # "son", "dr": the cue, not the name ("son will in to visit")
        if category == "NAME" and words[0].i == span.start and span.start > 0 and doc[_prev_word(doc, span.start)].lower_ == "re" \
                and (self.is_common(words[0].lower_) or self.clinical_term(words[0].lower_)) and NAME not in self.tags(words[0].lower_):
            return False  # "re: recs. Anticipate", "re: new dx", "re: abnl mammogram": a subject, no name
        if category == "NAME" and any(t.lower_ in _RELIGION_WORDS for t in words):
            return False  # "PT IS ROMAN CATHOLIC": a faith, no name
        if category == "NAME" and len(words) == 1 and self.is_common(words[0].lower_) and span.start > 0 \
                and doc[span.start - 1].lower_ in _OCCUPATION_CUES:
            return False  # "retired carpenter", "works as a cook": a trade, no name
        if all(self.clinical_term(t.lower_) for t in words):
            return False  # "foley", "urosepsis", "choledocholithiasis": whatever the cue before
        if category != "NAME" and len(words) == 1 and words[0].lower_ in _DWELLING_WORDS:
            return False  # "at son's house" as a hospital: a kind of dwelling ("spaulding house" stays)
        if category != "NAME" and all(t.is_stop or self.clinical_term(t.lower_) for t in words):
            return False  # "cm to call vna": a verb and shorthand name no place ("may" is a name)
        if category == "NAME" and not mixed_case and self._word_name(doc, span, words):
            return False
        for t in words:
            # a word no list of ordinary words has ("Kowalczyk", "Gravemoor"), which is no
            # clinical word either ("urosepsis", "percocet" as a term, "choledocholithiasis" by its
            # ending, "wean" as a dictionary word); a listed name or place that is also an ordinary
            # word ("Green", "Mobile", "rose"): in ALL CAPS or lower case text as found, in
            # mixed-case text only capitalised and not first in its sentence
            if self.tags(t.lower_):
                if self.clinical_term(t.lower_):
                    continue  # "MALE" is a first name of the lists, but not in "ASIAN MALE"
                if category != "NAME" and not self.tags(t.lower_) - _NAME_TAGS and zipf(t.lower_) >= EMIT_ZIPF \
                        and any(self.clinical_term(w.lower_) for w in words):
                    continue  # a very common word a name list has, beside a clinical term ("GENERAL ANESTHESIA")
                if not self.is_common(t.lower_) or not mixed_case or (t.is_title and not t.is_sent_start):
                    return True
            elif not self.is_common(t.lower_) and not self._clinical_word(t.lower_):
                return True
        if category == "NAME":
            if all(t.lower_.endswith(("ing", "ed")) or self.after_name_word(t) for t in words):
                return False  # a verb after a role word: "brother flying in", "wife drove in"
            if not any(NAME in self.tags(t.lower_) for t in words) and (
                all(t.is_stop for t in words) or _role_before(doc, span.start)
            ):
                # no list names these words: a role word alone does not make them a name
                # ("WIFE CAN BE REACHED", "PARTNER REQUESTS UPDATES"); a title does ("dr. baker")
                return False
            # ordinary words only: a title or role word before them, not a verb ("NOTED BY SECURITY")
            return has_title_before(doc, span.start, verbs=False) or _has_credential_after(doc, span.end)
        if all(t.lower_ in _GENERIC_FACILITY for t in words) or not any(t.lower_ in HOSPITAL_WORDS for t in words) and all(
            t.lower_ in _GENERIC_FACILITY or self.clinical_term(t.lower_) for t in words
        ):
            return False  # "NURSING HOME", "the rehab facility", "outside hospital", "IV TEAM": no one's name
        lowers = [t.lower_ for t in words]
        if any(c.isdigit() for c in span.text) or lowers[-1] in HOSPITAL_WORDS \
                or any(w in _HOSPITAL_WORDS_ANYWHERE or w in COMPANY_WORDS for w in lowers) \
                or any(self._hospital_tail(lowers, k) > 1 for k in range(len(lowers))):
            return True  # ("general", "memorial" only as a name's end or in a tail: "TUFTS HEALTH PLAN")
        return self._location_context(doc, span) or self._transfer_context(doc, span.start, span.end)

    def _clinical_words_and_numbers(self, span: Span) -> bool:
        """A NER place or organisation of numbers and ordinary words that no list names, no
        street word among them, which a clinical term or a clock time makes a device's
        setting or an event ("on trach collar 35%", "2330 RAPID RESPONSE CALLED"; "12 PINE
        ST", "ICU 4 at Mercy" stay)."""
        words = [t for t in span if t.is_alpha]
        if not words or not any(t.like_num for t in span) or any(
            self.tags(t.lower_) or not self.is_common(t.lower_) or t.lower_.rstrip(".") in STREET_SUFFIXES
            or t.lower_ in _UNIT_WORDS for t in words
        ):
            return False
        return any(self.clinical_term(t.lower_) for t in words) or bool(_CLOCK_TIME.match(span[0].text))

    def _labelled_number(self, doc: Doc, span: Span) -> bool:
        """Whether ``span`` (no month or weekday in it) holds no date but a number: one number
        of one or two digits right after an ordinary or clinical word ("SCORE 4", "ESI 3", "Mac
        3", "apgars 8"), or a time of four digits alone ("since 1000", "0400"), with nothing of
        a date's shape around it (not "'09", "74'", "3/6", "2019"). Several numbers stay, and a
        number after a word no list has or before a side: the NER's dates over phone numbers,
        addresses and wards ("33 93 31", "54 Soo 36", "woxley 10 north") are PHI whatever their label."""
        around = doc[max(0, span.start - 1) : min(len(doc), span.end + 1)].text
        if _DATE_SHAPE.search(around):
            return False
        numbers = [t for t in span if t.like_num and any(c.isdigit() for c in t.text)]
        if len(numbers) != 1:
            return False
        number = numbers[0]
        if number.i + 1 < len(doc) and doc[number.i + 1].lower_ in {"am", "pm", "a.m.", "p.m.", "a", "p"}:
            return False  # "seen 3pm today": a time written as one, taken with the dates
        if len(span) == 1 and number.text.isdigit() and (len(number.text) <= 2 or len(number.text) == 4):
            return True  # "WHITE COUNT DOWN TO 14 FROM 19", "BNP 1880 (from 3240)", "on 5150": a number alone
        if len(span) == 1 and _CLOCK_TIME.match(number.text):
            return True
        k = number.i - 1
        if number.i + 1 < len(doc) and doc[number.i + 1].lower_ in _COMPASS_WORDS:
            return False  # "came up from skoberg 7 south": a ward
        return len(number.text) <= 2 and number.text.isdigit() and k >= 0 and doc[k].is_alpha and not doc[k].is_stop \
            and doc[k].lower_ not in _CALENDAR_FORMS and self.is_common(doc[k].lower_)

    def _measured_range(self, doc: Doc, span: Span) -> bool:
        """A NER date that is a value of a note, no date: numbers of at most three digits,
        no month, weekday or holiday, and a range beside ordinary or clinical words ("UOP
        30-50", "1-2 assist oob"; not "69 Roheline 43"), or a range that no month-day is
        ("80-90") or after a vital sign or laboratory word ("wbc 12-14")."""
        if any(t.lower_.rstrip(".") in _CALENDAR_FORMS or t.lower_ in _TIME_SPAN_WORDS for t in span):
            return False  # a month, a weekday, an age or a duration ("6-YEAR-OLD", "3 days ago")
        numbers = re.findall(r"\d+", span.text)
        if not numbers or any(len(n) > 3 for n in numbers) or re.search(r"\d[/.]\d", span.text):
            return False  # a year, or a month/day ("3/24 am")
        if any(t.is_alpha for t in span):
            # a range beside ordinary or clinical words only ("69 Roheline 43" is an address)
            return re.search(r"\d\s*[-–]\s*\d", span.text) is not None and all(
                self.is_common(t.lower_) or self.clinical_term(t.lower_) for t in span if t.is_alpha
            )
        m = _NUMBER_RANGE.match(span.text)
        if m is None:
            return False
        first, second = int(m.group(1)), int(m.group(2))
        prev = doc[span.start - 1].lower_ if span.start else ""
        return first > 12 or second > 31 or first == 0 or second == 0 or prev in _VALUE_WORDS

    def _word_name(self, doc: Doc, span: Span, words: Sequence) -> bool:
        """In a single-case note, a NER name whose listed names are all very common
        words (Zipf >= ``EMIT_ZIPF``: "general", "good", "less", "will"), beside an
        ordinary word no list names ("GENERAL ANESTHESIA", "GOOD HEMOSTASIS") or alone
        before a stop word ("LESS THAN 5 ML", "WILL BE"), with no cue around it: words."""
        named = [t for t in words if NAME in self.tags(t.lower_) and not self.clinical_term(t.lower_)]
        if not named or any(not self.is_common(t.lower_) or zipf(t.lower_) < EMIT_ZIPF for t in named):
            return False
        others = [t for t in words if NAME not in self.tags(t.lower_)]
        if others:
            phrase = all(self.is_common(t.lower_) for t in others)  # "GOOD HEMOSTASIS", not "MARK MUSLIJA"
        else:  # "LESS THAN", "WILL BE", "GENERAL ANESTHESIA" cut to "GENERAL"; not "MARK IS", "MARK CALLED"
            nxt = doc[span.end] if span.end < len(doc) else None
            phrase = len(words) == 1 and nxt is not None and (
                nxt.lower_ in _NO_SUBJECT_AFTER or nxt.is_alpha and not nxt.is_stop and NAME not in self.tags(nxt.lower_)
                and (self.clinical_term(nxt.lower_) or self.is_common(nxt.lower_)) and not self.after_name_verb(nxt)
            )
        return phrase and not has_title_before(doc, span.start) and not _has_credential_after(doc, span.end)

    def numbered_street(self, span: Span, mixed_case: bool) -> bool:
        """A house number of up to five digits (or two numbers), then names only: listed
        names or places, or capitalised words in mixed-case text, no unit ("78 Victor Hugo";
        not "250 mmhg", "24 french"), or words and a street word ("704 1436 redbud drive"):
        a street, whatever label a NER gave it."""
        if len(span) < 2 or not span[0].like_num or len(span[0].text) > 5:
            return False
        first = 2 if span[1].like_num and len(span[1].text) <= 5 else 1  # "704 1436 Redbud Drive"
        words = [t for t in span[first:] if not t.is_punct]
        if words and words[-1].lower_.rstrip(".") in STREET_SUFFIXES and all(t.is_alpha for t in words):
            return True  # "704 1436 redbud drive": a street word ends it
        return bool(words) and all(
            t.is_alpha and t.lower_ not in _MEASURE_UNITS and t.lower_ not in _SIZE_WORDS and not self.clinical_term(t.lower_)
            and ((mixed_case and t.is_title) or self.tags(t.lower_) & {NAME, CITY})
            for t in words
        )

    def is_state(self, span: Span) -> bool:
        """The span is a US state's name as the lists have it ("california", "New York")."""
        return self.is_listed(span, STATE)

    def is_listed(self, span: Span, label: str) -> bool:
        """The span is, whole, an entry of the list of ``label`` ("worcester" a CITY)."""
        words = [t for t in span if not t.is_space]
        labels = (label, TOWN) if label == CITY else (label,)  # (a small town is a CITY here)
        if len(words) == 1:
            return any(x in self.tags(words[0].lower_) for x in labels)
        hashes = tuple(t.lower for t in words)
        return bool(words) and any((hashes, x) in self.index.multi.get(hashes[0], ()) for x in labels)

    def occupation_place(self, span: Span) -> Optional[Span]:
        """For an organisation or place entity that ends with a trade word ("boston
        police officer", "retired mass general nurse"): the listed places it starts
        with, as a CITY or STATE span, or an empty span when it starts with none;
        None for an entity that names no trade."""
        if not len(span) or span[-1].lower_ not in trade_words():
            return None
        end = span.start
        while end < span.end - 1 and self.tags(span.doc[end].lower_) & set(PLACE_LABELS):
            end += 1
        label = next((lab for lab in PLACE_LABELS if lab in self.tags(span.doc[span.start].lower_)), CITY)
        return Span(span.doc, span.start, end, label=label)

    def initialled_person(self, span: Span) -> bool:
        """A person's name by its form: a word, a middle initial and a word, no kind
        word of a place or organisation ("janka m. szász", "JOHN Q PUBLIC"; a NER
        trained on notes may call it a hospital)."""
        words = [t for t in span if not t.is_punct]
        if len(words) != 3 or any(t.lower_ in _KIND_WORDS for t in words):
            return False
        first, middle, last = words
        return (_word_form(first) and len(first.text) > 1 and _word_form(last) and len(last.text) > 1
                and _INITIAL.match(middle.text) is not None and middle.text[0].isalpha())

    def signed_person(self, span: Span) -> bool:
        """Initials and listed names only, with a credential after them or a title
        before ("J. SMITH, RN", "dr k. lee"; a NER trained on tidy notes may call
        it a hospital)."""
        doc = span.doc
        words = [t for t in span if not t.is_punct]
        if not words or any(t.lower_ in _KIND_WORDS for t in words):
            return False
        initial = [t for t in words if _INITIAL.match(t.text) and t.text[0].isalpha()]
        named = [t for t in words if t.is_alpha and len(t.text) > 1 and NAME in self.tags(t.lower_)]
        if not named or len(initial) + len(named) != len(words):
            return False
        return _has_credential_after(doc, span.end) or has_title_before(doc, span.start, verbs=False)

    def listed_person(self, span: Span) -> bool:
        """A person by the lists alone: a first name of the shipped lists first, and
        a surname of them last ("michael smith", "Mary Ann Jones") or an initial
        last ("lisa m.", "MICHAEL T.")."""
        words = [t for t in span if t.is_alpha and len(t.text) > 1]
        if not words or "key:first_names" not in self.tags(words[0].lower_):
            return False
        last = span[-2] if span[-1].text == "." and len(span) > 1 else span[-1]
        if last.i > words[0].i and _INITIAL.match(last.text) and last.text[0].isalpha():
            return True
        return len(words) >= 2 and "key:last_names" in self.tags(words[-1].lower_)

    def person_within(
        self, doc: Doc, start: int, end: int, names: Sequence[Span], category: str, mixed_case: bool
    ) -> Optional[Tuple[int, int]]:
        """The bounds of the person in a NER entity ``doc[start:end]`` of a named
        ``category``: the entity with the one name of ``names`` (the gazetteer's)
        inside it, less the words at its edges, outside that name, that are no part
        of a name (``not_name_word``). A statistical NER trained on tidy notes
        labels a person in a query as a HOSPITAL ("Did Jennifer Brown have") and runs
        a name on over the words after it ("Michael Smith today"); the lists know the
        person and where the name ends. For an organisation or place entity the name
        must be a person by the lists alone (``listed_person``) and be all that is
        left: None when another word stays ("West Ashley Police Department") or a
        word names a kind of place ("Jackson Memorial", "Jennifer Brown Road"): then
        the entity says more than the lists. None too where no name or more than
        one is inside."""
        if category != "NAME":
            names = [sp for sp in names if self.listed_person(sp)]
        inside = [sp for sp in names if start <= sp.start and sp.end <= end]
        if len(inside) != 1:
            return None
        name = inside[0]
        if category != "NAME":
            entity = doc[start:end]
            if any(t.lower_ in _KIND_WORDS for t in entity):
                return None
            if category == "LOCATION" and any(t.lower_.rstrip(".") in STREET_SUFFIXES for t in entity):
                return None
        while start < name.start and self.not_name_word(doc[start], mixed_case):
            start += 1
        while end > name.end and self.not_name_word(doc[end - 1], mixed_case):
            end -= 1
        if category != "NAME" and (start, end) != (name.start, name.end):
            return None
        return start, end

    def not_name_word(self, t, mixed_case: bool) -> bool:
        """A token at the edge of a NER name that is no part of it: punctuation, a
        stop word, a title, role word or credential, a clinical term, an ordinary
        verb form or time word that notes write after a name ("MICHAEL T. SEEN",
        "JOHN SMITH, EVALUATED", "today"), or in mixed-case text a lower-case word;
        never a listed name ("Reed") nor a word that names a kind of place
        ("HUBER GARDENS ASSISTED LIVING")."""
        low = t.lower_
        if t.is_space or (t.is_punct and low not in {"-", "'", "’"}) or t.is_stop:
            return True
        if NAME in self.tags(low) or low in _KIND_WORDS:
            return False
        if low.rstrip(".") in _CONTEXT_WORDS or self.clinical_term(low):
            return True
        # "-ed" forms are verbs after a name; "-ing" ones name trades too ("carter plumbing")
        if self.after_name_word(t):
            return True
        return mixed_case and t.is_alpha and t.is_lower

    def modal_before_verb(self, doc: Doc, k: int) -> bool:
        """``doc[k]`` is a modal verb before a verb's base form ("will call", "MAY
        BRING", "may be"), not a name ("JOHN MAY CALLED", "will smith")."""
        if doc[k].lower_ not in _MODALS or k + 1 >= len(doc):
            return False
        t = doc[k + 1]
        low = t.lower_
        if low in _VERB_SHORTHAND or low in {"f", "d"} and k + 2 < len(doc) and doc[k + 2].text.startswith("/"):
            return True  # "WILL F/U W/ PCP", "will d/c foley"
        if not t.is_alpha or (t.is_stop and low not in _BASE_STOP_VERBS):
            return False
        return self.is_common(low) and not low.endswith("ed") and NAME not in self.tags(low)

    def after_name_word(self, t) -> bool:
        """A word notes write right after a name and no name holds: an ordinary "-ed"
        form, a time word or a verb of ``_AFTER_NAME_WORDS`` ("BROUGHT", "took"),
        never a listed name ("Will", "Rose")."""
        low = t.lower_
        if NAME in self.tags(low):
            return False
        return low in _AFTER_NAME_WORDS or (self.is_common(low) and low.endswith("ed"))

    def after_name_verb(self, t) -> bool:
        """``after_name_word``, or a dictionary word of four letters or more in a verb's
        "-ing" or "-s" form that no name list has ("SON LUC DRIVING UP", "MRS. D'ANGELO
        CHECKS ON HIM"); for names only (places end in such words: "myrley building",
        "palm springs")."""
        low = t.lower_
        return self.after_name_word(t) or (
            len(low) > 3 and low.endswith(("ing", "s")) and not low.endswith(("ss", "is", "us"))
            and NAME not in self.tags(low) and self.is_common(low) and not self.clinical_term(low)
        )

    def clinical_term(self, low: str) -> bool:
        """A clinical term or a word with an ending of clinical words."""
        if get_string_id(low) in self.index.clinical:
            return True
        form = ending_pattern(CLINICAL_FORMS)
        return form is not None and form.match(low) is not None

    def _clinical_word(self, low: str) -> bool:
        """A clinical term or form, or a dictionary word ("wean")."""
        return self.clinical_term(low) or get_string_id(low) in dictionary_words()

    def _transfer_context(self, doc: Doc, start: int, end: int) -> bool:
        """A transfer cue ("transferred to", "followed at") or "at"/"from"/"to" right before ``doc[start:end]``."""
        before = _words_before(doc, start)
        if before in TRANSFER_CUES:
            return True
        # after "at", "from", "to" only a capitalised word in mixed-case text ("at Mercy", not "to add");
        # in a single-case note a name of two words or more ("at cape cod"), a word no list of
        # ordinary words has ("at yosemite") or a listed place or name that is no clinical word
        # ("from mobile"); not one ordinary word ("4 CM FROM NIPPLE", "to add")
        if before[1] not in TRANSFER_UNIGRAMS:
            return False
        first = doc[start]
        if is_mixed_case(doc):
            return first.is_title or first.is_upper
        if first.is_stop:
            return False  # "to go home", "to get up": a verb, no name
        words = [t.lower_ for t in doc[start:end] if t.is_alpha]
        if any(self.clinical_term(w) for w in words):
            return False  # "at the distal tip", "from general anesthesia": the body and its care
        return len(words) > 1 or any(
            not self.is_common(w) or (self.tags(w) and not self.clinical_term(w)) for w in words
        )

    # ------------------------------------------------------------------ all
    # -------------------------------------------------------------- addresses
    def _address_word(self, doc: Doc, k: int) -> Optional[bool]:
        """``doc[k]`` as a part of an address: True (a number, an address word, a
        listed place or a word no dictionary has: "koskikatu", "lappeenranta"),
        None (a country or US state: not PHI, but the address goes on past it),
        False (an ordinary or clinical word: the address has ended)."""
        t = doc[k]
        low = t.lower_.rstrip(".")
        if _ADDRESS_NUMBER.match(t.text) or low in _ADDRESS_WORDS:
            return True
        if not t.is_alpha or low in _CONTACT_CUE_WORDS:
            return False  # "TEL 833.800.8402" on the line after the address: no town
        if is_not_phi_place(t.text) or STATE in self.tags(low) or low in WORD_STATE_CODES:
            return None
        if self.tags(low) & {CITY, COUNTY}:
            return True
        return not (self.is_common(low) or self._clinical_word(low) or t.is_stop)

    def _address_token(self, doc: Doc, k: int, step: int, lo: int, hi: int) -> Optional[bool]:
        """``_address_word`` for every token: punctuation and particles count only
        between two address words ("rua do arenque", "tawastintie 72, knivsta");
        a period only after an abbreviation or before more of the address."""
        t = doc[k]
        if t.is_space:
            return None
        if _region_code(doc, k) or t.text == "," and k + 1 < len(doc) and _region_code(doc, k + 1):
            return True
        if t.text in _ADDRESS_PUNCT or t.lower_ in _ADDRESS_PARTICLES:
            nxt = k + step
            while lo <= nxt < hi and (doc[nxt].is_space or doc[nxt].text in _ADDRESS_PUNCT):
                nxt += step
            if not lo <= nxt < hi or doc[nxt].lower_ in _ADDRESS_PARTICLES:
                return False
            if t.text == "." and step > 0 and doc[k - 1].lower_.rstrip(".") not in _ADDRESS_WORDS:
                # a sentence's period ends the address unless a number or postal code follows;
                # last on its line, the lines after tell ("6076 piroska u. 97. / porto alegre")
                if "\n" in doc[k:nxt].text_with_ws:
                    return None
                if not _ADDRESS_NUMBER.match(doc[nxt].text):
                    return False
            # inside when an address word follows, passed over when a country does
            return self._address_word(doc, nxt)
        return self._address_word(doc, k)

    def address_runs(
        self, doc: Doc, anchors: Iterable[Span], blocked: Iterable[Span] = (), max_left: int = 6, max_right: int = 12
    ) -> List[Span]:
        """Complete the address pieces the patterns found (``anchors``: STREET and
        ZIP spans) with the parts around them that no pattern knows, in any letter
        case: foreign street names and towns, house numbers before a street
        ("86036 rua do arenque 1634"), unit, town and postal code lines after it
        ("apt. 595 / lappeenranta / sk 53650"). An address is a run of numbers,
        address words and words no dictionary has; an ordinary or clinical word, a
        sentence's end or a colon ends it. It goes back over at most ``max_left``
        tokens on the anchor's line and on over at most ``max_right`` tokens, across
        line breaks; states and countries stay (not PHI), and so do the tokens of
        ``blocked`` spans (the names and organisations found: a name before an
        address is replaced as a name); the places found stay theirs and the address
        goes on past them, as past a state. RETURNS one STREET span per run of address
        tokens (ZIP for a postal code alone, CITY for one word alone)."""
        n = len(doc)
        blocked = list(blocked)
        # the places found stay theirs, and the address goes on past them ("port sherryside, ri 02888"),
        # as past a hospital ("st georges, qc 54256") and a name alone on its line: towns the lists
        # took for a hospital or a person ("6076 piroska u. 97 / porto alegre / , rs / brazil 95828")
        passing = [
            sp for sp in blocked
            if sp.label_ in PLACE_LABELS or sp.label_ == HOSPITAL or sp.label_ == NAME and _alone_on_line(doc, sp)
        ]
        passed: Set[int] = {i for sp in passing for i in range(sp.start, sp.end)}
        taken: Set[int] = {i for sp in blocked for i in range(sp.start, sp.end)} - passed
        out: List[Span] = []
        towns: Set[int] = set()  # the tokens of town lines
        for anchor in sorted(anchors, key=lambda sp: sp.start):
            if anchor.label_.upper() not in ADDRESS_ANCHORS or anchor.start in taken:
                continue
            keep = set(range(anchor.start, anchor.end))
            lo = max(0, anchor.start - max_left - 4)
            k = anchor.start - 1
            steps = 0
            while k >= lo and steps < max_left and "\n" not in doc[k].whitespace_ and not doc[k].is_space:
                if k in taken:
                    break
                part = None if k in passed else self._address_token(doc, k, -1, lo, anchor.start)
                if part is False:
                    break
                if part:
                    keep.add(k)
                k -= 1
                steps += 1
            if steps == 0 and doc[anchor.start].lower_.rstrip(".") in _UNIT_WORDS:
                # a unit line ("suite 501") first on its line: the street line above it
                # ("20789 allika 46 / suite 501 / riisa")
                keep |= self._street_line_above(doc, anchor.start, taken | passed)
            hi = min(n, anchor.end + max_right + 8)
            k, steps = anchor.end, 0
            while k < hi and steps < max_right:
                if k in taken:
                    break
                part = None if k in passed else self._address_token(doc, k, 1, anchor.end, hi)
                if part is False and k not in passed and doc[k].is_alpha:
                    # a country or state of two or three words ("united states 21959")
                    country = next((m for m in (3, 2) if k + m <= n and all(t.is_alpha for t in doc[k : k + m])
                                    and is_not_phi_place(doc[k : k + m].text)), 0)
                    if country:
                        k += country
                        continue
                if part is False and k not in passed:
                    # a town of ordinary words on its own line ("apt. 962 / grand rapids /
                    # united states 21959", "suite 603 / smith's green / united kingdom")
                    end = self._town_line(doc, k + 1 if doc[k].text == ">" else k)
                    if end:
                        keep.update(range(k, end))
                        towns.update(range(k, end))
                        k, steps = end, steps + 1
                        continue
                if part is False:
                    break
                if part:
                    keep.add(k)
                    steps += 1
                k += 1
            taken |= keep
            # contiguous runs: a space token, a line break, a country or state splits them
            run: List[int] = []
            for i in sorted(keep) + [n + 1]:
                if run and (i != run[-1] + 1 or "\n" in doc[run[-1]].whitespace_):
                    # a run starts and ends on a word or number
                    while run and doc[run[-1]].text in _ADDRESS_PUNCT:
                        run.pop()
                    while run and doc[run[0]].text in _ADDRESS_PUNCT:
                        run.pop(0)
                    if run and not (run[0] >= anchor.start and run[-1] < anchor.end):
                        if all(doc[j].text.isdigit() and len(doc[j].text) >= 4 for j in run):
                            label = "ZIP"
                        elif (len(run) == 1 and doc[run[0]].is_alpha) or all(j in towns for j in run):
                            label = CITY  # a town or province on its own line ("lappeenranta", "sk", "grand rapids")
                        else:
                            label = "STREET"
                        out.append(Span(doc, run[0], run[-1] + 1, label=label))
                    run = []
                run.append(i)
        return out

    def _town_line(self, doc: Doc, k: int) -> int:
        """The end of the town line that starts at ``doc[k]`` inside an address block (0 if
        none): one to four words that are no clinical term, first on their line, with a
        country, state or postal code first on the next line."""
        n = len(doc)
        if k == 0 or not ("\n" in doc[k - 1].whitespace_ or (doc[k - 1].is_space and "\n" in doc[k - 1].text)
                          or (doc[k - 1].text == ">" and k > 1 and "\n" in doc[k - 2].text + doc[k - 2].whitespace_)):
            return 0
        end = k
        while end < n and not doc[end].is_space:
            end += 1
            if "\n" in doc[end - 1].whitespace_:
                break
        words = [t for t in doc[k:end] if not t.is_punct]
        if not 1 <= len(words) <= 4 or not all(t.is_alpha or t.lower_ in {"'s", "’s"} for t in words):
            return 0
        if any(self.clinical_term(t.lower_) or (t.is_stop and t.lower_ not in _TOWN_STOP_WORDS) for t in words):
            return 0
        j = end
        while j < n and (doc[j].is_space or doc[j].text in {">", ","}):
            j += 1
        if j >= n:
            return 0
        nxt = doc[j]
        if _ADDRESS_NUMBER.match(nxt.text) or STATE in self.tags(nxt.lower_):
            return end
        # the words of the next line ("united states 21959" -> "united states")
        line_words: List[str] = []
        while j < n and doc[j].is_alpha and len(line_words) < 4:
            line_words.append(doc[j].text)
            if "\n" in doc[j].whitespace_:
                break
            j += 1
        return end if line_words and is_not_phi_place(" ".join(line_words)) else 0

    def _street_line_above(self, doc: Doc, start: int, taken: Set[int]) -> Set[int]:
        """The tokens of the line above ``doc[start]`` when it reads as a street line: a
        number and a word that no dictionary has, every word an address word (at most
        six; empty otherwise)."""
        k = start - 1
        while k >= 0 and doc[k].is_space:
            k -= 1
        line: List[int] = []
        while k >= 0 and not doc[k].is_space and (not line or "\n" not in doc[k].whitespace_):
            line.append(k)
            k -= 1
        if not line or len(line) > 6 or any(i in taken for i in line):
            return set()
        words = [i for i in line if doc[i].text not in _ADDRESS_PUNCT]
        if not all(self._address_word(doc, i) for i in words):
            return set()
        if not any(_ADDRESS_NUMBER.match(doc[i].text) for i in words) or not any(doc[i].is_alpha for i in words):
            return set()
        return set(line)

    def __call__(self, doc: Doc) -> List[Span]:
        """All gazetteer spans of ``doc``, overlaps resolved (longest first)."""
        mixed_case = is_mixed_case(doc)
        titled, names = self.names(doc, mixed_case)
        lowers = [t.lower_ for t in doc]
        spans = (
            # the streets of a corner first: "the corner of dalbraut 99 and frederikke coves" names a street
            self.cross_streets(doc, lowers) + self.others(doc) + self.hospitals(doc, mixed_case, lowers) + titled
            + self.initialled_names(doc, mixed_case) + self.places(doc, mixed_case) + names
            + self.towns_before_states(doc, mixed_case)
            + self.places_by_form(doc, mixed_case) + self.landmarks(doc) + self.travel_places(doc)
            + self.kin_nicknames(doc, mixed_case) + self.patient_names(doc, mixed_case)
            + self.residence_towns(doc, lowers, mixed_case)
            + self.named_streets(doc, mixed_case)
            + self.fielded_orgs(doc) + self.employers(doc, mixed_case, lowers) + self.insurers(doc, lowers)
            + self.facilities_in_parentheses(doc, lowers) + self.signed_initials(doc) + self.residences(doc, lowers)
            + self.congregations(doc, lowers) + self.regions(doc, lowers) + self.practices(doc, lowers, mixed_case)
            + self.referred_orgs(doc, lowers, mixed_case) + self.tailed_orgs(doc, lowers, mixed_case)
        )
        # a hyphenated eponym names a score, sign or device, no one and no place ("HUNT-HESS 2",
        # "jackson-pratt drain")
        eponyms = _hyphenated_eponym_tokens(doc)
        if eponyms:
            spans = [sp for sp in spans if not (sp.label_ in _BUILT_IN and eponyms.intersection(range(sp.start, sp.end)))]
        # a kind of facility names no one ("from nursing home", "to rehab facility"), and a country
        # or state no name list has is no one's name ("born in Port-au-Prince, Haiti")
        spans = [
            sp for sp in spans
            if not (sp.label_ in (HOSPITAL, ORG) and all(t.lower_ in _GENERIC_FACILITY for t in sp if t.is_alpha))
            and not (sp.label_ == NAME and is_not_phi_place(sp.text) and not any(NAME in self.tags(t.lower_) for t in sp))
        ]
        spans = filter_spans(spans)
        if not mixed_case:
            taken = {i for sp in spans for i in range(sp.start, sp.end)}
            extra = [sp for sp in self.short_hospitals(doc, lowers) if not any(i in taken for i in range(sp.start, sp.end))]
            if extra:
                spans = sorted(spans + extra, key=lambda sp: sp.start)
        return self._branch_towns(doc, spans)

    def practices(self, doc: Doc, lowers: List[str], mixed_case: bool = False) -> List[Span]:
        """ORG spans: a practice named by its own words before its specialty ("BLUEGRASS
        NEUROLOGY", "coastal dermatology", "Cape Fear Valley Hematology & Oncology", "little
        acorns pediatrics"), where notes name practices: first on a line (a letterhead, "derm
        f/u 6/30 - coastal dermatology southport" after a header's dash), after a signature's
        credential and comma ("K. ZIMMER, CMA, NORTHCOAST GASTROENTEROLOGY") or after a
        referral's cue ("referred to", "from", "at"). One word at least is its own: no
        clinical term, department, specialty or kind of practice ("pediatric pulmonology",
        "outside neurology", "Dermatology Clinic Note" name none)."""
        out: List[Span] = []
        n = len(doc)
        k = 0
        while k < n:
            if not _PRACTICE_WORD.search(lowers[k]) or not doc[k].is_alpha or lowers[k] in _NOT_PRACTICES:
                k += 1
                continue
            end = k + 1
            while end + 1 < n and lowers[end] in {"&", "and"} and _PRACTICE_WORD.search(lowers[end + 1]):
                end += 2  # "hematology & oncology"
            start = k
            while start > 0 and k - start < 4 and "\n" not in doc[start - 1].whitespace_:
                w = doc[start - 1]
                if w.lower_ in HOSPITAL_WORDS or w.lower_ in _CLINIC_KIND_WORDS:
                    break  # a hospital's department ("mayo clinic hematology"): the hospital rules'
                if w.is_alpha and not w.is_stop and w.lower_ not in CALENDAR_WORDS and not is_role(w.lower_) \
                        and w.lower_ not in CREDENTIALS and w.lower_ not in TITLES:
                    start -= 1
                elif w.text in {"&", "'s", "’s"} and start - 1 > 0 and doc[start - 2].is_alpha:
                    start -= 1
                else:
                    break
            own = [i for i in range(start, k) if doc[i].is_alpha and len(doc[i].text) > 1 and self._own_practice_word(lowers[i])]
            # in mixed-case text a capitalised name needs no context ("pediatrician: plans Prairie
            # Kids Pediatrics"): its capitalised words from the first own one
            capitalised = mixed_case and doc[k].is_title and own \
                and all(doc[i].is_title or doc[i].is_upper or not doc[i].is_alpha for i in range(max(own), k))
            if capitalised:
                first = max(own)
                while first > min(own) and (doc[first - 1].is_title or doc[first - 1].is_upper or not doc[first - 1].is_alpha):
                    first -= 1
                first = next(i for i in own if i >= first)
                # (with a letterhead's or referral's context: "Heart Failure Cardiology" is a service)
                if self._practice_context(doc, first, end):
                    out.append(Span(doc, first, end, label=ORG))
            elif own and self._named_enough(doc, own, mixed_case):
                start = min(own)  # the name starts with its own words ("gi f/u - valley rheumatology")
                if self._practice_context(doc, start, end):
                    out.append(Span(doc, start, end, label=ORG))
            k = end
        return out

    def tailed_orgs(self, doc: Doc, lowers: List[str], mixed_case: bool = False) -> List[Span]:
        """ORG spans: one to three words of its own before an ending only organisations have
        ("crow river school district", "HEARTLAND HARVEST FOOD BANK", "tri-town community
        action", "macon county school district"), in any case and with no cue; no kind of
        service, verb or function word among the words ("the local food bank", "called police
        department" name none)."""
        out: List[Span] = []
        n = len(doc)
        for i in range(1, n - 1):
            if (lowers[i], lowers[i + 1]) not in _ORG_ENDINGS:
                continue
            start = i
            while start > 0 and i - start < 3 and "\n" not in doc[start - 1].whitespace_:
                w = doc[start - 1]
                low = w.lower_
                if low == "-" and not w.whitespace_ and start > 1 and not doc[start - 2].whitespace_ and doc[start - 2].is_alpha:
                    start -= 1  # "tri-town": the tokenizer splits a hyphened word
                    continue
                if not _org_word_shape(w) or self.clinical_term(low) or low in _LEGAL_EVENT_WORDS \
                        or low.endswith(("ed", "ing")) and get_string_id(low) in dictionary_words():
                    break
                start -= 1
            own = [k for k in range(start, i) if self._own_org_word(lowers[k])]
            # (a verb before the name ends it: "contact social services", "uses food bank")
            own = [k for k in own if not any(lowers[m] in _NOTE_VERBS for m in range(k, i))]
            if own and self._named_enough(doc, own, mixed_case):
                out.append(Span(doc, min(own), i + 2, label=ORG))
        return out

    def org_tail(self, doc: Doc, end: int, mixed_case: bool, taken: set) -> int:
        """Where an organisation's name ends that a detector took up to ``end``: over a word
        of its kind after it (``ORG_TAIL_HEADS``: "holmes county" + "electric", "pine street" +
        "inn"), or two (a hospital's or organisation's two-word ending, ``_ORG_TAIL_PAIRS``:
        "hardin co" + "home care", "back bay" + "psychiatric group"), with "state", "county" or
        "co" before them ("pulaski" + "state prison"), on its line, where the phrase ends
        (punctuation, a line's end, a function word or another detector's span after it: not
        "salem health care proxy", "boston clinic visit"); capitalised in mixed-case text; no
        "and" or "&" crossed ("lives in lowell and home care is involved"). ``end`` when there
        is none, and after a hospital's own word ("mayo clinic hematology": a department)."""
        n = len(doc)
        if end > 0 and doc[end - 1].lower_ in HOSPITAL_WORDS:
            return end
        lowers = [t.lower_ for t in doc[end : min(end + 4, n)]]
        starts = [0, 1] if lowers[:1] and lowers[0] in _ORG_TAIL_INNER else [0]
        for s0 in starts:
            for size in (2, 1):
                words = tuple(lowers[s0 : s0 + size])
                if len(words) < size:
                    continue
                if size == 2 and not (words in _ORG_TAIL_PAIRS or words in _ORG_ENDINGS or words in HOSPITAL_TAILS):
                    continue
                if size == 1 and words[0] not in ORG_TAIL_HEADS:
                    continue
                stop = end + s0 + size
                toks = doc[end:stop]
                if any(i in taken for i in range(end, stop)) or any("\n" in t.whitespace_ for t in doc[end - 1 : stop - 1]):
                    continue
                if mixed_case and not all(t.is_title or t.is_upper for t in toks if t.is_alpha):
                    continue
                if stop >= n or "\n" in doc[stop - 1].whitespace_ or not doc[stop].is_alpha \
                        or doc[stop].is_stop and doc[stop].lower_ not in _CONTENT_STOP_WORDS or stop in taken:
                    return stop
        return end

    def org_lead(self, doc: Doc, start: int, mixed_case: bool, taken: set) -> int:
        """Where an organisation's name starts that a detector took from ``start``: one word
        before it of its own (a word firms are named with, ``_ORG_NAME_WORDS``, a listed name
        or place or a word no dictionary has; no function, clinical, calendar, role or service word, no
        verb's form, no kind of organisation or field's word: "arraignment", "court", "employer",
        no word a name never starts with: "usual", "local", "new") right after a
        line's start, punctuation or a cue ("rx sent to blue" + "mountain pharmacy", "snf
        beds: maple" + "ridge nursing & rehab", "md, desert" + "sky family medicine");
        capitalised in mixed-case text. ``start`` when there is none."""
        j = start - 1
        if j < 0 or j in taken or "\n" in doc[j].whitespace_:
            return start
        w = doc[j]
        low = w.lower_
        if not _org_word_shape(w) or len(low) < 3 or low in NOT_HOSPITAL_NAME or low in _NOT_ORG_LEADS \
                or low in _ORG_KIND_WORDS or low in _ORG_FIELDS or low in _LEGAL_EVENT_WORDS or low in LANDMARK_WORDS \
                or low in _FACILITY_WORDS or low in _REFERRAL_CUES or low in _WORKPLACE_WORDS \
                or low in _NOTE_VERBS or low in _SIZE_ADJECTIVES \
                or low in CALENDAR_WORDS or low in TITLES or low in CREDENTIALS or is_role(low) or low in PLURAL_ROLES \
                or self.clinical_term(low) or _PRACTICE_WORD.match(low) or low in TRAVEL_CUES or low in _SCHOOL_CUES \
                or low.endswith(("ed", "ing", "ly")) and get_string_id(low) in dictionary_words():
            return start
        if mixed_case and not (w.is_title or w.is_upper):
            return start
        # (a word of a firm's name, a listed name or place, a word no dictionary has: not
        # "manufacturer st. jude", "consider spaulding rehab", "urine histoplasma")
        if not (low in _ORG_NAME_WORDS or self.tags(low) & _NAME_OR_PLACE_TAGS or not self.is_common(low)):
            return start
        if j > 0 and "\n" not in doc[j - 1].whitespace_:
            before = doc[j - 1]
            if not (before.is_punct and before.text not in {"'", '"'} or before.lower_ in _ORG_LEAD_CUES):
                return start
        return j

    def referred_orgs(self, doc: Doc, lowers: List[str], mixed_case: bool = False) -> List[Span]:
        """ORG spans: an organisation of ordinary words after a word that refers, enrols,
        insures or carries someone, up to a word of its kind ("REFER TO NEW LIFE RECOVERY IOP",
        "WORKERS COMP CARRIER GREAT PLAINS INDEMNITY", "will connect w/ foodbank of
        southeastern va", "secondary silver shield supplemental", "payee fairhaven rep payee
        services"): two to five words, "of", "the", "&" and "and" inside, one word at least its
        own (no clinical term, department or kind of service: "referred to physical therapy
        services", "via home health agency", "through social work services" name none)."""
        out: List[Span] = []
        n = len(doc)
        for i in range(n):
            low = lowers[i]
            if not (low in _REFERRAL_CUES or i > 0 and (lowers[i - 1], low) in _REFERRAL_BIGRAMS
                    or low in _WORKPLACE_CUES and self._work_before(doc, lowers, i)):
                continue
            start = i + 1
            while start < n and lowers[start] in {":", "-", "the", "in", "to", "with", "w/", "at"}:
                start += 1
            end = start
            while end < n and end - start < 6 and "\n" not in doc[end - 1].whitespace_:
                w = lowers[end]
                if w in _INNER_ORG_WORDS and end > start:
                    end += 1
                    continue
                if not _org_word_shape(doc[end]) \
                        or self.clinical_term(w) or w in CALENDAR_WORDS or is_role(w) or w in CREDENTIALS:
                    break
                if w in _REFERRAL_TAILS and end > start:
                    while end + 1 < n and lowers[end + 1] in _REFERRAL_TAILS and "\n" not in doc[end].whitespace_:
                        end += 1
                    # (the words before the last one; "of", "and" are no words of its own)
                    own = [k for k in range(start, end) if lowers[k] not in _INNER_ORG_WORDS and self._own_org_word(lowers[k])]
                    if own and lowers[end - 1] not in _INNER_ORG_WORDS and self._named_enough(doc, own, mixed_case):
                        out.append(Span(doc, start, end + 1, label=ORG))
                    break
                end += 1
        return out

    @staticmethod
    def _work_before(doc: Doc, lowers: List[str], i: int) -> bool:
        """A trade or a word of work in the five words before ``doc[i]``, in its sentence
        ("days on the dock at", "losing job at", "apprentice electrician w/", "laid off from"),
        right before it for "for"."""
        # ("for" right after it only: "driver for x"; not "nurse ms. pruitt asked for updated action plan")
        for k in range(i - 1, max(i - (2 if lowers[i] == "for" else 6), -1), -1):
            if doc[k].text in {".", ";", "\n"} or "\n" in doc[k].whitespace_:
                return False
            if lowers[k] in _WORK_BEFORE_EMPLOYER or lowers[k] in _WORK_TIMES \
                    or lowers[k] in trade_words() and lowers[k] not in PATIENT_WORDS:  # ("boy with multiple ...")
                return True
        return False

    def _own_practice_word(self, low: str) -> bool:
        """A word that may be a practice's or organisation's own: no clinical, department,
        specialty, kind, credential, calendar or role word, no verb a note writes ("appreciate",
        "notify", "consulted", "uses") and no adjective of a finding ("final", "frozen")."""
        return not (self.clinical_term(low) or low in DEPARTMENT_WORDS or _SPECIALTY.search(low)
                    or low in _PRACTICE_MODIFIERS or low in _CLINIC_KIND_WORDS or low in HOSPITAL_WORDS
                    or low in CREDENTIALS or low in CALENDAR_WORDS or is_role(low) or low in _VERB_SHORTHAND
                    or low in _NOTE_VERBS or low.endswith(("ed", "ing", "ly")) and get_string_id(low) in dictionary_words())

    def _own_org_word(self, low: str) -> bool:
        """A practice's own word that is no facility's or service's kind either ("tidewater";
        not "home", "weight", "transport")."""
        return self._own_practice_word(low) and low not in _GENERIC_FACILITY and low not in _SERVICE_KINDS

    def _named_enough(self, doc: Doc, own: List[int], mixed_case: bool) -> bool:
        """Words of an organisation's own (``own``: token indices) that make a name: one that
        looks like a name's (``_name_like``), or, in single-case text, two ordinary ones
        ("great plains indemnity", "granite state masonry"; "weight loss program" is a kind,
        its words ``_SERVICE_KINDS``)."""
        return any(self._name_like(doc, k, mixed_case) for k in own) or not mixed_case and len(own) >= 2

    def _name_like(self, doc: Doc, k: int, mixed_case: bool) -> bool:
        """``doc[k]`` may be a word of a name by its form: capitalised in mixed-case text; in
        single-case text a word no dictionary has or one a list of names or places has."""
        t = doc[k]
        if mixed_case:  # (a capital that only starts the sentence tells nothing: "Rape crisis center")
            return (t.is_title or t.is_upper) and not _starts_sentence(doc, k)
        return self._unknown_word(doc, k) or bool(self.tags(t.lower_) & _NAME_OR_PLACE_TAGS)

    @staticmethod
    def _practice_context(doc: Doc, start: int, end: int) -> bool:
        """``doc[start]`` starts a line or a header's part after a dash, the name then ending
        its line or part (a letterhead, not a plan's bullet: "- Page cardiology" is one line
        too), or comes after a credential and its comma, or after a referral's cue."""
        # (not a note's title: "Perinatal Psychiatry Intake")
        line_end = end >= len(doc) or "\n" in doc[end - 1].whitespace_ or doc[end].text in {",", "(", "-", "—", "–", "\n"} \
            or "\n" in doc[end].text
        if start == 0 or "\n" in doc[start - 1].whitespace_ or "\n" in doc[start - 1].text:
            return line_end
        j = start - 1
        if doc[j].text in {"-", "—", "–", "--", "("}:
            return line_end or doc[j].text == "("  # "Dermatology Clinic Note — Sunbelt", "(urgent care"
        if doc[j].text == "," and j > 0 and doc[j - 1].lower_.rstrip(".") in CREDENTIALS:
            return True
        if doc[j].text == ":" and j > 0 and doc[j - 1].lower_ in _PRACTICE_FIELDS:
            return True  # "PCP: CONCORD PEDIATRICS"
        low = doc[j].lower_
        return low in _PRACTICE_CUES or (j > 0 and (doc[j - 1].lower_, low) in _PRACTICE_BIGRAMS)

    def congregations(self, doc: Doc, lowers: List[str]) -> List[Span]:
        """ORG spans: a congregation named by a denomination after one to three words on its
        line, one of them an ordinal, a listed name or place or a word no dictionary has ("first
        baptist", "GREATER MT ZION BAPTIST", "grace lutheran church"), with "church" after it if
        written; not a denomination alone or of a kind ("pt is baptist", "a southern baptist",
        "raised methodist")."""
        out: List[Span] = []
        n = len(doc)
        for i in range(1, n):
            if lowers[i] not in _DENOMINATIONS:
                continue
            j = i
            while j > 0 and i - j < 3 and "\n" not in doc[j - 1].whitespace_ and doc[j - 1].is_alpha \
                    and (not doc[j - 1].is_stop or lowers[j - 1] in _ORDINAL_NAMES) and lowers[j - 1] not in _DENOMINATION_KINDS \
                    and not self.clinical_term(lowers[j - 1]) and lowers[j - 1] not in ROLES:
                j -= 1
            def named(k: int) -> bool:
                return lowers[k] in _ORDINAL_NAMES or bool(self.tags(lowers[k])) or not self.is_common(lowers[k])

            # an ordinary word first is the sentence's, no name's ("attends grace lutheran")
            while j < i and not named(j) and lowers[j] not in _CONGREGATION_WORDS:
                j += 1
            if j == i or not any(named(k) for k in range(j, i)):
                continue
            end = i + 1 + (i + 1 < n and lowers[i + 1] in {"church", "chapel"})
            out.append(Span(doc, j, end, label=ORG))
        return out

    def _branch_towns(self, doc: Doc, spans: List[Span]) -> List[Span]:
        """A listed town written right after a hospital or organisation on its line
        names the branch ("OUTPT HD AT DAVITA REVERE MWF", "walgreens malden"): a CITY
        span, in any case, unless a clinical term or stop word."""
        taken = {i for sp in spans for i in range(sp.start, sp.end)}
        extra: List[Span] = []
        for sp in spans:
            k = sp.end
            if sp.label_ not in (HOSPITAL, ORG) or k >= len(doc) or k in taken or "\n" in doc[k - 1].whitespace_ \
                    or not doc[k].is_alpha or doc[k].is_stop or self.clinical_term(doc[k].lower_):
                continue
            if CITY in self.tags(doc[k].lower_) and not (k + 1 < len(doc) and doc[k + 1].is_alpha and CITY in self.tags(doc[k + 1].lower_)):
                extra.append(Span(doc, k, k + 1, label=CITY))
        return sorted(spans + extra, key=lambda sp: sp.start) if extra else spans

    def signed_initials(self, doc: Doc) -> List[Span]:
        """NAME spans: a writer's initials first on a line and before a credential
        ("JS RN", "- jm, rn"), alone on the note's last line ("\ntk"), or after a dash last in
        the note ("... - jm"): two or three
        letters that no list of ordinary or clinical words has; and initials joined to a credential by a slash, first or last
        on a line ("jl/rn", "MK/RN."), ordinary words or not ("aw/rn", "ss/rn"), no
        clinical term ("pt/ot", "sw/rn")."""
        out: List[Span] = self._dictation_initials(doc)
        n = len(doc)
        for i, t in enumerate(doc):
            # a sign-off glued to its dash ("\n-RW", "\n-bill"), last in the note
            if t.text[:1] == "-" and t.text[1:].isalpha() and (i == 0 or "\n" in doc[i - 1].whitespace_ or "\n" in doc[i - 1].text) \
                    and all(x.is_space or x.is_punct for x in doc[i + 1:]):
                low = t.lower_[1:]
                if 2 <= len(low) <= 3 and not self.is_common(low) and not self.clinical_term(low) \
                        or "key:first_names" in self.tags(low) and not self.clinical_term(low):
                    out.append(Span(doc, i, i + 1, label=NAME))
                continue
            if not (t.is_alpha and 2 <= len(t.text) <= 3) or t.lower_ in CREDENTIALS:
                continue
            line_start = i == 0 or "\n" in doc[i - 1].whitespace_ or "\n" in doc[i - 1].text \
                or doc[i - 1].text in {"-", "--", "/"}
            # (or first in the note's last sentence, the credential last: "... aware. lm rn")
            last = i > 0 and doc[i - 1].text in {".", ";"} and _last_word(doc, i + 1 + (i + 1 < n and doc[i + 1].text == ","))
            if (line_start or last) and _has_credential_after(doc, i + 1) and self._unknown_word(doc, i):
                out.append(Span(doc, i, i + 1, label=NAME))
                continue
            # the note's last line, the initials alone after a sentence's end ("... pt/sw in am.\ntk",
            # "agree.\nLH"): no ordinary, clinical or unit word ("\nok", "\nDNR", "\nkg"), no
            # field's value ("Activity:\nBR", "Code:\nFC", "to follow\nFU")
            if line_start and i > 0 and _ends_sentence(doc, i - 1) and _last_word(doc, i) and self._unknown_word(doc, i) \
                    and t.lower_ not in _UNIT_WORDS_ALONE:
                out.append(Span(doc, i, i + 1, label=NAME))
                continue
            # a note's sign-off: a dash and the initials or a first name, last in the note ("... re:
            # dispo. - jm", "- deb")
            if i > 0 and (doc[i - 1].text in {"-", "--", "—", "–"} or _thanks_before(doc, i)) and (
                self._unknown_word(doc, i) or "key:first_names" in self.tags(t.lower_) and not self.clinical_term(t.lower_)
            ) \
                    and all(x.is_space or x.is_punct and x.text != "-" for x in doc[i + 1:]):
                out.append(Span(doc, i, i + 1, label=NAME))
                continue
            if i + 2 < n and doc[i + 1].text == "/" and not doc[i].whitespace_ and not doc[i + 1].whitespace_:
                credential = doc[i + 2].lower_
                if credential not in CREDENTIALS or credential in WEAK_CREDENTIALS or self.clinical_term(t.lower_):
                    continue
                k = i + 3
                while k < n and doc[k].text in {".", ","}:
                    k += 1
                line_end = k >= n or doc[k].is_space or "\n" in doc[k - 1].whitespace_
                if line_start or line_end:
                    out.append(Span(doc, i, i + 1, label=NAME))
        return out

    def _dictation_initials(self, doc: Doc) -> List[Span]:
        """NAME spans: a dictated report's initials of who dictated and who typed it, alone on
        their line or before its "D:" field ("RP/JLW", "sv/dmr", "CB/DT  D: 03/05/19"): two or
        three groups of two to four letters joined by slashes, not all of them clinical terms,
        no credential ("PA/LAT", "RN/MD" stay)."""
        out: List[Span] = []
        n = len(doc)
        for i in range(n):
            if not (i == 0 or "\n" in doc[i - 1].whitespace_ or "\n" in doc[i - 1].text):
                continue
            parts = [i]
            k = i + 1
            while k + 1 < n and doc[k].text == "/" and not doc[k - 1].whitespace_ and not doc[k].whitespace_ and len(parts) < 3:
                parts.append(k + 1)
                k += 2
            if len(parts) < 2 or not all(doc[p].is_alpha and 2 <= len(doc[p].text) <= 4 for p in parts):
                continue
            line_end = k >= n or "\n" in doc[k - 1].whitespace_ or doc[k].is_space and "\n" in doc[k].text
            field = k + 1 < n and doc[k].lower_ in {"d", "t"} and doc[k + 1].text == ":" or (
                k + 2 < n and doc[k].is_space and doc[k + 1].lower_ in {"d", "t"} and doc[k + 2].text == ":"
            )
            if not (line_end or field):
                continue
            if any(doc[p].lower_ in CREDENTIALS for p in parts) or all(self.clinical_term(doc[p].lower_) for p in parts) \
                    or all((doc[p].is_stop or get_string_id(doc[p].lower_) in dictionary_words())
                           and set(doc[p].lower_) & set("aeiouy") for p in parts):
                continue  # (initials before a credential are the rule below's: "jl/rn"; "Yes/No" are words, "AL/TS" initials)
            out.extend(Span(doc, p, p + 1, label=NAME) for p in parts)
        return out

    def short_hospitals(self, doc: Doc, lowers: List[str]) -> List[Span]:
        """HOSPITAL spans of single-case notes, where capitals tell nothing: a word
        that no list of ordinary or clinical words, names or places has after "at",
        "@" or "from" ("PCP DR. ABRAMS @ BMC AWARE", "arrived from nebh"); the
        other rules' spans win over these."""
        out: List[Span] = []
        for i in range(len(doc) - 1):
            if lowers[i] not in _SINGLE_CASE_UNIGRAMS:
                continue
            k = i + 1
            t = doc[k]
            if not self._unknown_word(doc, k) or self.tags(t.lower_) - {TOWN, "key:towns"} or t.lower_ in _CONTACT_CUE_WORDS \
                    or t.lower_ in {"ext", "extension"} \
                    or t.lower_.rstrip(".") in _STATE_CODES and t.lower_ not in HOSPITAL_NAME_WORDS:  # ("arrives from ny"; "at mt auburn")
                continue  # ("AT EXT 455": an extension, no hospital)
            out.append(Span(doc, k, k + 1, label=HOSPITAL))
        return out


_BUILT_IN = frozenset({NAME, TOWN, *PLACE_LABELS})
# no person is older (an AGE entity with a larger number is a unit or postal code)
_MAX_AGE = 125
# a month/day or ratio written with a slash
_MONTH_DAY = re.compile(r"^\d{1,2}/\d{1,2}$")
_DECIMAL = re.compile(r"^\d+\.\d+$")
# a time of the day in four digits, no year ("0400", "1000", "2215")
_CLOCK_TIME = re.compile(r"^([01]\d|2[0-3])[0-5]\d$")
# what a date has that a bare number has not: a month/day ("3/6", "3-24-17", "04.05.2019"), a year
# ("2009", "'09", "74'"), an ordinal day ("the 14th"), a compact date ("20190314")
_DECIMAL_SLASH = re.compile(r"\d\.\d+\s*/\s*\d")
_FOUR_DIGIT_RANGE = re.compile(r"^(\d{4})\s*[-–]\s*(\d{4})$")


def shift_hours(first: str, second: str) -> bool:
    """Whether two four-digit numbers are the clock times of a shift or session that no
    years can be ("0700-1900", "1900-0700", "2200-0200", "1500-2300"): one with a leading
    zero, a range over midnight or one ending after 2030 ("2000-2010" may be years)."""
    if not (_CLOCK_TIME.match(first) and _CLOCK_TIME.match(second)):
        return False
    return "0" in (first[0], second[0]) or int(second) < int(first) or max(int(first), int(second)) > 2030


def _clock_range(text: str) -> bool:
    """A shift's or session's hours written as one entity ("2200-0200", "1600 - 1200")."""
    m = _FOUR_DIGIT_RANGE.match(text)
    return m is not None and shift_hours(m.group(1), m.group(2))

_DATE_SHAPE = re.compile(
    r"\d{1,2}\s*[/\-.]\s*\d{1,2}|(?<!\d)(1[89]|20)\d\d(?!\d)|['’`‘]\s*\d\d(?!\d)|(?<!\d)\d\d\s*['’]|\d(st|nd|rd|th)\b"
    r"|(?<!\d)(19|20)\d{6}(?!\d)",
    re.I,
)
# three, three and four digits: a phone number, no date
_PHONE_SHAPE = re.compile(r"^\(?\d{3}\)?[\s.\-]*\d{3}[\s.\-]*\d{4}$")
# what a number sizes ("24 french", "18 gauge"): no street after a house number
_SIZE_WORDS = frozenset("french fr gauge g ga".split())
# units of measurement: an entity with one is a measurement, no date
# kinds of dwelling, which alone name no place or organisation
_DWELLING_WORDS = frozenset("house home apartment apt condo building room basement garage yard porch shed barn trailer".split())
# vital signs and labs a value follows ("SBP 90-110", "HR 90'S"), no age's cue (an "HPI: 92 M" is one);
# not _VALUE_WORDS (the range check's), which holds "pt", a word an age follows ("pt 92 yo")
_VITAL_WORDS = frozenset("hr sbp dbp bp map rr sat sats spo2 o2 fio2 cvp pap temp t wt glucose fs fsbs bs k na cl bun cr "
                         "hct hgb plt wbc inr ptt gcs uop pulse".split())
_MEASURE_UNITS = frozenset("cm mm mg mcg ml cc kg g gm mmhg bpm meq mmol units u iu % l/min".split())
_NUMBER_AND_UNIT = re.compile(r"^(\d+(?:\.\d+)?)([a-zA-Z%/]+)$")
# the labels of address pieces that address_runs completes
ADDRESS_ANCHORS = frozenset({"STREET", "ZIP", "STREET_ADDRESS", "ZIP_CODE", "ADDRESS"})
# words inside an address besides its names and numbers ("apt. 864", "ul. słowicza", "p.o. box 12")
# the words before a street's name in other languages' addresses: a name after one names the
# street ("via goffredo mameli", "rue victor hugo")
STREET_LEADS = (frozenset(STREET_PREFIXES) - {"avenue", "ul"}) | {"via"}
# street words that name a street after capitalised words without a house number ("Marina
# Fort Street"; not "Way", "Court", "Circle": "Patient Court", "Inner Circle")
_STREET_CUES = frozenset("on off at near to from onto along".split())
# a hospital's unit after its abbreviation ("bmc ed", "NWH ICU"), and the words before such a pair
_UNIT_AFTER_HOSPITAL = frozenset("ed er ew icu micu sicu ccu nicu picu clinic lab imaging radiology rehab".split())
_HOSPITAL_PLACE_CUES = frozenset("in at to from via @".split())
# directions, which "of" a place follows without naming a facility ("moved to north of boston")
_TOWN_SERVICES = frozenset("pd fd police sheriff sheriff's fire ems".split())
# a town's public office of more words: its first words, then the word that ends it ("albuquerque
# police dept", "cleveland municipal court", "denver human services", "boston public schools")
_TOWN_SERVICE_HEADS = frozenset("police fire sheriff sheriff's municipal district county city public human social "
                                "family housing transit probate juvenile circuit superior detention correctional adult "
                                "community internal".split())
# (and a county's jail, probation and community centres: "catawba county detention center",
# "luzerne county adult probation")
_TOWN_SERVICE_TAILS = frozenset("dept department court courthouse services service jail schools district authority "
                                "division rescue center centre probation corrections".split()) | frozenset(
    # a town's practice of a specialty ("doylestown pediatrics", "west hollywood dermatology",
    # "quincy family medicine")
    "pediatrics paediatrics dermatology optometry cardiology orthopedics orthopaedics urology oncology neurology "
    "gastroenterology podiatry dentistry ophthalmology psychiatry obgyn ob/gyn medicine practice".split()
)


def _town_service_end(doc: Doc, k: int) -> int:
    """The end of a town's police, fire, court or public office after the town that ends
    at ``doc[k]`` ("phoenix fire gave narcan", "albuquerque police dept", "cleveland
    municipal court"), else ``k``: up to three words on the line, the last a service."""
    end = k
    n = len(doc)
    while end < n and end - k < 3 and "\n" not in doc[end - 1].whitespace_:
        low = doc[end].lower_.rstrip(".")
        if low in _TOWN_SERVICE_TAILS or low in _TOWN_SERVICES or low in _TOWN_SERVICE_HEADS:
            end += 1
            continue
        break
    while end > k and doc[end - 1].lower_.rstrip(".") not in _TOWN_SERVICE_TAILS | _TOWN_SERVICES:
        end -= 1
    return end


_COMPASS_WORDS = frozenset("north south east west northern southern eastern western northeast northwest southeast southwest outside part rest".split())
# the sides of the compass alone ("south shore")
_SIDES = _COMPASS_WORDS - {"outside", "part", "rest"}
# a numbered road ("driving on Route 93", "RTE 9", "off hwy 1")
_ROAD_WORDS = frozenset("route rte rte. highway hwy hwy. interstate".split())
_ROAD_NUMBER = re.compile(r"^\d{1,3}[a-z]?$", re.I)
# an interstate written as one token ("I-93", "i-95")
_INTERSTATE = re.compile(r"^i-\d{1,3}$", re.I)
# ... those that are no other word in single-case text ("back on sex drive meds")
_PLAIN_STREET_WORDS = frozenset("street avenue ave road rd boulevard blvd lane ln highway hwy pike turnpike parkway pkwy".split())
_NAMED_STREET_WORDS = frozenset("street avenue ave road rd boulevard blvd lane ln drive parkway pkwy highway terrace hwy pike turnpike".split())
_UNIT_WORDS = frozenset("apt apartment suite ste unit bldg fl floor".split())
_ADDRESS_WORDS = frozenset("box p.o po pob ul u str st no nr".split()) | _UNIT_WORDS | STREET_LEADS
# the words that introduce a contact line after an address ("tel", "fax", "pgr")
_CONTACT_CUE_WORDS = frozenset("tel tele telephone phone ph fax cell mobile pager pgr beeper email e-mail web www ip url portal".split())
# name particles of streets and towns, inside an address only between two of its words
_ADDRESS_PARTICLES = frozenset("de do da dos das del della di du la le les al el van von der den ter".split())
# the stop words a town's name may hold ("smith's green", "den haag")
_TOWN_STOP_WORDS = _ADDRESS_PARTICLES | {"'s", "’s"}
# house numbers, postal codes and unit numbers: "6750", "12b", "b0j", "2h0", "d-12345"
_ADDRESS_NUMBER = re.compile(r"(?i)^(\d{1,6}[a-z]?|[a-z]\d[a-z]|\d[a-z]\d|[a-z]{1,2}-\d{3,6})$")
# punctuation an address holds between its parts
_ADDRESS_PUNCT = frozenset({",", "-", "/", ".", ">"})
# what a note writes after the name of someone it told ("sandy aware", "grace notified")
_TOLD_WORDS = frozenset("aware notified updated informed paged".split())
# what visitors and callers do, after a first name that starts a sentence ("bill called at 2100")
_VISITOR_VERBS = frozenset("""
called calls phoned asking asked asks arrives arrived arriving requests requested wants wanted visited visiting
spoke states stated says said agrees agreed expressed expresses tearful upset
""".split())
# words notes write right after a name that are never part of one (besides "-ed"/"-ing" forms)
# and the irregular past tenses and reporting verbs that follow a name ("JENNIFER BROWN BROUGHT
# CLOTHES", "WIFE MARY TOOK PT HOME", "son says"); a listed name ("Rose", "Will") is never one
_AFTER_NAME_WORDS = frozenset(
    """seen done given taken brought sent made told known found today tonight yesterday tomorrow
    overnight aware here there present took came went left gave saw spoke said bought felt got ate
    drank slept kept held ran sat stood wrote heard met paid spent thought understood woke drove flew
    forgot knew became began says states reports wants asks calls visits week weekend month night
    morning afternoon evening note notes pager beeper office ok okay""".split()
)
# words that name a kind of organisation or place: an entity with one is no person's name,
# whatever listed names are in it ("Jackson Memorial", "John Muir Medical Center", "Lincoln Park")
_KIND_WORDS = (
    HOSPITAL_WORDS | COMPANY_WORDS | LANDMARK_WORDS | DISTINCT_HOSPITAL_WORDS
    | frozenset(w for tail in HOSPITAL_TAILS for w in tail)
)
# suture materials and cutting instruments: an entity with one is a surgical detail ("#0 vicryl
# suture" as a street, "3-0 vicryl" as a date), and suture sizes ("2-0", "4-0")
_SURGICAL_WORDS = frozenset("""
vicryl chromic monocryl prolene nylon silk pds ethilon dexon maxon ethibond mersilene biosyn polysorb
suture sutures stitch blade scalpel french gauge catheter cannula
""".split())
# words that follow a word of comparison or a modal but never a person who is the subject
# ("LESS THAN 5 ML", "WILL BE", "MAY NEED"; "MARK IS", "BILL HAD" stay names)
_NO_SUBJECT_AFTER = frozenset("than be been as of the a an not need needs".split())
_CLOCK_WORDS = frozenset("am pm a.m p.m noon midnight o'clock oclock hrs hours hr h".split())
_TIME_SPAN_WORDS = frozenset("year years yr yrs old month months mo mos week weeks wk wks day days ago y/o yo".split())
_NUMBER_RANGE = re.compile(r"^(\d{1,3})\s*[-–]\s*(\d{1,3})$")
# vital signs and laboratory values a note gives as a range ("wbc 12-14", "hr 10-12")
_VALUE_WORDS = frozenset("""
hr rr bp sbp dbp map cvp ci wbc hct hgb hb plt plts k na cl co2 hco3 bun cr creat glucose fsbs bs temp t tmax
uop u/o sats sat spo2 o2 peep fio2 tv rsbi lactate inr ptt pt trop mg ca phos ph pco2 po2 gcs rass pain cpot
""".split())
_SHORT_RANGE = re.compile(r"^\d{1,2}\s*[-/]\s*\d{1,2}$")
_DIMENSIONS = re.compile(r"(?i)\b[234]\s*-?\s*d\b")
_SUTURE_SIZE = re.compile(r"(?<![\d/.])\d{1,2}\s*-\s*0(?![\d/.])")
# the categories whose entities plausible_entity checks by form
_FORM_CHECKED = frozenset({"NAME", "LOCATION", "ORGANIZATION", "DATE"})
_ENTITY_NOISE = re.compile(r"[?!=<>{}|\[\]]")
_GRAVIDA_PARA = re.compile(r"(?i)^g\d{1,2}\s*p\d{1,4}$")
# the kinds of nurse and clinician a note writes before a credential ("charge rn", "float RN")
_NURSE_KINDS = frozenset("charge primary float resource travel traveler agency covering night day evening oncoming bedside".split())
_TIMES = re.compile(r"(?i)^x\d{1,3}$")
_LETTER_DIGIT = re.compile(r"^(?=.*[A-Za-z])(?=.*\d)[A-Za-z0-9._-]+$")
# the forms of a date's token with letters and digits: an ordinal, a decade, a time, a
# year with its apostrophe, or a month's name in it ("2nd", "1990s", "3pm", "0800h", "12-jan-2020")
_DATE_WORD_FORM = re.compile(
    r"(?i)^(\d+(st|nd|rd|th|s|am|pm|a|p|h|hr|hrs)\.?|.*(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec).*)$"
)


def _bare_amount(span: Span, common: Callable[[str], bool]) -> bool:
    """A NER date of words and one bare number of three digits at most, with no month,
    weekday, duration or time word, no ordinal and no written year ("approximately 50",
    "about 30"; not "in '99", "3 days ago", "at 1400", "2/3", "33 93 31", "41" alone)."""
    numbers = re.findall(r"\d+", span.text)
    if not numbers or any(len(n) > 3 for n in numbers) or re.search(r"\d\s*[/.\-:]\s*\d", span.text):
        return False
    if len(numbers) > 1 or not any(t.is_alpha for t in span):
        # "33 93 31", "54 Soo 36": digit groups (a phone number, an address); a number alone,
        # which the NER may take from an address ("41 Via dalla Staziun"): kept as it called them
        return False
    if span.start > 0 and span.doc[span.start - 1].text in ("'", "’"):
        return False  # "'99": a year
    for t in span:
        low = t.lower_.rstrip(".")
        if low in _CALENDAR_FORMS or low in _TIME_SPAN_WORDS or low in _CLOCK_WORDS or t.text.startswith(("'", "’")) or (
            any(c.isdigit() for c in t.text) and any(c.isalpha() for c in t.text)
        ):
            return False
        if t.is_alpha and not common(t.lower_):
            return False  # "69 Roheline 43": a name no word list has (an address, not an amount)
    return True


# the words a date is written with besides its months, weekdays and holidays ("early march",
# "the 5th of may", "3 days ago", "new year's eve")
_DATE_WORDS = frozenset("""
of the early mid late end beginning last next this ago day days eve year years yr yrs month months week weeks
spring summer fall autumn winter new 's ’s
""".split())


def date_word(low: str) -> bool:
    """Whether the lower-case word ``low`` can stand at the edge of a date ("march", "tues",
    "early", "ago"; not "army", "until", "whipple")."""
    return low.rstrip(".") in _CALENDAR_FORMS or low in _DATE_WORDS or bool(_DATE_WORD_FORM.match(low))


def shorthand_token(text: str) -> bool:
    """Letters and digits in one token in no form a date takes ("3VD", "500X14", "FIO2",
    "7p-7a"): shorthand, a setting or a shift, never part of a date."""
    return _LETTER_DIGIT.match(text) is not None and _DATE_WORD_FORM.match(text) is None


_ORDINAL = re.compile(r"(?i)^\d{1,2}(st|nd|rd|th)$")
# what an ordinal counts when it is no day of a month ("2nd floor", "3rd degree", "4th ics")
_ORDINAL_THINGS = frozenset("""
floor flr fl degree grade line time times dose doses opinion toe toes finger fingers rib ribs ics
intercostal nerve cranial generation trimester percentile cycle round attempt try year yr grader
metatarsal digit ray lumbar cervical thoracic sacral ventricle heart sound branch order party person choice
hr hour stage
""".split())
_CALENDAR_FORMS = CALENDAR_WORDS | frozenset(
    "mon tue tues wed thu thur thurs fri sat sun "
    "christmas thanksgiving easter hanukkah ramadan".split()
)
# what "health care" names before them: a person's role or the care itself, no hospital
# ("health care proxy", "health care agent", "health care decisions")
_CARE_ROLE_WORDS = frozenset("""
proxy proxies agent agents surrogate representative decisions decision directive directives poa power maker
provider providers worker workers professional professionals team
""".split())
# HOSPITAL_TAILS by their first word, in their order (the first that fits is taken)
_TAILS_BY_FIRST: Dict[str, List[Tuple[str, ...]]] = {}
for _tail in HOSPITAL_TAILS:
    _TAILS_BY_FIRST.setdefault(_tail[0], []).append(_tail)
# header fields whose value names an organisation
_ORG_FIELDS = frozenset("""
pharmacy employer workplace facility agency school insurance insurer ins dme hospice snf vna daycare
church parish congregation temple mosque synagogue
""".split())
# what kind of plan it is, no insurer's name ("dental ppo", "an employer hmo")
_PLAN_KINDS = frozenset("dental vision medical drug prescription group individual family employer union marketplace exchange".split())
# what follows an insurer's name and says it is one ("tufts health plan", "BLUE CROSS BLUE SHIELD
# PPO", "mvp medicare supplement"): one word, or two
_INSURER_TAILS: Tuple[Tuple[str, ...], ...] = (
    ("ppo",), ("hmo",), ("health", "plan"), ("medicare", "supplement"), ("medicare", "advantage"), ("medicare", "adv"), ("advantage", "plan"),
)
# what an insurance or facility field holds that names no one: public plans and kinds of place
# ("ins: medicare", "insurance: self pay", "facility: home")
_PUBLIC_PLANS = frozenset("""
medicare medicaid masshealth tricare va self pay self-pay selfpay uninsured commercial private pending
part a b c d advantage supplement supplemental secondary primary
""".split())
# the words after an insurer's name that start its member's number
_ID_FIELD_WORDS = frozenset("member id policy group subscriber mrn acct account number no #".split())
_INNER_ORG_WORDS = frozenset("and & of the".split())


# eponyms of two or three surnames joined by hyphens: scores, signs, syndromes, devices and
# procedures, which the name rules would take for a double-barrelled surname
_HYPHENATED_EPONYMS = frozenset("""
hunt-hess jackson-pratt child-pugh child-turcotte-pugh swan-ganz roux-en-y guillain-barre guillain-barré
wolff-parkinson-white cheyne-stokes mallory-weiss stevens-johnson osgood-schlatter legg-calve-perthes
charcot-marie-tooth creutzfeldt-jakob ehlers-danlos henoch-schonlein lambert-eaton osler-weber-rendu
wernicke-korsakoff zollinger-ellison brown-sequard dandy-walker arnold-chiari budd-chiari
sengstaken-blakemore austin-flint graham-steell kimmelstiel-wilson marcus-gunn hill-sachs bankart-perthes
holt-oram peutz-jeghers von-willebrand mccune-albright beckwith-wiedemann prader-willi smith-lemli-opitz
""".split())


def _hyphenated_eponym_tokens(doc: Doc) -> Set[int]:
    """The tokens of the hyphenated eponyms in ``doc`` ("Hunt-Hess", "JACKSON-PRATT": the
    tokenizer splits them at their hyphens)."""
    out: Set[int] = set()
    n = len(doc)
    for i in range(n - 2):
        if doc[i + 1].text != "-" or not doc[i].is_alpha:
            continue
        for parts in (5, 3):  # "roux-en-y", "wolff-parkinson-white"; "hunt-hess"
            end = i + parts
            if end <= n and "".join(t.text for t in doc[i:end]).lower() in _HYPHENATED_EPONYMS:
                out.update(range(i, end))
                break
    return out


def _id_word_at(doc: Doc, k: int) -> bool:
    """Whether an id's word starts at ``doc[k]`` ("member", "ID"; lower-case "id" is "i" "d"
    for spaCy's tokenizer, which reads it as "I'd")."""
    low = doc[k].lower_
    return low in _ID_FIELD_WORDS or (low == "i" and k + 1 < len(doc) and doc[k + 1].lower_ == "d" and not doc[k].whitespace_)
PERSONAL_TITLES = frozenset("dr mr mrs ms miss prof fr rev".split())
_CONTEXT_WORDS = TITLES | ROLES | CREDENTIALS | frozenset(t.rstrip(".") for t in TITLES)
_INITIAL = re.compile(r"^[A-Za-z]\.?$")
# a middle initial between two names: one letter of any script, with or without its
# period ("c", "F.", "š"); not "a", "I" or "x" (a times sign)
MIDDLE_INITIAL = re.compile(r"^(?![aAiIxX]\.?$)[^\W\d_]\.?$")
# the state codes that notes write as words after a comma ("fever, or chills", "dr smith, md")
_WORD_CODES_AS_WORDS = frozenset("in or me hi oh ok md".split())
# what notes write after "insurance" that names no insurer ("insurance pending approval")
_INSURANCE_TALK = frozenset("""
pending approval approve auth authorization denial coverage covers cover info information card cards issue issues
problem problems benefits benefit status verification company companies plan plans question questions concern
concerns paperwork form forms update change changes copay copays deductible premium premiums provider providers
coordinator rep representative case manager worker eligibility limit limits review reviews appeal appeals
policy policies payment payments number numbers through via only also still now
""".split())
# the words of place before a crossing of two streets ("found at 6th and broadway")
_CROSSING_CUES = frozenset("at near around past outside off".split())
# the street words that end both streets of a crossing named with no cue ("7th st & mcdowell rd");
# no "dr", "way", "court", "square", "ln": a doctor, a way, a court, a lymph node name no street alone
_CROSSING_SUFFIXES = frozenset("st street ave avenue av rd road blvd boulevard pike hwy highway pkwy parkway".split())
# a direction before a street's name ("on n main st")
_STREET_DIRECTIONS = frozenset("n s e w ne nw se sw n. s. e. w. north south east west".split())
# the words of place before a town that a bare state code follows ("in enterprise al")
_PLACE_PREPOSITIONS = frozenset("in from near of outside to around".split())
# state codes that are no English word or clinical abbreviation ("ct" scan, "ms", "mi", "nc",
# "tx", "ca", "dc", "sd", "nd", "ar", "nv", "vt"): a town of ordinary words may stand before them
_TOWN_STATE_CODES = frozenset("ky mn ny ut wi wv wy".split())
# (nor "nh" nursing home, "il" independent living, "nj" tube, "tn" trigeminal neuralgia, "ks"
# Kaposi, "ri" regular insulin, "az" azithromycin, "ak" above knee)
# words before a state's code that name no town ("from out of state, ny", "from northern mn")
_NOT_TOWN_WORDS = frozenset("state town city country county area region overseas abroad upstate downstate home car bed "
                            "chair hallway room spirits good work jail prison cafeteria bathroom shower floor unit "
                            "school church near lives live".split())
_STATE_CODES = frozenset("""
al ak az ar ca co ct de fl ga hi id il in ia ks ky la me md ma mi mn ms mo mt ne nv nh nj nm ny nc nd oh ok
or pa ri sc sd tn tx ut vt va wa wv wi wy dc
""".split())


def load_lists(
    lists: Mapping[str, str],
    labels: Mapping[str, str],
    common_words: Optional[str],
    clinical_terms: Optional[str],
    min_zipf: float,
) -> GazetteerLists:
    """Read the list files (asset names or paths) into a ``GazetteerLists``.

    lists (Mapping[str, str]): list key -> file.
    labels (Mapping[str, str]): list key -> label (defaults: ``LIST_LABELS``).
    common_words (Optional[str]): the word/Zipf TSV (None: no word is ambiguous).
    clinical_terms (Optional[str]): clinical words, always ambiguous.
    min_zipf (float): an entry at or above this Zipf frequency is an ordinary word.
    RETURNS (GazetteerLists): the lists.
    """
    from spacy_deid.resources import asset_path

    read = {key: read_term_file(asset_path(path)) for key, path in lists.items()}
    common: Set[str] = set()
    if common_words:
        common |= read_common_words(asset_path(common_words), min_zipf, ordinary_only=True)
    clinical: Set[str] = set(read_term_file(asset_path(clinical_terms))) if clinical_terms else set()
    all_labels = {**LIST_LABELS, **dict(labels)}
    return GazetteerLists(
        lists=read, labels={k: all_labels[k] for k in read if k in all_labels}, common=common | clinical, clinical=clinical,
        place_suffixes=set(read_term_file(asset_path(PLACE_SUFFIXES))),
        place_prefixes=set(read_term_file(asset_path(PLACE_PREFIXES))),
    )


def iter_words(lists: GazetteerLists) -> Iterable[str]:
    """Every entry of every list (for tests and statistics)."""
    for terms in lists.lists.values():
        yield from terms
