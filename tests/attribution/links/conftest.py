"""A creator link's tests: Acme's link to its shop, and making one."""

import pytest

from attribution.models import CreatorLink


@pytest.fixture
def link(brand, prop, creator):
    return CreatorLink.objects.create(
        brand=brand, creator=creator, code="ana-summer", destination_url="https://shop.acme.example/sale"
    )


def _link(brand, creator, destination, **extra):
    return CreatorLink.objects.create(
        brand=brand, creator=creator, code=extra.pop("code", "ana"), destination_url=destination, **extra
    )
