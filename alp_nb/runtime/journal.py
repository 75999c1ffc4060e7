"""The journal: one JSON line per completed agent call, the memory a resume reads from.

Lines are written with one ``write`` each, straight to the file (flushed per
line; ``fsync`` too when asked), before the call counts as done. Reading is
strict in the middle and forgiving at the end: a crash mid-write can only
tear the last line, which is dropped with a warning; any other bad line is
an error naming it. Journals of the s16 reference (``key``/``value`` only,
10-digit keys) read the same way.
"""

from __future__ import annotations

import json
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ConfigDict, Field, ValidationError

from alp_nb.base.frozen import FrozenJson, FrozenModel, validation_issues
from alp_nb.base.jsonline import line_encoder

from .errors import WorkflowInputError
from .keys import S16_KEY_RE

S16_KEY_LENGTH = len("agent-") + 10

JOURNAL_VERSION = 1
_encode = line_encoder(allow_nan=False)
JSON_SCALARS = frozenset((str, int, float, bool, type(None)))
"""Exact types whose values read back from a journal line unchanged."""


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
        """True for a line in the s16 form (10-digit key)."""
        return S16_KEY_RE.fullmatch(self.key) is not None

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


CachedCall = tuple[Any, int, int]
"""What a resume needs of a journaled call: (value, tokens it cost, seq of its line)."""


@dataclass
class JournalRead:
    """A parsed journal: calls by key, and where a writer may safely continue."""

    calls: dict[str, CachedCall] = field(default_factory=dict)
    entries: list[JournalEntry] | None = None
    good_bytes: int = 0
    needs_newline: bool = False
    warnings: list[str] = field(default_factory=list)
    has_s16_keys: bool = False
    next_seq: int = 1


def read_journal(path: str | os.PathLike[str], *, keep_entries: bool = False) -> JournalRead:
    """Parse ``path`` (a missing file is an empty journal); ``keep_entries`` also builds JournalEntry models.

    Lines are read one at a time and only (value, tokens, seq) is kept per call, so memory grows with the
    journal's values, not its prompts and schemas.
    """
    path = Path(path)
    read = JournalRead(entries=[] if keep_entries else None)
    if not path.exists():
        return read
    calls, entries, next_seq, offset = read.calls, read.entries, 1, 0
    with open(path, "rb") as handle:
        for line_no, raw in enumerate(handle, 1):
            offset += len(raw)
            complete = raw[-1:] == b"\n"
            try:
                record = _record(raw)
            except ValueError as error:
                if complete:
                    raise WorkflowInputError("JOURNAL_CORRUPT", f"{path.name} line {line_no}: {error}") from None
                message = f"{path.name} line {line_no} is incomplete (torn write) and was dropped"
                warnings.warn(message, RuntimeWarning, stacklevel=2)
                read.warnings.append(message)
                break
            read.good_bytes = offset
            if record is None:  # a blank line
                continue
            read.needs_newline = not complete
            key, seq = record["key"], record.get("seq")
            if seq is None:
                seq = next_seq
                read.has_s16_keys = read.has_s16_keys or len(key) == S16_KEY_LENGTH
            if seq >= next_seq:
                next_seq = seq + 1
            calls[key] = (record["value"], record.get("tokens", 0), seq)
            if entries is not None:
                entries.append(_entry(record, f"{path.name} line {line_no}", read.warnings))
    read.next_seq = next_seq
    return read


def _record(raw: bytes) -> dict[str, Any] | None:
    """One checked journal line (None for a blank one); ValueError says what is wrong with it."""
    try:
        record = json.loads(raw.decode())
    except RecursionError:
        raise ValueError("nesting too deep") from None
    except ValueError as error:
        if not raw.strip():
            return None
        raise ValueError(f"not JSON ({error})") from None
    if type(record) is not dict:
        raise ValueError("a journal line must be a JSON object")
    key = record.get("key")
    if type(key) is not str or not key.startswith("agent-"):
        raise ValueError("`key` must be a string agent-<hash>")
    if "value" not in record:
        raise ValueError("`value` is missing")
    tokens = record.get("tokens", 0)
    if type(tokens) is not int or tokens < 0:
        raise ValueError("`tokens` must be a non-negative integer")
    seq = record.get("seq")
    if seq is not None and (type(seq) is not int or seq < 0):
        raise ValueError("`seq` must be a non-negative integer")
    return record


def _entry(record: dict[str, Any], where: str, found: list[str]) -> JournalEntry:
    """The line as a viewer sees it. A field the resume does not read may be malformed: the line is then shown
    with what the resume reads (key, value, tokens, seq) and a warning naming it."""
    try:
        return JournalEntry.model_validate(record)
    except ValidationError as error:
        message = f"{where}: {'; '.join(validation_issues(error, 'line'))} (shown with its key and value only)"
        warnings.warn(message, RuntimeWarning, stacklevel=3)
        found.append(message)
        return JournalEntry(key=record["key"], value=record["value"], tokens=record.get("tokens", 0),
                            seq=record.get("seq"))


def journaled(value: Any) -> Any:
    """``value`` as its journal line reads back (int keys become strings, tuples lists), so a fresh call returns
    what a resume would; TypeError, ValueError or RecursionError if it is not JSON."""
    return json.loads(_encode(value))


class JournalWriter:
    """Appends journal lines with one unbuffered write each; ``fsync=True`` also syncs every line."""

    def __init__(self, path: Path, *, fsync: bool, truncate_to: int | None = None, needs_newline: bool = False,
                 next_seq: int = 1) -> None:
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        if truncate_to is not None:
            os.ftruncate(self._fd, truncate_to)
        if needs_newline:
            os.write(self._fd, b"\n")
        self._fsync = fsync
        self.next_seq = next_seq

    def append(self, record: dict[str, Any]) -> int:
        """Write one line (``v`` and ``seq`` added here); returns its seq. Raises ValueError for non-JSON values."""
        seq = self.next_seq
        data = (_encode({"v": JOURNAL_VERSION, "seq": seq, **record}) + "\n").encode()
        while data:
            data = data[os.write(self._fd, data):]
        if self._fsync:
            os.fsync(self._fd)
        self.next_seq = seq + 1
        return seq

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
