"""What a resume of a stored run reuses and runs with: the one decision, for the runtime and for anyone planning.

A resume keeps the run's workflow and args, settles the attempt history (a last attempt still marked running died:
it is ``interrupted``, its usage caught up with what it journaled), counts what every earlier attempt spent
against the run's token budget, and serves each call whose key is journaled (``JournalRead.lookup``). The
budget can be raised for the resume, explicitly, never lowered; a resume on a budget already overspent would
stop at its first call, so it is refused before anything is written, saying how to raise it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from alp_nb.base.frozen import thaw

from .errors import WorkflowInputError
from .journal.reader import JournalRead
from .keys import canonical_dumps
from .meta import validate_args
from .saved_workflows import SavedWorkflow
from .snapshot import NO_USAGE, Attempt, RunSnapshot, Usage, run_budget
from .store import caught_up_attempt


@dataclass(frozen=True)
class ResumeDecision:
    """A resume of ``snapshot``'s run, decided: the args it runs with, the attempts before it (settled), what they
    spent, the budget it runs under (``raised`` when this resume raised it), the prompts a fork asks instead,
    and the journal it is served from."""

    snapshot: RunSnapshot
    args: dict[str, Any]
    previous: tuple[Attempt, ...]
    spent: Usage
    budget: int | None
    raised: bool
    prompts: Mapping[str, str]
    journal: JournalRead

    @property
    def run_id(self) -> str:
        return self.snapshot.run_id

    @property
    def overspent(self) -> bool:
        """The run has already spent more than its budget, counting what it reserves for calls of unknown cost: a
        resume would stop at its first call."""
        return self.budget is not None and self.spent.counted > self.budget

    def overspent_error(self) -> WorkflowInputError:
        return WorkflowInputError(
            "BUDGET_EXCEEDED", f"run `{self.run_id}` has spent its token budget ({spent_text(self.spent)} of "
            f"{self.budget} tokens), so a resume would stop at its first call; raise the budget to go on: budget=N on "
            "resume, or `--budget N` on the command line")


def decide_resume(snapshot: RunSnapshot, journal: JournalRead, saved: SavedWorkflow, args: Any = None,
                  budget: Any = None, *, refuse_overspent: bool = True) -> ResumeDecision:
    """The resume of ``snapshot``'s run by ``saved`` with ``journal``; raises the refusals a resume makes before
    it writes anything (WORKFLOW_MISMATCH, CORRUPT_RUN, ARGS_MISMATCH, INVALID_OPTION for a budget that does
    not raise the run's, BUDGET_EXCEEDED for one already overspent unless ``refuse_overspent`` is False: a plan
    still shows what such a resume would do once its budget is raised)."""
    resumed_args = resumable_args(snapshot, saved, args)
    previous = settled_attempts(snapshot.attempts, journal)
    recorded = sum((attempt.usage for attempt in previous), NO_USAGE)
    unanswered = len(journal.unanswered)  # the journal is the record: every attempt's, at today's reservation
    spent = recorded.replace(unanswered=unanswered, reserved=unanswered * journal.reservation)
    current = run_budget(snapshot)
    if budget is not None:
        check_raised_budget(snapshot.run_id, budget, current)
    prompts = snapshot.fork.prompts if snapshot.fork is not None else {}
    decision = ResumeDecision(snapshot, resumed_args, previous, spent, current if budget is None else budget,
                              budget is not None, prompts, journal)
    if refuse_overspent and decision.overspent:
        raise decision.overspent_error()
    return decision


def check_raised_budget(run_id: str, budget: Any, current: int | None) -> None:
    """INVALID_OPTION unless ``budget`` is a whole number of tokens above the run's ``current`` budget."""
    if type(budget) is not int or budget <= 0:
        raise WorkflowInputError("INVALID_OPTION", f"budget must be a positive whole number of tokens, not {budget!r}")
    if current is None:
        raise WorkflowInputError("INVALID_OPTION", f"run `{run_id}` has no token budget to raise: its args set none")
    if budget <= current:
        raise WorkflowInputError("INVALID_OPTION", f"a budget can only be raised: run `{run_id}` already has "
                                 f"{current} tokens, so budget {budget} would not raise it")


def resumable_args(snapshot: RunSnapshot, saved: SavedWorkflow, args: Any) -> dict[str, Any]:
    """The args a resume runs with: the saved ones, checked; ``args``, if given, must equal them as JSON
    (``true`` is not ``1``). A budget is raised with ``budget=``, not through the args."""
    run_id = snapshot.run_id
    if snapshot.workflow_name != saved.meta.name:
        raise WorkflowInputError("WORKFLOW_MISMATCH", f"run `{run_id}` belongs to workflow "
                                 f"`{snapshot.workflow_name}`, not `{saved.meta.name}`")
    try:
        saved_args = validate_args(thaw(snapshot.args), f"{run_id}.json args")
    except WorkflowInputError as error:
        raise WorkflowInputError("CORRUPT_RUN", error.message) from None
    if args is not None and canonical_dumps(validate_args(args)) != canonical_dumps(saved_args):
        raise WorkflowInputError("ARGS_MISMATCH", f"args differ from the args run `{run_id}` was launched "
                                 "with; omit args to reuse them (raise a token budget with budget=N)")
    return saved_args


def settled_attempts(attempts: tuple[Attempt, ...], journal: JournalRead) -> tuple[Attempt, ...]:
    """The history before a resume, each attempt's usage at least what the journal holds from its first seq to the
    next attempt's (the snapshot is a cache: an edit of it never lowers what was spent). An attempt still marked
    running died (the resume holds its lock): it is ``interrupted``."""
    ends = [attempt.first_seq for attempt in attempts[1:]] + [None]
    settled = tuple(caught_up_attempt(attempt, journal, end) for attempt, end in zip(attempts, ends, strict=True))
    if not settled or settled[-1].status != "running":
        return settled
    return (*settled[:-1], settled[-1].replace(status="interrupted"))


def spent_text(spent: Usage) -> str:
    """``130``, or ``130 tokens recorded and 20 reserved for 2 calls asked and never answered``: what a budget
    counts, said in full."""
    if not spent.unanswered:
        return str(spent.tokens)
    calls = "call" if spent.unanswered == 1 else "calls"
    return (f"{spent.tokens} tokens recorded and {spent.reserved} reserved for {spent.unanswered} {calls} asked and "
            "never answered")
