"""An alert webhook goes out through the one outbound client (config.lib.outbound), played here by the outbound
double: a receiver trickling its answer is cut off at WEBHOOK_TIMEOUT_SECONDS in all and retried later, only the
start of a long answer is read, a redirect is not followed, and an odd form of an address is refused as a form
error, never a crash."""

import httpx
import pytest
from django.utils import timezone

from health.alerts.evaluation import evaluate
from health.alerts.models import Channel, Delivery, DeliveryAttempt
from health.alerts.notify import outbound
from health.alerts.notify.notifications import deliver_due
from health.alerts.notify.webhooks import new_secret
from tests.health.alerting import T0
from tests.outbound_double import Endless, Trickle

pytestmark = pytest.mark.django_db

URL = "https://hooks.example.com/attribution"


def _queued(brand):
    hook = Channel.objects.create(brand=brand, url=URL, secret=new_secret())
    evaluate(now=T0 + timezone.timedelta(hours=2))
    return hook


def test_a_receiver_trickling_its_answer_is_cut_off_at_the_timeout_and_retried(
    settings, busy, outbound_double
):
    settings.WEBHOOK_TIMEOUT_SECONDS = 5.0
    trickle = Trickle(outbound_double, [b"o", b"k"] * 50, seconds=2.0)
    outbound_double.serve("hooks.example.com", lambda request: httpx.Response(200, stream=trickle))
    hook = _queued(busy)

    deliver_due(now=timezone.now())

    delivery = Delivery.objects.get(channel=hook)
    assert delivery.status == Delivery.Status.PENDING and delivery.attempts == 1
    assert DeliveryAttempt.objects.get(channel=hook).error == "no answer within the timeout"
    assert trickle.sent == 3  # 6 s of the double's clock: not a piece past the 5 s


def test_only_the_start_of_a_long_answer_is_read_and_kept(busy, outbound_double):
    endless = Endless(size=100)
    outbound_double.serve("hooks.example.com", lambda request: httpx.Response(200, stream=endless))
    hook = _queued(busy)

    deliver_due(now=timezone.now())

    assert Delivery.objects.get(channel=hook).status == Delivery.Status.DELIVERED
    assert endless.sent == 900  # the first piece past the 800 bytes read


def test_a_redirect_is_not_followed(busy, outbound_double):
    outbound_double.serve(
        "hooks.example.com",
        lambda request: httpx.Response(307, headers={"Location": "http://169.254.169.254/latest/"}),
    )
    hook = _queued(busy)

    deliver_due(now=timezone.now())

    assert outbound_double.hosts_called() == ["hooks.example.com"]
    assert DeliveryAttempt.objects.get(channel=hook).error == "redirects are not followed: use the final URL"


@pytest.mark.parametrize("url", ["https://0177.0.0.1/x", "https://2130706433/x", "https://0x7f.1/x"])
def test_an_odd_form_of_an_address_is_a_form_error(settings, url):
    settings.WEBHOOKS_ALLOW_LOCAL = False

    assert outbound.url_problem(url) == "Write the host as a name, or an IP address in its usual form."
