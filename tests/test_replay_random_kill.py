"""A run killed at a random instant reads the same in every view: the journal table, the timeline, the calls a
viewer steps through, the usage, the list of runs, the text `workflow show` prints, the viewer widget and the
plan of its resume all count the same calls, answered and asked-but-never-answered alike.

The instants are points in the writer's life, not times: as it starts, once its journal holds a number of lines
drawn by a seed (``kill_seed.py``; while calls side by side are out, between one call and the next), after it ends.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest
from kill_seed import VARIABLE, kill_seed
from runtime_support import MIXED_CALLS, SUPPORT, registry

from alp_nb.replay import list_runs, load_run, plan_resume
from alp_nb.runtime import RunStore
from alp_nb.viz.views.records import run_record_text
from alp_nb.widgets import RunViewer

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="SIGKILL")
KILLS = 8


def killed_at(store: RunStore, lines: int | None) -> None:
    """The `slow-mixed` writer, SIGKILLed as soon as its journal holds ``lines`` lines (at once for a negative
    ``lines``, once it has ended for None): the instant is a point in the run, whatever the machine's speed."""
    process = subprocess.Popen([sys.executable, SUPPORT, str(store.root), "slow-mixed"])
    if lines is None:
        process.wait(timeout=60)
    while lines is not None and lines >= 0 and process.poll() is None and journal_length(store) < lines:
        time.sleep(0.002)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)


def journal_length(store: RunStore) -> int:
    run_ids = store.run_ids() if store.root.is_dir() else []
    journal = store.paths(run_ids[0]).journal if run_ids else None
    return journal.read_bytes().count(b"\n") if journal is not None and journal.exists() else 0


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
    seed = kill_seed()
    draw = random.Random(seed)
    instants = [-1, 1, None] + [draw.randrange(1, 2 * MIXED_CALLS + 1) for _ in range(KILLS - 3)]
    seen_states = set()
    for number, lines in enumerate(instants):
        store = RunStore(tmp_path / f"kill-{number}")
        killed_at(store, lines)
        where = f"killed at {'once started' if lines == -1 else 'its end' if lines is None else f'line {lines}'}"
        where += f" ({VARIABLE}={seed})"
        if not store.root.is_dir() or not store.run_ids():
            seen_states.add("no run")
            continue
        (run_id,) = store.run_ids()
        views = views_of(store, run_id)
        assert len(set(views.values())) == 1, f"{where}: {views}"
        answered, unanswered = views["journal"]
        seen_states.add("completed" if answered == MIXED_CALLS else "asks out" if unanswered else "between calls")
    # its first ask leaves the fan-out's asks out (their answers take SLOW_SECONDS / 2 or more); the last, the end
    assert {"asks out", "completed"} <= seen_states, seen_states
