"""The review alerts (docs/alerts.md, "Review"), on a clock the tests move by hand: a hold waiting longer
than the brand's review time opens an incident that resolves once no hold waits that long; a code the review
figures flag as leaking opens one naming the code, a creator they flag as a refund-rate outlier one naming
her; each resolves when the flag goes. Each is on by default and switched off on the brand's rule set."""

from datetime import timedelta

import pytest

from attribution.models import Commission, CommissionHold, ReviewFlag, ReviewSettings
from health.alerts.descriptions import describe
from health.alerts.evaluation import evaluate
from health.alerts.models import AlertRuleSet, Incident, Notification
from tests import factories
from tests.health.alerting import T0
from tests.health.reviewing import held

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)
MINUTE = timedelta(minutes=1)


def opened(result):
    return [(i.brand_id, i.rule, i.subject) for i in result.opened]


def decide(commission, decision=CommissionHold.Decision.RELEASED, *, at):
    """What a release leaves behind, written directly: the commission pending, its holds decided."""
    Commission.objects.filter(pk=commission.pk).update(state=Commission.State.PENDING, updated_at=at)
    CommissionHold.objects.filter(commission=commission).update(decision=decision, decided_at=at)


def leak_flag(brand, code, *, at=T0):
    return ReviewFlag.objects.create(
        brand=brand,
        kind=ReviewFlag.Kind.CODE_SHARE,
        discount_code=code,
        detail=f"code {code.code}: 41 of its last 50 orders came without a click from Ana; its normal is 12 of 50",
        figures={"code_only": 41, "orders": 50, "normal": 12},
        computed_at=at,
    )


def refund_flag(brand, creator, *, at=T0):
    return ReviewFlag.objects.create(
        brand=brand,
        kind=ReviewFlag.Kind.REFUND_RATE,
        creator=creator,
        detail=f"{creator.name}: 9 of her 30 attributed orders of the last 90 days were cancelled or refunded "
        "(30 %), against 8 % for the brand",
        figures={"orders": 30, "refunded": 9},
        computed_at=at,
    )


# --- holds waiting for review ------------------------------------------------------------------------


def test_a_hold_waiting_longer_than_the_review_time_opens_an_incident(brand, creator):
    held(brand, creator, "A-1", at=T0)
    held(brand, creator, "A-2", at=T0 + 2 * DAY)

    assert opened(evaluate(now=T0 + 7 * DAY)) == []  # exactly the review time: not longer

    result = evaluate(now=T0 + 7 * DAY + MINUTE)

    assert opened(result) == [(brand.pk, "review_overdue", "")]
    incident = result.opened[0]
    assert incident.counts == {"overdue": 1, "oldest_days": 7, "review_days": 7}
    said = describe(incident)
    assert said.title == "Holds waiting for review"
    assert (
        said.summary
        == "1 held commission has waited longer than your review time of 7 days; the oldest 7 days."
    )
    assert "Review page" in said.fix
    assert list(Notification.objects.filter(incident=incident).values_list("kind", flat=True)) == ["opened"]


def test_it_stays_open_while_any_hold_waits_too_long_and_resolves_when_none_does(brand, creator):
    first = held(brand, creator, "A-1", at=T0)
    second = held(brand, creator, "A-2", at=T0 + DAY)
    incident = evaluate(now=T0 + 8 * DAY + MINUTE).opened[0]
    assert incident.counts["overdue"] == 2

    decide(first, at=T0 + 9 * DAY)
    assert evaluate(now=T0 + 9 * DAY + MINUTE).resolved == []  # the second still waits

    decide(second, CommissionHold.Decision.REJECTED, at=T0 + 10 * DAY)
    result = evaluate(now=T0 + 10 * DAY + MINUTE)

    assert result.resolved == [incident]
    assert Incident.objects.get().resolved_at == T0 + 10 * DAY + MINUTE
    assert sorted(Notification.objects.values_list("kind", flat=True)) == ["opened", "resolved"]
    assert opened(evaluate(now=T0 + 11 * DAY)) == []


def test_the_review_time_is_the_brands_own(brand, creator, other_brand):
    ReviewSettings.objects.create(brand=brand, review_days=2)
    held(brand, creator, "A-1", at=T0)
    held(other_brand, factories.CreatorFactory(brand=other_brand, name="Gus"), "G-1", at=T0)

    result = evaluate(now=T0 + 2 * DAY + MINUTE)

    assert opened(result) == [(brand.pk, "review_overdue", "")]  # Globex keeps the default 7 days
    assert result.opened[0].counts["review_days"] == 2


