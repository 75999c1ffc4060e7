"""The primitives a saved workflow script gets: agent, parallel, pipeline, phase, log, workflow, budget, args.

A script never reads files or runs commands itself; everything it learns
comes through ``agent()`` calls, each journaled by content so that a resume
re-runs the script and gets every unchanged call back from the journal.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import sys
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping
from functools import partial
from types import CoroutineType, FrameType
from typing import TYPE_CHECKING, Any

from alp_nb.base.errors import AlpError
from alp_nb.base.frozen import thaw
from alp_nb.base.untrusted_json import UntrustedJson, loads_untrusted

from .attempt import AttemptState, describe
from .calls import FLOW, CallObserver, Flow, ObservedCall, current_flow
from .errors import WorkflowInputError
from .keys import call_key, default_label
from .meta import validate_args
from .snapshot import RunStatus

if TYPE_CHECKING:
    from .saved_workflows import SavedWorkflow, WorkflowRegistry

MAX_NESTING = 1


class TokenBudget:
    """The run's token budget (``args["budget"]``): spent counts every attempt, cached calls included."""

    __slots__ = ("_state",)

    def __init__(self, state: AttemptState) -> None:
        self._state = state

    @property
    def total(self) -> int | None:
        return self._state.budget_total

    @property
    def spent(self) -> int:
        return self._state.spent

    @property
    def remaining(self) -> int | None:
        total = self._state.budget_total
        return None if total is None else max(total - self._state.spent, 0)

    def __repr__(self) -> str:
        return f"TokenBudget(total={self.total}, spent={self.spent}, remaining={self.remaining})"


