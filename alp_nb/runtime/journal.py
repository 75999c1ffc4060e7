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

Spending. Before a runner is asked, an ask line (``kind: "ask"``) says so: which call (``key``, ``label``,
``phase``, ``prompt``, ``schema``), which answer of it (``attempts``, 1 when absent) and when (``at``). Every
answer the runner hands back then goes on exactly one line, which names its ask (``ask``: the ask line's seq),
before anything else is done with it: the answer a call keeps on an answer line (``kind: "agent"``: ``value`` and
the ``tokens`` of that answer), any other on a spend line (``kind: "spend"``: ``tokens`` and ``reason``:
``retried`` or ``refused`` with the schema's ``issues``, ``not JSON``, ``cancelled``, or ``failed`` with the
runner's ``error`` when it raised instead of answering). So the journal alone says how every call it holds went,
and when. An ask that no later line answers was asked and never answered on record (the process died, or the run
was stopped while it was out): ``unanswered``, spend of unknown size. So a run's usage is the sum over its lines
plus what it reserves for those. (A ``v`` 1 call line holds the tokens of all its answers, and has no spend or ask
lines.)

Formats. ``v`` 4 (written here) keeps what a call is on its ask line alone, and times as seconds (to the
microsecond) after an ``epoch``: the first line each writer writes carries ``epoch`` (seconds since 1970), and
each line's ``at`` counts from the latest epoch before it. Its checksum is 12 hex digits. The reader hands on
every line in the form of ``v`` 3, whose lines each say everything (``key``, ``label``, ``phase``, ``attempts``,
``started``, ``ended``; an answer's ``started`` is when its call was first asked) with a 16-digit checksum: a
fork still writes its copied calls as ``v`` 3 lines, which stand alone.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

import msgspec

from alp_nb.base.collector import collector_paused
from alp_nb.base.jsonline import line_encoder
from alp_nb.base.record import Record, RecordInvalid, record_issue
from alp_nb.base.safe_files import open_regular
from alp_nb.base.untrusted_json import MAX_INT_DIGITS, UntrustedJson, loads_untrusted

from .errors import WorkflowInputError
from .keys import canonical_dumps, s16_call_key
from .store_files import inaccessible, open_store_file, store_file, write_all

S16_KEY_LENGTH = len("agent-") + 10

JOURNAL_VERSION = 4
"""The version of the lines written here: compact JSON; answers name their ask line, times count from an epoch.
``v`` 3 lines (compact, each standing alone) and ``v`` 2 lines (spaced JSON, no ask lines) still read and are
checked the same way; lines of earlier versions (1, and s16's, which have no ``v``) are legacy."""
COPIED_VERSION = 3
"""The version of a fork's copied lines: a copied call has no ask line to refer to."""
FIRST_SEALED_VERSION = 2

_TAIL = b'"}'
_LEAD = b',"sum":"'
_SEALS = ((_LEAD, 12, 4), (_LEAD, 16, 3), (b', "sum": "', 16, 2))
"""How each sealed version's checksum member opens and how many hex digits it holds: v4 lines are compact with
12 digits (48 bits: an edit goes unseen once in 2**48), v3 compact with 16, v2 spaced with 16."""
_DIGITS = {version: digits for _lead, digits, version in _SEALS}
_SEAL_AT = tuple((lead, digits, version, -(len(_TAIL) + digits) - len(lead), -(len(_TAIL) + digits))
                 for lead, digits, version in _SEALS)
"""Each seal with where its lead and its digits start, counted from the line's end."""
_sha256 = hashlib.sha256

AGENT, SPEND, ASK = "agent", "spend", "ask"
_COMMON = frozenset(("v", "seq", "key", "kind", "label", "phase", "attempts", "sum"))
_V3_FIELDS = {
    AGENT: _COMMON | {"prompt", "schema", "value", "tokens", "started", "ended", "copiedFrom", "overridden"},
    SPEND: _COMMON | {"tokens", "reason", "ended", "error", "issues"},
    ASK: _COMMON | {"started"},
}
_V4_COMMON = frozenset(("v", "seq", "kind", "at", "epoch", "sum"))
_V4_FIELDS = {
    ASK: _V4_COMMON | {"key", "label", "phase", "prompt", "schema", "attempts"},
    AGENT: _V4_COMMON | {"ask", "value", "tokens"},
    SPEND: _V4_COMMON | {"ask", "tokens", "reason", "error", "issues"},
}
FIELDS = {2: {AGENT: _V3_FIELDS[AGENT], SPEND: _V3_FIELDS[SPEND]}, 3: _V3_FIELDS, 4: _V4_FIELDS}
"""The fields a sealed line of each version and kind may hold; any other was not written by alp_nb."""

_INT_BOUND = 10**MAX_INT_DIGITS
_encode = line_encoder(allow_nan=False, compact=True)


_decode_sealed = msgspec.json.Decoder().decode
"""The parser of a line whose checksum holds: such a line is exactly what ``JournalWriter`` wrote, and the writer
writes only what ``loads_untrusted`` accepts (no NaN, no repeated key, at most 100 levels, integers of at most
100 digits), so checking all that again would more than double the time a resume spends reading, and find
nothing. msgspec's parser reads bytes three times as fast as ``json``'s reads text, keeps integers of any length
whole, and still refuses NaN, Infinity, bytes that are not UTF-8 and anything after the object; a line it refuses
goes on to ``loads_untrusted``, which says what is wrong. (A line forged with a checksum recomputed to match can
hold anything; no checksum stops that.)"""


class JournalEntry(Record, frozen=True, kw_only=True, forbid_unknown_fields=False, omit_defaults=True):
    """One journaled call as a viewer sees it; s16 lines carry only ``key`` and ``value``. Fields it does not
    know are ignored, as the resume ignores them: a journal that resumes can always be shown."""

    FROZEN = ("value", "schema_")
    key: str
    value: Any = None
    v: int | None = None
    seq: int | None = None
    kind: str | None = None
    label: str | None = None
    phase: str | None = None
    prompt: str | None = None
    schema_: Any = msgspec.field(default=None, name="schema")
    tokens: int = 0
    attempts: int | None = None
    started: float | None = None
    ended: float | None = None

    @property
    def legacy(self) -> bool:
        """True for a line written before lines carried a checksum: the s16 reference's, or our ``v`` 1."""
        return self.v is None or self.v < FIRST_SEALED_VERSION


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
    asked: dict[str, list[Unanswered]] = {}  # v3 asks, by call: an answer answers its call's latest
    v4 = _V4Reader(name)
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
        seq = record.get("seq")
        if version:
            first_sealed = first_sealed or line_no
        else:
            _check_unsealed(record, first_sealed, sealed_from, seq if type(seq) is int else next_seq, name, line_no)
            try:
                _check_whole_line(record, record.get("kind"))
            except ValueError as error:
                raise WorkflowInputError("JOURNAL_CORRUPT", f"{name} line {line_no}: {error}") from None
            read.legacy_lines += 1
        good_bytes = offset
        read.needs_newline = not complete
        if seq is None:
            seq = next_seq
            read.has_s16_keys = read.has_s16_keys or len(record["key"]) == S16_KEY_LENGTH
        elif seq > next_seq:
            gaps.append((next_seq, seq - 1))
        if seq >= next_seq:
            next_seq = seq + 1
        if version == JOURNAL_VERSION:
            resolved = v4.resolve(record, seq, line_no)
            if resolved is None:  # an ask
                continue
            record = resolved
        kind = record.get("kind")
        key = record["key"]
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
    read.unanswered = sorted([*(ask for waiting in asked.values() for ask in waiting), *v4.unanswered()],
                             key=lambda ask: ask.seq)


_NOT_COPIED = frozenset(("v", "seq", "kind", "ask", "at", "epoch", "sum"))
"""What of a v4 answer line is about the line, not the call: the rest is handed on with its ask's fields."""


def answer_record(ask: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    """A ``v`` 4 answer line (``answer``) with its ask line's fields, as a ``v`` 3 line holds them, times aside."""
    kind = answer["kind"]
    record = {"v": JOURNAL_VERSION, "seq": answer["seq"], "key": ask["key"], "kind": kind}
    for name in ("label", "phase", "prompt", "schema") if kind == AGENT else ("label", "phase"):
        if name in ask:
            record[name] = ask[name]
    for name, value in answer.items():
        if name not in _NOT_COPIED:
            record[name] = value
    record["attempts"] = ask.get("attempts", 1)
    return record


class _V4Reader:
    """What reading ``v`` 4 lines keeps: the epoch their times count from, the asks not answered yet, and when a
    retried call was first asked. Each answer is handed on whole, with its ask's fields, as a ``v`` 3 line says
    it."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.epoch: float | None = None
        self.open: dict[int, tuple[dict[str, Any], float, int]] = {}
        self.retried: dict[str, float] = {}

    def resolve(self, record: dict[str, Any], seq: int, line_no: int) -> dict[str, Any] | None:
        """``record``'s call as a ``v`` 3 line holds it; None for an ask, kept until a line answers it.
        JOURNAL_TAMPERED when a line's epoch or ask is not before it."""
        epoch = record.get("epoch")
        if epoch is not None:
            self.epoch = epoch
        elif self.epoch is None:
            raise WorkflowInputError("JOURNAL_TAMPERED", f"{self.name} line {line_no}: no line before it carries "
                                     "the epoch its time counts from, so its writer's first line was removed")
        at = self.epoch + record["at"]
        kind = record["kind"]
        if kind == ASK:
            if record.get("attempts", 1) > 1:
                at = self.retried.pop(record["key"], at)
            self.open[seq] = (record, at, line_no)
            return None
        opened = self.open.pop(record["ask"], None)
        if opened is None:
            raise WorkflowInputError("JOURNAL_TAMPERED", f"{self.name} line {line_no} answers the ask at seq "
                                     f"{record['ask']}, which no line before it holds unanswered")
        ask, started, _line = opened
        if kind == SPEND and record.get("reason") == "retried":
            self.retried[ask["key"]] = started
        resolved = answer_record(ask, record)
        resolved["started"], resolved["ended"] = started, at
        return resolved

    def unanswered(self) -> list[Unanswered]:
        return [Unanswered(seq, ask["key"], ask.get("label"), ask.get("phase"), ask.get("attempts", 1),
                           started, line_no) for seq, (ask, started, line_no) in self.open.items()]


def seal(text: str, digits: int = _DIGITS[JOURNAL_VERSION]) -> bytes:
    """The journal line for ``text``, the compact JSON of one record (an object): its checksum of ``digits`` hex
    digits appended as the last member, then the newline."""
    body = text.encode()
    return body[:-1] + _LEAD + _checksum(body, digits) + _TAIL + b"\n"


def _checksum(text: bytes, digits: int) -> bytes:
    return _sha256(text).hexdigest()[:digits].encode()


def _sealed_version(line: bytes) -> int:
    """The version whose checksum member ends ``line`` and holds (4, 3 or 2), or 0 for a line without a valid
    one."""
    if not line.endswith(_TAIL):
        return 0
    for lead, digits, version, lead_at, digits_at in _SEAL_AT:
        if line[lead_at:digits_at] == lead:
            return version if _sha256(line[:lead_at] + b"}").hexdigest()[:digits].encode() == \
                line[digits_at:-len(_TAIL)] else 0
    return 0


def _record(line: bytes) -> tuple[dict[str, Any], int]:
    """One journal line (without its newline), checked, and the sealed version its checksum vouches for (0: none
    holds); ValueError says what is wrong with it. A line whose checksum holds is parsed fast (see
    ``_decode_sealed``), any other strictly."""
    sealed = _sealed_version(line)
    record: Any = None
    if sealed:
        try:
            record = _decode_sealed(line)
        except (msgspec.DecodeError, RecursionError):  # forged with its checksum: loads_untrusted says what is wrong
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
    if sealed and version != sealed:  # a checksum of another version's form: not what any writer wrote
        sealed = 0
    if not sealed:  # legacy, edited or stripped: the reader says which (it knows what came before), then checks it
        return record, 0
    kind = record.get("kind")
    _check_fields(record, sealed, kind)
    if sealed == JOURNAL_VERSION:
        _check_v4(record, kind)
    else:
        _check_whole_line(record, kind)
    return record, sealed


def _check_whole_line(record: dict[str, Any], kind: Any) -> None:
    """What reading a line that says all about its call (``v`` 3 and before, s16's) relies on: its key, its seq,
    the value it keeps or the tokens it spent, and an ask's answer number."""
    key = record.get("key")
    if type(key) is not str or not key.startswith("agent-"):
        raise ValueError("`key` must be a string agent-<hash>")
    if kind == ASK:
        _check_answer_number(record)
        return
    spend = kind == SPEND
    if not spend and "value" not in record:
        raise ValueError("`value` is missing")
    tokens = record.get("tokens", 0)
    if type(tokens) is not int or tokens < 0 or (spend and "tokens" not in record):
        raise ValueError("`tokens` must be a non-negative integer")
    seq = record.get("seq")
    if seq is not None and (type(seq) is not int or seq < 0):
        raise ValueError("`seq` must be a non-negative integer")


def _check_v4(record: dict[str, Any], kind: Any) -> None:
    """What reading a v4 line relies on: its seq, its time, and its call's key (an ask) or its ask's seq (an
    answer), with the value it keeps or the tokens it spent."""
    seq = record.get("seq")
    if type(seq) is not int or seq < 1:
        raise ValueError("`seq` must be a positive integer")
    for name in ("at", "epoch") if "epoch" in record else ("at",):
        if type(record.get(name)) not in (int, float) or record[name] < 0:
            raise ValueError(f"`{name}` must be a non-negative number of seconds")
    if kind == ASK:
        key = record.get("key")
        if type(key) is not str or not key.startswith("agent-"):
            raise ValueError("`key` must be a string agent-<hash>")
        answer = record.get("attempts", 1)
        if type(answer) is not int or answer < 1:
            raise ValueError("`attempts` must be a positive integer")
        for name in ("label", "phase", "prompt") if "phase" in record else ("label", "prompt"):
            if type(record.get(name)) is not str:  # every answer to the ask is shown with them
                raise ValueError(f"`{name}` must be a string")
        return
    ask = record.get("ask")
    if type(ask) is not int or not 1 <= ask < seq:
        raise ValueError("`ask` must be the seq of an earlier line")
    tokens = record.get("tokens")
    if type(tokens) is not int or tokens < 0:
        raise ValueError("`tokens` must be a non-negative integer")
    if kind == AGENT and "value" not in record:
        raise ValueError("`value` is missing")


def _check_fields(record: dict[str, Any], version: int, kind: Any) -> None:
    """A sealed line holds only what a writer of its version writes: its kinds, and their fields."""
    fields = FIELDS[version].get(kind)
    if fields is None:
        raise ValueError(f"`kind` {json.dumps(kind)} is not a kind of line a v{version} journal holds")
    unknown = record.keys() - fields
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
    asks: dict[Any, Any] = {}  # v4 ask seqs and their calls' keys
    with os.fdopen(open_regular(path, os.O_RDONLY), "rb") as handle:
        for line_no, raw in enumerate(handle, 1):
            record = json.loads(raw) if raw.strip() else None
            if not isinstance(record, dict):
                continue
            if record.get("kind") == ASK:
                asks[record.get("seq")] = record.get("key")
            elif record.get("kind") != SPEND and record.get("key", asks.get(record.get("ask"))) == key:
                return line_no
    return 0


def _entry(record: dict[str, Any], where: str, found: list[str]) -> JournalEntry:
    """The line as a viewer sees it. A field the resume does not read may be malformed: the line is then shown
    with what the resume reads (key, value, tokens, seq, v) and a warning naming it."""
    try:
        return JournalEntry.from_json(record)
    except RecordInvalid as error:
        message = f"{where}: {record_issue(error, 'line')} (shown with its key and value only)"
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
    """``records`` (calls, each with all it says) as ``v`` 3 journal lines numbered from ``first_seq`` (a fork's
    copied lines, written as one file), and the next seq."""
    lines = [seal(_encode({"v": COPIED_VERSION, "seq": seq, **record}), _DIGITS[COPIED_VERSION])
             for seq, record in enumerate(records, first_seq)]
    return b"".join(lines), first_seq + len(records)


def ask_line(key: str, label: str, phase: str | None, prompt: str, schema: Any, answer: int) -> dict[str, Any]:
    """The ask line said before the runner is asked for answer ``answer`` of call ``key``."""
    record: dict[str, Any] = {"kind": ASK, "key": key, "label": label}
    if phase is not None:
        record["phase"] = phase
    record["prompt"] = prompt
    if schema is not None:
        record["schema"] = schema
    if answer != 1:
        record["attempts"] = answer
    return record


def answer_line(ask: int, value: Any, tokens: int) -> dict[str, Any]:
    """The answer to the ask at seq ``ask`` that its call keeps."""
    return {"kind": AGENT, "ask": ask, "value": value, "tokens": tokens}


def spend_line(ask: int, tokens: int, reason: str, detail: dict[str, Any]) -> dict[str, Any]:
    """An answer to the ask at seq ``ask`` paid for and not kept; ``detail`` says why (``error``, ``issues``)."""
    return {"kind": SPEND, "ask": ask, "tokens": tokens, "reason": reason, **detail}


class JournalWriter:
    """Appends journal lines with one unbuffered write each; ``fsync=True`` also syncs every line. ``fresh``: the
    journal of a new run, created here (``O_EXCL``); otherwise it is continued after ``truncate_to`` bytes. Its
    first line carries the epoch its lines' times count from.

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
        self._epoch: float | None = None
        self.next_seq = next_seq

    def append(self, record: dict[str, Any]) -> int:
        """Write one line (``v``, ``seq``, its time and its checksum added here); returns its seq. Raises ValueError
        or TypeError for a record that is not JSON."""
        seq, now = self.next_seq, time.time()
        if self._epoch is None:
            line = {"v": JOURNAL_VERSION, "seq": seq, **record, "at": 0.0, "epoch": now}
        else:
            line = {"v": JOURNAL_VERSION, "seq": seq, **record, "at": round(now - self._epoch, 6)}
        data = seal(_encode(line))
        try:
            write_all(self._fd, data)
            if self._fsync:
                os.fsync(self._fd)
        except OSError as error:
            raise inaccessible(self.path, "write", error) from None
        if self._epoch is None:
            self._epoch = now
        self.next_seq = seq + 1
        return seq

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


class MemoryJournal:
    """A journal writer that writes nothing: a dry run's lines are only numbered (after the real journal's last
    line); the calls they answer are kept by the attempt, so the same call made twice in it is served the
    second time, as in a real run."""

    def __init__(self, next_seq: int = 1) -> None:
        self.next_seq = next_seq

    def append(self, record: dict[str, Any]) -> int:
        seq = self.next_seq
        self.next_seq = seq + 1
        return seq

    def close(self) -> None:
        """Nothing to close: kept for the writer's interface."""
