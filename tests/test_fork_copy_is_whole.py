"""A fork exists only once the journal it copies from its source is whole: a full disk during the copy leaves no
run, a fork snapshot without its copied lines is refused naming them, and what a kill before a fork's first
snapshot left is removed by the next run of the store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from runtime_support import SUPPORT, review

from alp_nb.replay import fork_run, load_run
from alp_nb.runtime import RunStore, WorkflowInputError
from alp_nb.runtime.keys import new_run_id
from alp_nb.runtime.store import STALE_TEMP_SECONDS

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc/self/fd to find the store's files")
REPLACED = ("audit:security", {"findings": []})


def test_a_fork_whose_copied_journal_does_not_fit_on_the_disk_leaves_no_run(tmp_path):
    store = RunStore(tmp_path / "runs")
    source = review(store).run_id
    before = sorted(store.root.iterdir())
    room = store.paths(source).journal.stat().st_size // 2  # room for a snapshot, not for the copied journal
    label, value = REPLACED
    done = subprocess.run([sys.executable, SUPPORT, str(store.root), "full-disk", str(room), "tmp", "workflow", "fork",
                           source, "--value", f"{label}={json.dumps(value)}", "--store", str(store.root)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.endswith(".journal.jsonl: No space left on device\n"), done.stderr
    assert store.run_ids() == (source,) and sorted(store.root.iterdir()) == before


def test_a_fork_snapshot_without_the_lines_it_copied_is_refused_naming_them(tmp_path):
    store = RunStore(tmp_path / "runs")
    source = review(store)
    fork = fork_run(source, dict([REPLACED]))
    copied = fork.snapshot.attempts[0].first_seq - 1
    journal = store.paths(fork.run_id).journal
    expected = (f"{journal.name}: run `{fork.run_id}` is a fork of `{source.run_id}` that starts with the {copied} "
                "lines it copied from it, but its journal holds")
    journal.unlink()
    for read in (lambda: load_run(fork.run_id, store=store),
                 lambda: review(store, resume=fork.run_id)):
        with pytest.raises(WorkflowInputError) as refused:
            read()
        assert (refused.value.code, refused.value.message) == ("CORRUPT_RUN", f"{expected} no line")
    journal.write_text("".join(store.paths(source.run_id).journal.read_text().splitlines(keepends=True)[:3]))
    with pytest.raises(WorkflowInputError, match=f"{expected} only lines up to seq 3$"):
        load_run(fork.run_id, store=store)


def left_by_a_kill(store: RunStore, age: float) -> tuple[str, list]:
    """The files a fork killed after copying its journal, before its first snapshot, leaves: a free lock file and
    the copied journal, ``age`` seconds old."""
    run_id = new_run_id("review-changes")
    paths = store.paths(run_id)
    paths.lock.touch()
    paths.journal.write_text('{"v":4}\n')
    for path in (paths.lock, paths.journal):
        os.utime(path, (time.time() - age, time.time() - age))
    return run_id, [paths.lock, paths.journal]


def test_what_a_kill_before_a_runs_first_snapshot_left_is_removed_by_the_next_run_of_the_store(tmp_path):
    store = RunStore(tmp_path / "runs")
    review(store)
    _, stale = left_by_a_kill(store, STALE_TEMP_SECONDS + 5)
    _, recent = left_by_a_kill(store, 0)  # perhaps a reservation an instant old: left alone
    held_id, held = left_by_a_kill(store, STALE_TEMP_SECONDS + 5)
    lock = store.acquire(held_id)  # a process copying its fork's journal right now
    try:
        review(store)
    finally:
        lock.release()
    assert [path.exists() for path in stale + recent + held] == [False, False, True, True, True, True]
    assert len(store.run_ids()) == 2
