"""Views of roles, registries and policy answers, as HTML (with a role's state machine and a registry's
delegation graph drawn as SVG) and as plain text."""

from __future__ import annotations

from typing import TYPE_CHECKING

from alp_nb.viz.html import STYLE, badge, block, esc, names, table
from alp_nb.viz.pictures.delegation import delegation_graph
from alp_nb.viz.pictures.picture import picture_html
from alp_nb.viz.views.workflows import machine_html, workflow_text

if TYPE_CHECKING:
    from alp_nb.agents.definition import AgentDefinition
    from alp_nb.agents.policy_requests import Authorization
    from alp_nb.agents.registry import AgentRegistry


def _authority(definition: AgentDefinition) -> list[tuple[str, tuple[str, ...]]]:
    capabilities = definition.capabilities
    return [
        ("Reports to", (definition.reports_to,)),
        ("Delegates to", definition.delegates_to),
        ("Tools", capabilities.tools),
        ("Skills", capabilities.skills),
        ("Subagents", capabilities.subagents),
        ("MCP servers", capabilities.mcp_servers),
        ("Memory read", capabilities.memory.read),
        ("Memory write", capabilities.memory.write),
        ("Workspace read", capabilities.workspace.read_roots),
        ("Workspace write", capabilities.workspace.write_roots),
    ]


def agent_card_html(definition: AgentDefinition) -> str:
    from alp_nb.agents.hashing import definition_hash, short_hash

    rows = "".join(f"<tr><th>{esc(label)}</th><td>{names(values)}</td></tr>"
                   for label, values in _authority(definition))
    instructions = definition.instructions
    return block(
        f"<div><b>{esc(definition.display_name)}</b> <code>{esc(definition.id)}</code> "
        f'<span class="muted">hash {esc(short_hash(definition_hash(definition)))}</span></div>'
        f"<div>{esc(instructions.role)}. {esc(instructions.purpose)}</div>"
        f'<div class="muted">model claude <code>{esc(definition.model.claude)}</code> · codex '
        f"<code>{esc(definition.model.codex)}</code> · output <code>{esc(definition.output.name)}</code></div>"
        f"<table>{rows}</table>{machine_html(definition)}"
    )


def agent_card_text(definition: AgentDefinition) -> str:
    from alp_nb.agents.hashing import definition_hash, short_hash

    lines = [
        f"{definition.display_name} — `{definition.id}`  (hash {short_hash(definition_hash(definition))})",
        f"  {definition.instructions.role}. {definition.instructions.purpose}",
    ]
    lines += [f"  {label.lower():<16}{', '.join(values) or '—'}" for label, values in _authority(definition)]
    lines.append(f"  {'output':<16}{definition.output.name}")
    lines += ["  " + line for line in workflow_text(definition.workflow).splitlines()]
    return "\n".join(lines)


def _delegation_summary(registry: AgentRegistry) -> str:
    top = [definition.id for definition in registry if definition.reports_to == "principal"]
    delegators = [definition for definition in registry if definition.delegates_to]
    writers = [definition.id for definition in registry if definition.capabilities.workspace.write_roots]
    parts = [f"{len(registry)} roles", f"principal → {', '.join(top) or 'nobody'}"]
    parts += [f"{definition.id} → {len(definition.delegates_to)} delegates" for definition in delegators]
    parts.append(f"workspace writers: {', '.join(writers) or 'none'}")
    return " · ".join(parts)


def _registry_rows(registry: AgentRegistry) -> list[tuple[str, ...]]:
    return [
        (
            definition.id,
            definition.display_name,
            definition.reports_to,
            ", ".join(definition.delegates_to) or "—",
            ", ".join(definition.capabilities.tools) or "—",
            ", ".join(definition.capabilities.memory.write) or "—",
            ", ".join(definition.capabilities.workspace.write_roots) or "—",
            definition.workflow.id,
        )
        for definition in registry
    ]


REGISTRY_COLUMNS = (
    "role", "name", "reports to", "delegates to", "tools", "memory write", "workspace write", "workflow",
)


def agent_registry_html(registry: AgentRegistry) -> str:
    rows = [[esc(cell) for cell in row] for row in _registry_rows(registry)]
    graph = picture_html(delegation_graph(registry))  # outside the text's reading width: eight roles side by side
    return (f'{STYLE}<div class="alp">{esc(_delegation_summary(registry))}</div>{graph}'
            f'<div class="alp">{table(REGISTRY_COLUMNS, rows)}</div>')


def agent_registry_text(registry: AgentRegistry) -> str:
    headers = ("role", "name", "reports to", "delegates", "tools", "workspace write", "workflow")
    rows = [headers] + [
        (
            definition.id,
            definition.display_name,
            definition.reports_to,
            str(len(definition.delegates_to)) if definition.delegates_to else "—",
            str(len(definition.capabilities.tools)),
            ", ".join(definition.capabilities.workspace.write_roots) or "—",
            definition.workflow.id,
        )
        for definition in registry
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(len(headers))]
    lines = [_delegation_summary(registry)]
    lines += ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows]
    return "\n".join(lines)


def authorization_html(authorization: Authorization) -> str:
    if authorization.allowed:
        return block(badge("allowed", "ok"))
    return block(f"{badge('denied', 'bad')} <code>{esc(authorization.code)}</code> {esc(authorization.reason)}")


def authorization_text(authorization: Authorization) -> str:
    return "ALLOWED" if authorization.allowed else f"DENIED  {authorization.code}: {authorization.reason}"
