"""Notifications of incident flips (docs/alerts.md): email to the brand's users, webhooks signed per the
Standard Webhooks spec with retries, backoff and a log of every attempt; nothing a receiver does can
break evaluation. No real network: a receiver thread on 127.0.0.1, or a transport that times out."""

import ipaddress
import json
import socket
from datetime import timedelta

import httpx
import pytest
from django.core import mail
from django.utils import timezone
from standardwebhooks.webhooks import Webhook

from health.alerts.evaluation import evaluate
from health.alerts.models import Channel, Delivery, DeliveryAttempt
from health.alerts.notify import notifications, outbound, webhooks
from health.alerts.notify.notifications import deliver_due
from health.alerts.notify.webhooks import new_secret
from health.tasks import evaluate_alerts
from tests import factories
from tests.health.alerting import T0, history, log

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)


def channel(brand, url, **kwargs):
    return Channel.objects.create(brand=brand, url=url, secret=new_secret(), **kwargs)


def open_silence(brand):
    """Open a silence incident of `brand` (a busy brand) with its notification queued."""
    return evaluate(now=T0 + 2 * HOUR).opened[0]


def test_a_webhook_carries_valid_standard_webhooks_headers(busy, receiver):
    hook = channel(busy, receiver.url)
    incident = open_silence(busy)

    summary = deliver_due(now=timezone.now())

    assert summary.attempted == 2  # the email (nobody to send it to yet) and the webhook
    assert Delivery.objects.get(channel=hook).status == Delivery.Status.DELIVERED
    [request] = receiver.requests
    payload = Webhook(hook.secret).verify(request["body"], request["headers"])
    assert payload["type"] == "incident.opened"
    data = payload["data"]
    assert data["brand"] == {"id": busy.pk, "name": "Acme"}
    assert data["incident"]["id"] == incident.pk and data["incident"]["rule"] == "silence"
    assert data["incident"]["url"].endswith(f"/health/alerts/incidents/{incident.pk}/?brand={busy.pk}")
    assert "snippet" in data["incident"]["fix"]
    assert request["headers"]["webhook-id"] == f"msg_{incident.notifications.get().pk}"


def test_a_forged_or_replayed_signature_does_not_verify(busy, receiver):
    channel(busy, receiver.url)
    open_silence(busy)
    deliver_due(now=timezone.now())
    [request] = receiver.requests

    with pytest.raises(Exception, match="No matching signature"):
        Webhook(new_secret()).verify(request["body"], request["headers"])
    with pytest.raises(Exception, match="No matching signature"):
        Webhook(Channel.objects.get().secret).verify(
            request["body"].replace(b"silence", b"spike"), request["headers"]
        )


def test_it_retries_5xx_with_backoff_stops_after_the_limit_and_logs_every_attempt(busy, receiver):
    receiver.statuses = [503]
    hook = channel(busy, receiver.url)
    open_silence(busy)
    now = timezone.now()
    delivery = Delivery.objects.get(channel=hook)

    due_times = [now]
    for wait in notifications.BACKOFF:
        due_times.append(due_times[-1] + wait)
    deliver_due(now=now)
    for at in due_times[1:]:
        assert deliver_due(now=at - timedelta(seconds=1)).attempted == 0  # not due yet
        assert deliver_due(now=at).attempted == 1

    delivery.refresh_from_db()
    assert delivery.status == Delivery.Status.FAILED and delivery.attempts == notifications.MAX_ATTEMPTS == 5
    attempts = list(DeliveryAttempt.objects.filter(channel=hook).order_by("number"))
    assert [(a.number, a.status_code, a.ok) for a in attempts] == [(n, 503, False) for n in range(1, 6)]
    assert [a.attempted_at for a in attempts] == due_times
    assert len(receiver.requests) == 5
    assert {r["headers"]["webhook-id"] for r in receiver.requests} == {f"msg_{delivery.notification_id}"}
    assert deliver_due(now=due_times[-1] + timedelta(days=1)).attempted == 0


def test_a_retry_that_succeeds_ends_the_delivery(busy, receiver):
    receiver.statuses = [500, 200]
    hook = channel(busy, receiver.url)
    open_silence(busy)
    now = timezone.now()

    deliver_due(now=now)
    deliver_due(now=now + notifications.BACKOFF[0])

    delivery = Delivery.objects.get(channel=hook)
    assert delivery.status == Delivery.Status.DELIVERED and delivery.attempts == 2
    assert [a.ok for a in DeliveryAttempt.objects.filter(channel=hook).order_by("number")] == [False, True]


