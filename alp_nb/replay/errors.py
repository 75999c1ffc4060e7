"""The replay layer's one exception. A run's files are read by the runtime's readers, so a missing run, a bad
snapshot or a bad journal line is the runtime's ``WorkflowInputError`` (``RUN_NOT_FOUND``, ``CORRUPT_RUN``,
``JOURNAL_CORRUPT``...), naming the file and line, never wrapped; ``ReplayError`` is only what replay itself
refuses."""

from __future__ import annotations

from typing import ClassVar

from alp_nb.base.errors import AlpError

REPLAY_ERROR_CODES: tuple[str, ...] = ("STORE_NOT_FOUND", "INVALID_OPTION", "CALL_NOT_REACHED", "REPLAY_CLOSED")
"""STORE_NOT_FOUND: the run store folder does not exist. INVALID_OPTION: a store that is neither a RunStore nor
a folder path, a run that is none of the kinds a replay takes, or a journal page outside the record's pages.
CALL_NOT_REACHED: a replay finished without making the call ``run_to`` was asked for. REPLAY_CLOSED: raised into
a replayed script at the call where its session was closed (it ends the script, never reaches a caller)."""


class ReplayError(AlpError):
    """Something replay itself refuses (a run's bad files are the runtime's ``WorkflowInputError``)."""

    codes: ClassVar[tuple[str, ...]] = REPLAY_ERROR_CODES
