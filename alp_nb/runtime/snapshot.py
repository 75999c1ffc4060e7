"""The run snapshot: what a run is and how far it got, rewritten atomically as it goes.

Our snapshot keeps usage per attempt and cumulatively, the history of
attempts, phases with call counts and the last log lines. An s16 snapshot
(``task{status, usage, progress}``) is read into the same model.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, Any, Literal

import msgspec

from alp_nb.base.frozen_struct import FrozenStruct, StructInvalid, refusal

from .errors import WorkflowInputError
from .journal.lines import MAX_COUNT

RunStatus = Literal["running", "completed", "failed", "cancelled", "interrupted"]
SNAPSHOT_LOG_LINES = 50

Count = Annotated[int, msgspec.Meta(ge=0, le=MAX_COUNT, description="a non-negative integer")]
"""A count the snapshot keeps (calls, tokens): bounded as the journal's, so no sum of them leaves 64 bits."""
Positive = Annotated[int, msgspec.Meta(ge=1, le=MAX_COUNT, description="a positive integer")]
"""An attempt's number, a seq, a token budget."""


class Usage(FrozenStruct, frozen=True, kw_only=True, omit_defaults=True):
    """Agent calls that reached a runner, and the tokens they reported (retries included). ``unanswered``: runner
    calls asked and never answered on record (the process died, or the run was stopped, while they were out),
    whose cost is unknown; ``reserved``: the tokens held against the budget for them (see
    ``JournalRead.reservation``). ``unanswered`` and ``reserved`` are written only when there is something to
    say (most runs have none); ``agents`` and ``tokens`` always are, so they have no default (``NO_USAGE``)."""

    agents: Count
    tokens: Count
    unanswered: Count = 0
    reserved: Count = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(agents=self.agents + other.agents, tokens=self.tokens + other.tokens,
                     unanswered=self.unanswered + other.unanswered, reserved=self.reserved + other.reserved)

    def __repr__(self) -> str:
        """The unknown-cost fields only when there are calls of unknown cost, as in the snapshot's JSON."""
        return f"Usage({self._fields(', ')})"

    def __str__(self) -> str:
        """What ``print`` shows in a notebook: the fields alone, ``agents=9 tokens=386``."""
        return self._fields(" ")

    def _fields(self, separator: str) -> str:
        shown = [("agents", self.agents), ("tokens", self.tokens)]
        if self.unanswered:
            shown += [("unanswered", self.unanswered), ("reserved", self.reserved)]
        return separator.join(f"{name}={value}" for name, value in shown)

    @property
    def counted(self) -> int:
        """What the budget counts: the tokens recorded and those reserved for calls of unknown cost."""
        return self.tokens + self.reserved


NO_USAGE = Usage(agents=0, tokens=0)


class UsageReport(FrozenStruct, frozen=True, kw_only=True):
    attempt: Usage = NO_USAGE
    cumulative: Usage = NO_USAGE


class Attempt(FrozenStruct, frozen=True, kw_only=True):
    """One launch or resume of a run. ``first_seq`` is the journal seq this attempt started writing at."""

    number: Positive
    status: RunStatus
    started_at: str | None = None
    ended_at: str | None = None
    pid: Positive | None = None
    script_digest: str | None = None
    usage: Usage = NO_USAGE
    cached: Count = 0
    first_seq: Positive = 1
    last_seq: Positive | None = None
    """The seq of the last journal line this attempt had written when the snapshot was: a line before it that the
    journal lacks was deleted."""
    budget: Positive | None = None
    """The token budget this attempt ran under: the run's (``args["budget"]``), or one raised on resume."""


class PhaseProgress(FrozenStruct, frozen=True, kw_only=True):
    """A phase and its calls: run now (``done``), served from the journal (``cached``), ``failed``, or
    ``cancelled`` while running (a sibling in ``parallel`` failed, or the run was stopped)."""

    title: str
    done: Count = 0
    cached: Count = 0
    failed: Count = 0
    cancelled: Count = 0

    @property
    def calls(self) -> int:
        return self.done + self.cached + self.failed + self.cancelled


class ForkOrigin(FrozenStruct, frozen=True, kw_only=True):
    """Where a forked run came from: the run whose journal it started with, the calls (by label) whose answers
    it was given instead, and the calls whose prompts it asks instead (on every attempt)."""

    FROZEN = ("prompts",)
    run_id: str
    values: tuple[str, ...] = ()
    prompts: Mapping[str, str] = MappingProxyType({})


class RunSnapshot(FrozenStruct, frozen=True, kw_only=True):
    """``<runId>.json``. ``status`` reads ``interrupted`` when a stored run says running but nobody holds its lock.
    ``budget`` is the token budget the run stands under now (its args', or the last one raised on resume);
    ``error_code`` the code of a failure raised by the runtime (``BUDGET_EXCEEDED``...)."""

    FROZEN = ("args",)
    run_id: str
    task_id: str
    workflow_name: str
    args: Any = None
    script_digest: str | None = None
    status: RunStatus
    usage: UsageReport = UsageReport()
    attempts: tuple[Attempt, ...] = ()
    pid: Positive | None = None
    phases: tuple[PhaseProgress, ...] = ()
    logs: tuple[str, ...] = ()
    error: str | None = None
    error_code: str | None = None
    budget: Positive | None = None
    fork: ForkOrigin | None = None
    sealed_from: Positive | None = None
    """The first journal seq from which every line of this run carries a checksum (1 for a run alp_nb started;
    where alp_nb first resumed an s16 or older run); None where the writer never sealed lines: legacy lines read
    only before it."""
    updated_at: str | None = None


