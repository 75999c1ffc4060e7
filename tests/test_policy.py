"""The policy engine (reference §2 grants, §6 policy engine, §10 "Policy" and "Capability grants").

Every one of the twenty codes is reached on its own, with ALP's reason text
where the reference gives one; then the check orders, the one approval rule,
path canonicalisation, the three request forms, and a fail-closed property.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from pydantic import ValidationError

from alp_nb.agents import (
    DEFAULT_CATALOG,
    POLICY_ERROR_CODES,
    AgentDefinitionTarget,
    AgentError,
    AgentRegistry,
    Allow,
    Authorization,
    CapabilityCatalog,
    ConfigurationRequest,
    DelegationRequest,
    Deny,
    ExecutionScope,
    LaunchScope,
    McpRequest,
    McpServerCatalogEntry,
    MemoryRequest,
    PolicyEngine,
    PolicySourceTarget,
    RequireApproval,
    SkillRequest,
    SubagentCatalogEntry,
    SubagentRequest,
    ToolRequest,
    WorkspaceRequest,
    builtin_registry,
    create_agent_registry,
    define_agent,
    is_indirect_command,
    memory_grant_covers,
    raw_runtime_binary,
    text_output,
)
from alp_nb.workflow import define_linear_workflow

BUILTIN_IDS = ("main", "worker", "search", "librarian", "read-thread", "review", "oracle", "compaction", "titling")
SPECIALISTS = BUILTIN_IDS[1:]
MEMORY_ONLY_ROLES = ("read-thread", "compaction", "titling")
UNRECOGNIZED = "unrecognized policy request"
LAUNCH_RULE = "workspace-outside-grant-inside-project"


# --------------------------------------------------------------------------- helpers


def agent(
    agent_id: str,
    *,
    reports_to: str = "principal",
    delegates_to: tuple[str, ...] = (),
    tools: tuple[str, ...] = ("Read", "Glob", "Grep"),
    subagents: tuple[str, ...] = (),
    mcp_servers: tuple[str, ...] = (),
    read_roots: tuple[str, ...] = (".",),
    write_roots: tuple[str, ...] = (),
) -> dict:
    """A minimal valid agent in ALP's camelCase JSON form."""
    return {
        "id": agent_id,
        "displayName": agent_id.title(),
        "model": {"claude": "claude-opus-5", "codex": "gpt-5.6-sol"},
        "reasoningEffort": {"claude": "high", "codex": "high"},
        "reportsTo": reports_to,
        "delegatesTo": list(delegates_to),
        "capabilities": {
            "tools": list(tools),
            "skills": [],
            "subagents": list(subagents),
            "mcpServers": list(mcp_servers),
            "memory": {"read": ["shared", f"private:{agent_id}"], "write": [f"private:{agent_id}"]},
            "workspace": {"readRoots": list(read_roots), "writeRoots": list(write_roots)},
        },
        "instructions": {"role": f"{agent_id} role", "purpose": f"{agent_id} purpose", "rules": []},
        "workflow": define_linear_workflow(f"{agent_id}-flow", [("WORK", tools), ("REPORT", ())]),
        "output": text_output(f"{agent_id}-result"),
    }


@pytest.fixture
def engine() -> PolicyEngine:
    return PolicyEngine(builtin_registry())


def execution(active: Path | str, mode: str = "read-only", delegated: bool = False) -> dict:
    return {"activeWorkspace": str(active), "workspaceMode": mode, "delegated": delegated}


def workspace(actor: str, operation: str, path: Path | str, active: Path | str, *, mode: str = "read-only",
              delegated: bool = False, launch: dict | None = None) -> dict:
    request = {
        "type": "workspace", "actor": actor, "operation": operation, "path": str(path),
        "execution": execution(active, mode, delegated),
    }
    if launch is not None:
        request["launch"] = launch
    return request


def tool(actor: str, name: str, command: str | None = None) -> dict:
    request = {"type": "tool", "actor": actor, "tool": name}
    if command is not None:
        request["command"] = command
    return request


def memory(actor: str, operation: str, scope: str) -> dict:
    return {"type": "memory", "actor": actor, "operation": operation, "scope": scope}


def denied(decision, code: str) -> Deny:
    assert isinstance(decision, Deny), decision
    assert decision.code == code, decision
    return decision


def failing_on(*needles: str, message: str = "boom"):
    """A canonicalizer that raises for any path containing one of ``needles``."""

    def canonicalize(path: str) -> str:
        if any(needle in path for needle in needles):
            raise RuntimeError(message)
        return os.path.realpath(path)

    return canonicalize


@pytest.fixture
def base(tmp_path: Path) -> Path:
    """tmp_path in canonical form (it may itself sit behind a symlink)."""
    return Path(os.path.realpath(tmp_path))


@pytest.fixture
def project(base: Path) -> Path:
    root = base / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "main.py").write_text("print('hi')\n")
    return root


# --------------------------------------------------------------------------- the code list


def test_policy_error_codes_are_the_twenty_reference_codes_in_order():
    assert POLICY_ERROR_CODES == (
        "UNKNOWN_REQUEST", "UNKNOWN_ACTOR", "UNKNOWN_TARGET", "DELEGATION_NOT_ALLOWED",
        "PRIVATE_MEMORY_DENIED", "MEMORY_NOT_GRANTED", "WORKSPACE_READ_ONLY", "PATH_RESOLUTION_FAILED",
        "WORKSPACE_SCOPE_MISMATCH", "WORKSPACE_NOT_GRANTED", "POLICY_MUTATION_DENIED",
        "DEFINITION_MUTATION_DENIED", "RAW_RUNTIME_TOOL_DENIED", "INDIRECT_TOOL_REQUEST",
        "MCP_SERVER_NOT_GRANTED", "TOOL_NOT_GRANTED", "SKILL_NOT_GRANTED", "SUBAGENT_NOT_GRANTED",
        "APPROVAL_UNAVAILABLE", "APPROVAL_DENIED",
    )
    assert len(set(POLICY_ERROR_CODES)) == 20


# --------------------------------------------------------------------------- UNKNOWN_REQUEST


@pytest.mark.parametrize("request_", [None, "tool", 42, 3.5, True, ["tool", "main"], ("main",), b"main"])
def test_request_that_is_not_a_mapping_is_unrecognized(engine, request_):
    decision = denied(engine.decide(request_), "UNKNOWN_REQUEST")
    assert decision.reason == UNRECOGNIZED


@pytest.mark.parametrize("request_", [
    {"type": "tool", "tool": "Read"},
    {"type": "tool", "actor": None, "tool": "Read"},
    {"type": "tool", "actor": "", "tool": "Read"},
    {},
])
def test_request_without_an_actor_is_unrecognized(engine, request_):
    decision = denied(engine.decide(request_), "UNKNOWN_REQUEST")
    assert decision.reason == UNRECOGNIZED


