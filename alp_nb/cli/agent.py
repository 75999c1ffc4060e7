"""``alp-nb agent``: list, show, test and trust roles.

Ids, display names, state ids, skills and paths come from agent files anyone can write, so every line is
printed through ``viz.terminal`` (control characters escaped, one value on one line); JSON is printed as JSON.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from alp_nb.agents import (
    BUILTIN_AGENTS,
    DEFAULT_MODE,
    MODE_IDS,
    AgentDefinition,
    AgentFileFailure,
    AgentRegistryError,
    ProjectRegistry,
    TrustStore,
    definition_hash,
    diff_authority,
    load_project_agents,
    project_registry,
    render_instructions,
    short_hash,
    tier1_report,
)
from alp_nb.agents.trust import Authority
from alp_nb.viz.terminal import plain_line, print_json, print_lines
from alp_nb.viz.views import agent_reports as views

from .errors import UsageError


def register(group: argparse.ArgumentParser) -> None:
    """Add the ``alp-nb agent ...`` commands to their group's parser."""
    agent = group.add_subparsers(title="agent commands")

    def command(name: str, handler: Callable[[argparse.Namespace], int], help_text: str,
                with_id: bool = True) -> argparse.ArgumentParser:
        sub = agent.add_parser(name, help=help_text)
        if with_id:
            sub.add_argument("id", help="the role id")
        sub.add_argument("--project", default=".", help="project folder (default: the current one)")
        sub.set_defaults(handler=handler)
        return sub

    command("list", _list, "built-in roles and the project's agent files", with_id=False).add_argument(
        "--json", action="store_true")
    command("show", _show, "one role resolved: authority, workflow, skills")
    test = command("test", _test, "static checks (tier 1) of one role or all", with_id=False)
    test.add_argument("id", nargs="?", help="the role id")
    test.add_argument("--all", action="store_true", help="test every role")
    test.add_argument("--tier", type=int, action="append", help="tier to run; only 1 exists here")
    test.add_argument("--mode", default=DEFAULT_MODE, choices=MODE_IDS)
    test.add_argument("--json", action="store_true")
    command("add", _add, "trust a project agent after reading its authority")
    command("untrust", _untrust, "withdraw trust from a project agent")
    graph = command("graph", _graph, "the delegation graph a session in the project gets (untrusted agents greyed)",
                    with_id=False)
    graph.add_argument("--format", choices=("text", "svg", "mermaid"), default="text")
    matrix = command("matrix", _matrix, "roles × tools, with memory and workspace grants", with_id=False)
    matrix.add_argument("--by-state", action="store_true", help="a row per workflow state: the tools open then")
    matrix.add_argument("--format", choices=("text", "svg", "html"), default="text")


def _session(args: argparse.Namespace) -> ProjectRegistry:
    return project_registry(Path(args.project), TrustStore(), candidates=True)


def _list(args: argparse.Namespace) -> int:
    agents = load_project_agents(Path(args.project))
    store = TrustStore()
    project = agents.project
    rows: list[dict[str, Any]] = [
        {"id": definition.id, "status": "built-in", "hash": definition_hash(definition), "sourcePath": None}
        for definition in BUILTIN_AGENTS
    ]
    entries = [(definition, agents.source_paths[definition.id]) for definition in agents.loaded]
    entries += [(overlay.definition, overlay.source_path) for overlay in agents.overlays]
    for definition, source in entries:
        rows.append({"id": definition.id, "status": store.resolve(project, definition),
                     "hash": definition_hash(definition), "sourcePath": source})
    rows += [{"id": failure.id, "status": "unloadable", "issues": list(failure.issues),
              "sourcePath": failure.source_path} for failure in agents.failed]
    project_rows = [row for row in rows if row["status"] != "built-in"]
    if args.json:
        print_json({"project": project, "agents": rows})
    else:
        details = {
            "built-in": lambda row: short_hash(row["hash"]),
            "trusted": lambda row: short_hash(row["hash"]),
            "untrusted": lambda row: views.NEVER_TRUSTED if store.problem() is None else views.TRUST_FILE_UNUSABLE,
            "changed": lambda row: views.EDITED_SINCE_TRUSTED,
            "unloadable": lambda row: "; ".join(row["issues"]),
        }
        print_lines(*(views.list_row(row["status"], row["id"], details[row["status"]](row)) for row in rows))
        if not project_rows:
            print_lines(f"NONE     no agent file under {agents.agents_directory}")
    return 1 if any(row["status"] != "trusted" for row in project_rows) else 0


