"""The alert webhook sender: a notification attempt to one webhook channel, signed per Standard Webhooks (or
in Slack's format for a Slack URL), posted through health.alerts.notify.outbound; and a channel's secret and
format."""

import json
import secrets
import time
from base64 import b64encode
from datetime import UTC, datetime

from standardwebhooks.webhooks import Webhook

from config.lib.outbound import BadAnswer, DeadlineExceeded, Refused, Unreachable
from health.alerts.models import Channel, Delivery
from health.alerts.notify import outbound
from health.alerts.notify.attempts import NotificationAttempt, elapsed_ms
from health.alerts.notify.messages import message

USER_AGENT = "creator-attribution-webhooks/1"
SLACK_HOSTS = ("hooks.slack.com",)


def new_secret() -> str:
    """A Standard Webhooks secret: whsec_ and 24 random bytes in base64."""
    return "whsec_" + b64encode(secrets.token_bytes(24)).decode("ascii")


def format_for(url: str) -> str:
    """The format a URL's receiver expects: Slack's incoming webhooks take {"text": ...}."""
    host = (url.split("://", 1)[-1].split("/", 1)[0].rsplit("@", 1)[-1].split(":", 1)[0]).lower()
    return Channel.Format.SLACK if host in SLACK_HOSTS else Channel.Format.STANDARD


def webhook_request(delivery: Delivery, now: datetime) -> tuple[bytes, dict[str, str]]:
    """The body and headers of a webhook delivery: Standard Webhooks (signed), or Slack's {"text": ...}."""
    said = message(delivery)
    channel = delivery.channel
    headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT}
    if channel.format == Channel.Format.SLACK:
        link = said["incident"]["url"] if said.get("incident") else said["url"]
        who = f"[{said['brand']['name']}] " if said["brand"] else ""
        body = {"text": f"*{who}{said['title']}*\n{said['text']}\n<{link}|Open in Creator attribution>"}
        return json.dumps(body).encode(), headers
    payload = {"type": said["type"], "timestamp": now.astimezone(UTC).isoformat(), "data": said}
    data = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    # Same id on every attempt, so a receiver can drop a repeat.
    msg_id = f"msg_{delivery.notification_id}"
    headers |= {
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": Webhook(channel.secret).sign(msg_id, now.astimezone(UTC), data),
    }
    return data.encode("utf-8"), headers


def send_webhook(delivery: Delivery, now: datetime) -> NotificationAttempt:
    if not delivery.channel.is_active:
        return NotificationAttempt(False, error="not sent: the channel was removed")
    body, headers = webhook_request(delivery, now)
    started = time.monotonic()
    try:
        response = outbound.post(delivery.channel.url, body, headers)
    except Refused as exc:
        return NotificationAttempt(False, error=f"not sent: {exc}")
    except DeadlineExceeded:
        return NotificationAttempt(
            False, error="no answer within the timeout", retry=True, duration_ms=elapsed_ms(started)
        )
    except Unreachable as exc:  # refused, reset, unresolvable
        return NotificationAttempt(
            False, error=f"connection failed: {exc}", retry=True, duration_ms=elapsed_ms(started)
        )
    except BadAnswer as exc:
        return NotificationAttempt(
            False, error=f"bad answer: {exc}", retry=True, duration_ms=elapsed_ms(started)
        )
    code = response.status
    if 200 <= code < 300:
        return NotificationAttempt(True, status_code=code, duration_ms=response.duration_ms)
    retry = code >= 500 or code in (408, 429)
    note = "redirects are not followed: use the final URL" if 300 <= code < 400 else response.body
    return NotificationAttempt(
        False, status_code=code, error=note, retry=retry, duration_ms=response.duration_ms
    )
