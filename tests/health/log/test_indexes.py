"""The outcome log's partial index of "needs your action" rows is built on the outcome table's own list."""

from attribution.outcomes import OUTCOMES
from health.log.models import NEEDS_ACTION_OUTCOMES, OutcomeEvent


def test_the_needs_action_index_covers_exactly_the_outcomes_a_brand_can_fix():
    fixable = {outcome.value for outcome, info in OUTCOMES.items() if info.recorded and info.needs_action}

    assert set(NEEDS_ACTION_OUTCOMES) == fixable
    [index] = [i for i in OutcomeEvent._meta.indexes if i.name == "outcome_brand_action_idx"]
    assert set(dict(index.condition.children)["outcome__in"]) == fixable
