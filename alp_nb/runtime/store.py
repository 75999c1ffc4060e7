"""The run store: one folder of runs, each a snapshot, journal, event log, output and lock file.

Every path is built from a run id that passed ``validate_run_id`` first, so
no id can name a file outside the store, and every file is opened without
following a link (``store_files``). A run is reserved by creating its
snapshot with O_EXCL, and its lock (``flock``) is held for the whole run:
a second process resuming it is refused before it writes anything.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import time
import warnings
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alp_nb.base.atomic_file import temp_files

from .errors import WorkflowInputError
from .journal.lines import MAX_COUNT, Answered
from .journal.reader import AnswerHandler, JournalRead, read_journal
from .journal_gaps import missing_lines
from .keys import RUN_ID_RE, new_run_id, validate_run_id
from .snapshot import NO_USAGE, Attempt, PhaseProgress, RunSnapshot, Usage, UsageReport, parse_snapshot
from .store_files import (
    check_writable_folder,
    open_store_file,
    parse_store_json,
    read_store_file,
    write_store_file,
)
from .stored_events import RunEvent, parse_events

DEFAULT_STORE = ".alp-runs"
LAST_RUN_FILE = "last_run.txt"
STALE_TEMP_SECONDS = 60
TEMP_RUN_ID_RE = re.compile(rf"\.({RUN_ID_RE.pattern})\.")
"""The run a temporary file belongs to: ``.<runId>.json.<random>.tmp`` and the like."""
RESERVE_TRIES = 100


@dataclass(frozen=True)
class RunPaths:
    snapshot: Path
    journal: Path
    events: Path
    output: Path
    lock: Path


class RunLock:
    """An exclusive ``flock`` on ``<runId>.lock``; released by ``release()`` or by the process ending."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def release(self) -> None:
        if self._fd >= 0:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = -1


