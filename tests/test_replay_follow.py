"""A run another process is writing is followed from its files alone, polled, with no server: every reading is
a whole record as ``load_run`` gives it, the calls only ever grow, and following stops when the run ends."""

from __future__ import annotations

import subprocess
import sys
import time

from runtime_support import SLOW_CALLS, SUPPORT
from widget_support import html_values

from alp_nb.replay import RunFollower, load_run
from alp_nb.runtime import RunStore
from alp_nb.widgets import RunProgress, RunViewer


def writer(store: RunStore) -> tuple[subprocess.Popen, str]:
    """A process writing a slow run into ``store``, and the run's id once its first snapshot is there."""
    process = subprocess.Popen([sys.executable, SUPPORT, str(store.root), "slow"])
    deadline = time.monotonic() + 30
    while not store.root.is_dir() or not store.run_ids():
        assert time.monotonic() < deadline and process.poll() is None, "the writer never started its run"
        time.sleep(0.02)
    return process, store.run_ids()[0]


def test_a_follower_sees_the_run_grow_while_another_process_writes_it_and_stops_when_it_ends(tmp_path):
    store = RunStore(tmp_path / "runs")
    process, run_id = writer(store)
    seen: list[tuple[str, int]] = []
    try:
        last = RunFollower(run_id, store, interval=0.05).follow(
            lambda record: seen.append((record.status, len(record.calls))), timeout=60)
    finally:
        process.wait(timeout=60)
    assert last is not None and last.status == "completed" and len(last.calls) == SLOW_CALLS
    assert len(seen) >= 3 and seen[0][0] == "running"  # read while it ran, more than once
    counts = [count for _, count in seen]
    assert counts == sorted(counts)  # only ever grows
    assert last.timeline.spans == load_run(run_id, store=store).timeline.spans


def test_a_writer_killed_while_it_waits_on_its_runner_is_seen_interrupted_though_no_file_changed(tmp_path):
    """The writer hangs on a call (its ask line written, nothing after it), then dies: only its lock tells."""
    store = RunStore(tmp_path / "runs")
    process = subprocess.Popen([sys.executable, SUPPORT, str(store.root), "launch"])
    marker = tmp_path / "runs" / "hanging.marker"
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert time.monotonic() < deadline and process.poll() is None, "the writer never hung"
            time.sleep(0.02)
        follower = RunFollower(store.run_ids()[0], store, interval=0.05)
        assert follower.poll() and follower.record is not None and follower.record.status == "running"
        quiet = time.monotonic() + 30  # siblings of the hung call may still be writing their lines
        while follower.poll():
            assert time.monotonic() < quiet, "the hung writer's files never stopped changing"
            time.sleep(0.2)
        assert not follower.poll()  # nothing changed: not read again
    finally:
        process.kill()
        process.wait(timeout=30)
    last = follower.follow(lambda record: None, timeout=30)
    assert follower.ended and last is not None and last.status == "interrupted"
    assert len(last.calls.select(status="unfinished")) >= 1  # the calls it hung on, asked and never answered


def test_a_run_that_can_no_longer_be_read_stops_the_following_and_says_why(tmp_path):
    store = RunStore(tmp_path / "runs")
    process, run_id = writer(store)
    process.wait(timeout=60)
    follower = RunFollower(run_id, store, interval=0.05)
    errors = []
    store.paths(run_id).snapshot.write_text("{not json")
    assert follower.follow(lambda record: None, timeout=10, on_error=errors.append) is None
    assert follower.error is not None and errors == [follower.error]
    assert follower.error.code == "CORRUPT_RUN" and run_id in follower.error.message


def test_progress_and_viewer_follow_a_run_written_elsewhere_to_its_end(tmp_path):
    store = RunStore(tmp_path / "runs")
    process, run_id = writer(store)
    progress, viewer = RunProgress(), RunViewer((store, run_id))
    try:
        follower = progress.follow(run_id, store, interval=0.05)
        followers = [follower, viewer.follow(interval=0.05)]
        # wait() returns once the last reading was handed on: the widgets show the end by then
        assert all(each.wait(timeout=60) for each in followers), "the widgets never saw the run end"
    finally:
        viewer.stop_following()
        process.wait(timeout=60)
    assert follower.ended and progress.bar.value == progress.bar.max == SLOW_CALLS
    assert viewer.slider.value == viewer.slider.max == SLOW_CALLS  # the cursor kept to the newest call
    assert "run completed" in repr(progress)
    assert "completed" in viewer.follow_status.value and viewer.current.outcome == "live"
    for value in html_values(viewer):
        assert "<script" not in value
