"""The throttles' counters (attribution.http.throttles) when no shared cache is configured."""

from django.db import models


class RateCounter(models.Model):
    """Requests counted for one throttle key in its current window; one row per key, reset by each new window."""

    key = models.CharField(
        max_length=200, primary_key=True
    )  # scope and identity: "order_confirmation:<addr>|<brand>"
    window_ends = models.BigIntegerField()  # when the counted window ends, in epoch seconds
    count = models.PositiveIntegerField(default=0)

    def __str__(self):
        return f"{self.key}: {self.count}"