class RunStore:
    """A folder of runs (default ``./.alp-runs``); an s16 ``.runtime`` folder reads and resumes too."""

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self.root = Path(DEFAULT_STORE if root is None else root)

    def __repr__(self) -> str:
        return f"RunStore({str(self.root)!r})"

    def paths(self, run_id: str) -> RunPaths:
        run_id = validate_run_id(run_id)
        base = self.root / run_id
        return RunPaths(
            snapshot=self.root / f"{run_id}.json",
            journal=Path(f"{base}.journal.jsonl"),
            events=Path(f"{base}.events.jsonl"),
            output=Path(f"{base}.output.json"),
            lock=Path(f"{base}.lock"),
        )

    def reserve(self, workflow_name: str) -> tuple[str, RunLock]:
        """A fresh run id and its held lock, the id claimed by creating its lock file exclusively. Its snapshot is
        written later, whole (``write_snapshot``): a process killed before that leaves no run, only a free lock
        file that nothing lists, never an empty snapshot."""
        try:
            self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as error:  # the store is a file, or a folder we may not write to
            raise WorkflowInputError("INVALID_OPTION", f"run store {self.root} cannot hold runs: "
                                     f"{error.strerror or error}") from None
        self._remove_stale_temp_files()
        self._remove_unstarted_runs()
        for _ in range(RESERVE_TRIES):
            run_id = self.new_run_id(workflow_name)
            paths = self.paths(run_id)
            if not any(os.path.lexists(path) for path in (paths.snapshot, paths.journal, paths.events, paths.output,
                                                          paths.lock)):
                return run_id, self.acquire(run_id, fresh=True)
        raise WorkflowInputError("INVALID_OPTION", f"run store {self.root} found no free run id in {RESERVE_TRIES} "
                                 "tries: every id it picked names files already there")

    def _remove_stale_temp_files(self) -> None:
        """Remove the temporary files of every run whose lock nobody holds: a process killed before a rename left
        them (only a run's lock holder writes its temporary files, so one no process holds is never finished)."""
        for stale in temp_files(self.root, "wf_"):
            run_id = TEMP_RUN_ID_RE.match(stale.name)
            if run_id is not None and not self.is_active(run_id[1]):
                with contextlib.suppress(OSError):
                    stale.unlink()

    def _remove_unstarted_runs(self) -> None:
        """Remove what a process killed between reserving a run id and its first snapshot left: the free lock file,
        and a fork's journal copied from its source (the one file written before a snapshot). No snapshot, no run:
        nothing else lists, resumes or removes them. Only files older than any reservation takes
        (STALE_TEMP_SECONDS) go, so a lock file created an instant ago, not yet locked, stays."""
        cutoff = time.time() - STALE_TEMP_SECONDS
        for lock in self.root.glob("wf_*.lock"):
            run_id = lock.name[:-len(".lock")]
            paths = self.paths(run_id)
            with contextlib.suppress(OSError):
                if (RUN_ID_RE.fullmatch(run_id) and not os.path.lexists(paths.snapshot)
                        and lock.lstat().st_mtime < cutoff and not self.is_active(run_id)):
                    paths.journal.unlink(missing_ok=True)
                    lock.unlink()

    def new_run_id(self, workflow_name: str) -> str:
        """The id a new run of ``workflow_name`` would take (``wf_<name>_<16 random hex digits>``): the one method
        that picks a name, for a store that names its runs otherwise (a notebook numbering them)."""
        return new_run_id(workflow_name)

    def acquire(self, run_id: str, *, fresh: bool = False) -> RunLock:
        """Hold the run's lock, or WorkflowInputError(RUN_ACTIVE) if another process has it. ``fresh``: a new run's
        lock file, created here (``O_EXCL``). Holding it, the temporary files
        an earlier holder left when killed before a rename are removed: only the holder writes them."""
        fd = open_store_file(self.paths(run_id).lock, os.O_RDWR | os.O_CREAT | (os.O_EXCL if fresh else 0))
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise WorkflowInputError(
                "RUN_ACTIVE", f"run `{run_id}` is already active in another process; wait for it to finish"
            ) from None
        for stale in temp_files(self.root, run_id):
            with contextlib.suppress(OSError):
                stale.unlink()
        return RunLock(fd)

    def is_active(self, run_id: str) -> bool:
        """True while some process holds the run's lock (checked without creating anything)."""
        try:
            fd = open_store_file(self.paths(run_id).lock, os.O_RDONLY)
        except FileNotFoundError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)
        return False

    def write_snapshot(self, snapshot: RunSnapshot, *, fsync: bool = True) -> None:
        write_store_file(self.paths(snapshot.run_id).snapshot, json.dumps(snapshot.to_json(), indent=2), fsync=fsync)

    def read_snapshot(self, run_id: str) -> RunSnapshot:
        """The snapshot as stored (a live or interrupted run both read ``running``). An empty one (s16, and
        alp_nb before 0.2, reserved a run id with an empty snapshot) is a run that never started:
        RUN_NOT_STARTED."""
        path = self.paths(run_id).snapshot
        data = read_store_file(path)
        if data is None:
            raise WorkflowInputError("RUN_NOT_FOUND", f"no run `{run_id}` in {self.root}")
        if not data.strip():
            raise WorkflowInputError("RUN_NOT_STARTED", f"run `{run_id}` never started: its process stopped before "
                                     f"it wrote {path.name}, so nothing ran and there is nothing to resume; start "
                                     f"the workflow again (alp-nb workflow run {workflow_of(run_id)})")
        snapshot = parse_snapshot(parse_store_json(data, path.name), path.name)
        if snapshot.run_id != run_id:
            raise WorkflowInputError("CORRUPT_RUN", f"{path.name} names run `{snapshot.run_id}`")
        return snapshot

    def snapshot(self, run_id: str) -> RunSnapshot:
        """The snapshot as the run stands: a ``running`` one caught up with its journal, and ``interrupted`` once
        nobody holds its lock."""
        snapshot = self.read_snapshot(run_id)
        if snapshot.status != "running":
            return snapshot
        first = snapshot.attempts[-1].first_seq if snapshot.attempts else 1
        done: Counter[str] = Counter()

        def count(answered: Answered) -> None:
            if answered.kept and answered.ask.phase is not None and answered.seq >= first:
                done[answered.ask.phase] += 1

        return self.caught_up(snapshot, self.read_journal(snapshot, on_answer=count), done)

    def read_journal(self, snapshot: RunSnapshot, *, keep_entries: bool = False,
                     on_answer: AnswerHandler | None = None) -> JournalRead:
        """The journal of ``snapshot``'s run read under the snapshot's rules (legacy lines only where its writer
        did not seal them), with a warning for each run of lines missing from it (``missing_lines``) and for each
        line whose viewer fields are malformed, raised as a RuntimeWarning and kept in ``warnings``; where lines
        without a checksum are read, ``warnings`` says that nothing vouches for them."""
        path = self.paths(snapshot.run_id).journal
        journal = read_journal(path, keep_entries=keep_entries, on_answer=on_answer,
                               sealed_from=snapshot.sealed_from)
        check_copied_lines(snapshot, journal, path.name)
        for message in missing_lines(snapshot, journal, path.name):
            warnings.warn(message, RuntimeWarning, stacklevel=2)
            journal.warnings.append(message)
        journal.warnings.extend(legacy_warning(journal, path.name))  # in the record's views, not a RuntimeWarning
        for message in journal.malformed_warnings(path.name):
            warnings.warn(message, RuntimeWarning, stacklevel=2)
            journal.warnings.append(message)
        return journal

    def caught_up(self, snapshot: RunSnapshot, journal: JournalRead, done: Mapping[str, int]) -> RunSnapshot:
        """A running snapshot is rewritten only at phase changes, so its last attempt lags the journal (and stops
        for good if the process died): its usage and phase counts are raised to what it journaled (``done``: the
        answers its last attempt kept, by phase)."""
        status = "running" if self.is_active(snapshot.run_id) else "interrupted"
        if not snapshot.attempts:
            return snapshot.replace(status=status)
        last = caught_up_attempt(snapshot.attempts[-1], journal)
        if status == "running":  # its asks without an answer are calls still out, not calls of unknown cost
            last = last.replace(usage=last.usage.replace(unanswered=0, reserved=0))
        if last.status == "running":
            last = last.replace(status=status)
        earlier = sum((attempt.usage for attempt in snapshot.attempts[:-1]), NO_USAGE)
        return snapshot.replace(
            status=status, attempts=(*snapshot.attempts[:-1], last),
            usage=UsageReport(attempt=last.usage, cumulative=earlier + last.usage),
            phases=_phases_caught_up(snapshot.phases, done),
        )

    def write_output(self, run_id: str, payload: Any, *, fsync: bool = True) -> None:
        write_store_file(self.paths(run_id).output, json.dumps(payload, indent=2, ensure_ascii=False), fsync=fsync)

    def read_output(self, run_id: str) -> Any:
        """The stored result (or ``{"error": ...}``); None if the run never finished."""
        path = self.paths(run_id).output
        data = read_store_file(path)
        return None if data is None else parse_store_json(data, path.name)

    def read_events(self, run_id: str) -> list[RunEvent]:
        """Every event of every attempt, in order, as typed models (``stored_events``); a torn last line (a crash
        mid-write) is skipped, a line that is not JSON before it is CORRUPT_RUN naming it, and lines of unknown
        kinds or malformed fields are left out with one warning."""
        path = self.paths(run_id).events
        lines = (read_store_file(path) or b"").splitlines()
        records = []
        for line_no, line in enumerate(lines, 1):
            try:
                records.append((line_no, parse_store_json(line, f"{path.name} line {line_no}")))
            except WorkflowInputError:
                if line_no == len(lines):
                    break
                raise
        events, found = parse_events(records, path.name)
        for message in found:
            warnings.warn(message, RuntimeWarning, stacklevel=2)
        return events

    def set_last_run(self, run_id: str, *, fsync: bool = True) -> None:
        """Point ``last_run.txt`` at ``run_id``. Any process may write it, so a temporary file of it is removed only
        once it is older than any write takes (STALE_TEMP_SECONDS): one a killed process left behind."""
        write_store_file(self.root / LAST_RUN_FILE, validate_run_id(run_id), fsync=fsync)
        cutoff = time.time() - STALE_TEMP_SECONDS
        for stale in temp_files(self.root, LAST_RUN_FILE):
            with contextlib.suppress(OSError):
                if stale.lstat().st_mtime < cutoff:
                    stale.unlink()

    def last_run(self) -> str | None:
        """The run id last launched or resumed here, or None."""
        data = read_store_file(self.root / LAST_RUN_FILE)
        text = (data or b"").decode("utf-8", "replace").strip()
        return text if RUN_ID_RE.fullmatch(text) else None

    def check_run_files(self, run_id: str) -> None:
        """Before a resume writes anything: each file of the run that exists is a regular file (not a link) this
        process can open as the run will, and the store folder takes new files. So a refusal writes nothing."""
        paths = self.paths(run_id)
        appended = (paths.journal, paths.events, paths.lock)
        for path in (*appended, paths.snapshot, paths.output, self.root / LAST_RUN_FILE):
            try:
                os.close(open_store_file(path, os.O_RDWR if path in appended else os.O_RDONLY))
            except FileNotFoundError:
                continue
        check_writable_folder(self.root)

    def run_ids(self) -> tuple[str, ...]:
        """Every run in the store, oldest first."""
        return tuple(run_id for _, run_id in sorted(self._runs()))

    def _runs(self) -> Iterator[tuple[float, str]]:
        if not self.root.is_dir():
            return
        for path in self.root.glob("wf_*.json"):
            if RUN_ID_RE.fullmatch(path.stem):
                info = path.lstat()  # a link is listed (and refused when read), never followed
                yield info.st_mtime, path.stem


