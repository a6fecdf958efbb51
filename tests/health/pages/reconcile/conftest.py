"""The Reconcile page's tests (/health/reconcile/): Acme's commissions, its order book and a run of it
uploaded by alice (Acme's user; bob is Globex's), and reading a page as text."""

import re
from html import unescape

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from attribution.models import Reconciliation
from tests import factories
from tests.attribution.keyed import commission_for

PAGE = "/health/reconcile/"


BOOK = (
    "order_id,amount,currency,status,code,ordered_at\n"
    "A-1,100.00,USD,completed,,2026-11-20T10:00:00Z\n"
    "A-2,80.00,USD,completed,,2026-11-20T11:00:00Z\n"
    "A-3,50.00,USD,refunded,,2026-11-21T09:00:00Z\n"
    "A-4,120.00,USD,completed,ANA10,2026-11-21T10:00:00Z\n"
    "=A-5,$12.00,USD,completed,,2026-11-21T10:00:00Z\n"
)


def run_page(run) -> str:
    return f"/health/reconcile/{run.pk}/"


def text_of(response) -> str:
    assert response.status_code == 200, response.content.decode()[:2000]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", unescape(response.content.decode()))).strip()


def book_file(text=BOOK, name="book.csv"):
    return SimpleUploadedFile(name, text.encode(), content_type="text/csv")


@pytest.fixture
def acme(brand, prop, creator):
    factories.DiscountCodeFactory(brand=brand, code="ANA10", creator=creator)
    commission_for(brand, order_id="A-1", order_amount="100.00")
    commission_for(brand, order_id="A-2", order_amount="100.00")
    commission_for(brand, order_id="A-3", order_amount="50.00")
    return brand


@pytest.fixture
def uploaded(alice_client, acme):
    alice_client.post(PAGE, {"file": book_file()})
    return Reconciliation.objects.get()
