"""A plan document as the Commission plan page says it to a person: a rule's conditions ("SKU DEMO-KIT and
returning customers"), what it pays ("25 % + 3.00 USD per unit"), and the version's base, minimum, caps and
tiers. Works on the stored document as written (its lists keep the brand's order); the creators it names
are looked up once for the brand."""

from decimal import Decimal, InvalidOperation

from attribution.money import in_minor_units
from attribution.plans.document import LINE_CONDITIONS
from brands.models import Creator

CUSTOMERS = {"new": "new customers", "returning": "returning customers"}
# A condition's name in the singular and the plural, as a list of values reads after it.
NAMED = {
    "skus": ("SKU", "SKUs"),
    "product_ids": ("product", "products"),
    "collections": ("collection", "collections"),
    "vendors": ("vendor", "vendors"),
}


def creator_names(brand, document: dict) -> dict[int, str]:
    """{creator id: name} of every creator the document's rules name, in one query for the brand."""
    ids = {
        int(i)
        for rule in document.get("rules") or ()
        for i in ((rule.get("when") or {}).get("creators") or ())
        if str(i).isdigit()
    }
    if not ids:
        return {}
    return dict(Creator.objects.filter(brand=brand, pk__in=ids).values_list("pk", "name"))


def amount(value, currency: str) -> str:
    """'20.00 USD': a plan amount in the currency's minor units, thousands grouped."""
    try:
        return f"{in_minor_units(Decimal(str(value)), currency):,} {currency}"
    except (InvalidOperation, TypeError, ValueError):
        return f"{value} {currency}"


def conditions(when: dict | None, *, currency: str, names: dict[int, str]) -> str:
    """'SKU DEMO-KIT and returning customers': every condition of a rule's `when`, joined with "and" as they
    must all hold; "every order" when it has none."""
    said = []
    for key, value in (when or {}).items():
        if key == "creators":
            people = [_creator(i, names) for i in value]
            said.append(f"{'creator' if len(people) == 1 else 'creators'} {', '.join(people)}")
        elif key in NAMED:
            one, many = NAMED[key]
            said.append(f"{one if len(value) == 1 else many} {', '.join(str(v) for v in value)}")
        elif key == "customer":
            said.append(CUSTOMERS.get(value, f"{value} customers"))
        elif key == "order_amount_at_least":
            said.append(f"order of at least {amount(value, currency)}")
    return " and ".join(said) or "every order"


def pays(rate: dict, *, currency: str, per_line: bool) -> str:
    """'25 %', '3.00 USD per unit' (a line rule) or 'per order' (an order rule or the default), or both."""
    said = []
    if rate.get("percent") not in (None, ""):
        said.append(f"{rate['percent']} %")
    if rate.get("flat") not in (None, ""):
        said.append(f"{amount(rate['flat'], currency)} {'per unit' if per_line else 'per order'}")
    return " + ".join(said) or "nothing"


def rules(document: dict, *, names: dict[int, str]) -> list[dict]:
    """The document's rules in their order, each with `when` and `pays` as sentences and whether it is
    judged line by line."""
    currency = document.get("currency", "")
    shown = []
    for rule in document.get("rules") or ():
        when = rule.get("when") or {}
        per_line = any(key in when for key in LINE_CONDITIONS)
        shown.append(
            {
                "name": rule.get("name", ""),
                "when": conditions(when, currency=currency, names=names),
                "pays": pays(rule, currency=currency, per_line=per_line),
                "per_line": per_line,
            }
        )
    return shown


def terms(document: dict) -> list[tuple[str, str]]:
    """(term, sentence) for the version's base, and its minimum, caps and tiers when it sets them."""
    currency = document.get("currency", "")
    base = {"after_discounts": True, "shipping": False, "tax": False, **(document.get("base") or {})}
    said = [
        (
            "Base",
            ("after discounts" if base["after_discounts"] else "before discounts")
            + (", with shipping" if base["shipping"] else ", without shipping")
            + (", with tax" if base["tax"] else ", without tax"),
        )
    ]
    if document.get("minimum_order_amount") not in (None, ""):
        said.append(
            (
                "Minimum order",
                f"{amount(document['minimum_order_amount'], currency)}: below it the order is credited, "
                "its commission is 0",
            )
        )
    if document.get("cap_per_order") not in (None, ""):
        said.append(("Cap per order", amount(document["cap_per_order"], currency)))
    if document.get("cap_per_creator_month") not in (None, ""):
        said.append(
            ("Cap per creator a month", f"{amount(document['cap_per_creator_month'], currency)} (UTC months)")
        )
    for tier in document.get("tiers") or ():
        said.append(("Tier", _tier(tier, currency)))
    return said


def _tier(tier: dict, currency: str) -> str:
    if tier.get("metric") == "revenue":
        reached = f"once a creator's revenue reaches {amount(tier.get('from'), currency)}"
    else:
        reached = f"once a creator has {tier.get('from')} orders"
    said = f"{tier.get('percent')} % {reached} in a calendar month"
    if tier.get("retroactive"):
        return said + ", and her earlier orders of the month are paid the difference"
    return said + ", on the orders from there on"


def _creator(value, names: dict[int, str]) -> str:
    try:
        pk = int(value)
    except (TypeError, ValueError):
        return str(value)
    return f"{names[pk]} (#{pk})" if pk in names else f"#{pk}"
