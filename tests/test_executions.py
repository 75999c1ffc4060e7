"""Executions on disk and Stop-hook finalisation (reference §5 "Stop hook finalisation" and "Stored
execution state", §10 "Stop hook"): prepare authorises before it writes, finalize submits the final
output through one repair, and a tampered or stale execution is refused."""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from pathlib import Path

import pytest

import alp_nb.workflow.executions as executions_module
from alp_nb.agents import (
    BUILTIN_AGENTS,
    builtin_registry,
    canonical_json,
    create_agent_registry,
    define_agent,
    definition_hash,
)
from alp_nb.workflow import EXECUTION_ID, ExecutionStore, FinalizeResult, WorkflowError, define_output_contract

TEXT_ISSUE = "output must be non-empty text"


@pytest.fixture
def root(tmp_path) -> Path:
    return tmp_path / "executions"


@pytest.fixture
def workspace(tmp_path) -> Path:
    folder = tmp_path / "workspace"
    folder.mkdir()
    return folder.resolve()


@pytest.fixture
def store(root) -> ExecutionStore:
    return ExecutionStore(root)


@pytest.fixture
def prepared(store, workspace) -> str:
    """A prepared ``search`` execution; its id."""
    return store.prepare(builtin_registry(), "search", workspace=workspace, execution_id="exec_search1").execution_id


def refused(message: str):
    return pytest.raises(WorkflowError, match=re.escape(message))


def state_path(root: Path, execution_id: str) -> Path:
    return root / execution_id / "state.json"


