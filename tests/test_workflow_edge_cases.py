"""Edge cases of the workflow layer found in review: each test holds one rule of the reference or the issue."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from custom_agent_files import skills_dir, write_skill
from pydantic import BaseModel

from alp_nb.agents import builtin_registry
from alp_nb.cli import main
from alp_nb.workflow import (
    ExecutionStore,
    WorkflowError,
    define_linear_workflow,
    define_output_contract,
    text_output,
)

TEXT_ISSUE = "output must be non-empty text"


@pytest.fixture
def workspace(tmp_path) -> Path:
    folder = (tmp_path / "workspace").resolve()
    folder.mkdir()
    return folder


@pytest.fixture
def store(tmp_path) -> ExecutionStore:
    return ExecutionStore(tmp_path / "executions")


# --- text_output: ALP's `trim()`, not Python's `str.strip()` -----------------------------------


def test_text_output_refuses_an_output_that_js_trim_empties():
    """Reference §5: valid iff the value is a string whose ``trim()`` is non-empty; ECMAScript trim
    removes U+FEFF (ZWNBSP), so ``"\\ufeff"`` is blank output."""
    verdict = text_output("task-result").validate("\ufeff")
    assert (verdict.ok, verdict.issues) == (False, (TEXT_ISSUE,))


@pytest.mark.parametrize("value", ["\x1f", "\x85"])
def test_text_output_accepts_an_output_that_js_trim_keeps(value):
    """ECMAScript trim removes only WhiteSpace and LineTerminator; U+001F and U+0085 are neither."""
    assert text_output("task-result").validate(value).ok


# --- define_linear_workflow: a bad state gets a WorkflowError naming it ------------------------


@pytest.mark.parametrize("states", [
    [{"id": "ASSESS", "allowed_tools": None}],
    [("ASSESS", 5)],
], ids=["tools-none", "tools-int"])
def test_define_linear_workflow_refuses_tools_that_are_not_a_list_naming_the_state(states):
    with pytest.raises(WorkflowError, match="ASSESS"):
        define_linear_workflow("w", states)


# --- prepare: nothing invalid is written --------------------------------------------------------


def test_prepare_refuses_an_unknown_workspace_mode_before_writing(store, workspace):
    """Reference §1: ``workspaceMode`` is ``read-only|workspace-write``; a bad input is refused and
    nothing reaches the disk."""
    with pytest.raises(WorkflowError, match="workspace"):
        store.prepare(builtin_registry(), "titling", workspace=workspace, workspace_mode="zzz",
                      execution_id="exec_badmode")
    assert not (store.root / "exec_badmode").exists()


# --- malformed state.json: a clear error naming the file ---------------------------------------


def test_finalize_names_a_malformed_deeply_nested_state_json(store, workspace):
    store.prepare(builtin_registry(), "search", workspace=workspace, execution_id="exec_deep")
    state = store.root / "exec_deep" / "state.json"
    state.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(WorkflowError, match=re.escape(str(state))):
        store.finalize("exec_deep", "done")


# --- context status: the reference's message for a policy without a hash ------------------------


def test_context_status_names_a_policy_file_that_carries_no_policy_hash(tmp_path, store, workspace, monkeypatch,
                                                                         capsys):
    """Reference §9 ``alp context status``: no hash → "policy file carries no policyHash: <file>"."""
    monkeypatch.chdir(workspace)
    store.prepare(builtin_registry(), "search", workspace=workspace, execution_id="exec_nohash")
    policy = store.root / "exec_nohash" / "policy.json"
    data = json.loads(policy.read_text(encoding="utf-8"))
    del data["policyHash"]
    policy.write_text(json.dumps(data), encoding="utf-8")
    code = main(["context", "status", "exec_nohash", "--root", str(store.root)])
    err = capsys.readouterr().err
    assert code != 0
    assert f"policy file carries no policyHash: {policy}" in err


# --- define_output_contract: a pydantic issue path is the path in the output --------------------


def test_pydantic_contract_issue_paths_name_the_output_field_not_union_members():
    """The issue: issues read ``<dotted.path>: <message>`` where the path locates the value in the output
    (zod's issue path); the same model as a JSON Schema dict reports the field as ``x``."""
    class Answer(BaseModel):
        x: int | str

    pydantic_issues = define_output_contract("answer", Answer).validate({"x": [1]}).issues
    schema_issues = define_output_contract("answer", Answer.model_json_schema()).validate({"x": [1]}).issues
    assert [issue.split(":")[0] for issue in schema_issues] == ["x"]
    assert pydantic_issues and all(issue.startswith("x: ") for issue in pydantic_issues)


# --- context status: the definition is resolved by hash, not by whichever one the role names now --


def test_context_status_finds_a_builtin_execution_by_hash_beside_a_project_overlay(tmp_path, store, workspace,
                                                                                    monkeypatch, capsys):
    """Reference §5 loadExecution: the definition is the built-in by role, or a project agent/overlay
    whose hash equals ``policy.definitionHash`` — resolved by hash, not by what the project now holds."""
    monkeypatch.chdir(workspace)
    store.prepare(builtin_registry(), "search", workspace=workspace, execution_id="exec_overlaid")
    write_skill(skills_dir(workspace, "search"), "house")
    code = main(["context", "status", "exec_overlaid", "--root", str(store.root)])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert "ROLE       search" in out.splitlines()
