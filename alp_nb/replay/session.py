"""``ReplaySession``: a saved workflow's script run again against its run's journal, paused at every agent call.

The script really runs (a runtime dry run: the same ``ExecutionContext`` a resume uses), in a thread of its own
with its own event loop, so a notebook cell can call ``step()`` while its kernel's loop is busy. The observer the
runtime calls at each ``agent()`` holds the script there until the next step, so the calls come one at a time,
in the order the script makes them, and nothing runs ahead. Journaled calls are served from the journal; any
other is answered by a stand-in (a made-up value fitting its schema, at no cost) unless a runner is given: a
replay never calls a model unless asked to, and never writes to the run.

Each call is ``cached`` (served from the journal), ``divergent`` (the journal holds a call with its label but
another prompt or schema: the script changed since the run), ``missing`` (no journaled call has its label: the
run never got there, or its answer was lost; also a call asked after a live one, whose prompt may hold a
stand-in answer) or ``failed``. As Temporal's replayer does, a divergence is reported with what changed and
where in the script; so is every journaled call the script no longer makes, once it has finished.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import os
import queue
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from alp_nb.runtime.calls import ObservedCall
from alp_nb.runtime.dry_runs import DryRun, StandInRunner, dry_run
from alp_nb.runtime.journal.entry import JournalEntry
from alp_nb.runtime.journal.reader import JournalRead
from alp_nb.runtime.resume import resumable_args
from alp_nb.runtime.saved_workflows import DEFAULT_REGISTRY, WorkflowRegistry
from alp_nb.runtime.store import RunStore

from .errors import ReplayError
from .locate import locate_run

CallStatus = Literal["cached", "divergent", "missing", "failed"]
AFTER_LIVE = "asked after a live call: its prompt may hold a stand-in answer"


@dataclass(frozen=True)
class ReplayCall:
    """One agent call of a replay, in the order the script made it (``index`` from 1): what it asked, where in
    the script, how it was answered, and for a divergent call the journaled call with its label."""

    index: int
    label: str
    phase: str | None
    key: str
    prompt: str
    schema: Any
    value: Any
    status: CallStatus
    tokens: int
    seq: int | None
    where: str | None
    after_live: bool
    journaled: JournalEntry | None = None
    error: str | None = None
    note: str | None = None

    @property
    def changed(self) -> str:
        """What differs from the journaled call with the same label: ``prompt``, ``schema``, both, or ``""``."""
        entry = self.journaled
        if entry is None:
            return ""
        parts = [name for name, differs in (("prompt", entry.prompt != self.prompt),
                                            ("schema", _json(entry.schema_) != _json(self.schema))) if differs]
        return " and ".join(parts)

    @property
    def diff(self) -> str:
        """A unified diff, journal → script, of the prompt and (as indented JSON) the schema that changed."""
        entry = self.journaled
        if entry is None:
            return ""
        parts = []
        if entry.prompt != self.prompt:
            parts += _unified((entry.prompt or "").splitlines(), self.prompt.splitlines(), "prompt")
        if _json(entry.schema_) != _json(self.schema):
            parts += _unified(_json(entry.schema_).splitlines(), _json(self.schema).splitlines(), "schema")
        return "\n".join(parts)


@dataclass(frozen=True)
class Divergence:
    """Where the script and the journal part ways: a call the script makes that the journal lacks (``changed``:
    the journal has its label with another prompt or schema), or a journaled call the script no longer makes
    (``not asked``)."""

    kind: Literal["changed", "not asked"]
    label: str | None
    key: str
    call: ReplayCall | None = None
    entry: JournalEntry | None = None

    @property
    def where(self) -> str | None:
        return self.call.where if self.call is not None else None


class ReplaySession:
    """Step through a stored run's script call by call, against its journal. ``run``: a ``RunRecord``, a
    ``WorkflowRun``, ``(RunStore, run_id)`` or a run id (with ``store``); ``registry`` holds its workflow (default:
    the runtime's); ``runner`` answers the calls the journal lacks (default: stand-ins, never a model).

    ``step()`` returns the next call (None once the script has finished), ``run_to(label or index)`` and
    ``run_to_end()`` go further; ``cursor`` is the number of calls made, ``calls`` the calls so far, and once
    ``finished``: ``status``, ``result`` and ``error``. ``divergences`` lists what parted from the journal.
    """

    def __init__(self, run: Any, *, store: RunStore | str | os.PathLike[str] | None = None,
                 registry: WorkflowRegistry | None = None, runner: Any = None) -> None:
        self.store, self.run_id = locate_run(run, store)
        snapshot = self.store.read_snapshot(self.run_id)
        self.workflow_name = snapshot.workflow_name
        self.saved = (DEFAULT_REGISTRY if registry is None else registry).get(snapshot.workflow_name)
        self.args = resumable_args(snapshot, self.saved, None)
        self.registry = registry
        self.journal: JournalRead = self.store.read_journal(snapshot, keep_entries=True)
        self._by_label: dict[str, list[JournalEntry]] = {}
        for entry in self.journal.entries or ():
            if entry.label is not None:
                self._by_label.setdefault(entry.label, []).append(entry)
        self._prompts: Mapping[str, str] = snapshot.fork.prompts if snapshot.fork is not None else {}
        self._runner = StandInRunner() if runner is None else runner
        self._calls: list[ReplayCall] = []
        self._arrivals: queue.Queue[tuple[str, Any]] = queue.Queue()
        self._gate = threading.Semaphore(0)
        self._thread: threading.Thread | None = None
        self._ended: DryRun | None = None
        self._closing = False

    # --- stepping ----------------------------------------------------------------------------------------------

    def step(self) -> ReplayCall | None:
        """Let the script make its next agent call and return it; None once the script has finished."""
        if self._ended is not None:
            return None
        if self._thread is None:
            self._thread = threading.Thread(target=self._replay, name=f"alp-nb replay {self.run_id}", daemon=True)
            self._thread.start()
        else:
            self._gate.release()
        kind, item = self._arrivals.get()
        if kind == "call":
            self._calls.append(item)
            return item
        self._ended = item
        return None

    def run_to(self, target: str | int) -> ReplayCall:
        """Step until the call labelled ``target`` (a string) or the call number ``target`` (from 1) is made,
        and return it (the current call if it already is). CALL_NOT_REACHED if the script finishes first."""
        if isinstance(target, bool) or not isinstance(target, (str, int)) or (isinstance(target, int) and target < 1):
            raise ReplayError("INVALID_OPTION", f"run_to takes a call label or a call number from 1, not {target!r}")
        if isinstance(target, int) and target <= len(self._calls):
            return self._calls[target - 1]
        if isinstance(target, str) and self._calls and self._calls[-1].label == target:
            return self._calls[-1]
        while (call := self.step()) is not None:
            if call.index == target or call.label == target:
                return call
        what = f"call number {target}" if isinstance(target, int) else f"a call labelled `{target}`"
        raise ReplayError("CALL_NOT_REACHED", f"the script finished after {len(self._calls)} calls without making "
                          f"{what}")

    def run_to_end(self) -> Any:
        """Step through every call left; the script's result (None if it failed: see ``error``)."""
        while self.step() is not None:
            pass
        return self.result

    def close(self) -> None:
        """Stop a replay left part way: the paused script is failed at its current call and its thread ends."""
        if self._thread is None or self._ended is not None:
            return
        self._closing = True
        self._gate.release()
        while self.step() is not None:
            self._gate.release()

    def __enter__(self) -> ReplaySession:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # --- where it stands ---------------------------------------------------------------------------------------

    @property
    def cursor(self) -> int:
        """How many calls the script has made so far (the index of the current one)."""
        return len(self._calls)

    @property
    def calls(self) -> tuple[ReplayCall, ...]:
        return tuple(self._calls)

    @property
    def current(self) -> ReplayCall | None:
        return self._calls[-1] if self._calls else None

    @property
    def finished(self) -> bool:
        return self._ended is not None

    @property
    def status(self) -> str:
        """``replaying`` until the script ends, then ``completed`` or ``failed``."""
        return "replaying" if self._ended is None else self._ended.status

    @property
    def result(self) -> Any:
        """The script's result once it has completed, else None."""
        return self._ended.result if self._ended is not None else None

    @property
    def error(self) -> str | None:
        return self._ended.error if self._ended is not None else None

    @property
    def divergences(self) -> tuple[Divergence, ...]:
        """Each changed call so far; once the script has finished, also each journaled call it never asked for
        (if it failed part way, those it did not reach are among them)."""
        changed = [Divergence("changed", call.label, call.key, call=call, entry=call.journaled)
                   for call in self._calls if call.status == "divergent"]
        if self._ended is None:
            return tuple(changed)
        served = {call.seq for call in self._calls if call.status == "cached"}
        missed = [Divergence("not asked", entry.label, entry.key, entry=entry)
                  for entry in self.journal.entries or () if entry.seq not in served]
        return (*changed, *missed)

    def __repr__(self) -> str:
        return (f"<ReplaySession {self.run_id} {self.status}, {self.cursor} calls, "
                f"{len(self.divergences)} divergences>")

    # --- the script's thread -----------------------------------------------------------------------------------

    def _replay(self) -> None:
        try:
            ended = asyncio.run(dry_run(
                self.saved, self.args, self.journal, runner=self._runner, on_call=self._arrive,
                registry=self.registry, prompts=self._prompts, run_id=self.run_id,
                agent_cap=max(1000, 2 * len(self.journal.calls) + 1000)))
        except BaseException as error:  # the session must always hear that the script ended
            ended = DryRun(None, "failed", f"{type(error).__name__}: {error}", (), self.journal.next_seq)
        self._arrivals.put(("end", ended))

    def _arrive(self, record: ObservedCall) -> None:
        """At each call (in the script's thread): hand it to the session, then wait for the next step."""
        self._arrivals.put(("call", self._call(record)))
        self._gate.acquire()
        if self._closing:
            raise ReplayError("REPLAY_CLOSED", "the replay was closed at this call")

    def _call(self, record: ObservedCall) -> ReplayCall:
        journaled, note = None, None
        status: CallStatus
        if record.outcome == "cached":
            status = "cached"
        elif record.outcome == "failed":
            status = "failed"
        else:
            same_label = [entry for entry in self._by_label.get(record.label, ()) if entry.key != record.key]
            if same_label and not record.after_live:
                status, journaled = "divergent", same_label[-1]
            else:
                status, note = "missing", AFTER_LIVE if record.after_live else None
        return ReplayCall(len(self._calls) + 1, record.label, record.phase, record.key, record.prompt,
                          record.schema, record.value, status, record.tokens, record.seq, record.where,
                          record.after_live, journaled, record.error, note)


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=_thawed)


def _thawed(value: Any) -> Any:
    """Frozen JSON from the journal (read-only mappings and tuples) as plain JSON."""
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def _unified(before: list[str], after: list[str], what: str) -> list[str]:
    return list(difflib.unified_diff(before, after, f"{what} in the journal", f"{what} the script asks",
                                     lineterm=""))
