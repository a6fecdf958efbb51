"""The throwaway-address verdict (brands.emails; docs/review.md, disposable_email): taken on the address
before it is hashed, and carried with the hash, through copies too."""

import copy
import pickle

from brands.emails import EmailHash, hash_with_verdict, is_disposable, verdict
from brands.hosts import hash_email


def test_it_knows_a_throwaway_domain_and_its_subdomains_in_any_case():
    assert is_disposable("someone@mailinator.com")
    assert is_disposable(" Someone@Inbox.MAILINATOR.com ")
    assert not is_disposable("someone@gmail.com")
    assert not is_disposable("no-at-sign")


def test_the_hash_is_the_usual_hash_and_carries_the_verdict():
    hashed = hash_with_verdict("x@mailinator.com", "x@mailinator.com")

    assert hashed == hash_email("x@mailinator.com")
    assert verdict(hashed) is True
    assert verdict(hash_with_verdict("x@gmail.com", "x@gmail.com")) is False


def test_a_hash_judged_earlier_keeps_its_verdict_through_copies_and_pickles():
    judged = EmailHash("sha256:" + "a" * 64, disposable=True)

    assert verdict(hash_with_verdict(judged, str(judged))) is True
    assert verdict(copy.deepcopy(judged)) is True
    assert verdict(pickle.loads(pickle.dumps(judged))) is True
    assert verdict("a" * 64) is False  # a hash sent as a hash carries no verdict
