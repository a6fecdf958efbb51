"""Developer keys (decision D9): shown once, stored as a hash, found by prefix, revocable."""

from brands.models import DeveloperKey
from tests.factories import issue_key


def test_the_plaintext_key_is_never_stored(brand):
    row, plaintext = issue_key(brand)
    stored = DeveloperKey.objects.filter(pk=row.pk).values().get()
    assert all(plaintext not in str(value) for value in stored.values())
    assert stored["hashed_key"].startswith("sha512$$")


def test_a_key_is_found_by_its_prefix(brand):
    row, plaintext = issue_key(brand)
    assert plaintext.startswith(row.prefix + ".")
    assert DeveloperKey.objects.get_from_key(plaintext) == row


def test_a_revoked_key_is_not_usable(brand):
    row, plaintext = issue_key(brand)
    row.revoke()
    assert not DeveloperKey.objects.is_valid(plaintext)
    assert DeveloperKey.objects.get(pk=row.pk).revoked_at is not None
