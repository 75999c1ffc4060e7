"""Building agent definitions for tests: a valid minimal agent as camelCase data, with overrides.

``make_agent("probe")`` is a leaf that reports to the principal, reads the
workspace (``.``) and its own private memory, holds ``Read``, and walks
WORK → DONE with a text output contract. Keyword overrides use ALP's camelCase
names; dict overrides merge deeply, any other value replaces, ``DELETE`` drops
the key.
"""

from __future__ import annotations

import copy
from typing import Any

from alp_nb.agents import AgentDefinition, define_agent

DELETE = object()
"""An override value that removes the key from the data."""


def make_agent(agent_id: str = "probe", **overrides: Any) -> dict[str, Any]:
    """A valid minimal agent definition as camelCase data, with ``overrides`` merged in."""
    data: dict[str, Any] = {
        "id": agent_id,
        "displayName": f"Probe {agent_id}",
        "model": {"claude": "claude-opus-5", "codex": "gpt-5.6-sol"},
        "reasoningEffort": {"claude": "high", "codex": "high"},
        "reportsTo": "principal",
        "delegatesTo": [],
        "capabilities": {
            "tools": ["Read"],
            "skills": [],
            "subagents": [],
            "mcpServers": [],
            "memory": {"read": [f"private:{agent_id}"], "write": [f"private:{agent_id}"]},
            "workspace": {"readRoots": ["."], "writeRoots": []},
        },
        "instructions": {
            "role": "Probe, a test role",
            "purpose": "You exist so that a test can check one rule.",
            "rules": ["Do one thing."],
        },
        "workflow": {
            "id": "probe-flow",
            "initial": "WORK",
            "states": {
                "WORK": {"allowedTools": ["Read"], "transitions": ["DONE"]},
                "DONE": {"allowedTools": [], "transitions": [], "terminal": True},
            },
        },
        "output": {"name": "probe-result", "schema": {"type": "string", "minLength": 1}},
    }
    return merge(data, overrides)


def build_agent(agent_id: str = "probe", **overrides: Any) -> AgentDefinition:
    """``make_agent`` passed through ``define_agent``: a frozen AgentDefinition."""
    return define_agent(make_agent(agent_id, **overrides))


def merge(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of ``base`` with ``overrides`` merged in (dicts recursively, ``DELETE`` drops)."""
    merged = copy.deepcopy(base)
    for key, value in overrides.items():
        if value is DELETE:
            merged.pop(key, None)
        elif isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged
