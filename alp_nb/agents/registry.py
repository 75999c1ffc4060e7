"""The agent registry: built once, every definition checked, the first failure thrown.

Checks run in ALP's order: per definition (identity, models, efforts,
auto-compact, instructions, workflow and output names, workspace, memory,
tools, skill/subagent/MCP grants, foreign private memory), then relations
over the whole set, then a three-colour depth-first search for delegation
cycles (``delegation_cycle``, which a picture asks too) whose message shows the cycle.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .catalog import DEFAULT_CATALOG, REASONING_EFFORTS, RUNTIME_IDS, TOOL_CATALOG, CapabilityCatalog
from .definition import AgentDefinition, define_agent
from .errors import AgentRegistryError
from .memory import memory_grant_covers, private_owner
from .paths import is_within, resolve_lexically
from .runtimes import AUTO_COMPACT_MAX_TOKENS, AUTO_COMPACT_MIN_TOKENS, MODEL_CONTEXT_WINDOWS

if TYPE_CHECKING:
    import networkx as nx

PRINCIPAL = "principal"
INSTRUCTION_AUDIENCES = ("principal", "machine")


class AgentRegistry:
    """The validated, frozen set of roles that policy consults (attributes cannot be set)."""

    __slots__ = ("_by_id", "_definitions", "catalog")
    _definitions: tuple[AgentDefinition, ...]
    _by_id: Mapping[str, AgentDefinition]
    catalog: CapabilityCatalog

    def __init__(self, definitions: tuple[AgentDefinition, ...], catalog: CapabilityCatalog) -> None:
        object.__setattr__(self, "_definitions", definitions)
        object.__setattr__(self, "_by_id", MappingProxyType({definition.id: definition for definition in definitions}))
        object.__setattr__(self, "catalog", catalog)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"AgentRegistry is frozen: cannot set `{name}`")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"AgentRegistry is frozen: cannot delete `{name}`")

    def __copy__(self) -> AgentRegistry:
        """Frozen, so a copy (shallow or deep) is the registry itself."""
        return self

    def __deepcopy__(self, memo: dict | None = None) -> AgentRegistry:
        return self

    def get(self, agent_id: str) -> AgentDefinition:
        try:
            return self._by_id[agent_id]
        except (KeyError, TypeError):
            raise AgentRegistryError("UNKNOWN_AGENT", f"unknown agent `{agent_id}`") from None

    def has(self, agent_id: str) -> bool:
        return agent_id in self._by_id

    def list(self) -> tuple[AgentDefinition, ...]:
        """Every definition in registry order (the same tuple on every call)."""
        return self._definitions

    def ids(self) -> tuple[str, ...]:
        return tuple(self._by_id)

    def __iter__(self) -> Iterator[AgentDefinition]:
        return iter(self._definitions)

    def __len__(self) -> int:
        return len(self._definitions)

    def __contains__(self, agent_id: object) -> bool:
        return agent_id in self._by_id

    def graph(self) -> nx.DiGraph:
        """Delegation as a DiGraph: an edge u→v when u delegates to v or v reports to u.

        Edge attributes ``delegates`` and ``reports_to`` say which relation holds;
        a node's ``reports_to`` attribute keeps ``principal`` for top-level roles.
        """
        import networkx as nx  # only drawing and graph questions need it

        graph: nx.DiGraph[str] = nx.DiGraph()
        for definition in self._definitions:
            graph.add_node(
                definition.id, display_name=definition.display_name, reports_to=definition.reports_to
            )
        for definition in self._definitions:
            for target in definition.delegates_to:
                graph.add_edge(definition.id, target, delegates=True, reports_to=False)
            if definition.reports_to in self._by_id:
                parent = definition.reports_to
                if graph.has_edge(parent, definition.id):
                    graph.edges[parent, definition.id]["reports_to"] = True
                else:
                    graph.add_edge(parent, definition.id, delegates=False, reports_to=True)
        return graph

    def __repr__(self) -> str:
        return f"AgentRegistry({', '.join(self._by_id)})"


def create_agent_registry(
    definitions: Iterable[AgentDefinition | Mapping[str, Any]],
    catalog: CapabilityCatalog | None = None,
) -> AgentRegistry:
    """Validate ``definitions`` in order and return the registry, or raise the first failure."""
    catalog = catalog or DEFAULT_CATALOG
    frozen: list[AgentDefinition] = []
    seen: set[str] = set()
    for raw in definitions:
        definition = define_agent(raw)
        if definition.id in seen:
            raise AgentRegistryError("DUPLICATE_AGENT", f"duplicate agent `{definition.id}`")
        seen.add(definition.id)
        check_definition(definition, catalog)
        frozen.append(definition)
    _check_relations(frozen)
    _check_cycles(frozen)
    return AgentRegistry(tuple(frozen), catalog)


def _fail(code: str, definition: AgentDefinition, text: str) -> AgentRegistryError:
    return AgentRegistryError(code, f"agent `{definition.id}` {text}")


def _blank(value: object) -> bool:
    return not isinstance(value, str) or not value.strip()


Problems = Iterator[tuple[str, AgentRegistryError]]


def check_definition(definition: AgentDefinition, catalog: CapabilityCatalog | None = None) -> None:
    """The per-definition checks (phase A) alone: raise the first failure."""
    for _group, problem in definition_problems(definition, catalog):
        raise problem


def definition_problems(definition: AgentDefinition, catalog: CapabilityCatalog | None = None) -> Problems:
    """Every phase-A problem in ALP's order, each tagged with the grant group it concerns.

    The registry raises the first; ``alp-nb agent test`` reports them per group.
    """
    catalog = catalog or DEFAULT_CATALOG
    yield from _identity_problems(definition)
    yield from _auto_compact_problems(definition)
    yield from _instruction_problems(definition)
    if _blank(definition.workflow.id):
        yield "workflow", _fail("INVALID_AGENT", definition, "has an empty workflow id")
    if _blank(definition.output.name):
        yield "output", _fail("INVALID_AGENT", definition, "has an empty output contract name")
    yield from _workspace_problems(definition)
    yield from _memory_coverage_problems(definition)
    for tool in definition.capabilities.tools:
        if tool not in TOOL_CATALOG:
            yield "tools", _fail("UNKNOWN_TOOL", definition, f"has unknown tool `{tool}`")
    yield from _capability_grant_problems(definition, catalog)
    yield from _private_memory_problems(definition)


def _identity_problems(definition: AgentDefinition) -> Problems:
    if _blank(definition.id):
        yield "identity", _fail("INVALID_AGENT", definition, "has an empty id")
    if _blank(definition.display_name):
        yield "identity", _fail("INVALID_AGENT", definition, "has an empty displayName")
    if _blank(definition.model.claude):
        yield "model", _fail("INVALID_AGENT", definition, "is missing Claude runtime model")
    if _blank(definition.model.codex):
        yield "model", _fail("INVALID_AGENT", definition, "is missing Codex runtime model")
    for runtime in RUNTIME_IDS:
        if getattr(definition.reasoning_effort, runtime) not in REASONING_EFFORTS:
            yield "model", _fail("INVALID_AGENT", definition, f"has invalid {runtime} reasoning effort")


def _auto_compact_problems(definition: AgentDefinition) -> Problems:
    declared = definition.auto_compact_tokens
    for runtime in RUNTIME_IDS:
        tokens = getattr(declared, runtime) if declared else None
        if tokens is None:
            continue
        prefix = f"has {runtime} auto-compact threshold `{_number(tokens)}`"
        whole = (isinstance(tokens, int) and not isinstance(tokens, bool)) or (
            isinstance(tokens, float) and tokens.is_integer()
        )
        model = getattr(definition.model, runtime)
        window = MODEL_CONTEXT_WINDOWS.get(model)
        if not whole or not AUTO_COMPACT_MIN_TOKENS <= tokens <= AUTO_COMPACT_MAX_TOKENS:
            yield "auto-compact", _fail(
                "INVALID_AUTO_COMPACT_LIMIT", definition,
                f"{prefix}, outside {AUTO_COMPACT_MIN_TOKENS}–{AUTO_COMPACT_MAX_TOKENS} whole tokens",
            )
        elif window is not None and tokens > window:
            yield "auto-compact", _fail(
                "INVALID_AUTO_COMPACT_LIMIT", definition,
                f"{prefix} above the context window of `{model}` ({window} tokens)",
            )


def _number(value: int | float) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _instruction_problems(definition: AgentDefinition) -> Problems:
    spec = definition.instructions
    if _blank(spec.role):
        yield "instructions", _fail("INVALID_AGENT", definition, "has an empty instruction role")
    if _blank(spec.purpose):
        yield "instructions", _fail("INVALID_AGENT", definition, "has an empty instruction purpose")
    if any(_blank(rule) for rule in spec.rules):
        yield "instructions", _fail("INVALID_AGENT", definition, "has an empty instruction rule")
    if spec.audience is not None and spec.audience not in INSTRUCTION_AUDIENCES:
        yield "instructions", _fail(
            "INVALID_AGENT", definition, f"has unknown instruction audience `{spec.audience}`"
        )


def _workspace_problems(definition: AgentDefinition) -> Problems:
    workspace = definition.capabilities.workspace
    cwd = os.getcwd()
    read_roots = [resolve_lexically(root, cwd) for root in workspace.read_roots]
    for write_root in workspace.write_roots:
        resolved = resolve_lexically(write_root, cwd)
        if not any(is_within(resolved, root) for root in read_roots):
            yield "workspace", _fail(
                "INVALID_WORKSPACE_GRANT", definition, f"workspace write root `{write_root}` is not readable"
            )


def _memory_coverage_problems(definition: AgentDefinition) -> Problems:
    memory = definition.capabilities.memory
    for grant in memory.write:
        if not any(memory_grant_covers(read, grant) for read in memory.read):
            yield "memory", _fail(
                "INVALID_MEMORY_GRANT", definition, f"memory write grant `{grant}` is not readable"
            )


def _private_memory_problems(definition: AgentDefinition) -> Problems:
    memory = definition.capabilities.memory
    for grant in (*memory.read, *memory.write):
        owner = private_owner(grant)
        if owner is not None and owner != definition.id:
            yield "memory", _fail(
                "INVALID_MEMORY_GRANT", definition, f"cannot access private memory for `{owner}`"
            )


def _capability_grant_problems(definition: AgentDefinition, catalog: CapabilityCatalog) -> Problems:
    """The skill, subagent and MCP grant checks, in ALP's order."""
    yield from _duplicate_grant_problems(definition)
    yield from _unknown_grant_problems(definition, catalog)
    yield from _subagent_tool_problems(definition, catalog)
    yield from _skill_binding_problems(definition)
    yield from _skill_tool_problems(definition)