def _find_failure(session: ProjectRegistry, agent_id: str) -> AgentFileFailure | None:
    return next((failure for failure in session.agents.failed if failure.id == agent_id), None)


def _require_role(session: ProjectRegistry, agent_id: str) -> AgentDefinition:
    if not session.registry.has(agent_id):
        known = ", ".join(session.registry.ids())
        raise AgentRegistryError("UNKNOWN_AGENT", f"unknown agent `{agent_id}`; known: {known}")
    return session.registry.get(agent_id)


def _source(session: ProjectRegistry, agent_id: str) -> tuple[str, str | None]:
    """How ``show`` names where the role comes from, and its project file or folder (None for a
    plain built-in, which needs no trust)."""
    project = session.agents.project
    overlay = next((overlay for overlay in session.agents.overlays if overlay.id == agent_id), None)
    if overlay is not None:
        return f"built-in + skill overlay ({Path(overlay.source_path).relative_to(project)})", overlay.source_path
    if agent_id in session.agents.source_paths:
        path = session.agents.source_paths[agent_id]
        return str(Path(path).relative_to(project)), path
    return "built-in", None


def _show(args: argparse.Namespace) -> int:
    session = _session(args)
    failure = _find_failure(session, args.id)
    if failure is not None:
        print_lines(*views.failure_block(failure, session.agents.project))
        return 1
    definition = _require_role(session, args.id)
    source, source_path = _source(session, args.id)
    trust = None
    if source_path is not None:
        status = TrustStore().resolve(session.agents.project, definition)
        trust = f"{status} ({short_hash(definition_hash(definition))})"
    identity = render_instructions(definition.instructions)
    print_lines(*views.show_lines(definition, source, trust, len(identity)))
    return 0


def _test(args: argparse.Namespace) -> int:
    if args.tier and set(args.tier) != {1}:
        raise UsageError("UNKNOWN_TIER", "only tier 1 (static checks) runs in alp-nb; tiers 2 and 3 need a runtime")
    if bool(args.id) == bool(args.all):
        raise UsageError("USAGE", "name one role, or pass --all")
    session = _session(args)
    project = session.agents.project
    failure = _find_failure(session, args.id) if args.id else None
    roles = session.registry.ids() if args.all else ((args.id,) if failure is None else ())
    definitions = [_require_role(session, role) for role in roles]
    reports = [tier1_report(definition, session.registry, args.mode) for definition in definitions]
    store = TrustStore()
    candidates = [
        definition.id for definition in definitions
        if _source(session, definition.id)[1] is not None and store.resolve(project, definition) != "trusted"
    ]
    failures = session.agents.failed
    relevant = failures if args.all else ((failure,) if failure else ())  # only these change the exit code
    if args.json:
        payload = [views.report_json(report) for report in reports]
        print_json({
            "project": project,
            "candidates": candidates,
            "failedToLoad": [failure.model_dump(by_alias=True) for failure in failures],
            "reports": payload if args.all else (payload[0] if payload else None),
        })
    else:
        lines = [line for failure in failures for line in views.failure_block(failure, project)]
        for report in reports:
            if lines:
                lines.append("")
            lines += views.report_lines(report)
            if report.role in candidates:
                lines.append(f"NOTE     `{report.role}` is a candidate: it is not trusted in this project, "
                             "so no session gets it yet")
        if args.all:
            passed = sum(report.ok for report in reports)
            unloadable = f"; {len(failures)} agent file(s) do not load" if failures else ""
            lines += ["", f"ALL      {passed} of {len(reports)} roles passed{unloadable}"]
        print_lines(*lines)
    return 0 if reports and all(report.ok for report in reports) and not relevant else 1


