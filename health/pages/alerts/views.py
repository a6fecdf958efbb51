"""The alerts pages (/health/alerts/): open and recent incidents, the brand's rules, its webhook channels with
their delivery logs and a test button, and one incident's page. The brand is chosen by
health.pages.access.brand_page; reads go through health.alerts.queries.
"""

from urllib.parse import urlencode

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from attribution.review import settings_copy as review_settings
from health.alerts import queries as alert_queries
from health.alerts.forms import ChannelForm, RuleSetForm
from health.alerts.models import Channel, Delivery
from health.alerts.notify import notifications, webhooks
from health.pages.access import brand_page


def _here(brand) -> str:
    return f"{reverse('health:alerts')}?{urlencode({'brand': brand.pk})}"


def _render(request, chosen, *, rules_form=None, channel_form=None, status=200):
    brand, now = chosen.brand, timezone.now()
    context = {
        **chosen.context,
        "now": now,
        "open_incidents": alert_queries.open_incidents(brand),
        "recent_incidents": alert_queries.recent_incidents(brand),
        "rules_form": rules_form or RuleSetForm(instance=alert_queries.rule_set_of(brand)),
        "channel_form": channel_form or ChannelForm(),
        "channels": alert_queries.channels_of(brand),
        "email_log": alert_queries.email_log(brand),
        "recipients": alert_queries.email_recipients(brand),
        "worker": alert_queries.worker_status(now),
        "review_settings": review_settings.settings_of(brand.pk),  # the review time the overdue alert waits
    }
    return render(request, "health/alerts.html", context, status=status)


@require_http_methods(["GET", "HEAD", "POST"])
@brand_page
def alerts(request, chosen):
    if request.method != "POST":
        return _render(request, chosen)
    form = RuleSetForm(request.POST, instance=alert_queries.rule_set_of(chosen.brand))
    if not form.is_valid():
        return _render(request, chosen, rules_form=form, status=400)
    rules = form.save(commit=False)
    rules.brand, rules.updated_at = chosen.brand, timezone.now()
    rules.save()
    messages.success(request, "Alert rules saved. They apply from the next check, within a minute.")
    return redirect(_here(chosen.brand))


@require_POST
@brand_page
def add_channel(request, chosen):
    form = ChannelForm(request.POST)
    if not form.is_valid():
        return _render(request, chosen, channel_form=form, status=400)
    Channel.objects.create(
        brand=chosen.brand,
        url=form.cleaned_data["url"],
        format=form.channel_format(),
        secret=webhooks.new_secret(),
    )
    messages.success(request, "Webhook channel added. Send it a test notification to check your receiver.")
    return redirect(_here(chosen.brand))


@require_POST
@brand_page(find=alert_queries.channel)
def test_channel(request, chosen, found, pk: int):
    delivery = notifications.send_test(found)
    attempt = delivery.attempt_log.first()
    if delivery.status == Delivery.Status.DELIVERED:
        messages.success(request, f"Test notification delivered (HTTP {attempt.status_code}).")
    else:
        why = f"HTTP {attempt.status_code}" if attempt and attempt.status_code else "no answer"
        detail = f": {attempt.error}" if attempt and attempt.error else ""
        retry = " It will be retried." if delivery.status == Delivery.Status.PENDING else ""
        messages.error(request, f"Test notification not delivered ({why}{detail}).{retry}")
    return redirect(_here(chosen.brand))


@require_POST
@brand_page(find=alert_queries.channel)
def remove_channel(request, chosen, found, pk: int):
    # Kept inactive rather than deleted: its delivery log stays with the incidents it told about.
    found.is_active = False
    found.save(update_fields=["is_active"])
    messages.success(request, f"Webhook channel {found.url} removed.")
    return redirect(_here(chosen.brand))


@require_safe
@brand_page(find=alert_queries.incident)
def incident(request, chosen, found, pk: int):
    view = alert_queries.IncidentView(found, alert_queries.describe(found))
    return render(
        request,
        "health/incident.html",
        {
            **chosen.context,
            "view": view,
            "events_query": urlencode({"brand": found.brand_id, **view.said.events_query}),
            "deliveries": alert_queries.deliveries_of(found),
            "last_order_at": view.last_order_at,
            "now": timezone.now(),
        },
    )
