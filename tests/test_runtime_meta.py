"""Saved-workflow metadata, the registry, the decorator and the shipped ``review-changes`` sample."""

from __future__ import annotations

import asyncio

import pytest

from alp_nb.runtime import (
    DEFAULT_REGISTRY,
    WorkflowInputError,
    WorkflowMeta,
    WorkflowRegistry,
    list_workflows,
    run_workflow,
    saved_workflow,
    validate_meta,
)
from alp_nb.runtime.meta import validate_args
from alp_nb.runtime.snapshot import parse_snapshot, run_budget


def _refusal(meta) -> str:
    with pytest.raises(WorkflowInputError) as caught:
        validate_meta(meta)
    assert caught.value.code == "INVALID_META"
    return caught.value.message


def test_valid_meta_becomes_a_frozen_record_with_tuple_phases():
    meta = validate_meta({"name": "review-changes", "description": "Review", "phases": ["Review", "Verify"]})
    assert meta == WorkflowMeta(name="review-changes", description="Review", phases=("Review", "Verify"))
    with pytest.raises(AttributeError):
        meta.name = "other"


def test_a_record_made_in_code_with_a_value_that_is_not_json_is_refused_naming_its_type_when_written():
    meta = WorkflowMeta(name="review-changes", description=object())  # a struct checks types when read, not made
    with pytest.raises(TypeError, match="a record cannot hold a object: it is not JSON"):
        meta.to_json()


def test_meta_must_be_an_object():
    assert _refusal(["name"]) == "meta must be an object literal"


@pytest.mark.parametrize("meta", [{"name": "x"}, {"description": "d"}, {"name": "", "description": "d"}])
def test_meta_requires_name_and_description(meta):
    assert _refusal(meta) == "meta requires name and description"


@pytest.mark.parametrize("name", ["-leading-dash", "has space", "a/b", "../x", "x" * 65, "é", 42, "a\n"])
def test_meta_name_must_be_a_safe_slug_of_1_to_64_characters(name):
    assert _refusal({"name": name, "description": "d"}) == "meta.name must be a safe 1-64 character slug"


def test_meta_name_of_64_characters_with_dots_underscores_and_dashes_is_accepted():
    assert validate_meta({"name": "a" + "._-" * 21, "description": "d"}).name == "a" + "._-" * 21


@pytest.mark.parametrize("phases", ["Review", ["Review", ""], ["Review", 3]])
def test_meta_phases_must_be_non_empty_strings(phases):
    assert _refusal({"name": "x", "description": "d", "phases": phases}) == "meta.phases must contain non-empty strings"


def test_meta_with_an_unknown_field_is_refused_naming_it():
    assert _refusal({"name": "x", "description": "d", "code": "print()"}) == "meta has unknown field `code`"


def test_registry_refuses_invalid_meta_at_registration_before_anything_runs():
    ran = []

    async def script(ctx, args):
        ran.append(True)

    with pytest.raises(WorkflowInputError) as caught:
        WorkflowRegistry().register({"name": "bad name", "description": "d"}, script)
    assert caught.value.code == "INVALID_META" and ran == []


def test_registry_refuses_a_script_that_is_not_an_async_function():
    with pytest.raises(WorkflowInputError, match="must be an async function"):
        WorkflowRegistry().register({"name": "x", "description": "d"}, lambda ctx, args: None)


def test_registry_refuses_a_second_script_under_the_same_name():
    registry = WorkflowRegistry()

    async def first(ctx, args): ...

    async def second(ctx, args): ...

    registry.register({"name": "x", "description": "d"}, first)
    with pytest.raises(WorkflowInputError) as caught:
        registry.register({"name": "x", "description": "d"}, second)
    assert caught.value.code == "DUPLICATE_WORKFLOW"


def test_registering_the_same_function_again_replaces_it_like_a_rerun_notebook_cell():
    registry = WorkflowRegistry()

    async def script(ctx, args): ...

    registry.register({"name": "x", "description": "old"}, script)
    registry.register({"name": "x", "description": "new"}, script)
    assert [meta.description for meta in registry.list()] == ["new"]


def test_unknown_workflow_name_is_an_error_listing_the_saved_ones():
    registry = WorkflowRegistry()

    async def script(ctx, args): ...

    registry.register({"name": "known", "description": "d"}, script)
    with pytest.raises(WorkflowInputError) as caught:
        registry.get("missing")
    assert caught.value.code == "UNKNOWN_WORKFLOW" and "known" in caught.value.message


def test_saved_workflow_decorator_registers_into_the_given_registry_and_returns_the_function():
    registry = WorkflowRegistry()

    @saved_workflow(name="decorated", description="Decorated", phases=["One"], registry=registry)
    async def decorated(ctx, args):
        return 1

    assert registry.get("decorated").fn is decorated
    assert list_workflows(registry) == (WorkflowMeta(name="decorated", description="Decorated", phases=("One",)),)
    assert "decorated" not in DEFAULT_REGISTRY


