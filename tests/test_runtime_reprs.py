"""Rich displays of workflow runs: a run and its snapshot show a status badge, usage this attempt and
cumulative, phases with call counts and the last log lines; a run read back adds one page of its journal;
the registry is a table. Workflow text (descriptions, phases, prompts, labels, values, log lines) is
untrusted: HTML escapes it and plain text neutralises control characters."""

from __future__ import annotations

import re

import pytest
from runtime_support import FailingRunner, launch, registry

from alp_nb.replay import ReplayError, load_run
from alp_nb.replay.record import JOURNAL_PAGE_SIZE as JOURNAL_PAGE
from alp_nb.runtime import (
    DEFAULT_REGISTRY,
    MockAgentRunner,
    PhaseProgress,
    RunSnapshot,
    Usage,
    UsageReport,
    WorkflowRegistry,
)
from alp_nb.viz.rendering import render
from alp_nb.viz.views.runs import LOG_LINES, CallTally, event_line, progress_bar

HOSTILE = '<script>alert("x")</script>'
BADGE = re.compile(r'<span class="badge (ok|bad|warn|info)"[^>]*>([^<]*)</span>')
ROW = re.compile(r"<tr>(.*?)</tr>")
CELL = re.compile(r"<td>(.*?)</td>")


def badges(html: str) -> list[tuple[str, str]]:
    return [(text, tone) for tone, text in BADGE.findall(html)]


def table_rows(html: str) -> list[list[str]]:
    return [CELL.findall(row) for row in ROW.findall(html) if "<td>" in row]


def assert_escaped(html: str) -> None:
    assert "<script>" not in html
    assert "&lt;script&gt;" in html


def snapshot(status="completed", **fields) -> RunSnapshot:
    return RunSnapshot(run_id="wf_demo_0123456789abcdef", task_id="local_workflow_wf_demo_0123456789abcdef",
                       workflow_name="demo", status=status, **fields)


@pytest.fixture
def hostile() -> WorkflowRegistry:
    """A workflow whose description, phase, args, prompt, label, value and log line all carry markup."""
    workflows = WorkflowRegistry()

    async def script(ctx, args):
        ctx.phase(HOSTILE)
        value = await ctx.agent(f"prompt {HOSTILE}", label=f"label {HOSTILE}", phase=HOSTILE)
        ctx.log(f"log {HOSTILE}")
        return value

    workflows.register({"name": "hostile", "description": f"description {HOSTILE}", "phases": [HOSTILE],
                        "args": {"properties": {"topic": {"type": "string", "description": HOSTILE}}}}, script)
    return workflows


# --- escaping -------------------------------------------------------------------------------------


def test_run_html_escapes_phase_log_line_and_value(store, hostile):
    run = launch("hostile", store, hostile, runner=MockAgentRunner({f"label {HOSTILE}": f"value {HOSTILE}"}))
    html = render(run, "html")
    assert_escaped(html)
    assert "log &lt;script&gt;" in html and "value &lt;script&gt;" in html


def test_a_read_back_run_html_escapes_the_prompt_label_and_value_of_each_call(store, hostile):
    run = launch("hostile", store, hostile, runner=MockAgentRunner({f"label {HOSTILE}": f"value {HOSTILE}"}))
    html = render(load_run(run.run_id, store=store), "html")
    assert_escaped(html)
    [row] = table_rows(html.split("<th>seq</th>")[1])
    assert "prompt &lt;script&gt;" in row[6] and "value &lt;script&gt;" in row[7] and "label &lt;script&gt;" in row[3]


def test_registry_html_escapes_description_phases_and_args(hostile):
    html = render(hostile, "html")
    assert_escaped(html)
    escaped = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"
    assert table_rows(html) == [["<code>hostile</code>", f"description {escaped}", escaped,
                                 f"topic (string): {escaped}"]]


def test_plain_text_shows_control_characters_instead_of_sending_them_to_the_terminal():
    text = render(snapshot(logs=("red \x1b[31malert\x1b[0m",), error="bell\x07"), "text")
    assert "\x1b" not in text and "\x07" not in text
    assert "LOG        red \\x1b[31malert\\x1b[0m" in text.splitlines()
    assert "ERROR      bell\\x07" in text.splitlines()