class ExecutionContext:
    """What a workflow script is given as ``ctx``; one per (nested) workflow, all sharing one attempt."""

    __slots__ = ("_depth", "_nested_name", "_phase", "_registry", "_state", "args", "budget", "run_id", "workflow_name")

    def __init__(self, state: AttemptState, *, run_id: str, workflow_name: str, args: dict[str, Any],
                 registry: WorkflowRegistry, depth: int = 0) -> None:
        self._state = state
        self._registry = registry
        self._depth = depth
        self._phase: str | None = None
        self._nested_name = workflow_name if depth else None
        self.args = args
        self.budget = TokenBudget(state)
        self.run_id = run_id
        self.workflow_name = workflow_name

    def agent(self, prompt: str, schema: Mapping[str, Any] | None = None, label: str | None = None,
              phase: str | None = None) -> Coroutine[Any, Any, Any]:
        """One agent call (to await); with a schema the answer is validated (one retry with a reminder, then an
        error). Under an observer, where the script asked for it is kept too: the line of its caller."""
        where = _call_site(sys._getframe(1)) if self._state.on_call is not None else None
        return self._agent(prompt, schema, label, phase, where)

    async def _agent(self, prompt: str, schema: Mapping[str, Any] | None, label: str | None, phase: str | None,
                     where: str | None) -> Any:
        key, label, prompt, schema, phase = self._checked(prompt, schema, label, phase)
        state = self._state
        if state.on_call is not None:
            return await self._watched(state.on_call, key, label, prompt, schema, phase, where)
        hit = state.journal.lookup(key, label, prompt, schema)
        if key not in state.calls:
            state.admit(key, label)
        if hit is not None:
            return state.serve_cached(hit, key, label, phase, self._nested_name)
        if key in state.running:
            return (await state.share(key, label, prompt, schema, phase, self._nested_name))[0]
        return await state.call(key, label, prompt, schema, phase, self._nested_name)

    def _checked(self, prompt: Any, schema: Mapping[str, Any] | None, label: Any,
                 phase: Any) -> tuple[str, str, str, Any, str | None]:
        """An ``agent()`` call's arguments checked (INVALID_CALL names what is wrong) and completed as the call is
        made: its key, label (s16's default), prompt (a fork's, for its label), schema (plain JSON) and phase."""
        if type(prompt) is not str:
            raise WorkflowInputError("INVALID_CALL", "agent() prompt must be a string")
        if label is None or label == "":  # s16's `label or prompt[:24] + "..."`
            label = default_label(prompt)
        elif type(label) is not str:
            raise WorkflowInputError("INVALID_CALL", "agent() label must be a string")
        if self._state.prompts:
            prompt = self._state.prompts.get(label, prompt)
        if schema is not None and type(schema) is not dict:
            schema = thaw(schema)
        try:
            key = call_key("agent", label, prompt, schema)
        except UnicodeEncodeError as error:
            raise WorkflowInputError("INVALID_CALL", _not_unicode(prompt, label, error)) from None
        except (TypeError, ValueError, RecursionError) as error:
            raise WorkflowInputError("INVALID_CALL", f"agent `{label}` schema is not JSON: {error}") from None
        if phase is None:
            phase = self._phase
        elif type(phase) is not str or not phase:
            raise WorkflowInputError("INVALID_CALL", f"agent `{label}` phase must be a non-empty string")
        else:
            _check_unicode(f"agent `{label}` phase", phase)
        return key, label, prompt, schema, phase

    async def _watched(self, observe: CallObserver, key: str, label: str, prompt: str, schema: Any,
                       phase: str | None, where: str | None) -> Any:
        """``agent()`` with an observer: the same steps, then its ``ObservedCall`` (see ``calls``), a failed call's
        included; the call's flow is marked live once a runner was asked."""
        state, workflow = self._state, self._nested_name
        flow = current_flow()
        after_live = flow.live
        hit = state.journal.lookup(key, label, prompt, schema)
        live = False
        try:
            if key not in state.calls:
                state.admit(key, label)
            if hit is not None:
                value = state.serve_cached(hit, key, label, phase, workflow)
            elif key in state.running:
                value, live = await state.share(key, label, prompt, schema, phase, workflow)
            else:
                live = True
                value = await state.call(key, label, prompt, schema, phase, workflow)
        except Exception as error:
            flow.live = flow.live or live
            observe(ObservedCall(key, label, prompt, schema, phase, workflow, "failed", after_live=after_live,
                               error=describe(error), where=where))
            raise
        answer = hit if hit is not None else state.cache.get(key)
        flow.live = flow.live or live or (answer is not None and answer[2] >= state.first_seq)  # a fresh answer
        observe(ObservedCall(key, label, prompt, schema, phase, workflow, "live" if live else "cached", value,
                           tokens=answer[1] if answer else 0, seq=answer[2] if answer else None,
                           after_live=after_live, where=where))
        return value

    async def parallel(self, thunks: Iterable[Callable[[], Awaitable[Any]] | Awaitable[Any]]) -> list[Any]:
        """Run every thunk at once and wait for all (a barrier). The first failure cancels the siblings still
        pending (what already completed stays journaled) and is raised."""
        return await _all_or_cancel(list(thunks))

    async def pipeline(self, items: Iterable[Any], *stages: Callable[[Any, Any, int], Any]) -> list[Any]:
        """Send each item through every stage on its own (no barrier between stages); a stage gets
        ``(previous, item, index)``, the first one the item itself as ``previous``."""
        if not stages:
            raise WorkflowInputError("INVALID_CALL", "pipeline() needs at least one stage")
        for number, stage in enumerate(stages, 1):
            if not callable(stage):
                raise WorkflowInputError("INVALID_CALL", f"pipeline() stage {number} must be a callable taking "
                                         f"(previous, item, index), not {type(stage).__name__}")

        async def run_item(item: Any, index: int) -> Any:
            value = item
            for stage in stages:
                value = stage(value, item, index)
                if inspect.isawaitable(value):
                    value = await value
            return value

        return await _all_or_cancel([partial(run_item, item, index) for index, item in enumerate(items)])

    def phase(self, title: str) -> None:
        """Enter a phase: later calls count under it; its first entry in an attempt is announced."""
        if not isinstance(title, str) or not title:
            raise WorkflowInputError("INVALID_CALL", "phase() title must be a non-empty string")
        _check_unicode("phase() title", title)
        self._phase = title
        self._state.announce(title, self._nested_name)

    def log(self, message: Any) -> None:
        self._state.log(str(message), self._nested_name)

    async def workflow(self, name: str, args: Mapping[str, Any] | None = None) -> Any:
        """Run another saved workflow inside this run (one level deep): same journal, budget and cap."""
        if self._depth >= MAX_NESTING:
            raise WorkflowInputError(
                "NESTING_TOO_DEEP", f"workflow() nests one level: `{self.workflow_name}` cannot start `{name}`"
            )
        saved = self._registry.get(name)
        child = ExecutionContext(self._state, run_id=self.run_id, workflow_name=saved.meta.name,
                                 args=saved.check_args(validate_args(args, f"workflow `{name}` args"),
                                                       f"workflow `{name}` args"), registry=self._registry,
                                 depth=self._depth + 1)
        return await saved.fn(child, child.args)


class _AllDone(asyncio.Future[None]):
    """Done when every task of a ``parallel`` is. Cancelling it (the caller awaiting it was cancelled) cancels the
    tasks at once, as cancelling ``asyncio.gather`` does, so that none of them takes another step."""

    def __init__(self, tasks: list[asyncio.Task[None]]) -> None:
        super().__init__()
        self.tasks = tasks

    def cancel(self, msg: Any = None) -> bool:
        for task in self.tasks:
            task.cancel()
        return super().cancel(msg)


async def _all_or_cancel(thunks: list[Any]) -> list[Any]:
    """Run each thunk (or awaitable) in a task of its own and wait for all of them (see ``_Barrier``)."""
    if not thunks:
        return []
    return await _Barrier(thunks).wait()


