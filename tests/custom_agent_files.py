"""Writing custom-agent project folders for tests: a valid ``agent.yaml`` with overridable fields,
project skills, and the symlinks and skillrefs that bind them."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from agent_factory import DELETE, merge  # noqa: F401  (DELETE is re-exported for tests)
from ruamel.yaml import YAML


def agent_document(agent_id: str = "migrator", **overrides: Any) -> dict[str, Any]:
    """A valid schemaVersion 1 agent file as data; dict overrides merge deeply, DELETE drops a key.

    The default agent reads the workspace and shared memory, writes only its own
    private memory, holds Read/Glob/Grep, and walks SCOPE → REPORT.
    """
    document: dict[str, Any] = {
        "schemaVersion": 1,
        "id": agent_id,
        "displayName": "Migrator",
        "model": {"claude": "claude-sonnet-5", "codex": "gpt-5.6-terra"},
        "reasoningEffort": {"claude": "medium", "codex": "medium"},
        "instructions": {
            "role": "Migrator, the schema migration planner",
            "purpose": "Plan database migrations and report their risks.",
            "rules": ["Name every table a migration would touch."],
        },
        "capabilities": {
            "tools": ["Read", "Glob", "Grep"],
            "memory": {"read": ["shared", f"private:{agent_id}"], "write": [f"private:{agent_id}"]},
            "workspace": {"readRoots": ["."]},
        },
        "workflow": [
            {"id": "SCOPE", "allowedTools": ["Read", "Glob", "Grep"]},
            {"id": "REPORT", "allowedTools": []},
        ],
        "output": {"kind": "text"},
    }
    return merge(document, overrides)


def agent_yaml(agent_id: str = "migrator", **overrides: Any) -> str:
    """``agent_document`` written out as block-style YAML text."""
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    buffer = io.StringIO()
    yaml.dump(agent_document(agent_id, **overrides), buffer)
    return buffer.getvalue()


def write_agent(
    project: Path, agent_id: str = "migrator", *, text: str | bytes | None = None,
    directory: str | None = None, **overrides: Any,
) -> Path:
    """Write ``<project>/.alp/agents/<directory or id>/agent.yaml`` and return its path."""
    path = project / ".alp" / "agents" / (directory or agent_id) / "agent.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    content = agent_yaml(agent_id, **overrides) if text is None else text
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def write_skill(parent: Path, name: str, *, manifest: bool = True) -> Path:
    """A skill directory ``<parent>/<name>`` with a SKILL.md (unless ``manifest`` is False)."""
    skill = parent / name
    skill.mkdir(parents=True, exist_ok=True)
    if manifest:
        (skill / "SKILL.md").write_text(f"---\nname: {name}\n---\nThe {name} skill.\n", encoding="utf-8")
    return skill


def skills_dir(project: Path, agent_id: str = "migrator") -> Path:
    """``<project>/.alp/agents/<agent_id>/skills``, created."""
    path = project / ".alp" / "agents" / agent_id / "skills"
    path.mkdir(parents=True, exist_ok=True)
    return path


def shared_skill(project: Path, name: str, *, manifest: bool = True) -> Path:
    """A skill in the project's shared ``.alp/skills`` folder (where links may land)."""
    return write_skill(project / ".alp" / "skills", name, manifest=manifest)


def with_skill_tool(*tools: str) -> dict[str, Any]:
    """A capabilities override holding Read/Glob/Grep plus ``Skill`` (and ``tools``)."""
    return {"tools": ["Read", "Glob", "Grep", "Skill", *tools]}


