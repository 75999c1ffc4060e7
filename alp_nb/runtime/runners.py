"""Agent runners: what actually answers an ``agent()`` call.

A runner has ``run(prompt, schema, label) -> RunnerOutput``, sync or async.
Async runners are awaited; sync ones run in a worker thread so they cannot
stall the event loop, unless they declare ``blocking = False`` (as the mock
does): then they are called inline, with no thread hop.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import inspect
import math
import random
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True, slots=True)
class RunnerOutput:
    """One runner answer: the value (parsed JSON when a schema was given) and the tokens it cost."""

    value: Any
    tokens: int = 0


@runtime_checkable
class AgentRunner(Protocol):
    """``run`` may be a plain or an ``async`` method; set ``blocking = False`` on a sync runner that never blocks."""

    def run(self, prompt: str, schema: Mapping[str, Any] | None, label: str) -> Any: ...


def invoker(runner: Any) -> Callable[[str, Any, str], Any]:
    """How to call this runner. A call gives the output or an awaitable of it: an async runner's coroutine, what
    a runner that says it never blocks returned (called inline), or a future settled from a worker thread."""
    run = runner.run
    if inspect.iscoroutinefunction(run) or getattr(runner, "blocking", True) is False:
        return run
    return partial(in_daemon_thread, run)


def in_daemon_thread(fn: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
    """A future of ``fn(*args)``, run in a daemon thread of its own. ``asyncio.to_thread`` uses a pool that
    ``asyncio.run`` and the interpreter wait for at exit, so Ctrl-C during a blocking call would wait for the call
    to return; here a cancelled call is abandoned (its answer dropped, never journaled) and the process ends at
    once. The future itself is returned, so a caller cancelled just after it settled can still read it."""
    loop = asyncio.get_running_loop()
    future = loop.create_future()
    context = contextvars.copy_context()

    def settle(value: Any, error: BaseException | None) -> None:
        if future.done():  # cancelled while the call ran
            return
        if error is None:
            future.set_result(value)
        else:
            future.set_exception(error)

    def call() -> None:
        try:
            value, error = context.run(fn, *args), None
        except BaseException as raised:  # handed to the awaiting task, which raises it
            value, error = None, raised
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits for this answer any more
            loop.call_soon_threadsafe(settle, value, error)

    threading.Thread(target=call, name="alp-nb runner call", daemon=True).start()
    return future


Response = Any | Callable[[str, Mapping[str, Any] | None, str], Any]


class MockAgentRunner:
    """A deterministic in-process runner: the same call always gets the same answer.

    With a schema it builds a value that satisfies it (``const``, ``enum``,
    ``required``, nested objects and arrays, numeric and length bounds); with
    none it answers a short text. ``responses`` maps labels to fixed values or
    to ``f(prompt, schema, label)``. ``calls`` lists the labels it was asked.
    """

    blocking = False

    def __init__(self, responses: Mapping[str, Response] | None = None, tokens: int | None = None) -> None:
        self.responses = dict(responses or {})
        self.tokens = tokens
        self.calls: list[str] = []

    def run(self, prompt: str, schema: Mapping[str, Any] | None = None, label: str = "") -> RunnerOutput:
        self.calls.append(label)
        tokens = self.tokens if self.tokens is not None else 8 + len(prompt) // 4
        if label in self.responses:
            response = self.responses[label]
            return RunnerOutput(response(prompt, schema, label) if callable(response) else response, tokens)
        if schema is None:
            return RunnerOutput(f"mock answer to {label}", tokens)
        seed = int.from_bytes(hashlib.sha256(f"{label}\n{prompt}".encode()).digest()[:8], "big")
        return RunnerOutput(mock_value(schema, random.Random(seed)), tokens)


def mock_value(schema: Any, rng: random.Random, name: str = "value") -> Any:
    """A value satisfying the common JSON Schema keywords, drawn from ``rng``; local ``$ref``s (how
    pydantic writes nested models) are followed and ``allOf`` members merged."""
    return _MockValues(schema, rng).build(schema, name, 0)


def _kind(schema: Mapping[str, Any]) -> Any:
    """The JSON type a schema's value has: its ``type`` (the first but null of a list), else told by its keywords."""
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((item for item in kind if item != "null"), "null")
    if kind is None:
        kind = "object" if "properties" in schema else "array" if "items" in schema else "string"
    return kind


