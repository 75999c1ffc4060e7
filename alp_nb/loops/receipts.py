"""The minimum receipt of each outcome (the seed's table): a run may not end, or retry, without one.

Every minimum field is required and must hold text, so a receipt with a missing
or blank field cannot be built: the loop must keep the evidence an operator needs
to trust, resume or take over the run. Beyond the minimum, a receipt names the
input version its evidence was gathered against, what the run refused at its
boundary (a disallowed action, an effect over a cap), and an escalation still
open when the run stopped.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, Field, TypeAdapter, ValidationError

from .decision import OUTCOMES, LoopModel, Outcome, Text
from .errors import LoopContractError


class SuccessReceipt(LoopModel):
    """Exit success: gate output + artifact/diff + final state."""

    outcome: Literal["exit-success"] = "exit-success"
    gate_output: Text
    artifact: Text
    final_state: Text
    input_version: Text | None = None
    refused: tuple[Text, ...] = ()


class NoopReceipt(LoopModel):
    """Exit no-op: the query/filter that found nothing + the checkpoint time (proof the trigger ran)."""

    outcome: Literal["exit-noop"] = "exit-noop"
    query: Text
    checkpoint_time: AwareDatetime


class RetryReceipt(LoopModel):
    """Retry: attempt + hypothesis + next action."""

    outcome: Literal["retry-with-new-evidence"] = "retry-with-new-evidence"
    attempt: Annotated[int, Field(ge=1)]
    hypothesis: Text
    next_action: Text
    input_version: Text | None = None


class EscalateReceipt(LoopModel):
    """Escalate: blocker + evidence + the named destination, who owns the item from now on."""

    outcome: Literal["escalate"] = "escalate"
    blocker: Text
    evidence: Text
    destination: Text
    input_version: Text | None = None
    refused: tuple[Text, ...] = ()

    @property
    def owner(self) -> str:
        return self.destination


class StopReceipt(LoopModel):
    """Stop without success: attempts + reason + residual risk, handed to a named owner."""

    outcome: Literal["stop-with-receipt"] = "stop-with-receipt"
    attempts: Annotated[int, Field(ge=0)]
    reason: Text
    residual_risk: Text
    owner: Text
    input_version: Text | None = None
    refused: tuple[Text, ...] = ()
    open_escalation: Text | None = None
    """An escalation that got no answer: it stays open with its destination after the run."""


Receipt = Annotated[
    SuccessReceipt | NoopReceipt | RetryReceipt | EscalateReceipt | StopReceipt,
    Field(discriminator="outcome"),
]

RECEIPT_TYPES: dict[Outcome, type[LoopModel]] = {
    "exit-success": SuccessReceipt,
    "exit-noop": NoopReceipt,
    "retry-with-new-evidence": RetryReceipt,
    "escalate": EscalateReceipt,
    "stop-with-receipt": StopReceipt,
}

RECEIPT_FIELDS: dict[Outcome, tuple[str, ...]] = {
    outcome: tuple(name for name, field in RECEIPT_TYPES[outcome].model_fields.items()
                   if name != "outcome" and field.is_required())
    for outcome in OUTCOMES
}
"""The minimum fields of each outcome's receipt, in the seed's order (the optional ones left out)."""

_RECEIPT = TypeAdapter(Receipt)


def make_receipt(outcome: Outcome, **fields: Any) -> SuccessReceipt | NoopReceipt | RetryReceipt | EscalateReceipt | \
        StopReceipt:
    """The receipt of ``outcome``; ``LoopContractError(RECEIPT_INCOMPLETE)`` names each missing or blank field."""
    if not isinstance(outcome, str) or outcome not in RECEIPT_TYPES:
        raise LoopContractError("UNKNOWN_OUTCOME", f"unknown outcome `{outcome!r}`; known: {', '.join(OUTCOMES)}")
    try:
        return _RECEIPT.validate_python({**fields, "outcome": outcome})
    except ValidationError as error:
        issues = tuple(f"{'.'.join(str(part) for part in issue['loc'][1:])}: {issue['msg']}"
                       for issue in error.errors())
        raise LoopContractError("RECEIPT_INCOMPLETE", f"the receipt of `{outcome}` needs "
                                f"{', '.join(RECEIPT_FIELDS[outcome])}", issues) from None


class CapHit(LoopModel):
    """A cap or budget a step ran into: the JSON path it is written at, and what it allows
    (``objective``: ``at most 3 pull requests``; ``budget.max_retries``: ``3 retries``)."""

    path: Text
    cap: Text

    def __str__(self) -> str:
        return f"{self.cap} ({self.path})"


def receipt_owner(receipt: Any) -> str | None:
    """Who holds the item once the run ended this way: the named owner of an escalation or stop."""
    return getattr(receipt, "owner", None)
