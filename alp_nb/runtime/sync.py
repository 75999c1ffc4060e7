"""Running a coroutine to its end from synchronous code: a plain script, or a notebook cell.

In a cell the kernel's own event loop is running, so ``asyncio.run`` is refused. Re-entering that loop
(nest-asyncio) lets it run the kernel's other pending work inside the cell too: with cells queued by "Run All",
the next cell's task starts inside this one and the kernel breaks ("cannot enter context"). So the coroutine gets
a loop of its own, in a worker thread, and the cell waits for it; an interrupt (Ctrl-C, or the kernel's stop
button) cancels the coroutine there, lets it end as a cancelled run ends, and is raised in the cell.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

_T = TypeVar("_T")


def run_sync(coroutine: Coroutine[Any, Any, _T]) -> _T:
    """``coroutine``'s result (or its exception), with ``asyncio.run`` when no loop runs in this thread, else on
    a loop of its own in a worker thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    return _in_worker_thread(coroutine)


def _in_worker_thread(coroutine: Coroutine[Any, Any, _T]) -> _T:
    loop = asyncio.new_event_loop()
    task = loop.create_task(coroutine)
    outcome: list[BaseException | None] = [None]
    ended = threading.Event()  # waited on, not the thread: an interrupted Thread.join can leave it looking ended

    def work() -> None:
        try:
            loop.run_until_complete(task)
        except BaseException as error:  # handed to the waiting caller, which raises it
            outcome[0] = error
        finally:
            loop.close()
            ended.set()

    threading.Thread(target=work, name="alp-nb run", daemon=True).start()
    try:
        while not ended.wait(0.1):  # short waits: an interrupt reaches the waiting thread between them
            pass
    except KeyboardInterrupt:
        with contextlib.suppress(RuntimeError):  # the run ended (and closed its loop) as the interrupt came
            loop.call_soon_threadsafe(task.cancel)
        ended.wait()
        raise
    if outcome[0] is not None:
        raise outcome[0]
    return task.result()
