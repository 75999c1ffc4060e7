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
import os
import time
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from alp_nb.base.frozen_struct import FrozenStruct

from .attempt import AttemptState
from .calls import CallObserver
from .dry_runs import dry_run, journal_match
from .errors import WorkflowInputError
from .events import EVENTS_FORMAT, EventLog, Subscriber
from .execution_context import run_script
from .forecast import AnswerCosts, forecast_cost
from .fork import Fork, ForkSeed, fork_seed
from .journal.reader import JournalRead
from .journal.writer import JournalWriter
from .keys import validate_run_id
from .meta import validate_args
from .progress import progress_subscriber
from .resume import ResumeDecision, check_raised_budget, decide_resume, resumable_args
from .runners import MockAgentRunner
from .saved_workflows import DEFAULT_REGISTRY, SavedWorkflow, WorkflowRegistry
from .snapshot import NO_USAGE, Attempt, PhaseProgress, RunSnapshot, RunStatus, Usage, UsageReport, run_budget
from .store import RunLock, RunPaths, RunStore
from .store_files import write_store_file
from .sync import run_sync

Durability = Literal["flush", "fsync"]
STORE_FAILURES = ("STORE_INACCESSIBLE", "UNSAFE_STORE_FILE")
"""The codes of a run's own files failing to be written: the attempt stops ``interrupted``, not ``failed``."""


class LaunchEnvelope(FrozenStruct, frozen=True, kw_only=True):
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
        return {"launched": self.launched.to_json(), "result": self.result,
                "task": self.task.to_json()}


async def run_workflow(name: str, args: Any = None, resume_from_run_id: str | None = None, *,
                       store: RunStore | str | os.PathLike[str] | None = None, runner: Any = None,
                       registry: WorkflowRegistry | None = None, agent_cap: int = 1000, concurrency: int = 8,
                       durability: Durability = "flush",
                       on_event: Subscriber | Iterable[Subscriber] | None = None,
                       on_call: CallObserver | None = None, progress: bool = False, budget: int | None = None,
                       fork: Fork | None = None) -> WorkflowRun:
    """Run a saved workflow, or resume ``resume_from_run_id`` (same workflow; args default to the saved ones).
    A new run's args must match the workflow's declared args schema, if it has one (INVALID_ARGS otherwise).

    ``store``: a RunStore or folder (default ``./.alp-runs``); ``runner``: an AgentRunner (default
    MockAgentRunner); ``durability="fsync"`` syncs every journal line; ``on_event``: callables (or an
    EventStream) given each event as it happens; ``on_call``: a callable given each agent call's
    ``ObservedCall`` as the script makes it; ``progress=True``: a progress bar in a notebook (see
    ``alp_nb.runtime.progress``). ``budget``: on resume, a raised token budget (recorded on the attempt).
    ``fork``: a new run that starts with another run's journal, some answers or prompts replaced (see
    ``runtime.fork``). A resume whose script asks for less than half the journaled calls is warned about first.
    """
    subscribers = _subscribers(on_event)
    if progress is True:
        subscribers.append(progress_subscriber())
    elif progress is not False:
        raise WorkflowInputError("INVALID_OPTION", f"progress must be True or False, not {progress!r}")
    launch = None
    try:
        launch = _Launch.prepare(name, args, resume_from_run_id, store=store, runner=runner, registry=registry,
                                 agent_cap=agent_cap, concurrency=concurrency, durability=durability,
                                 on_call=on_call, budget=budget, fork=fork)
        await launch.warn_before_resuming()
        return await launch.execute(subscribers)
    except BaseException as error:
        if launch is not None and not launch.started:
            launch.lock.release()
        if launch is None or not launch.notified:  # refused, or broke before the end: still say the run is over
            _notify_ended(subscribers, error)
        raise


def _notify_ended(subscribers: list[Subscriber], error: BaseException) -> None:
    code = getattr(error, "code", type(error).__name__)
    message = getattr(error, "message", None) or str(error) or type(error).__name__
    _notify_subscribers(subscribers, {"type": "task_notification", "runId": None, "status": "failed",
                                      "error": message, "code": code, "ts": time.time()})


def _notify_subscribers(subscribers: Iterable[Subscriber], event: dict[str, Any]) -> None:
    """The run's last event, handed to its subscribers only: it says what the snapshot and output already hold."""
    for subscriber in subscribers:
        subscriber(event)


