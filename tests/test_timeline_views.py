"""A timeline picture a reader can read at any size: lanes that say their phase, their calls and how many ran at once;
bars while each call is a mark to point at, and calls per phase over time once bars would be thinner than a pixel;
the calls that did not simply answer ticked and listed by name; and a picture that fits a notebook's column, in SVG,
matplotlib and text alike."""

from __future__ import annotations

import re
from collections import Counter
from xml.etree import ElementTree

import matplotlib
import numpy
import pytest

from alp_nb.replay.timeline import CallSpan, PhaseTokens, Timeline
from alp_nb.viz.models.timeline_layout import (
    COLUMNS,
    FEW_CALLS,
    LISTED,
    MAX_BARS,
    MAX_MARKS,
    MAX_ROWS,
    PLOT_WIDTH,
    timeline_layout,
)
from alp_nb.viz.pictures.timeline_picture import RunTimeline
from alp_nb.viz.renderers.timeline_svg import LABEL_CHARS, cursor_svg

matplotlib.use("Agg")
SVG = "{http://www.w3.org/2000/svg}"


def call(index, phase="Review", start=0.0, end=1.0, outcome="live", label=None, error=""):
    return CallSpan(f"agent-{index}", label or f"item-{index}", phase, start, end, outcome, 1, 1, error)


def fan_out(count, phase="Review", duration=5e-6, gap=15e-6, outcome_of=lambda index: "live", first=0.0):
    """``count`` calls one after another, each ``duration`` long, ``gap`` apart: a mock runner's fan-out."""
    return tuple(call(index, phase, first + index * gap, first + index * gap + duration, outcome_of(index))
                 for index in range(count))


def with_failures(index):
    return "failed" if index % 97 == 3 else "cancelled" if index % 199 == 5 else "live"


@pytest.fixture(scope="module")
def huge():
    """A hundred thousand calls in two phases, a few failed or cancelled, and one never ended."""
    spans = (*fan_out(60_000, "Review", 2.0, 0.05, with_failures),
             *fan_out(39_999, "Verify", 3.0, 0.05, with_failures, first=3_000.0),
             call(100_000, "Verify", 4_990.0, 5_000.0, "unfinished", label="hung"))
    return RunTimeline(Timeline("huge", spans, (PhaseTokens("Review", 5, 9), PhaseTokens("Verify", 5, 9))))


def texts(svg):
    return [element.text for element in ElementTree.fromstring(svg).iter(f"{SVG}text")]


# --- lanes named and explained ----------------------------------------------------------------------------------


def test_each_lane_says_its_phase_its_calls_and_how_many_ran_at_once():
    spans = (call(0, "Review", 0.0, 2.0), call(1, "Review", 0.5, 2.0), call(2, "Review", 1.0, 3.0),
             call(3, "Verify", 3.0, 4.0), call(4, "Verify", 4.5, 5.0))
    picture = RunTimeline(Timeline("t", spans))
    review, verify = picture.layout.lanes
    assert (review.title(40), review.details) == ("Review · 3 calls", ("up to 3 at once",))
    assert (verify.title(40), verify.details) == ("Verify · 2 calls", ("one at a time",))
    shown = texts(picture.to_svg())
    assert {"Review · 3 calls", "up to 3 at once", "Verify · 2 calls"} <= set(shown)
    assert any(f"stack in rows, at most {MAX_ROWS} a lane" in text for text in shown)  # what the rows are
    assert picture.draw().get_yticklabels()[0].get_text() == "Review · 3 calls\nup to 3 at once"


def test_calls_at_once_are_those_running_at_one_moment_and_a_call_served_from_the_journal_ran_none():
    spans = (call(0, start=0.0, end=1.0), call(1, start=1.0, end=2.0), call(2, start=1.0, end=1.5),
             call(3, start=1.2, end=1.2, outcome="failed"),
             call(4, start=5.0, end=5.0, outcome="cached"), call(5, start=5.0, end=5.0, outcome="cached"))
    (lane,) = timeline_layout(Timeline("t", spans)).lanes
    assert lane.at_once == 3  # at 1.2 the second, the third and the instant failure; the first ended at 1.0
    (served,) = timeline_layout(Timeline("t", spans[4:])).lanes
    assert served.details == ("all from the journal",)


