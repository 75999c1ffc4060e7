"""``alp-nb workflow run|resume --script FILE`` and ``resume --budget N``: a workflow kept in a file, and a run
that ran out of budget finished by raising it, never told to repeat the command that would fail."""

from __future__ import annotations

import json

import pytest
from cli_support import alp_nb, batch_script, spent_batch_run
from journal_lines import journal_lines


@pytest.fixture
def script(tmp_path):
    return batch_script(tmp_path)


def test_a_run_out_of_budget_is_told_to_raise_it_and_finishes_once_raised(tmp_path, script):
    store, run_id, ran = spent_batch_run(tmp_path, script)
    budget_line = next(line for line in ran.stdout.splitlines() if line.startswith("BUDGET"))
    assert budget_line.startswith("BUDGET     30 tokens · 33 spent, 3 over")
    raise_line = next(line for line in ran.stdout.splitlines() if line.startswith("RAISE"))
    assert raise_line == (f"RAISE      the budget to go on: alp-nb workflow resume {run_id} --store {store} --script "
                          f"{script} --budget N (N above 33)")
    assert not any(line.startswith("RESUME") for line in ran.stdout.splitlines())

    refused = alp_nb("workflow", "resume", run_id, "--store", store, "--script", script)
    assert refused.returncode == 2 and "has spent its token budget" in refused.stderr
    assert "`--budget N`" in refused.stderr

    finished = alp_nb("workflow", "resume", run_id, "--store", store, "--script", script, "--budget", "100")
    assert finished.returncode == 0, finished.stderr
    snapshot = json.loads((tmp_path / "runs" / f"{run_id}.json").read_text())
    assert snapshot["status"] == "completed" and snapshot["budget"] == 100
    assert [attempt["budget"] for attempt in snapshot["attempts"]] == [30, 100]


def test_resuming_a_workflow_kept_in_a_file_without_the_file_names_the_option(tmp_path, script):
    store = str(tmp_path / "runs")
    assert alp_nb("workflow", "run", "batch-review", "--script", script, "--store", store).returncode == 0
    run_id = (tmp_path / "runs" / "last_run.txt").read_text().strip()
    missing = alp_nb("workflow", "resume", run_id, "--store", store)
    assert missing.returncode == 2
    assert "unknown workflow `batch-review` (saved: review-changes)" in missing.stderr
    assert "`--script path`" in missing.stderr


def test_a_script_file_that_breaks_is_named_with_its_line(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("from alp_nb import saved_workflow\n\nraise ValueError('not ready')\n")
    result = alp_nb("workflow", "run", "batch-review", "--script", str(broken), "--store", str(tmp_path / "runs"))
    assert result.returncode == 2
    assert f"cannot load workflow file {broken} line 3: ValueError: not ready" in result.stderr
    empty = tmp_path / "empty.py"
    empty.write_text("x = 1\n")
    result = alp_nb("workflow", "run", "batch-review", "--script", str(empty), "--store", str(tmp_path / "runs"))
    assert result.returncode == 2 and "saves no workflow: decorate its script with @saved_workflow" in result.stderr


OWN_REVIEW = '''\
from alp_nb import saved_workflow


@saved_workflow(name="review-changes", description="our own review, one call")
async def review_changes(ctx, args):
    return await ctx.agent(f"our own look at {args['changes']}", label="our-review")
'''


def test_a_script_that_saves_its_own_review_changes_runs_that_version_from_the_command_line(tmp_path):
    """The file's workflows go into a registry of their own that falls back on the default one, so a name the
    default registry already holds is the file's own for that command, and only for it."""
    script = tmp_path / "own_review.py"
    script.write_text(OWN_REVIEW)
    store = str(tmp_path / "runs")
    ran = alp_nb("workflow", "run", "review-changes", "--script", str(script), "--args", '{"changes": "x"}',
                 "--store", store)
    assert ran.returncode == 0, ran.stderr
    run_id = (tmp_path / "runs" / "last_run.txt").read_text().strip()
    lines = journal_lines(tmp_path / "runs" / f"{run_id}.journal.jsonl")
    assert [line["label"] for line in lines if line["kind"] == "agent"] == ["our-review"]
    resumed = alp_nb("workflow", "resume", run_id, "--script", str(script), "--store", store)
    assert resumed.returncode == 0 and "0 done, 1 cached" in resumed.stdout
    builtin = alp_nb("workflow", "run", "review-changes", "--args", '{"changes": "x"}', "--store", store)
    assert builtin.returncode == 0 and "calls    10 made" in builtin.stdout  # without the file: the built-in one