@pytest.mark.parametrize("request_", [
    {"type": "teleport", "actor": "main"},
    {"type": "TOOL", "actor": "main", "tool": "Read"},
    {"actor": "main", "tool": "Read"},
    {"type": None, "actor": "main"},
])
def test_unknown_request_type_is_unrecognized(engine, request_):
    decision = denied(engine.decide(request_), "UNKNOWN_REQUEST")
    assert decision.reason == UNRECOGNIZED


@pytest.mark.parametrize("request_", [
    {"type": "memory", "actor": "main", "operation": "delete", "scope": "shared"},
    {"type": "memory", "actor": "main", "operation": "read"},
    {"type": "delegation", "actor": "main"},
    {"type": "tool", "actor": "main", "tool": 7},
    {"type": "tool", "actor": "main", "tool": "Read", "surprise": True},
    {"type": "workspace", "actor": "main", "operation": "read", "path": "/x"},
    {"type": "workspace", "actor": "main", "operation": "read", "path": "/x",
     "execution": {"activeWorkspace": "/x", "workspaceMode": "yolo", "delegated": False}},
    {"type": "configuration", "actor": "main", "operation": "write", "target": {"kind": "registry"}},
    {"type": "configuration", "actor": "main", "operation": "delete", "target": {"kind": "policy-source"}},
])
def test_malformed_request_of_a_known_type_is_unrecognized(engine, request_):
    decision = denied(engine.decide(request_), "UNKNOWN_REQUEST")
    assert decision.reason.startswith(UNRECOGNIZED)


# --------------------------------------------------------------------------- UNKNOWN_ACTOR


@pytest.mark.parametrize("actor", ["ghost", "principal", "Main", " main"])
def test_actor_outside_the_registry_is_unknown(engine, actor):
    decision = denied(engine.decide(tool(actor, "Read")), "UNKNOWN_ACTOR")
    assert decision.reason == f"unknown actor `{actor}`"


def test_unknown_actor_is_reported_before_the_request_type_is_read(engine):
    denied(engine.decide({"type": "teleport", "actor": "ghost"}), "UNKNOWN_ACTOR")


# --------------------------------------------------------------------------- delegation


def test_delegation_to_an_unregistered_target_is_unknown_target(engine):
    decision = denied(engine.decide({"type": "delegation", "actor": "main", "target": "missing"}), "UNKNOWN_TARGET")
    assert decision.reason == "unknown delegation target `missing`"


@pytest.mark.parametrize("target", SPECIALISTS)
def test_main_may_delegate_to_every_declared_specialist(engine, target):
    assert engine.decide({"type": "delegation", "actor": "main", "target": target}) == Allow()


def test_specialist_cannot_delegate_to_another_specialist(engine):
    decision = denied(engine.decide({"type": "delegation", "actor": "search", "target": "review"}),
                      "DELEGATION_NOT_ALLOWED")
    assert decision.reason == "`search` cannot delegate to `review`"


def test_role_with_an_empty_delegation_list_cannot_delegate_even_to_its_parent(engine):
    decision = denied(engine.decide({"type": "delegation", "actor": "worker", "target": "main"}),
                      "DELEGATION_NOT_ALLOWED")
    assert decision.reason == "`worker` cannot delegate to `main`"


def test_delegation_to_an_undeclared_target_is_refused_even_when_it_reports_to_the_actor():
    registry = create_agent_registry([
        agent("lead", delegates_to=("alpha",)),
        agent("alpha", reports_to="lead"),
        agent("beta", reports_to="lead"),
    ])
    engine = PolicyEngine(registry)
    assert engine.decide({"type": "delegation", "actor": "lead", "target": "alpha"}) == Allow()
    decision = denied(engine.decide({"type": "delegation", "actor": "lead", "target": "beta"}),
                      "DELEGATION_NOT_ALLOWED")
    assert decision.reason == "`lead` cannot delegate to `beta`"


def test_declared_delegation_is_allowed_even_when_the_target_reports_to_principal():
    registry = create_agent_registry([agent("lead", delegates_to=("helper",)), agent("helper")])
    assert registry.get("helper").reports_to == "principal"
    assert PolicyEngine(registry).decide({"type": "delegation", "actor": "lead", "target": "helper"}) == Allow()


# --------------------------------------------------------------------------- memory


@pytest.mark.parametrize(("actor", "operation", "scope", "owner"), [
    ("main", "read", "private:worker", "worker"),
    ("main", "write", "private:worker:notes", "worker"),
    ("search", "write", "private:librarian:draft", "librarian"),
    ("titling", "read", "private:main", "main"),
])
def test_foreign_private_memory_is_refused(engine, actor, operation, scope, owner):
    decision = denied(engine.decide(memory(actor, operation, scope)), "PRIVATE_MEMORY_DENIED")
    assert decision.reason == f"`{actor}` cannot {operation} private memory for `{owner}`"


def test_private_ownership_is_checked_before_any_grant():
    # The registry refuses a `private:*` grant; built around it, the grant would cover any
    # private scope (rule 4), and ownership must still refuse another role's.
    snoop = define_agent({**agent("snoop"), "capabilities": {
        **agent("snoop")["capabilities"], "memory": {"read": ["private:*"], "write": ["private:*"]},
    }})
    assert memory_grant_covers("private:*", "private:other")
    engine = PolicyEngine(AgentRegistry((snoop,), DEFAULT_CATALOG))
    decision = denied(engine.decide(memory("snoop", "read", "private:other")), "PRIVATE_MEMORY_DENIED")
    assert decision.reason == "`snoop` cannot read private memory for `other`"
    denied(engine.decide(memory("snoop", "write", "private:other:x")), "PRIVATE_MEMORY_DENIED")
    assert engine.decide(memory("snoop", "read", "private:snoop:x")) == Allow()


@pytest.mark.parametrize("actor", BUILTIN_IDS)
@pytest.mark.parametrize("operation", ["read", "write"])
def test_every_role_may_use_its_own_private_memory(engine, actor, operation):
    assert engine.decide(memory(actor, operation, f"private:{actor}")) == Allow()
    assert engine.decide(memory(actor, operation, f"private:{actor}:notes:today")) == Allow()


@pytest.mark.parametrize(("actor", "operation", "scope"), [
    ("titling", "read", "shared"),
    ("titling", "read", "project:alp:goals"),
    ("worker", "write", "shared:decisions:x"),
    ("search", "write", "project:alp:log"),
])
def test_scope_outside_every_grant_of_the_operation_is_not_granted(engine, actor, operation, scope):
    decision = denied(engine.decide(memory(actor, operation, scope)), "MEMORY_NOT_GRANTED")
    assert decision.reason == f"`{actor}` has no {operation} grant for `{scope}`"


def test_memory_grants_are_chosen_by_operation(engine):
    assert engine.decide(memory("worker", "read", "shared:decisions:x")) == Allow()
    denied(engine.decide(memory("worker", "write", "shared:decisions:x")), "MEMORY_NOT_GRANTED")
    assert engine.decide(memory("main", "write", "project:alp:goals:q3")) == Allow()


