"""``alp-nb agent test --tier 1``: fourteen static checks of one role, no model called.

Each check passes with a one-line detail of what it saw, or fails with the
first problem it found. The checks reuse the registry's own rules (grouped
by the grant they concern) and add what the registry does not check:
kebab-case ids, models known to MODEL_RUNTIMES on the right runtime, the
workflow's structure, skill assets on disk, and the output contract.
"""

from __future__ import annotations

import os
from typing import Literal

from alp_nb.base.frozen_model import FrozenModel

from .catalog import RUNTIME_IDS
from .ceiling import KEBAB_CASE
from .definition import AgentDefinition
from .identity import render_instructions
from .modes import DEFAULT_MODE, parse_mode
from .project_skills import SKILL_MANIFEST
from .registry import PRINCIPAL, AgentRegistry, definition_problems
from .runtimes import MODEL_CONTEXT_WINDOWS, MODEL_RUNTIMES, default_auto_compact_tokens

TIER1_CHECK_IDS: tuple[str, ...] = (
    "identity", "model-runtime", "auto-compact", "tool-grant", "skill-grant", "skill-assets",
    "subagent-grant", "mcp-grant", "memory-grant", "workspace-grant", "workflow", "relations",
    "instructions", "output-contract",
)
PROSE_SAMPLE = "The change is in place and its check passes."


class CheckResult(FrozenModel):
    tier: int
    id: str
    status: Literal["PASS", "FAIL"]
    detail: str


class AgentReport(FrozenModel):
    role: str
    display_name: str
    mode: str
    checks: tuple[CheckResult, ...]
    stopped_at: int | None = None

    @property
    def ok(self) -> bool:
        return all(check.status == "PASS" for check in self.checks)

    def failures(self) -> tuple[CheckResult, ...]:
        return tuple(check for check in self.checks if check.status == "FAIL")


def tier1_report(definition: AgentDefinition, registry: AgentRegistry, mode: str = DEFAULT_MODE) -> AgentReport:
    """Run the fourteen static checks of ``definition`` against ``registry``."""
    mode = parse_mode(mode)
    problems: dict[str, list[str]] = {}
    for group, problem in definition_problems(definition, registry.catalog):
        problems.setdefault(group, []).append(problem.message)
    workflow = definition.workflow
    skill_assets, skill_assets_detail = _skill_assets(definition)
    relations, relations_detail = _relations(definition, registry)
    outcomes = (  # (check id, problems found, detail when there are none) in TIER1_CHECK_IDS order
        ("identity", problems.get("identity", []) + _kebab(definition),
         f"`{definition.id}` is kebab-case, displayed as `{definition.display_name}`"),
        ("model-runtime", problems.get("model", []) + _model_runtime(definition),
         ", ".join(f"{runtime}={getattr(definition.model, runtime)}" for runtime in RUNTIME_IDS)),
        ("auto-compact", problems.get("auto-compact", []), _auto_compact_detail(definition)),
        ("tool-grant", problems.get("tools", []), _names(definition.capabilities.tools)),
        ("skill-grant", problems.get("skills", []), _skills_detail(definition)),
        ("skill-assets", skill_assets, skill_assets_detail),
        ("subagent-grant", problems.get("subagents", []), _names(definition.capabilities.subagents)),
        ("mcp-grant", problems.get("mcp", []), _names(definition.capabilities.mcp_servers)),
        ("memory-grant", problems.get("memory", []), _memory_detail(definition)),
        ("workspace-grant", problems.get("workspace", []), _workspace_detail(definition)),
        ("workflow", problems.get("workflow", []) + workflow.problems(definition.capabilities.tools),
         f"{workflow.id}: {' → '.join(workflow.chain())}"),
        ("relations", relations, relations_detail),
        ("instructions", problems.get("instructions", []), _instructions_detail(definition)),
        ("output-contract", problems.get("output", []) + _output_problems(definition),
         f"`{definition.output.name}` accepts prose and rejects empty output"),
    )
    results = [
        CheckResult(tier=1, id=check_id, status="FAIL" if found else "PASS", detail=found[0] if found else detail)
        for check_id, found, detail in outcomes
    ]
    failed = any(result.status == "FAIL" for result in results)
    return AgentReport(
        role=definition.id, display_name=definition.display_name, mode=mode,
        checks=tuple(results), stopped_at=1 if failed else None,
    )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _names(names: tuple[str, ...]) -> str:
    return ", ".join(names) or "none"