def test_a_long_phase_is_cut_in_its_label_to_keep_its_count_and_shown_whole_in_its_tooltip():
    phase = "Verify every finding against the repository " * 4
    picture = RunTimeline(Timeline("t", (call(0, phase),)))
    root = ElementTree.fromstring(picture.to_svg())
    (label,) = [group for group in root.iter(f"{SVG}g") if any(
        (text.text or "").endswith("· 1 call") for text in group.findall(f"{SVG}text"))]
    assert len(label.find(f"{SVG}text").text) <= LABEL_CHARS and "…" in label.find(f"{SVG}text").text
    assert label.find(f"{SVG}title").text.startswith(phase.strip()[:150])


# --- bars or counts ---------------------------------------------------------------------------------------------


def test_a_timeline_of_bars_thinner_than_a_pixel_draws_calls_per_phase_over_time():
    spans = fan_out(2_000)  # 5 µs calls over 30 ms: 0.1 px each
    picture = RunTimeline(Timeline("fan-out", spans))
    layout = picture.layout
    assert layout.view == "counts" and not layout.bars
    assert layout.counts.shape == (1, 6, COLUMNS)
    assert 2_000 < layout.counts.sum() < 2 * 2_000  # each call in its slice, one across two slices in its both
    (lane,) = layout.lanes
    assert lane.at_once == 1 and lane.busiest == layout.counts.sum(axis=1).max() == 4
    assert lane.details == ("one at a time", "at most 4 per 0.0469 ms")
    assert any(text.startswith("Calls too short to draw one by one (the median lasts 0.005 ms, 0.11 px")
               for text in layout.caption)
    svg = picture.to_svg()
    assert layout.ticks and "10 ms" in texts(svg)  # the axis keeps its time ticks
    assert not [rect for rect in ElementTree.fromstring(svg).iter(f"{SVG}rect") if rect.find(f"{SVG}title")]
    text = picture.to_text()
    assert "calls running over time" in text and "one at a time, at most 4 per 0.0469 ms" in text
    ax = picture.draw()
    assert ax.patches and "at most 4 per 0.0469 ms" in ax.get_yticklabels()[0].get_text()


def test_a_few_calls_are_bars_however_short_and_more_than_the_cap_are_counted_however_long():
    assert timeline_layout(Timeline("few", fan_out(FEW_CALLS, gap=1e-3))).view == "bars"
    assert timeline_layout(Timeline("many", fan_out(FEW_CALLS + 1, gap=1e-3))).view == "counts"
    long_calls = tuple(call(index, start=index * 1.0, end=index * 1.0 + 30.0) for index in range(MAX_BARS + 1))
    assert timeline_layout(Timeline("long", long_calls[:MAX_BARS])).view == "bars"
    assert timeline_layout(Timeline("long", long_calls)).view == "counts"


def test_a_call_counts_in_every_slice_it_ran_in_stacked_by_outcome():
    rng = numpy.random.default_rng(7)
    starts = rng.uniform(0, 100, 3_000)
    spans = tuple(call(index, ("A", "B")[index % 2], start, start + rng.uniform(0, 5),
                       ("live", "failed", "retried")[index % 3]) for index, start in enumerate(starts.tolist()))
    timeline = Timeline("t", spans)
    layout = timeline_layout(timeline)
    width = timeline.duration / COLUMNS
    expected = numpy.zeros_like(layout.counts)
    for span in spans:
        first, last = int(span.start / width), min(int(span.end / width), COLUMNS - 1)
        expected[("A", "B").index(span.phase), ("live", "retried", "cached", "failed").index(span.outcome),
                 first:last + 1] += 1
    assert (layout.counts == expected).all()


# --- the calls that did not simply answer -----------------------------------------------------------------------


def test_failed_cancelled_and_unfinished_calls_are_ticked_at_their_time_and_listed_with_counts(huge):
    layout = huge.layout
    assert layout.view == "counts"
    counts = Counter(span.outcome for span in huge.timeline.spans)
    assert counts["failed"] > MAX_MARKS
    marks = layout.marks
    assert len(marks) == MAX_MARKS and {mark.span.outcome for mark in marks} == {"failed"}  # the failed first
    assert [mark.span.start for mark in marks] == sorted(mark.span.start for mark in marks)
    assert all(layout.lanes[mark.lane].phase == mark.span.phase for mark in marks)
    listed = layout.listed
    assert listed[0] == "failed: item-3 (Review, attempt 1, 2 s)" and len(listed) == LISTED + 1
    assert listed[-1] == (f"and {counts['failed'] + counts['cancelled'] + 1 - LISTED:,} more: "
                          f"{counts['failed'] - LISTED:,} failed, 1 unfinished, {counts['cancelled']:,} cancelled")
    svg = huge.to_svg()
    shown = texts(svg)
    assert all(line in shown for line in listed)
    ticks = [path.find(f"{SVG}title").text for path in ElementTree.fromstring(svg).iter(f"{SVG}path")
             if path.find(f"{SVG}title") is not None]
    assert len(ticks) == MAX_MARKS and ticks[0].startswith("item-3 · Review · failed · 2 s")
    assert all(f"  {line}" in huge.to_text().splitlines() for line in listed)


