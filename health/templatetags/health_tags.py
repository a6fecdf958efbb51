"""Small display helpers for the health pages."""

from django import template
from django.utils.timesince import timesince

from attribution.money import in_minor_units

register = template.Library()


@register.filter
def ago(value, now):
    """'3 hours ago': only the largest unit, so status cards stay on one line."""
    if not value:
        return ""
    if (now - value).total_seconds() < 60:
        return "just now"
    return f"{timesince(value, now, depth=1)} ago"


@register.filter
def num(value):
    """1234567 -> '1,234,567' (independent of locale settings, like the codes beside it)."""
    try:
        return f"{int(value):,}"
    except (TypeError, ValueError):
        return value


@register.filter
def money(value, currency=None):
    """Decimal("-1234.5"), "USD" -> '-1,234.50': in the currency's minor units, thousands grouped."""
    try:
        return f"{in_minor_units(value, currency) if currency else value:,}"
    except (TypeError, ValueError, ArithmeticError):
        return value


@register.filter
def seen_by(person, viewer):
    """Who did something, as `viewer` may see them: an account manager (staff) is "your account manager" to a
    brand user, whose login name is not the brand's to know (docs/threat-model.md, "The pages")."""
    if person is None:
        return ""
    if person.is_staff and not getattr(viewer, "is_staff", False):
        return "your account manager"
    return person.get_username()
