"""Keyed choices: every surrogate is a deterministic function of a secret salt
and the original, so the same original gets the same surrogate in every note,
process and run that shares the salt, and nobody without the salt can map a
surrogate back by trying candidate originals."""
import hashlib
import hmac
import os
import secrets
from typing import Optional, Sequence, Tuple, TypeVar

T = TypeVar("T")

SALT_ENV = "SPACY_DEID_SALT"


def read_salt(salt_env: Optional[str] = SALT_ENV) -> Tuple[bytes, bool]:
    """The salt from an environment variable; a random one for this process when
    it is unset (consistent within the run only).

    RETURNS (Tuple[bytes, bool]): the salt and whether it came from the environment.
    """
    value = os.environ.get(salt_env) if salt_env else None
    if value:
        return value.encode("utf8"), True
    return secrets.token_bytes(32), False


class Keyer:
    """HMAC-SHA256 of a secret salt over a tuple of strings, as bytes or ints."""

    def __init__(self, salt: bytes) -> None:
        if not salt:
            raise ValueError("a Keyer needs a non-empty salt")
        self._salt = salt

    def digest(self, *parts: object) -> bytes:
        """32 keyed bytes for ``parts`` (joined with a separator no part contains)."""
        msg = "\x1f".join(str(p) for p in parts).encode("utf8")
        return hmac.new(self._salt, msg, hashlib.sha256).digest()

    def integer(self, *parts: object) -> int:
        """A keyed non-negative 64-bit integer."""
        return int.from_bytes(self.digest(*parts)[:8], "big")

    def below(self, n: int, *parts: object) -> int:
        """A keyed integer in ``[0, n)``."""
        if n <= 0:
            raise ValueError("n must be positive")
        return self.integer(*parts) % n

    def choice(self, items: Sequence[T], *parts: object) -> T:
        """A keyed element of ``items``."""
        return items[self.below(len(items), *parts)]

    def hexdigest(self, *parts: object, length: int = 16) -> str:
        """A keyed hex string of ``length`` characters."""
        return self.digest(*parts).hex()[:length]