class _MockValues:
    """Builds mock values for one root schema (the document its ``#/...`` references point into)."""

    MAX_DEPTH = 32  # a recursive model stops here with null rather than recursing forever

    def __init__(self, root: Any, rng: random.Random) -> None:
        self.root = root
        self.rng = rng

    def build(self, schema: Any, name: str, depth: int) -> Any:
        schema = self._resolve(schema)
        if not isinstance(schema, Mapping) or depth > self.MAX_DEPTH:
            return None
        if "const" in schema:
            return schema["const"]
        if schema.get("enum"):
            return self.rng.choice(list(schema["enum"]))
        if schema.get("allOf"):
            return self.build(self._merge(schema), name, depth + 1)
        for combinator in ("anyOf", "oneOf"):
            if schema.get(combinator):
                return self.build(schema[combinator][0], name, depth + 1)
        kind = _kind(schema)
        if kind == "object":
            return self._object(schema, depth)
        if kind == "array":
            return self._array(schema, name, depth)
        return _SCALARS.get(kind, _string)(schema, self.rng, name)

    def _resolve(self, schema: Any) -> Any:
        """Follow local references (``#/$defs/Finding``); any other reference reads as no constraint."""
        seen = 0
        while isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str) and seen <= self.MAX_DEPTH:
            target: Any = self.root
            reference = schema["$ref"]
            parts = reference[2:].split("/") if reference.startswith("#/") else None
            for part in parts or ():
                part = part.replace("~1", "/").replace("~0", "~")
                target = target.get(part) if isinstance(target, Mapping) else None
            extra = {key: value for key, value in schema.items() if key != "$ref"}
            schema = {**target, **extra} if isinstance(target, Mapping) and parts is not None else extra
            seen += 1
        return schema

    def _merge(self, schema: Mapping[str, Any]) -> dict[str, Any]:
        """One schema from ``allOf``: properties and required united, other keywords from the first that has them."""
        merged: dict[str, Any] = {key: value for key, value in schema.items() if key != "allOf"}
        for member in (self._resolve(member) for member in schema["allOf"]):
            if not isinstance(member, Mapping):
                continue
            for key, value in member.items():
                if key == "properties":
                    merged["properties"] = {**merged.get("properties", {}), **value}
                elif key == "required":
                    merged["required"] = [*merged.get("required", ()), *value]
                else:
                    merged.setdefault(key, value)
        return merged

    def _object(self, schema: Mapping[str, Any], depth: int) -> dict[str, Any]:
        properties = schema.get("properties") or {}
        value = {key: self.build(sub, key, depth + 1) for key, sub in properties.items()}
        for key in schema.get("required") or ():
            value.setdefault(key, f"{key}-{self.rng.randrange(1000)}")
        return value

    def _array(self, schema: Mapping[str, Any], name: str, depth: int) -> list[Any]:
        low = schema.get("minItems", 0)
        count = max(low, min(schema.get("maxItems", 2), 1 + self.rng.randrange(2)))
        singular = name.removesuffix("s")
        return [self.build(schema.get("items", {}), singular, depth + 1) for _ in range(count)]


def _string(schema: Mapping[str, Any], rng: random.Random, name: str) -> str:
    text = f"{name}-{rng.randrange(10_000)}"
    text = text.ljust(schema.get("minLength", 0), "x")
    return text[: schema["maxLength"]] if "maxLength" in schema else text


def _integer(schema: Mapping[str, Any], rng: random.Random, name: str) -> int:
    low, high = _range(schema)
    return rng.randint(math.ceil(low), math.floor(high))


def _number(schema: Mapping[str, Any], rng: random.Random, name: str) -> float:
    low, high = _range(schema)
    return min(max(round(rng.uniform(low, high), 3), low), high)


def _range(schema: Mapping[str, Any]) -> tuple[float, float]:
    """``minimum``..``maximum``; an end not given lies 100 from the other, and a range with neither starts at 0
    (below 0 only when the maximum is)."""
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is None:
        low = 0 if high is None or high >= 0 else high - 100
    if high is None:
        high = low + 100
    return low, high


_SCALARS: dict[str, Callable[[Mapping[str, Any], random.Random, str], Any]] = {
    "string": _string,
    "integer": _integer,
    "number": _number,
    "boolean": lambda schema, rng, name: rng.random() < 0.5,
    "null": lambda schema, rng, name: None,
}
