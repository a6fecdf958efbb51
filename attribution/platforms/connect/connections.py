"""A connection's life as its platform's credential says: kept active at once when a credential proved the shop's
ownership, without the account manager's approval a typed-in shop waits for (docs/decisions.md, "A credential
proves the shop"); disconnected when the platform refuses it (an uninstall, a refused call of the sync or of a
token's refresh)."""

from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone

from brands.models import PlatformConnection, Property


class ConnectRefused(Exception):
    """The connection cannot be made; the message says why, in words for the brand's user."""


@dataclass
class Proved:
    """What the platform's API answered about the shop, with the credential that asked."""

    platform: str
    shop_domain: str  # normalized: name.myshopify.com, or the WooCommerce site's host
    via: str  # PlatformConnection.ConnectedVia
    credential: str  # in clear; sealed as it is kept
    scopes: list[str]
    shop_id: str = ""
    currency: str = ""
    timezone: str = ""
    site_url: str = ""
    pair: object = None  # Shopify's expiring pair (shopify_tokens.TokenPair): kept with its expiries instead


def keep_proved(*, prop: Property, proved: Proved, secret: str = "") -> PlatformConnection:
    """The brand's connection of the shop, made or updated, active and approved; `secret` (when given) signs
    the webhooks the service made itself. ConnectRefused when another brand holds the shop."""
    brand = prop.brand
    try:
        with transaction.atomic():
            held = (
                PlatformConnection.objects.select_for_update()
                .filter(platform=proved.platform, shop_domain=proved.shop_domain, approved_at__isnull=False)
                .exclude(brand=brand)
                .exists()
            )
            if held:
                raise ConnectRefused(
                    f"{proved.shop_domain} is connected to another brand of this service. If it is yours, ask "
                    "your account manager to move it."
                )
            connection = (
                PlatformConnection.objects.select_for_update()
                .filter(brand=brand, platform=proved.platform, shop_domain=proved.shop_domain)
                .first()
            ) or PlatformConnection(brand=brand, platform=proved.platform, shop_domain=proved.shop_domain)
            connection.property = prop
            connection.connected_via = proved.via
            if proved.pair is not None:
                proved.pair.keep(connection)
            else:
                connection.set_credential(proved.credential)
            connection.api_scopes = ",".join(proved.scopes)[:255]
            connection.platform_shop_id = proved.shop_id[:100]
            connection.shop_currency = proved.currency[:3]
            connection.shop_timezone = proved.timezone[:64]
            connection.site_url = proved.site_url[:255]
            connection.approved_at = connection.approved_at or timezone.now()
            connection.disconnected_at, connection.disconnect_reason = None, ""
            connection.is_enabled = True
            if secret:
                connection.set_secret(secret)
            connection.save()
    except IntegrityError as exc:  # another brand's connection of the shop was approved at the same moment
        raise ConnectRefused(f"{proved.shop_domain} is connected to another brand of this service.") from exc
    return connection


def disconnect(connection: PlatformConnection, *, reason: str, at=None) -> bool:
    """Mark the connection disconnected (its credential no longer opens the shop, which it forgets); False when
    it already was. Its webhooks' secrets are kept: a late delivery still verifies."""
    return bool(
        PlatformConnection.objects.filter(pk=connection.pk, disconnected_at__isnull=True).update(
            disconnected_at=at or timezone.now(),
            disconnect_reason=reason,
            credential="",
            credential_expires_at=None,
            refresh_token="",
            refresh_token_expires_at=None,
        )
    )