@pytest.mark.parametrize("scope", [
    "shared:reference:src", "shared:reference:src:deep", "project:alp:refs:src", "private:librarian",
    "private:librarian:notes",
])
def test_librarian_may_write_reference_and_refs_scopes(engine, scope):
    assert engine.decide(memory("librarian", "write", scope)) == Allow()


@pytest.mark.parametrize("scope", [
    "shared", "shared:reference", "shared:decisions:x", "project:alp", "project:alp:refs",
    "project:alp:log:src", "project:alp:goals:q3",
])
def test_librarian_may_write_nothing_else(engine, scope):
    denied(engine.decide(memory("librarian", "write", scope)), "MEMORY_NOT_GRANTED")


def test_librarian_reads_more_than_it_writes(engine):
    assert engine.decide(memory("librarian", "read", "shared:decisions:x")) == Allow()
    assert engine.decide(memory("librarian", "read", "project:alp:log:src")) == Allow()


# --------------------------------------------------------------------------- WORKSPACE_READ_ONLY


def test_write_in_read_only_execution_is_refused_before_any_path_work():
    calls = []

    def canonicalize(path: str) -> str:
        calls.append(path)
        raise RuntimeError("should never be asked")

    engine = PolicyEngine(builtin_registry(), canonicalize_path=canonicalize)
    decision = denied(
        engine.decide(workspace("worker", "write", "\x00 not a path", "relative/ws", mode="read-only")),
        "WORKSPACE_READ_ONLY",
    )
    assert decision.reason == "execution workspace `relative/ws` is read-only"
    assert calls == []


def test_read_in_read_only_execution_is_not_a_read_only_problem(engine, project):
    assert engine.decide(workspace("worker", "read", project / "src", project, mode="read-only")) == Allow()


# --------------------------------------------------------------------------- PATH_RESOLUTION_FAILED


def test_path_the_canonicalizer_cannot_resolve_is_refused(project):
    failing = failing_on(str(project / "src"), message="no such alias")
    engine = PolicyEngine(builtin_registry(), canonicalize_path=failing)
    decision = denied(engine.decide(workspace("search", "read", project / "src", project)), "PATH_RESOLUTION_FAILED")
    assert decision.reason == "cannot canonicalize workspace path: no such alias"


def test_active_workspace_the_canonicalizer_cannot_resolve_is_refused(project):
    engine = PolicyEngine(builtin_registry(), canonicalize_path=failing_on(str(project), message="gone"))
    decision = denied(engine.decide(workspace("search", "read", "/elsewhere", project)), "PATH_RESOLUTION_FAILED")
    assert decision.reason == "cannot canonicalize workspace path: gone"


def test_path_with_a_nul_byte_is_refused_by_the_default_canonicalizer(engine, project):
    decision = denied(engine.decide(workspace("search", "read", f"{project}/a\x00b", project)),
                      "PATH_RESOLUTION_FAILED")
    assert decision.reason.startswith("cannot canonicalize workspace path: ")


def test_launch_scope_the_canonicalizer_cannot_resolve_is_refused(project):
    engine = PolicyEngine(builtin_registry(), canonicalize_path=failing_on("launch-root", message="dangling"))
    request = workspace("main", "read", project / "src", project,
                        launch={"root": "/launch-root", "project": str(project)})
    decision = denied(engine.decide(request), "PATH_RESOLUTION_FAILED")
    assert decision.reason == "cannot resolve launch scope: dangling"


def test_grant_root_the_canonicalizer_cannot_resolve_is_an_invalid_policy_state_not_a_deny(project):
    # §6: "root canonicalization failure throws InvalidPolicyStateError"
    def canonicalize(path: str) -> str:
        if path.endswith(f"{os.sep}."):
            raise RuntimeError("unreadable root")
        return os.path.realpath(path)

    engine = PolicyEngine(builtin_registry(), canonicalize_path=canonicalize)
    with pytest.raises(AgentError) as caught:
        engine.decide(workspace("search", "read", project / "src", project))
    assert caught.value.code == "INVALID_POLICY_STATE"
    assert "search" in str(caught.value)


# --------------------------------------------------------------------------- WORKSPACE_SCOPE_MISMATCH


def test_delegated_execution_cannot_reach_outside_its_active_workspace(engine, project):
    active, other = project / "src", project / "docs"
    other.mkdir()
    decision = denied(engine.decide(workspace("search", "read", other, active, delegated=True)),
                      "WORKSPACE_SCOPE_MISMATCH")
    assert decision.reason == f"delegated execution is scoped to `{active}`, not `{other}`"


def test_delegated_execution_may_read_inside_its_active_workspace(engine, project):
    assert engine.decide(workspace("search", "read", project / "src" / "main.py", project, delegated=True)) == Allow()


def test_delegated_write_in_the_active_workspace_is_allowed_for_the_writer(engine, project):
    request = workspace("worker", "write", project / "src" / "new.py", project, mode="workspace-write", delegated=True)
    assert engine.decide(request) == Allow()


@pytest.mark.parametrize("sibling", ["project-evil", "project2", "projec"])
def test_delegated_scope_is_a_path_boundary_not_a_string_prefix(engine, base, project, sibling):
    evil = base / sibling
    evil.mkdir()
    decision = denied(engine.decide(workspace("search", "read", evil / "x", project, delegated=True)),
                      "WORKSPACE_SCOPE_MISMATCH")
    assert decision.reason == f"delegated execution is scoped to `{project}`, not `{evil / 'x'}`"


# --------------------------------------------------------------------------- WORKSPACE_NOT_GRANTED


def test_path_outside_every_read_root_cannot_be_read(engine, base, project):
    outside = base / "outside.txt"
    decision = denied(engine.decide(workspace("search", "read", outside, project)), "WORKSPACE_NOT_GRANTED")
    assert decision.reason == f"`search` cannot read workspace path `{outside}`"


def test_read_root_is_a_path_boundary_not_a_string_prefix(engine, base, project):
    evil = base / "project-evil"
    evil.mkdir()
    decision = denied(engine.decide(workspace("search", "read", evil, project)), "WORKSPACE_NOT_GRANTED")
    assert decision.reason == f"`search` cannot read workspace path `{evil}`"


@pytest.mark.parametrize("actor", MEMORY_ONLY_ROLES)
def test_memory_only_role_cannot_read_the_workspace(engine, project, actor):
    target = project / "src" / "main.py"
    decision = denied(engine.decide(workspace(actor, "read", target, project)), "WORKSPACE_NOT_GRANTED")
    assert decision.reason == f"`{actor}` cannot read workspace path `{target}`"


