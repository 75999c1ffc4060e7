"""The timeline of a run: one span per agent call with how it went, lanes per phase, tokens by phase; drawn with
matplotlib, as SVG and as text, the same calls in each, however hostile the labels or large the run."""

from __future__ import annotations

import json
import re
from collections import Counter
from xml.etree import ElementTree

import matplotlib
import pytest
from runtime_support import (
    OK_SCHEMA,
    SiblingFailure,
    interrupted_review,
    journal_records,
    review,
    run_script,
    sealed_line,
)

from alp_nb.replay import ReplayError, load_run, timeline_of
from alp_nb.replay.timeline import CALL_OUTCOMES, CallSpan, PhaseTokens, Timeline
from alp_nb.runtime import MockAgentRunner, RunnerOutput
from alp_nb.viz import VizError
from alp_nb.viz.models.timeline_layout import LISTED, MAX_LANES, MAX_MARKS, MAX_ROWS, timeline_layout
from alp_nb.viz.pictures.timeline_picture import RunTimeline, run_timeline
from alp_nb.viz.rendering import formats_of, render

matplotlib.use("Agg")
SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = ['<script>alert(1)</script>', '"><img onerror=x>', "</svg>", "]]>", "right\u202eto-left", "zero\u200bwidth"]


def outcomes(timeline):
    return {span.label: span.outcome for span in timeline.spans}


# --- the model --------------------------------------------------------------------------------------------------


def test_a_fresh_run_has_one_live_span_per_call_in_the_lane_of_its_phase(store):
    run = review(store)
    timeline = timeline_of(run)
    journal = journal_records(store, run.run_id)
    assert len(timeline.spans) == len(journal) == run.task.usage.attempt.agents
    assert Counter(span.outcome for span in timeline.spans) == {"live": len(journal)}
    assert {span.key for span in timeline.spans} == {entry["key"] for entry in journal}
    assert timeline.phases == ("Review", "Verify")
    assert {span.phase for span in timeline.spans if span.label.startswith("audit:")} == {"Review"}
    assert all(0 <= span.start <= span.end <= timeline.duration for span in timeline.spans)


def test_each_call_costs_its_journaled_tokens_and_the_phases_add_up_to_the_snapshot(store):
    run = review(store)
    timeline = timeline_of(run)
    by_key = {entry["key"]: entry["tokens"] for entry in journal_records(store, run.run_id)}
    assert {span.key: span.tokens for span in timeline.spans} == by_key
    assert sum(row.cumulative for row in timeline.tokens) == run.task.usage.cumulative.tokens
    assert [row.phase for row in timeline.tokens] == ["Review", "Verify"]
    assert all(row.attempt == row.cumulative for row in timeline.tokens)


def test_a_resumed_run_serves_every_call_cached_in_its_second_attempt_and_spends_nothing_there(store):
    first = review(store)
    again = review(store, resume=first.run_id)
    timeline = timeline_of(again)
    assert [start.number for start in timeline.attempts] == [1, 2]
    second = [span for span in timeline.spans if span.attempt == 2]
    assert len(second) == first.task.usage.attempt.agents
    assert {span.outcome for span in second} == {"cached"} and all(span.start == span.end for span in second)
    assert all(span.tokens == 0 for span in second)
    assert min(span.start for span in second) >= timeline.attempts[1].at >= max(
        span.end for span in timeline.spans if span.attempt == 1)
    assert sum(row.attempt for row in timeline.tokens) == 0
    assert sum(row.cumulative for row in timeline.tokens) == again.task.usage.cumulative.tokens


def test_a_call_whose_first_answer_broke_its_schema_is_retried_and_costs_both_answers(store):
    class BreaksFirst:
        blocking = False

        def __init__(self):
            self.answers = iter([RunnerOutput({"ok": "yes"}, 7), RunnerOutput({"ok": True}, 5)])

        def run(self, prompt, schema, label):
            return next(self.answers)

    async def script(ctx, args):
        ctx.phase("Check")
        return await ctx.agent("question", schema=OK_SCHEMA, label="q")

    timeline = timeline_of(run_script(store, script, BreaksFirst(), ("Check",)))
    (span,) = timeline.spans
    assert (span.label, span.phase, span.outcome, span.tokens) == ("q", "Check", "retried", 12)
    assert timeline.tokens == (PhaseTokens("Check", 12, 12),)


