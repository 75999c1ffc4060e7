"""``alp-nb policy check``: ask the policy engine one what-if question, from a terminal.

A designer or a new team member asks "may this role do that?" and gets the engine's answer with its code, as
the ``Authorization`` text view shows it, then for a denial the rule behind the code (``viz.policy_codes``); the
exit code says yes (0) or no (1), so a script can ask too. The registry is the one a session in the project
really gets: the built-ins and the custom agents the principal trusted. Ids and reasons may come from agent
files, so every line is printed through ``viz.terminal``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from alp_nb.agents import PolicyEngine, ProjectRegistry, TrustStore, project_registry
from alp_nb.viz.terminal import print_lines
from alp_nb.viz.views.agent_reports import EDITED_SINCE_TRUSTED, NEVER_TRUSTED
from alp_nb.viz.views.agents import authorization_text
from alp_nb.viz.views.policy_codes import POLICY_RULES

from .errors import UsageError

QUESTIONS = ("tool", "target", "memory", "workspace", "skill", "subagent", "mcp")
"""The options that each ask one kind of question; exactly one is given."""


def register(group: argparse.ArgumentParser) -> None:
    """Add the ``alp-nb policy ...`` commands to their group's parser."""
    policy = group.add_subparsers(title="policy commands")
    check = policy.add_parser("check", help="may ACTOR do this? prints ALLOWED, or DENIED with the code and reason")
    check.add_argument("--actor", required=True, help="the role asking")
    check.add_argument("--tool", help="use a tool (with --command for a shell command run by Bash)")
    check.add_argument("--command", help="the shell command a --tool runs")
    check.add_argument("--target", help="delegate to this role")
    check.add_argument("--memory", choices=("read", "write"), help="read or write memory (with --scope)")
    check.add_argument("--scope", help="the memory scope, e.g. shared or private:worker")
    check.add_argument("--workspace", choices=("read", "write"), help="read or write a workspace path (with --path)")
    check.add_argument("--path", help="the workspace path, relative to the active workspace")
    check.add_argument("--active-workspace", help="the execution's workspace (default: the project folder); a role "
                                                  "that reports to another runs delegated, scoped to it")
    check.add_argument("--read-only", action="store_true", help="the execution's workspace mode is read-only")
    check.add_argument("--skill", help="invoke a skill")
    check.add_argument("--subagent", help="start a subagent")
    check.add_argument("--mcp", help="call an MCP server")
    check.add_argument("--project", default=".", help="project folder (default: the current one)")
    check.set_defaults(handler=_check)


def _check(args: argparse.Namespace) -> int:
    session = project_registry(Path(args.project), TrustStore())
    authorization = PolicyEngine(session.registry).authorize(_request(args, session))
    rule = POLICY_RULES.get(authorization.code or "")
    print_lines(authorization_text(authorization), *([f"RULE     {rule}"] if rule else []),
                *_trust_notes(session, args.actor, args.target))
    return 0 if authorization.allowed else 1


def _request(args: argparse.Namespace, session: ProjectRegistry) -> dict[str, Any]:
    """The question as the policy engine's request, from exactly one question option and its companions."""
    asked = [name for name in QUESTIONS if getattr(args, name) is not None]
    if len(asked) != 1:
        raise UsageError("USAGE", f"ask one question: one of {', '.join('--' + name for name in QUESTIONS)}")
    (question,) = asked
    if args.command is not None and question != "tool":
        raise UsageError("USAGE", "--command goes with --tool (the tool that runs it, usually Bash)")
    if (args.scope is not None) != (question == "memory"):
        raise UsageError("USAGE", "--memory read|write needs --scope, and --scope needs --memory")
    if (args.path is not None) != (question == "workspace"):
        raise UsageError("USAGE", "--workspace read|write needs --path, and --path needs --workspace")
    actor = args.actor
    if question == "tool":
        return {"type": "tool", "actor": actor, "tool": args.tool, "command": args.command}
    if question == "target":
        return {"type": "delegation", "actor": actor, "target": args.target}
    if question == "memory":
        return {"type": "memory", "actor": actor, "operation": args.memory, "scope": args.scope}
    if question == "workspace":
        delegated = session.registry.has(actor) and session.registry.get(actor).reports_to != "principal"
        return {"type": "workspace", "actor": actor, "operation": args.workspace, "path": args.path,
                "execution": {"active_workspace": args.active_workspace or session.agents.project,
                              "workspace_mode": "read-only" if args.read_only else "workspace-write",
                              "delegated": delegated}}
    field = {"skill": "skill", "subagent": "subagent", "mcp": "server"}[question]
    return {"type": question, "actor": actor, field: getattr(args, question)}


def _trust_notes(session: ProjectRegistry, *agent_ids: str | None) -> list[str]:
    """Why a project agent named in the question is not in the registry: it is not trusted (yet, or any more)."""
    phrases = {"untrusted": NEVER_TRUSTED, "changed": EDITED_SINCE_TRUSTED}
    return [f"NOTE     `{agent_id}` is {phrases[status]}" for agent_id in dict.fromkeys(agent_ids)
            if agent_id is not None and (status := session.statuses.get(agent_id, "trusted")) in phrases]
