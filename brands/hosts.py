"""Hosts and shoppers' addresses as the service compares them: host normalisation (as browsers write
location.href), registrable domains by the Public Suffix List, and the one-way hash of an email address.

Pure functions, no database. Brands, resolution, the admin, the order path and the outcome log all use these.
"""

import hashlib
import re
from functools import lru_cache
from urllib.parse import urlsplit

import idna
from publicsuffixlist import PublicSuffixList

_SITE_PATH = re.compile(r"(/[A-Za-z0-9._~%!$&'()*+,;=:@-]+)*")
_HOST = re.compile(r"[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*")


def normalize_host(value: str) -> str | None:
    """Lower-case host of a URL or bare domain, without port, trailing dot or leading www., in punycode."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text:
        return None
    if "//" not in text:
        text = "//" + text
    try:
        host = urlsplit(text).hostname
    except ValueError:
        return None
    if not host:
        return None
    host = host.rstrip(".").lower()
    if host.startswith("www."):
        host = host[4:]
    if not host.isascii():
        # UTS 46 / IDNA 2008, as browsers write location.href: straße is xn--strae-oqa, where
        # Python's own "idna" codec (IDNA 2003) would have made it strasse.
        try:
            host = idna.encode(host, uts46=True).decode("ascii")
        except idna.IDNAError:
            return None
    if len(host) > 253 or not _HOST.fullmatch(host):
        return None
    return host


def site_key(value: str) -> str | None:
    """A site's host (as normalize_host) with its path, without a trailing slash: "shop.example/store". A WordPress
    site can live under a path, so two sites of one host have two keys; a site at the host's root, the host."""
    host = normalize_host(value)
    if host is None:
        return None
    text = value.strip()
    try:
        path = urlsplit(text if "//" in text else "//" + text).path.rstrip("/")
    except ValueError:
        return None
    key = f"{host}{path}"
    return key if len(key) <= 253 and _SITE_PATH.fullmatch(path) else None


_psl = PublicSuffixList()


@lru_cache(maxsize=4096)
def registrable_domain(host: str) -> str:
    """The registrable domain of a host (Public Suffix List); the host itself when it has none."""
    return _psl.privatesuffix(host) or host


def is_public_suffix(host: str) -> bool:
    """co.uk, myshopify.com: a suffix under which anyone registers, so no brand's own host."""
    return _psl.privatesuffix(host) is None


_HASHED = re.compile(r"sha256:([0-9a-f]{64})")


def hash_email(value: str) -> str:
    """SHA-256 of the trimmed, lower-cased address (docs/decisions.md, "Known shoppers"); the raw address is never kept.

    `sha256:` and 64 hex digits is an address already hashed, as every kept body writes one (brands.privacy):
    it is taken as that hash, so a spooled event is replayed with the shopper it arrived with.
    """
    text = value.strip().lower()
    already = _HASHED.fullmatch(text)
    if already:
        return already.group(1)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
