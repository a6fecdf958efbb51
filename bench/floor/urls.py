"""The Django floor's routes: the project's three event paths, so the same wrk scripts drive both."""

from django.urls import path

from .views import FloorView

urlpatterns = [
    path("api/order_confirmation", FloorView.as_view(endpoint="order_confirmation")),
    path("api/Affiliates/cancel", FloorView.as_view(endpoint="cancel")),
    path("api/Affiliates/update", FloorView.as_view(endpoint="update")),
]