def _duplicate_grant_problems(definition: AgentDefinition) -> Problems:
    """A name granted twice is a typo or a merge slip; each repeat is reported, per group."""
    capabilities = definition.capabilities
    for group, label, names in (
        ("skills", "skill", capabilities.skills),
        ("subagents", "subagent", capabilities.subagents),
        ("mcp", "mcp server", capabilities.mcp_servers),
    ):
        seen: set[str] = set()
        for name in names:
            if name in seen:
                yield group, _fail("DUPLICATE_GRANT", definition, f"names {label} `{name}` twice")
            seen.add(name)


def _unknown_grant_problems(definition: AgentDefinition, catalog: CapabilityCatalog) -> Problems:
    """Every grant must name something the catalog knows; a skill may instead be bound by the definition."""
    capabilities = definition.capabilities
    bound = {binding.name for binding in capabilities.skill_bindings or ()}
    for skill in capabilities.skills:
        if skill not in catalog.skills and skill not in bound:
            yield "skills", _fail("UNKNOWN_SKILL", definition, f"has unknown skill `{skill}`")
    for subagent in capabilities.subagents:
        if subagent not in catalog.subagents:
            yield "subagents", _fail("UNKNOWN_SUBAGENT", definition, f"has unknown subagent `{subagent}`")
    for server in capabilities.mcp_servers:
        if server not in catalog.mcp_servers:
            yield "mcp", _fail("UNKNOWN_MCP_SERVER", definition, f"has unknown mcp server `{server}`")


