"""A run's failure reason everywhere it is shown, and a ``RunRecord`` through the one rendering path, the timeline
and the run viewer: its status with the error right under it, usage, attempts, phases, one page of its journal
(never all of it), every string from the run escaped; the pictures and the viewer reuse what the record loaded."""

from __future__ import annotations

import json
import re

import pytest
from hostile_text import assert_safe_html
from runtime_support import OK_SCHEMA, FailingRunner, hostile_failure, launch, run_script
from widget_support import html_values

from alp_nb.cli import main
from alp_nb.replay import load_run, timeline_of
from alp_nb.runtime import MockAgentRunner, RunStore, WorkflowInputError
from alp_nb.viz import run_timeline
from alp_nb.viz.html import badge
from alp_nb.viz.rendering import formats_of, render, view_of
from alp_nb.widgets import RunViewer

HOSTILE = '<script>alert(1)</script>"><img src=x onerror=y>\u202eevil\x1b[2J'


# --- the failure reason everywhere ------------------------------------------------------------------------------


def test_the_error_sits_right_under_the_status_in_every_text_view(store):
    run = launch("sequence", store, runner=FailingRunner({"step-1"}))
    record = load_run(run.run_id, store=store)
    for shown in (record, run):
        lines = render(shown, "text").splitlines()
        status = lines.index("STATUS     failed")
        assert lines[status + 1] == f"ERROR      {run.error}", type(shown).__name__


def test_the_error_is_shown_before_attempts_and_usage_in_every_html_view(store):
    run = launch("sequence", store, runner=FailingRunner({"step-1"}))
    for shown in (load_run(run.run_id, store=store), run):
        html = render(shown, "html")
        assert badge("error", "bad") in html
        assert html.index("runner broke on step-1") < html.index("attempts") < html.index("<th>usage</th>")


def test_workflow_show_prints_the_failure_reason(store, capsys):
    run = launch("sequence", store, runner=FailingRunner({"step-1"}))
    assert main(["workflow", "show", run.run_id, "--store", str(store.root)]) == 0
    assert f"ERROR      {run.error}" in capsys.readouterr().out.splitlines()


def test_a_completed_run_shows_no_error(store):
    record = load_run(launch("sequence", store).run_id, store=store)
    assert "ERROR" not in render(record, "text") and ">error<" not in render(record, "html")


# --- the record's views -----------------------------------------------------------------------------------------


def test_a_record_is_drawn_by_the_view_views_names_for_it(store):
    record = load_run(launch("sequence", store).run_id, store=store)
    assert view_of(type(record)) == ("alp_nb.viz.views.records", "run_record")
    assert set(formats_of(record)) == {"html", "text"}


def test_the_text_view_shows_status_usage_attempts_phases_and_a_page_of_rows(store):
    first = launch("staged", store, runner=FailingRunner({"second-c"}))
    launch("staged", store, resume=first.run_id)
    record = load_run(first.run_id, store=store)
    lines = render(record, "text").splitlines()
    assert lines[:3] == [f"RUN        {first.run_id}", "WORKFLOW   staged", "STATUS     completed"]
    assert lines[3].startswith("USAGE      this attempt 1 agents")
    assert lines[4].startswith("ATTEMPTS   #1 failed") and "#2 completed" in lines[4]
    assert lines[5].startswith("PHASES     Stage")
    caption = lines.index("journal: rows 1–7 of 7")  # six calls and the runner's failure at second-c
    assert re.split(r"\s+", lines[caption + 1]) == ["seq", "attempt", "status", "label", "phase", "tokens", "prompt",
                                                    "→", "value"]
    assert re.split(r"\s{2,}", lines[caption + 2])[:3] == ["2", "1", "done, cached"]
    assert re.split(r"\s{2,}", lines[-1])[:3] == ["14", "2", "done"]


def test_a_view_shows_one_page_of_a_long_journal_and_says_how_to_see_the_next(store):
    record = load_run(launch("sequence", store, args={"calls": 45}).run_id, store=store)
    text = render(record, "text")
    assert "journal: rows 1–20 of 45 · page 1 of 3 · .page(2) shows the next" in text
    assert "step-19" in text and "step-20" not in text
    html = render(record.page(3), "html")
    assert "rows 41–45 of 45 · page 3 of 3" in html and html.count("<tr>") - html.count("<th>usage") < 30
    assert "step-44" in html and "step-39" not in html


def test_spend_rows_say_what_was_spent(store):
    class SchemaBreaker(MockAgentRunner):
        def run(self, prompt, schema=None, label=""):
            if not prompt.endswith("Return valid JSON."):
                return super().run(prompt, {"type": "object", "properties": {"ok": {"const": 1}}}, label)
            return super().run(prompt, schema, label)

    async def script(ctx, args):
        return await ctx.agent("check it", schema=OK_SCHEMA, label="check")

    record = load_run(run_script(store, script, SchemaBreaker()).run_id, store=store)
    assert "spent: retried" in render(record, "text")


