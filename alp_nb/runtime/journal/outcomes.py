"""How a call went, in one vocabulary: why a spend line's answer was not kept, the status of each line of a run's
journal table, and the outcome of each call of a run, which the runtime's call observer, the timeline, the viewer,
the plan and the command line all speak."""

from __future__ import annotations

from typing import Literal, get_args

SpendReason = Literal["retried", "refused", "not JSON", "cancelled", "failed"]
"""Why an answer paid for was not kept: its call asked again after it broke its schema (``retried``), it broke its
schema on the retry too (``refused``), it was ``not JSON``, it arrived as its call was ``cancelled``, or the runner
``failed`` instead of answering (0 tokens, its ``error`` kept)."""
SPEND_REASONS: tuple[SpendReason, ...] = get_args(SpendReason)
FAILED_REASONS: tuple[SpendReason, ...] = ("failed", "refused", "not JSON")
"""The reasons that end a call as failed (``retried`` does not: the call goes on)."""

DONE = "done"
"""The status of a kept answer's line (a spend line's status is its reason)."""
UNANSWERED = "unanswered"
"""The status of an ask no line answers: the runner was asked and no line says how it answered."""
IN_FLIGHT = "in flight"
"""The status of such an ask while its run still goes: its runner has not answered yet."""

CallOutcome = Literal["live", "retried", "cached", "failed", "cancelled", "unfinished"]
"""How a call went: answered once (``live``), answered twice after its first answer broke its schema
(``retried``), served from the journal (``cached``), ``failed``, ``cancelled`` (a sibling failed, or the run was
stopped), or ``unfinished`` (asked, and its attempt ended, or the process died, before it was answered). A call
observer, which sees each call as the script gets its value, sees only ``live``, ``cached`` and ``failed``."""
CALL_OUTCOMES: tuple[CallOutcome, ...] = get_args(CallOutcome)
ANSWERED: tuple[CallOutcome, ...] = ("live", "retried")
"""The outcomes of a call a runner answered in its attempt: what a snapshot counts as a phase's ``done`` calls."""
KEPT: tuple[CallOutcome, ...] = ("live", "retried", "cached")
"""The outcomes of a call whose answer a journal line keeps (a cached call's, from an earlier attempt)."""
