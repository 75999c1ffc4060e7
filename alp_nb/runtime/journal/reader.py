"""Reading a journal: each line to the decoder of its format, and the rules that hold across lines.

Lines are read one at a time. A line's seal says its format (``seal.sealed_version``); a ``v`` 4 line goes to
``v4``, any other to ``whole_lines``, and each decoder hands back the answers with the asks they answer
(``Answered``). What stays here is what no one line can tell:

- ordering: every line has a seq (an s16 line its position); a seq skipped is a gap (``JournalRead.gaps``), and
  the next seq a writer continues from is one after the highest;
- tampering: a line without a valid seal is legacy only where nothing sealed came before it and the run's writer
  did not seal it (``sealed_from``): an edited line, a stripped checksum or a line relabelled as an older format
  is JOURNAL_TAMPERED, as is a call recorded twice with different values (the same value twice counts once);
- the end: a crash mid-write can only tear the last line, which is dropped with a warning; any other line that
  cannot be read is JOURNAL_CORRUPT, naming it.

A line whose seal holds is exactly what a writer wrote, and the writer writes only what ``loads_untrusted``
accepts (no NaN, no repeated key, at most 100 levels, integers of at most 100 digits), so such a line is parsed by
msgspec, without checking all that again. A line msgspec refuses, or one without a seal, is parsed strictly by
``loads_untrusted``, which says what is wrong. (A line forged with a seal recomputed to match can hold anything: no
checksum stops that.)
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

import msgspec

from alp_nb.base.safe_files import open_regular
from alp_nb.base.untrusted_json import UntrustedJson, loads_untrusted

from ..errors import WorkflowInputError
from ..keys import canonical_dumps, s16_call_key
from ..store_files import store_file
from . import v4
from .entry import JournalEntry
from .lines import Answered, Ask, Spend
from .seal import FIRST_SEALED_VERSION, sealed_version
from .whole_lines import WholeLines, check_call, check_fields

S16_KEY_LENGTH = len("agent-") + 10
LATEST_VERSION = v4.VERSION
"""The newest format this reader knows; a line of a newer one is refused, as a newer snapshot is."""
MALFORMED_WARNINGS = 20
"""The most lines a malformed-field warning names one by one; the rest are counted."""

CachedCall = tuple[Any, int, int]
"""What a resume needs of a journaled call: (value, tokens of the answer it kept, seq of its line)."""

Spent = tuple[int, int, str]
"""A spend line as usage needs it: (seq, tokens, call key)."""

AnswerHandler = Callable[[Answered], None]
"""Given each answer a reader accepts, in file order (a call recorded twice with the same value once, as the resume
counts it): a kept answer or a spend, with its ask. Asks no line answers end up in ``JournalRead.unanswered``."""


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

    @classmethod
    def of(cls, ask: Ask, started: float | None, line: int) -> Unanswered:
        return cls(ask.seq, ask.key, ask.label, ask.phase, ask.attempts, started, line)


@dataclass
class JournalRead:
    """A parsed journal: calls by key, answers spent but not kept, calls asked and never answered, and where a
    writer may safely continue."""

    calls: dict[str, CachedCall] = field(default_factory=dict)
    spends: list[Spent] = field(default_factory=list)
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
    malformed: list[tuple[int, str]] = field(default_factory=list)
    """(line, field) of each field only a viewer reads that an old line holds with the wrong type: shown missing."""

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

    def malformed_warnings(self, name: str) -> list[str]:
        """One warning per line (named ``name``) with a malformed field (the first MALFORMED_WARNINGS), then how
        many more."""
        by_line: dict[int, list[str]] = {}
        for line_no, found in self.malformed:
            by_line.setdefault(line_no, []).append(found)
        said = [f"{name} line {line_no}: {', '.join(f'`{found}`' for found in fields)} of the wrong type (shown as "
                "missing)" for line_no, fields in list(by_line.items())[:MALFORMED_WARNINGS]]
        if len(by_line) > MALFORMED_WARNINGS:
            said.append(f"{name}: {len(by_line) - MALFORMED_WARNINGS} more lines with a field of the wrong type "
                        "(shown as missing)")
        return said


def read_journal(path: str | os.PathLike[str], *, keep_entries: bool = False, on_answer: AnswerHandler | None = None,
                 sealed_from: int | None = None) -> JournalRead:
    """Parse ``path`` (a missing file is an empty journal); ``keep_entries`` also keeps each call's answer as a
    viewer sees it (``entries``); ``on_answer`` is handed every accepted answer (a reader building its own table).
    ``sealed_from``: the first seq from which the run's writer sealed every line (its snapshot's), so a line without
    a checksum from there on is refused as tampered; None lets legacy lines read anywhere before the first sealed
    one.

    Only (value, tokens, seq) is kept per call, so memory grows with the journal's values, not its prompts and
    schemas. The file is opened without following a link.
    """
    path = Path(path)
    read = JournalRead(entries=[] if keep_entries else None)
    try:
        with store_file(path, "read"), os.fdopen(open_regular(path, os.O_RDONLY), "rb") as handle:
            _Reader(path, read, on_answer, sealed_from).read_lines(handle)
    except FileNotFoundError:
        pass
    return read


class _Unreadable(ValueError):
    """A line that is not a line of any format (what is wrong with it is the message): torn if it is the last."""


class _Reader:
    """One pass over a journal's lines, filling ``read``."""

    def __init__(self, path: Path, read: JournalRead, on_answer: AnswerHandler | None,
                 sealed_from: int | None) -> None:
        self.path, self.name, self.read = path, path.name, read
        self.on_answer, self.sealed_from = on_answer, sealed_from
        self.v4 = v4.Pairing(path.name)
        self.whole = WholeLines()
        self.first_sealed = 0

    def read_lines(self, handle: BinaryIO) -> None:
        read = self.read
        offset = 0
        for line_no, raw in enumerate(handle, 1):
            offset += len(raw)
            complete = raw[-1:] == b"\n"
            try:
                answered = self.line(raw[:-1] if complete else raw, line_no)
            except _Unreadable as error:
                if not raw.strip():  # a blank line
                    read.good_bytes = offset
                    continue
                if complete:
                    raise WorkflowInputError("JOURNAL_CORRUPT", f"{self.name} line {line_no}: {error}") from None
                message = f"{self.name} line {line_no} is incomplete (torn write) and was dropped"
                warnings.warn(message, RuntimeWarning, stacklevel=4)
                read.warnings.append(message)
                read.torn = True
                break
            read.good_bytes = offset
            read.needs_newline = not complete
            if answered is not None:
                self.add(answered)
        read.unanswered = sorted([*(Unanswered.of(*ask) for ask in self.whole.unanswered()),
                                  *(Unanswered.of(*ask) for ask in self.v4.unanswered())], key=lambda ask: ask.seq)
        read.malformed = self.whole.malformed

    def line(self, body: bytes, line_no: int) -> Answered | None:
        """The answer line ``body`` holds, with its ask; None for an ask (kept until answered)."""
        version, line = _decoded(body)
        if version == v4.VERSION:
            self.first_sealed = self.first_sealed or line_no
            self.number(line.seq)
            return self.v4.take(line, line_no)
        record: dict[str, Any] = line
        seq = record.get("seq")
        if version:
            self.first_sealed = self.first_sealed or line_no
        else:
            self.check_unsealed(record, seq if type(seq) is int else self.read.next_seq, line_no)
            problem = check_call(record)
            if problem:
                raise WorkflowInputError("JOURNAL_CORRUPT", f"{self.name} line {line_no}: {problem}")
            self.read.legacy_lines += 1
        if seq is None:
            seq = self.read.next_seq
            self.read.has_s16_keys = self.read.has_s16_keys or len(record["key"]) == S16_KEY_LENGTH
        self.number(seq)
        return self.whole.take(record, seq, line_no)

    def number(self, seq: int) -> None:
        """Lines are numbered without a gap: a seq beyond the next is lines missing."""
        read = self.read
        if seq > read.next_seq:
            read.gaps.append((read.next_seq, seq - 1))
        if seq >= read.next_seq:
            read.next_seq = seq + 1

    def check_unsealed(self, record: dict[str, Any], seq: int, line_no: int) -> None:
        """A line without a valid checksum is legacy, unless it was edited, had its checksum stripped, or stands
        where the run's writer sealed every line (relabelled as an older format)."""
        version = record.get("v") or 1
        if "sum" in record:
            problem = "its checksum does not match its content, so the line was edited"
        elif version >= FIRST_SEALED_VERSION:
            problem = f"a v{version} line has no checksum, so it was stripped"
        elif self.first_sealed:
            problem = f"no checksum after line {self.first_sealed} had one, so it was stripped"
        elif self.sealed_from is not None and seq >= self.sealed_from:
            problem = (f"it has no checksum, but every line of this run from seq {self.sealed_from} on was written "
                       "with one, so the line was stripped or relabelled as an older format")
        else:
            return
        raise WorkflowInputError("JOURNAL_TAMPERED", f"{self.name} line {line_no}: {problem}")

    def add(self, answered: Answered) -> None:
        """Count an answer: a spend, or a call's kept answer (the same call twice must hold the same value)."""
        read, answer = self.read, answered.answer
        tokens = answer.tokens or 0
        if tokens > read.largest_answer:
            read.largest_answer = tokens
        if isinstance(answer, Spend):
            read.spends.append((answer.seq, tokens, answered.ask.key))
            if self.on_answer is not None:
                self.on_answer(answered)
            return
        key = answered.ask.key
        call = (answer.value, tokens, answer.seq)
        known = read.calls.setdefault(key, call)
        if known is not call:  # the same call twice: fine with the same value (counted once), tampering otherwise
            if canonical_dumps(known[0]) != canonical_dumps(call[0]):
                raise WorkflowInputError("JOURNAL_TAMPERED", f"{self.name} lines {self.first_line_of(key)} and "
                                         f"{answered.line} record call `{key}` with different values")
            return
        if self.on_answer is not None:
            self.on_answer(answered)
        if read.entries is not None:
            read.entries.append(JournalEntry.of(answered))

    def first_line_of(self, key: str) -> int:
        """The line that first kept an answer of call ``key`` (read again only to name it in an error)."""

        def stop_at(answered: Answered) -> None:
            if answered.kept and answered.key == key:
                raise _Found(answered.line)

        try:
            with store_file(self.path, "read"), os.fdopen(open_regular(self.path, os.O_RDONLY), "rb") as handle:
                _Reader(self.path, JournalRead(), stop_at, self.sealed_from).read_lines(handle)
        except _Found as found:
            return found.line
        return 0