@pytest.mark.parametrize("actor", MEMORY_ONLY_ROLES)
def test_memory_only_role_write_request_is_still_checked(engine, project, actor):
    request = workspace(actor, "write", project / "src" / "main.py", project, mode="workspace-write")
    denied(engine.decide(request), "WORKSPACE_NOT_GRANTED")


def test_main_is_read_only_by_grant(engine, project):
    target = project / "src" / "main.py"
    assert engine.decide(workspace("main", "read", target, project)) == Allow()
    decision = denied(engine.decide(workspace("main", "write", target, project, mode="workspace-write")),
                      "WORKSPACE_NOT_GRANTED")
    assert decision.reason == f"`main` cannot write workspace path `{target}`"


@pytest.mark.parametrize("actor", [a for a in BUILTIN_IDS if a not in ("worker", *MEMORY_ONLY_ROLES)])
def test_only_worker_may_write_the_workspace(engine, project, actor):
    target = project / "src" / "main.py"
    denied(engine.decide(workspace(actor, "write", target, project, mode="workspace-write")), "WORKSPACE_NOT_GRANTED")
    assert engine.decide(workspace("worker", "write", target, project, mode="workspace-write")) == Allow()


def test_absolute_root_means_exactly_what_it_says(base, project):
    docs = base / "docs"
    docs.mkdir()
    registry = create_agent_registry([agent("auditor", read_roots=(str(docs),))])
    engine = PolicyEngine(registry)
    assert engine.decide(workspace("auditor", "read", docs / "a.md", project)) == Allow()
    denied(engine.decide(workspace("auditor", "read", project / "src", project)), "WORKSPACE_NOT_GRANTED")


def test_write_outside_a_narrower_write_root_is_not_granted(project):
    registry = create_agent_registry([agent("scribe", tools=("Read", "Write"), write_roots=("src",))])
    engine = PolicyEngine(registry)
    assert engine.decide(workspace("scribe", "write", project / "src" / "x.py", project, mode="workspace-write")) \
        == Allow()
    target = project / "README.md"
    decision = denied(engine.decide(workspace("scribe", "write", target, project, mode="workspace-write")),
                      "WORKSPACE_NOT_GRANTED")
    assert decision.reason == f"`scribe` cannot write workspace path `{target}`"


# --------------------------------------------------------------------------- workspace order


def test_read_only_is_reported_before_scope_mismatch(engine, base, project):
    request = workspace("worker", "write", base / "elsewhere", project, mode="read-only", delegated=True)
    denied(engine.decide(request), "WORKSPACE_READ_ONLY")


def test_read_only_is_reported_before_not_granted(engine, project):
    denied(engine.decide(workspace("main", "write", project / "src", project, mode="read-only")),
           "WORKSPACE_READ_ONLY")


def test_path_resolution_is_reported_before_scope_mismatch(base, project):
    engine = PolicyEngine(builtin_registry(), canonicalize_path=failing_on(str(base / "elsewhere")))
    request = workspace("search", "read", base / "elsewhere", project, delegated=True)
    denied(engine.decide(request), "PATH_RESOLUTION_FAILED")


def test_scope_mismatch_is_reported_before_not_granted(engine, base, project):
    outside = base / "outside"
    # titling holds no read root at all, yet the delegated scope speaks first
    denied(engine.decide(workspace("titling", "read", outside, project, delegated=True)), "WORKSPACE_SCOPE_MISMATCH")
    # the same request outside a delegation is a grant question
    denied(engine.decide(workspace("titling", "read", outside, project, delegated=False)), "WORKSPACE_NOT_GRANTED")


def test_read_grant_is_checked_before_write_grant(engine, base, project):
    outside = base / "outside"
    decision = denied(engine.decide(workspace("main", "write", outside, project, mode="workspace-write")),
                      "WORKSPACE_NOT_GRANTED")
    assert decision.reason == f"`main` cannot read workspace path `{outside}`"


# --------------------------------------------------------------------------- roots and canonicalisation


def test_relative_roots_join_the_active_workspace_not_the_process_cwd(engine, base, project, monkeypatch):
    elsewhere = base / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert engine.decide(workspace("search", "read", project / "src" / "main.py", project)) == Allow()
    assert engine.decide(workspace("worker", "write", project / "src" / "new.py", project,
                                   mode="workspace-write")) == Allow()
    # the cwd itself is not granted just because "." was declared
    decision = denied(engine.decide(workspace("search", "read", elsewhere / "f", project)), "WORKSPACE_NOT_GRANTED")
    assert decision.reason == f"`search` cannot read workspace path `{elsewhere / 'f'}`"


def test_relative_target_path_is_joined_to_the_active_workspace(engine, base, project, monkeypatch):
    monkeypatch.chdir(base)
    assert engine.decide(workspace("search", "read", "src/main.py", project)) == Allow()
    decision = denied(engine.decide(workspace("search", "read", "../outside", project)), "WORKSPACE_NOT_GRANTED")
    assert decision.reason == f"`search` cannot read workspace path `{base / 'outside'}`"


def test_relative_root_follows_each_execution_workspace(engine, base):
    first, second = base / "first", base / "second"
    first.mkdir()
    second.mkdir()
    assert engine.decide(workspace("search", "read", first / "a", first)) == Allow()
    assert engine.decide(workspace("search", "read", second / "a", second)) == Allow()
    denied(engine.decide(workspace("search", "read", second / "a", first)), "WORKSPACE_NOT_GRANTED")


def test_symlink_out_of_the_workspace_is_canonicalised_and_refused(engine, base, project):
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s3cret")
    (project / "link").symlink_to(outside, target_is_directory=True)
    through_link = project / "link" / "secret.txt"
    decision = denied(engine.decide(workspace("search", "read", through_link, project)), "WORKSPACE_NOT_GRANTED")
    assert decision.reason == f"`search` cannot read workspace path `{outside / 'secret.txt'}`"
    decision = denied(engine.decide(workspace("search", "read", through_link, project, delegated=True)),
                      "WORKSPACE_SCOPE_MISMATCH")
    assert decision.reason == f"delegated execution is scoped to `{project}`, not `{outside / 'secret.txt'}`"


def test_write_through_a_symlink_out_of_the_workspace_is_refused(engine, base, project):
    outside = base / "outside"
    outside.mkdir()
    (project / "link").symlink_to(outside, target_is_directory=True)
    request = workspace("worker", "write", project / "link" / "new.txt", project, mode="workspace-write")
    denied(engine.decide(request), "WORKSPACE_NOT_GRANTED")


def test_symlink_that_stays_inside_the_workspace_is_allowed(engine, project):
    (project / "alias").symlink_to(project / "src", target_is_directory=True)
    assert engine.decide(workspace("search", "read", project / "alias" / "main.py", project, delegated=True)) \
        == Allow()


def test_active_workspace_reached_through_a_symlink_is_canonicalised(engine, base, project):
    alias = base / "alias"
    alias.symlink_to(project, target_is_directory=True)
    assert engine.decide(workspace("search", "read", project / "src", alias, delegated=True)) == Allow()
    assert engine.decide(workspace("search", "read", alias / "src", project, delegated=True)) == Allow()


