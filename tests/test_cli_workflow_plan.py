"""``alp-nb workflow plan [RUN_ID] [--store DIR] [--script FILE] [--budget N]``: what a resume would do, printed
call by call, live ones with their reason; nothing written, exit 0; a refusal is one line on stderr, exit 2."""

from __future__ import annotations

import asyncio
import re

import pytest
from cli_support import alp_nb, batch_script, spent_batch_run
from runtime_support import FailingRunner

from alp_nb.cli import main
from alp_nb.runtime import RunStore, run_workflow


def line_of(out: str, label: str) -> str:
    return next(line for line in out.splitlines() if re.search(rf"\s{re.escape(label)}\s", line))


def test_workflow_plan_on_a_failed_run_prints_the_live_calls_with_their_reasons(tmp_path, capsys):
    store = RunStore(tmp_path / "runs")
    run = asyncio.run(run_workflow("review-changes", {"changes": "rename parse() to load()"}, store=store,
                                   runner=FailingRunner({"audit:performance"})))
    files = {path.name: path.read_bytes() for path in store.root.iterdir()}
    assert main(["workflow", "plan", run.run_id, "--store", str(store.root)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"PLAN       resume of {run.run_id} · review-changes · run failed\n")
    assert re.fullmatch(r"3 +live +audit:performance +failed before +RuntimeError: runner broke on audit:performance",
                        line_of(out, "audit:performance"))
    assert "downstream of a live call" in line_of(out, "verify:performance:title-5030")
    assert re.fullmatch(r"1 +cached +audit:correctness +25", line_of(out, "audit:correctness"))
    assert {path.name: path.read_bytes() for path in store.root.iterdir()} == files

    assert main(["workflow", "plan", "--store", str(store.root)]) == 0  # the store's last run
    assert capsys.readouterr().out == out
    assert main(["workflow", "plan", run.run_id, "--store", str(store.root), "--budget", "100"]) == 2
    assert capsys.readouterr().err == (f"alp-nb: run `{run.run_id}` has no token budget to raise: its args set "
                                       "none\n")


@pytest.fixture
def script(tmp_path):
    return batch_script(tmp_path)


def test_workflow_plan_with_script_plans_a_workflow_kept_in_a_file_and_names_the_budget_to_raise(tmp_path, script):
    store, run_id, _ = spent_batch_run(tmp_path, script)

    planned = alp_nb("workflow", "plan", run_id, "--store", store, "--script", script)
    assert planned.returncode == 0, planned.stderr
    refused = next(line for line in planned.stdout.splitlines() if line.startswith("REFUSED"))
    assert "has spent 33 tokens of its budget of 30" in refused and "`--budget N`" in refused
    assert re.search(r"item-3 +never journaled", planned.stdout)

    raised = alp_nb("workflow", "plan", run_id, "--store", store, "--script", script, "--budget", "100")
    assert raised.returncode == 0, raised.stderr
    assert "REFUSED" not in raised.stdout and "BUDGET     100 tokens (raised by this plan) · 33 spent" in raised.stdout

    missing = alp_nb("workflow", "plan", run_id, "--store", store)
    assert missing.returncode == 2 and missing.stdout == ""
    assert "unknown workflow `batch-review`" in missing.stderr and "`--script path`" in missing.stderr


def test_plan_and_resume_of_an_s16_run_whose_args_hold_a_null_budget_work(tmp_path):
    """The s16 reference may write ``"budget": null``: no budget, which a plan and a resume accept."""
    from s16_support import CRASH, CRASHED_CALLS, write_s16_run

    store, run_id = write_s16_run(tmp_path / ".runtime", "review-changes", status="failed", calls=CRASHED_CALLS,
                                  output={"error": CRASH}, args={"changes": "diff", "budget": None})
    planned = alp_nb("workflow", "plan", "--store", str(store.root))
    assert planned.returncode == 0, planned.stderr
    assert f"PLAN       resume of {run_id} · review-changes · run failed" in planned.stdout.splitlines()
    assert "BUDGET     no token budget" in planned.stdout
    resumed = alp_nb("workflow", "resume", "--store", str(store.root))
    assert resumed.returncode == 0, resumed.stderr
    assert "STATUS     completed" in resumed.stdout and "BUDGET" not in resumed.stdout