def _subagent_tool_problems(definition: AgentDefinition, catalog: CapabilityCatalog) -> Problems:
    """A subagent runs with the tools its catalog entry lists, so the granting agent must hold each one."""
    capabilities = definition.capabilities
    for subagent in capabilities.subagents:
        entry = catalog.subagents.get(subagent)
        for tool in entry.tools if entry else ():
            if tool not in capabilities.tools:
                yield "subagents", _fail(
                    "UNKNOWN_TOOL", definition, f"grants subagent `{subagent}` the ungranted tool `{tool}`"
                )


def _skill_binding_problems(definition: AgentDefinition) -> Problems:
    """A binding says where a named skill lives: it must bind a skill the agent names, under a skill root."""
    capabilities = definition.capabilities
    bindings = capabilities.skill_bindings or ()
    for binding in bindings:
        if binding.name not in capabilities.skills:
            yield "skills", _fail(
                "INVALID_SKILL_GRANT", definition, f"binds skill `{binding.name}` without naming it"
            )
    if bindings and not capabilities.skill_roots:
        yield "skills", _fail("INVALID_SKILL_GRANT", definition, "binds skills but declares no skill root")


def _skill_tool_problems(definition: AgentDefinition) -> Problems:
    """Skills and the `Skill` tool that invokes them are useless apart, so each needs the other."""
    capabilities = definition.capabilities
    has_skill_tool = "Skill" in capabilities.tools
    if has_skill_tool and not capabilities.skills:
        yield "skills", _fail("INVALID_SKILL_GRANT", definition, "grants the `Skill` tool but names no skill")
    if capabilities.skills and not has_skill_tool:
        yield "skills", _fail(
            "INVALID_SKILL_GRANT", definition, "names skills but has no `Skill` tool to invoke them"
        )