def run_workflow_sync(*args: Any, progress: bool = False, on_event: Subscriber | Iterable[Subscriber] | None = None,
                      **kwargs: Any) -> WorkflowRun:
    """``run_workflow`` from synchronous code: a plain script, or a notebook cell (see ``runtime.sync``). A
    progress display is made here, so that it shows in the cell that asked for it."""
    subscribers = _subscribers(on_event)
    if progress is True:
        subscribers.append(progress_subscriber())
    elif progress is not False:
        raise WorkflowInputError("INVALID_OPTION", f"progress must be True or False, not {progress!r}")
    return run_sync(run_workflow(*args, on_event=subscribers, **kwargs))


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
                 lock: RunLock, runner: Any, registry: WorkflowRegistry, agent_cap: int, concurrency: int,
                 durability: Durability, on_call: CallObserver | None, decision: ResumeDecision | None = None,
                 seed: ForkSeed | None = None) -> None:
        self.saved, self.store, self.run_id, self.args, self.lock = saved, store, run_id, args, lock
        self.runner, self.registry, self.agent_cap, self.concurrency = runner, registry, agent_cap, concurrency
        self.durability, self.on_call, self.decision, self.seed = durability, on_call, decision, seed
        self.resumed = decision is not None
        self.fsync = durability == "fsync"
        self.started = False  # execute() took over the lock
        self.notified = False  # the final task_notification went out
        self.spent_before = NO_USAGE
        self.costs: list[tuple[str | None, str | None, int]] = []  # (label, phase, tokens) of each answered call
        self.state: AttemptState | None = None
        if decision is not None:
            self.journal, self.previous, self.budget = decision.journal, decision.previous, decision.budget
            self.prompts, self.fork_origin = decision.prompts, decision.snapshot.fork
            self.spent_before = decision.spent
            sealed = decision.snapshot.sealed_from  # an s16 or older run is sealed from this resume on
            self.sealed_from = self.journal.next_seq if sealed is None else sealed
        else:
            self.journal = seed.journal if seed is not None else JournalRead()
            self.previous, self.budget = (), args.get("budget")
            self.prompts = seed.origin.prompts if seed is not None else {}
            self.fork_origin = seed.origin if seed is not None else None
            self.sealed_from = 1
        self.attempt = Attempt(number=len(self.previous) + 1, status="running", started_at=_now(), pid=os.getpid(),
                               script_digest=saved.digest, first_seq=self.journal.next_seq, budget=self.budget)

    @classmethod
    def prepare(cls, name: str, args: Any, resume_from_run_id: str | None, *, store: Any, runner: Any,
                registry: WorkflowRegistry | None, agent_cap: int, concurrency: int, durability: str,
                on_call: CallObserver | None, budget: Any, fork: Fork | None) -> _Launch:
        _check_options(agent_cap, concurrency, durability, on_call)
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
                   "durability": durability, "on_call": on_call}
        if resume_from_run_id is None:
            if budget is not None:
                raise WorkflowInputError("INVALID_OPTION", "budget= raises a stored run's token budget on resume; "
                                         "a new run takes its budget in its args: {\"budget\": N}")
            seed = None
            if fork is not None:
                seed = fork_seed(store, fork, saved, args)
                args = seed.args
            else:
                args = saved.check_args(validate_args(args))
            run_id, lock = store.reserve(saved.meta.name)
            return cls(saved=saved, store=store, run_id=run_id, args=args, lock=lock, seed=seed, **options)
        if fork is not None:
            raise WorkflowInputError("INVALID_OPTION", "fork= starts a new run; it cannot be given with a run to "
                                     "resume")
        run_id = validate_run_id(resume_from_run_id)
        early = store.read_snapshot(run_id)
        resumable_args(early, saved, args)  # a run's name and args never change: refused before anything is written
        if budget is not None:
            check_raised_budget(run_id, budget, run_budget(early))
        store.check_run_files(run_id)  # refused before a lock file is created or anything written
        lock = store.acquire(run_id)
        try:
            snapshot = store.read_snapshot(run_id)  # as of taking the lock
            costs = AnswerCosts()  # the forecast's history
            journal = store.read_journal(snapshot, on_answer=costs.on_answer)  # warns of lost lines
            decision = decide_resume(snapshot, journal, saved, args, budget)
        except BaseException:
            lock.release()
            raise
        launch = cls(saved=saved, store=store, run_id=run_id, args=decision.args, lock=lock, decision=decision,
                     **options)
        launch.costs = costs.history()
        return launch

    async def warn_before_resuming(self) -> None:
        """Before a resume, a dry run (against the journal, nothing written, no model asked) when it can tell
        something: by a script other than the one that journaled the calls (its digest differs, or none was kept),
        fewer than half of them asked again is said loudly; under a budget, live calls whose forecast
        (``forecast``, from this run's own answers) does not fit in what it leaves are said too, with the budget
        that would."""
        journal, decision = self.journal, self.decision
        if decision is None:
            return
        digests = {attempt.script_digest for attempt in self.previous} or {decision.snapshot.script_digest}
        differs = bool(journal.calls) and digests != {self.saved.digest}
        if not differs and self.budget is None:
            return
        rehearsal = await dry_run(self.saved, self.args, journal, registry=self.registry, prompts=self.prompts,
                                  agent_cap=self.agent_cap, concurrency=self.concurrency, run_id=self.run_id)
        match = journal_match(journal, rehearsal.calls)
        if differs and match.differs:
            warnings.warn(
                f"the `{self.saved.meta.name}` script asks for {match.matched} of the {match.journaled} calls run "
                f"`{self.run_id}` journaled: it is not the script that wrote them, so this resume will run the "
                "others again (see its plan: alp-nb workflow plan)", RuntimeWarning, stacklevel=3)
        live = [(call.label, call.phase) for call in rehearsal.calls if call.outcome != "cached"]
        usage = decision.snapshot.usage.cumulative
        expected = forecast_cost(live, self.costs, usage.tokens / usage.agents if usage.agents else None)
        spent = self.spent_before.counted
        if live and not expected.fits(self.budget, spent):
            warnings.warn(
                f"run `{self.run_id}` has {max((self.budget or 0) - spent, 0)} tokens of its budget left, but its "
                f"{len(live)} live calls should cost about {expected.expected} ({expected.low}–{expected.high}): it "
                f"will likely stop on its budget; --budget {expected.needed_budget(spent)} (budget= in Python) "
                "would cover them", RuntimeWarning, stacklevel=3)

    async def execute(self, subscribers: list[Subscriber]) -> WorkflowRun:
        """Run the attempt to its end. The snapshot comes first, whole (after a fork's copied journal, written
        whole): a kill at any instant leaves either no run or one that resumes. A write of the run's files that
        fails (a full disk) ends the attempt ``interrupted`` with that reason, where the snapshot can still be
        written, and is raised; closing the files never hides it."""
        self.started = True
        store, run_id, paths = self.store, self.run_id, self.store.paths(self.run_id)
        resumed = self.resumed
        if self.seed is not None:
            self._copy_seed(self.seed, paths)
        files: list[JournalWriter | EventLog] = []
        try:
            paths.output.unlink(missing_ok=True)  # a previous attempt's output is stale until this one ends
            self._persist("running")
            writer = JournalWriter(paths.journal, fsync=self.fsync, fresh=not resumed and self.seed is None,
                                   truncate_to=self.journal.good_bytes if resumed else None,
                                   needs_newline=self.journal.needs_newline, next_seq=self.journal.next_seq)
            files.append(writer)
            events = EventLog(subscribers, paths.events, fresh=not resumed)
            files.append(events)

            def on_phase() -> None:
                events.flush()
                self._persist("running")

            state = self.state = AttemptState(
                journal=self.journal, writer=writer, events=events, runner=self.runner,
                concurrency=self.concurrency, agent_cap=self.agent_cap, budget_total=self.budget,
                spent_before=self.spent_before.tokens, phases=self.saved.meta.phases, on_phase=on_phase,
                on_call=self.on_call, prompts=self.prompts, unanswered_before=self.spent_before.unanswered,
            )
            if store.last_run() != run_id:  # after the first snapshot: the pointer never names a missing one
                store.set_last_run(run_id, fsync=self.fsync)
            launched = LaunchEnvelope(run_id=run_id, task_id=_task_id(run_id), workflow_name=self.saved.meta.name,
                                      attempt=self.attempt.number, resumed=resumed, output_file=str(paths.output))
            ids = {"runId": run_id, "taskId": launched.task_id, "workflowName": launched.workflow_name,
                   "attempt": launched.attempt}
            events.emit("async_launched", resumed=resumed, format=EVENTS_FORMAT, **ids)
            events.emit("task_started", **ids)
            result, status, error, code = await run_script(self.saved, state, run_id=run_id, args=self.args,
                                                           registry=self.registry)
            failure = state.store_failure
            if failure is not None or code in STORE_FAILURES:
                raise failure or WorkflowInputError(code or "", error or "")
            events.flush()
            writer.close()
            store.write_output(run_id, result if status == "completed" else {"error": error}, fsync=self.fsync)
            task = self._persist(status, error, code)
            usage, cumulative = task.usage.attempt, task.usage.cumulative
            events.emit("task_notification", runId=run_id, status=status, agents=usage.agents, tokens=usage.tokens,
                        cumulativeAgents=cumulative.agents, cumulativeTokens=cumulative.tokens,
                        outputFile=str(paths.output), error=error)
            self.notified = True
            files.remove(events)
            try:
                events.close()
            except WorkflowInputError as late:  # the run has ended on disk; only its events file lacks the end
                warnings.warn(f"run `{run_id}` ended {status}, but its events file could not be finished: "
                              f"{late.message}", RuntimeWarning, stacklevel=3)
        except WorkflowInputError as failure:
            if failure.code in STORE_FAILURES:
                self._interrupted(failure, subscribers)
            raise
        finally:
            for file in reversed(files):
                with contextlib.suppress(WorkflowInputError, OSError):  # the first error is the one raised
                    file.close()
            self.lock.release()
        if status == "cancelled":
            raise asyncio.CancelledError
        return WorkflowRun(launched, result if status == "completed" else None, task)

    def _copy_seed(self, seed: ForkSeed, paths: RunPaths) -> None:
        """A fork's copied journal, written whole before its first snapshot: where it cannot be (a full disk), the
        fork never began, so its lock file goes too and nothing is left that lists, resumes or needs cleaning."""
        try:
            write_store_file(paths.journal, seed.lines(), fsync=self.fsync)
        except WorkflowInputError:
            with contextlib.suppress(OSError):
                paths.lock.unlink()
            self.lock.release()
            raise

    def _interrupted(self, failure: WorkflowInputError, subscribers: list[Subscriber]) -> None:
        """After a failed write: the attempt recorded ``interrupted`` with the reason, if the snapshot can still be
        written (a full disk may refuse that too), and the end told to the subscribers."""
        with contextlib.suppress(WorkflowInputError, OSError):
            self._persist("interrupted", failure.message, failure.code)
        self.notified = True
        _notify_subscribers(subscribers, {"type": "task_notification", "runId": self.run_id, "status": "interrupted",
                                          "error": failure.message, "code": failure.code, "ts": time.time()})

    def _cumulative(self, usage: Usage) -> Usage:
        """Every attempt's usage, the calls of unknown cost reserved at the largest answer recorded by now."""
        before = self.spent_before
        unanswered = before.unanswered + usage.unanswered
        reservation = self.journal.reservation if self.state is None else self.state.reservation
        return Usage(agents=before.agents + usage.agents, tokens=before.tokens + usage.tokens, unanswered=unanswered,
                     reserved=unanswered * reservation)

    def _persist(self, status: RunStatus, error: str | None = None, code: str | None = None) -> RunSnapshot:
        state = self.state
        ended = None if status == "running" else _now()
        usage = NO_USAGE if state is None else state.usage
        last_seq = (self.journal.next_seq if state is None else state.writer.next_seq) - 1
        attempt = self.attempt.replace(status=status, ended_at=ended, usage=usage,
                                       cached=0 if state is None else state.cached, last_seq=last_seq or None)
        phases = (PhaseProgress(title=title) for title in self.saved.meta.phases) if state is None else \
            state.phase_progress()
        snapshot = RunSnapshot(
            run_id=self.run_id, task_id=_task_id(self.run_id), workflow_name=self.saved.meta.name, args=self.args,
            script_digest=self.saved.digest, status=status,
            usage=UsageReport(attempt=usage, cumulative=self._cumulative(usage)),
            attempts=(*self.previous, attempt), pid=os.getpid(), phases=tuple(phases),
            logs=() if state is None else tuple(state.logs), error=error, error_code=code, budget=self.budget,
            fork=self.fork_origin, sealed_from=self.sealed_from, updated_at=_now(),
        )
        self.store.write_snapshot(snapshot, fsync=self.fsync)
        return snapshot


def _check_options(agent_cap: Any, concurrency: Any, durability: Any, on_call: Any) -> None:
    for field, value in (("agent_cap", agent_cap), ("concurrency", concurrency)):
        if type(value) is not int or value < 1:
            raise WorkflowInputError("INVALID_OPTION", f"{field} must be a positive integer")
    if durability not in ("flush", "fsync"):
        raise WorkflowInputError("INVALID_OPTION", "durability must be `flush` or `fsync`")
    if on_call is not None and not callable(on_call):
        raise WorkflowInputError("INVALID_OPTION", "on_call must be a callable taking a ObservedCall")


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

