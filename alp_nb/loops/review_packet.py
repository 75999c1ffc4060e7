"""What a design review walks through besides the parts themselves: the five field pairs.

Most contract bugs sit at the interface of two fields (the seed's review
checklist), so the packet shows each pair's fields side by side with the
question a reviewer asks of them (reference §6.2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .contract import LoopContract


@dataclass(frozen=True)
class ReviewPair:
    name: str
    left: tuple[str, ...]
    right: tuple[str, ...]
    question: str


REVIEW_PAIRS: tuple[ReviewPair, ...] = (
    ReviewPair("trigger ↔ intake", ("trigger.type", "trigger.cadence_or_event"),
               ("intake.sources", "intake.selection_rule"),
               "Does intake read the source the trigger comes from, and reject processed, stale or duplicate items?"),
    ReviewPair("action ↔ verifier", ("workspace.allowed_actions",), ("verification.gates", "agents"),
               "Is every write-capable action covered by a gate someone other than the actor checks?"),
    ReviewPair("side effect ↔ checkpoint", ("workspace.allowed_actions",), ("state.artifacts", "state.update_rule"),
               "Is each external effect written to state so a retry or restart does not repeat it?"),
    ReviewPair("budget ↔ escalation", ("budget.max_retries", "budget.max_runtime_minutes"),
               ("escalation.conditions", "escalation.destination"),
               "When the budget runs out, who learns of it, with what evidence? Is a repeated failure a condition?"),
    ReviewPair("success ↔ stop-without-success", ("exit.success",), ("exit.stop_without_success",),
               "Do the exits exclude each other, is success a gate rather than an opinion, and does stop cover "
               "budget, blockers and judgment calls?"),
)


def field_value(contract: LoopContract, path: str) -> Any:
    """The value at a dotted path of the contract (``workspace.allowed_actions``)."""
    value: Any = contract
    for part in path.split("."):
        value = getattr(value, part)
    return value