def run_error(snapshot: RunSnapshot, output: Any) -> str | None:
    """The failure reason of a stored run: its snapshot's ``error``, else the ``{"error": ...}`` its output file
    holds (an s16 snapshot has no error field; the reference writes the reason only there); None for a completed
    run, whose output is its result whatever keys it has, and for a run that has not failed."""
    if snapshot.status == "completed":
        return None
    if snapshot.error is not None:
        return snapshot.error
    reason = output.get("error") if isinstance(output, Mapping) else None
    if reason is None or isinstance(reason, str):
        return reason
    return json.dumps(reason, ensure_ascii=False)


def caught_up_attempt(attempt: Attempt, journal: JournalRead, until: int | None = None) -> Attempt:
    """``attempt`` with usage at least what it journaled from its first seq on (up to ``until``, the next
    attempt's first seq): the tokens of every line, call or spend (each answer is on one line), its calls, each
    counted once however many answers it took, and the runner calls it asked and nobody answered (unknown cost,
    reserved at ``journal.reservation`` each)."""
    first, end = attempt.first_seq, MAX_COUNT + 1 if until is None else until
    calls = {key: tokens for key, (_value, tokens, seq) in journal.calls.items() if first <= seq < end}
    tokens = sum(calls.values())
    for seq, spent, key in journal.spends:
        if first <= seq < end:
            tokens += spent
            calls.setdefault(key, 0)
    unanswered = [ask for ask in journal.unanswered_since(first) if ask.seq < end]
    for ask in unanswered:
        calls.setdefault(ask.key, 0)
    count = max(attempt.usage.unanswered, len(unanswered))
    usage = Usage(agents=max(attempt.usage.agents, len(calls)), tokens=max(attempt.usage.tokens, tokens),
                  unanswered=count, reserved=count * journal.reservation)
    return attempt.replace(usage=usage)


