"""Live progress: every event goes to the run's subscribers as it happens; what the journal does not already say
goes to ``<runId>.events.jsonl`` too.

An event is a JSON-ready dict with ``type``, its fields and ``ts`` (seconds since the epoch):

- ``async_launched`` {runId, taskId, workflowName, resumed, attempt, format}
- ``task_started`` {runId, taskId, workflowName, attempt}
- ``workflow_phase`` {title}
- ``workflow_agent`` {status: started|done|cached|retry|failed|cancelled, key, label, phase; ``tokens`` when
  done; ``seq`` when cached (the journal line it was served from); ``issues`` on retry; ``error`` when failed}
- ``workflow_log`` {message}
- ``task_notification`` {runId, status, agents, tokens, cumulativeAgents, cumulativeTokens, outputFile, error}
  — always the last event of a ``run_workflow`` call, even one refused before launch (then runId is null).

Events of a nested ``workflow()`` carry ``workflow`` (its name); it has no task events of its own.

On disk (``format`` 3). The journal already says when every call it holds was asked, how it ended and what it
cost, so the file keeps only what it does not: the lifecycle, phases, log lines, the ending, and the calls served
from the journal: one ``calls_cached`` {ranges} line per flush names the journal seqs served since the last as
runs of evenly spaced seqs ``[first, last, step]``, so an all-cached resume of 2,000 calls adds one short line. A
``workflow_agent`` event reaches subscribers only. Files written before still read: format 2 listed the seqs one
by one (``seqs``), format 1 (no ``format``) held a ``workflow_agent`` line for every call.
"""

from __future__ import annotations

import asyncio
import os
import time
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from alp_nb.base.jsonline import line_encoder

from .store_files import inaccessible, open_store_file, store_file, write_all

Event = dict[str, Any]
Subscriber = Callable[[Event], Any]
EVENTS_FORMAT = 3


def seq_ranges(seqs: list[int]) -> list[list[int]]:
    """``seqs`` as runs of evenly spaced seqs, ``[first, last, step]``, in their order: a resume's thousands of
    cached calls (each answer line one after its ask line) are one run of a few bytes."""
    ranges: list[list[int]] = []
    for seq in seqs:
        if ranges:
            run = ranges[-1]
            if run[0] == run[1] and seq > run[1]:
                run[1], run[2] = seq, seq - run[0]
                continue
            if seq == run[1] + run[2]:
                run[1] = seq
                continue
        ranges.append([seq, seq, 1])
    return ranges
"""The format of the events file written here (said on each attempt's ``async_launched``)."""

_encode = line_encoder(default=str, compact=True)


def _open_after_last_line(path: Path, *, fresh: bool) -> int:
    """The events file (created 0600, never through a link) opened for appending, cut back to its last newline
    first: a crash mid-write leaves a torn last line, and appending after it would bury it in the middle of the
    file. ``fresh``: the file of a new run, created here (``O_EXCL``)."""
    fd = open_store_file(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | (os.O_EXCL if fresh else 0))
    try:
        with store_file(path, "write"):
            end = position = os.lseek(fd, 0, os.SEEK_END)
            while position > 0:
                start = max(position - 4096, 0)
                newline = os.pread(fd, position - start, start).rfind(b"\n")
                if newline >= 0:
                    position = start + newline + 1
                    break
                position = start
            if position != end:
                os.ftruncate(fd, position)
    except BaseException:
        os.close(fd)
        raise
    return fd


class EventLog:
    """Fans events out to subscribers, and appends those the journal does not hold, buffered, to the events file
    (if any). A failed write (a full disk) is STORE_INACCESSIBLE naming the file; what was buffered is then
    dropped, never retried."""

    BUFFER = 1 << 16

    def __init__(self, subscribers: Iterable[Subscriber], path: Path | None = None, *, fresh: bool = False) -> None:
        self._subscribers = list(subscribers)
        self._path = Path(os.devnull) if path is None else path
        self._fd = -1 if path is None else _open_after_last_line(path, fresh=fresh)
        self._pending: list[str] = []
        self._pending_size = 0
        self._cached: list[int] = []  # journal seqs served since the last flush

    def emit(self, event_type: str, **fields: Any) -> Event:
        return self.publish({"type": event_type, **fields})

    def publish(self, event: Event) -> Event:
        """Stamp ``ts`` on an event built by the caller, append it to the file, hand it to every subscriber."""
        event["ts"] = time.time()
        if self._fd >= 0:
            self._write(_encode(event) + "\n")
        if self._subscribers:
            self._notify(event)
        return event

    def tell(self, event: Event) -> None:
        """Stamp ``ts`` on an event about one call and hand it to the subscribers only: the journal holds it."""
        if self._subscribers:
            event["ts"] = time.time()
            self._notify(event)

    def agent_event(self, status: str, key: str, label: str, phase: str | None, workflow: str | None,
                    tokens: int | None = None, seq: int | None = None) -> None:
        """The per-call ``workflow_agent`` event (started, done, cached, cancelled), for subscribers; a cached
        call's seq joins the next ``calls_cached`` line, the one trace a cached call leaves on disk."""
        if seq is not None and self._fd >= 0:
            self._cached.append(seq)
        if self._subscribers:
            event: Event = {"type": "workflow_agent", "status": status, "key": key, "label": label, "phase": phase}
            if tokens is not None:
                event["tokens"] = tokens
            if seq is not None:
                event["seq"] = seq
            if workflow is not None:
                event["workflow"] = workflow
            event["ts"] = time.time()
            self._notify(event)

    def _notify(self, event: Event) -> None:
        for subscriber in tuple(self._subscribers):
            try:
                subscriber(event)
            except Exception as error:  # a broken viewer must never break the run
                self._subscribers.remove(subscriber)
                warnings.warn(f"event subscriber {subscriber!r} raised {error!r}; unsubscribed", RuntimeWarning,
                              stacklevel=3)

    def _write(self, line: str) -> None:
        self._pending.append(line)
        self._pending_size += len(line)
        if self._pending_size >= self.BUFFER:
            self.flush()

    def flush(self) -> None:
        if self._cached:
            seqs, self._cached = self._cached, []
            self._write(_encode({"type": "calls_cached", "ranges": seq_ranges(seqs), "ts": time.time()}) + "\n")
        if not self._pending:
            return
        data = "".join(self._pending).encode("utf-8", "backslashreplace")
        self._pending.clear()
        self._pending_size = 0
        try:
            write_all(self._fd, data)
        except OSError as error:
            raise inaccessible(self._path, "write", error) from None

    def close(self) -> None:
        """Write what is buffered and close the file; the file is closed even when that write fails."""
        if self._fd < 0:
            return
        try:
            self.flush()
        finally:
            os.close(self._fd)
            self._fd = -1


class EventStream:
    """A subscriber to ``async for`` over; the iteration ends after the run's ``task_notification``.

    ``stream = EventStream(); task = asyncio.create_task(run_workflow(..., on_event=stream))``,
    then ``async for event in stream: ...`` and ``await task``.
    """

    def __init__(self) -> None:
        self._queue: asyncio.Queue[Event] = asyncio.Queue()
        self._finished = False

    def __call__(self, event: Event) -> None:
        self._queue.put_nowait(event)

    def __aiter__(self) -> EventStream:
        return self

    async def __anext__(self) -> Event:
        if self._finished:
            raise StopAsyncIteration
        event = await self._queue.get()
        self._finished = event["type"] == "task_notification"
        return event
