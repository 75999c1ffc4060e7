"""Launching and resuming runs: ``run_workflow`` (async) and ``run_workflow_sync`` (scripts and notebooks).

A launch checks everything first (workflow, metadata, args, run id, saved
snapshot, the run's files, lock, journal) and writes nothing until every
check passed. Then:
snapshot (``running``), ``last_run`` pointer, events, the script, and at the
end the output, the final snapshot and ``task_notification``. Script
failures end the run as ``failed`` and are reported in the returned run;
refusals before launch raise WorkflowInputError.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from alp_nb.base.frozen import FrozenModel, thaw
from alp_nb.base.untrusted_json import UntrustedJson, loads_untrusted

from .attempt import AttemptState, _describe
from .errors import WorkflowInputError
from .events import EventLog, Subscriber
from .execution_context import ExecutionContext
from .journal import JournalRead, JournalWriter, read_journal
from .keys import canonical_dumps, validate_run_id
from .meta import validate_args
from .progress import progress_subscriber
from .runners import MockAgentRunner
from .saved_workflows import DEFAULT_REGISTRY, SavedWorkflow, WorkflowRegistry
from .snapshot import Attempt, RunSnapshot, Usage, UsageReport
from .store import RunLock, RunStore, caught_up_attempt

Durability = Literal["flush", "fsync"]


class LaunchEnvelope(FrozenModel):
    """What a launch reports first (s16's ``async_launched``): ids and where the output will be."""

    run_id: str
    task_id: str
    workflow_name: str
    attempt: int
    resumed: bool
    output_file: str


@dataclass(frozen=True)
class WorkflowRun:
    """A finished call of ``run_workflow``: the launch envelope, the script's result and the task snapshot."""

    launched: LaunchEnvelope
    result: Any
    task: RunSnapshot

    @property
    def run_id(self) -> str:
        return self.launched.run_id

    @property
    def status(self) -> str:
        return self.task.status

    @property
    def error(self) -> str | None:
        return self.task.error

    def to_json(self) -> dict[str, Any]:
        """The JSON-safe form the Workflow tool returns: ``{launched, result, task}``."""
        return {"launched": self.launched.model_dump(mode="json", by_alias=True), "result": self.result,
                "task": self.task.to_json()}


async def run_workflow(name: str, args: Mapping[str, Any] | None = None, resume_from_run_id: str | None = None, *,
                       store: RunStore | str | os.PathLike[str] | None = None, runner: Any = None,
                       registry: WorkflowRegistry | None = None, agent_cap: int = 1000, concurrency: int = 8,
                       durability: Durability = "flush",
                       on_event: Subscriber | Iterable[Subscriber] | None = None,
                       progress: bool = False) -> WorkflowRun:
    """Run a saved workflow, or resume ``resume_from_run_id`` (same workflow; args default to the saved ones).
    A new run's args must match the workflow's declared args schema, if it has one (INVALID_ARGS otherwise).

    ``store``: a RunStore or folder (default ``./.alp-runs``); ``runner``: an AgentRunner (default
    MockAgentRunner); ``durability="fsync"`` syncs every journal line; ``on_event``: callables (or an
    EventStream) given each event as it happens; ``progress=True``: a progress bar in a notebook (see
    ``alp_nb.runtime.progress``).
    """
    subscribers = _subscribers(on_event)
    if progress is True:
        subscribers.append(progress_subscriber())
    elif progress is not False:
        raise WorkflowInputError("INVALID_OPTION", f"progress must be True or False, not {progress!r}")
    launch = None
    try:
        launch = _Launch.prepare(name, args, resume_from_run_id, store=store, runner=runner, registry=registry,
                                 agent_cap=agent_cap, concurrency=concurrency, durability=durability)
        return await launch.execute(subscribers)
    except BaseException as error:
        if launch is None or not launch.notified:  # refused, or broke before the end: still say the run is over
            _notify_ended(subscribers, error)
        raise


def _notify_ended(subscribers: list[Subscriber], error: BaseException) -> None:
    code = getattr(error, "code", type(error).__name__)
    message = getattr(error, "message", None) or str(error) or type(error).__name__
    event = {"type": "task_notification", "runId": None, "status": "failed", "error": message, "code": code,
             "ts": time.time()}
    for subscriber in subscribers:
        subscriber(event)


def run_workflow_sync(*args: Any, **kwargs: Any) -> WorkflowRun:
    """``run_workflow`` from synchronous code: a plain script, or a notebook cell whose kernel loop is running
    (the loop is made re-entrant with nest-asyncio)."""
    coroutine = run_workflow(*args, **kwargs)
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    import nest_asyncio

    nest_asyncio.apply(loop)
    return loop.run_until_complete(coroutine)


async def resume_workflow(run_id: str | None = None, *, store: RunStore | str | os.PathLike[str] | None = None,
                          **options: Any) -> WorkflowRun:
    """Resume a stored run (default: the store's last run) under its saved workflow name and args."""
    store = _store(store)
    run_id = store.last_run() if run_id is None else run_id
    if run_id is None:
        raise WorkflowInputError("RUN_NOT_FOUND", f"no run to resume in {store.root}")
    snapshot = store.read_snapshot(run_id)
    return await run_workflow(snapshot.workflow_name, None, run_id, store=store, **options)


class _Launch:
    """A run that passed every check and holds its lock; ``execute`` runs it to its end."""

    def __init__(self, *, saved: SavedWorkflow, store: RunStore, run_id: str, args: dict[str, Any],
                 previous: tuple[Attempt, ...], resumed: bool, journal: JournalRead, lock: RunLock, runner: Any,
                 registry: WorkflowRegistry, agent_cap: int, concurrency: int, durability: Durability) -> None:
        self.saved, self.store, self.run_id, self.args = saved, store, run_id, args
        self.previous, self.journal, self.lock, self.runner = previous, journal, lock, runner
        self.registry, self.agent_cap, self.concurrency, self.durability = registry, agent_cap, concurrency, durability
        self.resumed = resumed
        self.fsync = durability == "fsync"
        self.notified = False  # the final task_notification went out
        self.attempt = Attempt(number=len(previous) + 1, status="running", started_at=_now(), pid=os.getpid(),
                               script_digest=saved.digest, first_seq=journal.next_seq)

    @classmethod
    def prepare(cls, name: str, args: Any, resume_from_run_id: str | None, *, store: Any, runner: Any,
                registry: WorkflowRegistry | None, agent_cap: int, concurrency: int,
                durability: str) -> _Launch:
        _check_options(agent_cap, concurrency, durability)
        registry = DEFAULT_REGISTRY if registry is None else registry
        if not isinstance(registry, WorkflowRegistry):
            raise WorkflowInputError("INVALID_OPTION",
                                     f"registry must be a WorkflowRegistry, not {type(registry).__name__}")
        saved = registry.get(name)
        runner = MockAgentRunner() if runner is None else runner
        if not callable(getattr(runner, "run", None)):
            raise WorkflowInputError("INVALID_OPTION", "runner must have a run(prompt, schema, label) method")
        store = _store(store)
        options = {"runner": runner, "registry": registry, "agent_cap": agent_cap, "concurrency": concurrency,
                   "durability": durability}
        if resume_from_run_id is None:
            args = saved.check_args(validate_args(args))
            run_id = store.reserve(saved.meta.name)
            return cls(saved=saved, store=store, run_id=run_id, args=args, previous=(), resumed=False,
                       journal=JournalRead(), lock=store.acquire(run_id, fresh=True), **options)
        run_id = validate_run_id(resume_from_run_id)
        saved_args = _resumable_args(store.read_snapshot(run_id), saved, args)  # a run's name and args never change
        store.check_run_files(run_id)  # refused before a lock file is created or anything written
        lock = store.acquire(run_id)
        try:
            journal = read_journal(store.paths(run_id).journal)
            snapshot = store.read_snapshot(run_id)  # as of taking the lock
            _warn_if_journal_lost(snapshot, journal, store.paths(run_id).journal.name)
            previous = _settled_attempts(snapshot.attempts, journal)
        except BaseException:
            lock.release()
            raise
        return cls(saved=saved, store=store, run_id=run_id, args=saved_args, previous=previous, resumed=True,
                   journal=journal, lock=lock, **options)

    async def execute(self, subscribers: list[Subscriber]) -> WorkflowRun:
        store, run_id, paths = self.store, self.run_id, self.store.paths(self.run_id)
        resumed = self.resumed
        with contextlib.ExitStack() as cleanup:  # however the attempt ends: files closed, then the lock released
            cleanup.callback(self.lock.release)
            paths.output.unlink(missing_ok=True)  # a previous attempt's output is stale until this one ends
            writer = JournalWriter(paths.journal, fsync=self.fsync, fresh=not resumed,
                                   truncate_to=self.journal.good_bytes if resumed else None,
                                   needs_newline=self.journal.needs_newline, next_seq=self.journal.next_seq)
            cleanup.callback(writer.close)
            events = EventLog(subscribers, paths.events, fresh=not resumed)
            cleanup.callback(events.close)

            def on_phase() -> None:
                events.flush()
                self._persist("running")

            self.state = AttemptState(
                cache=self.journal.calls, s16_keys=self.journal.has_s16_keys, writer=writer, events=events,
                runner=self.runner, concurrency=self.concurrency, agent_cap=self.agent_cap,
                budget_total=self.args.get("budget"), spent_before=self._previous_usage().tokens,
                phases=self.saved.meta.phases, on_phase=on_phase,
            )
            self._persist("running")
            if store.last_run() != run_id:  # after the first snapshot: the pointer never names an empty one
                store.set_last_run(run_id, fsync=self.fsync)
            launched = LaunchEnvelope(run_id=run_id, task_id=_task_id(run_id), workflow_name=self.saved.meta.name,
                                      attempt=self.attempt.number, resumed=resumed, output_file=str(paths.output))
            ids = {"runId": run_id, "taskId": launched.task_id, "workflowName": launched.workflow_name,
                   "attempt": launched.attempt}
            events.emit("async_launched", resumed=resumed, **ids)
            events.emit("task_started", **ids)
            result, status, error = await self._run_script()
            writer.close()
            store.write_output(run_id, result if status == "completed" else {"error": error}, fsync=self.fsync)
            task = self._persist(status, error)
            usage, cumulative = task.usage.attempt, task.usage.cumulative
            events.emit("task_notification", runId=run_id, status=status, agents=usage.agents, tokens=usage.tokens,
                        cumulativeAgents=cumulative.agents, cumulativeTokens=cumulative.tokens,
                        outputFile=str(paths.output), error=error)
            self.notified = True
            if status == "cancelled":
                raise asyncio.CancelledError
            return WorkflowRun(launched, result if status == "completed" else None, task)

    async def _run_script(self) -> tuple[Any, str, str | None]:
        ctx = ExecutionContext(self.state, run_id=self.run_id, workflow_name=self.saved.meta.name,
                               args=json.loads(json.dumps(self.args)), registry=self.registry)
        try:
            result = await self.saved.fn(ctx, ctx.args)
        except asyncio.CancelledError:
            return None, "cancelled", "cancelled"
        except Exception as error:  # any script failure ends the run as failed, reported
            return None, "failed", _describe(error)
        try:  # as the output file will hold it, and as it must read back
            loads_untrusted(json.dumps(result, allow_nan=False, ensure_ascii=False).encode())
        except (TypeError, ValueError, RecursionError, UntrustedJson) as error:
            return None, "failed", f"the workflow result is not JSON: {error}"
        return result, "completed", None

    def _previous_usage(self) -> Usage:
        return sum((attempt.usage for attempt in self.previous), Usage())

    def _persist(self, status: str, error: str | None = None) -> RunSnapshot:
        state = self.state
        ended = None if status == "running" else _now()
        attempt = self.attempt.model_copy(update={"status": status, "ended_at": ended, "usage": state.usage,
                                                  "cached": state.cached})
        snapshot = RunSnapshot(
            run_id=self.run_id, task_id=_task_id(self.run_id), workflow_name=self.saved.meta.name, args=self.args,
            script_digest=self.saved.digest, status=status,
            usage=UsageReport(attempt=state.usage, cumulative=self._previous_usage() + state.usage),
            attempts=(*self.previous, attempt), pid=os.getpid(), phases=state.phase_progress(),
            logs=tuple(state.logs), error=error, updated_at=_now(),
        )
        self.store.write_snapshot(snapshot, fsync=self.fsync)
        return snapshot


def _resumable_args(snapshot: RunSnapshot, saved: SavedWorkflow, args: Any) -> dict[str, Any]:
    """The args a resume runs with: the saved ones, checked; ``args``, if given, must equal them as JSON
    (``true`` is not ``1``)."""
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
                                 "with; omit args to reuse them")
    return saved_args


