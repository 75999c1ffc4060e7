"""A workflow file loads into a registry of its own when given one: an edited copy of a saved workflow sits
beside the original under the same name, and the default registry the other tests share is left as it was."""

from pathlib import Path

import pytest

import alp_nb.runtime.sample as sample
from alp_nb.runtime import WorkflowInputError, run_workflow_sync
from alp_nb.runtime.saved_workflows import DEFAULT_REGISTRY, WorkflowRegistry, load_workflow_file


def edited_sample(tmp_path: Path) -> Path:
    source = Path(sample.__file__).read_text(encoding="utf-8")
    assert "Inspect this change for" in source
    edited = tmp_path / "edited_review.py"
    saved = "\n\nfrom alp_nb import saved_workflow\n\nsaved_workflow(**SAMPLE_META)(review_changes)\n"
    edited.write_text(source.replace("Inspect this change for", "Look hard at this change for") + saved,
                      encoding="utf-8")
    return edited


def test_an_edited_copy_of_a_saved_workflow_loads_beside_the_original_under_its_name(tmp_path):
    original = DEFAULT_REGISTRY.get("review-changes")
    mine = WorkflowRegistry()
    assert load_workflow_file(edited_sample(tmp_path), registry=mine) == ("review-changes",)
    assert DEFAULT_REGISTRY.get("review-changes") is original
    assert mine.get("review-changes").digest != original.digest
    prompts = []
    run = run_workflow_sync("review-changes", {"changes": "fix"}, store=tmp_path / "runs", registry=mine,
                            on_call=lambda call: prompts.append(call.prompt))
    assert run.status == "completed" and any(prompt.startswith("Look hard at this change for") for prompt in prompts)


def test_a_file_that_fails_to_load_leaves_later_workflows_to_the_default_registry(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('no')\n", encoding="utf-8")
    with pytest.raises(WorkflowInputError) as refused:
        load_workflow_file(broken, registry=WorkflowRegistry())
    assert refused.value.code == "INVALID_SCRIPT" and "line 1" in refused.value.message
    from alp_nb.runtime.saved_workflows import _LOADING_INTO

    assert _LOADING_INTO.get() is None


SAVES_THEN_BREAKS = """
from alp_nb import saved_workflow


@saved_workflow(name="saved-first", description="saved before the file breaks")
async def saved_first(ctx, args):
    return 1


raise RuntimeError("the file breaks after saving one workflow")
"""


def test_a_file_that_fails_part_way_registers_none_of_its_workflows(tmp_path):
    broken = tmp_path / "half.py"
    broken.write_text(SAVES_THEN_BREAKS, encoding="utf-8")
    mine = WorkflowRegistry()
    for registry in (mine, None):  # a registry of one's own, and the default one
        with pytest.raises(WorkflowInputError) as refused:
            load_workflow_file(broken, registry=registry)
        assert refused.value.message == (f"cannot load workflow file {broken} line 10: RuntimeError: the file "
                                         "breaks after saving one workflow")
    assert "saved-first" not in mine and "saved-first" not in DEFAULT_REGISTRY


def test_a_file_that_calls_sys_exit_is_refused_in_one_line_and_the_command_line_exits_2(tmp_path, capsys):
    from alp_nb.cli import main

    quits = tmp_path / "quits.py"
    quits.write_text("import sys\n\nsys.exit(3)\n", encoding="utf-8")
    with pytest.raises(WorkflowInputError) as refused:
        load_workflow_file(quits, registry=WorkflowRegistry())
    assert refused.value.message == f"cannot load workflow file {quits} line 3: it called sys.exit(3) while loading"
    code = main(["workflow", "run", "review-changes", "--script", str(quits), "--store", str(tmp_path / "runs")])
    assert (code, capsys.readouterr().err) == (2, f"alp-nb: {refused.value.message}\n")


def test_a_duplicate_name_in_a_file_registers_none_of_its_workflows(tmp_path):
    both = tmp_path / "both.py"
    both.write_text(SAVES_THEN_BREAKS.replace('raise RuntimeError("the file breaks after saving one workflow")', """
@saved_workflow(name="review-changes", description="taken")
async def taken(ctx, args):
    return 2
"""), encoding="utf-8")
    with pytest.raises(WorkflowInputError) as refused:
        load_workflow_file(both)
    assert refused.value.code == "DUPLICATE_WORKFLOW" and "saved-first" not in DEFAULT_REGISTRY