# --- status, usage, phases, logs ------------------------------------------------------------------


@pytest.mark.parametrize(("status", "tone"), [("running", "info"), ("completed", "ok"), ("failed", "bad"),
                                              ("cancelled", "warn"), ("interrupted", "warn")])
def test_each_run_status_has_its_badge(status, tone):
    assert badges(render(snapshot(status), "html")) == [(status, tone)]
    assert f"STATUS     {status}" in render(snapshot(status), "text").splitlines()


def test_phases_show_calls_done_cached_failed_and_cancelled():
    task = snapshot(phases=(PhaseProgress(title="Review", done=3, cached=2, failed=1, cancelled=2),
                            PhaseProgress(title="Verify", cached=4)))
    phase_table = render(task, "html").split("<th>cancelled</th>")[1]
    assert table_rows(phase_table) == [["<code>Review</code>", "8", "3", "2", "1", "2"],
                                       ["<code>Verify</code>", "4", "0", "4", "0", "0"]]
    assert [line for line in render(task, "text").splitlines() if "calls:" in line] == [
        "PHASES     Review  8 calls: 3 done, 2 cached, 1 failed, 2 cancelled",
        "           Verify  4 calls: 0 done, 4 cached, 0 failed",
    ]


def test_usage_shows_this_attempt_and_the_cumulative_total():
    task = snapshot(usage=UsageReport(attempt=Usage(agents=2, tokens=30), cumulative=Usage(agents=7, tokens=95)))
    usage_table = render(task, "html").split("<th>tokens</th>")[1]
    assert table_rows(usage_table)[:2] == [["this attempt", "2", "30"], ["cumulative", "7", "95"]]
    assert "USAGE      this attempt 2 agents, 30 tokens · cumulative 7 agents, 95 tokens" in render(task, "text")


def test_printed_usage_is_its_fields_and_names_unknown_cost_only_when_there_is_some():
    assert str(Usage(agents=9, tokens=386)) == "agents=9 tokens=386"
    assert repr(Usage(agents=9, tokens=386)) == "Usage(agents=9, tokens=386)"
    unknown = Usage(agents=9, tokens=58, unanswered=1, reserved=12)
    assert str(unknown) == "agents=9 tokens=58 unanswered=1 reserved=12"
    assert repr(unknown) == "Usage(agents=9, tokens=58, unanswered=1, reserved=12)"


def test_only_the_last_log_lines_are_shown():
    logs = tuple(f"line {number}" for number in range(LOG_LINES + 5))
    html = render(snapshot(logs=logs), "html")
    assert "line 4\n" not in html and "line 5\n" in html and f"line {LOG_LINES + 4}" in html
    assert f"last {LOG_LINES} of {LOG_LINES + 5}" in html
    shown = [line for line in render(snapshot(logs=logs), "text").splitlines() if "line " in line]
    assert [line.split()[-1] for line in shown] == [str(number) for number in range(5, LOG_LINES + 5)]


def test_a_resumed_run_shows_both_attempts_and_cumulative_usage(store):
    workflows = registry()
    broken = launch("sequence", store, workflows, args={"calls": 3}, runner=FailingRunner({"step-2"}, tokens=5))
    resumed = launch("sequence", store, workflows, resume=broken.run_id, runner=MockAgentRunner(tokens=5))
    text = render(resumed, "text").splitlines()  # the call that failed reached the runner: it counts, with no tokens
    assert "TASK       local_workflow_" + resumed.run_id + " (attempt 2, resumed)" in text
    assert "ATTEMPTS   #1 failed (3 run, 0 cached) · #2 completed (1 run, 2 cached)" in text
    assert "USAGE      this attempt 1 agents, 5 tokens · cumulative 4 agents, 15 tokens" in text
    assert badges(render(resumed, "html")) == [("completed", "ok")]
    failed_html = render(broken, "html")
    assert ("failed", "bad") in badges(failed_html) and "runner broke on step-2" in failed_html


# --- a run's journal, read back ------------------------------------------------------------------


