"""The minimal-schema floor's routes: the project's three event paths, the Django floor's view, the
minimal tables' statements."""

from django.urls import path

from bench.floor.views import FloorView

from .schema import MINIMAL

urlpatterns = [
    path("api/order_confirmation", FloorView.as_view(endpoint="order_confirmation", sql=MINIMAL)),
    path("api/Affiliates/cancel", FloorView.as_view(endpoint="cancel", sql=MINIMAL)),
    path("api/Affiliates/update", FloorView.as_view(endpoint="update", sql=MINIMAL)),
]
