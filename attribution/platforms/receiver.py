"""The receiver every storefront platform's webhook comes through, and its URLs: the shared mechanics (the raw
body and its limit, the shop's connection, which secrets to try, the answer, the outcome row, the spool), running
the hooks its platform's module declares (attribution.platforms.platform.Platform: the headers, the signature, the
delivery id, the topics, the order read into an attribution.platforms.notice.OrderNotice).

One receiver per registered platform (attribution.platforms.registry), at /api/platforms/<name> and reversed as
"platforms:<name>" (attribution.platforms.urls). Its stages `read_body` and `json_answer` serve the platforms'
other calls too (attribution.platforms.connect.views).

The decision order of a delivery (docs/decisions.md, "Decision order of a platform's delivery"):
body over the limit (413) → no approved connection for the shop (401 unknown_shop; a claim waiting for approval
is named to a delivery signed with its secret) → signature missing or wrong
(401 invalid_signature) → connection disabled or brand inactive (200 connection_disabled) → then, in one
transaction (attribution.platforms.recording): a redelivery (200 redelivery), a topic or status with nothing to do
(200 ignored), an order the service cannot read (200, its outcome), the order recorded or followed.

Nothing is trusted before the signature is: a refused delivery creates nothing but its outcome row, which
keeps no body (its size, hash, naming headers and verdict), a few an hour per connection and each one beyond
counted per hour (or within the limit per address for an unknown shop), and its delivery id is never taken.
Secrets and signatures are never stored or logged; a verified body is kept as the fields the platform module
reads (brands.privacy.keep_platform_body).
"""

import hashlib
import json
import logging

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import DatabaseError
from django.http import HttpResponse
from django.utils import timezone
from django.views import View
from django.views.decorators.csrf import csrf_exempt

from attribution.durability import faults
from attribution.http import throttles
from attribution.models import PlatformDelivery
from attribution.outcomes import Outcome, Result, envelope, say
from brands.models import PlatformConnection
from brands.privacy import keep_platform_body
from brands.resolution import connection_for
from brands.sealing import UnreadableSecret
from config.lib.clients import client_address
from health.log.writer import (
    FAULTS,
    EventRecord,
    Receipt,
    count_refused_delivery,
    count_unresolved_host,
    record,
)

from .claims import signed_by_a_waiting_claim
from .notice import Action, OrderNotice, loads_order
from .platform import Platform
from .recording import receive, recorded_as_change

logger = logging.getLogger(__name__)


