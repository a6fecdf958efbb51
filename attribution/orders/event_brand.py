"""The host an order confirmation names and the brand it resolves to: the decision's first read, and the
throttles' and the outcome record's for a request that goes no further."""

from brands.resolution import Resolution, resolve_host

from ..outcomes import say


def host_field(payload: dict) -> str | None:
    """The `domain` field, when given, wins over `page_url` (docs/decisions.md, "Brand and property
    resolution"); the name of the one used.

    A domain that is null or blank is not given; one of another type is given, and unreadable.
    """
    domain = payload.get("domain")
    if domain is not None and not (isinstance(domain, str) and not domain.strip()):
        return "domain"
    page_url = payload.get("page_url")
    return "page_url" if page_url is not None and page_url != "" else None


def resolve_event(payload: dict) -> Resolution:
    source = payload.get(host_field(payload) or "page_url")
    return resolve_host(source) if isinstance(source, str) else Resolution(host=None)


def unresolved_text(payload: dict, resolution: Resolution) -> str:
    field = host_field(payload)
    if field is None:
        return say("order.page_url_missing")
    if resolution.host is None:
        return say("order.host_unreadable", field=field)
    return say("order.no_brand", host=resolution.host)


def brand_id_of_order_event(payload) -> int | None:
    """The brand an order confirmation body resolves to, for the outcome record of a failed request."""
    if not isinstance(payload, dict):
        return None
    brand = resolve_event(payload).brand
    return brand.id if brand else None


def host_of_order_event(payload) -> str:
    """The host an order confirmation body names (its domain or page_url), normalized; "" when none."""
    return (resolve_event(payload).host or "") if isinstance(payload, dict) else ""
