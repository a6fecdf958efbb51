"""Every answer the API can give, in one place: each outcome code with its HTTP status, label and fix
(codes), what differs by endpoint and the endpoints themselves (endpoints), every sentence an answer carries
(texts), and a service's `Result` with the answer's envelope (results). Services pick a code and a sentence
from here; nothing else writes a user-facing sentence. No database here.

The names below are the package's surface: `from attribution.outcomes import Outcome, Result, say`.
"""

from .codes import OUTCOMES, RECORDED, Outcome, OutcomeInfo
from .endpoints import BY_ENDPOINT, info
from .results import Result, envelope
from .texts import FIELD_FIXES, TEXTS, field_error, say

__all__ = [
    "BY_ENDPOINT",
    "FIELD_FIXES",
    "OUTCOMES",
    "RECORDED",
    "TEXTS",
    "Outcome",
    "OutcomeInfo",
    "Result",
    "envelope",
    "field_error",
    "info",
    "say",
]
