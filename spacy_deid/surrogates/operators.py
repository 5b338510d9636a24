"""Operators: what happens to the PHI of each category.

``surrogate`` (a realistic value of the same kind: the default), ``shift`` (dates
moved by the patient's shift, in their own format), ``mask`` (``[CATEGORY]``),
``redact`` (removed), ``hash`` (a keyed HMAC-SHA256, salt from the environment),
``encrypt`` (reversible: Fernet from the ``cryptography`` library with a key the
user supplies) and ``keep`` (left as written).

A table maps categories to operators, ``*`` being every category not named:
``{"*": "surrogate", "DATE": "shift", "OTHER": "mask"}``. On the command line:
``--operators 'NAME=mask,ID=hash'``; ``*=mask`` alone masks every category.
"""
import base64
import hashlib
import os
from typing import Dict, Mapping, Optional

from spacy_deid.edits import CATEGORIES

OPERATORS = ("surrogate", "shift", "mask", "redact", "hash", "encrypt", "keep")
DEFAULT_OPERATORS: Dict[str, str] = {"*": "surrogate", "DATE": "shift", "OTHER": "mask"}
KEY_ENV = "SPACY_DEID_KEY"


def parse_operators(spec: str) -> Dict[str, str]:
    """``"NAME=mask,ID=hash,*=redact"`` -> ``{"NAME": "mask", "ID": "hash", "*": "redact"}``.

    RAISES (ValueError): an item without ``=``, an unknown category or operator.
    """
    table: Dict[str, str] = {}
    for item in filter(None, (p.strip() for p in spec.split(","))):
        if "=" not in item:
            raise ValueError(f"operators: {item!r} is not CATEGORY=OPERATOR")
        category, operator = (s.strip() for s in item.split("=", 1))
        table[category.upper() if category != "*" else "*"] = operator.lower()
    validate_operators(table)
    return table


def validate_operators(table: Mapping[str, str]) -> None:
    """RAISES (ValueError): an unknown category or operator, or ``shift`` outside DATE."""
    for category, operator in table.items():
        if category != "*" and category not in CATEGORIES:
            raise ValueError(f"operators: unknown category {category!r} (one of *, {', '.join(CATEGORIES)})")
        if operator not in OPERATORS:
            raise ValueError(f"operators: unknown operator {operator!r} for {category} (one of {', '.join(OPERATORS)})")
        if operator == "shift" and category not in ("DATE", "*"):
            raise ValueError(f"operators: 'shift' only applies to DATE, not {category}")


def merge_operators(base: Mapping[str, str], override: Mapping[str, str]) -> Dict[str, str]:
    """``base`` updated by ``override``; an override with ``*`` replaces every
    category that it does not name itself (``*=mask`` masks everything)."""
    if "*" in override:
        return dict(override)
    out = dict(base)
    out.update(override)
    return out


def operator_for(table: Mapping[str, str], category: str) -> str:
    """The operator of ``category``: its own entry, else ``*``, else the default.
    ``shift`` under ``*`` means ``shift`` for DATE and ``surrogate`` elsewhere."""
    op = table.get(category) or table.get("*") or DEFAULT_OPERATORS.get(category) or DEFAULT_OPERATORS["*"]
    if op == "shift" and category != "DATE":
        return "surrogate"
    return op


def mask(category: str) -> str:
    """The mask of a category: ``[CATEGORY]``."""
    return f"[{category}]"


def keyed_hash(text: str, salt: bytes, length: int = 16) -> str:
    """A keyed HMAC-SHA256 of ``text`` (hex, ``length`` characters)."""
    import hmac

    return hmac.new(salt, text.encode("utf8"), hashlib.sha256).hexdigest()[:length]


def fernet_key(key: str) -> bytes:
    """A Fernet key from what the user supplied: a Fernet key as it is (44
    url-safe base64 characters), any other passphrase stretched with scrypt."""
    raw = key.strip().encode("utf8")
    try:
        if len(base64.urlsafe_b64decode(raw)) == 32 and len(raw) == 44:
            return raw
    except (ValueError, TypeError):
        pass
    from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

    derived = Scrypt(salt=b"spacy-deid.fernet.v1", length=32, n=2**14, r=8, p=1).derive(raw)
    return base64.urlsafe_b64encode(derived)


def read_key(key: Optional[str] = None, env: str = KEY_ENV) -> bytes:
    """The Fernet key: ``key`` if given, else the environment variable ``env``.

    RAISES (ValueError): no key anywhere.
    """
    value = key if key else os.environ.get(env)
    if not value:
        raise ValueError(f"the encrypt operator and key files need a key: set ${env} (a passphrase or a Fernet key)")
    return fernet_key(value)


class Encryptor:
    """Reversible encryption of PHI values (Fernet: AES-128-CBC + HMAC-SHA256).

    key (bytes): a Fernet key (:func:`read_key`).
    """

    def __init__(self, key: bytes) -> None:
        from cryptography.fernet import Fernet

        self._fernet = Fernet(key)

    def encrypt(self, text: str) -> str:
        """The token of ``text`` (url-safe base64, no spaces)."""
        return self._fernet.encrypt(text.encode("utf8")).decode("ascii")

    def decrypt(self, token: str) -> str:
        """The text of a token made by :meth:`encrypt` with the same key."""
        return self._fernet.decrypt(token.encode("ascii")).decode("utf8")
