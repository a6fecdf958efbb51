"""Developer keys (docs/decisions.md, "Developer keys"): shown once, stored as a hash, found by prefix, revocable."""

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


def test_a_key_and_whether_its_brand_is_active_are_read_in_one_query(brand, django_assert_num_queries):
    row, plaintext = issue_key(brand)
    brand.is_active = False
    brand.save()

    with django_assert_num_queries(1):
        found = DeveloperKey.objects.get_from_key(plaintext)
        assert found.brand_is_active is False
    assert found == row and found.brand_id == brand.id


def test_a_wrong_secret_after_a_known_prefix_is_not_valid(brand):
    row, plaintext = issue_key(brand)
    assert not DeveloperKey.objects.is_valid(row.prefix + ".not-the-secret")
    assert DeveloperKey.objects.is_valid(plaintext)