class Receiver(View):
    """One platform's webhook: POST only. What differs by platform is asked of `platform`."""

    http_method_names = ["post"]
    platform: Platform = None  # given by `urlpatterns` below: Receiver.as_view(platform=...)

    @classmethod
    def as_view(cls, **initkwargs):
        # A platform's server posts here; there is no session to guard. Exempt as DRF exempts its views, on the
        # view itself: method_decorator on dispatch would build the decorated method again on every delivery
        # (~30k instructions, docs/performance.md).
        return csrf_exempt(super().as_view(**initkwargs))

    def http_method_not_allowed(self, request, *args, **kwargs):
        return json_answer(
            envelope(success=False, outcome=Outcome.METHOD_NOT_ALLOWED, text="Send POST."), 405
        )

    def post(self, request, *args, **kwargs):
        try:
            return self._post(request)
        except DatabaseError:  # before the delivery could be verified (its connection read): nothing kept
            logger.exception("platform delivery not verified: database away")
            return self._answer(request, Result(Outcome.INSERT_FAILED, say("platform.not_kept"), status=503))
        except Exception:  # noqa: BLE001  (a bug: answered in JSON; the platform sends the delivery again)
            logger.exception("platform receiver error")
            return self._answer(request, Result(Outcome.HANDLER_ERROR, say("platform.not_kept"), status=500))

    def _post(self, request):
        received_at = timezone.now()
        request.event_endpoint = self.platform.name
        body = read_body(request)
        receipt = Receipt(
            endpoint=self.platform.name,
            received_at=received_at,
            request_id=getattr(request, "request_id", ""),
            body=body,
            body_parsed=False,
        )
        shop = self.platform.shop_key(self.platform.shop_of(request)) or ""
        if body is None:
            return self._refuse(
                request,
                receipt,
                Result(
                    Outcome.INVALID_PARAMS,
                    say("platform.too_large", limit=settings.PLATFORM_BODY_MAX_BYTES // 1024),
                    status=413,
                ),
                shop=shop,
            )
        webhook = self.platform.ping_of(request, body)
        if webhook is not None:
            return json_answer(
                envelope(success=True, outcome=Outcome.PING, text=say("platform.ping", webhook=webhook)), 200
            )
        connection = connection_for(self.platform.name, shop) if shop else None
        if connection is None:
            if not shop:
                text = say("platform.no_shop", header=_header_name(self.platform.shop_header))
            elif signed_by_a_waiting_claim(self.platform, request, body, shop, now=received_at):
                text = say("platform.pending", platform=self.platform.title, shop=shop)
            else:
                text = say("platform.unknown_shop", platform=self.platform.title, shop=shop)
            return self._refuse(request, receipt, Result(Outcome.UNKNOWN_SHOP, text), shop=shop)
        refusal = self._verify(request, body, connection, now=received_at)
        if refusal is not None:
            return self._refuse(request, receipt, refusal, connection=connection)
        return self._receive(request, body, receipt, connection, received_at=received_at)

    def _verify(self, request, body: bytes, connection: PlatformConnection, *, now) -> Result | None:
        """None when the body is signed with one of the connection's secrets; the refusal otherwise."""
        header = self.platform.signature_header_name
        given = request.META.get(self.platform.signature_header, "").strip()
        if not given:
            return Result(Outcome.INVALID_SIGNATURE, say("platform.no_signature", header=header))
        try:
            if any(
                self.platform.signs(body, secret, given) for secret in connection.signing_secrets(now=now)
            ):
                return None
            replaced = connection.replaced_secret()
        except UnreadableSecret:
            logger.error("platform signing secret unreadable", extra={"connection": connection.pk})
            return Result(Outcome.INVALID_SIGNATURE, say("platform.bad_signature", header=header))
        if replaced is not None and self.platform.signs(body, replaced, given):
            when = timezone.localtime(connection.secret_replaced_at).strftime("%Y-%m-%d %H:%M %Z")
            return Result(Outcome.INVALID_SIGNATURE, say("platform.stale_signature", replaced=when))
        return Result(Outcome.INVALID_SIGNATURE, say("platform.bad_signature", header=header))

    def _receive(self, request, body: bytes, receipt: Receipt, connection, *, received_at) -> HttpResponse:
        topic = self.platform.topic_of(request)
        unread = OrderNotice(
            endpoint=self.platform.name,
            platform=self.platform.title,
            connection_id=connection.pk,
            brand_id=connection.brand_id,
            host=connection.property_host,
            delivery_id=self.platform.delivery_id_of(request, body),
            topic=topic,
            action=Action.IGNORE,
        )
        notice = None
        try:
            document = loads_order(body)
        except ValueError as exc:
            if topic in self.platform.topics:
                notice = unread.asking(
                    Action.RECORD,
                    refusal=[Outcome.INVALID_PARAMS, say("platform.not_json", problem=_short(exc))],
                )
        else:
            if isinstance(document, dict):
                receipt.request.update(
                    body=keep_platform_body(self.platform.kept(document)), body_parsed=True
                )
            if topic in self.platform.topics:
                notice = self.platform.read(unread, document=document, connection=connection)
        if notice is None:  # a topic this service does not act on
            notice = unread.asking(Action.IGNORE, note=say("platform.ignored_topic", topic=topic or "(none)"))
        if notice.action in (Action.FOLLOW, Action.CANCEL):
            recorded_as_change(receipt, self.platform.name)
        if not connection.is_enabled or not connection.brand_is_active:
            words = "platform.disabled" if not connection.is_enabled else "platform.brand_inactive"
            result = Result(
                Outcome.CONNECTION_DISABLED,
                say(words, platform=self.platform.title, shop=connection.shop_domain),
                brand_id=connection.brand_id,
                order_id=notice.order_id_shown(),
            )
            _record(receipt.event(result))
            return self._answer(request, result)
        try:
            result = receive(notice, received_at=received_at, receipt=receipt)
        except Exception:  # noqa: BLE001  (a bug: the delivery is verified and read, so it is kept for replay)
            logger.exception("platform delivery failed", extra={"brand_id": notice.brand_id})
            result = Result(
                Outcome.HANDLER_ERROR,
                say("handler_error"),
                brand_id=notice.brand_id,
                order_id=notice.order_id_shown(),
            )
        if result.outcome in FAULTS:
            return self._kept_for_later(request, receipt, notice, result)
        return self._answer(request, result)

    def _kept_for_later(self, request, receipt: Receipt, notice: OrderNotice, result: Result) -> HttpResponse:
        """A fault on our side: keep the notice in the spool and answer 200, or 503 when it could not be kept
        (the platform retries then)."""
        # Its endpoint is the receiver's, or its change endpoint (attribution.platforms.recording.recorded_as_change).
        event = receipt.event(result)
        kept = faults.spool_and_record(
            event,
            body=(event.request_body or "").encode(),
            brand_id=notice.brand_id,
            notice=notice.as_json(),
            row_when_not_kept=False,
        )
        if not kept:
            result.status = 503
        return self._answer(request, result)

    def _refuse(
        self, request, receipt: Receipt, result: Result, *, shop: str = "", connection=None
    ) -> HttpResponse:
        """A delivery refused before it is trusted: its row in the brand's log when the shop is known (a few an
        hour per connection, each one beyond counted per hour), else in the log of no brand (within the limit
        per address). The row keeps no body: a refused one is anyone's bytes, and a real one signed with an old
        secret holds the shopper's details; its size, a hash of its bytes, its headers and the verdict fix it."""
        at = receipt.request["received_at"]
        receipt = Receipt(
            **{
                **receipt.request,
                "body": _described(request, receipt, result, self.platform),
                "body_parsed": True,
            }
        )
        if connection is None and shop and result.outcome != Outcome.UNKNOWN_SHOP:
            connection = connection_for(self.platform.name, shop)
        if connection is not None:
            result.brand_id = connection.brand_id
            rate = settings.API_THROTTLE_RATES.get("signature_failures")
            allowed = not rate or throttles.hit(f"signature_failures:{connection.pk}", rate=rate)[0]
            if allowed:
                # Signature failures are counted per connection for the overview; a body over the limit is not one.
                refused = _refused_delivery(connection, request, self.platform, at)
                _record(
                    receipt.event(result),
                    delivery=refused if result.outcome == Outcome.INVALID_SIGNATURE else None,
                )
            else:  # beyond the few an hour: counted per connection and hour, so nothing pushes the rest out
                _count_refused(connection, at)
        else:
            rate = settings.API_THROTTLE_RATES.get("brandless_events")
            if not rate or throttles.hit(f"brandless_events:{client_address(request)}", rate=rate)[0]:
                _record(receipt.event(result))
            else:
                _count(shop, at)
        return self._answer(request, result)

    def _answer(self, request, result: Result) -> HttpResponse:
        request.event_brand_id = result.brand_id
        request.event_outcome = str(result.outcome)
        headers = {"WWW-Authenticate": self.platform.signature_scheme} if result.http_status == 401 else None
        return json_answer(result.body(), result.http_status, headers=headers)


def read_body(request, *, limit: int | None = None) -> bytes | None:
    """The raw body, or None when it is over `limit` (PLATFORM_BODY_MAX_BYTES; nothing of it is then read)."""
    limit = settings.PLATFORM_BODY_MAX_BYTES if limit is None else limit
    length = request.META.get("CONTENT_LENGTH") or "0"
    if length.isdigit() and int(length) > limit:
        return None
    body = request.read(limit + 1)
    return None if len(body) > limit else body


def _refused_delivery(connection, request, platform: Platform, at) -> PlatformDelivery:
    return PlatformDelivery(
        brand_id=connection.brand_id,
        connection_id=connection.pk,
        delivery_id=platform.refused_delivery_id(request)[:255],
        topic=platform.topic_of(request)[:64],
        verified=False,
        received_at=at,
    )


def _record(event: EventRecord, *, delivery: PlatformDelivery | None = None) -> None:
    """An outcome row the delivery layer does not write itself (a refusal): lost, and logged, if the database
    is away, since nothing of the delivery was trusted or done."""
    try:
        record(event)
        if delivery is not None:
            delivery.save(force_insert=True)
    except DatabaseError:
        logger.exception("outcome log write failed", extra={"request_id": event.request_id})


def _described(request, receipt: Receipt, result: Result, platform: Platform) -> str:
    """What the log keeps of a refused delivery in place of its body."""
    body = receipt.request["body"]
    length = request.META.get("CONTENT_LENGTH") or ""
    return json.dumps(
        {
            "refused": str(result.outcome),
            "bytes": len(body) if body is not None else int(length) if length.isdigit() else None,
            "sha256": hashlib.sha256(body).hexdigest() if body is not None else None,
            "headers": {
                name: request.META[key][:255] for key, name in platform.kept_headers if request.META.get(key)
            },
        },
        separators=(",", ":"),
    )


def _count_refused(connection, at) -> None:
    try:
        count_refused_delivery(brand_id=connection.brand_id, connection_id=connection.pk, at=at)
    except DatabaseError:
        logger.warning("refused-delivery count failed", exc_info=True)


def _count(shop: str, at) -> None:
    try:
        count_unresolved_host(shop, at=at)
    except DatabaseError:
        logger.warning("unknown-shop count failed", exc_info=True)


# What JsonResponse(body, json_dumps_params={"separators": (",", ":")}) writes, with its encoder built once: it
# builds one per answer (~18k instructions of a delivery); an encoder keeps no state between documents.
_ANSWER_ENCODER = DjangoJSONEncoder(separators=(",", ":"))


def json_answer(body: dict, status: int, *, headers=None) -> HttpResponse:
    """Every answer of a platform's way in: the /api/ envelope (success, outcome, message or error)."""
    return HttpResponse(
        _ANSWER_ENCODER.encode(body), status=status, headers=headers, content_type="application/json"
    )


def _header_name(meta_key: str) -> str:
    return "-".join(part.capitalize() for part in meta_key.removeprefix("HTTP_").split("_"))


def _short(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 80 else text[:77] + "..."
