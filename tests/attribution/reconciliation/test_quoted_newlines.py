"""A row whose quoted cells hold line breaks spans many short lines, so the 1 MB line cap alone never stopped it:
the CSV reader built the whole row before its columns were counted (a 20 MB body of "\\n" cells took about
45 MB). A row is capped at 1 MB, its lines together, and refused naming the line it starts on
(docs/reconciliation.md, "Limits and bad input")."""

import pytest

from attribution.models import Reconciliation
from tests.attribution.reconciliation.conftest import summary_of

pytestmark = pytest.mark.django_db

MB = 1024 * 1024


def test_a_row_of_quoted_newlines_over_1_mb_is_refused_naming_its_first_line(alice, upload):
    text = "order_id,amount,currency\nQ-1,10.00,USD\nQ-2,10.00,USD" + ',"\n"' * (MB // 4) + "\n"

    answer = upload(text, alice)

    assert (answer.status_code, answer.json()["outcome"]) == (400, "invalid_params"), answer.content
    assert answer.json()["error"] == (
        "The row starting on line 3 is longer than 1 MB. Fix: export the orders again; a book's row holds "
        "one order's columns."
    )
    assert not Reconciliation.objects.exists()


def test_a_row_with_a_few_quoted_line_breaks_is_read(brand, alice, upload):
    text = 'order_id,amount,currency,note\nQ-1,10.00,USD,"gift wrap\nleave at the door"\nQ-2,12.00,USD,\n'

    run = summary_of(upload(text, alice))

    assert run["row_count"] == 2


def test_rows_under_1_mb_each_are_read_however_many_lines_they_span(brand, alice, upload):
    note = '"' + "\n" * 100_000 + '"'  # a cell holds at most 128 KiB
    text = f"order_id,amount,currency,note\nQ-1,10.00,USD,{note}\nQ-2,12.00,USD,{note}\n"

    run = summary_of(upload(text, alice))

    assert run["row_count"] == 2