def test_test_holds_and_decided_holds_never_count(brand, creator):
    held(brand, creator, "T-1", at=T0, is_test=True)
    decide(held(brand, creator, "A-1", at=T0), at=T0 + DAY)

    assert opened(evaluate(now=T0 + 30 * DAY)) == []


def test_a_commission_with_two_holds_counts_once(brand, creator):
    held(brand, creator, "A-1", at=T0, rules=("self_referral", "disposable_email"))

    assert evaluate(now=T0 + 8 * DAY).opened[0].counts["overdue"] == 1


def test_turning_the_overdue_alert_off_resolves_it(brand, creator):
    held(brand, creator, "A-1", at=T0)
    incident = evaluate(now=T0 + 8 * DAY).opened[0]

    AlertRuleSet.objects.create(brand=brand, review_overdue_enabled=False)

    assert evaluate(now=T0 + 8 * DAY + MINUTE).resolved == [incident]
    assert opened(evaluate(now=T0 + 8 * DAY + 2 * MINUTE)) == []


# --- a leaked code, a refund-rate outlier -----------------------------------------------------------


def test_a_leaking_code_opens_an_incident_naming_the_code_until_the_flag_goes(brand, creator):
    code = factories.DiscountCodeFactory(brand=brand, creator=creator, code="ANA10")
    flag = leak_flag(brand, code)

    result = evaluate(now=T0 + MINUTE)

    assert opened(result) == [(brand.pk, "code_leak", str(code.pk))]
    incident = result.opened[0]
    said = describe(incident)
    assert said.title == "Code leak suspected: ANA10"
    assert said.summary == (
        "Code ANA10: 41 of its last 50 orders came without a click from Ana; its normal is 12 of 50."
    )
    assert incident.counts["figures"] == {"code_only": 41, "orders": 50, "normal": 12}
    assert opened(evaluate(now=T0 + 2 * MINUTE)) == []  # one incident while the flag stands

    flag.delete()  # the next refresh of the figures found it back near its normal
    assert evaluate(now=T0 + DAY).resolved == [incident]


def test_each_leaking_code_has_its_own_incident(brand, creator):
    codes = [factories.DiscountCodeFactory(brand=brand, creator=creator, code=c) for c in ("ANA10", "ANA20")]
    for code in codes:
        leak_flag(brand, code)

    assert sorted(opened(evaluate(now=T0 + MINUTE))) == sorted(
        (brand.pk, "code_leak", str(code.pk)) for code in codes
    )


def test_a_refund_rate_outlier_opens_an_incident_naming_her_until_the_flag_goes(brand, creator):
    flag = refund_flag(brand, creator)

    result = evaluate(now=T0 + MINUTE)

    assert opened(result) == [(brand.pk, "refund_outlier", str(creator.pk))]
    said = describe(result.opened[0])
    assert said.title == "Refund rate above yours: Ana"
    assert said.summary.startswith("Ana: 9 of her 30 attributed orders of the last 90 days")

    flag.delete()
    assert evaluate(now=T0 + DAY).resolved == result.opened


def test_the_brand_turns_the_leak_and_refund_alerts_off(brand, creator):
    leak_flag(brand, factories.DiscountCodeFactory(brand=brand, creator=creator, code="ANA10"))
    refund_flag(brand, creator)
    rules = AlertRuleSet.objects.create(brand=brand, code_leak_enabled=False, refund_outlier_enabled=False)

    assert opened(evaluate(now=T0 + MINUTE)) == []

    rules.refund_outlier_enabled = True
    rules.save()
    assert [i.rule for i in evaluate(now=T0 + 2 * MINUTE).opened] == ["refund_outlier"]


def test_another_brands_flags_open_its_own_incidents(brand, other_brand):
    gus = factories.CreatorFactory(brand=other_brand, name="Gus")
    refund_flag(other_brand, gus)

    assert opened(evaluate(now=T0 + MINUTE)) == [(other_brand.pk, "refund_outlier", str(gus.pk))]


def test_the_brands_users_are_emailed_when_a_code_leak_opens(brand, creator):
    from django.core import mail

    from health.alerts.notify.notifications import deliver_due

    factories.MembershipFactory(brand=brand, user__username="alice", user__email="alice@acme.example")
    leak_flag(brand, factories.DiscountCodeFactory(brand=brand, creator=creator, code="ANA10"))
    incident = evaluate(now=T0 + MINUTE).opened[0]

    deliver_due(now=T0 + 2 * MINUTE)

    [email] = mail.outbox
    assert email.to == ["alice@acme.example"]
    assert email.subject == "[Acme] Opened: Code leak suspected: ANA10"
    assert "41 of its last 50 orders came without a click from Ana" in email.body
    assert f"/health/alerts/incidents/{incident.pk}/?brand={brand.pk}" in email.body