def test_hostile_labels_phases_values_and_errors_are_escaped_in_the_record_views(store):
    run = hostile_failure(store, HOSTILE)[0]
    record = load_run(run.run_id, store=store)
    assert HOSTILE in record.error and record.journal["label"].tolist() == [f"label {HOSTILE}", "boom"]
    html = render(record, "html")
    assert_safe_html(html)
    assert "\u202e" not in html and "\x1b" not in html and "&lt;script&gt;" in html
    text = render(record, "text")
    assert "\x1b" not in text and "\u202e" not in text and "\\u202eevil\\x1b[2J" in text
    for view in (render(record.page(1), "html"), render(run, "html")):
        assert_safe_html(view)
        assert "\u202e" not in view


def test_the_repr_of_a_record_escapes_what_it_quotes(store):
    text = repr(load_run(hostile_failure(store, HOSTILE)[0].run_id, store=store))
    assert "\x1b" not in text and "\u202e" not in text and "\\x1b" in text


# --- the timeline and the viewer --------------------------------------------------------------------------------


def forbid_reading_the_run_again(monkeypatch):
    """After ``load_run``, nothing may read the run's snapshot or journal whole again."""
    def refuse(*args, **kwargs):
        raise AssertionError("read again")

    monkeypatch.setattr(RunStore, "snapshot", refuse)
    monkeypatch.setattr(RunStore, "read_journal", refuse)


def test_the_timeline_of_a_record_is_the_timeline_of_its_run(store, monkeypatch):
    first = launch("staged", store, runner=FailingRunner({"second-c"}))
    launch("staged", store, resume=first.run_id)
    expected = timeline_of((store, first.run_id))
    record = load_run(first.run_id, store=store)
    forbid_reading_the_run_again(monkeypatch)
    assert timeline_of(record) == expected
    assert run_timeline(record).timeline == expected and "<svg" in run_timeline(record).to_svg()


def test_the_timeline_of_an_s16_record_has_its_recovered_phases(tmp_path):
    from s16_support import CRASHED_CALLS, write_s16_run

    store, run_id = write_s16_run(tmp_path / ".runtime", "review-changes", status="completed", calls=CRASHED_CALLS)
    record = load_run(run_id, store=store)
    timeline = timeline_of(record)
    assert timeline.phases[:2] == ("Audit", "Verify")
    assert [span.label for span in timeline.spans] == record.journal["label"].tolist()  # every journaled call
    assert "the journal holds no times" in timeline.note


def test_the_viewer_opens_a_record_and_steps_through_its_calls_reading_only_the_line_shown(store, monkeypatch):
    async def script(ctx, args):
        ctx.phase("Check")
        return [await ctx.agent(f"check {n}", schema=OK_SCHEMA, label=f"check-{n}") for n in range(3)]

    run = run_script(store, script, MockAgentRunner(), ("Check",))
    record = load_run(run.run_id, store=store)
    forbid_reading_the_run_again(monkeypatch)
    viewer = RunViewer(record)
    assert (viewer.slider.min, viewer.slider.max) == (1, 3)
    viewer.slider.value = 2
    current = viewer.current
    assert (current.label, current.seq, current.prompt, current.phase) == ("check-1", 4, "check 1", "Check")
    assert current.value == record.journal["value"][1] and json.loads(json.dumps(current.schema)) == OK_SCHEMA
    assert "JSON Schema" in viewer.call.value and "check 1" in viewer.call.value
    viewer.jump.value = "6"
    assert viewer.current.label == "check-2"


def test_the_viewer_of_a_resumed_record_tells_cached_calls_apart(store):
    first = launch("staged", store, runner=FailingRunner({"second-c"}))
    launch("staged", store, resume=first.run_id)
    viewer = RunViewer(load_run(first.run_id, store=store))
    outcomes = [viewer.calls.call(index).outcome for index in range(len(viewer.calls))]
    assert outcomes.count("cached") == 5 and outcomes.count("failed") == 1 and outcomes.count("live") == 6


def test_the_viewer_of_a_hostile_record_shows_only_text(store):
    viewer = RunViewer(load_run(hostile_failure(store, HOSTILE)[0].run_id, store=store))
    for position in range(1, viewer.slider.max + 1):
        viewer.slider.value = position
        for value in html_values(viewer):
            assert_safe_html(value)
            assert "\u202e" not in value and "\x1b" not in value


def test_a_journal_replaced_after_loading_still_shows_the_row_it_was(store):
    run = launch("sequence", store, args={"calls": 2})
    record = load_run(run.run_id, store=store)
    store.paths(run.run_id).journal.write_text("")
    entry = record.entry(1)
    assert (entry.label, entry.value, entry.seq) == ("step-1", "mock answer to step-1", 4)
    assert entry.schema_ is None


def test_a_journal_that_became_a_link_after_loading_is_not_followed(store, tmp_path):
    run = launch("sequence", store, args={"calls": 2})
    record = load_run(run.run_id, store=store)
    path = store.paths(run.run_id).journal
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text(path.read_text().replace("step-1", "other"))
    path.unlink()
    path.symlink_to(elsewhere)
    with pytest.raises(WorkflowInputError):
        load_run(run.run_id, store=store)
    assert record.entry(1).label == "step-1"
