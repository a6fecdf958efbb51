"""Template helpers of the alert pages, and the open incidents shown on top of the overview."""

from django import template

from health.alerts import queries as alert_queries

register = template.Library()


@register.filter
def get_item(mapping, key):
    return mapping.get(key) if mapping else None


@register.inclusion_tag("health/_open_incidents.html", takes_context=True)
def open_incidents(context, brand):
    """The brand's open incidents (a read on incident_open_idx), for the overview's top."""
    return {"incidents": alert_queries.open_incidents(brand), "brand": brand, "now": context.get("now")}