def _check_relations(definitions: list[AgentDefinition]) -> None:
    known = {definition.id for definition in definitions}
    for definition in definitions:
        if definition.reports_to != PRINCIPAL and definition.reports_to not in known:
            raise _fail("UNKNOWN_RELATION", definition, f"has unknown reportsTo `{definition.reports_to}`")
        for target in definition.delegates_to:
            if target == definition.id:
                raise _fail("INVALID_DELEGATION", definition, "cannot delegate to itself")
            if target not in known:
                raise _fail("UNKNOWN_RELATION", definition, f"has unknown delegation target `{target}`")


def _check_cycles(definitions: list[AgentDefinition]) -> None:
    cycle = delegation_cycle(definitions)
    if cycle is not None:
        raise AgentRegistryError("INVALID_DELEGATION", f"delegation cycle: {' -> '.join(cycle)}")


def delegation_cycle(definitions: Iterable[AgentDefinition]) -> tuple[str, ...] | None:
    """The first delegation cycle, as ids with the first repeated at the end (``a, b, a``), or None.

    A three-colour depth-first search from each definition in order, iterative so deep DAGs cannot overflow.
    It never raises: a target no definition has is skipped, and of a repeated id the first definition counts,
    so a picture can show the cycle of a set the registry refuses for another reason.
    """
    delegates: dict[str, tuple[str, ...]] = {}
    for definition in definitions:
        delegates.setdefault(definition.id, definition.delegates_to)
    visiting, visited = set(), set()
    for start in delegates:
        if start in visited:
            continue
        trail = [start]
        visiting.add(start)
        cursors = [iter(delegates[start])]
        while cursors:
            target = next(cursors[-1], None)
            if target is None:
                cursors.pop()
                done = trail.pop()
                visiting.discard(done)
                visited.add(done)
            elif target in visiting:
                return (*trail[trail.index(target):], target)
            elif target not in visited and target in delegates:
                trail.append(target)
                visiting.add(target)
                cursors.append(iter(delegates[target]))
    return None
