"""``load_run``: a stored run read once, with no server and nothing run again, as a ``RunRecord``.

Every file is read by the runtime's own readers, so every check a resume makes is made here too and every
error names the file and line (``RUN_NOT_FOUND``, ``CORRUPT_RUN``, ``JOURNAL_CORRUPT``, ``JOURNAL_TAMPERED``,
``UNSAFE_STORE_FILE``...); a torn last journal line is a warning on the record, not an error. The journal
becomes one pandas DataFrame (``journal_table``); the events file, which holds two or more lines per call, is
read only when ``events`` is first asked for.
"""

from __future__ import annotations

import os
import time
import warnings
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from alp_nb.base.safe_files import open_regular
from alp_nb.runtime.errors import WorkflowInputError
from alp_nb.runtime.journal.entry import JournalEntry
from alp_nb.runtime.journal.outcomes import IN_FLIGHT, UNANSWERED
from alp_nb.runtime.journal.reader import answer_at
from alp_nb.runtime.keys import validate_run_id
from alp_nb.runtime.snapshot import Attempt, RunSnapshot, UsageReport, parse_snapshot, run_budget
from alp_nb.runtime.store import RunStore, run_error
from alp_nb.runtime.store_files import parse_store_json, read_store_file, store_file
from alp_nb.runtime.stored_events import RunEvent

from .errors import ReplayError
from .journal_table import JOURNAL_COLUMNS as JOURNAL_COLUMNS, JournalColumns, attribute, attribute_s16

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from .run_calls import RunCalls
    from .timeline import Timeline

JOURNAL_PAGE_SIZE = 20
"""The rows a view of a record shows at once (``RunRecord.page(n)`` picks the page)."""

Source = Literal["alp", "s16"]