def check_copied_lines(snapshot: RunSnapshot, journal: JournalRead, name: str) -> None:
    """CORRUPT_RUN for a fork whose journal lacks the lines it copied from its source (every line before its
    first attempt's): resumed, it would ask again every call they answered and lose the answers it replaced."""
    if snapshot.fork is None or not snapshot.attempts:
        return
    copied, held = snapshot.attempts[0].first_seq - 1, journal.next_seq - 1
    if held < copied:
        holds = "no line" if not held else f"only lines up to seq {held}"
        raise WorkflowInputError("CORRUPT_RUN", f"{name}: run `{snapshot.run_id}` is a fork of "
                                 f"`{snapshot.fork.run_id}` that starts with the {copied} lines it copied from it, "
                                 f"but its journal holds {holds}")


def legacy_warning(journal: JournalRead, name: str) -> list[str]:
    """What a reader of the run is told of lines without a checksum, said wherever the run is read."""
    legacy = journal.legacy_lines
    if not legacy:
        return []
    lines = "1 line carries" if legacy == 1 else f"{legacy} lines carry"
    return [f"{name}: {lines} no checksum (written by the s16 reference or before alp_nb sealed its lines): "
            "nothing vouches for them"]


def workflow_of(run_id: str) -> str:
    """The workflow name a run id carries (``wf_<name>_<16 hex>``)."""
    return run_id[len("wf_"):-len("_0123456789abcdef")]


def _phases_caught_up(phases: Sequence[PhaseProgress], journaled: Mapping[str, int]) -> tuple[PhaseProgress, ...]:
    """Each phase's ``done`` raised to the calls the attempt journaled under it."""
    known = {phase.title for phase in phases}
    return (*(phase.replace(done=max(phase.done, journaled[phase.title])) for phase in phases),
            *(PhaseProgress(title=title, done=done) for title, done in journaled.items() if title not in known))
