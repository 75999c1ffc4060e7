"""Runs the s16 reference runtime wrote, read after the fact: their journal lines hold only ``key`` and ``value``,
so labels and phases are recovered from the snapshot's ``progress`` list, by the documented rule and no further,
and the failure reason, which s16 writes only to the output file, is the record's ``error``.

The fixtures are written from the reference page, not with alp_nb's code (``s16_support``)."""

from __future__ import annotations

import json

import pytest
from s16_support import CRASH, CRASHED_CALLS, OVER_BUDGET, write_s16_run

from alp_nb.replay import load_run
from alp_nb.viz.rendering import render


@pytest.fixture
def crashed(tmp_path):
    return write_s16_run(tmp_path / ".runtime", "review-changes", status="failed", calls=CRASHED_CALLS,
                         output={"error": CRASH})

LEGACY_NOTE = ("{run_id}.journal.jsonl: {lines} no checksum (written by the s16 reference or before alp_nb sealed its "
               "lines): nothing vouches for them")
"""What a record of an s16 run says of its journal lines first."""


def test_an_s16_journal_holds_only_key_and_value_with_ten_digit_keys(crashed):
    store, run_id = crashed
    lines = [json.loads(line) for line in store.paths(run_id).journal.read_text().splitlines()]
    assert all(set(line) == {"key", "value"} and len(line["key"]) == len("agent-") + 10 for line in lines)


def test_a_crashed_s16_run_recovers_every_label_and_phase_and_shows_its_reason(crashed):
    store, run_id = crashed
    record = load_run(run_id, store=store)
    assert (record.source, record.status, record.error) == ("s16", "failed", CRASH)
    journal = record.journal
    assert journal["label"].tolist() == [label for label, _, _ in CRASHED_CALLS]
    assert journal["phase"].tolist() == [phase for _, phase, _ in CRASHED_CALLS]
    assert journal["recovered"].all() and not journal["cached"].any()
    assert journal["seq"].tolist() == list(range(1, 11)) and journal["attempt"].tolist() == [1] * 10
    assert journal["prompt"].isna().all() and journal["value"].tolist()[0] == "answer to audit file 1"
    assert record.warnings == (LEGACY_NOTE.format(run_id=run_id, lines="10 lines carry"),) and record.events == []
    assert [phase.title for phase in record.snapshot.phases] == ["Audit", "Verify"]


def test_the_reason_of_a_crashed_s16_run_is_in_every_view(crashed):
    store, run_id = crashed
    record = load_run(run_id, store=store)
    text = render(record, "text").splitlines()
    assert text[3] == f"ERROR      {CRASH}" and text[2] == "STATUS     failed"
    assert any(line.startswith("SOURCE     written by the s16 reference runtime") for line in text)
    assert any("↺ audit:1" in line and "Audit" in line for line in text)
    assert CRASH in render(record, "html") and record.error == CRASH


def test_an_s16_run_out_of_budget_shows_the_budget_error(tmp_path):
    calls = [(f"item-{n}", "Fan-out", f"item {n}") for n in range(5)]
    store, run_id = write_s16_run(tmp_path / ".runtime", "fan-out", status="failed", calls=calls,
                                  usage={"agents": 5, "tokens": 370}, output={"error": OVER_BUDGET})
    record = load_run(run_id, store=store)
    assert record.error == OVER_BUDGET and record.usage.cumulative.tokens == 370
    assert record.journal["label"].tolist() == [label for label, _, _ in calls]
    assert set(record.journal["phase"]) == {"Fan-out"}
    assert f"ERROR      {OVER_BUDGET}" in render(record, "text").splitlines()


