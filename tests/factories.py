"""Factories that build related objects on the same brand. Values a reader cares about are spelled out in tests."""

from datetime import timedelta
from decimal import Decimal

import factory
from django.contrib.auth import get_user_model
from django.utils import timezone

from attribution.fx import conversion
from attribution.models import Click, Commission, Order
from brands.models import Brand, BrandMembership, Creator, DeveloperKey, DiscountCode, KnownShopper, Property


class BrandFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Brand

    name = factory.Sequence(lambda n: f"Brand {n}")
    commission_rate_percent = Decimal("10")


class PropertyFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Property

    brand = factory.SubFactory(BrandFactory)
    host = factory.Sequence(lambda n: f"shop.brand{n}.example")


class CreatorFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Creator

    brand = factory.SubFactory(BrandFactory)
    name = factory.Sequence(lambda n: f"Creator {n}")


class ClickFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Click

    property = factory.SubFactory(PropertyFactory)
    brand = factory.SelfAttribute("property.brand")
    creator = factory.SubFactory(CreatorFactory, brand=factory.SelfAttribute("..brand"))
    clicked_at = factory.LazyFunction(lambda: timezone.now() - timedelta(hours=1))


class DiscountCodeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = DiscountCode

    brand = factory.SubFactory(BrandFactory)
    code = factory.Sequence(lambda n: f"CODE{n}")
    creator = factory.SubFactory(CreatorFactory, brand=factory.SelfAttribute("..brand"))


class KnownShopperFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = KnownShopper

    brand = factory.SubFactory(BrandFactory)
    creator = factory.SubFactory(CreatorFactory, brand=factory.SelfAttribute("..brand"))
    email_hash = factory.Sequence(lambda n: f"{n:064x}")


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.PostGenerationMethodCall("set_password", "pw-for-tests")

    @factory.post_generation
    def _save(obj, create, extracted, **kwargs):
        if create:
            obj.save()


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = BrandMembership

    brand = factory.SubFactory(BrandFactory)
    user = factory.SubFactory(UserFactory)


class OrderFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Order

    brand = factory.SubFactory(BrandFactory)
    order_id = factory.Sequence(lambda n: f"ORD-{n}")
    amount = Decimal("100.00")
    currency = "USD"
    outcome = "tracked"


class CommissionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Commission

    order = factory.SubFactory(OrderFactory)
    brand = factory.SelfAttribute("order.brand")
    is_test = factory.SelfAttribute("order.is_test")
    creator = factory.SubFactory(CreatorFactory, brand=factory.SelfAttribute("..brand"))
    order_amount = factory.SelfAttribute("order.amount")
    currency = factory.SelfAttribute("order.currency")
    rate_percent = Decimal("10")
    amount = Decimal("10.00")
    attribution = factory.SelfAttribute("order.attribution")
    is_returning_customer = factory.SelfAttribute("order.is_returning_customer")

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        """Locked in the brand's reporting currency at its order's date, as the order path locks it
        (attribution.fx), unless the test names the conversion."""
        if "reporting_currency" not in kwargs:
            converted = conversion.convert(
                kwargs["amount"],
                kwargs["currency"],
                to=kwargs["brand"].reporting_currency_now(),
                ordered_at=kwargs["order"].received_at,
            )
            kwargs.update(conversion.columns(converted))
        return super()._create(model_class, *args, **kwargs)


def issue_key(brand, name="test key"):
    """A developer key of `brand`: (model row, plaintext shown once)."""
    return DeveloperKey.objects.create_key(brand=brand, name=name)
