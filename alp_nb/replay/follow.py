"""A run that another process is writing now (a CLI, a job, a colleague's notebook), followed as it grows: no
server, only its files, polled.

``RunFollower.poll()`` reads the run again (``load_run``: every check a resume makes) when one of its files has
changed since the last read, and says whether it did. A run has ended once its snapshot says completed, failed or
cancelled, or says running while nobody holds its lock (``interrupted``: its process died). Reading a long run
takes time, so the wait between polls grows with it (at least ``interval``, and at least twice the last read but
the first, which pays for imports): following never costs the writer more than a third of a core.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import Any

from alp_nb.base.errors import AlpError
from alp_nb.runtime.store import RunStore

from .locate import locate_run
from .record import RunRecord, load_run

ENDED = ("completed", "failed", "cancelled", "interrupted")
"""The statuses of a run that will not change without a resume."""


class RunFollower:
    """Run ``run`` (a run id in ``store``, ``(RunStore, run_id)``, a ``WorkflowRun`` or a ``RunRecord``, which is
    then the first reading) read whenever its files change. ``record`` is the last reading (None before the
    first)."""

    def __init__(self, run: Any, store: RunStore | str | os.PathLike[str] | None = None, *,
                 interval: float = 0.5) -> None:
        self.store, self.run_id = locate_run(run, store)
        self.interval = interval
        self.record: RunRecord | None = run if isinstance(run, RunRecord) else None
        self._seen: tuple[tuple[int, int] | bool | None, ...] = () if self.record is None else self._stamps()
        self._took = 0.0
        self._stopped = threading.Event()
        self.error: AlpError | None = None
        """Why following stopped before the run ended, when it could not read the run."""

    @property
    def ended(self) -> bool:
        return self.record is not None and self.record.status in ENDED

    def poll(self) -> bool:
        """Read the run again if any of its files changed since the last read; whether it did (a run's output is
        written before its last snapshot, so the reading that ends it has its output too)."""
        seen = self._stamps()
        if seen == self._seen and self.record is not None:
            return False
        first, started = self.record is None, time.monotonic()
        self.record = load_run(self.run_id, store=self.store)
        if not first:  # the first read pays for imports and cold caches: no measure of the run's size
            self._took = time.monotonic() - started
        self._seen = seen
        return True

    @property
    def pause(self) -> float:
        """How long to wait before the next poll: ``interval``, or twice the last read when that took longer."""
        return max(self.interval, 2 * self._took)

    def follow(self, on_change: Callable[[RunRecord], Any], *, stop: threading.Event | None = None,
               timeout: float | None = None, on_error: Callable[[AlpError], Any] | None = None) -> RunRecord | None:
        """Poll until the run ends (or ``stop`` is set, or ``timeout`` seconds pass), handing each new reading to
        ``on_change``; the last reading. A run that can no longer be read (its files were tampered with, or
        removed) stops the following: ``error`` says why, and ``on_error`` is handed it."""
        deadline = None if timeout is None else time.monotonic() + timeout
        stop = stop or threading.Event()
        self._stopped.clear()
        try:
            self._follow(on_change, stop, deadline, on_error)
        finally:
            self._stopped.set()
        return self.record

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until following stops (the run ended, or it was stopped, or it could not read the run), the last
        reading handed on; whether it stopped within ``timeout`` seconds."""
        return self._stopped.wait(timeout)

    def _follow(self, on_change: Callable[[RunRecord], Any], stop: threading.Event, deadline: float | None,
                on_error: Callable[[AlpError], Any] | None) -> None:
        while not stop.is_set():
            try:
                changed = self.poll()
            except AlpError as error:
                self.error = error
                if on_error is not None:
                    on_error(error)
                break
            if changed and self.record is not None:
                on_change(self.record)
            if self.ended or (deadline is not None and time.monotonic() >= deadline):
                break
            stop.wait(self.pause)

    def start(self, on_change: Callable[[RunRecord], Any], *,
              on_error: Callable[[AlpError], Any] | None = None) -> tuple[threading.Thread, threading.Event]:
        """``follow`` in a daemon thread (a notebook cell goes on while it does); set the event to stop it."""
        stop = threading.Event()
        thread = threading.Thread(target=self.follow, args=(on_change,), kwargs={"stop": stop, "on_error": on_error},
                                  name=f"alp-nb follow {self.run_id}", daemon=True)
        thread.start()
        return thread, stop

    def _stamps(self) -> tuple[tuple[int, int] | bool | None, ...]:
        """(size, modification time) of each file of the run, read without following a link, and whether some
        process holds its lock: a writer killed while it waited on its runner changes no file, only that."""
        paths = self.store.paths(self.run_id)
        stamps: list[tuple[int, int] | bool | None] = [self.store.is_active(self.run_id)]
        for path in (paths.snapshot, paths.journal, paths.events, paths.output):
            try:
                info = path.lstat()
                stamps.append((info.st_size, info.st_mtime_ns))
            except OSError:
                stamps.append(None)
        return tuple(stamps)
