"""One attempt of a run: the state every context of the attempt shares, and how a call is made.

The hot path of ``agent()`` lives here: key lookup in the journal cache,
cap and budget checks, the runner call (inline for non-blocking runners),
schema validation with one retry, then the journal line, written before the
call counts as done and added to the cache, so the same call made again in
this run is served from the journal exactly as a resume would serve it.

Every runner call is announced on an ask line before the runner is asked, and
every answer the runner hands back is on disk before anything else is done
with it: the one a call keeps on its journal line, any other (retried,
refused, not JSON, or arriving as the call is cancelled) on a spend line. An
ask that nothing answers is spend of unknown size. So a crash, or a sibling's
failure, never makes the run forget a call it paid for.

A sync runner's call runs in a thread that cannot be stopped. When the run
stops itself (a sibling failed, the budget is spent), each such call still
out is waited for and its answer recorded as spent, so the run ends only once
every answer it caused is on disk. When the run is stopped from outside
(Ctrl-C, a notebook's interrupt), it ends at once: each call still out is
abandoned, its ask line left unanswered on record.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections import Counter, deque
from collections.abc import Callable, Mapping
from typing import Any, Literal, NamedTuple

from alp_nb.agents.errors import AgentError
from alp_nb.agents.output_contract import OutputContract
from alp_nb.base.untrusted_json import UntrustedJson, loads_untrusted

from .calls import CallObserver
from .errors import WorkflowInputError
from .events import EventLog
from .journal.outcomes import SpendReason
from .journal.reader import CachedCall, JournalRead
from .journal.writer import JournalWriter, MemoryJournal, answer_line, ask_line, journaled, spend_line
from .keys import canonical_dumps
from .runners import RunnerOutput, invoker
from .snapshot import SNAPSHOT_LOG_LINES, PhaseProgress, Usage

RETRY_REMINDER = "\n\nReturn valid JSON."
PhaseCount = Literal["done", "cached", "failed", "cancelled"]
"""What an attempt counts of the calls of each phase, in ``PhaseProgress``'s words."""


class Asked(NamedTuple):
    """A runner's output and the seq of the ask line it answers."""

    seq: int
    output: Any


