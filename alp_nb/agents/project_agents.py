"""Loading a project's custom agents and skill overlays from ``<project>/.alp/agents/``.

Each ``<id>/agent.yaml`` becomes an AgentDefinition, or a failure carrying
every issue of that file; one broken file never blocks the others. A folder
named after a built-in role with no ``agent.yaml`` is a skill overlay: its
``skills/`` adds to (and shadows) that role's shipped skills.

The project may be a cloned repository, so each folder is read as hostile: one
linked in from outside the project is refused, and whatever its files throw at
the reader (no permission, a link, a FIFO) fails that folder alone.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from types import MappingProxyType

from alp_nb.base.frozen_model import FrozenMapping, FrozenModel

from .agent_file import AGENT_FILE_NAME, AgentFile, read_agent_file
from .builtins import BUILTIN_AGENTS, CODE_CRAFT_RULES, CODE_NATIVE_HOUSE_RULES
from .catalog import CapabilityCatalog
from .ceiling import enforce_ceiling
from .definition import AgentDefinition, SkillBinding, define_agent
from .errors import AgentError
from .output_contract import text_output
from .paths import is_within
from .project_skills import resolve_project_skills
from .registry import check_definition
from .workflow_definition import WorkflowDefinition

AGENTS_DIRECTORY = Path(".alp") / "agents"
HOUSE_RULE_SETS = {
    "none": (),
    "code-native": CODE_NATIVE_HOUSE_RULES,
    "code-native+craft": CODE_NATIVE_HOUSE_RULES + CODE_CRAFT_RULES,
}


class AgentFileFailure(FrozenModel):
    """A project agent (or overlay) that did not load, with every reason."""

    id: str
    source_path: str
    issues: tuple[str, ...]


class SkillOverlay(FrozenModel):
    """A built-in role with a project's ``skills/`` laid over its shipped skills."""

    id: str
    source_path: str
    definition: AgentDefinition


class ProjectAgents(FrozenModel):
    project: str
    agents_directory: str
    loaded: tuple[AgentDefinition, ...] = ()
    source_paths: FrozenMapping[str] = MappingProxyType({})
    failed: tuple[AgentFileFailure, ...] = ()
    overlays: tuple[SkillOverlay, ...] = ()


def load_project_agents(
    project_root: str | Path,
    *,
    builtins: Iterable[AgentDefinition] = BUILTIN_AGENTS,
    catalog: CapabilityCatalog | None = None,
    shipped_skills_root: str | Path | None = None,
) -> ProjectAgents:
    """Every agent file and overlay under ``<project_root>/.alp/agents``, loaded or failed."""
    project = Path(project_root).resolve()
    if not project.is_dir():
        raise AgentError("UNKNOWN_PROJECT", f"project `{project_root}` is not a directory")
    directory = project / AGENTS_DIRECTORY
    builtin_by_id = {definition.id: definition for definition in builtins}
    shipped = Path(shipped_skills_root) if shipped_skills_root is not None else None
    loaded: list[AgentDefinition] = []
    sources: dict[str, str] = {}
    failed: list[AgentFileFailure] = []
    overlays: list[SkillOverlay] = []
    for agent_dir in _agent_folders(directory):
        try:
            outcome = _load_folder(agent_dir, directory, project, builtin_by_id, catalog, shipped)
        except (OSError, RecursionError, ValueError) as error:  # a refused file is already an issue of its reader
            outcome = AgentFileFailure(id=agent_dir.name, source_path=str(agent_dir),
                                       issues=(_unreadable(error, agent_dir),))
        if isinstance(outcome, AgentFileFailure):
            failed.append(outcome)
        elif isinstance(outcome, SkillOverlay):
            overlays.append(outcome)
        elif outcome is not None:
            loaded.append(outcome)
            sources[outcome.id] = str(agent_dir / AGENT_FILE_NAME)
    return ProjectAgents(
        project=str(project), agents_directory=str(directory), loaded=tuple(loaded),
        source_paths=sources, failed=tuple(failed), overlays=tuple(overlays),
    )


def _agent_folders(directory: Path) -> list[Path]:
    """The folders (or links to folders) in ``.alp/agents``, in name order; none when it is absent."""
    try:
        with os.scandir(directory) as entries:
            return sorted(Path(entry.path) for entry in entries if _is_folder(entry))
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as error:
        raise AgentError("UNREADABLE_AGENTS_DIRECTORY",
                         f"cannot read the agents folder {directory}: {error.strerror or error}") from None


def _is_folder(entry: os.DirEntry[str]) -> bool:
    """A folder, or a link to one; an entry that cannot even be looked at counts, so that it fails by name."""
    try:
        return entry.is_dir()
    except OSError:
        return True


def _load_folder(
    agent_dir: Path,
    directory: Path,
    project: Path,
    builtin_by_id: dict[str, AgentDefinition],
    catalog: CapabilityCatalog | None,
    shipped: Path | None,
) -> AgentDefinition | SkillOverlay | AgentFileFailure | None:
    """One folder of ``.alp/agents``: an agent, an overlay, a failure, or None for a folder that is neither."""
    real = os.path.realpath(agent_dir)
    if not is_within(real, str(directory)):
        return AgentFileFailure(id=agent_dir.name, source_path=str(agent_dir), issues=(
            f"{AGENTS_DIRECTORY / agent_dir.name}: escapes to `{real}`; "
            f"a project agent folder must stay inside `{directory}`",
        ))
    agent_file = agent_dir / AGENT_FILE_NAME
    if _present(agent_file):
        return _load_agent(agent_file, project, builtin_by_id, catalog, shipped)
    if agent_dir.name in builtin_by_id and (agent_dir / "skills").is_dir():
        return _load_overlay(agent_dir, project, builtin_by_id[agent_dir.name], catalog, shipped)
    return None


