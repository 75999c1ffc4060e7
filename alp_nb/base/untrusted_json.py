"""Reading JSON that someone else wrote: bounded, strict, and every refusal one clear sentence.

Trust files, journals, snapshots, workflow args and contracts are untrusted
data. Python's ``json`` accepts what JSON does not (``NaN``, ``Infinity``),
keeps the last of two repeated keys without a word, and meets deep nesting or a
5,000-digit integer with a ``RecursionError`` or a ``ValueError`` that names
nothing. ``loads_untrusted`` refuses all of these with an ``UntrustedJson``
whose message says what is wrong, for the caller to prefix with the file and line.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from .errors import AlpError

MAX_DEPTH = 100
"""How deeply a document may nest arrays and objects (schemas and agent answers need a few dozen at most)."""

MAX_INT_DIGITS = 100
"""How many digits an integer may have; larger ones are refused before Python converts them."""


class UntrustedJson(AlpError):
    """A document ``loads_untrusted`` refuses; the message is a phrase such as ``repeated key "a"``, for the
    caller to put after the file (and line) it read."""

    codes: ClassVar[tuple[str, ...]] = ("INVALID_JSON",)

    def __init__(self, problem: str) -> None:
        super().__init__("INVALID_JSON", problem)

    def __reduce__(self) -> tuple[type[UntrustedJson], tuple[str]]:  # type: ignore[override]  # the problem alone
        return (type(self), (self.message,))


class MalformedJson(UntrustedJson):
    """Text with a JSON syntax error, as opposed to text refused for its encoding or for what it holds; a reader
    with the reference's own words for broken JSON (the trust file) can tell the two apart."""


def loads_untrusted(text: str | bytes) -> Any:
    """The JSON value in ``text`` (bytes must be UTF-8): no ``NaN`` or ``Infinity``, no key twice in one object,
    at most ``MAX_DEPTH`` levels deep and ``MAX_INT_DIGITS`` digits to an integer."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise UntrustedJson(f"not UTF-8 text (byte {error.start})") from None
    try:
        value = _decode(text)
    except RecursionError:
        raise UntrustedJson(f"nested more than {MAX_DEPTH} levels deep") from None
    except json.JSONDecodeError as error:
        raise MalformedJson(f"not JSON: {error.msg} (line {error.lineno}, column {error.colno})") from None
    if text.count("[") + text.count("{") > MAX_DEPTH and nesting_depth(value) > MAX_DEPTH:  # fewer cannot nest deeper
        raise UntrustedJson(f"nested more than {MAX_DEPTH} levels deep")
    return value


def nesting_depth(value: Any) -> int:
    """How many arrays and objects deep ``value`` goes (a scalar is 0), without recursing."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, depth)
        if depth <= MAX_DEPTH:  # past the bound the answer is known: stop walking
            stack.extend((child, depth + 1) for child in children)
    return deepest


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    document = dict(pairs)
    if len(document) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise UntrustedJson(f"repeated key {json.dumps(key, ensure_ascii=False)}")
            seen.add(key)
    return document


def _no_constant(name: str) -> Any:
    raise UntrustedJson(f"{name} is not a JSON number")


def _bounded_int(digits: str) -> int:
    if len(digits) - digits.startswith("-") > MAX_INT_DIGITS:
        raise UntrustedJson(f"an integer of {len(digits)} digits, over the limit of {MAX_INT_DIGITS}")
    return int(digits)


_decode = json.JSONDecoder(object_pairs_hook=_unique_keys, parse_constant=_no_constant, parse_int=_bounded_int).decode
"""Built once: ``json.loads`` with hooks builds a decoder on every call, which costs more than a short line."""
