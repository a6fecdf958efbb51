"""The email sender of notifications: one message to each of the brand's users (account managers for a
service-side incident)."""

import time
from datetime import datetime

from django.core.mail import send_mass_mail

from health.alerts.models import Delivery
from health.alerts.notify.attempts import NotificationAttempt, elapsed_ms
from health.alerts.notify.messages import brand_of, email_text, message, recipients


def send_email(delivery: Delivery, now: datetime) -> NotificationAttempt:
    said = message(delivery)
    to = recipients(brand_of(delivery))
    if not to:
        return NotificationAttempt(False, error="no user to email: add an email address to the brand's users")
    subject, body = email_text(said)
    started = time.monotonic()
    try:
        send_mass_mail([(subject, body, None, [address]) for address in to], fail_silently=False)
    except OSError as exc:  # SMTP errors are OSErrors; so is a refused connection
        return NotificationAttempt(False, error=f"mail not sent: {exc}", retry=True)
    return NotificationAttempt(True, error=f"sent to {len(to)} address(es)", duration_ms=elapsed_ms(started))
