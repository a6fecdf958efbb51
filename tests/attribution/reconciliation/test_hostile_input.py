"""What a crafted upload or query string gets (docs/reconciliation.md, "Limits and bad input"): a line over
1 MB or a row over 500 columns is refused with 400 invalid_params naming its line, before it can take memory
out of proportion to its size; query values the schema forbids (an empty `status`, a `column_*` over its
maxLength) are refused as the schema says. Nothing is stored."""

from urllib.parse import urlencode

import pytest

from attribution.models import Reconciliation
from tests.attribution.reconciliation.conftest import URL, book, summary_of

pytestmark = pytest.mark.django_db

MB = 1024 * 1024


def refused(answer) -> str:
    assert (answer.status_code, answer.json()["outcome"]) == (400, "invalid_params"), answer.content
    assert answer.json()["success"] is False
    assert not Reconciliation.objects.exists()
    return answer.json()["error"]


class TestLines:
    def test_a_line_over_1_mb_is_refused_naming_it(self, alice, upload):
        text = book("L-1,10.00,USD,,,,,") + "," * (MB + 1) + "\n"

        error = refused(upload(text, alice))

        assert error == (
            "Line 3 is longer than 1 MB. Fix: export the orders again; a book's line holds one order's columns."
        )

    def test_a_header_over_1_mb_is_refused_as_line_1(self, alice, upload):
        header = ",".join(f"column number {i}" for i in range(80_000)) + "\n"

        assert refused(upload(header + "L-1,10.00,USD\n", alice)).startswith("Line 1 is longer than 1 MB.")

    def test_a_line_of_exactly_1_mb_is_read(self, brand, alice, upload):
        # 100 notes of 10 KB (a cell holds at most 128 KiB), the line's end included in its 1 MB.
        notes = ",".join("x" * 10_000 for _ in range(100))
        line = "L-1,10.00,USD," + notes
        line += "," + "y" * (MB - len(line) - 2) + "\n"
        header = "order_id,amount,currency," + ",".join(f"n{i}" for i in range(101)) + "\n"
        assert len(line.encode()) == MB
        text = header + line

        run = summary_of(upload(text, alice))

        assert run["row_count"] == 1

    def test_the_reconcile_page_refuses_it_alike(self, brand, client):
        from tests import factories

        user = factories.MembershipFactory(brand=brand, user__username="alice-page").user
        client.force_login(user)
        text = ("order_id,amount,currency\n" + "," * (MB + 1) + "\n").encode()
        from django.core.files.uploadedfile import SimpleUploadedFile

        answer = client.post("/health/reconcile/", {"file": SimpleUploadedFile("book.csv", text, "text/csv")})

        assert "Line 2 is longer than 1 MB." in answer.content.decode()
        assert not Reconciliation.objects.exists()


class TestColumns:
    def test_a_header_over_500_columns_is_refused_naming_line_1(self, alice, upload):
        header = "order_id,amount,currency," + ",".join(f"c{i}" for i in range(498)) + "\n"

        error = refused(upload(header + "W-1,10.00,USD\n", alice))

        assert error == (
            "Line 1 has 501 columns; a book has at most 500. Fix: export only the orders' columns."
        )

    def test_a_row_over_500_columns_is_refused_naming_its_line(self, alice, upload):
        text = book("W-1,10.00,USD,,,,,", "W-2,10.00,USD" + "," * 500)

        assert refused(upload(text, alice)).startswith("Line 3 has 503 columns; a book has at most 500.")

    def test_500_columns_are_read(self, brand, alice, upload):
        header = "order_id,amount,currency," + ",".join(f"c{i}" for i in range(497)) + "\n"

        run = summary_of(upload(header + "W-1,10.00,USD" + "," * 497 + "\n", alice))

        assert run["row_count"] == 1


class TestQueryValues:
    @pytest.fixture
    def run(self, brand, alice, upload):
        return summary_of(upload(book("Q-1,10.00,USD,,,,,"), alice))

    def test_an_empty_status_is_refused(self, run, alice, client):
        answer = client.get(f"{URL}/{run['id']}?status=", **alice.headers)

        assert (answer.status_code, answer.json()["outcome"]) == (400, "invalid_params")
        assert answer.json()["error"].startswith("status must be one of matched, ")

    def test_no_status_lists_every_row(self, run, alice, client):
        answer = client.get(f"{URL}/{run['id']}", **alice.headers)

        assert answer.status_code == 200 and len(answer.json()["reconciliation"]["rows"]) == 1

    # In the query string 64 (the request line must fit 8 KB); in a multipart form 255.
    @pytest.mark.parametrize("value", ["x" * 65, " " * 65, "Order Total" + " " * 54])
    def test_a_column_map_over_64_characters_in_the_query_is_refused(self, alice, upload, value):
        answer = upload(book("Q-1,10.00,USD,,,,,"), alice, query=urlencode({"column_amount": value}))

        assert refused(answer) == (
            "column_amount is longer than 64 characters. Fix: name the column as the file's header does."
        )

    def test_a_filename_over_128_characters_in_the_query_is_refused(self, alice, upload):
        answer = upload(book("Q-1,10.00,USD,,,,,"), alice, query=urlencode({"filename": "b" * 129}))

        assert refused(answer) == (
            "filename is longer than 128 characters. Fix: send a shorter name to show the run under."
        )

    def test_a_multipart_column_map_over_255_characters_is_refused(self, alice, client):
        from django.core.files.uploadedfile import SimpleUploadedFile

        answer = client.post(
            URL,
            {
                "file": SimpleUploadedFile("book.csv", book("Q-1,10.00,USD,,,,,").encode(), "text/csv"),
                "column_amount": " " * 256,
            },
            **alice.headers,
        )

        assert refused(answer).startswith("column_amount is longer than 255 characters.")
