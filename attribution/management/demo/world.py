"""The demo world: three brands in which every order outcome can be produced by hand with curl (the handoff
brand's orders also by its Shopify shop's and its WooCommerce site's signed webhooks), and the JSON document
naming its ids, codes, keys, logins and the webhooks' secrets. Safe to build again: it reuses what exists and moves the
fresh clicks back inside the attribution window."""

from datetime import timedelta
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import salted_hmac

from attribution.contract import examples
from attribution.models import Click, CreatorLink
from brands.hosts import hash_email, registrable_domain
from brands.models import (
    Brand,
    BrandMembership,
    Creator,
    DiscountCode,
    KnownShopper,
    PlatformConnection,
    Property,
)
from brands.resolution import resolve_host
from brands.sealing import UnreadableSecret

from . import plan as demo_plan
from .example_orders import keep_examples_true
from .fx import keep_fx_orders
from .keys import demo_key, revoked_demo_key
from .rates import keep_demo_rates
from .shops import keep_shop_codes, shop_document
from .statement import keep_paid_statement

# Demo clicks are found again by this marker in their user agent, so their ids survive a re-run.
CLICK_MARKER = "seed_demo:"
FRESH = timedelta(hours=1)
WINDOW_DAYS = 30

MAIN_HOSTS = ("shop.acme-demo.example", "eu.acme-demo.example")
UNREGISTERED_HOST = "outlet.acme-demo.example"  # under acme-demo.example, never registered
OTHER_HOST = "shop.globex-demo.example"
HANDOFF_HOST = "shop.initech-demo.example"
UNKNOWN_CLICK_ID = "clk_00000000000000000000000000000000"  # well-formed; the service mints random ids
UNREGISTERED_CODE = "NOBODY20"
KNOWN_SHOPPER_EMAIL = "returning.shopper@example.com"
# The handoff brand's Shopify shop (its webhook's X-Shopify-Shop-Domain).
HANDOFF_SHOP = "initech-demo.myshopify.com"
HANDOFF_CODE = "IVAN10"
# Ana's own address, kept hashed: an order she places herself with it is held for review (self_referral).
ANA_EMAIL = "ana.active@creators.acme-demo.example"


