"""The ceiling on custom agents: what an ``agent.yaml`` may never grant, all issues at once.

A custom agent comes from a project, not from a reviewed change to ALP, so it
is always a leaf under ``main``, writes only its own private memory, gets no
workspace write, and holds no tool ``main`` lacks (so it can be delegated to).
"""

from __future__ import annotations

import os
import re
from collections import Counter

from .agent_file import AgentFile
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
    issues: list[str] = []
    add = issues.append
    agent_id = agent_file.id
    if not KEBAB_CASE.fullmatch(agent_id):
        add(f"id: `{agent_id}` must be kebab-case (lowercase letters and digits joined by single dashes)")
    if agent_id in builtin_ids:
        add(f"id: `{agent_id}` belongs to a built-in role; an `agent.yaml` may not take it over")
    for runtime in ("claude", "codex"):
        model = getattr(agent_file.model, runtime)
        if model not in MODEL_RUNTIMES:
            add(f"model.{runtime}: `{model}` is not a model in MODEL_RUNTIMES")
    rules = agent_file.instructions.rules
    if len(rules) > MAX_RULES:
        add(f"instructions.rules: {len(rules)} rules, over the limit of {MAX_RULES}")
    for index, rule in enumerate(rules):
        if len(rule) > MAX_RULE_LENGTH:
            add(f"instructions.rules.{index}: {len(rule)} characters, over the limit of {MAX_RULE_LENGTH}")

    capabilities = agent_file.capabilities
    tools = capabilities.tools
    for tool in tools:
        if tool not in main_tools:
            add(f"capabilities.tools: tool `{tool}` is not held by `main`, so it cannot be delegated onward")
    for tool, count in Counter(tools).items():
        if count > 1:
            add(f"capabilities.tools: tool `{tool}` is granted twice")
    for skill in capabilities.skills:
        if skill in project_skills:
            add(f"capabilities.skills: skill `{skill}` is granted twice: named here and found in `skills/`")
        elif skill not in SKILL_CATALOG:
            add(f"capabilities.skills: skill `{skill}` is not in the shipped catalog; "
                "a project skill belongs in `skills/`, not here")
    has_skills = bool(capabilities.skills or project_skills)
    if "Skill" in tools and not has_skills:
        add("capabilities.tools: the `Skill` tool is granted but no skill is named or found in `skills/`")
    if has_skills and "Skill" not in tools:
        add("capabilities.skills: skills are granted but the `Skill` tool to invoke them is not")
    for subagent in capabilities.subagents:
        add(f"capabilities.subagents: subagent `{subagent}` is not in the subagent catalog")
    for server in capabilities.mcp_servers:
        add(f"capabilities.mcpServers: mcp server `{server}` is not trusted on this machine")

    memory = capabilities.memory
    for operation, scopes in (("read", memory.read), ("write", memory.write)):
        for scope in scopes:
            if not MEMORY_SCOPE_GRANT.fullmatch(scope):
                add(f"capabilities.memory.{operation}: memory scope `{scope}` is malformed")
            elif operation == "read" and private_owner(scope) not in (None, agent_id):
                add(f"capabilities.memory.read: `{scope}` is another role's private memory")
            elif operation == "write" and scope != f"private:{agent_id}":
                add(f"capabilities.memory.write: `{scope}` is refused; `private:{agent_id}` is the only "
                    "writable scope for a custom agent")

    workspace = capabilities.workspace
    for root in workspace.read_roots:
        if os.path.isabs(root) or ".." in re.split(r"[\\/]", root):
            add(f"capabilities.workspace.readRoots: `{root}` must stay inside the project")
    for root in workspace.write_roots:
        add(f"capabilities.workspace.writeRoots: `{root}` is refused; workspace write is not available "
            "to a custom agent until approval exists")

    for state_id, count in Counter(state.id for state in agent_file.workflow).items():
        if count > 1:
            add(f"workflow: state `{state_id}` is declared twice")
    for state in agent_file.workflow:
        for tool in state.allowed_tools:
            if tool not in tools:
                add(f"workflow: state `{state.id}` allows `{tool}`, which the agent does not hold")
    return tuple(issues)
