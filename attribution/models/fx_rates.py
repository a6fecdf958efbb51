"""Daily reference rates, as 1 EUR = x units of a currency, kept here so that a commission's conversion is
decided from our own table (attribution.fx) and never from a service asked again later."""

from django.db import models


class FxRate(models.Model):
    """One currency's reference rate of one day. Written only by attribution.fx.loading, which never changes
    a stored rate: a conversion locked at it stays explainable."""

    day = models.DateField()
    currency = models.CharField(max_length=3)
    # Units of `currency` per euro, as published (the ECB's carry at most five significant digits, so the
    # value round-trips exactly through SQLite's numbers too).
    per_euro = models.DecimalField(max_digits=18, decimal_places=6)
    source = models.CharField(max_length=16, default="ECB")

    class Meta:
        constraints = [
            # A rate is stored once: a refresh inserts what is missing and leaves the rest.
            models.UniqueConstraint(fields=["day", "currency"], name="fxrate_one_per_day"),
            models.CheckConstraint(name="fxrate_positive", condition=models.Q(per_euro__gt=0)),
        ]
        # fxrate_one_per_day (day, currency) also serves the lookups: the newest day on or before a date, then
        # that day's rates (attribution.fx.lookup).

    def __str__(self):
        return f"{self.day} 1 EUR = {self.per_euro} {self.currency} ({self.source})"