def _add(args: argparse.Namespace) -> int:
    session = _session(args)
    project = session.agents.project
    failure = _find_failure(session, args.id)
    if failure is not None:
        print_lines(*views.failure_block(failure, project),
                    f"REFUSED  `{args.id}` does not load; there is nothing to trust yet")
        return 1
    definition = _require_role(session, args.id)
    source_path = _source(session, args.id)[1]
    if source_path is None:
        raise AgentRegistryError("UNKNOWN_AGENT",
                                 f"`{args.id}` is a built-in role with no project file; there is nothing to trust")
    report = tier1_report(definition, session.registry)
    print_lines(*views.report_lines(report))
    if not report.ok:
        print_lines(f"REFUSED  `{args.id}` has findings; fix them before trusting it")
        return 1
    store = TrustStore()
    if store.problem() is not None:
        print_lines(f"REFUSED  {store.problem()}; repair or remove it before trusting anything")
        return 1
    digest = definition_hash(definition)
    previous = store.record(project, args.id)
    if previous is not None and previous.definition_hash == digest:
        print_lines(f"TRUSTED  `{args.id}` is already trusted at {short_hash(digest)} since {previous.trusted_at}")
        return 0
    print_lines(f"HASH     {digest}")
    if previous is not None:
        print_lines(f"RETRUST  previously trusted at {short_hash(previous.definition_hash)} on {previous.trusted_at}")
        changes = diff_authority(previous.authority, Authority.of(definition))
        print_lines("  authority changed:" if changes else "  authority unchanged; the prompt or workflow moved",
                    *(f"    {change}" for change in changes))
    if not sys.stdin.isatty():
        print_lines("REFUSED  trust needs a terminal; there is no `--yes` for this command")
        return 1
    try:
        answer = input(plain_line(f"Trust `{args.id}` with the authority above? Type yes to confirm: "))
    except (KeyboardInterrupt, EOFError):  # Ctrl-C or Ctrl-D is a no
        print_lines("")
        answer = ""
    if answer.strip().lower() != "yes":
        print_lines(f"REFUSED  `{args.id}` was not trusted")
        return 1
    store.trust(project, definition, source_path=source_path)
    print_lines(f"TRUSTED  `{args.id}` at {short_hash(digest)}", f"`main` may now delegate to it in {project}",
                "editing the file revokes this: a different hash is denied, not warned about")
    return 0


def _untrust(args: argparse.Namespace) -> int:
    project = str(Path(args.project).resolve())
    if TrustStore().untrust(project, args.id):
        print_lines(f"REMOVED  `{args.id}` is no longer trusted in {project}")
        return 0
    print_lines(f"NONE     `{args.id}` was not trusted in {project}")
    return 1


def _graph(args: argparse.Namespace) -> int:
    """The session registry's delegation graph, with the project's untrusted and changed agents greyed out;
    SVG and Mermaid text are escaped already, and are printed line by line like any other. The pictures are
    imported here, so the other ``agent`` commands load no workflow layer."""
    from alp_nb.viz.pictures.delegation import delegation_graph

    picture = delegation_graph(project_registry(Path(args.project), TrustStore()))
    output = {"text": picture.to_text, "svg": picture.to_svg, "mermaid": picture.to_mermaid}[args.format]()
    print_lines(*output.splitlines())
    return 0


def _matrix(args: argparse.Namespace) -> int:
    from alp_nb.viz.pictures.capabilities import capability_matrix

    picture = capability_matrix(project_registry(Path(args.project), TrustStore()).registry, by_state=args.by_state)
    output = {"text": picture.to_text, "svg": picture.to_svg, "html": picture.to_html}[args.format]()
    print_lines(*output.splitlines())
    return 0