def test_dotdot_cannot_climb_out_of_the_workspace(engine, base, project):
    climbing = f"{project}/src/../../outside"
    decision = denied(engine.decide(workspace("search", "read", climbing, project)), "WORKSPACE_NOT_GRANTED")
    assert decision.reason == f"`search` cannot read workspace path `{base / 'outside'}`"


def test_injected_canonicalizer_aliases_are_honoured():
    def canonicalize(path: str) -> str:
        return os.path.normpath(path.replace("/alias", "/real"))

    engine = PolicyEngine(builtin_registry(), canonicalize_path=canonicalize)
    assert engine.decide(workspace("search", "read", "/real/ws/src", "/alias/ws", delegated=True)) == Allow()
    decision = denied(engine.decide(workspace("search", "read", "/alias/other", "/alias/ws", delegated=True)),
                      "WORKSPACE_SCOPE_MISMATCH")
    assert decision.reason == "delegated execution is scoped to `/real/ws`, not `/real/other`"


# --------------------------------------------------------------------------- configuration


@pytest.mark.parametrize("actor", BUILTIN_IDS)
def test_no_role_may_mutate_the_policy_source(engine, actor):
    request = {"type": "configuration", "actor": actor, "operation": "write", "target": {"kind": "policy-source"}}
    decision = denied(engine.decide(request), "POLICY_MUTATION_DENIED")
    assert f"`{actor}`" in decision.reason


@pytest.mark.parametrize(("actor", "target"), [("main", "worker"), ("worker", "worker"), ("main", "main"),
                                               ("titling", "review")])
def test_no_role_may_mutate_an_agent_definition_including_its_own(engine, actor, target):
    request = {"type": "configuration", "actor": actor, "operation": "write",
               "target": {"kind": "agent-definition", "agentId": target}}
    decision = denied(engine.decide(request), "DEFINITION_MUTATION_DENIED")
    assert f"`{target}`" in decision.reason


# --------------------------------------------------------------------------- RAW_RUNTIME_TOOL_DENIED


@pytest.mark.parametrize("name", [
    "mcp__paseo__create_agent", "spawn_agent", "SPAWN_AGENT", "create_agent", "Create_Agent", "herdr", "Herdr",
    "PASEO", "mcp__HERDR__list", "mcp__docs__spawn_agent", "paseo__run",
])
def test_raw_runtime_tool_name_is_refused_case_insensitively(engine, name):
    decision = denied(engine.decide(tool("main", name)), "RAW_RUNTIME_TOOL_DENIED")
    assert decision.reason == f"raw runtime tool `{name}` is not part of the ALP delegation API"


@pytest.mark.parametrize("command", [
    "herdr agent start",
    "FOO=1 env sudo /usr/local/bin/paseo run",
    "ls; herdr x",
    "a && paseo.exe y",
    "cat x | herdr",
    "false || paseo list",
    "echo hi\nherdr agent start",
    "command herdr",
    "'herdr' start",
    "HERDR start",
    "C:\\tools\\PASEO.EXE run",
])
def test_bash_command_that_runs_a_raw_runtime_binary_is_refused(engine, command):
    decision = denied(engine.decide(tool("main", "Bash", command)), "RAW_RUNTIME_TOOL_DENIED")
    assert decision.reason == "raw runtime tool `Bash` is not part of the ALP delegation API"


@pytest.mark.parametrize("command", ["herdrsmith run", "echo herdr", "grep -rn paseo src", "ls ./herdr-notes",
                                     "cat paseo.md"])
def test_command_merely_mentioning_a_runtime_is_not_raw(engine, command):
    assert raw_runtime_binary(command) is None
    assert engine.decide(tool("main", "Bash", command)) == Allow()


def test_tool_name_merely_containing_a_runtime_word_is_not_raw(engine):
    decision = denied(engine.decide(tool("main", "herdrsmith")), "TOOL_NOT_GRANTED")
    assert decision.reason == "`herdrsmith` is not granted to `main`"


def test_raw_runtime_binary_names_the_binary_it_found():
    assert raw_runtime_binary("FOO=1 env sudo /usr/local/bin/paseo run") == "paseo"
    assert raw_runtime_binary("ls; herdr x") == "herdr"
    assert raw_runtime_binary("ls -la") is None


# --------------------------------------------------------------------------- INDIRECT_TOOL_REQUEST


@pytest.mark.parametrize("command", [
    "echo $(whoami)",
    "echo `whoami`",
    'cat "$HOME/.ssh/id_rsa"',
    "echo ${X}",
    "diff <(ls a) <(ls b)",
    "tee >(wc -l)",
    "eval ls",
    "echo bHM= | base64 -d",
    "xxd -r -p payload",
    "find . | xargs rm",
    "bash -c 'ls'",
    "sh -c ls",
    "zsh -c ls",
    "python -c 'print(1)'",
    "python3 -c 'import os'",
    "node -c x.js",
    "perl -e 'print 1'",
    "ruby -e 'puts 1'",
])
def test_indirect_command_cannot_be_authorized(engine, command):
    assert is_indirect_command(command)
    decision = denied(engine.decide(tool("main", "Bash", command)), "INDIRECT_TOOL_REQUEST")
    assert decision.reason == "indirect command cannot be authorized safely"


@pytest.mark.parametrize("command", ["ls -la src", "git status", "python3 tools/check.py", "grep -rn TODO src",
                                     "cat evaluation.md", "echo 5$"])
def test_plain_command_is_allowed_for_a_role_holding_bash(engine, command):
    assert not is_indirect_command(command)
    assert engine.decide(tool("search", "Bash", command)) == Allow()


# --------------------------------------------------------------------------- tool order


def test_command_both_raw_and_indirect_reports_raw_runtime(engine):
    denied(engine.decide(tool("main", "Bash", "herdr $(whoami)")), "RAW_RUNTIME_TOOL_DENIED")
    denied(engine.decide(tool("main", "Bash", "eval x; paseo run")), "RAW_RUNTIME_TOOL_DENIED")


def test_raw_tool_name_is_refused_before_its_command_is_read(engine):
    denied(engine.decide(tool("main", "spawn_agent", "eval x")), "RAW_RUNTIME_TOOL_DENIED")


def test_indirect_command_on_an_ungranted_tool_reports_indirect(engine):
    denied(engine.decide(tool("titling", "Bash", "eval x")), "INDIRECT_TOOL_REQUEST")
    denied(engine.decide(tool("main", "MysteryTool", "echo $(id)")), "INDIRECT_TOOL_REQUEST")


def test_indirect_command_on_an_mcp_tool_reports_indirect_before_routing(engine):
    denied(engine.decide(tool("main", "mcp__docs__search", "$(id)")), "INDIRECT_TOOL_REQUEST")