def test_a_failed_call_is_failed_and_the_siblings_it_stopped_are_cancelled(store):
    async def script(ctx, args):
        ctx.phase("Fan-out")
        return await ctx.parallel([lambda: ctx.agent("a", label="fast"), lambda: ctx.agent("b", label="broken"),
                                   lambda: ctx.agent("c", label="slow")])

    run = run_script(store, script, SiblingFailure(), ("Fan-out",))
    assert run.status == "failed"
    timeline = timeline_of((store, run.run_id))
    assert outcomes(timeline) == {"fast": "live", "broken": "failed", "slow": "cancelled"}
    broken = next(span for span in timeline.spans if span.label == "broken")
    assert broken.end - broken.start >= 0.01


def test_a_call_asked_and_never_answered_when_its_process_died_is_unfinished_to_its_attempts_end(tmp_path):
    store = interrupted_review(tmp_path / "runs")
    timeline = timeline_of((store, store.last_run()))
    (hung,) = [span for span in timeline.spans if span.outcome == "unfinished"]
    assert hung.end == max(span.end for span in timeline.spans) >= hung.start
    assert hung.seq == max(record["seq"] for record in journal_records(store, store.last_run(), asks=True))


def written_run(store, lines, events, attempts=({"number": 1, "status": "completed", "firstSeq": 1},),
                status="completed"):
    """A run in ``store`` holding the journal ``lines`` (sealed here) and the events ``events`` as given."""
    run_id = "wf_made_0123456789abcdef"
    store.root.mkdir(parents=True, exist_ok=True)
    store.paths(run_id).snapshot.write_text(json.dumps({
        "runId": run_id, "taskId": f"local_workflow_{run_id}", "workflowName": "made", "status": status,
        "attempts": list(attempts), "sealedFrom": 1}))
    store.paths(run_id).journal.write_text("".join(sealed_line({"v": 3, **line}) for line in lines))
    store.paths(run_id).events.write_text("".join(json.dumps(event) + "\n" for event in events))
    return run_id


def test_events_of_unknown_kinds_or_with_mistyped_fields_are_left_out_with_one_warning(store):
    run_id = written_run(store, [
        {"seq": 1, "key": "agent-a", "kind": "ask", "label": "a", "attempts": 1, "started": 1.0},
        {"seq": 2, "key": "agent-a", "kind": "agent", "label": "a", "prompt": "p", "value": 1, "tokens": 1,
         "attempts": 1, "started": 1.0, "ended": 2.0}], [
        {"type": "async_launched", "attempt": 1, "format": 2, "ts": 0.5},
        {"type": "calls_cached", "seqs": "2", "ts": 3.0},
        {"type": "workflow_agent", "status": "failed", "key": 7, "ts": 1.0},
        {"type": "something_new", "ts": 1.0}])
    with pytest.warns(RuntimeWarning, match=r"3 lines of an unknown kind or with fields of the wrong type left out "
                                            r"\(the first: line 2\)"):
        timeline = timeline_of((store, run_id))
    assert [(span.label, span.outcome) for span in timeline.spans] == [("a", "live")]


def test_idle_time_between_attempts_is_left_out_of_the_clock_and_said(store):
    run_id = written_run(store, [
        {"seq": 1, "key": "agent-a", "kind": "ask", "label": "a", "phase": "P", "attempts": 1, "started": 1.0},
        {"seq": 2, "key": "agent-a", "kind": "agent", "label": "a", "phase": "P", "prompt": "p", "value": 1,
         "tokens": 1, "attempts": 1, "started": 1.0, "ended": 3.0}], [
        {"type": "async_launched", "attempt": 1, "format": 2, "ts": 0.0},
        {"type": "async_launched", "attempt": 2, "format": 2, "ts": 7203.0},
        {"type": "calls_cached", "seqs": [2], "ts": 7204.0}],
        attempts=({"number": 1, "status": "completed", "firstSeq": 1},
                  {"number": 2, "status": "completed", "firstSeq": 3}))
    timeline = timeline_of((store, run_id))
    assert [(span.start, span.end, span.attempt, span.outcome) for span in timeline.spans] == [
        (1.0, 3.0, 1, "live"), (4.0, 4.0, 2, "cached")]
    assert (timeline.attempts[1].at, timeline.attempts[1].idle_before) == (3.0, 7200.0)
    assert "attempt 2 began after 2 h idle, left out of the time axis" in timeline_layout(timeline).caption