@dataclass(frozen=True, eq=False)
class RunRecord:
    """One run as it stands on disk, read once by ``load_run``.

    ``snapshot`` is caught up as ``RunStore.snapshot`` gives it (a ``running`` one raised to what its journal
    holds, and ``interrupted`` once nobody holds its lock). ``journal`` is a DataFrame with the columns
    ``JOURNAL_COLUMNS``, one row per line the runtime accepts, in file order (see ``load_run``), and
    ``line_numbers`` the journal line of each row. ``source`` is ``"s16"`` for a run whose snapshot the s16
    reference wrote, ``"alp"`` otherwise. ``warnings`` is what the readers reported without failing (a torn last
    line, a field of the wrong type, labels that could not be recovered). In a notebook a record shows its status
    with the failure reason, usage, attempts, phases and one page of its journal (``page(n)`` shows another).
    """

    run_id: str
    store: RunStore
    snapshot: RunSnapshot
    journal: pd.DataFrame = field(repr=False)
    output: Any = field(repr=False)
    source: Source = "alp"
    warnings: tuple[str, ...] = ()
    line_numbers: np.ndarray | None = field(default=None, repr=False)
    journal_page: int = 1
    read_at: float = 0.0
    """When the files were read (Unix seconds): a record is what the run was then."""

    def __repr__(self) -> str:
        error = self.error
        shown = f", error={error if len(error) <= 200 else error[:199] + '…'!r}" if error is not None else ""
        return (f"RunRecord({self.run_id!r}, status={self.status!r}{shown}, journal_rows={len(self.journal)}, "
                f"source={self.source!r})")

    @property
    def status(self) -> str:
        """``running``, ``completed``, ``failed``, ``cancelled``, or ``interrupted`` (the snapshot says running
        but nobody holds the run's lock)."""
        return self.snapshot.status

    @property
    def error(self) -> str | None:
        """Why the run failed: the snapshot's error, else the output file's ``{"error": ...}`` (where the s16
        reference writes it); None for a completed run and a run that has not failed."""
        return run_error(self.snapshot, self.output)

    @property
    def attempts(self) -> tuple[Attempt, ...]:
        return self.snapshot.attempts

    @property
    def usage(self) -> UsageReport:
        """Agents and tokens of the last attempt and of all attempts (an s16 snapshot's totals: its lines hold no
        tokens)."""
        return self.snapshot.usage

    @property
    def budget(self) -> int | None:
        """The token budget the run stands under (its args', or the last one raised on resume); None without one."""
        return run_budget(self.snapshot)

    def spent_by_phase(self) -> pd.Series:
        """The tokens the journal's lines hold, by phase, in all attempts (a Series; s16 lines hold none)."""
        return self.journal.groupby("phase", observed=True)["tokens"].sum()

    @cached_property
    def timeline(self) -> Timeline:
        """The run's calls over time (``replay.timeline``), made once, from the journal and the events."""
        from .timeline import timeline_from

        return timeline_from(self.journal, self.snapshot, self.events)

    @cached_property
    def calls(self) -> RunCalls:
        """Every call of the run in the order they started, with its journal row: what viewers step through and
        filter (``replay.run_calls``)."""
        from .run_calls import RunCalls

        return RunCalls(self.timeline, self.journal, self.entry)

    @property
    def result(self) -> Any:
        """The output of a completed run, else None."""
        return self.output if self.status == "completed" else None

    @cached_property
    def events(self) -> list[RunEvent]:
        """Every event of every attempt, as typed models (read on first use); an s16 run has none on disk."""
        return self.store.read_events(self.run_id)

    @property
    def pages(self) -> int:
        """How many pages of ``JOURNAL_PAGE_SIZE`` rows the journal fills (at least one)."""
        return max(1, -(-len(self.journal) // JOURNAL_PAGE_SIZE))

    def page(self, number: int) -> RunRecord:
        """This record showing page ``number`` (1 to ``pages``) of its journal; the table is shared, not copied."""
        if type(number) is not int or not 1 <= number <= self.pages:
            raise ReplayError("INVALID_OPTION", f"page must be a whole number from 1 to {self.pages}, not {number!r}")
        shown = replace(self, journal_page=number)
        for made in ("events", "timeline", "calls", "_offsets"):  # read or made once, shared by every page
            if made in self.__dict__:
                shown.__dict__[made] = self.__dict__[made]
        return shown

    def page_rows(self) -> pd.DataFrame:
        """The rows of the page shown (``journal_page``)."""
        start = (self.journal_page - 1) * JOURNAL_PAGE_SIZE
        return self.journal.iloc[start:start + JOURNAL_PAGE_SIZE]

    def entry(self, row: int) -> JournalEntry:
        """Row ``row`` of ``journal`` as its whole journal line (its schema too, which the table leaves out), read
        back from the file by its position; a line that can no longer be read there (the file was replaced) is
        made from the row instead, without a schema."""
        cells = self.journal.iloc[row]
        times = {"started": _missing(cells["started"]), "ended": _missing(cells["ended"])}
        found = None
        if self.line_numbers is not None and 0 <= row < len(self.line_numbers):
            index = int(self.line_numbers[row]) - 1
            if index < len(self._offsets):
                found = answer_at(self.store.paths(self.run_id).journal, self._offsets, index, int(cells["seq"]))
        if found is not None and found.key == cells["key"] and found.value == cells["value"]:  # the row's own line
            return JournalEntry.of(found).replace(**times)
        return JournalEntry(key=cells["key"], value=cells["value"], seq=int(cells["seq"]), kind=cells["kind"],
                            label=cells["label"], phase=_missing(cells["phase"]), prompt=cells["prompt"],
                            tokens=int(cells["tokens"]), **times)

    @cached_property
    def _offsets(self) -> list[int]:
        """Where each line of the journal file starts, found once in one pass that parses nothing."""
        import numpy as np

        path = self.store.paths(self.run_id).journal
        try:
            with store_file(path, "read"), os.fdopen(open_regular(path, os.O_RDONLY), "rb") as handle:
                data = np.frombuffer(handle.read(), dtype=np.uint8)
        except (FileNotFoundError, WorkflowInputError):  # gone, or now a link: rows are made from the table
            return []
        ends = np.flatnonzero(data == ord("\n")) + 1
        starts = np.concatenate(([0], ends[:-1] if len(ends) and ends[-1] == len(data) else ends))
        return starts.astype(np.int64).tolist() if len(data) else []


def load_run(run_id: str | None = None, store: RunStore | str | os.PathLike[str] | None = None) -> RunRecord:
    """Read run ``run_id`` (default: the store's last run) from ``store`` (a RunStore or folder, default
    ``./.alp-runs``) into a ``RunRecord``.

    ``journal`` has one row per line the runtime accepts (call lines and spend lines; a call recorded twice with
    the same value once), and one for each call asked and never answered (its ask line), in file order:

    - ``seq`` (the line's, or its position in an s16 journal), ``key``, ``kind`` (``agent``, ``spend`` or
      ``ask``);
    - ``label``, ``phase``, ``prompt`` (None where the line has none), ``tokens``;
    - ``status``: ``done`` for a call line, a spend line's ``reason`` (``retried``, ``refused``, ``not JSON``,
      ``cancelled``, ``failed``), ``unanswered`` for an ask (``in flight`` while the run is still going);
    - ``error``: why a spend line's answer was not kept (the runner's error, or the schema's issues);
    - ``attempt``: the attempt that wrote the line, from the attempts' ``first_seq`` (<NA> where the snapshot
      does not say); ``cached``: written by an attempt before the run's last one, so the last attempt (or a
      resume) gets it from the journal;
    - ``started``, ``ended`` (Unix seconds, NaN where the line has none) and ``duration`` (their difference);
    - ``value``: the answer as parsed JSON (None on a spend line);
    - ``recovered``: True where label and phase were recovered from an s16 snapshot's ``progress`` list (its
      lines hold only ``key`` and ``value``; ``journal_table.attribute_s16`` gives the rule).

    Refused as the runtime refuses: ``RUN_NOT_FOUND``, ``INVALID_RUN_ID``, ``CORRUPT_RUN`` (the snapshot, output
    or an events line, named), ``JOURNAL_CORRUPT`` or ``JOURNAL_TAMPERED`` (the journal line, named),
    ``UNSAFE_STORE_FILE``; ``ReplayError`` ``STORE_NOT_FOUND`` when the store folder does not exist.
    """
    if run_id is not None:
        validate_run_id(run_id)  # a bad id is refused before anything is looked up
    store = store_of(store)
    if run_id is None:
        run_id = store.last_run()
        if run_id is None:
            raise WorkflowInputError("RUN_NOT_FOUND", f"no run to load in {store.root}: it names no last run")
    paths = store.paths(run_id)
    data = read_store_file(paths.snapshot)
    if data is None:
        raise WorkflowInputError("RUN_NOT_FOUND", f"no run `{run_id}` in {store.root}")
    raw = parse_store_json(data, paths.snapshot.name)
    snapshot = parse_snapshot(raw, paths.snapshot.name)
    if snapshot.run_id != run_id:
        raise WorkflowInputError("CORRUPT_RUN", f"{paths.snapshot.name} names run `{snapshot.run_id}`")
    source: Source = "s16" if isinstance(raw, Mapping) and isinstance(raw.get("task"), Mapping) else "alp"

    columns = JournalColumns()
    read = store.read_journal(snapshot, on_answer=columns.on_answer)  # warns of torn, missing and malformed lines
    ours: list[str] = []
    if snapshot.status == "running":
        snapshot = store.caught_up(snapshot, read, _done_by_phase(columns, snapshot))
    columns.add_unanswered(read.unanswered, IN_FLIGHT if snapshot.status == "running" else UNANSWERED)
    line_numbers = columns.line_numbers()
    if source == "s16":
        number = snapshot.attempts[0].number if snapshot.attempts else 1
        attribution, unmatched = attribute_s16(raw, line_numbers, number, paths.snapshot.name)
        ours += unmatched
    else:
        attribution = attribute(_seqs(columns), snapshot.attempts)
    found = (*read.warnings, *ours)
    del read, raw
    for message in ours:  # as the journal reader warns of its own: a command line prints each on stderr
        warnings.warn(message, RuntimeWarning, stacklevel=2)
    return RunRecord(run_id=run_id, store=store, snapshot=snapshot, journal=columns.frame(attribution),
                     output=store.read_output(run_id), source=source, warnings=found, line_numbers=line_numbers,
                     read_at=time.time())


def store_of(store: RunStore | str | os.PathLike[str] | None) -> RunStore:
    """``store`` as a RunStore (a folder path, or None for ``./.alp-runs``), refused unless its folder exists."""
    if not isinstance(store, RunStore):
        if store is not None and not isinstance(store, str | os.PathLike):
            raise ReplayError("INVALID_OPTION", f"store must be a RunStore or a folder path, not "
                              f"{type(store).__name__}")
        store = RunStore(store)
    if not Path(store.root).is_dir():
        raise ReplayError("STORE_NOT_FOUND", f"no run store at {store.root}: the folder does not exist")
    return store


def _seqs(columns: JournalColumns) -> np.ndarray:
    import numpy as np

    return np.frombuffer(columns.seq, dtype=np.int64) if len(columns) else np.empty(0, dtype=np.int64)


def _done_by_phase(columns: JournalColumns, snapshot: RunSnapshot) -> Counter[str]:
    """The answers the last attempt of a running run kept, by phase: what ``RunStore`` catches its phases up to."""
    first = snapshot.attempts[-1].first_seq if snapshot.attempts else 1
    names = {code: name for name, code in columns.phases.items()}
    return Counter(names[phase] for seq, phase, kind in zip(columns.seq, columns.phase, columns.kind, strict=True)
                   if phase >= 0 and not kind and seq >= first)


def _missing(value: Any) -> Any:
    """None for a missing cell (NaN, NA), the value otherwise, as Python's (a numpy float64 becomes a float)."""
    import numpy as np
    import pandas as pd

    if value is None or (not isinstance(value, str | dict | list) and pd.isna(value)):
        return None
    return value.item() if isinstance(value, np.generic) else value