def _kebab(definition: AgentDefinition) -> list[str]:
    return [] if KEBAB_CASE.fullmatch(definition.id) else [f"`{definition.id}` is not kebab-case"]


def _model_runtime(definition: AgentDefinition) -> list[str]:
    found = []
    for runtime in RUNTIME_IDS:
        model = getattr(definition.model, runtime)
        if model not in MODEL_RUNTIMES:
            found.append(f"{runtime} model `{model}` is not in MODEL_RUNTIMES")
        elif MODEL_RUNTIMES[model] != runtime:
            found.append(f"{runtime} model `{model}` runs on {MODEL_RUNTIMES[model]}, not {runtime}")
    return found


def _auto_compact_detail(definition: AgentDefinition) -> str:
    parts = []
    for runtime in RUNTIME_IDS:
        model = getattr(definition.model, runtime)
        declared = getattr(definition.auto_compact_tokens, runtime) if definition.auto_compact_tokens else None
        window = MODEL_CONTEXT_WINDOWS.get(model)
        if declared is not None:
            parts.append(f"{runtime}: {int(declared):,} declared")
        elif window is None:
            parts.append(f"{runtime}: undeclared → the runtime decides (unknown model `{model}`)")
        else:
            parts.append(f"{runtime}: undeclared → 90% of {window:,} = {default_auto_compact_tokens(model):,}")
    return "; ".join(parts)


def _skills_detail(definition: AgentDefinition) -> str:
    bound = len(definition.capabilities.skill_bindings or ())
    suffix = f" ({bound} from the project)" if bound else ""
    return _names(definition.capabilities.skills) + suffix


def _skill_assets(definition: AgentDefinition) -> tuple[list[str], str]:
    capabilities = definition.capabilities
    bindings = capabilities.skill_bindings or ()
    found = [
        f"project skill `{binding.name}` has no {SKILL_MANIFEST} at `{binding.path}`"
        for binding in bindings
        if not os.path.isfile(os.path.join(binding.path, SKILL_MANIFEST))
    ]
    if not capabilities.skills:
        return found, "no skill named"
    return found, f"{_count(len(capabilities.skills), 'skill')} resolved ({len(bindings)} from the project)"


def _memory_detail(definition: AgentDefinition) -> str:
    memory = definition.capabilities.memory
    return f"read {_names(memory.read)} · write {_names(memory.write)}"


def _workspace_detail(definition: AgentDefinition) -> str:
    workspace = definition.capabilities.workspace
    if not workspace.read_roots and not workspace.write_roots:
        return "none (memory-only)"
    return f"read {_names(workspace.read_roots)} · write {_names(workspace.write_roots)}"


def _relations(definition: AgentDefinition, registry: AgentRegistry) -> tuple[list[str], str]:
    found = []
    if definition.reports_to != PRINCIPAL and not registry.has(definition.reports_to):
        found.append(f"reports to unknown `{definition.reports_to}`")
    found += [f"delegates to unknown `{target}`" for target in definition.delegates_to if not registry.has(target)]
    delegates = ", ".join(definition.delegates_to) or "nobody"
    return found, f"reports to {definition.reports_to} · delegates to {delegates}"


def _instructions_detail(definition: AgentDefinition) -> str:
    rules = definition.instructions.rules
    longest = max((len(rule) for rule in rules), default=0)
    rendered = len(render_instructions(definition.instructions))
    return f"{_count(len(rules), 'rule')}, longest {longest} chars → {rendered} chars rendered"


def _output_problems(definition: AgentDefinition) -> list[str]:
    contract = definition.output
    found = []
    if contract.kind == "text" and not contract.validate(PROSE_SAMPLE).ok:
        found.append(f"`{contract.name}` rejects prose")
    if contract.validate("").ok or contract.validate(None).ok:
        found.append(f"`{contract.name}` accepts empty output")
    return found
