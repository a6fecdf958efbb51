"""The one way a health page reaches a brand's data (as healthchecks' `_get_project_for_user`).

A brand user sees the brands they are a member of, an account manager (staff) every brand. A page shows
one brand: the one in ?brand=<id> (remembered in the session), else the one picked last, else the user's
first. A brand, event or statement the user may not see is a 404, never an empty page; a user who may see
no brand yet gets the page that says so.

Every page and export is wrapped in `brand_page`; nothing else in health/ filters by the user's brands.
Pages across brands (the portfolio) are for account managers only and wrapped in `staff_page`.
"""

from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.db.models import QuerySet
from django.http import Http404, HttpResponse
from django.shortcuts import render

from brands.models import Brand, brands_visible_to

SESSION_BRAND = "health_brand_id"


@dataclass
class BrandPage:
    """What a page may read: the brand it shows, and the brands the user may switch between."""

    brand: Brand
    choices: list[Brand]  # empty when there is nothing to pick

    @property
    def context(self) -> dict:
        return {"brand": self.brand, "brand_choices": self.choices}


class NoBrand(Exception):
    """The signed-in user may not see any brand yet."""


def visible_brands(user) -> QuerySet:
    """The brands `user` may read."""
    return brands_visible_to(user)


def choose_brand(request, *, brand: Brand | None = None) -> BrandPage:
    """The brand this page shows (`brand` when the page is about one object); Http404 for a ?brand= the
    user may not see, NoBrand when they may see none."""
    # Only id and name are loaded: staff may see thousands of brands.
    visible = list(visible_brands(request.user).only("id", "name").order_by("name", "id"))
    if not visible:
        raise NoBrand
    by_id = {b.pk: b for b in visible}
    if brand is None:
        asked = request.GET.get("brand")
        if asked is not None:
            try:
                brand = by_id[int(asked)]
            except (ValueError, KeyError):
                raise Http404("No such brand.") from None
            if request.session.get(SESSION_BRAND) != brand.pk:
                request.session[SESSION_BRAND] = brand.pk
        else:
            brand = by_id.get(request.session.get(SESSION_BRAND)) or visible[0]
    return BrandPage(brand, visible if len(visible) > 1 else [])


def no_brand_page(request) -> HttpResponse:
    return render(request, "health/no_brand.html", status=403)


def brand_page(view=None, *, find: Callable | None = None):
    """Sign-in required; the view is called as `view(request, page, ...)` with the BrandPage it shows.

    With `find(visible_brands, **kwargs)`, the page is about one object (an event, a statement): `find`
    looks it up among the brands the user may see, a miss is a 404, and the view is called as
    `view(request, page, found, ...)` with the page showing the object's brand.
    """

    def decorate(view):
        @login_required
        @wraps(view)
        def wrapper(request, *args, **kwargs):
            found = None
            if find is not None:
                found = find(visible_brands(request.user), **kwargs)
                if found is None:
                    raise Http404("Nothing here, or not yours.")
            try:
                page = choose_brand(request, brand=found.brand if found is not None else None)
            except NoBrand:
                return no_brand_page(request)
            if found is not None:
                return view(request, page, found, *args, **kwargs)
            return view(request, page, *args, **kwargs)

        return wrapper

    return decorate(view) if view is not None else decorate


def staff_page(view):
    """Sign-in required, account managers (staff) only; the view is called as `view(request, brands, ...)`
    with every brand they may see. Anyone else gets a 404, as for a brand they may not see."""

    @login_required
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_staff:
            raise Http404("No such page.")
        return view(request, visible_brands(request.user), *args, **kwargs)

    return wrapper
