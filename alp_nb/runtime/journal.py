"""The journal: one JSON line per runner call asked, per completed agent call and per answer paid for but not kept,
the memory a resume reads from.

Lines are written with one ``write`` each, straight to the file (fsync'd too when asked), before the step they
record counts as done. Reading is strict in the middle and forgiving at the end: a crash mid-write can only tear
the last line, which is dropped with a warning; any other bad line is an error naming it.

Integrity. A line (``v`` 2 or 3) is the JSON text T of its record with ``"sum": "<first 16 hex digits of SHA-256
over T>"`` appended as the object's last member, so the reader checks it against the raw bytes without encoding
anything again (``v`` 3 lines are compact JSON, ``v`` 2 lines have a space after each separator). An edited line,
a call recorded twice with different values, a field no writer of that version writes, and a line without a
checksum where the run's lines carry one (a stripped checksum, or a line relabelled as an older format) are
JOURNAL_TAMPERED or JOURNAL_CORRUPT, naming the file and line; a line of a newer format than this reader knows is
refused, as a newer snapshot is. Lines written before checksums, the s16 reference's (``key`` and ``value`` only,
10-digit keys) and our ``v`` 1 lines, still read in a run whose snapshot says its writer did not seal them
(``sealed_from``); they are counted as legacy: nothing vouches for them. A line missing from the middle shows as
a gap in ``seq``, named in ``gaps``.

Spending. Before a runner is asked, an ask line (``kind: "ask"``: ``key``, ``label``, ``phase``, ``attempts`` --
which answer of the call it asks for -- and ``started``) says so. Every answer the runner hands back then goes on
exactly one line before anything else is done with it: the answer a call keeps on the call's line (``kind:
"agent"``, whose ``tokens`` are that answer's), any other on a spend line (``kind: "spend"``: ``key``, ``label``,
``phase``, ``tokens``, ``attempts``, ``ended`` and ``reason``: ``retried`` or ``refused`` with the schema's
``issues``, ``not JSON``, ``cancelled``, or ``failed`` with the runner's ``error`` when it raised instead of
answering). So the journal alone says how every call it holds went, and when. An ask that no later line
answers was asked and never answered on record (the process died, or the run was stopped while it was out):
``unanswered``, spend of unknown size. So a run's usage is the sum over its lines plus what it reserves for
those. (A ``v`` 1 call line holds the tokens of all its answers, and has no spend or ask lines.)
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from pydantic import ConfigDict, Field, ValidationError

from alp_nb.base.collector import collector_paused
from alp_nb.base.frozen import FrozenJson, FrozenModel, validation_issues
from alp_nb.base.jsonline import line_encoder
from alp_nb.base.safe_files import open_regular
from alp_nb.base.untrusted_json import MAX_INT_DIGITS, UntrustedJson, loads_untrusted

from .errors import WorkflowInputError
from .keys import canonical_dumps, s16_call_key
from .store_files import inaccessible, open_store_file, store_file, write_all

S16_KEY_LENGTH = len("agent-") + 10

JOURNAL_VERSION = 3
"""The version of the lines written here: compact JSON, with ask lines. ``v`` 2 lines (spaced JSON, no ask lines)
still read and are checked the same way; lines of earlier versions (1, and s16's, which have no ``v``) are
legacy."""
FIRST_SEALED_VERSION = 2

CHECKSUM_DIGITS = 16
_TAIL = b'"}'
_LEADS = {b',"sum":"': 3, b', "sum": "': 2}
"""The checksum member's opening in a line of each sealed version: v3 lines are compact, v2 lines spaced."""
_sha256 = hashlib.sha256

AGENT, SPEND, ASK = "agent", "spend", "ask"
_COMMON = frozenset(("v", "seq", "key", "kind", "label", "phase", "attempts", "sum"))
FIELDS = {
    AGENT: _COMMON | {"prompt", "schema", "value", "tokens", "started", "ended", "copiedFrom", "overridden"},
    SPEND: _COMMON | {"tokens", "reason", "ended", "error", "issues"},
    ASK: _COMMON | {"started"},
}
"""The fields a sealed line of each kind may hold; any other was not written by alp_nb."""
_KINDS_OF = {2: (AGENT, SPEND), 3: (AGENT, SPEND, ASK)}

_INT_BOUND = 10**MAX_INT_DIGITS
_encode = line_encoder(allow_nan=False, compact=True)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


_decode_sealed = json.JSONDecoder(parse_constant=_no_constant).raw_decode
"""The parser of a line whose checksum holds: such a line is exactly what ``JournalWriter`` wrote, and the writer
writes only what ``loads_untrusted`` accepts (no NaN, no repeated key, at most 100 levels, integers of at most
100 digits), so checking all that again would more than double the time a resume spends reading, and find
nothing. It still refuses NaN, for free; a line it refuses goes on to ``loads_untrusted``, which says what is
wrong. (A line forged with a checksum recomputed to match can hold anything; no checksum stops that.)"""


class JournalEntry(FrozenModel):
    """One journaled call as a viewer sees it; s16 lines carry only ``key`` and ``value``. Fields it does not
    know are ignored, as the resume ignores them: a journal that resumes can always be shown."""

    model_config = ConfigDict(extra="ignore")

    key: str
    value: FrozenJson = None
    v: int | None = None
    seq: int | None = None
    kind: str | None = None
    label: str | None = None
    phase: str | None = None
    prompt: str | None = None
    schema_: FrozenJson = Field(default=None, alias="schema")
    tokens: int = 0
    attempts: int | None = None
    started: float | None = None
    ended: float | None = None

    @property
    def legacy(self) -> bool:
        """True for a line written before lines carried a checksum: the s16 reference's, or our ``v`` 1."""
        return self.v is None or self.v < FIRST_SEALED_VERSION

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


CachedCall = tuple[Any, int, int]
"""What a resume needs of a journaled call: (value, tokens of the answer it kept, seq of its line)."""

Spend = tuple[int, int, str]
"""A spend line as usage needs it: (seq, tokens, call key)."""


class Unanswered(NamedTuple):
    """A runner call asked (its ask line, ``line`` of the file) and never answered on record: what it cost is
    unknown."""

    seq: int
    key: str
    label: str | None
    phase: str | None
    answer: int
    started: float | None = None
    line: int = 0


RecordHandler = Callable[[dict[str, Any], int, int], None]
"""Given each call and spend line a reader accepts, in file order: its record (checked as a resume checks it), its
seq and its line number. A call recorded twice with the same value is given once, as the resume counts it. Ask
lines are not given: they end up in ``JournalRead.unanswered`` when nothing answers them."""


@dataclass
class JournalRead:
    """A parsed journal: calls by key, answers spent but not kept, calls asked and never answered, and where a
    writer may safely continue."""

    calls: dict[str, CachedCall] = field(default_factory=dict)
    spends: list[Spend] = field(default_factory=list)
    entries: list[JournalEntry] | None = None
    good_bytes: int = 0
    needs_newline: bool = False
    warnings: list[str] = field(default_factory=list)
    has_s16_keys: bool = False
    next_seq: int = 1
    legacy_lines: int = 0
    """Lines without a checksum (s16's, or our ``v`` 1): read as they always were, but nothing vouches for them."""
    unanswered: list[Unanswered] = field(default_factory=list)
    largest_answer: int = 0
    """The most tokens one answer cost (a call line's or a spend line's): what an unanswered call is reserved at."""
    gaps: list[tuple[int, int]] = field(default_factory=list)
    """Runs of ``seq`` missing between lines (first, last): lines deleted from the middle of the journal."""
    torn: bool = False
    """The last line was torn (a crash mid-write) and dropped."""

    def lookup(self, key: str, label: str, prompt: str, schema: Any) -> CachedCall | None:
        """The journaled answer a resume serves for the call ``key`` (label, prompt, schema), if any: by its key, or
        in a journal the s16 reference wrote, by that runtime's 10-digit key. The one rule every reader uses."""
        hit = self.calls.get(key)
        if hit is None and self.has_s16_keys:
            hit = self.calls.get(s16_call_key("agent", label, prompt, schema))
        return hit

    @property
    def reservation(self) -> int:
        """The tokens an unanswered call is counted at against the budget: the largest answer recorded, at least
        one token (so that kills in the window between an answer and its line can never overspend for ever)."""
        return max(self.largest_answer, 1)

    def unanswered_since(self, first_seq: int) -> list[Unanswered]:
        return [ask for ask in self.unanswered if ask.seq >= first_seq]


def read_journal(path: str | os.PathLike[str], *, keep_entries: bool = False,
                 on_record: RecordHandler | None = None, sealed_from: int | None = None) -> JournalRead:
    """Parse ``path`` (a missing file is an empty journal); ``keep_entries`` also builds JournalEntry models;
    ``on_record`` is handed every accepted call and spend line's record instead (a reader building its own table
    in bulk). ``sealed_from``: the first seq from which the run's writer sealed every line (its snapshot's), so
    a line without a checksum from there on is refused as tampered; None lets legacy lines read anywhere before
    the first sealed one.

    Lines are read one at a time and only (value, tokens, seq) is kept per call, so memory grows with the
    journal's values, not its prompts and schemas. The file is opened without following a link.
    """
    path = Path(path)
    read = JournalRead(entries=[] if keep_entries else None)
    try:
        with store_file(path, "read"), os.fdopen(open_regular(path, os.O_RDONLY), "rb") as handle, \
                collector_paused():  # the records hold no cycles: a collection while they pile up frees nothing
            _read_lines(handle, path, read, on_record, sealed_from)
    except FileNotFoundError:
        pass
    return read


def _read_lines(handle: BinaryIO, path: Path, read: JournalRead, on_record: RecordHandler | None,
                sealed_from: int | None) -> None:
    name, calls, entries, spends, gaps = path.name, read.calls, read.entries, read.spends, read.gaps
    asked: dict[str, list[Unanswered]] = {}
    next_seq = 1
    largest = offset = good_bytes = first_sealed = 0
    for line_no, raw in enumerate(handle, 1):
        offset += len(raw)
        complete = raw[-1:] == b"\n"
        try:
            record, version = _record(raw[:-1] if complete else raw)
        except ValueError as error:
            if not raw.strip():  # a blank line
                good_bytes = offset
                continue
            if complete:
                raise WorkflowInputError("JOURNAL_CORRUPT", f"{name} line {line_no}: {error}") from None
            message = f"{name} line {line_no} is incomplete (torn write) and was dropped"
            warnings.warn(message, RuntimeWarning, stacklevel=3)
            read.warnings.append(message)
            read.torn = True
            break
        key, seq = record["key"], record.get("seq")
        if version:
            first_sealed = first_sealed or line_no
        else:
            _check_unsealed(record, first_sealed, sealed_from, seq if seq is not None else next_seq, name, line_no)
            read.legacy_lines += 1
        good_bytes = offset
        read.needs_newline = not complete
        if seq is None:
            seq = next_seq
            read.has_s16_keys = read.has_s16_keys or len(key) == S16_KEY_LENGTH
        elif seq > next_seq:
            gaps.append((next_seq, seq - 1))
        if seq >= next_seq:
            next_seq = seq + 1
        kind = record.get("kind")
        if kind == ASK:
            started = record.get("started")
            asked.setdefault(key, []).append(Unanswered(
                seq, key, record.get("label"), record.get("phase"), record.get("attempts") or 1,
                started if type(started) is float else None, line_no))
            continue
        if asked:  # an answer answers the latest ask of its call (the asks of one call never overlap)
            waiting = asked.get(key)
            if waiting:
                ask = waiting.pop()
                if "started" not in record and ask.started is not None:  # when it was asked: a spend line's start
                    record["started"] = ask.started
        tokens = record.get("tokens", 0)
        if tokens > largest:
            largest = tokens
        if kind == SPEND:
            spends.append((seq, tokens, key))
            if on_record is not None:
                on_record(record, seq, line_no)
            continue
        call = (record["value"], tokens, seq)
        known = calls.setdefault(key, call)
        if known is not call:  # the same call twice: fine with the same value (counted once), tampering otherwise
            if canonical_dumps(known[0]) != canonical_dumps(call[0]):
                raise WorkflowInputError("JOURNAL_TAMPERED", f"{name} lines {_first_line(path, key)} and {line_no} "
                                         f"record call `{key}` with different values")
            continue
        if on_record is not None:
            on_record(record, seq, line_no)
        if entries is not None:
            entries.append(_entry(record, f"{name} line {line_no}", read.warnings))
    read.good_bytes, read.next_seq, read.largest_answer = good_bytes, next_seq, largest
    read.unanswered = sorted((ask for waiting in asked.values() for ask in waiting), key=lambda ask: ask.seq)


def seal(text: str) -> bytes:
    """The journal line for ``text``, the compact JSON of one record (an object): its checksum appended as the
    last member, then the newline."""
    body = text.encode()
    return body[:-1] + b',"sum":"' + _checksum(body) + _TAIL + b"\n"


def _checksum(text: bytes) -> bytes:
    return _sha256(text).hexdigest()[:CHECKSUM_DIGITS].encode()


def _sealed_version(line: bytes) -> int:
    """The version whose checksum member ends ``line`` and holds (3 or 2), or 0 for a line without a valid one."""
    if not line.endswith(_TAIL):
        return 0
    digits_at = -(len(_TAIL) + CHECKSUM_DIGITS)
    for lead, version in _LEADS.items():
        lead_at = digits_at - len(lead)
        if line[lead_at:digits_at] == lead:
            return version if _checksum(line[:lead_at] + b"}") == line[digits_at:-len(_TAIL)] else 0
    return 0


def _record(line: bytes) -> tuple[dict[str, Any], int]:
    """One journal line (without its newline), checked, and the sealed version its checksum vouches for (0: none
    holds); ValueError says what is wrong with it. A line whose checksum holds is parsed fast (see
    ``_decode_sealed``), any other strictly."""
    sealed = _sealed_version(line)
    record: Any = None
    if sealed:
        try:
            text = line.decode()
            record, end = _decode_sealed(text)
            if end != len(text):
                record = None
        except (ValueError, RecursionError):  # forged with its checksum: loads_untrusted says what is wrong
            record = None
    if record is None:
        try:
            record = loads_untrusted(line)
        except UntrustedJson as error:
            raise ValueError(error.message) from None
    if type(record) is not dict:
        raise ValueError("a journal line must be a JSON object")
    version = record.get("v")
    if version is not None and (type(version) is not int or version < 1):
        raise ValueError("`v` must be a positive integer")
    if version is not None and version > JOURNAL_VERSION:
        raise ValueError(f"it is a v{version} line, a newer journal format than this alp_nb reads (up to "
                         f"v{JOURNAL_VERSION}): upgrade alp_nb to read this run")
    key = record.get("key")
    if type(key) is not str or not key.startswith("agent-"):
        raise ValueError("`key` must be a string agent-<hash>")
    kind = record.get("kind")
    if sealed and version is not None and version >= FIRST_SEALED_VERSION:
        _check_fields(record, version, kind)
    if kind == ASK:
        _check_answer_number(record)
        return record, sealed
    spend = kind == SPEND
    if not spend and "value" not in record:
        raise ValueError("`value` is missing")
    tokens = record.get("tokens", 0)
    if type(tokens) is not int or tokens < 0 or (spend and "tokens" not in record):
        raise ValueError("`tokens` must be a non-negative integer")
    seq = record.get("seq")
    if seq is not None and (type(seq) is not int or seq < 0):
        raise ValueError("`seq` must be a non-negative integer")
    return record, sealed


def _check_fields(record: dict[str, Any], version: int, kind: Any) -> None:
    """A sealed line holds only what a writer of its version writes: its kinds, and their fields."""
    if kind not in _KINDS_OF.get(version, ()):
        raise ValueError(f"`kind` {json.dumps(kind)} is not a kind of line a v{version} journal holds")
    unknown = record.keys() - FIELDS[kind]
    if unknown:
        raise ValueError(f"unknown field `{min(unknown)}`: no v{version} writer writes it")


def _check_answer_number(record: dict[str, Any]) -> None:
    seq, answer = record.get("seq"), record.get("attempts")
    if type(seq) is not int or seq < 0:
        raise ValueError("`seq` must be a non-negative integer")
    if type(answer) is not int or answer < 1:
        raise ValueError("`attempts` must be a positive integer")


def _check_unsealed(record: dict[str, Any], first_sealed: int, sealed_from: int | None, seq: int, name: str,
                    line_no: int) -> None:
    """A line without a valid checksum is legacy, unless it was edited, had its checksum stripped, or stands
    where the run's writer sealed every line (relabelled as an older format)."""
    version = record.get("v") or 1
    if "sum" in record:
        problem = "its checksum does not match its content, so the line was edited"
    elif version >= FIRST_SEALED_VERSION:
        problem = f"a v{version} line has no checksum, so it was stripped"
    elif first_sealed:
        problem = f"no checksum after line {first_sealed} had one, so it was stripped"
    elif sealed_from is not None and seq >= sealed_from:
        problem = (f"it has no checksum, but every line of this run from seq {sealed_from} on was written with "
                   "one, so the line was stripped or relabelled as an older format")
    else:
        return
    raise WorkflowInputError("JOURNAL_TAMPERED", f"{name} line {line_no}: {problem}")


def _first_line(path: Path, key: str) -> int:
    """The number of the line that first recorded call ``key`` (looked up again only to name it in an error)."""
    with os.fdopen(open_regular(path, os.O_RDONLY), "rb") as handle:
        for line_no, raw in enumerate(handle, 1):
            record = json.loads(raw) if raw.strip() else None
            if isinstance(record, dict) and record.get("key") == key and record.get("kind") not in (SPEND, ASK):
                return line_no
    return 0


def _entry(record: dict[str, Any], where: str, found: list[str]) -> JournalEntry:
    """The line as a viewer sees it. A field the resume does not read may be malformed: the line is then shown
    with what the resume reads (key, value, tokens, seq, v) and a warning naming it."""
    try:
        return JournalEntry.model_validate(record)
    except ValidationError as error:
        message = f"{where}: {'; '.join(validation_issues(error, 'line'))} (shown with its key and value only)"
        warnings.warn(message, RuntimeWarning, stacklevel=4)
        found.append(message)
        return JournalEntry(key=record["key"], value=record["value"], tokens=record.get("tokens", 0),
                            seq=record.get("seq"), v=record.get("v"))


def journaled(value: Any) -> Any:
    """``value`` exactly as its journal line reads back (int keys become strings, tuples lists), so a fresh call
    returns what a resume would. Raises UntrustedJson (too deep, an integer too long), TypeError, ValueError or
    RecursionError if the journal cannot hold it: whatever is written must read back."""
    kind = type(value)
    if (kind is str or kind is bool or value is None or (kind is int and -_INT_BOUND < value < _INT_BOUND)
            or (kind is float and math.isfinite(value))):
        return value
    return loads_untrusted(_encode(value))


def sealed_lines(records: list[dict[str, Any]], first_seq: int = 1) -> tuple[bytes, int]:
    """``records`` as journal lines numbered from ``first_seq`` (a fork's copied lines, written as one file), and
    the next seq."""
    lines = [seal(_encode({"v": JOURNAL_VERSION, "seq": seq, **record}))
             for seq, record in enumerate(records, first_seq)]
    return b"".join(lines), first_seq + len(records)


class JournalWriter:
    """Appends journal lines with one unbuffered write each; ``fsync=True`` also syncs every line. ``fresh``: the
    journal of a new run, created here (``O_EXCL``); otherwise it is continued after ``truncate_to`` bytes.

    A failed write (a full disk) is STORE_INACCESSIBLE naming the journal; the line may then be torn, which the
    next reader drops."""

    def __init__(self, path: Path, *, fsync: bool, fresh: bool = False, truncate_to: int | None = None,
                 needs_newline: bool = False, next_seq: int = 1) -> None:
        self.path = path
        self._fd = open_store_file(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | (os.O_EXCL if fresh else 0))
        try:
            with store_file(path, "write"):
                if truncate_to is not None:
                    os.ftruncate(self._fd, truncate_to)
                if needs_newline:
                    write_all(self._fd, b"\n")
        except BaseException:
            self.close()
            raise
        self._fsync = fsync
        self.next_seq = next_seq

    def append(self, record: dict[str, Any]) -> int:
        """Write one line (``v``, ``seq`` and its checksum added here); returns its seq. Raises ValueError or
        TypeError for a record that is not JSON."""
        seq = self.next_seq
        data = seal(_encode({"v": JOURNAL_VERSION, "seq": seq, **record}))
        try:
            write_all(self._fd, data)
            if self._fsync:
                os.fsync(self._fd)
        except OSError as error:
            raise inaccessible(self.path, "write", error) from None
        self.next_seq = seq + 1
        return seq

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


class MemoryJournal:
    """A journal writer that writes nothing: the lines of a dry run, kept in memory (numbered after the real
    journal's last line), so the same call made twice in it is served the second time, as in a real run."""

    def __init__(self, next_seq: int = 1) -> None:
        self.next_seq = next_seq
        self.records: list[dict[str, Any]] = []

    def append(self, record: dict[str, Any]) -> int:
        seq = self.next_seq
        self.records.append({"seq": seq, **record})
        self.next_seq = seq + 1
        return seq

    def close(self) -> None:
        """Nothing to close: kept for the writer's interface."""
