"""The demo developer keys: kept across runs while the plaintexts printed before still match (only hashes
are stored, so they are read back from the document a previous run wrote), else issued anew."""

import json
from pathlib import Path

from brands.models import DeveloperKey

DEMO_KEY = "demo key"
REVOKED_DEMO_KEY = "demo key (revoked)"

# Where each demo key sits in the document.
KEY_ROLES = {
    "main": ("main", "developer_key"),
    "other": ("other", "developer_key"),
    "handoff": ("handoff", "developer_key"),
    "revoked": ("main", "revoked_developer_key"),
}


def keys_of(document: dict) -> dict[str, str]:
    """The demo keys a document names, by role (KEY_ROLES); missing ones left out."""
    found = {}
    for role, (brand, field) in KEY_ROLES.items():
        value = document.get("brands", {}).get(brand, {}).get(field) if isinstance(document, dict) else None
        if isinstance(value, str):
            found[role] = value
    return found


def keys_printed_before(path: Path) -> dict[str, str]:
    """The keys of the document a previous run wrote at `path`; none if there is no readable one."""
    try:
        return keys_of(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, AttributeError):
        return {}


def _matching_key(brand, name: str, plaintext: str | None, *, revoked: bool) -> DeveloperKey | None:
    """The brand's key called `name` whose hash matches `plaintext`, if there is one."""
    if not plaintext:
        return None
    prefix = plaintext.partition(".")[0]
    key = DeveloperKey.objects.filter(brand=brand, name=name, prefix=prefix, revoked=revoked).first()
    return key if key is not None and key.is_valid(plaintext) else None


def demo_key(brand, printed_before: str | None) -> str:
    """The key printed before while it still works (and the brand's only usable demo key), else a new one."""
    kept = _matching_key(brand, DEMO_KEY, printed_before, revoked=False)
    if kept is None or kept.has_expired:
        return _issue_demo_key(brand)
    for other in DeveloperKey.objects.filter(brand=brand, name=DEMO_KEY, revoked=False).exclude(pk=kept.pk):
        other.revoke()
    return printed_before


def revoked_demo_key(brand, printed_before: str | None) -> str:
    if _matching_key(brand, REVOKED_DEMO_KEY, printed_before, revoked=True) is not None:
        DeveloperKey.objects.filter(brand=brand, name=REVOKED_DEMO_KEY).exclude(
            prefix=printed_before.partition(".")[0]
        ).delete()
        return printed_before
    return _issue_revoked_demo_key(brand)


def _issue_demo_key(brand) -> str:
    """A new usable key; the demo keys printed before are revoked, and those revoked before, removed."""
    older = DeveloperKey.objects.filter(brand=brand, name=DEMO_KEY)
    older.filter(revoked=True).delete()
    for key in older.filter(revoked=False):
        key.revoke()
    _, plaintext = DeveloperKey.objects.create_key(brand=brand, name=DEMO_KEY)
    return plaintext


def _issue_revoked_demo_key(brand) -> str:
    """One revoked key whose plaintext is known, to show the 401 a revoked key gets."""
    DeveloperKey.objects.filter(brand=brand, name=REVOKED_DEMO_KEY).delete()
    key, plaintext = DeveloperKey.objects.create_key(brand=brand, name=REVOKED_DEMO_KEY)
    key.revoke()
    return plaintext
