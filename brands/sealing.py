"""The storefront platforms' webhook signing secrets, kept encrypted (docs/decisions.md, "Platform signing
secrets are kept encrypted").

A signing secret cannot be hashed as developer keys are: every delivery's HMAC is computed with it. It is
kept as a Fernet token (AES-128-CBC with an HMAC-SHA256 tag, from the `cryptography` package) under the
keys of settings.PLATFORM_SECRET_KEYS, so a copy of the database alone does not let anyone sign orders.
The first key encrypts, every key decrypts: a key is rotated by putting a new one first and re-saving.
Without configured keys, one is derived from SECRET_KEY.
"""

import base64
import hashlib
from functools import lru_cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings


class UnreadableSecret(Exception):
    """A kept secret that none of the configured keys decrypts (the keys changed since it was saved)."""


def _derived_key(secret_key: str) -> bytes:
    digest = hashlib.sha256(b"attribution platform secrets\x00" + secret_key.encode()).digest()
    return base64.urlsafe_b64encode(digest)


@lru_cache(maxsize=4)
def _cipher(keys: tuple[str, ...], secret_key: str) -> MultiFernet:
    chosen = [key.encode() for key in keys] or [_derived_key(secret_key)]
    return MultiFernet([Fernet(key) for key in chosen])


def cipher() -> MultiFernet:
    return _cipher(tuple(settings.PLATFORM_SECRET_KEYS), settings.SECRET_KEY)


def seal(plain: str) -> str:
    """The secret as it is stored: a Fernet token (ASCII)."""
    return cipher().encrypt(plain.encode("utf-8")).decode("ascii")


def unseal(token: str) -> str:
    """The secret a stored token holds; UnreadableSecret when no configured key opens it. Each process keeps
    the secrets it opened (every delivery of a shop checks the same one; the process holds the keys anyway)."""
    return _unseal(token, tuple(settings.PLATFORM_SECRET_KEYS), settings.SECRET_KEY)


@lru_cache(maxsize=1024)
def _unseal(token: str, keys: tuple[str, ...], secret_key: str) -> str:
    try:
        return _cipher(keys, secret_key).decrypt(token.encode("ascii")).decode("utf-8")
    except (InvalidToken, ValueError) as exc:
        raise UnreadableSecret("the signing secret cannot be decrypted with the configured keys") from exc
