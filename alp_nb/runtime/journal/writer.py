"""Writing a journal: ``v`` 4 lines appended with one unbuffered write each, before the step they record counts as
done; a fork's copied calls as ``v`` 3 lines, written as one file.

Before a runner is asked, an ask line (``ask_line``) says which call and which answer of it; every answer the
runner hands back then goes on exactly one line, which names its ask by seq: the answer a call keeps
(``answer_line``), or one paid for and not kept (``spend_line``). A line's time counts from the epoch its writer's
first line carries. A value goes on a line only if it reads back the same (``journaled``).
"""

from __future__ import annotations

import math
import os
import time
from pathlib import Path
from typing import Any

from alp_nb.base.jsonline import line_encoder
from alp_nb.base.untrusted_json import MAX_INT_DIGITS, loads_untrusted

from ..store_files import inaccessible, open_store_file, store_file, write_all
from .outcomes import SpendReason
from .seal import DIGITS, seal
from .v4 import VERSION

COPIED_VERSION = 3
"""The version of a fork's copied lines: a copied call has no ask line to refer to, so each says all about it."""

_INT_BOUND = 10**MAX_INT_DIGITS
_encode = line_encoder(allow_nan=False, compact=True)


def ask_line(key: str, label: str, phase: str | None, prompt: str, schema: Any, answer: int) -> dict[str, Any]:
    """The ask line said before the runner is asked for answer ``answer`` of call ``key``."""
    record: dict[str, Any] = {"kind": "ask", "key": key, "label": label}
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
    return {"kind": "agent", "ask": ask, "value": value, "tokens": tokens}


def spend_line(ask: int, tokens: int, reason: SpendReason, detail: dict[str, Any]) -> dict[str, Any]:
    """An answer to the ask at seq ``ask`` paid for and not kept; ``detail`` says why (``error``, ``issues``)."""
    return {"kind": "spend", "ask": ask, "tokens": tokens, "reason": reason, **detail}


def journaled(value: Any) -> Any:
    """``value`` exactly as its journal line reads back (int keys become strings, tuples lists), so a fresh call
    returns what a resume would. Raises UntrustedJson (too deep, an integer too long), TypeError, ValueError or
    RecursionError if the journal cannot hold it: whatever is written must read back."""
    kind = type(value)
    if (kind is str or kind is bool or value is None or (kind is int and -_INT_BOUND < value < _INT_BOUND)
            or (kind is float and math.isfinite(value))):
        return value
    return loads_untrusted(_encode(value))


def copied_lines(records: list[dict[str, Any]], first_seq: int = 1) -> tuple[bytes, int]:
    """``records`` (calls, each with all it says) as ``v`` 3 journal lines numbered from ``first_seq`` (a fork's
    copied lines, written as one file), and the next seq."""
    lines = [seal(_encode({"v": COPIED_VERSION, "seq": seq, **record}), DIGITS[COPIED_VERSION])
             for seq, record in enumerate(records, first_seq)]
    return b"".join(lines), first_seq + len(records)


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
            line = {"v": VERSION, "seq": seq, **record, "at": 0.0, "epoch": now}
        else:
            line = {"v": VERSION, "seq": seq, **record, "at": round(now - self._epoch, 6)}
        data = seal(_encode(line), DIGITS[VERSION])
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
