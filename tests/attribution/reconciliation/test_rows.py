"""GET /api/Affiliates/reconciliations/<id>: the summary and the book's rows, 1,000 a page, by category;
another brand's run is a 404 on every path of a run."""

import pytest

from attribution.models import Reconciliation
from tests.attribution.reconciliation.conftest import URL, book, summary_of

pytestmark = pytest.mark.django_db


def test_it_answers_the_summary_and_the_rows(brand, alice, upload, client):
    run = summary_of(upload(book("R-1,10,USD,,,,,", "R-2,x,USD,,,,,"), alice))

    answer = client.get(f"{URL}/{run['id']}", **alice.headers)

    assert answer.status_code == 200
    got = answer.json()["reconciliation"]
    assert {k: v for k, v in got.items() if k not in ("page", "pages", "rows")} == run
    assert (got["page"], got["pages"]) == (1, 1)
    assert got["rows"] == [
        {
            "line": 2,
            "order_id": "R-1",
            "status": "missing",
            "detail": "Never received: no order confirmation with this order id arrived. It would be recorded as "
            "no_attribution, without a commission.",
        },
        {"line": 3, "order_id": "R-2", "status": "invalid", "detail": got["rows"][1]["detail"]},
    ]


def test_rows_are_paged_by_a_thousand(brand, alice, upload, client):
    run = summary_of(upload(book(*(f"P-{n},10,USD,,,,," for n in range(1, 1502))), alice))

    second = client.get(f"{URL}/{run['id']}", {"page": 2}, **alice.headers).json()["reconciliation"]

    assert (second["page"], second["pages"], len(second["rows"])) == (2, 2, 501)
    assert second["rows"][0]["line"] == 1002


def test_a_page_beyond_the_last_is_empty(brand, alice, upload, client):
    run = summary_of(upload(book("P-1,10,USD,,,,,"), alice))

    got = client.get(f"{URL}/{run['id']}", {"page": 3}, **alice.headers).json()["reconciliation"]

    assert (got["pages"], got["rows"]) == (1, [])


def test_rows_are_filtered_by_category(brand, alice, upload, client):
    run = summary_of(upload(book("F-1,10,USD,,,,,", "F-2,x,USD,,,,,", "F-3,10,USD,,,,,"), alice))

    got = client.get(f"{URL}/{run['id']}", {"status": "invalid"}, **alice.headers).json()["reconciliation"]

    assert [r["order_id"] for r in got["rows"]] == ["F-2"]


@pytest.mark.parametrize("query", [{"page": "0"}, {"page": "two"}, {"status": "lost"}])
def test_it_refuses_an_unreadable_page_or_category(brand, alice, upload, client, query):
    run = summary_of(upload(book("F-1,10,USD,,,,,"), alice))

    answer = client.get(f"{URL}/{run['id']}", query, **alice.headers)

    assert (answer.status_code, answer.json()["outcome"]) == (400, "invalid_params")


def test_it_reads_a_page_with_a_fixed_number_of_queries(
    brand, alice, upload, client, django_assert_max_num_queries
):
    run = summary_of(upload(book(*(f"Q-{n},10,USD,,,,," for n in range(1200))), alice))

    with django_assert_max_num_queries(8):
        assert client.get(f"{URL}/{run['id']}", **alice.headers).status_code == 200


class TestAccess:
    def test_another_brands_run_is_404_on_every_path(self, brand, alice, bob, upload, client):
        run = summary_of(upload(book("X-1,10,USD,,,,,"), alice))

        for answer in (
            client.get(f"{URL}/{run['id']}", **bob.headers),
            client.get(f"{URL}/{run['id']}/", **bob.headers),
            client.get(f"{URL}/{run['id']}", {"page": 1, "status": "missing"}, **bob.headers),
            client.post(f"{URL}/{run['id']}/apply", **bob.headers),
            client.post(f"{URL}/{run['id']}/apply/", **bob.headers),
        ):
            assert answer.status_code == 404
            assert answer.json() == {
                "success": False,
                "outcome": "not_found",
                "error": f"Your brand has no reconciliation {run['id']}.",
            }
        assert Reconciliation.objects.get().applied_at is None

    def test_an_unknown_run_is_404(self, alice, client):
        assert client.get(f"{URL}/999999", **alice.headers).status_code == 404

    def test_no_key_or_a_wrong_key_is_401(self, brand, alice, upload, client):
        run = summary_of(upload(book("X-1,10,USD,,,,,"), alice))

        assert client.get(f"{URL}/{run['id']}").status_code == 401
        assert client.get(f"{URL}/{run['id']}", HTTP_AUTHORIZATION="Bearer nope.nope").status_code == 401
        assert client.post(f"{URL}/{run['id']}/apply").status_code == 401
        assert Reconciliation.objects.get().applied_at is None
