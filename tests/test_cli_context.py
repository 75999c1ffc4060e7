"""``alp-nb context status EXEC_ID [--root DIR]`` (reference §7 "alp context status", with the
workflow shown as issue 3 asks): where one execution stands, read from its files on disk."""

from __future__ import annotations

from pathlib import Path

import pytest
from custom_agent_files import write_agent

from alp_nb.agents import builtin_registry, definition_hash, project_registry, short_hash
from alp_nb.cli import main
from alp_nb.workflow import ExecutionStore


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    """An empty project folder, also the working directory (the default ``--project``)."""
    folder = (tmp_path / "project").resolve()
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


@pytest.fixture
def root(tmp_path) -> Path:
    return tmp_path / "executions"


@pytest.fixture
def store(root) -> ExecutionStore:
    return ExecutionStore(root)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def status_lines(execution_id, role, digest, workflow, state, status, repairs, tools, mode="medium"):
    return [
        f"EXECUTION  {execution_id}",
        f"ROLE       {role}",
        f"DEFINITION {short_hash(digest)}",
        f"MODE       {mode}",
        f"WORKFLOW   {workflow}",
        f"STATE      {state}",
        f"STATUS     {status}",
        f"REPAIRS    {repairs} of 1",
        f"TOOLS      {tools}",
    ]


def test_status_prints_id_role_hash_workflow_state_status_repairs_and_tools(capsys, project, root, store):
    store.prepare(builtin_registry(), "search", workspace=project, execution_id="exec_cli")
    code, out, err = run(capsys, "context", "status", "exec_cli", "--root", str(root))
    assert (code, err) == (0, "")
    digest = definition_hash(builtin_registry().get("search"))
    assert out.splitlines() == status_lines("exec_cli", "search", digest, "retrieve-code", "VALIDATE_WORKSPACE",
                                            "prepared", 0, "Read, Glob")


def test_status_follows_the_execution_through_finalize(capsys, project, root, store):
    store.prepare(builtin_registry(), "search", workspace=project, execution_id="exec_cli")
    store.finalize("exec_cli", "")
    code, out, _ = run(capsys, "context", "status", "exec_cli", "--root", str(root))
    assert code == 0
    assert out.splitlines()[5:] == ["STATE      REPORT", "STATUS     repairing", "REPAIRS    1 of 1",
                                    "TOOLS      (none)"]


def test_status_shows_the_mode_the_execution_was_prepared_in(capsys, project, root, store):
    store.prepare(builtin_registry(), "worker", workspace=project, execution_id="exec_w", mode="ultra")
    code, out, _ = run(capsys, "context", "status", "exec_w", "--root", str(root))
    assert code == 0
    assert "MODE       ultra" in out.splitlines()
    assert "TOOLS      Read, Glob, Grep" in out.splitlines()


def test_status_takes_the_id_from_the_delegation_environment(capsys, project, root, store, monkeypatch):
    store.prepare(builtin_registry(), "titling", workspace=project, execution_id="exec_env")
    monkeypatch.setenv("ALP_DELEGATION_EXECUTION_ID", "exec_env")
    code, out, _ = run(capsys, "context", "status", "--root", str(root))
    assert code == 0
    assert out.splitlines()[:2] == ["EXECUTION  exec_env", "ROLE       titling"]
    assert "STATUS     prepared" in out.splitlines()
    assert "STATE      TITLE" in out.splitlines()


def test_status_reads_alp_execution_root_when_no_root_is_given(capsys, project, root, store, monkeypatch):
    store.prepare(builtin_registry(), "search", workspace=project, execution_id="exec_envroot")
    monkeypatch.setenv("ALP_EXECUTION_ROOT", str(root))
    code, out, _ = run(capsys, "context", "status", "exec_envroot")
    assert code == 0 and out.startswith("EXECUTION  exec_envroot\n")


def test_status_without_an_id_is_a_usage_error(capsys, project, root, monkeypatch):
    monkeypatch.delenv("ALP_DELEGATION_EXECUTION_ID", raising=False)
    code, out, err = run(capsys, "context", "status", "--root", str(root))
    assert (code, out) == (2, "")
    assert err == "alp-nb: usage: alp-nb context status EXEC_ID (or set ALP_DELEGATION_EXECUTION_ID)\n"


@pytest.mark.parametrize("execution_id", ["../exec_x", "exec_", "run_1", "exec_a/b"])
def test_status_with_a_bad_id_exits_2_naming_it(capsys, project, root, execution_id):
    code, out, err = run(capsys, "context", "status", execution_id, "--root", str(root))
    assert (code, out) == (2, "")
    assert err == f"alp-nb: missing or invalid execution ID `{execution_id}`\n"


def test_status_of_an_unknown_id_exits_2_naming_the_missing_file(capsys, project, root, store):
    store.prepare(builtin_registry(), "search", workspace=project, execution_id="exec_known")
    code, out, err = run(capsys, "context", "status", "exec_unknown", "--root", str(root))
    assert (code, out) == (2, "")
    assert err == f"alp-nb: execution `exec_unknown` not found: no {root / 'exec_unknown' / 'policy.json'}\n"


def test_status_of_a_tampered_execution_exits_2(capsys, project, root, store):
    store.prepare(builtin_registry(), "search", workspace=project, execution_id="exec_t")
    state = root / "exec_t" / "state.json"
    state.write_text(state.read_text().replace('"policyHash": "', '"policyHash": "0'), encoding="utf-8")
    code, _, err = run(capsys, "context", "status", "exec_t", "--root", str(root))
    assert code == 2
    assert err == "alp-nb: execution state policy hash mismatch\n"


def test_status_finds_a_project_agents_execution_by_hash_through_project(capsys, tmp_path, root, store):
    project = (tmp_path / "elsewhere").resolve()
    project.mkdir()
    write_agent(project, "migrator")
    registry = project_registry(project, candidates=True).registry
    store.prepare(registry, "migrator", workspace=project, execution_id="exec_m")
    code, out, err = run(capsys, "context", "status", "exec_m", "--root", str(root), "--project", str(project))
    assert (code, err) == (0, "")
    assert out.splitlines()[1] == "ROLE       migrator"
    assert out.splitlines()[4] == "WORKFLOW   " + registry.get("migrator").workflow.id


def test_status_of_a_project_agents_execution_without_its_project_is_refused(capsys, tmp_path, project, root, store):
    other = (tmp_path / "other").resolve()
    other.mkdir()
    write_agent(other, "migrator")
    store.prepare(project_registry(other, candidates=True).registry, "migrator", workspace=other,
                  execution_id="exec_m")
    code, _, err = run(capsys, "context", "status", "exec_m", "--root", str(root))
    assert code == 2
    assert err == "alp-nb: no definition for `migrator` matching the hash this execution ran with\n"


def test_status_prints_control_characters_in_state_ids_escaped(capsys, tmp_path, root, store):
    project = (tmp_path / "hostile").resolve()
    project.mkdir()
    write_agent(project, "migrator", workflow=[{"id": "SC\x1b[2J\nOPE", "allowedTools": ["Read"]}, {"id": "REPORT"}])
    store.prepare(project_registry(project, candidates=True).registry, "migrator", workspace=project,
                  execution_id="exec_h")
    code, out, err = run(capsys, "context", "status", "exec_h", "--root", str(root), "--project", str(project))
    assert (code, err) == (0, "")
    assert "\x1b" not in out
    assert out.splitlines()[5] == "STATE      SC\\x1b[2J\\x0aOPE"
    assert len(out.splitlines()) == 9