def test_mcp_tool_is_routed_to_the_server_grant_not_the_catalog(engine):
    decision = denied(engine.decide(tool("main", "mcp__docs__search")), "MCP_SERVER_NOT_GRANTED")
    assert decision.reason == "mcp server `docs` is not granted to `main`"


# --------------------------------------------------------------------------- MCP / tools / skills / subagents


@pytest.fixture
def docs_engine() -> PolicyEngine:
    catalog = CapabilityCatalog(
        mcp_servers={"docs": McpServerCatalogEntry(description="documentation", egress="network", command="docs-mcp")},
        subagents={"prober": SubagentCatalogEntry(description="probe", prompt="probe things", tools=("Read",))},
    )
    registry = create_agent_registry(
        [
            agent("reader", mcp_servers=("docs",), subagents=("prober",)),
            agent("plain"),
        ],
        catalog=catalog,
    )
    return PolicyEngine(registry)


def test_mcp_request_for_an_ungranted_server_is_refused(engine):
    decision = denied(engine.decide({"type": "mcp", "actor": "main", "server": "docs"}), "MCP_SERVER_NOT_GRANTED")
    assert decision.reason == "mcp server `docs` is not granted to `main`"


def test_mcp_server_and_its_tools_are_allowed_iff_granted(docs_engine):
    assert docs_engine.decide({"type": "mcp", "actor": "reader", "server": "docs"}) == Allow()
    assert docs_engine.decide(tool("reader", "mcp__docs__search")) == Allow()
    assert docs_engine.decide(tool("reader", "mcp__docs__fetch__page")) == Allow()
    decision = denied(docs_engine.decide(tool("plain", "mcp__docs__search")), "MCP_SERVER_NOT_GRANTED")
    assert decision.reason == "mcp server `docs` is not granted to `plain`"
    decision = denied(docs_engine.decide(tool("reader", "mcp__other__search")), "MCP_SERVER_NOT_GRANTED")
    assert decision.reason == "mcp server `other` is not granted to `reader`"
    denied(docs_engine.decide({"type": "mcp", "actor": "plain", "server": "docs"}), "MCP_SERVER_NOT_GRANTED")


@pytest.mark.parametrize("name", ["MysteryTool", "Task", "Agent", "read", "WRITE"])
def test_tool_outside_the_actor_grant_is_not_granted(engine, name):
    decision = denied(engine.decide(tool("main", name)), "TOOL_NOT_GRANTED")
    assert decision.reason == f"`{name}` is not granted to `main`"


def test_main_holds_no_write_tool(engine):
    for name in ("Write", "Edit"):
        decision = denied(engine.decide(tool("main", name)), "TOOL_NOT_GRANTED")
        assert decision.reason == f"`{name}` is not granted to `main`"
    assert engine.decide(tool("worker", "Write")) == Allow()


@pytest.mark.parametrize("actor", BUILTIN_IDS)
def test_every_granted_tool_is_allowed_and_nothing_else(engine, actor):
    granted = set(builtin_registry().get(actor).capabilities.tools)
    for name in ("Read", "Write", "Edit", "Glob", "Grep", "Bash", "WebSearch", "WebFetch", "Skill"):
        decision = engine.decide(tool(actor, name))
        assert (decision == Allow()) == (name in granted), (actor, name, decision)


def test_ungranted_skill_is_refused(engine):
    decision = denied(engine.decide({"type": "skill", "actor": "main", "skill": "code-review"}), "SKILL_NOT_GRANTED")
    assert decision.reason == "skill `code-review` is not granted to `main`"
    assert engine.decide({"type": "skill", "actor": "main", "skill": "git"}) == Allow()
    assert engine.decide({"type": "skill", "actor": "review", "skill": "code-review"}) == Allow()


def test_role_without_skills_is_refused_every_skill(engine):
    denied(engine.decide({"type": "skill", "actor": "titling", "skill": "git"}), "SKILL_NOT_GRANTED")


def test_ungranted_subagent_is_refused(engine, docs_engine):
    decision = denied(engine.decide({"type": "subagent", "actor": "main", "subagent": "prober"}),
                      "SUBAGENT_NOT_GRANTED")
    assert decision.reason == "subagent `prober` is not granted to `main`"
    assert docs_engine.decide({"type": "subagent", "actor": "reader", "subagent": "prober"}) == Allow()
    denied(docs_engine.decide({"type": "subagent", "actor": "plain", "subagent": "prober"}), "SUBAGENT_NOT_GRANTED")


# --------------------------------------------------------------------------- approval rule


@pytest.fixture
def launch_tree(base: Path, project: Path) -> dict[str, Path]:
    """base/{project/{granted,other},project-evil}; main reads all of base."""
    granted, other, evil = project / "granted", project / "other", base / "project-evil"
    for path in (granted, other, evil):
        path.mkdir()
    return {"base": base, "project": project, "granted": granted, "other": other, "evil": evil}


def launched(actor: str, path: Path | str, tree: dict[str, Path], **kwargs) -> dict:
    launch = {"root": str(tree["granted"]), "project": str(tree["project"])}
    return workspace(actor, kwargs.pop("operation", "read"), path, tree["base"], launch=launch, **kwargs)


def approval_prompt(actor: str, target: Path, tree: dict[str, Path]) -> str:
    return (f"Launch `{actor}` at `{target}`? It is outside the granted workspace `{tree['granted']}` "
            f"but inside the project `{tree['project']}`.")


@pytest.mark.parametrize("inside", ["granted", "granted/sub/file.py"])
def test_launch_inside_the_grant_root_is_allowed(engine, launch_tree, inside):
    assert engine.decide(launched("main", launch_tree["project"] / inside, launch_tree)) == Allow()


def test_launch_outside_the_grant_inside_the_project_asks_the_principal(engine, launch_tree):
    target = launch_tree["other"]
    decision = engine.decide(launched("main", target, launch_tree))
    assert decision == RequireApproval(
        rule=LAUNCH_RULE, scope="session", subject=str(target), prompt=approval_prompt("main", target, launch_tree),
    )


def test_launch_at_the_project_root_itself_asks_the_principal(engine, launch_tree):
    decision = engine.decide(launched("main", launch_tree["project"], launch_tree))
    assert isinstance(decision, RequireApproval)
    assert decision.subject == str(launch_tree["project"])


def test_approval_subject_is_the_canonical_target(engine, launch_tree, monkeypatch):
    (launch_tree["granted"] / "to-other").symlink_to(launch_tree["other"], target_is_directory=True)
    decision = engine.decide(launched("main", launch_tree["granted"] / "to-other", launch_tree))
    assert isinstance(decision, RequireApproval)
    assert decision.subject == str(launch_tree["other"])
    assert decision.prompt == approval_prompt("main", launch_tree["other"], launch_tree)
    # a relative target is joined to the active workspace before it is named
    monkeypatch.chdir(launch_tree["evil"])
    decision = engine.decide(launched("main", "project/other", launch_tree))
    assert decision.subject == str(launch_tree["other"])