def test_a_crashed_run_whose_events_lag_its_journal_shows_every_journaled_call_and_says_so(tmp_path):
    store = interrupted_review(tmp_path / "runs")
    run_id = store.last_run()
    events = store.paths(run_id).events
    events.write_text("".join(events.read_text().splitlines(keepends=True)[:2]))  # only the launch got out
    record = load_run(run_id, store=store)
    journaled = {row.key for row in record.journal.itertuples() if row.kind in ("agent", "ask")}
    assert {span.key for span in record.timeline.spans} == journaled
    assert record.timeline.note.startswith("the events file ends before the last")
    assert record.timeline.note.endswith("every call is drawn from the journal")  # a first attempt serves none


def test_a_resume_whose_events_lag_its_journal_warns_that_calls_it_served_from_the_journal_may_be_missing(store):
    """A resume flushes the seqs it served (``calls_cached``) now and then; killed between two flushes, the
    last of them are nowhere but in a lost buffer, so the note says so, for a resumed attempt only."""
    run_id = written_run(store, [
        {"seq": 1, "key": "agent-a", "kind": "agent", "label": "a", "prompt": "p", "value": 1, "tokens": 1,
         "attempts": 1, "started": 1.0, "ended": 2.0},
        {"seq": 2, "key": "agent-b", "kind": "agent", "label": "b", "prompt": "p", "value": 2, "tokens": 1,
         "attempts": 1, "started": 11.0, "ended": 12.0}], [
        {"type": "async_launched", "attempt": 1, "format": 2, "ts": 0.5},
        {"type": "async_launched", "attempt": 2, "format": 2, "ts": 10.0}],
        attempts=({"number": 1, "status": "interrupted", "firstSeq": 1},
                  {"number": 2, "status": "failed", "firstSeq": 2}), status="failed")
    note = timeline_of((store, run_id)).note
    assert note == ("the events file ends before the last journal line: every call is drawn from the journal, "
                    "but calls served from the journal after its end are not shown")


def test_every_kind_of_run_gives_the_same_timeline(store):
    run = review(store)
    assert timeline_of(run) == timeline_of((store, run.run_id))
    timeline = timeline_of(run)
    assert timeline_of(timeline) is timeline
    with pytest.raises(ReplayError, match="a run is a RunRecord, a WorkflowRun"):
        timeline_of({"run": run.run_id})


# --- the layout -------------------------------------------------------------------------------------------------


def span(index, phase="P", start=0.0, end=1.0, outcome="live", label=None):
    return CallSpan(f"agent-{index}", label or f"call-{index}", phase, start, end, outcome, 1)


def test_overlapping_calls_take_rows_of_their_lane_and_calls_in_turn_share_one():
    parallel = [span(index, start=0.0, end=1.0) for index in range(3)]
    in_turn = [span(3 + index, "Q", start=index, end=index + 1) for index in range(3)]
    layout = timeline_layout(Timeline("t", (*parallel, *in_turn)))
    assert [(lane.phase, lane.rows) for lane in layout.lanes] == [("P", 3), ("Q", 1)]
    assert sorted(bar.row for bar in layout.bars if bar.span.phase == "P") == [0, 1, 2]
    assert {bar.row for bar in layout.bars if bar.span.phase == "Q"} == {3}


def test_a_lane_never_has_more_rows_than_the_cap():
    layout = timeline_layout(Timeline("t", tuple(span(index) for index in range(50))))
    assert layout.rows == MAX_ROWS and len(layout.bars) == 50


def test_calls_that_did_not_answer_carry_their_labels_however_short_their_bars():
    """A failure is short (the runner raises at once); its bar still says which call it was, beside the bar, on
    the side with room, and a bar long enough says it on itself, whatever its outcome."""
    spans = (span(0, "P", 0.0, 10.0, "live", label="long-answered"),
             span(1, "P", 0.0, 0.01, "failed", label="quick-failure"),
             span(2, "P", 0.0, 0.01, "cancelled", label="cancelled-sibling"),
             span(3, "P", 9.99, 10.0, "unfinished", label="asked-at-the-end"),
             span(4, "P", 2.0, 2.01, "live", label="short-answered"))
    labels = {label.text: label.place for label in timeline_layout(Timeline("t", spans)).labelled}
    assert labels == {"long-answered": "inside", "quick-failure": "after", "cancelled-sibling": "after",
                      "asked-at-the-end": "before"}  # a short answered call is left to its tooltip
    texts = {element.text for element in ElementTree.fromstring(RunTimeline(Timeline("t", spans)).to_svg())
             .iter(f"{SVG}text")}
    assert set(labels) <= texts