def _present(path: Path) -> bool:
    """Whether anything at all sits at ``path``: a link or a FIFO named ``agent.yaml`` is an agent file
    to refuse, not a folder to skip. A folder that cannot be looked into raises."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return False
    return True


def _unreadable(error: Exception, agent_dir: Path) -> str:
    """What a hostile folder threw at the reader, as one issue naming the file it came from."""
    if isinstance(error, OSError):
        return f"{_named(error.filename, agent_dir)} cannot be read: {error.strerror or error}"
    return f"{_named(None, agent_dir)} cannot be loaded: {error}"


def _named(path: object, agent_dir: Path) -> str:
    """``path`` relative to the agent's folder (``skills/house``), or the folder itself when no file is known."""
    if not isinstance(path, str | os.PathLike) or os.fspath(path) == str(agent_dir):
        return str(AGENTS_DIRECTORY / agent_dir.name)
    shown = os.fspath(path)
    return os.path.relpath(shown, agent_dir) if is_within(shown, str(agent_dir)) else shown


def _load_agent(
    path: Path,
    project: Path,
    builtin_by_id: dict[str, AgentDefinition],
    catalog: CapabilityCatalog | None,
    shipped: Path | None,
) -> AgentDefinition | AgentFileFailure:
    directory_id = path.parent.name

    def failure(issues: Iterable[str]) -> AgentFileFailure:
        return AgentFileFailure(id=directory_id, source_path=str(path), issues=tuple(issues))

    agent_file, issues = read_agent_file(path)
    if agent_file is None:
        return failure(issues)
    skills_dir = path.parent / "skills"
    bindings, skill_issues = resolve_project_skills(skills_dir, project, shipped)
    main_tools = builtin_by_id["main"].capabilities.tools if "main" in builtin_by_id else ()
    issues = (
        ((f"id: declares id `{agent_file.id}` but lives in directory `{directory_id}`",)
         if agent_file.id != directory_id else ())
        + skill_issues
        + enforce_ceiling(
            agent_file, builtin_ids=tuple(builtin_by_id), main_tools=main_tools,
            project_skills=tuple(binding.name for binding in bindings),
        )
    )
    if issues:
        return failure(issues)
    definition = _definition_from_file(agent_file, bindings, skills_dir)
    try:
        check_definition(definition, catalog)
    except AgentError as error:
        return failure((f"{error.code}: {error.message}",))
    return definition


def _definition_from_file(
    agent_file: AgentFile, bindings: tuple[SkillBinding, ...], skills_dir: Path
) -> AgentDefinition:
    capabilities = agent_file.capabilities
    instructions = agent_file.instructions
    return define_agent({
        "id": agent_file.id,
        "display_name": agent_file.display_name,
        "model": agent_file.model.model_dump(),
        "reasoning_effort": agent_file.reasoning_effort.model_dump(),
        "reports_to": "main",
        "delegates_to": (),
        "capabilities": {
            "tools": capabilities.tools,
            "skills": (*capabilities.skills, *(binding.name for binding in bindings)),
            "skill_bindings": bindings or None,
            "skill_roots": (str(skills_dir.resolve()),) if bindings else None,
            "subagents": capabilities.subagents,
            "mcp_servers": capabilities.mcp_servers,
            "memory": capabilities.memory.model_dump(),
            "workspace": capabilities.workspace.model_dump(),
        },
        "auto_compact_tokens": agent_file.auto_compact_tokens.model_dump() if agent_file.auto_compact_tokens else None,
        "instructions": {
            "role": instructions.role,
            "purpose": instructions.purpose,
            "rules": (*HOUSE_RULE_SETS[instructions.house_rules], *instructions.rules),
        },
        "workflow": WorkflowDefinition.linear(
            f"{agent_file.id}-workflow", [(state.id, state.allowed_tools) for state in agent_file.workflow]
        ),
        "output": text_output(f"{agent_file.id}-result"),
    })


def _load_overlay(
    agent_dir: Path,
    project: Path,
    builtin: AgentDefinition,
    catalog: CapabilityCatalog | None,
    shipped: Path | None,
) -> SkillOverlay | AgentFileFailure:
    skills_dir = agent_dir / "skills"

    def failure(issues: Iterable[str]) -> AgentFileFailure:
        return AgentFileFailure(id=builtin.id, source_path=str(skills_dir), issues=tuple(issues))

    if "Skill" not in builtin.capabilities.tools:
        return failure((f"`{builtin.id}` holds no `Skill` tool; an overlay cannot grant one",))
    bindings, issues = resolve_project_skills(skills_dir, project, shipped)
    if issues:
        return failure(issues)
    capabilities = builtin.capabilities
    names = [binding.name for binding in bindings]
    overlaid = builtin.model_copy(update={"capabilities": capabilities.model_copy(update={
        "skills": (*capabilities.skills, *(name for name in names if name not in capabilities.skills)),
        "skill_bindings": bindings,
        "skill_roots": (str(skills_dir.resolve()),),
    })})
    try:
        check_definition(overlaid, catalog)
    except AgentError as error:
        return failure((f"{error.code}: {error.message}",))
    return SkillOverlay(id=builtin.id, source_path=str(skills_dir), definition=overlaid)