@pytest.mark.parametrize("outside", ["evil", "base"])
def test_launch_outside_the_project_is_refused(engine, launch_tree, outside):
    target = launch_tree[outside]
    decision = denied(engine.decide(launched("main", target, launch_tree)), "WORKSPACE_SCOPE_MISMATCH")
    assert decision.reason == (
        f"`main` cannot be launched at `{target}`: outside the granted workspace `{launch_tree['granted']}` "
        f"and outside the project `{launch_tree['project']}`"
    )


def test_same_request_without_a_launch_is_allowed(engine, launch_tree):
    for name in ("other", "evil", "granted"):
        assert engine.decide(workspace("main", "read", launch_tree[name], launch_tree["base"])) == Allow()


def test_identity_denies_are_never_turned_into_questions(engine, launch_tree):
    other = launch_tree["other"]
    denied(engine.decide(launched("worker", other, launch_tree, operation="write", mode="read-only")),
           "WORKSPACE_READ_ONLY")
    denied(engine.decide(launched("main", other, launch_tree, operation="write", mode="workspace-write")),
           "WORKSPACE_NOT_GRANTED")
    denied(engine.decide(launched("titling", other, launch_tree)), "WORKSPACE_NOT_GRANTED")
    request = launched("main", other, launch_tree, delegated=True)
    request["execution"]["activeWorkspace"] = str(launch_tree["granted"])
    denied(engine.decide(request), "WORKSPACE_SCOPE_MISMATCH")
    assert engine.authorize(launched("worker", other, launch_tree, operation="write", mode="read-only")).code \
        == "WORKSPACE_READ_ONLY"


def test_only_workspace_requests_carrying_a_launch_can_ask(engine):
    requests = [
        {"type": "delegation", "actor": "main", "target": "worker"},
        memory("main", "read", "shared"),
        tool("main", "Read"),
        {"type": "skill", "actor": "main", "skill": "git"},
    ]
    for request in requests:
        assert engine.decide(request) == Allow()


def test_authorize_folds_a_question_into_approval_unavailable(engine, launch_tree):
    target = launch_tree["other"]
    authorization = engine.authorize(launched("main", target, launch_tree))
    prompt = approval_prompt("main", target, launch_tree)
    assert authorization == Authorization(
        allowed=False, code="APPROVAL_UNAVAILABLE",
        reason=f"approval required ({LAUNCH_RULE}) and no principal can be asked: {prompt}",
    )


def test_principal_saying_no_is_approval_denied(engine, launch_tree):
    asked = []

    def approver(question: RequireApproval) -> bool:
        asked.append(question)
        return False

    request = launched("main", launch_tree["other"], launch_tree)
    authorization = engine.authorize(request, approver)
    assert authorization.allowed is False
    assert authorization.code == "APPROVAL_DENIED"
    assert authorization.reason
    assert asked == [engine.decide(request)]


def test_principal_saying_yes_allows(engine, launch_tree):
    authorization = engine.authorize(launched("main", launch_tree["other"], launch_tree), lambda question: True)
    assert authorization == Authorization(allowed=True)
    assert authorization.code is None and authorization.reason is None


def test_approver_is_asked_only_questions(engine, launch_tree):
    def approver(question):
        raise AssertionError(f"asked {question}")

    assert engine.authorize(launched("main", launch_tree["granted"], launch_tree), approver).allowed is True
    assert engine.authorize(launched("main", launch_tree["evil"], launch_tree), approver).code \
        == "WORKSPACE_SCOPE_MISMATCH"
    assert engine.authorize(tool("main", "Write"), approver).code == "TOOL_NOT_GRANTED"


# --------------------------------------------------------------------------- request forms and answers


REQUEST_FORMS = [
    (
        {"type": "delegation", "actor": "main", "target": "worker"},
        {"type": "delegation", "actor": "main", "target": "worker"},
        DelegationRequest(actor="main", target="worker"),
    ),
    (
        memory("main", "read", "private:worker"),
        memory("main", "read", "private:worker"),
        MemoryRequest(actor="main", operation="read", scope="private:worker"),
    ),
    (
        {"type": "configuration", "actor": "main", "operation": "write",
         "target": {"kind": "agent-definition", "agentId": "worker"}},
        {"type": "configuration", "actor": "main", "operation": "write",
         "target": {"kind": "agent-definition", "agent_id": "worker"}},
        ConfigurationRequest(actor="main", target=AgentDefinitionTarget(agent_id="worker")),
    ),
    (
        {"type": "configuration", "actor": "review", "operation": "write", "target": {"kind": "policy-source"}},
        {"type": "configuration", "actor": "review", "operation": "write", "target": {"kind": "policy-source"}},
        ConfigurationRequest(actor="review", target=PolicySourceTarget()),
    ),
    (
        tool("main", "Bash", "herdr agent start"),
        tool("main", "Bash", "herdr agent start"),
        ToolRequest(actor="main", tool="Bash", command="herdr agent start"),
    ),
    (
        {"type": "skill", "actor": "main", "skill": "code-review"},
        {"type": "skill", "actor": "main", "skill": "code-review"},
        SkillRequest(actor="main", skill="code-review"),
    ),
    (
        {"type": "subagent", "actor": "main", "subagent": "prober"},
        {"type": "subagent", "actor": "main", "subagent": "prober"},
        SubagentRequest(actor="main", subagent="prober"),
    ),
    (
        {"type": "mcp", "actor": "main", "server": "docs"},
        {"type": "mcp", "actor": "main", "server": "docs"},
        McpRequest(actor="main", server="docs"),
    ),
    (
        {"type": "tool", "actor": "ghost", "tool": "Read"},
        {"type": "tool", "actor": "ghost", "tool": "Read"},
        ToolRequest(actor="ghost", tool="Read"),
    ),
]


@pytest.mark.parametrize("forms", REQUEST_FORMS, ids=lambda forms: f"{forms[2].type}-{forms[2].actor}")
def test_camel_snake_and_typed_requests_get_the_same_answer(engine, forms):
    answers = [engine.decide(form) for form in forms]
    assert answers[0] == answers[1] == answers[2]
    assert [engine.authorize(form) for form in forms] == [engine.authorize(forms[0])] * 3


def test_workspace_request_forms_with_a_launch_get_the_same_answer(engine, launch_tree):
    other, base = launch_tree["other"], launch_tree["base"]
    launch = {"root": str(launch_tree["granted"]), "project": str(launch_tree["project"])}
    camel = workspace("main", "read", other, base, launch=launch)
    snake = {
        "type": "workspace", "actor": "main", "operation": "read", "path": str(other),
        "execution": {"active_workspace": str(base), "workspace_mode": "read-only", "delegated": False},
        "launch": launch,
    }
    typed = WorkspaceRequest(
        actor="main", operation="read", path=str(other),
        execution=ExecutionScope(active_workspace=str(base), workspace_mode="read-only", delegated=False),
        launch=LaunchScope(**launch),
    )
    answers = [engine.decide(form) for form in (camel, snake, typed)]
    assert isinstance(answers[0], RequireApproval)
    assert answers[0] == answers[1] == answers[2]