def _settled_attempts(attempts: tuple[Attempt, ...], journal: JournalRead) -> tuple[Attempt, ...]:
    """The history before this resume. An attempt still marked running died (we hold its lock): it is
    ``interrupted``, and its usage is what it journaled from its first seq on."""
    if not attempts or attempts[-1].status != "running":
        return attempts
    last = caught_up_attempt(attempts[-1], journal)
    return (*attempts[:-1], last.model_copy(update={"status": "interrupted"}))


def _warn_if_journal_lost(snapshot: RunSnapshot, journal: JournalRead, journal_name: str) -> None:
    """A snapshot that counts finished calls (or tokens spent) beside a journal that holds no line: the journal
    was lost or emptied, and the resume is about to run, and pay for, those calls again."""
    done = sum(phase.done for phase in snapshot.phases)
    if journal.calls or journal.spends or not (done or snapshot.usage.cumulative.tokens):
        return
    calls = max(done, snapshot.usage.cumulative.agents)
    warnings.warn(f"{snapshot.run_id}.json records {calls} agent calls but {journal_name} holds none of them: "
                  "they will run again", RuntimeWarning, stacklevel=2)


def _check_options(agent_cap: Any, concurrency: Any, durability: Any) -> None:
    for field, value in (("agent_cap", agent_cap), ("concurrency", concurrency)):
        if type(value) is not int or value < 1:
            raise WorkflowInputError("INVALID_OPTION", f"{field} must be a positive integer")
    if durability not in ("flush", "fsync"):
        raise WorkflowInputError("INVALID_OPTION", "durability must be `flush` or `fsync`")


def _store(store: Any) -> RunStore:
    if isinstance(store, RunStore):
        return store
    if store is not None and not isinstance(store, (str, os.PathLike)):
        raise WorkflowInputError("INVALID_OPTION",
                                 f"store must be a RunStore or a folder path, not {type(store).__name__}")
    return RunStore(store)


def _subscribers(on_event: Any) -> list[Subscriber]:
    if on_event is None:
        return []
    if callable(on_event):
        return [on_event]
    subscribers = list(on_event)
    if not all(callable(subscriber) for subscriber in subscribers):
        raise WorkflowInputError("INVALID_OPTION", "on_event must be a callable or a list of callables")
    return subscribers


def _task_id(run_id: str) -> str:
    return f"local_workflow_{run_id}"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")

