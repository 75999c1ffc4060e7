"""RunViewer: a run stepped through call by call after the fact, by slider, previous/next and search, with a cursor
on its timeline; cached, failed and cancelled calls told apart; nothing ever run again; and a move on a long run
redraws only small things, never the timeline or the list of calls."""

from __future__ import annotations

import re
from xml.etree import ElementTree

import pytest
from runtime_support import SiblingFailure, journal_records, review, run_script
from widget_support import html_values

from alp_nb.replay import ReplayError, load_run, timeline_of
from alp_nb.replay.run_calls import RunCalls
from alp_nb.replay.timeline import CallSpan, Timeline
from alp_nb.runtime import AnthropicAgentRunner, MockAgentRunner, RunnerOutput, RunStore
from alp_nb.viz.models import timeline_layout as layout_module
from alp_nb.viz.models.timeline_layout import MAX_BARS, timeline_layout
from alp_nb.viz.pictures import timeline_picture
from alp_nb.viz.pictures.timeline_picture import RunTimeline
from alp_nb.viz.renderers import timeline_svg
from alp_nb.viz.renderers.timeline_svg import cursor_svg
from alp_nb.widgets import RunViewer
from alp_nb.widgets.run_viewer import NEARBY

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = ['<script>alert(1)</script>', '"><img onerror=x>', "</svg>", "right\u202eto-left", "zero\u200bwidth"]
BIG = 10_000


def failed_run(store):
    async def script(ctx, args):
        ctx.phase("Plan")
        await ctx.agent("plan the work", label="plan")
        ctx.phase("Fan-out")
        return await ctx.parallel([lambda: ctx.agent("a", label="fast"), lambda: ctx.agent("b", label="broken"),
                                   lambda: ctx.agent("c", label="slow")])

    run = run_script(store, script, SiblingFailure(), ("Plan", "Fan-out"))
    assert run.status == "failed"
    return run


# --- stepping ---------------------------------------------------------------------------------------------------


def test_the_slider_steps_through_every_call_in_the_order_they_started(store):
    run = review(store)
    viewer = RunViewer(run)
    spans = timeline_of(run).spans
    assert (viewer.slider.min, viewer.slider.max) == (1, len(spans)) == (1, 10)
    journal = {entry["key"]: entry for entry in journal_records(store, run.run_id)}
    cursors = set()
    for position in range(1, len(spans) + 1):
        viewer.slider.value = position
        current = viewer.current
        assert (current.position, current.span) == (position, spans[position - 1])
        entry = journal[current.span.key]
        assert (current.seq, current.prompt, current.tokens) == (entry["seq"], entry["prompt"], entry["tokens"])
        assert current.outcome == "live" and f"call {position} of 10" in viewer.call.value
        assert "▸ " + str(position) in viewer.nearby.value
        cursors.add(viewer.cursor.value)
    assert len(cursors) == len(spans)  # the cursor moved with every call


def test_previous_and_next_move_the_cursor_one_call_and_stop_at_the_ends(store):
    viewer = RunViewer(review(store))
    assert viewer.current.position == 1 and viewer.previous_button.disabled
    viewer.next_button.click()
    viewer.next_button.click()
    assert viewer.current.position == viewer.slider.value == 3
    viewer.previous_button.click()
    assert viewer.current.position == 2 and not viewer.previous_button.disabled
    viewer.slider.value = viewer.slider.max
    assert viewer.next_button.disabled
    viewer.next_button.click()
    assert viewer.current.position == viewer.slider.max


def test_jump_finds_a_journal_seq_a_label_or_part_of_one(store):
    viewer = RunViewer(review(store))
    viewer.jump.value = "8"
    assert viewer.current.seq == 8
    viewer.jump.value = "audit:security"
    assert viewer.current.label == "audit:security"
    viewer.jump.value = "VERIFY:"  # part of a label, case ignored: the next one after the cursor
    first = viewer.current.position
    assert viewer.current.label.startswith("verify:")
    viewer.find_button.click()
    assert viewer.current.label.startswith("verify:") and viewer.current.position == first + 1
    viewer.jump.value = "no such call"
    assert "no call has seq or label no such call" in viewer.found.value
    assert viewer.current.position == first + 1


