"""A dry run: a saved script run against a journal with nothing written and no model asked.

Every call the journal holds is served from it, exactly as a resume serves it (the same ``AttemptState`` and
``ExecutionContext``); every other call is answered by a runner, by default a ``StandInRunner`` that makes up a
value fitting the call's schema and costs nothing, so the script can go on and show what it would ask next.
Nothing reaches the run's files: journal lines stay in memory, events go nowhere. A plan of a resume, a replay
and the check before a real resume all stand on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .attempt import AttemptState
from .calls import CallObserver, ObservedCall
from .events import EventLog
from .execution_context import run_script
from .journal.reader import JournalRead
from .journal.writer import MemoryJournal
from .runners import MockAgentRunner, RunnerOutput
from .saved_workflows import DEFAULT_REGISTRY, SavedWorkflow, WorkflowRegistry


class StandInRunner:
    """Answers any call at once with a made-up value fitting its schema (the mock's), at no cost: a dry run's
    runner, which never calls a model. ``calls`` lists the labels it answered."""

    blocking = False

    def __init__(self) -> None:
        self._mock = MockAgentRunner(tokens=0)
        self.calls = self._mock.calls

    def run(self, prompt: str, schema: Mapping[str, Any] | None = None, label: str = "") -> RunnerOutput:
        return self._mock.run(prompt, schema, label)


@dataclass(frozen=True)
class DryRun:
    """How a dry run ended (``status`` completed or failed, with the script's ``result`` or ``error``), every call
    it made in order, and the first journal seq it numbered its own answers from."""

    result: Any
    status: str
    error: str | None
    calls: tuple[ObservedCall, ...]
    first_seq: int


@dataclass(frozen=True)
class JournalMatch:
    """How many of a journal's calls a script asked for again: ``matched`` of ``journaled``."""

    matched: int
    journaled: int

    @property
    def differs(self) -> bool:
        """The script is not the one that wrote the journal: it asks for less than half of its calls."""
        return self.journaled > 0 and self.matched * 2 < self.journaled


async def dry_run(saved: SavedWorkflow, args: dict[str, Any], journal: JournalRead, *, runner: Any = None,
                  on_call: CallObserver | None = None, registry: WorkflowRegistry | None = None,
                  budget: int | None = None, spent_before: int = 0, prompts: Mapping[str, str] | None = None,
                  agent_cap: int = 1000, concurrency: int = 8, run_id: str = "dry-run") -> DryRun:
    """Run ``saved`` with ``args`` against ``journal`` (left as it is) and return how it went. ``on_call`` sees
    each call as it is made (it may pause there); ``runner`` answers what the journal lacks (a StandInRunner when
    None); ``budget`` and ``spent_before`` apply the run's token budget as a resume would."""
    calls: list[ObservedCall] = []

    def observe(call: ObservedCall) -> None:
        calls.append(call)
        if on_call is not None:
            on_call(call)

    own = JournalRead(calls=dict(journal.calls), has_s16_keys=journal.has_s16_keys, next_seq=journal.next_seq)
    state = AttemptState(journal=own, writer=MemoryJournal(journal.next_seq), events=EventLog(()),
                         runner=StandInRunner() if runner is None else runner, concurrency=concurrency,
                         agent_cap=agent_cap, budget_total=budget, spent_before=spent_before,
                         phases=saved.meta.phases, on_phase=_nothing, on_call=observe, prompts=prompts)
    result, status, error, _code = await run_script(saved, state, run_id=run_id, args=args,
                                                    registry=DEFAULT_REGISTRY if registry is None else registry)
    return DryRun(result, status, error, tuple(calls), journal.next_seq)


def journal_match(journal: JournalRead, calls: Iterable[ObservedCall]) -> JournalMatch:
    """How many of ``journal``'s calls were served to ``calls`` (a dry run's, or a real attempt's)."""
    first = journal.next_seq
    served = {call.seq for call in calls if call.outcome == "cached" and call.seq is not None and call.seq < first}
    return JournalMatch(matched=len(served), journaled=len(journal.calls))


def _nothing() -> None:
    """A dry run announces its phases to no one."""
