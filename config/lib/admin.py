"""Admin display helpers with no app knowledge."""

from django.utils import formats, timezone


def saved_time(value, obj) -> str:
    """A creation time, or a dash for a row not saved yet: its default (now) would read as a past event."""
    if obj is None or obj.pk is None or value is None:
        return "–"
    return formats.localize(timezone.localtime(value))
