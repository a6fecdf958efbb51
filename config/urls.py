from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from attribution import links
from attribution.api.views import api_not_found

handler500 = "attribution.api.views.server_error"

# The admin's "View site" and a bare visit to the service lead to the tracking health pages.
admin.site.site_url = "/health/"
admin.site.site_header = admin.site.site_title = "Creator attribution admin"

# Creator links (reverse as "links:follow"). A trailing slash is accepted: some apps append one.
link_patterns = [re_path(r"^(?P<code>[A-Za-z0-9_-]{1,64})/?$", links.follow, name="follow")]

urlpatterns = [
    # The event endpoints first: every event is resolved against each pattern before its own, which took
    # half of its resolution's time behind the schema, docs and reconciliation paths (docs/performance.md).
    path("api/", include("attribution.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves Swagger UI's start-up script as a file: the Content-Security-Policy allows no inline one.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="docs"),
    # The reconciliation of a brand's order book, a way in of its own beside the event API (docs/reconciliation.md).
    re_path(r"^api/Affiliates/", include("attribution.reconciliation.urls")),
    # Storefront platforms' order webhooks, one receiver per platform (docs/integration.md, "Storefront platforms").
    path("api/platforms/", include("attribution.platforms.urls")),
    re_path(r"^api/", api_not_found),
    path("admin/", admin.site.urls),
    path("accounts/login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("health/", include("health.urls")),
    path("l/", include((link_patterns, "links"))),
    path("", RedirectView.as_view(url="/health/"), name="home"),
]

if settings.BENCHMARK:
    from config.bench import baseline

    urlpatterns.insert(1, path("api/bench/baseline", baseline))  # after the events, as in production
