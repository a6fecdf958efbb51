"""The user's own settings: the time zone every page and CSV export shows times in."""

from django import forms

from brands.timezones import time_zones


class TimeZoneForm(forms.Form):
    time_zone = forms.ChoiceField(
        label="Time zone",
        help_text="Times on every page and in CSV exports are shown in this zone.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["time_zone"].choices = [(name, name.replace("_", " ")) for name in time_zones()]
