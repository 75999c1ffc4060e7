"""The terminal forms of ``alp-nb agent list|show|test|add``: ALP's layout, line by line.

Lines hold an agent file's text as written (ids, display names, state ids, skills, paths, issues); the
command prints each through ``viz.terminal.print_lines``, which escapes its control characters and line breaks.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from alp_nb.agents.agent_checks import AgentReport
    from alp_nb.agents.definition import AgentDefinition
    from alp_nb.agents.project_agents import AgentFileFailure

NEVER_TRUSTED = "never trusted — run `alp-nb agent add` to approve it"
TRUST_FILE_UNUSABLE = "not trusted: the trust file cannot be read, so nothing is trusted until it is repaired"
EDITED_SINCE_TRUSTED = "edited since it was trusted — denied until `alp-nb agent add` approves it again"


def list_row(status: str, agent_id: str, detail: str) -> str:
    return f"{status.upper():<11}{agent_id:<20}{detail}".rstrip()


def failure_block(failure: AgentFileFailure, project: str) -> list[str]:
    lines = [f"AGENT-FILE {failure.id} — {os.path.relpath(failure.source_path, project)}"]
    return lines + [f"  FAIL  {issue}" for issue in failure.issues]


def _field(label: str, value: str) -> str:
    return f"  {label:<16}{value or '—'}"


def _joined(items: tuple[str, ...]) -> str:
    return ", ".join(items) or "—"


def show_lines(
    definition: AgentDefinition, source: str, trust: str | None, identity_chars: int
) -> list[str]:
    """``alp-nb agent show``: the resolved definition, its trust, workflow and skill roots."""
    capabilities = definition.capabilities
    workspace = capabilities.workspace
    lines = [f"AGENT    {definition.id} — {definition.display_name}", _field("source", source)]
    if trust is not None:
        lines.append(_field("trust", trust))
    lines += [
        _field("reports to", definition.reports_to),
        _field("delegates to", _joined(definition.delegates_to)),
        _field("tools", _joined(capabilities.tools)),
        _field("skills", _joined(capabilities.skills)),
        _field("memory read", _joined(capabilities.memory.read)),
        _field("memory write", _joined(capabilities.memory.write)),
        _field("workspace", f"read {', '.join(workspace.read_roots) or 'none'} · "
                            f"write {', '.join(workspace.write_roots) or 'none'}"),
        _field("workflow", definition.workflow.id),
    ]
    width = max(len(state_id) for state_id in definition.workflow.states)
    for state_id, state in definition.workflow.states.items():
        tools = ", ".join(state.allowed_tools) or "no tools"
        ending = f"  (terminal → output {definition.output.name})" if state.terminal else ""
        lines.append(f"    {state_id:<{width}}  {tools}{ending}")
    lines += ["", "  skill resolve order (first match wins)"]
    roots = [*(capabilities.skill_roots or ()), "the shipped skill catalog"]
    lines += [f"    {index}. {root}" for index, root in enumerate(roots, start=1)]
    if capabilities.skill_bindings:
        lines.append("  project skills")
        lines += [f"    {binding.name:<24}{binding.kind:<10}{binding.path}" for binding in capabilities.skill_bindings]
    lines += ["", f"  identity renders to {identity_chars} chars"]
    return lines


def report_lines(report: AgentReport) -> list[str]:
    """``alp-nb agent test``: one role's checks, PASS/FAIL lines and the RESULT line."""
    lines = [f"AGENT    {report.role} — {report.display_name} · mode {report.mode}", "", "TIER 1   static"]
    lines += [f"  {check.status:<6}{check.id:<28}{check.detail}" for check in report.checks]
    lines.append("")
    failures = report.failures()
    if not failures:
        lines.append(f"RESULT   {len(report.checks)} checks passed")
    else:
        lines.append(f"RESULT   {len(failures)} of {len(report.checks)} checks failed")
        lines += [f"  FAIL  tier {check.tier} {check.id}: {check.detail}" for check in failures]
    return lines


def report_json(report: AgentReport) -> dict:
    return {
        "role": report.role,
        "displayName": report.display_name,
        "mode": report.mode,
        "checks": [check.model_dump() for check in report.checks],
        "disclosure": None,
        "stoppedAt": report.stopped_at,
        "ok": report.ok,
    }