def test_a_timeout_is_retried(busy, outbound_double):
    def no_answer(request):
        raise httpx.ReadTimeout("timed out", request=request)

    outbound_double.serve("hooks.example.com", no_answer)
    hook = channel(busy, "https://hooks.example.com/attribution")
    open_silence(busy)

    deliver_due(now=timezone.now())

    delivery = Delivery.objects.get(channel=hook)
    assert delivery.status == Delivery.Status.PENDING and delivery.attempts == 1
    assert DeliveryAttempt.objects.get(channel=hook).error == "no answer within the timeout"


def test_a_4xx_answer_is_not_retried(busy, receiver):
    receiver.statuses = [401]
    hook = channel(busy, receiver.url)
    open_silence(busy)

    deliver_due(now=timezone.now())

    assert Delivery.objects.get(channel=hook).status == Delivery.Status.FAILED
    assert DeliveryAttempt.objects.get(channel=hook).error == "try later"


def test_a_refused_connection_or_a_forbidden_address_never_breaks_evaluation(brand, closed_port_url):
    refused = channel(brand, closed_port_url)
    internal = channel(brand, "https://10.1.2.3/hooks")
    now = timezone.now()
    history(brand, lambda hour: 10, until=now - 3 * HOUR)
    log(brand, at=now - 3 * HOUR)  # silent for 3 hours now, at 10 orders an hour usually

    summary = evaluate_alerts()

    assert "1 incidents opened" in summary
    assert Delivery.objects.get(channel=refused).status == Delivery.Status.PENDING  # retried later
    assert DeliveryAttempt.objects.get(channel=refused).error.startswith("connection failed")
    assert Delivery.objects.get(channel=internal).status == Delivery.Status.FAILED
    assert "public internet addresses" in DeliveryAttempt.objects.get(channel=internal).error
    assert len(mail.outbox) == 0  # nobody of Acme has an email address yet: logged, not raised


def test_a_slack_channel_gets_a_slack_message(busy, receiver):
    hook = channel(busy, receiver.url, format=Channel.Format.SLACK)
    open_silence(busy)

    deliver_due(now=timezone.now())

    [request] = receiver.requests
    text = json.loads(request["body"])["text"]
    assert text.startswith("*[Acme] Opened: Order confirmations stopped*\n")
    assert f"/health/alerts/incidents/{hook.brand.incidents.get().pk}/" in text
    assert "webhook-signature" not in request["headers"]


def test_slack_urls_get_the_slack_format_automatically():
    assert webhooks.format_for("https://hooks.slack.com/services/T0/B0/x") == Channel.Format.SLACK
    assert webhooks.format_for("https://example.com/hooks") == Channel.Format.STANDARD


def test_a_removed_channel_gets_nothing_more(busy, receiver):
    hook = channel(busy, receiver.url)
    open_silence(busy)
    hook.is_active = False
    hook.save()

    deliver_due(now=timezone.now())

    assert receiver.requests == []
    assert Delivery.objects.get(channel=hook).status == Delivery.Status.FAILED


def test_the_brand_users_with_an_address_get_one_email_per_flip(busy):
    factories.MembershipFactory(brand=busy, user__username="alice", user__email="alice@acme.example")
    factories.MembershipFactory(brand=busy, user__username="carol", user__email="")
    factories.MembershipFactory(user__username="bob", user__email="bob@globex.example")
    incident = open_silence(busy)

    deliver_due(now=T0 + 2 * HOUR)
    evaluate(now=T0 + 2 * HOUR + timedelta(minutes=1))
    deliver_due(now=T0 + 3 * HOUR)

    [email] = mail.outbox
    assert email.to == ["alice@acme.example"]
    assert email.subject == "[Acme] Opened: Order confirmations stopped"
    assert "confirmation snippet" in email.body
    assert f"/health/alerts/incidents/{incident.pk}/?brand={busy.pk}" in email.body

    log(busy, at=T0 + 3 * HOUR)
    evaluate(now=T0 + 3 * HOUR + timedelta(minutes=1))
    deliver_due(now=T0 + 3 * HOUR + timedelta(minutes=1))

    assert [m.subject for m in mail.outbox] == [
        "[Acme] Opened: Order confirmations stopped",
        "[Acme] Resolved: Order confirmations stopped",
    ]


def test_a_brand_that_turned_email_off_gets_none(busy):
    from health.alerts.models import AlertRuleSet

    AlertRuleSet.objects.create(brand=busy, email_enabled=False)
    factories.MembershipFactory(brand=busy, user__email="alice@acme.example")
    open_silence(busy)

    deliver_due(now=T0 + 2 * HOUR)

    assert mail.outbox == []


def test_service_side_incidents_email_the_account_managers(db):
    factories.UserFactory(username="manager", is_staff=True, email="am@attribution.example")
    factories.UserFactory(username="alice", email="alice@acme.example")
    log(None, "insert_failed", at=T0 - timedelta(minutes=5))
    evaluate(now=T0)

    deliver_due(now=T0)

    [email] = mail.outbox
    assert email.to == ["am@attribution.example"]
    assert email.subject == "[Creator attribution] Opened: Service-side fault"


