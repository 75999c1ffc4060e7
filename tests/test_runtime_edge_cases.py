"""Edge cases of the workflow runtime found in a second review: each test holds one rule of the issue or the design."""

from __future__ import annotations

import asyncio
import os
import threading
from types import SimpleNamespace

import pytest

from alp_nb.runtime import (
    EventStream,
    RunStore,
    WorkflowInputError,
    WorkflowRegistry,
    list_workflows,
    run_workflow,
    saved_workflow,
)
from alp_nb.runtime.anthropic_runner import AnthropicAgentRunner


def _workflows() -> WorkflowRegistry:
    workflows = WorkflowRegistry()

    @saved_workflow(name="pair", description="two calls at once", phases=["Fan"], registry=workflows)
    async def pair(ctx, args):
        ctx.phase("Fan")
        return await ctx.parallel([lambda: ctx.agent("first", label="first"),
                                   lambda: ctx.agent("second", label="second")])

    @saved_workflow(name="bad-stage", description="a pipeline given a stage that is not callable",
                    registry=workflows)
    async def bad_stage(ctx, args):
        return await ctx.pipeline(["a"], "not a stage")

    return workflows


class _SyncClient:
    """A fake synchronous Anthropic client (``anthropic.Anthropic``): ``messages.create`` blocks like the real one."""

    def __init__(self) -> None:
        self.messages = self
        self.active = 0
        self.peak = 0
        self._lock = threading.Lock()
        self._overlapped = threading.Event()

    def create(self, **request):
        with self._lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
            if self.active == 2:
                self._overlapped.set()
        # block until the sibling call is made too, as it is unless this call blocks the event loop; the
        # generous timeout only keeps a blocked loop from hanging the test (it then fails, peak 1)
        self._overlapped.wait(timeout=60)
        with self._lock:
            self.active -= 1
        return SimpleNamespace(content=[SimpleNamespace(type="text", text="ok")],
                               usage=SimpleNamespace(input_tokens=1, output_tokens=1))


def test_sync_anthropic_client_calls_do_not_block_the_event_loop(tmp_path):
    client = _SyncClient()
    run = asyncio.run(run_workflow("pair", store=RunStore(tmp_path), registry=_workflows(),
                                   runner=AnthropicAgentRunner(client)))
    assert run.status == "completed"
    assert client.peak == 2


def test_event_stream_ends_when_a_launch_is_refused_for_a_bad_store(tmp_path):
    async def scenario():
        stream = EventStream()
        with pytest.raises(WorkflowInputError, match="store"):
            await run_workflow("pair", store=5, registry=_workflows(), on_event=stream)
        return await asyncio.wait_for(stream.__anext__(), 1)

    assert asyncio.run(scenario())["type"] == "task_notification"


def test_pipeline_stage_that_is_not_callable_is_named_in_the_error(tmp_path):
    run = asyncio.run(run_workflow("bad-stage", store=RunStore(tmp_path), registry=_workflows()))
    assert run.status == "failed"
    assert "pipeline" in run.error and "stage" in run.error


def test_two_runs_in_one_process_can_point_last_run_at_the_same_time(tmp_path, monkeypatch):
    store = RunStore(tmp_path)
    store.root.mkdir(exist_ok=True)
    first, second = "wf_a_" + "0" * 16, "wf_b_" + "1" * 16
    real_replace = os.replace
    interleaved = []

    def replace_after_another_thread(source, target):
        if not interleaved:  # another thread's set_last_run runs between this one's write and its rename
            interleaved.append(True)
            store.set_last_run(second, fsync=False)
        real_replace(source, target)

    monkeypatch.setattr("alp_nb.runtime.store.os.replace", replace_after_another_thread)
    store.set_last_run(first, fsync=False)
    assert store.last_run() == first


def test_every_event_has_a_timestamp_even_for_a_refused_launch(tmp_path):
    events = []
    with pytest.raises(WorkflowInputError):
        asyncio.run(run_workflow("no-such-workflow", store=RunStore(tmp_path), registry=_workflows(),
                                 on_event=events.append))
    assert [event["type"] for event in events] == ["task_notification"]
    assert isinstance(events[0].get("ts"), float)


def test_an_args_schema_whose_ref_points_nowhere_is_refused_at_registration():
    workflows = WorkflowRegistry()
    with pytest.raises(WorkflowInputError, match=r"meta.args is not a valid JSON Schema: .*`#/\$defs/missing`"):
        @saved_workflow(name="dangling", description="args schema points nowhere", registry=workflows,
                        args={"type": "object", "properties": {"topic": {"$ref": "#/$defs/missing"}}})
        async def dangling(ctx, args):
            return args
    assert "dangling" not in [meta.name for meta in list_workflows(workflows)]


def test_an_agent_schema_whose_ref_points_nowhere_fails_the_run_naming_it(tmp_path):
    workflows = WorkflowRegistry()

    @saved_workflow(name="dangling-call", description="an agent schema points nowhere", registry=workflows)
    async def dangling_call(ctx, args):
        return await ctx.agent("x", schema={"$ref": "#/$defs/missing"}, label="x")

    run = asyncio.run(run_workflow("dangling-call", store=RunStore(tmp_path), registry=workflows))
    assert run.status == "failed" and "`#/$defs/missing`" in run.error
