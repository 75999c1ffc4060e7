"""A SIGKILL at any instant leaves a run that resumes to the clean result, or no run at all, never one that can
never be resumed; and after it every token the runner handed back is on disk or reserved as unknown spend.

``kill_points.py`` kills a run at every write of its store (each journal and events append, each rename of a whole
file, a fork's copied journal included), then resumes it in a fresh process until it finishes. Each write is killed
one of three ways: before the write, half way through it or after it, the ways taking turns from one write to the
next from where a seed (``kill_seed.py``) starts them; the first write all three ways. Each scenario runs in a
process of its own, so the forks start single-threaded.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from kill_seed import VARIABLE, kill_seed

from alp_nb.replay import list_runs
from alp_nb.runtime import RunStore, WorkflowInputError

HARNESS = str(Path(__file__).with_name("kill_points.py"))
pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="fork, SIGKILL and /proc/self/fd")


def killed_everywhere(scenario: str, folder: Path, seed: int) -> tuple[list[dict], dict]:
    finished = subprocess.run([sys.executable, HARNESS, scenario, str(folder), str(seed)], capture_output=True,
                              text=True, timeout=600, cwd=Path(HARNESS).parent)
    assert finished.returncode == 0, finished.stdout[-2000:] + finished.stderr[-2000:]
    *trials, summary = (json.loads(line) for line in finished.stdout.splitlines())
    return trials, summary


@pytest.mark.parametrize("scenario", ["inline", "threads", "fork", "resume"])
def test_a_sigkill_at_every_write_of_the_store_leaves_a_run_that_resumes_to_the_clean_result(tmp_path, scenario):
    seed = kill_seed()
    trials, summary = killed_everywhere(scenario, tmp_path, seed)
    assert summary["writes"] >= 15 and len(trials) == summary["writes"] + 2  # each write once, the first thrice
    assert all(trial["killed"] for trial in trials)
    for trial in trials:
        where = f"killed {trial['mode']} write {trial['kill_at']} ({VARIABLE}={seed})"
        assert (trial["status"], trial["result"]) == ("completed", summary["clean_result"]), where
        assert set(trial["listed"]) == {"completed"}, where  # never `unreadable`, never left `running`
        assert trial["keys_journaled_twice"] == 0, where
        assert not [name for name in trial["temp_files"] if not name.startswith(".last_run.txt.")], where
        # every token handed back is recorded, or reserved as the spend of a call asked and never answered
        assert trial["journaled"] == trial["recorded"], where
        assert trial["recorded"] <= trial["handed_back"] <= trial["recorded"] + trial["reserved"], where
    if scenario != "resume":  # the resume scenario's run exists before its kills
        assert any(not trial["run_existed"] for trial in trials)  # killed before its first snapshot: no run at all
    assert any(trial["unanswered"] for trial in trials)  # killed between an ask and its answer


def test_an_empty_snapshot_left_by_an_older_writer_reads_as_a_run_that_never_started(store):
    """s16 and alp_nb before this release reserved a run with an empty snapshot; one killed right then is listed
    `never started` and a resume says how to start it again, instead of `not JSON` for ever."""
    store.root.mkdir(parents=True)
    run_id = "wf_review-changes_0123456789abcdef"
    store.paths(run_id).snapshot.write_bytes(b"")
    (row,) = list_runs(store).to_dict("records")
    assert row["status"] == "never started" and "never started" in row["error"]
    with pytest.raises(WorkflowInputError) as refused:
        RunStore(store.root).read_snapshot(run_id)
    assert refused.value.code == "RUN_NOT_STARTED"
    assert refused.value.message == (f"run `{run_id}` never started: its process stopped before it wrote "
                                     f"{run_id}.json, so nothing ran and there is nothing to resume; start the "
                                     "workflow again (alp-nb workflow run review-changes)")
