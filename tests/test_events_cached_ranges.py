"""A cached call costs a few bytes on disk: a resume's served seqs are written as runs of evenly spaced seqs
(events format 3), read back in their order; the seqs listed one by one (format 2) still read, and a range from
someone else's file is read no further than the journal it goes with."""

from __future__ import annotations

import json

from hypothesis import given, strategies as st
from runtime_support import launch, registry

from alp_nb.replay import load_run, plan_resume
from alp_nb.runtime.events import EVENTS_FORMAT, seq_ranges
from alp_nb.runtime.stored_events import CallsCached


@given(st.lists(st.integers(min_value=1, max_value=10_000), max_size=60))
def test_seq_ranges_read_back_as_the_same_seqs_in_the_same_order(seqs):
    event = CallsCached(ts=0.0, ranges=seq_ranges(seqs))
    assert list(event.served(10_000)) == seqs


def test_an_all_cached_resume_of_2000_calls_adds_one_short_events_line(store):
    first = launch("fanout", store, args={"calls": 2000}, agent_cap=2000)
    events = store.paths(first.run_id).events
    before = events.stat().st_size
    again = launch("fanout", store, args={"calls": 2000}, agent_cap=2000, resume=first.run_id)
    assert again.status == "completed" and again.task.attempts[-1].cached == 2000
    added = events.stat().st_size - before
    assert added < 1_000, added
    served = [event for event in store.read_events(first.run_id) if event.type == "calls_cached"]
    assert served[-1].ranges == ((2, 4000, 2),)  # every answer line, one after its ask line
    launched = [event for event in store.read_events(first.run_id) if event.type == "async_launched"]
    assert {event.format for event in launched} == {EVENTS_FORMAT} == {3}


def test_seqs_listed_one_by_one_by_format_2_still_read_plan_and_resume(store):
    first = launch("fanout", store, args={"calls": 3})
    launch("fanout", store, args={"calls": 3}, resume=first.run_id)
    events = store.paths(first.run_id).events
    lines = [json.loads(line) for line in events.read_text().splitlines()]
    for line in lines:
        if line["type"] == "calls_cached":
            expanded = list(CallsCached.from_json(line).served(100))
            line.pop("ranges")
            line["seqs"] = expanded
        elif line["type"] == "async_launched":
            line["format"] = 2
    events.write_text("".join(json.dumps(line) + "\n" for line in lines))
    outcomes = [span.outcome for span in load_run(first.run_id, store=store).timeline.spans]
    assert outcomes.count("cached") == 3 and outcomes.count("live") == 3
    assert set(plan_resume(first.run_id, store=store, registry=registry()).calls["action"]) == {"cached"}
    third = launch("fanout", store, args={"calls": 3}, resume=first.run_id)
    assert third.status == "completed" and third.task.attempts[-1].cached == 3
    assert [span.outcome for span in load_run(first.run_id, store=store).timeline.spans].count("cached") == 6


def test_a_range_reaching_far_past_the_journal_is_read_only_up_to_its_last_line(store):
    first = launch("fanout", store, args={"calls": 3})
    events = store.paths(first.run_id).events
    with events.open("a") as handle:
        handle.write(json.dumps({"type": "calls_cached", "ranges": [[2, 10**18, 1]], "ts": 1e10}) + "\n")
    spans = load_run(first.run_id, store=store).timeline.spans
    assert sorted(span.seq for span in spans if span.outcome == "cached") == [2, 4, 6]
