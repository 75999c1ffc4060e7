"""The registry a session in a project actually gets: built-ins plus what the principal trusted.

Only ``trusted`` custom agents and overlays enter; each custom id is appended
to ``main``'s delegates (so trusting an agent changes what ``main`` may do).
Everything left out is reported as a notice, in ALP's words.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from types import MappingProxyType

from alp_nb.base.frozen_model import FrozenMapping, FrozenModel

from .builtins import BUILTIN_AGENTS
from .catalog import CapabilityCatalog
from .definition import AgentDefinition
from .project_agents import ProjectAgents, load_project_agents
from .registry import AgentRegistry, create_agent_registry
from .trust import TrustStatus, TrustStore


class ProjectRegistry(FrozenModel, arbitrary_types_allowed=True):
    """The registry a session gets, what was left out and why, and what the project holds.

    ``statuses`` is the trust of each custom agent and overlay that loaded, by id, so a picture can tell an
    untrusted agent from a changed one; it is empty for a candidate registry, which asks no trust store.
    """

    registry: AgentRegistry
    notices: tuple[str, ...]
    agents: ProjectAgents
    statuses: FrozenMapping[TrustStatus] = MappingProxyType({})


def project_registry(
    project_root: str | Path,
    trust_store: TrustStore | None = None,
    *,
    candidates: bool = False,
    builtins: Iterable[AgentDefinition] = BUILTIN_AGENTS,
    catalog: CapabilityCatalog | None = None,
    shipped_skills_root: str | Path | None = None,
) -> ProjectRegistry:
    """Built-ins with trusted overlays and custom agents; ``candidates=True`` admits every loaded one.

    A candidate registry is what ``alp-nb agent test`` checks before anything is trusted.
    """
    builtins = tuple(builtins)
    agents = load_project_agents(
        project_root, builtins=builtins, catalog=catalog, shipped_skills_root=shipped_skills_root
    )
    store = trust_store or TrustStore()
    statuses: dict[str, TrustStatus] = {}
    notices = [
        f"AGENT-FILE {failure.id} did not load ({_relative(failure.source_path, agents.project)}): "
        + "; ".join(failure.issues)
        for failure in agents.failed
    ]

    def admitted(definition: AgentDefinition, source: str) -> bool:
        if candidates:
            return True
        status = statuses[definition.id] = store.resolve(agents.project, definition)
        where = _relative(source, agents.project)
        if status == "changed":
            notices.append(f"DENIED     {definition.id} changed after it was trusted ({where}); "
                           f"run `alp-nb agent add {definition.id}` after reading the diff")
        elif status == "untrusted":
            notices.append(f"UNTRUSTED  {definition.id} is not approved ({where}); "
                           f"run `alp-nb agent add {definition.id}` to approve it")
        return status == "trusted"

    overlays = {
        overlay.id: overlay.definition
        for overlay in agents.overlays if admitted(overlay.definition, overlay.source_path)
    }
    customs = [
        definition for definition in agents.loaded
        if admitted(definition, agents.source_paths[definition.id])
    ]
    roles = [overlays.get(definition.id, definition) for definition in builtins]
    if customs:
        roles = [
            role.model_copy(update={"delegates_to": (*role.delegates_to, *(c.id for c in customs))})
            if role.id == "main" else role
            for role in roles
        ]
    registry = create_agent_registry([*roles, *customs], catalog)
    return ProjectRegistry(registry=registry, notices=tuple(notices), agents=agents, statuses=statuses)


def _relative(path: str, project: str) -> str:
    return os.path.relpath(path, project)
