"""Crash safety, tested with real processes: SIGKILL part way through, then resume elsewhere; two resumers."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from runtime_support import CRASH_CALLS, HANG_AFTER, FailingRunner, LoggingRunner, journal_records, registry

from alp_nb.replay import load_run
from alp_nb.runtime import RunStore, WorkflowInputError, run_workflow

SUPPORT = str(Path(__file__).with_name("runtime_support.py"))
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and flock")


def wait_for(condition, what, timeout=30.0):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def journal_labels(store, run_id):
    return [record["label"] for record in journal_records(store, run_id)]


def test_sigkill_part_way_through_a_200_call_run_then_resume_in_a_new_process(tmp_path):
    store = RunStore(tmp_path / "runs")
    child = subprocess.Popen([sys.executable, SUPPORT, str(store.root), "launch"])
    try:
        wait_for(lambda: (store.root / "hanging.marker").exists(), "the run to reach its hanging call")
        run_id = store.last_run()
        wait_for(lambda: len(journal_labels(store, run_id)) == HANG_AFTER, "the journal")
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    journaled = journal_labels(store, run_id)
    assert store.snapshot(run_id).status == "interrupted" and not store.paths(run_id).output.exists()

    resumed = subprocess.run([sys.executable, SUPPORT, str(store.root), "resume", run_id], check=False,
                             capture_output=True, text=True, timeout=60)
    assert resumed.returncode == 0, resumed.stderr
    outcome = json.loads(resumed.stdout)
    called = (store.root / "resume-calls.log").read_text().split()
    assert set(called).isdisjoint(journaled)
    assert sorted(called + journaled) == sorted(f"crash-{index}" for index in range(CRASH_CALLS))

    clean_store = RunStore(tmp_path / "clean")
    clean = asyncio.run(run_workflow("crash", store=clean_store, registry=registry(),
                                     runner=LoggingRunner(tmp_path / "clean-calls.log")))
    assert outcome["task"]["status"] == "completed" and outcome["result"] == clean.result
    snapshot = store.snapshot(run_id)
    assert [attempt.status for attempt in snapshot.attempts] == ["interrupted", "completed"]
    hung = snapshot.attempts[0].usage.unanswered  # the calls out when it was killed: asked, never answered
    assert 1 <= hung <= 8 and snapshot.attempts[0].usage.agents == HANG_AFTER + hung  # up to a slot each
    assert snapshot.attempts[1].cached == HANG_AFTER
    assert snapshot.usage.cumulative.agents == CRASH_CALLS + hung  # the hung calls reached a runner twice


def test_two_processes_resuming_the_same_run_the_second_gets_already_active_and_writes_nothing(tmp_path):
    store = RunStore(tmp_path / "runs")
    failed = asyncio.run(run_workflow("crash", store=store, registry=registry(),
                                      runner=FailingRunner({f"crash-{CRASH_CALLS - 1}"})))
    assert failed.status == "failed"
    holder = subprocess.Popen([sys.executable, SUPPORT, str(store.root), "hold", failed.run_id])
    try:
        wait_for(lambda: (store.root / "holding.marker").exists(), "the first resumer to hold the run")
        before = {path.name: (path.read_bytes(), path.stat().st_mtime_ns) for path in store.root.iterdir()}
        with pytest.raises(WorkflowInputError) as caught:
            asyncio.run(run_workflow("crash", None, failed.run_id, store=store, registry=registry()))
        after = {path.name: (path.read_bytes(), path.stat().st_mtime_ns) for path in store.root.iterdir()}
        assert caught.value.code == "RUN_ACTIVE" and "already active" in caught.value.message
        assert after == before
        assert store.snapshot(failed.run_id).status == "running" and store.is_active(failed.run_id)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    assert store.snapshot(failed.run_id).status == "interrupted"
    assert os.path.exists(store.paths(failed.run_id).lock)


def test_ctrl_c_during_a_blocking_runner_call_cancels_the_run_without_waiting_for_the_call(tmp_path):
    store = RunStore(tmp_path / "runs")
    child = subprocess.Popen([sys.executable, SUPPORT, str(store.root), "block"], stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: (store.root / "blocking.marker").exists(), "the runner to block")
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=60)  # the call blocks for an hour: ending sooner means it was not awaited
    finally:
        child.kill()
    assert "KeyboardInterrupt" in err
    stopped = load_run(store=store)
    assert stopped.status == "cancelled" and not (stopped.journal["kind"] == "agent").any()
    assert stopped.attempts[-1].usage.agents == 1 and stopped.attempts[-1].usage.unanswered == 1  # abandoned
