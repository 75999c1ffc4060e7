"""A run's events as read back from its events file: typed models, one per kind, discriminated by ``type``.

The file may come from someone else, and from an older alp_nb: a line of a kind this reader does not know, or one
whose fields are of the wrong type, is left out, and the reader says so once (with the first such line), as a
journal field of the wrong type is shown missing. Fields a model does not name are ignored, so format 1 files
(one ``workflow_agent`` line per call), format 2 files (cached seqs listed) and format 3 files (cached seqs as
ranges) read alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any

import msgspec

from alp_nb.base.frozen_struct import FrozenStruct, StructInvalid

Seq = Annotated[int, msgspec.Meta(ge=1)]


class StoredEvent(FrozenStruct, frozen=True, kw_only=True, forbid_unknown_fields=False, tag_field="type"):
    """What every event has: its kind (``type``, each class's tag) and when it happened (seconds since the
    epoch)."""

    ts: float

    @property
    def type(self) -> str:
        return str(self.__struct_config__.tag)


class AsyncLaunched(StoredEvent, frozen=True, kw_only=True, tag="async_launched"):
    """An attempt began: a launch or a resume. ``format`` is the events file's (1 when it does not say)."""

    run_id: str | None = None
    attempt: int | None = None
    resumed: bool = False
    format: int = 1


class TaskStarted(StoredEvent, frozen=True, kw_only=True, tag="task_started"):
    run_id: str | None = None
    attempt: int | None = None


class PhaseEntered(StoredEvent, frozen=True, kw_only=True, tag="workflow_phase"):
    title: str
    workflow: str | None = None


class LogLine(StoredEvent, frozen=True, kw_only=True, tag="workflow_log"):
    message: str
    workflow: str | None = None


class AgentEvent(StoredEvent, frozen=True, kw_only=True, tag="workflow_agent"):
    """One call's step, as format 1 files hold them: started, done, cached, retry, failed, cancelled."""

    status: str
    key: str
    label: str | None = None
    phase: str | None = None
    tokens: int | None = None
    error: str | None = None
    workflow: str | None = None


class CallsCached(StoredEvent, frozen=True, kw_only=True, tag="calls_cached"):
    """The journal seqs whose answers were served again since the last flush: as ``ranges`` of evenly spaced
    seqs, ``(first, last, step)`` (format 3), or listed one by one in ``seqs`` (format 2)."""

    seqs: tuple[int, ...] = ()
    ranges: tuple[tuple[Seq, Seq, Seq], ...] = ()

    def served(self, last_seq: int) -> Iterator[int]:
        """Every seq named, in order; a range is read only up to ``last_seq`` (the journal's last), so a file
        from someone else naming seqs up to 10**18 costs no more than the journal it goes with."""
        yield from self.seqs
        for first, last, step in self.ranges:
            yield from range(first, min(last, last_seq) + 1, step)


class TaskNotification(StoredEvent, frozen=True, kw_only=True, tag="task_notification"):
    """An attempt ended."""

    FROZEN = ("error",)
    run_id: str | None = None
    status: str
    error: Any = None


RunEvent = AsyncLaunched | TaskStarted | PhaseEntered | LogLine | AgentEvent | CallsCached | TaskNotification


def parse_events(records: list[tuple[int, Any]], name: str) -> tuple[list[Any], list[str]]:
    """The events among ``records`` (line number, parsed JSON), in order, and a warning for those left out."""
    events, skipped, first = [], 0, 0
    for line_no, record in records:
        try:
            events.append(msgspec.convert(record, RunEvent))
        except StructInvalid:
            skipped += 1
            first = first or line_no
    found = []
    if skipped:
        lines = "1 line" if skipped == 1 else f"{skipped} lines"
        found.append(f"{name}: {lines} of an unknown kind or with fields of the wrong type left out (the first: "
                     f"line {first})")
    return events, found