class _Barrier:
    """The tasks of one ``parallel``, each a thunk's, and their results.

    The first failure cancels the siblings from inside the failing task, in the same step that frees its
    concurrency slot, so no waiting sibling starts a runner call in that slot. Each task also counts itself done,
    where ``asyncio.gather`` would be told by one more callback, and one more loop turn, per task: a fan-out of
    thousands of cached calls is mostly that overhead on resume.
    """

    def __init__(self, thunks: list[Any]) -> None:
        self.thunks = thunks
        self.results: list[Any] = [None] * len(thunks)
        self.tasks: list[asyncio.Task[None]] = []
        self.finished = _AllDone(self.tasks)
        self.left = len(thunks)
        self.parent = FLOW.get()  # None unless an observer watches the run (see calls.py)
        self.flows = [] if self.parent is None else [Flow(self.parent.live) for _ in thunks]

    async def wait(self) -> list[Any]:
        loop = asyncio.get_running_loop()
        self.tasks[:] = [loop.create_task(self.sibling(index, thunk)) for index, thunk in enumerate(self.thunks)]
        try:
            await self.finished
        except BaseException:
            for task in self.tasks:  # the caller was cancelled, or a sibling failed: stop what still runs
                task.cancel()
            await asyncio.gather(*self.tasks, return_exceptions=True)  # nothing is journaled after this returns
            raise
        if self.parent is not None:  # past the barrier, the script may use every branch's answers
            self.parent.live = self.parent.live or any(flow.live for flow in self.flows)
        return self.results

    async def sibling(self, index: int, thunk: Any) -> None:
        if self.flows:
            FLOW.set(self.flows[index])
        try:
            awaitable = thunk() if callable(thunk) else thunk
            if type(awaitable) is not CoroutineType and not inspect.isawaitable(awaitable):
                raise WorkflowInputError("INVALID_CALL", "parallel() takes callables that return awaitables, "
                                         "such as lambda: ctx.agent(...)")
            self.results[index] = await awaitable
        except Exception as error:  # the first failure: siblings stop in this same step, and it is raised
            self.fail(error)
            return
        except asyncio.CancelledError as error:
            if not self.finished.done():  # cancelled by its own thunk, not by parallel: that ends the barrier too
                self.fail(error)
            raise
        self.left -= 1
        if not self.left and not self.finished.done():
            self.finished.set_result(None)

    def fail(self, error: BaseException) -> None:
        current = asyncio.current_task()
        for task in self.tasks:
            if task is not current:
                task.cancel()
        if not self.finished.done():
            self.finished.set_exception(error)


def _call_site(frame: FrameType) -> str:
    """``file:line`` of the frame that asked for an agent call (a lambda's, inside ``parallel``)."""
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


def _not_unicode(prompt: str, label: str, error: UnicodeEncodeError) -> str:
    """Which text of an agent() call cannot be written as UTF-8 (a lone surrogate), without echoing it."""
    for field, text in (("prompt", prompt), ("label", label)):
        try:
            text.encode()
        except UnicodeEncodeError as bad:
            return f"agent() {field} is not valid Unicode text: {bad.reason} at character {bad.start}"
    return f"agent `{label}` schema holds text that is not valid Unicode: {error.reason}"


def _check_unicode(field: str, text: str) -> None:
    """INVALID_CALL for text that cannot be written as UTF-8 (a lone surrogate): the journal could not hold it."""
    try:
        text.encode()
    except UnicodeEncodeError as bad:
        raise WorkflowInputError("INVALID_CALL", f"{field} is not valid Unicode text: {bad.reason} at character "
                                 f"{bad.start}") from None


async def run_script(saved: SavedWorkflow, state: AttemptState, *, run_id: str, args: dict[str, Any],
                     registry: WorkflowRegistry) -> tuple[Any, RunStatus, str | None, str | None]:
    """Run ``saved``'s script in ``state`` to its end: (result, status, error, error code). A script failure
    ends it ``failed`` with the error described (and its code, if it has one); cancellation ends it
    ``cancelled``; a result that is not JSON the output file can hold fails it."""
    ctx = ExecutionContext(state, run_id=run_id, workflow_name=saved.meta.name,
                           args=json.loads(json.dumps(args)), registry=registry)
    token = FLOW.set(Flow()) if state.on_call is not None else None  # an observer sees which calls followed live
    try:
        result = await saved.fn(ctx, ctx.args)
    except asyncio.CancelledError:
        return None, "cancelled", "cancelled", None
    except Exception as error:  # any script failure ends the run as failed, reported
        return None, "failed", describe(error), error.code if isinstance(error, AlpError) else None
    finally:
        if token is not None:
            FLOW.reset(token)
    try:  # as the output file will hold it, and as it must read back
        loads_untrusted(json.dumps(result, allow_nan=False, ensure_ascii=False).encode())
    except (TypeError, ValueError, RecursionError, UntrustedJson) as error:
        return None, "failed", f"the workflow result is not JSON: {error}", None
    return result, "completed", None, None
