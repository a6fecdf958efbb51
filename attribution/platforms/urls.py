"""One receiver per registered storefront platform (attribution.platforms.registry), at /api/platforms/<name>
and reversed as "platforms:<name>", with or without a trailing slash and never redirected, as the event API's
paths (docs/decisions.md, "Paths")."""

from django.urls import re_path

from .base import Receiver
from .registry import platforms

app_name = "platforms"

urlpatterns = [
    re_path(rf"^{platform.name}/?$", Receiver.as_view(platform=platform), name=platform.name)
    for platform in platforms()
]