def test_finding_part_of_a_label_ignores_case_goes_round_and_never_spans_two_labels():
    labels = ["Alpha", "beta\nGAMMA", "Straße", "delta", "alphabet"]
    calls = RunCalls(Timeline("t", tuple(CallSpan(f"agent-{index}", label, "P", index, index, "live")
                                         for index, label in enumerate(labels))))
    assert [calls.find("ALPH", after) for after in range(5)] == [4, 4, 4, 4, 0]
    assert calls.find("strasse", 0) == 2 and calls.find("a g", 0) == 1  # a line break in a label reads as a space
    assert calls.find("ta\nalph", 0) is None and calls.find("ga\nst", 0) is None and calls.find("zzz", 2) is None


# --- what each call was -----------------------------------------------------------------------------------------


# --- filters ----------------------------------------------------------------------------------------------------


def test_a_status_filter_keeps_the_failed_calls_and_the_buttons_step_between_them_only(store):
    viewer = RunViewer(failed_run(store))
    assert viewer.status_filter.options[0] == ("any", "") and viewer.status_filter.value == ""  # shown, not blank
    viewer.status_filter.value = "failed"
    assert [viewer.calls.call(index).label for index in viewer.matches] == ["broken"]
    assert viewer.current.label == "broken" and "1 of 4 calls match" in viewer.matched.value
    assert viewer.previous_button.disabled and viewer.next_button.disabled  # no other failed call to go to
    viewer.status_filter.value = ""
    assert viewer.matches is None and viewer.matched.value == "" and not viewer.previous_button.disabled


def test_filters_combine_and_the_pattern_searches_label_prompt_and_value_case_folded(store):
    viewer = RunViewer(review(store))
    viewer.pattern.value = "SECURITY"  # in labels (audit:security, verify:security:...) and prompts
    found = [viewer.calls.call(index).label for index in viewer.matches]
    assert found and all("security" in label for label in found)
    viewer.phase_filter.value = "Verify"
    assert [viewer.calls.call(index).label for index in viewer.matches] == [
        label for label in found if label.startswith("verify:")]
    viewer.pattern.value = "no call says this"
    assert viewer.matches == [] and "no call matches" in viewer.matched.value


def test_first_failed_jumps_to_the_first_failed_call_and_is_disabled_without_one(store):
    viewer = RunViewer(failed_run(store))
    viewer.first_failed_button.click()
    assert viewer.current.outcome == "failed" and viewer.current.label == "broken"
    assert RunViewer(review(store)).first_failed_button.disabled


def test_a_cached_call_from_a_resumed_run_and_a_failed_call_are_told_apart(store):
    first = review(store)
    resumed = RunViewer(review(store, resume=first.run_id))
    journal = {entry["key"]: entry for entry in journal_records(store, first.run_id)}
    resumed.slider.value = 15
    cached = resumed.current
    assert (cached.outcome, cached.span.attempt, cached.tokens) == ("cached", 2, 0)
    entry = journal[cached.span.key]
    assert (cached.value, cached.answer_tokens, cached.seq) == (entry["value"], entry["tokens"], entry["seq"])
    assert "served from the journal" in resumed.call.value and f"cost {entry['tokens']}" in resumed.call.value

    failing = RunViewer((store, failed_run(store).run_id))
    outcomes = {failing.calls.call(index).label: failing.calls.call(index).outcome for index in range(4)}
    assert outcomes == {"plan": "live", "fast": "live", "broken": "failed", "slow": "cancelled"}
    failing.jump.value = "broken"
    broken = failing.current
    assert broken.outcome == "failed" and broken.error == "RuntimeError: runner broke: <script>alert(1)</script>"
    ended = {line["label"]: line for line in journal_records(store, failing.record.run_id)
             if line["kind"] == "spend"}  # the line that says how it ended
    assert (broken.prompt, broken.value, broken.seq) == (None, None, ended["broken"]["seq"])
    assert "failed: no answer was kept" in failing.call.value
    assert "runner broke: &lt;script&gt;" in failing.call.value
    failing.jump.value = "slow"
    assert failing.current.outcome == "cancelled" and "cancelled: a sibling" in failing.call.value