def test_a_few_failures_among_bars_are_labelled_and_listed_with_their_errors():
    spans = (call(0, "Fan-out", 0.0, 3.0), call(1, "Fan-out", 0.0, 0.01, "failed", "broken", "RuntimeError: boom"),
             call(2, "Fan-out", 0.0, 0.02, "cancelled", "slow"), call(3, "Check", 3.0, 3.5, "retried", "check"))
    picture = RunTimeline(Timeline("t", spans))
    assert picture.layout.view == "bars"
    assert {label.text for label in picture.layout.labelled} >= {"broken", "slow", "check"}
    assert picture.layout.listed == ("failed: broken (Fan-out, attempt 1, 10 ms) · RuntimeError: boom",
                                     "cancelled: slow (Fan-out, attempt 1, 20 ms)",
                                     "retried: check (Check, attempt 1, 500 ms)")
    assert set(picture.layout.listed) <= set(texts(picture.to_svg()))


def test_an_error_from_the_journal_is_escaped_in_the_list():
    error = '<script>alert(1)</script>\u202e'
    hostile = call(9_999, start=0.0, end=0.0, outcome="failed", error=error)
    picture = RunTimeline(Timeline("t", (*fan_out(3_000), hostile)))
    svg, text = picture.to_svg(), picture.to_text()
    ElementTree.fromstring(svg)
    assert "<script" not in svg and "&lt;script&gt;" in svg and "\u202e" not in svg + text
    assert "\\u202e" in text


# --- a notebook's column ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("spans", [fan_out(20, duration=1.0, gap=1.0), fan_out(2_000)], ids=["bars", "counts"])
def test_the_svg_fits_a_notebook_column_and_no_text_is_smaller_than_ten_pixels(spans):
    spans = (*spans, call(99_999, "L" * 500, 0.0, 0.1, "failed", label="F" * 500, error="E" * 500))
    root = ElementTree.fromstring(RunTimeline(Timeline("T" * 500, spans)).to_svg())
    assert int(root.get("width")) <= 880 and "max-width:100%" in root.get("style")
    sizes = [float(element.get("font-size")) for element in root.iter(f"{SVG}text")]
    assert sizes and min(sizes) >= 10
    for group in root.iter(f"{SVG}g"):  # a text cut to fit has its whole as its tooltip
        for text in group.findall(f"{SVG}text"):
            if "…" in (text.text or "") and group.find(f"{SVG}title") is not None:
                assert len(group.find(f"{SVG}title").text) > len(text.text)
    assert max(len(text.text or "") for text in root.iter(f"{SVG}text")) <= 150


def test_a_hundred_thousand_calls_make_a_small_svg(huge):
    svg = huge.to_svg()
    assert len(svg.encode()) < 200_000
    ElementTree.fromstring(svg)


# --- the cursor -------------------------------------------------------------------------------------------------


def test_the_cursor_of_a_counted_call_marks_its_time_in_its_lane(huge):
    layout = huge.layout
    picture = ElementTree.fromstring(huge.to_svg())
    target = next(span for span in huge.timeline.spans if span.phase == "Verify")
    cursor = ElementTree.fromstring(cursor_svg(layout, target))
    assert [cursor.get(key) for key in ("width", "height")] == [picture.get(key) for key in ("width", "height")]
    line = cursor.find(f"{SVG}path").get("d")
    x = float(re.match(r"M([\d.]+),", line)[1])
    assert x == pytest.approx(204 + target.start / layout.duration * PLOT_WIDTH, abs=0.2)
    box = cursor.findall(f".//{SVG}rect")[-1]
    lane_tops = sorted({float(rect.get("y")) for rect in picture.iter(f"{SVG}rect")
                        if rect.get("width") == str(PLOT_WIDTH)})
    assert float(box.get("y")) == pytest.approx(lane_tops[1] - 1)  # the second lane, Verify's
