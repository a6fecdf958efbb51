"""Brand and property resolution from a page URL or domain (docs/decisions.md, "Brand and property resolution")."""

import pytest

from brands import resolution
from brands.resolution import resolve_host
from tests.factories import BrandFactory, PropertyFactory


@pytest.mark.parametrize(
    "sent",
    [
        "https://shop.acme.example/checkout/thank-you?x=1",
        "https://SHOP.Acme.Example:8443/thanks",
        "https://www.shop.acme.example/",
        "shop.acme.example.",
        "shop.acme.example",
    ],
)
def test_a_registered_property_resolves_brand_and_property(prop, sent):
    resolved = resolve_host(sent)
    assert resolved.brand.id == prop.brand_id
    assert resolved.property_id == prop.id


def test_a_host_under_the_brands_registrable_domain_resolves_the_brand_without_property(prop):
    resolved = resolve_host("https://blog.acme.example/thanks")
    assert resolved.brand.id == prop.brand_id
    assert resolved.is_unregistered_property


def test_a_registrable_domain_shared_by_two_brands_resolves_nothing(db):
    PropertyFactory(brand=BrandFactory(), host="a.shared.example")
    PropertyFactory(brand=BrandFactory(), host="b.shared.example")
    resolved = resolve_host("https://c.shared.example/")
    assert resolved.brand is None


def test_an_unknown_domain_resolves_nothing(prop):
    assert resolve_host("https://unknown.example/").brand is None


def test_an_inactive_brand_resolves_nothing(prop):
    prop.brand.is_active = False
    prop.brand.save()
    assert resolve_host("https://shop.acme.example/").brand is None


def test_idn_hosts_compare_in_punycode(brand):
    prop = PropertyFactory(brand=brand, host="bücher.example")
    assert prop.host == "xn--bcher-kva.example"
    assert resolve_host("https://BÜCHER.example/danke").property_id == prop.id


@pytest.mark.parametrize("junk", ["", "   ", "not a url", "https://", "javascript:alert(1)"])
def test_junk_resolves_nothing(prop, junk):
    assert resolve_host(junk).brand is None


def test_a_new_property_is_seen_at_once_despite_the_cache(prop):
    assert resolve_host("https://eu.acme.example/").is_unregistered_property
    PropertyFactory(brand=prop.brand, host="eu.acme.example")
    assert resolve_host("https://eu.acme.example/").is_registered_property


# --- the process's own copy, in front of the cache (docs/decisions.md, "Brand resolution cache") ----------


@pytest.fixture
def clock(monkeypatch):
    class Clock:
        now = 1000.0

    monkeypatch.setattr(resolution, "clock", lambda: Clock.now)
    return Clock


def test_a_domain_resolved_once_is_served_from_the_process_without_reading_the_cache(
    prop, monkeypatch, clock
):
    resolve_host("https://shop.acme.example/")
    monkeypatch.setattr(resolution.cache, "get", lambda *a, **k: pytest.fail("read the shared cache"))

    assert resolve_host("https://shop.acme.example/ty").property_id == prop.pk


def test_another_process_s_edit_is_seen_once_the_local_copy_expires(prop, settings, clock):
    settings.BRAND_RESOLUTION_LOCAL_SECONDS = 5
    assert resolve_host("https://shop.acme.example/").brand is not None
    # Another process deactivates the brand: its signal clears the shared cache, not this process's copy.
    type(prop.brand).objects.filter(pk=prop.brand_id).update(is_active=False)
    resolution.cache.delete(resolution._cache_key("acme.example"))

    clock.now += 4.9
    assert resolve_host("https://shop.acme.example/").brand is not None  # still the copy, for 5 s at most
    clock.now += 0.2
    assert resolve_host("https://shop.acme.example/").brand is None


def test_the_process_that_saves_an_edit_sees_it_at_once(prop, clock):
    assert resolve_host("https://shop.acme.example/").brand is not None
    prop.brand.is_active = False
    prop.brand.save()

    assert resolve_host("https://shop.acme.example/").brand is None


def test_the_local_copies_are_bounded(db, monkeypatch, clock):
    monkeypatch.setattr(resolution, "LOCAL_MAX_DOMAINS", 3)
    for n in range(5):
        resolve_host(f"https://shop.brand{n}.example/")

    assert list(resolution._local) == ["brand2.example", "brand3.example", "brand4.example"]
