"""Every outcome's label and fix, as the endpoint that answered it names it (attribution.outcomes)."""

import pytest

from attribution.outcomes import OUTCOMES, RECORDED, Outcome, info


def test_a_tracked_order_confirmation_is_attributed():
    assert info(Outcome.TRACKED, "order_confirmation").label == "Attributed: a commission was created"


def test_a_cancel_that_took_effect_is_labelled_cancelled_not_attributed():
    label = info(Outcome.TRACKED, "cancel").label

    assert label.startswith("Cancelled")
    assert "ttributed" not in label


def test_an_update_that_took_effect_is_labelled_updated():
    assert info(Outcome.TRACKED, "update").label.startswith("Updated")


def test_an_update_of_a_cancelled_commission_says_the_total_was_not_applied():
    assert "not applied" in info(Outcome.ALREADY_CANCELLED, "update").label
    assert info(Outcome.ALREADY_CANCELLED, "cancel").label == OUTCOMES[Outcome.ALREADY_CANCELLED].label


def test_the_fix_of_an_unusable_new_total_names_the_update_field_and_allows_zero():
    fix = info(Outcome.INVALID_ORDER_AMOUNT, "update").fix

    assert "new_order_amount" in fix and "0 or more" in fix


@pytest.mark.parametrize("outcome", RECORDED)
@pytest.mark.parametrize("endpoint", ["order_confirmation", "cancel", "update"])
def test_an_endpoint_changes_only_the_words_never_the_status_or_whether_to_act(outcome, endpoint):
    named = info(outcome, endpoint)

    assert (named.status, named.needs_action, named.service_side) == (
        OUTCOMES[outcome].status,
        OUTCOMES[outcome].needs_action,
        OUTCOMES[outcome].service_side,
    )


def test_a_code_this_service_never_gives_has_no_info():
    assert info("retired_code", "cancel") is None
