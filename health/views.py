"""Tracking health pages for brand users (decision D15)."""

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse


@login_required
def overview(request):
    return HttpResponse("Tracking health")