class _Found(Exception):
    """Not an error: how the second reading stops at the line it looks for."""

    def __init__(self, line: int) -> None:
        self.line = line


def answer_at(path: Path, starts: Sequence[int], index: int, seq: int) -> Answered | None:
    """The answer on line ``index`` (from 0) of the journal at ``path``, whose lines start at the byte offsets
    ``starts``, with its ask (a ``v`` 4 answer's is looked for in the lines before it, most often close); ``seq``
    for a line that has none (an s16 line). None where that line holds no answer, or no longer reads as one (the
    file was replaced)."""
    try:
        with store_file(path, "read"), os.fdopen(open_regular(path, os.O_RDONLY), "rb") as handle:
            version, line = _line_at(handle, starts, index)
            if version != v4.VERSION:
                return None if check_call(line) else WholeLines().take(line, line.get("seq", seq), index + 1)
            if isinstance(line, v4.V4Ask):
                return None
            for earlier in range(index - 1, -1, -1):
                version, ask = _line_at(handle, starts, earlier)
                if isinstance(ask, v4.V4Ask) and ask.seq == line.ask:
                    return Answered(ask, line, index + 1)
    except (FileNotFoundError, WorkflowInputError, _Unreadable):
        return None
    return None


def _line_at(handle: BinaryIO, starts: Sequence[int], index: int) -> tuple[int, Any]:
    handle.seek(starts[index])
    return _decoded(handle.readline().rstrip(b"\n"))