def build(*, now, printed_before: dict[str, str] | None = None) -> dict:
    """The demo world, built or refreshed; `printed_before`: keys by role (KEY_ROLES) to keep if still valid."""
    printed_before = printed_before or {}
    main = _brand("Acme Demo", rate="10", returning_rate="5")
    other = _brand("Globex Demo", rate="12")
    handoff = _brand("Initech Demo", rate="8", storefront_handles_orders=True)
    primary, secondary = (_property(main, host, primary=host == MAIN_HOSTS[0]) for host in MAIN_HOSTS)
    other_prop = _property(other, OTHER_HOST, primary=True)
    handoff_prop = _property(handoff, HANDOFF_HOST, primary=True)

    ana = _creator(main, "Ana Active", is_active=True)
    Creator.objects.filter(pk=ana.pk).update(email_hash=hash_email(ANA_EMAIL))  # issue 38: docs/review.md
    ben = _creator(main, "Ben Banned", is_active=False)
    olga = _creator(other, "Olga Other", is_active=True)
    ivan = _creator(handoff, "Ivan Integrated", is_active=True)

    expired_at = now - timedelta(days=WINDOW_DAYS + 15)
    clicks = {
        "valid": _click("valid", primary, ana, now - FRESH, click_id=examples.CLICK),
        "valid_secondary": _click("valid_secondary", secondary, ana, now - FRESH),
        "expired": _click("expired", primary, ana, expired_at),
        "other_brand": _click("other_brand", other_prop, olga, now - FRESH),
        "banned_creator": _click("banned_creator", primary, ben, now - FRESH),
        "unknown": UNKNOWN_CLICK_ID,
        "handoff": _click("handoff", handoff_prop, ivan, now - FRESH),
    }
    codes = {
        "registered": _code(main, "ANA10", creator=ana),
        "blacklisted": _code(main, "STAFF50", creator=None, is_blacklisted=True),
        "banned_creator": _code(main, "BEN15", creator=ben),
        "unregistered": UNREGISTERED_CODE,
        "handoff": _code(handoff, HANDOFF_CODE, creator=ivan),
    }
    shopify = _shopify_connection(handoff, handoff_prop)
    woocommerce = _woocommerce_connection(handoff, handoff_prop)
    KnownShopper.objects.update_or_create(
        brand=main, email_hash=hash_email(KNOWN_SHOPPER_EMAIL), defaults={"creator": ana}
    )
    links = {"valid": _creator_link(main, ana, primary, discount_code=codes["registered"])}
    keep_shop_codes(other, olga)  # the codes of Globex Demo's shop's orders in the stand-in
    keep_demo_rates(today=now.date())  # before any conversion: rates of the demo's own days, marked "demo"
    # issue 56: the main brand's second creator and its commission plan (attribution.management.demo.plan)
    main_creators = demo_plan.creators(
        main, primary, registered=ana, registered_code=codes["registered"], registered_link=links["valid"]
    )
    keep_examples_true(main, now=now)  # the OpenAPI examples' orders (attribution.contract.examples)
    fx = keep_fx_orders(main, now=now)  # orders in EUR and GBP, converted into its reporting currency
    fx["paid_statement"] = keep_paid_statement(main, now=now)  # last month's, closed, in three currencies

    keys = {
        brand.pk: demo_key(brand, printed_before.get(role))
        for role, brand in (("main", main), ("other", other), ("handoff", handoff))
    }
    revoked_key = revoked_demo_key(main, printed_before.get("revoked"))
    users = {
        "main": _user("acme-demo", brand=main),
        "other": _user("globex-demo", brand=other),
        "admin": _user("demo-admin", staff=True),
    }
    _check_claims(main=main)

    def page(host, path="/thank-you"):
        return f"https://{host}{path}"

    return {
        "brands": {
            "main": {
                "id": main.pk,
                "name": main.name,
                "developer_key": keys[main.pk],
                "revoked_developer_key": revoked_key,
                "page_urls": {
                    "primary": page(primary.host, "/checkout/thank-you"),
                    "secondary": page(secondary.host),
                    "unregistered": page(UNREGISTERED_HOST),
                },
                "property_domains": [primary.host, secondary.host],
            },
            "other": {
                "name": other.name,
                "developer_key": keys[other.pk],
                "page_urls": {"primary": page(other_prop.host)},
                "property_domains": [other_prop.host],
                **shop_document(other, now=now),  # its id, and the Shopify shop the tour connects
            },
            "handoff": {
                "id": handoff.pk,
                "name": handoff.name,
                "developer_key": keys[handoff.pk],
                "page_urls": {"primary": page(handoff_prop.host)},
                "property_domains": [handoff_prop.host],
                "shopify": shopify,
                "woocommerce": woocommerce,
            },
        },
        "clicks": clicks,
        "codes": codes,
        "shoppers": {"known_email": KNOWN_SHOPPER_EMAIL},
        # A self-referral to hold and release (docs/integration.md): Ana's code and her own address.
        "holds": {"code": codes["registered"], "creator_email": ANA_EMAIL},
        "commission": {
            "rate_percent": _percent(main.commission_rate_percent),
            "returning_rate_percent": _percent(main.returning_commission_rate_percent),
        },
        "users": users,
        "links": links,
        "fx": fx,
        "creators": main_creators,
    }


def _brand(name, *, rate, returning_rate=None, storefront_handles_orders=False) -> Brand:
    brand, _ = Brand.objects.update_or_create(
        name=name,
        defaults={
            "is_active": True,
            "attribution_window_days": WINDOW_DAYS,
            "commission_rate_percent": Decimal(rate),
            "returning_commission_rate_percent": Decimal(returning_rate) if returning_rate else None,
            "storefront_handles_orders": storefront_handles_orders,
        },
    )
    return brand


def _shopify_connection(brand, prop) -> dict:
    """The handoff brand's Shopify shop; what a shop's webhook needs to reach it."""
    secret = _connected(brand, prop, platform="shopify", shop_domain=HANDOFF_SHOP, prefix="shpss_demo_")
    return {
        "webhook_url": reverse("platforms:shopify"),
        "shop_domain": HANDOFF_SHOP,
        "webhook_secret": secret,
    }


def _woocommerce_connection(brand, prop) -> dict:
    """The handoff brand's WooCommerce site, on the brand's own storefront host (a WordPress site names itself
    in X-WC-Webhook-Source); what its webhooks need to reach it."""
    secret = _connected(brand, prop, platform="woocommerce", shop_domain=prop.host, prefix="wc_demo_")
    return {
        "webhook_url": reverse("platforms:woocommerce"),
        "site_url": f"https://{prop.host}/",
        "webhook_secret": secret,
    }


