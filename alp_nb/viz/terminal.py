"""Text for a terminal: what a command prints must not drive the terminal it is printed on.

Names, ids, paths and messages often come from files someone else wrote (an agent file, a contract, a run
store, an execution). A terminal obeys the control characters in them: an escape sequence can move the
cursor, erase or recolour what was printed above, so an agent file could rewrite the report the principal
reads before trusting it. Every command prints through here, and every control character is shown as
``\\xNN`` instead. So are the invisible characters that change how text reads without showing themselves
(bidirectional overrides, zero-width spaces: "Trojan Source"), as ``\\uNNNN``. A command prints line by
line, so a line break inside one value is escaped too: it cannot forge a line of its own.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any, TextIO

_INVISIBLE = "\u061c\u200b\u200c\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff"
"""Bidirectional marks, embeddings, overrides and isolates, and zero-width characters; the zero-width joiner
(U+200D) is kept, since emoji sequences need it and it hides nothing on its own."""
_CONTROL = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_INVISIBLE}]")
_CONTROL_OR_LINE_BREAK = re.compile(f"[\x00-\x08\x0a-\x1f\x7f-\x9f{_INVISIBLE}]")
_UNESCAPED_BY_JSON = re.compile(f"[\x7f-\x9f{_INVISIBLE}]")


def plain(text: object) -> str:
    """Text safe to print: control characters (terminal escapes included) shown as ``\\xNN``, invisible
    direction or width characters as ``\\uNNNN``; tabs and line breaks are kept, for text whose lines are its
    own (a log line is escaped before it is joined)."""
    return _CONTROL.sub(_hex, str(text))


def plain_line(text: object) -> str:
    """``plain``, with a line break shown as ``\\x0a`` too: the text stays on the one line it was given."""
    return _CONTROL_OR_LINE_BREAK.sub(_hex, str(text))


def print_lines(*lines: object, file: TextIO | None = None) -> None:
    """Print each of ``lines`` on a line of its own, through ``plain_line``; to stdout unless ``file``."""
    print(*(plain_line(line) for line in lines), sep="\n", file=file or sys.stdout)


def redraw_line(line: object, file: TextIO | None = None) -> None:
    """Write ``line`` (through ``plain_line``) over the terminal's current line, left without a line break: a
    progress line drawn again in place. Only the cursor return and erase-line sequences are this module's."""
    stream = file or sys.stdout
    stream.write(f"\r\x1b[K{plain_line(line)}")
    stream.flush()


def print_json(value: Any) -> None:
    """``value`` as indented JSON on stdout. ``json.dumps`` escapes the C0 controls but not DEL, the C1
    range (``\\x9b`` starts an escape sequence in many terminals) or the invisible characters, so those are
    written ``\\uNNNN``: the same JSON, safe to print."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    print(_UNESCAPED_BY_JSON.sub(lambda match: f"\\u{ord(match.group()):04x}", text))


def _hex(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