class AttemptState:
    """The journal cache and writer, usage, budget, cap, phases, logs and events of one attempt."""

    def __init__(self, *, journal: JournalRead, writer: JournalWriter | MemoryJournal, events: EventLog,
                 runner: Any, concurrency: int, agent_cap: int, budget_total: int | None, spent_before: int,
                 phases: tuple[str, ...], on_phase: Callable[[], None], on_call: CallObserver | None = None,
                 prompts: Mapping[str, str] | None = None, unanswered_before: int = 0) -> None:
        self.journal = journal
        self.cache: dict[str, CachedCall] = journal.calls  # answers made in this attempt join it
        self.on_call = on_call
        self.prompts = prompts or {}  # a fork's prompts, asked instead of the script's (by label)
        self.writer = writer
        self.first_seq = writer.next_seq  # lines from here on are this attempt's own answers
        self.events = events
        self.agent_cap = agent_cap
        self.budget_total = budget_total
        self.spent_before = spent_before  # the tokens earlier attempts recorded
        self.unanswered_before = unanswered_before  # and the calls they asked that nobody answered
        self.on_phase = on_phase
        self.calls: set[str] = set()
        self.agents = 0
        self.tokens = 0
        self.cached = 0
        self.phases: dict[str, Counter[PhaseCount]] = {title: Counter() for title in phases}
        self.announced: set[str] = set()
        self.logs: deque[str] = deque(maxlen=SNAPSHOT_LOG_LINES)
        self.contracts: dict[str, OutputContract] = {}
        self.running: dict[str, asyncio.Future[None] | None] = {}  # calls in flight, and what twins wait on
        self.unanswered = 0  # runner calls abandoned while out: asked, never answered on record
        self.largest = journal.largest_answer
        self.store_failure: WorkflowInputError | None = None  # the first write of the run's files that failed
        self._semaphore = asyncio.Semaphore(concurrency)
        self._loop = asyncio.get_running_loop()
        self._root = asyncio.current_task()  # the run's own task: cancelled only from outside
        self._invoke = invoker(runner)

    @property
    def reservation(self) -> int:
        """What an unanswered call counts against the budget: the largest answer recorded so far, at least 1."""
        return max(self.largest, 1)

    @property
    def usage(self) -> Usage:
        return Usage(agents=self.agents, tokens=self.tokens, unanswered=self.unanswered,
                     reserved=self.unanswered * self.reservation)

    @property
    def spent(self) -> int:
        """What the budget counts: every token recorded, and the reservation of every call of unknown cost."""
        return self.spent_before + self.tokens + (self.unanswered_before + self.unanswered) * self.reservation

    def phase_progress(self) -> tuple[PhaseProgress, ...]:
        return tuple(PhaseProgress(title=title, done=counts["done"], cached=counts["cached"], failed=counts["failed"],
                                   cancelled=counts["cancelled"]) for title, counts in self.phases.items())

    def announce(self, title: str, workflow: str | None) -> None:
        """A phase's first mention in this attempt is announced (event, snapshot); later ones only switch."""
        if title in self.announced:
            return
        self.announced.add(title)
        self.phases.setdefault(title, Counter())
        self.events.publish(_tagged({"type": "workflow_phase", "title": title}, workflow))
        self.on_phase()

    def log(self, message: str, workflow: str | None) -> None:
        self.logs.append(message)
        self.events.publish(_tagged({"type": "workflow_log", "message": message}, workflow))
        self.events.flush()

    def admit(self, key: str, label: str) -> None:
        """Count a call not seen before in this run (the cap counts distinct calls: a repeated or cached call
        is the same call); callers skip this for keys already in ``calls``."""
        if len(self.calls) >= self.agent_cap:
            raise WorkflowInputError(
                "AGENT_CAP_REACHED",
                f"agent cap of {self.agent_cap} distinct calls reached; `{label}` was not run "
                "(resume with a higher agent_cap, or `alp-nb workflow resume --agent-cap N`, to go on)",
            )
        self.calls.add(key)

    def check_budget(self, label: str, *, new_call: bool) -> None:
        total = self.budget_total
        if total is None:
            return
        spent = self.spent
        if spent > total or (new_call and spent >= total):
            raise WorkflowInputError(
                "BUDGET_EXCEEDED", f"token budget of {total} is spent ({spent} tokens used); `{label}` was refused"
            )

    def count(self, phase: str | None, outcome: PhaseCount) -> None:
        if phase is not None:
            counts = self.phases.get(phase)
            if counts is None:
                counts = self.phases[phase] = Counter()
            counts[outcome] += 1

    def serve_cached(self, hit: CachedCall, key: str, label: str, phase: str | None, workflow: str | None) -> Any:
        """A journaled call's value; its tokens are already in ``spent`` (counted from every attempt)."""
        if self.budget_total is not None:
            self.check_budget(label, new_call=False)
        self.cached += 1
        if phase is not None:
            self.count(phase, "cached")
        self.events.agent_event("cached", key, label, phase, workflow, seq=hit[2])
        return hit[0]

    async def share(self, key: str, label: str, prompt: str, schema: Any, phase: str | None,
                    workflow: str | None) -> tuple[Any, bool]:
        """The same call is running now (a twin in ``parallel``): wait for it and take its journaled answer, so
        one call gets one runner answer. If the twin failed, make the call here. Returns the value and whether
        this call went to the runner itself."""
        running = self.running
        while key in running:
            twin = running[key]
            if twin is None:  # the first twin to wait makes the future the running call resolves
                twin = running[key] = self._loop.create_future()
            await asyncio.wait((twin,))  # unlike awaiting it, never cancels the twin's future
            hit = self.cache.get(key)
            if hit is not None:
                return self.serve_cached(hit, key, label, phase, workflow), False
        return await self.call(key, label, prompt, schema, phase, workflow), True

    async def call(self, key: str, label: str, prompt: str, schema: Any, phase: str | None,
                   workflow: str | None) -> Any:
        """Run one new call in a concurrency slot; its journal line is written before it counts as done, and its
        answer joins the cache, so the same call made again is served from the journal."""
        if self.store_failure is not None:  # the run's files cannot be written: no call may be paid for now
            raise WorkflowInputError(self.store_failure.code, self.store_failure.message)
        contract = None if schema is None else self._contract(schema)  # refused before the runner is paid
        self.running[key] = None
        events = self.events
        try:
            async with self._semaphore:
                self.check_budget(label, new_call=True)  # in the slot: no queued call starts once the budget is spent
                events.agent_event("started", key, label, phase, workflow)
                self.agents += 1
                try:
                    value, tokens, seq = await self._answer(key, label, prompt, schema, contract, phase, workflow)
                except asyncio.CancelledError:  # a sibling failed, or the run was stopped: not this call's failure
                    self.count(phase, "cancelled")
                    events.agent_event("cancelled", key, label, phase, workflow)
                    raise
                except BaseException as error:
                    self.count(phase, "failed")
                    events.tell(_tagged({"type": "workflow_agent", "status": "failed", "key": key, "label": label,
                                         "phase": phase, "error": describe(error)}, workflow))
                    raise
            self.cache[key] = (value, tokens, seq)
        finally:
            waiting = self.running.pop(key)
            if waiting is not None:
                waiting.set_result(None)
        self.count(phase, "done")
        events.agent_event("done", key, label, phase, workflow, tokens)
        total = self.budget_total
        if total is not None and self.spent > total:
            raise WorkflowInputError(
                "BUDGET_EXCEEDED",
                f"`{label}` took the run over its token budget ({self.spent} of {total} tokens); "
                "its result is journaled",
            )
        return value

    async def _answer(self, key: str, label: str, prompt: str, schema: Any, contract: OutputContract | None,
                      phase: str | None, workflow: str | None) -> tuple[Any, int, int]:
        """The answer the call keeps, its tokens and the seq of its journal line: output failing its schema is asked
        for once more with a reminder, then refused. An answer not kept is recorded as spent at once."""
        ask = await self._ask(key, label, prompt, schema, phase, 1)
        value, tokens = self._take(ask, label)
        if contract is None or (verdict := contract.validate(value)).ok:
            return value, tokens, self.write(answer_line(ask.seq, value, tokens))
        self._spend(ask.seq, tokens, "retried", issues=list(verdict.issues))
        self.events.tell(_tagged({"type": "workflow_agent", "status": "retry", "key": key, "label": label,
                                  "phase": phase, "issues": list(verdict.issues)}, workflow))
        ask = await self._ask(key, label, prompt, schema, phase, 2)
        value, tokens = self._take(ask, label)
        verdict = contract.validate(value)
        if not verdict.ok:
            self._spend(ask.seq, tokens, "refused", issues=list(verdict.issues))
            raise WorkflowInputError(
                "INVALID_OUTPUT",
                f"agent `{label}` returned output that does not match its schema after one retry: "
                + "; ".join(verdict.issues),
            )
        return value, tokens, self.write(answer_line(ask.seq, value, tokens))

    async def _ask(self, key: str, label: str, prompt: str, schema: Any, phase: str | None,
                   answer: int) -> Asked:
        """The runner's output for answer ``answer`` of the call (the second is asked with a reminder), asked after
        its ask line is written. A runner that raises instead of answering handed back nothing: its ask is
        answered by a spend line of 0 tokens (``failed``), as an async runner's is when its coroutine is
        cancelled with the call (``cancelled``)."""
        seq = self.write(ask_line(key, label, phase, prompt, schema, answer))
        try:
            output = self._invoke(prompt if answer == 1 else prompt + RETRY_REMINDER, schema, label)
            while type(output) is not RunnerOutput and inspect.isawaitable(output):
                if isinstance(output, asyncio.Future):
                    output = await self._thread_answer(output, seq, label)
                    continue
                try:
                    output = await output
                except asyncio.CancelledError:  # the runner's coroutine stopped with it: it handed back nothing
                    self._spend_or_leave_unanswered(seq)
                    raise
        except Exception as error:
            self._spend(seq, 0, "failed", error=describe(error))
            raise
        return Asked(seq, output)

    async def _thread_answer(self, future: asyncio.Future[Any], ask: int, label: str) -> Any:
        """The output of a runner call running in a thread (``future``). Cancelled because the run stopped
        itself, it waits on for the answer and records it as spent before the cancellation goes on; cancelled from
        outside, it abandons the call (its ask stays unanswered). ``asyncio.wait`` never cancels ``future``."""
        try:
            await asyncio.wait((future,))
        except asyncio.CancelledError:
            while not future.done() and not self._stopped_from_outside():
                with contextlib.suppress(asyncio.CancelledError):  # more siblings failing: still waiting
                    await asyncio.wait((future,))
            late = _settled_answer(future)
            if late is not None:
                self._spend(ask, self._charge(late, label), "cancelled")
            elif future.done() and not future.cancelled() and isinstance(raised := future.exception(), Exception):
                self._spend(ask, 0, "failed", error=describe(raised))
            else:  # abandoned while out, or answered with something that is not a runner's output
                future.cancel()
                self.unanswered += 1
            raise
        return future.result()

    def _spend_or_leave_unanswered(self, ask: int) -> None:
        """Answer a cancelled call's ask with 0 tokens; if even that cannot be written, it stays unanswered."""
        try:
            self._spend(ask, 0, "cancelled")
        except WorkflowInputError:
            self.unanswered += 1

    def _stopped_from_outside(self) -> bool:
        """The run's own task was cancelled (Ctrl-C, an interrupt, ``task.cancel()``), not just a sibling's."""
        root = self._root
        return root is not None and root.cancelling() > 0

    def write(self, record: dict[str, Any]) -> int:
        """Append ``record`` to the journal; the first failure to write (a full disk) is kept, and stops the run."""
        try:
            return self.writer.append(record)
        except WorkflowInputError as error:
            self.store_failure = self.store_failure or error
            raise

    def _take(self, ask: Asked, label: str) -> tuple[Any, int]:
        """Charge a runner's output and return its value as the journal will give it back, with its tokens;
        output whose value is not JSON is refused (RUNNER_OUTPUT), its tokens recorded as spent."""
        tokens = self._charge(ask.output, label)
        try:
            return _journaled(ask.output.value, label), tokens
        except WorkflowInputError:
            self._spend(ask.seq, tokens, "not JSON")
            raise

    def _spend(self, ask: int, tokens: int, reason: SpendReason, **detail: Any) -> None:
        """Journal an answer paid for but not kept (a spend line), so its tokens outlive a crash; ``detail`` is
        what says why (``error``, ``issues``)."""
        self.write(spend_line(ask, tokens, reason, detail))

    def _charge(self, output: Any, label: str) -> int:
        if type(output) is not RunnerOutput:
            raise WorkflowInputError("RUNNER_OUTPUT", f"the runner answered `{label}` with "
                                     f"{type(output).__name__}, expected RunnerOutput")
        tokens = output.tokens
        if type(tokens) is not int or tokens < 0:
            raise WorkflowInputError("RUNNER_OUTPUT", f"the runner reported invalid tokens for `{label}`: {tokens!r}")
        self.tokens += tokens
        if tokens > self.largest:
            self.largest = tokens
        return tokens

    def _contract(self, schema: Any) -> OutputContract:
        text = canonical_dumps(schema)
        contract = self.contracts.get(text)
        if contract is None:
            if not isinstance(schema, Mapping):
                raise WorkflowInputError("INVALID_SCHEMA", "an agent() schema must be a JSON Schema object")
            try:
                loads_untrusted(text)  # what the journal line will hold must read back
                contract = self.contracts[text] = OutputContract("agent-output", schema)
            except UntrustedJson as error:
                raise WorkflowInputError("INVALID_SCHEMA", f"an agent() schema must be JSON a journal can hold: "
                                         f"{error.message}") from None
            except AgentError as error:
                raise WorkflowInputError("INVALID_SCHEMA", error.message) from None
        return contract


