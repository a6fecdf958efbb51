"""What a service decided for one request (`Result`) and the envelope every answer under /api/ has."""

from dataclasses import dataclass, field

from .codes import OUTCOMES, Outcome
from .texts import say


@dataclass
class Result:
    """What a service decided for one request: the outcome and one sentence about it.

    The shared view turns it into the answer's envelope and the outcome log row; `status` overrides the
    outcome's usual HTTP status (413 for an oversized body), `data` adds fields to the answer.
    """

    outcome: Outcome
    text: str
    brand_id: int | None = None
    order_id: str = ""
    is_test: bool = False
    warnings: list = field(default_factory=list)
    status: int | None = None
    data: dict | None = None
    recorded: bool = (
        False  # its outcome row is written (with the service's own rows, attribution.orders.store)
    )

    def set(self, outcome: Outcome, text: str) -> "Result":
        """Decide the outcome and its sentence; returns the result, so a service can `return result.set(...)`."""
        self.outcome, self.text = outcome, text
        return self

    @property
    def http_status(self) -> int:
        return self.status or OUTCOMES[self.outcome].status

    @property
    def success(self) -> bool:
        return self.http_status < 400

    def body(self) -> dict:
        text = self.text
        # A warning is said in the answer too, so the caller learns of it without the health pages.
        if self.warnings:
            text += "".join(say("answer.warning", warning=warning) for warning in self.warnings)
        return envelope(success=self.success, outcome=str(self.outcome), text=text, **(self.data or {}))


def envelope(*, success: bool, outcome: str, text: str, **extra) -> dict:
    """Every answer under /api/: success, outcome, and message (success) or error (failure)."""
    return {"success": success, "outcome": outcome, "message" if success else "error": text, **extra}