def read(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def edit(path: Path, **fields) -> None:
    """Rewrite a JSON file with top-level fields replaced (``workflow`` merges)."""
    data = read(path)
    for key, value in fields.items():
        data[key] = {**data[key], **value} if isinstance(value, dict) and key in data else value
    path.write_text(json.dumps(data), encoding="utf-8")


def fingerprint(path: Path) -> tuple:
    """What any rewrite (temp + rename) changes: bytes, inode, mtime."""
    info = path.stat()
    return path.read_bytes(), info.st_ino, info.st_mtime_ns


def entries(folder: Path) -> list[str]:
    return sorted(os.listdir(folder)) if folder.exists() else []


def edited_registry(role: str, rule: str = "New rule."):
    """The built-ins with ``role``'s instructions changed: same id, another definition hash."""
    definitions = []
    for agent in BUILTIN_AGENTS:
        if agent.id == role:
            data = agent.model_dump(by_alias=True)
            data["instructions"] = {**data["instructions"], "rules": [*data["instructions"]["rules"], rule]}
            agent = define_agent(data)
        definitions.append(agent)
    return create_agent_registry(definitions)


# --- prepare: authorise first, then write both files whole ----------------------------------------


def test_prepare_refuses_a_denied_delegation_before_writing_anything(store, root, workspace):
    with refused("delegation authorization failed (DELEGATION_NOT_ALLOWED)"):
        store.prepare(builtin_registry(), "worker", workspace=workspace, parent="search", execution_id="exec_d")
    assert entries(root) == []


def test_prepare_refuses_a_denied_workspace_write_before_writing_anything(store, root, workspace):
    with refused("workspace authorization failed (WORKSPACE_NOT_GRANTED)"):
        store.prepare(builtin_registry(), "search", workspace=workspace, workspace_mode="workspace-write")
    assert entries(root) == []


def test_prepare_refuses_a_role_that_does_not_report_to_the_principal_as_a_principal_launch(store, root, workspace):
    with refused("delegation authorization failed: `search` does not report to principal"):
        store.prepare(builtin_registry(), "search", workspace=workspace, parent="principal")
    assert entries(root) == []


def test_prepare_refuses_an_unknown_role_before_writing_anything(store, root, workspace):
    with refused("unknown agent `ghost`"):
        store.prepare(builtin_registry(), "ghost", workspace=workspace)
    assert entries(root) == []


@pytest.mark.parametrize("workspace_mode", ["zzz", None])
def test_prepare_refuses_an_unknown_workspace_mode_before_writing_anything(store, root, workspace, workspace_mode):
    with refused("workspace_mode must be one of read-only, workspace-write"):
        store.prepare(builtin_registry(), "titling", workspace=workspace, workspace_mode=workspace_mode)
    assert entries(root) == []


def test_prepare_refuses_a_workspace_that_is_not_a_path(store, root):
    with refused("workspace must be a path, received int"):
        store.prepare(builtin_registry(), "search", workspace=5)
    assert entries(root) == []


def test_prepare_names_an_executions_folder_that_is_a_file(tmp_path, workspace):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    with refused(f"cannot use `{blocker / 'executions'}` as the executions folder"):
        ExecutionStore(blocker / "executions").prepare(builtin_registry(), "search", workspace=workspace)


def test_a_null_output_that_passes_its_contract_is_persisted(tmp_path, workspace):
    nullable = define_output_contract("maybe", {"type": ["object", "null"]})
    search = define_agent({**builtin_registry().get("search").model_dump(), "output": nullable})
    registry = create_agent_registry([*(agent for agent in BUILTIN_AGENTS if agent.id != "search"), search])
    store = ExecutionStore(tmp_path / "executions")
    store.prepare(registry, "search", workspace=workspace, execution_id="exec_null")
    assert store.finalize("exec_null", None, registry=registry).ok
    stored = read(state_path(tmp_path / "executions", "exec_null"))
    assert stored["status"] == "completed" and "output" in stored and stored["output"] is None


def test_prepare_writes_policy_and_state_private_and_prepared(store, root, workspace):
    status = store.prepare(builtin_registry(), "search", workspace=workspace, execution_id="exec_one")
    folder = root / "exec_one"
    assert entries(folder) == ["policy.json", "state.json"]
    for name in ("policy.json", "state.json"):
        assert stat.S_IMODE((folder / name).stat().st_mode) == 0o600
    state = read(folder / "state.json")
    assert state == {
        "executionId": "exec_one",
        "status": "prepared",
        "workflow": {"workflowId": "retrieve-code", "currentState": "VALIDATE_WORKSPACE", "status": "running",
                     "repairAttempts": 0},
        "policyHash": state["policyHash"],
        "createdAt": state["createdAt"],
    }
    assert (status.execution_id, status.role, status.status) == ("exec_one", "search", "prepared")
    assert status.effective_tools == ("Read", "Glob")


def test_policy_snapshot_records_definition_hash_and_a_policy_hash_over_the_rest(store, root, workspace):
    store.prepare(builtin_registry(), "search", workspace=workspace, execution_id="exec_one")
    policy = read(root / "exec_one" / "policy.json")
    state = read(root / "exec_one" / "state.json")
    search = builtin_registry().get("search")
    assert policy["definitionHash"] == definition_hash(search)
    rest = {key: value for key, value in policy.items() if key != "policyHash"}
    assert policy["policyHash"] == hashlib.sha256(canonical_json(rest).encode("utf-8")).hexdigest()
    assert state["policyHash"] == policy["policyHash"]
    assert state["createdAt"] == policy["createdAt"]
    assert (policy["executionId"], policy["role"], policy["workspace"], policy["workspaceMode"]) == (
        "exec_one", "search", str(workspace), "read-only")
    assert policy["allowedTools"] == list(search.capabilities.tools)


def test_prepare_titling_starts_in_awaiting_output(store, root, workspace):
    store.prepare(builtin_registry(), "titling", workspace=workspace, execution_id="exec_title")
    assert read(state_path(root, "exec_title"))["workflow"] == {
        "workflowId": "title-thread", "currentState": "TITLE", "status": "awaiting-output", "repairAttempts": 0}


def test_prepare_a_workspace_write_for_the_worker(store, root, workspace):
    status = store.prepare(builtin_registry(), "worker", workspace=workspace, workspace_mode="workspace-write")
    assert read(root / status.execution_id / "policy.json")["workspaceMode"] == "workspace-write"


def test_a_generated_execution_id_matches_the_id_pattern(store, workspace):
    status = store.prepare(builtin_registry(), "search", workspace=workspace)
    assert EXECUTION_ID.match(status.execution_id)
    assert status.execution_id.startswith("exec_")


def test_prepare_leaves_no_staging_folder_behind(store, root, workspace):
    store.prepare(builtin_registry(), "search", workspace=workspace, execution_id="exec_one")
    with refused("execution `exec_one` already exists"):
        store.prepare(builtin_registry(), "search", workspace=workspace, execution_id="exec_one")
    assert entries(root) == ["exec_one"]


def test_a_failed_write_during_prepare_leaves_no_execution_at_all(store, root, workspace, monkeypatch):
    real_write = executions_module.write_atomic

    def failing_state_write(path, text, **kwargs):
        if Path(path).name == "state.json":
            raise OSError("disk full")
        real_write(path, text, **kwargs)

    monkeypatch.setattr(executions_module, "write_atomic", failing_state_write)
    with refused("cannot write execution `exec_one`: disk full"):
        store.prepare(builtin_registry(), "search", workspace=workspace, execution_id="exec_one")
    assert entries(root) == []


# --- execution ids ---------------------------------------------------------------------------------


@pytest.mark.parametrize("execution_id", ["exec_a", "exec_ABC-def_123", "exec_-", "exec___"])
def test_an_id_matching_the_pattern_is_accepted(store, root, workspace, execution_id):
    store.prepare(builtin_registry(), "search", workspace=workspace, execution_id=execution_id)
    assert store.status(execution_id).execution_id == execution_id


BAD_IDS = ["exec_", "exec", "EXEC_a", "run_a", "exec_a b", "exec_a.b", "exec_../escape", "../exec_escape",
           "exec_a/b", "/tmp/exec_a", "exec_é"]


@pytest.mark.parametrize("execution_id", BAD_IDS)
def test_prepare_refuses_a_bad_id_before_any_path_is_built(store, tmp_path, root, workspace, execution_id):
    with refused("missing or invalid execution ID"):
        store.prepare(builtin_registry(), "search", workspace=workspace, execution_id=execution_id)
    assert entries(root) == []
    assert sorted(os.listdir(tmp_path)) == ["home", "workspace"]


@pytest.mark.parametrize("execution_id", ["", *BAD_IDS, None, 7])
def test_finalize_and_status_refuse_a_bad_id_before_reading(store, prepared, execution_id):
    with refused("missing or invalid execution ID"):
        store.finalize(execution_id, "output")
    with refused("missing or invalid execution ID"):
        store.status(execution_id)


def test_an_id_with_a_trailing_newline_is_refused(store, root, workspace):
    with refused("missing or invalid execution ID"):
        store.prepare(builtin_registry(), "search", workspace=workspace, execution_id="exec_a\n")
    assert entries(root) == []


def test_an_execution_id_over_128_characters_is_refused_before_touching_disk(store, root, workspace):
    """A 300-character id gave an OSError (a file name over 255 bytes); now it never reaches the disk."""
    longest = "exec_" + "a" * 123
    store.prepare(builtin_registry(), "search", workspace=workspace, execution_id=longest)
    too_long = longest + "b"
    message = "invalid execution ID of 129 characters, over the limit of 128"
    for call in (lambda: store.prepare(builtin_registry(), "search", workspace=workspace, execution_id=too_long),
                 lambda: store.status("exec_" + "a" * 295), lambda: store.finalize(too_long, "output")):
        with pytest.raises(WorkflowError) as error:
            call()
        assert error.value.code == "INVALID_EXECUTION_ID"
    assert error.value.message == message
    assert entries(root) == [longest]


def test_an_unregistered_id_is_refused_naming_the_missing_file(store, root, prepared):
    with refused(f"execution `exec_other` not found: no {root / 'exec_other' / 'policy.json'}"):
        store.finalize("exec_other", "output")


# --- finalize: the Stop hook ----------------------------------------------------------------------


def test_finalize_prose_completes_and_persists_the_output(store, root, prepared):
    assert store.finalize(prepared, "Found it in src/app.py") == FinalizeResult(ok=True, status="completed")
    state = read(state_path(root, prepared))
    assert state["status"] == "completed"
    assert state["workflow"] == {"workflowId": "retrieve-code", "currentState": "REPORT", "status": "completed",
                                 "repairAttempts": 0}
    assert state["output"] == "Found it in src/app.py"
    assert stat.S_IMODE(state_path(root, prepared).stat().st_mode) == 0o600


def test_finalize_without_output_repairs_then_prose_completes(store, root, prepared):
    assert store.finalize(prepared, None) == FinalizeResult(ok=False, status="repairing", issues=(TEXT_ISSUE,))
    state = read(state_path(root, prepared))
    assert (state["status"], state["workflow"]["repairAttempts"]) == ("repairing", 1)
    assert "output" not in state
    assert store.finalize(prepared, "second try") == FinalizeResult(ok=True, status="completed")
    state = read(state_path(root, prepared))
    assert (state["status"], state["workflow"]["repairAttempts"], state["output"]) == ("completed", 1, "second try")


def test_finalize_empty_three_times_repairs_fails_then_answers_budget_exhausted_without_writing(
    store, root, prepared
):
    assert store.finalize(prepared, "") == FinalizeResult(ok=False, status="repairing", issues=(TEXT_ISSUE,))
    assert store.finalize(prepared, "") == FinalizeResult(ok=False, status="failed", issues=(TEXT_ISSUE,))
    path = state_path(root, prepared)
    before = fingerprint(path)
    assert store.finalize(prepared, "") == FinalizeResult(
        ok=False, status="failed", issues=("output repair budget exhausted",))
    assert store.finalize(prepared, "valid prose, too late") == FinalizeResult(
        ok=False, status="failed", issues=("output repair budget exhausted",))
    assert fingerprint(path) == before
    assert read(path)["workflow"]["repairAttempts"] == 1


def test_a_completed_execution_finalises_ok_again_without_writing(store, root, prepared):
    store.finalize(prepared, "first answer")
    path = state_path(root, prepared)
    before = fingerprint(path)
    assert store.finalize(prepared, "") == FinalizeResult(ok=True, status="completed")
    assert fingerprint(path) == before
    assert read(path)["output"] == "first answer"


def test_finalize_titling_goes_straight_from_awaiting_output(store, root, workspace):
    store.prepare(builtin_registry(), "titling", workspace=workspace, execution_id="exec_title")
    assert store.finalize("exec_title", "Tên thread ngắn").ok
    assert read(state_path(root, "exec_title"))["output"] == "Tên thread ngắn"


def test_finalize_of_a_cancelled_execution_is_refused_without_writing(store, root, prepared):
    path = state_path(root, prepared)
    edit(path, status="cancelled", workflow={"status": "cancelled"})
    before = fingerprint(path)
    with refused("cannot submit output in `cancelled` status"):
        store.finalize(prepared, "late answer")
    assert fingerprint(path) == before


def test_status_reads_where_an_execution_stands(store, prepared):
    store.finalize(prepared, None)
    status = store.status(prepared)
    assert (status.role, status.status, status.mode) == ("search", "repairing", "medium")
    assert (status.workflow.current_state, status.workflow.repair_attempts) == ("REPORT", 1)
    assert status.effective_tools == ()
    assert status.definition_hash == definition_hash(builtin_registry().get("search"))


def test_the_default_root_is_alp_execution_root_then_home(monkeypatch, home, tmp_path):
    monkeypatch.delenv("ALP_EXECUTION_ROOT", raising=False)
    assert ExecutionStore().root == home / ".alp" / "executions"
    monkeypatch.setenv("ALP_EXECUTION_ROOT", str(tmp_path / "elsewhere"))
    assert ExecutionStore().root == tmp_path / "elsewhere"


# --- tampered or stale executions -----------------------------------------------------------------


def test_a_tampered_state_policy_hash_is_refused(store, root, prepared):
    edit(state_path(root, prepared), policyHash="0" * 64)
    with refused("execution state policy hash mismatch"):
        store.finalize(prepared, "answer")


def test_a_state_naming_another_execution_is_refused(store, root, prepared):
    edit(state_path(root, prepared), executionId="exec_other")
    with refused("execution ID mismatch"):
        store.finalize(prepared, "answer")


IMPOSSIBLE_STATES = {
    "other workflow": {"workflow": {"workflowId": "coordinate-principal-task"}},
    "unknown state": {"workflow": {"currentState": "NOWHERE"}},
    "prepared but moved on": {"workflow": {"currentState": "REPORT", "status": "awaiting-output"}},
    "completed without its output": {"status": "completed",
                                     "workflow": {"currentState": "REPORT", "status": "completed"}},
    "completed before the end": {"status": "completed", "workflow": {"status": "completed"}},
    "awaiting output mid-chain": {"workflow": {"status": "awaiting-output"}},
    "repair attempts while running": {"workflow": {"repairAttempts": 1}},
    "repairing without an attempt": {"status": "repairing",
                                     "workflow": {"currentState": "REPORT", "status": "repairing"}},
    "failed without an attempt": {"status": "failed", "workflow": {"currentState": "REPORT", "status": "failed"}},
    "attempts past the budget": {"status": "failed",
                                 "workflow": {"currentState": "REPORT", "status": "failed", "repairAttempts": 5}},
    "status disagrees with workflow": {"status": "completed"},
    "prepared with a repairing workflow": {"workflow": {"currentState": "REPORT", "status": "repairing",
                                                        "repairAttempts": 1}},
    "unknown status": {"workflow": {"status": "paused"}},
    "negative attempts": {"workflow": {"repairAttempts": -1}},
    "attempts written as text": {"status": "repairing",
                                 "workflow": {"currentState": "REPORT", "status": "repairing", "repairAttempts": "1"}},
    "attempts written as a boolean": {"status": "repairing",
                                      "workflow": {"currentState": "REPORT", "status": "repairing",
                                                   "repairAttempts": True}},
    "missing workflow": {"workflow": None},
}


@pytest.mark.parametrize("fields", IMPOSSIBLE_STATES.values(), ids=IMPOSSIBLE_STATES.keys())
def test_a_state_edited_into_an_impossible_combination_is_refused_naming_the_file(store, root, prepared, fields):
    path = state_path(root, prepared)
    edit(path, **fields)
    before = fingerprint(path)
    with refused(str(path)):
        store.finalize(prepared, "answer")
    with refused(str(path)):
        store.status(prepared)
    assert fingerprint(path) == before


def test_a_state_cancelled_mid_chain_with_a_spent_repair_is_refused_naming_the_file(store, root, prepared):
    path = state_path(root, prepared)
    edit(path, status="cancelled", workflow={"status": "cancelled", "repairAttempts": 1})
    with refused(str(path)):
        store.status(prepared)


def test_malformed_state_json_is_refused_naming_the_file(store, root, prepared):
    path = state_path(root, prepared)
    path.write_text('{"executionId": "exec_search1", ', encoding="utf-8")
    with refused(f"{path}: not readable JSON"):
        store.finalize(prepared, "answer")


def test_a_state_json_that_is_not_an_object_is_refused_naming_the_file(store, root, prepared):
    path = state_path(root, prepared)
    path.write_text("[]", encoding="utf-8")
    with refused(f"{path}: expected a JSON object"):
        store.finalize(prepared, "answer")


def test_malformed_policy_json_is_refused_naming_the_file(store, root, prepared):
    path = root / prepared / "policy.json"
    path.write_text("not json", encoding="utf-8")
    with refused(f"{path}: not readable JSON"):
        store.finalize(prepared, "answer")


UNTRUSTED_FILES = {
    "deep": (b"[" * 5000 + b"]" * 5000, "not readable JSON (nested more than 100 levels deep)"),
    "binary": (b'{"executionId": "\xff"}', "not readable JSON (not UTF-8 text (byte 17))"),
    "huge int": (b'{"n": ' + b"9" * 5000 + b"}",
                 "not readable JSON (an integer of 5000 digits, over the limit of 100)"),
}


@pytest.mark.parametrize("name", ["policy.json", "state.json"])
@pytest.mark.parametrize(("content", "problem"), UNTRUSTED_FILES.values(), ids=UNTRUSTED_FILES.keys())
def test_a_deep_binary_or_huge_int_execution_file_is_refused_as_corrupt_naming_it(
        store, root, prepared, name, content, problem):
    """Each was a traceback or a message naming nothing; now EXECUTION_CORRUPT names the file."""
    path = root / prepared / name
    path.write_bytes(content)
    with pytest.raises(WorkflowError) as error:
        store.status(prepared)
    assert (error.value.code, error.value.message) == ("EXECUTION_CORRUPT", f"{path}: {problem}")


@pytest.mark.parametrize("name", ["policy.json", "state.json"])
def test_a_symlinked_execution_file_is_refused_as_corrupt_not_followed(store, root, prepared, tmp_path, name):
    """A link to a copy elsewhere (a key file, a FIFO) is not read through, even when the copy is valid."""
    path = root / prepared / name
    elsewhere = tmp_path / name
    path.rename(elsewhere)
    path.symlink_to(elsewhere)
    with pytest.raises(WorkflowError) as error:
        store.finalize(prepared, "answer")
    assert (error.value.code, error.value.message) == (
        "EXECUTION_CORRUPT", f"{path} is a symbolic link, which alp_nb does not follow")
    assert path.is_symlink()


def test_a_link_planted_at_state_json_before_the_write_is_refused_not_replaced(
        store, root, prepared, tmp_path, monkeypatch):
    """A link appearing between the read and the write is reported, and what it names is untouched."""
    path = state_path(root, prepared)
    target = tmp_path / "profile"
    target.write_text("kept\n")
    read_state = executions_module._parse_state

    def plant_after_reading(data, where):
        state = read_state(data, where)
        path.unlink()
        path.symlink_to(target)
        return state

    monkeypatch.setattr(executions_module, "_parse_state", plant_after_reading)
    with pytest.raises(WorkflowError) as error:
        store.finalize(prepared, "Found it in src/app.py")
    assert (error.value.code, error.value.message) == (
        "EXECUTION_CORRUPT", f"{path} is a symbolic link, which alp_nb does not follow; it was left untouched")
    assert path.is_symlink()
    assert target.read_text() == "kept\n"


EDITED_POLICIES = {
    "mode": {"mode": "high"},
    "allowed tools": {"allowedTools": ["Read", "Glob", "Grep", "Bash", "Skill", "Write"]},
    "workspace mode": {"workspaceMode": "workspace-write"},
    "unknown workspace mode": {"workspaceMode": "everything"},
    "missing workspace": {"workspace": None},
}


@pytest.mark.parametrize("fields", EDITED_POLICIES.values(), ids=EDITED_POLICIES.keys())
def test_an_edited_policy_snapshot_is_refused_as_stale(store, root, prepared, fields):
    edit(root / prepared / "policy.json", **fields)
    with refused("execution policy snapshot is invalid or stale"):
        store.finalize(prepared, "answer")


@pytest.mark.parametrize("mode", ["turbo", None])
def test_a_policy_snapshot_with_an_unknown_mode_is_refused_as_stale(store, root, prepared, mode):
    edit(root / prepared / "policy.json", mode=mode)
    with refused("execution policy snapshot is invalid or stale"):
        store.finalize(prepared, "answer")


def test_an_edited_policy_is_stale_even_with_both_hashes_recomputed(store, root, prepared):
    policy_path = root / prepared / "policy.json"
    policy = read(policy_path)
    policy["allowedTools"].append("Write")
    rest = {key: value for key, value in policy.items() if key != "policyHash"}
    policy["policyHash"] = hashlib.sha256(canonical_json(rest).encode("utf-8")).hexdigest()
    policy_path.write_text(json.dumps(policy), encoding="utf-8")
    edit(state_path(root, prepared), policyHash=policy["policyHash"])
    with refused("execution policy snapshot is invalid or stale"):
        store.finalize(prepared, "answer")


def test_a_policy_hash_edited_in_policy_json_alone_is_a_mismatch(store, root, prepared):
    edit(root / prepared / "policy.json", policyHash="f" * 64)
    with refused("execution state policy hash mismatch"):
        store.finalize(prepared, "answer")


def test_a_definition_changed_since_prepare_is_refused(store, root, workspace):
    store.prepare(edited_registry("search"), "search", workspace=workspace, execution_id="exec_edited")
    before = fingerprint(state_path(root, "exec_edited"))
    with refused("no definition for `search` matching the hash this execution ran with"):
        store.finalize("exec_edited", "answer", registry=edited_registry("search", "Edited again."))
    assert fingerprint(state_path(root, "exec_edited")) == before


def test_a_builtin_execution_finalises_beside_a_project_definition_of_the_same_role(store, prepared):
    assert store.finalize(prepared, "answer", registry=edited_registry("search")).ok


def test_an_execution_prepared_with_an_edited_definition_finalises_only_with_it(store, root, workspace):
    registry = edited_registry("search")
    store.prepare(registry, "search", workspace=workspace, execution_id="exec_edited")
    with refused("no definition for `search` matching the hash this execution ran with"):
        store.finalize("exec_edited", "answer")
    assert store.finalize("exec_edited", "answer", registry=registry).ok