def test_the_progress_counts_each_phases_calls_up_to_the_cursor(store):
    first = review(store)
    viewer = RunViewer(review(store, resume=first.run_id))
    viewer.slider.value = 12  # attempt 1's ten live calls, then two cached Review calls

    def row(phase):
        match = re.search(rf"<tr><td>(?:<b>)?{phase}(?:</b>)?</td>(.*?)</tr>", viewer.progress.value)
        return re.findall(r"<td>(.*?)</td>", match[1])

    assert row("Review") == ["6 of 8", "4", "2"] and row("Verify") == ["6 of 12", "6", "0"]
    viewer.slider.value = 20
    assert row("Review") == ["8 of 8", "4", "4"] and row("Verify") == ["12 of 12", "6", "6"]


def test_every_kind_of_run_gives_its_calls(store):
    run = review(store)
    record = load_run(run.run_id, store=store)
    from_run, from_store, from_id = RunViewer(run), RunViewer((store, run.run_id)), RunViewer(record)
    assert from_run.calls.timeline == from_store.calls.timeline == from_id.calls.timeline == timeline_of(run)
    assert len(from_id.calls) == len(record.journal) and from_id.current.value is not None
    bare = RunViewer(timeline_of(run))
    assert bare.current.span == from_run.current.span and bare.current.prompt is None
    with pytest.raises(ReplayError, match="a run is a RunRecord"):
        RunViewer({"run": run.run_id})


def test_a_run_without_calls_shows_an_empty_viewer(store):
    async def script(ctx, args):
        ctx.log("nothing to do")

    viewer = RunViewer(run_script(store, script, MockAgentRunner()))
    assert viewer.current is None and viewer.slider.disabled and viewer.next_button.disabled
    assert "no agent calls" in viewer.call.value and viewer.cursor.value == ""


# --- nothing runs -----------------------------------------------------------------------------------------------


def test_the_viewer_never_runs_anything_nor_writes_to_the_store(store, monkeypatch):
    first = review(store)
    resumed = review(store, resume=first.run_id)
    failed = failed_run(store)
    before = {path: path.read_bytes() for path in store.root.iterdir()}

    def refuse(*args, **kwargs):
        raise AssertionError("a viewer called a runner")

    for runner in (MockAgentRunner, AnthropicAgentRunner, SiblingFailure):
        monkeypatch.setattr(runner, "run", refuse)
    monkeypatch.setattr("alp_nb.runtime.run.run_workflow", refuse)
    for run in (resumed, (store, failed.run_id), load_run(first.run_id, store=store)):
        viewer = RunViewer(run)
        for position in range(1, viewer.slider.max + 1):
            viewer.slider.value = position
        viewer.previous_button.click()
        viewer.jump.value = "broken"
        viewer.find_button.click()
    assert {path: path.read_bytes() for path in store.root.iterdir()} == before


