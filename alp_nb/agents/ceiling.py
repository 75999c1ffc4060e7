"""The ceiling on custom agents: what an ``agent.yaml`` may never grant, all issues at once.

A custom agent comes from a project, not from a reviewed change to ALP, so it
is always a leaf under ``main``, writes only its own private memory, gets no
workspace write, and holds no tool ``main`` lacks (so it can be delegated to).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterator

from .agent_file import AgentFile, FileCapabilities, FileMemory, FileState, FileWorkspace
from .catalog import SKILL_CATALOG
from .memory import MEMORY_SCOPE_GRANT, private_owner
from .runtimes import MODEL_RUNTIMES

KEBAB_CASE = re.compile(r"\A[a-z0-9]+(?:-[a-z0-9]+)*\Z")  # \Z: `$` would let "worker\n" pass
MAX_RULES = 20
MAX_RULE_LENGTH = 240


def enforce_ceiling(
    agent_file: AgentFile,
    *,
    builtin_ids: tuple[str, ...],
    main_tools: tuple[str, ...],
    project_skills: tuple[str, ...] = (),
) -> tuple[str, ...]:
    """Every way ``agent_file`` reaches above the custom-agent ceiling (empty when none)."""
    capabilities = agent_file.capabilities
    return (
        *_identity_issues(agent_file, builtin_ids),
        *_rule_issues(agent_file.instructions.rules),
        *_tool_issues(capabilities, main_tools),
        *_skill_issues(capabilities, project_skills),
        *_untrusted_grant_issues(capabilities),
        *_memory_issues(capabilities.memory, agent_file.id),
        *_workspace_issues(capabilities.workspace),
        *_workflow_issues(agent_file.workflow, capabilities.tools),
    )


def _identity_issues(agent_file: AgentFile, builtin_ids: tuple[str, ...]) -> Iterator[str]:
    """A custom agent needs an id of its own and models ALP knows how to run."""
    agent_id = agent_file.id
    if not KEBAB_CASE.fullmatch(agent_id):
        yield f"id: `{agent_id}` must be kebab-case (lowercase letters and digits joined by single dashes)"
    if agent_id in builtin_ids:
        yield f"id: `{agent_id}` belongs to a built-in role; an `agent.yaml` may not take it over"
    for runtime in ("claude", "codex"):
        model = getattr(agent_file.model, runtime)
        if model not in MODEL_RUNTIMES:
            yield f"model.{runtime}: `{model}` is not a model in MODEL_RUNTIMES"


def _rule_issues(rules: list[str]) -> Iterator[str]:
    """Project rules go into every prompt, so their number and length are capped."""
    if len(rules) > MAX_RULES:
        yield f"instructions.rules: {len(rules)} rules, over the limit of {MAX_RULES}"
    for index, rule in enumerate(rules):
        if len(rule) > MAX_RULE_LENGTH:
            yield f"instructions.rules.{index}: {len(rule)} characters, over the limit of {MAX_RULE_LENGTH}"


def _tool_issues(capabilities: FileCapabilities, main_tools: tuple[str, ...]) -> Iterator[str]:
    """``main`` delegates to the agent, so it can only hand on tools it holds itself, each once."""
    tools = capabilities.tools
    for tool in tools:
        if tool not in main_tools:
            yield f"capabilities.tools: tool `{tool}` is not held by `main`, so it cannot be delegated onward"
    for tool, count in Counter(tools).items():
        if count > 1:
            yield f"capabilities.tools: tool `{tool}` is granted twice"


def _skill_issues(capabilities: FileCapabilities, project_skills: tuple[str, ...]) -> Iterator[str]:
    """A named skill must be a shipped one, not also a project skill, and come with the `Skill` tool (and back)."""
    tools = capabilities.tools
    for skill in capabilities.skills:
        if skill in project_skills:
            yield f"capabilities.skills: skill `{skill}` is granted twice: named here and found in `skills/`"
        elif skill not in SKILL_CATALOG:
            yield (f"capabilities.skills: skill `{skill}` is not in the shipped catalog; "
                   "a project skill belongs in `skills/`, not here")
    has_skills = bool(capabilities.skills or project_skills)
    if "Skill" in tools and not has_skills:
        yield "capabilities.tools: the `Skill` tool is granted but no skill is named or found in `skills/`"
    if has_skills and "Skill" not in tools:
        yield "capabilities.skills: skills are granted but the `Skill` tool to invoke them is not"


def _untrusted_grant_issues(capabilities: FileCapabilities) -> Iterator[str]:
    """Subagents and MCP servers are never open to a custom agent: each one named is refused."""
    for subagent in capabilities.subagents:
        yield f"capabilities.subagents: subagent `{subagent}` is not in the subagent catalog"
    for server in capabilities.mcp_servers:
        yield f"capabilities.mcpServers: mcp server `{server}` is not trusted on this machine"


def _memory_issues(memory: FileMemory, agent_id: str) -> Iterator[str]:
    """Each memory grant, reads before writes, checked against what a custom agent may touch."""
    for operation, scopes in (("read", memory.read), ("write", memory.write)):
        for scope in scopes:
            if issue := _memory_scope_issue(operation, scope, agent_id):
                yield issue


def _memory_scope_issue(operation: str, scope: str, agent_id: str) -> str | None:
    """A custom agent reads any memory but other roles' private ones, and writes only its own private memory."""
    if not MEMORY_SCOPE_GRANT.fullmatch(scope):
        return f"capabilities.memory.{operation}: memory scope `{scope}` is malformed"
    if operation == "read" and private_owner(scope) not in (None, agent_id):
        return f"capabilities.memory.read: `{scope}` is another role's private memory"
    if operation == "write" and scope != f"private:{agent_id}":
        return (f"capabilities.memory.write: `{scope}` is refused; `private:{agent_id}` is the only "
                "writable scope for a custom agent")
    return None


def _workspace_issues(workspace: FileWorkspace) -> Iterator[str]:
    """Reads stay inside the project; writes wait for an approval flow that does not exist yet."""
    for root in workspace.read_roots:
        if os.path.isabs(root) or ".." in re.split(r"[\\/]", root):
            yield f"capabilities.workspace.readRoots: `{root}` must stay inside the project"
    for root in workspace.write_roots:
        yield (f"capabilities.workspace.writeRoots: `{root}` is refused; workspace write is not available "
               "to a custom agent until approval exists")


def _workflow_issues(workflow: list[FileState], tools: list[str]) -> Iterator[str]:
    """States need distinct ids, and a state cannot allow a tool the agent was never granted."""
    for state_id, count in Counter(state.id for state in workflow).items():
        if count > 1:
            yield f"workflow: state `{state_id}` is declared twice"
    for state in workflow:
        for tool in state.allowed_tools:
            if tool not in tools:
                yield f"workflow: state `{state.id}` allows `{tool}`, which the agent does not hold"