def test_phases_beyond_the_lane_cap_share_one_lane():
    spans = tuple(span(index, f"phase {index}") for index in range(MAX_LANES + 10))
    layout = timeline_layout(Timeline("t", spans))
    assert len(layout.lanes) == MAX_LANES and layout.lanes[-1].phase == "11 more phases"


def test_a_hundred_thousand_calls_are_counted_over_time_with_their_failures_ticked_and_listed():
    kinds = ("live",) * 96 + ("cached", "retried", "failed", "cancelled")
    spans = tuple(span(index, ("Review", "Verify")[index % 2], index * 0.01, index * 0.01 + 0.5, kinds[index % 100])
                  for index in range(100_000))
    picture = RunTimeline(Timeline("huge", spans, (PhaseTokens("Review", 5, 50_000), PhaseTokens("Verify", 5, 50_000))))
    layout = picture.layout
    assert layout.view == "counts" and not layout.bars
    assert [lane.title(40) for lane in layout.lanes] == ["Review · 50,000 calls", "Verify · 50,000 calls"]
    assert len(layout.marks) == MAX_MARKS and {mark.span.outcome for mark in layout.marks} == {"failed"}
    assert layout.listed[-1] == "and 2,990 more: 990 failed, 1,000 cancelled, 1,000 retried"
    assert len(layout.listed) == LISTED + 1
    svg = picture.to_svg()
    assert len(svg.encode()) < 150_000  # counts and 200 ticks, not 100,000 bars
    root = ElementTree.fromstring(svg)
    ticks = [path for path in root.iter(f"{SVG}path") if path.find(f"{SVG}title") is not None]
    assert len(ticks) == MAX_MARKS
    assert "100,000" in picture.to_text()


# --- the formats ------------------------------------------------------------------------------------------------


def test_the_svg_is_well_formed_and_holds_the_phases_legend_and_a_tooltip_per_call(store):
    picture = run_timeline(review(store, resume=review(store).run_id))
    root = ElementTree.fromstring(picture.to_svg())
    texts = {element.text for element in root.iter(f"{SVG}text")}
    assert {"Review", "Verify", "answered", "from the journal (a tick)", "Tokens by phase", "this attempt",
            "all attempts"} <= texts
    assert any(text.startswith("attempt 2 · 10 cached") for text in texts)
    tooltips = [rect.find(f"{SVG}title").text for rect in root.iter(f"{SVG}rect")
                if rect.find(f"{SVG}title") is not None]
    assert len(tooltips) == len(picture.timeline.spans) == 20
    assert any(re.match(r"audit:security · Review · cached · 0 ms · 0 tokens · attempt 2", tip) for tip in tooltips)


def test_each_outcome_has_its_own_colour_and_legend_entry():
    spans = tuple(span(index, outcome=outcome) for index, outcome in enumerate(CALL_OUTCOMES))
    picture = RunTimeline(Timeline("all outcomes", spans))
    assert picture.layout.outcomes == CALL_OUTCOMES
    root = ElementTree.fromstring(picture.to_svg())
    fills = [group.get("fill") for group in root.iter(f"{SVG}g") if group.get("fill")]
    assert len(fills) == len(set(fills)) == len(CALL_OUTCOMES)
    legend = {element.text for element in root.iter(f"{SVG}text")}
    assert {"answered", "answered twice (schema retry)", "from the journal (a tick)", "failed", "cancelled",
            "never ended"} <= legend


def test_draw_makes_two_panels_with_the_phases_the_legend_and_the_title(store):
    picture = run_timeline(review(store))
    ax = picture.draw()
    assert len(ax.figure.axes) == 2
    calls, tokens = ax.figure.axes
    assert calls is ax
    # a lane's label goes on to say how many calls ran at once when the bars of a real run's calls stack (as under
    # load they do): its first line is the phase and its count whatever the timing
    titles = [label.get_text().split("\n")[0] for label in calls.get_yticklabels()]
    assert titles == ["Review · 4 calls", "Verify · 6 calls"]
    assert [label.get_text() for label in tokens.get_yticklabels()] == ["Review", "Verify"]
    assert [text.get_text() for text in calls.get_legend().get_texts()] == ["answered"]
    assert calls.get_title(loc="left") == picture.timeline.title
    assert tokens.get_title(loc="left") == "Tokens by phase"