def parse_snapshot(data: Any, source: str) -> RunSnapshot:
    """Our snapshot or an s16 one, from parsed JSON; anything else is CORRUPT_RUN naming ``source``."""
    if isinstance(data, Mapping) and isinstance(data.get("task"), Mapping):
        data = _from_s16(data)
    elif isinstance(data, Mapping) and "sealedFrom" not in data and "errorCode" in data:
        data = {**data, "sealedFrom": 1}  # written by our v2 writer, which sealed every line, before this field
    try:
        snapshot = RunSnapshot.from_json(data)
    except StructInvalid:
        raise WorkflowInputError("CORRUPT_RUN", f"{source}: {refusal(RunSnapshot, data)}") from None
    problem = attempts_out_of_order(snapshot.attempts, forked=snapshot.fork is not None)
    if problem:
        raise WorkflowInputError("CORRUPT_RUN", f"{source}: {problem}")
    sealed = sealed_from(snapshot)
    return snapshot if sealed == snapshot.sealed_from else snapshot.replace(sealed_from=sealed)


def sealed_from(snapshot: RunSnapshot) -> int | None:
    """The first seq from which the run's writer sealed every line, as its attempts tell it, whatever
    ``sealedFrom`` says (the snapshot has no seal of its own, so a field alone cannot unseal a line): an attempt
    that kept its ``lastSeq`` was run by a writer that seals, so every line from its ``firstSeq`` on carries a
    checksum. An s16 run's attempt, or one of alp_nb before it sealed lines, kept none."""
    for attempt in snapshot.attempts:
        if attempt.last_seq is not None:
            return min(attempt.first_seq, snapshot.sealed_from or attempt.first_seq)
    return snapshot.sealed_from


def attempts_out_of_order(attempts: tuple[Attempt, ...], *, forked: bool) -> str | None:
    """What breaks the order every writer keeps, if anything: attempts numbered 1, 2, 3..., the first writing
    from seq 1 (a fork's after the lines it copied), each writing its lines after the lines of the one before (a
    killed attempt's ``lastSeq`` lags what it wrote, never leads). So every line of the run counts against its
    budget under one attempt."""
    if attempts and not forked and attempts[0].first_seq != 1:
        return f"`attempts[0]`.firstSeq is {attempts[0].first_seq}: the first attempt of a run writes from seq 1"
    written = 0  # the last seq an earlier attempt is known to have written
    for index, attempt in enumerate(attempts):
        where = f"`attempts[{index}]`"
        if attempt.number != index + 1:
            return f"{where}.number is {attempt.number}, not {index + 1}"
        if attempt.first_seq <= written:
            return f"{where}.firstSeq {attempt.first_seq} is not after the seq {written} an earlier attempt wrote"
        if attempt.last_seq is not None and attempt.last_seq < attempt.first_seq - 1:
            return f"{where}.lastSeq {attempt.last_seq} is before its firstSeq {attempt.first_seq}"
        written = max(written, attempt.first_seq - 1 if attempt.last_seq is None else attempt.last_seq)
    return None


def _from_s16(data: Mapping[str, Any]) -> dict[str, Any]:
    """s16 kept one usage (overwritten by each resume) and a flat progress list; map them onto ours."""
    task = data["task"]
    usage = task.get("usage") if isinstance(task.get("usage"), Mapping) else {}
    usage = {"agents": usage.get("agents", 0), "tokens": usage.get("tokens", 0)}
    status = task.get("status", "running")
    phases: dict[str, dict[str, Any]] = {}
    logs = []
    for item in task.get("progress") or ():
        if not isinstance(item, Mapping):
            continue
        if item.get("type") == "workflow_phase" and isinstance(item.get("title"), str):
            phases.setdefault(item["title"], {"title": item["title"]})
        elif item.get("type") == "workflow_agent" and isinstance(item.get("phase"), str):
            counts = phases.setdefault(item["phase"], {"title": item["phase"]})
            bucket = "cached" if item.get("status") == "cached" else "done"
            counts[bucket] = counts.get(bucket, 0) + 1
        elif item.get("type") == "workflow_log" and isinstance(item.get("message"), str):
            logs.append(item["message"])
    return {
        "runId": data.get("runId"),
        "taskId": task.get("taskId", f"local_workflow_{data.get('runId')}"),
        "workflowName": data.get("workflowName"),
        "args": data.get("args") or {},
        "status": status,
        "usage": {"attempt": usage, "cumulative": usage},
        "attempts": [{"number": 1, "status": status, "usage": usage}],
        "phases": list(phases.values()),
        "logs": logs[-SNAPSHOT_LOG_LINES:],
    }


def run_budget(snapshot: RunSnapshot) -> int | None:
    """The token budget a stored run stands under: the last one an attempt ran under, else its args'."""
    for attempt in reversed(snapshot.attempts):
        if attempt.budget is not None:
            return attempt.budget
    args = snapshot.args
    budget = args.get("budget") if isinstance(args, Mapping) else None
    return budget if type(budget) is int else None