def _connected(brand, prop, *, platform: str, shop_domain: str, prefix: str) -> str:
    """The brand's approved connection of `shop_domain`, with a signing secret stable across runs (and unknown
    without this installation's SECRET_KEY): its secret."""
    secret = prefix + salted_hmac(f"seed_demo.{platform}", shop_domain).hexdigest()[:24]
    connection = PlatformConnection.objects.filter(platform=platform, shop_domain=shop_domain).first()
    if connection is None:
        connection = PlatformConnection(platform=platform, shop_domain=shop_domain)
    connection.brand, connection.property, connection.is_enabled = brand, prop, True
    connection.amount_counted = PlatformConnection.Amount.SUBTOTAL
    connection.order_id_source = PlatformConnection.OrderId.ID
    try:
        kept = [next(connection.signing_secrets(now=timezone.now()))] if connection.secret else []
    except UnreadableSecret:  # sealed under keys this installation no longer has
        kept, connection.previous_secret, connection.secret = [], "", ""
    if kept != [secret]:
        connection.set_secret(secret)
    connection.full_clean()
    connection.save()
    return secret


def _property(brand, host, *, primary: bool) -> Property:
    prop, _ = Property.objects.update_or_create(host=host, defaults={"brand": brand, "is_primary": primary})
    return prop


def _creator(brand, name, *, is_active) -> Creator:
    creator, _ = Creator.objects.update_or_create(brand=brand, name=name, defaults={"is_active": is_active})
    return creator


def _click(name, prop, creator, clicked_at, *, click_id=None) -> str:
    """The demo click called `name`; `click_id` fixes its id (the OpenAPI examples name the valid one)."""
    click = Click.objects.filter(brand=prop.brand, user_agent=CLICK_MARKER + name).first()
    if click is None:
        click = Click(brand=prop.brand, user_agent=CLICK_MARKER + name)
    if click_id and click.click_id != click_id and not Click.objects.filter(click_id=click_id).exists():
        click.click_id = click_id
    click.property, click.creator, click.clicked_at = prop, creator, clicked_at
    click.save()
    return click.click_id


def _code(brand, code, *, creator, is_blacklisted=False) -> str:
    existing = DiscountCode.objects.filter(brand=brand, code__iexact=code).first()
    if existing is None:
        existing = DiscountCode(brand=brand, code=code)
    existing.creator, existing.is_blacklisted = creator, is_blacklisted
    existing.save()
    return existing.code


def _user(username, *, brand=None, staff=False) -> dict:
    # Stable across runs, and unknown without this installation's SECRET_KEY.
    password = "demo-" + salted_hmac("seed_demo.password", username).hexdigest()[:12]
    user, _ = get_user_model().objects.get_or_create(username=username)
    user.is_active, user.is_staff, user.is_superuser = True, staff, staff
    if not user.check_password(password):
        user.set_password(password)  # only when needed: a new hash would end the user's sessions
    user.save()
    if brand is not None:
        BrandMembership.objects.get_or_create(brand=brand, user=user)
    return {"username": username, "password": password}


def _check_claims(*, main) -> None:
    """The document promises outcomes; refuse to print it if this database breaks a promise."""
    problems = []
    resolved = resolve_host(UNREGISTERED_HOST)
    if not (resolved.is_unregistered_property and resolved.brand.id == main.pk):
        problems.append(
            f"{UNREGISTERED_HOST} must not be a registered property (it shows unregistered_property)"
        )
    if Click.objects.filter(click_id=UNKNOWN_CLICK_ID).exists():
        problems.append(f"click {UNKNOWN_CLICK_ID} must not exist (it shows click_not_found)")
    if DiscountCode.objects.filter(brand=main, code__iexact=UNREGISTERED_CODE).exists():
        problems.append(
            f"code {UNREGISTERED_CODE} must not exist at {main.name} (it shows unregistered_code)"
        )
    domains = {registrable_domain(host) for host in (MAIN_HOSTS[0], OTHER_HOST, HANDOFF_HOST)}
    if len(domains) != 3:
        problems.append("the three demo brands need three different registrable domains")
    if problems:
        raise CommandError("The demo world cannot keep its promises: " + "; ".join(problems) + ".")


def _percent(value: Decimal | None) -> str | None:
    return None if value is None else format(value.normalize(), "f")


# --- creator links: where the click-capture walk-through (docs/integration.md) starts ---------------------------

DEMO_LINK_CODE = "acme-demo-ana"


def _creator_link(brand, creator, prop, *, discount_code: str) -> str:
    """The code of an active link of `creator` landing on `prop`'s home page and carrying the creator's code."""
    link, _ = CreatorLink.objects.update_or_create(
        code=DEMO_LINK_CODE,
        defaults={
            "brand": brand,
            "creator": creator,
            "destination_url": f"https://{prop.host}/?utm_source=creator&utm_medium=demo",
            "discount_code": DiscountCode.objects.get(brand=brand, code__iexact=discount_code),
            "is_active": True,
        },
    )
    link.full_clean()  # the same checks as the admin: the destination is a property of the brand
    return link.code
