"""Brand users see only their own brands; staff (account managers) see all."""

from brands.models import brands_visible_to
from tests.factories import BrandFactory, MembershipFactory, UserFactory


def test_a_brand_user_sees_only_the_brands_they_belong_to(brand, other_brand):
    alice = MembershipFactory(brand=brand).user
    assert list(brands_visible_to(alice)) == [brand]


def test_a_user_of_two_brands_sees_both(brand, other_brand):
    carol = UserFactory()
    MembershipFactory(brand=brand, user=carol)
    MembershipFactory(brand=other_brand, user=carol)
    assert set(brands_visible_to(carol)) == {brand, other_brand}


def test_staff_see_every_brand(brand, other_brand):
    manager = UserFactory(is_staff=True)
    assert set(brands_visible_to(manager)) == {brand, other_brand}


def test_a_user_without_membership_sees_nothing(brand):
    assert list(brands_visible_to(UserFactory())) == []


def test_an_inactive_user_sees_nothing(brand):
    dave = MembershipFactory(brand=brand, user=UserFactory(is_active=False)).user
    assert list(brands_visible_to(dave)) == []


def test_an_anonymous_visitor_sees_nothing(brand):
    from django.contrib.auth.models import AnonymousUser

    BrandFactory()
    assert list(brands_visible_to(AnonymousUser())) == []