def test_default_registry_ships_the_review_changes_sample_declaring_its_args():
    (meta,) = [meta for meta in list_workflows() if meta.name == "review-changes"]
    assert (meta.name, meta.description, meta.phases) == ("review-changes", "Review code changes", ("Review", "Verify"))
    assert meta.args["required"] == ("changes",) and meta.args["additionalProperties"] is False


def test_script_digest_changes_with_the_script_source():
    registry = WorkflowRegistry()

    async def one(ctx, args):
        return 1

    async def two(ctx, args):
        return 2

    registry.register({"name": "one", "description": "d"}, one)
    registry.register({"name": "two", "description": "d"}, two)
    assert registry.get("one").digest != registry.get("two").digest


# --- declared args --------------------------------------------------------------------------------

TOPIC_ARGS = {"type": "object", "properties": {"topic": {"type": "string"}}, "required": ["topic"],
              "additionalProperties": False}


@pytest.mark.parametrize("args", [[], {"type": "no-such-type"}, {"required": "topic"}])
def test_an_args_schema_that_is_not_a_json_schema_object_is_refused_at_registration(args):
    assert _refusal({"name": "x", "description": "d", "args": args}).startswith("meta.args ")


@pytest.fixture
def declared(tmp_path):
    ran = []
    workflows = WorkflowRegistry()

    @saved_workflow(name="topical", description="takes a topic", args=TOPIC_ARGS, registry=workflows)
    async def topical(ctx, args):
        ran.append(args)
        return await ctx.agent(f"about {args['topic']}", label="about")

    @saved_workflow(name="outer", description="nests topical", registry=workflows)
    async def outer(ctx, args):
        return await ctx.workflow("topical", args["inner"])

    return workflows, ran, tmp_path / "runs"


@pytest.mark.parametrize(("args", "named"), [
    ({"topc": "x"}, ("args.topic: 'topic' is a required property; "
                     "args: Additional properties are not allowed ('topc' was unexpected)")),
    ({"topic": 3}, "args.topic: 3 is not of type 'string'"),
    (None, "args.topic: 'topic' is a required property"),
])
def test_args_that_break_the_declared_schema_are_refused_naming_the_key_before_the_script_runs(declared, args, named):
    workflows, ran, store = declared
    with pytest.raises(WorkflowInputError) as refused:
        asyncio.run(run_workflow("topical", args, store=store, registry=workflows))
    assert refused.value.code == "INVALID_ARGS"
    assert refused.value.message == f"args do not match what `topical` takes: {named}"
    assert ran == [] and not store.exists()


def test_the_runtime_budget_arg_is_allowed_beside_declared_args(declared):
    workflows, ran, store = declared
    run = asyncio.run(run_workflow("topical", {"topic": "x", "budget": 1000}, store=store, registry=workflows))
    assert run.status == "completed" and ran == [{"topic": "x", "budget": 1000}]


def test_a_nested_workflow_checks_its_declared_args_and_the_run_fails_naming_them(declared):
    workflows, ran, store = declared
    run = asyncio.run(run_workflow("outer", {"inner": {"subject": "x"}}, store=store, registry=workflows))
    assert run.status == "failed" and ran == []
    assert run.error.startswith("workflow `topical` args do not match what `topical` takes: ")
    assert "('subject' was unexpected)" in run.error


@pytest.mark.parametrize("budget", [0, -1, 1.5, "100", True, [100]])
def test_a_budget_arg_must_be_a_positive_whole_number_of_tokens(budget):
    with pytest.raises(WorkflowInputError, match=r"args.budget must be a positive integer number of tokens, or null"):
        validate_args({"budget": budget})


def test_a_null_budget_arg_means_no_budget():
    """The s16 reference's runs may hold ``"budget": null``: a run under no budget, resumed as it was launched."""
    assert validate_args({"changes": "x", "budget": None}) == {"changes": "x", "budget": None}
    assert run_budget(parse_snapshot({"runId": "wf_x_0123456789abcdef", "taskId": "t", "workflowName": "x",
                                      "args": {"budget": None}, "status": "failed"}, "x.json")) is None


def test_a_registry_with_a_fallback_finds_its_own_workflows_first_then_the_fallback_s():
    async def mine(ctx, args):
        return "mine"

    own = WorkflowRegistry(fallback=DEFAULT_REGISTRY)
    own.register({"name": "review-changes", "description": "my own review"}, mine)
    own.register({"name": "extra", "description": "only here"}, mine)
    assert own.get("review-changes").fn is mine and DEFAULT_REGISTRY.get("review-changes").fn is not mine
    assert "extra" in own and "extra" not in DEFAULT_REGISTRY and len(own) == len(DEFAULT_REGISTRY) + 1
    names = [meta.name for meta in own.list()]
    assert names == sorted(names) and names.count("review-changes") == 1
    assert next(meta for meta in own.list() if meta.name == "review-changes").description == "my own review"
    with pytest.raises(WorkflowInputError, match=r"unknown workflow `nope` \(saved: extra, review-changes\)"):
        own.get("nope")


def test_a_fallback_must_be_a_registry():
    with pytest.raises(WorkflowInputError, match="fallback must be a WorkflowRegistry, not dict") as refused:
        WorkflowRegistry(fallback={})
    assert refused.value.code == "INVALID_OPTION"
