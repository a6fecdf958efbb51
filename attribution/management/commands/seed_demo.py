"""Build the demo world: three brands in which every order outcome can be produced by hand with curl (the
handoff brand's orders also by its Shopify shop's signed webhook), and the JSON document (keys as in the demo
world's description in docs/) naming its ids, codes, keys, logins and the shop's webhook secret.

Safe to run again: it reuses what exists and moves the fresh clicks back inside the attribution window.
The demo developer keys stay the same across runs: only hashes are stored, so the plaintexts are read back
from the document written before (--json PATH) and kept while their hash still matches a demo key of the
brand. Without that document, or with --reset, new keys are minted and the ones printed before revoked.
"""

import json
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import salted_hmac

from attribution import examples
from attribution.management.demo_examples import keep_examples_true
from attribution.models import Click, CreatorLink
from brands.hosts import hash_email, registrable_domain
from brands.models import (
    Brand,
    BrandMembership,
    Creator,
    DeveloperKey,
    DiscountCode,
    KnownShopper,
    PlatformConnection,
    Property,
)
from brands.resolution import resolve_host
from brands.sealing import UnreadableSecret

DEMO_KEY = "demo key"
REVOKED_DEMO_KEY = "demo key (revoked)"
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
HANDOFF_SHOP = "initech-demo.myshopify.com"  # the handoff brand's Shopify shop (its webhook's X-Shopify-Shop-Domain)
HANDOFF_CODE = "IVAN10"
# Ana's own address, kept hashed: an order she places herself with it is held for review (self_referral).
ANA_EMAIL = "ana.active@creators.acme-demo.example"


class Command(BaseCommand):
    help = "Build or refresh the demo world and print its JSON document (or write it with --json PATH)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--json", metavar="PATH", help="write the document to PATH instead of printing it"
        )
        parser.add_argument(
            "--summary",
            action="store_true",
            help="also print the demo logins, the main developer key and a ready curl line",
        )
        parser.add_argument(
            "--base-url", default="http://127.0.0.1:8000", help="address used in the printed curl line"
        )
        parser.add_argument(
            "--force", action="store_true", help="build the demo world even when DEBUG is false"
        )
        parser.add_argument(
            "--reset",
            action="store_true",
            help="issue new demo developer keys; the ones printed before stop working",
        )

    def handle(self, *args, **options):
        if not settings.DEBUG and not options["force"]:
            # The demo world creates a superuser with a printed password: never by accident in production.
            raise CommandError(
                "DEBUG is false: this looks like production. Pass --force to build the demo world anyway."
            )
        now = timezone.now()
        path = options["json"]
        printed_before = {} if options["reset"] or not path else _keys_printed_before(Path(path))
        with transaction.atomic():
            document = build(now=now, printed_before=printed_before)
        # The document alone goes to stdout when printed, so it can be piped; words go to stderr then.
        human = self.stdout if path else self.stderr
        if path:
            Path(path).write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        else:
            self.stdout.write(json.dumps(document, indent=2))
        if options["summary"]:
            human.write(summary(document, base_url=options["base_url"].rstrip("/"), now=now, path=path))
        kept = [key for key in _keys_of(document).values() if key in printed_before.values()]
        keys = (
            "the demo developer keys printed before are kept (--reset issues new ones)"
            if len(kept) == len(KEY_ROLES)
            else "fresh demo developer keys issued"
        )
        human.write(
            "Demo world ready: 3 brands, 6 clicks, 4 discount codes, 1 known shopper, 1 Shopify shop, 3 users, "
            "the API examples' orders; "
            f"{keys}; document {'written to ' + path if path else 'printed'}."
        )


# Where each demo key sits in the document.
KEY_ROLES = {
    "main": ("main", "developer_key"),
    "other": ("other", "developer_key"),
    "handoff": ("handoff", "developer_key"),
    "revoked": ("main", "revoked_developer_key"),
}


def _keys_of(document: dict) -> dict[str, str]:
    """The demo keys a document names, by role (KEY_ROLES); missing ones left out."""
    found = {}
    for role, (brand, field) in KEY_ROLES.items():
        value = document.get("brands", {}).get(brand, {}).get(field) if isinstance(document, dict) else None
        if isinstance(value, str):
            found[role] = value
    return found


