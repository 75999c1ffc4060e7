"""A runner backed by the Anthropic Messages API (the optional ``anthropic`` extra, imported only when needed)."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Mapping
from typing import Any

from .errors import WorkflowInputError
from .runners import RunnerOutput, in_daemon_thread

DEFAULT_MODEL = "claude-sonnet-4-5"
JSON_INSTRUCTION = "Reply with only one JSON value (no prose, no code fence) that matches this JSON Schema:\n"
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


class AnthropicAgentRunner:
    """Each call is one ``messages.create``; with a schema the reply text is parsed as JSON (the runtime
    validates it and retries once). ``client`` is any object with ``messages.create`` (sync or async);
    by default an ``anthropic.AsyncAnthropic()`` reading ANTHROPIC_API_KEY."""

    def __init__(self, client: Any = None, *, model: str = DEFAULT_MODEL, max_tokens: int = 4096,
                 system: str | None = None) -> None:
        self._client = client
        self.model = model
        self.max_tokens = max_tokens
        self.system = system

    @property
    def client(self) -> Any:
        if self._client is None:
            try:
                import anthropic
            except ImportError:
                raise WorkflowInputError(
                    "RUNNER_UNAVAILABLE",
                    "AnthropicAgentRunner needs the anthropic package: pip install 'alp_nb[anthropic]'",
                ) from None
            self._client = anthropic.AsyncAnthropic()
        return self._client

    async def run(self, prompt: str, schema: Mapping[str, Any] | None, label: str) -> RunnerOutput:
        content = prompt if schema is None else f"{prompt}\n\n{JSON_INSTRUCTION}{json.dumps(schema)}"
        request: dict[str, Any] = {"model": self.model, "max_tokens": self.max_tokens,
                                   "messages": [{"role": "user", "content": content}]}
        if self.system:
            request["system"] = self.system
        create = self.client.messages.create
        if inspect.iscoroutinefunction(create):
            reply = await create(**request)
        else:  # a sync client (anthropic.Anthropic) blocks: keep it off the event loop
            reply = await in_daemon_thread(lambda: create(**request))
            if inspect.isawaitable(reply):
                reply = await reply
        text = "".join(getattr(block, "text", "") for block in reply.content if getattr(block, "type", "") == "text")
        usage = reply.usage
        tokens = int(getattr(usage, "input_tokens", 0) or 0) + int(getattr(usage, "output_tokens", 0) or 0)
        return RunnerOutput(text if schema is None else _parse_json(text), tokens)


def _parse_json(text: str) -> Any:
    """The JSON in a reply (a surrounding code fence is tolerated); the raw text if it is not JSON."""
    stripped = text.strip()
    fenced = _FENCE.match(stripped)
    try:
        return json.loads(fenced.group(1) if fenced else stripped)
    except ValueError:
        return text