def test_a_test_notification_is_attempted_at_once(busy, receiver):
    hook = channel(busy, receiver.url)

    delivery = notifications.send_test(hook)

    assert delivery.status == Delivery.Status.DELIVERED
    [request] = receiver.requests
    assert Webhook(hook.secret).verify(request["body"], request["headers"])["type"] == "test"


# --- where webhooks may go ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://hooks.example.com/x",  # plain HTTP
        "https://127.0.0.1/x",
        "https://localhost/x",
        "https://[::1]/x",
        "https://10.0.0.7/x",
        "https://192.168.1.1/x",
        "https://169.254.169.254/latest/meta-data",  # cloud metadata
        "https://[::ffff:127.0.0.1]/x",
        "https://user:pw@hooks.example.com/x",
    ],
)
def test_in_production_webhooks_only_reach_public_https_urls(settings, url):
    settings.WEBHOOKS_ALLOW_LOCAL = False

    assert outbound.url_problem(url) is not None


@pytest.mark.parametrize(
    "literal",
    [
        "::ffff:10.0.0.7",  # IPv4-mapped
        "::127.0.0.1",  # IPv4-compatible (deprecated, still routed by some stacks)
        "::10.0.0.7",
        "64:ff9b::a00:7",  # NAT64 well-known prefix, 10.0.0.7 inside
        "64:ff9b::7f00:1",  # NAT64 of 127.0.0.1
        "64:ff9b:1::a00:7",  # NAT64 local-use prefix: the IPv4 part's place is unknowable, so refused
        "2002:a00:7::1",  # 6to4 of 10.0.0.7
        "2002:a9fe:a9fe::1",  # 6to4 of the cloud metadata address 169.254.169.254
        "2001:0:4136:e378:8000:63bf:f5ff:fff8",  # Teredo whose client is 10.0.0.7
    ],
)
def test_an_ipv6_address_that_carries_a_private_ipv4_address_is_refused(settings, literal):
    settings.WEBHOOKS_ALLOW_LOCAL = False

    assert (
        outbound.url_problem(f"https://[{literal}]/hooks")
        == "Webhooks can only be sent to public internet addresses."
    )


@pytest.mark.parametrize(
    "literal",
    ["64:ff9b::808:808", "2002:808:808::1", "::ffff:8.8.8.8", "2606:4700:4700::1111"],
)
def test_an_ipv6_address_that_carries_a_public_ipv4_address_or_none_is_allowed(settings, literal):
    settings.WEBHOOKS_ALLOW_LOCAL = False

    assert outbound.address_allowed(ipaddress.ip_address(literal))


def test_a_name_that_resolves_to_an_internal_address_is_refused_at_connect_time(settings, monkeypatch):
    settings.WEBHOOKS_ALLOW_LOCAL = False
    monkeypatch.setattr(
        socket,
        "getaddrinfo",
        lambda *a, **k: [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", 443))],
    )

    assert outbound.url_problem("https://hooks.example.com/x") is None  # the name itself looks fine
    with pytest.raises(outbound.AddressNotAllowed, match="127.0.0.1"):
        outbound.post("https://hooks.example.com/x", b"{}", {})


def test_locally_loopback_over_http_is_allowed_for_a_local_receiver(settings):
    settings.WEBHOOKS_ALLOW_LOCAL = True

    assert outbound.url_problem("http://127.0.0.1:8089/hooks") is None
    assert outbound.url_problem("http://10.0.0.7/hooks") is not None  # private networks never


def test_the_verification_by_hand_in_the_docs_accepts_a_delivery_and_refuses_a_changed_one(busy, receiver):
    # The second example of docs/alerts.md ("Standard Webhooks"), as a reader would paste it.
    import base64
    import hashlib
    import hmac
    import time

    def verify(secret: str, body: bytes, headers: dict) -> bool:
        key = base64.b64decode(secret.removeprefix("whsec_"))
        msg_id, stamp = headers["webhook-id"], headers["webhook-timestamp"]
        if abs(time.time() - int(stamp)) > 300:
            return False
        expected = base64.b64encode(
            hmac.new(key, f"{msg_id}.{stamp}.".encode() + body, hashlib.sha256).digest()
        )
        return any(
            hmac.compare_digest(expected, sig.split(",", 1)[1].encode())
            for sig in headers["webhook-signature"].split()
            if sig.startswith("v1,")
        )

    hook = channel(busy, receiver.url)
    open_silence(busy)
    deliver_due(now=timezone.now())
    [request] = receiver.requests
    headers = {k.lower(): v for k, v in request["headers"].items()}

    assert verify(hook.secret, request["body"], headers)
    assert not verify(hook.secret, request["body"] + b" ", headers)
