"""Python's cyclic garbage collector kept off the objects a run holds for its whole length.

A resume of a 100,000-call run reads 200,000 journal lines into records that live until the run ends, and then
keeps as many tasks alive at once; the collector's full passes (a dozen in such a run) scan them all and free
nothing, and cost as much as the run's own work. Two remedies, each leaving the collector as it found it:

- ``collector_paused``: no collection while a block builds records that hold no reference cycles (a journal's
  lines, parsed from JSON): one in the middle could find nothing to free.
- ``long_lived``: everything alive when a block starts (the journal just read, the caller's own objects) is left
  out of the collector's scans until it ends (``gc.freeze``, then ``gc.unfreeze``), unless someone froze objects
  already, whose freeze is theirs to end. Garbage the block makes is collected as ever.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The block runs with the collector off, and it is on again after only if it was on before."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


@contextlib.contextmanager
def long_lived() -> Iterator[None]:
    """The objects alive now are left out of collections until the block ends."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
