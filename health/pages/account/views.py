"""The signed-in user's own settings (/health/account/): the time zone her pages and CSV files show
times in (brands.user_zones)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

from brands.user_zones import set_time_zone
from health.pages.account.forms import TimeZoneForm


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
def account(request):
    back = request.POST.get("next") or request.GET.get("next") or ""
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
        back = ""
    if request.method == "POST":
        form = TimeZoneForm(request.POST)
        if form.is_valid():
            set_time_zone(request, form.cleaned_data["time_zone"])
            messages.success(request, f"Times are now shown in {form.cleaned_data['time_zone']}.")
            return redirect(back or reverse("health:account"))
    else:
        form = TimeZoneForm(initial={"time_zone": timezone.get_current_timezone_name()})
    return render(request, "health/account.html", {"form": form, "next": back, "now": timezone.now()})
