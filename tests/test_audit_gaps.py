"""Rules of issues 3 and 4 an audit found unheld: nested models as ``$ref`` for the mock runner, and a
custom workflow's snapshot drawn with its state machine."""

from __future__ import annotations

import asyncio

import jsonschema
from pydantic import BaseModel

from alp_nb.runtime import MockAgentRunner, RunStore, WorkflowRegistry, run_workflow
from alp_nb.viz.models.palette import CURRENT
from alp_nb.viz.rendering import render
from alp_nb.workflow import WorkflowRunner, define_linear_workflow


class Finding(BaseModel):
    title: str


class Report(BaseModel):
    findings: list[Finding]


def test_mock_runner_honours_nested_objects_given_as_refs_the_way_pydantic_writes_them():
    schema = Report.model_json_schema()
    value = MockAgentRunner().run("review", schema, "review").value
    assert jsonschema.Draft202012Validator(schema).is_valid(value)


def test_a_schema_from_a_nested_pydantic_model_runs_with_the_mock_runner(tmp_path):
    workflows = WorkflowRegistry()

    async def review(ctx, args):
        return await ctx.agent("review", schema=Report.model_json_schema())

    workflows.register({"name": "review", "description": "d"}, review)
    run = asyncio.run(run_workflow("review", store=RunStore(tmp_path), registry=workflows))
    assert run.status == "completed"


def test_a_snapshot_of_a_custom_workflow_renders_its_state_machine_with_the_current_state_highlighted():
    definition = define_linear_workflow("custom-flow", [("SCOPE", ["Read"]), ("WRITE", [])])
    snapshot = WorkflowRunner().initialize(definition)
    html = render(snapshot, "html")
    scope = html[html.index('data-node="state:SCOPE"'):html.index('data-node="state:WRITE"')]
    assert f'fill="{CURRENT[0]}"' in scope  # the state it is in is drawn amber, the next one not
    assert f'fill="{CURRENT[0]}"' not in html[html.index('data-node="state:WRITE"'):].split("</g>")[0]