def _decoded(body: bytes) -> tuple[int, Any]:
    """The version a line's seal vouches for (0: none) and the line: a ``v`` 4 record, else the parsed object;
    _Unreadable says what is wrong with a line that is neither."""
    version = sealed_version(body)
    if version == v4.VERSION:
        try:
            return version, v4.decode(body)
        except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
            pass  # what is wrong is said in the words of the strict parse, or of the line's fields
    record = _parsed(body, fast=version in (2, 3))
    if record.get("v") != version:  # unsealed, or a seal of another version's form: the reader says which
        return 0, record
    if version == v4.VERSION:  # msgspec refused it: say why in its fields' words
        try:
            return version, msgspec.convert(record, v4.V4Line)
        except msgspec.ValidationError:
            raise _Unreadable(v4.why(record) or f"it is not a line a v{version} writer writes") from None
    problem = check_fields(record, version) or check_call(record)
    if problem:
        raise _Unreadable(problem)
    return version, record


def _parsed(body: bytes, *, fast: bool) -> dict[str, Any]:
    """A line as a JSON object of a version this reader knows; ``fast`` for a sealed line (see the module)."""
    record: Any = None
    if fast:
        try:
            record = _decode_plain(body)
        except (msgspec.DecodeError, RecursionError):
            record = None
    if record is None:
        try:
            record = loads_untrusted(body)
        except UntrustedJson as error:
            raise _Unreadable(error.message) from None
    if type(record) is not dict:
        raise _Unreadable("a journal line must be a JSON object")
    written = record.get("v")
    if written is not None and (type(written) is not int or written < 1):
        raise _Unreadable("`v` must be a positive integer")
    if written is not None and written > LATEST_VERSION:
        raise _Unreadable(f"it is a v{written} line, a newer journal format than this alp_nb reads (up to "
                          f"v{LATEST_VERSION}): upgrade alp_nb to read this run")
    return record


_decode_plain = msgspec.json.Decoder().decode
