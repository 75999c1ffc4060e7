"""A run killed at a random instant reads the same in every view: the journal table, the timeline, the calls a
viewer steps through, the usage, the list of runs, the text `workflow show` prints, the viewer widget and the
plan of its resume all count the same calls, answered and asked-but-never-answered alike.

The instants are drawn (seeded, so a failure can be run again) over the whole life of the writer's process:
before its run exists, while calls side by side are out, between one call and the next, after it ends.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest
from runtime_support import MIXED_CALLS, SUPPORT, registry

from alp_nb.replay import list_runs, load_run, plan_resume
from alp_nb.runtime import RunStore
from alp_nb.viz.views.records import run_record_text
from alp_nb.widgets import RunViewer

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="SIGKILL")
KILLS = 8
SEED = 1902


def killed_at(store: RunStore, after: float) -> None:
    """The `slow-mixed` writer, SIGKILLed ``after`` seconds once its run's first snapshot is there (or while it
    starts, for a negative ``after``)."""
    process = subprocess.Popen([sys.executable, SUPPORT, str(store.root), "slow-mixed"])
    started = time.monotonic()
    if after >= 0:
        while (not store.root.is_dir() or not store.run_ids()) and process.poll() is None:
            assert time.monotonic() - started < 30, "the writer never started its run"
            time.sleep(0.002)
    time.sleep(abs(after))
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)


def views_of(store: RunStore, run_id: str) -> dict[str, tuple[int, int]]:
    """(answered, asked and never answered) as each view of the run counts them."""
    record = load_run(run_id, store=store)
    kinds = Counter(record.journal["kind"])
    outcomes = Counter(span.outcome for span in record.timeline.spans)
    calls = record.calls
    usage = record.usage.cumulative
    (listed,) = list_runs(store).to_dict("records")
    text = run_record_text(record, every_row=True)
    viewer = RunViewer(record)
    plan = plan_resume(run_id, store=store, registry=registry())
    views = {
        "journal": (kinds["agent"], kinds["ask"]),
        "timeline": (outcomes["live"], outcomes["unfinished"]),
        "calls": (len(calls.select(status="live")), len(calls.select(status="unfinished"))),
        "usage": (usage.agents - usage.unanswered, usage.unanswered),
        "list": (listed["calls"] - usage.unanswered, usage.unanswered),
        "text": (text.count(" done "), text.count(" unanswered ")),
        "viewer": (viewer.slider.max - len(calls.select(status="unfinished")),
                   len(calls.select(status="unfinished"))),
        "plan": (plan.totals.cached, plan.unanswered),
    }
    assert len(calls) == len(record.timeline.spans) == viewer.slider.max == sum(views["journal"])
    assert plan.totals.calls == MIXED_CALLS or record.status == "completed"
    return views


def test_a_run_killed_at_a_random_instant_counts_the_same_calls_in_every_view(tmp_path):
    draw = random.Random(SEED)
    instants = [-draw.uniform(0, 0.5)] + [draw.uniform(0, 1.6) for _ in range(KILLS - 1)]
    seen_states = set()
    for number, after in enumerate(instants):
        store = RunStore(tmp_path / f"kill-{number}")
        killed_at(store, after)
        where = f"killed {after:+.3f}s after the run began (seed {SEED})"
        if not store.root.is_dir() or not store.run_ids():
            seen_states.add("no run")
            continue
        (run_id,) = store.run_ids()
        views = views_of(store, run_id)
        assert len(set(views.values())) == 1, f"{where}: {views}"
        answered, unanswered = views["journal"]
        seen_states.add("completed" if answered == MIXED_CALLS else "asks out" if unanswered else "between calls")
    assert {"asks out", "completed"} <= seen_states, seen_states  # the draw reached both ends of a run
