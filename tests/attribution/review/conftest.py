"""Acme (10 %) with the property shop.acme.example, Ana its creator with her own address on file, and a poster
of order confirmations. Review holds: docs/review.md."""

import pytest

from brands.hosts import hash_email

ANA_EMAIL = "ana@creators.example"


@pytest.fixture
def ana(creator):
    creator.email_hash = hash_email(ANA_EMAIL)
    creator.save(update_fields=["email_hash"])
    return creator


@pytest.fixture
def confirm(api):
    def post(body, **extra):
        return api.post("/api/order_confirmation", body, **extra)

    return post
