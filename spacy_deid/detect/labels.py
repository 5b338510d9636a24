"""Map detector labels to PHI categories.

Every detector (a trained NER, the pattern ruler, the gazetteers, a general NER
such as ``en_core_web_sm``) has its own label set. The replacer only acts on
labels that map to one of the PHI categories of :data:`spacy_deid.edits.CATEGORIES`;
an unmapped label is *not PHI* (so a general NER's ``CARDINAL`` or ``QUANTITY``
never turns "5 mg" into "6 mg").

Users extend or override the map with a ``label_map`` (config table or
``--label-map``): ``{"MY_LABEL": "ID", "NORP": null}`` (null removes a label).
"""
from typing import Dict, Mapping, Optional

from spacy_deid.edits import CATEGORIES

DEFAULT_LABEL_MAP: Dict[str, str] = {
    # names
    "NAME": "NAME", "PATIENT": "NAME", "DOCTOR": "NAME", "USERNAME": "NAME",
    "PERSON": "NAME", "PER": "NAME", "STAFF": "NAME", "HCW": "NAME", "RELATIVE": "NAME",
    # dates (bare years and durations are kept by the date operator: not PHI under Safe Harbor)
    "DATE": "DATE", "DATE_TIME": "DATE",
    "AGE": "AGE",
    # places
    "LOCATION": "LOCATION", "LOC": "LOCATION", "GPE": "LOCATION", "FAC": "LOCATION",
    "STREET": "LOCATION", "CITY": "LOCATION", "STATE": "LOCATION", "ZIP": "LOCATION",
    "COUNTRY": "LOCATION", "LOCATION_OTHER": "LOCATION", "ADDRESS": "LOCATION",
    "STREET_ADDRESS": "LOCATION", "GEOGRAPHIC_LOCATION": "LOCATION", "ZIP_CODE": "LOCATION",
    "WARD": "LOCATION", "COUNTY": "LOCATION",
    # organisations
    "ORGANIZATION": "ORGANIZATION", "ORG": "ORGANIZATION", "HOSPITAL": "ORGANIZATION",
    "COMPANY": "ORGANIZATION",
    # contact
    "PHONE": "CONTACT", "FAX": "CONTACT", "PAGER": "CONTACT", "EMAIL": "CONTACT", "URL": "CONTACT",
    "PHONE_NUMBER": "CONTACT", "FAX_NUMBER": "CONTACT", "EMAIL_ADDRESS": "CONTACT",
    "IP_ADDRESS": "CONTACT", "DOMAIN_NAME": "CONTACT",
    # identifiers
    "ID": "ID", "IDNUM": "ID", "MRN": "ID", "SSN": "ID", "DEVICE": "ID", "ACCOUNT": "ID",
    "LICENSE": "ID", "VEHICLE": "ID", "BIOID": "ID", "HEALTHPLAN": "ID",
    "US_SSN": "ID", "CREDIT_CARD": "ID", "IBAN_CODE": "ID", "US_DRIVER_LICENSE": "ID",
    "US_PASSPORT": "ID", "US_BANK_NUMBER": "ID", "MEDICAL_LICENSE": "ID",
    "MEDICAL_RECORD_NUMBER": "ID", "HEALTH_PLAN_BENEFICIARY_NUMBER": "ID",
    "SOCIAL_SECURITY_NUMBER": "ID", "UNIQUE_IDENTIFIER": "ID", "ACCOUNT_NUMBER": "ID",
    "CERTIFICATE_LICENSE_NUMBER": "ID",
    # other quasi-identifiers
    "PROFESSION": "OTHER", "OTHER": "OTHER", "PHI": "OTHER",
}


def make_label_map(overrides: Optional[Mapping[str, Optional[str]]] = None, use_defaults: bool = True) -> Dict[str, str]:
    """The effective label -> category map: the defaults (unless ``use_defaults``
    is False) updated by ``overrides``; a None/empty category removes a label.

    RAISES (ValueError): a category that is not one of CATEGORIES.
    """
    out: Dict[str, str] = dict(DEFAULT_LABEL_MAP) if use_defaults else {}
    for label, category in (overrides or {}).items():
        if category in (None, "", "null", "none", "None"):
            out.pop(label, None)
            continue
        category = str(category).upper()
        if category not in CATEGORIES:
            raise ValueError(
                f"label_map: {label!r} -> {category!r} is not a PHI category "
                f"(one of {', '.join(CATEGORIES)}, or null for 'not PHI')"
            )
        out[label] = category
    return out


def category_of(label: str, label_map: Mapping[str, str]) -> Optional[str]:
    """The PHI category of a detector label, or None (not PHI)."""
    return label_map.get(label)