def test_a_resumed_s16_run_matches_its_done_items_to_the_journals_tail(tmp_path):
    """The last attempt's snapshot lists the calls it served from the cache (no key: matched to nothing) and the
    ones it ran, whose lines it appended: the journal's last lines."""
    calls = [(f"step-{n}", "Steps", f"step {n}") for n in range(6)]
    progress = ([{"type": "workflow_phase", "title": "Steps"}]
                + [{"type": "workflow_agent", "label": f"step-{n}", "phase": "Steps", "status": "cached"}
                   for n in range(4)]
                + [{"type": "workflow_agent", "label": f"step-{n}", "phase": "Steps", "status": "done"}
                   for n in (4, 5)])
    store, run_id = write_s16_run(tmp_path / ".runtime", "steps", status="completed", calls=calls,
                                  progress=progress, output=["done"])
    record = load_run(run_id, store=store)
    journal = record.journal
    assert journal["label"].tolist() == [None] * 4 + ["step-4", "step-5"]
    assert journal["recovered"].tolist() == [False] * 4 + [True, True]
    assert journal["cached"].tolist() == [True] * 4 + [False, False]
    assert journal["attempt"].isna().tolist() == [True] * 4 + [False, False]
    assert record.error is None and record.result == ["done"]
    assert record.warnings == (LEGACY_NOTE.format(run_id=record.run_id, lines="6 lines carry"),)


def test_no_label_is_guessed_when_the_snapshot_lists_more_finished_calls_than_the_journal_holds(tmp_path):
    calls = [(f"step-{n}", "Steps", f"step {n}") for n in range(3)]
    store, run_id = write_s16_run(tmp_path / ".runtime", "steps", status="completed", calls=calls)
    path = store.paths(run_id).journal
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:2]))
    with pytest.warns(RuntimeWarning, match="not recovered"):
        record = load_run(run_id, store=store)
    assert record.journal["label"].tolist() == [None, None] and not record.journal["recovered"].any()
    assert record.warnings == (LEGACY_NOTE.format(run_id=run_id, lines="2 lines carry"),
                               f"labels and phases of this s16 run not recovered: {run_id}.json lists 3 finished "
                               "calls but the journal holds 2")


def test_an_s16_run_that_died_reads_interrupted_and_its_launch_time_snapshot_recovers_nothing(tmp_path):
    """The reference writes its snapshot at launch (``running``, empty progress) and at the end only."""
    calls = [(f"step-{n}", "Steps", f"step {n}") for n in range(3)]
    store, run_id = write_s16_run(tmp_path / ".runtime", "steps", status="running", calls=calls, progress=[])
    with pytest.warns(RuntimeWarning, match=f"{run_id}.json says running: the reference writes it when"):
        record = load_run(run_id, store=store)
    assert record.status == "interrupted" and record.error is None and record.output is None
    assert record.journal["label"].isna().all() and record.journal["attempt"].isna().all()
    assert len(record.journal) == 3


def test_a_repeated_s16_line_stops_the_matching_rather_than_shifting_it(tmp_path):
    calls = [(f"step-{n}", "Steps", f"step {n}") for n in range(3)]
    store, run_id = write_s16_run(tmp_path / ".runtime", "steps", status="completed", calls=calls)
    path = store.paths(run_id).journal
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(lines[0] + lines[0] + "".join(lines[1:]))
    with pytest.warns(RuntimeWarning, match="blank or repeated lines"):
        record = load_run(run_id, store=store)
    assert len(record.journal) == 3 and not record.journal["recovered"].any()


def test_hostile_s16_labels_and_errors_are_escaped_in_every_view(tmp_path):
    hostile = "<script>alert(1)</script>\u202e\x1b[2J"
    store, run_id = write_s16_run(tmp_path / ".runtime", "steps", status="failed",
                                  calls=[(hostile, hostile, "p")], output={"error": hostile})
    record = load_run(run_id, store=store)
    assert record.journal["label"].tolist() == [hostile] and record.error == hostile
    html = render(record, "html")
    assert "<script>" not in html and "\u202e" not in html and "\x1b" not in html
    assert "&lt;script&gt;" in html
    text = render(record, "text")
    assert "\x1b" not in text and "\u202e" not in text and "\\x1b[2J" in text