def test_typed_request_with_an_empty_actor_is_unrecognized(engine):
    decision = denied(engine.decide(ToolRequest(actor="", tool="Read")), "UNKNOWN_REQUEST")
    assert decision.reason == UNRECOGNIZED


def test_decide_answers_are_the_three_decision_types(engine, launch_tree):
    allow = engine.decide(tool("main", "Read"))
    deny = engine.decide(tool("main", "Write"))
    ask = engine.decide(launched("main", launch_tree["other"], launch_tree))
    assert isinstance(allow, Allow) and allow.outcome == "allow"
    assert isinstance(deny, Deny) and deny.outcome == "deny"
    assert isinstance(ask, RequireApproval) and ask.outcome == "require_approval"


def test_authorization_is_frozen(engine):
    authorization = engine.authorize(tool("main", "Write"))
    with pytest.raises(ValidationError):
        authorization.allowed = True
    with pytest.raises(ValidationError):
        authorization.code = None
    assert authorization == Authorization(allowed=False, code="TOOL_NOT_GRANTED",
                                          reason="`Write` is not granted to `main`")


def test_decisions_are_frozen(engine):
    decision = engine.decide(tool("main", "Write"))
    with pytest.raises(ValidationError):
        decision.code = "ALLOWED"


def test_authorize_copies_a_deny(engine):
    assert engine.authorize(memory("main", "read", "private:worker")) == Authorization(
        allowed=False, code="PRIVATE_MEMORY_DENIED", reason="`main` cannot read private memory for `worker`",
    )
    assert engine.authorize(tool("main", "Read")) == Authorization(allowed=True)


# --------------------------------------------------------------------------- fail-closed property

_TEXT = st.text(max_size=12)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | _TEXT,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(_TEXT, children, max_size=3),
    max_leaves=8,
)
_ACTORS = st.sampled_from((*BUILTIN_IDS, "ghost", "principal", "")) | _JSON
_TYPES = st.sampled_from(
    ("delegation", "memory", "workspace", "configuration", "tool", "skill", "subagent", "mcp", "teleport")
) | _JSON
_PATHS = st.sampled_from(("/", ".", "..", "/nonexistent/ws", "/nonexistent/ws/src", "src", "a\x00b", "")) | _TEXT
_EXECUTIONS = st.fixed_dictionaries({
    "activeWorkspace": _PATHS,
    "workspaceMode": st.sampled_from(("read-only", "workspace-write", "yolo")),
    "delegated": st.booleans(),
}) | _JSON
_FIELDS = {
    "target": st.sampled_from(BUILTIN_IDS) | st.fixed_dictionaries(
        {"kind": st.sampled_from(("policy-source", "agent-definition")), "agentId": _ACTORS}
    ) | _JSON,
    "operation": st.sampled_from(("read", "write", "delete")) | _JSON,
    "scope": st.sampled_from(("shared", "private:main", "private:worker:x", "project:*:refs:x", "private")) | _TEXT,
    "path": _PATHS,
    "execution": _EXECUTIONS,
    "launch": st.none() | st.fixed_dictionaries({"root": _PATHS, "project": _PATHS}) | _JSON,
    "tool": st.sampled_from(("Read", "Bash", "Write", "mcp__docs__x", "spawn_agent")) | _TEXT,
    "command": st.sampled_from(("ls", "herdr x", "$(x)", "eval")) | _TEXT | st.none(),
    "skill": st.sampled_from(("git", "code-review")) | _TEXT,
    "subagent": _TEXT,
    "server": _TEXT,
}
_ROLES = st.sampled_from((*BUILTIN_IDS, "ghost"))
_SOME_PATHS = st.sampled_from(("/", "/tmp", "/tmp/x", "/nonexistent/ws", "/nonexistent/ws/src", "src", "..")) | _PATHS


def _typed(kind: str, optional: dict | None = None, **fields) -> st.SearchStrategy:
    return st.fixed_dictionaries({"type": st.just(kind), "actor": _ROLES, **fields}, optional=optional)


_WELL_FORMED = st.one_of(
    _typed("delegation", target=_ROLES | _TEXT),
    _typed("memory", operation=st.sampled_from(("read", "write")), scope=_FIELDS["scope"]),
    _typed(
        "workspace",
        optional={"launch": st.none() | st.fixed_dictionaries({"root": _SOME_PATHS, "project": _SOME_PATHS})},
        operation=st.sampled_from(("read", "write")),
        path=_SOME_PATHS,
        execution=st.fixed_dictionaries({
            "activeWorkspace": _SOME_PATHS,
            "workspaceMode": st.sampled_from(("read-only", "workspace-write")),
            "delegated": st.booleans(),
        }),
    ),
    _typed("configuration", operation=st.just("write"), target=st.one_of(
        st.just({"kind": "policy-source"}),
        st.fixed_dictionaries({"kind": st.just("agent-definition"), "agentId": _ROLES | _TEXT}),
    )),
    _typed("tool", optional={"command": _FIELDS["command"]}, tool=_FIELDS["tool"]),
    _typed("skill", skill=_FIELDS["skill"]),
    _typed("subagent", subagent=_TEXT),
    _typed("mcp", server=_TEXT),
)
_SOUP = st.builds(
    lambda base, fields, extra: {**extra, **base, **fields},
    st.fixed_dictionaries({}, optional={"type": _TYPES, "actor": _ACTORS}),
    st.fixed_dictionaries({}, optional=_FIELDS),
    st.dictionaries(_TEXT | st.integers(), _JSON, max_size=2),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(request_=_WELL_FORMED | _SOUP | _JSON)
def test_any_request_gets_an_answer_and_every_refusal_names_a_policy_code(request_):
    engine = PolicyEngine(builtin_registry())
    decision = engine.decide(request_)
    assert isinstance(decision, (Allow, Deny, RequireApproval))
    if isinstance(decision, Deny):
        assert decision.code in POLICY_ERROR_CODES
        assert isinstance(decision.reason, str) and decision.reason
    authorization = engine.authorize(request_)
    assert isinstance(authorization, Authorization)
    assert authorization.allowed == isinstance(decision, Allow)
    if authorization.allowed:
        assert authorization.code is None and authorization.reason is None
    else:
        assert authorization.code in POLICY_ERROR_CODES
        assert isinstance(authorization.reason, str) and authorization.reason
    actor = request_.get("actor") if isinstance(request_, dict) else None
    if not (isinstance(actor, str) and actor in BUILTIN_IDS):
        assert not authorization.allowed
