"""The Workflow tool adapter, the notebook-friendly sync entry point, the sample workflow and the
Anthropic runner (with a fake client: no network, no package needed)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from types import SimpleNamespace

import pytest
from runtime_support import journal_records, registry

from alp_nb.runtime import (
    WORKFLOW_TOOL,
    AnthropicAgentRunner,
    RunStore,
    WorkflowInputError,
    call_workflow_tool,
    resume_workflow,
    run_workflow_sync,
)
from alp_nb.runtime.sample import VERDICT_SCHEMA


def tool(tool_input, store, **options):
    return asyncio.run(call_workflow_tool(tool_input, store=store, registry=registry(), **options))


def test_workflow_tool_schema_is_the_seed_one():
    assert WORKFLOW_TOOL == {
        "name": "Workflow",
        "input_schema": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "args": {"type": "object"},
                           "resume_from_run_id": {"type": "string"}},
            "required": ["name"],
            "additionalProperties": False,
        },
    }


def test_tool_call_returns_the_json_safe_launch_result_and_task(store):
    result = tool({"name": "sequence", "args": {"calls": 1}}, store)
    assert json.loads(json.dumps(result)) == result
    assert set(result) == {"launched", "result", "task"}
    assert result["result"] == ["mock answer to step-0"] and result["task"]["status"] == "completed"
    assert result["launched"]["runId"] == result["task"]["runId"] and result["launched"]["resumed"] is False


def test_tool_call_resumes_by_run_id(store):
    first = tool({"name": "sequence"}, store)
    again = tool({"name": "sequence", "resume_from_run_id": first["launched"]["runId"]}, store)
    assert again["launched"]["resumed"] is True and again["task"]["usage"]["attempt"]["agents"] == 0


@pytest.mark.parametrize(("tool_input", "code"), [
    ({"name": "no-such-workflow"}, "UNKNOWN_WORKFLOW"),
    ({"name": "sequence", "args": ["not", "an", "object"]}, "INVALID_TOOL_INPUT"),
    ({"args": {}}, "INVALID_TOOL_INPUT"),
    ({"name": "sequence", "code": "print()"}, "INVALID_TOOL_INPUT"),
    ("just text", "INVALID_TOOL_INPUT"),
    ({"name": "sequence", "args": {"budget": -1}}, "INVALID_ARGS"),
    ({"name": "sequence", "resume_from_run_id": "../../etc/x"}, "INVALID_RUN_ID"),
])
def test_tool_call_turns_bad_input_into_an_error_result_not_an_exception(store, tool_input, code):
    result = tool(tool_input, store)
    assert result["isError"] is True and result["error"]["code"] == code and result["error"]["message"]


def test_a_malformed_tool_input_is_named_as_input_not_output(store):
    result = tool({"name": "sequence", "workflow": "x"}, store)
    assert result["error"]["message"] == (
        "Workflow tool input: Additional properties are not allowed ('workflow' was unexpected)")


def test_the_workflow_tool_turns_deeply_nested_args_into_an_error_result(store):
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    result = tool({"name": "sequence", "args": {"deep": deep}}, store)
    assert result["isError"] is True and result["error"]["code"] == "INVALID_ARGS"
    assert "args" in result["error"]["message"]


def test_run_workflow_sync_works_from_a_plain_script(store):
    result = run_workflow_sync("sequence", store=store, registry=registry())
    assert result.status == "completed"


def test_run_workflow_sync_works_inside_a_running_event_loop_like_a_notebook_cell(tmp_path):
    code = (
        "import asyncio, sys\n"
        "from alp_nb.runtime import run_workflow_sync\n"
        "async def cell():\n"
        "    return run_workflow_sync('review-changes', {'changes': 'x'}, store=sys.argv[1])\n"
        "print(asyncio.run(cell()).status)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "runs")], check=False,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "completed"


def test_resume_workflow_defaults_to_the_last_run_under_its_saved_name_and_args(store):
    first = run_workflow_sync("sequence", {"calls": 2}, store=store, registry=registry())
    again = asyncio.run(resume_workflow(store=store, registry=registry()))
    assert again.run_id == first.run_id and again.result == first.result and again.launched.attempt == 2
    with pytest.raises(WorkflowInputError) as caught:
        asyncio.run(resume_workflow(store=RunStore(store.root / "empty")))
    assert caught.value.code == "RUN_NOT_FOUND"


def test_review_changes_sample_confirms_only_findings_verified_real(store):
    result = run_workflow_sync("review-changes", {"changes": "diff --git a/x b/x"}, store=store)
    verdicts = {line["label"]: line["value"] for line in journal_records(store, result.run_id)
                if line["label"].startswith("verify:")}
    real = sorted(label.split(":", 2)[2] for label, verdict in verdicts.items() if verdict["isReal"])
    assert sorted(finding["title"] for finding in result.result["confirmed"]) == real
    assert result.task.logs == (f"Confirmed {len(real)} real issues",)
    phases = {phase.title: phase.done for phase in result.task.phases}
    assert phases == {"Review": 4, "Verify": len(verdicts)}


class FakeMessages:
    def __init__(self, replies):
        self.replies, self.requests = list(replies), []

    async def create(self, **request):
        self.requests.append(request)
        return SimpleNamespace(content=[SimpleNamespace(type="text", text=self.replies.pop(0))],
                               usage=SimpleNamespace(input_tokens=11, output_tokens=4))


def test_anthropic_runner_asks_for_schema_json_parses_it_and_reports_tokens():
    messages = FakeMessages(['```json\n{"isReal": true}\n```'])
    runner = AnthropicAgentRunner(SimpleNamespace(messages=messages), model="claude-test")
    output = asyncio.run(runner.run("Verify", VERDICT_SCHEMA, "verify:x"))
    assert output.value == {"isReal": True} and output.tokens == 15
    (request,) = messages.requests
    assert request["model"] == "claude-test" and request["messages"][0]["content"].startswith("Verify\n\n")
    assert json.dumps(VERDICT_SCHEMA) in request["messages"][0]["content"]


def test_anthropic_runner_drives_a_workflow_with_a_retry_on_prose(store):
    messages = FakeMessages(["Sure! It is real.", '{"isReal": false}'])
    runner = AnthropicAgentRunner(SimpleNamespace(messages=messages))
    workflows = registry()

    async def verify(ctx, args):
        return await ctx.agent("Verify", schema=VERDICT_SCHEMA, label="v")

    workflows.register({"name": "verify", "description": "d"}, verify)
    result = asyncio.run(call_workflow_tool({"name": "verify"}, store=store, registry=workflows, runner=runner))
    assert result["result"] == {"isReal": False} and result["task"]["usage"]["attempt"]["tokens"] == 30


def test_anthropic_runner_without_the_package_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "anthropic", None)
    with pytest.raises(WorkflowInputError) as caught:
        asyncio.run(AnthropicAgentRunner().run("p", None, "l"))
    assert caught.value.code == "RUNNER_UNAVAILABLE" and "alp_nb[anthropic]" in caught.value.message