def _journaled(value: Any, label: str) -> Any:
    """The runner's value as the journal will give it back; RUNNER_OUTPUT if it is not JSON the journal can hold."""
    try:
        return journaled(value)
    except (TypeError, ValueError, RecursionError, UntrustedJson) as error:
        raise _not_json(label, error) from None


def _not_json(label: str, error: Exception) -> WorkflowInputError:
    return WorkflowInputError("RUNNER_OUTPUT", f"agent `{label}` returned a non-JSON value: {error}")


def _settled_answer(pending: Any) -> RunnerOutput | None:
    """The runner output a future already holds (it settled before the cancellation reached its caller), if it
    is one with valid tokens; None for anything else."""
    if (not isinstance(pending, asyncio.Future) or not pending.done() or pending.cancelled()
            or pending.exception() is not None):
        return None
    output = pending.result()
    tokens = getattr(output, "tokens", None)
    return output if type(output) is RunnerOutput and type(tokens) is int and tokens >= 0 else None


def _tagged(event: dict[str, Any], workflow: str | None) -> dict[str, Any]:
    """Events of a nested workflow name it."""
    if workflow is not None:
        event["workflow"] = workflow
    return event


def describe(error: BaseException) -> str:
    """The error as one line of valid text: it goes into the snapshot, the events and the output file,
    so a lone surrogate in a script's message is shown escaped instead of breaking those writes."""
    if isinstance(error, WorkflowInputError):
        text = error.message
    elif isinstance(error, asyncio.CancelledError):
        text = "cancelled"
    else:
        text = f"{type(error).__name__}: {error}"
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