def test_draw_on_given_axes_draws_only_the_calls(store):
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots()
    assert run_timeline(review(store)).draw(ax) is ax and figure.axes == [ax]


def test_the_text_is_a_table_of_phases_with_calls_tokens_and_the_failures_by_name():
    spans = (span(1, "Plan"), span(2, "Act", outcome="failed"), span(3, "Act", outcome="retried"))
    text = RunTimeline(Timeline("demo", spans, (PhaseTokens("Plan", 1, 1), PhaseTokens("Act", 2, 9)))).to_text()
    lines = text.splitlines()
    assert lines[:2] == ["demo", "3 calls (1 live, 1 retried, 1 failed) over 1 s"]
    assert lines[2].startswith("Each bar is a call")
    assert lines[3].split() == ["phase", "calls", "at", "once", "live", "retried", "failed", "call", "time", "tokens",
                                "this", "attempt", "all", "attempts"]
    assert lines[4].split() == ["Plan", "1", "1", "1", "0", "0", "1", "s", "1", "1"]
    assert lines[5].split() == ["Act", "2", "2", "0", "1", "1", "2", "s", "2", "9"]
    assert lines[6:] == ["  failed: call-2 (Act, attempt 1, 1 s)", "  retried: call-3 (Act, attempt 1, 1 s)"]


def test_a_timeline_shows_in_a_notebook_through_the_one_rendering_path(store):
    picture = run_timeline(review(store))
    assert formats_of(picture) == ("html", "text", "svg")
    assert render(picture, "svg") == picture.to_svg()
    assert render(picture, "html").startswith('<div class="alp-picture"')
    assert render(picture, "text") == picture.to_text()
    assert set(picture._repr_mimebundle_()) == {"text/html", "text/plain", "image/svg+xml"}
    with pytest.raises(VizError) as refused:
        render(picture, "mermaid")
    assert refused.value.code == "NO_VIEW"


def test_a_run_with_no_calls_still_draws():
    picture = RunTimeline(Timeline("empty", ()))
    ElementTree.fromstring(picture.to_svg())
    assert picture.to_text().splitlines()[:2] == ["empty", "no agent calls"]
    assert picture.draw() is not None


# --- hostile text -----------------------------------------------------------------------------------------------


@pytest.fixture
def hostile_run(store):
    """A run whose phase titles and call labels are hostile strings, and one a 10 KB label."""
    async def script(ctx, args):
        for text in HOSTILE:
            ctx.phase(text)
            await ctx.agent(f"prompt {text}", label=text)
        await ctx.agent("long", label="L" * 10_000)

    run = run_script(store, script, MockAgentRunner())
    assert run.status == "completed"
    return run_timeline(run)


def test_hostile_labels_and_phases_never_reach_the_svg_or_html_as_markup(hostile_run):
    svg, html = hostile_run.to_svg(), render(hostile_run, "html")
    ElementTree.fromstring(svg)
    for document in (svg, html):
        assert "<script" not in document and "<img" not in document and "]]>" not in document
        assert document.count("</svg>") == 1 and "\u202e" not in document and "\u200b" not in document
    assert "&lt;script&gt;" in svg and "right\\u202eto-left" in svg
    assert len(svg.encode()) < 40_000  # the 10 KB label is clipped wherever it is shown


def test_hostile_labels_and_phases_are_escaped_in_the_text_and_on_matplotlib(hostile_run):
    text = hostile_run.to_text()
    assert "\u202e" not in text and "right\\u202eto-left" in text and "\u200b" not in text
    assert max(len(line) for line in text.splitlines()) < 300
    ax = hostile_run.draw()
    labels = [label.get_text() for label in ax.get_yticklabels()]
    assert labels[0] == "<script>alert(1)</sc… · 1 call" and all(len(label) <= 30 for label in labels)


def test_a_dollar_sign_in_a_phase_is_drawn_as_written_not_as_mathtext():
    picture = RunTimeline(Timeline("$\\frac{", (span(1, "costs $\\frac{ and $x^"),)))
    ax = picture.draw()
    ax.figure.canvas.draw()  # mathtext would refuse the unbalanced \frac here
    assert ax.get_yticklabels()[0].get_text() == "costs $\\frac{ and $x^ · 1 call"


def test_the_timeline_model_is_plain_json_friendly_data(store):
    timeline = timeline_of(review(store))
    assert json.loads(json.dumps([span._asdict() for span in timeline.spans]))