# --- a long run -------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def big_run(tmp_path_factory):
    """A run of 10,000 calls in three phases, written by the runtime itself with the mock runner."""
    async def script(ctx, args):
        for phase in ("Plan", "Act", "Check"):
            ctx.phase(phase)
            await ctx.parallel([lambda i=i, phase=phase: ctx.agent(f"{phase} item {i}", label=f"{phase.lower()}:{i}")
                                for i in range(BIG // 3 + 1)])

    store = RunStore(tmp_path_factory.mktemp("big") / "runs")
    run = run_script(store, script, MockAgentRunner(), ("Plan", "Act", "Check"), agent_cap=BIG + 10)
    assert run.status == "completed" and run.task.usage.attempt.agents > BIG
    return store, run.run_id


def test_a_move_on_a_long_run_redraws_only_the_cursor_and_the_call_never_the_timeline_or_the_calls(big_run,
                                                                                                    monkeypatch):
    viewer = RunViewer(big_run)
    calls, timeline = viewer.calls, viewer.timeline.value
    assert len(calls) > BIG and all(f"{phase} · 3,334 calls" in timeline for phase in ("Plan", "Act", "Check"))

    def redrawn(*args, **kwargs):
        raise AssertionError("a move redrew the timeline or read the run again")

    for target, name in ((RunTimeline, "to_svg"), (timeline_picture, "timeline_layout"),
                         (layout_module, "timeline_layout"), (timeline_svg, "timeline_svg"),
                         (RunCalls, "__init__"), (RunStore, "read_journal")):
        monkeypatch.setattr(target, name, redrawn)
    made = []
    build = RunCalls.call
    monkeypatch.setattr(RunCalls, "call", lambda self, index: made.append(index) or build(self, index))
    moves = [lambda: setattr(viewer.slider, "value", 5_000), viewer.next_button.click, viewer.previous_button.click,
             lambda: setattr(viewer.jump, "value", "act:1234"), lambda: setattr(viewer.jump, "value", "9999"),
             lambda: setattr(viewer.slider, "value", len(calls)), lambda: setattr(viewer.slider, "value", 1)]
    for move in moves:
        made.clear()
        move()
        assert len(made) <= 2 * NEARBY + 2  # the current call and its neighbours, never the whole list
        assert len(viewer.cursor.value) < 1_000 and len(viewer.call.value) < 10_000
        assert len(viewer.nearby.value) < 5_000 and len(viewer.progress.value) < 3_000
    assert viewer.calls is calls and viewer.timeline.value is timeline
    assert viewer.current.label == "plan:0"


# --- the cursor -------------------------------------------------------------------------------------------------


def test_the_cursor_is_a_picture_the_timelines_size_boxing_the_calls_bar(store):
    picture = RunTimeline(timeline_of(review(store)))
    timeline = ElementTree.fromstring(picture.to_svg())
    span = picture.timeline.spans[3]
    cursor = ElementTree.fromstring(cursor_svg(picture.layout, span))
    assert [cursor.get(key) for key in ("width", "height")] == [timeline.get(key) for key in ("width", "height")]
    assert "pointer-events:none" in cursor.get("style")
    bar = next(rect for rect in timeline.iter(f"{SVG}rect") if rect.find(f"{SVG}title") is not None
               and rect.find(f"{SVG}title").text.startswith(span.label))
    box = cursor.findall(f".//{SVG}rect")[-1]
    assert float(box.get("x")) == pytest.approx(float(bar.get("x")) - 3, abs=0.2)
    assert float(box.get("y")) < float(bar.get("y")) < float(bar.get("y")) + float(bar.get("height")) < float(
        box.get("y")) + float(box.get("height"))
    assert box.get("fill") is None and cursor.find(f"{SVG}g").get("fill") == "none"  # it never tints the bar


def test_the_cursor_of_a_call_the_picture_left_out_boxes_its_time_across_its_lane():
    spans = tuple(CallSpan(f"agent-{index}", f"call-{index}", ("A", "B")[index % 2], index * 0.01, index * 0.01 + 0.5,
                           "live") for index in range(MAX_BARS * 2))
    layout = timeline_layout(Timeline("long", spans))
    left_out = next(span for span in spans if span not in layout.row_of and span.phase == "B")
    box = ElementTree.fromstring(cursor_svg(layout, left_out)).findall(f".//{SVG}rect")[-1]
    lane = next(lane for lane in layout.lanes if lane.phase == "B")
    assert float(box.get("height")) == pytest.approx(lane.rows * 16.0 + 6.0 + 2)


# --- hostile text -----------------------------------------------------------------------------------------------


def test_hostile_prompts_values_and_labels_never_reach_the_page_as_markup(store):
    class Echo:
        blocking = False

        def run(self, prompt, schema, label):
            return RunnerOutput({"echo": prompt, "label": label}, 1)

    async def script(ctx, args):
        for text in HOSTILE:
            ctx.phase(text)
            await ctx.agent(f"prompt {text}", label=text)
        await ctx.agent("long " + "P" * 10_000, label="L" * 10_000)

    viewer = RunViewer(run_script(store, script, Echo()))
    for position in range(1, viewer.slider.max + 1):
        viewer.slider.value = position
        for value in html_values(viewer):
            assert "<script" not in value and "<img" not in value and "\u202e" not in value and "\u200b" not in value
        for value in (viewer.call.value, viewer.nearby.value, viewer.progress.value):
            assert "</svg>" not in value and len(value) < 15_000  # the 10 KB label and prompt are clipped
    viewer.jump.value = HOSTILE[0] + "x"
    assert "&lt;script&gt;" in viewer.found.value and "<script" not in viewer.found.value
    viewer.jump.value = "right"
    assert "right\\u202eto-left" in viewer.call.value
