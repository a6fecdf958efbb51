"""Commissions without a conversion, converted at their own orders' dates: those stored before conversion
existed (once, by migration 0024 and `convert_commissions`), and those whose currency had no rate when they
were created, once it has one (the daily refresh). A converted commission is never converted again."""

from django.db import transaction

from brands.models import DEFAULT_REPORTING_CURRENCY, Brand, PlatformConnection

from ..models import Commission
from . import conversion

BATCH = 1000


def brand_currencies(brand_ids, *, brand_model=Brand, connection_model=PlatformConnection) -> dict[int, str]:
    """Each brand's reporting currency now (brands.models.Brand.reporting_currency_now, for historical models
    too: the migration passes its own)."""
    shops: dict[int, str] = {}
    for connection in connection_model.objects.filter(
        brand_id__in=brand_ids, is_enabled=True, approved_at__isnull=False
    ).order_by("-id"):
        shop = getattr(connection, "shop_currency", "") or ""
        if shop:
            shops[connection.brand_id] = shop.upper()
    return {
        pk: own or shops.get(pk, DEFAULT_REPORTING_CURRENCY)
        for pk, own in brand_model.objects.filter(pk__in=brand_ids).values_list("pk", "reporting_currency")
    }


def convert_unconverted(
    *, retry: bool = False, commission_model=Commission, rate_model=None, **brand_models
) -> tuple[int, int]:
    """Convert commissions never converted (and with `retry`, those that had no rate); returns (converted,
    still without a rate). A row changed meanwhile is left for the next run (the update is guarded by the
    amount it was converted from)."""
    waiting = commission_model.objects.filter(reporting_amount__isnull=True)
    if not retry:
        waiting = waiting.filter(reporting_currency="")
    currencies = brand_currencies(
        list(waiting.order_by().values_list("brand_id", flat=True).distinct()), **brand_models
    )
    converted = missing = 0
    last = 0
    while True:
        batch = list(
            waiting.filter(pk__gt=last)
            .order_by("pk")
            .values_list("pk", "brand_id", "amount", "currency", "reporting_currency", "order__received_at")[
                :BATCH
            ]
        )
        if not batch:
            return converted, missing
        last = batch[-1][0]
        with transaction.atomic():
            for pk, brand_id, amount, currency, locked_to, received_at in batch:
                to = locked_to or currencies.get(brand_id, DEFAULT_REPORTING_CURRENCY)
                done = conversion.convert(amount, currency, to=to, ordered_at=received_at, model=rate_model)
                changed = commission_model.objects.filter(
                    pk=pk, amount=amount, reporting_amount__isnull=True
                ).update(**conversion.columns(done))
                if changed and done.converted:
                    converted += 1
                elif changed:
                    missing += 1
