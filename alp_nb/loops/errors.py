"""The loops layer's one exception: a stable ``code`` and, for bad documents, one issue per JSON path."""

from __future__ import annotations

from typing import ClassVar

from alp_nb.base.errors import AlpError

LOOP_CONTRACT_ERROR_CODES: tuple[str, ...] = (
    "CONTRACT_INVALID", "CONTRACT_UNREADABLE", "CONTRACT_FORMAT", "CONTRACT_UNWRITABLE", "CONTRACT_EXISTS",
    "PACKET_OVERWRITES_CONTRACT", "UNKNOWN_LINT_RULE", "DECIDE_BEFORE_PERSIST", "UNKNOWN_OUTCOME",
    "RECEIPT_INCOMPLETE", "UNKNOWN_SCENARIO", "SCENARIO_EMPTY", "CONTRACT_HAS_LINT_ERRORS", "REVIEW_INVALID",
    "RECEIPTS_INVALID",
)


class LoopContractError(AlpError):
    """A loop contract (or a run of one) the loops layer refuses.

    ``issues`` holds ``<json path>: <problem>`` lines such as ``agents[0].role: Field required``;
    ``message`` is the headline followed by those lines, so one print shows everything.
    """

    codes: ClassVar[tuple[str, ...]] = LOOP_CONTRACT_ERROR_CODES

    def __init__(self, code: str, headline: str, issues: tuple[str, ...] = ()) -> None:
        self.headline = headline
        self.issues = tuple(issues)
        super().__init__(code, "\n".join((headline, *(f"  {issue}" for issue in self.issues))))

    def __reduce__(self) -> tuple[type[LoopContractError], tuple[str, str, tuple[str, ...]]]:  # type: ignore[override]  # three arguments, not the root's two
        return (type(self), (self.code, self.headline, self.issues))
