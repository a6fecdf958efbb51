"""A brand's primary property: the one the setup page sends test orders from (docs/integration.md)."""

import pytest
from django.db import IntegrityError, transaction

from brands.models import Property
from tests import factories

pytestmark = pytest.mark.django_db


def test_without_a_mark_the_primary_property_is_the_first_registered(brand):
    first = Property.objects.create(brand=brand, host="zz.acme.example")
    Property.objects.create(brand=brand, host="aa.acme.example")

    assert brand.primary_property() == first


def test_the_marked_property_is_the_primary_one(brand):
    Property.objects.create(brand=brand, host="shop.acme.example")
    eu = Property.objects.create(brand=brand, host="eu.acme.example", is_primary=True)

    assert brand.primary_property() == eu


def test_a_brand_without_a_property_has_no_primary_one(brand):
    assert brand.primary_property() is None


def test_marking_a_property_primary_unmarks_the_brands_other_one(brand, other_brand):
    shop = Property.objects.create(brand=brand, host="shop.acme.example", is_primary=True)
    globex = Property.objects.create(brand=other_brand, host="globex.example", is_primary=True)

    eu = Property.objects.create(brand=brand, host="eu.acme.example", is_primary=True)

    shop.refresh_from_db()
    globex.refresh_from_db()
    assert (shop.is_primary, eu.is_primary, globex.is_primary) == (False, True, True)
    eu.full_clean()  # valid: the mark moved, it did not double


def test_the_database_refuses_two_primary_properties_of_one_brand(brand):
    Property.objects.create(brand=brand, host="shop.acme.example", is_primary=True)
    eu = Property.objects.create(brand=brand, host="eu.acme.example")

    with pytest.raises(IntegrityError), transaction.atomic():
        Property.objects.filter(pk=eu.pk).update(is_primary=True)


def test_every_brand_may_have_its_own(db):
    for name in ("A", "B"):
        factories.PropertyFactory(
            brand=factories.BrandFactory(name=name), host=f"{name}.example", is_primary=True
        )

    assert Property.objects.filter(is_primary=True).count() == 2