def test_a_read_back_run_shows_one_page_of_the_journal_with_the_attempt_of_each_row(store):
    workflows = registry()
    calls = JOURNAL_PAGE + 10
    broken = launch("sequence", store, workflows, args={"calls": calls}, runner=FailingRunner({"step-12"}))
    launch("sequence", store, workflows, resume=broken.run_id)
    record = load_run(broken.run_id, store=store)
    rows = table_rows(render(record, "html").split("<th>seq</th>")[1])
    assert len(rows) == JOURNAL_PAGE
    # seq counts every line (an ask before each call); step-12's failure is a row of its own, a spend line
    assert [(row[0], row[1], row[2], row[3]) for row in rows[11:14]] == [
        ("24", "1", "done, cached", "step-11"), ("26", "1", "spent: failed, cached", "step-12"),
        ("28", "2", "done", "step-12")]
    text = render(record, "text").splitlines()
    assert f"journal: rows 1–{JOURNAL_PAGE} of {calls + 1} · page 1 of 2 · .page(2) shows the next" in text


def test_page_shows_the_next_rows_and_the_last_page_says_so(store):
    calls = JOURNAL_PAGE + 10
    run = launch("sequence", store, registry(), args={"calls": calls})
    record = load_run(run.run_id, store=store)
    assert "journal: rows 1–20 of 30 · page 1 of 2 · .page(2) shows the next" in render(record, "html")
    last = record.page(2)
    assert [row[3] for row in table_rows(render(last, "html").split("<th>seq</th>")[1])] == [
        f"step-{number}" for number in range(JOURNAL_PAGE, calls)]
    assert "journal: rows 21–30 of 30 · page 2 of 2" in render(last, "text").splitlines()
    assert last.page(1).journal_page == 1 and record.pages == 2


@pytest.mark.parametrize("number", [0, 3, "2", 1.0])
def test_page_refuses_a_page_the_journal_does_not_have(store, number):
    run = launch("sequence", store, registry(), args={"calls": JOURNAL_PAGE + 1})
    with pytest.raises(ReplayError, match="page must be a whole number from 1 to 2") as refused:
        load_run(run.run_id, store=store).page(number)
    assert refused.value.code == "INVALID_OPTION"


def test_long_values_are_clipped_so_the_output_stays_small(store):
    workflows = registry()
    huge = "x" * 100_000
    run = launch("fanout", store, workflows, args={"calls": 200}, runner=MockAgentRunner(
        {f"item-{number}": huge for number in range(200)}))
    html = render(load_run(run.run_id, store=store), "html")
    assert len(html) < 20_000
    assert "x" * 79 + "…" in html and "x" * 81 not in html
    assert len(render(run, "html")) < 5_000


# --- registry and live progress -------------------------------------------------------------------


def test_the_default_registry_lists_review_changes_with_its_phases_and_args():
    takes = "changes (string, required): the change to review, as a diff or a description"
    assert ["<code>review-changes</code>", "Review code changes", "Review → Verify", takes] in table_rows(
        render(DEFAULT_REGISTRY, "html"))
    shown = render(DEFAULT_REGISTRY, "text").splitlines()
    assert f"review-changes  Review code changes  [Review → Verify]  args: {takes}" in shown


def test_progress_bar_counts_finished_calls_of_those_started_with_the_phase():
    tally = CallTally()
    events = [{"type": "workflow_phase", "title": "Verify"}]
    events += [{"type": "workflow_agent", "status": "cached", "label": f"c{n}"} for n in range(2)]
    events += [{"type": "workflow_agent", "status": "started", "label": f"n{n}"} for n in range(2)]
    events += [{"type": "workflow_agent", "status": "done", "label": "n0"}]
    for event in events:
        tally.add(event)
    assert progress_bar(tally, width=8) == "[######··] 3/4 calls (2 cached) · Verify"
    tally.add({"type": "workflow_agent", "status": "cancelled", "label": "n1"})
    assert progress_bar(tally, width=8) == "[########] 4/4 calls (2 cached, 1 cancelled) · Verify"


def test_event_lines_skip_started_calls_and_name_failures():
    assert event_line({"type": "workflow_agent", "status": "started", "label": "a"}) is None
    assert event_line({"type": "workflow_agent", "status": "failed", "label": "a", "error": "boom"}) == (
        "failed   a  boom")
    assert event_line({"type": "workflow_log", "message": "hi\x1b"}) == "log      hi\\x1b"
