"""What the service does for a platform's privacy request (Shopify's compliance topics) and for an uninstall:
each acts on what is held and says what that was (docs/integration.md, "Privacy requests").

What the service holds of a shopper: known-shopper entries (the hash of the address, registered to a creator)
and, in the outcome log's kept bodies, the same hash (brands.privacy writes `sha256:<hash>` for every address).
A shop's own data: its connection's credential, signing secrets and the shop's identity as its API answered.
"""

from django.db import transaction
from django.db.models import F, Value
from django.db.models.functions import Replace
from django.utils import timezone

from brands.hosts import hash_email
from brands.models import KnownShopper, PlatformConnection, PlatformPrivacyRequest
from brands.privacy import HASHED_PREFIX, REDACTED
from health.log.models import OutcomeEvent

Topic = PlatformPrivacyRequest.Topic


def _log_holding(brand_id: int, email_hash: str):
    return OutcomeEvent.objects.filter(
        brand_id=brand_id, request_body__contains=f"{HASHED_PREFIX}{email_hash}"
    )


def held_of_shopper(brand_id: int, email_hash: str) -> dict:
    """What the brand's data holds of the shopper whose address hashes to `email_hash`."""
    return {
        "known_shoppers": list(
            KnownShopper.objects.filter(brand_id=brand_id, email_hash=email_hash).values_list(
                "creator__name", flat=True
            )
        ),
        "log_events": _log_holding(brand_id, email_hash).count(),
    }


def act(request: PlatformPrivacyRequest, connection: PlatformConnection | None) -> None:
    """Do what the request asks of what is held, and note it on the request (saved by the caller)."""
    if connection is None:
        request.held, request.done = {}, "No connection of this shop is held: nothing to act on."
        return
    if request.topic == Topic.SHOP_REDACT:
        request.held = {"connection": connection.pk, "credential": connection.has_credential()}
        forget_shop(connection, reason="Shopify asked to erase the shop's data (shop/redact).")
        request.done = (
            "The shop's credential, signing secrets and identity were erased; the connection is off."
        )
        return
    if not request.email_hash:
        request.held, request.done = {}, "The request names no email address: nothing of the shopper is held."
        return
    request.held = held_of_shopper(connection.brand_id, request.email_hash)
    if request.topic == Topic.DATA_REQUEST:
        request.done = (
            "Held: the address's hash in {known} known-shopper entr{ies} and in {events} outcome log event(s); "
            "the service holds no name, address or phone number. Send the merchant this."
        ).format(
            known=len(request.held["known_shoppers"]),
            ies="y" if len(request.held["known_shoppers"]) == 1 else "ies",
            events=request.held["log_events"],
        )
        return
    with transaction.atomic():
        removed, _ = KnownShopper.objects.filter(
            brand_id=connection.brand_id, email_hash=request.email_hash
        ).delete()
        hashed = f"{HASHED_PREFIX}{request.email_hash}"
        redacted = _log_holding(connection.brand_id, request.email_hash).update(
            request_body=Replace(F("request_body"), Value(hashed), Value(REDACTED))
        )
    request.done = (
        f"Removed {removed} known-shopper entr{'y' if removed == 1 else 'ies'}; the address's hash "
        f"was replaced by {REDACTED} in {redacted} outcome log event(s)."
    )


def forget_shop(connection: PlatformConnection, *, reason: str) -> None:
    """The shop's connection data erased: its credential, secrets and identity; the connection off."""
    PlatformConnection.objects.filter(pk=connection.pk).update(
        credential="",
        credential_expires_at=None,
        refresh_token="",
        refresh_token_expires_at=None,
        secret="",
        previous_secret="",
        secret_replaced_at=None,
        api_scopes="",
        platform_shop_id="",
        shop_currency="",
        shop_timezone="",
        is_enabled=False,
        disconnected_at=connection.disconnected_at or timezone.now(),
        disconnect_reason=reason,
    )


def email_hash_of(value) -> str:
    return hash_email(value) if isinstance(value, str) and "@" in value else ""
