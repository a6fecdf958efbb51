"""The health app's models, as Django loads them. Each concept keeps its own: the outcome log in
health.log.models (below attribution, which writes it), alerting in health.alerts.models. Code imports
from those homes; this package only gathers them for the app registry and migrations."""

from health.alerts.models import (  # noqa: F401
    AlertEvaluation,
    AlertRuleSet,
    Channel,
    Delivery,
    DeliveryAttempt,
    Incident,
    Notification,
)
from health.log.models import (  # noqa: F401
    DailyOutcomeCount,
    HourlyOutcomeCount,
    OutcomeEvent,
    RollupWatermark,
)
