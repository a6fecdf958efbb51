"""Small display helpers for the health pages, and the one markup of their data tables."""

from django import template
from django.template.loader import render_to_string
from django.utils.html import escape
from django.utils.safestring import mark_safe
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


@register.simple_block_tag
def data_table(content, table_id="", *, classes="stack", card=True, label=""):
    """{% data_table "id" %}<thead>…</tbody>{% enddata_table %}: a table of the pages' data in the markup they
    all share (health/_data_table.html): stacked on a phone (`classes`), scrolled sideways rather than wider
    than its card, in a flush card of its own unless `card` is False (in a card with a heading already);
    `label` names it to a screen reader when no heading does."""
    return render_to_string(
        "health/_data_table.html",
        {"content": content, "table_id": table_id, "classes": classes, "card": card, "label": label},
    )


@register.filter
def breakable(value):
    """A domain or an address that may wrap only after its dots, slashes and hyphens (a <wbr> there), never in
    the middle of a word: 'shop.example/api' -> 'shop.<wbr>example/<wbr>api'. Escaped first."""
    text = str(escape(value))
    for mark in (".", "/", "-"):
        text = text.replace(mark, mark + "<wbr>")
    return mark_safe(text)  # noqa: S308  (escaped above; only <wbr> added)