def _keys_printed_before(path: Path) -> dict[str, str]:
    """The keys of the document a previous run wrote at `path`; none if there is no readable one."""
    try:
        return _keys_of(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, AttributeError):
        return {}


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
    KnownShopper.objects.update_or_create(
        brand=main, email_hash=hash_email(KNOWN_SHOPPER_EMAIL), defaults={"creator": ana}
    )
    links = {"valid": _creator_link(main, ana, primary, discount_code=codes["registered"])}
    keep_examples_true(main, now=now)  # the OpenAPI examples' orders (attribution.examples)

    keys = {
        brand.pk: _demo_key(brand, printed_before.get(role))
        for role, brand in (("main", main), ("other", other), ("handoff", handoff))
    }
    revoked_key = _revoked_demo_key(main, printed_before.get("revoked"))
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
            },
            "handoff": {
                "name": handoff.name,
                "developer_key": keys[handoff.pk],
                "page_urls": {"primary": page(handoff_prop.host)},
                "property_domains": [handoff_prop.host],
                "shopify": shopify,
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
    """The handoff brand's Shopify shop, connected with a signing secret stable across runs (and unknown
    without this installation's SECRET_KEY); what a shop's webhook needs to reach it."""
    secret = "shpss_demo_" + salted_hmac("seed_demo.shopify", HANDOFF_SHOP).hexdigest()[:24]
    connection = PlatformConnection.objects.filter(platform="shopify", shop_domain=HANDOFF_SHOP).first()
    if connection is None:
        connection = PlatformConnection(platform="shopify", shop_domain=HANDOFF_SHOP)
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
    return {"webhook_url": reverse("platforms:shopify"), "shop_domain": HANDOFF_SHOP, "webhook_secret": secret}


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


def _matching_key(brand, name: str, plaintext: str | None, *, revoked: bool) -> DeveloperKey | None:
    """The brand's key called `name` whose hash matches `plaintext`, if there is one."""
    if not plaintext:
        return None
    prefix = plaintext.partition(".")[0]
    key = DeveloperKey.objects.filter(brand=brand, name=name, prefix=prefix, revoked=revoked).first()
    return key if key is not None and key.is_valid(plaintext) else None


def _demo_key(brand, printed_before: str | None) -> str:
    """The key printed before while it still works (and the brand's only usable demo key), else a new one."""
    kept = _matching_key(brand, DEMO_KEY, printed_before, revoked=False)
    if kept is None or kept.has_expired:
        return _issue_demo_key(brand)
    for other in DeveloperKey.objects.filter(brand=brand, name=DEMO_KEY, revoked=False).exclude(pk=kept.pk):
        other.revoke()
    return printed_before


def _revoked_demo_key(brand, printed_before: str | None) -> str:
    if _matching_key(brand, REVOKED_DEMO_KEY, printed_before, revoked=True) is not None:
        DeveloperKey.objects.filter(brand=brand, name=REVOKED_DEMO_KEY).exclude(
            prefix=printed_before.partition(".")[0]
        ).delete()
        return printed_before
    return _issue_revoked_demo_key(brand)


def _issue_demo_key(brand) -> str:
    """A new usable key; the demo keys printed before are revoked, and those revoked before, removed."""
    older = DeveloperKey.objects.filter(brand=brand, name=DEMO_KEY)
    older.filter(revoked=True).delete()
    for key in older.filter(revoked=False):
        key.revoke()
    _, plaintext = DeveloperKey.objects.create_key(brand=brand, name=DEMO_KEY)
    return plaintext


def _issue_revoked_demo_key(brand) -> str:
    """One revoked key whose plaintext is known, to show the 401 a revoked key gets."""
    DeveloperKey.objects.filter(brand=brand, name=REVOKED_DEMO_KEY).delete()
    key, plaintext = DeveloperKey.objects.create_key(brand=brand, name=REVOKED_DEMO_KEY)
    key.revoke()
    return plaintext


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


def summary(document: dict, *, base_url: str, now, path: str | None) -> str:
    """What a person needs after `make run`: logins, the main key and one request to paste."""
    main, users = document["brands"]["main"], document["users"]
    body = json.dumps(
        {
            "orderId": f"demo-{now:%Y%m%d%H%M%S}",
            "orderAmount": 59.90,
            "currency": "USD",
            "page_url": main["page_urls"]["primary"],
            "clickId": document["clicks"]["valid"],
        }
    )
    where = path or "the document above"
    return "\n".join(
        [
            "",
            "Demo world (the passwords and keys below are for this local demo only):",
            f"  Health pages  {base_url}/accounts/login/",
            f"    {users['main']['username']} / {users['main']['password']}   (brand {main['name']})",
            f"    {users['other']['username']} / {users['other']['password']}   "
            f"(brand {document['brands']['other']['name']})",
            f"  Admin         {base_url}/admin/",
            f"    {users['admin']['username']} / {users['admin']['password']}   (account manager)",
            f"  Developer key of {main['name']} (cancel, update, read API):",
            f"    {main['developer_key']}",
            '  An order attributed by a creator\'s click (answers "tracked"; again: "duplicate_order"):',
            f"    curl -s -X POST {base_url}/api/order_confirmation -H 'Content-Type: application/json' -d '{body}'",
            f"  Every id, code and key is in {where}; docs/api.md has one curl per outcome.",
            "",
        ]
    )


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
